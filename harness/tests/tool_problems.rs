//! Problems judged by a contest's own tools (issue 27), batch shape, end to end through the
//! harness binary on a workspace of their own: a `problem.toml`, a tools folder whose `gen`
//! and `vis` are shell scripts (AtCoder-shaped: `gen <seeds file>` writes `in/0000.txt`,
//! `vis <input> <output>` prints `Score = N` and draws `out.svg`), and players that are shell
//! scripts. Scores are checked against running gen, the player and vis by hand.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use support::tools::ToolsWorkspace;
use support::{expect_exit, rows_of, scores, stderr_log, write_exec};

/// gen: one input per non-empty line of the seeds file, `in/<index:04>.txt`: `N S` then N
/// numbers made from the seed (`mkdir in` fails when it exists, like AtCoder's create_dir).
const GEN: &str = r#"#!/bin/sh
[ -r "$1" ] || { echo "no such file: $1" >&2; exit 1; }
mkdir in || exit 1
i=0
while read s; do
  [ -z "$s" ] && continue
  t=$(( s % 1000 ))
  n=$(( t % 5 + 3 ))
  f=in/$(printf %04d $i).txt
  echo "$n $t" > "$f"
  line=""
  j=0
  while [ $j -lt $n ]; do line="$line $(( (t * 31 + j * 17) % 100 + 1 ))"; j=$((j+1)); done
  echo $line >> "$f"
  i=$((i+1))
done < "$1"
"#;

/// vis: the answer must be one of the input's numbers; the score is 1000 times it. A wrong
/// answer gets a message and `Score = 0`, as AtCoder's tools do. Draws out.svg.
const VIS: &str = r#"#!/bin/sh
[ $# -eq 2 ] || { echo "usage: vis <input> <output>" >&2; exit 0; }
read n t < "$1"
nums=$(sed -n 2p "$1")
ans=$(tr -d ' \n\r' < "$2")
echo "<svg><text>$ans</text></svg>" > out.svg
for x in $nums; do
  if [ "$x" = "$ans" ]; then echo "Score = $(( ans * 1000 ))"; exit 0; fi
done
echo "Invalid answer: '$ans'"
echo "Score = 0"
"#;

const PROBLEM: &str = r#"title = "Pick the largest"
shape = "batch"
objective = "max"
tools = "tools"
inputs = { gen = ["gen.sh", "{seeds}"], dir = "in" }
judge = ["vis.sh", "{input}", "{output}"]
params = ["N"]
pictures = ["out.svg"]
judge-timeout = 20

[limits]
time-limit = 6
max-output = 100000
"#;

/// Players: a script each, run as `sh main.sh`.
const PLAYERS: [(&str, &str); 7] = [
    // The largest number: the best answer.
    (
        "best",
        "read n t\nread line\nm=0\nfor x in $line; do [ $x -gt $m ] && m=$x; done\necho $m\n",
    ),
    // The first number: a valid, weaker answer.
    ("first", "read n t\nread a rest\necho $a\n"),
    ("wrong", "echo 100000\n"),
    ("crash", "read n t\necho dying >&2\nexit 3\n"),
    ("hang", "read n t\nsleep 1000\n"),
    ("flood", "yes 1234567890\n"),
    // Answers, but never closes its output (never exits).
    (
        "noflush",
        "read n t\nread a rest\necho $a\nexec sleep 1000\n",
    ),
];

/// A workspace: `scoring.toml`, `testcases/<id>/` (problem.toml and tools), `players/`.
struct Workspace {
    ws: ToolsWorkspace,
}

impl Workspace {
    fn new(id: &str, problem: &str, gen: &str, vis: &str) -> Workspace {
        let ws = ToolsWorkspace::new();
        ws.problem_toml(id, problem)
            .script(id, "gen.sh", gen)
            .script(id, "vis.sh", vis)
            .tool_file(id, "secret.txt", "TOOLS-SECRET\n");
        for (name, script) in PLAYERS {
            ws.player(name, id, script);
        }
        Workspace { ws }
    }

    fn batch() -> Workspace {
        Workspace::new("pick", PROBLEM, GEN, VIS)
    }

    fn root(&self) -> &Path {
        self.ws.root()
    }

    fn tools(&self, id: &str) -> PathBuf {
        self.ws.tools(id)
    }

    /// Runs the harness with `args`; checks that it left none of its cgroup folders behind.
    fn harness(&self, args: &[&str]) -> Output {
        let mut cmd = self.ws.harness();
        cmd.args(args);
        self.run_checked(cmd)
    }

    /// Runs `cmd`; checks that it left none of its cgroup folders behind (a run of a tool
    /// problem has threads of its own beside its workers, and each worker its groups).
    fn run_checked(&self, mut cmd: Command) -> Output {
        let child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        let left = support::cgroup_folders_of(pid);
        assert!(
            left.is_empty(),
            "the run's cgroup folders were left: {left:?}"
        );
        out
    }

    /// Runs `players` on `seeds` into `results/<results>`; returns the results folder.
    fn run(
        &self,
        players: &[&str],
        seeds: &str,
        results: &str,
        more: &[&str],
    ) -> (Output, PathBuf) {
        let out_dir = self.root().join("results").join(results);
        let mut cmd = self.ws.command(players, seeds, &out_dir);
        cmd.args(more);
        (self.run_checked(cmd), out_dir)
    }
}

/// gen, the player and vis run by hand (no harness, no sandbox) on `seed`: vis's score.
fn by_hand(ws: &Workspace, id: &str, player: &str, seed: u64) -> f64 {
    let tmp = tempfile::tempdir().unwrap();
    let tools = ws.tools(id);
    std::fs::write(tmp.path().join("seeds.txt"), format!("{seed}\n")).unwrap();
    let ok = Command::new(tools.join("gen.sh"))
        .arg("seeds.txt")
        .current_dir(tmp.path())
        .status()
        .unwrap();
    assert!(ok.success());
    let input = tmp.path().join("in/0000.txt");
    let answer = Command::new("sh")
        .arg(ws.root().join("players").join(player).join("main.sh"))
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    std::fs::write(tmp.path().join("out.txt"), &answer.stdout).unwrap();
    let vis = Command::new(tools.join("vis.sh"))
        .arg(&input)
        .arg("out.txt")
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&vis.stdout);
    let line = text
        .lines()
        .rfind(|l| l.starts_with("Score = "))
        .expect("a score line");
    line["Score = ".len()..].parse().unwrap()
}

