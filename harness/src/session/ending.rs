//! The end of a player's start and of its test: its input closed, its grace period, the
//! supervisor told to end the test and its report read ([`Session::finish`]). Touches the
//! session's own state and the sandbox's end of a test.

use std::os::fd::{AsFd, AsRawFd};
use std::time::{Duration, Instant};

use super::{again, Ending, Session, StderrTail, Want, TEARDOWN};
use crate::os;
use crate::sandbox::{self, Report};
use crate::verdict::{clip, QUOTE_BYTES};

impl Session {
    /// Ends the player: closes its input, lets it exit within the grace period, then tells
    /// the supervisor to end the test and reads its report. Never blocks longer than the
    /// grace period plus the supervisor's teardown time.
    pub fn finish(mut self) -> Ending {
        let last = self.end_start();
        let mut ending = again::merged(std::mem::take(&mut self.earlier), last);
        self.stderr_tail.trim();
        ending.stderr = std::mem::take(&mut self.stderr_tail);
        ending
    }

    /// Ends the current start of the player (as [`Session::finish`] says); its stderr stays
    /// in the session's tail.
    pub(super) fn end_start(&mut self) -> Ending {
        if self.runner.is_none() {
            // Never started (the other program never started its player): nothing ran.
            return Ending {
                report: Some(Report {
                    all_gone: true,
                    ..Report::default()
                }),
                killed: false,
                late_output: None,
                stderr: StderrTail::default(),
                think: Duration::ZERO,
                direct: self.direct,
            };
        }
        self.close_stdin();
        let grace = if self.doomed {
            Duration::ZERO
        } else {
            self.limits.grace
        };
        let deadline = Instant::now() + grace;
        // Anything the player writes now is after the end of the game.
        let late_start = self.consumed;
        self.check_lines_from_here();
        let _ = self.pump(Want::Eof, &[], Some(deadline));
        let late = String::from_utf8_lossy(&self.buf[late_start..])
            .trim()
            .to_string();
        // Output closed: the player is most likely ending (a crash closes its pipes before
        // its exit is complete); let it, within the grace period, so its exit is its own.
        if !self.doomed {
            let _ = self.pump(Want::Exited, &[], Some(deadline));
        }
        let report = self.end_test();
        // No exit in the report: the player was still running when the test ended.
        let killed = report.as_ref().is_none_or(|r| r.exit.is_none());
        self.read_stderr();
        Self::close(&mut self.waiter, &mut self.stdout);
        Self::close(&mut self.waiter, &mut self.stderr);
        let think = match (&report, self.direct) {
            (Some(r), true) => Duration::from_micros(r.cpu_us),
            _ => self.used,
        };
        Ending {
            report,
            killed,
            late_output: (!late.is_empty()).then(|| clip(&late, QUOTE_BYTES)),
            stderr: StderrTail::default(),
            think,
            direct: self.direct,
        }
    }

    /// Tells what runs the test (its supervisor, or its player's kept init) that the test is
    /// over and waits (bounded) for its report; what does not answer in time is killed
    /// ([`sandbox::Runner::end`]). A supervisor is reaped now if it has exited, else later:
    /// what is left of it is tidying up after a test whose processes are all gone.
    pub(super) fn end_test(&mut self) -> Option<Report> {
        sandbox::cgroup::leave_worker_cpu();
        self.control = None;
        if let Some(fd) = self.exited.take() {
            self.waiter.remove(fd.as_raw_fd());
        }
        let deadline = Instant::now() + TEARDOWN;
        let mut text = Vec::new();
        let mut answered = false;
        if let Some(fd) = self.report.take() {
            while Instant::now() < deadline {
                match os::read(fd.as_fd(), &mut self.scratch[..]) {
                    Ok(Some(0)) | Err(_) => {
                        answered = true;
                        break;
                    }
                    Ok(Some(n)) => text.extend_from_slice(&self.scratch[..n]),
                    Ok(None) => {
                        // Keep draining stderr so a chatty process cannot block the teardown.
                        self.read_stderr();
                        let left = deadline.saturating_duration_since(Instant::now());
                        let mut fds = [os::PollFd::readable(fd.as_raw_fd())];
                        let _ = os::poll(&mut fds, Some(left.min(Duration::from_millis(50))));
                    }
                }
            }
        }
        let mut report = serde_json::from_slice::<Report>(text.trim_ascii()).ok();
        if let Some(runner) = self.runner.take() {
            runner.end(answered, &mut report);
        }
        sandbox::release(self.net.take(), report.as_ref());
        report
    }
}
