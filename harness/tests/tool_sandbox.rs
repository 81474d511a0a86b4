//! A contest tool run contained (`sandbox::tool`): it reads its stdin, writes its stdout to a
//! file and files in its working folder, is stopped at its time limit, and cannot read what a
//! test must keep from it (another folder of the harness's scratch space, the results).

use std::path::{Path, PathBuf};
use std::time::Duration;

use harness::sandbox::tool::{self, Stdin, ToolCommand, ToolDir, ToolEnd};
use harness::sandbox::{Isolation, TestLimits, Want};

fn isolation() -> Isolation {
    isolation_with(Want::Auto)
}

fn isolation_with(sandbox: Want) -> Isolation {
    harness::sandbox::set_supervisor(Path::new(env!("CARGO_BIN_EXE_harness")));
    Isolation::prepare(sandbox, Want::Auto, &[]).expect("isolation")
}

/// A tools folder holding one shell script `run.sh` with this body.
fn tools(body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("run.sh");
    std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn command(tools: &Path, stdin: &str, stdout: Option<PathBuf>, timeout: u64) -> ToolCommand {
    ToolCommand {
        program: tools.join("run.sh"),
        args: vec!["an argument".into()],
        tools: tools.to_path_buf(),
        read_only: Vec::new(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        stdin: if stdin.is_empty() {
            Stdin::Null
        } else {
            Stdin::Bytes(stdin.as_bytes().to_vec())
        },
        stdout,
        timeout: Duration::from_secs(timeout),
        limits: TestLimits {
            memory: 512 << 20,
            disk: 64 << 20,
            procs: 64,
            core_dumps: false,
        },
        max_output: 1 << 20,
    }
}

#[test]
fn a_tool_reads_stdin_writes_files_and_reports_its_exit() {
    let iso = isolation();
    let t = tools(
        "cat > got.txt\necho \"arg=$1\"\necho 'Score = 17' >&2\necho picture > out.svg\nls ../ > /dev/null\nexit 3",
    );
    let dir = ToolDir::new(iso.scratch()).unwrap();
    let out = dir.path().join("stdout.txt");
    let run = tool::run(
        &iso,
        &command(t.path(), "1 2 3\n", Some(out.clone()), 30),
        &dir,
    );
    assert_eq!(
        run.end,
        ToolEnd::Exited(harness::sandbox::spec::Exit::Code(3)),
        "{run:?}"
    );
    assert!(!run.succeeded());
    assert_eq!(
        std::fs::read_to_string(dir.work().join("got.txt")).unwrap(),
        "1 2 3\n"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "arg=an argument\n");
    assert_eq!(run.stdout_tail, "arg=an argument\n");
    assert!(run.stderr_tail.contains("Score = 17"), "{run:?}");
    let left = tool::left_behind(&dir.work());
    assert_eq!(
        left,
        vec![PathBuf::from("got.txt"), PathBuf::from("out.svg")]
    );
    assert_eq!(run.last_lines(1), "arg=an argument");
}

#[test]
fn a_tool_past_its_time_is_stopped() {
    let iso = isolation();
    let t = tools("echo started\nwhile :; do :; done");
    let dir = ToolDir::new(iso.scratch()).unwrap();
    let run = tool::run(&iso, &command(t.path(), "", None, 1), &dir);
    assert_eq!(run.end, ToolEnd::TimedOut, "{run:?}");
    assert_eq!(run.stdout_tail, "started\n");
}

#[test]
fn a_missing_program_never_starts() {
    let iso = isolation();
    let t = tools("exit 0");
    let dir = ToolDir::new(iso.scratch()).unwrap();
    let mut cmd = command(t.path(), "", None, 30);
    cmd.program = t.path().join("no-such-tool");
    let run = tool::run(&iso, &cmd, &dir);
    assert!(matches!(run.end, ToolEnd::NotStarted(_)), "{run:?}");
}

#[test]
fn a_tool_sees_only_its_tools_and_its_own_folder() {
    // With namespaces (where the machine has them) and in process mode (landlock).
    for sandbox in [Want::Auto, Want::Off] {
        sees_only_its_own(isolation_with(sandbox));
    }
}

fn sees_only_its_own(iso: Isolation) {
    // A secret beside the tool's folder in the scratch space (another test's files), and one
    // in a folder of the host that is not shown.
    let other = ToolDir::new(iso.scratch()).unwrap();
    std::fs::write(other.work().join("secret.txt"), "other test").unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("secret.txt"), "results").unwrap();
    let t = tools(&format!(
        "echo ran > marker.txt\ncat {} {} 2>/dev/null && echo LEAKED\ncat $0 > /dev/null && echo tools-readable\necho x > $0 2>/dev/null && echo TOOLS-WRITABLE\nexit 0",
        other.work().join("secret.txt").display(),
        elsewhere.path().join("secret.txt").display()
    ));
    let dir = ToolDir::new(iso.scratch()).unwrap();
    let run = tool::run(&iso, &command(t.path(), "", None, 30), &dir);
    assert!(run.succeeded(), "{}: {run:?}", iso.describe());
    // It ran its attack.
    assert_eq!(
        std::fs::read_to_string(dir.work().join("marker.txt")).unwrap(),
        "ran\n"
    );
    assert!(
        !run.stdout_tail.contains("LEAKED"),
        "{}: {run:?}",
        iso.describe()
    );
    assert!(run.stdout_tail.contains("tools-readable"), "{run:?}");
    assert!(!run.stdout_tail.contains("TOOLS-WRITABLE"), "{run:?}");
}

#[test]
fn a_held_tool_runs_only_after_its_go_and_sees_what_was_put_in_its_folder_meanwhile() {
    // With namespaces (where the machine has them) and in process mode.
    for sandbox in [Want::Auto, Want::Off] {
        held_runs_after_its_go(isolation_with(sandbox));
        held_never_runs_without_its_go(isolation_with(sandbox));
    }
}

fn held_runs_after_its_go(iso: Isolation) {
    let t = tools("cat > got.txt\ncat answer.txt\necho ran > marker.txt\nexit 0");
    let dir = ToolDir::new(iso.scratch()).unwrap();
    let held = tool::hold(&iso, &command(t.path(), "1 2 3\n", None, 30), &dir);
    // Set up, not run: nothing of the tool's own doing is there yet, even a while later.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !dir.work().join("marker.txt").exists(),
        "{}",
        iso.describe()
    );
    // A file the harness puts in the folder after the set-up (a player's answer).
    std::fs::write(dir.work().join("answer.txt"), "the answer\n").unwrap();
    let run = held.go();
    assert!(run.succeeded(), "{}: {run:?}", iso.describe());
    assert_eq!(run.stdout_tail, "the answer\n", "{}", iso.describe());
    // Its stdin is the command's, without the go byte.
    assert_eq!(
        std::fs::read_to_string(dir.work().join("got.txt")).unwrap(),
        "1 2 3\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.work().join("marker.txt")).unwrap(),
        "ran\n"
    );
}

fn held_never_runs_without_its_go(iso: Isolation) {
    let t = tools("echo ran > marker.txt\nexit 0");
    let dir = ToolDir::new(iso.scratch()).unwrap();
    let held = tool::hold(&iso, &command(t.path(), "", None, 30), &dir);
    std::thread::sleep(Duration::from_millis(300));
    // Dropped unreleased: its sandbox is ended and it never ran.
    drop(held);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !dir.work().join("marker.txt").exists(),
        "{}",
        iso.describe()
    );
    // The same command released does run (the test above can fail).
    let again = ToolDir::new(iso.scratch()).unwrap();
    let run = tool::hold(&iso, &command(t.path(), "", None, 30), &again).go();
    assert!(run.succeeded(), "{}: {run:?}", iso.describe());
    assert!(
        again.work().join("marker.txt").exists(),
        "{}",
        iso.describe()
    );
}
