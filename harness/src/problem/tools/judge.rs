//! What every shape shares once a contest tool has run: its command with the placeholders
//! put in ([`Placeholders`]), the folder it runs in ([`JudgeFolders`]), and what its run means
//! for the player ([`judge_outcome`]: the score, or WA with the tool's last lines, or ERR).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::config::{Def, Shape, Stream};
use crate::problem::Picture;
use crate::sandbox::beneath::{self, Rules};
use crate::sandbox::tool::{self, ToolDir, ToolEnd, ToolRun, TAIL};
use crate::sandbox::tool_view;
use crate::sandbox::{Isolation, Mode};
use crate::verdict::{Outcome, Verdict};
use std::sync::Arc;

/// How many of a tool's last lines a reason quotes.
pub const REASON_LINES: usize = 4;

/// The values of a command's placeholders for one run of a tool.
#[derive(Clone, Debug, Default)]
pub struct Placeholders {
    pub input: Option<PathBuf>,
    pub output: Option<PathBuf>,
    /// The seed handed to the tool (the harness seed, or the key-derived one).
    pub seed: Option<u64>,
    pub seeds: Option<PathBuf>,
    /// The relay's command, as arguments (`{player...}`) or one string (`{player}`).
    pub player: Vec<String>,
}

impl Placeholders {
    /// `command` with every placeholder replaced; `{player...}` becomes several arguments.
    pub fn apply(&self, command: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for arg in command {
            if arg == "{player...}" {
                out.extend(self.player.iter().cloned());
                continue;
            }
            let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
            let mut a = arg.clone();
            let seed = self.seed.unwrap_or(0);
            for (word, value) in [
                ("{input}", path(&self.input)),
                ("{output}", path(&self.output)),
                ("{seeds}", path(&self.seeds)),
                ("{seed:04}", Some(format!("{seed:04}"))),
                ("{seed}", Some(seed.to_string())),
                ("{player}", Some(self.player.join(" "))),
            ] {
                if let Some(value) = value {
                    a = a.replace(word, &value);
                }
            }
            out.push(a);
        }
        out
    }
}

/// The program of a command: a name with a `/` is a path in the tools folder (unless
/// absolute); a bare name is the tools folder's file of that name when there is one, else a
/// program on PATH.
pub fn program(tools: &Path, first: &str) -> PathBuf {
    let p = Path::new(first);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    if first.contains('/') || tools.join(p).is_file() {
        return tools.join(p);
    }
    p.to_path_buf()
}

/// Fresh working folders for the judges (and testers) of a run's tests, each showing the
/// tools folder as by hand, writable ([`tool_view`]), but for the entries the judge writes
/// there (its input, its answer, its pictures; gen's inputs folder), with the empty files a
/// judge is handed (its input and answer, written by the test),
/// made a little ahead of the tests that take them, on a thread of the harness's
/// ([`tool::AHEAD`]), so that a test need not wait for any of it before its judge's sandbox
/// can be launched. Every folder is used by one test only, and nothing but the harness
/// touches it before.
#[derive(Debug)]
pub struct JudgeFolders {
    tools: PathBuf,
    /// The names the judge writes: the tools' entries of these names are not shown.
    outputs: Vec<String>,
    /// The empty files made in each working folder.
    files: Vec<String>,
    /// The tools' folders a copy links whole ([`linked_in_copies`]).
    linked: Vec<String>,
    stock: std::sync::Mutex<Stock>,
}

/// Folders made ahead for the tests to come: at most this many at once.
const MADE_AHEAD: usize = 2;

/// The folders made ahead, in `scratch`.
#[derive(Debug, Default)]
struct Stock {
    scratch: PathBuf,
    folders: tool::MadeAhead<ToolDir>,
}

