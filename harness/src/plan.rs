//! A run's plan: what will be played, built and checked from the command line,
//! `scoring.toml`, a resumed run's `run.toml` and the players found, before anything runs.
//!
//! Everything here is a pure function of those inputs (it reads `run.toml` and the problems'
//! test data, and runs no process), so every user mistake is found, and named, before the
//! first test: an unknown problem, a seed list that does not parse, a filter that matches no
//! test, a `--group-by` no problem has. [`crate::execute`] then runs the plan.

use std::path::{Path, PathBuf};

use crate::cli::RunArgs;
use crate::compare::group::Columns;
use crate::compare::Flags;
use crate::context::{find_problem, Context};
use crate::error::{Error, Result};
use crate::players::{Player, Skipped};
use crate::problem::{self, CaseKey, Env};
use crate::runner::Suite;
use crate::sandbox::Want;
use crate::seeds::SeedSpec;

/// The run's arguments once a resumed run's are merged in, checked.
#[derive(Clone, Debug)]
pub struct Request {
    pub args: RunArgs,
    /// Where runs are written.
    pub results: PathBuf,
    /// The folder of the run being resumed.
    pub resume: Option<PathBuf>,
    pub seeds: SeedSpec,
    /// `--variant`s: players made of a program and settings given on the command line.
    pub variants: Vec<crate::players::variant::Variant>,
    /// `--shard I/N` and `--run-id`: which part of the run this is, and its folder.
    pub sharding: crate::shard::Sharding,
}

impl Request {
    /// Merges the arguments recorded for a resumed run (those given now win) and checks
    /// what can be checked without the players.
    pub fn new(given: &RunArgs, context: &Context) -> Result<Request> {
        let results = context.results(given.results.as_deref());
        let sharding = crate::shard::Sharding::new(
            given.shard,
            given.run_id.as_deref(),
            given.resume.as_deref(),
        )?;
        let resume = match &given.resume {
            Some(id) => Some(sharding.resume_dir(&results, id)?),
            None => None,
        };
        let args = match &resume {
            Some(dir) => resumed_args(given, dir)?,
            None => given.clone(),
        };
        if let Some(t) = args.time_limit {
            if !(t > 0.0 && t.is_finite()) {
                return Err(Error::usage(format!(
                    "--time-limit {t}: must be a positive number of seconds"
                )));
            }
        }
        if args.threads == Some(0) {
            return Err(Error::usage("--threads 0: at least one thread is needed"));
        }
        if let Some(id) = &args.problem {
            find_problem(id)?;
        }
        let seeds = SeedSpec::parse(args.seeds.as_deref().unwrap_or("examples"))
            .map_err(|e| Error::usage(format!("--seeds: {e}")))?;
        if args.players.is_empty() && args.variant.is_empty() {
            return Err(Error::usage(
                "no players: give --players PATH... (e.g. --players players/*)",
            ));
        }
        let variants =
            crate::players::variant::Variant::parse_all(&args.variant).map_err(Error::Usage)?;
        Ok(Request {
            args,
            results,
            resume,
            seeds,
            variants,
            sharding,
        })
    }
}

/// What a run was asked to do, kept in its `run.toml` so that `--resume` can finish it.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct RecordedArgs {
    pub players: Vec<PathBuf>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variant: Vec<String>,
    pub seeds: Option<String>,
    pub problem: Option<String>,
    pub time_limit: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_by: Option<crate::time_by::TimeBy>,
    pub memory_limit: Option<u64>,
    #[serde(default)]
    pub sandbox: Option<Want>,
    #[serde(default)]
    pub cgroup: Option<Want>,
    /// The fingerprint of the secret key, never the key (`crate::secret`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret_fingerprint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcripts: Option<crate::transcript::Keep>,
}

impl RecordedArgs {
    /// What to record of these arguments (player paths made absolute).
    pub fn of(args: &RunArgs) -> RecordedArgs {
        RecordedArgs {
            players: args
                .players
                .iter()
                .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
                .collect(),
            variant: crate::players::variant::absolute(&args.variant),
            seeds: args.seeds.clone(),
            problem: args.problem.clone(),
            time_limit: args.time_limit,
            time_by: args.time_by,
            memory_limit: args.memory_limit,
            sandbox: args.sandbox,
            cgroup: args.cgroup,
            secret_fingerprint: args
                .secret
                .secret
                .as_ref()
                .map(|s| s.fingerprint().to_string()),
            transcripts: args.transcripts,
        }
    }
}

