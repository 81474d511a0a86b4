//! The live progress bar on stderr, with the running mean of each player, and failures
//! printed above it. Hidden (and failures printed as plain lines) when stderr is not a
//! terminal.

use std::collections::BTreeMap;
use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Event, Reporter, RunState};
use crate::runner::TestResult;
use crate::verdict::Verdict;

/// Failures printed per player before the rest are only counted (they are all in the CSV).
const MAX_FAILURE_LINES: u64 = 10;

pub struct Progress {
    bar: ProgressBar,
    terminal: bool,
    means: BTreeMap<String, (u64, f64)>,
    failures: BTreeMap<String, u64>,
    /// Tests with a warning (near the time limit, overloaded machine).
    warnings: u64,
}

impl Progress {
    pub fn new(total: u64) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let target = if terminal {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {wide_msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        Progress {
            bar,
            terminal,
            means: BTreeMap::new(),
            failures: BTreeMap::new(),
            warnings: 0,
        }
    }

    /// Prints a line above the bar (or plainly when there is no bar).
    pub fn note(&self, line: &str) {
        if self.terminal {
            self.bar.println(line);
        } else {
            eprintln!("{line}");
        }
    }

    fn on_result(&mut self, r: &TestResult) {
        if !r.warning.is_empty() {
            self.warnings += 1;
        }
        let key = format!("{}/{}", r.problem, r.player);
        let entry = self.means.entry(key.clone()).or_default();
        entry.0 += 1;
        entry.1 += r.outcome.score;
        if r.outcome.verdict != Verdict::Ok {
            let n = {
                let n = self.failures.entry(key).or_default();
                *n += 1;
                *n
            };
            if n <= MAX_FAILURE_LINES {
                let more = if n == MAX_FAILURE_LINES {
                    " (further failures of this player: see scores.csv)"
                } else {
                    ""
                };
                self.note(&format!(
                    "{} {} {} {}: {}{more}",
                    r.outcome.verdict,
                    r.problem,
                    r.player,
                    r.case.label(),
                    r.outcome.reason
                ));
            }
        }
        if self.terminal {
            let msg: Vec<String> = self
                .means
                .iter()
                .map(|(k, (n, sum))| {
                    let name = k.split_once('/').map_or(k.as_str(), |(_, p)| p);
                    format!("{name} {:.4}", sum / *n as f64)
                })
                .collect();
            self.bar.set_message(msg.join("  "));
        }
        self.bar.inc(1);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
        if self.warnings > 0 {
            eprintln!(
                "warning: {} tests came close to their time limit or ran on an overloaded machine (see the warning column of scores.csv)",
                self.warnings
            );
        }
    }
}

impl Reporter for Progress {
    fn on_event(&mut self, event: &Event<'_>, state: &mut RunState) -> Result<(), String> {
        match event {
            Event::RunStarted => state.notes.iter().for_each(|n| self.note(n)),
            Event::TestStarted { .. } => {}
            Event::TestFinished(result) => self.on_result(result),
            Event::RunFinished => self.finish(),
        }
        Ok(())
    }
}
