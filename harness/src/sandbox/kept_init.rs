//! A player's init kept from test to test: the holder of a kept view ([`super::kept_view`]),
//! PID 1 of its own PID namespace with the view as its root, stays alive and runs each test
//! of that player in the pooled network namespace it was made in, one after the other. A
//! test then costs no init of its own: no fork of one, no fresh PID, mount, UTS and cgroup
//! namespaces, no /proc with its masks, no copy and teardown of the view's mounts.
//!
//! What each test still gets fresh, so that nothing a player does outlives its test:
//! - its box (the working folder, HOME, /tmp, /var/tmp, /dev/shm): a new tmpfs of the test's
//!   disk size, detached after the test in one go, the mounts of /tmp, /var/tmp and /dev/shm
//!   moved into it first (the next one's is made as soon as it is);
//! - a user namespace and an IPC namespace of the player's own, made by the player's
//!   process before its exec ([`view::own_namespaces`]): its id mapped as in a test of its
//!   own, no further user namespace allowed inside, a fresh keyring;
//! - PID 2: the namespace's last pid is set back before each player starts;
//! - the test's cgroup (if it has one), made before the test and removed after it;
//! - the end of every process of the test (`kill(-1)` from PID 1, then each reaped).
//!
//! What is kept is what a player has no capability over (the read-only view, /proc with its
//! read-only knobs and masks, the host name, the namespaces' owner). A test whose processes
//! cannot all be reaped, or that leaves something in the network namespace, or whose box
//! cannot be made or detached, ends the kept init: the harness then drops the network
//! namespace and every view kept in it (its report says the test did not end clean).
//!
//! With a cgroup or without: a test's CPU time and peak memory are those of its own reaped
//! processes (each counted as it is reaped, not the init's `RUSAGE_CHILDREN`, which holds
//! every test's), with, as in a test of its own, its memory group's peak or the sampled
//! memory of its processes.
//!
//! The steps, with who does them:
//! - a player's test: the harness's own thread (`kept_test`), with no supervisor, makes the
//!   test's cgroup and sends the kept init the spec, the worker's CPUs, the player's pipes,
//!   a stop pipe, a report pipe and the cgroup's entrances ([`Request`]); the harness's
//!   control pipe is the stop pipe, and it reads the report itself;
//! - any other test a kept init serves (a probe's), or one the harness's thread could not
//!   hand over: its supervisor (`supervisor::kept_init_test`) sends the same over the socket
//!   it was handed (descriptor [`SOCKET`]), then waits as for an init of its own;
//! - the kept init ([`serve`]): runs one test per request, reports on the report pipe.
//!
//! May make mounts (the box, in the kept init's mount namespace), namespaces (the player's)
//! and processes (the players); it never judges.

use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

use super::spec::{Report, Spec, StartError};
use super::{sys, view};

/// The supervisor's descriptor of a test run by a kept init: the socket to it.
pub(super) const SOCKET: RawFd = 5;

/// Most descriptors a request brings: the player's three pipes, the stop and report pipes,
/// and the cgroup's entrances.
const MOST_FDS: usize = 16;

/// What a test's supervisor asks of the kept init. The descriptors come with it, in this
/// order: the player's stdin, stdout and stderr, the stop pipe (end of file: end the test),
/// the report pipe, then the cgroup's entrances.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Request {
    pub spec: Spec,
    /// The worker's CPUs, which the player runs on (the init may have been made by another).
    pub cpus: Vec<usize>,
}

