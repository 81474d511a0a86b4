//! Comparing heuristic versions: relative scores, the history of runs, and paired
//! significance tests between players or runs.
//!
//! Reads runs back from `results/<id>/scores.csv` (the source of truth) and `run.toml`,
//! keeps `results/best.csv`, and renders comparison tables. It never runs players: the run
//! command feeds it finished tests ([`History`]) and calls it once the run ends; the
//! `compare` and `runs` commands call it on stored runs.

pub mod extremes;
pub mod group;
pub mod relative;
pub mod report;
pub mod runs;
pub mod stats;
pub mod yardstick;

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::cli::{CompareArgs, CompareFlags, RunsArgs};
use crate::config::Scoring;
use crate::error::{Classify, Error};
use crate::problem::{self, CaseKey, Env, Problem};
use crate::report::{Event, Reporter, RunState, Summary};
use crate::rundir::ScoreRow;
use crate::secret::Secret;
use group::{Columns, Filter, GroupBy};
use report::{Options, ProblemInfo};
use runs::{BestTable, Entry};

use crate::rundir::param_column;

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

/// The name of a parameter in a test's columns, as `scores.csv` spells it.
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

/// The comparison side of a run: when it ends, reads its tests back from its `scores.csv`
/// (all of them, also those of an earlier part of a resumed run), sets the relative scores of
/// the leaderboard, updates `best.csv`, and says how the run compares with the previous run
/// of the same players.
///
/// A run with a secret key has other tests under the same seeds: it is compared only with
/// earlier runs made with the same key, and leaves `best.csv` (tests made without a key) alone.
/// A debugging run (`--verbose`) is outside the history: no comparison with earlier runs, and
/// `best.csv` left alone.
///
/// The yardstick of the run's relative scores is the best known score of each test: the best
/// of `best.csv` (every earlier run) and of this run, as pahcer has it, so a run's relative
/// score says how near it is to the best ever seen. `--vs-run` takes the best of this run's
/// players instead; a keyed run always does (`best.csv` holds other tests).
pub struct History {
    flags: Flags,
    /// The results folder (earlier runs, `best.csv`).
    results: PathBuf,
    scale: f64,
    /// Each problem's `rank-by`.
    configured: std::collections::BTreeMap<String, yardstick::RankBy>,
    /// The fingerprint of the run's secret key.
    secret: Option<String>,
    /// A debugging run ([`crate::rundir::Meta::debug`]).
    debug: bool,
}

impl History {
    pub fn new(
        flags: &CompareFlags,
        scoring: &Scoring,
        results: &Path,
        secret: Option<&Secret>,
        debug: bool,
        vs_run: bool,
    ) -> Result<History, Error> {
        if flags.vs_best && secret.is_some() {
            return Err(Error::Usage(
                "--vs-best with a secret key: best.csv holds the tests made without a key, \
                 not this run's"
                    .into(),
            ));
        }
        let mut parsed = Flags::parse(flags)?;
        parsed.vs_best = secret.is_none() && !vs_run;
        Ok(History {
            flags: parsed,
            results: results.to_path_buf(),
            scale: scoring.harness.relative_scale,
            configured: configured_rank_by(scoring),
            secret: secret.map(|s| s.fingerprint().to_string()),
            debug,
        })
    }

    pub fn flags(&self) -> &Flags {
        &self.flags
    }

