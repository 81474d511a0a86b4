//! What a player can put into the results: its name is checked before anything runs, and no
//! cell of the CSV files that holds a player's text starts like a spreadsheet formula.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use harness::problem::CaseKey;
use harness::report::files::RunFiles;
use harness::report::{Event, Reporter, RunState, Summary};
use harness::rundir::Layout;
use harness::runner::TestResult;
use harness::session::StderrTail;
use harness::verdict::{Outcome, Verdict};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs the harness: (exit code, stderr).
fn harness(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(root())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("harness runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// A copy of the Python ChessPuzzle example player under another name.
fn named_player(dir: &Path, name: &str) -> PathBuf {
    let folder = dir.join("player");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        root().join("players/chesspuzzle-python/main.py"),
        folder.join("main.py"),
    )
    .unwrap();
    std::fs::write(
        folder.join("player.toml"),
        format!(
            "name = {}\nproblem = \"chesspuzzle\"\ncommand = [\"python3\", \"main.py\"]\n",
            serde_json::to_string(name).unwrap()
        ),
    )
    .unwrap();
    folder
}

#[test]
fn names_that_are_not_plain_words_are_refused_before_anything_runs() {
    for name in [
        "=HYPERLINK(\"http://example.invalid\",\"x\")",
        "+1",
        "-x",
        "@SUM(A1)",
        "../../../../tmp/x",
        "a..b",
        ".hidden",
        "_x",
        "a b",
        "x/y",
        "caf\u{e9}",
        "",
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let folder = named_player(tmp.path(), name);
        let results = tmp.path().join("results");
        let (code, err) = harness(&[
            "--players".as_ref(),
            folder.as_os_str(),
            "--seeds".as_ref(),
            "1".as_ref(),
            "--results".as_ref(),
            results.as_os_str(),
        ]);
        assert_eq!(code, 2, "{name:?}: {err}");
        let toml = folder.join("player.toml");
        let toml = std::fs::canonicalize(&toml).unwrap();
        assert!(
            err.contains(&toml.display().to_string()) && err.contains("is not allowed"),
            "{name:?}: {err}"
        );
        assert!(!results.exists(), "{name:?}: nothing is written");
    }
    // An executable file takes its name from its file name.
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("=cmd.sh");
    std::fs::write(&exe, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&exe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (code, err) = harness(&[
        "--problem".as_ref(),
        "chesspuzzle".as_ref(),
        "--players".as_ref(),
        exe.as_os_str(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("=cmd.sh") && err.contains("is not allowed"),
        "{err}"
    );
}

#[test]
fn a_plain_name_with_dots_dashes_and_underscores_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = named_player(tmp.path(), "v2.1_fast-python");
    let results = tmp.path().join("results");
    let (code, err) = harness(&[
        "--players".as_ref(),
        folder.as_os_str(),
        "--seeds".as_ref(),
        "1".as_ref(),
        "--results".as_ref(),
        results.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(results
        .join("latest/transcripts/chesspuzzle/v2.1_fast-python/1.txt")
        .is_file());
}

fn result(reason: &str, warning: &str) -> TestResult {
    TestResult {
        problem: "chesspuzzle",
        player: "p".to_string(),
        case: CaseKey::Seed(1),
        params: vec!["6".into(), "6".into(), "1".into()],
        outcome: Outcome {
            verdict: Verdict::WrongAnswer,
            reason: reason.to_string(),
            ..Outcome::ok(0.0, 0)
        },
        think: Duration::ZERO,
        wall: Duration::ZERO,
        cpu: Duration::ZERO,
        max_memory_kb: 0,
        stderr: StderrTail::default(),
        player_hash: String::new(),
        warning: warning.to_string(),
        transcript: String::new(),
        pictures: Vec::new(),
    }
}

/// Every cell of a CSV file, as the file holds it.
fn cells(path: &Path) -> Vec<String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap();
    reader
        .records()
        .flat_map(|r| r.unwrap().iter().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

fn looks_like_a_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

#[test]
fn reasons_and_warnings_never_start_a_cell_like_a_formula() {
    let tmp = tempfile::tempdir().unwrap();
    let problems = [(
        "chesspuzzle".to_string(),
        vec!["H".to_string(), "W".to_string(), "K".to_string()],
    )];
    let mut files = RunFiles::create(tmp.path(), "", Layout::new(&problems), "").unwrap();
    let mut state = RunState::new(&files.id, &files.dir, Summary::new(&[], 0), 0);
    let texts = ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "plain"];
    for text in texts {
        let result = result(text, text);
        state.add(harness::execute::score_row(&result, &["H", "W", "K"]));
        files
            .on_event(&Event::TestFinished(&result), &mut state)
            .unwrap();
    }
    let cells = cells(&files.dir.join("scores.csv"));
    for text in texts {
        let kept = if looks_like_a_formula(text) {
            format!("'{text}")
        } else {
            text.to_string()
        };
        assert_eq!(
            cells.iter().filter(|c| **c == kept).count(),
            2,
            "reason and warning {text:?} are kept as {kept:?}"
        );
    }
    assert!(!cells.iter().any(|c| looks_like_a_formula(c)), "{cells:?}");
}

#[test]
fn a_player_sending_formulas_leaves_none_in_the_results() {
    let tmp = tempfile::tempdir().unwrap();
    let player = tmp.path().join("formula.sh");
    std::fs::write(
        &player,
        "#!/bin/sh\nprintf '=HYPERLINK(\"x\")\\n'\nprintf '@x\\n-1\\n' >&2\ncat > /dev/null\n",
    )
    .unwrap();
    std::fs::set_permissions(&player, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let results = tmp.path().join("results");
    let (code, err) = harness(&[
        "--problem".as_ref(),
        "chesspuzzle".as_ref(),
        "--seeds".as_ref(),
        "1..2".as_ref(),
        "--players".as_ref(),
        player.as_os_str(),
        "--results".as_ref(),
        results.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    for file in ["latest/scores.csv", "latest/leaderboard.csv", "best.csv"] {
        let cells = cells(&results.join(file));
        assert!(cells.len() >= 6, "{file} has rows");
        let bad: Vec<&String> = cells.iter().filter(|c| looks_like_a_formula(c)).collect();
        assert!(bad.is_empty(), "{file}: {bad:?}");
    }
}