#[derive(Debug, serde::Deserialize)]
struct RecordedRun {
    args: RecordedArgs,
}

impl Request {
    /// A debugging run (`--verbose`, or resuming one): outside the history of runs (see
    /// [`crate::rundir::Meta::debug`]).
    pub fn debug(&self) -> bool {
        self.args.verbose
            || (self.resume.as_deref()).is_some_and(|d| crate::rundir::Meta::read(d).debug)
    }

    /// On `--resume`, puts into `scoring` the `rank-by` the run recorded for each of its
    /// problems: a resumed run is ranked as it began, though scoring.toml may have changed
    /// since (`--rank-by` given now still wins over both). A run made before `rank-by` was
    /// recorded keeps scoring.toml's.
    pub fn keep_recorded(&self, scoring: &mut crate::config::Scoring) {
        let Some(dir) = &self.resume else {
            return;
        };
        for (id, by) in crate::rundir::Meta::read(dir).rank_by {
            scoring.problem.entry(id).or_default().rank_by = by;
        }
    }
}

/// The arguments of a resumed run: those recorded for it, overridden by any given now.
fn resumed_args(args: &RunArgs, dir: &Path) -> Result<RunArgs> {
    let path = dir.join("run.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::usage(format!(
            "--resume: cannot read {}: {e} (is the run id right? see results/)",
            path.display()
        ))
    })?;
    let recorded: RecordedRun = toml::from_str(&text)
        .map_err(|e| Error::usage(format!("--resume: {}: {e}", path.display())))?;
    let r = recorded.args;
    // A key is never recorded: the one given now must be the run's, or the tests would differ.
    let what = format!("--resume {}", dir.display());
    crate::secret::check(
        r.secret_fingerprint.as_deref(),
        args.secret.secret.as_ref(),
        &what,
    )
    .map_err(Error::Usage)?;
    let mut merged = args.clone();
    if merged.players.is_empty() && merged.variant.is_empty() {
        merged.players = r.players;
        merged.variant = r.variant;
    }
    merged.seeds = merged.seeds.or(r.seeds);
    merged.problem = merged.problem.or(r.problem);
    merged.time_limit = merged.time_limit.or(r.time_limit);
    merged.time_by = merged.time_by.or(r.time_by);
    merged.memory_limit = merged.memory_limit.or(r.memory_limit);
    merged.sandbox = merged.sandbox.or(r.sandbox);
    merged.cgroup = merged.cgroup.or(r.cgroup);
    merged.transcripts = merged.transcripts.or(r.transcripts);
    Ok(merged)
}

/// Everything a run will play, checked.
pub struct RunPlan {
    pub request: Request,
    /// One suite per problem that has players, in the registry's order.
    pub suites: Vec<Suite>,
    pub threads: usize,
    pub pin_cpus: bool,
    pub sandbox: Want,
    pub cgroup: Want,
    /// Which tests keep their transcript (`--transcripts`).
    pub transcripts: crate::transcript::Keep,
    /// Lines to show before the first test (players skipped, and why).
    pub notes: Vec<String>,
    /// The notes on players left out for a program this machine lacks, shown again under
    /// the leaderboard, where a player missing from it is looked for.
    pub left_out: Vec<String>,
    /// Those players themselves, for `run.toml`'s `left-out` (and from it report.html).
    pub lacking: Vec<Skipped>,
}

