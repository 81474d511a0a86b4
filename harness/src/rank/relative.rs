//! TopCoder relative scores: per test, YOUR/BEST for maximised scores and BEST/YOUR for
//! minimised ones, a failed test counting 0; a player's total is `scale x mean`.
//!
//! Pure arithmetic on scores; which tests and which players make up BEST is the caller's
//! choice (the players of a run, or with `--vs-best` every run recorded in `best.csv`).

use crate::problem::Objective;

/// The score a test counts with, or `None` when it failed and counts 0 (and cannot be the
/// best). A problem that keeps the points made before a fault (Linez) keeps them here too:
/// its raw score is already the statement's score of the game.
pub fn counted(score: f64, ok: bool, keeps_score_on_fault: bool) -> Option<f64> {
    (ok || keeps_score_on_fault).then_some(score)
}

/// Whether `a` is a better score than `b`.
pub fn better(a: f64, b: f64, objective: Objective) -> bool {
    match objective {
        Objective::Maximize => a > b,
        Objective::Minimize => a < b,
    }
}

/// The best of some counted scores (`None` when every test failed).
pub fn best(scores: impl IntoIterator<Item = Option<f64>>, objective: Objective) -> Option<f64> {
    scores.into_iter().flatten().fold(None, |acc, s| match acc {
        Some(b) if !better(s, b, objective) => Some(b),
        _ => Some(s),
    })
}

/// The relative score of one test in `0..=1`. A failed test, or a test nobody passed,
/// counts 0. A counted score equal to BEST counts 1, also at zero (the classic rule: a test
/// where everyone scores 0 is a tie for best, so a lone player that is best on every test
/// totals exactly the scale). Otherwise, for maximised scores, a BEST of 0 or less counts 0
/// and anything else YOUR/BEST; for minimised ones BEST/YOUR.
pub fn relative(your: Option<f64>, best: Option<f64>, objective: Objective) -> f64 {
    let (Some(y), Some(b)) = (your, best) else {
        return 0.0;
    };
    if y == b {
        return 1.0;
    }
    let r = match objective {
        Objective::Maximize if b <= 0.0 => 0.0,
        Objective::Maximize => y / b,
        Objective::Minimize if y <= 0.0 => 0.0,
        Objective::Minimize => b / y,
    };
    r.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Objective::{Maximize as Max, Minimize as Min};

    #[test]
    fn ties_at_the_top_both_score_one() {
        let scores = [Some(50.0), Some(50.0), Some(25.0)];
        let b = best(scores, Max);
        assert_eq!(b, Some(50.0));
        let rel: Vec<f64> = scores.iter().map(|&s| relative(s, b, Max)).collect();
        assert_eq!(rel, [1.0, 1.0, 0.5]);
    }

    #[test]
    fn failures_count_zero_and_are_never_best() {
        // A failed test of a problem that zeroes failures: not counted, even if its raw
        // score were high.
        let failed = counted(999.0, false, false);
        assert_eq!(failed, None);
        let scores = [failed, Some(10.0), Some(5.0)];
        let b = best(scores, Max);
        assert_eq!(b, Some(10.0));
        assert_eq!(relative(failed, b, Max), 0.0);
        assert_eq!(relative(Some(5.0), b, Max), 0.5);
        // Linez keeps its points on a fault.
        assert_eq!(counted(42.0, false, true), Some(42.0));
        // Everybody failed: no best, everybody 0.
        assert_eq!(best([None, None], Max), None);
        assert_eq!(relative(None, None, Max), 0.0);
    }

    #[test]
    fn ties_at_zero_count_as_best_for_everyone() {
        // Maximised: a best of 0 is a tie for best among those who scored 0 (not failed).
        assert_eq!(relative(Some(0.0), Some(0.0), Max), 1.0);
        assert_eq!(relative(None, Some(0.0), Max), 0.0);
        assert_eq!(relative(Some(-1.0), Some(0.0), Max), 0.0);
        assert_eq!(relative(Some(0.0), Some(4.0), Max), 0.0);
        // A lone player, best on every test, some of them at 0: exactly the scale.
        let tests = [Some(0.0), Some(3.0), Some(0.0)];
        let total: f64 = tests
            .iter()
            .map(|&s| relative(s, best([s], Max), Max))
            .sum();
        assert_eq!(total / 3.0, 1.0);
        // Minimised: matching a best of 0 is perfect, anything else is 0 / YOUR = 0.
        assert_eq!(relative(Some(0.0), Some(0.0), Min), 1.0);
        assert_eq!(relative(Some(3.0), Some(0.0), Min), 0.0);
    }

    #[test]
    fn minimised_scores_are_best_over_yours() {
        let scores = [Some(10.0), Some(20.0), None, Some(40.0)];
        let b = best(scores, Min);
        assert_eq!(b, Some(10.0));
        let rel: Vec<f64> = scores.iter().map(|&s| relative(s, b, Min)).collect();
        assert_eq!(rel, [1.0, 0.5, 0.0, 0.25]);
        assert!(better(1.0, 2.0, Min) && !better(2.0, 2.0, Min));
    }

    #[test]
    fn a_best_from_earlier_runs_caps_at_one() {
        // With --vs-best the best may come from another run; a score is never above 1.
        assert_eq!(relative(Some(8.0), Some(10.0), Max), 0.8);
        assert_eq!(
            relative(Some(12.0), best([Some(12.0), Some(10.0)], Max), Max),
            1.0
        );
    }
}
