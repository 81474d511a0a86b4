//! Paired significance tests on per-seed differences: the sign test, the Wilcoxon
//! signed-rank test and a seeded bootstrap interval of the mean difference.
//!
//! Pure functions of a slice of differences (`B - A` per common seed); nothing here knows
//! about runs or files. The distributions come from `statrs`; the Wilcoxon null
//! distribution for small samples is counted exactly here. The tests check every number
//! against values computed once with scipy 1.17 and written in as literals.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, Normal};

/// Two `|d|` closer than this (relatively) share a rank: differences of relative scores
/// are ratios, and `0.3 - 0.1` should tie with `0.2`.
const TIE_TOLERANCE: f64 = 1e-9;

/// The largest sample (after dropping zeros) whose Wilcoxon p-value is counted exactly, as
/// in scipy's `method="auto"`; larger samples, and samples with tied `|d|`, use the normal
/// approximation.
pub(crate) const WILCOXON_EXACT_MAX: usize = 50;

/// The sign test: how often B beat A, ignoring ties, against a fair coin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignTest {
    pub wins: usize,
    pub ties: usize,
    pub losses: usize,
    /// Two-sided exact binomial p-value (1 when there is nothing but ties).
    pub p: f64,
}

/// Counts wins, ties and losses and tests them with an exact two-sided binomial test
/// (`scipy.stats.binomtest(wins, wins + losses)`).
pub(crate) fn sign_test(diffs: &[f64]) -> SignTest {
    let wins = diffs.iter().filter(|&&d| d > 0.0).count();
    let losses = diffs.iter().filter(|&&d| d < 0.0).count();
    let ties = diffs.len() - wins - losses;
    let n = (wins + losses) as u64;
    let p = if n == 0 {
        1.0
    } else {
        let bin = Binomial::new(0.5, n).expect("p = 0.5 is a probability");
        let k = wins.min(losses) as u64;
        // Symmetric null: both tails are equally likely, so twice the smaller one.
        (2.0 * bin.cdf(k)).min(1.0)
    };
    SignTest {
        wins,
        ties,
        losses,
        p,
    }
}

/// How a Wilcoxon p-value was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WilcoxonMethod {
    /// Exact null distribution (no zeros left, no tied `|d|`, n <= [`WILCOXON_EXACT_MAX`]).
    Exact,
    /// Normal approximation with the tie correction of the variance, no continuity
    /// correction (scipy's `method="approx"`, `correction=False`).
    Normal,
}

/// The Wilcoxon signed-rank test of the differences against zero.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wilcoxon {
    /// Differences used (zeros are dropped first: Wilcoxon's own rule, scipy's default
    /// `zero_method="wilcox"`).
    pub n: usize,
    /// The smaller of the positive and the negative rank sums (midranks for ties).
    pub statistic: f64,
    /// Two-sided p-value (1 when no difference is left).
    pub p: f64,
    pub method: WilcoxonMethod,
}

/// The Wilcoxon signed-rank test, two-sided.
pub(crate) fn wilcoxon(diffs: &[f64]) -> Wilcoxon {
    let mut abs: Vec<(f64, bool)> = diffs
        .iter()
        .filter(|d| **d != 0.0)
        .map(|&d| (d.abs(), d > 0.0))
        .collect();
    let n = abs.len();
    if n == 0 {
        return Wilcoxon {
            n,
            statistic: 0.0,
            p: 1.0,
            method: WilcoxonMethod::Exact,
        };
    }
    abs.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Midranks over runs of equal |d|; `tie_term` is sum(t^3 - t) over the runs.
    let mut r_plus = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && abs[j].0 - abs[i].0 <= TIE_TOLERANCE * abs[i].0 {
            j += 1;
        }
        let rank = (i + 1 + j) as f64 / 2.0;
        r_plus += rank * abs[i..j].iter().filter(|a| a.1).count() as f64;
        let t = (j - i) as f64;
        tie_term += t * t * t - t;
        i = j;
    }
    let total = (n * (n + 1)) as f64 / 2.0;
    let statistic = r_plus.min(total - r_plus);
    let nf = n as f64;
    if tie_term == 0.0 && n <= WILCOXON_EXACT_MAX {
        let counts = signed_rank_counts(n);
        let all: f64 = counts.iter().sum();
        let below: f64 = counts[..=statistic as usize].iter().sum();
        return Wilcoxon {
            n,
            statistic,
            p: (2.0 * below / all).min(1.0),
            method: WilcoxonMethod::Exact,
        };
    }
    let mean = nf * (nf + 1.0) / 4.0;
    let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
    let p = if var <= 0.0 {
        1.0
    } else {
        let z = (statistic - mean) / var.sqrt();
        let normal = Normal::standard();
        (2.0 * normal.cdf(-z.abs())).min(1.0)
    };
    Wilcoxon {
        n,
        statistic,
        p,
        method: WilcoxonMethod::Normal,
    }
}

/// `counts[w]`: how many of the `2^n` sign patterns of ranks `1..=n` have a positive rank
/// sum of `w` (the exact null distribution, up to the factor `2^-n`).
fn signed_rank_counts(n: usize) -> Vec<f64> {
    let max = n * (n + 1) / 2;
    let mut counts = vec![0.0; max + 1];
    counts[0] = 1.0;
    for rank in 1..=n {
        for w in (rank..=max).rev() {
            counts[w] += counts[w - rank];
        }
    }
    counts
}

/// A percentile bootstrap interval of the mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

/// Resamples drawn by [`bootstrap_mean`].
pub(crate) const BOOTSTRAP_RESAMPLES: usize = 10_000;

