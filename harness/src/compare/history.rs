//! The history of runs, as a run sees it when it ends ([`History`], a reporter): the
//! relative and rank scores of its leaderboard against the best known score of each test,
//! `results/best.csv` updated with its tests, and the line comparing it with the previous
//! run of the same players (the baseline: [`baseline`]).
//!
//! Reads earlier runs' folders and best.csv; writes best.csv, the run's `compare.csv` (with
//! `--group-by`) and its `relative-to` line in run.toml. Never runs players.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use super::report::{self, Options};
use super::runs::{self, BestTable, Entry};
use super::{configured_rank_by, info, relative, stats, yardstick, Flags};
use crate::cli::CompareFlags;
use crate::config::Scoring;
use crate::error::Error;
use crate::report::{Event, Reporter, RunState, Summary};
use crate::rundir::ScoreRow;
use crate::secret::Secret;

/// The comparison side of a run: when it ends, reads its tests back from its `scores.csv`
/// (all of them, also those of an earlier part of a resumed run), sets the relative scores of
/// the leaderboard, updates `best.csv`, and says how the run compares with the previous run
/// of the same players.
///
/// A run with a secret key has other tests under the same seeds: it is compared only with
/// earlier runs made with the same key, and leaves `best.csv` (tests made without a key) alone.
/// A debugging run (`--verbose`) is outside the history: no comparison with earlier runs, and
/// `best.csv` left alone.
///
/// The yardstick of the run's relative scores is the best known score of each test: the best
/// of `best.csv` (every earlier run) and of this run, as pahcer has it, so a run's relative
/// score says how near it is to the best ever seen. `--vs-run` takes the best of this run's
/// players instead; a keyed run always does (`best.csv` holds other tests).
pub struct History {
    flags: Flags,
    /// The results folder (earlier runs, `best.csv`).
    results: PathBuf,
    scale: f64,
    /// Each problem's `rank-by`.
    configured: std::collections::BTreeMap<String, yardstick::RankBy>,
    /// The fingerprint of the run's secret key.
    secret: Option<String>,
    /// A debugging run ([`crate::rundir::Meta::debug`]).
    debug: bool,
}

impl History {
    pub fn new(
        flags: &CompareFlags,
        scoring: &Scoring,
        results: &Path,
        secret: Option<&Secret>,
        debug: bool,
        vs_run: bool,
    ) -> Result<History, Error> {
        if flags.vs_best && secret.is_some() {
            return Err(Error::Usage(
                "--vs-best with a secret key: best.csv holds the tests made without a key, \
                 not this run's"
                    .into(),
            ));
        }
        let mut parsed = Flags::parse(flags)?;
        parsed.vs_best = secret.is_none() && !vs_run;
        Ok(History {
            flags: parsed,
            results: results.to_path_buf(),
            scale: scoring.harness.relative_scale,
            configured: configured_rank_by(scoring),
            secret: secret.map(|s| s.fingerprint().to_string()),
            debug,
        })
    }

    pub fn flags(&self) -> &Flags {
        &self.flags
    }