    /// Once the run has ended (before the leaderboard is written): relative scores into
    /// `summary`, `best.csv` updated. Returns lines to print under the leaderboard: the
    /// comparison with the previous run and, with `--group-by`, the per-group table.
    fn finish(
        &mut self,
        run: &str,
        rows: &[ScoreRow],
        summary: &mut Summary,
    ) -> Result<Vec<String>, String> {
        let results = self.results.clone();
        let results = results.as_path();
        let entries = runs::entries(run, self.secret.clone(), rows);
        let best_path = results.join("best.csv");
        let mut best = BestTable::load(&best_path)?;
        let mut lines = Vec::new();
        let mut options = Options {
            groups: Some(Vec::new()),
            filters: Vec::new(),
            best: self.flags.vs_best.then_some(&best),
            scale: self.scale,
            rank_by: self.flags.rank_by,
            configured: self.configured.clone(),
        };
        for (problem, _) in &summary.problems {
            summary
                .rank_by
                .insert(problem.clone(), options.rank_by(problem));
        }
        let comparisons = report::compare(&entries, info, &options)?;
        for c in &comparisons {
            summary.rank_by.insert(c.problem.clone(), c.rank_by);
            for (label, t) in c.labels.iter().zip(&c.totals) {
                summary.set_relative(&c.problem, label, t.relative);
                summary.set_rank(&c.problem, label, t.rank);
            }
        }
        lines.push(yardstick(
            &best,
            &comparisons,
            self.flags.vs_best,
            &self.secret,
        ));
        // Groups apart, so a --group-by no test has costs only the group table.
        if let Some(groups) = self.flags.groups.clone().filter(|g| !g.is_empty()) {
            options.groups = Some(groups);
            match report::compare(&entries, info, &options) {
                Ok(mut grouped) => {
                    let csv = report::to_csv(&grouped).map_err(|e| e.to_string())?;
                    let path = results.join(run).join("compare.csv");
                    crate::rundir::write_atomic(&path, &csv).map_err(|e| e.to_string())?;
                    for c in &mut grouped {
                        c.pairs.clear();
                    }
                    lines.push(report::render(&grouped).trim_end().to_string());
                }
                Err(e) => lines.push(format!("warning: no groups: {e}")),
            }
        }
        if self.debug {
            return Ok(lines);
        }
        for c in &comparisons {
            if let Some(line) = versus_previous(results, run, c, self.scale, &self.secret)? {
                lines.push(line);
            }
        }
        if self.secret.is_some() {
            return Ok(lines);
        }
        best.update(&entries, |p| {
            let i = info(p);
            (i.objective, i.keeps_score_on_fault)
        });
        best.save(&best_path)
            .map_err(|e| format!("cannot write {}: {e}", best_path.display()))?;
        Ok(lines)
    }
}

impl Reporter for History {
    fn on_event(&mut self, event: &Event<'_>, state: &mut RunState) -> Result<(), String> {
        if let Event::RunFinished = event {
            match self.finish(&state.id, &state.rows, &mut state.summary) {
                Ok(lines) => {
                    // The yardstick goes into run.toml too, for report.html to say it.
                    let recorded = lines
                        .first()
                        .map(|line| crate::rundir::set_field(&state.dir, "relative-to", line));
                    if let Some(Err(e)) = recorded {
                        state.footer.push(format!("warning: run.toml: {e}"));
                    }
                    state.footer.extend(lines)
                }
                Err(e) => state.footer.push(format!("warning: no comparison: {e}")),
            }
        }
        Ok(())
    }
}

/// The line under the leaderboard that says what its relative scores are relative to.
fn yardstick(
    best: &BestTable,
    comparisons: &[report::Comparison],
    vs_best: bool,
    secret: &Option<String>,
) -> String {
    if !vs_best {
        let why = match secret {
            Some(_) => "a keyed run: results/best.csv holds other tests",
            None => "--vs-run",
        };
        return format!("relative: to the best score of each test in this run ({why})");
    }
    // The tests whose best known score came from an earlier run.
    let earlier = comparisons
        .iter()
        .flat_map(|c| c.common.iter().map(move |case| (c, case)))
        .filter(|(c, case)| {
            let i = info(&c.problem);
            best.get(&c.problem, case).is_some_and(|known| {
                // Not reached by any player of this run.
                !c.entries.iter().any(|e| {
                    let t = &e.tests[*case];
                    let ok = t.verdict == crate::verdict::Verdict::Ok;
                    relative::counted(t.score, ok, i.keeps_score_on_fault)
                        .is_some_and(|s| !relative::better(known, s, i.objective))
                })
            })
        })
        .count();
    let tests: usize = comparisons.iter().map(|c| c.common.len()).sum();
    format!(
        "relative: to the best known score of each test, of results/best.csv and this run \
         ({earlier} of {tests} from earlier runs; --vs-run: this run's best)"
    )
}

