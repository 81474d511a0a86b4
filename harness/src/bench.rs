//! `harness bench`: what the harness costs per move, measured against a raw pipe ping-pong
//! between two Rust processes in the same run, and how a 100-seed suite scales from one
//! thread to two. Reports ratios, never absolute pass/fail times. Also the disk a run's
//! transcripts take, per move and per test, and the harness's own time per move in a short
//! and a long recorded game side by side ([`crate::problem::Problem::long_game`]): judging
//! and recording cost the same per move whatever the game's length.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::cli::BenchArgs;
use crate::context::Context;
use crate::error::{Classify, Error};
use crate::exit;
use crate::os;
use crate::players;
use crate::problem::{self, CaseKey, Channel, Env};
use crate::runner::{self, Containment, RunOptions, Suite};
use crate::sandbox::Want;
use crate::seeds::SeedSpec;
use crate::session::{Limits, Session};

/// The peer of the ping-pong: answers every line with `0 0`.
pub fn echo() -> Result<u8, Error> {
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

fn echo_command() -> Result<Command, Error> {
    let exe = std::env::current_exe().fault()?;
    let mut cmd = Command::new(exe);
    cmd.arg("echo");
    Ok(cmd)
}

/// Times `n` round trips, after 1000 to warm up.
fn timed<E: std::fmt::Display>(
    n: u64,
    mut round: impl FnMut() -> Result<(), E>,
) -> Result<Duration, Error> {
    for _ in 0..1000 {
        round().fault()?;
    }
    let start = Instant::now();
    for _ in 0..n {
        round().fault()?;
    }
    Ok(start.elapsed())
}

/// Raw baseline: blocking write and blocking line read, no deadline, no checks.
fn raw_ping_pong(n: u64) -> Result<Duration, Error> {
    let mut child = echo_command()?
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
        stdout.read_line(&mut line)?;
        Ok(())
    };
    let t = timed(n, || round(&mut stdin))?;
    drop(stdin);
    child.wait().fault()?;
    Ok(t)
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
fn session_ping_pong(n: u64, record: bool, containment: &Containment) -> Result<Duration, Error> {
    let exe = std::env::current_exe().fault()?;
    let limits = Limits {
        think: Duration::from_secs(3600),
        cpu: None,
        memory: 0,
        max_line: 1 << 16,
        max_output: u64::MAX,
        max_stderr: 1 << 20,
        grace: Duration::from_secs(1),
    };
    let (mut session, _work) = spawn(containment, &exe, &["echo"], limits)?;
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

/// A contest tool talking to its player through the relay, as in a run of an interactive or
/// TopCoder-shaped problem: this thread is the tool (it starts `harness __relay SOCKET` on
/// pipes, as a tester starts its player, and does plain blocking round trips), another
/// thread proxies between the relay and the player's session (`harness echo` in
/// `containment`) with the games' own proxy (`problem::tools::relayed`), or (`direct`)
/// starts the player on the tool's own pipes and waits for its end, as `relay = "direct"`.
fn relay_ping_pong(n: u64, containment: &Containment, direct: bool) -> Result<Duration, Error> {
    use crate::sandbox::relay::{end_signal, Accepted, Link, Pipes, Relay};
    let dir = tempfile::Builder::new()
        .prefix("harness-bench-")
        .tempdir()
        .fault()?;
    let relay = Relay::listen(dir.path(), false).fault()?;
    let argv = relay.argv();
    let (done, ended) = end_signal().fault()?;
    let exe = std::env::current_exe().fault()?;
    // The bench's tool is this process, which starts the relay.
    let me = || Some(std::process::id() as i32);
    let limits = Limits {
        think: Duration::from_secs(3600),
        cpu: None,
        memory: 0,
        max_line: 1 << 16,
        max_output: u64::MAX,
        max_stderr: 1 << 20,
        grace: Duration::from_secs(1),
    };
    std::thread::scope(|scope| {
        let judge = scope.spawn(move || -> Result<(), Error> {
            let deadline = Instant::now() + Duration::from_secs(30);
            if direct {
                let (spec, _work) = player_spec(containment, &exe, &["echo"])?;
                let mut session = Session::pending(spec, limits).fault()?;
                let Accepted::Pipes(pipes) = relay.accept(ended.fd(), deadline, &me).fault()?
                else {
                    return Err(Error::Usage("bench: the relay did not connect".into()));
                };
                let Pipes {
                    control,
                    from_tool,
                    to_tool,
                } = pipes;
                let usage = |f: crate::verdict::Fault| Error::Usage(format!("bench: {f}"));
                session.start_on(from_tool, to_tool).map_err(usage)?;
                // The player ends when the tool closes its input; then the relay may go.
                let far = Instant::now() + Duration::from_secs(3600);
                session.wait_player(Some(ended.fd()), far).map_err(usage)?;
                drop(control);
                session.finish();
                return Ok(());
            }
            let (mut session, _work) = spawn(containment, &exe, &["echo"], limits)?;
            let Accepted::Pipes(pipes) = relay.accept(ended.fd(), deadline, &me).fault()? else {
                return Err(Error::Usage("bench: the relay did not connect".into()));
            };
            let mut link = Link::new(pipes).fault()?;
            crate::problem::tools::relayed::proxy(&mut link, &mut session);
            session.finish();
            Ok(())
        });
        let tool = || -> Result<Duration, Error> {
            let mut child = Command::new(&argv[0])
                .args(&argv[1..])
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
                    return Err(std::io::Error::other("the relay ended"));
                }
                Ok(())
            };
            let t = timed(n, || round(&mut stdin));
            drop(stdin);
            let _ = child.wait();
            t
        };
        let t = tool();
        drop(done);
        let judged = judge.join().expect("bench judge thread");
        let t = t?;
        judged?;
        Ok(t)
    })
}

