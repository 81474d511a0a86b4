//! Thin wrappers over the Linux system calls the sandbox needs (clone with namespaces, mounts,
//! ids, limits, waiting and killing). Each turns a failure into an `io::Error` that names the
//! call; nothing here decides policy.
//!
//! Calls go through `rustix` (safe types, the kernel's errno as it is); `libc` stays only for
//! what `rustix` does not offer (`clone` with namespace flags, `mount_setattr`, `keyctl`,
//! `signalfd`, `execve`, `sched_setscheduler`, interface flags, `TIOCNOTTY`, `kill(-1)`) and
//! where a caller hands raw descriptor numbers, each such block with its SAFETY note.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::process::{Pid, Signal};

pub(crate) fn check(ret: libc::c_long, what: &str) -> io::Result<libc::c_long> {
    if ret < 0 {
        Err(named(io::Error::last_os_error(), what))
    } else {
        Ok(ret)
    }
}

/// `e` with the name of the call that failed in front ("what: e").
pub(crate) fn named(e: impl Into<io::Error>, what: &str) -> io::Error {
    let e = e.into();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

pub(crate) fn cstr(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path holds a NUL byte"))
}

/// A pipe whose both ends are close-on-exec.
pub(crate) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| named(e, "pipe2"))
}

/// `clone` like `fork`, with namespace flags: returns 0 in the child and the child's pid in
/// the parent. Only for single-threaded callers (the supervisor).
pub(crate) fn fork_with(flags: libc::c_int) -> io::Result<libc::pid_t> {
    // SAFETY: the raw clone syscall without CLONE_VM and without a new stack behaves as
    // fork; the caller is single-threaded, so the child may go on running Rust code. Neither
    // std nor rustix offers a fork with namespace flags.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_clone,
            (flags | libc::SIGCHLD) as libc::c_ulong,
            0usize,
            0usize,
            0usize,
            0usize,
        )
    };
    check(ret, "clone").map(|p| p as libc::pid_t)
}

