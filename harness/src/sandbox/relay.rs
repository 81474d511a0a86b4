//! The relay: how a contest's tester that starts the player itself (AtCoder's interactive
//! `tester <command...>`, TopCoder's `java -jar tester.jar -exec "<command>"`) talks to a
//! player that the harness started in the player's own sandbox.
//!
//! ```text
//!  tester ──its pipes to "the player"── harness (the game) ──pipes── player
//!     └── relay: hands those pipes over a Unix socket, then waits ──┘
//!  └──────── the tool's sandbox ────────┘                       └─ its own sandbox ─┘
//! ```
//!
//! The tester is given, as the player's command, the harness's own binary with the hidden
//! argument [`RELAY_ARG`] and the path of a socket in the tool's per-test folder: through a
//! symlink `relay` to the binary in that folder, so the command is short and holds no space
//! (TopCoder testers split `-exec` on spaces; Java's `ProcessBuilder` closes inherited
//! descriptors, so nothing but a path can lead back to the harness). A path socket works
//! across network namespaces (an abstract one would not). The relay process ([`main`]) runs
//! in the TOOL's sandbox, as the tool's child: it connects, passes its stdin and stdout (the
//! tester's pipes) to the harness with `SCM_RIGHTS`, closes its own copies, and waits until
//! the harness closes the connection, then exits 0 (the tester sees its "player" exit when
//! the real player has ended). The harness then reads and writes the tester's pipes itself:
//! one hop each way more than a tester talking to its player directly, not three. The player
//! never sees the relay, the socket or the tool's folder: the harness starts it like any
//! player.
//!
//! The relay belongs to its test alone, in every mode: the socket is its owner's (the tool's
//! id) alone, the harness takes a connection only from a process below the tool's supervisor
//! ([`super::peer`]; any other is closed and ignored, and the wait goes on), and the relay
//! hands its pipes only to the harness's pid. A tester may start its player more than once
//! (`max-starts` in problem.toml): the harness then takes one connection per start
//! ([`Relay::accept_next`]) and removes the socket with the last start it allows, so a
//! start past it finds none and leaves a mark ([`started_again`]). A tool's message line is held until its newline
//! up to [`MAX_TOOL_LINE`]; past it the test ends as the tool's failure.
//!
//! The harness's side is [`Relay`] (the listening socket and the command), [`Pipes`] (the
//! tester's pipe ends as handed over) and [`Link`] (those ends, non-blocking, with what is in
//! flight both ways). The game proxies between a `Link` and the player's `Channel`
//! (`problem::tools::relayed`), so every player check, limit and verdict is the harness's
//! own; or, with `relay = "direct"`, starts the player in its sandbox on the `Pipes`
//! themselves (`sandbox::launch_on`), and no byte of the game passes the harness.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::sys;
use crate::os::{self, Interest, PollFd, Waiter};

/// The argument that makes the harness binary a relay.
pub const RELAY_ARG: &str = "__relay";

/// The socket's name in the tool's folder.
const SOCKET: &str = "relay.sock";
/// The name of the symlink to the harness binary in the tool's folder.
const PROGRAM: &str = "relay";
/// The mark a relay leaves in the tool's folder when the tester starts its player more times
/// than the harness takes ([`started_again`]).
const AGAIN: &str = "relay.again";
/// Longest socket path the kernel takes (`sun_path`, with its terminating zero).
const MAX_SOCKET_PATH: usize = 107;

/// The relay process: `harness __relay SOCKET`, started by a contest's tester as its
/// player. Exits 0 when the harness closes the connection, 2 when it cannot hand its pipes
/// over.
pub fn main() -> ! {
    let code = match relay() {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(io::stderr(), "harness relay: {e}");
            2
        }
    };
    std::process::exit(code)
}

