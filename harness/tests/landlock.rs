//! Process mode (`--sandbox off`, and the fallback where namespaces cannot be had) on a
//! kernel with landlock: a player cannot read the answers or anything else of the workspace,
//! write outside its own folders, signal the judge, or open a TCP connection, though it runs
//! without namespaces. Needs landlock ABI 6 or later (the project's machines have 7): the test
//! fails, saying so, where the kernel has less.

mod support;

use std::net::TcpListener;

#[test]
fn a_process_mode_player_is_kept_to_its_own_files_and_off_tcp_and_signals() {
    let dir = tempfile::tempdir().unwrap();
    let player = dir.path().join("spy");
    std::fs::create_dir(&player).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let answers = support::root()
        .canonicalize()
        .unwrap()
        .join("testcases/game-ending/sys-010.ans");
    assert!(answers.exists(), "{}", answers.display());
    let stray = std::env::temp_dir().join(format!(
        "landlock-stray-{}",
        dir.path().file_name().unwrap().to_string_lossy()
    ));
    let script = format!(
        r#"#!/bin/sh
try() {{ if eval "$2" >/dev/null 2>&1; then echo "REACHED $1" >&2; else echo "BLOCKED $1" >&2; fi; }}
try "read the answers" "cat '{answers}'"
try "list the workspace" "ls '{workspace}'"
try "write to /tmp" "echo x > '{stray}'"
try "signal the judge" "kill -0 $PPID"
try "connect over TCP" "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 2)'"
try "write its own TMPDIR" "echo x > \"$TMPDIR/note\""
try "run python3" "python3 -c 'print(1)'"
read header
echo "0 0"
"#,
        answers = answers.display(),
        workspace = support::root().canonicalize().unwrap().display(),
        stray = stray.display(),
    );
    std::fs::write(player.join("spy.sh"), script).unwrap();
    std::fs::write(
        player.join("player.toml"),
        "name = \"spy\"\nproblem = \"chesspuzzle\"\ncommand = [\"sh\", \"spy.sh\"]\n",
    )
    .unwrap();
    let results = dir.path().join("results");
    let out = support::harness()
        .args([
            "--problem",
            "chesspuzzle",
            "--seeds",
            "1",
            "--sandbox",
            "off",
        ])
        .arg("--results")
        .arg(&results)
        .arg("--players")
        .arg(&player)
        .output()
        .unwrap();
    support::expect_exit(&out, 0);
    let run_toml = std::fs::read_to_string(results.join("latest/run.toml")).unwrap();
    let abi: u32 = run_toml
        .split("landlock ABI ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("this kernel offers no landlock to process mode:\n{run_toml}"));
    assert!(
        abi >= 6,
        "landlock ABI {abi}: signals and TCP need ABI 6 and 4"
    );
    let log = support::stderr_log(&results, "chesspuzzle", "spy", "1");
    for blocked in [
        "read the answers",
        "list the workspace",
        "write to /tmp",
        "signal the judge",
        "connect over TCP",
    ] {
        assert!(
            log.contains(&format!("BLOCKED {blocked}")),
            "{blocked}:\n{log}"
        );
    }
    // What it may do still works: its own temporary folder, and an interpreter on PATH.
    for reached in ["write its own TMPDIR", "run python3"] {
        assert!(
            log.contains(&format!("REACHED {reached}")),
            "{reached}:\n{log}"
        );
    }
    assert!(!stray.exists(), "{} was written", stray.display());
    assert!(listener.accept().is_err(), "the listener got a connection");
}
