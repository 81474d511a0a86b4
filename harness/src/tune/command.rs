//! The command itself: settings (new or recorded), the player and its parameters, the suite
//! and containment a run would have, then the search, the validation and what is written and
//! printed at the end.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::files::{TuneFiles, ValidationRow};
use super::page;
use super::params::{self, Param, Value};
use super::search::{self, Plan, Pruner, SeedScore, Trial};
use super::validate::{summarize, summary_lines, validate, Summary, ValidationPlan};
use super::yardstick::Yardstick;
use crate::cli::TuneArgs;
use crate::context::{find_problem, Context};
use crate::error::{Classify, Error};
use crate::exit;
use crate::players::{self, Player};
use crate::problem::{self, CaseKey, Env};
use crate::runner::{self, Containment, Suite};
use crate::seeds::SeedSpec;
/// Defaults of the command's settings.
const SEEDS: &str = "1..50";
const HOLDOUT: &str = "1001..1200";
const TRIALS: usize = 100;
pub(super) const PRUNE_AFTER: usize = 10;
pub(super) const PRUNE_P: f64 = 0.1;

/// What a tuning was asked to do, kept in its `tune.toml` so that `--resume` can finish it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Recorded {
    player: PathBuf,
    problem: Option<String>,
    seeds: String,
    holdout: String,
    trials: usize,
    prune_after: usize,
    prune_p: f64,
    sampler_seed: u64,
    time_limit: Option<f64>,
    memory_limit: Option<u64>,
    sandbox: Option<crate::sandbox::Want>,
    cgroup: Option<crate::sandbox::Want>,
    /// `--rank-by` (absent: the problem's `rank-by`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rank_by: Option<crate::config::RankBy>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RecordedTune {
    args: Recorded,
    player_hash: String,
}

/// The settings of a new tuning, from the command line and the defaults.
fn settings(args: &TuneArgs) -> Result<Recorded, Error> {
    let player = args.player.clone().ok_or_else(|| {
        Error::Usage("tune: name the player to tune (or --resume TUNE-ID)".into())
    })?;
    Ok(Recorded {
        player: std::fs::canonicalize(&player).unwrap_or(player),
        problem: args.problem.clone(),
        seeds: args.seeds.clone().unwrap_or_else(|| SEEDS.into()),
        holdout: args.holdout.clone().unwrap_or_else(|| HOLDOUT.into()),
        trials: args.trials.unwrap_or(TRIALS),
        prune_after: args.prune_after.unwrap_or(PRUNE_AFTER),
        prune_p: args.prune_p.unwrap_or(PRUNE_P),
        sampler_seed: args.sampler_seed.unwrap_or(1),
        time_limit: args.time_limit,
        memory_limit: args.memory_limit,
        sandbox: args.sandbox,
        cgroup: args.cgroup,
        rank_by: args.rank_by,
    })
}

/// The settings recorded for a tuning being resumed; only `--trials`, `--threads` and the
/// results folder may be given again.
fn resumed(args: &TuneArgs, dir: &Path) -> Result<(Recorded, String), Error> {
    let path = dir.join("tune.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::Usage(format!(
            "--resume: cannot read {}: {e} (is the id right? see results/tune-*)",
            path.display()
        ))
    })?;
    let recorded: RecordedTune = toml::from_str(&text)
        .map_err(|e| Error::Usage(format!("--resume: {}: {e}", path.display())))?;
    let fixed = [
        (args.player.is_some(), "PLAYER"),
        (args.seeds.is_some(), "--seeds"),
        (args.holdout.is_some(), "--holdout"),
        (args.problem.is_some(), "--problem"),
        (args.sampler_seed.is_some(), "--sampler-seed"),
        (args.prune_after.is_some(), "--prune-after"),
        (args.prune_p.is_some(), "--prune-p"),
        (args.time_limit.is_some(), "--time-limit"),
        (args.memory_limit.is_some(), "--memory-limit"),
        (args.rank_by.is_some(), "--rank-by"),
    ];
    if let Some((_, flag)) = fixed.iter().find(|(given, _)| *given) {
        return Err(Error::Usage(format!(
            "--resume: {flag} is recorded in {} and cannot change; only --trials and \
             --threads may be given",
            path.display()
        )));
    }
    let mut r = recorded.args;
    r.trials = args.trials.unwrap_or(r.trials);
    r.sandbox = args.sandbox.or(r.sandbox);
    r.cgroup = args.cgroup.or(r.cgroup);
    Ok((r, recorded.player_hash))
}