impl RunPlan {
    /// The plan of `request` with the players found; `flags` are the run's filters and
    /// group-bys; `cpus` is how many CPUs the run may use (the default thread count).
    pub fn new(
        mut request: Request,
        context: &Context,
        players: (Vec<Player>, Vec<Skipped>),
        flags: &Flags,
        cpus: usize,
    ) -> Result<RunPlan> {
        let (found, skipped) = players;
        let args = &request.args;
        let mut suites = Vec::new();
        let mut filters = FilterUse::new(flags.filters.len());
        for problem in problem::all() {
            let players: Vec<Player> = found
                .iter()
                .filter(|p| p.problem == problem.id())
                .cloned()
                .collect();
            if players.is_empty() {
                continue;
            }
            let mut env = context.env(problem.id(), args.secret.secret.as_ref());
            env.config.time_limit = args.time_limit.unwrap_or(env.config.time_limit);
            env.config.time_by = args.time_by.or(env.config.time_by);
            env.config.memory_limit = args.memory_limit.unwrap_or(env.config.memory_limit);
            let cases = cases(&*problem, &env, &request, flags, &mut filters)?;
            suites.push(Suite {
                problem,
                env,
                cases,
                players,
                done: Default::default(),
            });
        }
        filters.check(args)?;
        check_group_by(flags, &suites)?;
        let secret = args.secret.secret.clone();
        request.sharding.select(&mut suites, secret.as_ref());
        let args = &request.args;
        if args.verbose {
            check_verbose(&suites)?;
        }
        let notes = crate::players::skip_notes(&skipped, args.problem.as_deref());
        let lacking: Vec<Skipped> = skipped.iter().filter(|s| s.needs).cloned().collect();
        let left_out = crate::players::skip_notes(&lacking, None);
        if suites.is_empty() {
            notes.iter().for_each(|n| eprintln!("{n}"));
            return Err(Error::usage("no player plays the chosen problem"));
        }
        let scoring = &context.scoring;
        Ok(RunPlan {
            threads: args.threads.unwrap_or(cpus).max(1),
            pin_cpus: scoring.harness.pin_cpus && !args.no_pin,
            sandbox: args.sandbox.unwrap_or(scoring.harness.sandbox),
            cgroup: args.cgroup.unwrap_or(scoring.harness.cgroup),
            transcripts: args.transcripts.unwrap_or(scoring.harness.transcripts),
            request,
            suites,
            notes,
            left_out,
            lacking,
        })
    }

    /// Each problem with its parameter names (the columns of `scores.csv`).
    pub fn problems(&self) -> Vec<(String, Vec<String>)> {
        self.suites
            .iter()
            .map(|s| {
                let names = s.problem.param_names().iter().map(|p| p.to_string());
                (s.problem.id().to_string(), names.collect())
            })
            .collect()
    }

    /// Each problem with the names of its players, in order.
    pub(crate) fn rosters(&self) -> Vec<(String, Vec<String>)> {
        self.suites
            .iter()
            .map(|s| {
                let names = s.players.iter().map(|p| p.name.clone());
                (s.problem.id().to_string(), names.collect())
            })
            .collect()
    }

    /// The tests the plan has, finished or not.
    pub(crate) fn planned(&self) -> u64 {
        self.suites
            .iter()
            .map(|s| (s.cases.len() * s.players.len()) as u64)
            .sum()
    }

    /// Each problem with what its tests are made from.
    pub fn envs(&self) -> Vec<(String, Env)> {
        self.suites
            .iter()
            .map(|s| (s.problem.id().to_string(), s.env.clone()))
            .collect()
    }
}

/// A problem's cases: its fixed tests (unless `--no-fixed`) and the seeds, filtered.
fn cases(
    problem: &dyn problem::Problem,
    env: &Env,
    request: &Request,
    flags: &Flags,
    filters: &mut FilterUse,
) -> Result<Vec<CaseKey>> {
    let mut cases = if request.args.no_fixed {
        Vec::new()
    } else {
        problem
            .fixed_cases(env)
            .map_err(|e| Error::usage(e.to_string()))?
    };
    let seeds = request
        .seeds
        .resolve(&env.config.examples)
        .map_err(|e| Error::usage(format!("{}: {e}", problem.id())))?;
    cases.extend(seeds.into_iter().map(CaseKey::Seed));
    filters.before += cases.len();
    let (cases, applied) = crate::compare::filter_cases(problem, env, cases, &flags.filters)?;
    filters.after += cases.len();
    filters
        .applied
        .iter_mut()
        .zip(applied)
        .for_each(|(a, b)| *a |= b);
    // Test data the harness cannot read is the user's to fix before anything runs.
    if let Some(first) = cases.first().filter(|_| !problem.tests_made_by_tools()) {
        problem
            .case(first, env)
            .map_err(|e| Error::usage(e.to_string()))?;
    }
    Ok(cases)
}