/// A containment for the bench's own players: the user's PATH and locale, no extra variables.
fn containment(sandbox: Want, cgroup: Want) -> Result<Containment, Error> {
    let own = crate::config::HarnessSettings::default();
    Containment::prepare(sandbox, cgroup, &own, false).map_err(Error::Usage)
}

fn per_move(t: Duration, n: u64) -> f64 {
    t.as_secs_f64() * 1e6 / n as f64
}

/// Starts `program args` as a player of `containment` (in process mode, in a host folder of
/// its own, as a run gives it: [`runner::done_with_workdir`] at its end).
fn spawn(
    containment: &Containment,
    program: &Path,
    args: &[&str],
    limits: Limits,
) -> Result<(Session, Option<Workdir>), Error> {
    let (spec, work) = player_spec(containment, program, args)?;
    Ok((Session::spawn(&spec, limits).fault()?, work))
}

/// The spec of `program args` as a player of `containment`, and its host folder in process
/// mode.
fn player_spec(
    containment: &Containment,
    program: &Path,
    args: &[&str],
) -> Result<(crate::sandbox::Spec, Option<Workdir>), Error> {
    let work = match containment.isolation.mode {
        crate::sandbox::Mode::Namespaces => None,
        // Made ahead, as a run makes them.
        crate::sandbox::Mode::Process => {
            Some(runner::process_workdir_ahead(&containment.isolation).fault()?)
        }
    };
    let mut argv = vec![program.display().to_string()];
    argv.extend(args.iter().map(|a| a.to_string()));
    let dir = program.parent().unwrap_or(Path::new("/"));
    let spec = containment.isolation.spec(
        program,
        argv,
        dir,
        containment.base_env.clone(),
        work.as_ref().map(|w| w.path()),
        &crate::sandbox::TestLimits {
            memory: 0,
            disk: 16 << 20,
            procs: 64,
            core_dumps: false,
        },
    );
    // As a run does: its stamp once the spec has made it the player's.
    let work = work.map(|w| {
        let began = runner::WorkdirStamp::of(w.path());
        (w, began)
    });
    Ok((spec, work))
}

/// A process-mode test's host folder and how it was when its test began.
type Workdir = (tempfile::TempDir, runner::WorkdirStamp);

/// Median time of starting and ending `true` as a player, over `n` tests.
fn spawn_cost(containment: &Containment, n: usize) -> Result<Duration, Error> {
    let program = Path::new("/usr/bin/true");
    let limits = Limits {
        think: Duration::from_secs(60),
        cpu: None,
        memory: 256 << 20,
        max_line: 1 << 16,
        max_output: 1 << 20,
        max_stderr: 1 << 20,
        grace: Duration::from_secs(5),
    };
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let (session, work) = spawn(containment, program, &[], limits)?;
        let ending = session.finish();
        if let Some(work) = work {
            runner::done_with_workdir(&containment.isolation, work, ending.report.as_ref());
        }
        times.push(start.elapsed());
        if ending
            .report
            .is_none_or(|r| r.start_error.is_some() || r.exit.is_none())
        {
            return Err(Error::Usage(
                "bench: `true` did not run in the sandbox".into(),
            ));
        }
    }
    times.sort();
    Ok(times[n / 2])
}

/// Median time of a plain spawn and wait of `true` (no sandbox, no supervisor).
fn plain_spawn_cost(n: usize) -> Result<Duration, Error> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        std::process::Command::new("/usr/bin/true")
            .status()
            .fault()?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok(times[n / 2])
}

/// What a suite's run measured.
struct SuiteRun {
    moves: u64,
    elapsed: Duration,
    tests: u64,
    /// Bytes of all the tests' transcripts.
    transcript_bytes: u64,
}

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