    /// Once the run has ended (before the leaderboard is written): relative scores into
    /// `summary`, `best.csv` updated. Returns lines to print under the leaderboard: the
    /// comparison with the previous run and, with `--group-by`, the per-group table.
    fn finish(
        &mut self,
        run: &str,
        rows: &[ScoreRow],
        summary: &mut Summary,
    ) -> Result<Vec<String>, String> {
        let results = self.results.clone();
        let results = results.as_path();
        let entries = runs::entries(run, self.secret.clone(), rows);
        let best_path = results.join("best.csv");
        let mut best = BestTable::load(&best_path)?;
        let mut lines = Vec::new();
        let mut options = Options {
            groups: Some(Vec::new()),
            filters: Vec::new(),
            best: self.flags.vs_best.then_some(&best),
            scale: self.scale,
            rank_by: self.flags.rank_by,
            configured: self.configured.clone(),
        };
        for (problem, _) in &summary.problems {
            summary
                .rank_by
                .insert(problem.clone(), options.rank_by(problem));
        }
        let comparisons = report::compare(&entries, info, &options)?;
        for c in &comparisons {
            summary.rank_by.insert(c.problem.clone(), c.rank_by);
            for (label, t) in c.labels.iter().zip(&c.totals) {
                summary.set_relative(&c.problem, label, t.relative);
                summary.set_rank(&c.problem, label, t.rank);
            }
        }
        lines.push(yardstick(
            &best,
            &comparisons,
            self.flags.vs_best,
            &self.secret,
        ));
        // Groups apart, so a --group-by no test has costs only the group table.
        if let Some(groups) = self.flags.groups.clone().filter(|g| !g.is_empty()) {
            options.groups = Some(groups);
            match report::compare(&entries, info, &options) {
                Ok(mut grouped) => {
                    let csv = report::to_csv(&grouped).map_err(|e| e.to_string())?;
                    let path = results.join(run).join("compare.csv");
                    crate::rundir::write_atomic(&path, &csv).map_err(|e| e.to_string())?;
                    for c in &mut grouped {
                        c.pairs.clear();
                    }
                    lines.push(report::render(&grouped).trim_end().to_string());
                }
                Err(e) => lines.push(format!("warning: no groups: {e}")),
            }
        }
        if self.debug {
            return Ok(lines);
        }
        for c in &comparisons {
            if let Some(line) = versus_previous(results, run, c, self.scale, &self.secret)? {
                lines.push(line);
            }
        }
        if self.secret.is_some() {
            return Ok(lines);
        }
        best.update(&entries, |p| {
            let i = info(p);
            (i.objective, i.keeps_score_on_fault)
        });
        best.save(&best_path)
            .map_err(|e| format!("cannot write {}: {e}", best_path.display()))?;
        Ok(lines)
    }
}

impl Reporter for History {
    fn on_event(&mut self, event: &Event<'_>, state: &mut RunState) -> Result<(), String> {
        if let Event::RunFinished = event {
            match self.finish(&state.id, &state.rows, &mut state.summary) {
                Ok(lines) => {
                    // The yardstick goes into run.toml too, for report.html to say it.
                    let recorded = lines
                        .first()
                        .map(|line| crate::rundir::set_field(&state.dir, "relative-to", line));
                    if let Some(Err(e)) = recorded {
                        state.footer.push(format!("warning: run.toml: {e}"));
                    }
                    state.footer.extend(lines)
                }
                Err(e) => state.footer.push(format!("warning: no comparison: {e}")),
            }
        }
        Ok(())
    }
}

/// The line under the leaderboard that says what its relative scores are relative to.
fn yardstick(
    best: &BestTable,
    comparisons: &[report::Comparison],
    vs_best: bool,
    secret: &Option<String>,
) -> String {
    if !vs_best {
        let why = match secret {
            Some(_) => "a keyed run: results/best.csv holds other tests",
            None => "--vs-run",
        };
        return format!("relative: to the best score of each test in this run ({why})");
    }
    // The tests whose best known score came from an earlier run.
    let earlier = comparisons
        .iter()
        .flat_map(|c| c.common.iter().map(move |case| (c, case)))
        .filter(|(c, case)| {
            let i = info(&c.problem);
            best.get(&c.problem, case).is_some_and(|known| {
                // Not reached by any player of this run.
                !c.entries.iter().any(|e| {
                    let t = &e.tests[*case];
                    let ok = t.verdict == crate::verdict::Verdict::Ok;
                    relative::counted(t.score, ok, i.keeps_score_on_fault)
                        .is_some_and(|s| !relative::better(known, s, i.objective))
                })
            })
        })
        .count();
    let tests: usize = comparisons.iter().map(|c| c.common.len()).sum();
    format!(
        "relative: to the best known score of each test, of results/best.csv and this run \
         ({earlier} of {tests} from earlier runs; --vs-run: this run's best)"
    )
}

