//! The files of a run under `results/<run-id>/`: `scores.csv` (a row per test, appended and
//! flushed as each test finishes, sorted once the run ends), `leaderboard.csv` (written to a
//! temporary file and renamed, so it is never half-written), `logs/` (each test's stderr
//! tail, when it wrote any), `transcripts/` (each test's messages, see [`crate::transcript`];
//! the tests the run's `--transcripts` keeps),
//! `report.html` (see [`super::html`]), `run.toml` (what was run) and the `results/latest` link.
//!
//! Cells that can hold a player's text (`reason`, `warning`) go through [`text_cell`], so a
//! spreadsheet never takes one for a formula.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::summary::Summary;
use crate::runner::TestResult;
use crate::verdict::Verdict;

/// Fixed columns of `scores.csv`, before the problems' parameters and the reason.
pub const SCORE_COLUMNS: [&str; 13] = [
    "problem",
    "player",
    "seed",
    "score",
    "verdict",
    "moves",
    "think_ms",
    "cpu_ms",
    "wall_ms",
    "max_memory_kb",
    "warning",
    "player_hash",
    "harness_version",
];

/// A cell of text that may come from a player, safe to open in a spreadsheet: one that would
/// start with `=`, `+`, `-`, `@`, a tab or a carriage return (a formula, or a cell some
/// spreadsheets run) gets a leading `'`, as spreadsheets themselves write text cells.
pub(crate) fn text_cell(text: &str) -> std::borrow::Cow<'_, str> {
    match text.bytes().next() {
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r') => format!("'{text}").into(),
        _ => text.into(),
    }
}

/// Where the transcript of one test is kept: one plain-text file per test, so a failing game
/// can be read with `less` and found by its seed.
pub fn transcript_path(run: &Path, problem: &str, player: &str, case: &str) -> PathBuf {
    run.join("transcripts")
        .join(problem)
        .join(player)
        .join(format!("{case}.txt"))
}

/// The writer of one run's files.
pub struct RunFiles {
    pub dir: PathBuf,
    pub id: String,
    scores: csv::Writer<File>,
    /// Parameter columns of every problem of the run (union, in order), with for each
    /// problem the index of each of its parameters among them.
    param_columns: Vec<String>,
    param_index: Vec<(String, Vec<usize>)>,
    /// Which tests' transcripts are written (`--transcripts`); all unless set.
    pub transcripts: crate::transcript::Keep,
}

/// `YYYYMMDD-HHMMSS` in UTC, from the system clock.
pub fn timestamp() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

fn io_err(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Writes a file atomically: to a temporary name beside it, then renamed over it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, bytes).map_err(|e| io_err(&tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| io_err(path, e))
}

/// A run's `scores.csv` opened for reading, its columns found by name. The one reader of the
/// file: resuming, comparing and replaying all read runs through it.
pub struct ScoresReader {
    pub path: PathBuf,
    pub header: csv::StringRecord,
    reader: csv::Reader<File>,
}

impl ScoresReader {
    /// Opens `<dir>/scores.csv`; errors name the file.
    pub fn open(dir: &Path) -> Result<ScoresReader, String> {
        let path = dir.join("scores.csv");
        let mut reader =
            csv::Reader::from_path(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let header = reader
            .headers()
            .map_err(|e| format!("{}: {e}", path.display()))?
            .clone();
        Ok(ScoresReader {
            path,
            header,
            reader,
        })
    }

    /// The position of a column.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The position of a column the caller cannot do without.
    pub fn need(&self, name: &str) -> Result<usize, String> {
        self.col(name)
            .ok_or_else(|| format!("{}: no {name:?} column", self.path.display()))
    }

    /// The rows, in file order; an unreadable row is an error naming the file.
    pub fn records(&mut self) -> impl Iterator<Item = Result<csv::StringRecord, String>> + '_ {
        let path = self.path.display().to_string();
        self.reader
            .records()
            .map(move |r| r.map_err(|e| format!("{path}: {e}")))
    }
}

/// A row of `scores.csv` from an earlier (interrupted) part of a run.
#[derive(Clone, Debug)]
pub struct PriorRow {
    pub problem: String,
    pub player: String,
    pub case: String,
    pub score: f64,
    pub verdict: Verdict,
    pub think_ms: u64,
    pub player_hash: String,
}

/// The `scores.csv` column of a problem's parameter: its name, or `<problem>.<name>` when the
/// name is that of a fixed column.
pub fn param_column(problem: &str, name: &str) -> String {
    if SCORE_COLUMNS.contains(&name) || name == "reason" {
        format!("{problem}.{name}")
    } else {
        name.to_string()
    }
}

/// The order of tests in a run's files: seeds by number, and fixed tests (names) by name.
pub fn seed_order(seed: &str) -> (Option<u64>, String) {
    (seed.parse().ok(), seed.to_string())
}