/// The 95% percentile bootstrap interval of the mean of `values`, from
/// [`BOOTSTRAP_RESAMPLES`] resamples drawn with a fixed seed, so the same data always give
/// the same interval. Empty data give zeros.
pub(crate) fn bootstrap_mean(values: &[f64], seed: u64) -> Interval {
    let n = values.len();
    if n == 0 {
        return Interval {
            mean: 0.0,
            low: 0.0,
            high: 0.0,
        };
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut means: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| (0..n).map(|_| values[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * BOOTSTRAP_RESAMPLES as f64) as usize).min(means.len() - 1)];
    Interval {
        mean,
        low: at(0.025),
        high: at(0.975),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1e-300)
    }

    #[test]
    fn sign_test_matches_scipy_binomtest() {
        // scipy.stats.binomtest(k, n).pvalue
        for (wins, losses, p) in [
            (7, 3, 0.34375),
            (63, 32, 0.0019243477775263038),
            (0, 12, 0.00048828125),
            (500, 500, 1.0),
            (530, 470, 0.06202319509836343),
        ] {
            let mut diffs = vec![1.0; wins];
            diffs.extend(vec![-0.5; losses]);
            diffs.extend([0.0, 0.0]);
            let t = sign_test(&diffs);
            assert_eq!((t.wins, t.ties, t.losses), (wins, 2, losses));
            assert!(close(t.p, p), "{wins}/{losses}: {} != {p}", t.p);
        }
    }

    #[test]
    fn sign_test_of_nothing_but_ties_is_one() {
        let t = sign_test(&[0.0, 0.0, 0.0]);
        assert_eq!((t.wins, t.ties, t.losses, t.p), (0, 3, 0, 1.0));
        assert_eq!(sign_test(&[]).p, 1.0);
    }

    #[test]
    fn wilcoxon_exact_matches_scipy() {
        // scipy.stats.wilcoxon(d): statistic 8.0, pvalue 0.048828125 (exact).
        let d = [1.5, -0.3, 2.2, 0.7, -1.1, 3.0, 0.4, 2.5, -0.2, 1.8];
        let w = wilcoxon(&d);
        assert_eq!(
            (w.n, w.statistic, w.method),
            (10, 8.0, WilcoxonMethod::Exact)
        );
        assert!(close(w.p, 0.048828125), "{}", w.p);
        // All twelve positive: statistic 0, pvalue 0.00048828125 = 2 / 2^12.
        let d: Vec<f64> = (1..=12).map(f64::from).collect();
        let w = wilcoxon(&d);
        assert_eq!(w.statistic, 0.0);
        assert!(close(w.p, 0.00048828125), "{}", w.p);
        // One difference: p = 1.
        assert_eq!(wilcoxon(&[2.0]).p, 1.0);
        assert_eq!(wilcoxon(&[0.0, 0.0]).p, 1.0);
    }

    #[test]
    fn wilcoxon_with_ties_and_zeros_uses_the_corrected_normal_approximation() {
        // scipy.stats.wilcoxon(d) with zeros (zero_method="wilcox" drops them, then "auto"
        // picks the approximation): statistic 18.0, pvalue 0.05307688506661375.
        let d = [
            1.0, 1.0, -1.0, 2.0, 2.0, 2.0, -3.0, 4.0, 4.0, 5.0, 0.0, 0.0, 6.0, -2.0, 1.0,
        ];
        let w = wilcoxon(&d);
        assert_eq!(
            (w.n, w.statistic, w.method),
            (13, 18.0, WilcoxonMethod::Normal)
        );
        assert!(close(w.p, 0.05307688506661375), "{}", w.p);
        // Ties found through rounding: 0.3 - 0.1 (0.19999999999999998) ties with 0.2.
        let mut scaled: Vec<f64> = d.iter().map(|x| x / 10.0).collect();
        scaled[3] = 0.3 - 0.1;
        assert_ne!(scaled[3], scaled[4]);
        let w = wilcoxon(&scaled);
        assert_eq!(w.statistic, 18.0);
        assert!(close(w.p, 0.05307688506661375), "{}", w.p);
    }

    #[test]
    fn wilcoxon_large_sample_matches_scipy_normal_approximation() {
        // scipy.stats.wilcoxon(d): n = 60 > 50, statistic 757.0, pvalue 0.24477543370760457.
        let d: Vec<f64> = (0..60)
            .map(|i| (((i * 37) % 101) as f64 - 45.0) / 7.0 + 0.001 * f64::from(i))
            .collect();
        let w = wilcoxon(&d);
        assert_eq!(
            (w.n, w.statistic, w.method),
            (60, 757.0, WilcoxonMethod::Normal)
        );
        assert!(close(w.p, 0.24477543370760457), "{}", w.p);
    }

    #[test]
    fn bootstrap_is_deterministic_and_about_the_normal_width() {
        // 200 values with mean 1 and standard deviation ~0.577 (a uniform grid on 0..2).
        let values: Vec<f64> = (0..200).map(|i| 2.0 * f64::from(i) / 199.0).collect();
        let a = bootstrap_mean(&values, 7);
        assert_eq!(a, bootstrap_mean(&values, 7));
        assert!(close(a.mean, 1.0));
        assert!(a.low < 1.0 && 1.0 < a.high, "{a:?}");
        // The normal interval is +-1.96 * sd / sqrt(n) = +-0.0800; the bootstrap's is close.
        let half = (a.high - a.low) / 2.0;
        assert!((half - 0.0800).abs() < 0.008, "{a:?}");
        let constant = bootstrap_mean(&[3.0; 10], 1);
        assert_eq!((constant.low, constant.high), (3.0, 3.0));
        assert_eq!(bootstrap_mean(&[], 1).mean, 0.0);
    }
}
