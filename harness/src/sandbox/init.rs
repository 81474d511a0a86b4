//! The test's init: starts the player, reaps every process of the test as it ends, and at the
//! end of the test kills and reaps all that is left, then reports the player's exit and the
//! CPU time of the whole tree. In the namespace mode it is PID 1 of the test's PID namespace
//! (so its end is the end of every process in it); in process mode it is the supervisor
//! itself, a child subreaper to which escaped grandchildren are reparented.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use super::cgroup::TestGroup;
use super::spec::{Mode, Report, Spec, StartError};
use super::supervisor::Command;
use super::tree_cpu::{self, cpu_us_of, stat_fields, TreeCpu};
use super::{spawn_shared, sys, view};

/// Time allowed to kill and reap what is left of a test.
const REAP: Duration = Duration::from_secs(1);

/// The init of a namespaced test: builds the player's view, runs the test, reports to the
/// supervisor; never returns.
pub(crate) fn namespace_init(
    spec: &Spec,
    stop: OwnedFd,
    report_pipe: OwnedFd,
    entrances: &[OwnedFd],
) -> ! {
    // Nobody in the test may trace the init or read its memory.
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    // Left out (the attribution build only): the test runs in its copy of the host's mounts,
    // from /tmp (its working folder is the view's).
    let unviewed;
    let (spec, built) = if super::attribution::skips("view") {
        unviewed = Spec {
            cwd: "/tmp".into(),
            ..spec.clone()
        };
        (&unviewed, Ok(()))
    } else {
        let built = view::build(spec).map_err(|e| StartError::Setup(format!("sandbox: {e}")));
        (spec, built)
    };
    report_after(spec, built, stop, report_pipe, entrances)
}

/// Once the init's view is `built` (or not), the init no longer dumpable: runs the test,
/// writes the report to the supervisor, and ends the init (the kernel then ends every process
/// left in the namespace).
pub(crate) fn report_after(
    spec: &Spec,
    built: Result<(), StartError>,
    stop: OwnedFd,
    report_pipe: OwnedFd,
    entrances: &[OwnedFd],
) -> ! {
    let report = match built {
        Ok(()) => run(spec, &stop, None, entrances),
        Err(e) => Report {
            start_error: Some(e),
            ..Report::default()
        },
    };
    let mut line = serde_json::to_vec(&report).unwrap_or_default();
    line.push(b'\n');
    let _ = std::fs::File::from(report_pipe).write_all(&line);
    exit_now(0)
}

/// Starts the player and supervises it until it ends or `stop` reads end of file. The player
/// enters the test's cgroup through `entrances` ([`TestGroup::entrances`]) before its exec.
pub fn run(
    spec: &Spec,
    stop: &OwnedFd,
    group: Option<&TestGroup>,
    entrances: &[OwnedFd],
) -> Report {
    run_in(spec, stop, group, entrances, None)
}

/// [`run`], by a kept init ([`super::kept_init`]) when `kept` is its /proc/sys: the player
/// then makes its own user and IPC namespaces. The CPU time and peak memory of what was
/// reaped are those of this test's processes alone ([`Used`]), the caller's reaped
/// children before it left out.
pub(super) fn run_in(
    spec: &Spec,
    stop: &OwnedFd,
    group: Option<&TestGroup>,
    entrances: &[OwnedFd],
    kept: Option<&std::fs::File>,
) -> Report {
    let fail = |error: StartError| Report {
        start_error: Some(error),
        ..Report::default()
    };
    let command = match Command::new(spec) {
        Ok(c) => c,
        Err(e) => return fail(StartError::Exec(e.to_string())),
    };
    let sigchld = match sys::sigchld_fd() {
        Ok(fd) => fd,
        Err(e) => return fail(StartError::of_setup(&e, "signalfd")),
    };
    let (err_r, err_w) = match sys::pipe() {
        Ok(p) => p,
        Err(e) => return fail(StartError::of_setup(&e, "pipe")),
    };
    // The player's process shares this one's memory until its exec; this process waits
    // meanwhile, as it would anyway: it learns whether the exec happened from the start pipe
    // ([`start_error`]), a held program's ([`Spec::hold`]) once its go has come.
    let mut child =
        || -> std::convert::Infallible { start_player(spec, &command, entrances, kept, &err_w) };
    let player = match spawn_shared::spawn(&mut child) {
        Ok(pid) => pid,
        Err(e) => return fail(StartError::of_setup(&e, "cannot start the player")),
    };
    drop(err_w);
    sys::detach_stdio();
    let mut report = Report {
        start_error: start_error(err_r),
        ..Report::default()
    };
    let mut used = Used::default();
    let peak_kb = watch(spec, player, group, stop, &sigchld, &mut report, &mut used);
    let leftover = end_all(spec.mode, player, group, &sigchld, &mut used);
    report.all_gone = leftover.is_empty();
    if !leftover.is_empty() {
        report.notes.push(leftover);
    }
    report.cpu_us = used.reaped_cpu_us;
    if !report.all_gone {
        report.cpu_us += unreaped_cpu_us(spec.mode, player);
    }
    // What the kernel reaped (children of a process that ignores SIGCHLD) reached no wait:
    // the sampled tree then shows more.
    report.cpu_us = report.cpu_us.max(used.tree.total_us());
    report.max_memory_kb = used.max_rss_kb.max(peak_kb);
    report
}

