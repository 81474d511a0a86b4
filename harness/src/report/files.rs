//! The files of a run under `results/<run-id>/`: `scores.csv` (a row per test, appended and
//! flushed as each test finishes, rewritten sorted from memory once the run ends),
//! `leaderboard.csv` (written to a temporary file and renamed, so it is never half-written),
//! `logs/` (each test's stderr tail, when it wrote any), `transcripts/` (each test's
//! messages, see [`crate::transcript`]; the tests the run's `--transcripts` keeps),
//! `run.toml` (what was run) and the `results/latest` link. The layout of the folder and the row type are [`crate::rundir`]'s.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Event, Reporter, RunState};
use crate::fs_msg::io_err;
use crate::rundir::{self, write_atomic, BadRows, Layout, ScoreRow};
use crate::runner::TestResult;
use crate::verdict::Verdict;

/// The writer of one run's files: a [`Reporter`].
pub struct RunFiles {
    pub dir: PathBuf,
    pub id: String,
    layout: Layout,
    scores: csv::Writer<File>,
    /// Whether `finish` points `results/latest` at this run (not for a shard: `crate::shard`).
    pub links_latest: bool,
    /// Which tests' transcripts are written (`--transcripts`); all unless set.
    pub transcripts: crate::transcript::Keep,
}

