//! `harness compare`: finds the entries its arguments name (runs, players, `NAME@RUN`),
//! compares them on their common tests, prints the tables and the largest losses and wins,
//! and writes `compare.csv` and `compare.html` (with replay pages it writes for the tests it
//! links, and the `report.html` of those runs rewritten to link them).
//!
//! Reads the results folder; writes only those files. Never runs players.

use std::path::{Path, PathBuf};

use super::report::{self, Options};
use super::runs::{self, BestTable, Entry};
use super::{configured_rank_by, extremes, info, results_dir, Flags};
use crate::cli::CompareArgs;
use crate::error::{Classify, Error};
use crate::problem::{self, CaseKey, Env};

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
    let entries = named_entries(&results, &args.what)?;
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
    print_tables(&comparisons, args);
    let output = write_csv(&comparisons, args, &results)?;
    write_page(&comparisons, args, &results, &output)?;
    Ok(crate::exit::OK)
}

/// The entries the arguments name (`latest` when none), each once, printing the note of each
/// bare player name ([`resolve`]). Runs and `NAME@RUN` first: a bare `NAME` then picks its
/// run by the tests they have.
fn named_entries(results: &Path, what: &[String]) -> Result<Vec<Entry>, Error> {
    let what = if what.is_empty() {
        vec!["latest".to_string()]
    } else {
        what.to_vec()
    };
    let bare = |w: &str| runs::find(results, w).is_none() && !w.contains('@');
    let mut fixed: Vec<Entry> = Vec::new();
    for w in what.iter().filter(|w| !bare(w)) {
        fixed.extend(resolve(results, w, &[])?.0);
    }
    let mut entries: Vec<Entry> = Vec::new();
    for w in &what {
        let (found, note) = resolve(results, w, &fixed)?;
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
    Ok(entries)
}

/// The comparison tables and the largest losses and wins, on stdout.
fn print_tables(comparisons: &[report::Comparison], args: &CompareArgs) {
    print!("{}", report::render(comparisons));
    print!(
        "{}",
        extremes::render(
            comparisons,
            args.largest,
            crate::problem::has_views,
            args.results.as_deref()
        )
    );
}

/// Writes `compare.csv` (`--output`, else in the results folder) and returns its path.
fn write_csv(
    comparisons: &[report::Comparison],
    args: &CompareArgs,
    results: &Path,
) -> Result<PathBuf, Error> {
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| results.join("compare.csv"));
    let csv = report::to_csv(comparisons).fault()?;
    crate::rundir::write_atomic(&output, &csv)
        .map_err(|e| Error::fault(format!("cannot write {}: {e}", output.display())))?;
    println!("wrote {}", output.display());
    Ok(output)
}

/// Writes `compare.html` beside `output`, with replay pages of the tests it links written
/// where their runs lack them, and the `report.html` of those runs rewritten to link them.
fn write_page(
    comparisons: &[report::Comparison],
    args: &CompareArgs,
    results: &Path,
    output: &Path,
) -> Result<(), Error> {
    let page = output.with_extension("html");
    let env_of = |problem: &str| -> Result<Env, Error> {
        Ok(crate::context::Context::load(&args.common)?.env(problem, None))
    };
    // The runs that get new replay pages: their report.html links them once rewritten.
    let replayed = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let link = |c: &report::Comparison, i: usize, case: &CaseKey| {
        replay_link(
            results,
            &page,
            c,
            i,
            case,
            &env_of,
            &mut replayed.borrow_mut(),
        )
    };
    let html = extremes::html(
        comparisons,
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
    Ok(())
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