/// "vs <previous run> (<n> common tests): <player> +0.12% (95% CI ..., p = ...), ...": each
/// player of this run against itself in the earlier run that is the best baseline, or `None`
/// when no earlier run shares a test with it.
///
/// The baseline is an earlier run of the same problem and secret key (`secret`, a
/// fingerprint), not a debugging run, with players of this run: of those, the runs sharing
/// at least half as much evidence as the one that shares most (common players x tests common
/// to all of them in both runs), the newest. So a 200-seed run of the same players beats a
/// newer 1-seed one, and a run with a variant added is compared on the players in common.
fn versus_previous(
    results: &Path,
    run: &str,
    current: &report::Comparison,
    scale: f64,
    secret: &Option<String>,
) -> Result<Option<String>, String> {
    let Some((id, previous)) = baseline(results, run, &current.entries, secret) else {
        return Ok(None);
    };
    let mut names: Vec<&str> = previous.iter().map(|e| e.player.as_str()).collect();
    names.sort();
    let mine: Vec<Entry> = current
        .entries
        .iter()
        .filter(|e| names.contains(&e.player.as_str()))
        .cloned()
        .collect();
    let both: Vec<Entry> = previous.iter().chain(&mine).cloned().collect();
    let options = Options {
        groups: Some(Vec::new()),
        scale,
        ..Options::default()
    };
    let c = report::compare(&both, info, &options)?
        .into_iter()
        .next()
        .expect("one problem");
    let mut line = previous_line(&c, &names, run, &id);
    let mut new: Vec<&str> = current
        .entries
        .iter()
        .map(|e| e.player.as_str())
        .filter(|p| !names.contains(p))
        .collect();
    if !new.is_empty() {
        new.sort();
        let _ = write!(line, "; not in that run: {}", new.join(", "));
    }
    Ok(Some(line))
}

/// The earlier run to compare `current` (this run's entries of one problem) with, and its
/// entries of the players in common (see [`versus_previous`]).
fn baseline(
    results: &Path,
    run: &str,
    current: &[Entry],
    secret: &Option<String>,
) -> Option<(String, Vec<Entry>)> {
    let problem = &current.first()?.problem;
    // The entries of an earlier run's players in common with this run.
    let in_common = |id: &str| -> Option<Vec<Entry>> {
        let dir = results.join(id);
        let meta = crate::rundir::Meta::read(&dir);
        if meta.debug || meta.played || meta.secret != *secret {
            return None;
        }
        let entries = runs::load_run(&dir).ok()?;
        let previous: Vec<Entry> = entries
            .into_iter()
            .filter(|e| &e.problem == problem && current.iter().any(|c| c.player == e.player))
            .collect();
        Some(previous)
    };
    // (evidence, id): only the numbers are kept, a history can be large.
    let mut candidates: Vec<(usize, String)> = Vec::new();
    for id in runs::list(results)
        .into_iter()
        .filter(|id| id.as_str() < run)
    {
        let Some(previous) = in_common(&id) else {
            continue;
        };
        let evidence = previous.len() * tests_shared(&previous, current);
        if evidence > 0 {
            candidates.push((evidence, id));
        }
    }
    let most = candidates.iter().map(|c| c.0).max()?;
    // Ids are UTC timestamps: the last candidate with enough evidence is the newest.
    let (_, id) = candidates
        .into_iter()
        .rev()
        .find(|(evidence, _)| 2 * evidence >= most)?;
    let previous = in_common(&id)?;
    Some((id, previous))
}

/// The tests that every entry of `previous` and every entry of `current` of the same player
/// have: what the comparison of the two runs is made on.
fn tests_shared(previous: &[Entry], current: &[Entry]) -> usize {
    let Some(first) = previous.first() else {
        return 0;
    };
    let mine = |p: &Entry| current.iter().find(|c| c.player == p.player);
    first
        .tests
        .keys()
        .filter(|k| {
            previous.iter().all(|p| {
                p.tests.contains_key(*k) && mine(p).is_some_and(|c| c.tests.contains_key(*k))
            })
        })
        .count()
}

