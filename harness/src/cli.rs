//! The command line: clap definitions only. Turning them into a run is `app`'s job.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::secret::Secret;

/// A TopCoder-style marathon tester and local judge.
///
/// Runs player programs against seeded tests of a problem in parallel, judges every move,
/// prints a leaderboard and writes scores.csv and leaderboard.csv under results/<run-id>/.
/// Exit codes: 0 every test ran (whatever the verdicts; players left out for a program this
/// machine lacks have none); 1 some tests ended with the harness's own error (ERR); 2 usage
/// or configuration error (also: the one player given, or every one, lacks a program);
/// 130 interrupted.
#[derive(Debug, Parser)]
#[command(name = "harness", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run players on seeds (the default when no subcommand is given).
    Run(RunArgs),
    /// Print the full input of one test (including what players are not shown).
    Gen(GenArgs),
    /// Print the reference answer to an input read from stdin (exact-answer problems).
    Solve(SolveArgs),
    /// Measure the harness's cost per move against a raw pipe ping-pong, and suite throughput.
    Bench(BenchArgs),
    /// Write replay pages (HTML) of tests of a run, from their transcripts.
    Replay(ReplayArgs),
    /// Play one test yourself in the terminal (interactive problems).
    Play(PlayArgs),
    /// Compare players or runs on their common tests: mean and relative scores,
    /// wins/ties/losses, sign and Wilcoxon tests, a bootstrap interval, per-group means.
    Compare(CompareArgs),
    /// List the recorded runs: id, date, players, tests and mean scores.
    Runs(RunsArgs),
    /// Print what isolation this machine offers for players and what a run will use.
    Doctor(DoctorArgs),
    /// Build every player once into a relocatable bundle (one folder per player), to run
    /// on other machines with `--players DIR/* --no-build`.
    Build(BuildArgs),
    /// Merge the shards of a run (`--shard I/N --run-id ID`) into one run.
    Merge(MergeArgs),
    /// Write testcases/<id>/problem.toml and a starter player for a contest's own tools (an
    /// AtCoder tools/ folder, a TopCoder tester .jar or its .java), and print the next command.
    NewProblem(NewProblemArgs),
    /// Tune a player's declared parameters (TPE sampler, paired-test pruning), then check the
    /// best values against the defaults on held-out seeds.
    Tune(TuneArgs),
    /// Internal: the echo peer of `bench` (answers each line with `0 0`).
    #[command(hide = true)]
    Echo,
    /// Internal: the plain forwarder of `bench` (starts `harness echo` on pipes and passes
    /// each line of its input to it and each line of its answer back, blocking, no clock).
    #[command(hide = true)]
    Forward,
    /// Internal: the forwarder of `bench` that waits on both sides at once (one epoll wait
    /// before each read, as a proxy must), no clock.
    #[command(hide = true)]
    ForwardWaiting,
}

/// Options shared by the commands that read `scoring.toml` and `testcases/`.
#[derive(Debug, Args, Clone)]
pub struct Common {
    /// Per-problem defaults (limits, example seeds). Default file missing: the nearest
    /// scoring.toml in a folder above, else built-in defaults.
    #[arg(long, value_name = "PATH", default_value = "scoring.toml")]
    pub config: PathBuf,
    /// Folder of fixed test data [default: testcases/ beside the config file].
    #[arg(long, value_name = "DIR")]
    pub testcases: Option<PathBuf>,
}

/// The key of secret seeds (shared by the commands that make generated tests).
#[derive(Debug, Args, Clone, Default)]
pub struct SecretArg {
    /// Mix KEY into every generated test (to judge programs whose authors have this
    /// generator): the same seeds give other tests, which only KEY reproduces. Fixed tests are
    /// unchanged. Also read from the HARNESS_SECRET variable (safer: a command line is visible
    /// to other processes); run.toml keeps only its fingerprint.
    #[arg(long, value_name = "KEY", value_parser = Secret::parse)]
    pub secret: Option<Secret>,
}

