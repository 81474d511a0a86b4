//! The relay: how a contest's tester that starts the player itself (AtCoder's interactive
//! `tester <command...>`, TopCoder's `java -jar tester.jar -exec "<command>"`) talks to a
//! player that the harness started in the player's own sandbox.
//!
//! ```text
//!  tester ──pipes── relay ══Unix socket══ harness (the game) ──pipes── player
//!  └──── the tool's sandbox ────┘                                 └─ its sandbox ─┘
//! ```
//!
//! The tester is given, as the player's command, the harness's own binary with the hidden
//! argument [`RELAY_ARG`] and the path of a socket in the tool's per-test folder: a symlink
//! `relay` to the binary in that folder, so the command is short and holds no space
//! (TopCoder testers split `-exec` on spaces; Java's `ProcessBuilder` closes inherited
//! descriptors, so nothing but a path can lead back to the harness). A path socket works
//! across network namespaces (an abstract one would not). The relay process ([`main`]) runs
//! in the TOOL's sandbox, as the tool's child: it copies its stdin to the socket and the
//! socket to its stdout, half-closes the socket when its stdin ends (the tester closed the
//! player's input), and exits when the harness closes the connection. The player never sees
//! the relay, the socket or the tool's folder: it is started by the harness like any player.
//!
//! The harness's side is [`Relay`] (the listening socket and the command) and [`Link`] (the
//! accepted connection, non-blocking, with what is in flight both ways). The game proxies
//! between a `Link` and the player's `Channel` (`problem::tools`), so every player check,
//! limit and verdict is the harness's own.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::os::{self, PollFd};

/// The argument that makes the harness binary a relay.
pub const RELAY_ARG: &str = "__relay";

/// The socket's name in the tool's folder.
const SOCKET: &str = "relay.sock";
/// The name of the symlink to the harness binary in the tool's folder.
const PROGRAM: &str = "relay";
/// Longest socket path the kernel takes (`sun_path`, with its terminating zero).
const MAX_SOCKET_PATH: usize = 107;

/// The relay process: `harness __relay SOCKET`, started by a contest's tester as its
/// player. Exits 0 when the harness closes the connection (or its stdout is closed), 2 when
/// it cannot connect.
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
    let path = std::env::args_os()
        .nth(2)
        .ok_or_else(|| io::Error::other("usage: harness __relay SOCKET"))?;
    let stream = UnixStream::connect(&path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", Path::new(&path).display())))?;
    let mut to_harness = stream.try_clone()?;
    // The tester's lines to the player: a thread of their own, so that neither direction
    // waits for the other (each is a blocking copy, as a pipe to a player would be).
    std::thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to_harness.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        // The tester closed the player's input: the harness closes the player's.
        let _ = to_harness.shutdown(std::net::Shutdown::Write);
    });
    let mut from_harness = stream;
    let mut stdout = io::stdout().lock();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match from_harness.read(&mut buf) {
            Ok(0) | Err(_) => return Ok(()),
            Ok(n) => {
                if stdout
                    .write_all(&buf[..n])
                    .and_then(|()| stdout.flush())
                    .is_err()
                {
                    return Ok(());
                }
            }
        }
    }
}

/// The harness's end of a relay before the tester connects: the listening socket in the
/// tool's folder, and the command that reaches it.
pub struct Relay {
    listener: UnixListener,
    socket: PathBuf,
    program: PathBuf,
    exe: PathBuf,
}

/// What came of waiting for the tester to start its player.
pub enum Accepted {
    /// The relay connected.
    Link(Link),
    /// The tool ended first (`ended` became readable): it never started its player.
    ToolEnded,
    /// Nothing within the time given.
    TimedOut,
    /// The run was interrupted.
    Interrupted,
}

impl Relay {
    /// Listens in `dir` (the tool's own folder, shown to it writable at the same path): a
    /// socket and a symlink to the harness binary. Fails when the path cannot be a relay
    /// command (too long for a socket, or holding white space).
    pub fn listen(dir: &Path) -> io::Result<Relay> {
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
        listener.set_nonblocking(true)?;
        Ok(Relay {
            listener,
            socket,
            program,
            exe,
        })
    }

    /// The player's command to give the tester, one argument each.
    pub fn argv(&self) -> Vec<String> {
        vec![
            self.program.display().to_string(),
            RELAY_ARG.to_string(),
            self.socket.display().to_string(),
        ]
    }

    /// The harness binary as the host names it: the tool's sandbox must show it (read-only).
    pub fn exe(&self) -> &Path {
        &self.exe
    }