/// `YYYYMMDD-HHMMSS` in UTC, from the system clock.
pub(crate) fn timestamp() -> String {
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

/// A run resumed from its folder: the files, and the rows kept from its earlier part.
pub(crate) struct Reopened {
    pub files: RunFiles,
    pub kept: Vec<ScoreRow>,
    /// Lines of `scores.csv` that could not be read (their tests run again).
    pub unreadable: Vec<u64>,
}

impl RunFiles {
    /// Reopens the folder of an earlier run to finish it: keeps the rows of `scores.csv` that
    /// `keep` accepts (rewriting the file without the others) and appends from there.
    pub(crate) fn reopen(
        dir: &Path,
        layout: Layout,
        keep: impl Fn(&ScoreRow) -> bool,
    ) -> io::Result<Reopened> {
        let scores = rundir::read(dir, BadRows::Skip).map_err(io::Error::other)?;
        if scores.param_columns != layout.param_columns {
            return Err(io::Error::other(format!(
                "{}: its columns are not those of this run's problems (was it made for other players?)",
                scores.path.display()
            )));
        }
        let kept: Vec<ScoreRow> = scores.rows.into_iter().filter(|r| keep(r)).collect();
        write_atomic(&scores.path, &layout.file(&kept)?)?;
        let file = fs::OpenOptions::new()
            .append(true)
            .open(&scores.path)
            .map_err(|e| io_err(&scores.path, e))?;
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let files = RunFiles {
            dir: dir.to_path_buf(),
            id,
            layout,
            scores: csv::Writer::from_writer(file),
            links_latest: true,
            transcripts: Default::default(),
        };
        Ok(Reopened {
            files,
            kept,
            unreadable: scores.skipped,
        })
    }

    /// Creates `results/<prefix><timestamp>/` with its `run.toml` and the header of
    /// `scores.csv`.
    pub fn create(
        results: &Path,
        prefix: &str,
        layout: Layout,
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
        Self::start(dir, id, layout, run_toml)
    }

    /// Creates the run in this folder (made if missing; `crate::shard` and `crate::merge`
    /// name it), unless it already holds a run.
    pub(crate) fn create_in(dir: &Path, layout: Layout, run_toml: &str) -> io::Result<RunFiles> {
        fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
        if dir.join("scores.csv").exists() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{}: already holds a run", dir.display()),
            ));
        }
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        Self::start(dir.to_path_buf(), id, layout, run_toml)
    }

    fn start(dir: PathBuf, id: String, layout: Layout, run_toml: &str) -> io::Result<RunFiles> {
        fs::write(dir.join("run.toml"), run_toml).map_err(|e| io_err(&dir, e))?;
        let path = dir.join("scores.csv");
        let file = File::create(&path).map_err(|e| io_err(&path, e))?;
        let mut scores = csv::Writer::from_writer(file);
        scores.write_record(layout.header())?;
        scores.flush()?;
        Ok(RunFiles {
            dir,
            id,
            layout,
            scores,
            links_latest: true,
            transcripts: Default::default(),
        })
    }

    /// Appends the row of a finished test (flushed at once) and keeps its stderr tail and
    /// transcript.
    fn on_test(&mut self, r: &TestResult, row: &ScoreRow) -> io::Result<()> {
        self.scores.write_record(self.layout.record(row))?;
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
        if !r.pictures.is_empty() {
            let case = r.case.to_string();
            let dir = self
                .dir
                .join(rundir::pictures_dir(r.problem, &r.player, &case));
            fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
            for picture in &r.pictures {
                let path = dir.join(&picture.name);
                fs::write(&path, &picture.bytes).map_err(|e| io_err(&path, e))?;
            }
        }
        if !r.transcript.is_empty() && self.transcripts.keeps(r.outcome.verdict) {
            let path =
                rundir::transcript_path(&self.dir, r.problem, &r.player, &r.case.to_string());
            let dir = path.parent().expect("a transcript path has a folder");
            fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
            fs::write(&path, &r.transcript).map_err(|e| io_err(&path, e))?;
        }
        Ok(())
    }

    /// Writes `leaderboard.csv`, rewrites `scores.csv` sorted by (problem, player, test) from
    /// the rows in memory, and points `results/latest` at this run.
    fn finish(&mut self, state: &RunState) -> io::Result<()> {
        self.scores.flush()?;
        write_atomic(&self.dir.join("leaderboard.csv"), &leaderboard(state)?)?;
        let mut rows: Vec<&ScoreRow> = state.rows.iter().collect();
        rows.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        let rows: Vec<ScoreRow> = rows.into_iter().cloned().collect();
        write_atomic(&self.dir.join("scores.csv"), &self.layout.file(&rows)?)?;
        if !self.links_latest {
            return Ok(());
        }
        self.link_latest()
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

impl Reporter for RunFiles {
    fn on_event(&mut self, event: &Event<'_>, state: &mut RunState) -> Result<(), String> {
        let done = match event {
            Event::TestFinished(result) => {
                let row = state.rows.last().expect("the row of a finished test");
                self.on_test(result, row)
            }
            Event::RunFinished => self.finish(state),
            _ => Ok(()),
        };
        done.map_err(|e| e.to_string())
    }
}

/// `leaderboard.csv`: one row per (problem, player), best first by what the problem ranks by
/// (`rank_by`; `mark` is the player's value by it, `left_out` the tests it sets beside,
/// `place` its place). A minimised problem's sum, mean, min and max are over its OK tests,
/// as on the terminal (empty without one): a failed test's 0 never looks like a best score.
fn leaderboard(state: &RunState) -> io::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec![
        "problem", "player", "tests", "sum", "mean", "relative", "min", "max", "rank", "rank_by",
        "mark", "left_out", "place",
    ];
    header.extend(Verdict::ALL.iter().map(|v| v.code()));
    header.extend(["think_ms", "partial"]);
    w.write_record(&header)?;
    let cell = |x: Option<f64>| x.map(|x| x.to_string()).unwrap_or_default();
    let summary = &state.summary;
    for (problem, players) in &summary.problems {
        let objective = summary.objective(problem);
        let (by, ranked) = summary.ranked(problem, players);
        for (place, (player, s)) in ranked {
            let range = s.shown_range(objective);
            let mark = s.mark(by, objective);
            let mut row = vec![
                problem.clone(),
                player.clone(),
                s.tests.to_string(),
                cell(range.map(|r| r.0)),
                cell(s.shown_mean(objective)),
                cell(s.relative),
                cell(range.map(|r| r.1)),
                cell(range.map(|r| r.2)),
                cell(s.rank),
                by.name().to_string(),
                cell(mark.value),
                mark.left_out.to_string(),
                place.to_string(),
            ];
            row.extend(Verdict::ALL.iter().map(|&v| s.count(v).to_string()));
            row.push(s.think.as_millis().to_string());
            row.push((!state.complete).to_string());
            w.write_record(&row)?;
        }
    }
    w.into_inner().map_err(|e| io::Error::other(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::yardstick::RankBy;
    use crate::report::summary::minimised_with_failures;

    /// leaderboard.csv of a finished run of `summary`, as (header, rows by column name).
    fn board(summary: crate::report::Summary) -> Vec<std::collections::BTreeMap<String, String>> {
        let mut state = RunState::new("r", Path::new("/nowhere"), summary, 8);
        state.complete = true;
        let bytes = leaderboard(&state).unwrap();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let header = reader.headers().unwrap().clone();
        reader
            .records()
            .map(|r| {
                let r = r.unwrap();
                header
                    .iter()
                    .zip(r.iter())
                    .map(|(h, v)| (h.into(), v.into()))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_minimised_problem_ranked_by_rank_counts_no_failed_test_in_its_mean() {
        let mut s = minimised_with_failures(RankBy::Rank);
        s.set_rank("tools-min", "tle", 50.0);
        s.set_rank("tools-min", "steady", 62.5);
        let rows = board(s);
        // Best first by the rank score, its value the mark.
        let names: Vec<&str> = rows.iter().map(|r| r["player"].as_str()).collect();
        assert_eq!(names, ["steady", "tle"]);
        let tle = &rows[1];
        assert_eq!(
            (tle["rank_by"].as_str(), tle["place"].as_str()),
            ("rank", "2")
        );
        assert_eq!((tle["rank"].as_str(), tle["mark"].as_str()), ("50", "50"));
        // Over tle's two OK tests, its two TLEs beside them: not 4 tests with two 0s.
        assert_eq!(tle["mean"], "2335231");
        assert_eq!(
            (tle["min"].as_str(), tle["max"].as_str()),
            ("3651", "4666811")
        );
        assert_eq!(tle["sum"], "4670462");
        assert_eq!((tle["TLE"].as_str(), tle["tests"].as_str()), ("2", "4"));
        assert_eq!(rows[0]["partial"], "false");
    }

    #[test]
    fn the_log_yardstick_sets_failed_tests_beside_its_mark() {
        let rows = board(minimised_with_failures(RankBy::Log));
        let names: Vec<&str> = rows.iter().map(|r| r["player"].as_str()).collect();
        assert_eq!(names, ["steady", "tle"], "fewer left out first");
        let tle = &rows[1];
        assert_eq!(
            (tle["rank_by"].as_str(), tle["left_out"].as_str()),
            ("log", "2")
        );
        let log: f64 = tle["mark"].parse().unwrap();
        let want = (3651f64.log10() + 4_666_811f64.log10()) / 2.0;
        assert!((log - want).abs() < 1e-12, "{log} vs {want}");
        assert_eq!(tle["mean"], "2335231");
    }
}
