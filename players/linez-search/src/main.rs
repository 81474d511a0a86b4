//! Linez player: a search over its own moves and the random landings of `nextThree`.
//!
//! Every legal move gets a quick value (points, free space, line potential); the best few,
//! after a connectivity check, are scored by the expected value of the best reply over
//! sampled landings (see `search.rs`; the evaluation is in `eval.rs`, the rules in
//! `rules.rs`). The work is counted in evaluations, not in time, so a game is the same on a
//! busy machine: full effort for the first half of the `LINEZ_SEARCH_NODES` evaluations of a
//! game, fewer samples as the rest runs out, the quick evaluation alone after that
//! ([`Budget`]). `selfplay.rs` plays whole games without
//! the harness (`linez-search --selfplay FIRST LAST`).
//!
//! Deterministic for a given `PLAYER_SEED` (a u64, default 1). Standalone (its own rule code).
//!
//! Protocol: each turn 9 board rows (top first, `.` empty) and a `nextThree` line on stdin;
//! answer `FROMTO` such as `I8F6` (row letter A..I from the top, column digit 1..9). The game
//! is over when stdin closes.

mod eval;
mod rng;
mod rules;
mod search;
mod selfplay;

use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use eval::Weights;
use rules::{name, Board, SIDE};
use search::{Effort, Search};

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| {
            eprintln!("{name}={text:?} is not a number");
            std::process::exit(2);
        }),
        Err(_) => default,
    }
}

/// How much work a game may take: `nodes` evaluations, spent as [`Budget::effort`] says.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    pub(crate) full: Effort,
    pub(crate) nodes: u64,
}

impl Budget {
    /// From `LINEZ_SEARCH_NODES` (default 8,000,000, about 1.8 s of CPU for a game of 300
    /// moves), `LINEZ_SEARCH_CANDIDATES` (40),
    /// `LINEZ_SEARCH_SAMPLES` (16, the first round's) and `LINEZ_SEARCH_HALVING` (1: on; 0:
    /// every candidate gets the same samples).
    pub(crate) fn from_env() -> Budget {
        Budget {
            full: Effort {
                candidates: env_u64("LINEZ_SEARCH_CANDIDATES", 40) as usize,
                samples: env_u64("LINEZ_SEARCH_SAMPLES", 16) as usize,
                halving: env_u64("LINEZ_SEARCH_HALVING", 1) != 0,
            },
            nodes: env_u64("LINEZ_SEARCH_NODES", 8_000_000),
        }
    }

    /// The effort for the next move, given the evaluations spent so far: full effort for
    /// the first half of the budget, half the samples for the next quarter, a quarter of them
    /// for the next eighth, and so on; the quick evaluation alone once no sample is left or
    /// the budget is spent.
    pub(crate) fn effort(&self, spent: u64) -> Effort {
        let mut samples = self.full.samples;
        let mut left = self.nodes.saturating_sub(spent);
        while left <= self.nodes >> 1 && samples > 0 {
            samples >>= 1;
            left <<= 1;
        }
        if samples == 0 || spent >= self.nodes {
            QUICK
        } else {
            Effort {
                samples,
                ..self.full
            }
        }
    }
}

/// The quick evaluation alone.
const QUICK: Effort = Effort {
    candidates: 1,
    samples: 0,
    halving: false,
};

/// Thinking time after which the player stops searching and makes its first line, else its
/// first legal move: a safety net far above a normal game's time that keeps it within the
/// statement's 20 s on a very slow or very busy machine (the only place where time, not work,
/// decides, so a game is reproducible unless it gets here).
const PANIC: Duration = Duration::from_secs(16);

fn main() -> io::Result<()> {
    let seed = env_u64("PLAYER_SEED", 1);
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--selfplay") {
        selfplay::run(&args[1..], seed);
        return Ok(());
    }
    let mut search = Search::new(seed, Weights::default());
    let budget = Budget::from_env();
    let mut thinking = Duration::ZERO;
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = io::stdout().lock();
    loop {
        let mut rows = Vec::with_capacity(SIDE);
        for _ in 0..SIDE {
            let Some(line) = lines.next().transpose()? else {
                return Ok(());
            };
            rows.push(line);
        }
        let Some(next) = lines.next().transpose()? else {
            return Ok(());
        };
        let board = Board::parse(&rows);
        let next: Vec<u8> = next
            .trim()
            .bytes()
            .filter(|b| (b'1'..=b'7').contains(b))
            .map(|b| b - b'0')
            .collect();
        let next = [0, 1, 2].map(|i| next.get(i).copied().unwrap_or(1));
        let start = Instant::now();
        let chosen = if thinking < PANIC {
            search.choose(&board, next, budget.effort(search.nodes))
        } else {
            search::first_move(&board)
        };
        thinking += start.elapsed();
        let (from, to) = chosen.unwrap_or((0, 1));
        writeln!(out, "{}{}", name(from), name(to))?;
        out.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_effort_tapers_as_the_budget_runs_out() {
        let budget = Budget {
            full: Effort {
                candidates: 20,
                samples: 16,
                halving: true,
            },
            nodes: 1000,
        };
        let samples = |spent| budget.effort(spent).samples;
        assert_eq!(samples(0), 16);
        assert_eq!(samples(499), 16);
        assert_eq!(samples(500), 8);
        assert_eq!(samples(749), 8);
        assert_eq!(samples(750), 4);
        assert_eq!(samples(875), 2);
        assert_eq!(samples(940), 1);
        assert_eq!(samples(969), 0);
        assert_eq!(budget.effort(969).candidates, 1);
        assert_eq!(samples(1000), 0);
        assert_eq!(samples(5000), 0);
        assert_eq!(budget.effort(100).candidates, 20);
    }
}
