//! A test whose contest tool starts the player itself (interactive AtCoder testers, TopCoder
//! tester jars): the tool runs contained with the relay's command in place of the player
//! (`sandbox::relay`), and the game proxies between the relay and the player's [`Channel`],
//! so the player is the harness's as in any built-in problem: the same checks of every line,
//! limits, thinking clock, transcript, `--verbose` and verdicts.
//!
//! # Who is at fault
//!
//! - A fault of the player on the wire (time, a line too long or not text, too much output)
//!   ends the test with the player's verdict, whatever the tool says after.
//! - The tool ran and scored: that score. It reported an invalid answer (no score, an error
//!   score, or a failure once the player has spoken, a panic included): WA with the tool's
//!   last lines, never a rerun; a player that left or crashed first then gets RE or MLE from
//!   the runner as on a built-in problem.
//! - The tool could not start, never started its player, failed before the player spoke, or
//!   ran past its own time: ERR (not the player's fault; `--resume` runs it again).
//!
//! # The clock
//!
//! As for a built-in judge: it starts when the tool's lines are handed to the player and
//! stops at the player's line. The time from the player's line to the tool's next message
//! is the tool's and is dropped (the next send restarts the clock) — unless the player's
//! time runs out in it, which cannot be told apart from a player computing its next line
//! unasked, and is the player's TLE. The time before the tool's first message (a JVM
//! starting) is never the player's.

use std::time::{Duration, Instant};

use crate::problem::{Channel, Heard};
use crate::sandbox::relay::{Accepted, Link, Relay};
use crate::sandbox::tool::{self, ToolCommand, ToolDir, ToolEnd, ToolRun};
use crate::sandbox::Isolation;
use crate::verdict::{Fault, Outcome, Verdict};

/// How the conversation through the relay ended.
#[derive(Debug)]
pub enum Talk {
    /// It ended without a fault of the player: the tool closed it, or the player ended its
    /// output (`left`: how, for the runner to tell a crash).
    Ended { moves: u64, left: Option<Fault> },
    /// The player committed a fault: its verdict, whatever the tool says.
    Fault { fault: Fault, moves: u64 },
    /// The tool never started its player (it ended first, or took longer than its time).
    NeverStarted(String),
    /// The harness could not set the relay up.
    Broken(String),
}

/// Time a tool gets to take the player's last lines once the player has ended.
const FLUSH: Duration = Duration::from_secs(5);

/// Runs the tool (`command` makes its command from its folder and the relay's argv) with a
/// relay to `player`, and proxies until both have ended. Returns the conversation and the
/// tool's run (`None` when the tool could not be set up).
pub fn play(
    isolation: &Isolation,
    command: impl FnOnce(&ToolDir, &[String]) -> ToolCommand,
    player: &mut dyn Channel,
) -> (Talk, Option<ToolRun>) {
    let dir = match ToolDir::new(isolation.scratch()) {
        Ok(d) => d,
        Err(e) => return (Talk::Broken(format!("cannot make the tool's folder: {e}")), None),
    };
    let relay = match Relay::listen(dir.path()) {
        Ok(r) => r,
        Err(e) => return (Talk::Broken(format!("cannot set up the relay: {e}")), None),
    };
    let mut cmd = command(&dir, &relay.argv());
    cmd.read_only.push(relay.exe().to_path_buf());
    let (done, ended) = match crate::sandbox::relay::end_signal() {
        Ok(pair) => pair,
        Err(e) => return (Talk::Broken(format!("cannot set up the relay: {e}")), None),
    };
    let timeout = cmd.timeout;
    std::thread::scope(|scope| {
        let (cmd, dir) = (&cmd, &dir);
        let tool = scope.spawn(move || {
            let run = tool::run(isolation, cmd, dir);
            drop(done);
            run
        });
        let talk = match relay.accept(ended.fd(), Instant::now() + timeout) {
            Ok(Accepted::Link(mut link)) => {
                let talk = proxy(&mut link, player);
                // Closing the connection ends the relay: the tool sees its player end.
                drop(link);
                talk
            }
            Ok(Accepted::ToolEnded) => {
                Talk::NeverStarted("the tool ended without starting the player".into())
            }
            Ok(Accepted::TimedOut) => Talk::NeverStarted(format!(
                "the tool did not start the player within {} s",
                timeout.as_secs_f64()
            )),
            Ok(Accepted::Interrupted) => Talk::Fault {
                fault: Fault::Interrupted,
                moves: 0,
            },
            Err(e) => Talk::Broken(format!("the relay failed: {e}")),
        };
        let run = tool.join().expect("the tool's thread");
        (talk, Some(run))
    })
}

