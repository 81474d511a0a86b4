//! Judging a test through the harness's library in this test's own process (the runner, not
//! the harness binary): a shell-script ChessPuzzle player, and a run's default containment.

use harness::players::Player;
use harness::runner::{base_env, Containment, TestResult};
use harness::sandbox::{Isolation, Want};
use harness::verdict::Verdict;

/// Writes a shell-script ChessPuzzle player named `name` into a fresh folder and returns it.
pub fn script_player(name: &str, body: &str) -> (tempfile::TempDir, Player) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(format!("{name}.sh"));
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let player = Player {
        name: name.to_string(),
        problem: "chesspuzzle".to_string(),
        program: path.clone(),
        args: Vec::new(),
        cwd: dir.path().to_path_buf(),
        source: path,
        hash: String::new(),
        env: Vec::new(),
        pass_env: Vec::new(),
        on_path: false,
        snapshot: None,
    };
    (dir, player)
}

/// The default containment of a run (the sandbox where the machine offers it, as `sandbox`
/// asks), its supervisor the harness binary this test was built with.
pub fn containment(sandbox: Want) -> Containment {
    harness::sandbox::set_supervisor(std::path::Path::new(env!("CARGO_BIN_EXE_harness")));
    Containment {
        isolation: Isolation::prepare(sandbox, Want::Auto, &[])
            .expect("isolation")
            .into(),
        base_env: base_env(&[]),
        core_dumps: false,
    }
}

/// The test's player read the board and quit (`read header; exit 0`): WA, for closing its
/// output before the game ended.
pub fn assert_quit_early(r: &TestResult) {
    assert_eq!(r.outcome.verdict, Verdict::WrongAnswer, "{r:?}");
    assert!(
        r.outcome
            .reason
            .contains("closed its output before the game ended"),
        "{}",
        r.outcome.reason
    );
}
