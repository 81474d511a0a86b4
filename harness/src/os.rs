//! Everything that talks to the operating system directly outside the sandbox: pipes in
//! non-blocking mode, `poll` and `epoll`, process groups (of builds), CPU pinning, the
//! interrupt (Ctrl-C) pipe and the few numbers of the kernel's interface the rest needs
//! (signals, open flags); starting, limiting and reaping players is `crate::sandbox`'s. The
//! harness runs on Linux only. The rest of the harness calls these small safe wrappers and
//! never uses `libc` itself; calls go through `rustix` where it offers them.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, IntoRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

use rustix::io::Errno;

/// `SIGKILL`, `SIGPIPE`: the signals the rest of the harness names.
pub(crate) const SIGKILL: i32 = libc::SIGKILL;
pub(crate) const SIGPIPE: i32 = libc::SIGPIPE;

/// `O_NOFOLLOW`, for `OpenOptionsExt::custom_flags`: opening a symbolic link fails.
pub(crate) const NO_FOLLOW: i32 = libc::O_NOFOLLOW;

/// Puts a descriptor in non-blocking mode.
pub fn set_nonblocking(fd: BorrowedFd<'_>) -> io::Result<()> {
    let flags = rustix::fs::fcntl_getfl(fd)?;
    rustix::fs::fcntl_setfl(fd, flags | rustix::fs::OFlags::NONBLOCK)?;
    Ok(())
}