/// Hands the kept init at the other end of `socket` a test of `spec`: its [`Request`], with
/// the player's pipe ends `player` (stdin, stdout, stderr), a new stop pipe's and report
/// pipe's ends, and the cgroup's `entrances`, in the order [`serve`] takes them. Returns the
/// caller's ends: the stop pipe's (closed: end the test) and the report pipe's. An error
/// says which step failed: making the pipes ("pipe"), or the sending.
pub(super) fn hand(
    socket: RawFd,
    spec: &Spec,
    player: [RawFd; 3],
    entrances: &[RawFd],
) -> Result<(OwnedFd, OwnedFd), (&'static str, io::Error)> {
    let pipes = sys::pipe().and_then(|stop| Ok((stop, sys::pipe()?)));
    let ((stop_r, stop_w), (report_r, report_w)) = pipes.map_err(|e| ("pipe", e))?;
    let request = Request {
        spec: spec.clone(),
        cpus: crate::os::affinity().unwrap_or_default(),
    };
    let mut fds = player.to_vec();
    fds.extend([stop_r.as_raw_fd(), report_w.as_raw_fd()]);
    fds.extend(entrances);
    serde_json::to_vec(&request)
        .map_err(io::Error::other)
        .and_then(|payload| sys::send_with_fds(socket, &payload, &fds, libc::MSG_NOSIGNAL))
        .map_err(|e| ("cannot reach the player's kept init", e))?;
    Ok((stop_w, report_r))
}

/// What the kept init holds for every test: /proc/sys from before it was made read-only (the
/// player's process forbids user namespaces in its own through it), the namespace's last pid,
/// and the player's files that each test binds again below its box's places.
pub(super) struct Made {
    knobs: std::fs::File,
    last_pid: std::fs::File,
    again: Vec<(PathBuf, std::fs::File)>,
}

/// In the holder of a kept view, its view built and made its root: the parts every test of a
/// kept init shares, made once. A UTS namespace with the test's host name, a cgroup namespace
/// of its own, and on its /proc the knobs read-only and the masks ([`view::Masks`]), as a
/// test's. Fails where the namespace's last pid cannot be set (a player would not be PID 2).
pub(super) fn setup(spec: &Spec) -> io::Result<Made> {
    let proc_dir = Path::new("/proc");
    let knobs = view::path_only(&proc_dir.join("sys"))?;
    let last_pid = rustix::fs::openat(
        &knobs,
        "kernel/ns_last_pid",
        rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )
    .map_err(|e| sys::named(e, "ns_last_pid"))?;
    let last_pid: std::fs::File = above_stdio(last_pid)?;
    let knobs: std::fs::File = above_stdio(knobs)?;
    reset_last_pid(&last_pid)?;
    sys::unshare(libc::CLONE_NEWUTS | libc::CLONE_NEWCGROUP)?;
    sys::set_hostname("sandbox")?;
    let masks = view::Masks::open(Path::new(view::BOX))?;
    let again = view::held_again(spec)?
        .into_iter()
        .map(|(path, held)| Ok((path.to_path_buf(), above_stdio(held)?)))
        .collect::<io::Result<Vec<_>>>()?;
    view::protect_proc(proc_dir, &masks)?;
    Ok(Made {
        knobs,
        last_pid,
        again,
    })
}

/// A copy of `fd` above 0, 1 and 2, which each test's player's pipes take.
fn above_stdio<T: From<OwnedFd>>(fd: impl AsFd) -> io::Result<T> {
    Ok(rustix::io::fcntl_dupfd_cloexec(fd, 3)?.into())
}

/// The next process made in the namespace is PID 2 (every other one has been reaped).
fn reset_last_pid(last_pid: &std::fs::File) -> io::Result<()> {
    rustix::io::pwrite(last_pid, b"1", 0).map_err(|e| sys::named(e, "ns_last_pid"))?;
    Ok(())
}

