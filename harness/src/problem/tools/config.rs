//! `problem.toml`: a problem described by configuration alone, judged by a contest's own
//! tools. Read and checked once at start-up ([`super::discover`]); a mistake names the file
//! and the key: a usage error (exit 2) before anything runs when the command uses the
//! problem, one warning line otherwise.
//!
//! A problem is a folder holding `problem.toml`; its id is the folder's name. The folders are
//! `testcases/*/` that hold one, and those named by `[harness] problems = [...]` in
//! `scoring.toml` (relative to it). Paths inside `problem.toml` are relative to the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::config::{Objective, ProblemConfig};

/// How a test of the problem runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// The player reads the input on stdin and answers on stdout; then the judge scores
    /// the input and the answer (AtCoder's `vis <input> <output>`).
    Batch,
    /// The judge starts the player (through the relay) and talks to it (AtCoder's `tester`).
    Interactive,
    /// The judge makes the test from the seed and starts the player (TopCoder's tester.jar).
    Topcoder,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::Batch => "batch",
            Shape::Interactive => "interactive",
            Shape::Topcoder => "topcoder",
        }
    }
}

/// Which of the judge's streams holds its score line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stream {
    Stdout,
    Stderr,
    /// Both: the last match of stderr, else of stdout.
    Both,
}

/// How the harness stands between a tester that starts its player and the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RelayMode {
    /// The game proxies every line between the tester's pipes and the player's (the
    /// default): the thinking clock, the checks of every line, the transcript, `--verbose`.
    Proxy,
    /// The player is started on the tester's own pipes, nothing of the harness's in between:
    /// the tester's own speed per message, but no per-move clock (the time limit holds the
    /// player's CPU time), no line checks, no transcript of the game.
    Direct,
}

/// `problem.toml` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Raw {
    title: Option<String>,
    shape: Shape,
    objective: Objective,
    tools: PathBuf,
    build: Option<Vec<String>>,
    inputs: Option<RawInputs>,
    judge: Vec<String>,
    vis: Option<Vec<String>>,
    score: Option<String>,
    score_stream: Option<Stream>,
    #[serde(default)]
    params: Vec<String>,
    #[serde(default)]
    pictures: Vec<String>,
    #[serde(default)]
    hash_ignore: Vec<String>,
    judge_timeout: Option<f64>,
    judge_memory: Option<u64>,
    relay: Option<RelayMode>,
    max_starts: Option<i64>,
    limits: Option<toml::Table>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawInputs {
    gen: Option<Vec<String>>,
    dir: String,
    name: Option<String>,
}

/// How the input of a seed is made.
#[derive(Clone, Debug, PartialEq)]
pub enum Inputs {
    /// `gen` run over a seeds file in a fresh folder, writing `<dir>/0000.txt`.
    Gen { command: Vec<String>, dir: String },
    /// Ready files: `<dir>/<name>` with the seed put in `name` (`{seed}`, `{seed:04}`).
    Ready { dir: PathBuf, name: String },
    /// The judge makes the test itself from `{seed}` (TopCoder).
    ByJudge,
}

/// One problem judged by its tools, checked.
#[derive(Clone, Debug)]
pub struct Def {
    pub id: &'static str,
    pub title: &'static str,
    /// The `problem.toml` (for messages).
    pub file: PathBuf,
    pub shape: Shape,
    pub objective: Objective,
    /// The tools folder, absolute.
    pub tools: PathBuf,
    pub build: Option<Vec<String>>,
    pub inputs: Inputs,
    pub judge: Vec<String>,
    /// Interactive: the visualizer run over the input and the tester's output once the
    /// tester has ended, for its pictures only ([`super::drawing`]).
    pub vis: Option<Vec<String>>,
    pub score: regex::Regex,
    pub score_stream: Stream,
    pub params: &'static [&'static str],
    pub pictures: Vec<String>,
    /// Patterns left out of the tools' hash besides the defaults (`!p`: kept), see
    /// [`super::identity`].
    pub hash_ignore: Vec<String>,
    /// Seconds the judge (and gen) may run.
    pub judge_timeout: f64,
    /// MB of memory the judge (and gen) may use.
    pub judge_memory: u64,
    /// Interactive and TopCoder shapes: how the player is connected to the tester.
    pub relay: RelayMode,
    /// Interactive and TopCoder shapes: how many times the tester may start the player in
    /// one test (an edited tester playing more games per input), [`max_starts`].
    pub max_starts: u32,
    /// The `[limits]` table, checked (merged under scoring.toml's `[problem.<id>]`).
    pub limits: toml::Table,
    /// Every key of the file as read, in one canonical text (keys sorted, no comments): a
    /// part of the tools' identity ([`super::identity`]).
    pub keys: String,
}