fn by_key(rows: &[BTreeMap<String, String>]) -> BTreeMap<(String, String), (String, String)> {
    rows.iter()
        .map(|r| {
            (
                (r["player"].clone(), r["seed"].clone()),
                (r["score"].clone(), r["verdict"].clone()),
            )
        })
        .collect()
}

#[test]
fn batch_scores_equal_the_tools_run_by_hand_at_any_thread_count() {
    let ws = Workspace::batch();
    let (out, one) = ws.run(
        &["best", "first", "wrong"],
        "1..6",
        "one",
        &["--threads", "1"],
    );
    expect_exit(&out, 0);
    let rows = scores(&one);
    assert_eq!(rows.len(), 18, "{rows:?}");
    for player in ["best", "first"] {
        for r in rows_of(&rows, player) {
            assert_eq!(r["verdict"], "OK", "{r:?}");
            let seed: u64 = r["seed"].parse().unwrap();
            let want = by_hand(&ws, "pick", player, seed);
            assert_eq!(
                r["score"].parse::<f64>().unwrap(),
                want,
                "{player} seed {seed}"
            );
            // N, the first token of the input, is a column.
            let n: u64 = r["N"].parse().unwrap();
            assert_eq!(n, seed % 1000 % 5 + 3, "{r:?}");
        }
    }
    for r in rows_of(&rows, "wrong") {
        assert_eq!(r["verdict"], "WA", "{r:?}");
        assert_eq!(r["score"], "0");
        assert!(r["reason"].contains("Invalid answer: '100000'"), "{r:?}");
    }
    // The same run on two threads gives the same scores and verdicts.
    let (out, two) = ws.run(
        &["best", "first", "wrong"],
        "1..6",
        "two",
        &["--threads", "2"],
    );
    expect_exit(&out, 0);
    assert_eq!(by_key(&scores(&two)), by_key(&rows));
    // The tools' hash is recorded in run.toml and joins the players' hashes.
    let run_toml = std::fs::read_to_string(one.join("latest/run.toml")).unwrap();
    let tools_hash = run_toml
        .lines()
        .find_map(|l| l.strip_prefix("tools-hash = "))
        .expect("tools-hash in run.toml")
        .trim_matches('"')
        .to_string();
    assert!(rows
        .iter()
        .all(|r| r["player_hash"].ends_with(&format!("+tools-{tools_hash}"))));
    // The judge's pictures are kept and linked from the report (the failures, worst seeds).
    let svg = one.join("latest/pictures/pick/wrong/1/out.svg");
    assert_eq!(
        std::fs::read_to_string(&svg).unwrap(),
        "<svg><text>100000</text></svg>\n"
    );
    let report = std::fs::read_to_string(one.join("latest/report.html")).unwrap();
    assert!(
        report.contains("href=\"pictures/pick/wrong/1/out.svg\""),
        "report.html links no picture"
    );
    // Worst seeds for a problem without replays: the pictures (of a player that never
    // failed, so from that table only), never a replay command.
    assert!(report.contains("<h3>Worst seeds</h3>"), "no worst seeds");
    assert!(
        report.contains("href=\"pictures/pick/best/"),
        "the worst seeds link no picture"
    );
    assert!(
        !report.contains(" replay "),
        "report.html prints a replay command for a problem without replays"
    );
    // A changed tool is a new build of every player: the hash changes.
    let vis = ws.tools("pick").join("vis.sh");
    write_exec(&vis, &format!("{VIS}\n# changed\n"));
    let (out, three) = ws.run(&["best"], "1..2", "three", &[]);
    expect_exit(&out, 0);
    let after = scores(&three);
    assert_ne!(
        after[0]["player_hash"],
        rows_of(&rows, "best")[0]["player_hash"]
    );
}

