//! `harness runs`: one line per (run, problem) of the results folder, its players best first
//! by what the run ranked them by, and the marks of a run (tag, key, debugging, played).
//!
//! Reads run folders (scores.csv, run.toml, leaderboard.csv); writes nothing.

use std::fmt::Write;
use std::path::Path;

use super::runs::{self, Entry};
use super::{info, results_dir, yardstick};
use crate::cli::RunsArgs;
use crate::error::Error;

/// `harness runs`.
pub(crate) fn runs_main(args: &RunsArgs) -> Result<u8, Error> {
    let (results, _) = results_dir(&args.results, &args.common)?;
    let ids = runs::list(&results);
    if ids.is_empty() {
        println!("no runs in {}", results.display());
        return Ok(crate::exit::OK);
    }
    print!("{}", list_runs(&results, &ids));
    Ok(crate::exit::OK)
}

/// One line per (run, problem): id, date, tests, and its players best first by what the run
/// ranked them by (its `rank-by`; the raw mean without a relative or rank score), each with
/// its value, the tests left out of it (a minimised problem's failures) and its hash.
fn list_runs(results: &Path, ids: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<19}  {:<19}  {:<16}  {:>5}  ranked by: players (value, hash)",
        "run", "date (UTC)", "problem", "tests"
    );
    for id in ids {
        let dir = results.join(id);
        let entries = match runs::load_run(&dir) {
            Ok(e) => e,
            Err(e) => {
                let _ = writeln!(out, "{id:<19}  unreadable: {e}");
                continue;
            }
        };
        let date = date_of(id);
        let meta = crate::rundir::Meta::read(&dir);
        let recorded = crate::rundir::recorded(&dir);
        let mut problems: Vec<&str> = Vec::new();
        for e in &entries {
            if !problems.contains(&e.problem.as_str()) {
                problems.push(&e.problem);
            }
        }
        for p in problems {
            let mine: Vec<&Entry> = entries.iter().filter(|e| e.problem == p).collect();
            let tests = mine.iter().map(|e| e.tests.len()).max().unwrap_or(0);
            let players = standings_line(&mine, meta.rank_by(p), &recorded);
            let _ = writeln!(out, "{id:<19}  {date:<19}  {p:<16}  {tests:>5}  {players}");
        }
        let marks = meta.marks();
        if !marks.is_empty() {
            let _ = writeln!(out, "{:<19}  {}", "", marks.join("; "));
        }
    }
    out
}

/// `relative: alpha 812345.1234 (aaaa), beta 2 left out 700000.0000 (bbbb)`: the entries of
/// one problem of a run, best first by `wanted` as its leaderboard ranked them, their relative
/// and rank scores from the run's leaderboard.csv (`recorded`).
fn standings_line(
    mine: &[&Entry],
    wanted: yardstick::RankBy,
    recorded: &crate::rundir::Recorded,
) -> String {
    let Some(problem) = mine.first().map(|e| e.problem.clone()) else {
        return String::new();
    };
    let players: Vec<(String, crate::report::summary::Standing)> = mine
        .iter()
        .map(|e| {
            let mut s = crate::report::summary::Standing::default();
            for t in e.tests.values() {
                let think = t
                    .columns
                    .get("think_ms")
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                s.add(t.score, t.verdict, std::time::Duration::from_millis(think));
            }
            let key = (problem.clone(), e.player.clone());
            (s.relative, s.rank) = recorded.get(&key).copied().unwrap_or_default();
            (e.player.clone(), s)
        })
        .collect();
    let objective = info(&problem).objective;
    let integral = !players.iter().any(|(_, s)| s.fractional);
    let by = crate::report::summary::rank_by(wanted, &players);
    let shown: Vec<String> = crate::report::summary::ranked(&players, by, objective)
        .into_iter()
        .map(|(_, (name, s))| {
            let mark = s.mark(by, objective);
            let value = value_cell(mark.value, by, integral);
            let left = match mark.left_out {
                0 => String::new(),
                n => format!(", {n} left out"),
            };
            let hash = mine
                .iter()
                .find(|e| &e.player == name)
                .map_or("", |e| &e.player_hash);
            format!("{name} {value}{left} ({hash})")
        })
        .collect();
    format!("{}: {}", by.name(), shown.join(", "))
}

/// A player's value by `by` as the leaderboard shows it: a mean raw score as
/// [`crate::report::number::mean`] has it (two decimals when every score of the problem is
/// whole, `integral`, else four), a relative, rank or log score with four decimals; `-`
/// without one.
fn value_cell(value: Option<f64>, by: yardstick::RankBy, integral: bool) -> String {
    match value {
        None => "-".to_string(),
        Some(v) if by == yardstick::RankBy::Raw => crate::report::number::mean(v, integral, 4),
        Some(v) => format!("{v:.4}"),
    }
}

/// `20261121-225622` -> `2026-11-21 22:56:22`.
fn date_of(id: &str) -> String {
    let b = id.as_bytes();
    if b.len() >= 15 && b[8] == b'-' && b[..8].iter().chain(&b[9..15]).all(u8::is_ascii_digit) {
        format!(
            "{}-{}-{} {}:{}:{}",
            &id[0..4],
            &id[4..6],
            &id[6..8],
            &id[9..11],
            &id[11..13],
            &id[13..15]
        )
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yardstick::RankBy;

    #[test]
    fn a_mean_of_whole_scores_shows_two_decimals_as_the_leaderboard_does() {
        assert_eq!(value_cell(Some(12.0), RankBy::Raw, true), "12.00");
        assert_eq!(value_cell(Some(0.5), RankBy::Raw, true), "0.50");
        assert_eq!(value_cell(Some(-3.0), RankBy::Raw, true), "-3.00");
        assert_eq!(value_cell(Some(0.565), RankBy::Raw, false), "0.5650");
        assert_eq!(value_cell(Some(-2.5), RankBy::Raw, false), "-2.5000");
        assert_eq!(value_cell(None, RankBy::Raw, true), "-");
        // Not a mean of the scores: four decimals whatever the scores are.
        assert_eq!(value_cell(Some(62.5), RankBy::Rank, true), "62.5000");
        assert_eq!(value_cell(Some(95.0), RankBy::Relative, true), "95.0000");
        assert_eq!(value_cell(Some(3.5), RankBy::Log, true), "3.5000");
    }
}
