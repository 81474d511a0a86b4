//! `--json`: the run as JSON lines on stdout, for scripts. One object per line, told apart by
//! `"type"`: a `"test"` line as each test finishes (the columns of its `scores.csv` row, its
//! seed a number and a fixed test's name a string, its parameters as an object), a `"standing"` line per (problem, player) once the run ends (the
//! leaderboard's numbers), and a last `"run"` line (its id, folder, whether it was partial).
//!
//! The functions are pure (they return lines); [`Json`] is the reporter that prints them.

use serde_json::{json, Map, Value};

use super::summary::Summary;
use super::{Event, Reporter, RunState};
use crate::problem::CaseKey;
use crate::runner::TestResult;
use crate::verdict::Verdict;

/// A parameter's value: a number when it reads as one, else its text.
fn value(text: &str) -> Value {
    match text.parse::<i64>() {
        Ok(n) => json!(n),
        Err(_) => match text.parse::<f64>() {
            Ok(x) if x.is_finite() => json!(x),
            _ => json!(text),
        },
    }
}

/// A test's key as scripts want it: a seed is a number (`"seed":2`), a fixed test its name.
fn seed(case: &CaseKey) -> Value {
    match case {
        CaseKey::Seed(s) => json!(s),
        CaseKey::Fixed(name) => json!(name),
    }
}

/// The line of one finished test; `params` names its problem's parameters in order.
pub(crate) fn test_line(r: &TestResult, params: &[&str], run: &str) -> String {
    let params: Map<String, Value> = params
        .iter()
        .zip(&r.params)
        .map(|(name, v)| (name.to_string(), value(v)))
        .collect();
    json!({
        "type": "test",
        "run": run,
        "problem": r.problem,
        "player": r.player,
        "seed": seed(&r.case),
        "score": r.outcome.score,
        "verdict": r.outcome.verdict.code(),
        "moves": r.outcome.moves,
        "think_ms": r.think.as_millis() as u64,
        "cpu_ms": r.cpu.as_millis() as u64,
        "wall_ms": r.wall.as_millis() as u64,
        "max_memory_kb": r.max_memory_kb,
        "warning": r.warning,
        "player_hash": r.player_hash,
        "params": params,
        "reason": r.outcome.reason,
    })
    .to_string()
}

/// The reporter of `--json`: prints each test's line as it finishes and the end lines once
/// the run ends, on stdout.
pub(crate) struct Json {
    /// Each problem with its parameter names, in order.
    pub params: Vec<(String, Vec<String>)>,
}

impl Reporter for Json {
    fn on_event(&mut self, event: &Event<'_>, state: &mut RunState) -> Result<(), String> {
        match event {
            Event::TestFinished(result) => {
                let names = self.params.iter().find(|(p, _)| p == result.problem);
                let names: Vec<&str> =
                    names.map_or(Vec::new(), |(_, n)| n.iter().map(String::as_str).collect());
                println!("{}", test_line(result, &names, &state.id));
            }
            Event::RunFinished => {
                let dir = state.dir.display().to_string();
                for line in end_lines(&state.summary, &state.id, &dir, !state.complete) {
                    println!("{line}");
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The `"standing"` lines of the leaderboard, best first per problem by what it ranks by
/// (`rank_by`, `mark`, `left_out` and `place` as in leaderboard.csv), then the `"run"` line.
/// A minimised problem's mean, sum, min and max are over its OK tests (`null` without one).
pub(crate) fn end_lines(summary: &Summary, run: &str, dir: &str, partial: bool) -> Vec<String> {
    let mut lines = Vec::new();
    for (problem, players) in &summary.problems {
        let objective = summary.objective(problem);
        let (by, ranked) = summary.ranked(problem, players);
        for (place, (player, s)) in ranked {
            let verdicts: Map<String, Value> = Verdict::ALL
                .iter()
                .map(|v| (v.code().to_string(), json!(s.count(*v))))
                .collect();
            let range = s.shown_range(objective);
            let mark = s.mark(by, objective);
            lines.push(
                json!({
                    "type": "standing",
                    "run": run,
                    "problem": problem,
                    "player": player,
                    "tests": s.tests,
                    "mean": s.shown_mean(objective),
                    "sum": range.map(|r| r.0),
                    "min": range.map(|r| r.1),
                    "max": range.map(|r| r.2),
                    "relative": s.relative,
                    "rank": s.rank,
                    "rank_by": by.name(),
                    "mark": mark.value,
                    "left_out": mark.left_out,
                    "place": place,
                    "verdicts": verdicts,
                    "think_ms": s.think.as_millis() as u64,
                    "max_think_ms": s.max_think.as_millis() as u64,
                })
                .to_string(),
            );
        }
    }
    lines.push(json!({"type": "run", "run": run, "dir": dir, "partial": partial}).to_string());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_is_a_number_and_a_fixed_test_its_name() {
        assert_eq!(seed(&CaseKey::Seed(2)).to_string(), "2");
        let fixed = seed(&CaseKey::Fixed("sys-012".into()));
        assert_eq!(fixed.to_string(), "\"sys-012\"");
    }

    #[test]
    fn standings_rank_by_the_problems_yardstick_and_count_no_failed_test_in_a_minimised_mean() {
        use crate::rank::yardstick::RankBy;
        let mut s = crate::report::summary::minimised_with_failures(RankBy::Rank);
        s.set_rank("tools-min", "tle", 50.0);
        s.set_rank("tools-min", "steady", 62.5);
        let lines = end_lines(&s, "r", "/d", false);
        let parsed: Vec<Value> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(parsed.len(), 3, "{lines:?}");
        let (first, tle) = (&parsed[0], &parsed[1]);
        assert_eq!(
            (&first["player"], &first["place"]),
            (&json!("steady"), &json!(1))
        );
        assert_eq!(tle["player"], "tle");
        assert_eq!(
            (&tle["rank_by"], &tle["mark"], &tle["rank"]),
            (&json!("rank"), &json!(50.0), &json!(50.0))
        );
        assert_eq!((&tle["place"], &tle["left_out"]), (&json!(2), &json!(0)));
        // The mean, min and max of its two OK tests; its two TLEs stand beside them.
        assert_eq!(
            (&tle["mean"], &tle["min"]),
            (&json!(2335231.0), &json!(3651.0))
        );
        assert_eq!(tle["verdicts"]["TLE"], 2);
        assert_eq!(parsed[2]["type"], "run");
    }
}
