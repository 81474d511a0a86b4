//! A player started more than once in one test (a contest tester that plays more than one
//! game per input: `max-starts` in problem.toml, `problem::tools::starts`): ending one start
//! and starting the next from the same spec, and one [`Ending`] for the test out of every
//! start's. Touches only the session's own state and the sandbox's launch.
//!
//! Each start is a new process in a new sandbox with the test's limits; its thinking clock,
//! its output and line counts start at zero (the time limit holds each start on its own).
//! The test's ending is that of the first start that ended badly (crashed, was killed for
//! memory or hit the memory limit, could not start, or its sandbox failed), so that a fault
//! of any start is the player's verdict; else the last start's. Its thinking time and CPU
//! time are the largest of any one start (each is judged against the limit on its own), its
//! memory the largest peak; its stderr holds every start's, each after a line naming it.

use super::{Ending, Session};
use crate::os;
use crate::verdict::Fault;

impl Session {
    /// Ends the current start (its input closed, its grace period, its supervisor's report
    /// kept for the test's ending) and starts the player again from the same spec.
    pub(super) fn start_again(&mut self) -> Result<(), Fault> {
        let Some(spec) = self.spec.clone() else {
            return Err(Fault::Gone(
                "this player cannot be started again (it talks to the tool directly)".into(),
            ));
        };
        let ending = self.end_start();
        self.earlier.push(ending);
        self.fresh_start();
        let n = self.earlier.len() + 1;
        let note = format!("\n[harness: start {n} of the player]\n");
        self.stderr_tail.push(note.as_bytes());
        self.launch(&spec)
            .map_err(|e| Fault::Gone(format!("cannot start the player again: {e}")))
    }

    /// Forgets the ended start: its pipes, what it wrote, its clock and counts. Until the next
    /// launch the session holds no process (no `runner`: ending it ends nothing).
    fn fresh_start(&mut self) {
        if let Some((fd, _)) = self.other.take() {
            // A new game waits on a new descriptor, which may reuse the old one's number.
            self.waiter.remove(fd);
        }
        self.other_ready = false;
        self.close_stdin();
        Self::close(&mut self.waiter, &mut self.stdout);
        Self::close(&mut self.waiter, &mut self.stderr);
        Self::close(&mut self.waiter, &mut self.exited);
        self.runner = None;
        self.buf.clear();
        self.consumed = 0;
        self.output_total = 0;
        self.lines = 0;
        self.stdout_eof = false;
        self.used = std::time::Duration::ZERO;
        self.doomed = false;
        self.scanned = 0;
        self.open_line = 0;
    }
}

/// One ending for a test out of its starts' (`earlier`, then `last`): see the module doc.
pub(super) fn merged(earlier: Vec<Ending>, last: Ending) -> Ending {
    if earlier.is_empty() {
        return last;
    }
    let mut all = earlier;
    all.push(last);
    let think = all.iter().map(|e| e.think).max().unwrap_or_default();
    let reports = || all.iter().filter_map(|e| e.report.as_ref());
    let cpu_us = reports().map(|r| r.cpu_us).max().unwrap_or(0);
    let memory_kb = reports().map(|r| r.max_memory_kb).max().unwrap_or(0);
    let late_output = all.iter().find_map(|e| e.late_output.clone());
    let pick = all.iter().position(ended_badly).unwrap_or(all.len() - 1);
    let mut ending = all.swap_remove(pick);
    ending.think = think;
    ending.late_output = late_output;
    if let Some(r) = &mut ending.report {
        r.cpu_us = cpu_us;
        r.max_memory_kb = memory_kb;
    }
    ending
}

/// Whether a start ended in a way that is the test's verdict whatever the others did.
fn ended_badly(e: &Ending) -> bool {
    let Some(r) = &e.report else {
        return true;
    };
    let crashed = matches!(
        r.exit,
        Some(os::Exit::Signal(_)) | Some(os::Exit::Code(1..))
    );
    r.failure.is_some()
        || r.start_error.is_some()
        || r.oom_killed
        || r.memory_limit_hit
        || (crashed && !e.killed)
}