/// How the `--filter`s applied over the problems of a run.
struct FilterUse {
    /// Whether each filter named a parameter of some problem.
    applied: Vec<bool>,
    /// Tests before and after filtering.
    before: usize,
    after: usize,
}

impl FilterUse {
    fn new(filters: usize) -> FilterUse {
        FilterUse {
            applied: vec![false; filters],
            before: 0,
            after: 0,
        }
    }

    /// A filter no problem has, or filters that leave no test, are mistakes: an empty run
    /// would become `latest` and the next "previous run".
    fn check(&self, args: &RunArgs) -> Result<()> {
        if let Some(i) = self.applied.iter().position(|a| !a) {
            return Err(Error::usage(format!(
                "--filter {}: not a parameter of any problem of this run",
                args.compare.filter[i]
            )));
        }
        if self.after == 0 && self.before > 0 {
            let filters: Vec<String> = args
                .compare
                .filter
                .iter()
                .map(|f| format!("--filter {f}"))
                .collect();
            return Err(Error::usage(format!(
                "{}: no test of this run matches (0 of {}); `{} gen` shows a seed's \
                 parameters",
                filters.join(" "),
                self.before,
                crate::invocation::program()
            )));
        }
        Ok(())
    }
}

/// `--verbose` shows one test as it is played: one player, one test.
fn check_verbose(suites: &[Suite]) -> Result<()> {
    let players: usize = suites.iter().map(|s| s.players.len()).sum();
    let tests: usize = suites.iter().map(|s| s.cases.len()).sum();
    if players != 1 || tests != 1 {
        return Err(Error::usage(format!(
            "--verbose shows one test as it is played: give one player and one seed (this \
             run has {players} player(s) and {tests} test(s); an exact-answer problem also \
             plays its fixed tests unless --no-fixed)"
        )));
    }
    Ok(())
}