impl Def {
    /// The test's parameters read from its input: the first tokens of the first line, one
    /// per name of `params` (empty where the line is shorter).
    pub fn params_of_input(&self, input: &str) -> Vec<String> {
        let first = input.lines().next().unwrap_or("");
        let mut tokens = crate::problem::tokens(first);
        self.params
            .iter()
            .map(|_| tokens.next().unwrap_or("").to_string())
            .collect()
    }
}

/// The default score line: a whole line `Score = N` (an integer, a decimal, `1.0E7`,
/// `-1.0`; spaces around `=` and at either end optional). A whole line only: AtCoder's tools
/// quote a player's bad token in their error line (`Parse error: Score=999999999`), which
/// must never read as the judge's score. Patterns are matched line by line (`^` and `$` are
/// a line's ends).
pub const DEFAULT_SCORE: &str =
    r"^[ \t]*Score[ \t]*=[ \t]*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)[ \t]*\r?$";

/// Placeholders a command may hold.
const PLACEHOLDERS: [&str; 7] = [
    "{input}",
    "{output}",
    "{seed}",
    "{seed:04}",
    "{seeds}",
    "{player}",
    "{player...}",
];

/// The folders holding a `problem.toml`: `testcases/*/` and `extra` (relative to `base`, the
/// folder of scoring.toml), in that order, each once.
pub fn folders(testcases: &Path, base: &Path, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(testcases)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("problem.toml").is_file())
        .collect();
    found.sort();
    for dir in extra {
        found.push(base.join(dir));
    }
    found
}

/// Reads one `problem.toml`.
pub fn load(file: &Path, builtin: &[&str]) -> Result<Def, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    parse(&text, file, builtin)
}

/// What the checks of one `problem.toml` say a mistake with: the file, the key, the message.
type At<'a> = &'a dyn Fn(&str, String) -> String;

/// Parses and checks the text of `file`. Errors name the file and the key; the checks run
/// in the order of the steps, so a file with several mistakes is told the first.
pub fn parse(text: &str, file: &Path, builtin: &[&str]) -> Result<Def, String> {
    let at = |key: &str, message: String| format!("{}: {key}: {message}", file.display());
    let mut raw: Raw = toml::from_str(text).map_err(|e| format!("{}: {e}", file.display()))?;
    let keys = canonical(text);
    let folder = file.parent().unwrap_or(Path::new("."));
    let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    let id = problem_id(&folder, builtin, &at)?;
    let tools = tools_and_build(&folder, &raw, &at)?;
    check_judge(&raw, &at)?;
    let inputs = read_inputs(raw.shape, raw.inputs.take(), &folder, &at)?;
    let (score, score_stream) = read_score(&raw, &at)?;
    check_names(&raw, &at)?;
    let vis = super::drawing::check(raw.shape, raw.vis.take(), &raw.pictures, &at)?;
    check_hash_ignore(&raw.hash_ignore, &at)?;
    let (judge_timeout, judge_memory) = judge_limits(&raw, &at)?;
    let relay = read_relay(&raw, &at)?;
    let max_starts = max_starts(raw.shape, relay, raw.max_starts, &at)?;
    let limits = read_limits(raw.limits.take(), raw.objective, &at)?;
    let params: Vec<&'static str> = raw.params.into_iter().map(leak).collect();
    Ok(Def {
        title: leak(raw.title.unwrap_or_else(|| id.clone())),
        id: leak(id),
        file: file.to_path_buf(),
        shape: raw.shape,
        objective: raw.objective,
        tools,
        build: raw.build,
        inputs,
        judge: raw.judge,
        vis,
        score,
        score_stream,
        params: Box::leak(params.into_boxed_slice()),
        pictures: raw.pictures,
        hash_ignore: raw.hash_ignore,
        judge_timeout,
        judge_memory,
        relay,
        max_starts,
        limits,
        keys,
    })
}