#[test]
fn players_get_the_same_verdicts_as_on_a_built_in_problem() {
    let ws = Workspace::batch();
    let (out, dir) = ws.run(
        &["crash", "hang", "flood", "noflush"],
        "1..2",
        "faults",
        &["--threads", "2"],
    );
    expect_exit(&out, 0);
    let rows = scores(&dir);
    let verdicts: BTreeMap<String, String> = rows
        .iter()
        .map(|r| (r["player"].clone(), r["verdict"].clone()))
        .collect();
    assert_eq!(verdicts["crash"], "RE", "{rows:?}");
    assert_eq!(verdicts["hang"], "TLE", "{rows:?}");
    assert_eq!(verdicts["flood"], "PE", "{rows:?}");
    assert_eq!(verdicts["noflush"], "TLE", "{rows:?}");
    assert!(stderr_log(&dir, "pick", "crash", "1").contains("dying"));
}

#[test]
fn a_judge_that_crashes_on_an_answer_is_wa_and_one_that_hangs_is_err() {
    let crash = format!(
        "{}echo \"thread 'main' panicked at src/bin/vis.rs: index out of bounds\" >&2\nexit 101\n",
        VIS.replace("echo \"Score = $(( ans * 1000 ))\"; exit 0", "break")
    );
    let ws = Workspace::new("pick", PROBLEM, GEN, &crash);
    let (out, dir) = ws.run(&["best"], "1..2", "crash", &[]);
    expect_exit(&out, 0);
    for r in scores(&dir) {
        assert_eq!(r["verdict"], "WA", "{r:?}");
        assert!(r["reason"].contains("exit status 101"), "{r:?}");
        assert!(r["reason"].contains("panicked"), "{r:?}");
    }
    let hang = PROBLEM.replace("judge-timeout = 20", "judge-timeout = 5");
    let ws = Workspace::new("pick", &hang, GEN, "#!/bin/sh\nexec sleep 1000\n");
    let (out, dir) = ws.run(&["best"], "1", "hang", &[]);
    // ERR: the harness's fault, exit 1.
    expect_exit(&out, 1);
    let rows = scores(&dir);
    assert_eq!(rows[0]["verdict"], "ERR", "{rows:?}");
    assert!(rows[0]["reason"].contains("timed out"), "{rows:?}");
}

/// A vis that fills its working folder with 1 MB files (300 of them, its marker first on
/// stderr, kept in the test's `judge.log`), named with `token`.
fn disk_filler(token: &str) -> String {
    format!(
        "#!/bin/sh\necho 'RAN disk-filler' >&2\ni=0\nwhile [ $i -lt 300 ]; do head -c 1048576 /dev/zero > fill-{token}-$i || break; i=$((i+1)); done\necho \"wrote $i MB\" >&2\necho 'Score = 1'\n"
    )
}

/// Whether a file whose name holds `token` is anywhere under `dir` (not through links).
fn left_under(dir: &Path, token: &str) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            e.file_name().to_string_lossy().contains(token)
                || (e.file_type().is_ok_and(|t| t.is_dir()) && left_under(&e.path(), token))
        })
}