fn relay() -> io::Result<()> {
    let usage = || io::Error::other("usage: harness __relay SOCKET HARNESS-PID");
    let path = std::env::args_os().nth(2).ok_or_else(usage)?;
    let harness: i32 = std::env::args()
        .nth(3)
        .and_then(|p| p.parse().ok())
        .ok_or_else(usage)?;
    let socket = Path::new(&path);
    let stream = match UnixStream::connect(socket) {
        Ok(stream) => stream,
        // The harness removes the socket once it has taken the last start `max-starts`
        // allows: a tester that starts its player once more finds none. It is told so, and
        // so is the harness (a mark beside the socket), which then names what happened
        // instead of the tester's complaint.
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Some(dir) = socket.parent() {
                let _ = std::fs::write(dir.join(AGAIN), b"");
            }
            return Err(io::Error::other(
                "the tester started its player more times than the harness allows (max-starts in problem.toml)",
            ));
        }
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("{}: {e}", socket.display()),
            ))
        }
    };
    // The tester's pipes go to the harness only, never to whoever else listens at that path.
    let listener = super::peer::peer_pid(stream.as_fd())?;
    if listener != harness {
        return Err(io::Error::other(format!(
            "{}: the listener is process {listener}, not the harness ({harness})",
            socket.display()
        )));
    }
    // One byte of data with the descriptors (its own standard input and output).
    sys::send_with_fds(stream.as_raw_fd(), b"R", &[0, 1], 0)?;
    // The harness holds the tester's pipes now: ours must go, or the tester would never see
    // the end of its player's output.
    // SAFETY: closing our own standard descriptors, which no Rust owner holds and nothing here
    // uses afterwards (rustix's close is as unsafe).
    unsafe {
        libc::close(0);
        libc::close(1);
    }
    let mut buf = [0u8; 64];
    loop {
        match (&stream).read(&mut buf) {
            Ok(0) | Err(_) => return Ok(()),
            Ok(_) => {}
        }
    }
}

/// Whether the tester whose relay listened in `dir` started its player more times than the
/// harness took (a relay found no socket to connect to: the harness removes it with the last
/// start it allows).
pub fn started_again(dir: &Path) -> bool {
    dir.join(AGAIN).exists()
}

/// Whether the tool's folder `dir` lost its owner's rights during the test (a program of the
/// harness's own user `chmod`ed it: only possible in process mode as an ordinary user, where
/// players are that user too): the relay and the tool could not reach it then.
pub fn folder_closed(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.permissions().mode() & 0o700 != 0o700)
}

/// Receives the two descriptors the relay sent (close-on-exec).
fn recv_fds(stream: &UnixStream) -> io::Result<[OwnedFd; 2]> {
    let mut byte = [0u8];
    let (_, got) = sys::recv_with_fds(stream.as_raw_fd(), &mut byte, 2)?;
    let mut got = got.into_iter();
    match (got.next(), got.next()) {
        (Some(from), Some(to)) => Ok([from, to]),
        _ => Err(io::Error::other("the relay did not hand over its pipes")),
    }
}

/// The harness's end of a relay before the tester connects: the listening socket in the
/// tool's folder, and the command that reaches it.
pub struct Relay {
    listener: UnixListener,
    socket: PathBuf,
    program: PathBuf,
    exe: PathBuf,
    /// The harness's pid as the tool sees it (0: outside the tool's pid namespace).
    seen_as: u32,
}

/// What came of waiting for the tester to start its player.
pub enum Accepted {
    /// The relay connected and handed over the tester's pipes.
    Pipes(Pipes),
    /// The tool ended first (`ended` became readable): it never started its player.
    ToolEnded,
    /// Nothing within the time given.
    TimedOut,
    /// The run was interrupted.
    Interrupted,
}