/// The columns of `scores.csv` for these problems: the fixed ones, the union of the
/// problems' parameters (a parameter named like a fixed column gets the problem's prefix),
/// and `reason`; with, for each problem, the index of each of its parameters among them.
fn layout(problems: &[(String, Vec<String>)]) -> (Vec<String>, Vec<(String, Vec<usize>)>) {
    let mut param_columns: Vec<String> = Vec::new();
    let mut param_index = Vec::new();
    for (problem, names) in problems {
        let idx = names
            .iter()
            .map(|name| {
                let col = param_column(problem, name);
                match param_columns.iter().position(|c| *c == col) {
                    Some(i) => i,
                    None => {
                        param_columns.push(col);
                        param_columns.len() - 1
                    }
                }
            })
            .collect();
        param_index.push((problem.clone(), idx));
    }
    (param_columns, param_index)
}

fn header(param_columns: &[String]) -> Vec<String> {
    SCORE_COLUMNS
        .iter()
        .map(|c| c.to_string())
        .chain(param_columns.iter().cloned())
        .chain(["reason".to_string()])
        .collect()
}

impl RunFiles {
    /// Reopens the folder of an earlier run to finish it: keeps the rows of `scores.csv` that
    /// `keep` accepts (rewriting the file without the others) and appends from there.
    pub fn reopen(
        dir: &Path,
        problems: &[(String, Vec<String>)],
        keep: impl Fn(&PriorRow) -> bool,
    ) -> io::Result<(RunFiles, Vec<PriorRow>)> {
        let mut scores = ScoresReader::open(dir).map_err(io::Error::other)?;
        let path = scores.path.clone();
        let (param_columns, param_index) = layout(problems);
        let expected = header(&param_columns);
        if scores.header.iter().ne(expected.iter().map(String::as_str)) {
            return Err(io::Error::other(format!(
                "{}: its columns are not those of this run's problems (was it made for other players?)",
                path.display()
            )));
        }
        let col = |name: &str| scores.need(name).map_err(io::Error::other);
        let (c_problem, c_player, c_seed, c_score, c_verdict, c_think, c_hash) = (
            col("problem")?,
            col("player")?,
            col("seed")?,
            col("score")?,
            col("verdict")?,
            col("think_ms")?,
            col("player_hash")?,
        );
        let mut kept_records = Vec::new();
        let mut kept = Vec::new();
        for record in scores.records() {
            let record = record.map_err(io::Error::other)?;
            let get = |i: usize| record.get(i).unwrap_or_default().to_string();
            let (Ok(score), Some(verdict)) =
                (get(c_score).parse(), Verdict::from_code(&get(c_verdict)))
            else {
                continue;
            };
            let row = PriorRow {
                problem: get(c_problem),
                player: get(c_player),
                case: get(c_seed),
                score,
                verdict,
                think_ms: get(c_think).parse().unwrap_or(0),
                player_hash: get(c_hash),
            };
            if keep(&row) {
                kept.push(row);
                kept_records.push(record);
            }
        }
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&expected)?;
        for r in &kept_records {
            w.write_record(r)?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| io::Error::other(e.to_string()))?;
        write_atomic(&path, &bytes)?;
        let file = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| io_err(&path, e))?;
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        Ok((
            RunFiles {
                dir: dir.to_path_buf(),
                id,
                scores: csv::Writer::from_writer(file),
                param_columns,
                param_index,
                transcripts: Default::default(),
            },
            kept,
        ))
    }

    /// Creates `results/<run-id>/` and the header of `scores.csv`. `problems` lists each
    /// problem with its parameter names.
    pub fn create(
        results: &Path,
        problems: &[(String, Vec<String>)],
        run_toml: &str,
    ) -> io::Result<RunFiles> {
        Self::create_named(results, "", problems, run_toml)
    }

    /// Like [`RunFiles::create`], with the run id starting with `prefix` (`play-`).
    pub fn create_named(
        results: &Path,
        prefix: &str,
        problems: &[(String, Vec<String>)],
        run_toml: &str,
    ) -> io::Result<RunFiles> {
        if results.exists() && !results.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{}: is a file, not a folder (runs are written into a folder: give \
                     --results a folder's path, or remove the file)",
                    results.display()
                ),
            ));
        }
        fs::create_dir_all(results).map_err(|e| io_err(results, e))?;
        let stamp = format!("{prefix}{}", timestamp());
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
        let (param_columns, param_index) = layout(problems);
        fs::write(dir.join("run.toml"), run_toml).map_err(|e| io_err(&dir, e))?;
        let path = dir.join("scores.csv");
        let file = File::create(&path).map_err(|e| io_err(&path, e))?;
        let mut scores = csv::Writer::from_writer(file);
        scores.write_record(header(&param_columns))?;
        scores.flush()?;
        Ok(RunFiles {
            dir,
            id,
            scores,
            param_columns,
            param_index,
            transcripts: Default::default(),
        })
    }

    /// Appends the row of a finished test (flushed at once) and keeps its stderr tail.
    pub fn on_result(&mut self, r: &TestResult) -> io::Result<()> {
        let mut params = vec![String::new(); self.param_columns.len()];
        if let Some((_, idx)) = self.param_index.iter().find(|(p, _)| p == r.problem) {
            for (value, &i) in r.params.iter().zip(idx) {
                params[i] = value.clone();
            }
        }
        let fixed = [
            r.problem.to_string(),
            r.player.clone(),
            r.case.to_string(),
            r.outcome.score.to_string(),
            r.outcome.verdict.code().to_string(),
            r.outcome.moves.to_string(),
            r.think.as_millis().to_string(),
            r.cpu.as_millis().to_string(),
            r.wall.as_millis().to_string(),
            r.max_memory_kb.to_string(),
            text_cell(&r.warning).into_owned(),
            r.player_hash.clone(),
            env!("CARGO_PKG_VERSION").to_string(),
        ];
        let reason = text_cell(&r.outcome.reason);
        let record: Vec<&str> = fixed
            .iter()
            .chain(params.iter())
            .map(String::as_str)
            .chain([reason.as_ref()])
            .collect();
        self.scores.write_record(&record)?;
        self.scores.flush()?;
        if !r.stderr.bytes.is_empty() {
            let dir = self.dir.join("logs").join(r.problem).join(&r.player);
            fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
            let path = dir.join(format!("{}.stderr", r.case));
            let mut f = File::create(&path).map_err(|e| io_err(&path, e))?;
            if r.stderr.dropped > 0 {
                writeln!(
                    f,
                    "[harness: the first {} bytes of stderr were dropped; the tail follows]",
                    r.stderr.dropped
                )?;
            }
            f.write_all(&r.stderr.bytes)?;
        }
        if !r.transcript.is_empty() && self.transcripts.keeps(r.outcome.verdict) {
            let path = transcript_path(&self.dir, r.problem, &r.player, &r.case.to_string());
            let dir = path.parent().expect("a transcript path has a folder");
            fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
            fs::write(&path, &r.transcript).map_err(|e| io_err(&path, e))?;
        }
        Ok(())
    }

    /// Writes `leaderboard.csv`, sorts `scores.csv` by (problem, player, seed), and points
    /// `results/latest` at this run.
    pub fn finish(&mut self, summary: &Summary, partial: bool) -> io::Result<()> {
        self.scores.flush()?;
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header = vec![
            "problem", "player", "tests", "sum", "mean", "relative", "min", "max",
        ];
        header.extend(Verdict::ALL.iter().map(|v| v.code()));
        header.extend(["think_ms", "partial"]);
        w.write_record(&header)?;
        for (problem, players) in &summary.problems {
            for (player, s) in players {
                let mut row = vec![
                    problem.clone(),
                    player.clone(),
                    s.tests.to_string(),
                    s.sum.to_string(),
                    s.mean().to_string(),
                    s.relative.map(|r| r.to_string()).unwrap_or_default(),
                    s.min.to_string(),
                    s.max.to_string(),
                ];
                row.extend(Verdict::ALL.iter().map(|&v| s.count(v).to_string()));
                row.push(s.think.as_millis().to_string());
                row.push(partial.to_string());
                w.write_record(&row)?;
            }
        }
        let bytes = w
            .into_inner()
            .map_err(|e| io::Error::other(e.to_string()))?;
        write_atomic(&self.dir.join("leaderboard.csv"), &bytes)?;
        self.sort_scores()?;
        self.link_latest()
    }

    fn sort_scores(&self) -> io::Result<()> {
        let path = self.dir.join("scores.csv");
        let mut reader = csv::Reader::from_path(&path)?;
        let header = reader.headers()?.clone();
        let mut rows: Vec<csv::StringRecord> = reader.records().collect::<Result<_, _>>()?;
        let seed_key = |r: &csv::StringRecord| seed_order(r.get(2).unwrap_or_default());
        rows.sort_by(|a, b| {
            (a.get(0), a.get(1))
                .cmp(&(b.get(0), b.get(1)))
                .then_with(|| seed_key(a).cmp(&seed_key(b)))
        });
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&header)?;
        for r in &rows {
            w.write_record(r)?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| io::Error::other(e.to_string()))?;
        write_atomic(&path, &bytes)
    }

    fn link_latest(&self) -> io::Result<()> {
        let Some(parent) = self.dir.parent() else {
            return Ok(());
        };
        let tmp = parent.join(".latest.tmp");
        let _ = fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&self.id, &tmp).map_err(|e| io_err(&tmp, e))?;
        fs::rename(&tmp, parent.join("latest")).map_err(|e| io_err(parent, e))
    }
}