pub fn main(args: &BenchArgs) -> Result<u8, Error> {
    use crate::cli::BenchPart;
    os::install_interrupt_handler().fault()?;
    let wants = |part: BenchPart| args.only.is_empty() || args.only.contains(&part);
    let n = args.round_trips.max(1);
    // Judge and peer on one core, as in a run.
    let all_cpus = os::allowed_cpus();
    let pinned = os::pin_current_thread(all_cpus[0]);
    let open = containment(Want::Off, Want::Off)?;
    let sandboxed = containment(Want::Auto, Want::Auto)?;
    if wants(BenchPart::PingPong) {
        println!(
            "ping-pong, {n} round trips, {}:",
            if pinned {
                "pinned to one CPU"
            } else {
                "unpinned"
            }
        );
        ping_pongs(n, &open, &sandboxed)?;
    }
    if wants(BenchPart::Relay) {
        relay_ping_pongs(n, &open, &sandboxed)?;
    }
    if wants(BenchPart::Start) {
        spawns(&open, &sandboxed)?;
        #[cfg(feature = "attribution")]
        attribute(n, &open, &sandboxed)?;
    }
    // The suites below spread over every CPU again (the runner pins its own workers).
    os::set_affinity(&all_cpus);
    let context = Context::load(&args.common)?;
    if wants(BenchPart::Judges) {
        crate::tune::bench_line();
        judges(&context.testcases);
    }
    if wants(BenchPart::Batch) {
        tool_batch_cost(&context, &open, &sandboxed)?;
    }
    if wants(BenchPart::Suite) {
        suite_throughput(args, &context, &open, &sandboxed)?;
    }
    Ok(exit::OK)
}

