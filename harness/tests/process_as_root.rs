//! Process mode (`--sandbox off`) under a root harness, whose players run as an id of their
//! own (uid 2000000000), not root (issue 38): a program found by name on PATH in a folder
//! that id may not pass (a pyenv shim under /root) is looked up again on PATH as that id
//! would find it, and a player kept in a 0700 folder plays from the run's private copy. When
//! no program of that name is within its reach, the run stops before any test with one
//! message (exit 2), never an ERR per test.
//!
//! The "interpreter" is `attack-player`, the hostile build fixture's program, whose `play`
//! mode plays a legal chesspuzzle game; the copy in the closed folder first on PATH exits 3
//! (had the player run it, the verdict would be RE).

#[path = "support/containment.rs"]
mod containment;
mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use containment::Scratch;

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `dir/bin/attack-player`: the fixture itself, or (`real` false) a script that exits 3.
fn interpreter(dir: &Path, real: bool) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let program = bin.join("attack-player");
    if real {
        std::fs::copy(support::compile_c("build-attack"), &program).unwrap();
    } else {
        support::write_exec(&program, "#!/bin/sh\nexit 3\n");
    }
    chmod(&program, 0o755);
    chmod(&bin, 0o755);
    bin
}

/// Runs the player in `folder` on two seeds in process mode with `path` first on PATH.
fn run(scratch: &Scratch, folder: &Path, path: &[&Path], results: &str) -> (Output, PathBuf) {
    let results = scratch.path().join(results);
    let mut dirs: Vec<PathBuf> = path.iter().map(|p| p.to_path_buf()).collect();
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(scratch.path())
        .stdin(Stdio::null())
        .env("PATH", std::env::join_paths(dirs).unwrap())
        .arg("--players")
        .arg(folder)
        .args(["--seeds", "1..2", "--sandbox", "off", "--results"])
        .arg(&results)
        .output()
        .unwrap();
    (out, results)
}

#[test]
fn a_root_harness_finds_a_reachable_interpreter_and_copies_a_closed_player_folder() {
    if !support::needs_root("process-mode players of a root harness run as another id") {
        return;
    }
    let scratch = Scratch::new("process-as-root");
    std::fs::write(scratch.path().join("scoring.toml"), "").unwrap();
    // The interpreter first on PATH is in a folder closed to others; an open one is later.
    let closed = scratch.path().join("closed");
    let closed_bin = interpreter(&closed, false);
    chmod(&closed, 0o700);
    let open_bin = interpreter(&scratch.path().join("open"), true);
    // The player in a 0700 folder, its files owner-only as a umask 077 leaves them.
    let home = scratch.path().join("home");
    let player = home.join("alice");
    std::fs::create_dir_all(&player).unwrap();
    std::fs::write(
        player.join("player.toml"),
        "problem = \"chesspuzzle\"\ncommand = [\"attack-player\", \".\", \"play\"]\n",
    )
    .unwrap();
    chmod(&player.join("player.toml"), 0o600);
    chmod(&player, 0o700);
    chmod(&home, 0o700);
    let before = support::checksums(&player);

    let (out, results) = run(&scratch, &player, &[&closed_bin, &open_bin], "found");
    support::expect_exit(&out, 0);
    let rows = support::scores(&results);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r["verdict"] == "OK"), "{rows:?}");
    assert_eq!(support::checksums(&player), before);

    // Nothing of that name within its reach: one message, before any test.
    let (out, results) = run(&scratch, &player, &[&closed_bin], "none");
    support::expect_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("may not run").count(), 1, "{err}");
    assert!(
        err.contains(&closed_bin.join("attack-player").display().to_string())
            && err.contains("no attack-player on PATH is open to it"),
        "{err}"
    );
    assert!(!err.contains("chmod"), "{err}");
    assert!(!results.join("latest").exists());
}