/// The kept init's life: one test per request on `socket` until the socket or `lifetime`
/// (the harness's pipe) is closed, or a test does not end clean. Never returns.
pub(super) fn serve(made: Made, socket: OwnedFd, lifetime: OwnedFd) -> ! {
    let moved = above_stdio::<OwnedFd>(&socket)
        .and_then(|socket| Ok((socket, above_stdio::<OwnedFd>(&lifetime)?)));
    drop((socket, lifetime));
    let Ok((socket, lifetime)) = moved else {
        super::init::exit_now(1)
    };
    // Taken (by /dev/null) between tests: what a request brings is never received as one of
    // them, which its placement would then close.
    sys::detach_stdio();
    // SAFETY: ignoring SIGPIPE changes no memory of ours (a report no one reads any more must
    // not end the init); each player's process resets it before its exec.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    let mut buf = vec![0u8; 1 << 20];
    let mut ahead = None;
    loop {
        let ready = sys::poll_read(&[lifetime.as_raw_fd(), socket.as_raw_fd()], -1);
        if ready & 1 != 0 {
            break;
        }
        let (n, fds) = match sys::recv_with_fds(socket.as_raw_fd(), &mut buf, MOST_FDS) {
            Ok((n, fds)) if n > 0 => (n, fds),
            _ => break,
        };
        let Ok(request) = serde_json::from_slice::<Request>(&buf[..n]) else {
            break;
        };
        if !one_test(&made, &request, fds, ahead.take()) {
            break;
        }
        // The next test's box, made while the harness ends this one (most often of the
        // same size).
        ahead = mount_box(request.spec.disk, &made.again).ok();
    }
    super::init::exit_now(0)
}

/// Runs the test of `request` with its descriptors `fds` (see [`Request`]), in the box made
/// `ahead` when it has the test's size; whether the kept init may run another.
fn one_test(made: &Made, request: &Request, fds: Vec<OwnedFd>, ahead: Option<Boxed>) -> bool {
    let mut fds = fds.into_iter();
    let (Some(stdin), Some(stdout), Some(stderr), Some(stop), Some(report_w)) =
        (fds.next(), fds.next(), fds.next(), fds.next(), fds.next())
    else {
        return false;
    };
    let entrances: Vec<OwnedFd> = fds.collect();
    let spec = &request.spec;
    if !request.cpus.is_empty() {
        crate::os::set_affinity(&request.cpus);
    }
    // The player's pipes as the init's 0, 1 and 2, which its process inherits; the init lets
    // go of them once it has started ([`super::init::run_in`]).
    let placed = rustix::stdio::dup2_stdin(&stdin)
        .and_then(|()| rustix::stdio::dup2_stdout(&stdout))
        .and_then(|()| rustix::stdio::dup2_stderr(&stderr));
    drop((stdin, stdout, stderr));
    let mounted = placed
        .map_err(io::Error::from)
        .and_then(|()| box_for(spec, &made.again, ahead));
    let mut report = match mounted.as_ref().map(|_| reset_last_pid(&made.last_pid)) {
        Ok(Ok(())) => super::init::run_in(spec, &stop, None, &entrances, Some(&made.knobs)),
        Ok(Err(e)) => failed_setup(&e),
        Err(e) => failed_setup(e),
    };
    sys::detach_stdio();
    if report.all_gone && !super::net_left::left_empty() {
        report.all_gone = false;
        report.notes.push(
            "the test left a socket or flow label in its network namespace: not reused".into(),
        );
    }
    let mut line = serde_json::to_vec(&report).unwrap_or_default();
    line.push(b'\n');
    let _ = std::fs::File::from(report_w).write_all(&line);
    drop((stop, entrances));
    let detached = mounted.is_ok_and(|made| detach(&made).is_ok());
    report.all_gone && detached
}

fn failed_setup(e: &io::Error) -> Report {
    Report {
        start_error: Some(StartError::Setup(format!("sandbox: {e}"))),
        ..Report::default()
    }
}

/// A test's box: its size, its mount points in the order they were made (the box first),
/// and its places outside the box (/tmp, /var/tmp, /dev/shm) with their own folders in it
/// ([`Place`]).
struct Boxed {
    disk: u64,
    points: Vec<PathBuf>,
    places: Vec<Place>,
}