/// `setns` on a descriptor number the supervisor or a helper was handed by its contract,
/// which may be closed (EBADF). By number, not through rustix: a closed number is no
/// `BorrowedFd`.
pub(crate) fn set_ns(fd: RawFd, kind: libc::c_int) -> io::Result<()> {
    // SAFETY: setns takes no memory of ours; a number that is not an open namespace fails.
    if unsafe { libc::setns(fd, kind) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Joins a network namespace (the calling process must be single-threaded): first, when
/// given, the user namespace that owns it, which gives the caller the rights to join the
/// network namespace (a root caller has them already).
pub(crate) fn join_net(user: Option<RawFd>, net: RawFd) -> io::Result<()> {
    if let Some(user) = user {
        set_ns(user, libc::CLONE_NEWUSER).map_err(|e| named(e, "setns user"))?;
    }
    set_ns(net, libc::CLONE_NEWNET).map_err(|e| named(e, "setns net"))
}

/// Closes descriptors by number: ones a process's contract gives it that no [`OwnedFd`] of
/// the process holds, or ones it holds but will never use or drop again (a forked child on
/// its way to a `-> !` end).
pub(crate) fn close_numbered(fds: &[RawFd]) {
    for &fd in fds {
        // SAFETY: by the caller's word, nothing of this process uses `fd` after this (a
        // descriptor not open fails with EBADF and changes nothing).
        unsafe { libc::close(fd) };
    }
}

/// Reads `fd` up to the end of its first line (a line a process was handed by its contract:
/// a spec, an answer), or to its end; whatever else came in the same read is kept too.
pub(crate) fn read_line(fd: &OwnedFd) -> io::Result<Vec<u8>> {
    read_until(fd, |bytes| bytes.ends_with(b"\n"))
}

/// The whole text of a kernel's file (/proc, a cgroup's), read in one go: such a file has no
/// size to ask for first, and is made anew at each read from its start.
pub(crate) fn read_text(path: impl AsRef<Path>) -> io::Result<String> {
    let flags = rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC;
    let fd = rustix::fs::open(path.as_ref(), flags, rustix::fs::Mode::empty())?;
    read_to_end(&fd)
}

/// The rest of what `fd` holds, as text (invalid UTF-8 replaced).
pub(crate) fn read_to_end(fd: &OwnedFd) -> io::Result<String> {
    let bytes = read_until(fd, |_| false)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Reads `fd` until its end, or until what has come is `enough`.
fn read_until(fd: &OwnedFd, enough: impl Fn(&[u8]) -> bool) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    while !enough(&bytes) {
        match rustix::io::read(fd, &mut buf) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(bytes)
}

/// Moves the calling (single-threaded) process into the new namespaces of `flags`.
pub(crate) fn unshare(flags: libc::c_int) -> io::Result<()> {
    let flags = rustix::thread::UnshareFlags::from_bits_retain(flags as u32);
    // SAFETY: no CLONE_FILES nor CLONE_FS among the callers' flags: every descriptor and the
    // file system context stay the ones this single-threaded process had.
    unsafe { rustix::thread::unshare_unsafe(flags) }.map_err(|e| named(e, "unshare"))
}

pub(crate) fn write_file(path: &str, text: &str) -> io::Result<()> {
    std::fs::write(path, text).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))
}

/// `mount(2)` with the arguments as given, `None` passed as a null pointer. The kinds the
/// sandbox makes: a new file system (source and type given), a bind mount (source, no type,
/// `MS_BIND` with or without `MS_REC`) and a change of an existing mount (neither: a remount
/// or a propagation change).
pub(crate) fn mount(
    source: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> io::Result<()> {
    use rustix::mount::{MountFlags, MountPropagationFlags};
    let bits = u32::try_from(flags).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    let data = data.map(|s| CString::new(s).expect("no NUL"));
    let bind = libc::MS_BIND as u32;
    let ret = match (source, fstype, &data) {
        (Some(source), Some(fstype), data) => rustix::mount::mount(
            source,
            target,
            fstype,
            MountFlags::from_bits_retain(bits),
            data.as_deref(),
        ),
        // rustix's mount_change is `mount(NULL, target, NULL, flags, NULL)` whatever the flags.
        (None, None, None) => {
            rustix::mount::mount_change(target, MountPropagationFlags::from_bits_retain(bits))
        }
        (Some(source), None, None) if bits == bind => rustix::mount::mount_bind(source, target),
        (Some(source), None, None) if bits == bind | libc::MS_REC as u32 => {
            rustix::mount::mount_bind_recursive(source, target)
        }
        _ => Err(rustix::io::Errno::INVAL),
    };
    // The message is made only on failure: a test's view is dozens of mounts.
    ret.map_err(|e| named(e, &format!("mount {}", target.display())))
}

/// `MOUNT_ATTR_*` of linux/mount.h.
pub(crate) const ATTR_RDONLY: u64 = 0x1;
pub(crate) const ATTR_NOSUID: u64 = 0x2;
pub(crate) const ATTR_NODEV: u64 = 0x4;
pub(crate) const ATTR_NOEXEC: u64 = 0x8;

/// `struct mount_attr` of linux/mount.h.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Adds `attrs` (`ATTR_*`) to the mount at `path` and to every mount under it, in one call
/// (`mount_setattr`, Linux 5.12). Flags the mounts already have stay (a user namespace may
/// not clear the flags it inherited locked), so no flag needs reading first. `Ok(false)`
/// where the kernel has no such call (or refuses it): the caller remounts one mount at a
/// time instead.
pub(crate) fn add_mount_attrs(path: &Path, attrs: u64) -> io::Result<bool> {
    let c = cstr(path)?;
    let attr = MountAttr {
        attr_set: attrs,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: a valid C string and a pointer to a local struct of the size passed, both alive
    // for the call; the kernel only reads them. rustix has no mount_setattr.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            c.as_ptr(),
            libc::AT_RECURSIVE | libc::AT_SYMLINK_NOFOLLOW,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if ret < 0 {
        let e = io::Error::last_os_error();
        // EPERM too: a seccomp filter around the harness (a container's) may refuse calls
        // it does not know that way; a real refusal shows again in the remount.
        if matches!(e.raw_os_error(), Some(libc::ENOSYS | libc::EPERM)) {
            return Ok(false);
        }
        return Err(named(e, &format!("mount_setattr {}", path.display())));
    }
    Ok(true)
}

/// The file system `path` is on: its type (`f_type`, e.g. `TMPFS_MAGIC`) and the bytes an
/// unprivileged user may still write there.
pub(crate) fn file_system(path: &Path) -> io::Result<(u64, u64)> {
    let st = rustix::fs::statfs(path).map_err(|e| named(e, "statfs"))?;
    let free = (st.f_bavail as u64).saturating_mul(st.f_bsize as u64);
    Ok((st.f_type as u64, free))
}

/// Whether this process may make entries in the folder `path` (`access(W_OK | X_OK)`).
pub(crate) fn may_write(path: &Path) -> bool {
    use rustix::fs::Access;
    rustix::fs::access(path, Access::WRITE_OK | Access::EXEC_OK).is_ok()
}

/// The flags of the mount a path is on (`ST_*` of statvfs), to keep locked ones on remount.
pub(crate) fn mount_flags(path: &Path) -> io::Result<libc::c_ulong> {
    use rustix::fs::StatVfsMountFlags as St;
    let st = rustix::fs::statvfs(path).map_err(|e| named(e, "statvfs"))?;
    let mut flags = 0;
    for (st_flag, ms_flag) in [
        (St::NOSUID, libc::MS_NOSUID),
        (St::NODEV, libc::MS_NODEV),
        (St::NOEXEC, libc::MS_NOEXEC),
        (St::NOATIME, libc::MS_NOATIME),
        (St::NODIRATIME, libc::MS_NODIRATIME),
        (St::RELATIME, libc::MS_RELATIME),
    ] {
        if st.f_flag.contains(st_flag) {
            flags |= ms_flag;
        }
    }
    Ok(flags)
}

/// Makes the current directory the root (`pivot_root(".", ".")`) and drops the old one.
pub(crate) fn pivot_here() -> io::Result<()> {
    rustix::process::pivot_root(c".", c".").map_err(|e| named(e, "pivot_root"))?;
    rustix::mount::unmount(c".", rustix::mount::UnmountFlags::DETACH)
        .map_err(|e| named(e, "umount old root"))?;
    std::env::set_current_dir("/")
}

/// Makes the caller join a new, empty session keyring of its own (`keyctl(JOIN_SESSION_KEYRING,
/// NULL)`): the keys of the session it was started in are no longer reachable, and what it
/// adds dies with its last process. A kernel without keys (ENOSYS) has nothing to reach.
pub(crate) fn fresh_session_keyring() -> io::Result<()> {
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
    // SAFETY: keyctl with a null name makes an anonymous keyring; no pointer is read or
    // written. rustix has no keyctl.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_keyctl,
            KEYCTL_JOIN_SESSION_KEYRING,
            std::ptr::null::<libc::c_char>(),
        )
    };
    if ret < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS) {
        return Ok(());
    }
    check(ret, "keyctl join session keyring").map(|_| ())
}

