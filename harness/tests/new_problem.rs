//! `harness new-problem`: on copies of the shipped example contests without their
//! `problem.toml` (as a competitor gets a contest's tools), the written config runs and
//! scores every test as the shipped one does, and the command it prints runs; what it cannot
//! use is exit 2 naming it.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use support::{expect_exit, scores};

/// Copies `from` into `to`, leaving out `problem.toml` and build products (`target/`,
/// `build/`, `tester.jar`): the contest as downloaded.
fn copy_contest(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name();
        let skip = ["problem.toml", "target", "build", "tester.jar"];
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_contest(&entry.path(), &to.join(&name));
        } else {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// The harness in `dir`.
fn harness_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .env_remove("HARNESS_SECRET")
        .args(args)
        .output()
        .unwrap()
}

/// (seed, verdict, score) of every test of a results folder, sorted.
fn outcomes(results: &Path) -> Vec<(String, String, String)> {
    let mut all: Vec<(String, String, String)> = scores(results)
        .into_iter()
        .map(|r| (r["seed"].clone(), r["verdict"].clone(), r["score"].clone()))
        .collect();
    all.sort();
    all
}

/// A fresh workspace (an empty scoring.toml) beside a copy of the shipped `example`.
struct Try {
    dir: tempfile::TempDir,
}

impl Try {
    fn new(example: &str) -> Try {
        let dir = tempfile::tempdir().unwrap();
        copy_contest(
            &support::root().join("testcases").join(example),
            &dir.path().join("contest").join(example),
        );
        std::fs::create_dir_all(dir.path().join("ws")).unwrap();
        std::fs::write(dir.path().join("ws/scoring.toml"), "").unwrap();
        Try { dir }
    }

