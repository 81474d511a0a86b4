//! The yardsticks players are ranked by (`rank-by`): the relative score, pahcer's rank
//! score, the log average and the raw mean, and the one order of players each gives.
//!
//! Pure arithmetic on counted scores (`None` for a failed test, see
//! [`super::relative::counted`]); the leaderboard, `compare` and `tune` all rank through
//! [`order`], so the three agree. docs/compare.md defines each yardstick for users.

use std::cmp::Ordering;

pub use crate::config::RankBy;
use crate::problem::Objective;

/// Rank scores of a perfect test: pahcer shows them out of 100.
pub const RANK_SCALE: f64 = 100.0;

/// Two values closer than this (relatively) are a tie: the same scores summed in another
/// order differ in their last bits.
const TIE_TOLERANCE: f64 = 1e-9;

/// pahcer's rank score of each player on one test, in `0..=1`: for a counted score,
/// `1 - (players better + half the others tied with it) / players with a counted score`; a
/// failed test counts 0. A lone player with a score, or one better than every other, gets 1;
/// two tied players alone get 0.75 each.
pub fn rank_scores(counted: &[Option<f64>], objective: Objective) -> Vec<f64> {
    let mut scored: Vec<f64> = counted.iter().flatten().copied().collect();
    scored.sort_by(f64::total_cmp);
    let n = scored.len() as f64;
    counted
        .iter()
        .map(|mine| {
            let Some(s) = *mine else { return 0.0 };
            // Sorted: those below s, and those equal to it (s among them).
            let below = scored.partition_point(|&t| t < s);
            let equal = scored.partition_point(|&t| t <= s) - below;
            let better = match objective {
                Objective::Maximize => scored.len() - below - equal,
                Objective::Minimize => below,
            } as f64;
            1.0 - (better + 0.5 * (equal as f64 - 1.0)) / n
        })
        .collect()
}

/// The base-10 logarithm of a counted score, `None` for a failed test and for a score of 0
/// or less (which has no logarithm, and so counts as a failed test for the log average).
pub fn log_score(counted: Option<f64>) -> Option<f64> {
    counted.filter(|&s| s > 0.0).map(f64::log10)
}

/// Whether a yardstick sets failed tests beside its value (ranking fewer of them first)
/// rather than counting them in it: the log average, and the raw mean when minimising (a
/// failed test's 0 would look like the best score).
pub fn failures_beside(rank_by: RankBy, objective: Objective) -> bool {
    match rank_by {
        RankBy::Relative | RankBy::Rank => false,
        RankBy::Log => true,
        RankBy::Raw => objective == Objective::Minimize,
    }
}

/// Whether a larger value of the yardstick is better.
pub fn larger_is_better(rank_by: RankBy, objective: Objective) -> bool {
    match rank_by {
        RankBy::Relative | RankBy::Rank => true,
        RankBy::Log | RankBy::Raw => objective == Objective::Maximize,
    }
}

/// A player's standing by a yardstick: its value (`None` when no test has one) and, for a
/// yardstick with [`failures_beside`], the tests it leaves out.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mark {
    pub value: Option<f64>,
    /// Tests left out of `value` (0 for a yardstick that counts failures in its value).
    pub left_out: u64,
}

/// A player's mark from its per-test values (`None`: the test has none), averaged over the
/// tests that have one when failures stand beside the value, else over every test (a test
/// without a value then counting 0).
pub fn mark(per_test: &[Option<f64>], beside: bool) -> Mark {
    let valued: Vec<f64> = per_test.iter().flatten().copied().collect();
    if beside {
        Mark {
            value: mean(&valued),
            left_out: (per_test.len() - valued.len()) as u64,
        }
    } else {
        let all: Vec<f64> = per_test.iter().map(|v| v.unwrap_or(0.0)).collect();
        Mark {
            value: mean(&all),
            left_out: 0,
        }
    }
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// The order of two marks, the better first (`Less`: `a` ranks above `b`): fewer tests left
/// out, then the better value; a mark without a value ranks last. Values closer than
/// [`TIE_TOLERANCE`] are equal.
pub fn order(a: &Mark, b: &Mark, rank_by: RankBy, objective: Objective) -> Ordering {
    a.left_out
        .cmp(&b.left_out)
        .then_with(|| match (a.value, b.value) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(x), Some(y)) if (x - y).abs() <= TIE_TOLERANCE * x.abs().max(y.abs()) => {
                Ordering::Equal
            }
            (Some(x), Some(y)) if larger_is_better(rank_by, objective) => y.total_cmp(&x),
            (Some(x), Some(y)) => x.total_cmp(&y),
        })
}