impl JudgeFolders {
    /// Folders showing the entries of `tools` but those named in `outputs`, with `files`
    /// (empty) in their working folder.
    pub fn new(
        tools: &Path,
        outputs: Vec<String>,
        files: Vec<String>,
        linked: Vec<String>,
    ) -> JudgeFolders {
        // A name holding the seed (`{seed}.png`) leaves out every entry it may name (what a
        // run by hand left: `4.png`), for the tools to write their own.
        let mut outputs = outputs;
        let patterns: Vec<String> = outputs
            .iter()
            .filter(|o| o.contains("{seed"))
            .cloned()
            .collect();
        for pattern in &patterns {
            // `vis/{seed}.png`: the entries of the tools' `vis/` it may name.
            let (folder, file) = super::drawing::folder_and_file(pattern);
            let listed = std::fs::read_dir(tools.join(folder));
            for entry in listed.into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if super::drawing::may_name(file, &name) {
                    outputs.push(match folder {
                        "" => name,
                        _ => format!("{folder}/{name}"),
                    });
                }
            }
        }
        JudgeFolders {
            tools: tools.to_path_buf(),
            outputs,
            files,
            linked,
            stock: std::sync::Mutex::new(Stock::default()),
        }
    }

    /// A fresh folder in `isolation`'s scratch space for one test: one made ahead when there
    /// is one, else one made now; another is made ahead for a later test.
    pub fn take(self: &Arc<Self>, isolation: &Isolation) -> std::io::Result<ToolDir> {
        let scratch = isolation.scratch();
        let (ahead, order) = {
            let mut stock = self.stock.lock().unwrap_or_else(|e| e.into_inner());
            if stock.scratch != scratch {
                // Another run's isolation: what was made for the last is not this one's.
                stock.folders.ready.clear();
                stock.scratch = scratch.to_path_buf();
            }
            stock.folders.take(MADE_AHEAD)
        };
        if order {
            // What it needs, not the isolation: its end is never left to that thread.
            let (folders, scratch, mode) = (self.clone(), scratch.to_path_buf(), isolation.mode);
            tool::AHEAD.run(Box::new(move || {
                let made = folders.make(&scratch, mode);
                let mut stock = folders.stock.lock().unwrap_or_else(|e| e.into_inner());
                let ours = stock.scratch == scratch;
                stock.folders.made(made.ok().filter(|_| ours));
            }));
        }
        match ahead {
            Some(dir) => Ok(dir),
            None => self.make(scratch, isolation.mode),
        }
    }

    /// Makes a filled folder in `scratch`, with the tool's own HOME and TMPDIR where they
    /// are in its folder in `mode` ([`tool::own_folders`]).
    fn make(&self, scratch: &Path, mode: Mode) -> std::io::Result<ToolDir> {
        let mut dir = ToolDir::new(scratch)?;
        tool::own_folders(mode, &dir);
        let (hidden, files, linked) = (strs(&self.outputs), strs(&self.files), strs(&self.linked));
        let shown = tool_view::Shown {
            hidden: &hidden,
            files: &files,
            linked: &linked,
        };
        dir.show_tools(tool_view::kind(mode), &self.tools, shown)?;
        Ok(dir)
    }
}

