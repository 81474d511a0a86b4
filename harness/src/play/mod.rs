//! `harness play`: a person is the player, in the terminal.
//!
//! The game is the same [`crate::problem::Game`] the runner judges; only the channel differs:
//! [`Terminal`] shows the board before each move and reads the person's move from stdin. A
//! move the rules refuse is explained and asked again instead of ending the game: before a
//! move reaches the judge, the problem's own terminal view checks it with the problem's rule
//! code ([`crate::problem::Views::terminal`]); this module names no problem.
//! The accepted moves are recorded as a transcript and saved as a run `play-<time>` under
//! `results/`, with its replay page, so `harness replay` shows the game again.
//!
//! This module reads stdin, writes stdout and the run folder; it starts no process.

use std::io::{BufRead, IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::cli::PlayArgs;
use crate::context::{find_problem, Context};
use crate::error::Error;
use crate::exit;
use crate::problem::views::{paint, TerminalView};
use crate::problem::{CaseKey, Channel};
use crate::replay::Replays;
use crate::report::files::RunFiles;
use crate::report::{Event, Reporter, RunState, Summary};
use crate::rundir::Layout;
use crate::runner::TestResult;
use crate::session::StderrTail;
use crate::transcript::Recorder;
use crate::verdict::{Fault, Outcome};

/// The channel of a person at a terminal.
struct Terminal<'a> {
    view: Box<dyn TerminalView + 'a>,
    input: Box<dyn BufRead + 'a>,
    out: Box<dyn Write + 'a>,
    colour: bool,
    line: String,
    think: Duration,
    /// A message to show above the next board (a refused move, an answer to a request).
    notice: String,
    /// The person ended the game (`quit`, or the end of input), rather than the rules.
    quit: bool,
}

impl Terminal<'_> {
    fn say(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }
}

impl Channel for Terminal<'_> {
    fn send(&mut self, text: &str) -> Result<(), Fault> {
        self.view.on_message(text);
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        let mut redraw = true;
        loop {
            let notice = std::mem::take(&mut self.notice);
            if redraw {
                let board = self.view.render(self.colour);
                self.say(&format!("\n{board}{notice}move> "));
            } else {
                self.say(&format!("{notice}move> "));
            }
            redraw = false;
            let mut typed = String::new();
            let start = Instant::now();
            let read = self.input.read_line(&mut typed);
            self.think += start.elapsed();
            match read {
                Ok(0) | Err(_) => {
                    self.say("\n(end of input: the game ends)\n");
                    self.quit = true;
                    return Err(Fault::Eof);
                }
                Ok(_) => {}
            }
            let typed = typed.trim();
            if !std::io::stdin().is_terminal() {
                // Piped input is not echoed by a terminal: show what was read.
                self.say(&format!("{typed}\n"));
            }
            match typed {
                "" => continue,
                "q" | "quit" | "exit" => {
                    self.quit = true;
                    return Err(Fault::Eof);
                }
                "?" | "h" | "help" => {
                    self.notice = format!("{}\n", self.view.help());
                    continue;
                }
                _ => {}
            }
            match self.view.check(typed) {
                Ok(Some(line)) => {
                    self.line = line;
                    return Ok(&self.line);
                }
                // A request the view answered (targets of a cell): show the board again.
                Ok(None) => redraw = true,
                Err(why) => {
                    self.notice = format!(
                        "{}\n",
                        paint(
                            self.colour,
                            "1;31",
                            &format!("illegal move {typed:?}: {why} (try another)")
                        )
                    );
                }
            }
        }
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        Err(Fault::Eof)
    }
}

/// Runs `harness play`.
pub fn main(args: &PlayArgs) -> Result<u8, Error> {
    let context = Context::load(&args.common)?;
    let problem = find_problem(&args.problem)?;
    let env = context.env(problem.id(), None);
    let key = CaseKey::Seed(args.seed);
    // Before the test is made: a problem judged by a contest's tools would run its gen.
    let Some(views) = problem.views() else {
        let judged_by = match problem.judge_identity() {
            Some(_) => " (it is judged by a contest's tools, which have no board to play on)",
            None => "",
        };
        return Err(Error::Usage(format!(
            "{} cannot be played in the terminal{judged_by}: play {}",
            problem.id(),
            crate::problem::interactive_ids().join(" or ")
        )));
    };
    let mut game = problem
        .case(&key, &env)
        .map_err(|e| Error::usage(e.to_string()))?;
    let view = views.terminal(&key, &env).map_err(Error::Usage)?;
    if args.name.is_empty() || args.name.contains(['/', '\\']) || args.name.starts_with('.') {
        return Err(Error::Usage(format!(
            "--name {:?}: a player name is a plain file name",
            args.name
        )));
    }
    let mut result = play_in_terminal(args, problem.as_ref(), view, game.as_mut());
    result.problem = problem.id();
    result.params = game.params();
    if result.outcome.moves == 0 {
        // Nothing to replay or compare: it must not become `latest`.
        println!("no move was made: the game is not saved");
        return Ok(exit::OK);
    }
    let results = context.results(args.results.as_deref());
    match save(&results, args, problem.as_ref(), env, &result) {
        Ok(dir) => {
            let id = dir
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().to_string());
            println!("saved: {}", dir.display());
            println!(
                "replay: {} replay {id} --player {} --seed {}",
                crate::invocation::program(),
                args.name,
                args.seed
            );
            Ok(exit::OK)
        }
        Err(e) => {
            eprintln!("error: cannot save the game: {e}");
            Ok(exit::HARNESS_ERROR)
        }
    }
}

