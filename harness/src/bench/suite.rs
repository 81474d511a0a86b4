//! Suite throughput: the moves per second of a suite at 1 thread and at as many threads as
//! the machine has CPUs, in process mode and in the sandbox with a cgroup, and the disk its
//! transcripts take. Finds and
//! builds the player, runs the suite through the runner without writing a run's files.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::cli::BenchArgs;
use crate::context::Context;
use crate::error::{Classify, Error};
use crate::players;
use crate::problem::{self, CaseKey, Env};
use crate::runner::{self, Containment, RunOptions, Suite};
use crate::seeds::SeedSpec;

/// What a suite's run measured.
struct SuiteRun {
    moves: u64,
    elapsed: Duration,
    tests: u64,
    /// Bytes of all the tests' transcripts.
    transcript_bytes: u64,
}

/// The transcripts of a suite's run: bytes, moves, tests.
type Disk = (u64, u64, u64);

/// Runs a suite without writing files.
fn throughput(suite: &Suite, containment: &Containment, threads: usize, pin: bool) -> SuiteRun {
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    runner::run(
        std::slice::from_ref(suite),
        containment,
        RunOptions {
            threads,
            pin_cpus: pin,
        },
        &tx,
    );
    let elapsed = start.elapsed();
    drop(tx);
    let mut run = SuiteRun {
        moves: 0,
        elapsed,
        tests: 0,
        transcript_bytes: 0,
    };
    for event in rx.try_iter() {
        if let runner::Event::Finished(r) = event {
            run.moves += r.outcome.moves;
            run.tests += 1;
            run.transcript_bytes += r.transcript.len() as u64;
        }
    }
    run
}

/// The suite of `args.player` (found and built as a run would) on `args.seeds`.
fn suite(args: &BenchArgs, context: &Context) -> Result<(Suite, players::Player), Error> {
    let scoring = &context.scoring;
    let spec = SeedSpec::parse(&args.seeds).map_err(Error::Usage)?;
    let ids = problem::ids();
    let h = &scoring.harness;
    let mut builds = crate::build::Builds::from_settings(h, false, h.sandbox, h.cgroup);
    let (found, _) =
        players::discover(std::slice::from_ref(&args.player), None, &ids, &mut builds).usage()?;
    let player = found
        .into_iter()
        .next()
        .ok_or_else(|| Error::Usage("no player for the throughput run".into()))?;
    let problem = problem::by_id(&player.problem).expect("known");
    let config = scoring.problem(problem.id());
    let cases = spec
        .resolve(&config.examples)
        .map_err(Error::Usage)?
        .into_iter()
        .map(CaseKey::Seed)
        .collect();
    let suite = Suite {
        env: Env {
            testcases: context.testcases.clone(),
            config,
            secret: None,
        },
        problem,
        cases,
        players: vec![player.clone()],
        done: Default::default(),
    };
    Ok((suite, player))
}

/// The moves per second of a suite at 1 thread and at one per CPU (at least 2), in process
/// mode and in the sandbox with a cgroup; alternated, best of 3 each (a suite takes a
/// fraction of a second, so a burst of load elsewhere would otherwise decide the ratio).
pub(super) fn suite_throughput(
    args: &BenchArgs,
    context: &Context,
    open: &Containment,
    sandboxed: &Containment,
) -> Result<(), Error> {
    let (suite, player) = suite(args, context)?;
    println!(
        "\nsuite throughput: {} on seeds {}:",
        player.name, args.seeds
    );
    let n = crate::os::allowed_cpus().len().max(2);
    let setups = [(1, open), (n, open), (1, sandboxed), (n, sandboxed)];
    let (best, disk) = best_runs(&suite, &setups);
    let mut rates = [0.0; 4];
    for (slot, (threads, c)) in setups.iter().enumerate() {
        let (moves, t) = best[slot];
        rates[slot] = moves as f64 / t.as_secs_f64();
        println!("{}", rate_line(*threads, &c.isolation.describe(), moves, t));
    }
    for line in ratio_lines(n, &rates, disk) {
        println!("{line}");
    }
    Ok(())
}