/// Sets the process's file mode creation mask (it cannot fail).
pub(crate) fn set_umask(mask: libc::mode_t) {
    rustix::process::umask(rustix::fs::Mode::from_bits_retain(mask));
}

pub(crate) fn set_hostname(name: &str) -> io::Result<()> {
    rustix::system::sethostname(name.as_bytes()).map_err(|e| named(e, "sethostname"))
}

/// Brings the loopback interface of the current network namespace up.
pub(crate) fn loopback_up() -> io::Result<()> {
    use rustix::net::{AddressFamily, SocketFlags, SocketType};
    let sock = rustix::net::socket_with(
        AddressFamily::INET,
        SocketType::DGRAM,
        SocketFlags::CLOEXEC,
        None,
    )
    .map_err(|e| named(e, "socket"))?;
    let mut req = std::mem::MaybeUninit::<libc::ifreq>::zeroed();
    // SAFETY: ifreq is plain data, for which all zeroes is a valid value; both ioctls read and
    // write only that local request, alive for the calls, on a socket we own. rustix has no
    // call for interface flags.
    unsafe {
        let req = req.assume_init_mut();
        for (i, b) in b"lo".iter().enumerate() {
            req.ifr_name[i] = *b as libc::c_char;
        }
        check(
            libc::ioctl(sock.as_raw_fd(), libc::SIOCGIFFLAGS, &mut *req) as _,
            "SIOCGIFFLAGS",
        )?;
        req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        check(
            libc::ioctl(sock.as_raw_fd(), libc::SIOCSIFFLAGS, &*req) as _,
            "SIOCSIFFLAGS",
        )?;
    }
    Ok(())
}

