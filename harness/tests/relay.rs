//! Problems whose contest tool starts the player itself (issue 27: AtCoder's interactive
//! `tester`, TopCoder's `tester.jar`), end to end through the harness binary: the tool gets
//! the relay's command and the player stays the harness's (`sandbox::relay`,
//! `problem::tools::relayed`).
//!
//! - On the shipped examples (`testcases/tools-interactive`, `testcases/tools-topcoder`):
//!   scores equal to running the tool by hand with the same player, the same at 1 and 2
//!   threads; the bad players of `tests/fixtures/tool-players` get the verdicts of a
//!   built-in problem.
//! - On a workspace of their own (a shell-script tester): a tool that crashes or hangs before
//!   the player answers is ERR and `--resume` runs it again; a tool that crashes once the
//!   player answered is WA; a hostile player started through the relay stays in its sandbox.
//!
//! The TopCoder tests need Java. Without it they fail, unless the environment variable
//! `HARNESS_SKIP` holds `java`: then they say what they leave out and pass.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

use support::tools::{by_seed as by_seed_of, ToolsWorkspace, DOUBLE, SEEDS_GEN};
use support::{expect_exit, harness, root, rows_of, scores, stderr_log};

/// One harness run at a time: runs build the shipped tools in place (cargo, javac).
static RUN: Mutex<()> = Mutex::new(());

fn run(args: &[&str]) -> Output {
    let _guard = RUN.lock().unwrap_or_else(|e| e.into_inner());
    harness().args(args).output().expect("harness runs")
}

/// Runs `command` (a harness in a workspace of the test's own).
fn run_in(mut command: Command) -> Output {
    let _guard = RUN.lock().unwrap_or_else(|e| e.into_inner());
    command.output().expect("harness runs")
}

/// Whether Java can run the TopCoder tests: `false` only when the `java` switch is on
/// (`HARNESS_SKIP=java`; the skip is recorded and listed by `scripts/test`). Java missing
/// otherwise fails the test, naming the package and the switch.
fn java_or_skip(_test: &str) -> bool {
    support::needs("java", &[("java", "default-jdk-headless")])
}

/// A player folder: `player.toml` naming `problem` and running `python3 main.py`.
fn python_player(parent: &Path, name: &str, problem: &str, script: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("player.toml"),
        format!("problem = \"{problem}\"\ncommand = [\"python3\", \"main.py\"]\n"),
    )
    .unwrap();
    std::fs::write(dir.join("main.py"), script).unwrap();
    dir
}

/// Treasure Radar: query cells row by row; name the first M that answer 0.
const RADAR: &str = r#"import sys
n, m = map(int, sys.stdin.readline().split())
found = []
for r in range(n):
    for c in range(n):
        if len(found) < m:
            print("?", r, c, flush=True)
            if sys.stdin.readline().strip() == "0":
                found.append(f"{r} {c}")
print("!", " ".join(found), flush=True)
"#;

/// Knapsack Pick: take items in index order while they fit.
const KNAPSACK: &str = r#"import sys
n = int(sys.stdin.readline())
cap = int(sys.stdin.readline())
items = [tuple(map(int, sys.stdin.readline().split())) for _ in range(n)]
chosen, used = [], 0
for i, (w, v) in enumerate(items):
    if used + w <= cap:
        chosen.append(i)
        used += w
print(len(chosen))
for i in chosen:
    print(i)
sys.stdout.flush()
"#;

/// The `Score = X` of a tool's text (the last one).
fn score_in(text: &str) -> Option<f64> {
    text.lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("Score = "))
        .and_then(|s| s.trim().parse().ok())
}

