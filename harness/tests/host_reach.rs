//! Hostile players of issue 28 that reach for the host or a later test: device files,
//! keyrings, the OOM killer (and a supervisor killed anyway), root-only /proc and the host
//! paths of mountinfo, TCP metrics and other notes left in the pooled network namespace.
//! Each runs beside the good player in the namespace mode (the default) and, where the row
//! concerns it, in process mode; as root (as CI does: the player must then be an
//! unprivileged host user, never root) and with the harness started as an unprivileged user
//! (`setpriv`; given cgroups of its own where the row needs one). Each fixture proves it ran
//! its attack (a line the test looks for) before the test judges that it was held.

#[path = "support/containment.rs"]
mod containment;
mod support;

use std::os::unix::fs::MetadataExt;

use containment::{expect_blocked, expect_verdict, free_uid, reached, Mode, Plan, Scratch};

/// Why the `_unprivileged` tests need root: they start the harness as another user.
const SWITCHES_USER: &str = "starts the harness as another user (setpriv)";

/// What the host's device file is (mode, owner, times), to be the same after a run.
fn device(path: &str) -> (u32, u32, u32, i64, i64, i64, i64) {
    let m = std::fs::metadata(path).unwrap();
    (
        m.mode(),
        m.uid(),
        m.gid(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    )
}

const DEVICE_ATTEMPTS: [&str; 5] = [
    "chmod /dev/zero 1666",
    "chmod /dev/null 000",
    "chown /dev/null",
    "utimensat /dev/null now",
    "utimensat /dev/null 1970",
];

/// `chmod`, `chown` and `utimensat` on /dev/zero and /dev/null: each refused, the devices
/// still usable, and the host's nodes unchanged (under a root harness a player that was host
/// root would own them). In process mode the nodes are the host's own, which any user may
/// stamp with the time of now (as a write does): only that is allowed there.
fn device_files(mode: Mode, as_user: Option<u32>) {
    // One at a time: a process-mode run may stamp the host's /dev/null with the time of now,
    // which a sandboxed run beside it would see as a change.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let s = Scratch::new("device-files");
    let players = vec![s.hostile("device-files", "device-files", &[]), s.good()];
    let plan = Plan::new(&s, mode, &[1], players);
    let before = (device("/dev/zero"), device("/dev/null"));
    let rows = match as_user {
        None => plan.run_and_check().1,
        Some(uid) => plan.run_as_and_check(uid).1,
    };
    let after = (device("/dev/zero"), device("/dev/null"));
    if mode == Mode::Off {
        // The host's own nodes, which every write to them (the fixture's "usable" check,
        // any program of the machine) stamps: their mode and owner unchanged, and no time
        // set back (its utimensat to 1970).
        let fixed = |d: (u32, u32, u32, i64, i64, i64, i64)| (d.0, d.1, d.2);
        assert_eq!(
            (fixed(before.0), fixed(before.1)),
            (fixed(after.0), fixed(after.1)),
            "the host's /dev/zero or /dev/null changed"
        );
        assert!(
            after.0 .3 >= before.0 .3 && after.1 .3 >= before.1 .3,
            "a device's time was set back: {before:?} -> {after:?}"
        );
    } else {
        assert_eq!(before, after, "the host's /dev/zero or /dev/null changed");
    }
    expect_verdict(&rows, "device-files", &["OK"]);
    let log = s.log("device-files", 1);
    assert!(log.contains("USABLE /dev/zero and /dev/null"), "{log}");
    // Setting a file's times to now needs only the right to write it, which every user of
    // the machine has on the host's /dev/null (a write stamps it the same way).
    let anyone_may = |what: &str| mode == Mode::Off && what == "utimensat /dev/null now";
    let reached_lines: Vec<&str> = reached(&log)
        .into_iter()
        .filter(|l| !anyone_may(l.trim_start_matches("REACHED ")))
        .collect();
    assert!(reached_lines.is_empty(), "{log}");
    for what in DEVICE_ATTEMPTS.iter().filter(|w| !anyone_may(w)) {
        expect_blocked(&log, what);
    }
}

#[test]
fn device_files_of_the_host_stay_as_they_are_sandboxed() {
    device_files(Mode::Default, None);
}

#[test]
fn device_files_of_the_host_stay_as_they_are_sandboxed_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    device_files(Mode::Default, Some(free_uid(62_000)));
}