/// Resolves a seed list that may not name `examples` twice over or be empty.
fn seed_list(flag: &str, text: &str, examples: &str) -> Result<Vec<u64>, Error> {
    let seeds = SeedSpec::parse(text)
        .and_then(|s| s.resolve(examples))
        .map_err(|e| Error::Usage(format!("{flag}: {e}")))?;
    if seeds.is_empty() {
        return Err(Error::Usage(format!("{flag} {text}: no seeds")));
    }
    Ok(seeds)
}

/// The held-out seeds, checked to share none with the tuning seeds.
pub(crate) fn split(
    seeds: &str,
    holdout: &str,
    examples: &str,
) -> Result<(Vec<u64>, Vec<u64>), Error> {
    let tuning = seed_list("--seeds", seeds, examples)?;
    let held = seed_list("--holdout", holdout, examples)?;
    let common: Vec<String> = held
        .iter()
        .filter(|s| tuning.contains(s))
        .take(5)
        .map(u64::to_string)
        .collect();
    if !common.is_empty() {
        return Err(Error::Usage(format!(
            "--holdout {holdout} shares seeds with --seeds {seeds} (e.g. {}): held-out seeds \
             must not be used in tuning",
            common.join(", ")
        )));
    }
    Ok((tuning, held))
}

/// Everything a tuning needs before its first test.
struct Setup {
    settings: Recorded,
    results: PathBuf,
    player: Player,
    params: Vec<Param>,
    suite: Suite,
    containment: Containment,
    seeds: Vec<u64>,
    holdout: Vec<u64>,
    threads: usize,
    pin: bool,
    /// What trials are judged by.
    yardstick: Yardstick,
    notes: Vec<String>,
    builds: crate::build::Builds,
    cpus: Vec<usize>,
    next_cpu: AtomicUsize,
}

/// `harness tune`.
pub(crate) fn main(args: &TuneArgs) -> Result<u8, Error> {
    crate::os::install_interrupt_handler().fault()?;
    let Some(setup) = setup(args)? else {
        return Ok(exit::INTERRUPTED);
    };
    let (mut files, prior, prior_validation) = open_files(args, &setup)?;
    print_header(&setup, &files, &prior);
    files.on_line = Box::new(|line| {
        println!("{line}");
        let _ = std::io::stdout().flush();
    });
    let plan = Plan {
        params: &setup.params,
        seeds: &setup.seeds,
        trials: setup.settings.trials,
        threads: setup.threads,
        sampler: super::tpe::Tpe::default(),
        pruner: Pruner {
            first: setup.settings.prune_after,
            p: setup.settings.prune_p,
        },
        sampler_seed: setup.settings.sampler_seed,
        yardstick: setup.yardstick,
    };
    let (trials, complete) = search::run(&plan, prior, &mut files, |values, seed| {
        play(&setup, values, seed)
    });
    finish(args, &setup, files, &trials, complete, prior_validation)
}

