//! A tester that starts its player more than once in one test: an edited AtCoder tester that
//! also plays a "ground truth" or baseline game per input and prints a score of its own
//! making. Each start is a new game through the relay, up to `max-starts` in problem.toml
//! ([`super::config::Def::max_starts`]): the relay keeps listening after a game, and each
//! further connection from the tool's own processes is the player started again
//! ([`Channel::restart`]: a fresh process in a fresh sandbox, the same limits), proxied as
//! the first ([`super::relayed::proxy`]).
//!
//! - Each start's thinking clock starts at zero: the time limit holds each start on its own
//!   (a tester that plays two games gives the player the contest's time in each; the tool's
//!   own time grows by a time limit per start allowed).
//! - A fault of any start (time, a line too long or not text, too much output) ends the test
//!   with that verdict; a start that crashes or runs out of memory is the test's RE or MLE
//!   (`session::again`).
//! - The score is the tool's, read as always (its last score line).
//! - Games are played one after another: a tester that keeps one game waiting while it
//!   starts the next is not supported (the next start waits until the game before ends).
//! - A start past `max-starts` finds no socket: ERR naming the key and its file
//!   ([`past_the_cap`]).
//!
//! Touches the relay's socket (through [`Relay`]) and the player's channel, nothing else.

use std::os::fd::BorrowedFd;
use std::time::{Duration, Instant};

use super::config::Def;
use super::relayed::{first_message, proxy, Talk};
use crate::problem::Channel;
use crate::sandbox::relay::{Accepted, Link, Pipes, Relay};
use crate::verdict::{Fault, Outcome, Verdict};

/// Plays the tester's games with the player until the tool ends or has started its player
/// `max_starts` times: the first start is the player the runner made, each further one
/// [`Channel::restart`]. `timeout`: the tool's time (how long its first message of a game
/// may take); `deadline`: when its run ends at the latest. The relay is let go on return,
/// so that a tool that starts its player again after a fault waits for nothing.
pub(super) fn games(
    relay: Relay,
    ended: BorrowedFd<'_>,
    deadline: Instant,
    timeout: Duration,
    owner: &dyn Fn() -> Option<i32>,
    max_starts: u32,
    player: &mut dyn Channel,
) -> Talk {
    let mut moves = 0;
    let mut left = None;
    for start in 1..=max_starts.max(1) {
        let pipes = match relay.accept_next(ended, deadline, owner, start == max_starts) {
            Ok(Accepted::Pipes(pipes)) => pipes,
            // The tool played its games (or ran past its time: its run says so).
            Ok(Accepted::ToolEnded | Accepted::TimedOut) if start > 1 => break,
            Ok(other) => return not_started(other, timeout),
            Err(e) => return Talk::Broken(format!("the relay failed: {e}")),
        };
        if start > 1 {
            if let Err(fault) = player.restart() {
                return Talk::Broken(format!("cannot start the player again: {fault}"));
            }
        }
        match game(pipes, timeout, player) {
            Talk::Ended { moves: m, left: l } => {
                moves += m;
                left = left.or(l);
            }
            Talk::Fault { fault, moves: m } => {
                return Talk::Fault {
                    fault,
                    moves: moves + m,
                }
            }
            other => return other,
        }
    }
    Talk::Ended { moves, left }
}

/// One game over the tester's pipes: its first message (never the player's time), then the
/// proxy until the game ends. Dropping the link ends the relay: the tool sees its player end.
fn game(pipes: Pipes, timeout: Duration, player: &mut dyn Channel) -> Talk {
    match Link::new(pipes) {
        Ok(mut link) => first_message(&link, Instant::now() + timeout)
            .unwrap_or_else(|| proxy(&mut link, player)),
        Err(e) => Talk::Broken(format!("the relay failed: {e}")),
    }
}

/// What it means that the tool's first start of the player never came.
pub(super) fn not_started(accepted: Accepted, timeout: Duration) -> Talk {
    match accepted {
        Accepted::Pipes(_) => Talk::Broken("the relay's pipes were not used".into()),
        // One prefix for both ways (which one a hung tool shows depends on which thread the
        // machine runs first), then how.
        Accepted::ToolEnded => {
            Talk::NeverStarted("the tool did not start the player: it ended first".into())
        }
        Accepted::TimedOut => Talk::NeverStarted(format!(
            "the tool did not start the player within {} s",
            timeout.as_secs_f64()
        )),
        Accepted::Interrupted => Talk::Fault {
            fault: Fault::Interrupted,
            moves: 0,
        },
    }
}

/// A tester that started its player more times than `max-starts` allows: the test cannot be
/// judged as the tool means it. ERR, not the player's fault, naming the key, its file and
/// what the games so far gave; the cap is raised in problem.toml.
pub(super) fn past_the_cap(def: &Def, games: &Outcome) -> Outcome {
    let so_far = match games.verdict {
        Verdict::Ok => format!("score {}", games.score),
        v => format!("{}: {}", v.code(), games.reason),
    };
    let n = def.max_starts;
    let times = if n == 1 {
        "a second time".to_string()
    } else {
        format!("more than {n} times")
    };
    Outcome::failed(
        Verdict::HarnessError,
        format!(
            "the tester started its player {times}, past `max-starts = {n}` ({}); raise it there if the tester plays more games per input (the games so far: {so_far})",
            def.file.display()
        ),
    )
}