#[test]
fn device_files_of_the_host_stay_as_they_are_process_mode() {
    // Under a root harness: the player must not be root, who owns the nodes.
    if !support::needs_root("a root harness's player") {
        return;
    }
    device_files(Mode::Off, None);
}

#[test]
fn device_files_of_the_host_stay_as_they_are_process_mode_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    device_files(Mode::Off, Some(free_uid(62_050)));
}

/// keyctl(2) and add_key(2), for the keyring test.
fn keyctl(cmd: libc::c_long, a: libc::c_long, b: libc::c_long, c: libc::c_long) -> libc::c_long {
    // SAFETY: the callers pass valid pointers (or none) for the command.
    unsafe { libc::syscall(libc::SYS_keyctl, cmd, a, b, c, 0) }
}
const KEYCTL_SEARCH: libc::c_long = 10;
const KEYCTL_READ: libc::c_long = 11;
const KEYCTL_UNLINK: libc::c_long = 9;
const KEY_SPEC_SESSION: libc::c_long = -3;
const KEY_SPEC_USER: libc::c_long = -4;
const KEY_SPEC_USER_SESSION: libc::c_long = -5;

/// Whether a `user` key of this description is reachable from `ring` of the test process.
fn key_in(ring: libc::c_long, description: &str) -> bool {
    let c = std::ffi::CString::new(description).unwrap();
    keyctl(KEYCTL_SEARCH, ring, c"user".as_ptr() as _, c.as_ptr() as _) >= 0
}

/// The keyring player, three tests one after the other, and afterwards the planted key is as
/// it was and no note reached this process's keyrings. In the sandbox each test finds an
/// empty session keyring, can neither read nor describe the key this test planted in its own
/// session keyring, and finds no note of the tests before it (neither by search nor by
/// `request_key`) though each leaves one in its session, user and user-session keyrings (its
/// user namespace's, new for each test). In process mode the user keyrings would be the
/// player id's, shared by every test of the run and left on the host after it: there the
/// seccomp filter refuses every keyring call, so each attempt is refused with `EPERM` (the
/// filter's answer: a fresh session keyring of one's own is readable otherwise) and no note
/// is written anywhere.
fn keyring(mode: Mode, as_user: Option<u32>) {
    let s = Scratch::new("keyring");
    let secret = format!("planted-{}", s.token());
    let description = std::ffi::CString::new(format!("planted-key-{}", s.token())).unwrap();
    // SAFETY: valid C strings and buffer for add_key(2).
    let planted = unsafe {
        libc::syscall(
            libc::SYS_add_key,
            c"user".as_ptr(),
            description.as_ptr(),
            secret.as_ptr(),
            secret.len(),
            KEY_SPEC_SESSION,
        )
    };
    assert!(planted > 0, "add_key: {}", std::io::Error::last_os_error());
    let serial = if as_user.is_some() { 0 } else { planted };
    let players = vec![
        s.hostile("keyring", "keyring", &[&serial.to_string()]),
        s.good(),
    ];
    let mut plan = Plan::new(&s, mode, &[1, 2, 3], players);
    plan.threads = 1;
    let rows = match as_user {
        None => plan.run_and_check().1,
        Some(uid) => plan.run_as_and_check(uid).1,
    };
    expect_verdict(&rows, "keyring", &["OK"]);
    // The fixture's words for EPERM: strerror(3)'s, as its `report` prints them.
    // SAFETY: strerror returns a valid C string, copied at once.
    let refused = unsafe { std::ffi::CStr::from_ptr(libc::strerror(libc::EPERM)) }
        .to_string_lossy()
        .into_owned();
    for seed in [1, 2, 3] {
        let log = s.log("keyring", seed);
        let mut attempts = vec![
            "list its session keyring".to_string(),
            "request the note of an earlier test".to_string(),
        ];
        if as_user.is_none() {
            attempts.push("read the planted key".into());
            attempts.push("describe the planted key".into());
        }
        for ring in ["session", "user", "user-session"] {
            attempts.push(format!("note of an earlier test in its {ring} keyring"));
            let wrote = format!("WROTE note in its {ring} keyring");
            let not_written = format!("NOT-WRITTEN note in its {ring} keyring: {refused}");
            if mode == Mode::Off {
                assert!(
                    log.lines().any(|l| l == not_written) && !log.contains(&wrote),
                    "seed {seed}: expected `{not_written}` (the seccomp filter):\n{log}"
                );
            } else {
                assert!(
                    log.contains(&wrote),
                    "seed {seed}: the player left no note in its {ring} keyring:\n{log}"
                );
            }
        }
        for what in &attempts {
            expect_blocked(&log, what);
            if mode == Mode::Off {
                let line = format!("BLOCKED {what}: {refused}");
                assert!(
                    log.lines().any(|l| l == line),
                    "seed {seed}: expected `{line}` (the seccomp filter):\n{log}"
                );
            }
        }
    }
    let mut buf = vec![0u8; 256];
    let n = keyctl(KEYCTL_READ, planted, buf.as_mut_ptr() as _, buf.len() as _);
    assert_eq!(
        n as usize,
        secret.len(),
        "the planted key: {}",
        std::io::Error::last_os_error()
    );
    assert_eq!(&buf[..secret.len()], secret.as_bytes());
    let note = format!("harness-note-{}", s.tag());
    for ring in [KEY_SPEC_SESSION, KEY_SPEC_USER, KEY_SPEC_USER_SESSION] {
        assert!(
            !key_in(ring, &note),
            "a player's note reached keyring {ring}"
        );
    }
    keyctl(KEYCTL_UNLINK, planted, KEY_SPEC_SESSION, 0);
}

