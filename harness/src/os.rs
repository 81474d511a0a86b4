//! Everything that talks to the operating system directly (Linux and other Unixes) outside
//! the sandbox: pipes in non-blocking mode, `poll`, process groups (of builds), CPU pinning
//! and the interrupt (Ctrl-C) pipe; starting, limiting and reaping players is
//! `crate::sandbox`'s. The rest of the harness calls these small
//! safe wrappers and never uses `libc` itself.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Puts a descriptor in non-blocking mode.
pub fn set_nonblocking(fd: BorrowedFd<'_>) -> io::Result<()> {
    let fd = fd.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own; no memory is passed.
    unsafe {
        let flags = check(libc::fcntl(fd, libc::F_GETFL))?;
        check(libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK))?;
    }
    Ok(())
}

/// `read(2)` on a non-blocking descriptor: `Ok(None)` when nothing is there yet, `Ok(Some(0))`
/// at end of file.
pub fn read(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<Option<usize>> {
    loop {
        // SAFETY: buf is a valid writable slice of the given length.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let err = io::Error::last_os_error();
        match err.kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => return Ok(None),
            _ => return Err(err),
        }
    }
}

/// `write(2)` on a non-blocking descriptor: `Ok(None)` when the pipe is full.
pub fn write(fd: BorrowedFd<'_>, buf: &[u8]) -> io::Result<Option<usize>> {
    loop {
        // SAFETY: buf is a valid readable slice of the given length.
        let n = unsafe { libc::write(fd.as_raw_fd(), buf.as_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let err = io::Error::last_os_error();
        match err.kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => return Ok(None),
            _ => return Err(err),
        }
    }
}

/// What one descriptor in a [`poll`] call waits for and what it got.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct PollFd(libc::pollfd);

impl PollFd {
    pub fn readable(fd: RawFd) -> PollFd {
        PollFd(libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
    }

    pub fn writable(fd: RawFd) -> PollFd {
        PollFd(libc::pollfd {
            fd,
            events: libc::POLLOUT,
            revents: 0,
        })
    }

    /// A slot that is ignored (negative descriptor).
    pub(crate) fn unused() -> PollFd {
        PollFd(libc::pollfd {
            fd: -1,
            events: 0,
            revents: 0,
        })
    }

    /// Ready, or closed, or in error: any of these means the next read/write will not block.
    pub fn ready(&self) -> bool {
        self.0.revents != 0
    }

    /// In error: for the write end of a pipe, nobody reads it any more.
    pub fn failed(&self) -> bool {
        self.0.revents & libc::POLLERR != 0
    }
}

/// Waits until one of the descriptors is ready or the timeout passes (`None`: no limit).
/// Returns whether anything is ready.
pub fn poll(fds: &mut [PollFd], timeout: Option<Duration>) -> io::Result<bool> {
    let ms = match timeout {
        None => -1,
        // Round up so that a poll never returns just before its deadline and spins.
        Some(t) => t.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int,
    };
    loop {
        // SAFETY: PollFd is repr(transparent) over libc::pollfd; the
        // slice is valid for its length.
        let n = unsafe { libc::poll(fds.as_mut_ptr().cast(), fds.len() as libc::nfds_t, ms) };
        if n >= 0 {
            return Ok(n > 0);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// A descriptor that becomes readable when the process exits (Linux `pidfd_open`), so a
/// player that exits while a grandchild holds its stdout open is noticed at once. `None`
/// where the system has no pidfds (the game then waits for the pipe to close).
pub(crate) fn pid_fd(pid: i32) -> Option<std::os::fd::OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::FromRawFd;
        // SAFETY: pidfd_open returns a new descriptor we own, or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd >= 0 {
            // SAFETY: fd is a fresh descriptor owned by nobody else.
            return Some(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as RawFd) });
        }
    }
    let _ = pid;
    None
}

/// Waits on a fixed set of descriptors, each registered once with a token (0..64): with
/// `epoll` on Linux, so a wait costs one system call whatever the number of descriptors
/// (`poll` would register and unregister every one of them on every wait); with `poll`
/// elsewhere.
pub(crate) struct Waiter {
    #[cfg(target_os = "linux")]
    epoll: std::os::fd::OwnedFd,
    #[cfg(not(target_os = "linux"))]
    fds: Vec<(PollFd, u32)>,
}

/// What a registered descriptor is waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Interest {
    Read,
    Write,
    /// Either (a socket the game both reads and writes).
    ReadWrite,
}