/// Reads the settings, finds the player and its parameters, and prepares the suite and the
/// containment of its tests. `None` when interrupted during the player's build.
fn setup(args: &TuneArgs) -> Result<Option<Setup>, Error> {
    let context = Context::load(&args.common)?;
    let scoring = &context.scoring;
    let results = context.results(args.results.as_deref());
    let (settings, recorded_hash) = match &args.resume {
        Some(id) => {
            let (s, h) = resumed(args, &results.join(id))?;
            (s, Some(h))
        }
        None => (settings(args)?, None),
    };
    check(args, &settings)?;
    let h = &scoring.harness;
    let mut builds = crate::build::Builds::from_settings(
        h,
        false,
        settings.sandbox.unwrap_or(h.sandbox),
        settings.cgroup.unwrap_or(h.cgroup),
    );
    builds.cache = Some(results.join(".cache").join("builds"));
    let Some((player, params)) = find_player(&settings, recorded_hash, &mut builds)? else {
        return Ok(None);
    };
    let problem = find_problem(&player.problem)?;
    let mut config = scoring.problem(problem.id());
    config.time_limit = settings.time_limit.unwrap_or(config.time_limit);
    config.memory_limit = settings.memory_limit.unwrap_or(config.memory_limit);
    let yardstick = Yardstick {
        objective: config.objective.unwrap_or(problem.objective()),
        rank_by: settings.rank_by.unwrap_or(config.rank_by),
    };
    let (seeds, holdout) = split(&settings.seeds, &settings.holdout, &config.examples)?;
    let threads = args
        .threads
        .unwrap_or_else(|| crate::os::allowed_cpus().len())
        .max(1);
    let env = Env {
        testcases: context.testcases.clone(),
        config,
        secret: None,
    };
    // A judge made of a contest's tools is built first; its tests are made in the trials.
    problem.prepare(&mut builds).map_err(Error::Usage)?;
    // Made again: a contest's tools run from their build.
    let problem = find_problem(&player.problem)?;
    if !problem.tests_made_by_tools() {
        problem.case(&CaseKey::Seed(seeds[0]), &env).usage()?;
    }
    let containment = Containment::prepare(
        settings.sandbox.unwrap_or(scoring.harness.sandbox),
        settings.cgroup.unwrap_or(scoring.harness.cgroup),
        &scoring.harness,
        false,
    )
    .map_err(Error::Usage)?;
    let mut notes: Vec<String> = containment.isolation.notes.clone();
    problem.attach(&containment.isolation);
    let mut suite = Suite {
        problem,
        env,
        cases: Vec::new(),
        players: vec![player.clone()],
        done: Default::default(),
    };
    // The same caps as a run's, for the same number of tests at once.
    notes.extend(suite.fit_to_machine(threads));
    Ok(Some(Setup {
        pin: scoring.harness.pin_cpus && !args.no_pin,
        settings,
        results,
        player,
        params,
        suite,
        containment,
        seeds,
        holdout,
        threads,
        yardstick,
        notes,
        builds,
        cpus: crate::os::allowed_cpus(),
        next_cpu: AtomicUsize::new(0),
    }))
}

/// Flags that no tuning can take.
fn check(args: &TuneArgs, settings: &Recorded) -> Result<(), Error> {
    if args.threads == Some(0) {
        return Err(Error::Usage(
            "--threads 0: at least one thread is needed".into(),
        ));
    }
    if let Some(t) = settings.time_limit {
        if !(t > 0.0 && t.is_finite()) {
            return Err(Error::Usage(format!(
                "--time-limit {t}: must be a positive number of seconds"
            )));
        }
    }
    if settings.trials == 0 {
        return Err(Error::Usage(
            "--trials 0: at least one trial is needed".into(),
        ));
    }
    if !(settings.prune_p > 0.0 && settings.prune_p < 1.0) {
        return Err(Error::Usage(format!(
            "--prune-p {}: must be between 0 and 1",
            settings.prune_p
        )));
    }
    if let Some(id) = &settings.problem {
        find_problem(id)?;
    }
    Ok(())
}

/// The player (built like a run's) and its declared parameters; `None` when the build was
/// interrupted. A player with no parameters, or one that changed since a resumed tuning
/// began, is a usage error.
fn find_player(
    settings: &Recorded,
    recorded_hash: Option<String>,
    builds: &mut crate::build::Builds,
) -> Result<Option<(Player, Vec<Param>)>, Error> {
    let found = players::discover(
        std::slice::from_ref(&settings.player),
        settings.problem.as_deref(),
        &problem::ids(),
        builds,
    );
    let player = match found {
        Ok((mut found, skipped)) => match found.pop() {
            Some(player) => player,
            None => {
                let why = skipped.first().map_or(String::new(), |s| s.reason.clone());
                return Err(Error::Usage(format!(
                    "{}: {why}",
                    settings.player.display()
                )));
            }
        },
        Err(e) if crate::os::interrupted() => {
            eprintln!("interrupted: {e}");
            return Ok(None);
        }
        Err(e) => return Err(Error::usage(e.to_string())),
    };
    let params = params::declared(&player).usage()?;
    if params.is_empty() {
        return Err(Error::Usage(format!(
            "player {}: declares no parameters to tune (add [params] to its player.toml, or \
             [package.metadata.harness.params] to its Cargo.toml; see \
             docs/tuning.md)",
            settings.player.display()
        )));
    }
    if let Some(hash) = recorded_hash.filter(|h| *h != player.hash) {
        return Err(Error::Usage(format!(
            "--resume: player {} changed since the tuning began (hash {hash}, now {}): its \
             scores would mix two programs; start a new tuning",
            player.name, player.hash
        )));
    }
    Ok(Some((player, params)))
}