#[test]
fn keyring_is_fresh_and_empty_per_test_sandboxed() {
    // As root, the planted key is root's and the player never is: it may not even describe
    // it (a player of your own user may describe, not read, a key you planted).
    if !support::needs_root("the planted key belongs to another user than the player") {
        return;
    }
    keyring(Mode::Default, None);
}

#[test]
fn keyring_is_fresh_and_empty_per_test_sandboxed_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    keyring(Mode::Default, Some(free_uid(62_100)));
}

#[test]
fn keyring_is_out_of_reach_process_mode() {
    if !support::needs_root("the planted key belongs to another user than the player") {
        return;
    }
    keyring(Mode::Off, None);
}

#[test]
fn keyring_is_out_of_reach_process_mode_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    keyring(Mode::Off, Some(free_uid(62_150)));
}

/// Unix socket buffers filled and never read, under a 256 MB limit: the kernel's OOM killer
/// chooses in the test's memory group, where only the player's processes are (not its
/// supervisor, not its init): MLE, never a verdict about its output. `as_user`: the harness
/// of that user, with cgroups given to it (without one, socket buffers are not counted, as
/// docs/containment.md says).
fn socket_buffers(mode: Mode, as_user: Option<u32>) {
    let s = Scratch::new("socket-buffers");
    let players = vec![s.hostile("socket-buffers", "socket-buffers", &[]), s.good()];
    let plan = Plan::new(&s, mode, &[1, 2], players);
    let rows = match as_user {
        None => plan.run_and_check().1,
        Some(uid) => {
            let groups = containment::Delegated::new(uid, &s.token());
            plan.check_run(groups.wrap(&plan.command_as(uid)), 0).1
        }
    };
    for row in expect_verdict(&rows, "socket-buffers", &["MLE"]) {
        assert!(row["reason"].contains("memory limit 256 MB"), "{row:?}");
        let log = s.log("socket-buffers", row["seed"].parse().unwrap());
        assert!(log.contains("FILLING socket buffers"), "{log}");
        assert!(
            !log.contains("in all"),
            "the fill was never stopped:\n{log}"
        );
    }
}