    /// Waits until the relay connects, the tool ends (`ended` readable), `deadline` passes
    /// or the run is interrupted. Takes the first connection only, and removes the socket.
    pub fn accept(self, ended: BorrowedFd<'_>, deadline: Instant) -> io::Result<Accepted> {
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    let _ = std::fs::remove_file(&self.socket);
                    stream.set_nonblocking(true)?;
                    return Ok(Accepted::Link(Link {
                        stream,
                        from_tool: Vec::new(),
                        to_tool: Vec::new(),
                        read_closed: false,
                        write_closed: false,
                    }));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(Accepted::TimedOut);
            }
            let mut fds = [
                PollFd::readable(self.listener.as_raw_fd()),
                PollFd::readable(ended.as_raw_fd()),
                PollFd::readable(os::interrupt_fd()),
            ];
            os::poll(&mut fds, Some(deadline - now))?;
            if fds[2].ready() {
                return Ok(Accepted::Interrupted);
            }
            if fds[1].ready() && !fds[0].ready() {
                return Ok(Accepted::ToolEnded);
            }
        }
    }
}

/// The harness's end of a connected relay: what the tester sent and the player has not been
/// given yet, and the player's lines the tester has not taken yet. Never blocks: the game
/// waits on [`Link::fd`] with the player's channel.
pub struct Link {
    stream: UnixStream,
    from_tool: Vec<u8>,
    to_tool: Vec<u8>,
    /// The tester will send nothing more (it closed the player's input, or is gone).
    read_closed: bool,
    /// Nothing more goes to the tester (closed by the harness, or the tester is gone).
    write_closed: bool,
}

impl Link {
    /// The socket, to wait on.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.stream.as_fd()
    }

    /// Whether player lines wait for room in the socket (then wait for it writable too).
    pub fn wants_write(&self) -> bool {
        !self.to_tool.is_empty() && !self.write_closed
    }

    /// Whether the tester will send nothing more.
    pub fn read_closed(&self) -> bool {
        self.read_closed
    }

    /// Reads what the tester sent and writes what fits of the player's lines, without
    /// waiting. A tester that is gone closes both ways; nothing here is an error.
    pub fn exchange(&mut self) {
        let mut buf = [0u8; 1 << 14];
        // A bound per call, so a tester that never stops writing still lets the game go on.
        let mut budget = 1usize << 20;
        while !self.read_closed && budget > 0 {
            match (&self.stream).read(&mut buf) {
                Ok(0) => self.read_closed = true,
                Ok(n) => {
                    self.from_tool.extend_from_slice(&buf[..n]);
                    budget = budget.saturating_sub(n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => self.read_closed = true,
            }
        }
        while self.wants_write() {
            match (&self.stream).write(&self.to_tool) {
                Ok(n) => {
                    self.to_tool.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    // The tester is gone: what it did not take, it will never read.
                    self.write_closed = true;
                    self.to_tool.clear();
                }
            }
        }
    }

    /// The complete lines the tester sent since the last call (with their `\n`), as text
    /// (bytes that are not UTF-8 replaced); at its end, a last line without newline gets one.
    pub fn take_lines(&mut self) -> Option<String> {
        let end = match self.from_tool.iter().rposition(|&b| b == b'\n') {
            Some(at) => at + 1,
            None if self.read_closed && !self.from_tool.is_empty() => {
                self.from_tool.push(b'\n');
                self.from_tool.len()
            }
            None => return None,
        };
        let lines: Vec<u8> = self.from_tool.drain(..end).collect();
        Some(String::from_utf8_lossy(&lines).into_owned())
    }

    /// Queues one line of the player for the tester.
    pub fn queue(&mut self, line: &str) {
        if !self.write_closed {
            self.to_tool.extend_from_slice(line.as_bytes());
            self.to_tool.push(b'\n');
        }
    }

    /// Whether the relay is gone (the tester ended, or killed it), not merely done sending.
    pub fn peer_gone(&self) -> bool {
        let mut fds = [PollFd::readable(self.stream.as_raw_fd())];
        matches!(
            os::poll(&mut fds, Some(std::time::Duration::ZERO)),
            Ok(true)
        ) && fds[0].hung_up()
    }

    /// Writes what is queued (waiting for room until `deadline`), then ends the player's
    /// output as the tester sees it: the relay closes its stdout and exits.
    pub fn close_write(&mut self, deadline: Instant) {
        while self.wants_write() && Instant::now() < deadline {
            self.exchange();
            if self.wants_write() {
                let left = deadline.saturating_duration_since(Instant::now());
                let mut fds = [
                    PollFd::writable(self.stream.as_raw_fd()),
                    PollFd::readable(os::interrupt_fd()),
                ];
                if os::poll(&mut fds, Some(left)).is_err() || fds[1].ready() {
                    break;
                }
            }
        }
        self.write_closed = true;
        self.to_tool.clear();
        let _ = self.stream.shutdown(std::net::Shutdown::Write);
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
