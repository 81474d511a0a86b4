//! Validation: the defaults and the best values on the held-out seeds, played on the run's
//! threads, and the paired statistics of `compare` on their differences.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::files::{TuneFiles, ValidationRow};
use super::params::{self, Param, Value};
use super::search::SeedScore;
use super::yardstick::Yardstick;
use crate::compare::report::p_value;
use crate::compare::stats;

pub(super) struct ValidationPlan<'a> {
    pub(super) params: &'a [Param],
    pub(super) best: &'a [Value],
    pub(super) holdout: &'a [u64],
    pub(super) threads: usize,
    pub(super) pin: bool,
}

/// Plays the defaults and the best values on every held-out seed (those not already in
/// `kept`), on the run's threads. Returns every validation row.
pub(super) fn validate<F>(
    files: &mut TuneFiles,
    plan: ValidationPlan,
    kept: Vec<ValidationRow>,
    play: &F,
) -> Vec<ValidationRow>
where
    F: Fn(&[Value], u64) -> Option<SeedScore> + Sync,
{
    let defaults = params::defaults(plan.params);
    let arms = [("default", defaults), ("best", plan.best.to_vec())];
    // Rows of another best (a resumed tuning that found a better one) are played again.
    let mut kept: Vec<ValidationRow> = kept
        .into_iter()
        .filter(|r| arms.iter().any(|(a, v)| r.arm == *a && r.values == *v))
        .collect();
    let jobs: Vec<(usize, u64)> = plan
        .holdout
        .iter()
        .flat_map(|&seed| [(0, seed), (1, seed)])
        .filter(|&(arm, seed)| !kept.iter().any(|r| r.arm == arms[arm].0 && r.seed == seed))
        .collect();
    if !jobs.is_empty() {
        println!(
            "validating on {} held-out seeds: the defaults and the best ({} tests)",
            plan.holdout.len(),
            jobs.len()
        );
        let _ = std::io::stdout().flush();
    }
    let next = AtomicUsize::new(0);
    let rows = Mutex::new((files, Vec::new()));
    let cpus = crate::os::allowed_cpus();
    let next_cpu = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..plan.threads.max(1) {
            scope.spawn(|| loop {
                super::command::pin_once(plan.pin, &cpus, &next_cpu);
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(arm, seed)) = jobs.get(i) else {
                    return;
                };
                if crate::os::interrupted() {
                    return;
                }
                let (name, values) = &arms[arm];
                let Some(score) = play(values, seed) else {
                    return;
                };
                let row = ValidationRow {
                    arm: name.to_string(),
                    seed,
                    values: values.clone(),
                    score,
                };
                let mut guard = rows.lock().expect("rows");
                guard.0.on_validation(&row);
                guard.1.push(row);
            });
        }
    });
    kept.extend(rows.into_inner().expect("rows").1);
    kept
}

/// The validation's verdict: best against defaults on the held-out seeds both played, by
/// the tuning's yardstick (the two arms its players: relative to the better of the two on
/// each seed, or ranked between them).
#[derive(Clone, Debug)]
pub(crate) struct Summary {
    pub yardstick: Yardstick,
    pub seeds: usize,
    /// Whether every held-out score is a whole number (the means then show two decimals).
    pub integral: bool,
    /// Mean raw scores over the seeds both played with an OK test.
    pub default_mean: f64,
    pub best_mean: f64,
    /// Of the per-seed differences of the yardstick's values, best - default (larger is
    /// better), on the seeds where both have one.
    pub interval: stats::Interval,
    pub sign: stats::SignTest,
    pub wilcoxon: stats::Wilcoxon,
    /// Held-out tests that were not OK, per arm (default, best).
    pub failures: (usize, usize),
}

