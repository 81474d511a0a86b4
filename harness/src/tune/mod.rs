//! `harness tune`: finds better values of a player's declared parameters.
//!
//! ```text
//! player.toml / Cargo.toml [params] ─► params ─┐
//! --seeds (tuning) ────────────────────────────┼─► search: trials on the run's threads,
//!                                              │     tpe samples, the pruner stops bad ones;
//!                                              │     each (values, seed) is one test through
//!                                              │     runner::run_one (sandbox, limits, verdicts)
//! --holdout (validation) ──► best vs defaults ─┴─► compare::stats ─► files, page, screen
//! ```
//!
//! This module owns the command: it reads the settings, finds and builds the player like a
//! run does, sets up containment like a run does, and drives the pieces. It writes only
//! under `results/tune-<id>/` ([`files`]).

pub(crate) mod files;
pub(crate) mod page;
pub(crate) mod params;
pub(crate) mod search;
pub(crate) mod tpe;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::app::{find_problem, load_config, testcases_dir, UsageError};
use crate::cli::TuneArgs;
use crate::compare::stats;
use crate::exit;
use crate::players::{self, Player};
use crate::problem::{self, CaseKey, Env, Objective};
use crate::runner::{self, Containment, Suite};
use crate::seeds::SeedSpec;
use files::{TuneFiles, ValidationRow};
use params::{Param, Value};
use search::{Plan, Pruner, SeedScore, Trial};

/// Defaults of the command's settings.
const SEEDS: &str = "1..50";
const HOLDOUT: &str = "1001..1200";
const TRIALS: usize = 100;
const PRUNE_AFTER: usize = 10;
const PRUNE_P: f64 = 0.1;

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
}

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RecordedTune {
    args: Recorded,
    player_hash: String,
}

/// The settings of a new tuning, from the command line and the defaults.
fn settings(args: &TuneArgs) -> Result<Recorded, UsageError> {
    let player = args
        .player
        .clone()
        .ok_or_else(|| UsageError("tune: name the player to tune (or --resume TUNE-ID)".into()))?;
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
    })
}