#[test]
fn socket_buffers_over_the_limit_are_mle_sandboxed() {
    if !support::needs_root("a cgroup per test, which counts socket buffers") {
        return;
    }
    socket_buffers(Mode::Default, None);
}

#[test]
fn socket_buffers_over_the_limit_are_mle_process_mode() {
    if !support::needs_root("a cgroup per test, which counts socket buffers") {
        return;
    }
    socket_buffers(Mode::Off, None);
}

#[test]
fn socket_buffers_over_the_limit_are_mle_sandboxed_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    socket_buffers(Mode::Default, Some(free_uid(62_700)));
}

#[test]
fn socket_buffers_over_the_limit_are_mle_process_mode_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    socket_buffers(Mode::Off, Some(free_uid(62_750)));
}

/// The files of /proc that container runtimes hide and that only root may read, and a knob
/// of /proc/sys: none read or written; and mountinfo names no host path: a mount of a host
/// file system is shown at its own path (the system folders, the player's own files), every
/// other mount is the sandbox's own (tmpfs, proc, the device nodes).
fn proc_root(as_user: Option<u32>) {
    let s = Scratch::new("proc-root");
    let players = vec![s.hostile("proc-root", "proc-root", &[]), s.good()];
    let plan = Plan::new(&s, Mode::Default, &[1], players);
    let rows = match as_user {
        None => plan.run_and_check().1,
        Some(uid) => plan.run_as_and_check(uid).1,
    };
    expect_verdict(&rows, "proc-root", &["OK"]);
    proc_root_held(&s.log("proc-root", 1));
}

/// What the `proc-root` fixture's log must show: every attempt made and refused, and no
/// host path in its mountinfo.
fn proc_root_held(log: &str) {
    assert!(reached(log).is_empty(), "{log}");
    for file in ["kcore", "keys", "timer_list", "slabinfo", "vmallocinfo"] {
        let path = format!("/proc/{file}");
        if std::path::Path::new(&path).exists() {
            expect_blocked(log, &format!("read {path}"));
        }
    }
    expect_blocked(log, "write /proc/sys/kernel");
    let mounts: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("MOUNT "))
        .collect();
    assert!(mounts.len() > 5, "no mountinfo:\n{log}");
    for line in mounts {
        let (left, right) = line.split_once(" - ").unwrap();
        let fields: Vec<&str> = left.split(' ').collect();
        let (root, point, fstype) = (fields[3], fields[4], right.split(' ').next().unwrap());
        // Nothing is kept under the box's mount point but the box (a covered mount shows).
        assert!(
            !point.starts_with("/box/"),
            "a mount under the box:\n{line}"
        );
        let own = ["tmpfs", "proc", "devtmpfs"].contains(&fstype);
        assert!(
            own || root == "/" || root == point,
            "mountinfo shows a host path ({root} at {point}):\n{line}"
        );
    }
    assert!(!log.contains("harness-run-"), "{log}");
}

#[test]
fn proc_hides_what_containers_hide_sandboxed() {
    proc_root(None);
}

#[test]
fn proc_hides_what_containers_hide_sandboxed_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    proc_root(Some(free_uid(62_200)));
}