/// Without a cgroup (`--cgroup off`), nothing counts a tool's files as its memory: its folder
/// is held to `judge-memory` by itself. A vis writing 300 MB under `judge-memory = 64` is
/// stopped: ERR naming the cap (the tool's failure, not the player's), and none of its files
/// left in the scratch space.
#[test]
fn a_judge_filling_its_folder_past_its_memory_limit_without_a_cgroup_is_stopped_err() {
    let token = format!("h3disk{}", std::process::id());
    let problem = PROBLEM.replace(
        "judge-timeout = 20",
        "judge-timeout = 20\njudge-memory = 64",
    );
    let ws = Workspace::new("pick", &problem, GEN, &disk_filler(&token));
    for sandbox in ["auto", "off"] {
        let (out, dir) = ws.run(
            &["best"],
            "1",
            &format!("fill-{sandbox}"),
            &["--cgroup", "off", "--sandbox", sandbox],
        );
        expect_exit(&out, 1);
        // The start of the run says what holds the tools, and what does not.
        let said = String::from_utf8_lossy(&out.stderr) + String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains("contest tools without a cgroup: judge-memory holds"),
            "--sandbox {sandbox}: {said}"
        );
        let log_path = dir.join("latest/pictures/pick/best/1/judge.log");
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        assert!(
            log.contains("RAN disk-filler"),
            "--sandbox {sandbox}: no marker:\n{log}"
        );
        let rows = scores(&dir);
        assert_eq!(
            rows[0]["verdict"], "ERR",
            "--sandbox {sandbox}: {rows:?}\n{log}"
        );
        assert!(
            rows[0]["reason"].contains("past 64 MB") && rows[0]["reason"].contains("judge-memory"),
            "--sandbox {sandbox}: {rows:?}"
        );
        assert!(
            !log.contains("wrote 300 MB"),
            "--sandbox {sandbox}: not stopped:\n{log}"
        );
        let scratch = harness::sandbox::scratch::base();
        assert!(
            !left_under(scratch, &token),
            "--sandbox {sandbox}: the vis's files were left in {}",
            scratch.display()
        );
    }
}

#[test]
fn a_gen_that_fails_is_err_and_resume_runs_the_test_again() {
    let ws = Workspace::new(
        "pick",
        PROBLEM,
        "#!/bin/sh\necho 'parse failed' >&2\nexit 1\n",
        VIS,
    );
    let (out, dir) = ws.run(&["best"], "1..3", "gen", &[]);
    expect_exit(&out, 1);
    let rows = scores(&dir);
    assert!(rows.iter().all(|r| r["verdict"] == "ERR"), "{rows:?}");
    assert!(rows[0]["reason"].contains("parse failed"), "{rows:?}");
    // The tool is fixed: --resume runs the ERR tests again, and they pass.
    write_exec(&ws.tools("pick").join("gen.sh"), GEN);
    let run_id = std::fs::read_link(dir.join("latest")).unwrap();
    let id = run_id.file_name().unwrap().to_str().unwrap().to_string();
    let out = ws.harness(&["--resume", &id, "--results", dir.to_str().unwrap()]);
    expect_exit(&out, 0);
    let rows = scores(&dir);
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows.iter().all(|r| r["verdict"] == "OK"), "{rows:?}");
}

/// A player that tries to read the tools folder and the inputs of the run (in every place a
/// run's scratch space may be), and says so on stderr; the marker proves the attack ran and
/// that the same check can see a file it may read (its own).
fn hostile(ws: &Workspace) -> String {
    format!(
        "read n t\nfor b in /tmp /dev/shm /run/user/* {base}; do\n  for f in {secret} $b/harness-inputs-*/* $b/harness-run-*/tool-*/work/* $b/harness-run-*/tool-*/work/in/*; do\n    if cat \"$f\" > /dev/null 2>&1; then echo \"READ $f\" >&2; fi\n  done\ndone\ncat \"$HARNESS_PLAYER_DIR/main.sh\" > /dev/null && echo ATTACK-RAN >&2\nread a rest\necho $a\n",
        secret = ws.tools("pick").join("secret.txt").display(),
        // Wherever the run's scratch space is (harness::sandbox::scratch), and the usual
        // places it may be.
        base = harness::sandbox::scratch::base().display()
    )
}

