//! The leaderboard: per problem and player, the count, sum, mean, min and max of the raw
//! scores (also over the OK tests alone, and their log10), the count of each verdict and the
//! thinking time. Built from test results as they come, so a partial run has a partial
//! leaderboard; the relative and rank scores, which need every player's tests, are set once
//! the run ends, with what each problem ranks by.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::problem::Objective;
use crate::rank::yardstick::{self, Mark, RankBy};
use crate::rundir::ScoreRow;
use crate::verdict::Verdict;

/// One player's standing on one problem.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Standing {
    pub tests: u64,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
    pub verdicts: BTreeMap<Verdict, u64>,
    pub think: Duration,
    /// The longest thinking time of one test.
    pub max_think: Duration,
    /// The TopCoder relative score (`scale x mean(YOUR/BEST)`), set once the run ends.
    pub relative: Option<f64>,
    /// pahcer's rank score (0..=100), set once the run ends.
    pub rank: Option<f64>,
    /// Over the OK tests alone: their count, sum, min and max.
    pub ok: u64,
    pub ok_sum: f64,
    pub ok_min: f64,
    pub ok_max: f64,
    /// OK tests with a score above 0, and the sum of their log10.
    pub logged: u64,
    pub log_sum: f64,
    /// Whether some score was not a whole number (an integer problem shows integers).
    pub fractional: bool,
}

impl Standing {
    pub fn mean(&self) -> f64 {
        if self.tests == 0 {
            0.0
        } else {
            self.sum / self.tests as f64
        }
    }

    pub fn count(&self, v: Verdict) -> u64 {
        self.verdicts.get(&v).copied().unwrap_or(0)
    }

    /// Tests that did not end `OK`.
    pub fn failures(&self) -> u64 {
        self.tests - self.count(Verdict::Ok)
    }

    /// The mean a person reads beside the player (`None` without a test to average): over
    /// every test when maximising (a failed test counting its score, 0); over the OK tests
    /// when minimising, where a failed test's 0 would look like the best score.
    pub fn shown_mean(&self, objective: Objective) -> Option<f64> {
        match objective {
            Objective::Maximize => (self.tests > 0).then(|| self.mean()),
            Objective::Minimize => (self.ok > 0).then(|| self.ok_sum / self.ok as f64),
        }
    }

    /// The sum, min and max over the tests [`Standing::shown_mean`] averages.
    pub fn shown_range(&self, objective: Objective) -> Option<(f64, f64, f64)> {
        match objective {
            Objective::Maximize => (self.tests > 0).then_some((self.sum, self.min, self.max)),
            Objective::Minimize => (self.ok > 0).then_some((self.ok_sum, self.ok_min, self.ok_max)),
        }
    }

    /// The player's mark by `rank_by`; a relative or rank score not (yet) set is no value.
    pub fn mark(&self, rank_by: RankBy, objective: Objective) -> Mark {
        let plain = |value| Mark { value, left_out: 0 };
        match rank_by {
            RankBy::Relative => plain(self.relative),
            RankBy::Rank => plain(self.rank),
            RankBy::Log => Mark {
                value: (self.logged > 0).then(|| self.log_sum / self.logged as f64),
                left_out: self.tests - self.logged,
            },
            RankBy::Raw if yardstick::failures_beside(rank_by, objective) => Mark {
                value: self.shown_mean(objective),
                left_out: self.failures(),
            },
            RankBy::Raw => plain(self.shown_mean(objective)),
        }
    }

    pub fn add(&mut self, score: f64, verdict: Verdict, think: Duration) {
        if verdict == Verdict::Ok {
            if self.ok == 0 {
                (self.ok_min, self.ok_max) = (score, score);
            }
            self.ok += 1;
            self.ok_sum += score;
            self.ok_min = self.ok_min.min(score);
            self.ok_max = self.ok_max.max(score);
            if let Some(log) = yardstick::log_score(Some(score)) {
                self.logged += 1;
                self.log_sum += log;
            }
        }
        self.fractional |= score.fract() != 0.0;
        if self.tests == 0 {
            self.min = score;
            self.max = score;
        } else {
            self.min = self.min.min(score);
            self.max = self.max.max(score);
        }
        self.tests += 1;
        self.sum += score;
        *self.verdicts.entry(verdict).or_default() += 1;
        self.think += think;
        self.max_think = self.max_think.max(think);
    }
}

/// Competition ranks ("1, 1, 3") of items given best first: an item `tied` with the one
/// before it shares its rank, and the next different one takes its place in the order.
pub(crate) fn competition_ranks<T>(sorted: &[T], tied: impl Fn(&T, &T) -> bool) -> Vec<usize> {
    let mut ranks: Vec<usize> = Vec::with_capacity(sorted.len());
    for i in 0..sorted.len() {
        let same = i > 0 && tied(&sorted[i - 1], &sorted[i]);
        ranks.push(if same { ranks[i - 1] } else { i + 1 });
    }
    ranks
}