impl Relay {
    /// Listens in `dir` (the tool's own folder, shown to it writable at the same path): a
    /// socket that only its owner may connect to (the tool's id, once the folder is given to
    /// it) and a symlink to the harness binary. `own_pid_ns`: the tool runs in a pid namespace
    /// of its own, where the harness has no pid. Fails when the path cannot be a relay
    /// command (too long for a socket, or holding white space).
    pub fn listen(dir: &Path, own_pid_ns: bool) -> io::Result<Relay> {
        use std::os::unix::fs::PermissionsExt;
        let socket = dir.join(SOCKET);
        let program = dir.join(PROGRAM);
        let text = socket.display().to_string();
        if text.len() > MAX_SOCKET_PATH || text.chars().any(char::is_whitespace) {
            return Err(io::Error::other(format!(
                "{text}: a relay socket needs a path without white space and of at most {MAX_SOCKET_PATH} bytes (set TMPDIR to a short folder)"
            )));
        }
        let exe = super::harness_exe()?;
        std::os::unix::fs::symlink(&exe, &program)?;
        let listener = UnixListener::bind(&socket)?;
        // Connecting takes write permission on the socket: its owner's alone, whatever the
        // harness's umask.
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o700))?;
        listener.set_nonblocking(true)?;
        Ok(Relay {
            listener,
            socket,
            program,
            exe,
            seen_as: if own_pid_ns { 0 } else { std::process::id() },
        })
    }

    /// The player's command to give the tester, one argument each: the relay, the socket,
    /// and the harness's pid as the relay sees it (it hands its pipes to that process only).
    pub fn argv(&self) -> Vec<String> {
        vec![
            self.program.display().to_string(),
            RELAY_ARG.to_string(),
            self.socket.display().to_string(),
            self.seen_as.to_string(),
        ]
    }

    /// The harness binary as the host names it: the tool's sandbox must show it (read-only).
    pub fn exe(&self) -> &Path {
        &self.exe
    }

    /// Waits until the tool's relay connects and hands over the tester's pipes, the tool
    /// ends (`ended` readable), `deadline` passes or the run is interrupted. `owner` is the
    /// process the relay must descend from (the tool's supervisor), once known: any other
    /// connection (a player that found the socket) is closed and ignored, and the wait goes
    /// on. Takes the tool's first connection only, and removes the socket.
    pub fn accept(
        self,
        ended: BorrowedFd<'_>,
        deadline: Instant,
        owner: &dyn Fn() -> Option<i32>,
    ) -> io::Result<Accepted> {
        self.accept_next(ended, deadline, owner, true)
    }

    /// As [`Relay::accept`], for a tester that may start its player more than once
    /// (`max-starts`): the relay keeps listening for the tool's next start, unless `last`
    /// (the socket is then removed, and a start past it leaves the mark of
    /// [`started_again`]).
    pub fn accept_next(
        &self,
        ended: BorrowedFd<'_>,
        deadline: Instant,
        owner: &dyn Fn() -> Option<i32>,
        last: bool,
    ) -> io::Result<Accepted> {
        let control = loop {
            match self.listener.accept() {
                Ok((stream, _)) => match from_the_tool(&stream, ended, deadline, owner)? {
                    Ok(true) => break stream,
                    Ok(false) => continue,
                    Err(accepted) => return Ok(accepted),
                },
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            match wait_for(self.listener.as_fd(), ended, deadline)? {
                Some(accepted) => return Ok(accepted),
                None => continue,
            }
        };
        if last {
            let _ = std::fs::remove_file(&self.socket);
        }
        // The relay sends its pipes at once; a tool that ends first ends the wait too.
        if let Some(accepted) = wait_for(control.as_fd(), ended, deadline)? {
            return Ok(accepted);
        }
        let [from_tool, to_tool] = recv_fds(&control)?;
        Ok(Accepted::Pipes(Pipes {
            control,
            from_tool,
            to_tool,
        }))
    }
}

/// Whether a connection comes from the tool's own processes (`owner` or below it): waits
/// until `owner` is known (the tool's launch returns a moment after its start), unless the
/// tool ends, the deadline passes or the run is interrupted first (what to say instead).
fn from_the_tool(
    stream: &UnixStream,
    ended: BorrowedFd<'_>,
    deadline: Instant,
    owner: &dyn Fn() -> Option<i32>,
) -> io::Result<Result<bool, Accepted>> {
    let Ok(pid) = super::peer::peer_pid(stream.as_fd()) else {
        return Ok(Ok(false));
    };
    loop {
        if let Some(owner) = owner() {
            return Ok(Ok(super::peer::descends_from(pid, owner)));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(Err(Accepted::TimedOut));
        }
        let mut fds = [
            PollFd::readable(ended.as_raw_fd()),
            PollFd::readable(os::interrupt_fd()),
        ];
        os::poll(
            &mut fds,
            Some((deadline - now).min(Duration::from_millis(5))),
        )?;
        if fds[1].ready() {
            return Ok(Err(Accepted::Interrupted));
        }
        if fds[0].ready() && owner().is_none() {
            // The tool ended without ever being launched: nobody's relay.
            return Ok(Err(Accepted::ToolEnded));
        }
    }
}

