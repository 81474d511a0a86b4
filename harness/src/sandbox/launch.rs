//! The start of a test: which program supervises it ([`supervisor_program`]: the small
//! `harness-sandbox` of this very build beside the harness, else the harness itself), and
//! its launch ([`launch`], [`launch_on`]) by the calling thread's fork server or with
//! posix_spawn, the spec written to the supervisor's control pipe; or, for a player's test
//! that its kept init serves, its hand-over to that init ([`kept_test`]), with no supervisor.
//!
//! May start processes and make pipes; it decides nothing about containment (the spec
//! says it all) and reaps nothing ([`super::reap`]).

use std::io::Write;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::reap::Runner;
use super::spec::Spec;
use super::{attribution, forker, kept_test, kept_view, net, reap, sys, tool};

/// The argument that makes the harness binary a supervisor.
pub const SUPERVISOR_ARG: &str = "__sandbox";

static SUPERVISOR: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();

/// Names the harness binary that supervises tests, for programs that use this library
/// without being that binary (its own tests). The harness itself runs its own executable.
pub fn set_supervisor(path: &Path) {
    if let Ok(c) = sys::cstr(path) {
        let _ = SUPERVISOR.set(c);
    }
}

/// This build's identity (a hash of the crate's sources, from build.rs): what the
/// supervisor program beside the harness must answer to be used ([`supervisor_program`]).
pub const BUILD_ID: &str = env!("HARNESS_BUILD_ID");

/// The small program that supervises tests when it is found beside the harness binary.
pub const SUPERVISOR_PROGRAM: &str = "harness-sandbox";

/// The program started for every test and for the pool's namespaces ([`spawn_self`]): the
/// `harness-sandbox` beside the harness binary when it is of this very build, else the
/// harness binary itself. Starting the small one costs a test about a third of a millisecond
/// of CPU less (the loader's work on the harness's 38 MB: its libraries, 16,000 relocations).
pub(super) fn supervisor_program() -> &'static std::ffi::CStr {
    static PROGRAM: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();
    PROGRAM.get_or_init(|| {
        let own = SUPERVISOR
            .get()
            .cloned()
            .unwrap_or_else(|| c"/proc/self/exe".to_owned());
        harness_exe()
            .ok()
            .and_then(|harness| same_build_beside(&harness))
            .and_then(|helper| sys::cstr(&helper).ok())
            .unwrap_or(own)
    })
}

/// The [`SUPERVISOR_PROGRAM`] beside `harness`, if there is one that answers this build's
/// identity to `__sandbox build` within 5 s (one that does not is left alone: an older build
/// would run older containment code).
pub(crate) fn same_build_beside(harness: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let helper = harness.with_file_name(SUPERVISOR_PROGRAM);
    if !helper.is_file() {
        return None;
    }
    let mut child = std::process::Command::new(&helper)
        .args([SUPERVISOR_ARG, "build"])
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let ended = loop {
        match child.try_wait() {
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(1))
            }
            Ok(Some(status)) => break status.success(),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break false;
            }
        }
    };
    let mut answer = String::new();
    let read = child.stdout.take()?.read_to_string(&mut answer);
    (ended && read.is_ok() && answer.trim() == BUILD_ID).then_some(helper)
}

/// The harness binary's path on the host (the supervisor's, see [`set_supervisor`]): what a
/// contest tool starts as its player's relay ([`super::relay`]).
pub(crate) fn harness_exe() -> std::io::Result<PathBuf> {
    match SUPERVISOR.get() {
        Some(c) => Ok(PathBuf::from(std::ffi::OsStr::from_bytes(c.to_bytes()))),
        None => std::env::current_exe(),
    }
}

/// A started test: the supervisor's pid, the player's pipes, and the supervisor's pipes.
pub(crate) struct Launched {
    pub pid: i32,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    /// Closing it ends the test.
    pub control: OwnedFd,
    /// The report arrives here (one JSON line) once every process of the test is gone.
    pub report: OwnedFd,
    /// The network namespace the test borrowed, for [`super::release`].
    pub net: Option<net::NetNs>,
}