#[test]
fn a_player_cannot_read_the_tools_or_the_inputs_even_in_a_keyed_run() {
    let ws = Workspace::batch();
    std::fs::write(ws.root().join("players/first/main.sh"), hostile(&ws)).unwrap();
    for (name, more) in [
        ("public", vec![]),
        (
            "keyed",
            vec!["--secret", "a long secret key for the tools test"],
        ),
        ("process", vec!["--sandbox", "off"]),
    ] {
        let (out, dir) = ws.run(&["first"], "1..2", name, &more);
        expect_exit(&out, 0);
        for r in scores(&dir) {
            assert_eq!(r["verdict"], "OK", "{name}: {r:?}");
            let log = stderr_log(&dir, "pick", "first", &r["seed"]);
            assert!(
                log.contains("ATTACK-RAN"),
                "{name}: the attack did not run: {log}"
            );
            assert!(!log.contains("READ"), "{name}: {log}");
        }
    }
}

#[test]
fn a_keyed_run_makes_other_inputs() {
    let ws = Workspace::batch();
    let public = ws.harness(&["gen", "--problem", "pick", "--seed", "7"]);
    expect_exit(&public, 0);
    let keyed = ws.harness(&[
        "gen",
        "--problem",
        "pick",
        "--seed",
        "7",
        "--secret",
        "a long secret key for the tools test",
    ]);
    expect_exit(&keyed, 0);
    let other = ws.harness(&[
        "gen",
        "--problem",
        "pick",
        "--seed",
        "7",
        "--secret",
        "another long secret key, not the same",
    ]);
    expect_exit(&other, 0);
    let again = ws.harness(&[
        "gen",
        "--problem",
        "pick",
        "--seed",
        "7",
        "--secret",
        "a long secret key for the tools test",
    ]);
    // The public input is gen's for seed 7; a key makes another, the same for the same key.
    let text = String::from_utf8_lossy(&public.stdout).to_string();
    assert!(text.starts_with("5 7\n"), "{text}");
    assert_ne!(public.stdout, keyed.stdout);
    assert_ne!(keyed.stdout, other.stdout);
    assert_eq!(keyed.stdout, again.stdout);
}

#[test]
fn mistakes_in_problem_toml_and_a_failed_build_stop_before_any_test() {
    let bad = PROBLEM.replace("judge-timeout", "judge-timout");
    let ws = Workspace::new("pick", &bad, GEN, VIS);
    let (out, dir) = ws.run(&["best"], "1", "bad", &[]);
    expect_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("problem.toml"), "{err}");
    assert!(err.contains("judge-timout"), "{err}");
    assert!(!dir.exists());
    let building = format!(
        "build = [\"sh\", \"-c\", \"echo compiling vis; echo 'error[E0425]: cannot find value' >&2; exit 1\"]\n{PROBLEM}"
    );
    let ws = Workspace::new("pick", &building, GEN, VIS);
    let (out, dir) = ws.run(&["best"], "1", "build", &[]);
    expect_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the tools' build"), "{err}");
    assert!(err.contains("error[E0425]"), "{err}");
    assert!(!dir.join("latest").exists());
}

/// A typo in one problem.toml stops only what uses that problem: a run of another problem
/// goes on with one warning line naming the file; a run of a player of the broken problem,
/// and `harness gen` of it, stop with exit 2 naming the file and the key.
#[test]
fn a_broken_problem_toml_stops_only_the_runs_that_use_it() {
    let ws = Workspace::batch();
    let typo = PROBLEM.replace("judge-timeout", "judge-timout");
    ws.ws
        .problem_toml("typo", &typo)
        .player("of-typo", "typo", "echo 1\n");
    std::fs::create_dir_all(ws.tools("typo")).unwrap();

    let (out, dir) = ws.run(&["best"], "1..2", "other", &[]);
    expect_exit(&out, 0);
    let err = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("typo")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].starts_with("warning: ")
            && warnings[0].contains("typo/problem.toml")
            && warnings[0].contains("judge-timout"),
        "{err}"
    );
    let rows = scores(&dir);
    assert!(rows.iter().all(|r| r["verdict"] == "OK"), "{rows:?}");

    let (out, dir) = ws.run(&["of-typo"], "1", "named", &[]);
    expect_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.lines()
            .any(|l| l.starts_with("error") && l.contains("typo/problem.toml")),
        "{err}"
    );
    assert!(err.contains("judge-timout"), "{err}");
    assert!(!dir.join("latest").exists());

    let out = ws.harness(&["gen", "--problem", "typo", "--seed", "1"]);
    expect_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("typo/problem.toml") && err.contains("judge-timout"),
        "{err}"
    );
}

