//! A run folder (`results/<run-id>/`): where each of its files lives, `scores.csv`'s one
//! row type, [`ScoreRow`], through which every reader and writer of the file goes (the run
//! itself, resume, compare, replay, the HTML report), and what its `run.toml` says of it
//! beside the scores ([`Meta`]: its tag, its key, a debugging run).
//!
//! One policy for a row that cannot be read: an error naming the file and the line
//! ([`BadRows::Fail`]), except when finishing an interrupted run, where such rows are skipped,
//! counted and said ([`BadRows::Skip`]): their tests simply run again.
//!
//! Touches only the files of run folders; knows no problem by name.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::fs_msg::io_err;
use crate::verdict::Verdict;

/// The columns of `scores.csv` before the problems' parameters (and `reason`, the last).
pub(crate) const SCORE_COLUMNS: [&str; 13] = [
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

/// How the warning of a test played again alone begins ([`crate::rerun`]): its first try was
/// TLE with its CPU time within the limit on an overloaded machine, and the row is the
/// second try's.
pub const RERUN: &str = "rerun alone";

/// One row of `scores.csv`: one test of one player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreRow {
    pub problem: String,
    pub player: String,
    /// The test: a seed, or the name of a fixed test.
    pub seed: String,
    pub score: f64,
    #[serde(
        serialize_with = "verdict_code",
        deserialize_with = "verdict_from_code"
    )]
    pub verdict: Verdict,
    #[serde(default)]
    pub moves: u64,
    #[serde(default)]
    pub think_ms: u64,
    #[serde(default)]
    pub cpu_ms: u64,
    #[serde(default)]
    pub wall_ms: u64,
    /// The test's peak memory (KB); runs of harness 0.1 before the cgroup called it `max_rss_kb`.
    #[serde(default, alias = "max_rss_kb")]
    pub max_memory_kb: u64,
    #[serde(default)]
    pub warning: String,
    #[serde(default)]
    pub player_hash: String,
    #[serde(default)]
    pub harness_version: String,
    /// The problem's parameters of the test, as (column, value), in the file's column order.
    #[serde(skip)]
    pub params: Vec<(String, String)>,
    #[serde(default)]
    pub reason: String,
}

fn verdict_code<S: Serializer>(v: &Verdict, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(v.code())
}

fn verdict_from_code<'de, D: Deserializer<'de>>(d: D) -> Result<Verdict, D::Error> {
    let code = String::deserialize(d)?;
    Verdict::from_code(&code)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown verdict {code:?}")))
}

impl ScoreRow {
    /// A row with these identifying cells and nothing measured.
    pub fn new(problem: &str, player: &str, seed: &str, score: f64, verdict: Verdict) -> ScoreRow {
        ScoreRow {
            problem: problem.to_string(),
            player: player.to_string(),
            seed: seed.to_string(),
            score,
            verdict,
            moves: 0,
            think_ms: 0,
            cpu_ms: 0,
            wall_ms: 0,
            max_memory_kb: 0,
            warning: String::new(),
            player_hash: String::new(),
            harness_version: String::new(),
            params: Vec::new(),
            reason: String::new(),
        }
    }