/// The problem's id: its folder's name, of letters, digits, - and _, and no built-in
/// problem's.
fn problem_id(folder: &Path, builtin: &[&str], at: At) -> Result<String, String> {
    let id = folder
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(at(
            "id",
            format!("the folder's name {id:?} is the problem's id: use letters, digits, - and _"),
        ));
    }
    if builtin.contains(&id.as_str()) {
        return Err(at(
            "id",
            format!("{id:?} is a built-in problem: name the folder otherwise"),
        ));
    }
    Ok(id)
}

/// The tools folder, absolute (it must be one), and a `build` command that is not empty.
fn tools_and_build(folder: &Path, raw: &Raw, at: At) -> Result<PathBuf, String> {
    let tools = folder.join(&raw.tools);
    if !tools.is_dir() {
        return Err(at("tools", format!("{} is not a folder", tools.display())));
    }
    let tools = std::fs::canonicalize(&tools).unwrap_or(tools);
    if let Some(build) = &raw.build {
        if build.is_empty() {
            return Err(at(
                "build",
                "an empty command (leave the key out instead)".into(),
            ));
        }
    }
    Ok(tools)
}

/// The judge's command, with the placeholders its shape needs (and none it must not have).
fn check_judge(raw: &Raw, at: At) -> Result<(), String> {
    check_command("judge", &raw.judge, at)?;
    let needs = |p: &str| raw.judge.iter().any(|a| a.contains(p));
    match raw.shape {
        Shape::Batch if !(needs("{output}")) => {
            return Err(at(
                "judge",
                "a batch judge must be given the player's answer: {output}".into(),
            ))
        }
        Shape::Interactive if !needs("{player...}") => {
            return Err(at(
                "judge",
                "an interactive judge starts the player: put {player...} where its command goes"
                    .into(),
            ))
        }
        Shape::Topcoder if !needs("{player}") => {
            return Err(at(
                "judge",
                "a topcoder judge starts the player: put {player} where its command goes (-exec)"
                    .into(),
            ))
        }
        // Else every seed would play the tester's default test, and a keyed run's seeds
        // would be keyed in name only.
        Shape::Topcoder if !needs("{seed}") && !needs("{seed:04}") => {
            return Err(at(
                "judge",
                "a topcoder judge makes its test from the seed: put {seed} where its seed goes (-seed {seed})"
                    .into(),
            ))
        }
        _ => {}
    }
    if raw.shape != Shape::Topcoder && (needs("{player}") && raw.shape == Shape::Batch) {
        return Err(at(
            "judge",
            "a batch judge never starts the player: no {player}".into(),
        ));
    }
    Ok(())
}

/// How the inputs are made: by a TopCoder judge itself, else by `gen` or from ready files.
fn read_inputs(
    shape: Shape,
    given: Option<RawInputs>,
    folder: &Path,
    at: At,
) -> Result<Inputs, String> {
    match (shape, given) {
        (Shape::Topcoder, None) => Ok(Inputs::ByJudge),
        (Shape::Topcoder, Some(_)) => Err(at(
            "inputs",
            "a topcoder judge makes its tests from {seed}: no inputs".into(),
        )),
        (_, None) => Err(at(
            "inputs",
            "missing: { gen = [...], dir = \"in\" } or { dir = \"...\", name = \"{seed:04}.txt\" }"
                .into(),
        )),
        (
            _,
            Some(RawInputs {
                gen: Some(gen),
                dir,
                name: None,
            }),
        ) => gen_inputs(gen, dir, at),
        (
            _,
            Some(RawInputs {
                gen: Some(_),
                name: Some(_),
                ..
            }),
        ) => Err(at(
            "inputs.name",
            "either gen (inputs made from the seeds) or name (ready files), not both".into(),
        )),
        (
            _,
            Some(RawInputs {
                gen: None,
                dir,
                name,
            }),
        ) => ready_inputs(folder, dir, name, at),
    }
}

