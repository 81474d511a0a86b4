//! The supervisor: the process the harness starts for every test but a player's test its
//! kept init runs (`kept_test`: the harness's thread hands it over) (`harness-sandbox
//! __sandbox`, a small program built with the harness, or `harness __sandbox`; see
//! `sandbox::supervisor_program`), forked by the calling thread's fork server (`forker`,
//! the same program as `__sandbox forker`) or, without one, executed. It reads the test's [`Spec`], makes the test's cgroup, starts the
//! test's init in fresh namespaces (or, in process mode, becomes the init itself), and when
//! the harness closes the control pipe, or the player is gone, ends every process of the
//! test, removes the cgroup and writes its [`Report`]. It is single-threaded, so it may fork
//! and run Rust code in the child.
//!
//! Descriptors on entry: 0, 1, 2 the player's pipes; 3 the control pipe (the spec as one JSON
//! line, then end of file when the test is over or the harness is gone); 4 the report pipe;
//! with a pooled network namespace, 5, 6 and 7 its user, network and mount namespaces
//! (`net`), or, with a kept view, 5 and 6 as before, 7 and 8 the view's mount and user
//! namespaces (`kept_view`), or, with a player's kept init, 5 the socket to that init
//! (`kept_init`: the test runs there, with no init of its own). Nothing else, and an empty
//! environment.
//!
//! Neither the supervisor nor the init is ever in the test's cgroups (only the player's
//! processes are), so the kernel's OOM killer, choosing in the test's memory group, never
//! takes them; an init that ends without its report anyway makes the test ERR, with why.

use std::ffi::CString;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use super::cgroup::TestGroup;
use super::spec::{Mode, Report, Spec, StartError};
use super::sys;

const CONTROL: RawFd = 3;
const REPORT: RawFd = 4;
/// With `shared_net`: the pool's user namespace; the network namespace follows, then (where
/// the pool has one) the mount namespace tests are made from.
const NET_NS: RawFd = 5;

/// How long the init gets to end the test's processes before it is killed itself.
const TEARDOWN: Duration = Duration::from_secs(1);

/// Runs the supervisor; never returns.
pub fn main() -> ! {
    match std::env::args_os().nth(2) {
        Some(a) if a == "net" => super::net::helper_main(),
        Some(a) if a == "view" => super::kept_view::helper_main(),
        Some(a) if a == "forker" => super::forker::serve(),
        Some(a) if a == "build" => {
            // Which build this is, for the harness that looks for a supervisor beside it.
            println!("{}", super::BUILD_ID);
            std::process::exit(0);
        }
        _ => {}
    }
    test_main()
}

/// A test's supervisor, from its descriptors on: executed for the test (`main`), or forked
/// by the fork server (`forker`). Never returns.
pub(crate) fn test_main() -> ! {
    sys::close_from(NET_NS + 4, None);
    // SAFETY: descriptors 3 and 4 are open and ours alone by the contract above (nothing
    // else in this process takes them); ignoring SIGPIPE changes no memory of ours.
    let (control, mut report_pipe) = unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        (
            OwnedFd::from_raw_fd(CONTROL),
            std::fs::File::from_raw_fd(REPORT),
        )
    };
    let send = move |report: &Report| {
        let mut line = serde_json::to_vec(report).unwrap_or_default();
        line.push(b'\n');
        let _ = report_pipe.write_all(&line);
        // Closed here: the harness reads to the end of the pipe.
        drop(report_pipe);
    };
    let spec = read_spec(&control);
    if !spec.as_ref().is_ok_and(|s| s.shared_net) {
        close_net_fds();
    }
    match spec {
        Ok(spec) => supervise(&spec, control, send),
        Err(e) => send(&Report {
            start_error: Some(StartError::Setup(format!(
                "cannot read the test's spec: {e}"
            ))),
            ..Report::default()
        }),
    }
    std::process::exit(0);
}

/// Closes descriptors 5, 6 and 7 (nothing else: the test's pipes may be numbered above, 8
/// included, which only a test with a kept view is given, and closes itself).
fn close_net_fds() {
    sys::close_numbered(&[NET_NS, NET_NS + 1, NET_NS + 2]);
}

fn read_spec(control: &OwnedFd) -> std::io::Result<Spec> {
    serde_json::from_slice(&sys::read_line(control)?).map_err(std::io::Error::other)
}

