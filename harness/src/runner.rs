//! Runs the tests of a run in parallel and reports each as an event.
//!
//! Jobs are (problem, case, player) triples spread over a rayon pool of `threads` workers;
//! each worker runs one game at a time and, by default, is pinned to one CPU before it starts
//! any player, so a judge thread and its player share a core. A player's failure is a verdict
//! in a [`TestResult`]; nothing here prints or writes files, and nothing aborts the run but
//! an interrupt (after which unfinished tests are simply not reported).

use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::os;
use crate::players::Player;
use crate::problem::{CaseKey, Env, Problem};
use crate::session::{Limits, Session, StderrTail};
use crate::verdict::{Fault, Outcome, Verdict};

/// One problem of a run: its cases and the players that play it.
pub struct Suite {
    pub problem: Box<dyn Problem>,
    pub env: Env,
    pub cases: Vec<CaseKey>,
    pub players: Vec<Player>,
    /// (case, player name) pairs already finished (a resumed run): not run again.
    pub done: std::collections::HashSet<(CaseKey, String)>,
}

impl Suite {
    /// The limits a session enforces for this problem.
    pub fn limits(&self) -> Limits {
        let c = &self.env.config;
        Limits {
            think: Duration::from_secs_f64(c.time_limit),
            memory: c.memory_limit << 20,
            max_line: c.max_line,
            max_output: c.max_output,
            max_stderr: c.max_stderr,
            grace: Duration::from_secs_f64(c.grace),
        }
    }
}

/// How the run is spread over the machine.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    pub threads: usize,
    pub pin_cpus: bool,
}

/// The result of one test.
#[derive(Debug)]
pub struct TestResult {
    pub problem: &'static str,
    pub player: String,
    pub case: CaseKey,
    pub params: Vec<String>,
    pub outcome: Outcome,
    pub think: Duration,
    pub wall: Duration,
    pub cpu: Duration,
    pub max_rss_kb: u64,
    pub stderr: StderrTail,
    /// The hash of the player's program (tells versions of a player apart across runs).
    pub player_hash: String,
    /// Something worth a look although the verdict stands (time close to the limit, an
    /// overloaded machine); empty when nothing is.
    pub warning: String,
    /// Every message of the test, both ways ([`crate::transcript`] format).
    pub transcript: String,
}

/// What the runner reports, in order of happening.
#[derive(Debug)]
pub enum Event {
    /// A test finished (every verdict, including failures).
    Finished(Box<TestResult>),
}

/// Runs every (case, player) pair of every suite. Returns false when the run was interrupted
/// (some tests were not run).
pub fn run(suites: &[Suite], options: RunOptions, events: &Sender<Event>) -> bool {
    let jobs: Vec<(usize, usize, usize)> = suites
        .iter()
        .enumerate()
        .flat_map(|(s, suite)| {
            (0..suite.cases.len())
                .flat_map(move |c| (0..suite.players.len()).map(move |p| (s, c, p)))
        })
        .filter(|&(s, c, p)| {
            let suite = &suites[s];
            !suite
                .done
                .contains(&(suite.cases[c].clone(), suite.players[p].name.clone()))
        })
        .collect();
    let cpus = os::allowed_cpus();
    let pin = options.pin_cpus;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.max(1))
        .thread_name(|i| format!("harness-worker-{i}"))
        .start_handler(move |i| {
            if pin {
                os::pin_current_thread(cpus[i % cpus.len()]);
            }
        })
        .build()
        .expect("thread pool");
    pool.install(|| {
        jobs.par_iter().with_max_len(1).for_each(|&(s, c, p)| {
            if os::interrupted() {
                return;
            }
            let suite = &suites[s];
            if let Some(result) = run_one(suite, &suite.cases[c], &suite.players[p]) {
                let _ = events.send(Event::Finished(Box::new(result)));
            }
        });
    });
    !os::interrupted()
}

/// Plays one test; `None` when the run was interrupted during it.
pub fn run_one(suite: &Suite, case: &CaseKey, player: &Player) -> Option<TestResult> {
    let start = Instant::now();
    let mut result = TestResult {
        problem: suite.problem.id(),
        player: player.name.clone(),
        case: case.clone(),
        params: Vec::new(),
        outcome: Outcome::ok(0.0, 0),
        think: Duration::ZERO,
        wall: Duration::ZERO,
        cpu: Duration::ZERO,
        max_rss_kb: 0,
        stderr: StderrTail::default(),
        player_hash: player.hash.clone(),
        warning: String::new(),
        transcript: String::new(),
    };
    let mut game = match suite.problem.case(case, &suite.env) {
        Ok(game) => game,
        Err(e) => {
            result.outcome = Outcome {
                verdict: Verdict::HarnessError,
                reason: e.to_string(),
                ..Outcome::ok(0.0, 0)
            };
            return Some(result);
        }
    };
    result.params = game.params();
    let limits = suite.limits();
    // A fresh working directory per test: files a player leaves cannot leak into the next
    // test, and tests running at once do not share one. Removed when the test ends.
    let workdir = match tempfile::Builder::new().prefix("harness-test-").tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            result.outcome = Outcome {
                verdict: Verdict::HarnessError,
                reason: format!("cannot create a working directory: {e}"),
                ..Outcome::ok(0.0, 0)
            };
            return Some(result);
        }
    };
    if !unchanged(player, &mut result) {
        return Some(result);
    }
    let spawned = Session::spawn(
        &player.program,
        &player.args,
        workdir.path(),
        &player.cwd,
        limits,
    );
    let mut session = match spawned {
        Ok(session) => session,
        Err(e) => {
            result.outcome = Outcome {
                verdict: Verdict::RuntimeError,
                reason: format!("cannot start {}: {e}", player.program.display()),
                ..Outcome::ok(0.0, 0)
            };
            return Some(result);
        }
    };
    let mut recorder = crate::transcript::Recorder::new(&mut session);
    let outcome = game.play(&mut recorder);
    result.transcript = recorder.text;
    let ending = session.finish();
    if outcome.fault == Some(Fault::Interrupted) || os::interrupted() {
        return None;
    }
    result.think = ending.think;
    result.wall = start.elapsed();
    if let Some(r) = &ending.reaped {
        result.cpu = r.cpu;
        result.max_rss_kb = r.max_rss_kb;
    }
    result.outcome = refine(outcome, &ending, limits.memory, suite.problem.as_ref());
    result.stderr = ending.stderr;
    result.warning = warning(result.think, result.cpu, limits.think);
    unchanged(player, &mut result);
    Some(result)
}

