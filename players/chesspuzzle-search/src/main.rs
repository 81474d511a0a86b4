//! ChessPuzzle player: flat Monte Carlo over the hidden tiles.
//!
//! Every top tile is visible; the tiles under them are unknown, and each is uniform over the
//! 8 types. Each allowed click is scored by rollouts (`search.rs`) that draw the hidden
//! tiles as they are revealed; the work is counted in rollout steps, not in time, so a game
//! is the same on a busy machine: `CHESSPUZZLE_SEARCH_STEPS` (default 20,000,000, about
//! 0.85 s of CPU) for the game, spread over the tiles left. `selfplay.rs` plays whole games
//! without the harness (`chesspuzzle-search --selfplay FIRST LAST`).
//!
//! Deterministic for a given `PLAYER_SEED` (a u64, default 1). Standalone (its own rule code).
//!
//! Protocol: reads `H W K` and the H rows of top tiles, answers `ROW COL`; then reads the
//! tile now on top of the clicked cell (`-` once empty) and clicks again, until its input is
//! closed.

mod rng;
mod rules;
mod search;
mod selfplay;

use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use rules::{tile_of, Geometry, EMPTY};
use search::{Known, Search};

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| {
            eprintln!("{name}={text:?} is not a number");
            std::process::exit(2);
        }),
        Err(_) => default,
    }
}

/// Rollout steps for the whole game, and the rollout horizon.
pub(crate) struct Budget {
    pub(crate) total: u64,
    pub(crate) horizon: u32,
}

pub(crate) fn budget() -> Budget {
    Budget {
        total: env_u64("CHESSPUZZLE_SEARCH_STEPS", 20_000_000),
        horizon: env_u64("CHESSPUZZLE_SEARCH_HORIZON", 100_000) as u32,
    }
}

/// Thinking time after which the player stops searching and clicks the first allowed cell:
/// a safety net far above a normal game's time that keeps it within the statement's 20 s on
/// a very slow or very busy machine (the only place where time, not work, decides, so a game
/// is reproducible unless it gets here).
const PANIC: Duration = Duration::from_secs(15);

/// Steps for one click: the game's budget spread over the tiles left.
pub(crate) fn steps_for_click(budget: &Budget, used: u64, tiles_left: u64) -> u64 {
    budget.total.saturating_sub(used) / tiles_left.max(1)
}

/// The first click: the cell whose tile allows the most cells (the first of equals).
pub(crate) fn first_click(geometry: &Geometry, known: &Known) -> usize {
    (0..geometry.cells())
        .filter(|&c| known.top[c] != EMPTY)
        .max_by_key(|&c| {
            (
                geometry.allowed(&known.left, c, known.top[c]).len(),
                std::cmp::Reverse(c),
            )
        })
        .expect("a board has tiles")
}

fn main() -> io::Result<()> {
    let seed = env_u64("PLAYER_SEED", 1);
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--selfplay") {
        selfplay::run(&args[1..], seed);
        return Ok(());
    }
    let stdin = io::stdin();
    let mut input = stdin.lock().lines();
    let mut out = io::stdout().lock();
    let Some(header) = input.next().transpose()? else {
        return Ok(());
    };
    let dims: Vec<usize> = header
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    let [height, width, k] = dims[..] else {
        eprintln!("bad header {header:?}");
        std::process::exit(1);
    };
    let mut known = Known {
        top: Vec::with_capacity(height * width),
        left: vec![k as u8; height * width],
    };
    for _ in 0..height {
        let Some(row) = input.next().transpose()? else {
            return Ok(());
        };
        known.top.extend(
            row.trim()
                .bytes()
                .take(width)
                .map(|b| tile_of(b).unwrap_or(EMPTY)),
        );
    }
    known.top.resize(height * width, EMPTY);
    let budget = budget();
    let mut search = Search::new(Geometry::new(height, width), seed, budget.horizon);
    let mut tiles_left = (height * width * k) as u64;
    let mut cell = first_click(&search.geometry, &known);
    let mut thinking = Duration::ZERO;
    loop {
        writeln!(out, "{} {}", cell / width, cell % width)?;
        out.flush()?;
        // The judge closes our input when the game is over.
        let Some(line) = input.next().transpose()? else {
            return Ok(());
        };
        let tile = known.top[cell];
        known.left[cell] -= 1;
        tiles_left -= 1;
        known.top[cell] = line
            .trim()
            .bytes()
            .next()
            .and_then(tile_of)
            .unwrap_or(EMPTY);
        let allowed = search.geometry.allowed(&known.left, cell, tile);
        if allowed.len() == 0 {
            eprintln!("the judge goes on but no cell is allowed");
            std::process::exit(1);
        }
        let start = Instant::now();
        cell = if thinking < PANIC {
            let steps = steps_for_click(&budget, search.steps, tiles_left);
            search.choose(&known, allowed.as_slice(), steps)
        } else {
            allowed.as_slice()[0] as usize
        };
        thinking += start.elapsed();
    }
}