/// "<problem>: vs previous run <id> (<n> common tests): <player> +0.12% (95% CI ..., p =
/// ..., same build); ..." from a comparison `c` of the run `run` with the run `id`.
fn previous_line(c: &report::Comparison, names: &[&str], run: &str, id: &str) -> String {
    let tag = c
        .entries
        .iter()
        .find(|e| e.run == id)
        .and_then(|e| e.tag.as_deref())
        .map_or(String::new(), |t| format!(" {t:?}"));
    let mut line = format!(
        "{}: vs previous run {id}{tag} ({} common tests):",
        c.problem,
        c.common.len()
    );
    for name in names {
        let find = |r: &str| {
            c.entries
                .iter()
                .position(|e| e.player == *name && e.run == r)
                .expect("entry")
        };
        let (now, then) = (find(run), find(id));
        let diffs: Vec<f64> = c.rel[now]
            .iter()
            .zip(&c.rel[then])
            .map(|(a, b)| a - b)
            .collect();
        let d = stats::bootstrap_mean(&diffs, 1);
        let w = stats::wilcoxon(&diffs);
        let build = if c.entries[now].player_hash == c.entries[then].player_hash {
            "same build"
        } else {
            "new build"
        };
        let _ = write!(
            line,
            " {name} {:+.2}% (95% CI {:+.2}..{:+.2}, p = {}, {build});",
            d.mean * 100.0,
            d.low * 100.0,
            d.high * 100.0,
            report::p_value(w.p)
        );
    }
    line.pop();
    line
}

fn results_dir(
    results: &Option<PathBuf>,
    common: &crate::cli::Common,
) -> Result<(PathBuf, Scoring), Error> {
    let context = crate::context::Context::load(common)?;
    Ok((context.results(results.as_deref()), context.scoring))
}

/// Finds the entries a `compare` argument names: a run (all its players), `NAME@RUN`, or
/// `NAME`. For `NAME`, of the runs that have a player of that name, the one whose tests have
/// the most in common with `others` (the entries the other arguments named; without any of
/// its problem, the most tests), the newest of those; the note says which and why.
fn resolve(
    results: &Path,
    what: &str,
    others: &[Entry],
) -> Result<(Vec<Entry>, Option<String>), Error> {
    let load = |dir: &Path| runs::load_run(dir).map_err(Error::Usage);
    if let Some(dir) = runs::find(results, what) {
        return Ok((load(&dir)?, None));
    }
    if let Some((name, run)) = what.rsplit_once('@') {
        let dir = runs::find(results, run).ok_or_else(|| {
            Error::Usage(format!(
                "{what}: no run {run:?} in {} (see `{} runs`)",
                results.display(),
                crate::invocation::program()
            ))
        })?;
        let found: Vec<Entry> = load(&dir)?
            .into_iter()
            .filter(|e| e.player == name)
            .collect();
        if found.is_empty() {
            return Err(Error::Usage(format!(
                "{what}: run {run} has no player {name:?}"
            )));
        }
        return Ok((found, None));
    }
    let mut picked: Option<(usize, String, Vec<Entry>)> = None;
    let mut candidates = 0;
    let mut named_already = false;
    for id in runs::list(results).iter().rev() {
        let found: Vec<Entry> = load(&results.join(id))?
            .into_iter()
            .filter(|e| e.player == what)
            .inspect(|_| named_already = true)
            // Already named by another argument: comparing it with itself tells nothing.
            .filter(|e| {
                !others
                    .iter()
                    .any(|o| o.run == e.run && o.problem == e.problem && o.player == e.player)
            })
            .collect();
        if found.is_empty() {
            continue;
        }
        candidates += 1;
        let tests = tests_in_common(&found, others);
        if picked.as_ref().is_none_or(|(best, _, _)| tests > *best) {
            picked = Some((tests, id.clone(), found));
        }
    }
    let Some((tests, id, found)) = picked else {
        if named_already {
            // Only in runs another argument named: it is compared there.
            return Ok((Vec::new(), None));
        }
        return Err(Error::Usage(format!(
            "{what}: no run or player of that name in {} (see `{} runs`)",
            results.display(),
            crate::invocation::program()
        )));
    };
    let why = if others
        .iter()
        .any(|o| found.iter().any(|e| e.problem == o.problem))
    {
        format!("{tests} tests in common with the other entries")
    } else {
        format!("{tests} tests")
    };
    let note = format!(
        "{what}: run {id}, the newest of its {candidates} run(s) with the most tests ({why}; \
         NAME@RUN picks another)"
    );
    Ok((found, Some(note)))
}