/// The rustix name of a `libc::RLIMIT_*`.
fn resource(resource: libc::__rlimit_resource_t) -> io::Result<rustix::process::Resource> {
    use rustix::process::Resource as R;
    Ok(match resource {
        libc::RLIMIT_CPU => R::Cpu,
        libc::RLIMIT_FSIZE => R::Fsize,
        libc::RLIMIT_DATA => R::Data,
        libc::RLIMIT_STACK => R::Stack,
        libc::RLIMIT_CORE => R::Core,
        libc::RLIMIT_RSS => R::Rss,
        libc::RLIMIT_NPROC => R::Nproc,
        libc::RLIMIT_NOFILE => R::Nofile,
        libc::RLIMIT_MEMLOCK => R::Memlock,
        libc::RLIMIT_AS => R::As,
        libc::RLIMIT_LOCKS => R::Locks,
        libc::RLIMIT_SIGPENDING => R::Sigpending,
        libc::RLIMIT_MSGQUEUE => R::Msgqueue,
        libc::RLIMIT_NICE => R::Nice,
        libc::RLIMIT_RTPRIO => R::Rtprio,
        libc::RLIMIT_RTTIME => R::Rttime,
        _ => return Err(named(rustix::io::Errno::INVAL, "setrlimit")),
    })
}

pub(crate) fn set_rlimit(resource: libc::__rlimit_resource_t, value: u64) -> io::Result<()> {
    let lim = rustix::process::Rlimit {
        current: Some(value),
        maximum: Some(value),
    };
    rustix::process::setrlimit(self::resource(resource)?, lim).map_err(|e| named(e, "setrlimit"))
}

/// Lowers only the soft limit (the hard one stays, so a debugger can raise it again).
pub(crate) fn set_soft_rlimit(resource: libc::__rlimit_resource_t, value: u64) -> io::Result<()> {
    let resource = self::resource(resource)?;
    let mut lim = rustix::process::getrlimit(resource);
    lim.current = Some(value.min(lim.maximum.unwrap_or(u64::MAX)));
    rustix::process::setrlimit(resource, lim).map_err(|e| named(e, "setrlimit"))
}

/// Takes the calling process out of the terminal's reach without a session of its own: a
/// process group of its own (so the terminal's Ctrl-C and job control do not reach it), and
/// no controlling terminal (`TIOCNOTTY`, where it had one: opening `/dev/tty` then fails,
/// and a process that is not a session leader cannot take a terminal again). Not `setsid`:
/// a new session is a new scheduler autogroup, and a player in an autogroup other than the
/// harness's costs every round trip a switch between two groups (about a fifth of a raw pipe
/// round trip, `harness bench`).
pub(crate) fn leave_terminal() {
    use rustix::fs::{Mode, OFlags};
    let _ = rustix::process::setpgid(None, None);
    let flags = OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC;
    if let Ok(tty) = rustix::fs::open(c"/dev/tty", flags, Mode::empty()) {
        // SAFETY: TIOCNOTTY takes no argument and touches no memory; the descriptor is ours
        // (closed when `tty` drops). rustix has no TIOCNOTTY.
        unsafe { libc::ioctl(tty.as_raw_fd(), libc::TIOCNOTTY) };
    }
}