impl Waiter {
    pub fn new() -> io::Result<Waiter> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::FromRawFd;
            // SAFETY: epoll_create1 returns a new descriptor we own, or -1.
            let fd = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
            // SAFETY: fd is fresh and owned by nobody else.
            Ok(Waiter {
                epoll: unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) },
            })
        }
        #[cfg(not(target_os = "linux"))]
        Ok(Waiter { fds: Vec::new() })
    }

    /// Registers a descriptor (ignored when negative). Remove it before closing it.
    pub fn add(&mut self, fd: RawFd, token: u32, interest: Interest) -> io::Result<()> {
        if fd < 0 {
            return Ok(());
        }
        #[cfg(target_os = "linux")]
        {
            let mut event = libc::epoll_event {
                events: match interest {
                    Interest::Read => libc::EPOLLIN as u32,
                    Interest::Write => libc::EPOLLOUT as u32,
                    Interest::ReadWrite => (libc::EPOLLIN | libc::EPOLLOUT) as u32,
                },
                u64: token as u64,
            };
            // SAFETY: a pointer to a local event, valid for the call.
            check(unsafe {
                libc::epoll_ctl(self.epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut event)
            })?;
        }
        #[cfg(not(target_os = "linux"))]
        self.fds.push((
            match interest {
                Interest::Read => PollFd::readable(fd),
                Interest::Write => PollFd::writable(fd),
                Interest::ReadWrite => PollFd(libc::pollfd {
                    fd,
                    events: libc::POLLIN | libc::POLLOUT,
                    revents: 0,
                }),
            },
            token,
        ));
        Ok(())
    }

    /// Changes what a registered descriptor is waited for.
    pub fn modify(&mut self, fd: RawFd, token: u32, interest: Interest) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            let mut event = libc::epoll_event {
                events: match interest {
                    Interest::Read => libc::EPOLLIN as u32,
                    Interest::Write => libc::EPOLLOUT as u32,
                    Interest::ReadWrite => (libc::EPOLLIN | libc::EPOLLOUT) as u32,
                },
                u64: token as u64,
            };
            // SAFETY: a pointer to a local event, valid for the call.
            check(unsafe {
                libc::epoll_ctl(self.epoll.as_raw_fd(), libc::EPOLL_CTL_MOD, fd, &mut event)
            })?;
            Ok(())
        }
        #[cfg(not(target_os = "linux"))]
        {
            self.remove(fd);
            self.add(fd, token, interest)
        }
    }

    /// The wait set as one descriptor, readable while any registered descriptor is ready
    /// (to wait on it among others: a contest tool's pipes beside a player's). Linux only.
    #[cfg(target_os = "linux")]
    pub fn as_fd(&self) -> BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.epoll.as_fd()
    }

    /// Unregisters a descriptor (before it is closed).
    pub fn remove(&mut self, fd: RawFd) {
        #[cfg(target_os = "linux")]
        // SAFETY: plain syscall; a descriptor not in the set is an ignored error.
        unsafe {
            libc::epoll_ctl(
                self.epoll.as_raw_fd(),
                libc::EPOLL_CTL_DEL,
                fd,
                std::ptr::null_mut(),
            );
        }
        #[cfg(not(target_os = "linux"))]
        self.fds.retain(|(p, _)| p.0.fd != fd);
    }

    /// Waits until a registered descriptor is ready (readable, writable, closed or in error)
    /// or the timeout passes (`None`: no limit). Returns the ready tokens as a bit set.
    pub fn wait(&mut self, timeout: Option<Duration>) -> io::Result<u64> {
        let ms = match timeout {
            None => -1,
            // Round up so that a wait never returns just before its deadline and spins.
            Some(t) => t.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int,
        };
        #[cfg(target_os = "linux")]
        {
            // SAFETY: epoll_event is plain data.
            let mut events: [libc::epoll_event; 8] = unsafe { std::mem::zeroed() };
            loop {
                // SAFETY: the array is valid for its length.
                let n =
                    unsafe { libc::epoll_wait(self.epoll.as_raw_fd(), events.as_mut_ptr(), 8, ms) };
                if n >= 0 {
                    return Ok(events[..n as usize]
                        .iter()
                        .fold(0, |set, e| set | 1u64 << ({ e.u64 } & 63)));
                }
                let err = io::Error::last_os_error();
                if err.kind() != io::ErrorKind::Interrupted {
                    return Err(err);
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let mut fds: Vec<PollFd> = self.fds.iter().map(|(p, _)| *p).collect();
            poll(&mut fds, timeout)?;
            let _ = ms;
            Ok(fds
                .iter()
                .zip(&self.fds)
                .filter(|(p, _)| p.ready())
                .fold(0, |set, (_, (_, t))| set | 1u64 << (t & 63)))
        }
    }
}

/// Sends a signal to a whole process group; a group that is already gone is not an error.
pub(crate) fn kill_group(pgid: i32, signal: libc::c_int) {
    // SAFETY: plain syscall.
    unsafe {
        libc::killpg(pgid, signal);
    }
}

/// How a reaped process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Exit::Code(c) => write!(f, "exit status {c}"),
            Exit::Signal(s) => write!(f, "killed by signal {s} ({})", signal_name(s)),
        }
    }
}

/// The usual name of a signal number.
pub(crate) fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => "signal",
    }
}

/// Prepares a command so that the child leads a new process group (so the whole group can
/// be signalled). Nothing runs between fork and exec, so the standard library can start the
/// child with `posix_spawn` (vfork-like): a plain `fork` of the multi-threaded harness copies
/// its page tables under a process-wide lock, which serialises the workers' spawns.
pub(crate) fn configure_child(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
}

