//! Turns a parsed command line into work: loads `scoring.toml`, finds players, plans the
//! suites, drives the runner and feeds its events to the reporters. Returns exit codes; every
//! user mistake becomes a message naming the offending thing and exit code 2.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use crate::cli::{Cli, Command, Common, GenArgs, RunArgs, SolveArgs};
use crate::config::{ProblemConfig, Scoring};
use crate::exit;
use crate::players;
use crate::problem::{self, CaseKey, Env};
use crate::report::{self, files::RunFiles, progress::Progress, Summary};
use crate::runner::{self, Event, RunOptions, Suite};
use crate::seeds::SeedSpec;

/// A user error: printed as `error: ...`, exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl<E: std::fmt::Display> From<E> for UsageError {
    fn from(e: E) -> Self {
        UsageError(e.to_string())
    }
}

/// Runs the command line; returns the exit code. `env_secret` is the value `HARNESS_SECRET`
/// had (already removed from the environment): the key of commands given no `--secret`.
pub fn main(mut cli: Cli, env_secret: Option<OsString>) -> u8 {
    if let Err(UsageError(message)) = apply_env_secret(&mut cli, env_secret) {
        eprintln!("error: {message}");
        return exit::USAGE;
    }
    let result = match cli.command {
        None => run(&cli.run),
        Some(Command::Run(args)) => run(&args),
        Some(Command::Gen(args)) => gen(&args),
        Some(Command::Solve(args)) => solve(&args),
        Some(Command::Bench(args)) => crate::bench::main(&args),
        Some(Command::Compare(args)) => crate::compare::compare_main(&args),
        Some(Command::Runs(args)) => crate::compare::runs_main(&args),
        Some(Command::Echo) => crate::bench::echo(),
        Some(Command::Doctor(args)) => doctor(&args),
        Some(Command::Replay(args)) => crate::replay::main(&args),
        Some(Command::Play(args)) => crate::play::main(&args),
    };
    match result {
        Ok(code) => code,
        Err(UsageError(message)) => {
            eprintln!("error: {message}");
            exit::USAGE
        }
    }
}

/// Gives `HARNESS_SECRET` to the command when it takes a key and `--secret` was not given.
fn apply_env_secret(cli: &mut Cli, env_secret: Option<OsString>) -> Result<(), UsageError> {
    let arg = match &mut cli.command {
        None => &mut cli.run.secret,
        Some(Command::Run(args)) => &mut args.secret,
        Some(Command::Gen(args)) => &mut args.secret,
        Some(Command::Replay(args)) => &mut args.secret,
        Some(_) => return Ok(()),
    };
    if arg.secret.is_none() {
        arg.secret = crate::secret::from_env_value(env_secret)?;
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

/// `scoring.toml`, and the folder it is in (where `testcases/` and `results/` are by default).
pub fn load_config(common: &Common) -> Result<(Scoring, PathBuf), UsageError> {
    let ids = problem::ids();
    let root = common
        .config
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    if !common.config.exists() && common.config == Path::new("scoring.toml") {
        // Run from a folder inside the workspace (such as players/): the nearest scoring.toml
        // above is the workspace's, with its testcases/ and results/ (never players/results/).
        if let Some(found) = config_above() {
            eprintln!("note: using {}", found.display());
            let root = found.parent().unwrap_or(Path::new(".")).to_path_buf();
            return Ok((Scoring::load(&found, &ids)?, root));
        }
        // No file anywhere above: built-in defaults, from the current folder.
        return Ok((Scoring::default(), root));
    }
    Ok((Scoring::load(&common.config, &ids)?, root))
}

/// The nearest `scoring.toml` in a folder above the current one.
fn config_above() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .skip(1)
        .map(|dir| dir.join("scoring.toml"))
        .find(|path| path.is_file())
}

pub fn testcases_dir(common: &Common, root: &Path) -> PathBuf {
    common
        .testcases
        .clone()
        .unwrap_or_else(|| root.join("testcases"))
}

pub fn find_problem(id: &str) -> Result<Box<dyn problem::Problem>, UsageError> {
    problem::by_id(id).ok_or_else(|| {
        UsageError(format!(
            "unknown problem {id:?} (known: {})",
            problem::ids().join(", ")
        ))
    })
}

fn problem_config(scoring: &Scoring, id: &str, args: &RunArgs) -> ProblemConfig {
    let mut cfg = scoring.problem(id);
    if let Some(t) = args.time_limit {
        cfg.time_limit = t;
    }
    if let Some(m) = args.memory_limit {
        cfg.memory_limit = m;
    }
    cfg
}

/// What a run was asked to do, kept in its `run.toml` so that `--resume` can finish it.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RecordedArgs {
    players: Vec<PathBuf>,
    seeds: Option<String>,
    problem: Option<String>,
    time_limit: Option<f64>,
    memory_limit: Option<u64>,
    #[serde(default)]
    sandbox: Option<crate::sandbox::Want>,
    #[serde(default)]
    cgroup: Option<crate::sandbox::Want>,
    /// The fingerprint of the secret key, never the key (`crate::secret`).
    #[serde(skip_serializing_if = "Option::is_none")]
    secret_fingerprint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    transcripts: Option<crate::transcript::Keep>,
}

