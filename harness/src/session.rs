//! One player process for one test: start it in its sandbox, talk to it over pipes with a
//! thinking-time deadline, and end it (close its input, give it a grace period, then have its
//! supervisor kill and reap every process of the test, and read the supervisor's report).
//!
//! The thinking clock runs from the moment the harness starts writing a message until the
//! player's answer line has arrived: time the harness spends blocked on a full pipe because
//! the player does not read is the player's; the judge's own work never counts. Reads wait on the pipes with one
//! `epoll` set per session (`os::Waiter`): no reader thread, no channel hop
//! per move. The player's stderr is drained in the same wait into a capped tail buffer, so a
//! chatty player can never block. Everything that touches the OS directly is in `crate::os`.
//!
//! A player of a contest tester with `relay = "direct"` is made [`Session::pending`] and
//! started later on the tester's own pipes (`Channel::start_on`): the session then holds
//! only its stderr and its end, no clock runs, and its thinking time is its CPU time.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use crate::os::{self, Interest, Waiter};
use crate::problem::{Channel, Heard, Waited};
use crate::sandbox::{self, Report, Spec};
use crate::verdict::{clip, Fault, Overtime, Waiting, QUOTE_BYTES};

mod again;
mod ending;

/// What a session enforces.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Total thinking time for the test.
    pub think: Duration,
    /// The test's limit on CPU time, when its time limit holds CPU time (`--time-by cpu`):
    /// each process of the player is stopped a second of CPU time past it (RLIMIT_CPU), and
    /// `think` is then only the wall clock's guard.
    pub cpu: Option<Duration>,
    /// Memory limit of the test in bytes (0 = none).
    pub memory: u64,
    /// Longest accepted output line in bytes.
    pub max_line: usize,
    /// Most stdout bytes in one test.
    pub max_output: u64,
    /// Most stderr bytes kept (the tail).
    pub max_stderr: u64,
    /// Time a player gets to exit once its input is closed.
    pub grace: Duration,
}

/// A player's stderr: the last `cap` bytes, and how many were dropped before them.
#[derive(Debug, Default)]
pub struct StderrTail {
    pub bytes: Vec<u8>,
    pub dropped: u64,
    cap: usize,
}

impl StderrTail {
    /// Keeps up to twice the cap between trims, so a flood costs one move of the kept tail
    /// per `cap` bytes rather than one per chunk read.
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > 2 * self.cap {
            self.trim();
        }
    }

    /// Cuts to the last `cap` bytes.
    fn trim(&mut self) {
        if self.bytes.len() > self.cap {
            let cut = self.bytes.len() - self.cap;
            self.dropped += cut as u64;
            self.bytes.drain(..cut);
        }
    }
}

/// How the player process ended, after the game.
#[derive(Debug)]
pub struct Ending {
    /// The supervisor's report (None: it did not answer, and was killed).
    pub report: Option<Report>,
    /// The player was still running when the test ended, and was killed with it.
    pub killed: bool,
    /// Non-blank output the player wrote after the game ended.
    pub late_output: Option<String>,
    pub stderr: StderrTail,
    /// Thinking time used; for a player that talked to another program directly, its CPU
    /// time (see [`Ending::direct`]).
    pub think: Duration,
    /// The player talked to another program directly (`relay = "direct"`): the harness ran
    /// no thinking clock, and the time limit holds its CPU time.
    pub direct: bool,
}

/// How long the supervisor gets to end the test's processes and report, once told to.
const TEARDOWN: Duration = Duration::from_secs(2);