/// What the processes of a test used: added up as each is reaped, their CPU time (µs) and
/// largest peak RSS (KiB), which is what the caller's `RUSAGE_CHILDREN` would add for them,
/// for this test alone (a kept init's holds every test's); and the tree's CPU time sampled
/// while they ran ([`tree_cpu`]), which also sees what the kernel reaped.
#[derive(Default)]
struct Used {
    tree: TreeCpu,
    reaped_cpu_us: u64,
    max_rss_kb: u64,
}

impl Used {
    /// Reaps every ended child (never blocks), counting each; returns the `player`'s exit
    /// if it was among them.
    fn reap(&mut self, player: libc::pid_t) -> Option<super::spec::Exit> {
        let mut exit = None;
        while let Ok(Some(w)) = sys::wait(-1, false) {
            self.reaped_cpu_us += w.cpu_us;
            self.max_rss_kb = self.max_rss_kb.max(w.max_rss_kb);
            if w.pid == player {
                exit = Some(w.exit);
            }
        }
        exit
    }
}

/// What the player's process said before its exec, if it failed: a refusal of the machine
/// (out of processes or memory), an exec error, or a failed step of its setup.
fn start_error(err_r: OwnedFd) -> Option<StartError> {
    let mut why = String::new();
    let _ = std::fs::File::from(err_r).read_to_string(&mut why);
    if let Some(rest) = why.strip_prefix("exec ") {
        let errno: i32 = rest.trim().parse().unwrap_or(0);
        let e = std::io::Error::from_raw_os_error(errno);
        Some(if StartError::is_refusal(&e) {
            StartError::Refused(format!("exec: {e}"))
        } else {
            StartError::Exec(e.to_string())
        })
    } else {
        why.strip_prefix("setup ")
            .map(|rest| StartError::Setup(rest.trim().to_string()))
    }
}