/// A `--group-by` no problem of the run can evaluate is a mistake to report before playing.
fn check_group_by(flags: &Flags, suites: &[Suite]) -> Result<()> {
    for group in flags.groups.iter().flatten() {
        let known = suites.iter().any(|suite| {
            let mut columns: Columns = suite
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
            return Err(Error::usage(format!(
                "--group-by {}: not a parameter of any problem of this run",
                group.expr.text
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::Cli;

    fn args(line: &str) -> RunArgs {
        let words = std::iter::once("harness").chain(line.split_whitespace());
        Cli::try_parse_from(words).expect("valid command line").run
    }

    fn context() -> Context {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        Context {
            scoring: crate::config::Scoring::default(),
            testcases: root.join("testcases"),
            root,
        }
    }

    fn player(name: &str, problem: &str) -> Player {
        Player {
            name: name.into(),
            problem: problem.into(),
            program: "/bin/true".into(),
            args: Vec::new(),
            cwd: "/".into(),
            source: name.into(),
            hash: "h".into(),
            env: Vec::new(),
            pass_env: Vec::new(),
            on_path: false,
            snapshot: None,
        }
    }

    fn plan(line: &str, players: Vec<Player>) -> Result<RunPlan> {
        let context = context();
        let request = Request::new(&args(line), &context)?;
        let flags = Flags::parse(&request.args.compare)?;
        RunPlan::new(request, &context, (players, Vec::new()), &flags, 4)
    }

    #[test]
    fn the_clock_is_the_flags_then_the_problems_then_the_harness_time_by() {
        use crate::time_by::TimeBy::{Cpu, Think};
        // scoring.toml: [harness] time-by = "cpu", and game-ending's own table says think.
        let mut context = context();
        context.scoring.harness.time_by = Some(Cpu);
        let own = crate::config::ProblemConfig {
            time_by: Some(Think),
            ..Default::default()
        };
        context.scoring.problem.insert("game-ending".into(), own);
        let clocks = |line: &str| -> Vec<crate::time_by::TimeBy> {
            let players = vec![player("a", "chesspuzzle"), player("c", "game-ending")];
            let request = Request::new(&args(line), &context).unwrap();
            let flags = Flags::parse(&request.args.compare).unwrap();
            let plan = RunPlan::new(request, &context, (players, Vec::new()), &flags, 4).unwrap();
            plan.suites.iter().map(|s| s.env.config.time_by()).collect()
        };
        assert_eq!(clocks("--players a c --seeds 1"), [Cpu, Think]);
        assert_eq!(
            clocks("--players a c --seeds 1 --time-by think"),
            [Think, Think]
        );
        assert_eq!(clocks("--players a c --seeds 1 --time-by cpu"), [Cpu, Cpu]);
    }

    #[test]
    fn a_plan_has_a_suite_per_problem_played_with_its_fixed_tests_and_the_seeds() {
        let players = vec![
            player("a", "chesspuzzle"),
            player("b", "chesspuzzle"),
            player("c", "game-ending"),
        ];
        let plan = plan("--players a b c --seeds 1..3", players).unwrap();
        let ids: Vec<&str> = plan.suites.iter().map(|s| s.problem.id()).collect();
        assert_eq!(ids, ["chesspuzzle", "game-ending"]);
        let seeds: Vec<CaseKey> = (1..=3).map(CaseKey::Seed).collect();
        assert_eq!(plan.suites[0].cases, seeds);
        let fixed = plan.suites[1].cases.len() - 3;
        assert!(fixed > 0, "game-ending ships fixed tests");
        assert_eq!(plan.suites[1].cases[fixed..], seeds);
        assert_eq!(plan.planned(), 2 * 3 + (fixed as u64 + 3));
        assert_eq!((plan.threads, plan.pin_cpus), (4, true));
    }

    #[test]
    fn flags_override_scoring_toml_and_no_fixed_drops_the_fixed_tests() {
        let players = vec![player("c", "game-ending")];
        let line = "--players c --seeds 5 --time-limit 3 --time-by cpu --memory-limit 7 --threads 1 --no-fixed";
        let plan = plan(line, players).unwrap();
        let config = &plan.suites[0].env.config;
        assert_eq!((config.time_limit, config.memory_limit), (3.0, 7));
        assert_eq!(config.time_by(), crate::time_by::TimeBy::Cpu);
        assert_eq!(plan.suites[0].cases, [CaseKey::Seed(5)]);
        assert_eq!(plan.threads, 1);
    }

    #[test]
    fn a_resumed_run_keeps_the_clock_its_time_limit_held_unless_told_another() {
        use crate::time_by::TimeBy;
        let dir = tempfile::tempdir().unwrap();
        let recorded = RecordedArgs::of(&args("--players c --time-by cpu"));
        let text = format!("[args]\n{}", toml::to_string(&recorded).unwrap());
        std::fs::write(dir.path().join("run.toml"), text).unwrap();
        let resumed = resumed_args(&args("--resume x"), dir.path()).unwrap();
        assert_eq!(resumed.time_by, Some(TimeBy::Cpu));
        let told = resumed_args(&args("--resume x --time-by think"), dir.path()).unwrap();
        assert_eq!(told.time_by, Some(TimeBy::Think));
    }

    #[test]
    fn mistakes_are_usage_errors_found_before_anything_runs() {
        let chess = || vec![player("a", "chesspuzzle")];
        for (line, says) in [
            ("--players a --threads 0", "--threads 0"),
            ("--players a --time-limit=-1", "--time-limit"),
            ("--players a --seeds 9..1", "--seeds"),
            ("--players a --problem chess", "unknown problem"),
            ("--players a --seeds 1 --filter Z=1", "--filter Z=1"),
            (
                "--players a --seeds 1..3 --filter K=99",
                "no test of this run matches",
            ),
            ("--players a --seeds 1 --group-by Z", "--group-by Z"),
            ("--seeds 1", "no players"),
        ] {
            match plan(line, chess()) {
                Err(Error::Usage(message)) => {
                    assert!(message.contains(says), "{line}: {message}")
                }
                Err(other) => panic!("{line}: not a usage error: {other}"),
                Ok(_) => panic!("{line}: planned"),
            }
        }
    }

    #[test]
    fn a_plan_without_a_player_of_the_chosen_problem_is_a_usage_error() {
        let err = plan("--players a --seeds 1", Vec::new()).err().unwrap();
        assert!(
            matches!(&err, Error::Usage(m) if m.contains("no player")),
            "{err}"
        );
    }
}
