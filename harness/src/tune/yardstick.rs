//! What a tuning optimises: the problem's yardstick (`rank-by`, `--rank-by`) over the trials,
//! as the leaderboard ranks players, each trial one player. Per trial and tuning seed a value
//! where larger is better ([`crate::rank::yardstick::larger_better_values`]): the relative
//! score against the best trial on that seed, the rank score among the trials that played
//! it, or the log or raw score with the objective's sign.
//!
//! Pure: reads trials, touches nothing.

use super::search::{SeedScore, Trial};
use crate::problem::Objective;
use crate::rank::yardstick::{self, Mark, RankBy};
use crate::verdict::Verdict;

/// The objective of the problem and what it ranks by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Yardstick {
    pub objective: Objective,
    pub rank_by: RankBy,
}

impl Yardstick {
    /// 1 when the problem maximises, -1 when it minimises.
    pub fn sign(self) -> f64 {
        match self.objective {
            Objective::Maximize => 1.0,
            Objective::Minimize => -1.0,
        }
    }

    /// `values[trial][seed]` of the trials, larger is better; `None` for a seed not played,
    /// and for a failed test (or an OK score of 0 or less under `log`) where the yardstick
    /// sets failures beside its value.
    pub fn values(self, trials: &[Trial]) -> Vec<Vec<Option<f64>>> {
        let played: Vec<Vec<Option<&SeedScore>>> = trials
            .iter()
            .map(|t| t.scores.iter().map(Option::as_ref).collect())
            .collect();
        self.of(&played)
    }

    /// The same of any players' scores per seed (`None`: not played).
    pub fn of(self, played: &[Vec<Option<&SeedScore>>]) -> Vec<Vec<Option<f64>>> {
        let counted: Vec<Vec<Option<f64>>> = played
            .iter()
            .map(|t| {
                t.iter()
                    .map(|s| s.filter(|s| s.verdict == Verdict::Ok).map(|s| s.score))
                    .collect()
            })
            .collect();
        let seeds = counted.first().map_or(0, Vec::len);
        let best: Vec<Option<f64>> = (0..seeds)
            .map(|i| crate::rank::relative::best(counted.iter().map(|t| t[i]), self.objective))
            .collect();
        let mut values =
            yardstick::larger_better_values(&counted, &best, self.rank_by, self.objective);
        for (t, row) in values.iter_mut().enumerate() {
            for (i, v) in row.iter_mut().enumerate() {
                if played[t][i].is_none() {
                    *v = None;
                }
            }
        }
        values
    }

    /// A trial's mark from its values (failures beside, as the leaderboard has them).
    pub fn mark(values: &[Option<f64>]) -> Mark {
        yardstick::mark(values, true)
    }

    /// Whether mark `a` is strictly better than `b` (values larger-is-better).
    pub fn better(a: &Mark, b: &Mark) -> bool {
        yardstick::order(a, b, RankBy::Relative, Objective::Maximize).is_lt()
    }

    /// A difference of values as people read it, with its unit: `2.10% of best better`,
    /// `0.0123 log10 worse`, `-` when there is none.
    pub fn difference(self, d: f64) -> String {
        let size = match self.rank_by {
            RankBy::Relative => format!("{:.2}% of best", 100.0 * d.abs()),
            RankBy::Rank => format!("{:.2} rank points", 100.0 * d.abs()),
            RankBy::Log => format!("{:.4} in log10", d.abs()),
            RankBy::Raw => format!("{:.4}", d.abs()),
        };
        if d > 0.0 {
            format!("{size} better")
        } else if d < 0.0 {
            format!("{size} worse")
        } else {
            "no difference".to_string()
        }
    }

    /// The yardstick's name for people.
    pub fn describe(self) -> &'static str {
        match self.rank_by {
            RankBy::Relative => "relative score",
            RankBy::Rank => "rank score",
            RankBy::Log => "log10 average",
            RankBy::Raw => "mean score",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::search::State;

    fn trial(id: usize, scores: &[Option<(f64, Verdict)>]) -> Trial {
        Trial {
            id,
            values: Vec::new(),
            scores: scores
                .iter()
                .map(|s| {
                    s.map(|(score, verdict)| SeedScore {
                        verdict,
                        score,
                        think_ms: 0,
                    })
                })
                .collect(),
            state: State::Complete,
        }
    }

    #[test]
    fn values_are_relative_to_the_best_trial_on_each_seed_and_larger_is_better() {
        let ok = Verdict::Ok;
        // Minimised, scores spanning 3,651 to 37 million: the relative score weighs each
        // seed alike, where the raw mean is decided by the large seed alone.
        let a = trial(0, &[Some((3651.0, ok)), Some((37e6, ok))]);
        let b = trial(1, &[Some((7302.0, ok)), Some((36e6, ok))]);
        let c = trial(2, &[Some((3651.0, ok)), None]);
        let trials = [a, b, c];
        let rel = Yardstick {
            objective: Objective::Minimize,
            rank_by: RankBy::Relative,
        };
        let v = rel.values(&trials);
        assert_eq!(v[0], [Some(1.0), Some(36.0 / 37.0)]);
        assert_eq!(v[1], [Some(0.5), Some(1.0)]);
        assert_eq!(v[2], [Some(1.0), None]);
        let (ma, mb) = (Yardstick::mark(&v[0]), Yardstick::mark(&v[1]));
        assert!(Yardstick::better(&ma, &mb), "{ma:?} {mb:?}");
        // By the raw mean, b is better (its large seed is lower): the raw yardstick says so.
        let raw = Yardstick {
            rank_by: RankBy::Raw,
            ..rel
        };
        let v = raw.values(&trials);
        assert_eq!(v[1], [Some(-7302.0), Some(-36e6)]);
        let (ma, mb) = (Yardstick::mark(&v[0]), Yardstick::mark(&v[1]));
        assert!(Yardstick::better(&mb, &ma));
        // A failed test: 0 for relative and rank, beside the value for log.
        let failed = [
            trial(0, &[Some((5.0, Verdict::TimeLimit))]),
            trial(1, &[Some((9.0, ok))]),
        ];
        assert_eq!(rel.values(&failed), [[Some(0.0)], [Some(1.0)]]);
        let log = Yardstick {
            rank_by: RankBy::Log,
            ..rel
        };
        let v = log.values(&failed);
        assert_eq!(v[0], [None]);
        assert_eq!(Yardstick::mark(&v[0]).left_out, 1);
    }

    #[test]
    fn differences_say_better_or_worse_in_the_yardsticks_unit() {
        let y = Yardstick {
            objective: Objective::Minimize,
            rank_by: RankBy::Relative,
        };
        assert_eq!(y.difference(0.0054), "0.54% of best better");
        assert_eq!(y.difference(-0.021), "2.10% of best worse");
        let raw = Yardstick {
            rank_by: RankBy::Raw,
            ..y
        };
        // A minimised raw difference is already turned round: positive is better.
        assert_eq!(raw.difference(24815.0), "24815.0000 better");
        assert_eq!(raw.difference(0.0), "no difference");
    }
}