/// Reaps as processes end, until the player's own end or until told to stop (`stop`
/// readable); sets the player's exit in `report`. Without a cgroup, the tree's memory is
/// watched by sampling: every process of the test, its resident memory less shared file
/// pages, summed; over the limit, the test ends MLE (not sampled at a wake-up where nothing of
/// the test is alive any more: [`only_ended`]). Without a per-test CPU counter, the tree's
/// CPU time is sampled into `cpu` ([`tree_cpu`]). Returns the sampled peak memory (KB).
fn watch(
    spec: &Spec,
    player: libc::pid_t,
    group: Option<&TestGroup>,
    stop: &OwnedFd,
    sigchld: &OwnedFd,
    report: &mut Report,
    used: &mut Used,
) -> u64 {
    let watch = (group.is_none() && spec.address_space > 0).then_some(spec.address_space);
    let interval = match spec.mode {
        Mode::Namespaces => 20,
        // Finding the tree means reading every process of the machine: less often.
        Mode::Process => 100,
    };
    let cpu_every = match (spec.mode, group) {
        (Mode::Process, None) => tree_cpu::INTERVAL.max(Duration::from_millis(interval)),
        _ => tree_cpu::INTERVAL,
    };
    let sample_cpu = !has_cpu_counter(spec);
    let mut next_cpu = Instant::now() + cpu_every;
    let mut peak_kb = 0;
    loop {
        let timeout = match (watch, sample_cpu) {
            (Some(_), _) => interval as i32,
            (None, true) => next_cpu
                .saturating_duration_since(Instant::now())
                .as_millis()
                .max(1) as i32,
            (None, false) => -1,
        };
        let ready = sys::poll_read(&[stop.as_raw_fd(), sigchld.as_raw_fd()], timeout);
        // A test whose processes have all ended holds nothing: no walk of /proc at its end.
        let memory_due = watch.filter(|_| ready == 0 || !only_ended(spec.mode, player));
        let cpu_due = sample_cpu && Instant::now() >= next_cpu;
        if memory_due.is_some() || cpu_due {
            let pids = match group {
                Some(g) => g.pids(),
                None => test_pids(spec.mode, player),
            };
            if cpu_due {
                used.tree.sample(&pids);
                next_cpu = Instant::now() + cpu_every;
            }
            if let Some(limit) = memory_due {
                let held = memory_kb_of(&pids);
                peak_kb = peak_kb.max(held);
                if held * 1024 > limit {
                    report.oom_killed = true;
                    report.notes.push(format!(
                        "the test's processes held {} MB together, over the memory limit",
                        held >> 10
                    ));
                    break;
                }
            }
        }
        if ready & 2 != 0 {
            drain(sigchld);
            if let Some(exit) = used.reap(player) {
                report.exit = Some(exit);
                break;
            }
        }
        if ready & 1 != 0 {
            // Told to stop: a player that has already ended still has its own exit.
            report.exit = used.reap(player);
            break;
        }
    }
    peak_kb
}

/// Whether the test has a CPU counter of its own that sees every process the player
/// started, reaped by anyone or not: a cgroup v2 group's `cpu.stat` (read by the supervisor,
/// [`TestGroup::cpu_us`]).
fn has_cpu_counter(spec: &Spec) -> bool {
    matches!(spec.cgroups, Some(super::spec::Cgroups::V2 { .. }))
}

/// Whether nothing of the test is alive but unreaped: the player has ended (a zombie not yet
/// waited for) and, in process mode, it is the caller's only child (its own children, had it
/// any alive, would be the caller's now, as a subreaper's). Then the sampled memory of the
/// tree is nothing (an ended process holds none) and need not be read. False when not known
/// (no `children` file in /proc), and always in the namespace mode, whose walk is of its own
/// few processes.
fn only_ended(mode: Mode, player: libc::pid_t) -> bool {
    if mode != Mode::Process {
        return false;
    }
    if !peek_ended(Some(player), false).is_ok_and(|ended| ended) {
        return false;
    }
    // The calling thread's children: in the supervisor, single-threaded, all of its own.
    let me = rustix::thread::gettid().as_raw_nonzero();
    sys::read_text(format!("/proc/self/task/{me}/children"))
        .is_ok_and(|c| c.split_whitespace().eq([player.to_string().as_str()]))
}

/// In the player's process, a clone that shares the caller's memory ([`spawn_shared`]: it
/// neither drops nor changes anything of the caller's, and ends in its exec or `_exit`):
/// drops to the player's ids and limits, keeps only descriptors 0, 1 and 2, and execs.
/// Reports a failure on `err` and exits. The steps, in this order: the test's cgroup, out of the
/// terminal, the player's ids (then, in a kept init, its own namespaces), a fresh keyring,
/// the limits, the working folder,
/// no_new_privs, then (process mode) Landlock and seccomp.
fn start_player(
    spec: &Spec,
    command: &Command,
    entrances: &[OwnedFd],
    kept: Option<&std::fs::File>,
    err: &OwnedFd,
) -> ! {
    sys::reset_signals();
    // First, with the supervisor's rights: every process of the player is in the test's
    // memory and process groups from here on, and no other process of the test is.
    let setup = super::cgroup::enter(entrances)
        .map_err(|e| format!("setup {e}"))
        .and_then(|()| {
            sys::leave_terminal();
            take_ids(spec)
        })
        .and_then(|()| kept.map_or(Ok(()), view::own_namespaces))
        .and_then(|()| fresh_keyring())
        .and_then(|()| set_limits(spec))
        .and_then(|()| {
            std::env::set_current_dir(&spec.cwd)
                .map_err(|e| format!("setup cannot enter {}: {e}", spec.cwd.display()))
        })
        .and_then(|()| {
            let _ = rustix::thread::set_no_new_privs(true);
            confine(spec)
        });
    if let Err(why) = setup {
        refuse(err, &why);
    }
    sys::close_from(3, Some(err.as_raw_fd()));
    if spec.hold && !released() {
        refuse(err, "setup released without a go: never run");
    }
    let e = sys::exec(&command.program, &command.argv, &command.env);
    refuse(err, &exec_failure(spec, &e))
}