/// The tuning's folder: a new one, or the resumed one with what it holds.
fn open_files(
    args: &TuneArgs,
    setup: &Setup,
) -> Result<(TuneFiles, Vec<Trial>, Vec<ValidationRow>), Error> {
    let (files, prior, validation) = match &args.resume {
        None => {
            let toml = tune_toml(
                &setup.settings,
                &setup.player,
                &setup.params,
                &setup.containment,
            );
            let files = TuneFiles::create(&setup.results, &toml, &setup.params, setup.yardstick)
                .map_err(|e| Error::Usage(format!("cannot write results: {e}")))?;
            (files, Vec::new(), Vec::new())
        }
        Some(id) => TuneFiles::reopen(
            &setup.results.join(id),
            &setup.params,
            &setup.seeds,
            setup.yardstick,
        )
        .map_err(|e| Error::Usage(format!("--resume: {e}")))?,
    };
    if let Err(e) = setup.builds.write_log(&files.dir) {
        eprintln!("warning: cannot keep the build log: {e}");
    }
    Ok((files, prior, validation))
}

fn print_header(setup: &Setup, files: &TuneFiles, prior: &[Trial]) {
    let s = &setup.settings;
    println!(
        "tuning {} ({}): {} parameters, {} trials on {} seeds ({}), {} thread{}; held-out seeds \
         {} ({})",
        setup.player.name,
        setup.suite.problem.id(),
        setup.params.len(),
        s.trials,
        setup.seeds.len(),
        s.seeds,
        setup.threads,
        if setup.threads == 1 { "" } else { "s" },
        setup.holdout.len(),
        s.holdout
    );
    println!(
        "trials are judged by the {} (rank-by = {:?}), as the leaderboard ranks players",
        setup.yardstick.describe(),
        setup.yardstick.rank_by.name()
    );
    if !prior.is_empty() {
        let finished = prior
            .iter()
            .filter(|t| t.state != search::State::Running)
            .count();
        println!(
            "resuming {}: {finished} of {} trials finished",
            files.id,
            prior.len()
        );
    }
    for note in &setup.notes {
        println!("note: {note}");
    }
    println!("isolation: {}", setup.containment.isolation.describe());
    println!("results: {}", files.dir.display());
    let _ = std::io::stdout().flush();
}

/// One test with these values on the calling worker thread (pinned once, as a run's).
fn play(setup: &Setup, values: &[Value], seed: u64) -> Option<SeedScore> {
    pin_once(setup.pin, &setup.cpus, &setup.next_cpu);
    play_one(
        &setup.suite,
        &setup.containment,
        &setup.player,
        &setup.params,
        values,
        seed,
    )
}