#[derive(Debug, serde::Deserialize)]
struct RecordedRun {
    args: RecordedArgs,
}

/// The arguments of a resumed run: those recorded for it, overridden by any given now.
fn resumed_args(args: &RunArgs, dir: &Path) -> Result<RunArgs, UsageError> {
    let path = dir.join("run.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        UsageError(format!(
            "--resume: cannot read {}: {e} (is the run id right? see results/)",
            path.display()
        ))
    })?;
    let recorded: RecordedRun = toml::from_str(&text)
        .map_err(|e| UsageError(format!("--resume: {}: {e}", path.display())))?;
    let r = recorded.args;
    // A key is never recorded: the one given now must be the run's, or the tests would differ.
    let what = format!("--resume {}", dir.display());
    crate::secret::check(
        r.secret_fingerprint.as_deref(),
        args.secret.secret.as_ref(),
        &what,
    )?;
    let mut merged = args.clone();
    if merged.players.is_empty() {
        merged.players = r.players;
    }
    merged.seeds = merged.seeds.or(r.seeds);
    merged.problem = merged.problem.or(r.problem);
    merged.time_limit = merged.time_limit.or(r.time_limit);
    merged.memory_limit = merged.memory_limit.or(r.memory_limit);
    merged.sandbox = merged.sandbox.or(r.sandbox);
    merged.cgroup = merged.cgroup.or(r.cgroup);
    merged.transcripts = merged.transcripts.or(r.transcripts);
    Ok(merged)
}