/// A running player.
pub(crate) struct Session {
    /// What runs the test (`None`: nothing started, or its start has ended).
    runner: Option<sandbox::Runner>,
    /// Closing it tells the supervisor that the test is over.
    control: Option<OwnedFd>,
    report: Option<OwnedFd>,
    stdin: Option<OwnedFd>,
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
    /// Readable once the supervisor reports, which it does once the player has ended and
    /// every process of the test is gone (a second descriptor of the report pipe; None once
    /// seen).
    exited: Option<OwnedFd>,
    /// The network namespace the test borrowed (`sandbox::release` at its end).
    net: Option<sandbox::net::NetNs>,
    /// Waits on stdout, stderr, the interrupt pipe, `exited`, and stdin while a write waits.
    waiter: Waiter,
    stdin_waited: bool,
    limits: Limits,
    /// Bytes read from stdout not yet handed out; `line_start..` is unread.
    buf: Vec<u8>,
    consumed: usize,
    output_total: u64,
    /// Answer lines handed out (the moves received so far).
    lines: u64,
    stdout_eof: bool,
    stderr_tail: StderrTail,
    used: Duration,
    clock: Instant,
    scratch: Box<[u8; 1 << 16]>,
    /// A message went to the player and its answer has not been looked for yet: it may be
    /// in the pipe already ([`Self::answer_ready`]).
    answer_due: bool,
    /// A limit was broken: the player is killed at once, without a grace period.
    doomed: bool,
    /// While reading to the end of output: `buf` is checked for over-long lines up to
    /// `scanned`, and the line being read there starts at `open_line`.
    scanned: usize,
    open_line: usize,
    /// The other descriptor `recv_or` waits on (registered once and kept), and whether for
    /// writing too.
    other: Option<(RawFd, bool)>,
    /// It was ready in the last wait.
    other_ready: bool,
    /// The player's spec until it is started on another program's pipes.
    pending: Option<Box<Spec>>,
    /// The player talks to another program directly (`relay = "direct"`): its time is its
    /// CPU time.
    direct: bool,
    /// The player is in this worker thread's cpu group, and the thread is to join it once
    /// the game is a conversation: at its second message. The scheduler switches between
    /// two tasks of one group for less than between two groups, which pays in a game of
    /// many round trips; each move of the thread between groups costs it its place on the
    /// CPU, which a test with one message each way (a batch test) would only pay for.
    join_worker: bool,
    /// The spec it was started from, to start it again ([`Channel::restart`]).
    spec: Option<Box<Spec>>,
    /// How the earlier starts of the player in this test ended ([`Channel::restart`]).
    earlier: Vec<Ending>,
}

/// Tokens of the descriptors a session waits on.
const STDIN: u32 = 0;
const STDOUT: u32 = 1;
const STDERR: u32 = 2;
const INTERRUPT: u32 = 3;
const EXITED: u32 = 4;
const OTHER: u32 = 5;

#[derive(Clone, Copy)]
enum Want {
    /// Wait until this many bytes of `pending` are written.
    Write,
    /// Wait until a full line is buffered (or EOF).
    Line,
    /// Wait until a full line is buffered (or EOF), or the other descriptor is ready.
    LineOrOther,
    /// Wait until stdout is closed.
    Eof,
    /// Wait until the supervisor reports (the player has ended and been reaped).
    Exited,
}

impl Session {
    /// Starts a player as `spec` says.
    pub fn spawn(spec: &Spec, limits: Limits) -> std::io::Result<Session> {
        let mut session = Session::idle(limits)?;
        let limited;
        let spec = match limits.cpu {
            Some(cpu) => {
                limited = Spec {
                    cpu_seconds: cpu_seconds(cpu),
                    ..spec.clone()
                };
                &limited
            }
            None => spec,
        };
        session.launch(spec)?;
        session.spec = Some(Box::new(spec.clone()));
        Ok(session)
    }

    /// Starts the player as `spec` says, on pipes of the harness's own.
    fn launch(&mut self, spec: &Spec) -> std::io::Result<()> {
        let (started, stdin, stdout) = sandbox::launch_player(spec)?;
        self.adopt(Some((stdin, stdout)), started)?;
        // The player is in this worker thread's cpu group: the thread shares it from the
        // game's second message on ([`Channel::send`]) until the test's end.
        self.join_worker = sandbox::cgroup::in_worker_cpu(spec);
        Ok(())
    }

    /// A player to be started later on another program's pipes ([`Channel::start_on`]:
    /// `relay = "direct"`), as `spec` says. Its time limit is a limit on its CPU time
    /// (`RLIMIT_CPU` a second above it, and the report's CPU time after the test), since the
    /// harness sees none of its messages to run a thinking clock by.
    pub fn pending(mut spec: Spec, limits: Limits) -> std::io::Result<Session> {
        spec.cpu_seconds = cpu_seconds(limits.cpu.unwrap_or(limits.think));
        let mut session = Session::idle(limits)?;
        session.pending = Some(Box::new(spec));
        Ok(session)
    }