/// After the search: the validation (when the search finished and found something else than
/// the defaults), the files and the screen. Returns the exit code.
fn finish(
    args: &TuneArgs,
    setup: &Setup,
    mut files: TuneFiles,
    trials: &[Trial],
    complete: bool,
    prior_validation: Vec<ValidationRow>,
) -> Result<u8, Error> {
    let mut outcome = Outcome {
        trials,
        validation: prior_validation,
        summary: None,
    };
    let best = search::best(trials, setup.yardstick);
    let defaults = params::defaults(&setup.params);
    let same = best.is_some_and(|b| trials[b].values == defaults);
    if let Some(b) = best.filter(|_| complete && !same) {
        let plan = ValidationPlan {
            params: &setup.params,
            best: &trials[b].values,
            holdout: &setup.holdout,
            threads: setup.threads,
            pin: setup.pin,
        };
        let play = |values: &[Value], seed: u64| play(setup, values, seed);
        outcome.validation = validate(&mut files, plan, outcome.validation, &play);
    }
    crate::sandbox::reap_all(std::time::Duration::from_secs(5));
    let finished = complete && !crate::os::interrupted();
    if finished && !same {
        outcome.summary = best.map(|_| summarize(&outcome.validation, setup.yardstick));
    }
    let written = write_outcome(
        &files,
        &setup.params,
        &outcome,
        best,
        &setup.settings,
        &setup.holdout,
    );
    print_outcome(&setup.params, &outcome, best, finished);
    println!("results: {}", files.dir.display());
    if let Some(e) = files.error.take().or(written.err()) {
        eprintln!("error: cannot write results: {e}");
        return Ok(exit::HARNESS_ERROR);
    }
    if !finished {
        let mut resume = format!(
            "{} tune --resume {}",
            crate::invocation::program(),
            files.id
        );
        if args.results.is_some() {
            resume.push_str(&format!(" --results {}", setup.results.display()));
        }
        println!("interrupted: to finish this tuning, {resume}");
        return Ok(exit::INTERRUPTED);
    }
    if best.is_none() {
        println!("no trial played every seed with every test OK: nothing to validate");
        return Ok(exit::HARNESS_ERROR);
    }
    Ok(exit::OK)
}

/// Pins the calling worker thread to the next CPU, once per thread.
pub(super) fn pin_once(pin: bool, cpus: &[usize], next: &AtomicUsize) {
    thread_local! {
        static PINNED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if !pin || cpus.is_empty() || PINNED.with(|p| p.replace(true)) {
        return;
    }
    let i = next.fetch_add(1, Ordering::SeqCst);
    crate::os::pin_current_thread(cpus[i % cpus.len()]);
}

/// The player with a trial's values in its environment (in place of the defaults).
fn with_values(player: &Player, params: &[Param], values: &[Value]) -> Player {
    let mut p = player.clone();
    let vars = params::env(params, values);
    p.env.retain(|(k, _)| !vars.iter().any(|(v, _)| v == k));
    p.env.extend(vars);
    p
}

/// One test of a trial, through the runner like any test of a run; `None` when interrupted.
fn play_one(
    suite: &Suite,
    containment: &Containment,
    player: &Player,
    params: &[Param],
    values: &[Value],
    seed: u64,
) -> Option<SeedScore> {
    let trial_player = with_values(player, params, values);
    let result = runner::run_one(suite, containment, &CaseKey::Seed(seed), &trial_player)?;
    Some(SeedScore {
        verdict: result.outcome.verdict,
        score: result.outcome.score,
        think_ms: result.think.as_millis() as u64,
    })
}

/// What a tuning ends with.
pub(crate) struct Outcome<'a> {
    pub trials: &'a [Trial],
    pub validation: Vec<ValidationRow>,
    pub summary: Option<Summary>,
}

fn print_outcome(params: &[Param], outcome: &Outcome, best: Option<usize>, finished: bool) {
    let t = outcome.trials;
    let count = |s: search::State| t.iter().filter(|x| x.state == s).count();
    println!(
        "\ntrials: {} ({} complete, {} pruned, {} unfinished, {} with ERR)",
        t.len(),
        count(search::State::Complete),
        count(search::State::Pruned),
        count(search::State::Running),
        count(search::State::Error)
    );
    if let Some(b) = best {
        let trial = &t[b];
        println!(
            "best: trial {} with mean {:.4} on the tuning seeds (defaults, trial 0: {})",
            b,
            trial.mean().unwrap_or(0.0),
            t.first()
                .and_then(|d| d.mean().filter(|_| d.eligible()))
                .map_or("not complete".into(), |m| format!("{m:.4}"))
        );
        for (p, v) in params.iter().zip(&trial.values) {
            println!(
                "  {:<20} {:>12}   (default {}; {})",
                p.name,
                p.show(*v),
                p.show(p.default),
                p.var()
            );
        }
        for note in params::edge_notes(params, &trial.values) {
            println!("note: {note}");
        }
    }
    if let Some(s) = &outcome.summary {
        for line in summary_lines(s) {
            println!("{line}");
        }
    } else if finished && best.is_some() {
        println!("the defaults stayed the best trial: nothing to validate");
    }
}

