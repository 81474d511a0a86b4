//! Self-play without the harness, to tune the player quickly: `linez-search --selfplay
//! FIRST LAST` plays seeds FIRST..=LAST with the judge's rules (as `rules.rs` has them) and
//! its own random stream per seed (not the harness's, so scores differ from a harness run
//! seed by seed but not in distribution), and prints each game and the mean. For tuning,
//! `W_EMPTY`, `W_CUT`, `W_POINT`, `W_NEXT`, `W_RUN`, `W_MIX`, `W_PLAN1`, `W_PLAN2`,
//! `W_PLANS2`, `W_STUCK4` and `W_WIN0`..`W_WIN4` override the evaluation's weights, and
//! `SHOW=1` prints every position the player sees and the move it makes.
//!
//! `PREVIEW=1` plays Color Lines 98 instead: the player is shown the cells the next three
//! numbers will land on, as that game shows them (Linez does not). It measures what that
//! information is worth to this player (the programs whose scores issue 14 quotes play with
//! it).

use std::time::Instant;

use crate::eval::Weights;
use crate::rng::Rng;
use crate::rules::{Board, COLORS};
use crate::search::{land_previewed, random_order, Search};

fn draw_next(rng: &mut Rng) -> [u8; 3] {
    std::array::from_fn(|_| 1 + rng.below(u32::from(COLORS)) as u8)
}

/// Plays one game; returns (score, moves). With `preview`, the rules of Color Lines 98: the
/// cells the next three numbers will land on are drawn before the move and shown to the
/// player ([`Search::preview`]); a number whose cell the move took lands on a random empty
/// cell (with fewer than 3 empty cells, the numbers land at random, unshown).
pub(crate) fn game(
    seed: u64,
    player_seed: u64,
    weights: Weights,
    move_cap: u64,
    preview: bool,
) -> (u64, u64) {
    let mut rng = Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0xABCD);
    let mut board = Board::EMPTY;
    for _ in 0..3 {
        let cell = crate::rules::nth_cell(board.empty(), rng.below(board.empty_count()));
        board.put(cell, 1 + rng.below(u32::from(COLORS)) as u8);
    }
    let mut next = draw_next(&mut rng);
    let mut search = Search::new(player_seed, weights);

    let budget = crate::Budget::from_env();
    let (mut score, mut moves) = (0u64, 0u64);
    let show = std::env::var("SHOW").is_ok();
    // The cells shown for the next landing: drawn before the move that precedes it, and
    // kept across the lines made before it.
    let mut shown: Option<[u8; 3]> = None;
    while board.empty_count() > 0 && moves < move_cap {
        if board.empty_count() == 81 {
            score += board.land(next, &mut rng);
            next = draw_next(&mut rng);
            continue;
        }
        if show {
            println!("sees (next {next:?}):");
            print!("{}", board.rows());
        }
        if preview && shown.is_none() && board.empty_count() >= 3 {
            let mut left = board.empty();
            shown = Some(std::array::from_fn(|_| {
                let cell = crate::rules::nth_cell(left, rng.below(left.count_ones()));
                left &= !(1 << cell);
                cell as u8
            }));
        }
        search.preview = shown;
        let Some((from, to)) = search.choose(&board, next, budget.effort(search.nodes)) else {
            break;
        };
        assert!(board.get(from) != 0 && board.reachable_from(from) & (1 << to) != 0);
        let removed = board.play(from, to);
        moves += 1;
        score += crate::rules::points(removed);
        if show {
            let (from, to) = (crate::rules::name(from), crate::rules::name(to));
            println!("move {moves} {from}{to}: {removed} removed, score {score}");
        }
        if removed == 0 {
            score += match shown.take() {
                Some(cells) => {
                    let order = random_order(&mut rng);
                    land_previewed(&mut board, next, &cells, &order)
                }
                None => board.land(next, &mut rng),
            };
            next = draw_next(&mut rng);
        }
    }
    (score, moves)
}

pub(crate) fn run(args: &[String], player_seed: u64) {
    let first: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(1);
    let last: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(first);
    let cap: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(u64::MAX);
    let weights = weights_from_env();
    let preview = std::env::var("PREVIEW").is_ok_and(|v| v == "1");
    let (mut total, mut count, mut min, mut max) = (0u64, 0u64, u64::MAX, 0u64);
    let mut total_moves = 0u64;
    let start = Instant::now();
    for seed in first..=last {
        let t = Instant::now();
        let (score, moves) = game(seed, player_seed, weights.clone(), cap, preview);
        println!(
            "seed {seed:4}  score {score:7}  moves {moves:6}  {:7.3}s",
            t.elapsed().as_secs_f64()
        );
        total += score;
        total_moves += moves;
        count += 1;
        min = min.min(score);
        max = max.max(score);
    }
    println!(
        "mean {:.1}  min {min}  max {max}  moves/game {:.0}  {:.3}s/game",
        total as f64 / count as f64,
        total_moves as f64 / count as f64,
        start.elapsed().as_secs_f64() / count as f64
    );
}

/// The default weights, each overridable by an environment variable (for tuning).
fn weights_from_env() -> Weights {
    let mut w = Weights::default();
    let get = |name: &str, v: &mut f32| {
        if let Some(x) = std::env::var(name).ok().and_then(|t| t.parse().ok()) {
            *v = x;
        }
    };
    get("W_EMPTY", &mut w.empty);
    get("W_CUT", &mut w.cut_off);
    get("W_POINT", &mut w.point);
    get("W_NEXT", &mut w.next);
    get("W_RUN", &mut w.run);
    get("W_MIX", &mut w.mixed);
    get("W_PLAN1", &mut w.plan1);
    get("W_PLAN2", &mut w.plan2);
    get("W_PLANS2", &mut w.plans2);
    get("W_STUCK4", &mut w.stuck4);
    for m in 0..5 {
        get(&format!("W_WIN{m}"), &mut w.window[m]);
    }
    w
}
