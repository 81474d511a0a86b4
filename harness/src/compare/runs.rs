//! The history of runs as the comparison reads it back: `results/<id>/scores.csv` is the
//! source of truth (one row per test, with the player's hash and the harness version),
//! `run.toml` adds what is not in it. Also `results/best.csv`, the best known score per
//! (problem, test), replaced atomically after each run.
//!
//! Reads and writes only under the results folder; a missing or malformed file is named in
//! the error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::group::Columns;
use super::relative;
use crate::problem::{CaseKey, Objective};
use crate::rundir::{self, BadRows, ScoreRow};
use crate::verdict::Verdict;

/// One test of one player.
#[derive(Clone, Debug, PartialEq)]
pub struct Test {
    pub score: f64,
    pub verdict: Verdict,
    /// Every other column of its `scores.csv` row (parameters, `moves`, times).
    pub columns: Columns,
}

/// One player of one run on one problem: what a comparison compares.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub problem: String,
    pub player: String,
    pub run: String,
    pub player_hash: String,
    pub harness_version: String,
    /// The fingerprint of the secret key the run's tests were made with (`run.toml`).
    pub secret: Option<String>,
    /// The run's tag (`--tag`), from its `run.toml`.
    pub tag: Option<String>,
    pub tests: BTreeMap<CaseKey, Test>,
}

impl Entry {
    pub fn mean(&self) -> f64 {
        if self.tests.is_empty() {
            return 0.0;
        }
        self.tests.values().map(|t| t.score).sum::<f64>() / self.tests.len() as f64
    }
}

/// Reads the entries of one run folder (one per problem and player, in file order).
pub(crate) fn load_run(dir: &Path) -> Result<Vec<Entry>, String> {
    let scores = rundir::read(dir, BadRows::Fail)?;
    let id = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().to_string(),
    );
    let meta = rundir::Meta::read(dir);
    let mut entries = entries(&id, meta.secret, &scores.rows);
    for e in &mut entries {
        e.tag.clone_from(&meta.tag);
    }
    Ok(entries)
}

/// The entries of a run's rows (one per problem and player, in row order); `secret` is the
/// fingerprint of the run's key.
pub fn entries(run: &str, secret: Option<String>, rows: &[ScoreRow]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for row in rows {
        let at = match entries
            .iter()
            .position(|e| e.problem == row.problem && e.player == row.player)
        {
            Some(i) => i,
            None => {
                entries.push(Entry {
                    problem: row.problem.clone(),
                    player: row.player.clone(),
                    run: run.to_string(),
                    player_hash: row.player_hash.clone(),
                    harness_version: row.harness_version.clone(),
                    secret: secret.clone(),
                    tag: None,
                    tests: BTreeMap::new(),
                });
                entries.len() - 1
            }
        };
        entries[at].tests.insert(
            CaseKey::parse(&row.seed),
            Test {
                score: row.score,
                verdict: row.verdict,
                columns: row.columns(),
            },
        );
    }
    entries
}

/// The ids of the runs under `results`, oldest first (ids are UTC timestamps, so their
/// order is the order of the runs). Folders without `scores.csv` are not runs.
pub fn list(results: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(results)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("scores.csv").is_file())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    ids.sort();
    ids
}

/// The folder of a run named on the command line: an id under `results`, `latest`, or a
/// path to a run folder.
pub fn find(results: &Path, name: &str) -> Option<PathBuf> {
    let under = results.join(name);
    if under.join("scores.csv").is_file() {
        // `latest` is a link; the id is the folder it points at.
        return Some(std::fs::canonicalize(&under).unwrap_or(under));
    }
    let path = Path::new(name);
    path.join("scores.csv")
        .is_file()
        .then(|| path.to_path_buf())
}

/// One row of `best.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Best {
    pub score: f64,
    pub player: String,
    pub run: String,
    pub player_hash: String,
}

/// `results/best.csv`: the best known score per (problem, test).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BestTable {
    pub best: BTreeMap<(String, CaseKey), Best>,
}

const BEST_HEADER: [&str; 6] = ["problem", "seed", "score", "player", "run", "player_hash"];

impl BestTable {
    /// Reads `best.csv`; a missing file is an empty table.
    pub fn load(path: &Path) -> Result<BestTable, String> {
        if !path.exists() {
            return Ok(BestTable::default());
        }
        let err = |e: csv::Error| format!("{}: {e}", path.display());
        let mut reader = csv::Reader::from_path(path).map_err(err)?;
        let mut table = BestTable::default();
        for record in reader.records() {
            let r = record.map_err(err)?;
            let f = |i: usize| r.get(i).unwrap_or_default().to_string();
            let score = f(2)
                .parse::<f64>()
                .map_err(|_| format!("{}: score {:?} is not a number", path.display(), f(2)))?;
            table.best.insert(
                (f(0), CaseKey::parse(&f(1))),
                Best {
                    score,
                    player: f(3),
                    run: f(4),
                    player_hash: f(5),
                },
            );
        }
        Ok(table)
    }