/// `best.toml` and the page.
fn write_outcome(
    files: &TuneFiles,
    params: &[Param],
    outcome: &Outcome,
    best: Option<usize>,
    settings: &Recorded,
    holdout: &[u64],
) -> std::io::Result<()> {
    files.write_trials(outcome.trials)?;
    if let Some(b) = best {
        let trial = &outcome.trials[b];
        let mut s = format!(
            "# The best trial of this tuning on the tuning seeds ({}).\ntrial = {b}\nmean = {}\n",
            settings.seeds,
            trial.mean().unwrap_or(0.0)
        );
        // The parameters whose best value is at an end of the declared range.
        let edges = params::edge_notes(params, &trial.values);
        if !edges.is_empty() {
            s.push_str(&format!("at-edge = {edges:?}\n"));
        }
        s.push_str("\n[values]\n");
        for (p, v) in params.iter().zip(&trial.values) {
            s.push_str(&format!("{:?} = {:?}\n", p.name, p.show(*v)));
        }
        s.push_str("\n# As a player.toml `env` table:\n[env]\n");
        for (k, v) in params::env(params, &trial.values) {
            s.push_str(&format!("{k} = {v:?}\n"));
        }
        if let Some(sum) = &outcome.summary {
            s.push_str(&format!(
                "\n[validation]\nholdout = {:?}\nrank-by = {:?}\nseeds = {}\ndefault-mean = {}\nbest-mean = {}\n\
                 mean-difference = {}\nci-low = {}\nci-high = {}\nwins = {}\nties = {}\nlosses = {}\n\
                 sign-p = {}\nwilcoxon-p = {}\n",
                settings.holdout,
                sum.yardstick.rank_by.name(),
                sum.seeds,
                sum.default_mean,
                sum.best_mean,
                sum.interval.mean,
                sum.interval.low,
                sum.interval.high,
                sum.sign.wins,
                sum.sign.ties,
                sum.sign.losses,
                sum.sign.p,
                sum.wilcoxon.p
            ));
        }
        let path = files.dir.join("best.toml");
        std::fs::write(&path, s)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
    }
    let html = page::render(&page::Page {
        id: &files.id,
        params,
        trials: outcome.trials,
        best,
        summary: outcome.summary.as_ref(),
        holdout: holdout.len(),
        sign: files.yardstick.sign(),
    });
    let path = files.dir.join("tune.html");
    std::fs::write(&path, html)
        .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))
}

/// What was run, kept beside the results.
fn tune_toml(
    settings: &Recorded,
    player: &Player,
    params: &[Param],
    containment: &Containment,
) -> String {
    let mut s = format!(
        "harness-version = {:?}\ncommand = {:?}\nisolation = {:?}\nplayer-name = {:?}\nplayer-hash = {:?}\n",
        env!("CARGO_PKG_VERSION"),
        crate::secret::redacted_command().join(" "),
        containment.isolation.describe(),
        player.name,
        player.hash,
    );
    s.push_str("\n[args]\n");
    s.push_str(&toml::to_string(settings).unwrap_or_default());
    s.push_str("\n# The parameters as declared when the tuning began.\n[params]\n");
    for p in params {
        let kind = match &p.kind {
            params::Kind::Int { low, high } => format!("kind = \"int\", range = [{low}, {high}]"),
            params::Kind::Float { low, high } => {
                format!("kind = \"float\", range = [{low:?}, {high:?}]")
            }
            params::Kind::LogFloat { low, high } => {
                format!("kind = \"log-float\", range = [{low:?}, {high:?}]")
            }
            params::Kind::Choice(words) => format!("kind = \"choice\", choices = {words:?}"),
        };
        s.push_str(&format!(
            "{:?} = {{ {kind}, default = {:?} }}\n",
            p.name,
            p.show(p.default)
        ));
    }
    s
}
