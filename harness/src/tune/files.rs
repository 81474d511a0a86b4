//! The folder of a tuning, `results/tune-<id>/`, written as results come (a crash or Ctrl-C
//! loses nothing finished) and read back by `--resume`:
//!
//! - `tune.toml`: what was asked (player, seeds, trials, limits, sampler), the player's hash
//!   and its declared parameters;
//! - `trial-scores.csv`: one row per (trial, seed) played, with the trial's values (appended
//!   and flushed per test);
//! - `trials.csv`: one row per trial (state, seeds played, mean, values), rewritten whole
//!   (through a temporary file and a rename) when a trial begins or ends;
//! - `best.toml`: the best trial's values (as `PARAM_*` variables too) and the validation;
//! - `validation.csv`: the held-out seeds' rows of the defaults and of the best;
//! - `tune.html`: the page ([`super::page`]).
//!
//! The CSV files are not named `scores.csv`: a tuning is not a run for `harness runs` and
//! `compare`. Touches only its own folder.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use super::params::{Param, Value};
use super::search::{SeedScore, Sink, State, Trial};
use super::yardstick::Yardstick;
use crate::fs_msg::other_err as io_err;
use crate::rundir::text_cell;
use crate::verdict::Verdict;

pub(crate) const TRIAL_SCORES: &str = "trial-scores.csv";
pub(crate) const TRIALS: &str = "trials.csv";
pub(crate) const VALIDATION: &str = "validation.csv";

/// An open tuning folder.
pub(crate) struct TuneFiles {
    pub dir: PathBuf,
    pub id: String,
    params: Vec<Param>,
    scores: csv::Writer<File>,
    validation: csv::Writer<File>,
    /// The first write that failed (the tuning stops at once; reported at the end).
    pub error: Option<io::Error>,
    /// Lines for the screen (pruned trials, finished ones), printed by the caller.
    pub on_line: Box<dyn FnMut(&str) + Send>,
    /// Trials reported as finished on the screen so far.
    reported: Vec<bool>,
    /// What trials are judged by.
    pub yardstick: Yardstick,
}

/// Opens an append-only CSV file, writing its header when it is new.
fn appender(path: &Path, header: &[String]) -> io::Result<csv::Writer<File>> {
    let new = !path.exists();
    let file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| io_err(path, e))?;
    let mut writer = csv::Writer::from_writer(file);
    if new {
        writer.write_record(header)?;
        writer.flush()?;
    }
    Ok(writer)
}

fn cell(param: &Param, value: Value) -> String {
    text_cell(&param.show(value)).into_owned()
}

fn read_cell(param: &Param, text: &str) -> Option<Value> {
    param
        .parse(text)
        .or_else(|| text.strip_prefix('\'').and_then(|t| param.parse(t)))
}

