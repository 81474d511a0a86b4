//! Thin wrappers over the Linux system calls the sandbox needs (clone with namespaces, mounts,
//! ids, limits, waiting and killing). Each turns a failure into an `io::Error` that names the
//! call; nothing here decides policy.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

pub(crate) fn check(ret: libc::c_long, what: &str) -> io::Result<libc::c_long> {
    if ret < 0 {
        let e = io::Error::last_os_error();
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(ret)
    }
}

pub(crate) fn cstr(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path holds a NUL byte"))
}

/// A pipe whose both ends are close-on-exec.
pub(crate) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors that we then own.
    check(
        unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } as _,
        "pipe2",
    )?;
    // SAFETY: fresh descriptors owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `clone` like `fork`, with namespace flags: returns 0 in the child and the child's pid in
/// the parent. Only for single-threaded callers (the supervisor).
pub(crate) fn fork_with(flags: libc::c_int) -> io::Result<libc::pid_t> {
    // SAFETY: the raw clone syscall without CLONE_VM and without a new stack behaves as
    // fork; the caller is single-threaded, so the child may go on running Rust code.
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

pub(crate) fn write_file(path: &str, text: &str) -> io::Result<()> {
    std::fs::write(path, text).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))
}

pub(crate) fn mount(
    source: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> io::Result<()> {
    let source = source.map(cstr).transpose()?;
    let target_c = cstr(target)?;
    let fstype = fstype.map(|s| CString::new(s).expect("no NUL"));
    let data = data.map(|s| CString::new(s).expect("no NUL"));
    // SAFETY: every pointer is a valid C string or null, for the call.
    let ret = unsafe {
        libc::mount(
            source.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            target_c.as_ptr(),
            fstype.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            flags,
            data.as_ref()
                .map_or(std::ptr::null(), |s| s.as_ptr().cast()),
        )
    };
    if ret < 0 {
        // The message is made only on failure: a test's view is dozens of mounts.
        let e = io::Error::last_os_error();
        return Err(io::Error::new(
            e.kind(),
            format!("mount {}: {e}", target.display()),
        ));
    }
    Ok(())
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
    // SAFETY: a valid C string and a pointer to a local struct of the size passed.
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
        return Err(io::Error::new(
            e.kind(),
            format!("mount_setattr {}: {e}", path.display()),
        ));
    }
    Ok(true)
}

/// The file system `path` is on: its type (`f_type`, e.g. `TMPFS_MAGIC`) and the bytes an
/// unprivileged user may still write there.
pub(crate) fn file_system(path: &Path) -> io::Result<(u64, u64)> {
    let c = cstr(path)?;
    // SAFETY: statfs is plain data filled by the call.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: valid C string and pointer to a local.
    check(unsafe { libc::statfs(c.as_ptr(), &mut st) } as _, "statfs")?;
    let free = (st.f_bavail as u64).saturating_mul(st.f_bsize as u64);
    Ok((st.f_type as u64, free))
}

/// `flock(LOCK_EX)` on `file`; with `try_only`, fails at once (`EWOULDBLOCK`) when another
/// open file holds it.
pub(crate) fn flock(file: &std::fs::File, try_only: bool) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let op = if try_only {
        libc::LOCK_EX | libc::LOCK_NB
    } else {
        libc::LOCK_EX
    };
    loop {
        // SAFETY: a descriptor the caller owns.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Whether this process may make entries in the folder `path` (`access(W_OK | X_OK)`).
pub(crate) fn may_write(path: &Path) -> bool {
    // SAFETY: valid C string.
    cstr(path).is_ok_and(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } == 0)
}

/// The flags of the mount a path is on (`ST_*` of statvfs), to keep locked ones on remount.
pub(crate) fn mount_flags(path: &Path) -> io::Result<libc::c_ulong> {
    let c = cstr(path)?;
    // SAFETY: statvfs is plain data filled by the call.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: valid C string and pointer to a local.
    check(
        unsafe { libc::statvfs(c.as_ptr(), &mut st) } as _,
        "statvfs",
    )?;
    let mut flags = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if st.f_flag & st_flag != 0 {
            flags |= ms_flag;
        }
    }
    Ok(flags)
}

