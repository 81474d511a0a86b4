//! The README's main command on a machine with only Rust and git: `--players players/*` over
//! players some of which need programs that machine lacks (python3, a C++ compiler, a JDK for
//! a contest's tools, an interpreter named by a `#!` line) leaves those players out with one
//! note per missing program, naming the Debian package, runs the others to the end (their
//! rows in `scores.csv`) and exits 0. Naming one such player alone, or only such players, is
//! a usage error (exit 2) naming what to install.
//!
//! The harness runs with PATH set to a folder of links to what such a machine has (sh, the
//! Rust toolchain and its linker, a few coreutils), in a temporary workspace holding copies of
//! shipped players, the fixtures of `tests/fixtures/fresh-machine/` and the TopCoder-shaped
//! contest `testcases/tools-topcoder` (built and judged with a JDK).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use support::{expect_exit, root};

/// What a machine with only Rust and git has on its PATH (and the commands the shipped
/// builds use before their compiler: `mkdir`).
const FRESH: &[&str] = &["sh", "env", "cat", "mkdir", "rm", "cp", "ls"];
/// The Rust toolchain and its linker, linked too where this machine has them (no player of
/// this test is a Cargo package: they make the PATH that of a Rust machine, nothing more).
const RUST: &[&str] = &["cargo", "rustc", "cc"];
/// What it lacks: the programs the shipped players and contests need beyond Rust.
const LACKS: &[&str] = &["python3", "c++", "g++", "javac", "java", "jar"];

/// Each player of the workspace (copied from `from`, under the workspace root), and the
/// reason its note gives, or `None` for a player that runs here.
const PLAYERS: &[(&str, &str, Option<&str>)] = &[
    (
        "chesspuzzle-python",
        "players/chesspuzzle-python",
        Some("python3 not found (apt-get install python3)"),
    ),
    (
        "linez-python",
        "players/linez-python",
        Some("python3 not found (apt-get install python3)"),
    ),
    (
        "chesspuzzle-cpp",
        "players/chesspuzzle-cpp",
        Some("c++ not found (apt-get install g++)"),
    ),
    (
        "tools-topcoder-inorder",
        "players/tools-topcoder-inorder",
        Some(TOOLS),
    ),
    (
        "tools-topcoder-wrong",
        "harness/tests/fixtures/tool-players/tools-topcoder-wrong",
        Some(TOOLS),
    ),
    (
        "absent-interpreter",
        "harness/tests/fixtures/fresh-machine/absent-interpreter",
        Some("/no/such/dir/python3 not found (apt-get install python3)"),
    ),
    (
        "absent-env-program",
        "harness/tests/fixtures/fresh-machine/absent-env-program",
        Some("made-up-interpreter-for-tests not found"),
    ),
    (
        "answers-first",
        "harness/tests/fixtures/fresh-machine/answers-first",
        None,
    ),
    (
        "answers-second",
        "harness/tests/fixtures/fresh-machine/answers-second",
        None,
    ),
];
const TOOLS: &str =
    "the tools of tools-topcoder: javac, jar, java not found (apt-get install default-jdk-headless)";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if ["target", "build", "__pycache__", "tester.jar"].contains(&name.to_str().unwrap()) {
            continue;
        }
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &to.join(&name));
        } else {
            // Keeps the mode: an executable stays one.
            std::fs::copy(entry.path(), to.join(&name)).expect("copy");
        }
    }
}

/// A workspace (scoring.toml, the contest, the players of [`PLAYERS`]) and the PATH folder.
struct Fresh {
    dir: tempfile::TempDir,
}

impl Fresh {
    fn new() -> Fresh {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).expect("mkdir");
        std::fs::copy(root().join("scoring.toml"), ws.join("scoring.toml")).expect("copy");
        copy_dir(
            &root().join("testcases/tools-topcoder"),
            &ws.join("testcases/tools-topcoder"),
        );
        for (name, from, _) in PLAYERS {
            copy_dir(&root().join(from), &ws.join("players").join(name));
        }
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        for program in FRESH {
            let found = which(program).unwrap_or_else(|| panic!("{program} is not on PATH"));
            std::os::unix::fs::symlink(found, bin.join(program)).expect("link");
        }
        for program in RUST {
            if let Some(found) = which(program) {
                std::os::unix::fs::symlink(found, bin.join(program)).expect("link");
            }
        }
        Fresh { dir }
    }

    fn ws(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    /// The harness in the workspace with only the fresh machine's PATH.
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_harness"))
            .current_dir(self.ws())
            .env("PATH", self.path())
            .env_remove("CARGO_TARGET_DIR")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run harness")
    }
}

fn which(program: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The notes before the run, joined back into one line each (the names wrap).
fn notes(err: &str) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    for line in err.lines() {
        match (line.strip_prefix("  "), notes.last_mut()) {
            (Some(more), Some(last)) if last.starts_with("left out") => {
                last.push(' ');
                last.push_str(more);
            }
            _ => notes.push(line.to_string()),
        }
    }
    notes.retain(|n| n.starts_with("left out"));
    notes
}