/// The `proc-root` fixture's folder moved below each of the places a test's box covers
/// (/tmp, /var/tmp, /dev/shm), where the kept view shows it again in each test (by a kept
/// init with a cgroup, by a test's own init without): over three tests, each one's
/// mountinfo (which lists covered mounts too) names no host path.
#[test]
fn a_player_below_the_boxs_places_shows_no_host_path() {
    let places = ["/tmp", "/var/tmp", "/dev/shm"];
    for (place, mode) in places
        .iter()
        .flat_map(|p| [(p, Mode::Default), (p, Mode::NoCgroup)])
    {
        let s = Scratch::new("proc-root-placed");
        let built = s.hostile("proc-root", "proc-root", &[]);
        // Named without the test's token, which the run's check looks for as a leftover.
        let placed = tempfile::Builder::new()
            .prefix("harness-placed-")
            .tempdir_in(place)
            .unwrap();
        let dir = placed.path().to_path_buf();
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        for entry in std::fs::read_dir(&built).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
        let mut plan = Plan::new(&s, mode, &[1, 2, 3], vec![dir.clone(), s.good()]);
        plan.threads = 1;
        let rows = plan.run_and_check().1;
        expect_verdict(&rows, "proc-root", &["OK"]);
        for seed in [1, 2, 3] {
            let log = s.log("proc-root", seed);
            // Its own folder is shown at its path (a line of its mountinfo).
            assert!(log.contains(&dir.display().to_string()), "{place}:\n{log}");
            proc_root_held(&log);
        }
    }
}

/// Three tests one after the other in the run's pooled network namespace, each after a TCP
/// exchange (and a Fast Open connect) on 127.H.W.K: none finds a saved TCP metric or a
/// TIME_WAIT connection of the tests before it. What the pool does share, as
/// docs/containment.md says: the loopback's counters (the third test sees the bytes of the
/// first two).
fn tcp_metrics(as_user: Option<u32>) {
    let s = Scratch::new("tcp-metrics");
    let players = vec![s.hostile("tcp-metrics", "tcp-metrics", &[]), s.good()];
    let mut plan = Plan::new(&s, Mode::Default, &[1, 2, 3], players);
    plan.threads = 1;
    let rows = match as_user {
        None => plan.run_and_check().1,
        Some(uid) => plan.run_as_and_check(uid).1,
    };
    expect_verdict(&rows, "tcp-metrics", &["OK"]);
    for seed in [1, 2, 3] {
        let log = s.log("tcp-metrics", seed);
        assert!(
            log.lines().any(|l| l.starts_with("NOTED 127.")),
            "seed {seed}: no exchange:\n{log}"
        );
        assert!(reached(&log).is_empty(), "seed {seed}:\n{log}");
        expect_blocked(&log, "note of an earlier test in tcp_metrics");
        expect_blocked(&log, "note of an earlier test in TIME_WAIT");
    }
    let counted = |seed: u64| -> u64 {
        let log = s.log("tcp-metrics", seed);
        log.lines()
            .find_map(|l| l.strip_prefix("COUNTED lo received "))
            .and_then(|rest| rest.split(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("seed {seed}: no loopback counter:\n{log}"))
    };
    assert!(
        counted(3) > counted(1),
        "the pooled namespace's loopback counters were not kept from test to test"
    );
}

#[test]
fn tcp_metrics_pass_nothing_between_tests_sandboxed() {
    tcp_metrics(None);
}

#[test]
fn tcp_metrics_pass_nothing_between_tests_sandboxed_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    tcp_metrics(Some(free_uid(62_300)));
}

/// The pid's parent, from /proc/PID/status.
fn parent_of(pid: i32) -> Option<i32> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("PPid:"))?
        .trim()
        .parse()
        .ok()
}

/// The supervisors of the tests whose player runs `name` with its child: the ancestor of
/// such a process whose parent is the harness (`harness`).
fn supervisors_of(tag: &str, name: &str, harness: i32) -> Vec<i32> {
    let pids: Vec<i32> = containment::running_with(tag)
        .iter()
        .filter(|line| line.contains(name))
        .filter_map(|line| line.split(':').next()?.parse().ok())
        .collect();
    let mut found: Vec<i32> = pids
        .iter()
        .filter_map(|&pid| {
            let mut pid = pid;
            for _ in 0..4 {
                let parent = parent_of(pid)?;
                if parent == harness {
                    return Some(pid);
                }
                pid = parent;
            }
            None
        })
        .collect();
    found.sort();
    found.dedup();
    // Only a test whose player and child both run (the child is a process to end too).
    let counted = |sup: &i32| {
        pids.iter()
            .filter(|&&p| {
                let mut p = p;
                (0..4).any(|_| {
                    p = parent_of(p).unwrap_or(1);
                    p == *sup
                })
            })
            .count()
    };
    found.retain(|sup| counted(sup) >= 2);
    found
}