/// The tester's pipe ends to its player, as the relay handed them over (blocking, as the
/// tester made them), and the relay's connection: dropping it lets the relay exit (the
/// tester sees its player end). Either the game proxies over them ([`Link::new`]) or the
/// player is started on them (`relay = "direct"`).
pub struct Pipes {
    pub control: UnixStream,
    /// What the tester writes to its player: the player's stdin.
    pub from_tool: OwnedFd,
    /// What the tester reads from its player: the player's stdout.
    pub to_tool: OwnedFd,
}

/// Waits until `fd` is readable (`None`), or the tool ends, the deadline passes or the run
/// is interrupted (what to say instead).
fn wait_for(
    fd: BorrowedFd<'_>,
    ended: BorrowedFd<'_>,
    deadline: Instant,
) -> io::Result<Option<Accepted>> {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Ok(Some(Accepted::TimedOut));
        }
        let mut fds = [
            PollFd::readable(fd.as_raw_fd()),
            PollFd::readable(ended.as_raw_fd()),
            PollFd::readable(os::interrupt_fd()),
        ];
        os::poll(&mut fds, Some(deadline - now))?;
        if fds[2].ready() {
            return Ok(Some(Accepted::Interrupted));
        }
        if fds[0].ready() {
            return Ok(None);
        }
        if fds[1].ready() {
            return Ok(Some(Accepted::ToolEnded));
        }
    }
}

/// The longest message line a tool may send its player through the proxy, in bytes: the
/// harness keeps a line until its newline comes, so a tool that writes without one ends the
/// test as the tool's failure once it has sent this much ([`Link::too_long`]), and the
/// harness holds no more of it.
pub const MAX_TOOL_LINE: usize = 8 << 20;

/// Tokens of the tester's pipes in a link's wait set.
const FROM_TOOL: u32 = 0;
const TO_TOOL: u32 = 1;

/// The harness's end of a connected relay: the tester's two pipe ends, what the tester sent
/// and the player has not been given yet, and the player's lines the tester has not taken
/// yet. Never blocks: the game waits on [`Link::fd`] with the player's channel.
pub struct Link {
    /// Closing it lets the relay exit.
    control: Option<UnixStream>,
    from_tool: Option<OwnedFd>,
    to_tool: Option<OwnedFd>,
    /// Both pipes, as one descriptor to wait on (readable when either is ready).
    waiter: Waiter,
    to_tool_waited: bool,
    from_buf: Vec<u8>,
    /// How much of `from_buf` is known to hold no newline: a read scans only what it added.
    scanned: usize,
    /// The tester sent a line longer than [`MAX_TOOL_LINE`]: nothing more is read.
    too_long: bool,
    to_buf: Vec<u8>,
    /// What a read of the tester's pipe lands in (made once: a message zeroes nothing).
    scratch: Box<[u8]>,
    /// The lines [`Link::take_lines`] hands out (kept, so a message allocates nothing).
    lines: String,
    /// The tester will send nothing more (it closed the player's input, or is gone).
    read_closed: bool,
    /// Nothing more goes to the tester (closed by the harness, or the tester is gone).
    write_closed: bool,
}