/// How many tests of `found` the comparison would use with `others`: per entry, its tests
/// that every other entry of its problem has too.
fn tests_in_common(found: &[Entry], others: &[Entry]) -> usize {
    found
        .iter()
        .map(|e| {
            e.tests
                .keys()
                .filter(|k| {
                    others
                        .iter()
                        .filter(|o| o.problem == e.problem)
                        .all(|o| o.tests.contains_key(k))
                })
                .count()
        })
        .sum()
}

/// `harness compare`.
pub(crate) fn compare_main(args: &CompareArgs) -> Result<u8, Error> {
    let (results, scoring) = results_dir(&args.results, &args.common)?;
    let flags = Flags::parse(&args.flags)?;
    let what = if args.what.is_empty() {
        vec!["latest".to_string()]
    } else {
        args.what.clone()
    };
    // Runs and NAME@RUN first: a bare NAME then picks its run by the tests they have.
    let bare = |w: &str| runs::find(&results, w).is_none() && !w.contains('@');
    let mut fixed: Vec<Entry> = Vec::new();
    for w in what.iter().filter(|w| !bare(w)) {
        fixed.extend(resolve(&results, w, &[])?.0);
    }
    let mut entries: Vec<Entry> = Vec::new();
    for w in &what {
        let (found, note) = resolve(&results, w, &fixed)?;
        if let Some(note) = note {
            println!("{note}");
        }
        for e in found {
            let seen = entries
                .iter()
                .any(|o| o.problem == e.problem && o.player == e.player && o.run == e.run);
            if !seen {
                entries.push(e);
            }
        }
    }
    check_same_tests(&entries, flags.vs_best)?;
    let best = if flags.vs_best {
        Some(BestTable::load(&results.join("best.csv")).usage()?)
    } else {
        None
    };
    let options = Options {
        groups: flags.groups.clone(),
        filters: flags.filters.clone(),
        best: best.as_ref(),
        scale: scoring.harness.relative_scale,
        rank_by: flags.rank_by,
        configured: configured_rank_by(&scoring),
    };
    let comparisons = report::compare(&entries, info, &options).usage()?;
    print!("{}", report::render(&comparisons));
    print!(
        "{}",
        extremes::render(
            &comparisons,
            args.largest,
            crate::problem::has_views,
            args.results.as_deref()
        )
    );
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| results.join("compare.csv"));
    let csv = report::to_csv(&comparisons).fault()?;
    crate::rundir::write_atomic(&output, &csv)
        .map_err(|e| Error::fault(format!("cannot write {}: {e}", output.display())))?;
    println!("wrote {}", output.display());
    let page = output.with_extension("html");
    let env_of = |problem: &str| -> Result<Env, Error> {
        Ok(crate::context::Context::load(&args.common)?.env(problem, None))
    };
    // The runs that get new replay pages: their report.html links them once rewritten.
    let replayed = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let link = |c: &report::Comparison, i: usize, case: &CaseKey| {
        replay_link(
            &results,
            &page,
            c,
            i,
            case,
            &env_of,
            &mut replayed.borrow_mut(),
        )
    };
    let html = extremes::html(
        &comparisons,
        args.largest,
        link,
        crate::problem::has_views,
        args.results.as_deref(),
    );
    crate::rundir::write_atomic(&page, html.as_bytes())
        .map_err(|e| Error::fault(format!("cannot write {}: {e}", page.display())))?;
    println!("wrote {}", page.display());
    for run in replayed.into_inner() {
        relink_report(&run);
    }
    Ok(crate::exit::OK)
}