    /// Every column but those that name the test and its result (problem, player, seed,
    /// score, verdict, player_hash): what a comparison can group and filter by.
    pub fn columns(&self) -> std::collections::BTreeMap<String, String> {
        let mut out: std::collections::BTreeMap<String, String> = [
            ("moves", self.moves.to_string()),
            ("think_ms", self.think_ms.to_string()),
            ("cpu_ms", self.cpu_ms.to_string()),
            ("wall_ms", self.wall_ms.to_string()),
            ("max_memory_kb", self.max_memory_kb.to_string()),
            ("warning", self.warning.clone()),
            ("harness_version", self.harness_version.clone()),
            ("reason", self.reason.clone()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        out.extend(self.params.iter().cloned());
        out
    }

    /// Whether the test was played again alone at the end of its run ([`RERUN`]).
    pub fn rerun(&self) -> bool {
        self.warning.starts_with(RERUN)
    }

    /// The order of rows in a finished run's file: problem, player, then test.
    pub(crate) fn order_key(&self) -> (&str, &str, (Option<u64>, String)) {
        (&self.problem, &self.player, seed_order(&self.seed))
    }
}

/// The line under a run's leaderboard (and in its report) on its tests played again alone:
/// how many, and how many of them turned OK; `None` when none was.
pub fn rerun_note(rows: &[ScoreRow]) -> Option<String> {
    let rerun: Vec<&ScoreRow> = rows.iter().filter(|r| r.rerun()).collect();
    if rerun.is_empty() {
        return None;
    }
    let ok = rerun.iter().filter(|r| r.verdict == Verdict::Ok).count();
    Some(format!(
        "{RERUN} at the end of the run: {} test(s) TLE on an overloaded machine with their \
         CPU time within the limit; {ok} now OK, {} not (see the warning column of scores.csv)",
        rerun.len(),
        rerun.len() - ok
    ))
}

/// What to do with a row of `scores.csv` that cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadRows {
    /// Stop with an error naming the file and the line.
    Fail,
    /// Leave it out, and count it (finishing an interrupted run: its test runs again).
    Skip,
}

/// A run's `scores.csv`, read.
#[derive(Clone, Debug)]
pub struct Scores {
    pub path: PathBuf,
    /// The parameter columns, in file order.
    pub param_columns: Vec<String>,
    pub rows: Vec<ScoreRow>,
    /// The lines of the rows left out under [`BadRows::Skip`].
    pub skipped: Vec<u64>,
}

/// Reads `<dir>/scores.csv`. Errors name the file (and the line of a bad row).
pub fn read(dir: &Path, bad: BadRows) -> Result<Scores, String> {
    let path = dir.join("scores.csv");
    let named = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut reader = csv::Reader::from_path(&path).map_err(|e| named(&e))?;
    let header = reader.headers().map_err(|e| named(&e))?.clone();
    for needed in ["problem", "player", "seed", "score", "verdict"] {
        if !header.iter().any(|h| h == needed) {
            return Err(named(&format!(
                "no {needed:?} column: not a scores.csv of the harness"
            )));
        }
    }
    let param_at: Vec<(usize, String)> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| !SCORE_COLUMNS.contains(h) && *h != "reason")
        .map(|(i, h)| (i, h.to_string()))
        .collect();
    let mut scores = Scores {
        param_columns: param_at.iter().map(|(_, h)| h.clone()).collect(),
        path: path.clone(),
        rows: Vec::new(),
        skipped: Vec::new(),
    };
    for record in reader.records() {
        let parsed = record.and_then(|r| {
            let mut row: ScoreRow = r.deserialize(Some(&header))?;
            row.params = param_at
                .iter()
                .map(|(i, h)| (h.clone(), r.get(*i).unwrap_or_default().to_string()))
                .collect();
            Ok(row)
        });
        match (parsed, bad) {
            (Ok(row), _) => scores.rows.push(row),
            (Err(e), BadRows::Skip) => scores.skipped.push(e.position().map_or(0, |p| p.line())),
            (Err(e), BadRows::Fail) => return Err(named(&e)),
        }
    }
    Ok(scores)
}

/// The layout of `scores.csv` for a run's problems: the fixed columns, the union of the
/// problems' parameters (a parameter named like a fixed column gets the problem's prefix,
/// see [`param_column`]), and `reason`.
#[derive(Clone, Debug)]
pub struct Layout {
    pub param_columns: Vec<String>,
}

impl Layout {
    /// `problems` lists each problem with its parameter names.
    pub fn new(problems: &[(String, Vec<String>)]) -> Layout {
        let mut param_columns: Vec<String> = Vec::new();
        for (problem, names) in problems {
            for c in names.iter().map(|n| param_column(problem, n)) {
                if !param_columns.contains(&c) {
                    param_columns.push(c);
                }
            }
        }
        Layout { param_columns }
    }