/// (seed, score, verdict, moves) of every row, in seed order.
fn results_of(results: &Path) -> Vec<(u64, String, String, String)> {
    let mut rows: Vec<_> = scores(results)
        .iter()
        .map(|r| {
            (
                r["seed"].parse::<u64>().unwrap(),
                r["score"].clone(),
                r["verdict"].clone(),
                r["moves"].clone(),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// Runs `player` on `seeds` at 1 and at 2 threads; both runs must agree, every test OK.
fn both_thread_counts(
    player: &Path,
    seeds: &str,
    tmp: &Path,
) -> Vec<(u64, String, String, String)> {
    let mut runs = Vec::new();
    for threads in ["1", "2"] {
        let results = tmp.join(format!("results-{threads}"));
        let out = run(&[
            "--players",
            player.to_str().unwrap(),
            "--seeds",
            seeds,
            "--threads",
            threads,
            "--results",
            results.to_str().unwrap(),
        ]);
        expect_exit(&out, 0);
        runs.push(results_of(&results));
    }
    assert_eq!(runs[0], runs[1], "1 thread and 2 threads disagree");
    for (seed, _, verdict, _) in &runs[0] {
        assert_eq!(verdict, "OK", "seed {seed}: {:?}", runs[0]);
    }
    runs.remove(0)
}

#[test]
fn interactive_scores_equal_the_tester_run_by_hand_at_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let player = python_player(tmp.path(), "radar", "tools-interactive", RADAR);
    let rows = both_thread_counts(&player, "0..5", tmp.path());
    assert_eq!(rows.len(), 6);
    // The tester built by the runs (in the harness's cache), by hand, on the contest's own
    // input files.
    let tools = root().join("testcases/tools-interactive/tools");
    let built = support::built_tools(&tmp.path().join("results-1"), "tools-interactive");
    for (seed, score, _, moves) in rows {
        let input = std::fs::File::open(tools.join(format!("in/{seed:04}.txt"))).unwrap();
        let out = Command::new(built.join("target/release/tester"))
            .args(["python3", player.join("main.py").to_str().unwrap()])
            .stdin(input)
            .output()
            .unwrap();
        let by_hand = score_in(&String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            Some(score.parse::<f64>().unwrap()),
            by_hand,
            "seed {seed}: the harness's score against the tester's own"
        );
        // Every line the player wrote is one move: its queries and its answer.
        let lines = String::from_utf8_lossy(&out.stdout).lines().count();
        assert_eq!(moves, lines.to_string(), "seed {seed}: moves");
    }
}

#[test]
fn topcoder_scores_equal_the_jar_run_by_hand_at_any_thread_count() {
    if !java_or_skip("topcoder_scores_equal_the_jar_run_by_hand_at_any_thread_count") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let player = python_player(tmp.path(), "knapsack", "tools-topcoder", KNAPSACK);
    let rows = both_thread_counts(&player, "1..5", tmp.path());
    assert_eq!(rows.len(), 5);
    let tools = support::built_tools(&tmp.path().join("results-1"), "tools-topcoder");
    let exec = format!("python3 {}", player.join("main.py").display());
    for (seed, score, _, _) in rows {
        let out = Command::new("java")
            .args(["-jar", "tester.jar", "-exec", &exec, "-novis", "-no"])
            .args(["-seed", &seed.to_string()])
            .current_dir(&tools)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let by_hand = score_in(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(
            Some(score.parse::<f64>().unwrap()),
            by_hand,
            "seed {seed}: the harness's score against the jar's own"
        );
    }
    // The test's parameters come from the jar's `-debug` lines.
    let rows = scores(&tmp.path().join("results-1"));
    assert!(
        rows.iter().all(|r| r["N"].parse::<u32>().is_ok()),
        "{rows:?}"
    );
}

/// The harness's arguments running `first` (player folders) and the bad players of one shape
/// (`tests/fixtures/tool-players/tools-<shape>-*`) on `seed` with a 5 s time limit at 2
/// tests at once into `results`.
fn bad_players_args(first: &[&Path], shape: &str, seed: &str, results: &Path) -> Vec<String> {
    let fixtures = root().join("harness/tests/fixtures/tool-players");
    let kinds = ["crash", "hang", "flood", "wrong", "noflush"];
    let mut args = vec!["--players".to_string()];
    args.extend(first.iter().map(|p| p.display().to_string()));
    args.extend(kinds.iter().map(|k| {
        fixtures
            .join(format!("tools-{shape}-{k}"))
            .display()
            .to_string()
    }));
    let flags = ["--seeds", seed, "--time-limit", "5", "--threads", "2"];
    args.extend(flags.map(String::from));
    args.extend(["--results".to_string(), results.display().to_string()]);
    args
}

/// Runs the bad players of one shape (`tests/fixtures/tool-players/tools-<shape>-*`) on one
/// seed and checks each verdict is what a built-in problem gives the same fault.
fn bad_players(shape: &str, seed: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let args = bad_players_args(&[], shape, seed, &results);
    let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    expect_exit(&out, 0);
    let rows = scores(&results);
    let verdict = |kind: &str| {
        let name = format!("tools-{shape}-{kind}");
        let row = rows_of(&rows, &name);
        assert_eq!(row.len(), 1, "{name}: {rows:?}");
        (row[0]["verdict"].clone(), row[0]["reason"].clone())
    };
    // As on a built-in problem: a crash is RE, silence and an unflushed answer are TLE, an
    // invalid answer is WA with the judge's words, a flood is never OK.
    let (v, why) = verdict("crash");
    assert_eq!(v, "RE", "crash: {why}");
    assert!(why.contains("SIGSEGV"), "crash: {why}");
    assert_eq!(verdict("hang").0, "TLE");
    assert_eq!(verdict("noflush").0, "TLE");
    let (v, why) = verdict("wrong");
    assert_eq!(v, "WA", "wrong: {why}");
    assert!(
        why.starts_with("judge:"),
        "wrong: the tool's reason, got {why}"
    );
    let (v, why) = verdict("flood");
    assert!(
        ["TLE", "PE", "WA"].contains(&v.as_str()),
        "flood: {v} {why}"
    );
    // The player's side of each conversation is in its transcript.
    let transcript = results.join(format!(
        "latest/transcripts/tools-{shape}/tools-{shape}-wrong/{seed}.txt"
    ));
    let text = std::fs::read_to_string(&transcript).unwrap();
    assert!(text.lines().any(|l| l.starts_with("< ")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("> ")), "{text}");
}

#[test]
fn bad_players_of_the_interactive_example_get_built_in_verdicts() {
    bad_players("interactive", "3");
}

#[test]
fn bad_players_of_the_topcoder_example_get_built_in_verdicts() {
    if java_or_skip("bad_players_of_the_topcoder_example_get_built_in_verdicts") {
        bad_players("topcoder", "3");
    }
}

/// A tester in shell: reads N from its stdin, starts the player ("$@") over two FIFOs, sends
/// N, reads one line and scores it (twice N is right) on stderr, after the player has ended.
/// `target/mode` (left out of the tools' hash, like a build) makes it crash or hang first,
/// crash once it has the answer, or take 6 s before its message and after the game.
const TESTER: &str = r#"#!/bin/sh
mode=$(cat target/mode 2>/dev/null)
if [ "$mode" = crash ]; then echo "tester: cannot read the input" >&2; kill -SEGV $$; fi
if [ "$mode" = hang ]; then exec sleep 1000; fi
read n
mkfifo to from
"$@" < to > from &
exec 3> to 4< from
if [ "$mode" = slow ]; then sleep 6; fi
echo "$n" >&3
read answer <&4
echo "$answer"
if [ "$mode" = crash-late ]; then echo "tester: lost" >&2; kill -SEGV $$; fi
exec 3>&- 4<&-
wait
if [ "$mode" = slow ]; then sleep 6; fi
if [ "$answer" = "$((n * 2))" ]; then
  echo "Score = $answer" >&2
else
  echo "Wrong answer: $answer" >&2
  echo "Score = 0" >&2
fi
"#;

const PROBLEM: &str = r#"title = "Double it (relay tests)"
shape = "interactive"
objective = "max"
tools = "tools"
inputs = { gen = ["gen.sh", "{seeds}"], dir = "in" }
judge = ["tester.sh", "{player...}"]
params = ["N"]
judge-timeout = 12

[limits]
time-limit = 5
"#;

/// A workspace with the problem `double` and its shell tester.
fn double_workspace() -> ToolsWorkspace {
    let ws = ToolsWorkspace::new();
    ws.problem_toml("double", PROBLEM)
        .script("double", "tester.sh", TESTER)
        .script("double", "gen.sh", SEEDS_GEN)
        .tool_file("double", "secret.txt", "TOOLS-SECRET\n")
        .player("double", "double", DOUBLE);
    std::fs::create_dir_all(ws.tools("double").join("target")).unwrap();
    ws
}

fn set_mode(ws: &ToolsWorkspace, mode: &str) {
    ws.tool_file("double", "target/mode", mode);
}

fn by_seed(results: &Path) -> BTreeMap<String, (String, String)> {
    by_seed_of(results, None, |r| {
        (r["verdict"].clone(), r["reason"].clone())
    })
}

#[test]
fn a_tool_that_crashes_or_hangs_is_err_and_resume_runs_it_again() {
    let ws = double_workspace();
    let results = ws.root().join("results");
    let run_on = |seeds: &str| run_in(ws.command(&["double"], seeds, &results));
    // Working: twice N is right, the score is the answer.
    set_mode(&ws, "ok");
    let out = run_on("1..2");
    expect_exit(&out, 0);
    let rows = by_seed(&results);
    assert_eq!(rows["1"].0, "OK", "{rows:?}");
    assert_eq!(scores(&results)[0]["score"], "4", "seed 1: N = 2, answer 4");
    // A tool that crashes before starting the player: ERR, and the run says so (exit 1).
    set_mode(&ws, "crash");
    let out = run_on("1..2");
    expect_exit(&out, 1);
    let rows = by_seed(&results);
    for (seed, (verdict, why)) in &rows {
        assert_eq!(verdict, "ERR", "seed {seed}: {why}");
        assert!(why.contains("did not start the player: it ended"), "{why}");
        assert!(
            why.contains("cannot read the input"),
            "the tool's words: {why}"
        );
    }
    let run_id = std::fs::canonicalize(results.join("latest")).unwrap();
    let run_id = run_id.file_name().unwrap().to_string_lossy().into_owned();
    // Fixed: --resume runs the ERR tests again, and they pass.
    set_mode(&ws, "ok");
    let mut resume = ws.harness();
    resume.args(["--resume", &run_id, "--results", results.to_str().unwrap()]);
    let out = run_in(resume);
    expect_exit(&out, 0);
    let rows = by_seed(&results);
    assert_eq!(rows.len(), 2);
    assert!(rows.values().all(|(v, _)| v == "OK"), "{rows:?}");
    // A tool that hangs before starting the player: ERR after its own time (judge-timeout
    // and the player's time limit), not TLE.
    set_mode(&ws, "hang");
    let out = run_on("1");
    expect_exit(&out, 1);
    let rows = by_seed(&results);
    assert_eq!(rows["1"].0, "ERR", "{rows:?}");
    assert!(rows["1"].1.contains("did not start the player"), "{rows:?}");
    // A tool that fails once it has the player's answer: the answer's fault (WA), no rerun.
    set_mode(&ws, "crash-late");
    let out = run_on("1");
    expect_exit(&out, 0);
    let rows = by_seed(&results);
    assert_eq!(rows["1"].0, "WA", "{rows:?}");
    assert!(rows["1"].1.contains("tester: lost"), "{rows:?}");
}

/// Runs the compiled fixture `relay-escape` (given the tools folder, the scratch space and
/// the results folder to go after) as player `escape` of `ws` on seeds 1..2 at 2 tests at
/// once; returns the results folder.
fn run_escape(ws: &ToolsWorkspace) -> PathBuf {
    let exe = support::compile_c("relay-escape");
    let results = ws.root().join("results");
    std::fs::create_dir_all(&results).unwrap();
    // Where the harness run below puts its scratch space (the same environment).
    let scratch = harness::sandbox::scratch::base();
    let (tools, scratch, out) = (
        ws.tools("double").display().to_string(),
        scratch.display().to_string(),
        results.display().to_string(),
    );
    let args = ["relay-escape-tag", &tools, &scratch, &out];
    ws.exe_player("escape", "double", &exe, &args);
    let mut cmd = ws.command(&["escape"], "1..2", &results);
    cmd.args(["--threads", "2"]);
    expect_exit(&run_in(cmd), 0);
    results
}

/// What every run of [`run_escape`] must show, test by test: the player ran its attacks (its
/// marker), could not read the tools, and reached nothing; every test OK. Returns each
/// seed's log, for more.
fn expect_escape_blocked(results: &Path) -> Vec<(&'static str, String)> {
    let mut logs = Vec::new();
    for seed in ["1", "2"] {
        let log = stderr_log(results, "double", "escape", seed);
        assert!(
            log.contains("RAN relay-escape"),
            "seed {seed}: no marker:\n{log}"
        );
        assert!(
            log.contains("BLOCKED read the tools"),
            "seed {seed}:\n{log}"
        );
        assert!(!log.contains("REACHED"), "seed {seed}: escaped:\n{log}");
        logs.push((seed, log));
    }
    let rows = by_seed(results);
    assert!(rows.values().all(|(v, _)| v == "OK"), "{rows:?}");
    logs
}

#[test]
fn a_hostile_player_started_through_the_relay_stays_in_its_sandbox() {
    let ws = double_workspace();
    set_mode(&ws, "ok");
    // It ran its attacks (its marker), and none of them reached anything.
    expect_escape_blocked(&run_escape(&ws));
}

#[test]
fn the_time_a_tool_takes_is_not_the_players() {
    let ws = double_workspace();
    // 6 s before its first message and 6 s after the game, with a 5 s time limit.
    set_mode(&ws, "slow");
    let results = ws.root().join("results");
    let out = run_in(ws.command(&["double"], "1", &results));
    expect_exit(&out, 0);
    let rows = scores(&results);
    assert_eq!(rows[0]["verdict"], "OK", "{rows:?}");
    let think: u64 = rows[0]["think_ms"].parse().unwrap();
    let wall: u64 = rows[0]["wall_ms"].parse().unwrap();
    assert!(
        wall >= 12_000,
        "the tool's sleeps are in the test's wall time: {wall} ms"
    );
    assert!(
        think < 5_000,
        "the tool's sleeps are not the player's: {think} ms"
    );
}

// relay = "direct": the player is started on the tester's own pipes, with nothing of the
// harness's in between (docs/contest-tools-relay.md, "Direct").

/// A workspace whose problem `tools-<shape>` is the shipped example with `relay = "direct"`
/// and a judge-timeout of 5 s (so a player that keeps the tool waiting ends sooner); its
/// tools are the shipped ones (built in the run's cache).
fn direct_workspace(shape: &str) -> ToolsWorkspace {
    let ws = ToolsWorkspace::new();
    let shipped = root().join(format!("testcases/tools-{shape}"));
    let text = std::fs::read_to_string(shipped.join("problem.toml")).unwrap();
    let line = text.lines().find(|l| l.starts_with("tools = ")).unwrap();
    let folder = line["tools = ".len()..].trim_matches('"');
    let tools = std::fs::canonicalize(shipped.join(folder)).unwrap();
    let text = text
        .replace(line, &format!("tools = {:?}", tools.display().to_string()))
        .replace(
            "judge-timeout = 60",
            "judge-timeout = 5\nrelay = \"direct\"",
        );
    assert!(text.contains("relay = \"direct\""), "{text}");
    ws.problem_toml(&format!("tools-{shape}"), &text);
    ws
}

/// Runs `good` and the bad players of one shape with `relay = "direct"` on one seed: the
/// verdicts docs/contest-tools-relay.md gives for that mode. Returns the good player's
/// (score, think_ms, cpu_ms) and the results folder's parent.
fn direct_players(
    shape: &str,
    good: &Path,
    seed: &str,
    ws: &ToolsWorkspace,
) -> (f64, String, String) {
    let results = ws.root().join("results");
    let mut cmd = ws.harness();
    cmd.args(bad_players_args(&[good], shape, seed, &results));
    let out = run_in(cmd);
    expect_exit(&out, 0);
    let rows = scores(&results);
    let row = |name: &str| {
        let row = rows_of(&rows, name);
        assert_eq!(row.len(), 1, "{name}: {rows:?}");
        row[0].clone()
    };
    let verdict = |kind: &str| {
        let r = row(&format!("tools-{shape}-{kind}"));
        (r["verdict"].clone(), r["reason"].clone())
    };
    let (v, why) = verdict("crash");
    assert_eq!(v, "RE", "crash: {why}");
    assert!(why.contains("SIGSEGV"), "crash: {why}");
    // Silence and an unflushed answer keep the tool waiting until its own time is up.
    for kind in ["hang", "noflush"] {
        let (v, why) = verdict(kind);
        assert_eq!(v, "TLE", "{kind}: {why}");
        assert!(why.contains("player still running"), "{kind}: {why}");
    }
    let (v, why) = verdict("wrong");
    assert_eq!(v, "WA", "wrong: {why}");
    assert!(
        why.starts_with("judge"),
        "wrong: the tool's reason, got {why}"
    );
    let (v, why) = verdict("flood");
    assert!(["TLE", "WA"].contains(&v.as_str()), "flood: {v} {why}");
    // Nothing of the game passed the harness: no moves counted, no line of the player in
    // the transcript.
    assert!(rows.iter().all(|r| r["moves"] == "0"), "{rows:?}");
    let transcript = results.join(format!(
        "latest/transcripts/tools-{shape}/tools-{shape}-wrong/{seed}.txt"
    ));
    let text = std::fs::read_to_string(&transcript).unwrap_or_default();
    assert!(!text.lines().any(|l| l.starts_with("< ")), "{text}");
    let good = row(good.file_name().unwrap().to_str().unwrap());
    assert_eq!(good["verdict"], "OK", "{good:?}");
    (
        good["score"].parse().unwrap(),
        good["think_ms"].clone(),
        good["cpu_ms"].clone(),
    )
}

#[test]
fn direct_interactive_scores_equal_the_tester_by_hand_and_bad_players_get_its_verdicts() {
    let ws = direct_workspace("interactive");
    let player = python_player(ws.root(), "radar", "tools-interactive", RADAR);
    let (score, think, cpu) = direct_players("interactive", &player, "3", &ws);
    // The thinking time of a direct player is its CPU time.
    assert_eq!(think, cpu);
    let tools = root().join("testcases/tools-interactive/tools");
    let built = support::built_tools(&ws.root().join("results"), "tools-interactive");
    let input = std::fs::File::open(tools.join("in/0003.txt")).unwrap();
    let out = Command::new(built.join("target/release/tester"))
        .args(["python3", player.join("main.py").to_str().unwrap()])
        .stdin(input)
        .output()
        .unwrap();
    assert_eq!(Some(score), score_in(&String::from_utf8_lossy(&out.stderr)));
}

#[test]
fn direct_topcoder_scores_equal_the_jar_by_hand_and_bad_players_get_its_verdicts() {
    if !java_or_skip(
        "direct_topcoder_scores_equal_the_jar_by_hand_and_bad_players_get_its_verdicts",
    ) {
        return;
    }
    let ws = direct_workspace("topcoder");
    let player = python_player(ws.root(), "knapsack", "tools-topcoder", KNAPSACK);
    let (score, _, _) = direct_players("topcoder", &player, "3", &ws);
    let exec = format!("python3 {}", player.join("main.py").display());
    let out = Command::new("java")
        .args([
            "-jar",
            "tester.jar",
            "-exec",
            &exec,
            "-novis",
            "-no",
            "-seed",
            "3",
        ])
        .current_dir(support::built_tools(
            &ws.root().join("results"),
            "tools-topcoder",
        ))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(Some(score), score_in(&String::from_utf8_lossy(&out.stdout)));
}

/// The `double` workspace with `relay = "direct"`.
fn direct_double_workspace() -> ToolsWorkspace {
    let ws = double_workspace();
    let file = ws.problem("double").join("problem.toml");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "judge-timeout = 12",
        "judge-timeout = 12\nrelay = \"direct\"",
    );
    assert!(text.contains("relay = \"direct\""));
    std::fs::write(&file, text).unwrap();
    ws
}

#[test]
fn a_direct_player_is_held_to_its_cpu_time_and_a_tool_failing_first_is_still_err() {
    let ws = direct_double_workspace();
    set_mode(&ws, "ok");
    python_player(
        &ws.root().join("players"),
        "busy",
        "double",
        "import sys\nsys.stdin.readline()\nwhile True:\n    pass\n",
    );
    let results = ws.root().join("results");
    let run = || {
        let mut cmd = ws.command(&["double", "busy"], "1", &results);
        cmd.args(["--time-limit", "1"]);
        run_in(cmd)
    };
    let out = run();
    expect_exit(&out, 0);
    let rows = scores(&results);
    let busy = &rows_of(&rows, "busy")[0];
    assert_eq!(busy["verdict"], "TLE", "{busy:?}");
    assert!(busy["reason"].contains("CPU time"), "{busy:?}");
    let cpu: u64 = busy["cpu_ms"].parse().unwrap();
    assert!(cpu > 1000, "killed past its limit of CPU time: {cpu} ms");
    let double = &rows_of(&rows, "double")[0];
    assert_eq!(
        (double["verdict"].as_str(), double["score"].as_str()),
        ("OK", "4")
    );
    // A tool that fails before it starts its player is not the player's doing, as with the
    // proxy.
    set_mode(&ws, "crash");
    let out = run();
    expect_exit(&out, 1);
    for row in scores(&results) {
        assert_eq!(row["verdict"], "ERR", "{row:?}");
        assert!(
            row["reason"].contains("did not start the player: it ended"),
            "{row:?}"
        );
    }
}

#[test]
fn a_hostile_direct_player_stays_in_its_sandbox() {
    let ws = direct_double_workspace();
    set_mode(&ws, "ok");
    for (seed, log) in expect_escape_blocked(&run_escape(&ws)) {
        // Its input is the tester's FIFO, in the tester's folder: a folder it cannot list.
        assert!(log.contains("own input: /"), "seed {seed}:\n{log}");
        assert!(
            log.contains("BLOCKED list the folder of its own input"),
            "seed {seed}:\n{log}"
        );
    }
}