/// "vs <previous run> (<n> common tests): <player> +0.12% (95% CI ..., p = ...), ...": each
/// player of this run against itself in the earlier run that is the best baseline, or `None`
/// when no earlier run shares a test with it.
///
/// The baseline is an earlier run of the same problem and secret key (`secret`, a
/// fingerprint), not a debugging run, with players of this run: of those, the runs sharing
/// at least half as much evidence as the one that shares most (common players x tests common
/// to all of them in both runs), the newest. So a 200-seed run of the same players beats a
/// newer 1-seed one, and a run with a variant added is compared on the players in common.
fn versus_previous(
    results: &Path,
    run: &str,
    current: &report::Comparison,
    scale: f64,
    secret: &Option<String>,
) -> Result<Option<String>, String> {
    let Some((id, previous)) = baseline(results, run, &current.entries, secret) else {
        return Ok(None);
    };
    let mut names: Vec<&str> = previous.iter().map(|e| e.player.as_str()).collect();
    names.sort();
    let mine: Vec<Entry> = current
        .entries
        .iter()
        .filter(|e| names.contains(&e.player.as_str()))
        .cloned()
        .collect();
    let both: Vec<Entry> = previous.iter().chain(&mine).cloned().collect();
    let options = Options {
        groups: Some(Vec::new()),
        scale,
        ..Options::default()
    };
    let c = report::compare(&both, info, &options)?
        .into_iter()
        .next()
        .expect("one problem");
    let mut line = previous_line(&c, &names, run, &id);
    let mut new: Vec<&str> = current
        .entries
        .iter()
        .map(|e| e.player.as_str())
        .filter(|p| !names.contains(p))
        .collect();
    if !new.is_empty() {
        new.sort();
        let _ = write!(line, "; not in that run: {}", new.join(", "));
    }
    Ok(Some(line))
}

/// The earlier run to compare `current` (this run's entries of one problem) with, and its
/// entries of the players in common (see [`versus_previous`]).
fn baseline(
    results: &Path,
    run: &str,
    current: &[Entry],
    secret: &Option<String>,
) -> Option<(String, Vec<Entry>)> {
    let problem = &current.first()?.problem;
    // The entries of an earlier run's players in common with this run.
    let in_common = |id: &str| -> Option<Vec<Entry>> {
        let dir = results.join(id);
        let meta = crate::rundir::Meta::read(&dir);
        if meta.debug || meta.played || meta.secret != *secret {
            return None;
        }
        let entries = runs::load_run(&dir).ok()?;
        let previous: Vec<Entry> = entries
            .into_iter()
            .filter(|e| &e.problem == problem && current.iter().any(|c| c.player == e.player))
            .collect();
        Some(previous)
    };
    // (evidence, id): only the numbers are kept, a history can be large.
    let mut candidates: Vec<(usize, String)> = Vec::new();
    for id in runs::list(results)
        .into_iter()
        .filter(|id| id.as_str() < run)
    {
        let Some(previous) = in_common(&id) else {
            continue;
        };
        let evidence = previous.len() * tests_shared(&previous, current);
        if evidence > 0 {
            candidates.push((evidence, id));
        }
    }
    let most = candidates.iter().map(|c| c.0).max()?;
    // Ids are UTC timestamps: the last candidate with enough evidence is the newest.
    let (_, id) = candidates
        .into_iter()
        .rev()
        .find(|(evidence, _)| 2 * evidence >= most)?;
    let previous = in_common(&id)?;
    Some((id, previous))
}

/// The tests that every entry of `previous` and every entry of `current` of the same player
/// have: what the comparison of the two runs is made on.
fn tests_shared(previous: &[Entry], current: &[Entry]) -> usize {
    let Some(first) = previous.first() else {
        return 0;
    };
    let mine = |p: &Entry| current.iter().find(|c| c.player == p.player);
    first
        .tests
        .keys()
        .filter(|k| {
            previous.iter().all(|p| {
                p.tests.contains_key(*k) && mine(p).is_some_and(|c| c.tests.contains_key(*k))
            })
        })
        .count()
}

