//! Replays: one self-contained HTML page per game, rebuilt from a run's transcripts.
//!
//! A transcript keeps the player's answers; the judges are deterministic for a case, so
//! playing the answers again gives every state of the game (each interactive problem turns
//! them into frames, or a compact record its page expands into frames, with its
//! [`crate::problem::Views`]) and the judge's own final score (checked against `scores.csv`
//! by the tests). A run may have kept no transcript of a test (`--transcripts`): then it
//! has no replay, and the messages say so. Pages go to `results/<run-id>/replays/`;
//! `page` draws them with the problem's own script. This module reads a run's files and
//! writes replays and `report.html`; it never runs a player and names no problem.

pub mod page;

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::context::{find_problem, Context};
use crate::error::Error;
use crate::problem::{self, CaseKey, Env, Objective, Problem};
use crate::report::{Event, Reporter, RunState};
use crate::rundir::{self, replay_file, transcript_path, BadRows, ScoreRow as Row};
use crate::transcript;

/// Reads a run's `scores.csv`.
pub(crate) fn read_scores(run: &Path) -> Result<Vec<Row>, String> {
    Ok(rundir::read(run, BadRows::Fail)?.rows)
}

/// The `n` worst tests of every (problem, player) with replays, worst first; ties go to the
/// smaller seed.
pub fn worst(rows: &[Row], n: usize) -> Vec<&Row> {
    let mut groups: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        if problem::has_views(&r.problem) && !groups.contains(&(&r.problem, &r.player)) {
            groups.push((&r.problem, &r.player));
        }
    }
    let mut out = Vec::new();
    for (problem, player) in groups {
        let minimize =
            problem::by_id(problem).is_some_and(|p| p.objective() == Objective::Minimize);
        let mut group: Vec<&Row> = rows
            .iter()
            .filter(|r| r.problem == problem && r.player == player)
            .collect();
        group.sort_by(|a, b| {
            let (a_s, b_s) = if minimize {
                (-a.score, -b.score)
            } else {
                (a.score, b.score)
            };
            a_s.total_cmp(&b_s).then_with(|| {
                (a.seed.parse::<u64>().ok(), &a.seed).cmp(&(b.seed.parse::<u64>().ok(), &b.seed))
            })
        });
        out.extend(group.into_iter().take(n));
    }
    out
}

/// A game ready to be drawn.
#[derive(Serialize)]
pub struct Replay {
    pub problem: String,
    pub player: String,
    pub seed: String,
    /// The score the judge gives the recorded answers.
    pub score: f64,
    /// What `scores.csv` says of the test (the run's own verdict: a time limit, a crash).
    pub recorded_score: f64,
    pub verdict: String,
    pub reason: String,
    /// The game for the page ([`problem::Views::page_data`]): its frames, or a compact
    /// record the problem's script expands into frames.
    pub data: Value,
    /// The problem's drawing code for the page ([`problem::Views::page_script`]).
    #[serde(skip)]
    pub script: &'static str,
}

/// Rebuilds one game from its transcript.
pub fn build(
    problem: &dyn Problem,
    env: &Env,
    row: &Row,
    transcript: &str,
) -> Result<Replay, String> {
    let key = CaseKey::parse(&row.seed);
    let answers = transcript::answers(transcript);
    let game = problem.case(&key, env).map_err(|e| e.to_string())?;
    let Some(views) = problem.views() else {
        return Err(format!(
            "{} is not interactive: it has no replay",
            problem.id()
        ));
    };
    let data = views.page_data(&key, env, &answers)?;
    let mut game = game;
    let judged = game.play(&mut transcript::Replayed::new(answers));
    Ok(Replay {
        problem: row.problem.clone(),
        player: row.player.clone(),
        seed: row.seed.clone(),
        score: judged.score,
        recorded_score: row.score,
        verdict: row.verdict.code().to_string(),
        reason: row.reason.clone(),
        data,
        script: views.page_script(),
    })
}

/// The move cap a run played a problem's games with (`move-cap` under `[problem.<id>]` in its
/// `run.toml`): a rule of the game, so replays and rebuilt transcripts use the run's, not
/// today's scoring.toml. `None` for a run from before it was recorded.
pub(crate) fn run_move_cap(run: &Path, problem: &str) -> Option<u64> {
    let text = fs::read_to_string(run.join("run.toml")).ok()?;
    let table = text.parse::<toml::Table>().ok()?;
    let cap = table.get("problem")?.get(problem)?.get("move-cap")?;
    cap.as_integer().and_then(|c| u64::try_from(c).ok())
}

/// Whether the run kept a test's transcript.
fn has_transcript(run: &Path, row: &Row) -> bool {
    transcript_path(run, &row.problem, &row.player, &row.seed).is_file()
}