/// Closes every descriptor from `first` up, but `keep`.
pub(crate) fn close_from(first: RawFd, keep: Option<RawFd>) {
    let close = |lo: RawFd, hi: libc::c_uint| {
        if lo as libc::c_uint > hi {
            return;
        }
        // SAFETY: closes descriptors by number, which no Rust owner may then use: the callers
        // (a new process about to exec or to serve) hold nothing in this range but `keep`.
        // rustix's close_range is as unsafe, for the same reason.
        unsafe {
            let ret = libc::syscall(libc::SYS_close_range, lo as libc::c_uint, hi, 0);
            if ret < 0 {
                // Kernels before 5.9: close them one by one.
                for fd in lo..(hi.min(65535) as RawFd + 1) {
                    libc::close(fd);
                }
            }
        }
    };
    match keep {
        Some(k) if k >= first => {
            close(first, (k - 1) as libc::c_uint);
            close(k + 1, libc::c_uint::MAX);
        }
        _ => close(first, libc::c_uint::MAX),
    }
}

/// Points descriptors 0, 1 and 2 at /dev/null: the player's pipes must be held by the player
/// alone, so that its closing them is seen at once.
pub(crate) fn detach_stdio() {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDWR | OFlags::CLOEXEC;
    match rustix::fs::open(c"/dev/null", flags, Mode::empty()) {
        Ok(null) => {
            let _ = rustix::stdio::dup2_stdin(&null);
            let _ = rustix::stdio::dup2_stdout(&null);
            let _ = rustix::stdio::dup2_stderr(&null);
            // Opened as one of 0, 1, 2 (they were closed): it stays open as that one.
            if null.as_raw_fd() <= 2 {
                let _ = std::os::fd::IntoRawFd::into_raw_fd(null);
            }
        }
        // SAFETY: closes the standard descriptors, which nothing of this process uses after
        // this call (its callers start a player that must not hold them).
        Err(_) => unsafe {
            for fd in 0..3 {
                libc::close(fd);
            }
        },
    }
}

/// `execve`; returns only on failure.
pub(crate) fn exec(program: &CStr, argv: &[CString], env: &[CString]) -> io::Error {
    let mut argv_p: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_p.push(std::ptr::null());
    let mut env_p: Vec<*const libc::c_char> = env.iter().map(|a| a.as_ptr()).collect();
    env_p.push(std::ptr::null());
    // SAFETY: null-terminated arrays of valid C strings, alive for the call. rustix's execve
    // is as unsafe (raw arrays).
    unsafe { libc::execve(program.as_ptr(), argv_p.as_ptr(), env_p.as_ptr()) };
    io::Error::last_os_error()
}

/// `kill(pid, signal)`, a negative pid for a process group; an error is ignored (the
/// process is gone already).
pub(crate) fn kill(pid: libc::pid_t, signal: libc::c_int) {
    let target = Pid::from_raw(pid.wrapping_abs());
    let _ = match (target, Signal::from_named_raw(signal)) {
        (Some(p), Some(signal)) if pid > 0 => rustix::process::kill_process(p, signal),
        (Some(group), Some(signal)) if pid < -1 => {
            rustix::process::kill_process_group(group, signal)
        }
        _ => return kill_raw(pid, signal),
    };
}

/// `kill` for what rustix has no call for: every process the caller may signal (pid -1),
/// the caller's group (0), a signal without a name.
fn kill_raw(pid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: kill takes no pointer and touches no memory of ours.
    unsafe { libc::kill(pid, signal) };
}

/// What `wait4` tells of an ended child.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waited {
    pub pid: libc::pid_t,
    pub exit: super::spec::Exit,
    /// What the child and every child it reaped used: CPU time (µs, user and system) and the
    /// largest peak RSS (KiB), as a parent's `RUSAGE_CHILDREN` adds it.
    pub cpu_us: u64,
    pub max_rss_kb: u64,
}

