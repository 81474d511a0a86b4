//! Validation: the defaults and the best values on the held-out seeds, played on the run's
//! threads, and the paired statistics of `compare` on their differences.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::files::{TuneFiles, ValidationRow};
use super::params::{self, Param, Value};
use super::search::SeedScore;
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

/// The validation's verdict: best against defaults on the held-out seeds both played.
#[derive(Clone, Debug)]
pub(crate) struct Summary {
    pub seeds: usize,
    pub default_mean: f64,
    pub best_mean: f64,
    /// Of the differences best - default (signed: larger is better).
    pub interval: stats::Interval,
    pub sign: stats::SignTest,
    pub wilcoxon: stats::Wilcoxon,
    /// Held-out tests that were not OK, per arm (default, best).
    pub failures: (usize, usize),
}

pub(super) fn summarize(rows: &[ValidationRow], sign: f64) -> Summary {
    let of = |arm: &str| -> std::collections::BTreeMap<u64, &SeedScore> {
        rows.iter()
            .filter(|r| r.arm == arm)
            .map(|r| (r.seed, &r.score))
            .collect()
    };
    let (d, b) = (of("default"), of("best"));
    let pairs: Vec<(f64, f64)> = d
        .iter()
        .filter_map(|(seed, s)| b.get(seed).map(|t| (s.score, t.score)))
        .collect();
    let diffs: Vec<f64> = pairs.iter().map(|(d, b)| sign * (b - d)).collect();
    let n = pairs.len().max(1) as f64;
    Summary {
        seeds: pairs.len(),
        default_mean: pairs.iter().map(|p| p.0).sum::<f64>() / n,
        best_mean: pairs.iter().map(|p| p.1).sum::<f64>() / n,
        interval: stats::bootstrap_mean(&diffs, 1),
        sign: stats::sign_test(&diffs),
        wilcoxon: stats::wilcoxon(&diffs),
        failures: (
            d.values()
                .filter(|s| s.verdict != crate::verdict::Verdict::Ok)
                .count(),
            b.values()
                .filter(|s| s.verdict != crate::verdict::Verdict::Ok)
                .count(),
        ),
    }
}

/// The lines that say how the best did against the defaults on the held-out seeds.
pub(crate) fn summary_lines(s: &Summary) -> Vec<String> {
    let method = match s.wilcoxon.method {
        stats::WilcoxonMethod::Exact => "exact",
        stats::WilcoxonMethod::Normal => "normal approx.",
    };
    let relative = if s.default_mean != 0.0 {
        format!(
            " ({:+.2}%)",
            100.0 * (s.best_mean - s.default_mean) / s.default_mean.abs()
        )
    } else {
        String::new()
    };
    let mut lines = vec![
        format!(
            "held-out seeds: {}; mean score: defaults {:.4}, best {:.4}{relative}",
            s.seeds, s.default_mean, s.best_mean
        ),
        format!(
            "best vs defaults: {} wins, {} ties, {} losses; mean difference {:+.4} (95% CI \
             {:+.4}..{:+.4}); sign p = {}, Wilcoxon p = {} ({method})",
            s.sign.wins,
            s.sign.ties,
            s.sign.losses,
            s.interval.mean,
            s.interval.low,
            s.interval.high,
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

    #[test]
    fn a_best_that_wins_every_held_out_seed_gets_a_bound_not_p_zero() {
        // 2,000 wins of 2,000: the sign test's p (2^-1999) underflows to 0 in a float.
        let rows: Vec<ValidationRow> = (1..=2000)
            .flat_map(|seed| [row("default", seed, 0.5), row("best", seed, 0.6)])
            .collect();
        let summary = summarize(&rows, 1.0);
        assert_eq!((summary.sign.wins, summary.sign.p), (2000, 0.0));
        let lines = summary_lines(&summary).join("\n");
        assert!(lines.contains("sign p = < 1e-300"), "{lines}");
        assert!(!lines.contains("0.0e0"), "{lines}");
    }
}
