//! Turns a parsed command line into work: dispatches the subcommands and, for a run, goes
//! plan -> execute: the context ([`crate::context`]), the players, the checked
//! [`crate::plan::RunPlan`], then [`crate::execute`]. Every error is typed
//! ([`crate::error::Error`]) and becomes its exit code here.

use std::ffi::OsString;
use std::io::Read;

use crate::cli::{Cli, Command, GenArgs, RunArgs, SolveArgs};
use crate::context::{find_problem, Context};
use crate::error::{Error, Result};
use crate::exit;
use crate::plan::{Request, RunPlan};
use crate::players;
use crate::problem::{self, CaseKey};

/// Runs the command line; returns the exit code. `env_secret` is the value `HARNESS_SECRET`
/// had (already removed from the environment): the key of commands given no `--secret`.
pub fn main(mut cli: Cli, env_secret: Option<OsString>) -> u8 {
    let result = apply_env_secret(&mut cli, env_secret).and_then(|()| dispatch(cli));
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            e.exit_code()
        }
    }
}

fn dispatch(cli: Cli) -> Result<u8> {
    match cli.command {
        None => run(&cli.run),
        Some(Command::Run(args)) => run(&args),
        Some(Command::Gen(args)) => gen(&args),
        Some(Command::Solve(args)) => solve(&args),
        Some(Command::Bench(args)) => crate::bench::main(&args),
        Some(Command::Compare(args)) => crate::compare::compare_main(&args),
        Some(Command::Runs(args)) => crate::compare::runs_main(&args),
        Some(Command::Echo) => crate::bench::echo(),
        Some(Command::Forward) => crate::bench::forward(),
        Some(Command::ForwardWaiting) => crate::bench::forward_waiting(),
        Some(Command::Doctor(args)) => doctor(&args),
        Some(Command::Tune(args)) => crate::tune::main(&args),
        Some(Command::Replay(args)) => crate::replay::main(&args),
        Some(Command::Play(args)) => crate::play::main(&args),
        Some(Command::Build(args)) => crate::bundle::main(&args),
        Some(Command::Merge(args)) => crate::merge::main(&args),
        Some(Command::NewProblem(args)) => crate::new_problem::main(&args),
    }
}

/// Gives `HARNESS_SECRET` to the command when it takes a key and `--secret` was not given.
fn apply_env_secret(cli: &mut Cli, env_secret: Option<OsString>) -> Result<()> {
    let arg = match &mut cli.command {
        None => &mut cli.run.secret,
        Some(Command::Run(args)) => &mut args.secret,
        Some(Command::Gen(args)) => &mut args.secret,
        Some(Command::Replay(args)) => &mut args.secret,
        Some(Command::Merge(args)) => &mut args.secret,
        Some(_) => return Ok(()),
    };
    if arg.secret.is_none() {
        arg.secret = crate::secret::from_env_value(env_secret).map_err(Error::Usage)?;
    }
    if arg.secret.as_ref().is_some_and(|s| s.is_short()) {
        eprintln!(
            "warning: the secret key is shorter than {} bytes: it can be guessed from the \
             fingerprint in run.toml; use a long random key",
            crate::secret::SHORT_KEY
        );
    }
    Ok(())
}

/// The main command: plan the run, then execute it.
fn run(args: &RunArgs) -> Result<u8> {
    crate::os::install_interrupt_handler()
        .map_err(|e| Error::fault(format!("cannot install the interrupt handler: {e}")))?;
    let mut context = Context::load(&args.common)?;
    let request = Request::new(args, &context)?;
    request.keep_recorded(&mut context.scoring);
    let history = crate::compare::History::new(
        &request.args.compare,
        &context.scoring,
        &request.results,
        request.args.secret.secret.as_ref(),
        request.debug(),
        request.args.vs_run,
    )?;
    let args = &request.args;
    let harness = &context.scoring.harness;
    // Judging others' code with a key: their builds are contained too.
    let mut builds = crate::build::Builds::from_settings(
        harness,
        args.build_sandbox || args.secret.secret.is_some(),
        args.sandbox.unwrap_or(harness.sandbox),
        args.cgroup.unwrap_or(harness.cgroup),
    );
    builds.refuse = args.no_build;
    builds.cache = Some(request.results.join(".cache").join("builds"));
    let ids = problem::ids();
    let players = players::discover_with(
        &request.args.players,
        &request.variants,
        request.args.problem.as_deref(),
        &ids,
        &mut builds,
    )
    .map_err(|e| match crate::os::interrupted() {
        true => Error::Interrupted(e.to_string()),
        false => Error::usage(e.to_string()),
    })?;
    // Judges made of a contest's tools are built once, before any test is planned or run.
    let mut named: Vec<&str> = players.0.iter().map(|p| p.problem.as_str()).collect();
    named.sort_unstable();
    named.dedup();
    for id in named {
        let Some(problem) = problem::by_id(id) else {
            continue;
        };
        problem
            .prepare(&mut builds)
            .map_err(|e| match crate::os::interrupted() {
                true => Error::Interrupted(e),
                false => Error::Usage(e),
            })?;
    }
    let cpus = crate::os::allowed_cpus().len();
    let plan = RunPlan::new(request, &context, players, history.flags(), cpus)?;
    if plan.request.args.verbose {
        crate::debug::watch();
    }
    crate::execute::run(plan, history, &builds, &context.scoring)
}