    /// A session with no player yet: nothing to wait on but an interrupt of the run.
    fn idle(limits: Limits) -> std::io::Result<Session> {
        let mut waiter = Waiter::new()?;
        waiter.add(os::interrupt_fd(), INTERRUPT, Interest::Read)?;
        Ok(Session {
            runner: None,
            control: None,
            report: None,
            net: None,
            stdin: None,
            stdout: None,
            stderr: None,
            exited: None,
            waiter,
            stdin_waited: false,
            limits,
            buf: Vec::with_capacity(4096),
            consumed: 0,
            output_total: 0,
            lines: 0,
            stdout_eof: false,
            stderr_tail: StderrTail {
                cap: limits.max_stderr as usize,
                ..StderrTail::default()
            },
            used: Duration::ZERO,
            clock: Instant::now(),
            scratch: Box::new([0; 1 << 16]),
            doomed: false,
            answer_due: false,
            scanned: 0,
            open_line: 0,
            other: None,
            other_ready: false,
            pending: None,
            direct: false,
            join_worker: false,
            spec: None,
            earlier: Vec::new(),
        })
    }

    /// Takes a started player's descriptors in: its stdin and stdout unless they are
    /// another program's.
    fn adopt(
        &mut self,
        stdio: Option<(OwnedFd, OwnedFd)>,
        launched: sandbox::OnPipes,
    ) -> std::io::Result<()> {
        let (stdin, stdout) = stdio.unzip();
        for fd in [&stdin, &stdout].into_iter().flatten() {
            os::set_nonblocking(fd.as_fd())?;
        }
        for fd in [&launched.stderr, &launched.report] {
            os::set_nonblocking(fd.as_fd())?;
        }
        self.exited = launched.report.try_clone().ok();
        if let Some(fd) = &stdout {
            self.waiter.add(fd.as_raw_fd(), STDOUT, Interest::Read)?;
        }
        self.waiter
            .add(launched.stderr.as_raw_fd(), STDERR, Interest::Read)?;
        if let Some(fd) = &self.exited {
            self.waiter.add(fd.as_raw_fd(), EXITED, Interest::Read)?;
        }
        self.runner = Some(launched.runner);
        self.control = Some(launched.control);
        self.report = Some(launched.report);
        self.net = launched.net;
        self.stdin = stdin;
        self.stdout = stdout;
        self.stderr = Some(launched.stderr);
        self.clock = Instant::now();
        Ok(())
    }

    /// Closes our end of a pipe (or the pidfd), unregistering it first.
    fn close(waiter: &mut Waiter, fd: &mut Option<OwnedFd>) {
        if let Some(fd) = fd.take() {
            waiter.remove(fd.as_raw_fd());
        }
    }

    fn close_stdin(&mut self) {
        self.stdin_waited = false;
        Self::close(&mut self.waiter, &mut self.stdin);
    }

    /// Reads what stdout has; records EOF. Enforces the output limit.
    fn read_stdout(&mut self) -> Result<(), Fault> {
        let Some(fd) = &self.stdout else {
            return Ok(());
        };
        match os::read(fd.as_fd(), &mut self.scratch[..]) {
            Ok(Some(0)) | Err(_) => {
                self.stdout_eof = true;
                Self::close(&mut self.waiter, &mut self.stdout);
            }
            Ok(Some(n)) => {
                self.output_total += n as u64;
                if self.output_total > self.limits.max_output {
                    return Err(Fault::OutputLimit(self.limits.max_output));
                }
                self.buf.extend_from_slice(&self.scratch[..n]);
            }
            Ok(None) => {}
        }
        Ok(())
    }

    fn read_stderr(&mut self) {
        let Some(fd) = &self.stderr else {
            return;
        };
        // Drain all that is there now, so a flood cannot fill the pipe while we wait.
        loop {
            match os::read(fd.as_fd(), &mut self.scratch[..]) {
                Ok(Some(0)) | Err(_) => {
                    Self::close(&mut self.waiter, &mut self.stderr);
                    return;
                }
                Ok(Some(n)) => {
                    if crate::debug::watching() {
                        crate::debug::stderr_chunk(&self.scratch[..n]);
                    }
                    self.stderr_tail.push(&self.scratch[..n]);
                }
                Ok(None) => return,
            }
        }
    }

    fn has_line(&self) -> bool {
        self.buf[self.consumed..].contains(&b'\n')
    }

    /// The wait loop: waits until `want` is met, the deadline passes, or the run is
    /// interrupted. `pending` is the rest of a message to write (for `Want::Write`).
    fn pump(&mut self, want: Want, pending: &[u8], deadline: Option<Instant>) -> Result<(), Fault> {
        let result = self.pump_inner(want, pending, deadline);
        if let Err(Fault::TimeLimit(_) | Fault::OutputLimit(_) | Fault::LineTooLong(_)) = result {
            self.doomed = true;
        }
        result
    }