/// Pins the calling thread (and so every process it starts afterwards) to one CPU.
/// Returns false where the system refuses (the run goes on unpinned).
pub(crate) fn pin_current_thread(cpu: usize) -> bool {
    set_affinity(&[cpu])
}

/// Lets the calling thread run on exactly these CPUs.
pub(crate) fn set_affinity(cpus: &[usize]) -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: cpu_set_t is plain data; CPU_SET writes inside it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &cpu in cpus {
                libc::CPU_SET(cpu, &mut set);
            }
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpus;
        false
    }
}

/// The CPUs the calling thread may run on, in order.
pub(crate) fn allowed_cpus() -> Vec<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
                let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
                    .filter(|&c| libc::CPU_ISSET(c, &set))
                    .collect();
                if !cpus.is_empty() {
                    return cpus;
                }
            }
        }
    }
    (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect()
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static INTERRUPT_WRITE_FD: AtomicI32 = AtomicI32::new(-1);
static INTERRUPT_READ_FD: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    let fd = INTERRUPT_WRITE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write is async-signal-safe; one byte from a static.
        unsafe {
            libc::write(fd, b"!".as_ptr().cast(), 1);
        }
    }
}

/// Installs handlers for SIGINT and SIGTERM that mark the run interrupted and make the
/// interrupt descriptor readable, so every session's `poll` wakes at once.
pub(crate) fn install_interrupt_handler() -> io::Result<()> {
    if INTERRUPT_READ_FD.load(Ordering::SeqCst) >= 0 {
        return Ok(());
    }
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors; sigaction with a plain handler.
    unsafe {
        check(libc::pipe2(
            fds.as_mut_ptr(),
            libc::O_CLOEXEC | libc::O_NONBLOCK,
        ))?;
        INTERRUPT_READ_FD.store(fds[0], Ordering::SeqCst);
        INTERRUPT_WRITE_FD.store(fds[1], Ordering::SeqCst);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_interrupt as *const () as usize;
        action.sa_flags = libc::SA_RESTART;
        check(libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut()))?;
        check(libc::sigaction(
            libc::SIGTERM,
            &action,
            std::ptr::null_mut(),
        ))?;
    }
    Ok(())
}

/// Whether SIGINT or SIGTERM arrived.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The descriptor that becomes readable on an interrupt (-1 before the handler is installed;
/// `poll` ignores negative descriptors).
pub(crate) fn interrupt_fd() -> RawFd {
    INTERRUPT_READ_FD.load(Ordering::SeqCst)
}

/// Marks the run interrupted without a signal (tests, and a reporter that cannot write).
pub(crate) fn request_interrupt() {
    on_interrupt(0);
}

/// Starts this program again in place of the calling process (same pid, the arguments
/// `args`, the environment as it is now plus `fd_var`=N) with `payload` in an anonymous
/// in-memory file open as descriptor N: what the kernel shows of the new process in
/// `/proc/<pid>/cmdline` and `environ` is only what is passed here. Returns only on failure.
pub(crate) fn reexec_with_payload(
    args: &[std::ffi::OsString],
    fd_var: &str,
    payload: &[u8],
) -> io::Error {
    use std::io::{Seek, Write};
    use std::os::fd::FromRawFd;
    use std::os::unix::process::CommandExt;
    // SAFETY: memfd_create with a C string name; the descriptor is ours. No MFD_CLOEXEC: the
    // new program inherits it.
    let fd = unsafe { libc::memfd_create(c"harness-secret".as_ptr(), 0) };
    if fd < 0 {
        return io::Error::last_os_error();
    }
    // SAFETY: a fresh descriptor, owned here until the exec hands it on.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    if let Err(e) = file
        .write_all(payload)
        .and_then(|()| file.rewind().map(|_| ()))
    {
        return e;
    }
    let Some((first, rest)) = args.split_first() else {
        return io::Error::other("no program name");
    };
    let e = std::process::Command::new("/proc/self/exe")
        .arg0(first)
        .args(rest)
        .env(fd_var, fd.to_string())
        .exec();
    drop(file);
    e
}

/// Reads all of descriptor `fd` from its start and closes it (the payload of
/// [`reexec_with_payload`]).
pub(crate) fn take_payload(fd: RawFd) -> io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    // Only a descriptor that is really open: a stale number must not close another file.
    // SAFETY: F_GETFD only asks.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor was handed to us by the process we replaced; we own it now.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Makes the calling process undumpable: another process of the same user can no longer read
/// its memory or environment through /proc, nor trace it (the harness, when it holds a key).
pub(crate) fn forbid_inspection() {
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

/// The first file named `name` in a folder of the host's PATH (what a shell would run).
pub(crate) fn find_on_path(name: impl AsRef<std::path::Path>) -> Option<std::path::PathBuf> {
    let name = name.as_ref();
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}