#[test]
fn the_main_command_leaves_out_the_players_whose_programs_are_missing_and_runs_the_rest() {
    let fresh = Fresh::new();
    for program in LACKS {
        assert!(
            !fresh.path().join(program).exists(),
            "the fresh PATH must lack {program}"
        );
    }
    let ws = fresh.ws();
    let mut args = vec!["--players".to_string()];
    let mut names: Vec<String> = std::fs::read_dir(ws.join("players"))
        .unwrap()
        .map(|e| format!("players/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    names.sort();
    args.extend(names);
    args.extend(["--seeds", "1..3", "--no-fixed"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = fresh.run(&args);
    expect_exit(&out, 0);
    let err = stderr(&out);
    let notes = notes(&err);
    // One note per reason, naming every player left out for it, in the order of the paths.
    let mut reasons: Vec<&str> = Vec::new();
    for (_, _, reason) in PLAYERS.iter().filter(|p| p.2.is_some()) {
        if !reasons.contains(&reason.unwrap()) {
            reasons.push(reason.unwrap());
        }
    }
    assert_eq!(notes.len(), reasons.len(), "{err}");
    for reason in reasons {
        let mut lacking: Vec<String> = PLAYERS
            .iter()
            .filter(|p| p.2 == Some(reason))
            .map(|p| format!("players/{}", p.0))
            .collect();
        lacking.sort();
        let note = match lacking.len() {
            1 => format!("left out player {}: {reason}", lacking[0]),
            n => format!("left out {n} players: {reason}: {}", lacking.join(", ")),
        };
        assert!(notes.contains(&note), "no note {note:?} in\n{err}");
    }
    // Said again under the leaderboard, where a missing player is looked for.
    let out_text = String::from_utf8_lossy(&out.stdout).to_string();
    let (_, tail) = out_text
        .split_once("game-ending")
        .unwrap_or_else(|| panic!("no leaderboard:\n{out_text}"));
    assert_eq!(self::notes(tail), notes, "{out_text}");
    // Recorded in run.toml (player and reason, in the order of the paths) and said in
    // report.html under the leaderboard.
    let mut expected: Vec<(String, String)> = PLAYERS
        .iter()
        .filter_map(|(name, _, reason)| Some((format!("players/{name}"), (*reason)?.to_string())))
        .collect();
    expected.sort();
    let run = ws.join("results/latest");
    let run_toml: toml::Table = std::fs::read_to_string(run.join("run.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let recorded: Vec<(String, String)> = run_toml["left-out"]
        .as_array()
        .unwrap_or_else(|| panic!("no left-out list in run.toml:\n{run_toml}"))
        .iter()
        .map(|e| {
            let field = |k: &str| e[k].as_str().unwrap().to_string();
            (field("player"), field("reason"))
        })
        .collect();
    assert_eq!(recorded, expected, "run.toml's left-out");
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    let line = page
        .lines()
        .find(|l| l.starts_with("<p class=\"left-out\">"))
        .unwrap_or_else(|| panic!("no left-out line in report.html"));
    for (player, reason) in &expected {
        assert!(
            line.contains(&format!("<code>{player}</code>: {reason}")),
            "{player} is not in report.html's line: {line}"
        );
    }
    let board = page.find("</table>").unwrap();
    assert!(
        page.find(line).unwrap() > board,
        "the line is not under the leaderboard"
    );
    // The players that run here have all their rows; the others none.
    let rows = support::scores(&ws.join("results"));
    for (name, _, reason) in PLAYERS {
        let theirs = support::rows_of(&rows, name);
        match reason {
            None => {
                assert_eq!(theirs.len(), 3, "{name}: {theirs:?}");
                assert!(theirs.iter().all(|r| r["problem"] == "game-ending"));
            }
            Some(_) => assert!(theirs.is_empty(), "{name} was left out: {theirs:?}"),
        }
    }
    let verdicts: Vec<&str> = rows.iter().map(|r| r["verdict"].as_str()).collect();
    assert!(
        verdicts.iter().all(|v| *v == "OK" || *v == "WA"),
        "every answer judged: {verdicts:?}"
    );
}

#[test]
fn one_player_named_alone_or_only_players_that_cannot_run_here_are_usage_errors() {
    let fresh = Fresh::new();
    for (name, _, reason) in PLAYERS {
        let Some(reason) = reason else { continue };
        let path = format!("players/{name}");
        let out = fresh.run(&["--players", &path, "--seeds", "1", "--no-fixed"]);
        expect_exit(&out, 2);
        let err = stderr(&out);
        assert!(
            err.contains(&format!("player {path}: {reason}")),
            "{name}: {err}"
        );
    }
    let out = fresh.run(&[
        "--players",
        "players/chesspuzzle-python",
        "players/chesspuzzle-cpp",
        "--seeds",
        "1",
    ]);
    expect_exit(&out, 2);
    let err = stderr(&out);
    assert!(
        err.contains("no player given can run on this machine, nothing was run"),
        "{err}"
    );
    assert!(
        err.contains("left out player players/chesspuzzle-cpp: c++ not found"),
        "{err}"
    );
    assert!(!fresh.ws().join("results/latest").exists());
    // `gen` of the contest says what its tools lack, before a build that could only fail.
    let out = fresh.run(&["gen", "--problem", "tools-topcoder", "--seed", "1"]);
    expect_exit(&out, 2);
    let err = stderr(&out);
    assert!(
        err.contains(
            "tools-topcoder: the tools need javac, jar, java not found (apt-get install \
             default-jdk-headless)"
        ),
        "{err}"
    );
}