/// "<problem>: vs previous run <id> (<n> common tests): <player> +0.12% (95% CI ..., p =
/// ..., same build); ..." from a comparison `c` of the run `run` with the run `id`.
fn previous_line(c: &report::Comparison, names: &[&str], run: &str, id: &str) -> String {
    let tag = c
        .entries
        .iter()
        .find(|e| e.run == id)
        .and_then(|e| e.tag.as_deref())
        .map_or(String::new(), |t| format!(" {t:?}"));
    let mut line = format!(
        "{}: vs previous run {id}{tag} ({} common tests):",
        c.problem,
        c.common.len()
    );
    for name in names {
        let find = |r: &str| {
            c.entries
                .iter()
                .position(|e| e.player == *name && e.run == r)
                .expect("entry")
        };
        let (now, then) = (find(run), find(id));
        let diffs: Vec<f64> = c.rel[now]
            .iter()
            .zip(&c.rel[then])
            .map(|(a, b)| a - b)
            .collect();
        let d = stats::bootstrap_mean(&diffs, 1);
        let w = stats::wilcoxon(&diffs);
        let build = if c.entries[now].player_hash == c.entries[then].player_hash {
            "same build"
        } else {
            "new build"
        };
        let _ = write!(
            line,
            " {name} {:+.2}% (95% CI {:+.2}..{:+.2}, p = {}, {build});",
            d.mean * 100.0,
            d.low * 100.0,
            d.high * 100.0,
            report::p_value(w.p)
        );
    }
    line.pop();
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Verdict;

    /// Rows of chesspuzzle tests: each player on each seed, scoring `base` plus a little.
    fn rows(players: &[(&str, &str)], seeds: std::ops::RangeInclusive<u64>) -> Vec<ScoreRow> {
        let mut out = Vec::new();
        for (player, hash) in players {
            for s in seeds.clone() {
                let score = 0.5 + 0.001 * (s % 7) as f64;
                let mut row =
                    ScoreRow::new("chesspuzzle", player, &s.to_string(), score, Verdict::Ok);
                row.player_hash = hash.to_string();
                out.push(row);
            }
        }
        out
    }

    /// A run folder under `results` with these rows and `run_toml`.
    fn write_run(results: &Path, id: &str, rows: &[ScoreRow], run_toml: &str) {
        let dir = results.join(id);
        std::fs::create_dir_all(&dir).unwrap();
        let layout = crate::rundir::Layout::new(&[]);
        std::fs::write(dir.join("scores.csv"), layout.file(rows).unwrap()).unwrap();
        std::fs::write(dir.join("run.toml"), run_toml).unwrap();
    }

    /// The "vs previous run" line of run `id` made of `rows`.
    fn line(results: &Path, id: &str, rows: &[ScoreRow]) -> Option<String> {
        let entries = runs::entries(id, None, rows);
        let options = Options {
            groups: Some(Vec::new()),
            ..Options::default()
        };
        let c = report::compare(&entries, info, &options).unwrap();
        versus_previous(results, id, &c[0], 1.0, &None).unwrap()
    }

    #[test]
    fn the_baseline_is_the_run_sharing_most_tests_never_a_debugging_run() {
        let results = tempfile::tempdir().unwrap();
        let r = results.path();
        let both = [("a", "h1"), ("b", "h2")];
        write_run(r, "20260101-000000", &rows(&both, 1..=100), "");
        write_run(
            r,
            "20260102-000000",
            &rows(&both, 1..=200),
            "tag = \"wider beam\"\n",
        );
        // Newer: a --verbose run of an old build of a on one seed, and a plain 1-seed run.
        write_run(
            r,
            "20260103-000000",
            &rows(&[("a", "old")], 1..=1),
            "debug = true\n",
        );
        write_run(r, "20260103-000001", &rows(&[("a", "old")], 2..=2), "");
        write_run(r, "20260103-000002", &rows(&both, 1..=1), "debug = true\n");

        let alone = line(r, "20260104-000000", &rows(&[("a", "h1")], 1..=400)).unwrap();
        assert!(
            alone.starts_with(
                "chesspuzzle: vs previous run 20260102-000000 \"wider beam\" (200 common tests): a +0.00%"
            ),
            "{alone}"
        );
        assert!(alone.contains("same build"), "{alone}");
        // A variant added: compared on the players in common, the variant named.
        let three = [("a", "h1"), ("b", "h2"), ("a-deep", "h3")];
        let added = line(r, "20260104-000000", &rows(&three, 1..=400)).unwrap();
        assert!(
            added.starts_with("chesspuzzle: vs previous run 20260102-000000 \"wider beam\" (200 common tests): a "),
            "{added}"
        );
        assert!(added.contains("; b +0.00%"), "{added}");
        assert!(added.ends_with("; not in that run: a-deep"), "{added}");
        // Among runs with enough in common, the newest: 150 common tests are not less than
        // half of 200.
        write_run(r, "20260103-000003", &rows(&both, 51..=200), "");
        let newer = line(r, "20260104-000000", &rows(&both, 1..=400)).unwrap();
        assert!(
            newer.contains("vs previous run 20260103-000003 (150 common tests)"),
            "{newer}"
        );
        // No earlier run shares a test: no line.
        assert_eq!(line(r, "20260104-000000", &rows(&both, 500..=510)), None);
    }
}