impl Link {
    /// The game's end of the tester's pipes, to proxy over.
    pub fn new(pipes: Pipes) -> io::Result<Link> {
        let Pipes {
            control,
            from_tool,
            to_tool,
        } = pipes;
        os::set_nonblocking(from_tool.as_fd())?;
        os::set_nonblocking(to_tool.as_fd())?;
        let mut waiter = Waiter::new()?;
        waiter.add(from_tool.as_raw_fd(), FROM_TOOL, Interest::Read)?;
        Ok(Link {
            control: Some(control),
            from_tool: Some(from_tool),
            to_tool: Some(to_tool),
            waiter,
            to_tool_waited: false,
            from_buf: Vec::new(),
            scanned: 0,
            too_long: false,
            to_buf: Vec::new(),
            scratch: vec![0; 1 << 14].into_boxed_slice(),
            lines: String::new(),
            read_closed: false,
            write_closed: false,
        })
    }

    /// One descriptor to wait on: readable when the tester has sent something (or ended
    /// the player's input), or when queued lines can be written. While nothing waits for
    /// room in the tester's pipe (the usual case), that is the tester's pipe itself, so a
    /// message wakes the game's wait directly rather than through an epoll inside its epoll.
    pub fn fd(&self) -> BorrowedFd<'_> {
        match &self.from_tool {
            Some(fd) if !self.to_tool_waited => fd.as_fd(),
            _ => self.waiter.as_fd(),
        }
    }

    /// Waits until the tester has sent something (or ended the player's input, or is gone):
    /// true; false when `deadline` passes or the run is interrupted first.
    pub fn wait(&self, deadline: Instant) -> io::Result<bool> {
        loop {
            let now = Instant::now();
            if now >= deadline || os::interrupted() {
                return Ok(false);
            }
            let mut fds = [
                PollFd::readable(self.waiter.as_fd().as_raw_fd()),
                PollFd::readable(os::interrupt_fd()),
            ];
            os::poll(&mut fds, Some(deadline - now))?;
            if fds[1].ready() {
                return Ok(false);
            }
            if fds[0].ready() {
                return Ok(true);
            }
        }
    }

    /// Whether the tester will send nothing more.
    pub fn read_closed(&self) -> bool {
        self.read_closed
    }

    /// Whether the tester sent a line longer than [`MAX_TOOL_LINE`] (the tool's failure: the
    /// link reads nothing more of it).
    pub fn too_long(&self) -> bool {
        self.too_long
    }

    /// Whether player lines wait for room in the tester's pipe.
    pub fn wants_write(&self) -> bool {
        !self.to_buf.is_empty() && !self.write_closed
    }

    /// Reads what the tester sent and writes what fits of the player's lines, without
    /// waiting. A tester that is gone closes both ways; nothing here is an error.
    pub fn exchange(&mut self) {
        self.receive();
        self.flush();
    }

    /// Reads what the tester sent, without waiting. A read that does not fill the buffer
    /// took all the pipe held, so a message costs one read, not a second one that finds
    /// the pipe empty; what comes later makes [`Link::fd`] readable again.
    pub fn receive(&mut self) {
        let buf = &mut self.scratch[..];
        // A bound per call, so a tester that never stops writing still lets the game go on;
        // and none past a line's limit, which the next `take_lines` finds.
        let mut budget = 1usize << 20;
        while let (Some(fd), true) = (
            &self.from_tool,
            budget > 0 && !self.too_long && self.from_buf.len() <= MAX_TOOL_LINE,
        ) {
            match os::read(fd.as_fd(), buf) {
                Ok(Some(0)) | Err(_) => {
                    self.read_closed = true;
                    Self::close(&mut self.waiter, &mut self.from_tool);
                }
                Ok(Some(n)) => {
                    self.from_buf.extend_from_slice(&buf[..n]);
                    budget = budget.saturating_sub(n);
                    if n < buf.len() {
                        break;
                    }
                }
                Ok(None) => break,
            }
        }
    }

    /// Writes what fits of the player's lines to the tester, without waiting (no system
    /// call when nothing is queued).
    pub fn flush(&mut self) {
        while self.wants_write() {
            let Some(fd) = &self.to_tool else { break };
            match os::write(fd.as_fd(), &self.to_buf) {
                Ok(Some(n)) => {
                    self.to_buf.drain(..n);
                }
                Ok(None) => break,
                Err(_) => {
                    // The tester is gone: what it did not take, it will never read.
                    self.write_closed = true;
                    self.to_buf.clear();
                    self.to_tool_waited = false;
                    Self::close(&mut self.waiter, &mut self.to_tool);
                }
            }
        }
        // Wait for room only while something waits for it (a pipe with room is always
        // writable: waiting on it otherwise would never sleep).
        if let Some(fd) = &self.to_tool {
            let want = self.wants_write();
            if want != self.to_tool_waited {
                let raw = fd.as_raw_fd();
                if want {
                    let _ = self.waiter.add(raw, TO_TOOL, Interest::Write);
                } else {
                    self.waiter.remove(raw);
                }
                self.to_tool_waited = want;
            }
        }
    }

    fn close(waiter: &mut Waiter, fd: &mut Option<OwnedFd>) {
        if let Some(fd) = fd.take() {
            waiter.remove(fd.as_raw_fd());
        }
    }

    /// The complete lines the tester sent since the last call (with their `\n`), as text
    /// (bytes that are not UTF-8 replaced); at its end, a last line without newline gets one.
    /// Scans only the bytes read since the last call; a line past [`MAX_TOOL_LINE`] is never
    /// handed out ([`Link::too_long`]).
    pub fn take_lines(&mut self) -> Option<&str> {
        if self.too_long {
            return None;
        }
        let fresh = &self.from_buf[self.scanned..];
        let end = match fresh.iter().rposition(|&b| b == b'\n') {
            Some(at) => self.scanned + at + 1,
            None if self.from_buf.len() > MAX_TOOL_LINE => {
                self.too_long = true;
                self.from_buf = Vec::new();
                self.scanned = 0;
                return None;
            }
            None if self.read_closed && !self.from_buf.is_empty() => {
                self.from_buf.push(b'\n');
                self.from_buf.len()
            }
            None => {
                self.scanned = self.from_buf.len();
                return None;
            }
        };
        self.lines.clear();
        self.lines
            .push_str(&String::from_utf8_lossy(&self.from_buf[..end]));
        self.from_buf.drain(..end);
        // What is left follows the last newline: it holds none.
        self.scanned = self.from_buf.len();
        Some(&self.lines)
    }

    /// Queues one line of the player for the tester.
    pub fn queue(&mut self, line: &str) {
        if !self.write_closed {
            self.to_buf.extend_from_slice(line.as_bytes());
            self.to_buf.push(b'\n');
        }
    }

    /// Whether the tester is gone (nobody reads the player's output any more), not merely
    /// done sending.
    pub fn peer_gone(&self) -> bool {
        let Some(fd) = &self.to_tool else {
            return true;
        };
        let mut fds = [PollFd::writable(fd.as_raw_fd())];
        matches!(os::poll(&mut fds, Some(Duration::ZERO)), Ok(true)) && fds[0].failed()
    }

    /// Writes what is queued (waiting for room until `deadline`), then ends the player's
    /// output as the tester sees it, and lets the relay exit (the tester sees its player
    /// end).
    pub fn close_write(&mut self, deadline: Instant) {
        while self.wants_write() && Instant::now() < deadline {
            self.exchange();
            if let (true, Some(fd)) = (self.wants_write(), &self.to_tool) {
                let left = deadline.saturating_duration_since(Instant::now());
                let mut fds = [
                    PollFd::writable(fd.as_raw_fd()),
                    PollFd::readable(os::interrupt_fd()),
                ];
                if os::poll(&mut fds, Some(left)).is_err() || fds[1].ready() {
                    break;
                }
            }
        }
        self.write_closed = true;
        self.to_buf.clear();
        self.to_tool_waited = false;
        Self::close(&mut self.waiter, &mut self.to_tool);
        self.control = None;
    }
}