/// Writes why the player could not start to its start pipe (`err`) and exits.
fn refuse(err: &OwnedFd, why: &str) -> ! {
    let _ = rustix::io::write(err, why.as_bytes());
    exit_now(127)
}

/// Ends the calling process at once (`_exit`): no exit handler nor buffered output of the
/// process it was forked from runs again in it.
pub(super) fn exit_now(code: i32) -> ! {
    // SAFETY: _exit ends the process; it touches no memory of ours.
    unsafe { libc::_exit(code) }
}

/// The player's ids: in namespaces the player's id inside ([`view::PLAYER_ID`]); in
/// process mode, no capability to inherit, and under a root harness the player's own
/// unprivileged ids. rustix changes the ids of the calling thread only: the player's process
/// is a fork of the single-threaded supervisor (or init), so that is the whole process.
fn take_ids(spec: &Spec) -> Result<(), String> {
    use rustix::process::{Gid, Uid};
    use rustix::thread::{set_thread_groups, set_thread_res_gid, set_thread_res_uid};
    match spec.mode {
        Mode::Namespaces => {
            let (uid, gid) = (
                Uid::from_raw(view::PLAYER_ID),
                Gid::from_raw(view::PLAYER_ID),
            );
            // May be refused to an unprivileged harness, whose player has no other groups to
            // drop.
            let _ = set_thread_groups(&[]);
            set_thread_res_gid(gid, gid, gid)
                .and_then(|()| set_thread_res_uid(uid, uid, uid))
                .map_err(|e| {
                    let e = std::io::Error::from(e);
                    format!("setup cannot take the player's ids: {e}")
                })
        }
        Mode::Process => drop_privileges(spec.player_ids)
            .map_err(|e| format!("setup cannot drop the harness's privileges: {e}")),
    }
}

/// Once the player has its own ids: the keyring is the player's, counted to its quota.
fn fresh_keyring() -> Result<(), String> {
    if super::attribution::skips("keyring") {
        return Ok(());
    }
    sys::fresh_session_keyring().map_err(|e| format!("setup {e}"))
}

/// The player's resource limits ([`limits`]), and no core dump unless asked.
fn set_limits(spec: &Spec) -> Result<(), String> {
    for (resource, value) in limits(spec) {
        sys::set_rlimit(resource, value).map_err(|e| format!("setup {e}"))?;
    }
    if !spec.core_dumps {
        sys::set_soft_rlimit(libc::RLIMIT_CORE, 0).map_err(|e| format!("setup {e}"))?;
    }
    Ok(())
}

/// The limits a player starts with, soft and hard alike.
fn limits(spec: &Spec) -> Vec<(libc::__rlimit_resource_t, u64)> {
    let mut limits = vec![];
    if spec.mode == Mode::Process {
        // No real-time priority and no raised priority, whatever the harness was allowed.
        limits.push((libc::RLIMIT_RTPRIO, 0));
        limits.push((libc::RLIMIT_NICE, 0));
    }
    if spec.address_space > 0 {
        limits.push((libc::RLIMIT_AS, spec.address_space));
    }
    if spec.cpu_seconds > 0 {
        limits.push((libc::RLIMIT_CPU, spec.cpu_seconds));
    }
    if spec.mode == Mode::Namespaces && spec.procs > 0 {
        // Counted per user namespace: the test's own processes only.
        limits.push((libc::RLIMIT_NPROC, spec.procs));
    }
    if spec.memory == 0 && spec.disk > 0 {
        // Without a cgroup, a file (a memfd, a file in /dev/shm) is the one thing a player
        // could fill without it counting as its memory: no file larger than the disk limit
        // (in the sandbox a little more, so that its tmpfs says "no space" first).
        let slack = if spec.mode == Mode::Namespaces {
            1 << 20
        } else {
            0
        };
        limits.push((libc::RLIMIT_FSIZE, spec.disk + slack));
    }
    limits
}