/// One program per run: a test is ERR when its player's files are not what they were when
/// the run started, checked before the player starts and again after the test (a change
/// while it ran leaves unknown which version played).
fn unchanged(player: &Player, result: &mut TestResult) -> bool {
    let Err(reason) = player.check_unchanged() else {
        return true;
    };
    result.outcome = Outcome {
        verdict: Verdict::HarnessError,
        reason,
        ..Outcome::ok(0.0, 0)
    };
    false
}

/// A test that used more than this share of its thinking time is flagged.
const NEAR_LIMIT: f64 = 0.8;

/// Flags a test whose thinking time came close to the limit, or was far above the CPU time
/// the player used (the machine is overloaded: too many threads, or another load).
fn warning(think: Duration, cpu: Duration, limit: Duration) -> String {
    let mut notes = Vec::new();
    let used = think.as_secs_f64() / limit.as_secs_f64();
    if used > NEAR_LIMIT {
        notes.push(format!("used {:.0}% of the time limit", used * 100.0));
    }
    if think >= Duration::from_millis(500) && think > cpu * 3 {
        notes.push(format!(
            "thinking time {:.1}x the CPU time: overloaded machine (try fewer --threads) or a player that waits",
            think.as_secs_f64() / cpu.as_secs_f64().max(1e-3)
        ));
    }
    notes.join("; ")
}

/// Markers of an allocation failure in common runtimes' dying words.
const OUT_OF_MEMORY: [&str; 5] = [
    "memory allocation of",
    "MemoryError",
    "std::bad_alloc",
    "out of memory",
    "OutOfMemoryError",
];

/// Turns what the judge saw into the final verdict, with what the process's end tells: a
/// player that vanished mid-game crashed (RE) or ran out of memory (MLE); a player that
/// talked after the game ended broke the protocol (PE).
fn refine(
    mut outcome: Outcome,
    ending: &crate::session::Ending,
    memory_limit: u64,
    problem: &dyn Problem,
) -> Outcome {
    let keeps_score = problem.keeps_score_on_fault();
    let exit = ending.reaped.map(|r| r.exit);
    let crashed =
        !ending.killed && matches!(exit, Some(os::Exit::Signal(_)) | Some(os::Exit::Code(1..)));
    // A player that left mid-game, or one that answers at exit and did not answer right.
    let vanished = matches!(
        outcome.fault,
        Some(Fault::Eof) | Some(Fault::Gone(_)) | Some(Fault::Unterminated(_))
    ) || (problem.answers_at_exit() && outcome.verdict == Verdict::WrongAnswer);
    let stderr = String::from_utf8_lossy(&ending.stderr.bytes);
    let near_limit = memory_limit > 0
        && ending
            .reaped
            .is_some_and(|r| r.max_rss_kb * 1024 >= memory_limit / 10 * 9);
    let out_of_memory =
        memory_limit > 0 && (near_limit || OUT_OF_MEMORY.iter().any(|m| stderr.contains(m)));
    let fail = |mut o: Outcome, verdict: Verdict, reason: String| {
        o.verdict = verdict;
        o.reason = reason;
        if !keeps_score {
            o.score = 0.0;
        }
        o
    };
    if (vanished || outcome.verdict == Verdict::Ok) && crashed && out_of_memory {
        let exit = exit.expect("crashed implies reaped");
        return fail(
            outcome,
            Verdict::MemoryLimit,
            format!("memory limit {} MB exceeded ({exit})", memory_limit >> 20),
        );
    }
    if vanished && crashed {
        let exit = exit.expect("crashed implies reaped");
        return fail(
            outcome,
            Verdict::RuntimeError,
            format!("{exit} before the game ended"),
        );
    }
    // A player that left mid-game without crashing: say how it left. (An exact-answer
    // player always leaves; its clean exit is no news.)
    if vanished && !problem.answers_at_exit() {
        if let Some(exit) = exit {
            outcome.reason = format!("{} ({exit})", outcome.reason);
        }
    }
    if outcome.verdict == Verdict::Ok {
        if let Some(late) = &ending.late_output {
            let reason = format!("output after the game ended: {late:?}");
            return fail(outcome, Verdict::ProtocolError, reason);
        }
    }
    outcome
}