/// Inputs made by `gen` over the seeds file, in `dir` of its working folder.
fn gen_inputs(gen: Vec<String>, dir: String, at: At) -> Result<Inputs, String> {
    check_command("inputs.gen", &gen, at)?;
    if !gen.iter().any(|a| a.contains("{seeds}")) {
        return Err(at(
            "inputs.gen",
            "gen must be given the seeds file: {seeds}".into(),
        ));
    }
    check_relative("inputs.dir", &dir, at)?;
    Ok(Inputs::Gen { command: gen, dir })
}

/// Ready inputs: files of the folder `dir` named by the seed.
fn ready_inputs(
    folder: &Path,
    dir: String,
    name: Option<String>,
    at: At,
) -> Result<Inputs, String> {
    let name = name.unwrap_or_else(|| "{seed:04}.txt".to_string());
    if !name.contains("{seed}") && !name.contains("{seed:04}") {
        return Err(at(
            "inputs.name",
            format!("{name:?} does not hold {{seed}} or {{seed:04}}"),
        ));
    }
    let dir = folder.join(dir);
    if !dir.is_dir() {
        return Err(at(
            "inputs.dir",
            format!("{} is not a folder", dir.display()),
        ));
    }
    Ok(Inputs::Ready { dir, name })
}

/// The score line's pattern (one group: the number) and the judge's stream that holds it.
fn read_score(raw: &Raw, at: At) -> Result<(regex::Regex, Stream), String> {
    let pattern = raw.score.as_deref().unwrap_or(DEFAULT_SCORE);
    let score = regex::RegexBuilder::new(pattern)
        .multi_line(true)
        .build()
        .map_err(|e| at("score", e.to_string()))?;
    if score.captures_len() != 2 {
        return Err(at(
            "score",
            format!(
                "the pattern must hold exactly one group (the number), it holds {}",
                score.captures_len() - 1
            ),
        ));
    }
    let score_stream = raw.score_stream.unwrap_or(match raw.shape {
        Shape::Batch | Shape::Topcoder => Stream::Stdout,
        Shape::Interactive => Stream::Stderr,
    });
    Ok((score, score_stream))
}

/// The parameters' names and the pictures' file names.
fn check_names(raw: &Raw, at: At) -> Result<(), String> {
    for p in &raw.params {
        if p.is_empty() || !p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(at(
                "params",
                format!("{p:?}: a name of letters, digits and _"),
            ));
        }
    }
    let mut last_parts: Vec<&str> = Vec::new();
    for p in &raw.pictures {
        check_relative("pictures", p, at)?;
        if p.split('/').any(|c| c.is_empty() || c == ".") {
            return Err(at(
                "pictures",
                format!("{p:?}: a file in the judge's working folder or a folder of it (`out.svg`, `vis/{{seed}}.png`)"),
            ));
        }
        let (folder, last) = super::drawing::folder_and_file(p);
        if folder.contains('{') {
            return Err(at(
                "pictures",
                format!("{p:?}: the seed may name the file, not its folder (`vis/{{seed}}.png`)"),
            ));
        }
        // A picture is kept under its file's own name: two of one name would be one.
        if last_parts.contains(&last) {
            return Err(at(
                "pictures",
                format!("{p:?}: another picture has the file name {last:?}; each is kept under its file's name"),
            ));
        }
        last_parts.push(last);
    }
    Ok(())
}

/// `hash-ignore`: patterns inside the tools folder.
fn check_hash_ignore(patterns: &[String], at: At) -> Result<(), String> {
    for p in patterns {
        let bare = p.trim_start_matches('!');
        if bare.trim_matches('/').is_empty() || bare.split('/').any(|c| c == "..") {
            return Err(at(
                "hash-ignore",
                format!("{p:?}: a file or folder pattern inside the tools folder (`*.log`, `data/`, `!in`)"),
            ));
        }
    }
    Ok(())
}