    fn pump_inner(
        &mut self,
        want: Want,
        mut pending: &[u8],
        deadline: Option<Instant>,
    ) -> Result<(), Fault> {
        loop {
            // The cheap path first: write without polling, or find a buffered line.
            if self.try_now(want, &mut pending)? {
                return Ok(());
            }
            let timeout = match deadline {
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Err(Fault::TimeLimit(self.overtime(want)));
                    }
                    Some(d - now)
                }
                None => None,
            };
            if self.answer_ready(want)? {
                continue;
            }
            self.wait_once(timeout)?;
        }
    }

    /// The first wait for the answer to a message tries one read of stdout before it sleeps
    /// when the write of the message took longer than [`PREEMPTED`]: the player then took the
    /// CPU from the harness during the write, and a quick player has answered by then (in
    /// `bench --only relay` about half the messages, of which all but one in a hundred had
    /// their answer there): such a message costs one read instead of a wait and a read, and a
    /// player that thinks costs nothing more (no read that finds nothing). Not while the player's
    /// stderr is shown as it comes (`--verbose`: the wait drains stderr first, so each
    /// move's stderr shows before the move), nor once the run is interrupted (the wait tells).
    /// Whether it read something (or the end of the output).
    fn answer_ready(&mut self, want: Want) -> Result<bool, Fault> {
        if !std::mem::take(&mut self.answer_due)
            || !matches!(want, Want::Line | Want::LineOrOther)
            || crate::debug::watching()
            || os::interrupted()
        {
            return Ok(false);
        }
        let before = self.buf.len();
        self.read_stdout()?;
        Ok(self.buf.len() != before || self.stdout_eof)
    }

    /// What the harness was waiting for when the time ran out (`want`), for the reason of
    /// the TLE.
    fn overtime(&self, want: Want) -> Overtime {
        let partial = self.buf.len() - self.consumed;
        let waiting = match want {
            Want::Line | Want::LineOrOther => Waiting::Line {
                line: self.lines + 1,
                partial,
                earlier: self.output_total > partial as u64,
            },
            Want::Write => Waiting::Reading {
                line: self.lines + 1,
            },
            Want::Eof | Want::Exited => Waiting::End {
                received: partial as u64,
            },
        };
        Overtime {
            limit: self.limits.think,
            waiting,
        }
    }

    /// Whether `want` is met now, without waiting: the rest of `pending` written, a line (or
    /// the end of output) buffered, the player gone. Starts waiting for room in a full pipe.
    fn try_now(&mut self, want: Want, pending: &mut &[u8]) -> Result<bool, Fault> {
        match want {
            Want::Write => {
                let Some(fd) = &self.stdin else {
                    return Err(Fault::Gone("its input is closed".into()));
                };
                match os::write(fd.as_fd(), pending) {
                    Ok(Some(n)) => {
                        *pending = &pending[n..];
                        if pending.is_empty() {
                            if self.stdin_waited {
                                self.waiter.remove(fd.as_raw_fd());
                                self.stdin_waited = false;
                            }
                            return Ok(true);
                        }
                    }
                    Ok(None) => {}
                    Err(e) => return Err(Fault::Gone(e.to_string())),
                }
                if !self.stdin_waited {
                    // The pipe is full: wait for room (rare: the player is not reading).
                    let raw = fd.as_raw_fd();
                    self.waiter
                        .add(raw, STDIN, Interest::Write)
                        .map_err(|e| Fault::Gone(format!("cannot wait on the pipe: {e}")))?;
                    self.stdin_waited = true;
                }
                Ok(false)
            }
            Want::Line | Want::LineOrOther => {
                if self.has_line() || self.stdout_eof {
                    return Ok(true);
                }
                if matches!(want, Want::LineOrOther) && self.other_ready {
                    return Ok(true);
                }
                if self.buf.len() - self.consumed > self.limits.max_line {
                    return Err(Fault::LineTooLong(self.limits.max_line));
                }
                Ok(false)
            }
            Want::Eof => {
                self.check_lines()?;
                Ok(self.stdout_eof)
            }
            Want::Exited => Ok(self.exited.is_none()),
        }
    }

    /// Waits (at most `timeout`) for something to happen, and takes it in: output, stderr,
    /// the player's end, or an interrupt of the run.
    fn wait_once(&mut self, timeout: Option<std::time::Duration>) -> Result<(), Fault> {
        let ready = self
            .waiter
            .wait(timeout)
            .map_err(|e| Fault::Gone(format!("waiting on the player failed: {e}")))?;
        let is = |token: u32| ready & (1 << token) != 0;
        if is(INTERRUPT) {
            return Err(Fault::Interrupted);
        }
        if is(STDERR) {
            self.read_stderr();
        }
        if is(OTHER) {
            self.other_ready = true;
        }
        if is(STDOUT) {
            self.read_stdout()?;
        }
        if is(EXITED) {
            // The player has exited. What it wrote is in the pipe; a grandchild may hold the
            // pipe open, so take what is there and treat the rest as end of output.
            Self::close(&mut self.waiter, &mut self.exited);
            while self.stdout.is_some() {
                let before = self.buf.len();
                self.read_stdout()?;
                if self.buf.len() == before {
                    break;
                }
            }
            self.read_stderr();
            Self::close(&mut self.waiter, &mut self.stdout);
            self.stdout_eof = true;
        }
        Ok(())
    }

    /// Registers the other descriptor of `recv_or`, once (a wait on the same descriptor
    /// costs no system call beyond the wait).
    fn watch_other(&mut self, fd: RawFd, writable: bool) -> std::io::Result<()> {
        let interest = if writable {
            Interest::ReadWrite
        } else {
            Interest::Read
        };
        match self.other {
            Some((known, w)) if known == fd && w == writable => return Ok(()),
            Some((known, _)) if known == fd => self.waiter.modify(fd, OTHER, interest)?,
            Some((known, _)) => {
                self.waiter.remove(known);
                self.waiter.add(fd, OTHER, interest)?;
            }
            None => self.waiter.add(fd, OTHER, interest)?,
        }
        self.other = Some((fd, writable));
        Ok(())
    }

    /// Hands out the next buffered line (after a wait for one): the end of output, a last
    /// line without newline, an over-long line or one that is not text are faults.
    fn take_line(&mut self) -> Result<&str, Fault> {
        let rest = &self.buf[self.consumed..];
        let Some(end) = rest.iter().position(|&b| b == b'\n') else {
            let tail = String::from_utf8_lossy(rest).to_string();
            return Err(if tail.is_empty() {
                Fault::Eof
            } else {
                Fault::Unterminated(clip(&tail, QUOTE_BYTES))
            });
        };
        if end > self.limits.max_line {
            self.doomed = true;
            return Err(Fault::LineTooLong(self.limits.max_line));
        }
        let start = self.consumed;
        self.consumed += end + 1;
        self.lines += 1;
        let mut line = &self.buf[start..start + end];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        check_text(line)
    }

    /// Drops the line handed out last time; compacts now and then.
    fn compact(&mut self) {
        if self.consumed > 0 && self.consumed * 2 >= self.buf.len() {
            self.buf.drain(..self.consumed);
            self.consumed = 0;
        }
    }

    /// Output read to its end is not handed out line by line, so `recv`'s line check does not
    /// see it: this checks the lines read since the last call against `max_line`.
    fn check_lines(&mut self) -> Result<(), Fault> {
        let max = self.limits.max_line;
        for (i, &b) in self.buf[self.scanned..].iter().enumerate() {
            if b == b'\n' {
                let end = self.scanned + i;
                if end - self.open_line > max {
                    return Err(Fault::LineTooLong(max));
                }
                self.open_line = end + 1;
            }
        }
        self.scanned = self.buf.len();
        if self.scanned - self.open_line > max {
            return Err(Fault::LineTooLong(max));
        }
        Ok(())
    }

    /// Starts the line check of [`Self::check_lines`] at the first byte not handed out.
    fn check_lines_from_here(&mut self) {
        self.scanned = self.consumed;
        self.open_line = self.consumed;
    }

    /// When the thinking time runs out if the clock keeps running (no clock read needed:
    /// the clock started at `self.clock` with `self.used` already spent).
    fn deadline(&self) -> Instant {
        self.clock + self.limits.think.saturating_sub(self.used)
    }

    fn stop_clock(&mut self) -> Instant {
        let now = Instant::now();
        self.used += now.duration_since(self.clock);
        self.clock = now;
        now
    }
}