/// Process mode, after no_new_privs: the player dies with its supervisor, and is confined by
/// Landlock and seccomp (the namespace mode has its own view instead).
fn confine(spec: &Spec) -> Result<(), String> {
    if spec.mode != Mode::Process {
        return Ok(());
    }
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    let rules = super::landlock::Rules::new(&spec.landlock_read, &spec.landlock_write);
    rules.apply().map_err(|e| format!("setup landlock: {e}"))?;
    if super::attribution::skips("seccomp") {
        return Ok(());
    }
    super::seccomp::apply(spec.refuse_mode_changes).map_err(|e| format!("setup {e}"))
}

/// What the player's start pipe says of a failed exec: most often the exec's errno; a
/// process-mode player of a root harness refused by a folder above its program, the set-up.
fn exec_failure(spec: &Spec, e: &std::io::Error) -> String {
    if let (Mode::Process, Some((uid, _)), Some(libc::EACCES)) =
        (spec.mode, spec.player_ids, e.raw_os_error())
    {
        // Most likely a folder above the program that only root may pass: the harness's
        // set-up, not the player's fault.
        return format!(
            "setup uid {uid} (process-mode players of a root harness) may not run {}: {e}; a folder above it is closed to other users (install the program in a system folder, or run in namespaces)",
            spec.program.display()
        );
    }
    format!("exec {}", e.raw_os_error().unwrap_or(0))
}

/// Waits for the go byte of a held program ([`Spec::hold`]) on its stdin: true when it
/// came, false at end of file (the harness no longer needs the program).
fn released() -> bool {
    let mut byte = [0u8];
    loop {
        match rustix::io::read(std::io::stdin(), &mut byte) {
            Err(rustix::io::Errno::INTR) => {}
            got => return got == Ok(1),
        }
    }
}

/// Process mode: ends every capability the player could inherit (the bounding set where the
/// harness may change it, the ambient set always) and, under a root harness, takes the
/// unprivileged `ids` with no supplementary group; root's capabilities go with the uid.
/// Calling-thread calls, as in [`take_ids`].
fn drop_privileges(ids: Option<(u32, u32)>) -> std::io::Result<()> {
    use rustix::process::{getegid, geteuid, Gid, Uid};
    use rustix::thread::{self, CapabilitySet};
    for cap in 0..64 {
        // EINVAL past the last capability; EPERM for a harness without CAP_SETPCAP, whose
        // player cannot gain a capability anyway (no_new_privs follows).
        let one = CapabilitySet::from_bits_retain(1 << cap);
        if thread::remove_capability_from_bounding_set(one) == Err(rustix::io::Errno::INVAL) {
            break;
        }
    }
    let _ = thread::clear_ambient_capability_set();
    let Some((uid, gid)) = ids else {
        return Ok(());
    };
    let step = |ret: rustix::io::Result<()>, what: &str| {
        ret.map_err(|e| {
            let e = std::io::Error::from(e);
            std::io::Error::new(e.kind(), format!("{what}: {e}"))
        })
    };
    let (uid, gid) = (Uid::from_raw(uid), Gid::from_raw(gid));
    step(thread::set_thread_groups(&[]), "setgroups")?;
    step(thread::set_thread_res_gid(gid, gid, gid), "setresgid")?;
    step(thread::set_thread_res_uid(uid, uid, uid), "setresuid")?;
    if geteuid().is_root() || getegid().is_root() {
        return Err(std::io::Error::other("still root after the change of ids"));
    }
    Ok(())
}