/// The transcript of one test of a run, as kept on disk (compact or whole). A test the run
/// did not keep says so and how to keep it.
pub(crate) fn read_transcript(run: &Path, row: &Row) -> Result<String, String> {
    let path = transcript_path(run, &row.problem, &row.player, &row.seed);
    fs::read_to_string(&path).map_err(|e| {
        let keep = rundir::kept(run);
        if e.kind() == std::io::ErrorKind::NotFound && !keep.keeps(row.verdict) {
            format!(
                "the transcript of {} {} seed {} was not kept (the run kept transcripts: {}); \
                 run it again with --transcripts all",
                row.problem,
                row.player,
                row.seed,
                keep.name()
            )
        } else {
            format!(
                "no transcript for {} {} seed {}: {}: {e}",
                row.problem,
                row.player,
                row.seed,
                path.display()
            )
        }
    })
}

/// The whole conversation of one test of a run: its transcript, with the judge's lines
/// rebuilt when it was kept compact ([`transcript::rebuild`]).
pub fn full_transcript(
    run: &Path,
    problem: &dyn Problem,
    env: &Env,
    row: &Row,
) -> Result<String, String> {
    let text = read_transcript(run, row)?;
    let mut game = problem
        .case(&CaseKey::parse(&row.seed), env)
        .map_err(|e| e.to_string())?;
    Ok(transcript::rebuild(game.as_mut(), &text))
}

/// Writes the replay page of one test of a run; returns its path.
pub fn write(run: &Path, problem: &dyn Problem, env: &Env, row: &Row) -> Result<PathBuf, String> {
    let text = read_transcript(run, row)?;
    let replay = build(problem, env, row, &text)?;
    let out = run.join(replay_file(row));
    let dir = out.parent().expect("replays/ folder");
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    fs::write(&out, page::render(&replay)).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out)
}

/// After a run: the replay of the worst test of every player of an interactive problem, then
/// `report.html`, from the rows in memory. Failures are notes on stderr, never the run's
/// failure.
pub struct Replays {
    /// Each problem of the run with what its tests are made from.
    pub envs: Vec<(String, Env)>,
    /// Which tests kept their transcript (`--transcripts`): only those have replays.
    pub keep: transcript::Keep,
}

impl Reporter for Replays {
    fn on_event(&mut self, event: &Event<'_>, state: &mut RunState) -> Result<(), String> {
        if let Event::RunFinished = event {
            write_after_run(&state.dir, &self.envs, &state.rows, self.keep);
        }
        Ok(())
    }
}

/// The replay of the worst test of every player of an interactive problem among those whose
/// transcript was kept, then `report.html`; failures are notes on stderr.
pub(crate) fn write_after_run(
    run: &Path,
    envs: &[(String, Env)],
    rows: &[Row],
    keep: transcript::Keep,
) {
    let replayable: Vec<Row> = rows
        .iter()
        .filter(|r| keep.keeps(r.verdict))
        .cloned()
        .collect();
    for row in worst(&replayable, 1) {
        let (Some(problem), Some((_, env))) = (
            problem::by_id(&row.problem),
            envs.iter().find(|(p, _)| *p == row.problem),
        ) else {
            continue;
        };
        if let Err(e) = write(run, problem.as_ref(), env, row) {
            eprintln!("note: no replay: {e}");
        }
    }
    if let Err(e) = crate::report::html::write(run, rows) {
        eprintln!("note: cannot write report.html: {e}");
    }
}

/// Finds a run folder: a path to it, or a run id (or `latest`) under the results folder.
pub(crate) fn find_run(run: &str, results: &Path) -> Result<PathBuf, Error> {
    let direct = Path::new(run);
    for dir in [direct.to_path_buf(), results.join(run)] {
        if dir.join("scores.csv").is_file() {
            return Ok(dir);
        }
    }
    Err(Error::Usage(format!(
        "run {run:?} not found: neither {} nor {} holds a scores.csv",
        direct.display(),
        results.join(run).display()
    )))
}