/// Proxies until the conversation ends: the tool's complete lines to the player, the
/// player's lines to the tool.
fn proxy(link: &mut Link, player: &mut dyn Channel) -> Talk {
    let mut moves = 0;
    loop {
        link.exchange();
        if let Some(lines) = link.take_lines() {
            if let Err(fault) = player.send(&lines) {
                return match fault {
                    // The player stopped reading (it has ended): the tool judges what it got.
                    Fault::Gone(_) => player_left(link, moves, fault),
                    fault => Talk::Fault { fault, moves },
                };
            }
            continue;
        }
        if link.read_closed() {
            if link.peer_gone() {
                // The tool ended (or ended the relay): the game is over.
                return Talk::Ended { moves, left: None };
            }
            // The tool closed the player's input and waits for the rest of its output.
            return match player.recv_to_end() {
                Ok(rest) => {
                    for line in rest.lines() {
                        moves += 1;
                        link.queue(line);
                    }
                    link.close_write(Instant::now() + FLUSH);
                    Talk::Ended { moves, left: None }
                }
                Err(fault) => Talk::Fault { fault, moves },
            };
        }
        match player.recv_or(link.fd(), link.wants_write()) {
            Ok(Heard::Line(line)) => {
                moves += 1;
                link.queue(line);
            }
            Ok(Heard::Other) => {}
            Err(Fault::Eof) => return player_left(link, moves, Fault::Eof),
            Err(fault) => return Talk::Fault { fault, moves },
        }
    }
}

/// The player ended its side: the tool gets what is in flight, then the end of its output.
fn player_left(link: &mut Link, moves: u64, how: Fault) -> Talk {
    link.close_write(Instant::now() + FLUSH);
    Talk::Ended {
        moves,
        left: Some(how),
    }
}

/// What a tool's score says, from the shared score reading of the problem: the score, or
/// why there is none (the tool's own words).
pub type Scored = Result<f64, String>;

/// The outcome of a relayed test: the player's fault first, then the tool's judgement.
/// `scored` reads the tool's run (its score, or why the answer is invalid).
pub fn outcome(
    talk: Talk,
    run: Option<&ToolRun>,
    timeout: Duration,
    scored: impl FnOnce(&ToolRun) -> Scored,
) -> Outcome {
    let (moves, left) = match talk {
        Talk::Fault { fault, moves } => return Outcome::fault(&fault, 0.0, moves),
        Talk::Broken(why) => return Outcome::failed(Verdict::HarnessError, why),
        Talk::NeverStarted(why) => {
            let tail = run.map(|r| tool_words(r, timeout)).unwrap_or_default();
            return Outcome::failed(Verdict::HarnessError, format!("{why}{tail}"));
        }
        Talk::Ended { moves, left } => (moves, left),
    };
    let Some(run) = run else {
        return Outcome::failed(Verdict::HarnessError, "the tool did not run");
    };
    match &run.end {
        ToolEnd::Interrupted => return Outcome::fault(&Fault::Interrupted, 0.0, moves),
        ToolEnd::NotStarted(_) | ToolEnd::TimedOut => {
            let why = format!("the tool {}", run.describe_end(timeout));
            return Outcome::failed(Verdict::HarnessError, why);
        }
        ToolEnd::Exited(_) | ToolEnd::OutputLimit => {}
    }
    let spoke = moves > 0 || left.is_some();
    match scored(run) {
        Ok(score) if run.succeeded() => Outcome::ok(score, moves),
        // A score with a failing exit, or no score: the tool did not accept the answer.
        result => {
            if !spoke {
                let why = "the tool failed before the player answered";
                return Outcome::failed(
                    Verdict::HarnessError,
                    format!("{why}{}", tool_words(run, timeout)),
                );
            }
            let why = match result {
                Err(why) => why,
                Ok(_) => format!("the tool {}", run.describe_end(timeout)),
            };
            Outcome {
                verdict: Verdict::WrongAnswer,
                score: 0.0,
                moves,
                reason: why,
                // A player that left first: the runner tells a crash (RE) from a clean exit.
                fault: left,
            }
        }
    }
}

/// How a tool ended and its last lines, for a reason (`: exit status 1: thread 'main'...`).
fn tool_words(run: &ToolRun, timeout: Duration) -> String {
    let last = run.last_lines(3);
    let end = run.describe_end(timeout);
    if last.is_empty() {
        format!(" ({end})")
    } else {
        format!(" ({end}): {}", last.replace('\n', " | "))
    }
}