/// Kills and reaps every process of the test but the caller. Returns a note when some could
/// not be reaped in time.
fn end_all(
    mode: Mode,
    player: libc::pid_t,
    group: Option<&TestGroup>,
    sigchld: &OwnedFd,
    used: &mut Used,
) -> String {
    let me = std::process::id() as libc::pid_t;
    let deadline = Instant::now() + REAP;
    let gone = || no_children() && group.is_none_or(|g| g.pids().iter().all(|&p| p == me));
    loop {
        used.reap(player);
        // As a subreaper (process mode) or PID 1 (namespaces), every process of the test is
        // a child of the caller or a descendant of one: no child, nothing left.
        if gone() {
            return String::new();
        }
        match mode {
            // PID 1 of the namespace: -1 is every other process in it.
            Mode::Namespaces => sys::kill(-1, libc::SIGKILL),
            Mode::Process => {
                sys::kill(-player, libc::SIGKILL);
                sys::kill(player, libc::SIGKILL);
                for pid in group.map(|g| g.pids()).unwrap_or_default() {
                    if pid != me {
                        sys::kill(pid, libc::SIGKILL);
                    }
                }
                for pid in children_of(me) {
                    sys::kill(pid, libc::SIGKILL);
                }
            }
        }
        used.reap(player);
        if gone() {
            return String::new();
        }
        if Instant::now() >= deadline {
            return "some processes of the test could not be reaped in time".to_string();
        }
        sys::poll_read(&[sigchld.as_raw_fd()], 5);
        drain(sigchld);
    }
}

/// Empties the (non-blocking) SIGCHLD descriptor: the children are reaped by `wait`, this
/// only clears the notices.
fn drain(sigchld: &OwnedFd) {
    let mut buf = [0u8; 128 * 8];
    while rustix::io::read(sigchld, &mut buf).is_ok_and(|n| n > 0) {}
}

/// Whether the caller has no child at all, ended or not (`waitid` only peeks).
fn no_children() -> bool {
    peek_ended(None, false).is_err_and(|e| e.raw_os_error() == Some(libc::ECHILD))
}

/// Peeks at an ended child of the caller (`child`, or any with `None`) without reaping it
/// (`waitid` with `WNOWAIT`), waiting for one when `block`: whether one has ended; an error
/// (`ECHILD`) when there is no such child.
fn peek_ended(child: Option<libc::pid_t>, block: bool) -> std::io::Result<bool> {
    use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
    let id = match child {
        Some(pid) => WaitId::Pid(Pid::from_raw(pid).ok_or(rustix::io::Errno::INVAL)?),
        None => WaitId::All,
    };
    let flags = WaitIdOptions::EXITED
        | WaitIdOptions::NOWAIT
        | WaitIdOptions::from_bits_retain(libc::__WALL as u32);
    let flags = if block {
        flags
    } else {
        flags | WaitIdOptions::NOHANG
    };
    Ok(waitid(id, flags)?.is_some())
}

/// The memory these processes hold together, in KiB: resident pages less shared file pages
/// (code and libraries), summed (the test's processes: [`test_pids`]).
fn memory_kb_of(pids: &[libc::pid_t]) -> u64 {
    let page_kb = (rustix::param::page_size().max(4096) / 1024) as u64;
    pids.iter()
        .filter_map(|pid| sys::read_text(format!("/proc/{pid}/statm")).ok())
        .map(|statm| {
            let mut f = statm
                .split_whitespace()
                .skip(1)
                .map(|v| v.parse::<u64>().unwrap_or(0));
            let (resident, shared) = (f.next().unwrap_or(0), f.next().unwrap_or(0));
            resident.saturating_sub(shared) * page_kb
        })
        .sum()
}

/// The test's processes but the caller: the PID namespace's other processes (namespaces), or
/// the caller's descendants and `player` (process mode).
fn test_pids(mode: Mode, player: libc::pid_t) -> Vec<libc::pid_t> {
    match mode {
        Mode::Namespaces => std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .filter(|&pid| pid != 1)
            .collect(),
        Mode::Process => descendants(player),
    }
}

/// The CPU time (µs) of the test's processes that are still there, ended or not, unreaped by
/// the caller: each one's own time and that of the children it reaped (`/proc/<pid>/stat`).
/// None of it is in the caller's `RUSAGE_CHILDREN`, which counts only the children it
/// reaped (and what they reaped), so a player killed but not reaped in time
/// ([`end_all`]'s deadline, on a loaded machine) still has its CPU time counted.
fn unreaped_cpu_us(mode: Mode, player: libc::pid_t) -> u64 {
    let me = std::process::id() as libc::pid_t;
    let pids: Vec<libc::pid_t> = test_pids(mode, player)
        .into_iter()
        // A player already reaped is counted; its number may be another's now.
        .filter(|&pid| pid != player || parent_of(pid) == Some(me))
        .collect();
    cpu_us_of(&pids)
}

