//! A test's final verdict ([`refine`]): what the judge saw, with what the end of the
//! player's process tells (its exit, its CPU time, its memory, the sandbox's report). Pure:
//! it reads a finished test's [`Ending`] and touches nothing.

use std::time::Duration;

use crate::os;
use crate::problem::Problem;
use crate::session::{Ending, Limits};
use crate::verdict::{Fault, Outcome, Verdict};

/// A player on the harness's pipes whose CPU time passed its time limit plus the grace
/// period: TLE, however short its thinking time. The thinking clock stops when the player's
/// line is out, so a player that works on (threads, children) while the judge or a contest's
/// tester prepares its next message, or that starves a tester of the CPU they share, would
/// otherwise think on the judge's time. The grace period is the margin: CPU time also holds
/// the player's start before the first message and its exit after the last.
fn cpu_over_limit(outcome: &Outcome, ending: &Ending, limits: &Limits) -> Option<String> {
    let cpu = Duration::from_micros(ending.report.as_ref()?.cpu_us);
    let most = limits.think + limits.grace;
    if ending.direct || outcome.verdict == Verdict::TimeLimit || cpu <= most {
        return None;
    }
    Some(format!(
        "time limit {} s exceeded: {:.2} s of CPU time, over the time limit plus the grace period ({:.2} s), in {:.2} s of thinking time",
        limits.think.as_secs_f64(),
        cpu.as_secs_f64(),
        most.as_secs_f64(),
        ending.think.as_secs_f64()
    ))
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
pub(super) fn refine(
    mut outcome: Outcome,
    ending: &Ending,
    limits: &Limits,
    problem: &dyn Problem,
) -> Outcome {
    let seen = Seen::of(&outcome, ending, limits, problem);
    // The sandbox failed, and no OOM kill in the test's group explains it: the harness's
    // fault (ERR, rerun by --resume), whatever the player's answers looked like.
    if let Some(why) = sandbox_failure(ending).filter(|_| !seen.oom_killed) {
        return Outcome {
            verdict: Verdict::HarnessError,
            reason: format!("sandbox: {why}"),
            score: 0.0,
            ..outcome
        };
    }
    let keeps_score = problem.keeps_score_on_fault();
    let fault = over_time(&outcome, ending, limits, &seen)
        .or_else(|| memory_or_crash(&outcome, limits, &seen));
    if let Some((verdict, reason)) = fault {
        return fail(outcome, verdict, reason, keeps_score);
    }
    // A player that left mid-game without crashing: say how it left. (An exact-answer
    // player always leaves; its clean exit is no news.)
    if seen.vanished && !problem.answers_at_exit() {
        if let Some(exit) = seen.exit {
            outcome.reason = format!("{} ({exit})", outcome.reason);
        }
    }
    if outcome.verdict == Verdict::Ok && problem.late_output_is_a_fault() {
        if let Some(late) = &ending.late_output {
            let reason = format!("output after the game ended: {late:?}");
            return fail(outcome, Verdict::ProtocolError, reason, keeps_score);
        }
    }
    outcome
}

/// What the end of a player's process says, read once for [`refine`].
struct Seen {
    exit: Option<os::Exit>,
    /// Killed by a signal of its own or exited with a failing code (not killed by the
    /// harness, not a direct player's SIGPIPE).
    crashed: bool,
    /// Left mid-game, or answered at exit and not right.
    vanished: bool,
    /// Near its memory limit, or said so on stderr (with a limit set).
    out_of_memory: bool,
    /// The kernel killed a process of the test for the test's memory (with a limit set).
    oom_killed: bool,
}

impl Seen {
    fn of(outcome: &Outcome, ending: &Ending, limits: &Limits, problem: &dyn Problem) -> Seen {
        let memory_limit = limits.memory;
        let report = ending.report.as_ref();
        let exit = report.and_then(|r| r.exit);
        // A player that talked to another program directly dies of SIGPIPE only when that
        // program stopped reading it: the program's judgement stands, not a crash.
        let broken_pipe = ending.direct && exit == Some(os::Exit::Signal(os::SIGPIPE));
        let crashed = !ending.killed
            && !broken_pipe
            && matches!(exit, Some(os::Exit::Signal(_)) | Some(os::Exit::Code(1..)));
        // A player that left mid-game, or one that answers at exit and did not answer right
        // (unless a contest's tool ended the game first: how the player ends after is no news).
        let vanished = matches!(
            outcome.fault,
            Some(Fault::Eof) | Some(Fault::Gone(_)) | Some(Fault::Unterminated(_))
        ) || (problem.answers_at_exit()
            && outcome.verdict == Verdict::WrongAnswer
            && !outcome.ended_by_tool);
        let stderr = String::from_utf8_lossy(&ending.stderr.bytes);
        let near_limit = memory_limit > 0
            && report.is_some_and(|r| {
                r.memory_limit_hit || r.max_memory_kb * 1024 >= memory_limit / 10 * 9
            });
        let out_of_memory =
            memory_limit > 0 && (near_limit || OUT_OF_MEMORY.iter().any(|m| stderr.contains(m)));
        let oom_killed = memory_limit > 0 && report.is_some_and(|r| r.oom_killed);
        Seen {
            exit,
            crashed,
            vanished,
            out_of_memory,
            oom_killed,
        }
    }
}

/// Why the test's sandbox failed, when it did: no report, or the report's own failure.
fn sandbox_failure(ending: &Ending) -> Option<String> {
    match ending.report.as_ref() {
        None => Some("the test's supervisor ended without a report".to_string()),
        Some(r) => r.failure.clone(),
    }
}

/// TLE by CPU time, unless the kernel killed the test for its memory: a direct player's
/// time limit holds its CPU time (RLIMIT_CPU kills it a second past the limit); any other
/// is over when [`cpu_over_limit`] says so.
fn over_time(
    outcome: &Outcome,
    ending: &Ending,
    limits: &Limits,
    seen: &Seen,
) -> Option<(Verdict, String)> {
    if seen.oom_killed {
        return None;
    }
    if ending.direct && ending.think > limits.think {
        return Some((
            Verdict::TimeLimit,
            format!(
                "time limit {} s exceeded: {:.2} s of CPU time (relay = \"direct\": the limit holds the player's CPU time)",
                limits.think.as_secs_f64(),
                ending.think.as_secs_f64()
            ),
        ));
    }
    cpu_over_limit(outcome, ending, limits).map(|reason| (Verdict::TimeLimit, reason))
}

/// MLE when the kernel killed a process of the test for the test's memory, or when a
/// crash looks like running out of it; RE for any other crash of a player that left.
fn memory_or_crash(outcome: &Outcome, limits: &Limits, seen: &Seen) -> Option<(Verdict, String)> {
    let memory_limit = limits.memory;
    if seen.oom_killed {
        let how = seen.exit.map(|e| format!(", {e}")).unwrap_or_default();
        return Some((
            Verdict::MemoryLimit,
            format!(
                "memory limit {} MB exceeded (a process of the test was killed for it{how})",
                memory_limit >> 20
            ),
        ));
    }
    if !seen.crashed {
        return None;
    }
    let exit = seen.exit.expect("crashed implies reaped");
    if (seen.vanished || outcome.verdict == Verdict::Ok) && seen.out_of_memory {
        return Some((
            Verdict::MemoryLimit,
            format!("memory limit {} MB exceeded ({exit})", memory_limit >> 20),
        ));
    }
    if seen.vanished {
        return Some((
            Verdict::RuntimeError,
            format!("{exit} before the game ended"),
        ));
    }
    None
}

/// `o` failed with `verdict` for `reason`: its score 0 unless the problem keeps the points
/// made before a fault.
fn fail(mut o: Outcome, verdict: Verdict, reason: String, keeps_score: bool) -> Outcome {
    o.verdict = verdict;
    o.reason = reason;
    if !keeps_score {
        o.score = 0.0;
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::StderrTail;

    fn ending(cpu_ms: u64, think_ms: u64, direct: bool) -> Ending {
        Ending {
            report: Some(crate::sandbox::Report {
                cpu_us: cpu_ms * 1000,
                ..Default::default()
            }),
            killed: false,
            late_output: None,
            stderr: StderrTail::default(),
            think: Duration::from_millis(think_ms),
            direct,
        }
    }

    #[test]
    fn cpu_time_past_the_limit_plus_the_grace_period_is_tle_on_the_harnesss_pipes_only() {
        let limits = Limits {
            think: Duration::from_secs(2),
            memory: 0,
            max_line: 100,
            max_output: 100,
            max_stderr: 100,
            grace: Duration::from_secs(1),
            cpu: None,
        };
        let ok = Outcome::ok(1.0, 3);
        assert_eq!(
            cpu_over_limit(&ok, &ending(3000, 100, false), &limits),
            None
        );
        let reason = cpu_over_limit(&ok, &ending(3001, 190, false), &limits).expect("TLE");
        assert_eq!(
            reason,
            "time limit 2 s exceeded: 3.00 s of CPU time, over the time limit plus the grace period (3.00 s), in 0.19 s of thinking time"
        );
        // A direct player's limit is its CPU time itself (refine's own rule); a player
        // already TLE keeps its reason.
        assert_eq!(
            cpu_over_limit(&ok, &ending(9000, 9000, true), &limits),
            None
        );
        let tle = Outcome::failed(Verdict::TimeLimit, "thinking time over the limit");
        assert_eq!(
            cpu_over_limit(&tle, &ending(9000, 2100, false), &limits),
            None
        );
    }
}
