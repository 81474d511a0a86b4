//! The problems the harness judges, behind one trait.
//!
//! A [`Problem`] knows how to make a test case from a [`CaseKey`] (a seed of its generator, or a
//! fixed case shipped under `testcases/`), and a [`Game`] is one such test: it prints its input
//! and plays it against a player through a [`Channel`], judging every message. An
//! interactive problem also has [`Views`]: its board for `harness play`, its replay frames and
//! its replay page's drawing code. Nothing here spawns processes, prints or touches the file
//! system beyond reading `testcases/`.
//!
//! A player's mistake is never an `Err`: the game turns it into an [`Outcome`] with a
//! [`Verdict`] and a reason. `Err` is kept for the harness's own faults (a missing testcase file).
//!
//! # One home per problem
//!
//! Everything about a problem is in its own folder, and [`all`] below is the one list of
//! problems; no code outside `problem/` names a problem:
//!
//! - `chesspuzzle/`, `linez/`: the interactive problems. `rules.rs` holds the rules (with
//!   checked moves: `Puzzle::try_click`, `Board::try_move`), `mod.rs` the generator, the
//!   judge and the [`Problem`] and [`Views`] impls; `terminal.rs` the board for `harness
//!   play`; `frames.rs` the replay frames; `view.js` the replay page's drawing code.
//! - `exact/`: the exact-answer problems, one file each (`game_ending.rs`,
//!   `russian_checkers.rs`, `simplified_chess.rs`: rules, reference solver, generator), and
//!   in `exact/mod.rs` what they share (fixed tests, comparing answers, TopCoder encoding).
//!
//! # Adding a problem
//!
//! 1. A new folder `problem/<name>/` whose `mod.rs` defines a type implementing [`Problem`]
//!    (its `id` is the name used on the command line, in `scoring.toml` and by players) and a
//!    [`Game`] for one test. An interactive problem that should have `harness play` and
//!    replays also implements [`Views`] (a `terminal.rs`, a `frames.rs` and a `view.js`, as
//!    Linez does) and returns it from [`Problem::views`]. An exact-answer problem is instead
//!    one file `problem/exact/<name>.rs` with an [`exact::Spec`], declared in `exact/mod.rs`.
//! 2. In this file, one `pub mod <name>;` line and one entry in [`all`].
//! 3. Fixed test data, if any, in `testcases/<id>/`; settings, if any, in `[problem.<id>]` of
//!    `scoring.toml` (defaults apply otherwise).
//!
//! Nothing else changes: the runner, `play`, `replay`, `compare`, `bench` and the reports
//! reach a problem only through these traits.

pub mod chesspuzzle;
pub mod exact;
pub mod linez;
pub mod tools;
pub mod views;

pub use exact::{game_ending, russian_checkers, simplified_chess};
pub use views::Views;

use std::fmt;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rand_xoshiro::Xoshiro256PlusPlus;

use crate::config::ProblemConfig;
use crate::secret::Secret;
use crate::verdict::{Fault, Outcome};

/// The identity of one test of a problem.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CaseKey {
    /// A test made by the problem's generator from this seed.
    Seed(u64),
    /// A fixed test shipped under `testcases/<problem>/` (statement examples, system tests).
    Fixed(String),
}

impl fmt::Display for CaseKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaseKey::Seed(seed) => write!(f, "{seed}"),
            CaseKey::Fixed(name) => f.write_str(name),
        }
    }
}

impl CaseKey {
    /// How messages name the test: `seed 5`, `case sys-011`.
    pub fn label(&self) -> String {
        match self {
            CaseKey::Seed(seed) => format!("seed {seed}"),
            CaseKey::Fixed(name) => format!("case {name}"),
        }
    }

    /// Reads a key back from its display form: digits are a seed, anything else a fixed case.
    pub fn parse(text: &str) -> CaseKey {
        match text.parse::<u64>() {
            Ok(seed) => CaseKey::Seed(seed),
            Err(_) => CaseKey::Fixed(text.to_string()),
        }
    }
}

/// What a problem needs from the outside to make a test case.
#[derive(Clone, Debug)]
pub struct Env {
    /// The workspace's `testcases/` folder.
    pub testcases: PathBuf,
    /// This problem's settings from `scoring.toml` (after command-line overrides).
    pub config: ProblemConfig,
    /// The key of secret seeds (`--secret`), mixed into every generated test's stream.
    pub secret: Option<Secret>,
}