/// Runs the test; hands the report to `send` as soon as the test's processes are gone, then
/// tidies up (reaps the init, removes the cgroup).
fn supervise(spec: &Spec, control: OwnedFd, send: impl FnOnce(&Report)) {
    sys::leave_terminal();
    let group = match &spec.cgroups {
        None => None,
        Some(cgroups) => {
            let name = format!("t{}", std::process::id());
            // The worker's pinning, inherited: the test's cpuset.
            let cpus = sys::affinity_list();
            match TestGroup::create(cgroups, &name, spec.memory, spec.procs, &cpus)
                .and_then(|g| g.entrances().map(|e| (g, e)))
            {
                Ok(g) => Some(g),
                Err(e) => {
                    return send(&Report {
                        start_error: Some(StartError::Setup(format!("cgroup: {e}"))),
                        ..Report::default()
                    })
                }
            }
        }
    };
    let entrances = group.as_ref().map_or(&[][..], |(_, e)| &e[..]);
    let (mut report, init) = match spec.mode {
        Mode::Process => {
            // A player of the same user must not trace or read the supervisor.
            not_dumpable();
            let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
            let stop = control;
            let group = group.as_ref().map(|(g, _)| g);
            (super::init::run(spec, &stop, group, entrances), None)
        }
        Mode::Namespaces => namespaces(spec, &control, entrances),
    };
    let group = group.map(|(g, _)| g);
    if let Some(group) = &group {
        group.add_to(&mut report);
    }
    send(&report);
    if let Some(pid) = init {
        // Bounded: a test's init that cannot end is killed; nothing in it is left alive. One
        // that has been reaped is not signalled (its pid is free for anyone's new process).
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut reaped = false;
        while !reaped && Instant::now() < deadline {
            reaped = sys::wait(pid, false).ok().flatten().is_some();
            if !reaped {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        if !reaped {
            sys::kill(pid, libc::SIGKILL);
            let _ = sys::wait(pid, false);
        }
    }
    if let Some(group) = group {
        group.remove();
    }
}

/// The namespaces every test's init gets fresh; the network namespace too unless the test
/// borrows a pooled one (`shared_net`).
const FRESH: libc::c_int = libc::CLONE_NEWUSER
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWCGROUP;

/// The namespaces a test's init gets fresh with a kept view ([`super::kept_view`]): its
/// mount and user namespaces it makes itself, from the kept ones.
const FRESH_KEPT: libc::c_int =
    libc::CLONE_NEWPID | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS | libc::CLONE_NEWCGROUP;

/// The pipes between the supervisor and a test's init: `stop` (end of file: end the test),
/// `report` (the init's report), `go` (the init's id maps are written) and, with a kept
/// view, `ready` (the init has made its user namespace: its ids may be mapped).
struct InitPipes {
    stop: (OwnedFd, OwnedFd),
    report: (OwnedFd, OwnedFd),
    go: (OwnedFd, OwnedFd),
    ready: Option<(OwnedFd, OwnedFd)>,
}

impl InitPipes {
    fn new(kept: bool) -> std::io::Result<InitPipes> {
        Ok(InitPipes {
            stop: sys::pipe()?,
            report: sys::pipe()?,
            go: sys::pipe()?,
            ready: if kept { Some(sys::pipe()?) } else { None },
        })
    }
}

/// Starts the test's init in fresh namespaces, waits for the end of the test, and returns
/// what the init reported, with the init's pid when it is still to be reaped (its exit, the
/// kernel's teardown of the namespaces, takes a while and is nobody's business but ours).
fn namespaces(
    spec: &Spec,
    control: &OwnedFd,
    entrances: &[OwnedFd],
) -> (Report, Option<libc::pid_t>) {
    if spec.kept_init {
        return (kept_init_test(spec, control, entrances), None);
    }
    let pooled: Spec;
    let mut spec = spec;
    let setup = |e: std::io::Error, what: &str| {
        (
            Report {
                start_error: Some(StartError::of_setup(&e, what)),
                ..Report::default()
            },
            None,
        )
    };
    let pipes = match InitPipes::new(spec.kept_view) {
        Ok(p) => p,
        Err(e) => return setup(e, "pipe"),
    };
    let mut flags = FRESH;
    if spec.kept_view {
        if let Err(e) = super::kept_view::join(spec) {
            return setup(e, "cannot join the player's kept view");
        }
        flags = FRESH_KEPT;
    } else if spec.shared_net {
        match join_pool(spec) {
            Ok(Some(own_etc)) => {
                pooled = own_etc;
                spec = &pooled;
            }
            Ok(None) => {}
            Err(e) => return setup(e, "cannot join the tests' network namespace"),
        }
    } else {
        flags |= libc::CLONE_NEWNET;
    }
    let pid = match sys::fork_with(flags) {
        Ok(pid) => pid,
        Err(e) => return setup(e, "cannot make the test's namespaces"),
    };
    if pid == 0 {
        init_child(spec, pipes, entrances);
    }
    let InitPipes {
        stop: (stop_r, stop_w),
        report: (report_r, report_w),
        go: (go_r, go_w),
        ready,
    } = pipes;
    drop((stop_r, report_w, go_r));
    // Only now: the init was made dumpable, so an unprivileged supervisor may write its id
    // maps; the supervisor itself is not (nothing in the test can see it anyway).
    not_dumpable();
    sys::detach_stdio();
    let mapped = match ready {
        Some((ready_r, ready_w)) => {
            sys::close_numbered(&[super::kept_view::KEPT_MNT]);
            drop(ready_w);
            let mut byte = [0u8; 1];
            match std::fs::File::from(ready_r).read(&mut byte) {
                Ok(1) => super::kept_view::map_test_ids(pid, spec),
                // The init could not make its part: its report says why.
                _ => Ok(()),
            }
        }
        None => super::ids::write_id_maps(pid, spec),
    };
    if let Err(e) = mapped {
        sys::kill(pid, libc::SIGKILL);
        let _ = sys::wait(pid, true);
        return setup(e, "cannot map the test's user ids");
    }
    let _ = std::fs::File::from(go_w).write_all(b"!");
    await_end(spec, Some(pid), control, stop_w, &report_r)
}

/// In the supervisor of a test with `kept_init`: hands the test to the kept init and waits
/// for its end as for an init of the test's own ([`await_end`]).
fn kept_init_test(spec: &Spec, control: &OwnedFd, entrances: &[OwnedFd]) -> Report {
    let setup = |e: std::io::Error, what: &str| Report {
        start_error: Some(StartError::of_setup(&e, what)),
        ..Report::default()
    };
    let entrances: Vec<_> = entrances.iter().map(|e| e.as_raw_fd()).collect();
    let sent = super::kept_init::hand(super::kept_init::SOCKET, spec, [0, 1, 2], &entrances);
    sys::close_numbered(&[super::kept_init::SOCKET]);
    sys::detach_stdio();
    match sent {
        Ok((stop_w, report_r)) => await_end(spec, None, control, stop_w, &report_r).0,
        Err((what, e)) => setup(e, what),
    }
}

/// Waits for the end of the test: the harness closes the control pipe, or the init reports
/// (it does once the player has ended and every process of the test is reaped). Then the
/// init's report ([`read_init_report`]); `pid` is the test's own init, `None` for a kept
/// init.
fn await_end(
    spec: &Spec,
    pid: Option<libc::pid_t>,
    control: &OwnedFd,
    stop_w: OwnedFd,
    report_r: &OwnedFd,
) -> (Report, Option<libc::pid_t>) {
    let ready = sys::poll_read(&[control.as_raw_fd(), report_r.as_raw_fd()], -1);
    if ready & 2 == 0 {
        // Ask the init to end the test (end of file on its stop pipe).
        drop(stop_w);
    }
    let (mut report, init) = read_init_report(pid, report_r);
    // A kept init (`pid` `None`) looks at the network namespace itself: the supervisor is not
    // in it.
    if pid.is_some() && spec.shared_net && report.all_gone && !super::net_left::left_empty() {
        // What outlives a test's processes in the pooled network namespace: it goes back to
        // the pool only without any (else the kernel frees it once that is gone).
        report.all_gone = false;
        report.notes.push(
            "the test left a socket or flow label in its network namespace: not reused".into(),
        );
    }
    (report, init)
}

/// Joins the pool's network namespace (descriptors 5, 6 and 7), then closes those. A root
/// harness joins the network namespace alone: its test's user namespace is then a child of
/// the host's, where it may map the player to an id of its own ([`super::ids::write_id_maps`]); the
/// pool's user namespace maps only the harness's user. Anyone else joins that user namespace
/// first, for the right to join the network one. Returns the spec to use instead where the
/// pool's mount namespace could be joined too: it has the view's /etc where the host's is.
fn join_pool(spec: &Spec) -> std::io::Result<Option<Spec>> {
    let user = spec.player_ids.is_none().then_some(NET_NS);
    let joined = sys::join_net(user, NET_NS + 1);
    let own_etc = joined.is_ok() && super::net::join_mount(NET_NS + 2);
    close_net_fds();
    joined?;
    Ok(own_etc.then(|| Spec {
        etc: std::path::PathBuf::from("/etc"),
        ..spec.clone()
    }))
}

/// In the forked child, the test's init to be: keeps nothing of the harness's, dies with the
/// supervisor, waits until the supervisor has written its id maps, then runs the test.
fn init_child(spec: &Spec, pipes: InitPipes, entrances: &[OwnedFd]) -> ! {
    let InitPipes {
        stop: (stop_r, stop_w),
        report: (report_r, report_w),
        go: (go_r, go_w),
        ready,
    } = pipes;
    drop((stop_w, report_r, go_w));
    // The report pipe must close when the supervisor has reported, not when the init's
    // teardown ends. The control pipe's and the report pipe's owners are the supervisor's
    // (`test_main`); this child never returns to them.
    sys::close_numbered(&[CONTROL, REPORT]);
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    if let Some((ready_r, ready_w)) = ready {
        drop(ready_r);
        let made = super::kept_view::init(spec, ready_w, go_r);
        // Dumpable until now, for the supervisor to map its ids; nobody in the test may trace
        // the init or read its memory.
        not_dumpable();
        super::init::report_after(spec, made, stop_r, report_w, entrances);
    }
    // Wait until the supervisor has written our id maps.
    let mut byte = [0u8; 1];
    let go = std::fs::File::from(go_r).read(&mut byte);
    if go.ok() != Some(1) {
        super::init::exit_now(1);
    }
    super::init::namespace_init(spec, stop_r, report_w, entrances)
}

/// No process of the same user may trace this one or read its memory.
fn not_dumpable() {
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
}

/// Reads the init's report (one JSON line); an init that does not send it within
/// [`TEARDOWN`] is killed (a kept init, `pid` `None`, is not the supervisor's: the report
/// says the test did not end clean, and the harness drops it), and the report says so.
/// Returns the init's pid unless it has been reaped here (it ended without a report: the
/// report then says how it ended).
fn read_init_report(
    pid: Option<libc::pid_t>,
    report_r: &std::os::fd::OwnedFd,
) -> (Report, Option<libc::pid_t>) {
    let deadline = Instant::now() + TEARDOWN;
    let mut text = Vec::new();
    let mut buf = [0u8; 4096];
    while !text.ends_with(b"\n") {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let mut report = init_report(&text).unwrap_or_default();
            let Some(pid) = pid else {
                report.all_gone = false;
                report
                    .notes
                    .push("the player's kept init did not end the test in time".into());
                return (report, None);
            };
            sys::kill(pid, libc::SIGKILL);
            report
                .notes
                .push("the test's init did not end in time and was killed".into());
            return (report, Some(pid));
        }
        if sys::poll_read(&[report_r.as_raw_fd()], left.as_millis().max(1) as i32) == 0 {
            continue;
        }
        let n = match rustix::io::read(report_r, &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        text.extend_from_slice(&buf[..n]);
    }
    if let Some(report) = init_report(&text) {
        return (report, pid);
    }
    let Some(pid) = pid else {
        let report = Report {
            failure: Some("the player's kept init ended without a report".into()),
            ..Report::default()
        };
        return (report, None);
    };
    // The init is gone without its report (killed, or it failed): how it ended, when that
    // can be known within the teardown time.
    let ended = loop {
        match sys::wait(pid, false) {
            Ok(Some(w)) => break Some(w.exit),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            _ => break None,
        }
    };
    let how = ended.map_or_else(|| "still ending".to_string(), |e| e.to_string());
    let report = Report {
        failure: Some(format!("the test's init ended without a report ({how})")),
        ..Report::default()
    };
    (report, ended.is_none().then_some(pid))
}

/// The init's report, if it sent one whole.
fn init_report(text: &[u8]) -> Option<Report> {
    serde_json::from_slice(text.trim_ascii()).ok()
}

/// The program, arguments and environment as C strings, made before any fork.
pub(crate) struct Command {
    pub program: CString,
    pub argv: Vec<CString>,
    pub env: Vec<CString>,
}

impl Command {
    pub fn new(spec: &Spec) -> std::io::Result<Command> {
        let c = |s: &str| {
            CString::new(s).map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "a NUL byte in the command",
                )
            })
        };
        Ok(Command {
            program: sys::cstr(&spec.program)?,
            argv: spec.argv.iter().map(|a| c(a)).collect::<Result<_, _>>()?,
            env: spec
                .env
                .iter()
                .map(|(k, v)| c(&format!("{k}={v}")))
                .collect::<Result<_, _>>()?,
        })
    }
}