#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    /// Players: Cargo packages (folders with Cargo.toml, built in release mode), folders with
    /// a player.toml (any language), or executable files (then --problem is needed).
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub players: Vec<PathBuf>,
    /// A player under another name with extra settings, beside the others (repeatable):
    /// `--variant deep=players/linez-greedy env:DEPTH=4 arg:--beam=8`. NAME=PATH first (PATH
    /// as --players takes it), then any number of env:KEY=VALUE (set in its environment) and
    /// arg:VALUE (added to its command).
    #[arg(long, num_args = 1.., value_name = "NAME=PATH [env:K=V|arg:A]")]
    pub variant: Vec<String>,
    /// Seeds: `1..100` (inclusive), `7`, `1,5,9..12`, or `examples` (the problem's example
    /// seeds from scoring.toml) [default: examples]. Exact-answer problems also run their
    /// fixed tests.
    #[arg(long, value_name = "SPEC", allow_negative_numbers = true)]
    pub seeds: Option<String>,
    /// Only run this problem (players of other problems are skipped with a note).
    #[arg(long, value_name = "ID", help = format!(
        "Only run this problem (players of other problems are skipped with a note). One of: {}",
        crate::problem::ids().join(", ")
    ))]
    pub problem: Option<String>,
    /// Games played at once [default: the number of CPUs].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub threads: Option<usize>,
    /// Thinking time per test in seconds (overrides scoring.toml for every problem).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub time_limit: Option<f64>,
    /// The clock the time limit holds: `think` (the player's thinking time) or `cpu` (its CPU
    /// time; the wall clock then stops only a player that waits, at 5x the limit and at least
    /// 10 s past it) [default: scoring.toml time-by, else think].
    #[arg(long, value_name = "CLOCK")]
    pub time_by: Option<crate::time_by::TimeBy>,
    /// Memory (address space) limit per player in MB; 0 = none (overrides scoring.toml).
    #[arg(long, value_name = "MB", allow_negative_numbers = true, value_parser = whole::<u64>)]
    pub memory_limit: Option<u64>,
    /// Skip the fixed tests (testcases/) of exact-answer problems: run only generated ones.
    #[arg(long)]
    pub no_fixed: bool,
    /// Do not pin each worker and its player to one CPU (see scoring.toml [harness] pin-cpus).
    #[arg(long)]
    pub no_pin: bool,
    /// Finish an interrupted run: run only the (player, test) pairs missing from
    /// results/RUN-ID/scores.csv, with the players, seeds, limits and rank-by recorded for it
    /// (flags given now override them). A player whose program changed since is run again in full.
    #[arg(long, value_name = "RUN-ID")]
    pub resume: Option<String>,
    /// Where runs are written [default: results/ beside the config file].
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// Run each test in its own namespaces (private processes, file system view, network):
    /// `auto` where the machine allows it, `require` or stop, `off` [default: scoring.toml
    /// [harness] sandbox, else auto].
    #[arg(long, value_name = "WHEN")]
    pub sandbox: Option<crate::sandbox::Want>,
    /// A cgroup per test (its memory and process slots): auto, require, off [default:
    /// scoring.toml [harness] cgroup, else auto].
    #[arg(long, value_name = "WHEN")]
    pub cgroup: Option<crate::sandbox::Want>,
    /// Let players write core dumps (RLIMIT_CORE as the harness has it), to debug a crash.
    #[arg(long)]
    pub core_dumps: bool,
    /// The leaderboard with every column (sum, min, max, a column per verdict, total
    /// thinking time); by default it fits 100 columns.
    #[arg(long)]
    pub wide: bool,
    /// Show the one test of this run as it is played (one player, one seed): every message
    /// as it passes (`> ` to the player, `< ` from it) and the player's stderr as it writes
    /// it (`[stderr] `), on stderr. A debugging run: not linked as results/latest, not in
    /// best.csv, never the baseline of a later run.
    #[arg(long)]
    pub verbose: bool,
    /// Relative scores against the best of this run's players only, instead of the best
    /// known score of each test (results/best.csv and this run).
    #[arg(long, conflicts_with = "vs_best")]
    pub vs_run: bool,
    /// A few words about the run ("try wider beam"), kept in its run.toml and shown by
    /// `harness runs`, `compare` and the comparison with the previous run. With --resume, it
    /// replaces the resumed run's tag.
    #[arg(long, visible_alias = "comment", value_name = "TEXT")]
    pub tag: Option<String>,
    /// A line per finished test, printed above the progress bar as it finishes:
    /// `seed 12  player-x  OK  1234  0.81 s` (test, player, verdict, score, thinking time).
    #[arg(long)]
    pub each: bool,
    /// JSON lines on stdout, for scripts: a "test" line as each test finishes, a "standing"
    /// line per player at the end, then a "run" line; the leaderboard goes to stderr.
    #[arg(long)]
    pub json: bool,
    /// Run only part I of N of the run's tests (every problem's seeds and fixed tests,
    /// split the same way on every machine), for every player; needs --run-id. The shard
    /// writes results/ID/shards/I-of-N/ only; `harness merge` makes the run.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
    /// The run's id (its folder under results/) instead of the start time; the shards of
    /// one run share it.
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// Build nothing: a player that needs a build (a Cargo package, a `build` command) is an
    /// error (run a bundle of `harness build --out DIR` instead).
    #[arg(long)]
    pub no_build: bool,
    /// Build players in a sandbox (no network, a memory limit, only their private copy
    /// writable, nothing left running): always so with a secret key [default: scoring.toml
    /// [harness] build-sandbox, else off].
    #[arg(long)]
    pub build_sandbox: bool,
    /// Which tests keep their transcript (and can be replayed): all, failed (verdict not
    /// OK), none [default: scoring.toml [harness] transcripts, else all].
    #[arg(long, value_name = "WHICH")]
    pub transcripts: Option<crate::transcript::Keep>,
    #[command(flatten)]
    pub secret: SecretArg,
    #[command(flatten)]
    pub compare: CompareFlags,
    #[command(flatten)]
    pub common: Common,
}