fn run(args: &RunArgs) -> Result<u8, UsageError> {
    crate::os::install_interrupt_handler()?;
    let (scoring, root) = load_config(&args.common)?;
    let results = args
        .results
        .clone()
        .unwrap_or_else(|| root.join(&scoring.harness.results));
    let resume_dir = args.resume.as_ref().map(|id| results.join(id));
    let resumed;
    let args = match &resume_dir {
        Some(dir) => {
            resumed = resumed_args(args, dir)?;
            &resumed
        }
        None => args,
    };
    if let Some(t) = args.time_limit {
        if !(t > 0.0 && t.is_finite()) {
            return Err(UsageError(format!(
                "--time-limit {t}: must be a positive number of seconds"
            )));
        }
    }
    if args.threads == Some(0) {
        return Err(UsageError(
            "--threads 0: at least one thread is needed".into(),
        ));
    }
    if let Some(id) = &args.problem {
        find_problem(id)?;
    }
    let seeds = args.seeds.as_deref().unwrap_or("examples");
    let spec = SeedSpec::parse(seeds).map_err(|e| UsageError(format!("--seeds: {e}")))?;
    if args.players.is_empty() {
        return Err(UsageError(
            "no players: give --players PATH... (e.g. --players players/*)".into(),
        ));
    }
    let ids = problem::ids();
    let mut history =
        crate::compare::History::new(&args.compare, &scoring, args.secret.secret.as_ref())?;
    let mut filter_applied = vec![false; history.flags().filters.len()];
    let build_timeout = std::time::Duration::from_secs_f64(scoring.harness.build_timeout);
    let mut builds = crate::build::Builds::new(build_timeout);
    let (found, skipped) =
        match players::discover(&args.players, args.problem.as_deref(), &ids, &mut builds) {
            Ok(found) => found,
            Err(e) if crate::os::interrupted() => {
                eprintln!("interrupted: {e}");
                return Ok(exit::INTERRUPTED);
            }
            Err(e) => return Err(e.into()),
        };
    let testcases = testcases_dir(&args.common, &root);
    let mut suites = Vec::new();
    let (mut before_filter, mut after_filter) = (0, 0);
    for problem in problem::all() {
        let players: Vec<_> = found
            .iter()
            .filter(|p| p.problem == problem.id())
            .cloned()
            .collect();
        if players.is_empty() {
            continue;
        }
        let config = problem_config(&scoring, problem.id(), args);
        let env = Env {
            testcases: testcases.clone(),
            config,
            secret: args.secret.secret.clone(),
        };
        let mut cases = if args.no_fixed {
            Vec::new()
        } else {
            problem.fixed_cases(&env)?
        };
        let seeds = spec
            .resolve(&env.config.examples)
            .map_err(|e| UsageError(format!("{}: {e}", problem.id())))?;
        cases.extend(seeds.into_iter().map(CaseKey::Seed));
        before_filter += cases.len();
        let (cases, applied) =
            crate::compare::filter_cases(&*problem, &env, cases, &history.flags().filters)?;
        after_filter += cases.len();
        filter_applied
            .iter_mut()
            .zip(applied)
            .for_each(|(a, b)| *a |= b);
        // Test data the harness cannot read is the user's to fix before anything runs.
        if let Some(first) = cases.first() {
            problem.case(first, &env)?;
        }
        suites.push(Suite {
            problem,
            env,
            cases,
            players,
            done: Default::default(),
        });
    }
    if let Some(i) = filter_applied.iter().position(|a| !a) {
        return Err(UsageError(format!(
            "--filter {}: not a parameter of any problem of this run",
            args.compare.filter[i]
        )));
    }
    // A filter that leaves nothing would make an empty run (and the next "previous run").
    if after_filter == 0 && before_filter > 0 {
        let filters: Vec<String> = args
            .compare
            .filter
            .iter()
            .map(|f| format!("--filter {f}"))
            .collect();
        return Err(UsageError(format!(
            "{}: no test of this run matches (0 of {before_filter}); `harness gen` shows a \
             seed's parameters",
            filters.join(" ")
        )));
    }
    // A --group-by no problem of the run can evaluate is a mistake to report before playing.
    for group in history.flags().groups.iter().flatten() {
        let known = suites.iter().any(|suite| {
            let mut columns: crate::compare::group::Columns = suite
                .problem
                .param_names()
                .iter()
                .map(|n| (n.to_string(), String::new()))
                .collect();
            for extra in ["moves", "think_ms"] {
                columns.insert(extra.to_string(), String::new());
            }
            group.expr.applies(suite.problem.id(), &columns)
        });
        if !known {
            return Err(UsageError(format!(
                "--group-by {}: not a parameter of any problem of this run",
                group.expr.text
            )));
        }
    }
    let mut progress_notes: Vec<String> = skipped
        .iter()
        .map(|s| format!("skipped player {}: {}", s.name, s.reason))
        .collect();
    if suites.is_empty() {
        for note in &progress_notes {
            eprintln!("{note}");
        }
        return Err(UsageError("no player plays the chosen problem".into()));
    }
    let threads = args
        .threads
        .unwrap_or_else(|| crate::os::allowed_cpus().len())
        .max(1);
    let containment = runner::Containment {
        isolation: crate::sandbox::Isolation::prepare(
            args.sandbox.unwrap_or(scoring.harness.sandbox),
            args.cgroup.unwrap_or(scoring.harness.cgroup),
            &scoring.harness.sandbox_bind,
        )?,
        base_env: runner::base_env(&scoring.harness.pass_env),
        core_dumps: args.core_dumps,
    };
    progress_notes.extend(containment.isolation.notes.iter().cloned());
    for suite in &mut suites {
        let c = &mut suite.env.config;
        let (cap, note) = crate::sandbox::probe::process_cap(threads, c.max_procs);
        c.max_procs = cap;
        progress_notes.extend(note.map(|n| format!("{}: {n}", suite.problem.id())));
        let note =
            crate::sandbox::probe::capacity_note(threads, c.memory_limit << 20, c.max_disk << 20);
        progress_notes.extend(note.map(|n| format!("{}: {n}", suite.problem.id())));
    }
    let pin_cpus = scoring.harness.pin_cpus && !args.no_pin;
    let problems: Vec<(String, Vec<String>)> = suites
        .iter()
        .map(|s| {
            (
                s.problem.id().to_string(),
                s.problem
                    .param_names()
                    .iter()
                    .map(|p| p.to_string())
                    .collect(),
            )
        })
        .collect();
    let (mut files, prior) = match &resume_dir {
        None => (
            RunFiles::create(
                &results,
                &problems,
                &run_toml(args, &suites, threads, &containment, &scoring),
            )
            .map_err(|e| UsageError(format!("cannot write results: {e}")))?,
            Vec::new(),
        ),
        Some(dir) => {
            // Rows of players whose program changed since, and ERR rows, are run again.
            let current = |problem: &str, player: &str, hash: &str| {
                suites.iter().any(|s| {
                    s.problem.id() == problem
                        && s.players.iter().any(|p| p.name == player && p.hash == hash)
                })
            };
            let changed = std::cell::RefCell::new(std::collections::BTreeMap::new());
            // ERR rows were the harness's or the machine's fault, never the player's: rerun.
            let reopened = RunFiles::reopen(dir, &problems, |row| {
                let same = current(&row.problem, &row.player, &row.player_hash);
                let present = suites
                    .iter()
                    .any(|s| s.players.iter().any(|p| p.name == row.player));
                if !same && present {
                    *changed.borrow_mut().entry(row.player.clone()).or_insert(0) += 1;
                }
                row.verdict != crate::verdict::Verdict::HarnessError && same
            })
            .map_err(|e| UsageError(format!("--resume: {e}")))?;
            for (player, tests) in changed.into_inner() {
                progress_notes.push(format!(
                    "resuming: player {player} changed since the run began (new hash): its \
                     {tests} finished tests run again"
                ));
            }
            reopened
        }
    };
    files.transcripts = args.transcripts.unwrap_or(scoring.harness.transcripts);
    if let Err(e) = builds.write_log(&files.dir) {
        eprintln!("warning: cannot keep the build log: {e}");
    }
    for row in &prior {
        if let Some(suite) = suites.iter_mut().find(|s| s.problem.id() == row.problem) {
            suite
                .done
                .insert((CaseKey::parse(&row.case), row.player.clone()));
        }
    }
    let planned: u64 = suites
        .iter()
        .map(|s| (s.cases.len() * s.players.len()) as u64)
        .sum();
    let rosters: Vec<(String, Vec<String>)> = suites
        .iter()
        .map(|s| {
            (
                s.problem.id().to_string(),
                s.players.iter().map(|p| p.name.clone()).collect(),
            )
        })
        .collect();
    let mut summary = Summary::new(&rosters, planned);
    for row in &prior {
        summary.record(
            &row.problem,
            &row.player,
            row.score,
            row.verdict,
            std::time::Duration::from_millis(row.think_ms),
        );
    }
    let mut progress = Progress::new(planned - summary.finished());
    if !prior.is_empty() {
        progress.note(&format!(
            "resuming {}: {} of {planned} tests already done",
            files.id,
            summary.finished()
        ));
    }
    for note in progress_notes.drain(..) {
        progress.note(&note);
    }
    let (tx, rx) = mpsc::channel();
    let mut write_error = None;
    let options = RunOptions { threads, pin_cpus };
    let complete = std::thread::scope(|scope| {
        let suites = &suites;
        // The runner owns the only sender: the loop below ends when the runner is done.
        let containment = &containment;
        let runner = scope.spawn(move || runner::run(suites, containment, options, &tx));
        for Event::Finished(result) in rx.iter() {
            summary.add(&result);
            progress.on_result(&result);
            if write_error.is_none() {
                if let Err(e) = files.on_result(&result) {
                    // Results that cannot be kept: stop the run rather than lose more.
                    write_error = Some(e);
                    crate::os::request_interrupt();
                }
            }
        }
        runner.join().expect("runner thread")
    });
    progress.finish();
    let partial = !complete;
    let compared = history.finish(&results, &files.id, &mut summary);
    if let Err(e) = files.finish(&summary, partial) {
        write_error.get_or_insert(e);
    }
    let envs: Vec<_> = suites
        .iter()
        .map(|s| (s.problem.id().to_string(), s.env.clone()))
        .collect();
    crate::replay::after_run(&files.dir, &envs);
    let table = report::table::render(&summary, std::io::stdout().is_terminal(), partial);
    print!("{table}");
    for p in found.iter().filter(|p| p.changed_during_run()) {
        println!(
            "{}: {} (its later tests are ERR; run it again)",
            p.name,
            players::CHANGED
        );
    }
    match compared {
        Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
        Err(e) => eprintln!("warning: no comparison: {e}"),
    }
    println!("isolation: {}", containment.isolation.describe());
    println!("results: {}", files.dir.display());
    let _ = std::io::stdout().flush();
    if let Some(e) = write_error {
        eprintln!("error: cannot write results: {e}");
        return Ok(exit::HARNESS_ERROR);
    }
    if partial {
        let mut resume = format!("harness --resume {}", files.id);
        if args.results.is_some() {
            resume.push_str(&format!(" --results {}", results.display()));
        }
        println!("interrupted: to finish this run, {resume}");
        return Ok(exit::INTERRUPTED);
    }
    if summary.harness_errors() > 0 {
        return Ok(exit::HARNESS_ERROR);
    }
    Ok(exit::OK)
}