/// `read(2)` on a non-blocking descriptor: `Ok(None)` when nothing is there yet, `Ok(Some(0))`
/// at end of file.
pub fn read(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<Option<usize>> {
    loop {
        match rustix::io::read(fd, &mut *buf) {
            Ok(n) => return Ok(Some(n)),
            Err(Errno::INTR) => continue,
            Err(Errno::AGAIN) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
    }
}

/// `write(2)` on a non-blocking descriptor: `Ok(None)` when the pipe is full.
pub fn write(fd: BorrowedFd<'_>, buf: &[u8]) -> io::Result<Option<usize>> {
    loop {
        match rustix::io::write(fd, buf) {
            Ok(n) => return Ok(Some(n)),
            Err(Errno::INTR) => continue,
            Err(Errno::AGAIN) => return Ok(None),
            Err(e) => return Err(e.into()),
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
        // SAFETY: PollFd is repr(transparent) over libc::pollfd and the slice is valid for
        // its length, for the call. Not rustix's poll: its descriptors are borrowed ones, and
        // a slot here may hold -1 (ignored by the kernel), which no BorrowedFd may hold.
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
/// where the kernel has no pidfds (the game then waits for the pipe to close).
pub(crate) fn pid_fd(pid: i32) -> Option<std::os::fd::OwnedFd> {
    let pid = rustix::process::Pid::from_raw(pid)?;
    rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
}

/// Waits on a fixed set of descriptors, each registered once with a token (0..64), with
/// `epoll`: a wait costs one system call whatever the number of descriptors (`poll` would
/// register and unregister every one of them on every wait).
pub(crate) struct Waiter {
    epoll: std::os::fd::OwnedFd,
}

/// What a registered descriptor is waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Interest {
    Read,
    Write,
    /// Either (a socket the game both reads and writes).
    ReadWrite,
}

/// A change to the wait set (`epoll_ctl`).
enum Change {
    Add(u32, Interest),
    Modify(u32, Interest),
    Remove,
}

impl Waiter {
    pub fn new() -> io::Result<Waiter> {
        let epoll = rustix::event::epoll::create(rustix::event::epoll::CreateFlags::CLOEXEC)?;
        Ok(Waiter { epoll })
    }

    /// Registers a descriptor (ignored when negative). Remove it before closing it.
    pub fn add(&mut self, fd: RawFd, token: u32, interest: Interest) -> io::Result<()> {
        if fd < 0 {
            return Ok(());
        }
        self.change(fd, Change::Add(token, interest))
    }

    /// Changes what a registered descriptor is waited for.
    pub fn modify(&mut self, fd: RawFd, token: u32, interest: Interest) -> io::Result<()> {
        self.change(fd, Change::Modify(token, interest))
    }

    /// The wait set as one descriptor, readable while any registered descriptor is ready
    /// (to wait on it among others: a contest tool's pipes beside a player's).
    pub fn as_fd(&self) -> BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.epoll.as_fd()
    }

    /// Unregisters a descriptor (before it is closed).
    pub fn remove(&mut self, fd: RawFd) {
        // A descriptor not in the set is an ignored error.
        let _ = self.change(fd, Change::Remove);
    }

    /// `epoll_ctl` on the descriptor numbered `fd`; a negative one is `EBADF`, as the kernel
    /// says of it.
    fn change(&self, fd: RawFd, change: Change) -> io::Result<()> {
        use rustix::event::epoll::{self, EventData, EventFlags};
        if fd < 0 {
            return Err(Errno::BADF.into());
        }
        // SAFETY: a descriptor number the caller keeps open while it is registered (the
        // contract of `add` and `remove`), not -1 (checked above); the borrow ends with the
        // call, and a number that is not open only makes the kernel answer EBADF.
        let source = unsafe { BorrowedFd::borrow_raw(fd) };
        let flags = |interest| match interest {
            Interest::Read => EventFlags::IN,
            Interest::Write => EventFlags::OUT,
            Interest::ReadWrite => EventFlags::IN | EventFlags::OUT,
        };
        let data = |token: u32| EventData::new_u64(token as u64);
        Ok(match change {
            Change::Add(token, interest) => {
                epoll::add(&self.epoll, source, data(token), flags(interest))
            }
            Change::Modify(token, interest) => {
                epoll::modify(&self.epoll, source, data(token), flags(interest))
            }
            Change::Remove => epoll::delete(&self.epoll, source),
        }?)
    }

    /// Waits until a registered descriptor is ready (readable, writable, closed or in error)
    /// or the timeout passes (`None`: no limit). Returns the ready tokens as a bit set.
    pub fn wait(&mut self, timeout: Option<Duration>) -> io::Result<u64> {
        // Round up so that a wait never returns just before its deadline and spins.
        let timeout = timeout.map(|t| {
            let ms = t.as_micros().div_ceil(1000).min(i32::MAX as u128) as i64;
            rustix::event::Timespec {
                tv_sec: ms / 1000,
                tv_nsec: (ms % 1000) * 1_000_000,
            }
        });
        let mut events = [std::mem::MaybeUninit::uninit(); 8];
        loop {
            match rustix::event::epoll::wait(&self.epoll, &mut events, timeout.as_ref()) {
                Ok((ready, _)) => {
                    return Ok(ready
                        .iter()
                        .fold(0, |set, e| set | 1u64 << ({ e.data }.u64() & 63)))
                }
                Err(Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// Sends a signal to a whole process group; a group that is already gone is not an error.
pub(crate) fn kill_group(pgid: i32, signal: i32) {
    use rustix::process::{Pid, Signal};
    if let (Some(group), Some(signal)) = (Pid::from_raw(pgid), Signal::from_named_raw(signal)) {
        let _ = rustix::process::kill_process_group(group, signal);
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
    let mut set = rustix::thread::CpuSet::new();
    for &cpu in cpus {
        set.set(cpu);
    }
    rustix::thread::sched_setaffinity(None, &set).is_ok()
}

/// The CPUs the calling thread may run on, in order.
pub(crate) fn allowed_cpus() -> Vec<usize> {
    affinity()
        .filter(|cpus| !cpus.is_empty())
        .unwrap_or_else(|| {
            (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect()
        })
}

/// The CPUs the calling thread may run on, in order, as the kernel says (`sched_getaffinity`);
/// `None` when it cannot be read.
pub(crate) fn affinity() -> Option<Vec<usize>> {
    use rustix::thread::CpuSet;
    let set = rustix::thread::sched_getaffinity(None).ok()?;
    Some((0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect())
}

/// CPU time (µs, user and system) and the largest peak RSS (KiB) of every child reaped so
/// far (`getrusage(RUSAGE_CHILDREN)`): the attribution build's account of a start.
#[cfg(feature = "attribution")]
pub(crate) fn children_usage() -> (u64, u64) {
    usage(libc::RUSAGE_CHILDREN)
}

/// CPU time (µs, user and system) of every thread of this process so far, and its peak RSS
/// (KiB) (`getrusage(RUSAGE_SELF)`).
#[cfg(feature = "attribution")]
pub(crate) fn own_usage() -> (u64, u64) {
    usage(libc::RUSAGE_SELF)
}

#[cfg(feature = "attribution")]
fn usage(who: libc::c_int) -> (u64, u64) {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: rusage is plain data, for which all zeroes is a valid value; getrusage only
    // writes that local, alive for the call. rustix has no getrusage.
    let usage = unsafe {
        libc::getrusage(who, usage.as_mut_ptr());
        usage.assume_init()
    };
    cpu_and_peak(&usage)
}

/// A `rusage`'s CPU time (µs, user and system) and largest peak RSS (KiB).
pub(crate) fn cpu_and_peak(usage: &libc::rusage) -> (u64, u64) {
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    (
        us(usage.ru_utime) + us(usage.ru_stime),
        usage.ru_maxrss as u64,
    )
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static INTERRUPT_WRITE_FD: AtomicI32 = AtomicI32::new(-1);
static INTERRUPT_READ_FD: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    let fd = INTERRUPT_WRITE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: the write end of the interrupt pipe, stored once and never closed, so open
        // for the call (and not -1, checked above). rustix's write is one system call that
        // neither allocates nor touches errno: async-signal-safe.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        let _ = rustix::io::write(fd, b"!");
    }
}

/// Installs handlers for SIGINT and SIGTERM that mark the run interrupted and make the
/// interrupt descriptor readable, so every session's `poll` wakes at once.
pub(crate) fn install_interrupt_handler() -> io::Result<()> {
    use rustix::pipe::PipeFlags;
    if INTERRUPT_READ_FD.load(Ordering::SeqCst) >= 0 {
        return Ok(());
    }
    let (read, write) = rustix::pipe::pipe_with(PipeFlags::CLOEXEC | PipeFlags::NONBLOCK)?;
    // Open for the rest of the process's life (the handler may run at any time).
    INTERRUPT_READ_FD.store(read.into_raw_fd(), Ordering::SeqCst);
    INTERRUPT_WRITE_FD.store(write.into_raw_fd(), Ordering::SeqCst);
    // SAFETY: sigaction is plain data, for which all zeroes is a valid value (no flags, empty
    // mask); the handler only stores to an atomic and writes one byte (async-signal-safe).
    // rustix's sigaction is as unsafe, and std has none.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_interrupt as *const () as usize;
        action.sa_flags = libc::SA_RESTART;
        for signal in [libc::SIGINT, libc::SIGTERM] {
            if libc::sigaction(signal, &action, std::ptr::null_mut()) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
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
    use std::os::unix::process::CommandExt;
    // No MFD_CLOEXEC: the new program inherits it.
    let fd = match rustix::fs::memfd_create(c"harness-secret", rustix::fs::MemfdFlags::empty()) {
        Ok(fd) => fd,
        Err(e) => return e.into(),
    };
    let mut file = std::fs::File::from(fd);
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
        .env(fd_var, file.as_raw_fd().to_string())
        .exec();
    drop(file);
    e
}

/// Reads all of descriptor `fd` from its start and closes it (the payload of
/// [`reexec_with_payload`]).
pub(crate) fn take_payload(fd: RawFd) -> io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    if fd < 0 {
        return Err(Errno::BADF.into());
    }
    // SAFETY: a descriptor number handed to us by the process we replaced, not -1 (checked
    // above). It is taken only if it is really open (F_GETFD only asks), so a stale number
    // cannot close another file; nothing else in this process owns it.
    let mut file = unsafe {
        rustix::io::fcntl_getfd(BorrowedFd::borrow_raw(fd))?;
        std::fs::File::from_raw_fd(fd)
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Makes the calling process undumpable: another process of the same user can no longer read
/// its memory or environment through /proc, nor trace it (the harness, when it holds a key).
pub(crate) fn forbid_inspection() {
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
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
