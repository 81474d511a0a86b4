//! The supervisors' fork server: a small process (`harness-sandbox __sandbox forker`) that
//! each harness thread starting tests starts once, and that forks every later test's
//! supervisor for it, instead of the harness executing the supervisor's program anew for each
//! test. A supervisor so made skips the program's execution and loading (about half a
//! millisecond of CPU and of a test's start on the machines we measured: the loader, glibc's
//! CPU probes, which trap in a virtual machine, and the kernel's exec), and is otherwise the
//! process [`super::spawn_self`] would have started:
//!
//! - it is the **harness's child** (`CLONE_PARENT`), reaped, killed and waited for by pid as
//!   before, its exit signalled to the harness;
//! - its descriptors are exactly the ones handed over (0, 1, 2... as the supervisor's contract
//!   says), nothing of the server's;
//! - it runs on the CPUs of the thread that asked (the worker's pinning, which the test's
//!   cpuset is made from), with default signals and an empty mask, the server's empty
//!   environment (plus the bench's attribution switch, when asked), and is dumpable as a
//!   freshly executed program is (the supervisor itself decides when it stops being so);
//! - it is in the harness's own groups: the server is started outside any worker's cpu group.
//!
//! The server holds nothing else: it is not dumpable (a process-mode player of the same user
//! cannot trace it), dies with the thread that started it (parent-death signal) or when that
//! thread's end of its socket closes, and never runs a test's code itself. A server that
//! cannot be started, or is found gone, is started again once; failing that, the test's
//! supervisor is executed as before. A server that takes a request and answers nothing (it
//! was stopped) fails that one test's start (ERR) rather than risk two supervisors on one
//! test's pipes.
//!
//! May touch: its socket, the descriptors it is handed, and the child's affinity.

use std::cell::RefCell;
use std::io;
use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd, RawFd};

use super::sys;

/// Descriptors a request may hand over (the supervisor's contract: 0-4, and 5-8 with a
/// pooled network namespace and a kept view).
const MOST_FDS: usize = 9;

/// Bytes of a request before the attribution switch: the caller's CPU set.
const MASK_BYTES: usize = std::mem::size_of::<libc::cpu_set_t>();

/// Where the server keeps its socket: above any descriptor a request brings.
const SERVER_SOCKET: RawFd = 64;

/// How long the harness waits for the server's answer before it gives up on that server.
const ANSWER_WITHIN_MS: i32 = 10_000;

/// A thread's server: its pid (the harness's child) and the harness's end of its socket.
struct Server {
    pid: i32,
    socket: OwnedFd,
}

impl Server {
    /// Ends a server that failed a request (gone, or not answering): killed and reaped here.
    fn end(mut self) {
        sys::kill(self.pid, libc::SIGKILL);
        let _ = sys::wait(self.pid, true);
        // Reaped: nothing for `drop` to hand on (the pid may be another child's by now).
        self.pid = 0;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The socket closes after this: the server reads its end and exits.
        let _ = rustix::net::shutdown(&self.socket, rustix::net::Shutdown::Both);
        if self.pid > 0 {
            super::reap_later(self.pid);
        }
    }
}

thread_local! {
    static SERVER: RefCell<Option<Server>> = const { RefCell::new(None) };
}

/// Why a request was not served.
enum Failed {
    /// Nothing reached the server: the caller may start the supervisor another way.
    NotSent,
    /// The server took the request and did not answer: a supervisor may exist.
    Unanswered(io::Error),
}

/// Starts a test's supervisor with `fds` as its descriptors 0, 1, 2..., through this thread's
/// server (started on first use, and once again if found gone); `None` when no server can
/// be had, so that the caller executes the supervisor itself.
pub(crate) fn start(fds: &[RawFd]) -> Option<io::Result<i32>> {
    if fds.len() > MOST_FDS {
        return None;
    }
    SERVER
        .try_with(|cell| {
            let mut slot = cell.borrow_mut();
            for _ in 0..2 {
                if slot.is_none() {
                    *slot = Some(launch().ok()?);
                }
                let server = slot.as_ref().expect("just set");
                match ask(server, fds) {
                    Ok(pid) => return Some(Ok(pid)),
                    Err(Failed::NotSent) => {
                        // Gone (killed, or ended): another one, once.
                        if let Some(dead) = slot.take() {
                            dead.end();
                        }
                    }
                    Err(Failed::Unanswered(e)) => {
                        if let Some(dead) = slot.take() {
                            dead.end();
                        }
                        return Some(Err(e));
                    }
                }
            }
            None
        })
        .ok()
        .flatten()
}