/// Longer than a plain write to a pipe takes (0.5-1.5 us on a slow virtual machine), shorter
/// than a write during which the player ran (two switches of the CPU and the player's work).
const PREEMPTED: Duration = Duration::from_micros(2);

/// The RLIMIT_CPU of a player whose CPU time is limited to `limit`: a second past it, so the
/// kernel stops a spinning player and the judgement of its CPU time is the harness's.
fn cpu_seconds(limit: Duration) -> u64 {
    limit.as_secs_f64().ceil() as u64 + 1
}

/// Checks that a line is text a judge can parse: UTF-8 without control characters.
/// (A line handed out by `recv` holds no `\n`; whole answers of `recv_to_end` may.)
fn check_text(text: &[u8]) -> Result<&str, Fault> {
    if let Some(at) = text
        .iter()
        .position(|&b| b < 0x20 && !matches!(b, b'\t' | b'\r' | b'\n') || b == 0x7f)
    {
        return Err(Fault::NotText { byte: text[at], at });
    }
    std::str::from_utf8(text).map_err(|e| {
        let at = e.valid_up_to();
        Fault::NotText { byte: text[at], at }
    })
}

impl Drop for Session {
    fn drop(&mut self) {
        // A session dropped without `finish` (a panic in a judge): leave no process behind.
        if self.control.is_some() {
            let _ = self.end_test();
        }
    }
}