/// How scores are compared (shared by `run` and `compare`).
#[derive(Debug, Args, Clone, Default)]
pub struct CompareFlags {
    /// Relative scores against the best score of every run recorded so far (results/best.csv)
    /// instead of the best of the players compared (a run's default: see --vs-run).
    #[arg(long)]
    pub vs_best: bool,
    /// Per-group means by a test parameter or column: `K`, `H*W`, `moves`; `EXPR:10,20` cuts
    /// bands at 10 and 20; `none` turns off `compare`'s default groups. Repeatable.
    #[arg(long, value_name = "EXPR")]
    pub group_by: Vec<String>,
    /// Only the tests whose parameters match: `K=1..3`, `H=6`, `K=1,5`. Repeatable (all must
    /// match).
    #[arg(long, value_name = "NAME=VALUES")]
    pub filter: Vec<String>,
    /// What players are ranked by: relative (AtCoder's relative score), rank (pahcer's rank
    /// score), log (mean log10 of the OK scores), raw (the mean score); see docs/compare.md
    /// [default: the problem's rank-by in scoring.toml or problem.toml, else relative].
    #[arg(long, value_name = "YARDSTICK")]
    pub rank_by: Option<crate::config::RankBy>,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Runs (an id, `latest`, or a run folder: all its players) and players (`NAME`: the
    /// newest run that has it; `NAME@RUN`). Default: the latest run.
    #[arg(value_name = "RUN-OR-PLAYER")]
    pub what: Vec<String>,
    #[command(flatten)]
    pub flags: CompareFlags,
    /// Where runs are read from [default: results/ beside the config file].
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// Where the comparison's CSV is written [default: <results>/compare.csv]; its page of
    /// largest losses and wins, with links to their replays, goes beside it (compare.html).
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// The tests with the largest losses and wins shown per pair of entries (0: none).
    #[arg(long, value_name = "N", default_value_t = 5, allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub largest: usize,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Where runs are read from [default: results/ beside the config file].
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct GenArgs {
    /// The problem.
    #[arg(long, value_name = "ID")]
    pub problem: String,
    /// The seed (or the name of a fixed test, e.g. sys-012).
    #[arg(long, value_name = "SEED")]
    pub seed: String,
    /// `full`: the whole test, hidden parts included; `player`: exactly what a player reads
    /// before its first answer, to pipe into it by hand.
    #[arg(long, value_name = "WHAT", default_value = "full", value_parser = ["full", "player"])]
    pub view: String,
    #[command(flatten)]
    pub secret: SecretArg,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args, Clone)]
pub struct NewProblemArgs {
    /// The contest's tools: a folder (AtCoder's tools/, or the folder holding it; a folder
    /// with a tester .jar or *Tester.java), a tester .jar, or a tester's .java file.
    #[arg(value_name = "TOOLS")]
    pub tools: PathBuf,
    /// The problem's id (its folder under testcases/) [default: the contest folder's name].
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// Whether a higher (`max`) or lower (`min`) score is better; without it `max` is written
    /// with a CHECK comment.
    #[arg(long, value_name = "max|min", value_parser = ["max", "min"])]
    pub objective: Option<String>,
    /// Overwrite an existing problem.toml of that id.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args, Clone)]
pub struct TuneArgs {
    /// The player: a Cargo package or a player.toml folder that declares parameters.
    #[arg(value_name = "PLAYER")]
    pub player: Option<PathBuf>,
    /// Tuning seeds, played in this order by every trial [default: 1..50].
    #[arg(long, value_name = "SPEC", allow_negative_numbers = true)]
    pub seeds: Option<String>,
    /// Held-out seeds: the best values against the defaults at the end, never used in tuning
    /// (must share no seed with --seeds) [default: 1001..1200].
    #[arg(long, value_name = "SPEC", allow_negative_numbers = true)]
    pub holdout: Option<String>,
    /// Trials in all, the defaults (trial 0) included [default: 100].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub trials: Option<usize>,
    /// Tests played at once (one trial per thread) [default: the number of CPUs].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub threads: Option<usize>,
    /// Seeds a trial plays before it is first compared with the best (then at 2x, 4x, ...);
    /// 0 turns pruning off [default: 10].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub prune_after: Option<usize>,
    /// A trial is pruned when worse than the best with a one-sided Wilcoxon p below this
    /// [default: 0.1].
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub prune_p: Option<f64>,
    /// What a trial is judged by: relative, rank, log or raw, as the leaderboard ranks
    /// players (see docs/compare.md) [default: the problem's rank-by, else relative].
    #[arg(long, value_name = "YARDSTICK")]
    pub rank_by: Option<crate::config::RankBy>,
    /// Seed of the sampler's random numbers [default: 1].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u64>)]
    pub sampler_seed: Option<u64>,
    /// The problem (only for a player that is an executable file).
    #[arg(long, value_name = "ID")]
    pub problem: Option<String>,
    /// Thinking time per test in seconds (overrides scoring.toml).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub time_limit: Option<f64>,
    /// Memory limit per test in MB; 0 = none (overrides scoring.toml).
    #[arg(long, value_name = "MB", allow_negative_numbers = true, value_parser = whole::<u64>)]
    pub memory_limit: Option<u64>,
    /// Finish an interrupted tuning (results/TUNE-ID), with its recorded settings; --trials
    /// and --threads may be given.
    #[arg(long, value_name = "TUNE-ID")]
    pub resume: Option<String>,
    /// Where tunings are written [default: results/ beside the config file].
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// As for `run`: auto, require, off.
    #[arg(long, value_name = "WHEN")]
    pub sandbox: Option<crate::sandbox::Want>,
    /// As for `run`: auto, require, off.
    #[arg(long, value_name = "WHEN")]
    pub cgroup: Option<crate::sandbox::Want>,
    /// Do not pin each worker and its player to one CPU.
    #[arg(long)]
    pub no_pin: bool,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The problem.
    #[arg(long, value_name = "ID")]
    pub problem: String,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Round trips per measurement.
    #[arg(long, default_value_t = 100_000, allow_negative_numbers = true, value_parser = whole::<u64>)]
    pub round_trips: u64,
    /// Seeds of the throughput measurement (chesspuzzle-random at 1 and 2 threads).
    #[arg(long, default_value = "1..100")]
    pub seeds: String,
    /// The player of the throughput measurement.
    #[arg(long, default_value = "players/chesspuzzle-random")]
    pub player: PathBuf,
    /// Measure only these parts (repeatable; default: all of them).
    #[arg(long, value_enum, value_name = "PART")]
    pub only: Vec<BenchPart>,
    #[command(flatten)]
    pub common: Common,
}

/// One part of `harness bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchPart {
    /// The cost per move: raw pipes, the session, the sandbox.
    PingPong,
    /// A contest tool talking to its player through the relay.
    Relay,
    /// Starting and ending one test.
    Start,
    /// The judges' own cost per move, long games, the reference solvers, the tuner.
    Judges,
    /// A batch test of a problem judged by a contest's tools, against by hand.
    Batch,
    /// Suite throughput at 1 and 2 threads.
    Suite,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The run: its id under the results folder, `latest`, or the path of its folder.
    #[arg(value_name = "RUN", default_value = "latest")]
    pub run: String,
    /// Only this player's tests.
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// Only this problem's tests.
    #[arg(long, value_name = "ID")]
    pub problem: Option<String>,
    /// The test with this seed (or fixed case name).
    #[arg(long, value_name = "SEED", conflicts_with = "worst")]
    pub seed: Option<String>,
    /// The N lowest-scoring tests of each player.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub worst: Option<usize>,
    /// Where runs are written [default: results/ beside the config file].
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// Print the whole conversation of the chosen test (the judge's lines rebuilt from the
    /// test) instead of writing its page.
    #[arg(long, requires = "seed")]
    pub transcript: bool,
    #[command(flatten)]
    pub secret: SecretArg,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The problem: one with a terminal board.
    #[arg(long, value_name = "ID", help = format!(
        "The problem: {}",
        crate::problem::interactive_ids().join(" or ")
    ))]
    pub problem: String,
    /// The seed of the test.
    #[arg(long, value_name = "SEED", allow_negative_numbers = true, value_parser = whole::<u64>)]
    pub seed: u64,
    /// The player name the game is saved under.
    #[arg(long, value_name = "NAME", default_value = "human")]
    pub name: String,
    /// Where the game is saved, as a run `play-<time>` [default: results/ beside the config].
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    #[command(flatten)]
    pub common: Common,
}

