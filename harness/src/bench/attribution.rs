//! What each part of the containment costs ([`crate::sandbox::attribution`], in a build with
//! the `attribution` feature only): the start and end of a test, and the session's round
//! trip, with one part left out at a time, alternated with the whole containment in the same
//! rounds (best round of each). Starts players and reads the CPU time of reaped children.

use std::time::Duration;

use super::figures::{ms, per_move};
use super::ping_pong::{raw_ping_pong, session_ping_pong};
use super::start::{spawn_cost, SPAWNS};
use crate::error::Error;
use crate::runner::Containment;
use crate::sandbox::attribution::{set, PARTS};
use crate::sandbox::Mode;

/// Rounds of the round trips.
const ROUNDS: usize = 9;

/// A containment and the part left out of it ("" for none: the whole containment).
type Case<'a> = (&'a Containment, &'a str);

/// The parts left out of a start and end, the round trip's below; the whole sandbox first,
/// the whole process mode third from the end.
fn start_cases<'a>(open: &'a Containment, sandboxed: &'a Containment) -> Vec<Case<'a>> {
    let mut cases: Vec<Case> = vec![(sandboxed, "")];
    cases.extend(
        PARTS
            .iter()
            .filter(|p| p.0 != "seccomp")
            .map(|p| (sandboxed, p.0)),
    );
    cases.extend([(open, ""), (open, "seccomp"), (open, "keyring")]);
    cases
}

/// The parts left out of a round trip, each containment's whole first.
fn move_cases<'a>(open: &'a Containment, sandboxed: &'a Containment) -> [Case<'a>; 7] {
    [
        (sandboxed, ""),
        (sandboxed, "cpu"),
        (sandboxed, "quota"),
        (sandboxed, "cpuset"),
        (sandboxed, "cpugroup"),
        (open, ""),
        (open, "seccomp"),
    ]
}

/// The start and end of `true` in each case, best of 5 medians: its time and its CPU time
/// ([`children_cpu`]).
fn measure_starts(cases: &[Case]) -> Result<(Vec<Duration>, Vec<Duration>), Error> {
    let mut start = vec![Duration::MAX; cases.len()];
    let mut cpu = vec![Duration::MAX; cases.len()];
    for _ in 0..5 {
        for (i, (c, part)) in cases.iter().enumerate() {
            set(part);
            let before = children_cpu();
            let t = spawn_cost(c, SPAWNS);
            // Every supervisor reaped, every cgroup removed: all of the tests' CPU counted.
            crate::sandbox::settle(Duration::from_secs(5));
            let used = children_cpu() - before;
            set("");
            start[i] = start[i].min(t?);
            cpu[i] = cpu[i].min(used / SPAWNS as u32);
        }
    }
    Ok((start, cpu))
}

/// The raw pipes' round trip, then each case's, best of [`ROUNDS`], in microseconds.
fn measure_moves(per_round: u64, moves: &[Case; 7]) -> Result<[f64; 8], Error> {
    let mut per = [f64::MAX; 8];
    for _ in 0..ROUNDS {
        per[0] = per[0].min(per_move(raw_ping_pong(per_round)?, per_round));
        for (i, (c, part)) in moves.iter().enumerate() {
            set(part);
            let t = session_ping_pong(per_round, false, c);
            set("");
            per[i + 1] = per[i + 1].min(per_move(t?, per_round));
        }
    }
    Ok(per)
}

/// What `part` is, in words.
fn describe(part: &str) -> &'static str {
    PARTS.iter().find(|p| p.0 == part).map_or("", |p| p.1)
}

/// Each case's start over the whole containment of its mode.
fn print_starts(cases: &[Case], start: &[Duration], cpu: &[Duration]) {
    println!("\nwhat each part costs (start and end of `true`, median of {SPAWNS}, best of 3):");
    for (i, (c, part)) in cases.iter().enumerate() {
        let whole = if c.isolation.mode == Mode::Namespaces {
            0
        } else {
            cases.len() - 3
        };
        if part.is_empty() {
            println!(
                "  {:<48} {:7.3} ms   CPU {:.3} ms",
                format!("all of {}", c.isolation.describe()),
                ms(start[i]),
                ms(cpu[i])
            );
        } else {
            println!(
                "  without {:<40} {:7.3} ms   the part costs {:+.3} ms; CPU {:.3} ms, {:+.3} ms",
                describe(part),
                ms(start[i]),
                ms(start[whole]) - ms(start[i]),
                ms(cpu[i]),
                ms(cpu[whole]) - ms(cpu[i])
            );
        }
    }
}

/// Each case's round trip over the raw pipes' (`per[0]`).
fn print_moves(per_round: u64, moves: &[Case; 7], per: &[f64; 8]) {
    println!(
        "per round trip ({per_round} a round, best of {ROUNDS}; raw pipes {:.2} us):",
        per[0]
    );
    for (i, (c, part)) in moves.iter().enumerate() {
        let what = if part.is_empty() {
            format!("session, {}", c.isolation.describe())
        } else {
            format!("  the same without {}", describe(part))
        };
        println!(
            "  {what:<60} {:6.2} us   {:.2}x",
            per[i + 1],
            per[i + 1] / per[0]
        );
    }
}

/// What each part of the containment costs: starts, then round trips, each part left out in
/// turn.
pub(super) fn attribute(n: u64, open: &Containment, sandboxed: &Containment) -> Result<(), Error> {
    let per_round = (n / ROUNDS as u64).max(1);
    let cases = start_cases(open, sandboxed);
    let (start, cpu) = measure_starts(&cases)?;
    let moves = move_cases(open, sandboxed);
    let per = measure_moves(per_round, &moves)?;
    print_starts(&cases, &start, &cpu);
    print_moves(per_round, &moves, &per);
    Ok(())
}

/// The CPU time (user and system) of the harness's own threads (which make a kept init's
/// test's cgroup and remove it) and its reaped children so far, and of the players' kept
/// inits (not the harness's children) with the players they reaped.
fn children_cpu() -> Duration {
    let kept = crate::sandbox::net::kept_inits_cpu_us();
    let own = crate::os::own_usage().0;
    Duration::from_micros(crate::os::children_usage().0 + kept + own)
}
