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

/// What a problem's players are ranked by: `wanted` (its yardstick), or the raw mean while no
/// player has the relative or rank score it needs (a leaderboard drawn before the comparison,
/// or without one). Every view of the standings ranks by this.
pub(crate) fn rank_by(wanted: RankBy, players: &[(String, Standing)]) -> RankBy {
    let set = |s: &Standing| match wanted {
        RankBy::Relative => s.relative.is_some(),
        RankBy::Rank => s.rank.is_some(),
        RankBy::Log | RankBy::Raw => true,
    };
    if players.iter().any(|(_, s)| set(s)) {
        wanted
    } else {
        RankBy::Raw
    }
}

/// Players with their places (1, 1, 3 for ties), best first.
pub(crate) type Places<'a> = Vec<(usize, &'a (String, Standing))>;

/// Players of a problem with their places, best first by `rank_by` (see
/// [`yardstick::order`]; ties by name, sharing a place).
pub(crate) fn ranked(
    players: &[(String, Standing)],
    rank_by: RankBy,
    objective: Objective,
) -> Places<'_> {
    let mut ranked: Vec<&(String, Standing)> = players.iter().collect();
    let order = |a: &Standing, b: &Standing| {
        yardstick::order(
            &a.mark(rank_by, objective),
            &b.mark(rank_by, objective),
            rank_by,
            objective,
        )
    };
    ranked.sort_by(|a, b| order(&a.1, &b.1).then(a.0.cmp(&b.0)));
    let ranks = competition_ranks(&ranked, |a, b| order(&a.1, &b.1).is_eq());
    ranks.into_iter().zip(ranked).collect()
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

    /// `players` of `problem` with their places, best first, and the yardstick they are
    /// ranked by ([`rank_by`]: the problem's, or the raw mean while its scores are not set).
    pub(crate) fn ranked<'a>(
        &self,
        problem: &str,
        players: &'a [(String, Standing)],
    ) -> (RankBy, Places<'a>) {
        let by = rank_by(self.rank_by(problem), players);
        (by, ranked(players, by, self.objective(problem)))
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

/// A minimised integer problem as reported: `tle` is fast on its OK tests but fails the
/// hardest ones, `steady` passes every test.
#[cfg(test)]
pub(crate) fn minimised_with_failures(rank_by: RankBy) -> Summary {
    let problem = "tools-min";
    let mut s = Summary::new(
        &[(
            problem.to_string(),
            vec!["tle".to_string(), "steady".to_string()],
        )],
        8,
    );
    s.objectives
        .insert(problem.to_string(), Objective::Minimize);
    s.rank_by.insert(problem.to_string(), rank_by);
    let tests = [
        ("tle", [(3651.0, Verdict::Ok), (4_666_811.0, Verdict::Ok)]),
        (
            "steady",
            [(28400.0, Verdict::Ok), (37_000_000.0, Verdict::Ok)],
        ),
    ];
    for (player, scores) in tests {
        for (score, verdict) in scores {
            s.add(&ScoreRow::new(problem, player, "1", score, verdict));
        }
    }
    for v in [Verdict::TimeLimit, Verdict::TimeLimit] {
        s.add(&ScoreRow::new(problem, "tle", "1", 0.0, v));
        s.add(&ScoreRow::new(
            problem,
            "steady",
            "1",
            40_000_000.0,
            Verdict::Ok,
        ));
    }
    s
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