/// `harness build`: players built once into a relocatable bundle (`crate::bundle`).
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Players, as for a run: Cargo packages, folders with a player.toml, executable files.
    #[arg(long, num_args = 1.., value_name = "PATH", required = true)]
    pub players: Vec<PathBuf>,
    /// The bundle's folder (made if missing; a player's folder in it is replaced).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Only this problem's players (the problem of executable-file players).
    #[arg(long, value_name = "ID")]
    pub problem: Option<String>,
    /// Build players in a sandbox, as a run with --build-sandbox does.
    #[arg(long)]
    pub build_sandbox: bool,
    #[command(flatten)]
    pub common: Common,
}

/// `harness merge`: the shards of a run made into one run (`crate::merge`).
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' folders (results/ID/shards/I-of-N, or copies of them), all N of them.
    #[arg(value_name = "DIR", num_args = 1.., required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where the merged run is written, as results/ID [default: results/ beside the config
    /// file].
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    #[command(flatten)]
    pub secret: SecretArg,
    #[command(flatten)]
    pub common: Common,
}

/// A whole number of a flag that has no negative values. The flag takes `-1` as its value
/// (`allow_negative_numbers`) rather than as an unknown flag, so the message can say what is
/// wrong with it.
fn whole<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.trim().parse().map_err(|_| {
        if text.trim_start().starts_with('-') {
            format!("must be 0 or more, got {text}")
        } else {
            format!("must be a whole number, got {text:?}")
        }
    })
}

/// Part `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Reads `I/N`, 1 <= I <= N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("{text:?}: a shard is I/N with 1 <= I <= N, e.g. 2/8");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether the k-th case (from 0) of the run's whole list is this shard's.
    pub fn owns(&self, k: usize) -> bool {
        k % self.count + 1 == self.index
    }

    /// The folder name of the shard under `results/ID/shards/`.
    pub fn folder(&self) -> String {
        format!("{}-of-{}", self.index, self.count)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
