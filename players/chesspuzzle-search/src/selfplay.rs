//! Self-play without the harness, to tune the player quickly: `chesspuzzle-search --selfplay
//! FIRST LAST` plays seeds FIRST..=LAST on boards drawn as the statement says (H, W uniform
//! in 6..15, K in 1..10, every tile uniform) from its own random stream per seed (not the
//! harness's), and prints each game and the mean score.

use std::time::Instant;

use crate::rng::Rng;
use crate::rules::{Geometry, EMPTY};
use crate::search::{Known, Search};

/// Plays one game; returns (score, clicks, tiles).
pub(crate) fn game(seed: u64, player_seed: u64) -> (f64, u64, u64) {
    game_with(seed, player_seed, crate::budget().total)
}

/// [`game`] with `steps` rollout steps for the game.
pub(crate) fn game_with(seed: u64, player_seed: u64, steps: u64) -> (f64, u64, u64) {
    let mut rng = Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x1234);
    let height = 6 + rng.below(10) as usize;
    let width = 6 + rng.below(10) as usize;
    let k = 1 + rng.below(10) as usize;
    let stacks: Vec<Vec<u8>> = (0..height * width)
        .map(|_| (0..k).map(|_| rng.below(8) as u8).collect())
        .collect();
    let mut known = Known {
        top: stacks.iter().map(|s| s[0]).collect(),
        left: vec![k as u8; height * width],
    };
    let budget = crate::Budget {
        total: steps,
        ..crate::budget()
    };
    let mut search = Search::new(Geometry::new(height, width), player_seed, budget.horizon);
    let total = (height * width * k) as u64;
    let mut tiles_left = total;
    let mut cell = crate::first_click(&search.geometry, &known);
    let mut clicks = 0;
    loop {
        let tile = known.top[cell];
        assert!(tile != EMPTY);
        known.left[cell] -= 1;
        tiles_left -= 1;
        clicks += 1;
        let depth = k - known.left[cell] as usize;
        known.top[cell] = if depth < k {
            stacks[cell][depth]
        } else {
            EMPTY
        };
        let allowed = search.geometry.allowed(&known.left, cell, tile);
        if allowed.len() == 0 {
            break;
        }
        let steps = crate::steps_for_click(&budget, search.steps, tiles_left);
        cell = search.choose(&known, allowed.as_slice(), steps);
    }
    (clicks as f64 / total as f64, clicks, total)
}

pub(crate) fn run(args: &[String], player_seed: u64) {
    let first: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(1);
    let last: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(first);
    let quiet = std::env::var("QUIET").is_ok();
    let (mut total, mut count, mut min, mut max) = (0.0, 0u64, f64::MAX, 0.0f64);
    let start = Instant::now();
    for seed in first..=last {
        let t = Instant::now();
        let (score, clicks, tiles) = game(seed, player_seed);
        if !quiet {
            println!(
                "seed {seed:4}  score {score:.4}  clicks {clicks:5}/{tiles:5}  {:7.3}s",
                t.elapsed().as_secs_f64()
            );
        }
        total += score;
        count += 1;
        min = min.min(score);
        max = max.max(score);
    }
    println!(
        "mean {:.4}  min {min:.4}  max {max:.4}  {:.3}s/game",
        total / count as f64,
        start.elapsed().as_secs_f64() / count as f64
    );
}
