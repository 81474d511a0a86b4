//! Linez player: a search over its own moves and the random landings of `nextThree`.
//!
//! Every legal move gets a quick value (points, free space, line potential); the best few,
//! after a connectivity check, are scored by the expected value of the best reply over
//! sampled landings (see `search.rs`; the evaluation is in `eval.rs`, the rules in
//! `rules.rs`). The work is counted in evaluations, not in time, so a game is the same on a
//! busy machine: full effort for the first `LINEZ_SEARCH_NODES` evaluations of a game, the
//! quick evaluation alone after that ([`Budget`]). `selfplay.rs` plays whole games without
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

/// How much work a game may take: full effort until `nodes` evaluations are spent, then
/// the quick evaluation alone (about 1,000 evaluations a move).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    pub(crate) full: Effort,
    pub(crate) nodes: u64,
}

impl Budget {
    /// From `LINEZ_SEARCH_NODES` (default 3,000,000, about two seconds of thinking:
    /// some 500 moves at full effort), `LINEZ_SEARCH_CANDIDATES` (20) and
    /// `LINEZ_SEARCH_SAMPLES` (48).
    pub(crate) fn from_env() -> Budget {
        Budget {
            full: Effort {
                candidates: env_u64("LINEZ_SEARCH_CANDIDATES", 20) as usize,
                samples: env_u64("LINEZ_SEARCH_SAMPLES", 48) as usize,
            },
            nodes: env_u64("LINEZ_SEARCH_NODES", 3_000_000),
        }
    }

    /// The effort for the next move, given the evaluations spent so far.
    pub(crate) fn effort(&self, spent: u64) -> Effort {
        if spent < self.nodes {
            self.full
        } else {
            QUICK
        }
    }
}

/// The quick evaluation alone.
const QUICK: Effort = Effort {
    candidates: 1,
    samples: 0,
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