/// A descriptor numbered `min` or more (so the dup2s of a spawn cannot clobber a source).
pub(super) fn high(fd: RawFd, min: RawFd) -> std::io::Result<OwnedFd> {
    // SAFETY: `fd` is a descriptor the caller holds open for the whole call; it is only
    // borrowed here, to be duplicated.
    let fd = unsafe { BorrowedFd::borrow_raw(fd) };
    Ok(rustix::io::fcntl_dupfd_cloexec(fd, min)?)
}

/// Starts a supervisor for `spec` and hands it the spec (a tool's, a build's, a probe's
/// test: always under a supervisor, whose pid the caller waits for).
pub(crate) fn launch(spec: &Spec) -> std::io::Result<Launched> {
    check_thread()?;
    let (in_r, in_w) = sys::pipe()?;
    let (out_r, out_w) = sys::pipe()?;
    let (err_r, err_w) = sys::pipe()?;
    let place = place(spec)?;
    let (pid, control, report) = supervised(spec, &place, [in_r, out_w, err_w])?;
    Ok(Launched {
        pid,
        stdin: in_w,
        stdout: out_r,
        stderr: err_r,
        control,
        report,
        net: place.net,
    })
}

/// A started test ([`launch_on`]) without the player's stdin and stdout, which the harness
/// holds or not: what runs it, its stderr, its control and report pipes.
pub(crate) struct OnPipes {
    pub runner: Runner,
    pub stderr: OwnedFd,
    pub control: OwnedFd,
    pub report: OwnedFd,
    pub net: Option<net::NetNs>,
}

/// Starts a player's test as `spec` says, on pipes of the harness's own: the test, with the
/// player's stdin and stdout ([`launch_on`]).
pub(crate) fn launch_player(spec: &Spec) -> std::io::Result<(OnPipes, OwnedFd, OwnedFd)> {
    let (in_r, in_w) = sys::pipe()?;
    let (out_r, out_w) = sys::pipe()?;
    Ok((launch_on(spec, in_r, out_w)?, in_w, out_r))
}

/// Starts a player's test for `spec` whose player reads `in_r` and writes `out_w`: another
/// program's pipe ends (a contest tester's, handed over by its relay), so that the player
/// talks to that program with nothing of the harness's in between, or the harness's own
/// ([`launch_player`]). The harness keeps no copy of them: the other program sees the
/// player's end of output as soon as it comes. Handed to the player's kept init by this
/// thread where it has one ([`kept_test`]), else under a supervisor.
pub(crate) fn launch_on(spec: &Spec, in_r: OwnedFd, out_w: OwnedFd) -> std::io::Result<OnPipes> {
    check_thread()?;
    let (err_r, err_w) = sys::pipe()?;
    let place = place(spec)?;
    if let Some(kept_view::Served::Init(socket, helper)) = place.kept {
        let player = [&in_r, &out_w, &err_w];
        // Not handed over (the init is gone, no cgroup could be made): under a supervisor,
        // which meets the same and reports it.
        let spec = kept_spec(spec, place.kept.as_ref());
        if let Ok(handed) = kept_test::start(socket, helper, &spec, player) {
            return Ok(OnPipes {
                runner: Runner::Kept(handed.test),
                stderr: err_r,
                control: handed.control,
                report: handed.report,
                net: place.net,
            });
        }
    }
    let (pid, control, report) = supervised(spec, &place, [in_r, out_w, err_w])?;
    Ok(OnPipes {
        runner: Runner::Supervisor(pid),
        stderr: err_r,
        control,
        report,
        net: place.net,
    })
}

/// Refuses a start from a thread off the tests' path.
fn check_thread() -> std::io::Result<()> {
    if tool::off_path_thread() {
        // What it starts would run only on CPU time nothing else wants, and could never
        // leave that.
        return Err(std::io::Error::other(
            "a test started from one of the harness's threads off the tests' path (a harness bug)",
        ));
    }
    Ok(())
}