/// What was run, kept beside the results so a run can be understood and compared later.
fn run_toml(
    args: &RunArgs,
    suites: &[Suite],
    threads: usize,
    containment: &runner::Containment,
    scoring: &Scoring,
) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "harness-version = {:?}\ncommand = {:?}\nthreads = {threads}\nisolation = {:?}\npass-env = {:?}\ntranscripts = {:?}\n",
        env!("CARGO_PKG_VERSION"),
        crate::secret::redact_args(std::env::args()).join(" "),
        containment.isolation.describe(),
        scoring.harness.pass_env,
        args.transcripts.unwrap_or(scoring.harness.transcripts).name(),
    ));
    let recorded = RecordedArgs {
        players: args
            .players
            .iter()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
            .collect(),
        seeds: args.seeds.clone(),
        problem: args.problem.clone(),
        time_limit: args.time_limit,
        memory_limit: args.memory_limit,
        sandbox: args.sandbox,
        cgroup: args.cgroup,
        secret_fingerprint: args
            .secret
            .secret
            .as_ref()
            .map(|s| s.fingerprint().to_string()),
        transcripts: args.transcripts,
    };
    s.push_str("\n[args]\n");
    s.push_str(&toml::to_string(&recorded).unwrap_or_default());
    for suite in suites {
        let c = &suite.env.config;
        s.push_str(&format!(
            "\n[problem.{}]\ntime-limit = {}\nmemory-limit = {}\nmove-cap = {}\ncases = {}\n",
            suite.problem.id(),
            c.time_limit,
            c.memory_limit,
            c.move_cap,
            suite.cases.len()
        ));
        for p in &suite.players {
            s.push_str(&format!(
                "[problem.{}.players.{:?}]\nsource = {:?}\nhash = {:?}\nhash-covers = {:?}\npass-env = {:?}\nenv = {:?}\n",
                suite.problem.id(),
                p.name,
                p.source.display().to_string(),
                p.hash,
                players::hash_covers(p),
                p.pass_env,
                p.env
                    .iter()
                    .filter(|(k, _)| !p.pass_env.contains(k))
                    .map(|(k, _)| k.as_str())
                    .collect::<Vec<_>>(),
            ));
        }
    }
    s
}