/// The tools' folders a judge's copy of the tools folder links whole rather than copies
/// (process mode, a root harness: [`tool_view::Kind::Copy`]): gen's inputs folder, which a
/// hand run fills (AtCoder ships 100 inputs in `in/`) and no judge writes.
pub fn linked_in_copies(def: &Def) -> Vec<String> {
    use super::config::Inputs;
    let folder = match &def.inputs {
        Inputs::Gen { dir, .. } => Path::new(dir).iter().next().map(PathBuf::from),
        Inputs::Ready { dir, .. } => dir
            .strip_prefix(&def.tools)
            .ok()
            .and_then(|rel| rel.iter().next())
            .map(PathBuf::from),
        Inputs::ByJudge => None,
    };
    folder
        .map(|f| f.display().to_string())
        .into_iter()
        .collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Opens for writing a file of a folder made by [`JudgeFolders`], never through a symbolic
/// link (nothing but the harness has touched the folder; this keeps it so).
pub fn open_made(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .custom_flags(crate::os::NO_FOLLOW)
        .open(path)
}

/// What the harness accepts of a picture a judge left: a file of its own (one name), at
/// most 64 MiB.
const PICTURE: Rules = Rules {
    cap: 64 << 20,
    one_name: true,
};

/// The pictures (`pictures`, a name holding `{seed}` with `seed` put in) the tools left in
/// their working folder `work`, each read beneath it and never through a link
/// ([`beneath`]); one they did not draw is left out. Err: one is a link, a special file or
/// too big, named (the tool's failure: ERR, never read).
pub fn left_pictures(def: &Def, work: &Path, seed: u64) -> Result<Vec<Picture>, String> {
    let mut kept = Vec::new();
    for pattern in &def.pictures {
        let path = super::drawing::named(pattern, seed);
        // Kept under its file's own name (`vis/4.png` as `4.png`; the names are distinct).
        let name = super::drawing::folder_and_file(&path).1.to_string();
        match beneath::read(work, Path::new(&path), PICTURE) {
            Ok(bytes) => kept.push(Picture { name, bytes }),
            Err(refused) if refused.missing() => {}
            Err(refused) => return Err(format!("the judge left {refused}")),
        }
    }
    Ok(kept)
}

/// The outcome of a test whose judge left pictures (`left`, [`left_pictures`]): a picture
/// that could not be read safely makes it ERR, whatever the judge said.
pub fn with_pictures(
    outcome: Outcome,
    left: Result<Vec<Picture>, String>,
    pictures: &mut Vec<Picture>,
) -> Outcome {
    match left {
        Ok(left) => {
            pictures.extend(left);
            outcome
        }
        Err(why) => Outcome::failed(Verdict::HarnessError, why),
    }
}

/// The text a score is read from: the judge's stream(s) as the problem says.
fn score_text(run: &ToolRun, stream: Stream) -> Vec<&str> {
    match stream {
        Stream::Stdout => vec![&run.stdout_tail],
        Stream::Stderr => vec![&run.stderr_tail],
        // stderr first: its match wins, as pahcer reads them.
        Stream::Both => vec![&run.stderr_tail, &run.stdout_tail],
    }
}

/// The score the judge printed: the last of its score lines (`score`, matched line by line)
/// that reads as a finite number, in the streams `score-stream` names. A line that is also a
/// line of the player's own answer (`said`: the batch shape's answer, else empty) is the
/// player's text that a tool echoed, never the judge's score.
pub fn read_score(def: &Def, run: &ToolRun, said: &str) -> Option<f64> {
    score_text(run, def.score_stream)
        .into_iter()
        .find_map(|text| {
            def.score
                .captures_iter(text)
                .filter(|c| !said_by_player(text, c.get(0).map_or(0, |m| m.start()), said))
                .filter_map(|c| c.get(1)?.as_str().parse::<f64>().ok())
                .filter(|s| s.is_finite())
                .last()
        })
}

/// Whether the line of `text` holding byte `at` is a line of `said`.
fn said_by_player(text: &str, at: usize, said: &str) -> bool {
    if said.is_empty() {
        return false;
    }
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = text[start..end].trim();
    !line.is_empty() && said.lines().any(|l| l.trim() == line)
}

/// Whether a judge that exited 0 with `score` passed the answer:
///
/// - a score above 0 passes;
/// - a score below 0 never does (TopCoder's `-1.0`: the tester's own error);
/// - a score of 0 fails a `max` problem (AtCoder's `Score = 0` for an invalid answer), and
///   passes a `min` problem (a perfect answer) only when the judge said nothing else: each
///   of its [`messages`] is a score line or a `NAME = value` line (a tester's parameters,
///   `N = 10`). AtCoder's tools print `Score = 0` with an error message for an invalid
///   answer, on `min` problems too: that message makes it WA.
pub fn passes(def: &Def, run: &ToolRun, score: f64) -> bool {
    if score > 0.0 {
        return true;
    }
    if score < 0.0 || def.objective == crate::config::Objective::Maximize {
        return false;
    }
    messages(def, run)
        .iter()
        .all(|line| def.score.is_match(line) || is_parameter(line))
}

/// A `NAME = value` line: a name of letters, digits, `_` and spaces, and one token.
fn is_parameter(line: &str) -> bool {
    let Some((name, value)) = line.split_once('=') else {
        return false;
    };
    let (name, value) = (name.trim(), value.trim());
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' ')
        && !value.is_empty()
        && !value.contains(char::is_whitespace)
}