/// Where a test runs: the network namespace it borrows (the pool's user and network
/// namespaces, and its mount namespace where it has one), and the player's kept view there.
struct Place {
    net: Option<net::NetNs>,
    ns_fds: Vec<RawFd>,
    kept: Option<kept_view::Served>,
}

/// The [`Place`] of a test of `spec`: a network namespace taken from the pool, and the
/// player's kept view found or made in it.
fn place(spec: &Spec) -> std::io::Result<Place> {
    let mut net = if spec.shared_net {
        Some(net::take()?)
    } else {
        None
    };
    let ns_fds: Vec<RawFd> = net.iter().flat_map(|ns| ns.fds()).collect();
    let kept = match (net.as_mut(), kept_view::key(spec)) {
        (Some(ns), Some(key)) => ns.kept.find_or_make(&ns_fds, spec, &key),
        _ => None,
    };
    Ok(Place { net, ns_fds, kept })
}

/// `spec` as a kept view (`kept`) serves it.
fn kept_spec(spec: &Spec, kept: Option<&kept_view::Served>) -> Spec {
    match kept {
        Some(kept_view::Served::View(..)) => Spec {
            kept_view: true,
            ..spec.clone()
        },
        Some(kept_view::Served::Init(..)) => Spec {
            kept_view: true,
            kept_init: true,
            ..spec.clone()
        },
        None => spec.clone(),
    }
}

/// Starts the supervisor of a test of `spec` at `place`, on the player's pipe ends
/// `player`: the supervisor's descriptors from 5 on are the pool's user and network
/// namespaces and its mount namespace, or a kept view's mount and user namespaces instead of
/// the last, or the socket to a kept init alone.
fn supervised(
    spec: &Spec,
    place: &Place,
    player: [OwnedFd; 3],
) -> std::io::Result<(i32, OwnedFd, OwnedFd)> {
    let mut ns_fds = place.ns_fds.clone();
    match place.kept {
        Some(kept_view::Served::View(mnt, user)) => {
            ns_fds.truncate(2);
            ns_fds.extend([mnt, user]);
        }
        Some(kept_view::Served::Init(socket, _)) => ns_fds = vec![socket],
        None => {}
    }
    supervise(&kept_spec(spec, place.kept.as_ref()), player, &ns_fds)
}

/// Starts the supervisor of `spec` with the player's three pipe ends `player` and the
/// namespaces' descriptors `ns_fds` (from 5 on), and writes it the spec; its pid, the control
/// pipe's end and the report pipe's.
fn supervise(
    spec: &Spec,
    player: [OwnedFd; 3],
    ns_fds: &[RawFd],
) -> std::io::Result<(i32, OwnedFd, OwnedFd)> {
    let (ctl_r, ctl_w) = sys::pipe()?;
    let (rep_r, rep_w) = sys::pipe()?;
    let mut line = serde_json::to_vec(spec).map_err(std::io::Error::other)?;
    line.push(b'\n');
    // The spec goes into the control pipe before the supervisor is started, whenever it fits
    // in the pipe (a few KB: it does, but for a pipe the kernel cut to one page), so that
    // the supervisor reads it at once instead of waiting for this thread to be scheduled
    // again after the spawn. Otherwise it is written after, as a reader is there.
    let mut control = std::fs::File::from(ctl_w);
    let ahead = sys::pipe_capacity(control.as_raw_fd()).is_some_and(|c| line.len() <= c);
    if ahead {
        // Never blocks: it fits in the empty pipe.
        control.write_all(&line)?;
    }
    let [in_r, out_w, err_w] = player;
    let child_ends = [in_r, out_w, err_w, ctl_r, rep_w];
    let mut fds: Vec<RawFd> = child_ends.iter().map(|fd| fd.as_raw_fd()).collect();
    fds.extend(ns_fds);
    let pid = match forker::start(&fds) {
        Some(started) => started?,
        None => spawn_self(&fds, &[c"harness", c"__sandbox"])?,
    };
    drop(child_ends);
    if let Some(cgroups) = &spec.cgroups {
        reap::remember_groups(pid, cgroups);
    }
    if !ahead {
        if let Err(e) = control.write_all(&line) {
            sys::kill(pid, libc::SIGKILL);
            let _ = sys::wait(pid, true);
            return Err(e);
        }
    }
    Ok((pid, control.into(), rep_r))
}