    /// The header line's cells.
    pub fn header(&self) -> Vec<String> {
        SCORE_COLUMNS
            .iter()
            .map(|c| c.to_string())
            .chain(self.param_columns.iter().cloned())
            .chain(["reason".to_string()])
            .collect()
    }

    /// A row's cells in this layout's order; player text made safe for spreadsheets.
    pub fn record(&self, row: &ScoreRow) -> Vec<String> {
        let fixed = [
            row.problem.clone(),
            row.player.clone(),
            row.seed.clone(),
            row.score.to_string(),
            row.verdict.code().to_string(),
            row.moves.to_string(),
            row.think_ms.to_string(),
            row.cpu_ms.to_string(),
            row.wall_ms.to_string(),
            row.max_memory_kb.to_string(),
            text_cell(&row.warning).into_owned(),
            row.player_hash.clone(),
            row.harness_version.clone(),
        ];
        let params = self.param_columns.iter().map(|c| {
            row.params
                .iter()
                .find(|(name, _)| name == c)
                .map_or(String::new(), |(_, v)| v.clone())
        });
        fixed
            .into_iter()
            .chain(params)
            .chain([text_cell(&row.reason).into_owned()])
            .collect()
    }

    /// The whole file: the header and these rows.
    pub fn file(&self, rows: &[ScoreRow]) -> io::Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(self.header())?;
        for row in rows {
            w.write_record(self.record(row))?;
        }
        w.into_inner().map_err(|e| io::Error::other(e.to_string()))
    }
}

/// A cell of text that may come from a player, safe to open in a spreadsheet: one that would
/// start with `=`, `+`, `-`, `@`, a tab or a carriage return (a formula, or a cell some
/// spreadsheets run) gets a leading `'`, as spreadsheets themselves write text cells.
pub(crate) fn text_cell(text: &str) -> std::borrow::Cow<'_, str> {
    match text.bytes().next() {
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r') => format!("'{text}").into(),
        _ => text.into(),
    }
}

/// The `scores.csv` column of a problem's parameter: its name, or `<problem>.<name>` when the
/// name is that of a fixed column.
pub(crate) fn param_column(problem: &str, name: &str) -> String {
    if SCORE_COLUMNS.contains(&name) || name == "reason" {
        format!("{problem}.{name}")
    } else {
        name.to_string()
    }
}

/// The order of tests in a run's files: seeds by number, and fixed tests (names) by name.
pub(crate) fn seed_order(seed: &str) -> (Option<u64>, String) {
    (seed.parse().ok(), seed.to_string())
}

/// Where the transcript of one test is kept: one plain-text file per test, so a failing game
/// can be read with `less` and found by its seed.
pub(crate) fn transcript_path(run: &Path, problem: &str, player: &str, case: &str) -> PathBuf {
    run.join("transcripts")
        .join(problem)
        .join(player)
        .join(format!("{case}.txt"))
}

/// The folder of the pictures a judge drew of one test (a contest visualizer's `out.svg`),
/// relative to the run folder.
pub(crate) fn pictures_dir(problem: &str, player: &str, case: &str) -> PathBuf {
    Path::new("pictures").join(problem).join(player).join(case)
}

/// Links to the pictures kept for a test (none when it has none), for report pages.
pub(crate) fn picture_links(run: &Path, problem: &str, player: &str, case: &str) -> Vec<PathBuf> {
    let dir = pictures_dir(problem, player, case);
    let mut found: Vec<PathBuf> = std::fs::read_dir(run.join(&dir))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| dir.join(e.file_name()))
        .collect();
    found.sort();
    found
}

/// Where the replay page of a test is written, relative to the run folder.
pub(crate) fn replay_file(row: &ScoreRow) -> PathBuf {
    Path::new("replays").join(format!("{}-{}-{}.html", row.problem, row.player, row.seed))
}

