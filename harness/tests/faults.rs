//! Real player processes that misbehave, each judged through the runner: the verdict, the
//! reason, the time a test may take, and that no process is left behind.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod support;

use harness::config::ProblemConfig;
use harness::problem::{self, CaseKey, Env};
use harness::runner::{run_one, Suite, TestResult};
use harness::sandbox::Want;
use harness::verdict::Verdict;
use support::in_process::{assert_quit_early, containment, script_player};

/// No test may hang on a wall-clock limit under 5 s (a loaded machine would flake it).
const TIME_LIMIT: f64 = 5.0;
const GRACE: f64 = 0.5;

fn chess_suite(config: ProblemConfig) -> Suite {
    Suite {
        problem: problem::by_id("chesspuzzle").expect("chesspuzzle"),
        env: Env {
            testcases: PathBuf::from("../testcases"),
            config,
            secret: None,
        },
        cases: vec![CaseKey::Seed(1)],
        players: Vec::new(),
        done: Default::default(),
    }
}

fn config() -> ProblemConfig {
    ProblemConfig {
        time_limit: TIME_LIMIT,
        grace: GRACE,
        memory_limit: 256,
        max_line: 1000,
        max_output: 1 << 20,
        max_stderr: 4096,
        ..ProblemConfig::default()
    }
}

fn judge(name: &str, body: &str) -> (TestResult, Duration, tempfile::TempDir) {
    judge_in(Want::Auto, name, body)
}

/// Judges a script player with the sandbox as asked (`Want::Off`: process mode, where the
/// player may write its folder and its pids are the host's).
fn judge_in(sandbox: Want, name: &str, body: &str) -> (TestResult, Duration, tempfile::TempDir) {
    let (dir, player) = script_player(name, body);
    if sandbox == Want::Off {
        // Under a root harness the player runs as an unprivileged user, who may write only
        // where any user may.
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o777),
        )
        .expect("chmod");
    }
    let suite = chess_suite(config());
    let start = Instant::now();
    let result = run_one(&suite, &containment(sandbox), &CaseKey::Seed(1), &player)
        .expect("not interrupted");
    (result, start.elapsed(), dir)
}

