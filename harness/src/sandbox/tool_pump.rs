//! The harness's side of a contest tool's run ([`Pump`]): its stdin fed, its stdout written
//! to its file and both outputs' tails kept, its time, output and folder watched, and its
//! sandbox ended with the supervisor's report read ([`end_test`]). It says how the tool
//! ended ([`ToolEnd`]) and judges nothing.
//!
//! Touches only the pipes of the tool it is given and its stdout file.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use super::folder_cap::FolderCap;
use super::spec::{Report, StartError};
use super::tool::{Stdin, ToolCommand, ToolEnd, ToolRun, TAIL};
use crate::os::{self, Interest, Waiter};

/// How long the supervisor gets to end the tool's processes and report.
const TEARDOWN: Duration = Duration::from_secs(2);

/// Tokens of the descriptors a tool's run waits on.
const STDIN: u32 = 0;
const STDOUT: u32 = 1;
const STDERR: u32 = 2;
const INTERRUPT: u32 = 3;
const EXITED: u32 = 4;

/// Pumps a started tool's pipes until it ends or its time (from `begin`) is up, ends its
/// sandbox and says how it went.
pub(super) fn finish(mut pump: Pump, begin: Instant, timeout: Duration) -> ToolRun {
    let deadline = begin + timeout;
    let stopped = pump.wait(deadline);
    let report = end_test(
        pump.pid,
        pump.control.take(),
        pump.report.take(),
        pump.net.take(),
    );
    // Whatever the tool wrote before it was stopped is still worth its tail.
    pump.drain_stderr();
    let end = match (stopped, &report) {
        (Some(end), _) => end,
        (
            None,
            Some(Report {
                start_error: Some(e),
                ..
            }),
        ) => ToolEnd::NotStarted(match e {
            StartError::Exec(why) | StartError::Refused(why) | StartError::Setup(why) => {
                why.clone()
            }
        }),
        (None, Some(Report { exit: Some(e), .. })) => ToolEnd::Exited(*e),
        (None, _) => ToolEnd::NotStarted("the sandbox did not report how the tool ended".into()),
    };
    ToolRun {
        end,
        stdout_tail: String::from_utf8_lossy(&pump.stdout_tail).into_owned(),
        stderr_tail: String::from_utf8_lossy(&pump.stderr_tail).into_owned(),
        report,
        wall: begin.elapsed(),
    }
}

/// The harness's side of a running tool's pipes.
pub(super) struct Pump {
    pid: i32,
    control: Option<OwnedFd>,
    report: Option<OwnedFd>,
    net: Option<super::net::NetNs>,
    stdin: Option<OwnedFd>,
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
    exited: Option<OwnedFd>,
    waiter: Waiter,
    input: Vec<u8>,
    written: usize,
    out_file: Option<std::fs::File>,
    out_total: u64,
    max_output: u64,
    stdout_tail: Vec<u8>,
    stderr_tail: Vec<u8>,
    scratch: Vec<u8>,
    disk: Option<FolderCap>,
}

impl Pump {
    #[allow(clippy::result_large_err)]
    /// `hold`: the first byte written on the tool's stdin is its go ([`Held`]); `disk`: the
    /// tool's folder, watched.
    pub(super) fn new(
        launched: super::Launched,
        cmd: &ToolCommand,
        hold: bool,
        disk: Option<FolderCap>,
    ) -> Result<Pump, (super::Launched, std::io::Error)> {
        let setup = || -> std::io::Result<(Waiter, Option<OwnedFd>, Option<std::fs::File>)> {
            for fd in [
                &launched.stdin,
                &launched.stdout,
                &launched.stderr,
                &launched.report,
            ] {
                os::set_nonblocking(fd.as_fd())?;
            }
            let mut waiter = Waiter::new()?;
            waiter.add(launched.stdout.as_raw_fd(), STDOUT, Interest::Read)?;
            waiter.add(launched.stderr.as_raw_fd(), STDERR, Interest::Read)?;
            waiter.add(os::interrupt_fd(), INTERRUPT, Interest::Read)?;
            let exited = launched.report.try_clone()?;
            waiter.add(exited.as_raw_fd(), EXITED, Interest::Read)?;
            let out_file = match &cmd.stdout {
                Some(path) => Some(std::fs::File::create(path)?),
                None => None,
            };
            Ok((waiter, Some(exited), out_file))
        };
        let (mut waiter, exited, out_file) = match setup() {
            Ok(s) => s,
            Err(e) => return Err((launched, e)),
        };
        let mut input = Vec::new();
        if hold {
            input.push(b'!');
        }
        if let Stdin::Bytes(b) = &cmd.stdin {
            input.extend_from_slice(b);
        }
        let stdin = if input.is_empty() {
            None
        } else {
            if let Err(e) = waiter.add(launched.stdin.as_raw_fd(), STDIN, Interest::Write) {
                return Err((launched, e));
            }
            Some(launched.stdin)
        };
        Ok(Pump {
            pid: launched.pid,
            control: Some(launched.control),
            report: Some(launched.report),
            net: launched.net,
            stdin,
            stdout: Some(launched.stdout),
            stderr: Some(launched.stderr),
            exited,
            waiter,
            input,
            written: 0,
            out_file,
            out_total: 0,
            max_output: cmd.max_output,
            stdout_tail: Vec::new(),
            stderr_tail: Vec::new(),
            scratch: vec![0; 1 << 16],
            disk,
        })
    }

    fn close(waiter: &mut Waiter, fd: &mut Option<OwnedFd>) {
        if let Some(fd) = fd.take() {
            waiter.remove(fd.as_raw_fd());
        }
    }