/// Which tests of a run kept their transcript (`transcripts` in its `run.toml`; a run from
/// before the setting kept all).
pub fn kept(run: &Path) -> crate::config::Keep {
    let text = std::fs::read_to_string(run.join("run.toml")).unwrap_or_default();
    text.parse::<toml::Table>()
        .ok()
        .and_then(|t| {
            t.get("transcripts")?
                .as_str()
                .and_then(crate::config::Keep::parse)
        })
        .unwrap_or_default()
}

/// What a run's `run.toml` says of it beside its scores.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// The user's words about the run (`--tag`).
    pub tag: Option<String>,
    /// A debugging run (`--verbose`: one player, one seed, watched): not `latest`, not in
    /// `best.csv`, never the baseline of a later run.
    pub debug: bool,
    /// The fingerprint of its secret key: its tests are not those of other runs.
    pub secret: Option<String>,
    /// A game played by hand (`harness play`): not `latest`, never the baseline of a run.
    pub played: bool,
    /// What its relative scores are against, as the line under its leaderboard said
    /// (`relative: to the best known score of each test, ...`).
    pub relative_to: Option<String>,
    /// The players left out of it for a program the machine lacked: (player, reason).
    pub left_out: Vec<(String, String)>,
    /// What each problem's players were ranked by (`rank-by` of its `[problem.<id>]` table);
    /// a problem not named (a run made before it was recorded) by the relative score.
    pub rank_by: std::collections::BTreeMap<String, crate::config::RankBy>,
}

impl Meta {
    /// Reads `<dir>/run.toml`; a missing or unreadable file says nothing (an empty `Meta`).
    pub fn read(dir: &Path) -> Meta {
        let table: toml::Table = std::fs::read_to_string(dir.join("run.toml"))
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or_default();
        Meta {
            tag: table.get("tag").and_then(|t| t.as_str()).map(String::from),
            debug: table.get("debug").and_then(|d| d.as_bool()) == Some(true),
            secret: crate::secret::recorded(dir),
            played: table.get("played").and_then(|d| d.as_bool()) == Some(true),
            relative_to: (table.get("relative-to").and_then(|t| t.as_str())).map(String::from),
            left_out: table
                .get("left-out")
                .and_then(|l| l.as_array())
                .into_iter()
                .flatten()
                .filter_map(|e| {
                    let field = |k: &str| e.get(k).and_then(|v| v.as_str()).map(String::from);
                    Some((field("player")?, field("reason")?))
                })
                .collect(),
            rank_by: recorded_rank_by(&table),
        }
    }

    /// What `problem`'s players were ranked by in this run.
    pub fn rank_by(&self, problem: &str) -> crate::config::RankBy {
        self.rank_by.get(problem).copied().unwrap_or_default()
    }

    /// The marks `harness runs` shows under a run: its tag, its key, a debugging run.
    pub fn marks(&self) -> Vec<String> {
        let mut marks = Vec::new();
        if let Some(tag) = &self.tag {
            marks.push(format!("tag {tag:?}"));
        }
        if let Some(f) = &self.secret {
            marks.push(format!(
                "KEYED: secret key {f} (its tests are not the seeds' usual tests)"
            ));
        }
        if self.debug {
            marks.push("debugging run (--verbose): not a baseline, not in best.csv".into());
        }
        if self.played {
            marks.push("played by hand (harness play): not latest, not a baseline".into());
        }
        marks
    }
}

/// The scores the run's `leaderboard.csv` has that `scores.csv` alone does not give: per
/// (problem, player), its relative and rank scores (`None` where the file has none).
pub type Recorded = std::collections::BTreeMap<(String, String), (Option<f64>, Option<f64>)>;