/// The seconds and MB the judge (and gen) may use.
fn judge_limits(raw: &Raw, at: At) -> Result<(f64, u64), String> {
    let judge_timeout = raw.judge_timeout.unwrap_or(60.0);
    if !(judge_timeout > 0.0 && judge_timeout.is_finite()) {
        return Err(at(
            "judge-timeout",
            format!("{judge_timeout}: a positive number of seconds"),
        ));
    }
    let judge_memory = raw.judge_memory.unwrap_or(2048);
    if judge_memory == 0 {
        return Err(at("judge-memory", "at least 1 MB".into()));
    }
    Ok((judge_timeout, judge_memory))
}

/// `relay`: the proxy unless it says otherwise, and none for a batch judge.
fn read_relay(raw: &Raw, at: At) -> Result<RelayMode, String> {
    if raw.shape == Shape::Batch && raw.relay.is_some() {
        return Err(at(
            "relay",
            "a batch judge never starts the player: there is no relay (leave it out)".into(),
        ));
    }
    Ok(raw.relay.unwrap_or(RelayMode::Proxy))
}

/// The `[limits]` table, checked as a `[problem.<id>]` table is, and agreeing with the
/// problem's objective.
fn read_limits(
    limits: Option<toml::Table>,
    objective: Objective,
    at: At,
) -> Result<toml::Table, String> {
    let limits = limits.unwrap_or_default();
    let checked: ProblemConfig = limits
        .clone()
        .try_into()
        .map_err(|e: toml::de::Error| at("limits", e.message().to_string()))?;
    if checked.objective.is_some_and(|o| o != objective) {
        return Err(at(
            "limits.objective",
            "contradicts the problem's objective (leave it out)".into(),
        ));
    }
    if !(checked.time_limit > 0.0 && checked.time_limit.is_finite()) {
        return Err(at(
            "limits.time-limit",
            "a positive number of seconds".into(),
        ));
    }
    Ok(limits)
}

/// The most starts of the player a tester may make in one test when `max-starts` is left
/// out: an edited tester plays two games per input (the player's and a "ground truth" or
/// baseline game), three leaves room for one more, and a tester that starts its player in
/// a loop is stopped after a few (its time, `judge-timeout` plus this many time limits,
/// grows with the cap).
pub const DEFAULT_MAX_STARTS: u32 = 3;

/// `max-starts`, checked: from 1 to 100, interactive and TopCoder shapes only, and 1 with
/// `relay = "direct"` (the harness sees no game there to tell one start from the next:
/// left out, it is 1).
fn max_starts(
    shape: Shape,
    relay: RelayMode,
    given: Option<i64>,
    at: &dyn Fn(&str, String) -> String,
) -> Result<u32, String> {
    let key = "max-starts";
    let Some(n) = given else {
        return Ok(match (shape, relay) {
            (Shape::Batch, _) | (_, RelayMode::Direct) => 1,
            _ => DEFAULT_MAX_STARTS,
        });
    };
    if shape == Shape::Batch {
        let why = "a batch judge never starts the player (leave it out)";
        return Err(at(key, why.into()));
    }
    if !(1..=100).contains(&n) {
        return Err(at(key, format!("{n}: a number of starts from 1 to 100")));
    }
    if n > 1 && relay == RelayMode::Direct {
        let why = format!(
            "{n}: relay = \"direct\" starts the player once per test (the harness sees none of its games); use the proxy (leave `relay` out) for a tester that plays more games"
        );
        return Err(at(key, why));
    }
    Ok(n as u32)
}