/// Starts this thread's server, outside the worker's cpu group.
fn launch() -> io::Result<Server> {
    let (ours, theirs) = socket_pair()?;
    let pid = super::cgroup::outside_worker_cpu(|| {
        super::spawn_self(
            &[theirs.as_raw_fd()],
            &[c"harness", c"__sandbox", c"forker"],
        )
    })?;
    drop(theirs);
    Ok(Server { pid, socket: ours })
}

fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    use rustix::net::{socketpair, AddressFamily, SocketFlags, SocketType};
    Ok(socketpair(
        AddressFamily::UNIX,
        SocketType::SEQPACKET,
        SocketFlags::CLOEXEC,
        None,
    )?)
}

/// The calling thread's CPU set as the bytes of a `cpu_set_t` (CPU `i` is bit `i % 64` of
/// the `i / 64`th 64-bit word, in the machine's byte order), [`MASK_BYTES`] long.
fn affinity_bytes() -> io::Result<Vec<u8>> {
    let set = rustix::thread::sched_getaffinity(None)?;
    let mut words = [0u64; MASK_BYTES / 8];
    for cpu in 0..(MASK_BYTES * 8).min(rustix::thread::CpuSet::MAX_CPU) {
        if set.is_set(cpu) {
            words[cpu / 64] |= 1 << (cpu % 64);
        }
    }
    Ok(words.iter().flat_map(|w| w.to_ne_bytes()).collect())
}

/// The CPU set of [`affinity_bytes`]' bytes.
fn affinity_of(bytes: &[u8]) -> rustix::thread::CpuSet {
    let mut set = rustix::thread::CpuSet::new();
    for (i, word) in bytes.chunks_exact(8).enumerate() {
        let word = u64::from_ne_bytes(word.try_into().expect("8 bytes"));
        for bit in 0..64 {
            let cpu = i * 64 + bit;
            if word & (1 << bit) != 0 && cpu < rustix::thread::CpuSet::MAX_CPU {
                set.set(cpu);
            }
        }
    }
    set
}

/// Sends one request (the caller's CPU set, the attribution switch, `fds`) and reads the
/// new supervisor's pid.
fn ask(server: &Server, fds: &[RawFd]) -> Result<i32, Failed> {
    let mut payload = affinity_bytes().map_err(|_| Failed::NotSent)?;
    if let Some(env) = super::attribution::env() {
        payload.extend_from_slice(env.as_bytes());
    }
    sys::send_with_fds(server.socket.as_raw_fd(), &payload, fds, libc::MSG_NOSIGNAL)
        .map_err(|_| Failed::NotSent)?;
    let ready = sys::poll_read(&[server.socket.as_raw_fd()], ANSWER_WITHIN_MS);
    if ready & 1 == 0 {
        return Err(Failed::Unanswered(io::Error::other(
            "the supervisors' fork server did not answer",
        )));
    }
    let mut answer = [0u8; 4];
    let n = rustix::net::recv(&server.socket, &mut answer, rustix::net::RecvFlags::empty());
    if !matches!(n, Ok((4, _))) {
        return Err(Failed::Unanswered(io::Error::other(
            "the supervisors' fork server ended without an answer",
        )));
    }
    match i32::from_ne_bytes(answer) {
        pid if pid > 0 => Ok(pid),
        errno => Err(Failed::Unanswered(io::Error::from_raw_os_error(-errno))),
    }
}

/// One request as the server receives it: the payload and the descriptors (in order);
/// `None` once the harness's end is closed.
fn receive(socket: RawFd) -> io::Result<Option<(Vec<u8>, Vec<OwnedFd>)>> {
    let mut payload = vec![0u8; MASK_BYTES + 256];
    let (n, fds) = sys::recv_with_fds(socket, &mut payload, MOST_FDS)?;
    if n == 0 && fds.is_empty() {
        return Ok(None);
    }
    payload.truncate(n);
    Ok(Some((payload, fds)))
}

