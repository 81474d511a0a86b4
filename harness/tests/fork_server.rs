//! A test's supervisor is forked by its thread's fork server (`sandbox::forker`), not
//! executed anew: it is still the harness's own child (killed, reaped and waited for by pid),
//! the server is reused from test to test, a server that is gone (killed by anyone) is
//! replaced without a test noticing, and a stopped one costs one test an ERR (after the
//! harness's 10 s wait for its answer) and is replaced: in process mode, where every test has
//! a supervisor. In the sandbox a player's test runs in its kept init, handed over by the
//! harness's own thread (`sandbox::kept_test`): no supervisor is forked for it, and a stopped
//! server costs it nothing.
//!
//! One test in this binary: the fork server is per thread, and the checks below count this
//! thread's server among the process's children.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod support;

use harness::config::ProblemConfig;
use harness::problem::{self, CaseKey, Env};
use harness::runner::{run_one, Containment, Suite, TestResult};
use harness::sandbox::Want;
use harness::verdict::Verdict;
use support::in_process::{assert_quit_early, containment, script_player};

/// Judges a script player on ChessPuzzle seed 1, in a containment prepared for it.
fn judge(sandbox: Want, body: &str) -> TestResult {
    judge_in(&containment(sandbox), body)
}

/// Judges a script player on ChessPuzzle seed 1 in `containment`.
fn judge_in(containment: &Containment, body: &str) -> TestResult {
    let (dir, player) = script_player("quitter", body);
    // Under a root harness a process-mode player runs as an unprivileged user.
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .expect("chmod");
    let suite = Suite {
        problem: problem::by_id("chesspuzzle").expect("chesspuzzle"),
        env: Env {
            testcases: PathBuf::from("../testcases"),
            config: ProblemConfig {
                time_limit: 10.0,
                memory_limit: 256,
                ..ProblemConfig::default()
            },
            secret: None,
        },
        cases: vec![CaseKey::Seed(1)],
        players: Vec::new(),
        done: Default::default(),
    };
    run_one(&suite, containment, &CaseKey::Seed(1), &player).expect("not interrupted")
}

/// This process's live children whose command line is the fork server's (`__sandbox
/// forker`): the servers, and the supervisors they forked (which keep that command line).
fn forker_children() -> Vec<i32> {
    let mut found = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").expect("tasks") {
        let children = task.expect("task").path().join("children");
        let text = std::fs::read_to_string(children).unwrap_or_default();
        for pid in text
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if cmdline.ends_with(b"__sandbox\0forker\0") {
                found.push(pid);
            }
        }
    }
    found.sort_unstable();
    found
}

#[test]
fn supervisors_come_from_the_threads_fork_server_and_stay_the_harness_children() {
    fork_server(Want::Off);
    kept_init_without_supervisor();
}

/// This process's children forked by a fork server (its supervisors) while `run` runs,
/// `servers` (the servers themselves) left out.
fn supervisors_during(servers: &[i32], run: impl FnOnce()) -> Vec<i32> {
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (done, servers) = (done.clone(), servers.to_vec());
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            while !done.load(Ordering::Relaxed) {
                seen.extend(
                    forker_children()
                        .into_iter()
                        .filter(|p| !servers.contains(p)),
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            seen.sort_unstable();
            seen.dedup();
            seen
        })
    };
    run();
    done.store(true, Ordering::Relaxed);
    watcher.join().expect("watcher")
}

/// The fork server's life in `sandbox` mode, where every test has a supervisor.
fn fork_server(sandbox: Want) {
    assert_quit_early(&judge(sandbox, "read header\nexit 0"));
    let servers = forker_children();
    assert_eq!(
        servers.len(),
        1,
        "{sandbox:?}: one server for this thread: {servers:?}"
    );
    let server = servers[0];

    // While a test runs, its supervisor is this process's child, beside the server.
    let supervisors = supervisors_during(&servers, || {
        assert_quit_early(&judge(sandbox, "read header\nsleep 2\nexit 0"))
    });
    assert!(
        !supervisors.is_empty(),
        "{sandbox:?}: no supervisor seen among this process's children"
    );
    assert_eq!(
        forker_children().first(),
        Some(&server),
        "{sandbox:?}: the server was not reused"
    );

    // A server killed from outside is replaced; the next test runs as before.
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(server, libc::SIGKILL) };
    let until = Instant::now() + Duration::from_secs(30);
    while std::fs::read(format!("/proc/{server}/cmdline")).is_ok_and(|c| !c.is_empty()) {
        assert!(Instant::now() < until, "the killed server did not die");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_quit_early(&judge(sandbox, "read header\nexit 0"));
    let now = forker_children();
    assert!(
        now.len() == 1 && now[0] != server,
        "{sandbox:?}: a new server, once: {now:?} (killed: {server})"
    );
    // The killed one was reaped (by the harness, its parent): no zombie is left of it.
    gone(server, sandbox);

    // A stopped server (it takes the request and never answers) fails that one test's
    // start, ERR, not the player's fault; it is killed, and the next test gets a new one.
    // (The containment is prepared first: preparing it starts a probe test.)
    let prepared = containment(sandbox);
    let stopped = forker_children()[0];
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(stopped, libc::SIGSTOP) };
    let r = judge_in(&prepared, "read header\nexit 0");
    assert_eq!(
        r.outcome.verdict,
        Verdict::HarnessError,
        "{sandbox:?}: {r:?}"
    );
    assert!(
        r.outcome.reason.contains("fork server did not answer"),
        "{sandbox:?}: {}",
        r.outcome.reason
    );
    gone(stopped, sandbox);
    assert_quit_early(&judge(sandbox, "read header\nexit 0"));
    let next = forker_children();
    assert!(
        next.len() == 1 && next[0] != stopped,
        "{sandbox:?}: a new server after the stopped one: {next:?}"
    );
}

/// In the sandbox a player's test runs in its kept init, handed over by the harness's
/// thread: no supervisor is forked for it (the containment's probe test, which has one,
/// runs before the watch), and a stopped fork server costs it nothing.
fn kept_init_without_supervisor() {
    let prepared = containment(Want::Auto);
    let servers = forker_children();
    let supervisors = supervisors_during(&servers, || {
        assert_quit_early(&judge_in(&prepared, "read header\nsleep 2\nexit 0"))
    });
    assert!(
        supervisors.is_empty(),
        "a supervisor was forked for a test its kept init runs: {supervisors:?}"
    );
    let Some(&stopped) = servers.first() else {
        panic!("no fork server for the containment's probe test");
    };
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(stopped, libc::SIGSTOP) };
    assert_quit_early(&judge_in(&prepared, "read header\nexit 0"));
    // Going on as before, for whatever test needs it next.
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(stopped, libc::SIGCONT) };
}

/// Waits until `pid` (a server of ours that was killed) is dead and reaped.
fn gone(pid: i32, sandbox: Want) {
    let until = Instant::now() + Duration::from_secs(30);
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        assert!(
            Instant::now() < until,
            "{sandbox:?}: server {pid} was never killed and reaped"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