/// [`Recorded`] of a run (empty without a `leaderboard.csv`; an older one has no rank column).
pub fn recorded(run: &Path) -> Recorded {
    let mut out = std::collections::BTreeMap::new();
    let Ok(mut reader) = csv::Reader::from_path(run.join("leaderboard.csv")) else {
        return out;
    };
    let Ok(header) = reader.headers().cloned() else {
        return out;
    };
    let col = |name: &str| header.iter().position(|h| h == name);
    let (Some(p), Some(pl)) = (col("problem"), col("player")) else {
        return out;
    };
    let (rel, rank) = (col("relative"), col("rank"));
    for record in reader.records().flatten() {
        let value = |c: Option<usize>| c.and_then(|c| record.get(c)?.parse().ok());
        let key = (record[p].to_string(), record[pl].to_string());
        out.insert(key, (value(rel), value(rank)));
    }
    out
}

/// The `rank-by` of each `[problem.<id>]` table of a run.toml that has a readable one.
fn recorded_rank_by(
    table: &toml::Table,
) -> std::collections::BTreeMap<String, crate::config::RankBy> {
    let problems = table.get("problem").and_then(|p| p.as_table());
    problems
        .into_iter()
        .flatten()
        .filter_map(|(id, t)| {
            let by = t.get("rank-by")?.clone().try_into().ok()?;
            Some((id.clone(), by))
        })
        .collect()
}

/// Sets the line `key = "value"` of a run's `run.toml`, before its first table, replacing
/// the one there: the tag given on `--resume` (a run may be named once it is finished), and
/// what the run's relative scores were against (known when it ends).
pub(crate) fn set_field(dir: &Path, key: &str, value: &str) -> io::Result<()> {
    let path = dir.join("run.toml");
    let text = fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
    let table_at = text
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .find(|&i| text[i..].starts_with('['))
        .unwrap_or(text.len());
    let (head, tables) = text.split_at(table_at);
    let mut out: String = head
        .lines()
        .filter(|l| !is_key_line(l, key))
        .map(|l| format!("{l}\n"))
        .collect();
    while out.ends_with("\n\n") {
        out.pop();
    }
    out.push_str(&format!("{key} = {}\n", toml::Value::from(value)));
    if !tables.is_empty() {
        out.push('\n');
    }
    out.push_str(tables);
    write_atomic(&path, out.as_bytes())
}

/// Whether `line` of a TOML file sets `key` (`key = ...`, not a comment).
fn is_key_line(line: &str, key: &str) -> bool {
    line.split_once('=')
        .is_some_and(|(k, _)| k.trim() == key && !line.trim_start().starts_with('#'))
}

/// Sets the `rank-by` of every `[problem.<id>]` table of a run's `run.toml`: a `--rank-by`
/// given on `--resume` ranks the resumed run, and the run's readers (report.html,
/// `harness runs`) rank it as its leaderboard does. Other lines are kept as they are.
pub(crate) fn set_rank_by(dir: &Path, by: crate::config::RankBy) -> io::Result<()> {
    let path = dir.join("run.toml");
    let text = fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
    let mut in_problem = false;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            in_problem = trimmed.starts_with("[problem.");
        }
        if in_problem && is_key_line(line, "rank-by") {
            out.push_str(&format!("rank-by = {:?}\n", by.name()));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    write_atomic(&path, out.as_bytes())
}