/// Whether a process still exists a moment after its group was killed (SIGKILL is delivered
/// asynchronously, and an orphan is reaped by init shortly after it dies).
fn alive(pid: i32) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        // SAFETY: signal 0 only checks that the process exists.
        if unsafe { libc::kill(pid, 0) } != 0 {
            return false;
        }
        if Instant::now() > until {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn read_pid(dir: &Path) -> i32 {
    std::fs::read_to_string(dir.join("pid"))
        .expect("the player wrote its child's pid")
        .trim()
        .parse()
        .expect("pid")
}

/// A test must end within its limit plus the grace period plus ten seconds of slack for a
/// loaded machine: far below the 30 s the fixtures' children sleep, so a harness that waited
/// for them (or for the player's own end) still fails, while a busy 2-core machine does not.
fn assert_prompt(elapsed: Duration) {
    let bound = Duration::from_secs_f64(TIME_LIMIT + GRACE + 10.0);
    assert!(elapsed < bound, "took {elapsed:?}, more than {bound:?}");
}

#[test]
fn sleeping_past_the_limit_is_tle_and_killed() {
    let (r, elapsed, dir) = judge_in(
        Want::Off,
        "sleeper",
        "read header\nsleep 30 &\necho $! > \"$HARNESS_PLAYER_DIR/pid\"\nwait",
    );
    assert_eq!(r.outcome.verdict, Verdict::TimeLimit, "{r:?}");
    assert_eq!(r.outcome.score, 0.0);
    assert!(
        r.outcome.reason.contains("thinking time"),
        "{}",
        r.outcome.reason
    );
    assert!(r.think >= Duration::from_secs_f64(TIME_LIMIT));
    assert_prompt(elapsed);
    assert!(
        !alive(read_pid(dir.path())),
        "the sleeping child was left running"
    );
}

#[test]
fn exiting_early_is_a_failure_naming_why() {
    let (r, elapsed, _dir) = judge("quitter", "read header\nexit 0");
    assert_quit_early(&r);
    assert_eq!(r.outcome.score, 0.0);
    assert!(
        r.outcome.reason.contains("exit status 0"),
        "{}",
        r.outcome.reason
    );
    assert_prompt(elapsed);
}

#[test]
fn crashing_is_a_runtime_error_with_the_signal() {
    let (r, _, _dir) = judge("crasher", "read header\nkill -SEGV $$");
    assert_eq!(r.outcome.verdict, Verdict::RuntimeError, "{r:?}");
    assert!(r.outcome.reason.contains("SIGSEGV"), "{}", r.outcome.reason);
}

#[test]
fn non_zero_exit_is_a_runtime_error_with_the_status() {
    let (r, _, _dir) = judge("failer", "read header\necho oops >&2\nexit 3");
    assert_eq!(r.outcome.verdict, Verdict::RuntimeError, "{r:?}");
    assert!(
        r.outcome.reason.contains("exit status 3"),
        "{}",
        r.outcome.reason
    );
    assert_eq!(r.stderr.bytes, b"oops\n");
}

#[test]
fn a_line_without_newline_then_eof_is_a_protocol_error() {
    let (r, _, _dir) = judge("unterminated", "read header\nprintf '0 0'");
    assert_eq!(r.outcome.verdict, Verdict::ProtocolError, "{r:?}");
    assert_eq!(r.outcome.score, 0.0);
    assert!(
        r.outcome.reason.contains("no newline"),
        "{}",
        r.outcome.reason
    );
}

#[test]
fn garbage_is_a_wrong_answer_saying_what_was_expected() {
    let (r, _, _dir) = judge(
        "garbage",
        "read header\necho 'hello world'\ncat > /dev/null",
    );
    assert_eq!(r.outcome.verdict, Verdict::WrongAnswer, "{r:?}");
    assert!(
        r.outcome.reason.contains("\"hello\""),
        "{}",
        r.outcome.reason
    );
}

#[test]
fn too_many_numbers_is_a_wrong_answer() {
    let (r, _, _dir) = judge("chatty", "read header\necho '0 0 0'\ncat > /dev/null");
    assert_eq!(r.outcome.verdict, Verdict::WrongAnswer, "{r:?}");
    assert!(r.outcome.reason.contains("ROW COL"), "{}", r.outcome.reason);
}

#[test]
fn binary_junk_is_a_protocol_error() {
    let (r, _, _dir) = judge(
        "binary",
        "read header\nprintf '\\001\\002\\n'\ncat > /dev/null",
    );
    assert_eq!(r.outcome.verdict, Verdict::ProtocolError, "{r:?}");
    assert!(
        r.outcome.reason.contains("not text"),
        "{}",
        r.outcome.reason
    );
}

#[test]
fn an_endless_line_is_cut_off_as_a_protocol_error() {
    let (r, elapsed, _dir) = judge("longline", "read header\nyes x | tr -d '\\n'");
    assert_eq!(r.outcome.verdict, Verdict::ProtocolError, "{r:?}");
    assert!(
        r.outcome.reason.contains("longer than"),
        "{}",
        r.outcome.reason
    );
    assert_prompt(elapsed);
}

#[test]
fn a_grandchild_holding_stdout_open_does_not_keep_the_test_alive() {
    let (r, elapsed, dir) = judge_in(
        Want::Off,
        "forker",
        "read header\nsleep 30 &\necho $! > \"$HARNESS_PLAYER_DIR/pid\"\nexit 0",
    );
    assert_eq!(r.outcome.verdict, Verdict::WrongAnswer, "{r:?}");
    assert_prompt(elapsed);
    assert!(
        !alive(read_pid(dir.path())),
        "the grandchild was left running"
    );
}

#[test]
fn a_stderr_flood_never_blocks_and_only_the_tail_is_kept() {
    let (r, elapsed, _dir) = judge(
        "noisy",
        "head -c 20000000 /dev/zero | tr '\\000' 'e' >&2\necho tail-marker >&2\nread header\nexit 0",
    );
    assert_prompt(elapsed);
    assert_eq!(r.stderr.bytes.len(), 4096);
    assert!(r.stderr.bytes.ends_with(b"tail-marker\n"));
    assert_eq!(r.stderr.dropped, 20_000_012 - 4096);
}

#[test]
fn endless_output_is_cut_off_at_the_output_limit() {
    // An exact-answer player reads its whole answer to the end: one that never stops writing
    // lines is stopped at the output limit (1 MiB here).
    let (_dir, mut player) = script_player("flood", "cat > /dev/null\nyes 'First player wins'");
    player.problem = "game-ending".to_string();
    let mut suite = chess_suite(config());
    suite.problem = problem::by_id("game-ending").expect("game-ending");
    let start = Instant::now();
    let r = run_one(&suite, &containment(Want::Auto), &CaseKey::Seed(1), &player)
        .expect("not interrupted");
    assert_eq!(r.outcome.verdict, Verdict::ProtocolError, "{r:?}");
    assert!(
        r.outcome.reason.contains("output over the limit"),
        "{}",
        r.outcome.reason
    );
    assert_prompt(start.elapsed());
}