impl Channel for Session {
    fn send(&mut self, text: &str) -> Result<(), Fault> {
        if self.join_worker && self.lines > 0 {
            self.join_worker = false;
            sandbox::cgroup::join_worker_cpu();
        }
        // The clock starts with the write: a write blocks only when the player does not read
        // its input, and that time is the player's.
        self.clock = Instant::now();
        let deadline = self.deadline();
        let written = self.pump(Want::Write, text.as_bytes(), Some(deadline));
        // A write that took longer than a plain one: the player took the CPU from the
        // harness, and a quick player has answered by now.
        self.answer_due = self.clock.elapsed() > PREEMPTED;
        written
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        self.compact();
        let deadline = self.deadline();
        let result = self.pump(Want::Line, &[], Some(deadline));
        self.stop_clock();
        result?;
        self.take_line()
    }

    fn recv_or(&mut self, other: BorrowedFd<'_>, writable: bool) -> Result<Heard<'_>, Fault> {
        self.compact();
        self.watch_other(other.as_raw_fd(), writable)
            .map_err(|e| Fault::Gone(format!("cannot wait on the judge's program: {e}")))?;
        self.other_ready = false;
        let deadline = self.deadline();
        let result = self.pump(Want::LineOrOther, &[], Some(deadline));
        let line_ready = self.has_line() || self.stdout_eof;
        if result.is_ok() && !line_ready {
            // The other side spoke: the clock keeps running (the next send restarts it).
            return Ok(Heard::Other);
        }
        self.stop_clock();
        result?;
        self.take_line().map(Heard::Line)
    }

    fn start_on(&mut self, stdin: OwnedFd, stdout: OwnedFd) -> Result<(), Fault> {
        let Some(spec) = self.pending.take() else {
            return Err(Fault::Gone(
                "the player was started on the harness's own pipes".into(),
            ));
        };
        let launched = sandbox::launch_on(&spec, stdin, stdout)
            .map_err(|e| Fault::Gone(format!("cannot start the player: {e}")))?;
        self.adopt(None, launched)
            .map_err(|e| Fault::Gone(format!("cannot wait on the player: {e}")))?;
        self.direct = true;
        // Its output goes to the other program: nothing to read here but its stderr.
        self.stdout_eof = true;
        Ok(())
    }

    fn wait_player(
        &mut self,
        other: Option<BorrowedFd<'_>>,
        deadline: Instant,
    ) -> Result<Waited, Fault> {
        if self.exited.is_none() {
            return Ok(Waited::PlayerEnded);
        }
        match other {
            Some(fd) => self
                .watch_other(fd.as_raw_fd(), false)
                .map_err(|e| Fault::Gone(format!("cannot wait on the judge's program: {e}")))?,
            None => {
                if let Some((fd, _)) = self.other.take() {
                    self.waiter.remove(fd);
                }
            }
        }
        self.other_ready = false;
        loop {
            if self.exited.is_none() {
                return Ok(Waited::PlayerEnded);
            }
            if self.other_ready {
                return Ok(Waited::Other);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(Waited::TimedOut);
            }
            self.wait_once(Some(deadline - now))?;
        }
    }

    fn restart(&mut self) -> Result<(), Fault> {
        self.start_again()
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        self.close_stdin();
        self.check_lines_from_here();
        let deadline = self.deadline();
        let result = self.pump(Want::Eof, &[], Some(deadline));
        self.stop_clock();
        result?;
        let start = self.consumed;
        self.consumed = self.buf.len();
        check_text(&self.buf[start..])
    }
}