/// The sending end of [`end_signal`]: dropping it (when the tool's run returns) wakes the
/// watcher.
pub struct EndSender(#[allow(dead_code)] UnixStream);

/// The watching end of [`end_signal`].
pub struct EndWatch(UnixStream);

impl EndWatch {
    /// Readable (end of file) once the sender is dropped.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

/// A pair that tells a waiting thread that another one is done (the tool's run returned),
/// as a descriptor it can wait on with others.
pub fn end_signal() -> io::Result<(EndSender, EndWatch)> {
    let (a, b) = UnixStream::pair()?;
    Ok((EndSender(a), EndWatch(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream standing in for a pipe: (the end the link reads, the end the tester writes).
    fn pipe() -> (OwnedFd, OwnedFd) {
        let (r, w) = UnixStream::pair().expect("a socket pair");
        (OwnedFd::from(r), OwnedFd::from(w))
    }

    #[test]
    fn a_link_hands_out_whole_lines_and_waits_on_the_testers_pipe_itself() {
        let (control, _relay) = UnixStream::pair().expect("a socket pair");
        let (from_tool, tester_out) = pipe();
        let (tester_in, to_tool) = pipe();
        let from_raw = from_tool.as_raw_fd();
        let pipes = Pipes {
            control,
            from_tool,
            to_tool,
        };
        let mut link = Link::new(pipes).expect("a link");
        // Nothing queued: the game waits on the tester's pipe, not on an epoll of its own.
        assert_eq!(link.fd().as_raw_fd(), from_raw);
        let mut tester_out = std::fs::File::from(tester_out);
        tester_out.write_all(b"1 2\n3 4\n5").expect("write");
        link.receive();
        assert_eq!(link.take_lines(), Some("1 2\n3 4\n"));
        assert_eq!(link.take_lines(), None);
        link.queue("answer");
        link.flush();
        let mut got = [0u8; 16];
        let n = (&std::fs::File::from(tester_in))
            .read(&mut got)
            .expect("read");
        assert_eq!(&got[..n], b"answer\n");
        // The tester ends its output: the partial line is handed out with a newline.
        drop(tester_out);
        link.receive();
        // A program another test of this process starts holds a copy of every descriptor
        // until its exec: the end of file may come a moment later.
        let deadline = Instant::now() + Duration::from_secs(5);
        while !link.read_closed() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
            link.receive();
        }
        assert!(link.read_closed());
        assert_eq!(link.take_lines(), Some("5\n"));
    }

    #[test]
    fn a_tool_line_without_end_is_cut_at_the_cap_and_the_link_holds_no_more() {
        let (control, _relay) = UnixStream::pair().expect("a socket pair");
        let (from_tool, tester_out) = pipe();
        let (_tester_in, to_tool) = pipe();
        let pipes = Pipes {
            control,
            from_tool,
            to_tool,
        };
        let mut link = Link::new(pipes).expect("a link");
        // A tester writing 64 MB without a newline, as fast as it is read.
        let writer = std::thread::spawn(move || {
            let mut out = std::fs::File::from(tester_out);
            let chunk = vec![b'x'; 1 << 16];
            let mut sent = 0usize;
            while sent < 64 << 20 {
                if out.write_all(&chunk).is_err() {
                    break;
                }
                sent += chunk.len();
            }
            sent
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut most = 0;
        while !link.too_long() && Instant::now() < deadline {
            link.wait(deadline).expect("wait");
            link.receive();
            most = most.max(link.from_buf.capacity());
            assert_eq!(link.take_lines(), None);
        }
        assert!(link.too_long(), "the cap was never reached");
        // What the link held: the cap and one read past it, in a vector that at most doubled.
        assert!(most <= 2 * (MAX_TOOL_LINE + (1 << 14)), "held {most} bytes");
        assert_eq!(link.from_buf.capacity(), 0, "the line is let go");
        // Nothing more is read: the tester's pipe fills and it blocks (or stops when the
        // link goes).
        link.receive();
        assert_eq!(link.from_buf.capacity(), 0);
        drop(link);
        let sent = writer.join().expect("the writer");
        assert!(
            sent < 64 << 20,
            "the link read all the tester wrote: {sent}"
        );
    }
}