/// The server (`harness __sandbox forker`, descriptor 0 its socket). Never returns.
pub(crate) fn serve() -> ! {
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    // Out of the terminal's foreground group (a Ctrl-C is the harness's to handle), in the
    // harness's session (its scheduler autogroup), as every supervisor.
    sys::leave_terminal();
    // Descriptor 0 is our socket by the contract above; it moves out of the way of the
    // descriptors requests bring, which arrive at the lowest free numbers (0 closes below).
    let socket = match rustix::io::fcntl_dupfd_cloexec(io::stdin(), SERVER_SOCKET) {
        Ok(socket) => socket,
        Err(_) => super::init::exit_now(1),
    };
    sys::close_from(0, Some(socket.as_raw_fd()));
    loop {
        let (payload, fds) = match receive(socket.as_raw_fd()) {
            Ok(Some(request)) => request,
            Ok(None) | Err(_) => std::process::exit(0),
        };
        let answer = if payload.len() < MASK_BYTES || fds.is_empty() {
            -libc::EINVAL
        } else {
            match sys::fork_with(libc::CLONE_PARENT) {
                Ok(0) => supervisor_child(socket, &payload, fds),
                Ok(pid) => pid,
                Err(e) => -e.raw_os_error().unwrap_or(libc::EIO),
            }
        };
        // The request's descriptors (if not the child's) close here.
        let sent = rustix::net::send(
            &socket,
            &answer.to_ne_bytes(),
            rustix::net::SendFlags::NOSIGNAL,
        );
        if sent != Ok(4) {
            std::process::exit(0);
        }
    }
}

/// Makes the request's descriptors 0, 1, 2... in their order, left open for the supervisor
/// (not close-on-exec, as after a `dup`); every other copy made here is closed again.
fn into_place(fds: Vec<OwnedFd>) -> io::Result<()> {
    // The request's descriptors were the lowest free numbers, from 0 up (the server holds
    // nothing below its socket): they are most often in place already.
    if fds
        .iter()
        .enumerate()
        .all(|(i, fd)| fd.as_raw_fd() == i as RawFd)
    {
        for fd in fds {
            rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::empty())?;
            let _ = fd.into_raw_fd();
        }
        return Ok(());
    }
    let count = fds.len() as RawFd;
    // Every source above the targets first, so that no copy lands on a later source (the
    // copies close when dropped, below).
    let high = fds
        .iter()
        .map(|fd| super::high(fd.as_raw_fd(), count))
        .collect::<io::Result<Vec<OwnedFd>>>();
    // Closed, the request's descriptors leave the targets 0, 1, 2... free.
    drop(fds);
    for (target, fd) in high?.iter().enumerate() {
        // The lowest free number, which is `target` itself (those below are the earlier
        // copies).
        match rustix::io::dup(fd) {
            Ok(copy) if copy.as_raw_fd() == target as RawFd => {
                let _ = copy.into_raw_fd();
            }
            _ => return Err(io::ErrorKind::Other.into()),
        }
    }
    Ok(())
}

/// In the forked child: the request's descriptors become 0, 1, 2..., nothing else stays
/// open, the caller's CPU set and attribution switch apply; then it is the test's supervisor.
fn supervisor_child(socket: OwnedFd, payload: &[u8], fds: Vec<OwnedFd>) -> ! {
    let count = fds.len() as RawFd;
    drop(socket);
    if into_place(fds).is_err() {
        super::init::exit_now(1)
    }
    sys::close_from(count, None);
    let _ = rustix::thread::sched_setaffinity(None, &affinity_of(&payload[..MASK_BYTES]));
    if let Some((name, value)) = std::str::from_utf8(&payload[MASK_BYTES..])
        .ok()
        .and_then(|s| s.split_once('='))
    {
        std::env::set_var(name, value);
    }
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::Dumpable);
    super::supervisor::test_main()
}