/// A person plays `game` at the terminal, one move per line; the result of the test (its
/// problem and parameters are the caller's to set).
fn play_in_terminal(
    args: &PlayArgs,
    problem: &dyn crate::problem::Problem,
    view: Box<dyn TerminalView>,
    game: &mut dyn crate::problem::Game,
) -> TestResult {
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let stdin = std::io::stdin();
    let mut terminal = Terminal {
        view,
        input: Box::new(stdin.lock()),
        out: Box::new(std::io::stdout()),
        colour,
        line: String::new(),
        think: Duration::ZERO,
        notice: String::new(),
        quit: false,
    };
    terminal.say(&format!(
        "{} seed {}: {}\n",
        problem.title(),
        args.seed,
        terminal.view.help()
    ));
    let start = Instant::now();
    let mut recorder = Recorder::for_problem(problem, &mut terminal);
    let mut outcome: Outcome = game.play(&mut recorder);
    let transcript = recorder.text;
    if terminal.quit && outcome.fault == Some(Fault::Eof) {
        // A person who stops is not a wrong answer: the game keeps what its moves earned.
        outcome = Outcome {
            reason: format!("quit after {} moves", outcome.moves),
            ..Outcome::ok(terminal.view.score(), outcome.moves)
        };
    }
    let board = terminal.view.render(colour);
    let reason = match outcome.reason.as_str() {
        "" => String::new(),
        reason => format!(": {reason}"),
    };
    terminal.say(&format!(
        "\n{board}game over: score {} ({}{reason}), {} moves\n",
        outcome.score,
        outcome.verdict.code(),
        outcome.moves
    ));
    TestResult {
        problem: "",
        player: args.name.clone(),
        case: CaseKey::Seed(args.seed),
        params: Vec::new(),
        outcome,
        think: terminal.think,
        wall: start.elapsed(),
        cpu: Duration::ZERO,
        max_memory_kb: 0,
        stderr: StderrTail::default(),
        player_hash: String::new(),
        warning: String::new(),
        transcript,
        pictures: Vec::new(),
    }
}

/// Saves a played game as a run of its own (`results/play-<timestamp>/`), through the same
/// reporters as a run: its files, its replay and report. Returns the run's folder.
fn save(
    results: &std::path::Path,
    args: &PlayArgs,
    problem: &dyn crate::problem::Problem,
    env: crate::problem::Env,
    result: &TestResult,
) -> Result<std::path::PathBuf, String> {
    let run_toml = format!(
        "harness-version = {:?}\ncommand = {:?}\nplayer = {:?}\nplayed = true\n",
        env!("CARGO_PKG_VERSION"),
        std::env::args().collect::<Vec<_>>().join(" "),
        args.name
    );
    let names = problem.param_names().iter().map(|p| p.to_string());
    let layout = Layout::new(&[(problem.id().to_string(), names.collect())]);
    let mut files =
        RunFiles::create(results, "play-", layout, &run_toml).map_err(|e| e.to_string())?;
    // `latest` is the run compare and report take by default: a game by hand is not one.
    files.links_latest = false;
    let row = crate::execute::score_row(result, problem.param_names());
    let roster = [(problem.id().to_string(), vec![args.name.clone()])];
    let mut state = RunState::new(&files.id, &files.dir, Summary::new(&roster, 1), 1);
    state.add(row);
    state.complete = true;
    let envs = vec![(problem.id().to_string(), env)];
    let mut reporters: [Box<dyn Reporter>; 2] = [
        Box::new(files),
        Box::new(Replays {
            envs,
            keep: Default::default(),
        }),
    ];
    for event in [Event::TestFinished(result), Event::RunFinished] {
        for reporter in reporters.iter_mut() {
            reporter.on_event(&event, &mut state)?;
        }
    }
    Ok(state.dir)
}