/// Standings of every problem of a run, in the order the problems and players were given.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// (problem, players in order with their standing).
    pub problems: Vec<(String, Vec<(String, Standing)>)>,
    /// Tests the run was to have.
    pub planned: u64,
    /// What each problem ranks by, when not [`RankBy::Relative`].
    pub rank_by: BTreeMap<String, RankBy>,
    /// Each problem's objective (its judge's; maximised for a problem not known).
    pub objectives: BTreeMap<String, Objective>,
}

impl Summary {
    /// An empty leaderboard with every (problem, player) of the run in order.
    pub fn new(problems: &[(String, Vec<String>)], planned: u64) -> Summary {
        Summary {
            problems: problems
                .iter()
                .map(|(p, players)| {
                    (
                        p.clone(),
                        players
                            .iter()
                            .map(|n| (n.clone(), Standing::default()))
                            .collect(),
                    )
                })
                .collect(),
            planned,
            rank_by: BTreeMap::new(),
            objectives: problems
                .iter()
                .map(|(p, _)| {
                    let o = crate::problem::by_id(p).map_or(Objective::Maximize, |p| p.objective());
                    (p.clone(), o)
                })
                .collect(),
        }
    }

    /// Whether `problem`'s higher or lower scores are better.
    pub fn objective(&self, problem: &str) -> Objective {
        self.objectives
            .get(problem)
            .copied()
            .unwrap_or(Objective::Maximize)
    }

    /// What `problem`'s players are ranked by.
    pub fn rank_by(&self, problem: &str) -> RankBy {
        self.rank_by.get(problem).copied().unwrap_or_default()
    }

    /// Counts one test of a player (also the rows of a resumed run).
    pub fn add(&mut self, row: &ScoreRow) {
        let (problem, player) = (&row.problem, &row.player);
        if let Some((_, players)) = self.problems.iter_mut().find(|(p, _)| p == problem) {
            if let Some((_, s)) = players.iter_mut().find(|(n, _)| n == player) {
                s.add(row.score, row.verdict, Duration::from_millis(row.think_ms));
            }
        }
    }

    /// Sets a player's relative score (known only once every player's tests are in).
    pub(crate) fn set_relative(&mut self, problem: &str, player: &str, relative: f64) {
        if let Some((_, players)) = self.problems.iter_mut().find(|(p, _)| p == problem) {
            if let Some((_, s)) = players.iter_mut().find(|(n, _)| n == player) {
                s.relative = Some(relative);
            }
        }
    }

    /// Sets a player's rank score (known only once every player's tests are in).
    pub(crate) fn set_rank(&mut self, problem: &str, player: &str, rank: f64) {
        if let Some((_, players)) = self.problems.iter_mut().find(|(p, _)| p == problem) {
            if let Some((_, s)) = players.iter_mut().find(|(n, _)| n == player) {
                s.rank = Some(rank);
            }
        }
    }

    /// Tests finished so far.
    pub fn finished(&self) -> u64 {
        self.problems
            .iter()
            .flat_map(|(_, ps)| ps.iter().map(|(_, s)| s.tests))
            .sum()
    }

    /// Tests that ended with the harness's own error.
    pub(crate) fn harness_errors(&self) -> u64 {
        self.problems
            .iter()
            .flat_map(|(_, ps)| ps.iter().map(|(_, s)| s.count(Verdict::HarnessError)))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::competition_ranks;
    use crate::problem::Objective;
    use crate::rank::yardstick::{order, Mark, RankBy};

    /// Ranks of means, best first, tied as the leaderboard ties them.
    fn ranks(means: &[f64]) -> Vec<usize> {
        let marks: Vec<Mark> = means
            .iter()
            .map(|&m| Mark {
                value: Some(m),
                left_out: 0,
            })
            .collect();
        competition_ranks(&marks, |a, b| {
            order(a, b, RankBy::Raw, Objective::Maximize).is_eq()
        })
    }

    #[test]
    fn equal_means_share_a_rank_and_the_next_one_skips_past_them() {
        assert_eq!(ranks(&[5.0, 5.0, 3.0]), [1, 1, 3]);
        assert_eq!(ranks(&[5.0, 4.0, 4.0, 4.0, 1.0]), [1, 2, 2, 2, 5]);
        assert_eq!(ranks(&[0.0, 0.0]), [1, 1]);
        // The same scores summed in another order.
        let a = (0.1 + 0.2) + 0.3;
        let b = 0.1 + (0.2 + 0.3);
        assert_ne!(a, b);
        assert_eq!(ranks(&[a, b]), [1, 1]);
        assert_eq!(ranks(&[1.0, 0.999]), [1, 2]);
        assert!(ranks(&[]).is_empty());
    }
}
