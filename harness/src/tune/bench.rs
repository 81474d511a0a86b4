//! The tuner's own cost, for `harness bench`: a tuning of a known function in process, with
//! sampling, pruning and files as in a real one, and no player.

use std::path::Path;

use super::files::TuneFiles;
use super::params::{self, Value};
use super::search::{self, Plan, Pruner, SeedScore};

/// What the benchmark's trials are judged by: the default yardstick of a maximised problem.
const YARDSTICK: super::yardstick::Yardstick = super::yardstick::Yardstick {
    objective: crate::problem::Objective::Maximize,
    rank_by: crate::config::RankBy::Relative,
};

/// `harness bench`'s line: the tuner's own cost per trial over 1,000 trials of 50 seeds.
pub(crate) fn bench_line() {
    const TRIALS: usize = 1000;
    const SEEDS: usize = 50;
    match overhead(TRIALS, SEEDS) {
        Ok((per_trial, pruned)) => println!(
            "  tuner (harness tune), {TRIALS} trials x {SEEDS} seeds of a known function: {:.3} ms/trial of its own (TPE sampling, pruning, CSV files; {pruned} pruned)",
            per_trial * 1e3
        ),
        Err(e) => println!("  tuner: cannot measure: {e}"),
    }
}

/// The tuner's own cost per trial, for `harness bench`: `trials` trials of `seeds` seeds
/// each on a known function (no player), with sampling, pruning and every file written as
/// in a real tuning. Returns (seconds per trial, trials pruned).
pub(crate) fn overhead(trials: usize, seeds: usize) -> std::io::Result<(f64, usize)> {
    let table: toml::Table = r#"
        a = { kind = "log-float", range = [1.0, 1000.0], default = 10.0 }
        b = { kind = "float", range = [0.0, 60.0], default = 0.0 }
        c = { kind = "int", range = [0, 400], default = 40 }
        d = { kind = "int", range = [1, 120], default = 40 }
        e = { kind = "choice", choices = ["x", "y", "z"], default = "x" }
        f = { kind = "log-float", range = [3.0, 3000.0], default = 100.0 }
    "#
    .parse()
    .expect("a valid table");
    let params =
        params::parse(&table, Path::new("bench"), "params").map_err(std::io::Error::other)?;
    let dir = tempfile::tempdir()?;
    let mut files = TuneFiles::create(dir.path(), "", &params, YARDSTICK)?;
    let seed_list: Vec<u64> = (1..=seeds as u64).collect();
    let plan = Plan {
        params: &params,
        seeds: &seed_list,
        trials,
        threads: 1,
        sampler: super::tpe::Tpe::default(),
        pruner: Pruner {
            first: super::command::PRUNE_AFTER.min(seeds / 2).max(1),
            p: super::command::PRUNE_P,
        },
        sampler_seed: 1,
        yardstick: YARDSTICK,
    };
    let play = |values: &[Value], seed: u64| {
        let x: f64 = params
            .iter()
            .zip(values)
            .map(|(p, v)| {
                let (low, high) = p.bounds();
                let u = (p.coordinate(*v) - low) / (high - low);
                (u - 0.3).powi(2)
            })
            .sum();
        Some(SeedScore {
            verdict: crate::verdict::Verdict::Ok,
            score: 100.0 - 50.0 * x + ((seed * 7919) % 23) as f64,
            think_ms: 0,
        })
    };
    let start = std::time::Instant::now();
    let (done, _) = search::run(&plan, Vec::new(), &mut files, play);
    let elapsed = start.elapsed().as_secs_f64();
    if let Some(e) = files.error.take() {
        return Err(e);
    }
    let pruned = done
        .iter()
        .filter(|t| t.state == search::State::Pruned)
        .count();
    Ok((elapsed / trials as f64, pruned))
}