/// `wait4(pid)`: `Ok(None)` when nothing is ready (`block = false`) or no child is left.
/// `pid` as `wait4` takes it: a child, -1 any, 0 or -group one of a process group.
pub(crate) fn wait(pid: libc::pid_t, block: bool) -> io::Result<Option<Waited>> {
    let options = libc::__WALL | if block { 0 } else { libc::WNOHANG };
    loop {
        let mut status = 0;
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: status and usage are locals alive for the call, rusage plain data for which
        // all zeroes is a value; wait4 only writes them. rustix's waits give no rusage.
        let (child, usage) = unsafe {
            let child = libc::wait4(pid, &mut status, options, usage.as_mut_ptr());
            (child, usage.assume_init())
        };
        match child {
            0 => return Ok(None),
            -1 => match io::Error::last_os_error() {
                e if e.raw_os_error() == Some(libc::ECHILD) => return Ok(None),
                e if e.raw_os_error() == Some(libc::EINTR) => continue,
                e => return Err(e),
            },
            _ => {}
        }
        let exit = if libc::WIFSIGNALED(status) {
            super::spec::Exit::Signal(libc::WTERMSIG(status))
        } else {
            super::spec::Exit::Code(libc::WEXITSTATUS(status))
        };
        let (cpu_us, max_rss_kb) = crate::os::cpu_and_peak(&usage);
        return Ok(Some(Waited {
            pid: child,
            exit,
            cpu_us,
            max_rss_kb,
        }));
    }
}

/// Blocks SIGCHLD and returns a descriptor that reads when a child changes state.
pub(crate) fn sigchld_fd() -> io::Result<OwnedFd> {
    // SAFETY: sigset_t is plain data set up by sigemptyset/sigaddset, alive for the calls;
    // signalfd returns a fresh descriptor that we then own. rustix has no signalfd, and its
    // sigprocmask is as unsafe.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGCHLD);
        check(
            libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) as _,
            "sigprocmask",
        )?;
        let fd = check(
            libc::signalfd(-1, &set, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK) as _,
            "signalfd",
        )?;
        Ok(std::os::fd::FromRawFd::from_raw_fd(fd as RawFd))
    }
}

/// Unblocks every signal and resets the usual ones to their default action (before exec).
/// Allocates nothing.
pub(crate) fn reset_signals() {
    // SAFETY: sigset_t is plain data, alive for the call; signal() with SIG_DFL installs no
    // handler of ours. rustix's signal calls are as unsafe.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        for sig in [
            libc::SIGPIPE,
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGCHLD,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGXFSZ,
        ] {
            libc::signal(sig, libc::SIG_DFL);
        }
    }
}

/// Waits until one of the descriptors is readable or `timeout_ms` passes (-1: no limit).
/// Returns a bit per descriptor.
pub(crate) fn poll_read(fds: &[RawFd], timeout_ms: i32) -> u32 {
    use crate::os::PollFd;
    let mut p: Vec<PollFd> = fds.iter().map(|&fd| PollFd::readable(fd)).collect();
    let timeout = u64::try_from(timeout_ms)
        .ok()
        .map(std::time::Duration::from_millis);
    let _ = crate::os::poll(&mut p, timeout);
    p.iter()
        .enumerate()
        .filter(|(_, p)| p.ready())
        .fold(0, |set, (i, _)| set | 1 << i)
}

/// The calling thread's id.
pub(crate) fn gettid() -> libc::pid_t {
    rustix::thread::gettid().as_raw_pid()
}

/// The CPUs the calling thread may run on, as a cgroup CPU list ("1", "0,1"); empty when
/// they cannot be read.
pub(crate) fn affinity_list() -> String {
    crate::os::affinity().map_or_else(String::new, |cpus| {
        cpus.iter()
            .map(|cpu| cpu.to_string())
            .collect::<Vec<_>>()
            .join(",")
    })
}

/// The bytes a pipe holds before a write to it blocks (`F_GETPIPE_SZ`).
pub(crate) fn pipe_capacity(fd: RawFd) -> Option<usize> {
    if fd < 0 {
        return None;
    }
    // SAFETY: a descriptor number the caller holds open for this call (not -1, checked
    // above); the borrow ends with the call.
    let fd = unsafe { BorrowedFd::borrow_raw(fd) };
    rustix::pipe::fcntl_getpipe_size(fd).ok()
}