impl Env {
    /// The random stream of the generated test `seed` of `problem`: one stream per (problem,
    /// seed), from the seed alone, or keyed when the run has a secret (see [`crate::secret`]).
    /// Fixed tests never draw from it.
    pub fn stream(&self, problem: &str, seed: u64) -> Xoshiro256PlusPlus {
        crate::secret::stream(self.secret.as_ref(), problem, seed)
    }

    /// The folder of fixed test data for one problem: `testcases/<id>/`.
    pub fn problem_dir(&self, id: &str) -> PathBuf {
        self.testcases.join(id)
    }
}

/// The harness's own failure to make a test case (missing or malformed test data).
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Malformed {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{problem} has no test case {key}")]
    Unknown { problem: &'static str, key: String },
    /// A contest tool could not make the test (gen failed, an input is missing).
    #[error("{0}")]
    Tool(String),
}

impl CaseError {
    /// Reads a test data file, naming it on failure.
    pub fn read(path: &Path) -> Result<String, CaseError> {
        std::fs::read_to_string(path).map_err(|source| CaseError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

pub use crate::config::Objective;

/// One problem the harness can judge.
pub trait Problem: Send + Sync {
    /// The id used on the command line, in `scoring.toml`, in player metadata and in CSV files.
    fn id(&self) -> &'static str;
    /// The problem's name as in its statement.
    fn title(&self) -> &'static str;
    /// Whether higher raw scores are better.
    fn objective(&self) -> Objective {
        Objective::Maximize
    }
    /// Whether a test that ends in a fault keeps the points made so far (Linez) rather than
    /// scoring 0 (ChessPuzzle, exact-answer problems).
    fn keeps_score_on_fault(&self) -> bool {
        false
    }
    /// Whether the player answers once and exits (exact-answer problems): then a crash or a
    /// non-zero exit status decides the verdict (RE) even when some output came.
    fn answers_at_exit(&self) -> bool {
        false
    }
    /// Whether a line the player writes once the game has ended is a protocol error (PE).
    /// Not where a contest's tool ends the game: it has read what it wanted, and by hand it
    /// ignores or kills a player that goes on (a TopCoder tester's `destroy()`), so whether
    /// such a line came in time would decide the verdict by chance.
    fn late_output_is_a_fault(&self) -> bool {
        true
    }
    /// The longest line the protocol ever needs from a player, in bytes (a move with room for
    /// white space and zero padding); a longer line is a protocol error. `None` leaves only
    /// the `max-line` setting (exact-answer problems).
    fn max_line(&self) -> Option<usize> {
        None
    }
    /// Names of the generator parameters a test reports (CSV columns), e.g. `["H", "W", "K"]`.
    fn param_names(&self) -> &'static [&'static str];
    /// How `harness compare` splits tests into groups by default: parameters or columns of
    /// `scores.csv`, or products of them (`H*W`); many distinct values are cut into bands.
    fn groups(&self) -> &'static [&'static str] {
        self.param_names()
    }
    /// Fixed tests that every run of this problem includes besides the seeds it is given
    /// (system tests of the exact-answer problems). Most problems have none.
    fn fixed_cases(&self, _env: &Env) -> Result<Vec<CaseKey>, CaseError> {
        Ok(Vec::new())
    }
    /// Makes one test case. The same key always gives the same test, on any machine (and with
    /// the same secret: generated tests draw from [`Env::stream`]).
    fn case(&self, key: &CaseKey, env: &Env) -> Result<Box<dyn Game>, CaseError>;
    /// An in-process player for `harness bench` to measure the judge's own cost per move
    /// (interactive problems; it may know the whole test).
    fn bench_player(&self, _key: &CaseKey, _env: &Env) -> Option<Box<dyn Channel>> {
        None
    }
    /// A long game recorded under `testcases/<id>/` (the test and the player's lines), for
    /// `harness bench` and the tests of long games; `None` for problems without one.
    fn long_game(&self, _env: &Env) -> Option<Result<(CaseKey, Vec<String>), CaseError>> {
        None
    }
    /// The reference answer to an input in the problem's own format, for `harness solve`.
    /// Interactive problems have none.
    fn solve(&self, _input: &str) -> Option<Result<String, String>> {
        None
    }
    /// The views of an interactive problem: its terminal board for `harness play`, its replay
    /// frames and page script. `None`: no `harness play` and no replays (exact-answer problems).
    fn views(&self) -> Option<&dyn Views> {
        None
    }
    /// Each test is passed or failed (score 1 for the exact answer, else 0): no test is
    /// "worse" than another that failed too, so report.html lists its failures, not its
    /// worst seeds.
    fn pass_fail(&self) -> bool {
        false
    }
    /// The programs its judge needs that this machine lacks (a contest's tools: their
    /// `build` when `with_build`, their `judge` and `gen`; [`crate::needs`]), found before
    /// anything is built: the players of such a problem are left out of a run of several.
    fn missing_programs(&self, _with_build: bool) -> Vec<String> {
        Vec::new()
    }
    /// Work done once per run before any test (a contest's tools are built); the error is
    /// the user's to fix (exit 2), with the build's last lines. What it prepares is used by
    /// the problems made after it ([`by_id`]): make the problem again to run its tests.
    fn prepare(&self, _builds: &mut crate::build::Builds) -> Result<(), String> {
        Ok(())
    }
    /// Hands the problem the run's isolation, before any test: a problem that runs programs
    /// of its own (a contest's tools) runs them there. Outside a run it makes its own.
    fn attach(&self, _isolation: &std::sync::Arc<crate::sandbox::Isolation>) {}
    /// Whether the judge starts the player itself on its own pipes (a contest tester with
    /// `relay = "direct"`): the runner then prepares the player's sandbox and the game starts
    /// the player in it with [`Channel::start_on`].
    fn direct_player(&self) -> bool {
        false
    }
    /// Whether making a test runs programs (a contest's `gen`): the plan then makes none
    /// ahead of the run to check the test data (the run makes them, contained, after the
    /// build, and a failure is that test's ERR).
    fn tests_made_by_tools(&self) -> bool {
        false
    }
    /// A hash of the judge's own files when they are not the harness's code (a contest's
    /// tools): recorded in run.toml, and a changed judge is shown when runs are compared.
    fn judge_identity(&self) -> Option<String> {
        None
    }
}

/// A file a judge drew of a test (a contest visualizer's `out.svg` or `vis.html`), kept in
/// the run's folder and linked from the report.
#[derive(Clone, Debug)]
pub struct Picture {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// One test case, ready to be played once.
pub trait Game: Send {
    /// The generator parameters of this test, in the order of [`Problem::param_names`].
    fn params(&self) -> Vec<String>;
    /// The full input of this test in a readable form (`harness gen`), including what the
    /// player is not shown (hidden tiles, the spawn sequence).
    fn describe(&self) -> String;
    /// Called by the runner as soon as it has launched this test's player, before the game
    /// talks to it: what the game runs beside the player may start here, so that both are set
    /// up at once (a batch problem's judge, made ready in a sandbox of its own). Nothing by
    /// default; [`Game::play`] must work without it (a game played in memory is never told).
    fn player_starting(&mut self) {}
    /// Plays the test against a player and judges it. Every player message is hostile input:
    /// whatever it sends, this returns an outcome and never panics.
    fn play(&mut self, player: &mut dyn Channel) -> Outcome;
    /// The pictures the judge drew of the test just played (none for most problems).
    fn pictures(&mut self) -> Vec<Picture> {
        Vec::new()
    }
}

/// The judge's side of the conversation with one player.
///
/// The runner implements it over pipes to a process (counting thinking time and enforcing
/// limits), the tests implement it in memory.
pub trait Channel {
    /// Sends text to the player: one or more complete lines, each ending in `\n`.
    /// The player's thinking clock starts when the text is fully written.
    fn send(&mut self, text: &str) -> Result<(), Fault>;
    /// Waits for the player's next line and returns it without its line end.
    fn recv(&mut self) -> Result<&str, Fault>;
    /// Closes the player's input and returns everything it writes until it closes its output
    /// (exact-answer problems).
    fn recv_to_end(&mut self) -> Result<&str, Fault>;
    /// Waits for whichever comes first: the player's next line (as [`Channel::recv`] hands
    /// it out, checked the same way) or `other` being ready: readable, closed, or, with
    /// `writable`, writable. For a judge that is another program (a contest's tester talking
    /// to the player through the relay, `sandbox::relay`): its bytes and the player's lines
    /// are then proxied by one thread.
    ///
    /// The thinking clock runs as for `recv`, from the last `send` or the last line: a line
    /// stops it, [`Heard::Other`] leaves it running (the next `send` restarts it, so time
    /// the other program spends before it speaks is not the player's). Channels without
    /// descriptors (in-memory players) never report `other` and just wait for the line.
    fn recv_or(&mut self, other: BorrowedFd<'_>, writable: bool) -> Result<Heard<'_>, Fault> {
        let _ = (other, writable);
        self.recv().map(Heard::Line)
    }
    /// Starts the player with `stdin` and `stdout`, another program's pipe ends, as its
    /// standard input and output (a contest tester's, handed over by the relay: `relay =
    /// "direct"` in problem.toml), so that it talks to that program with nothing of the
    /// harness's in between: no line of it passes here, no thinking clock runs (its time
    /// limit holds its CPU time). Only a channel made for it ([`Problem::direct_player`])
    /// can; the others refuse.
    fn start_on(&mut self, stdin: OwnedFd, stdout: OwnedFd) -> Result<(), Fault> {
        drop((stdin, stdout));
        Err(Fault::Gone(
            "this player cannot be started on another program's pipes".into(),
        ))
    }
    /// Waits, once the player was started with [`Channel::start_on`], until it has ended
    /// (and every process of its test is gone), `other` (if any) is readable, or `deadline`
    /// passes; takes in its stderr meanwhile.
    fn wait_player(
        &mut self,
        other: Option<BorrowedFd<'_>>,
        deadline: Instant,
    ) -> Result<Waited, Fault> {
        let _ = (other, deadline);
        Ok(Waited::PlayerEnded)
    }
    /// Ends the player's current start and starts the same player again, a fresh process in
    /// a fresh sandbox with the same limits, on the same test (a contest tester that plays
    /// more than one game per input: `max-starts` in problem.toml). What the earlier start
    /// left (its end, CPU time, memory) is kept for the test's verdict; the thinking clock
    /// and the output count start anew. Channels that cannot start a player refuse.
    fn restart(&mut self) -> Result<(), Fault> {
        Err(Fault::Gone("this player cannot be started again".into()))
    }
    /// Tells the channel how the judge read the player's last line, when that differs from
    /// the bytes sent: its canonical form (`7 3` for ` 007  3`). A transcript keeps this
    /// instead, so its size depends on the number of moves, never on padding. Channels that
    /// keep nothing ignore it.
    fn understood(&mut self, _canonical: &str) {}
}

/// What [`Channel::recv_or`] found first.
#[derive(Debug, PartialEq, Eq)]
pub enum Heard<'a> {
    /// The player's next line, without its line end.
    Line(&'a str),
    /// The other descriptor is ready.
    Other,
}

/// What [`Channel::wait_player`] found first.
#[derive(Debug, PartialEq, Eq)]
pub enum Waited {
    /// The player has ended.
    PlayerEnded,
    /// The other descriptor is ready.
    Other,
    /// The deadline passed.
    TimedOut,
}

/// Splits a move into its tokens: runs of anything but ASCII spaces and tabs (the only white
/// space a move may hold; surrounding white space is ignored).
pub(crate) fn tokens(line: &str) -> impl Iterator<Item = &str> {
    line.split([' ', '\t']).filter(|t| !t.is_empty())
}

/// Surrounding ASCII spaces and tabs removed.
pub(crate) fn trim_blanks(line: &str) -> &str {
    line.trim_matches([' ', '\t'])
}

/// Every problem the harness knows: the built-in ones, in the order of the documentation,
/// then those of the workspace's `problem.toml` files ([`tools`], loaded with the context).
pub fn all() -> Vec<Box<dyn Problem>> {
    let mut all = builtin();
    all.extend(tools::loaded());
    all
}

/// The problems judged by the harness's own code.
pub fn builtin() -> Vec<Box<dyn Problem>> {
    vec![
        Box::new(chesspuzzle::ChessPuzzle),
        Box::new(linez::Linez),
        Box::new(exact::Exact(game_ending::SPEC)),
        Box::new(exact::Exact(russian_checkers::SPEC)),
        Box::new(exact::Exact(simplified_chess::SPEC)),
    ]
}

/// The ids of all problems, for messages and `--help`.
pub fn ids() -> Vec<&'static str> {
    all().iter().map(|p| p.id()).collect()
}

/// Every problem's id with its objective: what `scoring.toml` is checked against.
pub fn objectives() -> Vec<(&'static str, Objective)> {
    all().iter().map(|p| (p.id(), p.objective())).collect()
}

/// Whether the problem with this id has [`Views`] (is interactive: replays, `play`).
pub fn has_views(id: &str) -> bool {
    by_id(id).is_some_and(|p| p.views().is_some())
}

/// The ids of the problems with [`Views`] (`harness play`, replays).
pub fn interactive_ids() -> Vec<&'static str> {
    all()
        .iter()
        .filter(|p| p.views().is_some())
        .map(|p| p.id())
        .collect()
}

/// Finds a problem by id.
pub fn by_id(id: &str) -> Option<Box<dyn Problem>> {
    all().into_iter().find(|p| p.id() == id)
}