/// Rewrites the `report.html` of a run that got new replay pages, so it links them as it
/// links those the run wrote itself. A run without a report keeps none; a failure is a note.
fn relink_report(run: &Path) {
    if !run.join("report.html").is_file() {
        return;
    }
    let rewritten = crate::replay::read_scores(run)
        .and_then(|rows| crate::report::html::write(run, &rows).map_err(|e| e.to_string()));
    match rewritten {
        Ok(()) => println!("updated {}", run.join("report.html").display()),
        Err(e) => eprintln!(
            "note: {}: not updated: {e}",
            run.join("report.html").display()
        ),
    }
}

/// The replay page of entry `i`'s game on `case`, written now if its run has the transcript,
/// as a link from `page` (relative when the page is in the results folder). `None` when
/// there is no page to link (no transcript, no replays for the problem, a keyed run). The
/// folder of a run that got a new page joins `replayed`.
fn replay_link(
    results: &Path,
    page: &Path,
    c: &report::Comparison,
    i: usize,
    case: &CaseKey,
    env_of: &dyn Fn(&str) -> Result<Env, Error>,
    replayed: &mut std::collections::BTreeSet<PathBuf>,
) -> Option<String> {
    let e = &c.entries[i];
    if e.secret.is_some() || !crate::problem::has_views(&c.problem) {
        return None;
    }
    let dir = runs::find(results, &e.run)?;
    let test = &e.tests[case];
    let row = crate::rundir::ScoreRow {
        reason: test.columns.get("reason").cloned().unwrap_or_default(),
        think_ms: test
            .columns
            .get("think_ms")
            .and_then(|t| t.parse().ok())
            .unwrap_or(0),
        ..crate::rundir::ScoreRow::new(
            &c.problem,
            &e.player,
            &case.to_string(),
            test.score,
            test.verdict,
        )
    };
    let file = dir.join(crate::rundir::replay_file(&row));
    if !file.is_file() {
        let problem = problem::by_id(&c.problem)?;
        let env = env_of(&c.problem).ok()?;
        crate::replay::write(&dir, problem.as_ref(), &env, &row).ok()?;
        replayed.insert(dir.clone());
    }
    let here = page.parent().and_then(|p| std::fs::canonicalize(p).ok());
    let file = std::fs::canonicalize(&file).ok()?;
    match here.and_then(|h| file.strip_prefix(h).ok().map(Path::to_path_buf)) {
        Some(rel) => Some(rel.display().to_string()),
        None => Some(file.display().to_string()),
    }
}

/// Runs made with different secret keys (or one with a key, one without) have different
/// tests under the same seeds, and `best.csv` holds only tests made without a key: comparing
/// across them would pair unrelated tests, so it is refused.
fn check_same_tests(entries: &[Entry], vs_best: bool) -> Result<(), Error> {
    let describe = |e: &Entry| match &e.secret {
        Some(f) => format!("run {} was made with a secret key (fingerprint {f})", e.run),
        None => format!("run {} without a secret key", e.run),
    };
    if let Some(keyed) = entries
        .iter()
        .find(|e| e.secret.is_some())
        .filter(|_| vs_best)
    {
        return Err(Error::Usage(format!(
            "--vs-best: {}, but best.csv holds tests made without a key",
            describe(keyed)
        )));
    }
    if let Some((first, other)) = entries
        .first()
        .and_then(|first| Some((first, entries.iter().find(|e| e.secret != first.secret)?)))
    {
        return Err(Error::Usage(format!(
            "{} and {}: the same seeds are different tests, there is nothing to compare",
            describe(first),
            describe(other)
        )));
    }
    Ok(())
}