/// One of a box's places outside the box (/tmp, /var/tmp, /dev/shm), held by descriptor from
/// before the player ran: its mount (a bind of one of the box's folders), and that folder.
/// At the test's end each mount is moved onto its folder, into the box, so that one detach
/// of the box takes them all, the binds of the player's files below them included: the
/// kernel waits for a grace period (an interrupt of every CPU) at each detach, once a test
/// rather than once a mount, four or five times.
struct Place {
    path: PathBuf,
    mount: OwnedFd,
    folder: OwnedFd,
}

/// The box of a test of `spec`: the one made `ahead` when it has the test's size, else a new
/// one.
fn box_for(
    spec: &Spec,
    again: &[(PathBuf, std::fs::File)],
    ahead: Option<Boxed>,
) -> io::Result<Boxed> {
    match ahead {
        Some(made) if made.disk == spec.disk => Ok(made),
        Some(made) => {
            detach(&made)?;
            mount_box(spec.disk, again)
        }
        None => mount_box(spec.disk, again),
    }
}

/// A box's places outside it, each a bind of its folder in the box (made by
/// [`view::writable_box`] and [`view::bind_shm`]).
const PLACES: [(&str, &str); 3] = [("/tmp", "tmp"), ("/var/tmp", "vartmp"), ("/dev/shm", "shm")];

/// A box of `disk` bytes, with /tmp, /var/tmp and /dev/shm in it, and the player's files
/// below them bound again.
fn mount_box(disk: u64, again: &[(PathBuf, std::fs::File)]) -> io::Result<Boxed> {
    let root = Path::new("/");
    sys::set_umask(0o022);
    let boxed = view::writable_box(root, disk)?;
    view::bind_shm(root, &boxed)?;
    let mut points = vec![boxed.clone()];
    let mut places = Vec::new();
    for (path, folder) in PLACES {
        points.push(PathBuf::from(path));
        // Without one of them, that place is detached on its own at the end.
        if let (Ok(mount), Ok(folder)) = (path_fd(Path::new(path)), path_fd(&boxed.join(folder))) {
            let path = PathBuf::from(path);
            places.push(Place {
                path,
                mount,
                folder,
            });
        }
    }
    for (path, held) in again {
        view::bind_again(Path::new("/proc"), held, path)?;
        points.push(path.clone());
    }
    Ok(Boxed {
        disk,
        points,
        places,
    })
}

/// `path` as a descriptor of its own (`O_PATH`: it opens nothing), not followed if a link.
fn path_fd(path: &Path) -> io::Result<OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::open(path, flags, Mode::empty())
        .map_err(|e| sys::named(e, &path.display().to_string()))
}

/// Detaches the test's mounts: each place's mount moved into the box (a move frees nothing,
/// so the kernel waits for no grace period), then the box with all that is below it at once.
/// A place whose move fails (its folder removed by the player, a kernel without
/// `move_mount`) is detached on its own first, with what is below it.
fn detach(made: &Boxed) -> io::Result<()> {
    use rustix::mount::{move_mount, unmount, MoveMountFlags, UnmountFlags};
    let flags = MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH | MoveMountFlags::MOVE_MOUNT_T_EMPTY_PATH;
    let boxed = &made.points[0];
    let mut inside = vec![boxed.as_path()];
    for place in &made.places {
        if move_mount(&place.mount, "", &place.folder, "", flags).is_ok() {
            inside.push(&place.path);
        }
    }
    // What is not in the box now (a place not moved, a bind of the player's files not below
    // one that was), in the order made: a detach takes what is below it too.
    let unmount_at = |point: &Path| {
        unmount(point, UnmountFlags::DETACH)
            .map_err(|e| sys::named(e, &format!("unmount {}", point.display())))
    };
    for point in &made.points[1..] {
        if !inside.iter().any(|gone| point.starts_with(gone)) {
            unmount_at(point)?;
            inside.push(point);
        }
    }
    unmount_at(boxed)
}