/// `harness doctor`: what isolation the machine offers, and what a run will use.
fn doctor(args: &crate::cli::DoctorArgs) -> Result<u8> {
    let scoring = Context::load(&args.common)?.scoring;
    println!("isolation checks:");
    for check in crate::sandbox::probe::checks() {
        let mark = if check.ok { "yes" } else { "NO " };
        println!("  {mark}  {:<30} {}", check.what, check.detail);
        if !check.ok && !check.fix.is_empty() {
            println!("        to enable: {}", check.fix);
        }
    }
    match crate::sandbox::cgroup::RunGroups::create(&format!(
        "harness-doctor-{}",
        std::process::id()
    )) {
        Ok(groups) => println!(
            "  yes  {:<30} {} ({})",
            "cgroup per test",
            groups.describe(),
            groups.location()
        ),
        Err(why) => {
            println!("  NO   {:<30} {why}", "cgroup per test");
            println!("        to enable: run as root with cgroup v1 memory and pids mounted, or from a cgroup v2 subtree delegated to you (e.g. `systemd-run --user --scope -p Delegate=yes harness ...`)");
        }
    }
    let scratch = crate::sandbox::scratch::chosen();
    println!(
        "  {:<3}  {:<30} {} ({}; set TMPDIR to choose)",
        "",
        "scratch space",
        scratch.path.display(),
        scratch.why
    );
    let want = (scoring.harness.sandbox, scoring.harness.cgroup);
    match crate::sandbox::Isolation::prepare(want.0, want.1, &scoring.harness.sandbox_bind) {
        Ok(isolation) => {
            println!(
                "
a run here (scoring.toml: sandbox = {}, cgroup = {}) uses: {}",
                format!("{:?}", want.0).to_lowercase(),
                format!("{:?}", want.1).to_lowercase(),
                isolation.describe()
            );
            for note in &isolation.notes {
                println!("  note: {note}");
            }
            // What holds a contest's tools, as a run with a problem of tools says at its start.
            if let Some(note) = isolation.tools_note() {
                println!("  note: {note}");
            }
        }
        Err(e) => println!(
            "
a run here would stop: {e}"
        ),
    }
    Ok(exit::OK)
}

fn gen(args: &GenArgs) -> Result<u8> {
    let context = Context::load(&args.common)?;
    let problem = find_problem(&args.problem)?;
    let timeout = std::time::Duration::from_secs_f64(context.scoring.harness.build_timeout);
    let mut builds = crate::build::Builds::new(timeout);
    builds.cache = Some(context.results(None).join(".cache").join("builds"));
    problem.prepare(&mut builds).map_err(Error::Usage)?;
    // Made again: a contest's tools run from their build.
    let problem = find_problem(&args.problem)?;
    let env = context.env(problem.id(), args.secret.secret.as_ref());
    let mut game = problem
        .case(&CaseKey::parse(&args.seed), &env)
        .map_err(|e| Error::usage(e.to_string()))?;
    if args.view == "player" {
        print!("{}", crate::debug::first_message(game.as_mut()));
    } else {
        print!("{}", game.describe());
    }
    Ok(exit::OK)
}

fn solve(args: &SolveArgs) -> Result<u8> {
    // The workspace's problem.toml problems are known too (to say they have no solver).
    Context::load(&args.common)?;
    let problem = find_problem(&args.problem)?;
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| Error::usage(format!("cannot read stdin: {e}")))?;
    match problem.solve(&input) {
        None => Err(Error::usage(format!(
            "{} has no reference solver (an interactive problem, or one judged by a contest's \
             tools)",
            problem.id()
        ))),
        Some(Err(why)) => Err(Error::usage(format!(
            "invalid {} input: {why}",
            problem.id()
        ))),
        Some(Ok(answer)) => {
            print!("{answer}");
            Ok(exit::OK)
        }
    }
}