/// Makes the current directory the root (`pivot_root(".", ".")`) and drops the old one.
pub(crate) fn pivot_here() -> io::Result<()> {
    let dot = c".";
    // SAFETY: valid C strings.
    check(
        unsafe { libc::syscall(libc::SYS_pivot_root, dot.as_ptr(), dot.as_ptr()) },
        "pivot_root",
    )?;
    // SAFETY: valid C string.
    check(
        unsafe { libc::umount2(dot.as_ptr(), libc::MNT_DETACH) } as _,
        "umount old root",
    )?;
    std::env::set_current_dir("/")
}

/// Makes the caller join a new, empty session keyring of its own (`keyctl(JOIN_SESSION_KEYRING,
/// NULL)`): the keys of the session it was started in are no longer reachable, and what it
/// adds dies with its last process. A kernel without keys (ENOSYS) has nothing to reach.
pub(crate) fn fresh_session_keyring() -> io::Result<()> {
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
    // SAFETY: keyctl with a null name makes an anonymous keyring; no pointer is written.
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
    // SAFETY: umask only sets the calling process's mask.
    unsafe { libc::umask(mask) };
}

pub(crate) fn set_hostname(name: &str) -> io::Result<()> {
    // SAFETY: pointer and length of a live str.
    check(
        unsafe { libc::sethostname(name.as_ptr().cast(), name.len()) } as _,
        "sethostname",
    )
    .map(|_| ())
}

/// Brings the loopback interface of the current network namespace up.
pub(crate) fn loopback_up() -> io::Result<()> {
    // SAFETY: a socket we close below; ifreq is plain data.
    unsafe {
        let sock = check(
            libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) as _,
            "socket",
        )? as RawFd;
        let sock = OwnedFd::from_raw_fd(sock);
        let mut req: libc::ifreq = std::mem::zeroed();
        for (i, b) in b"lo".iter().enumerate() {
            req.ifr_name[i] = *b as libc::c_char;
        }
        use std::os::fd::AsRawFd;
        check(
            libc::ioctl(sock.as_raw_fd(), libc::SIOCGIFFLAGS, &mut req) as _,
            "SIOCGIFFLAGS",
        )?;
        req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        check(
            libc::ioctl(sock.as_raw_fd(), libc::SIOCSIFFLAGS, &req) as _,
            "SIOCSIFFLAGS",
        )?;
    }
    Ok(())
}

pub(crate) fn set_rlimit(resource: libc::__rlimit_resource_t, value: u64) -> io::Result<()> {
    let lim = libc::rlimit {
        rlim_cur: value as libc::rlim_t,
        rlim_max: value as libc::rlim_t,
    };
    // SAFETY: pointer to a local.
    check(unsafe { libc::setrlimit(resource, &lim) } as _, "setrlimit").map(|_| ())
}

/// Lowers only the soft limit (the hard one stays, so a debugger can raise it again).
pub(crate) fn set_soft_rlimit(resource: libc::__rlimit_resource_t, value: u64) -> io::Result<()> {
    // SAFETY: rlimit is plain data, filled then passed back.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        check(libc::getrlimit(resource, &mut lim) as _, "getrlimit")?;
        lim.rlim_cur = (value as libc::rlim_t).min(lim.rlim_max);
        check(libc::setrlimit(resource, &lim) as _, "setrlimit").map(|_| ())
    }
}

/// Takes the calling process out of the terminal's reach without a session of its own: a
/// process group of its own (so the terminal's Ctrl-C and job control do not reach it), and
/// no controlling terminal (`TIOCNOTTY`, where it had one: opening `/dev/tty` then fails,
/// and a process that is not a session leader cannot take a terminal again). Not `setsid`:
/// a new session is a new scheduler autogroup, and a player in an autogroup other than the
/// harness's costs every round trip a switch between two groups (about a fifth of a raw pipe
/// round trip, `harness bench`).
pub(crate) fn leave_terminal() {
    // SAFETY: plain calls on the calling process; the descriptor is ours and closed here.
    unsafe {
        libc::setpgid(0, 0);
        let tty = libc::open(
            c"/dev/tty".as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        );
        if tty >= 0 {
            libc::ioctl(tty, libc::TIOCNOTTY);
            libc::close(tty);
        }
    }
}