/// `harness replay`: writes the chosen tests' pages and refreshes `report.html`.
pub fn main(args: &crate::cli::ReplayArgs) -> Result<u8, Error> {
    let context = Context::load(&args.common)?;
    let run = find_run(&args.run, &context.results(args.results.as_deref()))?;
    // Generated tests are rebuilt from the run's key: a different key gives other boards.
    let what = format!("replay {}", run.display());
    crate::secret::check(
        crate::secret::recorded(&run).as_deref(),
        args.secret.secret.as_ref(),
        &what,
    )
    .map_err(Error::Usage)?;
    if let Some(id) = &args.problem {
        find_problem(id)?;
    }
    let rows = read_scores(&run).map_err(Error::Usage)?;
    let selected = select(args, &run, &rows)?;
    if args.transcript {
        return print_transcript(args, &context, &run, &selected);
    }
    let mut failed = false;
    for row in selected {
        let problem = find_problem(&row.problem)?;
        let env = run_env(&context, &run, problem.id(), args);
        match write(&run, problem.as_ref(), &env, row) {
            Ok(path) => println!("{}", path.display()),
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    crate::report::html::write(&run, &rows)
        .map_err(|e| Error::fault(format!("cannot write report.html: {e}")))?;
    println!("{}", run.join("report.html").display());
    Ok(if failed {
        crate::exit::HARNESS_ERROR
    } else {
        crate::exit::OK
    })
}

/// The tests `harness replay` is asked for: `--seed` (with `--player`), or the `--worst N`
/// of each player among those with a kept transcript.
fn select<'a>(
    args: &crate::cli::ReplayArgs,
    run: &Path,
    rows: &'a [Row],
) -> Result<Vec<&'a Row>, Error> {
    let chosen: Vec<&Row> = rows
        .iter()
        .filter(|r| problem::has_views(&r.problem))
        .filter(|r| args.problem.as_ref().is_none_or(|p| *p == r.problem))
        .filter(|r| args.player.as_ref().is_none_or(|p| *p == r.player))
        .collect();
    if chosen.is_empty() {
        let mut players: Vec<&str> = rows
            .iter()
            .filter(|r| problem::has_views(&r.problem))
            .map(|r| r.player.as_str())
            .collect();
        players.dedup();
        return Err(Error::Usage(format!(
            "run {} has no test of an interactive problem{}; its players: {}",
            run.display(),
            args.player
                .as_ref()
                .map_or(String::new(), |p| format!(" by player {p:?}")),
            if players.is_empty() {
                "none".to_string()
            } else {
                players.join(", ")
            }
        )));
    }
    let selected: Vec<&Row> = match (&args.seed, args.worst) {
        (Some(seed), _) => {
            let hits: Vec<&Row> = chosen.iter().copied().filter(|r| r.seed == *seed).collect();
            if hits.is_empty() {
                return Err(Error::Usage(format!(
                    "run {} has no test with seed {seed}{}",
                    run.display(),
                    args.player
                        .as_ref()
                        .map_or(String::new(), |p| format!(" for player {p:?}"))
                )));
            }
            // Asking for a test whose transcript the run did not keep is the user's mistake.
            if let Some(row) = hits.iter().find(|r| !has_transcript(run, r)) {
                read_transcript(run, row).map_err(Error::Usage)?;
            }
            hits
        }
        (None, Some(n)) => {
            // The worst among the tests whose transcript was kept (`--transcripts failed`).
            let owned: Vec<Row> = chosen
                .iter()
                .filter(|r| has_transcript(run, r))
                .map(|r| (*r).clone())
                .collect();
            let keys: Vec<(String, String, String)> = worst(&owned, n)
                .into_iter()
                .map(|r| (r.problem.clone(), r.player.clone(), r.seed.clone()))
                .collect();
            chosen
                .iter()
                .copied()
                .filter(|r| keys.contains(&(r.problem.clone(), r.player.clone(), r.seed.clone())))
                .collect()
        }
        (None, None) => {
            return Err(Error::Usage(
                "which tests? give --seed S (with --player P) or --worst N".into(),
            ))
        }
    };
    Ok(selected)
}

/// What a run's tests of a problem were made from: today's settings with the run's move cap
/// (a rule of the game) and the key given now.
fn run_env(context: &Context, run: &Path, problem: &str, args: &crate::cli::ReplayArgs) -> Env {
    let mut env = context.env(problem, args.secret.secret.as_ref());
    if let Some(cap) = run_move_cap(run, problem) {
        env.config.move_cap = cap;
    }
    env
}

/// `harness replay --transcript`: prints the whole conversation of one test.
fn print_transcript(
    args: &crate::cli::ReplayArgs,
    context: &Context,
    run: &Path,
    selected: &[&Row],
) -> Result<u8, Error> {
    let [row] = selected[..] else {
        return Err(Error::Usage(format!(
            "--transcript prints one test: seed {} has {} tests in run {}; choose one with \
             --player",
            args.seed.as_deref().unwrap_or_default(),
            selected.len(),
            run.display()
        )));
    };
    let problem = find_problem(&row.problem)?;
    let env = run_env(context, run, problem.id(), args);
    match full_transcript(run, problem.as_ref(), &env, row) {
        Ok(text) => {
            print!("{text}");
            Ok(crate::exit::OK)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(crate::exit::HARNESS_ERROR)
        }
    }
}
