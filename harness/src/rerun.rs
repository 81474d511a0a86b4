//! The second try of a TLE the machine may have caused. A test that ran out of thinking time
//! with its CPU time within the limit, on a machine the harness saw overloaded (the condition
//! of the runner's "overloaded machine" warning, [`runner::overloaded`]), is held back from
//! the reporters while the run's tests play in parallel; once they are all done, each held
//! test is played again alone (no other test running), once. The second result is the test's,
//! its warning beginning with [`RERUN`] and saying what the first try was.
//!
//! A test held when the run is interrupted is not reported: `--resume` plays it again. A
//! shard reruns its own tests. Under `--time-by cpu` no test is held: its TLE is by CPU time,
//! or by the wall clock's guard against a player that waits, neither of which a load explains.
//!
//! Above the runner (it plays tests with [`runner::run_one`]), below the executor, which
//! calls it from one place; prints nothing and touches no file.

use std::time::Duration;

use crate::os;
use crate::rundir::RERUN;
use crate::runner::{self, Containment, Event, Suite, TestResult};
use crate::time_by::TimeBy;
use crate::verdict::Verdict;

/// The tests held back for a rerun, in the order they finished.
#[derive(Default)]
pub struct Reruns {
    held: Vec<Held>,
}

/// A held test: its first result, and what the rerun's warning says of it.
struct Held {
    first: Box<TestResult>,
    why: String,
}

/// Why a finished test is to be played again alone (`None`: its result stands): a TLE whose
/// CPU time is within `limit`, which the harness saw overloaded, under a limit that holds
/// thinking time.
pub fn why_rerun(result: &TestResult, limit: Duration, by: TimeBy) -> Option<String> {
    let outcome = &result.outcome;
    let wanted = by == TimeBy::Think
        && outcome.verdict == Verdict::TimeLimit
        && result.cpu <= limit
        && runner::overloaded(result.think, result.cpu, runner::unflushed(outcome));
    wanted.then(|| {
        format!(
            "first try TLE with {:.2} s of CPU time in {:.2} s of thinking time: overloaded machine",
            result.cpu.as_secs_f64(),
            result.think.as_secs_f64()
        )
    })
}

impl Reruns {
    /// Takes a finished test of the parallel phase: returns it to be reported now, or holds
    /// it for a rerun (`None`).
    pub fn hold(&mut self, result: Box<TestResult>, suites: &[Suite]) -> Option<Box<TestResult>> {
        let Some(suite) = suites.iter().find(|s| s.problem.id() == result.problem) else {
            return Some(result);
        };
        let config = &suite.env.config;
        let limit = Duration::from_secs_f64(config.time_limit);
        match why_rerun(&result, limit, config.time_by()) {
            Some(why) => {
                self.held.push(Held { first: result, why });
                None
            }
            None => Some(result),
        }
    }

    /// Plays each held test again, one at a time, and reports it (its `Started`, then its
    /// `Finished`) to `on_event`. Call it once every other test of the run has ended. Returns
    /// false when the run was interrupted (the tests not played again are not reported).
    pub fn play(
        self,
        suites: &[Suite],
        containment: &Containment,
        on_event: impl FnMut(Event),
    ) -> bool {
        if self.held.is_empty() {
            return true;
        }
        let again = |first: &TestResult| {
            let suite = suites.iter().find(|s| s.problem.id() == first.problem)?;
            let player = suite.players.iter().find(|p| p.name == first.player)?;
            runner::run_one(suite, containment, &first.case, player)
        };
        let complete = self.play_with(again, on_event);
        // Supervisors still tidying up after the reruns (their players are all gone).
        crate::sandbox::reap_all(Duration::from_secs(5));
        complete
    }