pub(crate) fn prctl(option: libc::c_int, arg: libc::c_ulong) -> io::Result<()> {
    // SAFETY: prctl with integer arguments.
    check(
        unsafe {
            libc::prctl(
                option,
                arg,
                0 as libc::c_ulong,
                0 as libc::c_ulong,
                0 as libc::c_ulong,
            )
        } as _,
        "prctl",
    )
    .map(|_| ())
}

/// Closes every descriptor from `first` up, but `keep`.
pub(crate) fn close_from(first: RawFd, keep: Option<RawFd>) {
    let close = |lo: RawFd, hi: libc::c_uint| {
        if lo as libc::c_uint > hi {
            return;
        }
        // SAFETY: closes descriptors by number; nothing else refers to them afterwards.
        let ret = unsafe { libc::syscall(libc::SYS_close_range, lo as libc::c_uint, hi, 0) };
        if ret < 0 {
            // Kernels before 5.9: close them one by one.
            for fd in lo..(hi.min(65535) as RawFd + 1) {
                // SAFETY: as above.
                unsafe { libc::close(fd) };
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
    // SAFETY: open, dup2 and close on descriptors we own.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        for fd in 0..3 {
            if null >= 0 {
                libc::dup2(null, fd);
            } else {
                libc::close(fd);
            }
        }
        if null > 2 {
            libc::close(null);
        }
    }
}

/// `execve`; returns only on failure.
pub(crate) fn exec(program: &CStr, argv: &[CString], env: &[CString]) -> io::Error {
    let mut argv_p: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_p.push(std::ptr::null());
    let mut env_p: Vec<*const libc::c_char> = env.iter().map(|a| a.as_ptr()).collect();
    env_p.push(std::ptr::null());
    // SAFETY: null-terminated arrays of valid C strings, alive for the call.
    unsafe { libc::execve(program.as_ptr(), argv_p.as_ptr(), env_p.as_ptr()) };
    io::Error::last_os_error()
}

pub(crate) fn kill(pid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: plain syscall.
    unsafe { libc::kill(pid, signal) };
}

/// What `wait4` tells of an ended child.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waited {
    pub pid: libc::pid_t,
    pub exit: super::spec::Exit,
}

/// `wait4(pid)`: `Ok(None)` when nothing is ready (`block = false`) or no child is left.
pub(crate) fn wait(pid: libc::pid_t, block: bool) -> io::Result<Option<Waited>> {
    let mut status = 0;
    // SAFETY: rusage is plain data.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pointers to locals.
        let ret = unsafe {
            libc::wait4(
                pid,
                &mut status,
                if block { 0 } else { libc::WNOHANG } | libc::__WALL,
                &mut usage,
            )
        };
        if ret == 0 {
            return Ok(None);
        }
        if ret < 0 {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::ECHILD) => return Ok(None),
                _ => return Err(e),
            }
        }
        let exit = if libc::WIFSIGNALED(status) {
            super::spec::Exit::Signal(libc::WTERMSIG(status))
        } else {
            super::spec::Exit::Code(libc::WEXITSTATUS(status))
        };
        return Ok(Some(Waited { pid: ret, exit }));
    }
}

fn cpu_us(u: &libc::rusage) -> u64 {
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    us(u.ru_utime) + us(u.ru_stime)
}

/// CPU time and the largest peak RSS of every child reaped so far.
pub(crate) fn children_usage() -> (u64, u64) {
    // SAFETY: rusage is plain data filled by the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pointer to a local.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    (cpu_us(&usage), usage.ru_maxrss as u64)
}

/// Blocks SIGCHLD and returns a descriptor that reads when a child changes state.
pub(crate) fn sigchld_fd() -> io::Result<OwnedFd> {
    // SAFETY: sigset_t is plain data set up by sigemptyset/sigaddset.
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
        Ok(OwnedFd::from_raw_fd(fd as RawFd))
    }
}

