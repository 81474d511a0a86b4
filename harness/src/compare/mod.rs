//! Comparing heuristic versions: relative scores, the history of runs, and paired
//! significance tests between players or runs.
//!
//! Reads runs back from `results/<id>/scores.csv` (the source of truth) and `run.toml`,
//! keeps `results/best.csv`, and renders comparison tables. It never runs players: the run
//! command feeds it finished tests ([`History`], `history.rs`) and calls it once the run ends;
//! the `compare` command (`command.rs`) and the `runs` command (`listing.rs`) call it on
//! stored runs. This file holds what they share: a problem's facts, the parsed flags, the
//! `--filter` of a run's cases and the results folder.

mod command;
pub mod extremes;
pub mod group;
mod history;
mod listing;
pub use crate::rank::relative;
pub mod report;
pub mod runs;
pub mod stats;
pub use crate::rank::yardstick;

use std::path::PathBuf;

use crate::cli::CompareFlags;
use crate::config::Scoring;
use crate::error::{Classify, Error};
use crate::problem::{self, CaseKey, Env, Problem};
use group::{Columns, Filter, GroupBy};
use report::ProblemInfo;

use crate::rundir::param_column;

pub(crate) use command::compare_main;
pub use history::History;
pub(crate) use listing::runs_main;

/// What the comparison needs to know of a problem, from the problem itself.
pub(crate) fn info(id: &str) -> ProblemInfo {
    match problem::by_id(id) {
        Some(p) => ProblemInfo {
            objective: p.objective(),
            keeps_score_on_fault: p.keeps_score_on_fault(),
            groups: p.groups().iter().map(|g| g.to_string()).collect(),
        },
        // A problem this harness no longer knows (an old run): plain maximised scores.
        None => ProblemInfo {
            objective: problem::Objective::Maximize,
            keeps_score_on_fault: false,
            groups: Vec::new(),
        },
    }
}

/// The parsed `--filter`s and `--group-by`s (`None`: the problems' defaults).
pub struct Flags {
    pub filters: Vec<Filter>,
    pub groups: Option<Vec<GroupBy>>,
    pub vs_best: bool,
    /// `--rank-by`.
    pub rank_by: Option<yardstick::RankBy>,
}

/// Each problem's `rank-by` (scoring.toml's `[problem.<id>]`, problem.toml's `[limits]`).
pub(crate) fn configured_rank_by(
    scoring: &Scoring,
) -> std::collections::BTreeMap<String, yardstick::RankBy> {
    scoring
        .problem
        .iter()
        .map(|(id, cfg)| (id.clone(), cfg.rank_by))
        .collect()
}

impl Flags {
    pub fn parse(flags: &CompareFlags) -> Result<Flags, Error> {
        let filters = flags
            .filter
            .iter()
            .map(|f| Filter::parse(f).map_err(|e| Error::Usage(format!("--filter {e}"))))
            .collect::<Result<_, _>>()?;
        let groups = if flags.group_by.is_empty() {
            None
        } else if flags.group_by.iter().any(|g| g == "none") {
            Some(Vec::new())
        } else {
            Some(
                flags
                    .group_by
                    .iter()
                    .map(|g| GroupBy::parse(g).map_err(|e| Error::Usage(format!("--group-by {e}"))))
                    .collect::<Result<_, _>>()?,
            )
        };
        Ok(Flags {
            filters,
            groups,
            vs_best: flags.vs_best,
            rank_by: flags.rank_by,
        })
    }
}

/// Keeps the cases whose generator parameters match every `--filter` that names parameters
/// of this problem (a filter about another problem's parameters does not apply). Returns
/// the cases and which filters applied.
pub(crate) fn filter_cases(
    problem: &dyn Problem,
    env: &Env,
    cases: Vec<CaseKey>,
    filters: &[Filter],
) -> Result<(Vec<CaseKey>, Vec<bool>), Error> {
    let names: Columns = problem
        .param_names()
        .iter()
        .map(|n| (param_column(problem.id(), n), String::new()))
        .collect();
    let applied: Vec<bool> = filters
        .iter()
        .map(|f| f.expr.applies(problem.id(), &names))
        .collect();
    if !applied.contains(&true) {
        return Ok((cases, applied));
    }
    let mut kept = Vec::new();
    for case in cases {
        let game = problem.case(&case, env).usage()?;
        let columns: Columns = problem
            .param_names()
            .iter()
            .map(|n| param_column(problem.id(), n))
            .zip(game.params())
            .collect();
        let ok = filters
            .iter()
            .zip(&applied)
            .all(|(f, &a)| !a || f.matches(problem.id(), &columns));
        if ok {
            kept.push(case);
        }
    }
    Ok((kept, applied))
}

/// The results folder (`--results`, else scoring.toml's) and the scoring.toml it is from.
fn results_dir(
    results: &Option<PathBuf>,
    common: &crate::cli::Common,
) -> Result<(PathBuf, Scoring), Error> {
    let context = crate::context::Context::load(common)?;
    Ok((context.results(results.as_deref()), context.scoring))
}
