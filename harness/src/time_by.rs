//! Which clock a test's time limit holds (`--time-by`, else `time-by` in scoring.toml's
//! `[problem.<id>]` or problem.toml's `[limits]`, else in scoring.toml's `[harness]`; see
//! `config::ProblemConfig::time_by`): the player's thinking time (the default: the wall clock while the
//! harness waits for its answers), or its CPU time. Under CPU time the wall clock is only a
//! guard against a player that waits ([`guard`]), the kernel stops a player's process a
//! second of CPU time past the limit (`RLIMIT_CPU`), and the test's CPU time is judged at its
//! end ([`judge_cpu`]).
//!
//! Plain values in and out: imports nothing above `verdict`.

use std::time::Duration;

use clap::ValueEnum;

use crate::verdict::{Outcome, Verdict};

/// The clock a time limit holds.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Deserialize,
    serde::Serialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum TimeBy {
    /// Thinking time: the wall clock from each message sent to the player until its answer.
    #[default]
    Think,
    /// The CPU time of the player's processes, over the whole test.
    Cpu,
}

impl TimeBy {
    /// The setting's spelling (`think`), for messages and `run.toml`: the one `--time-by` and
    /// the config files read.
    pub fn name(self) -> String {
        self.to_possible_value()
            .expect("every TimeBy is a --time-by value")
            .get_name()
            .to_owned()
    }
}

/// The wall clock's bound on a test's thinking time when its limit holds CPU time: five
/// times the limit, and at least ten seconds past it. Far enough that a loaded machine does
/// not reach it for a player that computes; only a player that sleeps or waits does.
pub fn guard(limit: Duration) -> Duration {
    (limit * 5).max(limit + Duration::from_secs(10))
}

/// How long the wall clock lets a player think under a time limit of `limit` on `by`: the
/// limit itself, or the [`guard`] when the limit holds CPU time.
pub fn wall_limit(limit: Duration, by: TimeBy) -> Duration {
    match by {
        TimeBy::Think => limit,
        TimeBy::Cpu => guard(limit),
    }
}

/// A test's verdict under a limit on CPU time, after the runner's: over the limit is TLE
/// (whatever the judge saw: the kernel's `SIGXCPU` or kill is not a crash); a TLE within it
/// came from the wall clock's guard, and its reason says so. The machine's faults (ERR) and
/// an MLE stand. The warning near the limit is on CPU time, and a thinking time far above
/// the CPU time is no news under this clock (it is how a waiting player looks).
pub fn judge_cpu(
    outcome: &mut Outcome,
    warning: &mut String,
    cpu: Duration,
    limit: Duration,
    keeps_score: bool,
) {
    *warning = cpu_warning(cpu, limit);
    if matches!(
        outcome.verdict,
        Verdict::HarnessError | Verdict::MemoryLimit
    ) {
        return;
    }
    let (secs, limit_secs) = (cpu.as_secs_f64(), limit.as_secs_f64());
    if cpu > limit {
        outcome.verdict = Verdict::TimeLimit;
        outcome.reason = format!(
            "time limit {limit_secs} s exceeded: {secs:.2} s of CPU time (time-by cpu: the limit holds the player's CPU time)"
        );
        if !keeps_score {
            outcome.score = 0.0;
        }
    } else if outcome.verdict == Verdict::TimeLimit {
        outcome.reason = format!(
            "waited past the wall-clock guard of {:.0} s with {secs:.2} s of CPU time (time-by cpu: the time limit of {limit_secs} s holds CPU time, the guard stops a player that sleeps or waits)",
            guard(limit).as_secs_f64()
        );
    }
}

/// The warning of a test whose limit holds CPU time: near the limit.
fn cpu_warning(cpu: Duration, limit: Duration) -> String {
    let used = cpu.as_secs_f64() / limit.as_secs_f64();
    if used > 0.8 && used <= 1.0 {
        format!("used {:.0}% of the CPU time limit", used * 100.0)
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_secs(2);

    fn judged(verdict: Verdict, cpu: f64) -> (Outcome, String) {
        let mut outcome = Outcome {
            verdict,
            score: 7.0,
            ..Outcome::ok(7.0, 3)
        };
        let mut warning = "thinking time 9.0x the CPU time: overloaded machine".to_string();
        judge_cpu(
            &mut outcome,
            &mut warning,
            Duration::from_secs_f64(cpu),
            LIMIT,
            false,
        );
        (outcome, warning)
    }

    #[test]
    fn cpu_time_over_the_limit_is_tle_whatever_the_judge_saw_and_within_it_the_verdict_stands() {
        let (o, w) = judged(Verdict::RuntimeError, 3.1);
        assert_eq!((o.verdict, o.score), (Verdict::TimeLimit, 0.0));
        assert!(o.reason.contains("3.10 s of CPU time"), "{}", o.reason);
        assert_eq!(w, "");
        let (o, w) = judged(Verdict::Ok, 1.9);
        assert_eq!((o.verdict, o.score), (Verdict::Ok, 7.0));
        assert_eq!(w, "used 95% of the CPU time limit");
        let (o, _) = judged(Verdict::MemoryLimit, 3.1);
        assert_eq!(o.verdict, Verdict::MemoryLimit);
    }

    #[test]
    fn a_tle_within_the_cpu_limit_names_the_wall_clock_guard() {
        let (o, _) = judged(Verdict::TimeLimit, 0.01);
        assert_eq!(o.verdict, Verdict::TimeLimit);
        assert!(
            o.reason.contains("wall-clock guard of 12 s"),
            "{}",
            o.reason
        );
        assert_eq!(guard(Duration::from_secs(10)), Duration::from_secs(50));
    }

    #[test]
    fn every_time_by_spelling_reads_back_as_itself() {
        let mut names = Vec::new();
        for &by in TimeBy::value_variants() {
            let text = by.name();
            assert_eq!(TimeBy::from_str(&text, false), Ok(by), "--time-by {text}");
            let read: TimeBy = toml::Value::String(text.clone()).try_into().unwrap();
            assert_eq!(read, by, "time-by = {text:?}");
            names.push(text);
        }
        assert_eq!(names, ["think", "cpu"]);
    }
}
