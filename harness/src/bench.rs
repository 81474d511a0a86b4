//! `harness bench`: what the harness costs per move, measured against a raw pipe ping-pong
//! between two Rust processes in the same run, and how a 100-seed suite scales from one
//! thread to two. Reports ratios, never absolute pass/fail times.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::app::{load_config, UsageError};
use crate::cli::BenchArgs;
use crate::exit;
use crate::os;
use crate::players;
use crate::problem::{self, CaseKey, Channel, Env};
use crate::runner::{self, RunOptions, Suite};
use crate::seeds::SeedSpec;
use crate::session::{Limits, Session};

/// The peer of the ping-pong: answers every line with `0 0`.
pub fn echo() -> Result<u8, UsageError> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        if line.is_err() {
            break;
        }
        if out.write_all(b"0 0\n").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
    Ok(exit::OK)
}

fn echo_command() -> Result<Command, UsageError> {
    let exe = std::env::current_exe()?;
    let mut cmd = Command::new(exe);
    cmd.arg("echo");
    Ok(cmd)
}

/// Times `n` round trips, after 1000 to warm up.
fn timed<E>(n: u64, mut round: impl FnMut() -> Result<(), E>) -> Result<Duration, UsageError>
where
    UsageError: From<E>,
{
    for _ in 0..1000 {
        round()?;
    }
    let start = Instant::now();
    for _ in 0..n {
        round()?;
    }
    Ok(start.elapsed())
}

/// Raw baseline: blocking write and blocking line read, no deadline, no checks.
fn raw_ping_pong(n: u64) -> Result<Duration, UsageError> {
    let mut child = echo_command()?
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    let mut round = |stdin: &mut std::process::ChildStdin| -> std::io::Result<()> {
        stdin.write_all(b"x\n")?;
        line.clear();
        stdout.read_line(&mut line)?;
        Ok(())
    };
    let t = timed(n, || round(&mut stdin))?;
    drop(stdin);
    child.wait()?;
    Ok(t)
}

/// The design the harness avoids: a reader thread handing lines over a channel.
fn thread_channel_ping_pong(n: u64) -> Result<Duration, UsageError> {
    let mut child = echo_command()?
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
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
    let round = |stdin: &mut std::process::ChildStdin| -> Result<(), UsageError> {
        stdin.write_all(b"x\n")?;
        rx.recv()?;
        Ok(())
    };
    let t = timed(n, || round(&mut stdin))?;
    drop(stdin);
    child.wait()?;
    let _ = reader.join();
    Ok(t)
}

/// The harness's own session: send + recv with the deadline, limits and stderr drain; with
/// `record`, through the transcript recorder as in a run.
fn session_ping_pong(n: u64, record: bool) -> Result<Duration, UsageError> {
    let exe = std::env::current_exe()?;
    let limits = Limits {
        think: Duration::from_secs(3600),
        memory: 0,
        max_line: 1 << 16,
        max_output: u64::MAX,
        max_stderr: 1 << 20,
        grace: Duration::from_secs(1),
    };
    let here = std::env::current_dir()?;
    let mut session = Session::spawn(&exe, &["echo".to_string()], &here, &here, limits)?;
    let round = |s: &mut dyn Channel| -> Result<(), UsageError> {
        s.send("x\n").map_err(|e| UsageError(e.to_string()))?;
        s.recv().map_err(|e| UsageError(e.to_string()))?;
        Ok(())
    };
    let t = if record {
        let mut recorder = crate::transcript::Recorder::new(&mut session);
        timed(n, || round(&mut recorder))?
    } else {
        timed(n, || round(&mut session))?
    };
    session.finish();
    Ok(t)
}

fn per_move(t: Duration, n: u64) -> f64 {
    t.as_secs_f64() * 1e6 / n as f64
}

/// Runs a suite without writing files; returns (moves, wall time).
fn throughput(suite: &Suite, threads: usize, pin: bool) -> (u64, Duration) {
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    runner::run(
        std::slice::from_ref(suite),
        RunOptions {
            threads,
            pin_cpus: pin,
        },
        &tx,
    );
    let elapsed = start.elapsed();
    drop(tx);
    let moves = rx
        .try_iter()
        .map(|runner::Event::Finished(r)| r.outcome.moves)
        .sum();
    (moves, elapsed)
}