/// Writes a file atomically: to a temporary name beside it, then renamed over it.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, bytes).map_err(|e| io_err(&tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| io_err(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_given_on_resume_replaces_the_runs_tag_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let toml = dir.path().join("run.toml");
        let before = "harness-version = \"1\"\nthreads = 2\ntag = \"old\"\ndebug = true\n\n[args]\nplayers = []\n\n[problem.linez]\ncases = 3\n";
        std::fs::write(&toml, before).unwrap();
        set_field(dir.path(), "tag", "wider \"beam\"").unwrap();
        let text = std::fs::read_to_string(&toml).unwrap();
        let table: toml::Table = text.parse().unwrap();
        assert_eq!(table["tag"].as_str(), Some("wider \"beam\""));
        assert_eq!(table["threads"].as_integer(), Some(2));
        assert_eq!(
            Meta::read(dir.path()).tag.as_deref(),
            Some("wider \"beam\"")
        );
        assert!(Meta::read(dir.path()).debug);
        assert!(
            text.ends_with("\n\n[args]\nplayers = []\n\n[problem.linez]\ncases = 3\n"),
            "{text}"
        );
        // A run without a tag gets one.
        std::fs::write(&toml, "threads = 2\n\n[args]\n").unwrap();
        set_field(dir.path(), "tag", "first").unwrap();
        let text = std::fs::read_to_string(&toml).unwrap();
        assert_eq!(text, "threads = 2\ntag = \"first\"\n\n[args]\n");
    }

    #[test]
    fn a_rank_by_given_on_resume_replaces_each_problems_and_keeps_the_rest() {
        use crate::config::RankBy;
        let dir = tempfile::tempdir().unwrap();
        let before = "threads = 2\n\n[args]\nseeds = \"1..2\"\n\n[problem.linez]\ntime-limit = 2\nrank-by = \"log\"\ncases = 3\n[problem.linez.players.\"a\"]\nhash = \"h\"\n\n[problem.chesspuzzle]\nrank-by = \"relative\"\n";
        std::fs::write(dir.path().join("run.toml"), before).unwrap();
        set_rank_by(dir.path(), RankBy::Rank).unwrap();
        let text = std::fs::read_to_string(dir.path().join("run.toml")).unwrap();
        assert_eq!(
            text,
            before
                .replace("\"log\"", "\"rank\"")
                .replace("\"relative\"", "\"rank\"")
        );
        let meta = Meta::read(dir.path());
        assert_eq!(
            (meta.rank_by("linez"), meta.rank_by("chesspuzzle")),
            (RankBy::Rank, RankBy::Rank)
        );
    }

    fn row() -> ScoreRow {
        ScoreRow {
            problem: "linez".into(),
            player: "p".into(),
            seed: "7".into(),
            score: 12.5,
            verdict: Verdict::WrongAnswer,
            moves: 3,
            think_ms: 4,
            cpu_ms: 5,
            wall_ms: 6,
            max_memory_kb: 7,
            warning: "=slow".into(),
            player_hash: "abc".into(),
            harness_version: "0.1.0".into(),
            params: vec![("N".into(), "9".into())],
            reason: "a, \"quoted\" reason".into(),
        }
    }

    #[test]
    fn a_row_written_is_the_row_read_back_except_spreadsheet_quoting() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(&[("linez".into(), vec!["N".into()])]);
        fs::write(
            dir.path().join("scores.csv"),
            layout.file(&[row()]).unwrap(),
        )
        .unwrap();
        let read = read(dir.path(), BadRows::Fail).unwrap();
        let mut expected = row();
        expected.warning = "'=slow".into();
        assert_eq!(read.rows, vec![expected]);
        assert_eq!(read.param_columns, vec!["N"]);
    }

    #[test]
    fn a_bad_row_is_an_error_naming_file_and_line_or_a_counted_skip() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(&[]);
        let mut bytes = layout.file(&[row(), row()]).unwrap();
        bytes.extend_from_slice(b"linez,p,8,lots,OK,1,1,1,1,1,,h,v,\n");
        fs::write(dir.path().join("scores.csv"), &bytes).unwrap();
        let err = read(dir.path(), BadRows::Fail).unwrap_err();
        assert!(
            err.contains("scores.csv") && err.contains("line: 4"),
            "{err}"
        );
        let skipped = read(dir.path(), BadRows::Skip).unwrap();
        assert_eq!(skipped.rows.len(), 2);
        assert_eq!(skipped.skipped, vec![4]);
    }

    #[test]
    fn a_parameter_named_like_a_fixed_column_gets_its_problem_prefix() {
        let layout = Layout::new(&[
            ("a".into(), vec!["moves".into(), "N".into()]),
            ("b".into(), vec!["N".into()]),
        ]);
        assert_eq!(layout.param_columns, vec!["a.moves", "N"]);
    }
}