/// A contest's build never writes into the contest's folder (a build from `*Vis.java` once
/// overwrote the official `tester.jar` there): it runs in the harness's copy of the tools,
/// which the problem's commands then run from, and a second run of unchanged tools uses
/// that build again. Every file of the contest's folder has its checksum of before, and
/// nothing is added.
#[test]
fn a_contest_build_leaves_the_contest_folder_as_it_was() {
    let building = format!(
        "build = [\"sh\", \"-c\", \"echo rebuilt > official.jar && mkdir -p build && cp vis.sh build/vis.sh\"]\n{}",
        PROBLEM.replace("judge = [\"vis.sh\"", "judge = [\"build/vis.sh\"")
    );
    assert!(building.contains("build/vis.sh"), "{building}");
    let ws = Workspace::new("pick", &building, GEN, VIS);
    std::fs::write(ws.tools("pick").join("official.jar"), "official\n").unwrap();
    let contest = ws.root().join("testcases/pick");
    let before = support::checksums(&contest);
    for (results, said) in [
        ("first", "pick: the tools are built in "),
        (
            "again",
            "pick: unchanged since an earlier build; the tools are built in ",
        ),
    ] {
        // One results folder, whose cache holds the build.
        let (out, dir) = ws.run(&["best"], "1..2", "cached", &[]);
        expect_exit(&out, 0);
        let rows = scores(&dir);
        assert!(rows.iter().all(|r| r["verdict"] == "OK"), "{rows:?}");
        let log = std::fs::read_to_string(dir.join("latest/logs/build.log")).unwrap();
        assert!(log.contains(said), "{results}: {log}");
        assert_eq!(
            support::checksums(&contest),
            before,
            "{results}: the contest's folder changed"
        );
    }
    let built = support::built_tools(&ws.root().join("results/cached"), "pick");
    assert_eq!(
        std::fs::read_to_string(built.join("official.jar")).unwrap(),
        "rebuilt\n"
    );
}

/// Under `umask 077` the tools built in the harness's cache still run in process mode, where
/// a root harness runs them as the players' id: the cache's folders are made passable.
#[test]
fn tools_built_under_umask_077_run_in_process_mode() {
    let building = format!(
        "build = [\"sh\", \"-c\", \"mkdir -p build && cp vis.sh build/vis.sh\"]\n{}",
        PROBLEM.replace("judge = [\"vis.sh\"", "judge = [\"build/vis.sh\"")
    );
    let ws = Workspace::new("pick", &building, GEN, VIS);
    // A workspace others may pass, as a checkout is; the harness makes the rest.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(ws.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let results = ws.root().join("results");
    let out = Command::new("sh")
        .args(["-c", "umask 077 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_harness"))
        .args([
            "--players",
            "players/best",
            "--seeds",
            "1..2",
            "--sandbox",
            "off",
        ])
        .arg("--results")
        .arg(&results)
        .current_dir(ws.root())
        .stdin(Stdio::null())
        .env_remove("HARNESS_SECRET")
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let rows = scores(&results);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r["verdict"] == "OK"), "{rows:?}");
}

#[test]
fn shards_of_a_tool_problem_merge_into_the_single_run() {
    let ws = Workspace::batch();
    let (out, single) = ws.run(&["best", "first"], "1..6", "single", &["--threads", "2"]);
    expect_exit(&out, 0);
    let sharded = ws.root().join("results/sharded");
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let (out, _) = ws.run(
            &["best", "first"],
            "1..6",
            "sharded",
            &["--shard", &shard, "--run-id", "20260101-000000"],
        );
        expect_exit(&out, 0);
    }
    let run = sharded.join("20260101-000000");
    let out = ws.harness(&[
        "merge",
        run.join("shards/1-of-2").to_str().unwrap(),
        run.join("shards/2-of-2").to_str().unwrap(),
        "--results",
        sharded.to_str().unwrap(),
    ]);
    expect_exit(&out, 0);
    assert_eq!(by_key(&scores(&sharded)), by_key(&scores(&single)));
}