/// Unblocks every signal and resets the usual ones to their default action (before exec).
pub(crate) fn reset_signals() {
    // SAFETY: sigset_t is plain data; signal() with SIG_DFL.
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
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    loop {
        // SAFETY: valid array for its length.
        let n = unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, timeout_ms) };
        if n < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return p
            .iter()
            .enumerate()
            .filter(|(_, p)| p.revents != 0)
            .fold(0, |set, (i, _)| set | 1 << i);
    }
}

/// The calling thread's id.
pub(crate) fn gettid() -> libc::pid_t {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() }
}

/// The CPUs the calling thread may run on, as a cgroup CPU list ("1", "0,1"); empty when
/// they cannot be read.
pub(crate) fn affinity_list() -> String {
    // SAFETY: cpu_set_t is plain data filled by the call; CPU_ISSET reads inside it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return String::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| libc::CPU_ISSET(cpu, &set))
            .map(|cpu| cpu.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The bytes a pipe holds before a write to it blocks (`F_GETPIPE_SZ`).
pub(crate) fn pipe_capacity(fd: RawFd) -> Option<usize> {
    // SAFETY: fcntl on a descriptor of ours; no memory is passed.
    let size = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
    usize::try_from(size).ok()
}

/// Lets the calling thread run on every CPU the process may use: a thread started by a
/// pinned worker would otherwise stay on that worker's CPU (the kernel keeps what the
/// process's cpuset allows of a full mask).
pub(crate) fn unpin() -> bool {
    let every: Vec<usize> = (0..libc::CPU_SETSIZE as usize).collect();
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
    // SAFETY: pid 0 is the calling thread; the parameter is plain data.
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
    let mut iov = libc::iovec {
        iov_base: payload.as_ptr() as *mut libc::c_void,
        iov_len: payload.len(),
    };
    let fd_bytes = std::mem::size_of_val(fds) as u32;
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(fd_bytes) } as usize;
    // u64 words: a control buffer aligned for cmsghdr.
    let mut control = vec![0u64; space.div_ceil(8)];
    // SAFETY: msghdr is plain data; every pointer set below outlives the sendmsg call, and
    // the control buffer holds CMSG_SPACE(fd_bytes) bytes, so CMSG_FIRSTHDR and CMSG_DATA
    // stay inside it.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        if !fds.is_empty() {
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = space as _;
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(fd_bytes) as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr(),
                libc::CMSG_DATA(cmsg).cast::<RawFd>(),
                fds.len(),
            );
        }
        loop {
            let sent = libc::sendmsg(socket, &msg, flags);
            if sent == payload.len() as isize {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if sent < 0 && e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(if sent < 0 {
                e
            } else {
                io::Error::other("short send")
            });
        }
    }
}

/// Receives one message of a Unix socket into `buf`, with at most `most_fds` descriptors
/// attached (`SCM_RIGHTS`, close-on-exec, in the order sent). Returns the payload's length
/// and the descriptors; retried when interrupted.
pub(crate) fn recv_with_fds(
    socket: RawFd,
    buf: &mut [u8],
    most_fds: usize,
) -> io::Result<(usize, Vec<OwnedFd>)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: CMSG_SPACE only computes a size.
    let space =
        unsafe { libc::CMSG_SPACE((most_fds * std::mem::size_of::<RawFd>()) as u32) } as usize;
    let mut control = vec![0u64; space.div_ceil(8)];
    // SAFETY: msghdr is plain data whose pointers outlive recvmsg; the kernel writes at most
    // msg_controllen bytes of control data, and the walk below stays inside what it wrote;
    // each descriptor taken from the message is fresh and owned here.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        let n = loop {
            let n = libc::recvmsg(socket, &mut msg, libc::MSG_CMSG_CLOEXEC);
            if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            break n;
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut fds = Vec::new();
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg).cast::<RawFd>();
                let len = (*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                for i in 0..len / std::mem::size_of::<RawFd>() {
                    fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
        Ok((n as usize, fds))
    }
}