    /// Ends a held tool that never got its go: end of file instead of the go byte, so the
    /// tool exits before its exec, and its sandbox is ended.
    pub(super) fn abandon(mut self) {
        Self::close(&mut self.waiter, &mut self.stdin);
        end_test(
            self.pid,
            self.control.take(),
            self.report.take(),
            self.net.take(),
        );
    }

    /// Feeds stdin, takes stdout and stderr in, until the tool has ended (`None`) or it must
    /// be stopped (the reason).
    fn wait(&mut self, deadline: Instant) -> Option<ToolEnd> {
        loop {
            if self.exited.is_none() && self.stdout.is_none() && self.stderr.is_none() {
                return None;
            }
            if let Some(disk) = &mut self.disk {
                if disk.over() {
                    return Some(ToolEnd::DiskLimit(disk.cap));
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Some(ToolEnd::TimedOut);
            }
            let until = self
                .disk
                .as_ref()
                .map_or(deadline, |d| d.due().min(deadline));
            let ready = match self.waiter.wait(Some(until.saturating_duration_since(now))) {
                Ok(r) => r,
                Err(e) => return Some(ToolEnd::NotStarted(format!("waiting on the tool: {e}"))),
            };
            let is = |token: u32| ready & (1 << token) != 0;
            if is(INTERRUPT) {
                return Some(ToolEnd::Interrupted);
            }
            if is(STDIN) {
                self.feed();
            }
            if is(STDERR) {
                self.drain_stderr();
            }
            if is(STDOUT) && !self.read_stdout() {
                return Some(ToolEnd::OutputLimit);
            }
            if is(EXITED) {
                // The tool has ended and its processes are gone: what it wrote is in the pipes.
                Self::close(&mut self.waiter, &mut self.exited);
                Self::close(&mut self.waiter, &mut self.stdin);
                while self.stdout.is_some() {
                    if !self.read_stdout() {
                        return Some(ToolEnd::OutputLimit);
                    }
                }
                self.drain_stderr();
                Self::close(&mut self.waiter, &mut self.stdout);
                Self::close(&mut self.waiter, &mut self.stderr);
                return None;
            }
        }
    }

    /// Writes what it can of the tool's input (the first byte of a held tool's is its go).
    pub(super) fn feed(&mut self) {
        let Some(fd) = &self.stdin else { return };
        match os::write(fd.as_fd(), &self.input[self.written..]) {
            Ok(Some(n)) => self.written += n,
            Ok(None) => return,
            // The tool closed its stdin: it has read what it wanted.
            Err(_) => self.written = self.input.len(),
        }
        if self.written == self.input.len() {
            Self::close(&mut self.waiter, &mut self.stdin);
        }
    }

    /// Reads what stdout has now; false when the output limit is passed. Closes it at EOF or
    /// when nothing is there (after the tool's end, nothing more will come).
    fn read_stdout(&mut self) -> bool {
        let Some(fd) = &self.stdout else { return true };
        match os::read(fd.as_fd(), &mut self.scratch) {
            Ok(Some(0)) | Err(_) | Ok(None) if self.exited.is_none() => {
                Self::close(&mut self.waiter, &mut self.stdout);
            }
            Ok(Some(0)) | Err(_) => Self::close(&mut self.waiter, &mut self.stdout),
            Ok(None) => {}
            Ok(Some(n)) => {
                self.out_total += n as u64;
                if self.out_total > self.max_output {
                    return false;
                }
                let chunk = &self.scratch[..n];
                if let Some(file) = &mut self.out_file {
                    use std::io::Write;
                    if file.write_all(chunk).is_err() {
                        self.out_file = None;
                    }
                }
                push_tail(&mut self.stdout_tail, chunk);
            }
        }
        true
    }

    fn drain_stderr(&mut self) {
        while let Some(fd) = &self.stderr {
            match os::read(fd.as_fd(), &mut self.scratch) {
                Ok(Some(0)) | Err(_) => Self::close(&mut self.waiter, &mut self.stderr),
                Ok(Some(n)) => push_tail(&mut self.stderr_tail, &self.scratch[..n]),
                Ok(None) => return,
            }
        }
    }
}

/// Keeps the last [`TAIL`] bytes.
fn push_tail(tail: &mut Vec<u8>, chunk: &[u8]) {
    tail.extend_from_slice(chunk);
    if tail.len() > 2 * TAIL {
        let cut = tail.len() - TAIL;
        tail.drain(..cut);
    }
}

/// Tells the supervisor the run is over, waits (bounded) for its report, kills it when it
/// does not answer; reaps it now or later.
pub(super) fn end_test(
    pid: i32,
    control: Option<OwnedFd>,
    report: Option<OwnedFd>,
    net: Option<super::net::NetNs>,
) -> Option<Report> {
    drop(control);
    let deadline = Instant::now() + TEARDOWN;
    let mut text = Vec::new();
    let mut answered = false;
    let mut buf = [0u8; 4096];
    if let Some(fd) = report {
        while Instant::now() < deadline {
            match os::read(fd.as_fd(), &mut buf) {
                Ok(Some(0)) | Err(_) => {
                    answered = true;
                    break;
                }
                Ok(Some(n)) => text.extend_from_slice(&buf[..n]),
                Ok(None) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    let mut fds = [os::PollFd::readable(fd.as_raw_fd())];
                    let _ = os::poll(&mut fds, Some(left.min(Duration::from_millis(50))));
                }
            }
        }
    }
    if !answered {
        super::kill(pid);
    }
    super::reap_later(pid);
    let report = serde_json::from_slice::<Report>(text.trim_ascii()).ok();
    super::release(net, report.as_ref());
    report
}