/// The settings recorded for a tuning being resumed; only `--trials`, `--threads` and the
/// results folder may be given again.
fn resumed(args: &TuneArgs, dir: &Path) -> Result<(Recorded, String), UsageError> {
    let path = dir.join("tune.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        UsageError(format!(
            "--resume: cannot read {}: {e} (is the id right? see results/tune-*)",
            path.display()
        ))
    })?;
    let recorded: RecordedTune = toml::from_str(&text)
        .map_err(|e| UsageError(format!("--resume: {}: {e}", path.display())))?;
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
    ];
    if let Some((_, flag)) = fixed.iter().find(|(given, _)| *given) {
        return Err(UsageError(format!(
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
fn seed_list(flag: &str, text: &str, examples: &str) -> Result<Vec<u64>, UsageError> {
    let seeds = SeedSpec::parse(text)
        .and_then(|s| s.resolve(examples))
        .map_err(|e| UsageError(format!("{flag}: {e}")))?;
    if seeds.is_empty() {
        return Err(UsageError(format!("{flag} {text}: no seeds")));
    }
    Ok(seeds)
}

/// The held-out seeds, checked to share none with the tuning seeds.
pub(crate) fn split(
    seeds: &str,
    holdout: &str,
    examples: &str,
) -> Result<(Vec<u64>, Vec<u64>), UsageError> {
    let tuning = seed_list("--seeds", seeds, examples)?;
    let held = seed_list("--holdout", holdout, examples)?;
    let common: Vec<String> = held
        .iter()
        .filter(|s| tuning.contains(s))
        .take(5)
        .map(u64::to_string)
        .collect();
    if !common.is_empty() {
        return Err(UsageError(format!(
            "--holdout {holdout} shares seeds with --seeds {seeds} (e.g. {}): held-out seeds \
             must not be used in tuning",
            common.join(", ")
        )));
    }
    Ok((tuning, held))
}

/// `harness tune`.
pub fn main(args: &TuneArgs) -> Result<u8, UsageError> {
    crate::os::install_interrupt_handler()?;
    let (scoring, root) = load_config(&args.common)?;
    let results = args
        .results
        .clone()
        .unwrap_or_else(|| root.join(&scoring.harness.results));
    let resume_dir = args.resume.as_ref().map(|id| results.join(id));
    let (settings, recorded_hash) = match &resume_dir {
        Some(dir) => {
            let (s, h) = resumed(args, dir)?;
            (s, Some(h))
        }
        None => (settings(args)?, None),
    };
    if args.threads == Some(0) {
        return Err(UsageError(
            "--threads 0: at least one thread is needed".into(),
        ));
    }
    if let Some(t) = settings.time_limit {
        if !(t > 0.0 && t.is_finite()) {
            return Err(UsageError(format!(
                "--time-limit {t}: must be a positive number of seconds"
            )));
        }
    }
    if settings.trials == 0 {
        return Err(UsageError(
            "--trials 0: at least one trial is needed".into(),
        ));
    }
    if !(settings.prune_p > 0.0 && settings.prune_p < 1.0) {
        return Err(UsageError(format!(
            "--prune-p {}: must be between 0 and 1",
            settings.prune_p
        )));
    }
    if let Some(id) = &settings.problem {
        find_problem(id)?;
    }
    let ids = problem::ids();
    let build_timeout = std::time::Duration::from_secs_f64(scoring.harness.build_timeout);
    let mut builds = crate::build::Builds::new(build_timeout);
    let found = players::discover(
        std::slice::from_ref(&settings.player),
        settings.problem.as_deref(),
        &ids,
        &mut builds,
    );
    let player = match found {
        Ok((mut found, skipped)) => match found.pop() {
            Some(player) => player,
            None => {
                let why = skipped.first().map_or(String::new(), |s| s.reason.clone());
                return Err(UsageError(format!("{}: {why}", settings.player.display())));
            }
        },
        Err(e) if crate::os::interrupted() => {
            eprintln!("interrupted: {e}");
            return Ok(exit::INTERRUPTED);
        }
        Err(e) => return Err(e.into()),
    };
    let params = params::declared(&player)?;
    if params.is_empty() {
        return Err(UsageError(format!(
            "player {}: declares no parameters to tune (add [params] to its player.toml, or \
             [package.metadata.harness.params] to its Cargo.toml; see README \"Tuning\")",
            settings.player.display()
        )));
    }
    if let Some(hash) = &recorded_hash {
        if *hash != player.hash {
            return Err(UsageError(format!(
                "--resume: player {} changed since the tuning began (hash {hash}, now {}): its \
                 scores would mix two programs; start a new tuning",
                player.name, player.hash
            )));
        }
    }
    let problem = find_problem(&player.problem)?;
    let mut config = scoring.problem(problem.id());
    if let Some(t) = settings.time_limit {
        config.time_limit = t;
    }
    if let Some(m) = settings.memory_limit {
        config.memory_limit = m;
    }
    let sign = match config.objective.unwrap_or(problem.objective()) {
        Objective::Maximize => 1.0,
        Objective::Minimize => -1.0,
    };
    let (seeds, holdout) = split(&settings.seeds, &settings.holdout, &config.examples)?;
    let threads = args
        .threads
        .unwrap_or_else(|| crate::os::allowed_cpus().len())
        .max(1);
    let env = Env {
        testcases: testcases_dir(&args.common, &root),
        config,
        secret: None,
    };
    problem.case(&CaseKey::Seed(seeds[0]), &env)?;
    let containment = Containment {
        isolation: crate::sandbox::Isolation::prepare(
            settings.sandbox.unwrap_or(scoring.harness.sandbox),
            settings.cgroup.unwrap_or(scoring.harness.cgroup),
            &scoring.harness.sandbox_bind,
        )?,
        base_env: runner::base_env(&scoring.harness.pass_env),
        core_dumps: false,
    };
    let mut notes: Vec<String> = containment.isolation.notes.clone();
    let mut suite = Suite {
        problem,
        env,
        cases: Vec::new(),
        players: vec![player.clone()],
        done: Default::default(),
    };
    let c = &mut suite.env.config;
    let (cap, note) = crate::sandbox::probe::process_cap(threads, c.max_procs);
    c.max_procs = cap;
    notes.extend(note);
    notes.extend(crate::sandbox::probe::capacity_note(
        threads,
        c.memory_limit << 20,
        c.max_disk << 20,
    ));
    let (mut files, prior, prior_validation) = match &resume_dir {
        None => {
            let toml = tune_toml(&settings, &player, &params, &containment);
            let files = TuneFiles::create(&results, &toml, &params, sign)
                .map_err(|e| UsageError(format!("cannot write results: {e}")))?;
            (files, Vec::new(), Vec::new())
        }
        Some(dir) => TuneFiles::reopen(dir, &params, &seeds, sign)
            .map_err(|e| UsageError(format!("--resume: {e}")))?,
    };
    if let Err(e) = builds.write_log(&files.dir) {
        eprintln!("warning: cannot keep the build log: {e}");
    }
    let pin = scoring.harness.pin_cpus && !args.no_pin;
    println!(
        "tuning {} ({}): {} parameters, {} trials on {} seeds ({}), {} threads; held-out seeds \
         {} ({})",
        player.name,
        suite.problem.id(),
        params.len(),
        settings.trials,
        seeds.len(),
        settings.seeds,
        threads,
        holdout.len(),
        settings.holdout
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
    for note in notes {
        println!("note: {note}");
    }
    println!("isolation: {}", containment.isolation.describe());
    println!("results: {}", files.dir.display());
    let _ = std::io::stdout().flush();
    files.on_line = Box::new(|line| {
        println!("{line}");
        let _ = std::io::stdout().flush();
    });
    let plan = Plan {
        params: &params,
        seeds: &seeds,
        trials: settings.trials,
        threads,
        sampler: tpe::Tpe::default(),
        pruner: Pruner {
            first: settings.prune_after,
            p: settings.prune_p,
        },
        sampler_seed: settings.sampler_seed,
        sign,
    };
    let cpus = crate::os::allowed_cpus();
    let next_cpu = AtomicUsize::new(0);
    let play = |values: &[Value], seed: u64| {
        pin_once(pin, &cpus, &next_cpu);
        play_one(&suite, &containment, &player, &params, values, seed)
    };
    let (trials, complete) = search::run(&plan, prior, &mut files, play);
    let mut outcome = Outcome {
        trials: &trials,
        validation: prior_validation,
        summary: None,
    };
    let best = search::best(&trials, sign);
    let defaults = params::defaults(&params);
    let same = best.is_some_and(|b| trials[b].values == defaults);
    if complete && !same {
        if let Some(best) = best {
            outcome.validation = validate(
                &mut files,
                ValidationPlan {
                    params: &params,
                    best: &trials[best].values,
                    holdout: &holdout,
                    threads,
                    pin,
                },
                outcome.validation,
                &play_validation(&suite, &containment, &player, &params),
            );
        }
    }
    crate::sandbox::reap_all(std::time::Duration::from_secs(5));
    let finished = complete && !crate::os::interrupted();
    if finished && !same {
        outcome.summary = best.map(|_| summarize(&outcome.validation, sign));
    }
    let written = write_outcome(&files, &params, &outcome, best, &settings, &holdout);
    print_outcome(&params, &outcome, best, finished);
    println!("results: {}", files.dir.display());
    if let Some(e) = files.error.take().or(written.err()) {
        eprintln!("error: cannot write results: {e}");
        return Ok(exit::HARNESS_ERROR);
    }
    if !finished {
        let mut resume = format!("harness tune --resume {}", files.id);
        if args.results.is_some() {
            resume.push_str(&format!(" --results {}", results.display()));
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
fn pin_once(pin: bool, cpus: &[usize], next: &AtomicUsize) {
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

fn play_validation<'a>(
    suite: &'a Suite,
    containment: &'a Containment,
    player: &'a Player,
    params: &'a [Param],
) -> impl Fn(&[Value], u64) -> Option<SeedScore> + Sync + 'a {
    move |values, seed| play_one(suite, containment, player, params, values, seed)
}

struct ValidationPlan<'a> {
    params: &'a [Param],
    best: &'a [Value],
    holdout: &'a [u64],
    threads: usize,
    pin: bool,
}

/// Plays the defaults and the best values on every held-out seed (those not already in
/// `kept`), on the run's threads. Returns every validation row.
fn validate<F>(
    files: &mut TuneFiles,
    plan: ValidationPlan,
    kept: Vec<ValidationRow>,
    play: &F,
) -> Vec<ValidationRow>
where
    F: Fn(&[Value], u64) -> Option<SeedScore> + Sync,
{
    let defaults = params::defaults(plan.params);
    let arms = [("default", defaults), ("best", plan.best.to_vec())];
    // Rows of another best (a resumed tuning that found a better one) are played again.
    let mut kept: Vec<ValidationRow> = kept
        .into_iter()
        .filter(|r| arms.iter().any(|(a, v)| r.arm == *a && r.values == *v))
        .collect();
    let jobs: Vec<(usize, u64)> = plan
        .holdout
        .iter()
        .flat_map(|&seed| [(0, seed), (1, seed)])
        .filter(|&(arm, seed)| !kept.iter().any(|r| r.arm == arms[arm].0 && r.seed == seed))
        .collect();
    if !jobs.is_empty() {
        println!(
            "validating on {} held-out seeds: the defaults and the best ({} tests)",
            plan.holdout.len(),
            jobs.len()
        );
        let _ = std::io::stdout().flush();
    }
    let next = AtomicUsize::new(0);
    let rows = Mutex::new((files, Vec::new()));
    let cpus = crate::os::allowed_cpus();
    let next_cpu = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..plan.threads.max(1) {
            scope.spawn(|| loop {
                pin_once(plan.pin, &cpus, &next_cpu);
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(arm, seed)) = jobs.get(i) else {
                    return;
                };
                if crate::os::interrupted() {
                    return;
                }
                let (name, values) = &arms[arm];
                let Some(score) = play(values, seed) else {
                    return;
                };
                let row = ValidationRow {
                    arm: name.to_string(),
                    seed,
                    values: values.clone(),
                    score,
                };
                let mut guard = rows.lock().expect("rows");
                guard.0.on_validation(&row);
                guard.1.push(row);
            });
        }
    });
    kept.extend(rows.into_inner().expect("rows").1);
    kept
}

/// The validation's verdict: best against defaults on the held-out seeds both played.
#[derive(Clone, Debug)]
pub(crate) struct Summary {
    pub seeds: usize,
    pub default_mean: f64,
    pub best_mean: f64,
    /// Of the differences best - default (signed: larger is better).
    pub interval: stats::Interval,
    pub sign: stats::SignTest,
    pub wilcoxon: stats::Wilcoxon,
    /// Held-out tests that were not OK, per arm (default, best).
    pub failures: (usize, usize),
}

fn summarize(rows: &[ValidationRow], sign: f64) -> Summary {
    let of = |arm: &str| -> std::collections::BTreeMap<u64, &SeedScore> {
        rows.iter()
            .filter(|r| r.arm == arm)
            .map(|r| (r.seed, &r.score))
            .collect()
    };
    let (d, b) = (of("default"), of("best"));
    let pairs: Vec<(f64, f64)> = d
        .iter()
        .filter_map(|(seed, s)| b.get(seed).map(|t| (s.score, t.score)))
        .collect();
    let diffs: Vec<f64> = pairs.iter().map(|(d, b)| sign * (b - d)).collect();
    let n = pairs.len().max(1) as f64;
    Summary {
        seeds: pairs.len(),
        default_mean: pairs.iter().map(|p| p.0).sum::<f64>() / n,
        best_mean: pairs.iter().map(|p| p.1).sum::<f64>() / n,
        interval: stats::bootstrap_mean(&diffs, 1),
        sign: stats::sign_test(&diffs),
        wilcoxon: stats::wilcoxon(&diffs),
        failures: (
            d.values()
                .filter(|s| s.verdict != crate::verdict::Verdict::Ok)
                .count(),
            b.values()
                .filter(|s| s.verdict != crate::verdict::Verdict::Ok)
                .count(),
        ),
    }
}

/// What a tuning ends with.
pub(crate) struct Outcome<'a> {
    pub trials: &'a [Trial],
    pub validation: Vec<ValidationRow>,
    pub summary: Option<Summary>,
}

/// The lines that say how the best did against the defaults on the held-out seeds.
pub(crate) fn summary_lines(s: &Summary) -> Vec<String> {
    let method = match s.wilcoxon.method {
        stats::WilcoxonMethod::Exact => "exact",
        stats::WilcoxonMethod::Normal => "normal approx.",
    };
    let relative = if s.default_mean != 0.0 {
        format!(
            " ({:+.2}%)",
            100.0 * (s.best_mean - s.default_mean) / s.default_mean.abs()
        )
    } else {
        String::new()
    };
    let mut lines = vec![
        format!(
            "held-out seeds: {}; mean score: defaults {:.4}, best {:.4}{relative}",
            s.seeds, s.default_mean, s.best_mean
        ),
        format!(
            "best vs defaults: {} wins, {} ties, {} losses; mean difference {:+.4} (95% CI \
             {:+.4}..{:+.4}); sign p = {}, Wilcoxon p = {} ({method})",
            s.sign.wins,
            s.sign.ties,
            s.sign.losses,
            s.interval.mean,
            s.interval.low,
            s.interval.high,
            p_value(s.sign.p),
            p_value(s.wilcoxon.p)
        ),
    ];
    if s.failures != (0, 0) {
        lines.push(format!(
            "tests not OK on held-out seeds: defaults {}, best {}",
            s.failures.0, s.failures.1
        ));
    }
    lines.push(if s.wilcoxon.p < 0.05 && s.interval.mean > 0.0 {
        "the best values are significantly better than the defaults on held-out seeds \
         (Wilcoxon p < 0.05)"
            .into()
    } else if s.wilcoxon.p < 0.05 {
        "the best values are significantly WORSE than the defaults on held-out seeds: the \
         tuning seeds misled the search (use more --seeds)"
            .into()
    } else {
        "no significant difference on held-out seeds (Wilcoxon p >= 0.05): the gain on the \
         tuning seeds may be noise"
            .into()
    });
    lines
}

/// A p-value as people read it: 0.034, 2.1e-5.
pub(crate) fn p_value(p: f64) -> String {
    if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
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
            "# The best trial of this tuning on the tuning seeds ({}).\ntrial = {b}\nmean = {}\n\n[values]\n",
            settings.seeds,
            trial.mean().unwrap_or(0.0)
        );
        for (p, v) in params.iter().zip(&trial.values) {
            s.push_str(&format!("{:?} = {:?}\n", p.name, p.show(*v)));
        }
        s.push_str("\n# As a player.toml `env` table:\n[env]\n");
        for (k, v) in params::env(params, &trial.values) {
            s.push_str(&format!("{k} = {v:?}\n"));
        }
        if let Some(sum) = &outcome.summary {
            s.push_str(&format!(
                "\n[validation]\nholdout = {:?}\nseeds = {}\ndefault-mean = {}\nbest-mean = {}\n\
                 mean-difference = {}\nci-low = {}\nci-high = {}\nwins = {}\nties = {}\nlosses = {}\n\
                 sign-p = {}\nwilcoxon-p = {}\n",
                settings.holdout,
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
        sign: files.sign,
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
        crate::secret::redact_args(std::env::args()).join(" "),
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

/// `harness bench`'s line: the tuner's own cost per trial over 1,000 trials of 50 seeds.
pub(crate) fn bench_line() {
    const TRIALS: usize = 1000;
    const SEEDS: usize = 50;
    match overhead(TRIALS, SEEDS) {
        Ok((per_trial, pruned)) => println!(
            "  tuner (harness tune), {TRIALS} trials x {SEEDS} seeds of a known function: {:.3} ms/trial of its own (TPE sampling, pruning, CSV files; {pruned} pruned)",
            per_trial * 1e3
        ),
        Err(e) => println!("  tuner: cannot measure: {e}"),
    }
}

/// The tuner's own cost per trial, for `harness bench`: `trials` trials of `seeds` seeds
/// each on a known function (no player), with sampling, pruning and every file written as
/// in a real tuning. Returns (seconds per trial, trials pruned).
pub fn overhead(trials: usize, seeds: usize) -> std::io::Result<(f64, usize)> {
    let table: toml::Table = r#"
        a = { kind = "log-float", range = [1.0, 1000.0], default = 10.0 }
        b = { kind = "float", range = [0.0, 60.0], default = 0.0 }
        c = { kind = "int", range = [0, 400], default = 40 }
        d = { kind = "int", range = [1, 120], default = 40 }
        e = { kind = "choice", choices = ["x", "y", "z"], default = "x" }
        f = { kind = "log-float", range = [3.0, 3000.0], default = 100.0 }
    "#
    .parse()
    .expect("a valid table");
    let params =
        params::parse(&table, Path::new("bench"), "params").map_err(std::io::Error::other)?;
    let dir = tempfile::tempdir()?;
    let mut files = TuneFiles::create(dir.path(), "", &params, 1.0)?;
    let seed_list: Vec<u64> = (1..=seeds as u64).collect();
    let plan = Plan {
        params: &params,
        seeds: &seed_list,
        trials,
        threads: 1,
        sampler: tpe::Tpe::default(),
        pruner: Pruner {
            first: PRUNE_AFTER.min(seeds / 2).max(1),
            p: PRUNE_P,
        },
        sampler_seed: 1,
        sign: 1.0,
    };
    let play = |values: &[Value], seed: u64| {
        let x: f64 = params
            .iter()
            .zip(values)
            .map(|(p, v)| {
                let (low, high) = p.bounds();
                let u = (p.coordinate(*v) - low) / (high - low);
                (u - 0.3).powi(2)
            })
            .sum();
        Some(SeedScore {
            verdict: crate::verdict::Verdict::Ok,
            score: 100.0 - 50.0 * x + ((seed * 7919) % 23) as f64,
            think_ms: 0,
        })
    };
    let start = std::time::Instant::now();
    let (done, _) = search::run(&plan, Vec::new(), &mut files, play);
    let elapsed = start.elapsed().as_secs_f64();
    if let Some(e) = files.error.take() {
        return Err(e);
    }
    let pruned = done
        .iter()
        .filter(|t| t.state == search::State::Pruned)
        .count();
    Ok((elapsed / trials as f64, pruned))
}