/// `harness runs`.
pub(crate) fn runs_main(args: &RunsArgs) -> Result<u8, Error> {
    let (results, _) = results_dir(&args.results, &args.common)?;
    let ids = runs::list(&results);
    if ids.is_empty() {
        println!("no runs in {}", results.display());
        return Ok(crate::exit::OK);
    }
    print!("{}", list_runs(&results, &ids));
    Ok(crate::exit::OK)
}

/// One line per (run, problem): id, date, tests, and its players best first by what the run
/// ranked them by (its `rank-by`; the raw mean without a relative or rank score), each with
/// its value, the tests left out of it (a minimised problem's failures) and its hash.
fn list_runs(results: &Path, ids: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<19}  {:<19}  {:<16}  {:>5}  ranked by: players (value, hash)",
        "run", "date (UTC)", "problem", "tests"
    );
    for id in ids {
        let dir = results.join(id);
        let entries = match runs::load_run(&dir) {
            Ok(e) => e,
            Err(e) => {
                let _ = writeln!(out, "{id:<19}  unreadable: {e}");
                continue;
            }
        };
        let date = date_of(id);
        let meta = crate::rundir::Meta::read(&dir);
        let recorded = crate::rundir::recorded(&dir);
        let mut problems: Vec<&str> = Vec::new();
        for e in &entries {
            if !problems.contains(&e.problem.as_str()) {
                problems.push(&e.problem);
            }
        }
        for p in problems {
            let mine: Vec<&Entry> = entries.iter().filter(|e| e.problem == p).collect();
            let tests = mine.iter().map(|e| e.tests.len()).max().unwrap_or(0);
            let players = standings_line(&mine, meta.rank_by(p), &recorded);
            let _ = writeln!(out, "{id:<19}  {date:<19}  {p:<16}  {tests:>5}  {players}");
        }
        let marks = meta.marks();
        if !marks.is_empty() {
            let _ = writeln!(out, "{:<19}  {}", "", marks.join("; "));
        }
    }
    out
}

/// `relative: alpha 812345.1234 (aaaa), beta 2 left out 700000.0000 (bbbb)`: the entries of
/// one problem of a run, best first by `wanted` as its leaderboard ranked them, their relative
/// and rank scores from the run's leaderboard.csv (`recorded`).
fn standings_line(
    mine: &[&Entry],
    wanted: yardstick::RankBy,
    recorded: &crate::rundir::Recorded,
) -> String {
    let Some(problem) = mine.first().map(|e| e.problem.clone()) else {
        return String::new();
    };
    let players: Vec<(String, crate::report::summary::Standing)> = mine
        .iter()
        .map(|e| {
            let mut s = crate::report::summary::Standing::default();
            for t in e.tests.values() {
                let think = t
                    .columns
                    .get("think_ms")
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                s.add(t.score, t.verdict, std::time::Duration::from_millis(think));
            }
            let key = (problem.clone(), e.player.clone());
            (s.relative, s.rank) = recorded.get(&key).copied().unwrap_or_default();
            (e.player.clone(), s)
        })
        .collect();
    let objective = info(&problem).objective;
    let by = crate::report::summary::rank_by(wanted, &players);
    let shown: Vec<String> = crate::report::summary::ranked(&players, by, objective)
        .into_iter()
        .map(|(_, (name, s))| {
            let mark = s.mark(by, objective);
            let value = mark.value.map_or("-".to_string(), |v| format!("{v:.4}"));
            let left = match mark.left_out {
                0 => String::new(),
                n => format!(", {n} left out"),
            };
            let hash = mine
                .iter()
                .find(|e| &e.player == name)
                .map_or("", |e| &e.player_hash);
            format!("{name} {value}{left} ({hash})")
        })
        .collect();
    format!("{}: {}", by.name(), shown.join(", "))
}