/// The shipped example (`testcases/tools-batch`, its Rust tools built by the run) with its
/// two players: every score equals gen, the player and vis run by hand on the same seed.
#[test]
fn the_shipped_batch_example_scores_as_its_tools_by_hand() {
    let results = tempfile::tempdir().unwrap();
    let out = support::harness()
        .args([
            "--players",
            "players/tools-batch-nearest",
            "players/tools-batch-insertion",
            "--seeds",
            "0..4",
            "--threads",
            "2",
            "--results",
        ])
        .arg(results.path())
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let rows = scores(results.path());
    assert_eq!(rows.len(), 10, "{rows:?}");
    let tools = support::built_tools(results.path(), "tools-batch");
    for r in &rows {
        assert_eq!(r["verdict"], "OK", "{r:?}");
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("seeds.txt"), format!("{}\n", r["seed"])).unwrap();
        let gen = Command::new(tools.join("target/release/gen"))
            .arg("seeds.txt")
            .current_dir(tmp.path())
            .status()
            .unwrap();
        assert!(gen.success());
        let input = tmp.path().join("in/0000.txt");
        let player = support::root().join("players").join(&r["player"]);
        let answer = Command::new("python3")
            .arg(player.join("main.py"))
            .current_dir(&player)
            .stdin(std::fs::File::open(&input).unwrap())
            .output()
            .unwrap();
        std::fs::write(tmp.path().join("out.txt"), &answer.stdout).unwrap();
        let vis = Command::new(tools.join("target/release/vis"))
            .arg(&input)
            .arg("out.txt")
            .current_dir(tmp.path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&vis.stdout);
        let score = text
            .lines()
            .rfind(|l| l.starts_with("Score = "))
            .map(|l| l["Score = ".len()..].trim().parse::<f64>().unwrap())
            .expect("vis printed a score");
        assert_eq!(r["score"].parse::<f64>().unwrap(), score, "{r:?}");
        // The picture vis drew is kept.
        let svg = results.path().join(format!(
            "latest/pictures/tools-batch/{}/{}/out.svg",
            r["player"], r["seed"]
        ));
        assert!(svg.is_file(), "{}", svg.display());
    }
}

/// The shipped batch example's misbehaving players (`tests/fixtures/tool-players`) get the
/// verdicts of a built-in problem, and the invalid answer vis's reason.
#[test]
fn the_shipped_batch_examples_bad_players_get_built_in_verdicts() {
    let results = tempfile::tempdir().unwrap();
    let fixtures = "harness/tests/fixtures/tool-players";
    let mut cmd = support::harness();
    cmd.arg("--players");
    for bad in ["crash", "hang", "flood", "wrong", "noflush"] {
        cmd.arg(format!("{fixtures}/tools-batch-{bad}"));
    }
    let out = cmd
        .args(["--seeds", "0..1", "--threads", "2", "--results"])
        .arg(results.path())
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let rows = scores(results.path());
    assert_eq!(rows.len(), 10, "{rows:?}");
    for r in &rows {
        let want = match r["player"].trim_start_matches("tools-batch-") {
            "crash" => "RE",
            "hang" | "noflush" => "TLE",
            "flood" => "PE",
            "wrong" => "WA",
            other => panic!("unexpected player {other}"),
        };
        assert_eq!(r["verdict"], want, "{r:?}");
        assert_eq!(r["score"], "0", "{r:?}");
        if want == "WA" {
            assert!(r["reason"].contains("Duplicate coin"), "{r:?}");
        }
    }
}

/// A contest checkout outside the workspace, named in scoring.toml's `[harness] problems`;
/// scoring.toml's `[problem.<id>]` keys override the `[limits]` of problem.toml.
#[test]
fn a_problem_outside_the_workspace_named_in_scoring_toml() {
    let ws = Workspace::batch();
    let outside = tempfile::tempdir().unwrap();
    let moved = outside.path().join("ahc-like");
    std::fs::rename(ws.root().join("testcases/pick"), &moved).unwrap();
    std::fs::write(
        ws.root().join("players/best/player.toml"),
        "problem = \"ahc-like\"\ncommand = [\"sh\", \"main.sh\"]\n",
    )
    .unwrap();
    // Unknown until named.
    let (out, _) = ws.run(&["best"], "1", "unnamed", &[]);
    expect_exit(&out, 2);
    std::fs::write(
        ws.root().join("scoring.toml"),
        format!(
            "[harness]\nproblems = [{:?}]\n\n[problem.ahc-like]\ntime-limit = 9\n",
            moved.display().to_string()
        ),
    )
    .unwrap();
    let (out, dir) = ws.run(&["best"], "1..2", "named", &[]);
    expect_exit(&out, 0);
    let rows = scores(&dir);
    assert!(
        rows.iter()
            .all(|r| r["problem"] == "ahc-like" && r["verdict"] == "OK"),
        "{rows:?}"
    );
    let run_toml = std::fs::read_to_string(dir.join("latest/run.toml")).unwrap();
    assert!(
        run_toml.contains("[problem.ahc-like]\ntime-limit = 9\n"),
        "{run_toml}"
    );
    // A mistake in that table is exit 2 naming the key.
    std::fs::write(
        ws.root().join("scoring.toml"),
        format!(
            "[harness]\nproblems = [{:?}]\n\n[problem.ahc-like]\ntime-limt = 9\n",
            moved.display().to_string()
        ),
    )
    .unwrap();
    let (out, _) = ws.run(&["best"], "1", "typo", &[]);
    expect_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("time-limt"));
}

