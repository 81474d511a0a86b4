//! The session's round trip: a raw pipe ping-pong between two Rust processes (the baseline),
//! a reader thread handing lines over a channel, the harness's session, with the transcript
//! recorder, and all that in the sandbox. Starts `harness echo` peers.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::figures::{per_move, timed};
use super::peer::{echo_command, echo_limits, spawn};
use crate::error::{Classify, Error};
use crate::problem::Channel;
use crate::runner::Containment;

/// Raw baseline: blocking write and blocking line read, no deadline, no checks.
pub(super) fn raw_ping_pong(n: u64) -> Result<Duration, Error> {
    round_trips(echo_command()?, n)
}

/// `n` plain blocking round trips (`x`, a line back) with `command` started on pipes: the
/// raw baseline with an echo peer, and the contest tool's side of the relay's bench.
pub(super) fn round_trips(mut command: Command, n: u64) -> Result<Duration, Error> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .fault()?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    let mut round = |stdin: &mut std::process::ChildStdin| -> std::io::Result<()> {
        stdin.write_all(b"x\n")?;
        line.clear();
        if stdout.read_line(&mut line)? == 0 {
            return Err(std::io::Error::other("the peer ended"));
        }
        Ok(())
    };
    let t = timed(n, || round(&mut stdin));
    drop(stdin);
    let _ = child.wait();
    t
}

/// The design the harness avoids: a reader thread handing lines over a channel.
fn thread_channel_ping_pong(n: u64) -> Result<Duration, Error> {
    let mut child = echo_command()?
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .fault()?;
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let round = |stdin: &mut std::process::ChildStdin| -> Result<(), Error> {
        stdin.write_all(b"x\n").fault()?;
        rx.recv().fault()?;
        Ok(())
    };
    let t = timed(n, || round(&mut stdin))?;
    drop(stdin);
    child.wait().fault()?;
    let _ = reader.join();
    Ok(t)
}

/// The harness's own session: send + recv with the deadline, limits and stderr drain; with
/// `record`, through the transcript recorder as in a run.
pub(super) fn session_ping_pong(
    n: u64,
    record: bool,
    containment: &Containment,
) -> Result<Duration, Error> {
    let exe = std::env::current_exe().fault()?;
    let (mut session, _work) = spawn(containment, &exe, &["echo"], echo_limits())?;
    let round = |s: &mut dyn Channel| -> Result<(), Error> {
        s.send("x\n").map_err(|e| Error::Usage(e.to_string()))?;
        s.recv().map_err(|e| Error::Usage(e.to_string()))?;
        Ok(())
    };
    let t = if record {
        // As a run records an interactive game: the player's lines (the judge's are rebuilt).
        let mut recorder = crate::transcript::Recorder::compact(&mut session);
        timed(n, || round(&mut recorder))?
    } else {
        timed(n, || round(&mut session))?
    };
    session.finish();
    Ok(t)
}

/// Rounds of the ping-pongs, each way's best kept.
const ROUNDS: u64 = 5;

/// The best round of each way, in microseconds per round trip.
struct RoundTrips {
    base: f64,
    threaded: f64,
    session: f64,
    recorded: f64,
    boxed: f64,
    boxed_run: f64,
}

/// The per-move cost: raw pipes, a reader thread, the session, with the transcript recorder,
/// and all that in the sandbox. Alternates them in rounds and keeps each one's best round, so
/// that load from elsewhere on the machine hits all alike and the ratios stay meaningful.
pub(super) fn ping_pongs(n: u64, open: &Containment, sandboxed: &Containment) -> Result<(), Error> {
    let per_round = (n / ROUNDS).max(1);
    let trips = measure(per_round, open, sandboxed)?;
    for line in table(&trips, &sandboxed.isolation.describe()) {
        println!("{line}");
    }
    Ok(())
}

/// [`ROUNDS`] rounds of `per_round` round trips each way, alternated.
fn measure(
    per_round: u64,
    open: &Containment,
    sandboxed: &Containment,
) -> Result<RoundTrips, Error> {
    let mut best = RoundTrips {
        base: f64::MAX,
        threaded: f64::MAX,
        session: f64::MAX,
        recorded: f64::MAX,
        boxed: f64::MAX,
        boxed_run: f64::MAX,
    };
    let session = |record, c| -> Result<f64, Error> {
        Ok(per_move(
            session_ping_pong(per_round, record, c)?,
            per_round,
        ))
    };
    for _ in 0..ROUNDS {
        let b = &mut best;
        b.base = b.base.min(per_move(raw_ping_pong(per_round)?, per_round));
        let threaded = per_move(thread_channel_ping_pong(per_round)?, per_round);
        b.threaded = b.threaded.min(threaded);
        b.session = b.session.min(session(false, open)?);
        b.recorded = b.recorded.min(session(true, open)?);
        b.boxed = b.boxed.min(session(false, sandboxed)?);
        b.boxed_run = b.boxed_run.min(session(true, sandboxed)?);
    }
    Ok(best)
}

/// The table's lines; `sandbox` describes the sandboxed containment.
fn table(t: &RoundTrips, sandbox: &str) -> Vec<String> {
    let base = t.base;
    vec![
        format!(
            "  raw Rust pipe ping-pong       {base:8.2} us/round trip   1.00x (baseline; best of {ROUNDS} rounds each)"
        ),
        format!(
            "  reader thread + channel       {:8.2} us/round trip   {:.2}x",
            t.threaded,
            t.threaded / base
        ),
        format!(
            "  harness session (epoll)       {:8.2} us/round trip   {:.2}x   (target <= 1.25x)",
            t.session,
            t.session / base
        ),
        format!(
            "  session, sandboxed ({sandbox})  {:8.2} us/round trip   {:.2}x   (target <= 1.25x)",
            t.boxed,
            t.boxed / base
        ),
        format!(
            "  session + transcript (a run)  {:8.2} us/round trip   {:.2}x",
            t.recorded,
            t.recorded / base
        ),
        format!(
            "  the same, sandboxed           {:8.2} us/round trip   {:.2}x",
            t.boxed_run,
            t.boxed_run / base
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_each_way_over_the_raw_pipe() {
        let trips = RoundTrips {
            base: 10.0,
            threaded: 25.0,
            session: 11.8,
            recorded: 12.5,
            boxed: 12.0,
            boxed_run: 13.0,
        };
        let lines = table(&trips, "namespaces");
        assert_eq!(
            lines,
            [
                "  raw Rust pipe ping-pong          10.00 us/round trip   1.00x (baseline; best of 5 rounds each)",
                "  reader thread + channel          25.00 us/round trip   2.50x",
                "  harness session (epoll)          11.80 us/round trip   1.18x   (target <= 1.25x)",
                "  session, sandboxed (namespaces)     12.00 us/round trip   1.20x   (target <= 1.25x)",
                "  session + transcript (a run)     12.50 us/round trip   1.25x",
                "  the same, sandboxed              13.00 us/round trip   1.30x",
            ]
        );
    }
}