pub fn main(args: &BenchArgs) -> Result<u8, UsageError> {
    os::install_interrupt_handler()?;
    let n = args.round_trips.max(1);
    // Judge and peer on one core, as in a run.
    let all_cpus = os::allowed_cpus();
    let pinned = os::pin_current_thread(all_cpus[0]);
    println!(
        "ping-pong, {n} round trips, {}:",
        if pinned {
            "pinned to one CPU"
        } else {
            "unpinned"
        }
    );
    // Alternate the three in rounds and keep each one's best round, so that load from
    // elsewhere on the machine hits all three alike and the ratios stay meaningful.
    const ROUNDS: u64 = 5;
    let per_round = (n / ROUNDS).max(1);
    let (mut base, mut threaded, mut session, mut recorded) =
        (f64::MAX, f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..ROUNDS {
        base = base.min(per_move(raw_ping_pong(per_round)?, per_round));
        threaded = threaded.min(per_move(thread_channel_ping_pong(per_round)?, per_round));
        session = session.min(per_move(session_ping_pong(per_round, false)?, per_round));
        recorded = recorded.min(per_move(session_ping_pong(per_round, true)?, per_round));
    }
    println!(
        "  raw Rust pipe ping-pong       {base:8.2} us/round trip   1.00x (baseline; best of {ROUNDS} rounds each)"
    );
    println!(
        "  reader thread + channel       {threaded:8.2} us/round trip   {:.2}x",
        threaded / base
    );
    println!(
        "  harness session (epoll)       {session:8.2} us/round trip   {:.2}x   (target <= 1.25x)",
        session / base
    );
    println!(
        "  session + transcript (a run)  {recorded:8.2} us/round trip   {:.2}x",
        recorded / base
    );

    // The suites below spread over every CPU again (the runner pins its own workers).
    os::set_affinity(&all_cpus);
    let (scoring, root) = load_config(&args.common)?;
    let testcases = args
        .common
        .testcases
        .clone()
        .unwrap_or_else(|| root.join("testcases"));
    for problem in problem::all() {
        if let Some(cost) = judge_cost(problem.as_ref(), &testcases) {
            println!(
                "  judge of {:<20} {cost:8.3} us/move (in-process, no player)",
                problem.id()
            );
        }
    }

    for problem in problem::all() {
        if let Some((cases, per_pass)) = solver_cost(problem.as_ref(), &testcases) {
            println!(
                "  reference solver of {:<16} {:8.3} ms per pass over its {cases} fixed tests",
                problem.id(),
                per_pass * 1e3
            );
        }
    }
    let spec = SeedSpec::parse(&args.seeds).map_err(UsageError)?;
    let ids = problem::ids();
    let mut builds = crate::build::Builds::new(std::time::Duration::from_secs_f64(
        scoring.harness.build_timeout,
    ));
    let (found, _) =
        players::discover(std::slice::from_ref(&args.player), None, &ids, &mut builds)?;
    let player = found
        .into_iter()
        .next()
        .ok_or_else(|| UsageError("no player for the throughput run".into()))?;
    let problem = problem::by_id(&player.problem).expect("known");
    let config = scoring.problem(problem.id());
    let cases = spec
        .resolve(&config.examples)
        .map_err(UsageError)?
        .into_iter()
        .map(CaseKey::Seed)
        .collect();
    let suite = Suite {
        env: Env { testcases, config },
        problem,
        cases,
        players: vec![player.clone()],
        done: Default::default(),
    };
    println!(
        "\nsuite throughput: {} on seeds {}:",
        player.name, args.seeds
    );
    // Alternate the two, best of 3 each: a suite takes a fraction of a second, so a burst of
    // load elsewhere would otherwise decide the ratio.
    let mut best = [(0u64, Duration::MAX); 2];
    for _ in 0..3 {
        for (slot, threads) in [1, 2].into_iter().enumerate() {
            let (moves, t) = throughput(&suite, threads, true);
            if t < best[slot].1 {
                best[slot] = (moves, t);
            }
        }
    }
    let mut rates = Vec::new();
    for (slot, threads) in [1, 2].into_iter().enumerate() {
        let (moves, t) = best[slot];
        let rate = moves as f64 / t.as_secs_f64();
        rates.push(rate);
        println!(
            "  --threads {threads}: {moves} moves in {:.3}s = {:.0} moves/s (best of 3)",
            t.as_secs_f64(),
            rate
        );
    }
    println!(
        "  2 threads / 1 thread: {:.2}x   (target >= 1.8x)",
        rates[1] / rates[0]
    );
    Ok(exit::OK)
}

/// The reference solver's time for one pass over a problem's fixed tests (best of 10 passes),
/// with the number of tests; `None` for problems without fixed tests or a solver.
fn solver_cost(problem: &dyn problem::Problem, testcases: &Path) -> Option<(usize, f64)> {
    let env = Env {
        testcases: testcases.to_path_buf(),
        config: Default::default(),
    };
    let keys = problem.fixed_cases(&env).ok()?;
    let inputs: Vec<String> = keys
        .iter()
        .filter_map(|k| problem.case(k, &env).ok().map(|g| g.describe()))
        .collect();
    if inputs.is_empty() {
        return None;
    }
    let mut best = f64::MAX;
    for _ in 0..10 {
        let start = Instant::now();
        for input in &inputs {
            problem.solve(input)?.ok()?;
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    Some((inputs.len(), best))
}

/// The judge's own time per move for an interactive problem: a game is played once by the
/// problem's bench player and recorded, then the recorded answers are replayed from memory
/// against a fresh copy of the game, timed. `None` for problems without a bench player.
fn judge_cost(problem: &dyn problem::Problem, testcases: &Path) -> Option<f64> {
    let env = Env {
        testcases: testcases.to_path_buf(),
        config: Default::default(),
    };
    let mut moves = 0u64;
    let mut total = Duration::ZERO;
    for seed in 1..=20u64 {
        let key = CaseKey::Seed(seed);
        let mut player = problem.bench_player(&key, &env)?;
        let mut recorder = crate::transcript::Recorder::new(player.as_mut());
        problem.case(&key, &env).ok()?.play(&mut recorder);
        let answers = crate::transcript::answers(&recorder.text);
        let answers: Vec<&str> = answers.iter().map(String::as_str).collect();
        let mut replay = crate::testkit::scripted(&answers);
        let mut game = problem.case(&key, &env).ok()?;
        let start = Instant::now();
        let outcome = game.play(&mut replay);
        total += start.elapsed();
        moves += outcome.moves.max(1);
    }
    Some(per_move(total, moves))
}