/// The per-move cost: raw pipes, a reader thread, the session, with the transcript recorder,
/// and all that in the sandbox. Alternates them in rounds and keeps each one's best round, so
/// that load from elsewhere on the machine hits all alike and the ratios stay meaningful.
fn ping_pongs(n: u64, open: &Containment, sandboxed: &Containment) -> Result<(), Error> {
    const ROUNDS: u64 = 5;
    let per_round = (n / ROUNDS).max(1);
    let (mut base, mut threaded, mut session, mut recorded, mut boxed, mut boxed_run) =
        (f64::MAX, f64::MAX, f64::MAX, f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..ROUNDS {
        base = base.min(per_move(raw_ping_pong(per_round)?, per_round));
        threaded = threaded.min(per_move(thread_channel_ping_pong(per_round)?, per_round));
        session = session.min(per_move(
            session_ping_pong(per_round, false, open)?,
            per_round,
        ));
        recorded = recorded.min(per_move(
            session_ping_pong(per_round, true, open)?,
            per_round,
        ));
        boxed = boxed.min(per_move(
            session_ping_pong(per_round, false, sandboxed)?,
            per_round,
        ));
        boxed_run = boxed_run.min(per_move(
            session_ping_pong(per_round, true, sandboxed)?,
            per_round,
        ));
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
        "  session, sandboxed ({})  {boxed:8.2} us/round trip   {:.2}x   (target <= 1.25x)",
        sandboxed.isolation.describe(),
        boxed / base
    );
    println!(
        "  session + transcript (a run)  {recorded:8.2} us/round trip   {:.2}x",
        recorded / base
    );
    println!(
        "  the same, sandboxed           {boxed_run:8.2} us/round trip   {:.2}x",
        boxed_run / base
    );

    Ok(())
}

/// The relay's cost per message: a tool talking to a plain process through a pipe (the raw
/// ping-pong), the same tool talking through the relay to a sandboxed player, as in a run of
/// an interactive or TopCoder-shaped problem, and the same with `relay = "direct"` (the
/// sandboxed player on the tool's own pipes), and that without the sandbox and cgroup
/// (`open`: what of the direct cost is the sandbox's). Alternated in rounds, best of each.
fn relay_ping_pongs(n: u64, open: &Containment, sandboxed: &Containment) -> Result<(), Error> {
    // More and shorter rounds than the other ping-pongs: three ways, and a best round of
    // each is what survives a loaded machine.
    const ROUNDS: u64 = 9;
    let per_round = (n / ROUNDS).max(1);
    let (mut base, mut relayed, mut direct, mut direct_open) =
        (f64::MAX, f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..ROUNDS {
        base = base.min(per_move(raw_ping_pong(per_round)?, per_round));
        let t = relay_ping_pong(per_round, sandboxed, false)?;
        relayed = relayed.min(per_move(t, per_round));
        let t = relay_ping_pong(per_round, sandboxed, true)?;
        direct = direct.min(per_move(t, per_round));
        let t = relay_ping_pong(per_round, open, true)?;
        direct_open = direct_open.min(per_move(t, per_round));
    }
    println!("\na contest tool talking to its player ({per_round} round trips a round, best of {ROUNDS}):");
    println!("  tool <-> plain process, one pipe                 {base:8.2} us/message   1.00x (baseline)");
    println!(
        "  tool <-> harness (proxy) <-> sandboxed player    {relayed:8.2} us/message   {:.2}x   (target <= 1.25x)",
        relayed / base
    );
    println!(
        "  tool <-> sandboxed player (relay = \"direct\")    {direct:8.2} us/message   {:.2}x   (target <= 1.25x)",
        direct / base
    );
    println!(
        "  the same, no sandbox nor cgroup ({})  {direct_open:8.2} us/message   {:.2}x",
        open.isolation.describe(),
        direct_open / base
    );
    Ok(())
}

/// Starting and ending a test: plain spawn, supervisor alone, sandbox, sandbox + cgroup.
fn spawns(open: &Containment, sandboxed: &Containment) -> Result<(), Error> {
    let no_cgroup = containment(Want::Auto, Want::Off)?;
    const SPAWNS: usize = 41;
    let mut spawn = [Duration::MAX; 4];
    for _ in 0..3 {
        for (slot, t) in [
            plain_spawn_cost(SPAWNS)?,
            spawn_cost(open, SPAWNS)?,
            spawn_cost(&no_cgroup, SPAWNS)?,
            spawn_cost(sandboxed, SPAWNS)?,
        ]
        .into_iter()
        .enumerate()
        {
            spawn[slot] = spawn[slot].min(t);
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("\nstarting and ending one test (median of {SPAWNS}, best of 3):");
    println!(
        "  plain spawn + wait of true          {:7.3} ms",
        ms(spawn[0])
    );
    println!(
        "  supervisor, process mode            {:7.3} ms   +{:.3} ms",
        ms(spawn[1]),
        ms(spawn[1]) - ms(spawn[0])
    );
    println!(
        "  sandbox ({:<26}) {:7.3} ms   +{:.3} ms over plain (target <= 3 ms)",
        no_cgroup.isolation.describe(),
        ms(spawn[2]),
        ms(spawn[2]) - ms(spawn[0])
    );
    println!(
        "  sandbox + cgroup                    {:7.3} ms   +{:.3} ms over the sandbox (target <= 1 ms)",
        ms(spawn[3]),
        ms(spawn[3]) - ms(spawn[2])
    );

    Ok(())
}

/// What each part of the containment costs ([`crate::sandbox::attribution`]): the start and
/// end of a test, and the session's round trip, with one part left out at a time, alternated
/// with the whole containment in the same rounds (best round of each).
#[cfg(feature = "attribution")]
fn attribute(n: u64, open: &Containment, sandboxed: &Containment) -> Result<(), Error> {
    use crate::sandbox::attribution::{set, PARTS};
    const SPAWNS: usize = 41;
    const ROUNDS: usize = 9;
    let per_round = (n / ROUNDS as u64).max(1);
    // (containment, part left out): the first of each mode is the whole containment.
    let mut cases: Vec<(&Containment, &str)> = vec![(sandboxed, "")];
    cases.extend(
        PARTS
            .iter()
            .filter(|p| p.0 != "seccomp")
            .map(|p| (sandboxed, p.0)),
    );
    cases.extend([(open, ""), (open, "seccomp"), (open, "keyring")]);
    let mut start = vec![Duration::MAX; cases.len()];
    let mut cpu = vec![Duration::MAX; cases.len()];
    for _ in 0..5 {
        for (i, (c, part)) in cases.iter().enumerate() {
            set(part);
            let before = children_cpu();
            let t = spawn_cost(c, SPAWNS);
            crate::sandbox::reap_all(Duration::from_secs(5));
            let used = children_cpu() - before;
            set("");
            start[i] = start[i].min(t?);
            cpu[i] = cpu[i].min(used / SPAWNS as u32);
        }
    }
    let moves: [(&Containment, &str); 7] = [
        (sandboxed, ""),
        (sandboxed, "cpu"),
        (sandboxed, "quota"),
        (sandboxed, "cpuset"),
        (sandboxed, "cpugroup"),
        (open, ""),
        (open, "seccomp"),
    ];
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
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let describe = |part: &str| PARTS.iter().find(|p| p.0 == part).map_or("", |p| p.1);
    println!("\nwhat each part costs (start and end of `true`, median of {SPAWNS}, best of 3):");
    for (i, (c, part)) in cases.iter().enumerate() {
        let whole = if c.isolation.mode == crate::sandbox::Mode::Namespaces {
            start[0]
        } else {
            start[cases.len() - 3]
        };
        let whole_cpu = if c.isolation.mode == crate::sandbox::Mode::Namespaces {
            cpu[0]
        } else {
            cpu[cases.len() - 3]
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
                ms(whole) - ms(start[i]),
                ms(cpu[i]),
                ms(whole_cpu) - ms(cpu[i])
            );
        }
    }
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
    Ok(())
}

/// The CPU time (user and system) of the harness's reaped children so far.
#[cfg(feature = "attribution")]
fn children_cpu() -> Duration {
    // SAFETY: getrusage fills a plain struct.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut u);
        u
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The judges' own cost per move and transcript bytes, long games, reference solvers.
fn judges(testcases: &Path) {
    for problem in problem::all() {
        if let Some(judged) = judge_cost(problem.as_ref(), testcases) {
            println!(
                "  judge of {:<20} {:8.3} us/move (in-process, no player); transcript {:.1} bytes/move, {:.0} bytes/test",
                problem.id(),
                judged.us_per_move,
                judged.transcript_bytes as f64 / judged.moves as f64,
                judged.transcript_bytes as f64 / judged.tests as f64,
            );
        }
    }

    for problem in problem::all() {
        match long_game_cost(problem.as_ref(), testcases) {
            None => {}
            Some(Err(e)) => println!("  long games of {}: {e}", problem.id()),
            Some(Ok(lines)) => lines.iter().for_each(|l| println!("{l}")),
        }
    }

    for problem in problem::all() {
        if let Some((cases, per_pass)) = solver_cost(problem.as_ref(), testcases) {
            println!(
                "  reference solver of {:<16} {:8.3} ms per pass over its {cases} fixed tests",
                problem.id(),
                per_pass * 1e3
            );
        }
    }
}

/// What a batch test of a problem judged by a contest's tools (`tools-batch`, else the first
/// batch one found) costs in a run over running its player and its judge by hand, uncontained,
/// on the same input. Each measurement is the median of a block of [`TOOL_TESTS`] tests in a
/// row, as a run has them; the three kinds of block (by hand, in a run in process mode, in a
/// run sandboxed) take turns in a rotating order over [`TOOL_ROUNDS`] rounds, each block
/// started once the one before has left nothing working in the background
/// ([`crate::sandbox::settle`]), and each kind keeps its best block: these virtual machines
/// change pace by a millisecond from one second to the next. The player is `/bin/echo 0` (its
/// own time is not what is measured).
fn tool_batch_cost(
    context: &Context,
    open: &Containment,
    sandboxed: &Containment,
) -> Result<(), Error> {
    use crate::problem::tools::{self, Shape};
    let Some(def) = tools::def("tools-batch").or_else(|| {
        problem::all()
            .iter()
            .filter_map(|p| tools::def(p.id()))
            .find(|d| d.shape == Shape::Batch)
    }) else {
        return Ok(());
    };
    let mut builds = crate::build::Builds::new(Duration::from_secs_f64(
        context.scoring.harness.build_timeout,
    ));
    builds.cache = Some(context.results(None).join(".cache").join("builds"));
    let problem = problem::by_id(def.id).expect("loaded");
    problem.prepare(&mut builds).map_err(Error::Usage)?;
    let tmp = tempfile::tempdir().fault()?;
    let folder = tmp.path().join("bench-echo");
    std::fs::create_dir(&folder).fault()?;
    std::fs::write(
        folder.join("player.toml"),
        format!("problem = {:?}\ncommand = [\"/bin/echo\", \"0\"]\n", def.id),
    )
    .fault()?;
    let ids = problem::ids();
    let (found, _) = players::discover(&[folder], None, &ids, &mut builds).usage()?;
    let player = found
        .into_iter()
        .next()
        .ok_or_else(|| Error::Usage("bench: no tool player".into()))?;
    let case = CaseKey::Seed(1);
    let suite_in = |containment: &Containment| {
        let problem = problem::by_id(def.id).expect("loaded");
        problem.attach(&containment.isolation);
        Suite {
            env: context.env(problem.id(), None),
            problem,
            cases: vec![case.clone()],
            players: vec![player.clone()],
            done: Default::default(),
        }
    };
    let suites = [suite_in(open), suite_in(sandboxed)];
    let by_hand = ByHand::new(&def, context, &case)?;
    // One test of each first: a run makes its input (gen) once, and the first test of a run
    // makes what the later ones reuse.
    type Once<'a> = &'a dyn Fn() -> Result<Duration, Error>;
    let kinds: [Once; 3] = [
        &|| by_hand.once(),
        &|| tool_test_once(&suites[0], open, &case, &player),
        &|| tool_test_once(&suites[1], sandboxed, &case, &player),
    ];
    for once in &kinds {
        once()?;
    }
    let mut best = [Duration::MAX; 3];
    for round in 0..TOOL_ROUNDS {
        for k in 0..kinds.len() {
            let kind = (round + k) % kinds.len();
            crate::sandbox::settle(Duration::from_secs(2));
            let mut times = (0..TOOL_TESTS)
                .map(|_| kinds[kind]())
                .collect::<Result<Vec<_>, _>>()?;
            times.sort();
            best[kind] = best[kind].min(times[TOOL_TESTS / 2]);
        }
    }
    let [hand, in_open, in_box] = best;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "\na batch test of {} (player /bin/echo 0; median of {TOOL_TESTS} in a row, best of {TOOL_ROUNDS}):",
        def.id
    );
    println!("  player and judge by hand             {:7.3} ms", ms(hand));
    println!(
        "  in a run, process mode              {:7.3} ms   +{:.3} ms",
        ms(in_open),
        ms(in_open) - ms(hand)
    );
    println!(
        "  in a run, sandboxed ({:<14}) {:7.3} ms   +{:.3} ms   {:.2}x (target <= +3 ms)",
        sandboxed.isolation.describe(),
        ms(in_box),
        ms(in_box) - ms(hand),
        in_box.as_secs_f64() / hand.as_secs_f64()
    );
    Ok(())
}

/// Tests in a row of one kind of batch test ([`tool_batch_cost`]).
const TOOL_TESTS: usize = 21;

/// Rounds of the batch test's measurement.
const TOOL_ROUNDS: usize = 5;

/// The time of one test of `case` in a run (its input already made: one per run).
fn tool_test_once(
    suite: &Suite,
    containment: &Containment,
    case: &CaseKey,
    player: &players::Player,
) -> Result<Duration, Error> {
    let start = Instant::now();
    let result = runner::run_one(suite, containment, case, player)
        .ok_or_else(|| Error::Interrupted("bench: interrupted".into()))?;
    let took = start.elapsed();
    if result.outcome.verdict == crate::verdict::Verdict::HarnessError {
        return Err(Error::Usage(format!("bench: {}", result.outcome.reason)));
    }
    Ok(took)
}

/// Running the player (`/bin/echo 0`) on the input of a case and the judge on its answer by
/// hand: plain processes, in a fresh folder each time, as a user would.
struct ByHand<'a> {
    def: &'a crate::problem::tools::Def,
    input: String,
}

impl<'a> ByHand<'a> {
    fn new(
        def: &'a crate::problem::tools::Def,
        context: &Context,
        case: &CaseKey,
    ) -> Result<ByHand<'a>, Error> {
        let problem = problem::by_id(def.id).expect("loaded");
        let input = problem
            .case(case, &context.env(def.id, None))
            .map_err(|e| Error::Usage(e.to_string()))?
            .describe();
        Ok(ByHand { def, input })
    }

    /// One test's time: the player, its answer written, the judge.
    fn once(&self) -> Result<Duration, Error> {
        use crate::problem::tools::judge;
        // On the file system of the run's own folders: what is compared is the harness's
        // work, not two file systems.
        let dir = tempfile::tempdir_in(crate::sandbox::scratch::base()).fault()?;
        let (in_path, out_path) = (dir.path().join("input.txt"), dir.path().join("output.txt"));
        std::fs::write(&in_path, &self.input).fault()?;
        let start = Instant::now();
        let answer = Command::new("/bin/echo")
            .arg("0")
            .stdin(std::fs::File::open(&in_path).fault()?)
            .output()
            .fault()?;
        std::fs::write(&out_path, &answer.stdout).fault()?;
        let args = judge::Placeholders {
            input: Some(in_path),
            output: Some(out_path),
            seed: Some(1),
            ..Default::default()
        }
        .apply(&self.def.judge);
        let judged = Command::new(judge::program(&self.def.tools, &args[0]))
            .args(&args[1..])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .fault()?;
        let took = start.elapsed();
        if !judged.status.success() {
            return Err(Error::Usage(format!(
                "bench: the judge of {} failed by hand",
                self.def.id
            )));
        }
        Ok(took)
    }
}

/// The moves per second of a suite at 1 and 2 threads in process mode, and at 2 in the
/// sandbox with a cgroup; alternated, best of 3 each (a suite takes a fraction of a second,
/// so a burst of load elsewhere would otherwise decide the ratio).
fn suite_throughput(
    args: &BenchArgs,
    context: &Context,
    open: &Containment,
    sandboxed: &Containment,
) -> Result<(), Error> {
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
    println!(
        "\nsuite throughput: {} on seeds {}:",
        player.name, args.seeds
    );
    // Alternate the two, best of 3 each: a suite takes a fraction of a second, so a burst of
    // load elsewhere would otherwise decide the ratio.
    let mut best = [(0u64, Duration::MAX); 3];
    let setups = [(1, open), (2, open), (2, sandboxed)];
    let mut disk = None;
    for _ in 0..3 {
        for (slot, (threads, c)) in setups.iter().enumerate() {
            let run = throughput(&suite, c, *threads, true);
            if run.elapsed < best[slot].1 {
                best[slot] = (run.moves, run.elapsed);
            }
            disk.get_or_insert((run.transcript_bytes, run.moves, run.tests));
        }
    }
    let mut rates = Vec::new();
    for (slot, (threads, c)) in setups.iter().enumerate() {
        let (moves, t) = best[slot];
        let rate = moves as f64 / t.as_secs_f64();
        rates.push(rate);
        println!(
            "  --threads {threads}, {:<34}: {moves} moves in {:.3}s = {:.0} moves/s (best of 3)",
            c.isolation.describe(),
            t.as_secs_f64(),
            rate
        );
    }
    println!(
        "  2 threads / 1 thread: {:.2}x   (target >= 1.8x)",
        rates[1] / rates[0]
    );
    println!(
        "  sandbox + cgroup / process mode, 2 threads: {:.2}x   (target >= 0.85x)",
        rates[2] / rates[1]
    );
    if let Some((bytes, moves, tests)) = disk {
        println!(
            "  transcripts: {bytes} bytes for {moves} moves of {tests} tests = {:.1} bytes/move, {:.0} bytes/test",
            bytes as f64 / moves.max(1) as f64,
            bytes as f64 / tests.max(1) as f64
        );
    }
    Ok(())
}

/// The reference solver's time for one pass over a problem's fixed tests (best of 10 passes),
/// with the number of tests; `None` for problems without fixed tests or a solver.
fn solver_cost(problem: &dyn problem::Problem, testcases: &Path) -> Option<(usize, f64)> {
    let env = Env {
        testcases: testcases.to_path_buf(),
        config: Default::default(),
        secret: None,
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

/// The harness's own time per move (the judge and the run's transcript recorder, the player
/// in memory) over the first 1,000 moves of a problem's recorded long game and over all of
/// it, side by side, with the disk its transcript takes and the size of its replay page.
fn long_game_cost(
    problem: &dyn problem::Problem,
    testcases: &Path,
) -> Option<Result<Vec<String>, String>> {
    let mut env = Env {
        testcases: testcases.to_path_buf(),
        config: Default::default(),
        secret: None,
    };
    let (key, moves) = match problem.long_game(&env)? {
        Ok(game) => game,
        Err(e) => return Some(Err(e.to_string())),
    };
    let mut lines = vec![format!(
        "\nlong games of {} (recorded: {} moves of {}; judge + transcript, player in memory):",
        problem.id(),
        moves.len(),
        key.label()
    )];
    // Each game is played 9 times; every window of 1,000 moves keeps its best time, so that
    // a pause of the machine (a long game is more often interrupted) is not taken for the
    // harness's cost.
    const WINDOW: usize = 1_000;
    let mut windows: Vec<Vec<f64>> = Vec::new();
    for length in [WINDOW, moves.len()] {
        if length > moves.len() {
            continue;
        }
        // The game ends at its last recorded move, as a run with this move cap would.
        env.config.move_cap = length as u64;
        let (best, stored) = match best_windows(problem, &key, &env, &moves[..length], WINDOW) {
            Ok(found) => found,
            Err(e) => return Some(Err(e)),
        };
        let mean = best.iter().sum::<f64>() / best.len() as f64;
        lines.push(format!(
            "  {length:>6}-move game   {mean:8.3} us/move   transcript {:.1} bytes/move",
            stored as f64 / length as f64
        ));
        windows.push(best);
    }
    if let [short, long] = &windows[..] {
        let last = long[long.len() - 1];
        lines.push(format!(
            "  moves {}..{} of the long game {last:8.3} us/move; / the {WINDOW}-move game: {:.2}x   (target ~1.00x: no growth with length)",
            moves.len() - WINDOW + 1,
            moves.len(),
            last / short[0]
        ));
    }
    if let Some(line) = long_page(problem, &key, &env, &moves) {
        lines.push(line);
    }
    Some(Ok(lines))
}

/// Plays the recorded game (`moves`) 9 times; each window of `window` moves keeps its best
/// time per move. Returns those, and the bytes of the transcript stored.
fn best_windows(
    problem: &dyn problem::Problem,
    key: &CaseKey,
    env: &Env,
    moves: &[String],
    window: usize,
) -> Result<(Vec<f64>, usize), String> {
    let length = moves.len();
    let mut best = vec![f64::MAX; length / window];
    let mut stored = 0;
    for _ in 0..9 {
        let mut game = match problem.case(key, env) {
            Ok(game) => game,
            Err(e) => return Err(e.to_string()),
        };
        let mut player = crate::transcript::Replayed::new(moves.to_vec());
        let mut recorder = crate::transcript::Recorder::for_problem(problem, &mut player);
        let mut clocked = Clocked {
            inner: &mut recorder,
            answers: 0,
            every: window,
            times: Vec::with_capacity(length / window + 1),
        };
        clocked.times.push(Instant::now());
        let outcome = game.play(&mut clocked);
        clocked.times.push(Instant::now());
        if outcome.moves != length as u64 {
            return Err(format!(
                "the recorded game ended after {} of {length} moves: {}",
                outcome.moves, outcome.reason
            ));
        }
        // The first window runs from the start to the first move of the second window.
        let marks = &clocked.times;
        for (w, slot) in best.iter_mut().enumerate() {
            let end = marks.get(w + 1).copied().unwrap_or(marks[marks.len() - 1]);
            *slot = slot.min(per_move(end - marks[w], window as u64));
        }
        drop(clocked);
        stored = recorder.text.len();
    }
    Ok((best, stored))
}

/// The size of the replay page of the recorded game, and the time to build it.
fn long_page(
    problem: &dyn problem::Problem,
    key: &CaseKey,
    env: &Env,
    moves: &[String],
) -> Option<String> {
    let views = problem.views()?;
    let start = Instant::now();
    match views.page_data(key, env, moves) {
        Ok(data) => {
            let page = crate::replay::page::render(&crate::replay::Replay {
                problem: problem.id().to_string(),
                player: "recorded".into(),
                seed: key.to_string(),
                score: 0.0,
                recorded_score: 0.0,
                verdict: "OK".into(),
                reason: String::new(),
                data,
                script: views.page_script(),
            });
            Some(format!(
                "  replay page of the {}-move game: {:.2} MB, built in {:.0} ms",
                moves.len(),
                page.len() as f64 / 1e6,
                start.elapsed().as_secs_f64() * 1e3
            ))
        }
        Err(e) => Some(format!("  replay page: {e}")),
    }
}

/// A channel that notes the time at every `every`-th answer it passes on (after the first).
struct Clocked<'a> {
    inner: &'a mut dyn Channel,
    answers: usize,
    every: usize,
    times: Vec<Instant>,
}

impl Channel for Clocked<'_> {
    fn send(&mut self, text: &str) -> Result<(), crate::verdict::Fault> {
        self.inner.send(text)
    }

    fn recv(&mut self) -> Result<&str, crate::verdict::Fault> {
        if self.answers > 0 && self.answers.is_multiple_of(self.every) {
            self.times.push(Instant::now());
        }
        self.answers += 1;
        self.inner.recv()
    }

    fn recv_to_end(&mut self) -> Result<&str, crate::verdict::Fault> {
        self.inner.recv_to_end()
    }

    fn understood(&mut self, canonical: &str) {
        self.inner.understood(canonical);
    }
}

/// What the judge of an interactive problem costs over some games of its bench player.
struct Judged {
    us_per_move: f64,
    moves: u64,
    tests: u64,
    /// Bytes of the games' transcripts.
    transcript_bytes: u64,
}

/// The judge's own time per move for an interactive problem: a game is played once by the
/// problem's bench player and recorded, then the recorded answers are replayed from memory
/// against a fresh copy of the game, timed. `None` for problems without a bench player.
fn judge_cost(problem: &dyn problem::Problem, testcases: &Path) -> Option<Judged> {
    let env = Env {
        testcases: testcases.to_path_buf(),
        config: Default::default(),
        secret: None,
    };
    let mut moves = 0u64;
    let mut total = Duration::ZERO;
    let mut transcript_bytes = 0u64;
    const GAMES: u64 = 20;
    for seed in 1..=GAMES {
        let key = CaseKey::Seed(seed);
        let mut player = problem.bench_player(&key, &env)?;
        let mut recorder = crate::transcript::Recorder::for_problem(problem, player.as_mut());
        problem.case(&key, &env).ok()?.play(&mut recorder);
        transcript_bytes += recorder.text.len() as u64;
        let answers = crate::transcript::answers(&recorder.text);
        let mut replay = crate::transcript::Replayed::new(answers);
        let mut game = problem.case(&key, &env).ok()?;
        let start = Instant::now();
        let outcome = game.play(&mut replay);
        total += start.elapsed();
        moves += outcome.moves.max(1);
    }
    Some(Judged {
        us_per_move: per_move(total, moves),
        moves,
        tests: GAMES,
        transcript_bytes,
    })
}