    pub fn get(&self, problem: &str, case: &CaseKey) -> Option<f64> {
        self.best
            .get(&(problem.to_string(), case.clone()))
            .map(|b| b.score)
    }

    /// Takes in every counted score of `entries` that beats the known best. Returns how many
    /// tests got a new best.
    pub fn update(
        &mut self,
        entries: &[Entry],
        objective: impl Fn(&str) -> (Objective, bool),
    ) -> usize {
        let mut improved = 0;
        for e in entries {
            let (objective, keeps) = objective(&e.problem);
            for (case, t) in &e.tests {
                let Some(score) = relative::counted(t.score, t.verdict == Verdict::Ok, keeps)
                else {
                    continue;
                };
                let key = (e.problem.clone(), case.clone());
                let wins = match self.best.get(&key) {
                    None => true,
                    Some(b) => relative::better(score, b.score, objective),
                };
                if wins {
                    improved += 1;
                    self.best.insert(
                        key,
                        Best {
                            score,
                            player: e.player.clone(),
                            run: e.run.clone(),
                            player_hash: e.player_hash.clone(),
                        },
                    );
                }
            }
        }
        improved
    }

    /// Writes the table atomically (a temporary file renamed over the old one), sorted by
    /// problem and test.
    pub(crate) fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(BEST_HEADER)?;
        for ((problem, case), b) in &self.best {
            w.write_record([
                problem.as_str(),
                &case.to_string(),
                &b.score.to_string(),
                &b.player,
                &b.run,
                &b.player_hash,
            ])?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        crate::rundir::write_atomic(path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(player: &str, run: &str, scores: &[(u64, f64, Verdict)]) -> Entry {
        Entry {
            problem: "chesspuzzle".into(),
            player: player.into(),
            run: run.into(),
            player_hash: format!("h-{player}"),
            harness_version: "0.1.0".into(),
            secret: None,
            tag: None,
            tests: scores
                .iter()
                .map(|&(s, score, verdict)| {
                    (
                        CaseKey::Seed(s),
                        Test {
                            score,
                            verdict,
                            columns: Columns::new(),
                        },
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn best_table_keeps_the_best_and_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("best.csv");
        let mut table = BestTable::load(&path).unwrap();
        let max = |_: &str| (Objective::Maximize, false);
        let a = entry(
            "a",
            "r1",
            &[(1, 5.0, Verdict::Ok), (2, 9.0, Verdict::TimeLimit)],
        );
        assert_eq!(table.update(&[a], max), 1);
        let b = entry("b", "r2", &[(1, 5.0, Verdict::Ok), (2, 3.0, Verdict::Ok)]);
        // A tie does not replace the holder; a first counted score does.
        assert_eq!(table.update(&[b], max), 1);
        table.save(&path).unwrap();
        let back = BestTable::load(&path).unwrap();
        assert_eq!(back, table);
        let one = &back.best[&("chesspuzzle".to_string(), CaseKey::Seed(1))];
        assert_eq!((one.player.as_str(), one.run.as_str()), ("a", "r1"));
        assert_eq!(back.get("chesspuzzle", &CaseKey::Seed(2)), Some(3.0));
        assert!(!dir.path().join("best.tmp").exists());
    }

    #[test]
    fn best_table_never_takes_a_score_from_a_test_that_was_not_ok() {
        let dir = tempfile::tempdir().unwrap();
        let mut table = BestTable::load(&dir.path().join("best.csv")).unwrap();
        let max = |_: &str| (Objective::Maximize, false);
        // A forged score on a test that was not OK (WA, ERR, TLE): never the best.
        let forged = entry(
            "forger",
            "r1",
            &[
                (1, 999999999.0, Verdict::WrongAnswer),
                (2, 999999999.0, Verdict::HarnessError),
                (3, 999999999.0, Verdict::TimeLimit),
            ],
        );
        assert_eq!(table.update(&[forged], max), 0);
        assert_eq!(table.get("chesspuzzle", &CaseKey::Seed(1)), None);
        let honest = entry("honest", "r2", &[(1, 5.0, Verdict::Ok)]);
        assert_eq!(table.update(&[honest], max), 1);
        assert_eq!(table.get("chesspuzzle", &CaseKey::Seed(1)), Some(5.0));
        // A perfect 0 of a minimised problem is a best score like any other.
        let min = |_: &str| (Objective::Minimize, false);
        let perfect = entry("perfect", "r3", &[(1, 0.0, Verdict::Ok)]);
        assert_eq!(table.update(&[perfect], min), 1);
        assert_eq!(table.get("chesspuzzle", &CaseKey::Seed(1)), Some(0.0));
    }
}