/// The judge's own messages, for a reason: its stderr, and its stdout unless stdout is the
/// output file of an interactive tester holding the player's transcript (which says nothing
/// about why, and is the player's text). A stack trace is cut to its message lines (the
/// exception and its `Caused by:`; no `at ...` frames, no Rust backtrace note): the whole of
/// it is in the test's [`judge_log`].
pub fn messages(def: &Def, run: &ToolRun) -> Vec<String> {
    let transcript_on_stdout =
        def.shape == Shape::Interactive && def.score_stream == Stream::Stderr;
    let mut streams = vec![run.stderr_tail.as_str()];
    if !transcript_on_stdout {
        streams.push(run.stdout_tail.as_str());
    }
    let mut kept = Vec::new();
    for text in streams {
        for line in text.lines().map(str::trim_end) {
            let trimmed = line.trim_start();
            if trimmed.is_empty() {
                continue;
            }
            let indented = trimmed.len() < line.len();
            let frame = indented && trimmed.starts_with("at ");
            let elided = indented && trimmed.starts_with("... ") && trimmed.ends_with(" more");
            if frame || elided || trimmed.starts_with("note: run with `RUST_BACKTRACE") {
                continue;
            }
            kept.push(trimmed.to_string());
        }
    }
    kept
}

/// The last `n` of the judge's [`messages`], on one line (`(no output)` when there are none).
pub fn reason_lines(def: &Def, run: &ToolRun, n: usize) -> String {
    let all = messages(def, run);
    if all.is_empty() {
        return "(no output)".to_string();
    }
    all[all.len().saturating_sub(n)..].join(" | ")
}

/// The name under which a test keeps its judge's whole output (beside its pictures) when the
/// test is not OK.
pub const JUDGE_LOG: &str = "judge.log";

/// The judge's whole output (the kept tails of both streams), kept with a test that is not
/// OK: a reason quotes a few lines, this file has the stack trace and the rest.
pub fn judge_log(run: &ToolRun, how: &str) -> Picture {
    let mut text = format!("[harness: the judge ended: {how}]\n");
    for (name, tail) in [("stdout", &run.stdout_tail), ("stderr", &run.stderr_tail)] {
        text.push_str(&format!(
            "--- {name} (its last {} KiB at most)\n",
            TAIL / 1024
        ));
        text.push_str(tail);
        if !tail.is_empty() && !tail.ends_with('\n') {
            text.push('\n');
        }
    }
    Picture {
        name: JUDGE_LOG.to_string(),
        bytes: text.into_bytes(),
    }
}

/// Keeps the judge's [`judge_log`] with the test's pictures when the test is not OK.
pub fn keep_log(def: &Def, outcome: &Outcome, run: &ToolRun, pictures: &mut Vec<Picture>) {
    if outcome.verdict != Verdict::Ok {
        let how = run.describe_end(Duration::from_secs_f64(def.judge_timeout));
        pictures.push(judge_log(run, &how));
    }
}

/// What a judge's run means once it has talked to the player: [`judge_answer`] without an
/// answer of the player's to leave out of its score lines.
pub fn judge_outcome(def: &Def, run: &ToolRun, moves: u64) -> Option<Outcome> {
    outcome_of(def, run, moves, "")
}