/// Each setup's best run (moves, time), the setups alternated, best of 3: a suite takes a
/// fraction of a second, so a burst of load elsewhere would otherwise decide the ratio. With
/// the first run's transcript bytes, moves and tests.
fn best_runs(
    suite: &Suite,
    setups: &[(usize, &Containment); 4],
) -> ([(u64, Duration); 4], Option<Disk>) {
    let mut best = [(0u64, Duration::MAX); 4];
    let mut disk = None;
    for _ in 0..3 {
        for (slot, (threads, c)) in setups.iter().enumerate() {
            let run = throughput(suite, c, *threads, true);
            if run.elapsed < best[slot].1 {
                best[slot] = (run.moves, run.elapsed);
            }
            disk.get_or_insert((run.transcript_bytes, run.moves, run.tests));
        }
    }
    (best, disk)
}

/// The line of one setup: `moves` in `t` at `threads` threads in the containment `what`.
fn rate_line(threads: usize, what: &str, moves: u64, t: Duration) -> String {
    format!(
        "  --threads {threads}, {what:<34}: {moves} moves in {:.3}s = {:.0} moves/s (best of 3)",
        t.as_secs_f64(),
        moves as f64 / t.as_secs_f64()
    )
}

/// The scaling of each mode from 1 thread to `n` and the sandbox's ratio to process mode at
/// `n`, from the `rates` (process at 1 and `n` threads, sandboxed at 1 and `n`), and the
/// transcripts' disk (bytes, moves, tests).
fn ratio_lines(n: usize, rates: &[f64; 4], disk: Option<Disk>) -> Vec<String> {
    let scaling = 0.9 * n as f64;
    let mut lines = vec![
        format!(
            "  {n} threads / 1 thread, process mode: {:.2}x   (target >= {scaling:.1}x: 0.9 x {n})",
            rates[1] / rates[0]
        ),
        format!(
            "  {n} threads / 1 thread, sandbox + cgroup: {:.2}x   (target >= {scaling:.1}x)",
            rates[3] / rates[2]
        ),
        format!(
            "  sandbox + cgroup / process mode, 1 thread: {:.2}x",
            rates[2] / rates[0]
        ),
        format!(
            "  sandbox + cgroup / process mode, {n} threads: {:.2}x   (target >= 0.85x)",
            rates[3] / rates[1]
        ),
    ];
    if let Some((bytes, moves, tests)) = disk {
        lines.push(format!(
            "  transcripts: {bytes} bytes for {moves} moves of {tests} tests = {:.1} bytes/move, {:.0} bytes/test",
            bytes as f64 / moves.max(1) as f64,
            bytes as f64 / tests.max(1) as f64
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setups_line_gives_its_moves_per_second() {
        assert_eq!(
            rate_line(2, "process", 5000, Duration::from_millis(250)),
            "  --threads 2, process                           : 5000 moves in 0.250s = 20000 moves/s (best of 3)"
        );
    }

    #[test]
    fn the_ratios_set_n_threads_against_one_in_each_mode_and_the_sandbox_against_process_mode() {
        assert_eq!(
            ratio_lines(2, &[1000.0, 1900.0, 800.0, 1615.0], Some((70_000, 10_000, 100))),
            [
                "  2 threads / 1 thread, process mode: 1.90x   (target >= 1.8x: 0.9 x 2)",
                "  2 threads / 1 thread, sandbox + cgroup: 2.02x   (target >= 1.8x)",
                "  sandbox + cgroup / process mode, 1 thread: 0.80x",
                "  sandbox + cgroup / process mode, 2 threads: 0.85x   (target >= 0.85x)",
                "  transcripts: 70000 bytes for 10000 moves of 100 tests = 7.0 bytes/move, 700 bytes/test",
            ]
        );
        assert_eq!(
            ratio_lines(4, &[1.0; 4], None)[0],
            "  4 threads / 1 thread, process mode: 1.00x   (target >= 3.6x: 0.9 x 4)"
        );
        assert_eq!(ratio_lines(2, &[1.0; 4], None).len(), 4);
    }
}