    fn ws(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    fn contest(&self, example: &str) -> PathBuf {
        self.dir.path().join("contest").join(example)
    }
}

/// new-problem on the copy of `example` (at `source` inside it), then `player` on `seeds`
/// with the written config and with the shipped one: the same verdicts and scores, all OK;
/// then the printed next command (the starter player) runs. Returns the workspace and the
/// results of the player's run with the written config.
fn same_as_shipped(
    example: &str,
    source: &str,
    objective: &str,
    player: &str,
    seeds: &str,
) -> (Try, PathBuf) {
    let t = Try::new(example);
    let tools = t.contest(example).join(source);
    let out = harness_in(
        &t.ws(),
        &[
            "new-problem",
            tools.to_str().unwrap(),
            "--objective",
            objective,
        ],
    );
    expect_exit(&out, 0);
    let printed = String::from_utf8_lossy(&out.stdout).to_string();
    // The id is the contest folder's name; the config is where a problem's goes.
    let written = t.ws().join("testcases").join(example).join("problem.toml");
    assert!(written.is_file(), "{printed}");
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(!text.contains("CHECK: \"max\""), "{text}");
    let player_dir = support::root().join("players").join(player);
    let mine = t.ws().join("results/mine");
    let out = harness_in(
        &t.ws(),
        &[
            "--players",
            player_dir.to_str().unwrap(),
            "--seeds",
            seeds,
            "--results",
            mine.to_str().unwrap(),
        ],
    );
    expect_exit(&out, 0);
    let shipped = tempfile::tempdir().unwrap();
    let out = support::harness()
        .args(["--players", &format!("players/{player}"), "--seeds", seeds])
        .arg("--results")
        .arg(shipped.path())
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let (a, b) = (outcomes(&mine), outcomes(shipped.path()));
    assert!(
        !a.is_empty() && a.iter().all(|(_, v, _)| v == "OK"),
        "{a:?}"
    );
    assert_eq!(a, b, "written config vs shipped config\n{text}");
    // The command new-problem printed runs its starter player to a leaderboard.
    let next = printed
        .lines()
        .find_map(|l| l.strip_prefix("next: harness "))
        .unwrap_or_else(|| panic!("no next command in:\n{printed}"));
    let args: Vec<&str> = next.split_whitespace().collect();
    let out = harness_in(&t.ws(), &args);
    expect_exit(&out, 0);
    let rows = scores(&t.ws().join("results"));
    let starter = format!("{example}-starter");
    // It answers nothing yet: judged (WA), never the harness's error.
    assert!(
        !rows.is_empty()
            && rows
                .iter()
                .all(|r| r["player"] == starter && r["verdict"] != "ERR"),
        "{rows:?}"
    );
    (t, mine)
}

#[test]
fn the_batch_example_from_its_tools_alone_scores_as_shipped() {
    same_as_shipped("tools-batch", "tools", "max", "tools-batch-nearest", "0..3");
}

#[test]
fn the_interactive_example_from_its_tools_alone_scores_as_shipped() {
    // The folder holding tools/, as a contest's download is laid out.
    let (t, mine) = same_as_shipped(
        "tools-interactive",
        ".",
        "min",
        "tools-interactive-scan",
        "0..3",
    );
    // Its vis (src/bin/vis.rs beside the tester) was found and drew every game.
    let text =
        std::fs::read_to_string(t.ws().join("testcases/tools-interactive/problem.toml")).unwrap();
    assert!(
        text.contains("vis = [\"target/release/vis\", \"{input}\", \"{output}\"]"),
        "{text}"
    );
    for seed in 0..=3 {
        let svg = mine.join(format!(
            "latest/pictures/tools-interactive/tools-interactive-scan/{seed}/out.svg"
        ));
        let svg =
            std::fs::read_to_string(&svg).unwrap_or_else(|e| panic!("{}: {e}", svg.display()));
        assert!(svg.starts_with("<svg") && svg.contains("<circle"), "{svg}");
    }
}

#[test]
fn the_topcoder_example_from_its_tester_source_alone_scores_as_shipped() {
    let jdk = [
        ("javac", "default-jdk-headless"),
        ("jar", "default-jdk-headless"),
        ("java", "default-jdk-headless"),
    ];
    if !support::needs("java", &jdk) {
        return;
    }
    same_as_shipped(
        "tools-topcoder",
        "Tester.java",
        "max",
        "tools-topcoder-ratio",
        "1..3",
    );
}

#[test]
fn what_new_problem_cannot_use_or_guess_is_said() {
    let t = Try::new("tools-batch");
    // Nothing it knows: exit 2 naming the folder and what it looked for.
    let empty = t.dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = harness_in(&t.ws(), &["new-problem", empty.to_str().unwrap()]);
    expect_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(empty.to_str().unwrap()) && err.contains("no contest tools found"),
        "{err}"
    );
    // No --objective: written as a guess, marked, and said.
    let tools = t.contest("tools-batch").join("tools");
    let out = harness_in(
        &t.ws(),
        &["new-problem", tools.to_str().unwrap(), "--id", "cr"],
    );
    expect_exit(&out, 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: objective"));
    let text = std::fs::read_to_string(t.ws().join("testcases/cr/problem.toml")).unwrap();
    assert!(text.contains("objective = \"max\"  # CHECK"), "{text}");
    // Not over an existing problem without --force.
    let out = harness_in(
        &t.ws(),
        &["new-problem", tools.to_str().unwrap(), "--id", "cr"],
    );
    expect_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    let out = harness_in(
        &t.ws(),
        &[
            "new-problem",
            tools.to_str().unwrap(),
            "--id",
            "cr",
            "--force",
        ],
    );
    expect_exit(&out, 0);
    // A built-in problem's id is refused.
    let out = harness_in(
        &t.ws(),
        &["new-problem", tools.to_str().unwrap(), "--id", "linez"],
    );
    expect_exit(&out, 2);
}

#[test]
fn an_interactive_testers_vis_beside_it_is_written_as_its_vis() {
    // AtCoder's interactive tools: tester.rs (taking the player's command) and vis.rs, which
    // draws the tester's output into out.svg. Only looked at, never built.
    let root = tempfile::tempdir().unwrap();
    let tools = root.path().join("ahc-int/tools");
    std::fs::create_dir_all(tools.join("src/bin")).unwrap();
    std::fs::create_dir_all(root.path().join("ws")).unwrap();
    std::fs::write(root.path().join("ws/scoring.toml"), "").unwrap();
    std::fs::write(
        tools.join("Cargo.toml"),
        "[package]\nname = \"tools\"\nversion = \"1.0.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    for (bin, code) in [
        (
            "tester",
            "fn main() { eprintln!(\"Usage: tester <command> [<args>...]\"); }\n",
        ),
        (
            "vis",
            "fn main() { std::fs::write(\"out.svg\", \"<svg/>\").unwrap(); }\n",
        ),
        ("gen", "fn main() { let _ = std::env::args(); }\n"),
    ] {
        std::fs::write(tools.join(format!("src/bin/{bin}.rs")), code).unwrap();
    }
    let ws = root.path().join("ws");
    let out = harness_in(
        &ws,
        &["new-problem", tools.to_str().unwrap(), "--objective", "min"],
    );
    expect_exit(&out, 0);
    let text = std::fs::read_to_string(ws.join("testcases/ahc-int/problem.toml")).unwrap();
    for line in [
        "shape = \"interactive\"",
        "judge = [\"target/release/tester\", \"{player...}\"]",
        "vis = [\"target/release/vis\", \"{input}\", \"{output}\"]",
        "pictures = [\"out.svg\"]",
    ] {
        assert!(text.lines().any(|l| l == line), "no {line:?} in:\n{text}");
    }
}

/// A contest folder holding both the official `tester.jar` and its `*Vis.java`: new-problem
/// uses the jar, given the folder or the `.java` itself, and never builds over it.
#[test]
fn new_problem_prefers_the_official_jar_to_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let contest = dir.path().join("contest");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&contest).unwrap();
    std::fs::write(ws.join("scoring.toml"), "").unwrap();
    std::fs::write(contest.join("tester.jar"), "the official jar").unwrap();
    std::fs::write(contest.join("GameVis.java"), "public class GameVis {}\n").unwrap();
    for (source, id) in [
        (contest.clone(), "by-folder"),
        (contest.join("GameVis.java"), "by-java"),
    ] {
        let out = harness_in(
            &ws,
            &[
                "new-problem",
                source.to_str().unwrap(),
                "--id",
                id,
                "--objective",
                "max",
            ],
        );
        expect_exit(&out, 0);
        let text =
            std::fs::read_to_string(ws.join(format!("testcases/{id}/problem.toml"))).unwrap();
        assert!(text.contains("\"tester.jar\""), "{id}: {text}");
        assert!(
            !text.lines().any(|l| l.starts_with("build")),
            "{id}: a build over the official jar: {text}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(contest.join("tester.jar")).unwrap(),
        "the official jar"
    );
}
