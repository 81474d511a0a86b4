//! What a new user does first: copy a shipped player into `players/` under a new folder name
//! and run the main command. The workspace must still load (no edit of the root Cargo.toml),
//! the copy must play, and a run started from inside `players/` must use the workspace's
//! `scoring.toml` and write `results/` beside it, never `players/results/`.
//!
//! The checks run in a copy of the workspace's layout (its real root `Cargo.toml`,
//! `scoring.toml` and shipped player folders, with a stub `harness` crate) so that the
//! repository's own `players/` is never touched.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if name == "target" || name == "__pycache__" || name == "Cargo.lock" {
            continue;
        }
        let path = entry.path();
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).expect("copy");
        }
    }
}

/// The workspace's layout in a temporary folder, as a fresh clone has it.
fn mirror() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = dir.path();
    for file in ["Cargo.toml", "scoring.toml"] {
        std::fs::copy(root().join(file), ws.join(file)).expect("copy");
    }
    std::os::unix::fs::symlink(
        std::fs::canonicalize(root().join("testcases")).expect("testcases"),
        ws.join("testcases"),
    )
    .expect("link testcases");
    std::fs::create_dir_all(ws.join("harness/src")).expect("mkdir");
    std::fs::write(
        ws.join("harness/Cargo.toml"),
        "[package]\nname = \"harness\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .expect("write");
    std::fs::write(ws.join("harness/src/lib.rs"), "").expect("write");
    copy_dir(&root().join("players"), &ws.join("players"));
    dir
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn harness(cwd: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(cwd)
        .args(args)
        .args(["--threads", "1", "--sandbox", "off", "--cgroup", "off"])
        .stdin(Stdio::null())
        .output()
        .expect("harness runs");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    (out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn a_player_folder_copied_into_players_keeps_the_workspace_and_plays() {
    let dir = mirror();
    let ws = dir.path();
    // `cp -r players/chesspuzzle-python players/my-cp`, and a Cargo player copied the same
    // way (its package renamed, as two players may not share a name).
    copy_dir(
        &ws.join("players/chesspuzzle-python"),
        &ws.join("players/my-cp"),
    );
    copy_dir(
        &ws.join("players/game-ending-correct"),
        &ws.join("players/my-ge"),
    );
    let manifest = ws.join("players/my-ge/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    std::fs::write(
        &manifest,
        text.replace("name = \"game-ending-correct\"", "name = \"my-ge\""),
    )
    .expect("write");

    // What `cargo run -p harness` loads first: the workspace.
    let meta = cargo()
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .arg("--manifest-path")
        .arg(ws.join("Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        meta.status.success(),
        "the workspace no longer loads:\n{}",
        String::from_utf8_lossy(&meta.stderr)
    );

    let (code, stderr) = harness(
        ws,
        &[
            "--players",
            "players/my-cp",
            "players/my-ge",
            "--seeds",
            "1",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let scores = std::fs::read_to_string(ws.join("results/latest/scores.csv")).expect("scores");
    assert!(scores.contains("my-cp"), "{scores}");
    assert!(scores.contains("my-ge"), "{scores}");
}

#[test]
fn a_run_from_inside_players_uses_the_workspace_config_and_results() {
    let dir = mirror();
    let ws = dir.path();
    let players = ws.join("players");
    let (code, stderr) = harness(
        &players,
        &["--players", "chesspuzzle-python", "--seeds", "1"],
    );
    assert_eq!(code, 0, "{stderr}");
    let config = std::fs::canonicalize(ws.join("scoring.toml")).expect("config");
    assert!(
        stderr.contains(&format!("using {}", config.display())),
        "the run does not say which scoring.toml it uses:\n{stderr}"
    );
    assert!(ws.join("results/latest/scores.csv").is_file());
    assert!(
        !players.join("results").exists(),
        "a run wrote players/results/"
    );
}

#[test]
fn gen_outside_the_repository_needs_no_test_data_for_generated_linez_seeds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(dir.path())
        .args(["gen", "--problem", "linez", "--seed", "5"])
        .stdin(Stdio::null())
        .output()
        .expect("harness runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!out.stdout.is_empty());
    // A seed of the statement does need its position: the missing file is named.
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(dir.path())
        .args(["gen", "--problem", "linez", "--seed", "149738788"])
        .stdin(Stdio::null())
        .output()
        .expect("harness runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("examples.txt"), "{stderr}");
}

#[test]
fn an_old_results_folder_and_a_readme_in_players_are_skipped_with_a_note() {
    let dir = mirror();
    let ws = dir.path();
    // What an older harness left in players/ after a run from inside it, and a user's notes.
    let old = ws.join("players/results/20260101-000000");
    std::fs::create_dir_all(&old).expect("mkdir");
    std::fs::write(
        old.join("scores.csv"),
        "problem,player,seed,score,verdict\n",
    )
    .expect("write");
    std::fs::write(old.join("run.toml"), "").expect("write");
    std::fs::write(ws.join("players/NOTES.md"), "my ideas\n").expect("write");
    let (code, stderr) = harness(
        ws,
        &[
            "--players",
            "players/chesspuzzle-python",
            "players/results",
            "players/NOTES.md",
            "--seeds",
            "1",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("skipped player players/results: a folder of run results, not a player"),
        "{stderr}"
    );
    assert!(
        stderr
            .contains("skipped player players/NOTES.md: a text file, not executable: not a player"),
        "{stderr}"
    );
    // A folder a user could mean as a player (a program without its player.toml) is an
    // error that says what to add.
    std::fs::create_dir_all(ws.join("players/half")).expect("mkdir");
    std::fs::write(ws.join("players/half/main.py"), "print(0)\n").expect("write");
    let (code, stderr) = harness(ws, &["--players", "players/half", "--seeds", "1"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("add a player.toml"), "{stderr}");
}

#[test]
fn a_readme_license_makefile_or_dotfile_in_players_is_skipped_with_a_note() {
    let dir = mirror();
    let ws = dir.path();
    // What a user keeps beside their players (none executable): `players/*` matches them all.
    let strays = [
        "README",
        "LICENSE",
        "Makefile",
        ".gitignore",
        "notes.txt",
        "CHANGES.rst",
        "ideas.yaml",
    ];
    for name in strays {
        std::fs::write(ws.join("players").join(name), "not a program\n").expect("write");
    }
    let mut args = vec!["--players".to_string(), "players/chesspuzzle-python".into()];
    args.extend(strays.iter().map(|n| format!("players/{n}")));
    args.extend(["--seeds".into(), "1".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stderr) = harness(ws, &args);
    assert_eq!(code, 0, "{stderr}");
    for name in strays {
        assert!(
            stderr.contains(&format!("skipped player players/{name}: ")),
            "{name}: {stderr}"
        );
    }
    // A program that is not executable yet is still the error that says what to do.
    std::fs::write(ws.join("players/bot"), "#!/bin/sh\necho 0 0\n").expect("write");
    let (code, stderr) = harness(
        ws,
        &[
            "--problem",
            "chesspuzzle",
            "--players",
            "players/bot",
            "--seeds",
            "1",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("chmod +x"), "{stderr}");
}
