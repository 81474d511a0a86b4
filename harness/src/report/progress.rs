//! The live progress bar on stderr, with the running mean of each player, and failures
//! (and, with `--each`, every finished test) printed above it. Hidden (and failures printed as plain lines) when stderr is not a
//! terminal.

use std::collections::BTreeMap;
use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Event, Reporter, RunState};
use crate::runner::TestResult;
use crate::verdict::Verdict;

/// Failures printed per player before the rest are only counted (they are all in the CSV).
const MAX_FAILURE_LINES: u64 = 10;

/// The time left, at the pace so far: `elapsed` for `done` of `total` tests. `None` before
/// the first test or without a total.
pub(crate) fn eta(
    elapsed: std::time::Duration,
    done: u64,
    total: Option<u64>,
) -> Option<std::time::Duration> {
    let total = total?;
    if done == 0 || done > total {
        return None;
    }
    Some(elapsed.mul_f64((total - done) as f64 / done as f64))
}

pub(crate) struct Progress {
    bar: ProgressBar,
    terminal: bool,
    means: BTreeMap<String, (u64, f64)>,
    failures: BTreeMap<String, u64>,
    /// Tests with a warning (near the time limit, overloaded machine).
    warnings: u64,
    /// The run's folder, to name a failure's files under its line.
    run: Option<std::path::PathBuf>,
    /// A line per finished test (`--each`).
    pub each: bool,
}

/// The line of a finished test under `--each`: `seed 12  player-x  OK  1234  0.81 s`.
pub(crate) fn each_line(r: &TestResult) -> String {
    let score = r.outcome.score;
    let score = if score.fract() == 0.0 {
        format!("{score}")
    } else {
        format!("{score:.4}")
    };
    format!(
        "{}  {}  {}  {score}  {:.2} s",
        r.case.label(),
        r.player,
        r.outcome.verdict,
        r.think.as_secs_f64()
    )
}

impl Progress {
    /// A bar for `total` tests; `quiet` (a `--verbose` run, whose messages take the screen)
    /// draws none.
    pub fn new(total: u64, quiet: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal() && !quiet;
        let target = if terminal {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} {prefix} {wide_msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        Progress {
            bar,
            terminal,
            means: BTreeMap::new(),
            failures: BTreeMap::new(),
            warnings: 0,
            run: None,
            each: false,
        }
    }

    /// Names the run whose files a failure's line points at.
    pub(crate) fn set_run(&mut self, dir: &std::path::Path) {
        self.run = Some(dir.to_path_buf());
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
        if self.each {
            self.note(&each_line(r));
        }
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
                if let Some(dir) = &self.run {
                    let pointers = crate::debug::failure_pointers(
                        dir,
                        r.problem,
                        &r.player,
                        &r.case.to_string(),
                        !r.stderr.bytes.is_empty(),
                        !r.transcript.is_empty(),
                    );
                    if !pointers.is_empty() {
                        self.note(&pointers);
                    }
                }
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
        if let Some(left) = eta(self.bar.elapsed(), self.bar.position(), self.bar.length()) {
            self.bar
                .set_prefix(format!("ETA {}", super::table::human_duration(left)));
        }
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
            Event::RunStarted => {
                self.set_run(&state.dir);
                state.notes.iter().for_each(|n| self.note(n));
            }
            Event::TestStarted { .. } => {}
            Event::TestFinished(result) => self.on_result(result),
            Event::RunFinished => self.finish(),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::eta;

    #[test]
    fn the_eta_is_the_time_left_at_the_pace_so_far() {
        let s = Duration::from_secs;
        assert_eq!(eta(s(10), 5, Some(20)), Some(s(30)));
        assert_eq!(eta(s(10), 20, Some(20)), Some(s(0)));
        assert_eq!(eta(s(10), 0, Some(20)), None);
        assert_eq!(eta(s(10), 5, None), None);
    }
}