    /// [`Reruns::play`] with `again` playing a test once more (`None`: interrupted).
    fn play_with(
        self,
        mut again: impl FnMut(&TestResult) -> Option<TestResult>,
        mut on_event: impl FnMut(Event),
    ) -> bool {
        for Held { first, why } in self.held {
            if os::interrupted() {
                return false;
            }
            on_event(Event::Started {
                problem: first.problem,
                player: first.player.clone(),
                case: first.case.clone(),
            });
            let Some(mut second) = again(&first) else {
                return false;
            };
            let mut warning = format!("{RERUN} ({why})");
            if !second.warning.is_empty() {
                warning = format!("{warning}; {}", second.warning);
            }
            second.warning = warning;
            on_event(Event::Finished(Box::new(second)));
        }
        !os::interrupted()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::CaseKey;
    use crate::verdict::{Fault, Outcome, Overtime, Waiting};

    const LIMIT: Duration = Duration::from_secs(2);

    /// A TLE with this thinking and CPU time, whose player had answered every line (not
    /// waiting on output it never flushed).
    fn tle(think: f64, cpu: f64) -> TestResult {
        let player = crate::players::Player {
            name: "p".into(),
            problem: "linez".into(),
            program: "/bin/true".into(),
            args: Vec::new(),
            cwd: "/".into(),
            source: "p".into(),
            hash: "h".into(),
            env: Vec::new(),
            pass_env: Vec::new(),
            on_path: false,
            snapshot: None,
        };
        let mut r = TestResult::new("linez", &player, &CaseKey::Seed(3));
        r.outcome = Outcome::failed(Verdict::TimeLimit, "time limit 2 s exceeded");
        r.outcome.fault = Some(Fault::TimeLimit(Overtime {
            limit: LIMIT,
            waiting: Waiting::Line {
                line: 4,
                partial: 0,
                earlier: true,
            },
        }));
        r.think = Duration::from_secs_f64(think);
        r.cpu = Duration::from_secs_f64(cpu);
        r
    }

    #[test]
    fn only_an_overloaded_tle_within_the_cpu_limit_under_thinking_time_is_rerun() {
        let why = why_rerun(&tle(2.9, 0.87), LIMIT, TimeBy::Think).expect("rerun");
        assert!(why.contains("0.87 s of CPU time in 2.90 s"), "{why}");
        // Not overloaded: the player used its thinking time on the CPU.
        assert_eq!(why_rerun(&tle(2.1, 1.9), LIMIT, TimeBy::Think), None);
        // Overloaded, but its CPU time alone is over the limit.
        assert_eq!(why_rerun(&tle(9.0, 2.5), LIMIT, TimeBy::Think), None);
        // A limit on CPU time: no load explains its TLE.
        assert_eq!(why_rerun(&tle(2.9, 0.87), LIMIT, TimeBy::Cpu), None);
        // A player waiting on a line it never flushed: its own doing.
        let mut unflushed = tle(2.9, 0.87);
        if let Some(Fault::TimeLimit(o)) = &mut unflushed.outcome.fault {
            o.waiting = Waiting::Line {
                line: 4,
                partial: 3,
                earlier: true,
            };
        }
        assert_eq!(why_rerun(&unflushed, LIMIT, TimeBy::Think), None);
        // Not a TLE.
        let mut wrong = tle(2.9, 0.87);
        wrong.outcome.verdict = Verdict::WrongAnswer;
        assert_eq!(why_rerun(&wrong, LIMIT, TimeBy::Think), None);
    }

    #[test]
    fn a_held_test_is_played_again_once_even_when_its_rerun_is_an_overloaded_tle_again() {
        let first = tle(2.9, 0.87);
        let why = why_rerun(&first, LIMIT, TimeBy::Think).unwrap();
        let reruns = Reruns {
            held: vec![Held {
                first: Box::new(first),
                why,
            }],
        };
        let mut plays = 0;
        let mut events = Vec::new();
        let complete = reruns.play_with(
            |_| {
                plays += 1;
                let mut again = tle(3.0, 0.5);
                again.warning = "thinking time 6.0x the CPU time: overloaded machine".into();
                Some(again)
            },
            |e| events.push(e),
        );
        assert!(complete);
        assert_eq!(plays, 1);
        let [Event::Started { .. }, Event::Finished(second)] = &events[..] else {
            panic!("{events:?}");
        };
        assert_eq!(second.outcome.verdict, Verdict::TimeLimit);
        assert!(
            second
                .warning
                .starts_with("rerun alone (first try TLE with 0.87 s")
                && second
                    .warning
                    .ends_with("; thinking time 6.0x the CPU time: overloaded machine"),
            "{}",
            second.warning
        );
    }
}