/// The keys of a TOML text in one canonical text: sorted, without comments or layout.
fn canonical(text: &str) -> String {
    fn put(value: &toml::Value, out: &mut String) {
        match value {
            toml::Value::Table(table) => {
                let mut keys: Vec<&String> = table.keys().collect();
                keys.sort();
                out.push('{');
                for key in keys {
                    out.push_str(&toml::Value::String(key.clone()).to_string());
                    out.push('=');
                    put(&table[key], out);
                    out.push(',');
                }
                out.push('}');
            }
            toml::Value::Array(items) => {
                out.push('[');
                for item in items {
                    put(item, out);
                    out.push(',');
                }
                out.push(']');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }
    let table: toml::Table = text.parse().unwrap_or_default();
    let mut out = String::new();
    put(&toml::Value::Table(table), &mut out);
    out
}

/// The few strings of a loaded problem live as long as the process (ids are `&'static str`
/// everywhere); they are read once per process.
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

pub(super) fn check_command(
    key: &str,
    command: &[String],
    at: &dyn Fn(&str, String) -> String,
) -> Result<(), String> {
    if command.is_empty() || command[0].is_empty() {
        return Err(at(key, "an empty command".into()));
    }
    // A `{` without its `}` is not taken for a placeholder.
    let closed = |w: &&str| w.ends_with('}');
    for word in command.iter().flat_map(|a| braced(a)).filter(closed) {
        if !PLACEHOLDERS.contains(&word) {
            return Err(at(
                key,
                format!(
                    "unknown placeholder {word} (known: {})",
                    PLACEHOLDERS.join(" ")
                ),
            ));
        }
    }
    if let Some(i) = command.iter().position(|a| a.contains("{player...}")) {
        if command[i] != "{player...}" {
            return Err(at(
                key,
                "{player...} stands for several arguments: it must be an argument by itself".into(),
            ));
        }
    }
    Ok(())
}

/// The words of `text` that open with `{`, each up to its `}` (included), or to the end of
/// `text` when it is never closed (the last word, then).
pub(super) fn braced(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let open = rest.find('{')?;
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
        let word = &rest[open..close];
        rest = &rest[close..];
        Some(word)
    })
}

fn check_relative(
    key: &str,
    path: &str,
    at: &dyn Fn(&str, String) -> String,
) -> Result<(), String> {
    let p = Path::new(path);
    if path.is_empty()
        || p.is_absolute()
        || p.components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(at(
            key,
            format!("{path:?}: a relative path inside the working folder"),
        ));
    }
    Ok(())
}

/// The `[problem.<id>]` settings of a loaded problem: its `[limits]`, with the keys of
/// scoring.toml's own `[problem.<id>]` table (the raw `given`, when there is one) on top.
pub fn merged_limits(def: &Def, given: Option<&toml::Table>) -> Result<ProblemConfig, String> {
    let mut table = def.limits.clone();
    for (k, v) in given.into_iter().flatten() {
        table.insert(k.clone(), v.clone());
    }
    table
        .try_into()
        .map_err(|e: toml::de::Error| format!("[problem.{}]: {}", def.id, e.message()))
}

