//! How a test's time is judged, through the runner with real player processes: a TLE an
//! overloaded machine may have caused is played again alone, once, and its scores.csv row
//! says so (the overload is a made-up first result, never a real load); and under
//! `time-by = "cpu"` the limit holds CPU time, not thinking time.

use std::path::Path;
use std::time::Duration;

mod support;

use harness::config::ProblemConfig;
use harness::players::Player;
use harness::problem::{by_id, CaseKey, Env};
use harness::rerun::Reruns;
use harness::runner::{run_one, Event, Suite, TestResult};
use harness::sandbox::Want;
use harness::time_by::TimeBy;
use harness::verdict::{Fault, Outcome, Overtime, Verdict, Waiting};
use support::in_process::containment;

/// The thinking-time limit of the rerun's tests (no wall-clock limit under 5 s).
const TIME_LIMIT: f64 = 5.0;

/// A GameEnding player running `body` (example-0's answer is "First player wins"), in a
/// folder any user may write (process mode under a root harness runs it unprivileged).
fn player(body: &str) -> (tempfile::TempDir, Player) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let path = dir.path().join("player.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let player = Player {
        name: "p".to_string(),
        problem: "game-ending".to_string(),
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

fn suite(config: ProblemConfig, players: Vec<Player>) -> Suite {
    Suite {
        problem: by_id("game-ending").unwrap(),
        env: Env {
            testcases: Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases"),
            config: ProblemConfig {
                grace: 0.5,
                memory_limit: 256,
                ..config
            },
            secret: None,
        },
        cases: Vec::new(),
        players,
        done: Default::default(),
    }
}

fn example(n: u32) -> CaseKey {
    CaseKey::Fixed(format!("example-{n}"))
}

/// A made-up first result: TLE with this thinking and CPU time, the player having answered
/// every line it was asked (not waiting on output it never flushed).
fn tle(player: &Player, case: CaseKey, think: f64, cpu: f64) -> Box<TestResult> {
    let mut r = TestResult::new("game-ending", player, &case);
    r.outcome = Outcome::failed(Verdict::TimeLimit, "time limit 5 s exceeded");
    r.outcome.fault = Some(Fault::TimeLimit(Overtime {
        limit: Duration::from_secs_f64(TIME_LIMIT),
        waiting: Waiting::End { received: 0 },
    }));
    r.think = Duration::from_secs_f64(think);
    r.cpu = Duration::from_secs_f64(cpu);
    Box::new(r)
}

#[test]
fn an_overloaded_tle_within_its_cpu_limit_is_played_again_alone_once_and_its_row_says_so() {
    // Each play of the player adds a line to `plays`, then it answers right.
    let (dir, p) = player(
        "echo played >> \"$HARNESS_PLAYER_DIR/plays\"\ncat > /dev/null\necho 'First player wins'",
    );
    let config = ProblemConfig {
        time_limit: TIME_LIMIT,
        ..ProblemConfig::default()
    };
    let suites = [suite(config, vec![p.clone()])];
    let mut reruns = Reruns::default();
    // Overloaded (thinking time 12x the CPU time), CPU time within the limit: held.
    assert!(reruns
        .hold(tle(&p, example(0), 6.0, 0.5), &suites)
        .is_none());
    // Not overloaded (thinking time 2.4x the CPU time): its TLE stands.
    let busy = reruns.hold(tle(&p, example(1), 6.0, 2.5), &suites);
    assert_eq!(busy.expect("not held").outcome.verdict, Verdict::TimeLimit);
    // Overloaded, but its CPU time alone is over the limit: its TLE stands.
    let spent = reruns.hold(tle(&p, example(2), 20.0, 6.0), &suites);
    assert_eq!(spent.expect("not held").outcome.verdict, Verdict::TimeLimit);

    let mut events = Vec::new();
    assert!(reruns.play(&suites, &containment(Want::Off), |e| events.push(e)));
    let plays = std::fs::read_to_string(dir.path().join("plays")).unwrap_or_default();
    assert_eq!(plays, "played\n", "the held test was played again, once");
    let [Event::Started { case, .. }, Event::Finished(second)] = &events[..] else {
        panic!("one test played again: {events:?}");
    };
    assert_eq!(case, &example(0));
    assert_eq!(second.case, example(0));
    assert_eq!(second.outcome.verdict, Verdict::Ok, "{:?}", second.outcome);
    assert!(
        second
            .warning
            .starts_with("rerun alone (first try TLE with 0.50 s of CPU time in 6.00 s"),
        "{}",
        second.warning
    );

    // Its scores.csv row, written and read back, says so; the run's note counts it.
    let run = tempfile::tempdir().unwrap();
    let layout = harness::rundir::Layout::new(&[]);
    let row = harness::execute::score_row(second, &[]);
    std::fs::write(run.path().join("scores.csv"), layout.file(&[row]).unwrap()).unwrap();
    let rows = harness::rundir::read(run.path(), harness::rundir::BadRows::Fail)
        .unwrap()
        .rows;
    assert!(rows[0].rerun(), "{:?}", rows[0]);
    assert_eq!(rows[0].verdict, Verdict::Ok);
    let note = harness::rundir::rerun_note(&rows).expect("a note");
    assert!(
        note.contains("1 test(s) TLE") && note.contains("1 now OK, 0 not"),
        "{note}"
    );
}

/// Plays example-0 with `body` under a 1 s limit on CPU time.
fn by_cpu(body: &str) -> TestResult {
    let (_dir, p) = player(body);
    let config = ProblemConfig {
        time_limit: 1.0,
        time_by: Some(TimeBy::Cpu),
        ..ProblemConfig::default()
    };
    let suite = suite(config, Vec::new());
    run_one(&suite, &containment(Want::Auto), &example(0), &p).expect("not interrupted")
}

#[test]
fn a_player_sleeping_past_its_time_limit_is_ok_when_the_limit_holds_cpu_time() {
    let r = by_cpu("cat > /dev/null\nsleep 2\necho 'First player wins'");
    // It did sleep past the limit (its thinking time), using next to no CPU.
    assert!(r.think >= Duration::from_secs(2), "{r:?}");
    assert!(r.cpu < Duration::from_secs(1), "{r:?}");
    assert_eq!(r.outcome.verdict, Verdict::Ok, "{:?}", r.outcome);
}

#[test]
fn a_spinning_player_is_tle_when_the_limit_holds_cpu_time() {
    let r = by_cpu("cat > /dev/null\nwhile :; do :; done");
    // It did spin past the limit on the CPU.
    assert!(r.cpu > Duration::from_secs(1), "{r:?}");
    assert_eq!(r.outcome.verdict, Verdict::TimeLimit, "{:?}", r.outcome);
    assert!(
        r.outcome.reason.contains("s of CPU time (time-by cpu"),
        "{}",
        r.outcome.reason
    );
}