/// `harness doctor`: what isolation the machine offers, and what a run will use.
fn doctor(args: &crate::cli::DoctorArgs) -> Result<u8, UsageError> {
    let (scoring, _) = load_config(&args.common)?;
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
            "  yes  cgroup per test               {} ({})",
            groups.describe(),
            groups.location()
        ),
        Err(why) => {
            println!("  NO   cgroup per test               {why}");
            println!("        to enable: run as root with cgroup v1 memory and pids mounted, or from a cgroup v2 subtree delegated to you (e.g. `systemd-run --user --scope -p Delegate=yes harness ...`)");
        }
    }
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
        }
        Err(e) => println!(
            "
a run here would stop: {e}"
        ),
    }
    Ok(exit::OK)
}

fn gen(args: &GenArgs) -> Result<u8, UsageError> {
    let (scoring, root) = load_config(&args.common)?;
    let problem = find_problem(&args.problem)?;
    let env = Env {
        testcases: testcases_dir(&args.common, &root),
        config: scoring.problem(problem.id()),
        secret: args.secret.secret.clone(),
    };
    let game = problem.case(&CaseKey::parse(&args.seed), &env)?;
    print!("{}", game.describe());
    Ok(exit::OK)
}

fn solve(args: &SolveArgs) -> Result<u8, UsageError> {
    let problem = find_problem(&args.problem)?;
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| UsageError(format!("cannot read stdin: {e}")))?;
    match problem.solve(&input) {
        None => Err(UsageError(format!(
            "{} is interactive: it has no single answer to solve",
            problem.id()
        ))),
        Some(Err(why)) => Err(UsageError(format!("invalid {} input: {why}", problem.id()))),
        Some(Ok(answer)) => {
            print!("{answer}");
            Ok(exit::OK)
        }
    }
}