impl TuneFiles {
    /// A new folder `tune-<timestamp>` under `results` with its `tune.toml`.
    pub fn create(
        results: &Path,
        tune_toml: &str,
        params: &[Param],
        yardstick: Yardstick,
    ) -> io::Result<TuneFiles> {
        fs::create_dir_all(results).map_err(|e| io_err(results, e))?;
        let stamp = format!("tune-{}", crate::report::files::timestamp());
        let (mut id, mut n) = (stamp.clone(), 1);
        let dir = loop {
            let dir = results.join(&id);
            match fs::create_dir(&dir) {
                Ok(()) => break dir,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    n += 1;
                    id = format!("{stamp}-{n}");
                }
                Err(e) => return Err(io_err(&dir, e)),
            }
        };
        fs::write(dir.join("tune.toml"), tune_toml).map_err(|e| io_err(&dir, e))?;
        Self::open(dir, id, params, yardstick)
    }

    fn open(
        dir: PathBuf,
        id: String,
        params: &[Param],
        yardstick: Yardstick,
    ) -> io::Result<TuneFiles> {
        let names = params.iter().map(|p| p.name.clone());
        let mut header: Vec<String> = ["trial", "seed", "verdict", "score", "think_ms"]
            .map(String::from)
            .to_vec();
        header.extend(names.clone());
        let scores = appender(&dir.join(TRIAL_SCORES), &header)?;
        let mut header: Vec<String> = ["arm", "seed", "verdict", "score", "think_ms"]
            .map(String::from)
            .to_vec();
        header.extend(names);
        let validation = appender(&dir.join(VALIDATION), &header)?;
        Ok(TuneFiles {
            dir,
            id,
            params: params.to_vec(),
            scores,
            validation,
            error: None,
            on_line: Box::new(|_| {}),
            reported: Vec::new(),
            yardstick,
        })
    }

    /// An existing tuning folder, with its trials (`seeds` in the order they are played).
    /// Rows that ended `ERR` are dropped, and their trials are unfinished again.
    pub(crate) fn reopen(
        dir: &Path,
        params: &[Param],
        seeds: &[u64],
        yardstick: Yardstick,
    ) -> Result<(TuneFiles, Vec<Trial>, Vec<ValidationRow>), String> {
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let trials = read_trials(dir, params, seeds)?;
        let validation = read_validation(dir, params)?;
        let mut files =
            Self::open(dir.to_path_buf(), id, params, yardstick).map_err(|e| e.to_string())?;
        files.reported = trials.iter().map(|t| t.state != State::Running).collect();
        Ok((files, trials, validation))
    }

    fn keep(&mut self, result: io::Result<()>) {
        if let Err(e) = result {
            if self.error.is_none() {
                self.error = Some(e);
                crate::os::request_interrupt();
            }
        }
    }

    /// Rewrites `trials.csv` (through a temporary file and a rename).
    pub(crate) fn write_trials(&self, trials: &[Trial]) -> io::Result<()> {
        let path = self.dir.join(TRIALS);
        let tmp = self.dir.join(format!("{TRIALS}.tmp"));
        let mut w = csv::Writer::from_path(&tmp).map_err(|e| io_err(&tmp, e))?;
        let mut header: Vec<String> = ["trial", "state", "seeds", "failures", "mean"]
            .map(String::from)
            .to_vec();
        header.extend(self.params.iter().map(|p| p.name.clone()));
        w.write_record(&header)?;
        for t in trials {
            let mut row = vec![
                t.id.to_string(),
                t.state.word().to_string(),
                t.scores.iter().flatten().count().to_string(),
                t.failures().to_string(),
                t.mean().map(|m| format!("{m:.6}")).unwrap_or_default(),
            ];
            row.extend(self.params.iter().zip(&t.values).map(|(p, v)| cell(p, *v)));
            w.write_record(&row)?;
        }
        w.flush()?;
        drop(w);
        fs::rename(&tmp, &path).map_err(|e| io_err(&path, e))
    }

    /// Appends a validation row (flushed at once).
    pub(crate) fn on_validation(&mut self, row: &ValidationRow) {
        let mut record = vec![
            row.arm.clone(),
            row.seed.to_string(),
            row.score.verdict.code().to_string(),
            row.score.score.to_string(),
            row.score.think_ms.to_string(),
        ];
        record.extend(
            self.params
                .iter()
                .zip(&row.values)
                .map(|(p, v)| cell(p, *v)),
        );
        let result = self
            .validation
            .write_record(&record)
            .and_then(|()| self.validation.flush().map_err(csv::Error::from))
            .map_err(io::Error::other);
        self.keep(result);
    }
}

impl Sink for TuneFiles {
    fn on_score(&mut self, trial: &Trial, seed: u64, score: &SeedScore) {
        let mut record = vec![
            trial.id.to_string(),
            seed.to_string(),
            score.verdict.code().to_string(),
            score.score.to_string(),
            score.think_ms.to_string(),
        ];
        record.extend(
            self.params
                .iter()
                .zip(&trial.values)
                .map(|(p, v)| cell(p, *v)),
        );
        let result = self
            .scores
            .write_record(&record)
            .and_then(|()| self.scores.flush().map_err(csv::Error::from))
            .map_err(io::Error::other);
        self.keep(result);
    }

    fn on_trials(&mut self, trials: &[Trial], note: Option<String>) {
        let result = self.write_trials(trials);
        self.keep(result);
        if let Some(note) = note {
            (self.on_line)(&note);
        }
        self.reported.resize(trials.len(), false);
        let best = super::search::best(trials, self.yardstick);
        for t in trials {
            if t.state == State::Complete && !self.reported[t.id] {
                self.reported[t.id] = true;
                let values: Vec<String> = self
                    .params
                    .iter()
                    .zip(&t.values)
                    .map(|(p, v)| format!("{}={}", p.name, p.show(*v)))
                    .collect();
                let mark = if best == Some(t.id) {
                    "  (best so far)"
                } else {
                    ""
                };
                let failures = match t.failures() {
                    0 => String::new(),
                    n => format!(", {n} tests not OK"),
                };
                (self.on_line)(&format!(
                    "trial {:>3} complete: mean {:.3}{failures}{mark}  {}",
                    t.id,
                    t.mean().unwrap_or(0.0),
                    values.join(" ")
                ));
            } else if t.state != State::Running {
                self.reported[t.id] = true;
            }
        }
    }
}