pub(super) fn summarize(rows: &[ValidationRow], yardstick: Yardstick) -> Summary {
    let of = |arm: &str| -> std::collections::BTreeMap<u64, &SeedScore> {
        rows.iter()
            .filter(|r| r.arm == arm)
            .map(|r| (r.seed, &r.score))
            .collect()
    };
    let (d, b) = (of("default"), of("best"));
    let both: Vec<(&SeedScore, &SeedScore)> = d
        .iter()
        .filter_map(|(seed, s)| b.get(seed).map(|t| (*s, *t)))
        .collect();
    let played: Vec<Vec<Option<&SeedScore>>> = vec![
        both.iter().map(|p| Some(p.0)).collect(),
        both.iter().map(|p| Some(p.1)).collect(),
    ];
    let values = yardstick.of(&played);
    let diffs: Vec<f64> = values[0]
        .iter()
        .zip(&values[1])
        .filter_map(|(d, b)| Some((*b)? - (*d)?))
        .collect();
    let ok = |s: &SeedScore| s.verdict == crate::verdict::Verdict::Ok;
    let raw: Vec<(f64, f64)> = both
        .iter()
        .filter(|(d, b)| ok(d) && ok(b))
        .map(|(d, b)| (d.score, b.score))
        .collect();
    let n = raw.len().max(1) as f64;
    Summary {
        yardstick,
        integral: rows.iter().all(|r| r.score.score.fract() == 0.0),
        seeds: both.len(),
        default_mean: raw.iter().map(|p| p.0).sum::<f64>() / n,
        best_mean: raw.iter().map(|p| p.1).sum::<f64>() / n,
        interval: stats::bootstrap_mean(&diffs, 1),
        sign: stats::sign_test(&diffs),
        wilcoxon: stats::wilcoxon(&diffs),
        failures: (
            d.values().filter(|s| !ok(s)).count(),
            b.values().filter(|s| !ok(s)).count(),
        ),
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The lines that say how the best did against the defaults on the held-out seeds.
pub(crate) fn summary_lines(s: &Summary) -> Vec<String> {
    let method = match s.wilcoxon.method {
        stats::WilcoxonMethod::Exact => "exact",
        stats::WilcoxonMethod::Normal => "normal approx.",
    };
    let y = s.yardstick;
    // The change of the mean raw score, as a share of the defaults' and in words.
    let change = y.sign() * (s.best_mean - s.default_mean);
    let relative = if s.default_mean != 0.0 && change != 0.0 {
        let pct = 100.0 * change.abs() / s.default_mean.abs();
        let word = if change > 0.0 { "better" } else { "worse" };
        format!(" ({pct:.2}% {word})")
    } else {
        String::new()
    };
    let mean = |m: f64| crate::report::number::mean(m, s.integral, 4);
    let mut lines = vec![
        format!(
            "held-out seeds: {}; mean score of the OK tests: defaults {}, best {}{relative}",
            s.seeds,
            mean(s.default_mean),
            mean(s.best_mean)
        ),
        format!(
            "best vs defaults by {}: {}, {}, {}; mean difference {} (95% CI {} .. {}); \
             sign p = {}, Wilcoxon p = {} ({method})",
            y.describe(),
            count(s.sign.wins, "win", "wins"),
            count(s.sign.ties, "tie", "ties"),
            count(s.sign.losses, "loss", "losses"),
            y.difference(s.interval.mean),
            y.difference(s.interval.low),
            y.difference(s.interval.high),
            p_value(s.sign.p),
            p_value(s.wilcoxon.p)
        ),
    ];
    if s.failures != (0, 0) {
        lines.push(format!(
            "tests not OK on held-out seeds: defaults {}, best {}",
            s.failures.0, s.failures.1
        ));
    }
    lines.push(if s.wilcoxon.p < 0.05 && s.interval.mean > 0.0 {
        "the best values are significantly better than the defaults on held-out seeds \
         (Wilcoxon p < 0.05)"
            .into()
    } else if s.wilcoxon.p < 0.05 {
        "the best values are significantly WORSE than the defaults on held-out seeds: the \
         tuning seeds misled the search (use more --seeds)"
            .into()
    } else {
        "no significant difference on held-out seeds (Wilcoxon p >= 0.05): the gain on the \
         tuning seeds may be noise"
            .into()
    });
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Verdict;

    fn row(arm: &str, seed: u64, score: f64) -> ValidationRow {
        ValidationRow {
            arm: arm.into(),
            seed,
            values: Vec::new(),
            score: SeedScore {
                verdict: Verdict::Ok,
                score,
                think_ms: 0,
            },
        }
    }

    const RAW_MAX: Yardstick = Yardstick {
        objective: crate::problem::Objective::Maximize,
        rank_by: crate::config::RankBy::Raw,
    };

    #[test]
    fn a_minimised_validation_says_better_and_worse_in_the_yardsticks_terms() {
        // The reported case: scores spanning 3,651 to 37 million, minimised. The best is a
        // little worse on the one huge seed and twice as good on the small ones.
        let rows: Vec<ValidationRow> = (1..=10u64)
            .flat_map(|seed| {
                let (d, b) = if seed == 10 {
                    (37e6, 37.2e6)
                } else {
                    (7302.0, 3651.0)
                };
                [row("default", seed, d), row("best", seed, b)]
            })
            .collect();
        let y = Yardstick {
            objective: crate::problem::Objective::Minimize,
            rank_by: crate::config::RankBy::Relative,
        };
        let s = summarize(&rows, y);
        // Relative to the better arm per seed: 9 seeds +0.5, one seed -(1 - 37/37.2).
        assert_eq!((s.sign.wins, s.sign.losses), (9, 1));
        let want = (9.0 * 0.5 - (1.0 - 37.0 / 37.2)) / 10.0;
        assert!((s.interval.mean - want).abs() < 1e-12, "{:?}", s.interval);
        let lines = summary_lines(&s).join("\n");
        // The raw mean got worse (the huge seed decides it), said in words, not a sign.
        assert!(
            lines.contains("defaults 3706571.80, best 3723285.90 (0.45% worse)"),
            "{lines}"
        );
        assert!(
            lines.contains("by relative score: 9 wins, 0 ties, 1 loss"),
            "{lines}"
        );
        assert!(
            lines.contains("mean difference 44.95% of best better"),
            "{lines}"
        );
        assert!(!lines.contains("mean difference -") && !lines.contains("mean difference +"));
        assert!(lines.contains("significantly better"), "{lines}");
        // By the raw mean the same tuning looks worse.
        let raw = summarize(
            &rows,
            Yardstick {
                rank_by: crate::config::RankBy::Raw,
                ..y
            },
        );
        assert!(raw.interval.mean < 0.0);
        let lines = summary_lines(&raw).join("\n");
        assert!(
            lines.contains("by mean score") && lines.contains(" worse (95% CI"),
            "{lines}"
        );
    }

    #[test]
    fn a_best_that_wins_every_held_out_seed_gets_a_bound_not_p_zero() {
        // 2,000 wins of 2,000: the sign test's p (2^-1999) underflows to 0 in a float.
        let rows: Vec<ValidationRow> = (1..=2000)
            .flat_map(|seed| [row("default", seed, 0.5), row("best", seed, 0.6)])
            .collect();
        let summary = summarize(&rows, RAW_MAX);
        assert_eq!((summary.sign.wins, summary.sign.p), (2000, 0.0));
        let lines = summary_lines(&summary).join("\n");
        assert!(lines.contains("sign p = < 1e-300"), "{lines}");
        assert!(!lines.contains("0.0e0"), "{lines}");
    }
}