/// Starts the supervisor's program ([`supervisor_program`]) with `argv`,
/// `fds` as its descriptors 0, 1, 2..., default signals and an empty environment.
pub(super) fn spawn_self(fds: &[RawFd], argv: &[&std::ffi::CStr]) -> std::io::Result<i32> {
    // Every source above the targets first, so that no dup2 clobbers a later source.
    let sources = fds
        .iter()
        .map(|&fd| high(fd, fds.len() as RawFd))
        .collect::<std::io::Result<Vec<_>>>()?;
    let exe = supervisor_program();
    let mut args: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    args.push(std::ptr::null());
    let skip = attribution::env();
    let envp: [*const libc::c_char; 2] = [
        skip.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
        std::ptr::null(),
    ];
    let mut pid: libc::pid_t = 0;
    // SAFETY: the file actions and attributes are initialised, used and destroyed here; the
    // argument and environment arrays are null-terminated and outlive the call.
    unsafe {
        let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        let mut attr: libc::posix_spawnattr_t = std::mem::zeroed();
        libc::posix_spawn_file_actions_init(&mut actions);
        libc::posix_spawnattr_init(&mut attr);
        for (target, fd) in sources.iter().enumerate() {
            libc::posix_spawn_file_actions_adddup2(&mut actions, fd.as_raw_fd(), target as RawFd);
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        let mut defaults: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut defaults);
        for sig in [libc::SIGPIPE, libc::SIGINT, libc::SIGTERM, libc::SIGCHLD] {
            libc::sigaddset(&mut defaults, sig);
        }
        libc::posix_spawnattr_setsigmask(&mut attr, &empty);
        libc::posix_spawnattr_setsigdefault(&mut attr, &defaults);
        libc::posix_spawnattr_setflags(
            &mut attr,
            (libc::POSIX_SPAWN_SETSIGMASK | libc::POSIX_SPAWN_SETSIGDEF) as libc::c_short,
        );
        let ret = libc::posix_spawn(
            &mut pid,
            exe.as_ptr(),
            &actions,
            &attr,
            args.as_ptr() as *const *mut libc::c_char,
            envp.as_ptr() as *const *mut libc::c_char,
        );
        libc::posix_spawn_file_actions_destroy(&mut actions);
        libc::posix_spawnattr_destroy(&mut attr);
        if ret != 0 {
            return Err(std::io::Error::from_raw_os_error(ret));
        }
    }
    Ok(pid)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    /// Writes an executable shell script.
    fn script(path: &Path, body: &str) {
        std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn the_supervisor_program_beside_the_harness_is_used_only_from_the_same_build() {
        let dir = tempfile::tempdir().unwrap();
        let harness = dir.path().join("harness");
        std::fs::write(&harness, b"").unwrap();
        let helper = dir.path().join(super::SUPERVISOR_PROGRAM);
        // None there: the harness supervises its tests itself.
        assert_eq!(super::same_build_beside(&harness), None);
        // Another build's (a `cargo run` rebuilt the harness alone), or one that fails.
        script(&helper, "echo 0123456789abcdef");
        assert_eq!(super::same_build_beside(&harness), None);
        script(&helper, &format!("echo {}; exit 1", super::BUILD_ID));
        assert_eq!(super::same_build_beside(&harness), None);
        // This build's, asked the way the harness asks.
        script(
            &helper,
            &format!(
                "[ \"$1 $2\" = \"{} build\" ] && echo {}",
                super::SUPERVISOR_ARG,
                super::BUILD_ID
            ),
        );
        assert_eq!(super::same_build_beside(&harness), Some(helper));
    }
}