/// One held-out test of validation: the `default` or the `best` values on a seed.
#[derive(Clone, Debug)]
pub(crate) struct ValidationRow {
    pub arm: String,
    pub seed: u64,
    pub values: Vec<Value>,
    pub score: SeedScore,
}

fn reader(path: &Path) -> Result<csv::Reader<File>, String> {
    csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// `trials.csv` and `trial-scores.csv` of a tuning folder, as trials.
fn read_trials(dir: &Path, params: &[Param], seeds: &[u64]) -> Result<Vec<Trial>, String> {
    let path = dir.join(TRIALS);
    let mut trials: Vec<Trial> = Vec::new();
    if path.exists() {
        let mut r = reader(&path)?;
        for (line, record) in r.records().enumerate() {
            let bad = |what: &str| format!("{} row {}: {what}", path.display(), line + 2);
            let record = record.map_err(|e| bad(&e.to_string()))?;
            let id: usize = record[0].parse().map_err(|_| bad("bad trial number"))?;
            if id != trials.len() {
                return Err(bad("trials are not numbered 0, 1, 2, ..."));
            }
            let state = State::parse(&record[1]).ok_or_else(|| bad("bad state"))?;
            let values = values_at(&record, 5, params).ok_or_else(|| {
                bad("the values do not fit the declared parameters (did player.toml change?)")
            })?;
            trials.push(Trial {
                id,
                values,
                scores: vec![None; seeds.len()],
                state,
            });
        }
    }
    let path = dir.join(TRIAL_SCORES);
    if path.exists() {
        let mut r = reader(&path)?;
        for (line, record) in r.records().enumerate() {
            let bad = |what: &str| format!("{} row {}: {what}", path.display(), line + 2);
            let record = record.map_err(|e| bad(&e.to_string()))?;
            let id: usize = record[0].parse().map_err(|_| bad("bad trial number"))?;
            let seed: u64 = record[1].parse().map_err(|_| bad("bad seed"))?;
            let verdict = Verdict::from_code(&record[2]).ok_or_else(|| bad("bad verdict"))?;
            let score: f64 = record[3].parse().map_err(|_| bad("bad score"))?;
            let think_ms: u64 = record[4].parse().map_err(|_| bad("bad think_ms"))?;
            let trial = trials
                .get_mut(id)
                .ok_or_else(|| bad("a trial missing from trials.csv"))?;
            let at = seeds
                .iter()
                .position(|&s| s == seed)
                .ok_or_else(|| bad("a seed that is not a tuning seed"))?;
            if verdict == Verdict::HarnessError {
                // The harness's fault, never the player's: played again.
                if trial.state == State::Error {
                    trial.state = State::Running;
                }
                continue;
            }
            trial.scores[at] = Some(SeedScore {
                verdict,
                score,
                think_ms,
            });
        }
    }
    for trial in &mut trials {
        if trial.state == State::Error {
            trial.state = State::Running;
        }
    }
    Ok(trials)
}

/// The values of a row from column `from` on.
fn values_at(record: &csv::StringRecord, from: usize, params: &[Param]) -> Option<Vec<Value>> {
    if record.len() != from + params.len() {
        return None;
    }
    params
        .iter()
        .enumerate()
        .map(|(i, p)| read_cell(p, &record[from + i]))
        .collect()
}

/// The validation rows kept so far (`ERR` rows dropped: played again).
fn read_validation(dir: &Path, params: &[Param]) -> Result<Vec<ValidationRow>, String> {
    let path = dir.join(VALIDATION);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let mut rows = Vec::new();
    let mut r = reader(&path)?;
    for (line, record) in r.records().enumerate() {
        let bad = |what: &str| format!("{} row {}: {what}", path.display(), line + 2);
        let record = record.map_err(|e| bad(&e.to_string()))?;
        let verdict = Verdict::from_code(&record[2]).ok_or_else(|| bad("bad verdict"))?;
        if verdict == Verdict::HarnessError {
            continue;
        }
        rows.push(ValidationRow {
            arm: record[0].to_string(),
            seed: record[1].parse().map_err(|_| bad("bad seed"))?,
            values: values_at(&record, 5, params).ok_or_else(|| bad("bad values"))?,
            score: SeedScore {
                verdict,
                score: record[3].parse().map_err(|_| bad("bad score"))?,
                think_ms: record[4].parse().map_err(|_| bad("bad think_ms"))?,
            },
        });
    }
    Ok(rows)
}