/// What a batch judge's run means once it has the player's answer (`said`):
///
/// - it could not start, ran past `judge-timeout`, or filled its folder past its memory
///   limit with no cgroup to hold it: ERR (not the player's doing; `--resume` runs the test
///   again);
/// - it exited 0 with a score that [`passes`]: OK with that score;
/// - anything else (no score line, a score that does not pass, a non-zero exit status, a
///   panic, a flood of output): WA, with the tool's last lines as the reason, so no answer
///   can make a test run again.
///
/// `None`: the run was interrupted (the test is not reported).
pub fn judge_answer(def: &Def, run: &ToolRun, said: &str) -> Option<Outcome> {
    outcome_of(def, run, 1, said)
}

fn outcome_of(def: &Def, run: &ToolRun, moves: u64, said: &str) -> Option<Outcome> {
    let timeout = Duration::from_secs_f64(def.judge_timeout);
    let last = || reason_lines(def, run, REASON_LINES);
    let outcome = match &run.end {
        ToolEnd::Interrupted => return None,
        ToolEnd::NotStarted(why) => Outcome::failed(
            Verdict::HarnessError,
            format!("the judge could not start: {why}"),
        ),
        // A tester that hangs after its own error (a TopCoder jar without -novis where no
        // display is) said what to change: its words follow.
        ToolEnd::TimedOut => Outcome::failed(
            Verdict::HarnessError,
            format!(
                "the judge {} (judge-timeout in {}{}){}",
                run.describe_end(timeout),
                def.file.display(),
                match def.shape {
                    Shape::Batch => "",
                    _ => ", plus the player's time limit per start",
                },
                if messages(def, run).is_empty() {
                    String::new()
                } else {
                    format!(": {}", last())
                }
            ),
        ),
        // What holds a tool's files without a cgroup: the tool's failure, not the player's.
        ToolEnd::DiskLimit(_) => Outcome::failed(
            Verdict::HarnessError,
            format!(
                "the judge {} (judge-memory in {})",
                run.describe_end(timeout),
                def.file.display()
            ),
        ),
        ToolEnd::OutputLimit | ToolEnd::Exited(_) => match read_score(def, run, said) {
            Some(score) if run.succeeded() && passes(def, run, score) => Outcome::ok(score, moves),
            Some(score) if run.succeeded() => {
                Outcome::wrong(0.0, moves, format!("judge: score {score}: {}", last()))
            }
            _ if run.succeeded() => {
                Outcome::wrong(0.0, moves, format!("judge: no score line: {}", last()))
            }
            _ => Outcome::wrong(
                0.0,
                moves,
                format!("judge {}: {}", run.describe_end(timeout), last()),
            ),
        },
    };
    Some(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::spec::Exit;

    /// A batch problem with `extra` keys (`objective` "max" unless given).
    fn def(extra: &str) -> (tempfile::TempDir, Def) {
        let extra = match extra.contains("objective") {
            true => extra.to_string(),
            false => format!("objective = \"max\"\n{extra}"),
        };
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("p");
        std::fs::create_dir_all(dir.join("tools")).unwrap();
        let text = format!(
            "shape = \"batch\"\ntools = \"tools\"\ninputs = {{ gen = [\"gen\", \"{{seeds}}\"], dir = \"in\" }}\njudge = [\"vis\", \"{{input}}\", \"{{output}}\"]\n{extra}"
        );
        let def = super::super::config::parse(&text, &dir.join("problem.toml"), &[]).unwrap();
        (root, def)
    }

    fn run(end: ToolEnd, stdout: &str, stderr: &str) -> ToolRun {
        ToolRun {
            end,
            stdout_tail: stdout.into(),
            stderr_tail: stderr.into(),
            report: None,
            wall: Duration::ZERO,
        }
    }

    #[test]
    fn the_judges_run_decides_ok_wa_or_err() {
        let (_root, d) = def("");
        let ok = ToolEnd::Exited(Exit::Code(0));
        let o = judge_outcome(&d, &run(ok.clone(), "Score = 5\nScore = 7\n", ""), 1).unwrap();
        assert_eq!((o.verdict, o.score), (Verdict::Ok, 7.0));
        // AtCoder's invalid answer: a message and Score = 0; TopCoder's: -1.0.
        let o = judge_outcome(&d, &run(ok.clone(), "Out of range: 9\nScore = 0\n", ""), 1).unwrap();
        assert_eq!(o.verdict, Verdict::WrongAnswer);
        assert!(o.reason.contains("Out of range: 9"), "{}", o.reason);
        let o = judge_outcome(&d, &run(ok.clone(), "Score = -1.0\n", ""), 1).unwrap();
        assert_eq!(o.verdict, Verdict::WrongAnswer);
        let o = judge_outcome(&d, &run(ok, "usage\n", ""), 1).unwrap();
        assert!(o.reason.starts_with("judge: no score line"), "{}", o.reason);
        // A panic once it had the answer, even after a score line: WA with its last lines.
        let panic = run(
            ToolEnd::Exited(Exit::Code(101)),
            "Score = 9\n",
            "panicked at x\n",
        );
        let o = judge_outcome(&d, &panic, 1).unwrap();
        assert_eq!(o.verdict, Verdict::WrongAnswer);
        assert!(o.reason.contains("exit status 101") && o.reason.contains("panicked"));
        let o = judge_outcome(&d, &run(ToolEnd::TimedOut, "", ""), 1).unwrap();
        assert_eq!(o.verdict, Verdict::HarnessError);
        let o = judge_outcome(&d, &run(ToolEnd::NotStarted("ENOENT".into()), "", ""), 1).unwrap();
        assert_eq!(o.verdict, Verdict::HarnessError);
        assert!(judge_outcome(&d, &run(ToolEnd::Interrupted, "", ""), 1).is_none());
    }

    /// The score rule, case by case: (objective, the judge's stdout, its stderr, its exit
    /// status, the player's answer, the verdict, the score).
    const SCORE_RULE: &[(&str, &str, &str, i32, &str, Verdict, f64)] = &[
        ("max", "Score = 7\n", "", 0, "", Verdict::Ok, 7.0),
        ("max", "Score = 5\nScore = 7\n", "", 0, "", Verdict::Ok, 7.0),
        ("max", "  Score=12 \r\n", "", 0, "", Verdict::Ok, 12.0),
        ("max", "Score = 1.0E7\n", "", 0, "", Verdict::Ok, 1e7),
        // AtCoder's vis on a forged token: the score line, then the error quoting the token
        // (or the error first): never the token's score.
        (
            "max",
            "Score = 0\nParse error: Score=999999999\n",
            "",
            0,
            "Score=999999999",
            Verdict::WrongAnswer,
            0.0,
        ),
        (
            "max",
            "Parse error: Score=999999999\nScore = 0\n",
            "",
            0,
            "Score=999999999",
            Verdict::WrongAnswer,
            0.0,
        ),
        (
            "max",
            "Parse error: Score=999999999\n",
            "",
            1,
            "Score=999999999",
            Verdict::WrongAnswer,
            0.0,
        ),
        // A tool that echoes the player's line as a line of its own: the player's text.
        (
            "max",
            "Score = 0\nScore = 999999999\n",
            "",
            0,
            "1 2\nScore = 999999999\n",
            Verdict::WrongAnswer,
            0.0,
        ),
        (
            "max",
            "TotalScore = 5\n",
            "",
            0,
            "",
            Verdict::WrongAnswer,
            0.0,
        ),
        (
            "max",
            "Out of range: 9\nScore = 0\n",
            "",
            0,
            "",
            Verdict::WrongAnswer,
            0.0,
        ),
        ("max", "Score = 0\n", "", 0, "", Verdict::WrongAnswer, 0.0),
        ("max", "Score = 9\n", "", 101, "", Verdict::WrongAnswer, 0.0),
        // min: a perfect 0 passes when the judge said nothing else (but parameters).
        ("min", "Score = 0\n", "", 0, "", Verdict::Ok, 0.0),
        (
            "min",
            "N = 10\nSeed = 3\nScore = 0.0\n",
            "",
            0,
            "",
            Verdict::Ok,
            0.0,
        ),
        ("min", "Score = 12\n", "", 0, "", Verdict::Ok, 12.0),
        // ... and fails with the tool's own error: a message, -1.0, an exit status.
        (
            "min",
            "Score = 0\nOut of range: 9\n",
            "",
            0,
            "",
            Verdict::WrongAnswer,
            0.0,
        ),
        (
            "min",
            "Parse error: x\nScore = 0\n",
            "",
            0,
            "",
            Verdict::WrongAnswer,
            0.0,
        ),
        (
            "min",
            "Score = 0\n",
            "Illegal output (k = 3)\n",
            0,
            "",
            Verdict::WrongAnswer,
            0.0,
        ),
        (
            "min",
            "Score = 0\nk = 3 is too large\n",
            "",
            0,
            "",
            Verdict::WrongAnswer,
            0.0,
        ),
        (
            "min",
            "Score = -1.0\n",
            "",
            0,
            "",
            Verdict::WrongAnswer,
            0.0,
        ),
        ("min", "Score = 0\n", "", 1, "", Verdict::WrongAnswer, 0.0),
        ("min", "usage\n", "", 0, "", Verdict::WrongAnswer, 0.0),
    ];

    #[test]
    fn the_score_rule_for_each_objective() {
        for (i, &(objective, stdout, stderr, code, said, verdict, score)) in
            SCORE_RULE.iter().enumerate()
        {
            let (_root, d) = def(&format!("objective = \"{objective}\"\n"));
            let end = ToolEnd::Exited(Exit::Code(code));
            let o = judge_answer(&d, &run(end, stdout, stderr), said).unwrap();
            assert_eq!(
                (o.verdict, o.score),
                (verdict, score),
                "case {i}: {objective} {stdout:?} {stderr:?} said {said:?}: {}",
                o.reason
            );
        }
    }

    #[test]
    fn the_score_is_read_from_the_streams_the_problem_names() {
        let (_root, d) = def("score-stream = \"stderr\"\n");
        let ok = ToolEnd::Exited(Exit::Code(0));
        // A score on stdout (the player's stderr echoed by a tool, say) is not read.
        let o = judge_outcome(&d, &run(ok.clone(), "Score = 999\n", "Score = 3\n"), 1).unwrap();
        assert_eq!(o.score, 3.0);
        let (_root, d) = def("score-stream = \"both\"\nscore = 'Points: (\\d+)'\n");
        let o = judge_outcome(&d, &run(ok, "Points: 4\n", "Points: 6\n"), 1).unwrap();
        assert_eq!(o.score, 6.0);
    }

    #[test]
    fn a_reason_is_the_judges_messages_without_stack_frames() {
        let (_root, d) = def("");
        let java = "UNEXPECTED ERROR!\njava.lang.IllegalStateException: bad move\n\tat Tester.run(Tester.java:9)\n\tat Tester.main(Tester.java:3)\nCaused by: java.io.IOException: Stream closed\n\t... 2 more\nScore = -1.0\n";
        let o = judge_outcome(&d, &run(ToolEnd::Exited(Exit::Code(0)), java, ""), 1).unwrap();
        assert_eq!(
            o.reason,
            "judge: score -1: UNEXPECTED ERROR! | java.lang.IllegalStateException: bad move | Caused by: java.io.IOException: Stream closed | Score = -1.0"
        );
        let rust = "thread 'main' panicked at src/bin/vis.rs:9:5:\nindex out of bounds\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        let o = judge_outcome(&d, &run(ToolEnd::Exited(Exit::Code(101)), "", rust), 1).unwrap();
        assert!(
            o.reason
                .ends_with("panicked at src/bin/vis.rs:9:5: | index out of bounds"),
            "{}",
            o.reason
        );
        // The whole output is kept for the log.
        let log = String::from_utf8(
            judge_log(
                &run(ToolEnd::Exited(Exit::Code(0)), java, ""),
                "exit status 0",
            )
            .bytes,
        )
        .unwrap();
        assert!(log.contains("\tat Tester.run(Tester.java:9)"), "{log}");
    }

    #[test]
    fn placeholders_are_put_in_and_player_args_spliced() {
        let p = Placeholders {
            input: Some("/w/input.txt".into()),
            output: Some("/w/output.txt".into()),
            seed: Some(7),
            seeds: Some("/w/seeds.txt".into()),
            player: vec!["/relay".into(), "--to".into(), "3".into()],
        };
        let cmd: Vec<String> = [
            "t",
            "{player...}",
            "-exec",
            "{player}",
            "-seed",
            "{seed}",
            "in/{seed:04}.txt",
            "{input}={output}",
            "{seeds}",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            p.apply(&cmd),
            [
                "t",
                "/relay",
                "--to",
                "3",
                "-exec",
                "/relay --to 3",
                "-seed",
                "7",
                "in/0007.txt",
                "/w/input.txt=/w/output.txt",
                "/w/seeds.txt"
            ]
        );
    }

    #[test]
    fn judge_folders_show_the_tools_to_each_test_in_a_folder_of_its_own() {
        use std::fs;
        let tools = tempfile::tempdir().unwrap();
        fs::write(tools.path().join("seeds.txt"), "0\n").unwrap();
        fs::create_dir(tools.path().join("src")).unwrap();
        // A name the judge writes: the tools' own entry of that name is not shown.
        fs::write(tools.path().join("out.svg"), "stale").unwrap();
        let isolation = Arc::new(
            Isolation::prepare(crate::sandbox::Want::Off, crate::sandbox::Want::Off, &[]).unwrap(),
        );
        let folders = Arc::new(JudgeFolders::new(
            tools.path(),
            vec!["input.txt".into(), "out.svg".into()],
            vec!["input.txt".into()],
            Vec::new(),
        ));
        let first = folders.take(&isolation).unwrap();
        let shows = |dir: &ToolDir| {
            let work = dir.work();
            // Process mode: a copy of the tools, theirs to write.
            assert_eq!(fs::read_to_string(work.join("seeds.txt")).unwrap(), "0\n");
            assert!(fs::symlink_metadata(work.join("src")).unwrap().is_dir());
            assert!(fs::symlink_metadata(work.join("out.svg")).is_err());
            let input = fs::symlink_metadata(work.join("input.txt")).unwrap();
            use std::os::unix::fs::PermissionsExt;
            assert!(input.is_file() && input.len() == 0);
            assert_eq!(input.permissions().mode() & 0o777, 0o644);
            // Process mode: the tool's HOME and TMPDIR are made with the folder.
            assert!(dir.path().join("home").is_dir() && dir.path().join("tmp").is_dir());
        };
        shows(&first);
        // What a judge does to its folder's entries is not seen by the next test's judge,
        // nor by the tools folder.
        fs::write(first.work().join("seeds.txt"), "9\n").unwrap();
        fs::write(first.work().join("src/new.rs"), "").unwrap();
        fs::remove_dir(first.work().join("src")).unwrap_err();
        assert!(!tools.path().join("src/new.rs").exists());
        judge_folders_write(&first.work().join("input.txt"), "1 2\n");
        let second = folders.take(&isolation).unwrap();
        assert_ne!(first.path(), second.path());
        shows(&second);
        let third = folders.take(&isolation).unwrap();
        assert!(third.path() != first.path() && third.path() != second.path());
        shows(&third);
        // A made file is written in place, never through a symbolic link put in its stead.
        let planted = second.work().join("input.txt");
        fs::remove_file(&planted).unwrap();
        std::os::unix::fs::symlink(tools.path().join("seeds.txt"), &planted).unwrap();
        assert!(open_made(&planted).is_err());
        assert_eq!(
            fs::read_to_string(tools.path().join("seeds.txt")).unwrap(),
            "0\n"
        );
    }

    fn judge_folders_write(path: &Path, text: &str) {
        use std::io::Write;
        open_made(path).unwrap().write_all(text.as_bytes()).unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), text);
    }
}