/// The supervisor of a test dies (killed from outside, as the OOM killer or an operator
/// might): the test is ERR, with the reason, never a verdict about the player; every process
/// of the test is gone with it; the good player's tests and the run go on.
fn supervisor_killed(mode: Mode, as_user: Option<u32>) {
    supervisor_killed_in(mode, as_user, None);
}

/// [`supervisor_killed`], with the harness of user `as_user` given cgroups of its own
/// (`delegated`, their name: the test's cgroup is how the harness finds a process-mode test's processes).
fn supervisor_killed_in(mode: Mode, as_user: Option<u32>, delegated: Option<&str>) {
    let s = Scratch::new("supervisor-kill");
    let players = vec![
        s.hostile("supervisor-kill", "supervisor-kill", &["20000"]),
        s.good(),
    ];
    let mut plan = Plan::new(&s, mode, &[1, 2], players);
    plan.limits.time = 30.0;
    let groups = delegated.map(|name| containment::Delegated::new(as_user.unwrap(), name));
    let mut cmd = match (as_user, &groups) {
        (None, _) => plan.command(),
        (Some(uid), None) => plan.command_as(uid),
        (Some(uid), Some(groups)) => groups.wrap(&plan.command_as(uid)),
    };
    let started = containment::start(&mut cmd);
    let harness = started.child.id() as i32;
    let mut killed = Vec::new();
    // Each of its two tests, one after the other (its tests hold 20 s; the deadline only
    // turns a hang into a failure).
    while killed.len() < 2 && started.elapsed() < plan.deadline() {
        for supervisor in supervisors_of(&s.tag(), "supervisor-kill", harness) {
            if !killed.contains(&supervisor) {
                // SAFETY: a process of the harness this test started.
                unsafe { libc::kill(supervisor, libc::SIGKILL) };
                killed.push(supervisor);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(killed.len(), 2, "the test found no supervisor to kill");
    let ran = started.finish(plan.deadline());
    support::expect_exit(&ran.output, 1);
    let rows = support::scores(&s.results());
    assert_eq!(rows.len(), 4, "{rows:?}");
    plan.check_rows(&rows);
    let left = s.left_running();
    assert!(left.is_empty(), "processes left running: {left:#?}");
    for row in expect_verdict(&rows, "supervisor-kill", &["ERR"]) {
        let seed: u64 = row["seed"].parse().unwrap();
        let log = s.log("supervisor-kill", seed);
        assert!(
            log.contains("WAITING 20000 ms with a child"),
            "seed {seed}:\n{log}"
        );
        // The process under the harness that holds the player is the test's supervisor, or,
        // for a player run by its kept init, that init's helper, with which the init ends.
        assert!(
            row["reason"].contains("supervisor ended without a report")
                || row["reason"].contains("kept init ended without a report"),
            "{row:?}"
        );
    }
}

#[test]
fn a_killed_supervisor_is_err_with_its_reason_sandboxed() {
    supervisor_killed(Mode::Default, None);
}

#[test]
fn a_killed_supervisor_is_err_with_its_reason_process_mode() {
    if !support::needs_root("a root harness's player") {
        return;
    }
    supervisor_killed(Mode::Off, None);
}

#[test]
fn a_killed_supervisor_is_err_with_its_reason_sandboxed_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    supervisor_killed(Mode::Default, Some(free_uid(62_400)));
}

/// In process mode under an unprivileged user's harness, with cgroups given to it: the
/// test's cgroup is what ends the processes the dead supervisor left (without one, what the
/// player started outlives it, as docs/containment.md says).
#[test]
fn a_killed_supervisor_is_err_with_its_reason_process_mode_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    let name = format!("supervisor-kill-{}", std::process::id());
    supervisor_killed_in(Mode::Off, Some(free_uid(62_600)), Some(&name));
}

/// Three tests one after the other in the run's pooled network namespace, each leaving notes
/// there by what outlives a process (a flow label lingering 150 s, an abstract Unix name held
/// by a socket in flight) and looking first for the earlier tests' notes and for any socket
/// or flow label in /proc/net: none finds any (a namespace that still holds one does not go
/// back to the pool).
fn net_notes(as_user: Option<u32>) {
    let s = Scratch::new("net-notes");
    // The name on the host too: the pool's namespace does not show it.
    let _held = host_abstract_name(&s);
    let players = vec![s.hostile("net-notes", "net-notes", &[]), s.good()];
    let mut plan = Plan::new(&s, Mode::Default, &[1, 2, 3], players);
    plan.threads = 1;
    let rows = match as_user {
        None => plan.run_and_check().1,
        Some(uid) => plan.run_as_and_check(uid).1,
    };
    expect_verdict(&rows, "net-notes", &["OK"]);
    for seed in [1, 2, 3] {
        let log = s.log("net-notes", seed);
        for what in ["a flow label", "an abstract Unix name"] {
            assert!(
                log.lines()
                    .any(|l| l.starts_with(&format!("WROTE note in {what}"))),
                "seed {seed}: no note left in {what}:\n{log}"
            );
            expect_blocked(&log, &format!("note of an earlier test in {what}"));
        }
        for table in [
            "tcp",
            "tcp6",
            "udp",
            "udp6",
            "raw",
            "raw6",
            "unix",
            "ip6_flowlabel",
        ] {
            expect_blocked(
                &log,
                &format!("note of an earlier test in /proc/net/{table}"),
            );
        }
        assert!(reached(&log).is_empty(), "seed {seed}:\n{log}");
    }
}

/// A Unix socket of this test bound to the abstract name the `net-notes` player of `s` looks
/// for (as an earlier test of it would leave), in the host's network namespace.
fn host_abstract_name(s: &Scratch) -> std::os::unix::net::UnixDatagram {
    use std::os::linux::net::SocketAddrExt;
    let tag = s.tag();
    let tail = &tag[tag.len().saturating_sub(60)..];
    let addr =
        std::os::unix::net::SocketAddr::from_abstract_name(format!("harness-note-{tail}")).unwrap();
    std::os::unix::net::UnixDatagram::bind_addr(&addr).unwrap()
}

/// The same player in process mode, under a root harness: it shares the host's network
/// namespace, where its seccomp filter refuses the IPv6 socket of a flow label, but abstract
/// Unix names are the host's: it finds the one this test holds on the host in use (and a name
/// it leaves held by a socket in flight may reach a later test until the kernel's collector
/// frees it; docs/containment.md lists this among what process mode does not cover).
#[test]
fn notes_in_the_hosts_network_namespace_process_mode() {
    if !support::needs_root("a root harness's player") {
        return;
    }
    let s = Scratch::new("net-notes");
    let _held = host_abstract_name(&s);
    let players = vec![s.hostile("net-notes", "net-notes", &[]), s.good()];
    let mut plan = Plan::new(&s, Mode::Off, &[1, 2], players);
    plan.threads = 1;
    let rows = plan.run_and_check().1;
    expect_verdict(&rows, "net-notes", &["OK"]);
    for seed in [1, 2] {
        let log = s.log("net-notes", seed);
        expect_blocked(&log, "leave a note in a flow label");
        assert!(
            log.contains("REACHED note of an earlier test in an abstract Unix name"),
            "process mode's abstract Unix names are the host's, yet:\n{log}"
        );
    }
}

#[test]
fn notes_in_the_pooled_network_namespace_reach_no_later_test_sandboxed() {
    net_notes(None);
}

#[test]
fn notes_in_the_pooled_network_namespace_reach_no_later_test_sandboxed_unprivileged() {
    if !support::needs_root(SWITCHES_USER) {
        return;
    }
    net_notes(Some(free_uid(62_500)));
}