/// A contest's build puts its programs where its commands name them (`target/release/vis` in
/// the built copy of the tools folder) even when the user's environment sets a Cargo target folder of its own,
/// which would put them elsewhere (and mix up contests whose packages are all named `tools`).
#[test]
fn a_cargo_target_folder_in_the_environment_does_not_move_the_tools_build() {
    let outside = tempfile::tempdir().unwrap();
    let problem = outside.path().join("coin-route");
    std::fs::create_dir_all(problem.join("tools/src/bin")).unwrap();
    let shipped = support::root().join("testcases/tools-batch");
    std::fs::copy(shipped.join("problem.toml"), problem.join("problem.toml")).unwrap();
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "src/lib.rs",
        "src/bin/gen.rs",
        "src/bin/vis.rs",
    ] {
        std::fs::copy(
            shipped.join("tools").join(file),
            problem.join("tools").join(file),
        )
        .unwrap();
    }
    let player = outside.path().join("nearest");
    std::fs::create_dir_all(&player).unwrap();
    std::fs::copy(
        support::root().join("players/tools-batch-nearest/main.py"),
        player.join("main.py"),
    )
    .unwrap();
    std::fs::write(
        player.join("player.toml"),
        "problem = \"coin-route\"\ncommand = [\"python3\", \"main.py\"]\n",
    )
    .unwrap();
    let config = outside.path().join("scoring.toml");
    std::fs::write(
        &config,
        format!(
            "[harness]\nproblems = [{:?}]\n",
            problem.display().to_string()
        ),
    )
    .unwrap();
    let elsewhere = outside.path().join("cargo-target");
    let results = outside.path().join("results");
    let out = support::harness()
        .env("CARGO_TARGET_DIR", &elsewhere)
        .arg("--config")
        .arg(&config)
        .args(["--seeds", "0..1", "--players"])
        .arg(&player)
        .arg("--results")
        .arg(&results)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    assert!(support::built_tools(&results, "coin-route")
        .join("target/release/vis")
        .is_file());
    assert!(
        !problem.join("tools/target").exists(),
        "built in the contest's folder"
    );
    assert!(
        !elsewhere.exists(),
        "the build used the environment's target folder"
    );
    let rows = scores(&results);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r["verdict"] == "OK"), "{rows:?}");
}

/// The harness's own threads off the tests' path (the one that makes judges' folders ahead,
/// the one that removes them) are never in a worker's cpu group, whose one CPU's time is its
/// players': one started while its worker played a game (the first judge's folder is taken
/// then) was born in that group and stayed there. Seen from outside while a run goes, in
/// each thread's `/proc/<pid>/task/<tid>/cgroup` once it has started; the run's groups are
/// named `harness-<pid>-<n>`.
#[test]
fn the_threads_off_the_tests_path_are_in_no_workers_group() {
    let ws = Workspace::batch();
    let out_dir = ws.root().join("results/threads");
    let mut child = ws
        .ws
        .command(&["best"], "1..300", &out_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .args(["--threads", "2"])
        .spawn()
        .unwrap();
    let tasks = PathBuf::from(format!("/proc/{}/task", child.id()));
    // Each off-path thread's name (as `comm` cuts it) and the cgroup lines it was seen with.
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    while child.try_wait().unwrap().is_none() && seen.len() < 2 {
        for task in std::fs::read_dir(&tasks).into_iter().flatten().flatten() {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            let comm = comm.trim();
            if ["harness-ahead", "harness-tool-ja"].contains(&comm) {
                if let Ok(groups) = std::fs::read_to_string(task.path().join("cgroup")) {
                    seen.insert(comm.to_string(), groups);
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = child.wait();
    assert_eq!(
        seen.len(),
        2,
        "both off-path threads should have been seen during the run: {seen:?}"
    );
    for (thread, groups) in &seen {
        assert!(
            !groups.contains("/harness-"),
            "{thread} is in one of the run's cgroups:\n{groups}"
        );
    }
}