/// Lets the calling thread run on every CPU the process may use: a thread started by a
/// pinned worker would otherwise stay on that worker's CPU (the kernel keeps what the
/// process's cpuset allows of a full mask).
pub(crate) fn unpin() -> bool {
    let every: Vec<usize> = (0..rustix::thread::CpuSet::MAX_CPU).collect();
    crate::os::set_affinity(&every)
}

/// Puts the calling thread at the lowest CPU priority there is (`SCHED_IDLE`): it runs only
/// on a CPU that nothing else wants, and a CPU running only such threads counts as idle
/// when the kernel places a woken process. For the harness's own work off a test's path.
///
/// A process such a thread started would be `SCHED_IDLE` too (`SCHED_RESET_ON_FORK` resets
/// only real-time policies and negative nice values), and an unprivileged process cannot
/// leave it: such a thread must never start a test (`tool::OffPath`'s threads are checked at
/// every launch).
pub(crate) fn lowest_priority() -> bool {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 is the calling thread; the parameter is a local, only read. rustix has no
    // sched_setscheduler.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) == 0 }
}

/// Sends `payload` with `fds` attached (`SCM_RIGHTS`) as one message on a Unix socket;
/// `flags` as for `sendmsg` (`MSG_NOSIGNAL`, ...). Retried when interrupted.
pub(crate) fn send_with_fds(
    socket: RawFd,
    payload: &[u8],
    fds: &[RawFd],
    flags: libc::c_int,
) -> io::Result<()> {
    use rustix::net::{SendAncillaryBuffer, SendAncillaryMessage, SendFlags};
    if socket < 0 || fds.iter().any(|&fd| fd < 0) {
        return Err(io::Error::from_raw_os_error(libc::EBADF));
    }
    // SAFETY: descriptor numbers the caller holds open for this call (none is -1, checked
    // above); the borrows end with the call, and a number that is not open only makes the
    // kernel answer EBADF.
    let (socket, fds) = unsafe {
        let fds: Vec<BorrowedFd<'_>> = fds.iter().map(|&fd| BorrowedFd::borrow_raw(fd)).collect();
        (BorrowedFd::borrow_raw(socket), fds)
    };
    let mut space =
        vec![std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(fds.len()))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() && !control.push(SendAncillaryMessage::ScmRights(&fds)) {
        return Err(io::Error::other("descriptors do not fit a message"));
    }
    let iov = [io::IoSlice::new(payload)];
    let flags = SendFlags::from_bits_retain(flags as u32);
    loop {
        match rustix::net::sendmsg(socket, &iov, &mut control, flags) {
            Ok(sent) if sent == payload.len() => return Ok(()),
            Ok(_) => return Err(io::Error::other("short send")),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Receives one message of a Unix socket into `buf`, with at most `most_fds` descriptors
/// attached (`SCM_RIGHTS`, close-on-exec, in the order sent; more are closed). Returns the
/// payload's length and the descriptors; retried when interrupted.
pub(crate) fn recv_with_fds(
    socket: RawFd,
    buf: &mut [u8],
    most_fds: usize,
) -> io::Result<(usize, Vec<OwnedFd>)> {
    use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags};
    if socket < 0 {
        return Err(io::Error::from_raw_os_error(libc::EBADF));
    }
    // SAFETY: a descriptor number the caller holds open for this call (not -1, checked
    // above); the borrow ends with the call.
    let socket = unsafe { BorrowedFd::borrow_raw(socket) };
    let mut space = vec![std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(most_fds))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let mut iov = [io::IoSliceMut::new(buf)];
    let got = loop {
        match rustix::net::recvmsg(socket, &mut iov, &mut control, RecvFlags::CMSG_CLOEXEC) {
            Err(rustix::io::Errno::INTR) => continue,
            got => break got?,
        }
    };
    let mut fds = Vec::new();
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(rights) = message {
            fds.extend(rights);
        }
    }
    fds.truncate(most_fds);
    Ok((got.bytes, fds))
}