/// Per test, a value where larger is better for every yardstick (what `tune` pairs and
/// averages): the relative score, the rank score, or the log or raw score with the sign of the
/// objective. `None` for a failed test under a yardstick that sets failures beside its value.
/// `players[p][t]` are counted scores; `best[t]` is BEST of the relative score.
pub fn larger_better_values(
    players: &[Vec<Option<f64>>],
    best: &[Option<f64>],
    rank_by: RankBy,
    objective: Objective,
) -> Vec<Vec<Option<f64>>> {
    let sign = match objective {
        Objective::Maximize => 1.0,
        Objective::Minimize => -1.0,
    };
    let tests = players.first().map_or(0, Vec::len);
    let mut out = vec![Vec::with_capacity(tests); players.len()];
    for t in 0..tests {
        let column: Vec<Option<f64>> = players.iter().map(|p| p[t]).collect();
        let values: Vec<Option<f64>> = match rank_by {
            RankBy::Relative => column
                .iter()
                .map(|&s| Some(super::relative::relative(s, best[t], objective)))
                .collect(),
            RankBy::Rank => rank_scores(&column, objective)
                .into_iter()
                .map(Some)
                .collect(),
            RankBy::Log => column
                .iter()
                .map(|&s| log_score(s).map(|l| sign * l))
                .collect(),
            RankBy::Raw if objective == Objective::Maximize => {
                column.iter().map(|s| Some(s.unwrap_or(0.0))).collect()
            }
            RankBy::Raw => column.iter().map(|s| s.map(|x| -x)).collect(),
        };
        for (p, v) in values.into_iter().enumerate() {
            out[p].push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Objective::{Maximize as Max, Minimize as Min};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn rank_scores_count_better_players_and_half_the_ties_as_pahcer_does() {
        // pahcer's own example: a new 150 against earlier 100 and 200, minimised: 1 - 1/3.
        let r = rank_scores(&[Some(100.0), Some(200.0), Some(150.0)], Min);
        assert!(close(r[2], 2.0 / 3.0), "{r:?}");
        assert!(close(r[0], 1.0) && close(r[1], 1.0 / 3.0), "{r:?}");
        // And its saved submission: 100 among 100, 100, 200: 1 - 0.5/3.
        let r = rank_scores(&[Some(100.0), Some(100.0), Some(200.0)], Min);
        assert!(close(r[0], 1.0 - 0.5 / 3.0) && close(r[1], r[0]), "{r:?}");
        // Maximised, the same scores in the other order.
        let r = rank_scores(&[Some(100.0), Some(200.0), Some(150.0)], Max);
        assert!(close(r[1], 1.0) && close(r[2], 2.0 / 3.0) && close(r[0], 1.0 / 3.0));
        // Two tied alone: 0.75 each; a lone player: 1.
        assert_eq!(rank_scores(&[Some(5.0), Some(5.0)], Max), [0.75, 0.75]);
        assert_eq!(rank_scores(&[Some(5.0)], Min), [1.0]);
        // A failed test counts 0 and is not among the players with a score.
        assert_eq!(
            rank_scores(&[None, Some(3.0), Some(4.0)], Max),
            [0.0, 0.5, 1.0]
        );
        assert_eq!(rank_scores(&[None, None], Min), [0.0, 0.0]);
    }

    #[test]
    fn the_log_average_sets_failures_and_scores_without_a_logarithm_beside_it() {
        assert_eq!(log_score(Some(1000.0)), Some(3.0));
        assert_eq!(log_score(None), None);
        assert_eq!(log_score(Some(0.0)), None);
        let per_test: Vec<Option<f64>> = [Some(10.0), Some(1000.0), None, Some(0.0)]
            .into_iter()
            .map(log_score)
            .collect();
        let m = mark(&per_test, failures_beside(RankBy::Log, Max));
        assert_eq!(
            m,
            Mark {
                value: Some(2.0),
                left_out: 2
            }
        );
        assert!(failures_beside(RankBy::Log, Min));
    }

    #[test]
    fn a_failed_test_never_makes_a_minimised_raw_mean_look_better() {
        // The reported case: 24 TLEs counted as 0 made a mean look lower (better).
        let ok = [Some(3.0e6), Some(2.0e6)];
        let with_failures = [Some(3.0e6), Some(2.0e6), None, None];
        let clean = mark(&ok, failures_beside(RankBy::Raw, Min));
        let failing = mark(&with_failures, failures_beside(RankBy::Raw, Min));
        assert_eq!(
            failing,
            Mark {
                value: Some(2.5e6),
                left_out: 2
            }
        );
        // Another player, worse on every OK test but failing none, still ranks above.
        let slower = mark(&[Some(4.0e6); 4], false);
        assert_eq!(order(&slower, &failing, RankBy::Raw, Min), Ordering::Less);
        assert_eq!(order(&clean, &slower, RankBy::Raw, Min), Ordering::Less);
        // Maximised, a failure counts 0 in the mean: it can only pull it down.
        assert!(!failures_beside(RankBy::Raw, Max));
        let max = mark(&[Some(4.0), None], false);
        assert_eq!(
            max,
            Mark {
                value: Some(2.0),
                left_out: 0
            }
        );
        assert_eq!(
            order(
                &mark(&[Some(3.0), Some(3.0)], false),
                &max,
                RankBy::Raw,
                Max
            ),
            Ordering::Less
        );
    }

    #[test]
    fn order_follows_the_yardstick_direction_with_ties_and_empty_marks() {
        let hi = Mark {
            value: Some(0.9),
            left_out: 0,
        };
        let lo = Mark {
            value: Some(0.3),
            left_out: 0,
        };
        let none = Mark {
            value: None,
            left_out: 0,
        };
        for rank_by in [RankBy::Relative, RankBy::Rank] {
            // A larger relative or rank score is better whatever the objective.
            assert_eq!(order(&hi, &lo, rank_by, Min), Ordering::Less);
            assert_eq!(order(&hi, &lo, rank_by, Max), Ordering::Less);
        }
        assert_eq!(order(&hi, &lo, RankBy::Log, Min), Ordering::Greater);
        assert_eq!(order(&hi, &lo, RankBy::Raw, Max), Ordering::Less);
        assert_eq!(order(&none, &lo, RankBy::Raw, Min), Ordering::Greater);
        let a = Mark {
            value: Some((0.1 + 0.2) + 0.3),
            left_out: 0,
        };
        let b = Mark {
            value: Some(0.1 + (0.2 + 0.3)),
            left_out: 0,
        };
        assert_eq!(order(&a, &b, RankBy::Relative, Max), Ordering::Equal);
    }

    #[test]
    fn larger_better_values_put_every_yardstick_one_way_round() {
        let players = vec![vec![Some(10.0), None], vec![Some(20.0), Some(5.0)]];
        let best = [Some(10.0), Some(5.0)];
        let v = |rank_by| larger_better_values(&players, &best, rank_by, Min);
        assert_eq!(
            v(RankBy::Relative),
            [[Some(1.0), Some(0.0)], [Some(0.5), Some(1.0)]]
        );
        assert_eq!(
            v(RankBy::Rank),
            [[Some(1.0), Some(0.0)], [Some(0.5), Some(1.0)]]
        );
        assert_eq!(
            v(RankBy::Raw),
            [[Some(-10.0), None], [Some(-20.0), Some(-5.0)]]
        );
        let log = v(RankBy::Log);
        assert_eq!(log[0], [Some(-1.0), None]);
        assert!(close(log[1][0].unwrap(), -20f64.log10()));
        // Maximised raw: a failure counts 0.
        let raw = larger_better_values(&players, &best, RankBy::Raw, Max);
        assert_eq!(raw[0], [Some(10.0), Some(0.0)]);
    }
}