/// `20261121-225622` -> `2026-11-21 22:56:22`.
fn date_of(id: &str) -> String {
    let b = id.as_bytes();
    if b.len() >= 15 && b[8] == b'-' && b[..8].iter().chain(&b[9..15]).all(u8::is_ascii_digit) {
        format!(
            "{}-{}-{} {}:{}:{}",
            &id[0..4],
            &id[4..6],
            &id[6..8],
            &id[9..11],
            &id[11..13],
            &id[13..15]
        )
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Verdict;

    /// Rows of chesspuzzle tests: each player on each seed, scoring `base` plus a little.
    fn rows(players: &[(&str, &str)], seeds: std::ops::RangeInclusive<u64>) -> Vec<ScoreRow> {
        let mut out = Vec::new();
        for (player, hash) in players {
            for s in seeds.clone() {
                let score = 0.5 + 0.001 * (s % 7) as f64;
                let mut row =
                    ScoreRow::new("chesspuzzle", player, &s.to_string(), score, Verdict::Ok);
                row.player_hash = hash.to_string();
                out.push(row);
            }
        }
        out
    }

    /// A run folder under `results` with these rows and `run_toml`.
    fn write_run(results: &Path, id: &str, rows: &[ScoreRow], run_toml: &str) {
        let dir = results.join(id);
        std::fs::create_dir_all(&dir).unwrap();
        let layout = crate::rundir::Layout::new(&[]);
        std::fs::write(dir.join("scores.csv"), layout.file(rows).unwrap()).unwrap();
        std::fs::write(dir.join("run.toml"), run_toml).unwrap();
    }

    /// The "vs previous run" line of run `id` made of `rows`.
    fn line(results: &Path, id: &str, rows: &[ScoreRow]) -> Option<String> {
        let entries = runs::entries(id, None, rows);
        let options = Options {
            groups: Some(Vec::new()),
            ..Options::default()
        };
        let c = report::compare(&entries, info, &options).unwrap();
        versus_previous(results, id, &c[0], 1.0, &None).unwrap()
    }

    #[test]
    fn the_baseline_is_the_run_sharing_most_tests_never_a_debugging_run() {
        let results = tempfile::tempdir().unwrap();
        let r = results.path();
        let both = [("a", "h1"), ("b", "h2")];
        write_run(r, "20260101-000000", &rows(&both, 1..=100), "");
        write_run(
            r,
            "20260102-000000",
            &rows(&both, 1..=200),
            "tag = \"wider beam\"\n",
        );
        // Newer: a --verbose run of an old build of a on one seed, and a plain 1-seed run.
        write_run(
            r,
            "20260103-000000",
            &rows(&[("a", "old")], 1..=1),
            "debug = true\n",
        );
        write_run(r, "20260103-000001", &rows(&[("a", "old")], 2..=2), "");
        write_run(r, "20260103-000002", &rows(&both, 1..=1), "debug = true\n");

        let alone = line(r, "20260104-000000", &rows(&[("a", "h1")], 1..=400)).unwrap();
        assert!(
            alone.starts_with(
                "chesspuzzle: vs previous run 20260102-000000 \"wider beam\" (200 common tests): a +0.00%"
            ),
            "{alone}"
        );
        assert!(alone.contains("same build"), "{alone}");
        // A variant added: compared on the players in common, the variant named.
        let three = [("a", "h1"), ("b", "h2"), ("a-deep", "h3")];
        let added = line(r, "20260104-000000", &rows(&three, 1..=400)).unwrap();
        assert!(
            added.starts_with("chesspuzzle: vs previous run 20260102-000000 \"wider beam\" (200 common tests): a "),
            "{added}"
        );
        assert!(added.contains("; b +0.00%"), "{added}");
        assert!(added.ends_with("; not in that run: a-deep"), "{added}");
        // Among runs with enough in common, the newest: 150 common tests are not less than
        // half of 200.
        write_run(r, "20260103-000003", &rows(&both, 51..=200), "");
        let newer = line(r, "20260104-000000", &rows(&both, 1..=400)).unwrap();
        assert!(
            newer.contains("vs previous run 20260103-000003 (150 common tests)"),
            "{newer}"
        );
        // No earlier run shares a test: no line.
        assert_eq!(line(r, "20260104-000000", &rows(&both, 500..=510)), None);
    }
}