/// The caller's descendants (processes whose parent chain reaches it) and `first`.
fn descendants(first: libc::pid_t) -> Vec<libc::pid_t> {
    let me = std::process::id() as libc::pid_t;
    let links: Vec<(libc::pid_t, libc::pid_t)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let pid: libc::pid_t = e.file_name().to_str()?.parse().ok()?;
            Some((pid, parent_of(pid)?))
        })
        .collect();
    let mut found = vec![first];
    let mut frontier = vec![me, first];
    while let Some(parent) = frontier.pop() {
        for &(pid, ppid) in &links {
            if ppid == parent && !found.contains(&pid) {
                found.push(pid);
                frontier.push(pid);
            }
        }
    }
    found
}

/// A process's parent, from `/proc/<pid>/stat`.
pub(super) fn parent_of(pid: libc::pid_t) -> Option<libc::pid_t> {
    stat_fields(pid, |mut fields| fields.nth(1)?.parse().ok())
}

/// The children of a process (escaped grandchildren are reparented to a subreaper).
fn children_of(parent: libc::pid_t) -> Vec<libc::pid_t> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|&pid| parent_of(pid) == Some(parent))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child of the calling thread that exits at once, or (`live`) waits to be killed. A
    /// program, not a bare fork: a forked copy of the test process would hold every other
    /// test's descriptors open.
    fn child(live: bool) -> std::process::Child {
        use std::process::{Command, Stdio};
        let mut cmd = if live {
            let mut c = Command::new("sleep");
            c.arg("600");
            c
        } else {
            Command::new("true")
        };
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn")
    }

    fn pid(child: &std::process::Child) -> libc::pid_t {
        child.id() as libc::pid_t
    }

    /// Waits until `pid` has ended, leaving it unreaped.
    fn until_ended(pid: libc::pid_t) {
        assert!(super::peek_ended(Some(pid), true).expect("waitid"));
    }

    fn end(mut child: std::process::Child) {
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn an_ended_player_with_nothing_beside_it_holds_nothing() {
        let player = child(false);
        until_ended(pid(&player));
        assert!(only_ended(Mode::Process, pid(&player)));
        // The namespace mode always samples (its walk is of the namespace's own processes).
        assert!(!only_ended(Mode::Namespaces, pid(&player)));
        let left = child(true);
        assert!(
            !only_ended(Mode::Process, pid(&player)),
            "another process of the test is alive: its memory must be sampled"
        );
        end(left);
        end(player);
    }

    /// What `/proc` tells of an ended, unreaped process's CPU time is what the kernel hands
    /// its parent when it reaps it (to the clock tick), and nothing once it is reaped.
    #[test]
    fn an_unreaped_process_has_its_cpu_time_read_as_its_reaping_would_give_it() {
        use std::process::{Command, Stdio};
        // About 0.2 s of CPU time in the shell itself, then its end.
        let busy = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
        // Reaped below by sys::wait (wait4), for its usage.
        #[allow(clippy::zombie_processes)]
        let child = Command::new("sh")
            .args(["-c", busy])
            .stdin(Stdio::null())
            .spawn()
            .expect("spawn sh");
        let pid = pid(&child);
        until_ended(pid);
        let read = cpu_us_of(&[pid]);
        let waited = sys::wait(pid, true)
            .expect("wait4")
            .expect("our ended child");
        assert_eq!(waited.pid, pid);
        let reaped = waited.cpu_us;
        assert!(reaped >= 50_000, "the shell spent {reaped} µs only");
        let tick = 1_000_000 / rustix::param::clock_ticks_per_second().max(1);
        assert!(
            read.abs_diff(reaped) <= 2 * tick,
            "read {read} µs before the reaping, the reaping gave {reaped} µs"
        );
        assert_eq!(cpu_us_of(&[pid]), 0, "a reaped process counts nothing");
    }

    #[test]
    fn a_running_player_is_not_ended() {
        let player = child(true);
        assert!(!only_ended(Mode::Process, pid(&player)));
        end(player);
    }
}