/// `[harness] problems` of a scoring.toml text, read before the whole file is checked (the
/// problems it names must be known to check `[problem.<id>]` tables). Other mistakes are
/// left to the full parse.
pub fn named_in_scoring(text: &str) -> (Vec<PathBuf>, BTreeMap<String, toml::Table>) {
    let Ok(table) = text.parse::<toml::Table>() else {
        return (Vec::new(), BTreeMap::new());
    };
    let problems = table
        .get("harness")
        .and_then(|h| h.get("problems"))
        .and_then(|p| p.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(PathBuf::from))
                .collect()
        })
        .unwrap_or_default();
    let tables = table
        .get("problem")
        .and_then(|p| p.as_table())
        .map(|t| {
            t.iter()
                .filter_map(|(k, v)| v.as_table().map(|t| (k.clone(), t.clone())))
                .collect()
        })
        .unwrap_or_default();
    (problems, tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(id: &str) -> (tempfile::TempDir, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join(id);
        std::fs::create_dir_all(dir.join("tools/in")).unwrap();
        (root, dir.join("problem.toml"))
    }

    const BATCH: &str = r#"
shape = "batch"
objective = "max"
tools = "tools"
inputs = { gen = ["gen", "{seeds}"], dir = "in" }
judge = ["vis", "{input}", "{output}"]
"#;

    #[test]
    fn a_batch_problem_takes_defaults() {
        let (_root, file) = folder("my-batch");
        let def = parse(BATCH, &file, &["linez"]).unwrap();
        assert_eq!(def.id, "my-batch");
        assert_eq!(def.title, "my-batch");
        assert_eq!(def.score_stream, Stream::Stdout);
        assert_eq!(def.judge_timeout, 60.0);
        assert!(matches!(def.inputs, Inputs::Gen { .. }));
        let cfg = merged_limits(&def, None).unwrap();
        assert_eq!(cfg, ProblemConfig::default());
    }

    #[test]
    fn a_picture_may_be_in_a_folder_of_the_working_folder() {
        let (_root, file) = folder("p");
        let text = format!("{BATCH}pictures = ['vis/{{seed}}.png', 'out.svg']\n");
        let def = parse(&text, &file, &[]).unwrap();
        assert_eq!(def.pictures, ["vis/{seed}.png", "out.svg"]);
    }

    #[test]
    fn mistakes_name_the_file_and_the_key() {
        let (_root, file) = folder("p");
        let cases = [
            (BATCH.replace("objective", "objectiv"), "objectiv"),
            (BATCH.replace("\"batch\"", "\"bach\""), "bach"),
            (
                BATCH.replace("{seeds}", "{sed}"),
                "inputs.gen: unknown placeholder {sed}",
            ),
            (BATCH.replace("{output}", "out.txt"), "judge: a batch judge"),
            (
                format!("{BATCH}score = 'Score ='\n"),
                "score: the pattern must hold exactly one",
            ),
            (format!("{BATCH}score = '('\n"), "score:"),
            (format!("{BATCH}judge-timeout = 0\n"), "judge-timeout"),
            (format!("{BATCH}pictures = ['../b.svg']\n"), "pictures"),
            (format!("{BATCH}pictures = ['vis/']\n"), "pictures"),
            (
                format!("{BATCH}pictures = ['{{seed}}/b.svg']\n"),
                "pictures: \"{seed}/b.svg\": the seed may name the file, not its folder",
            ),
            (
                format!("{BATCH}pictures = ['a/b.svg', 'b.svg']\n"),
                "another picture has the file name \"b.svg\"",
            ),
            (
                format!("{BATCH}[limits]\ntime-limt = 3\n"),
                "limits: unknown field `time-limt`",
            ),
            (BATCH.replace("\"tools\"", "\"nowhere\""), "tools: "),
        ];
        for (text, want) in cases {
            let err = parse(&text, &file, &[]).unwrap_err();
            assert!(err.contains("problem.toml"), "{err}");
            assert!(err.contains(want), "{want:?} not in {err}");
        }
    }

    #[test]
    fn a_builtin_id_is_refused_and_limits_merge_under_scoring() {
        let (_root, file) = folder("linez");
        let err = parse(BATCH, &file, &["linez"]).unwrap_err();
        assert!(err.contains("built-in"), "{err}");
        let (_root, file) = folder("p");
        let text = format!("{BATCH}[limits]\ntime-limit = 3\nmemory-limit = 64\n");
        let def = parse(&text, &file, &[]).unwrap();
        let given: toml::Table = "time-limit = 7".parse().unwrap();
        let cfg = merged_limits(&def, Some(&given)).unwrap();
        assert_eq!((cfg.time_limit, cfg.memory_limit), (7.0, 64));
    }

    /// [`BATCH`] as an interactive problem (its judge a tester starting the player).
    fn interactive() -> String {
        BATCH.replace("batch", "interactive").replace(
            r#"["vis", "{input}", "{output}"]"#,
            r#"["tester", "{player...}"]"#,
        )
    }

    #[test]
    fn shapes_need_their_placeholders() {
        let (_root, file) = folder("p");
        let inter = interactive();
        let def = parse(&inter, &file, &[]).unwrap();
        assert_eq!(def.score_stream, Stream::Stderr);
        let tc = r#"
shape = "topcoder"
objective = "min"
tools = "tools"
judge = ["java", "-jar", "tester.jar", "-exec", "{player}", "-seed", "{seed}"]
"#;
        let def = parse(tc, &file, &[]).unwrap();
        assert_eq!(def.inputs, Inputs::ByJudge);
        let err = parse(&tc.replace("{player}", "x"), &file, &[]).unwrap_err();
        assert!(err.contains("judge: a topcoder judge"), "{err}");
        // Without the seed every test would be the tester's default one.
        let err = parse(
            &tc.replace("\"-seed\", \"{seed}\"", "\"-debug\""),
            &file,
            &[],
        )
        .unwrap_err();
        assert!(
            err.contains("problem.toml: judge: a topcoder judge makes its test from the seed"),
            "{err}"
        );
        let padded = tc.replace("{seed}", "{seed:04}");
        assert_eq!(parse(&padded, &file, &[]).unwrap().inputs, Inputs::ByJudge);
    }

    #[test]
    fn the_relay_is_a_proxy_unless_direct_is_asked_for_and_batch_has_none() {
        let (_root, file) = folder("p");
        let inter = interactive();
        assert_eq!(parse(&inter, &file, &[]).unwrap().relay, RelayMode::Proxy);
        let direct = format!("{inter}relay = \"direct\"\n");
        assert_eq!(parse(&direct, &file, &[]).unwrap().relay, RelayMode::Direct);
        let proxy = format!("{inter}relay = \"proxy\"\n");
        assert_eq!(parse(&proxy, &file, &[]).unwrap().relay, RelayMode::Proxy);
        let err = parse(&format!("{inter}relay = \"fast\"\n"), &file, &[]).unwrap_err();
        assert!(
            err.contains("problem.toml") && err.contains("fast"),
            "{err}"
        );
        let err = parse(&format!("{BATCH}relay = \"direct\"\n"), &file, &[]).unwrap_err();
        assert!(err.contains("relay: a batch judge"), "{err}");
    }

    #[test]
    fn max_starts_defaults_to_a_few_and_is_one_with_direct() {
        let (_root, file) = folder("p");
        let inter = interactive();
        let def = parse(&inter, &file, &[]).unwrap();
        assert_eq!(def.max_starts, DEFAULT_MAX_STARTS);
        let two = parse(&format!("{inter}max-starts = 2\n"), &file, &[]).unwrap();
        assert_eq!(two.max_starts, 2);
        let direct = format!("{inter}relay = \"direct\"\n");
        assert_eq!(parse(&direct, &file, &[]).unwrap().max_starts, 1);
        let one = parse(&format!("{direct}max-starts = 1\n"), &file, &[]).unwrap();
        assert_eq!(one.max_starts, 1);
        let refused = [
            (
                format!("{direct}max-starts = 2\n"),
                "max-starts: 2: relay = \"direct\"",
            ),
            (
                format!("{inter}max-starts = 0\n"),
                "max-starts: 0: a number",
            ),
            (
                format!("{inter}max-starts = 101\n"),
                "max-starts: 101: a number",
            ),
            (
                format!("{BATCH}max-starts = 2\n"),
                "max-starts: a batch judge",
            ),
        ];
        for (text, want) in refused {
            let err = parse(&text, &file, &[]).unwrap_err();
            assert!(err.contains("problem.toml: max-starts"), "{err}");
            assert!(err.contains(want), "{want:?} not in {err}");
        }
    }

    #[test]
    fn braced_words_end_at_their_brace_or_at_the_end() {
        let words: Vec<&str> = braced("in/{seed:04}.txt{x}{open").collect();
        assert_eq!(words, ["{seed:04}", "{x}", "{open"]);
        assert_eq!(braced("no placeholder").count(), 0);
        // A command keeps an unclosed `{` as text; a picture's name is refused for it.
        let (_root, file) = folder("p");
        assert!(parse(
            &BATCH.replace("\"{seeds}\"", "\"{seeds}\", \"a{b\""),
            &file,
            &[]
        )
        .is_ok());
        let err = parse(&format!("{BATCH}pictures = ['p{{seed']\n"), &file, &[]).unwrap_err();
        assert!(err.contains("pictures") && err.contains("{seed"), "{err}");
    }

    #[test]
    fn default_score_reads_what_contest_tools_print() {
        let (_root, file) = folder("p");
        let re = parse(BATCH, &file, &[]).unwrap().score;
        for (line, want) in [
            ("Score = 123456", "123456"),
            ("Score = -1.0", "-1.0"),
            ("Score = 1.0E7", "1.0E7"),
            ("Score=5", "5"),
            ("  Score = 7 \r", "7"),
        ] {
            assert_eq!(&re.captures(line).unwrap()[1], want);
        }
        // Only a whole line: a player's token quoted in an error line is not a score.
        for line in [
            "Parse error: Score=999999999",
            "Score = 5 (best 9)",
            "TotalScore = 5",
        ] {
            assert!(!re.is_match(line), "{line}");
        }
    }
}
