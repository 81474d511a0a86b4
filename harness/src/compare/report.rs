//! The comparison itself: entries (players of runs) on their common tests, with relative
//! scores, pairwise wins/ties/losses and significance tests, and per-group means; rendered
//! as a text table and as `compare.csv`.
//!
//! Pure: takes loaded entries, returns values and strings; files are the caller's.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::group::{Filter, GroupBy, Value};
use super::relative;
use super::runs::{BestTable, Entry};
use super::stats::{self, Interval, SignTest, Wilcoxon, WilcoxonMethod};
use super::yardstick::{self, Mark, RankBy};
use crate::problem::{CaseKey, Objective};
use crate::verdict::Verdict;

/// The seed of the bootstrap: fixed, so a comparison prints the same interval every time.
const BOOTSTRAP_SEED: u64 = 0x5eed_c0de;

/// What a problem tells the comparison.
#[derive(Clone, Debug)]
pub struct ProblemInfo {
    pub objective: Objective,
    pub keeps_score_on_fault: bool,
    /// Groupings used when the user names none.
    pub groups: Vec<String>,
}

/// How to compare.
#[derive(Clone, Debug, Default)]
pub struct Options<'a> {
    /// `None`: each problem's own groupings; `Some(empty)`: none.
    pub groups: Option<Vec<GroupBy>>,
    pub filters: Vec<Filter>,
    /// With `--vs-best`: BEST also counts every run recorded in `best.csv`.
    pub best: Option<&'a BestTable>,
    /// The relative score of a player best on every test (1,000,000).
    pub scale: f64,
    /// `--rank-by`: what every problem ranks by, over `configured`.
    pub rank_by: Option<RankBy>,
    /// Each problem's `rank-by` (scoring.toml, problem.toml); a problem not named: relative.
    pub configured: std::collections::BTreeMap<String, RankBy>,
}

impl Options<'_> {
    /// What `problem`'s entries are ranked by.
    pub fn rank_by(&self, problem: &str) -> RankBy {
        self.rank_by
            .or_else(|| self.configured.get(problem).copied())
            .unwrap_or_default()
    }
}

/// One entry's totals over some tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Totals {
    pub tests: usize,
    /// The mean raw score: over every test when maximising (a failed test counting its
    /// score), over the OK tests when minimising (NaN when none is).
    pub mean: f64,
    /// `scale x mean(relative)`.
    pub relative: f64,
    /// pahcer's rank score among the entries, 0..=100.
    pub rank: f64,
    /// The entry's standing by the problem's yardstick (what ranks it).
    pub mark: Mark,
}

/// Two entries on the common tests: `a` is the better-ranked one, differences are `a - b`
/// of relative scores.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub a: usize,
    pub b: usize,
    pub sign: SignTest,
    pub wilcoxon: Wilcoxon,
    /// Mean per-test difference of relative scores, as a fraction of BEST.
    pub diff: Interval,
}

/// Per-group totals of each entry under one `--group-by`.
#[derive(Clone, Debug, PartialEq)]
pub struct Grouping {
    pub by: String,
    /// (label, totals of each entry in rank order).
    pub rows: Vec<(String, Vec<Totals>)>,
}

/// The comparison of one problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub problem: String,
    /// Entries in rank order (best relative score first), with their display labels.
    pub entries: Vec<Entry>,
    pub labels: Vec<String>,
    /// Tests of each entry after filtering, before keeping the common ones.
    pub available: Vec<usize>,
    pub common: Vec<CaseKey>,
    pub totals: Vec<Totals>,
    /// Relative score (0..=1) of each entry on each common test.
    pub rel: Vec<Vec<f64>>,
    pub pairs: Vec<Pair>,
    pub groups: Vec<Grouping>,
    pub vs_best: bool,
    /// The relative score of an entry best on every test (`Options::scale`).
    pub scale: f64,
    /// What the entries are ranked by.
    pub rank_by: RankBy,
    /// Whether every score of every entry is a whole number.
    pub integral: bool,
}

/// Compares entries problem by problem, on the tests every entry of a problem has.
pub fn compare(
    entries: &[Entry],
    info: impl Fn(&str) -> ProblemInfo,
    options: &Options,
) -> Result<Vec<Comparison>, String> {
    let mut problems: Vec<&str> = Vec::new();
    for e in entries {
        if !problems.contains(&e.problem.as_str()) {
            problems.push(&e.problem);
        }
    }
    let mut out = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for &problem in &problems {
        let info = info(problem);
        let mut mine: Vec<Entry> = entries
            .iter()
            .filter(|e| e.problem == problem)
            .cloned()
            .collect();
        // A filter about columns this problem's tests lack is about another problem.
        let applies = |f: &Filter| {
            mine.iter()
                .flat_map(|e| e.tests.values())
                .any(|t| f.expr.applies(problem, &t.columns))
        };
        let filters: Vec<&Filter> = options.filters.iter().filter(|f| applies(f)).collect();
        for f in &filters {
            used.insert(f.expr.text.clone());
        }
        for e in &mut mine {
            e.tests
                .retain(|_, t| filters.iter().all(|f| f.matches(problem, &t.columns)));
        }
        let c = compare_problem(problem, mine, &info, options);
        used.extend(c.groups.iter().map(|g| g.by.clone()));
        out.push(c);
    }
    let named = options.filters.iter().map(|f| ("--filter", &f.expr)).chain(
        options
            .groups
            .iter()
            .flatten()
            .map(|g| ("--group-by", &g.expr)),
    );
    for (flag, expr) in named {
        if !used.contains(&expr.text) {
            return Err(format!(
                "{flag} {}: no test of {} has such a column (parameters and scores.csv columns such as moves, think_ms)",
                expr.text,
                problems.join(", ")
            ));
        }
    }
    Ok(out)
}

fn compare_problem(
    problem: &str,
    entries: Vec<Entry>,
    info: &ProblemInfo,
    options: &Options,
) -> Comparison {
    let available: Vec<usize> = entries.iter().map(|e| e.tests.len()).collect();
    let mut common: BTreeSet<CaseKey> = entries
        .first()
        .map(|e| e.tests.keys().cloned().collect())
        .unwrap_or_default();
    for e in &entries[1.min(entries.len())..] {
        common.retain(|c| e.tests.contains_key(c));
    }
    let common: Vec<CaseKey> = common.into_iter().collect();
    let counted = |e: &Entry, c: &CaseKey| {
        let t = &e.tests[c];
        relative::counted(t.score, t.verdict == Verdict::Ok, info.keeps_score_on_fault)
    };
    // rel[entry][test], raw[entry][test] on the common tests.
    let best: Vec<Option<f64>> = common
        .iter()
        .map(|c| {
            let known = options.best.and_then(|b| b.get(problem, c));
            relative::best(
                entries.iter().map(|e| counted(e, c)).chain([known]),
                info.objective,
            )
        })
        .collect();
    let rel = relative_scores(&entries, &common, &best, info.objective, counted);
    let rank_by = options.rank_by(problem);
    let scores = Scores::new(&entries, &common, rel.clone(), info, rank_by, counted);
    let all: Vec<usize> = (0..common.len()).collect();
    let totals_of = |i: usize, on: &[usize]| scores.totals(i, on, options.scale);
    // Rank: by the yardstick, then name.
    let mut order: Vec<usize> = (0..entries.len()).collect();
    let labels = labels(&entries);
    order.sort_by(|&x, &y| {
        yardstick::order(
            &totals_of(x, &all).mark,
            &totals_of(y, &all).mark,
            rank_by,
            info.objective,
        )
        .then_with(|| labels[x].cmp(&labels[y]))
    });
    let pairs = paired_tests(&order, &rel);
    let groups = groupings(
        problem, &entries, &common, info, options, &order, &totals_of,
    );
    let totals = order.iter().map(|&i| totals_of(i, &all)).collect();
    let available = order.iter().map(|&i| available[i]).collect();
    let labels = order.iter().map(|&i| labels[i].clone()).collect();
    let mut rel: Vec<Option<Vec<f64>>> = rel.into_iter().map(Some).collect();
    let rel = order
        .iter()
        .map(|&i| rel[i].take().expect("once"))
        .collect();
    let mut ranked: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
    let entries = order
        .iter()
        .map(|&i| ranked[i].take().expect("once"))
        .collect();
    Comparison {
        problem: problem.to_string(),
        entries,
        labels,
        available,
        common,
        totals,
        rel,
        pairs,
        groups,
        vs_best: options.best.is_some(),
        scale: options.scale,
        rank_by,
        integral: scores.integral,
    }
}

/// Per entry and common test, what the totals are made of.
struct Scores {
    /// Recorded raw scores.
    raw: Vec<Vec<f64>>,
    /// Counted scores (`None`: failed).
    counted: Vec<Vec<Option<f64>>>,
    rel: Vec<Vec<f64>>,
    /// Rank scores among the entries, 0..=1.
    rank: Vec<Vec<f64>>,
    /// The yardstick's value (`None`: set beside it).
    value: Vec<Vec<Option<f64>>>,
    beside: bool,
    objective: Objective,
    integral: bool,
}

impl Scores {
    fn new(
        entries: &[Entry],
        common: &[CaseKey],
        rel: Vec<Vec<f64>>,
        info: &ProblemInfo,
        rank_by: RankBy,
        counted: impl Fn(&Entry, &CaseKey) -> Option<f64>,
    ) -> Scores {
        let raw: Vec<Vec<f64>> = entries
            .iter()
            .map(|e| common.iter().map(|c| e.tests[c].score).collect())
            .collect();
        let counted: Vec<Vec<Option<f64>>> = entries
            .iter()
            .map(|e| common.iter().map(|c| counted(e, c)).collect())
            .collect();
        let mut rank = vec![Vec::with_capacity(common.len()); entries.len()];
        for t in 0..common.len() {
            let column: Vec<Option<f64>> = counted.iter().map(|c| c[t]).collect();
            for (i, r) in yardstick::rank_scores(&column, info.objective)
                .into_iter()
                .enumerate()
            {
                rank[i].push(r);
            }
        }
        let objective = info.objective;
        let value = (0..entries.len())
            .map(|i| {
                (0..common.len())
                    .map(|t| match rank_by {
                        RankBy::Relative => Some(rel[i][t]),
                        RankBy::Rank => Some(rank[i][t]),
                        RankBy::Log => yardstick::log_score(counted[i][t]),
                        RankBy::Raw if objective == Objective::Maximize => Some(raw[i][t]),
                        RankBy::Raw => counted[i][t],
                    })
                    .collect()
            })
            .collect();
        Scores {
            integral: raw.iter().flatten().all(|x| x.fract() == 0.0),
            raw,
            counted,
            rel,
            rank,
            value,
            beside: yardstick::failures_beside(rank_by, objective),
            objective,
        }
    }

    /// Entry `i`'s totals over the tests `on`.
    fn totals(&self, i: usize, on: &[usize], scale: f64) -> Totals {
        let n = on.len();
        let mean = |xs: &[f64]| {
            if n == 0 {
                0.0
            } else {
                on.iter().map(|&t| xs[t]).sum::<f64>() / n as f64
            }
        };
        let ok: Vec<f64> = on.iter().filter_map(|&t| self.counted[i][t]).collect();
        let values: Vec<Option<f64>> = on.iter().map(|&t| self.value[i][t]).collect();
        Totals {
            tests: n,
            mean: match self.objective {
                Objective::Maximize => mean(&self.raw[i]),
                Objective::Minimize => ok.iter().sum::<f64>() / ok.len() as f64,
            },
            relative: scale * mean(&self.rel[i]),
            rank: yardstick::RANK_SCALE * mean(&self.rank[i]),
            mark: yardstick::mark(&values, self.beside),
        }
    }
}

/// rel[entry][test] on the common tests: each entry's score relative to the best
/// (`best[test]`) of the counted scores.
fn relative_scores(
    entries: &[Entry],
    common: &[CaseKey],
    best: &[Option<f64>],
    objective: Objective,
    counted: impl Fn(&Entry, &CaseKey) -> Option<f64>,
) -> Vec<Vec<f64>> {
    entries
        .iter()
        .map(|e| {
            common
                .iter()
                .zip(best)
                .map(|(c, &b)| relative::relative(counted(e, c), b, objective))
                .collect()
        })
        .collect()
}

/// The paired tests of every two entries, in rank order (`order`), on their relative scores.
fn paired_tests(order: &[usize], rel: &[Vec<f64>]) -> Vec<Pair> {
    let rank_of = |i: usize| order.iter().position(|&o| o == i).expect("ranked");
    let mut pairs = Vec::new();
    for (ra, &a) in order.iter().enumerate() {
        for &b in &order[ra + 1..] {
            let diffs: Vec<f64> = rel[a].iter().zip(&rel[b]).map(|(x, y)| x - y).collect();
            pairs.push(Pair {
                a: rank_of(a),
                b: rank_of(b),
                sign: stats::sign_test(&diffs),
                wilcoxon: stats::wilcoxon(&diffs),
                diff: stats::bootstrap_mean(&diffs, BOOTSTRAP_SEED),
            });
        }
    }
    pairs
}

/// The totals of each group of each `--group-by` (or the problem's default groupings) that
/// applies to this problem's tests, for the entries in rank order.
fn groupings(
    problem: &str,
    entries: &[Entry],
    common: &[CaseKey],
    info: &ProblemInfo,
    options: &Options,
    order: &[usize],
    totals_of: &dyn Fn(usize, &[usize]) -> Totals,
) -> Vec<Grouping> {
    let group_specs: Vec<GroupBy> = match &options.groups {
        Some(g) => g.clone(),
        None => info
            .groups
            .iter()
            .filter_map(|g| GroupBy::parse(g).ok())
            .collect(),
    };
    let mut groups = Vec::new();
    for spec in &group_specs {
        let applies = entries
            .iter()
            .flat_map(|e| e.tests.values())
            .any(|t| spec.expr.applies(problem, &t.columns));
        if !applies {
            continue;
        }
        // A test's value: the same for every entry for generator parameters; for what
        // players make (a game's `moves`), the greatest any entry reached on that test.
        let values: Vec<Option<Value>> = common
            .iter()
            .map(|c| {
                entries
                    .iter()
                    .filter_map(|e| spec.expr.eval(problem, &e.tests[c].columns))
                    .reduce(|x, y| match (&x, &y) {
                        (Value::Num(p), Value::Num(q)) => Value::Num(p.max(*q)),
                        _ => x,
                    })
            })
            .collect();
        let (group_labels, index) = spec.split(&values);
        let rows = group_labels
            .into_iter()
            .enumerate()
            .map(|(g, label)| {
                let on: Vec<usize> = (0..common.len()).filter(|&t| index[t] == Some(g)).collect();
                (label, order.iter().map(|&i| totals_of(i, &on)).collect())
            })
            .collect();
        groups.push(Grouping {
            by: spec.expr.text.clone(),
            rows,
        });
    }
    groups
}

/// Player names, or `player@run` where a name appears more than once.
fn labels(entries: &[Entry]) -> Vec<String> {
    entries
        .iter()
        .map(|e| {
            if entries.iter().filter(|o| o.player == e.player).count() > 1 {
                format!("{}@{}", e.player, e.run)
            } else {
                e.player.clone()
            }
        })
        .collect()
}

/// A p-value as people read it: three decimals, or scientific when tiny. Below 1e-300 the
/// computed value has lost its precision (2,000 wins in 2,000 tests underflow to 0), so it is
/// a bound, never "0".
pub(crate) fn p_value(p: f64) -> String {
    if p >= 0.001 {
        format!("{p:.3}")
    } else if p >= 1e-300 {
        format!("{p:.1e}")
    } else {
        "< 1e-300".to_string()
    }
}

/// A signed percentage with two decimals: `+2.10`.
fn pct(x: f64) -> String {
    format!("{:+.2}", x * 100.0)
}

/// The one-sentence verdict of a pair: "A beats B on 63 of 100 tests (5 ties), +2.10% ...".
pub(crate) fn sentence(c: &Comparison, p: &Pair) -> String {
    let (a, b) = (&c.labels[p.a], &c.labels[p.b]);
    let s = &p.sign;
    let n = c.common.len();
    let head = if s.wins > s.losses {
        format!("{a} beats {b} on {} of {n} tests", s.wins)
    } else if s.wins == s.losses {
        format!("{a} and {b} each win {} of {n} tests", s.wins)
    } else {
        format!("{a} loses to {b} on {} of {n} tests", s.losses)
    };
    let method = match p.wilcoxon.method {
        WilcoxonMethod::Exact => "exact",
        WilcoxonMethod::Normal => "normal approx.",
    };
    format!(
        "{head} ({}, {}, {}), {}% of best (95% CI {}..{}), sign p = {}, Wilcoxon p = {} ({method})",
        count(s.wins, "win", "wins"),
        count(s.ties, "tie", "ties"),
        count(s.losses, "loss", "losses"),
        pct(p.diff.mean),
        pct(p.diff.low),
        pct(p.diff.high),
        p_value(s.p),
        p_value(p.wilcoxon.p),
    )
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What the comparison is made on: the common tests, and what the others had.
fn scope_line(c: &Comparison) -> String {
    let n = c.common.len();
    let against = if c.vs_best {
        "the best of every recorded run (--vs-best)".to_string()
    } else {
        format!("the best of these {} entries", c.entries.len())
    };
    let mut line = format!("{}: {n} common tests, relative to {against}", c.problem);
    match c.rank_by {
        RankBy::Relative => {}
        RankBy::Rank => line.push_str(", ranked by rank score"),
        RankBy::Log => line.push_str(", ranked by log10 average"),
        RankBy::Raw => line.push_str(", ranked by mean score"),
    }
    if c.available.iter().any(|&a| a != n) {
        let had: Vec<String> = c
            .labels
            .iter()
            .zip(&c.available)
            .map(|(l, a)| format!("{l} {a}"))
            .collect();
        let _ = write!(
            line,
            "; only the {n} tests common to all are used (tests: {})",
            had.join(", ")
        );
    }
    line
}

/// Characters of a player's hash a table shows (`compare.csv` has it in full).
const HASH: usize = 12;

/// A hash cut to [`HASH`] characters.
fn short_hash(hash: &str) -> &str {
    hash.char_indices()
        .nth(HASH)
        .map_or(hash, |(i, _)| &hash[..i])
}

/// A mean raw score as the table shows it (`-` for a minimised entry without an OK test).
pub(crate) fn mean_cell(c: &Comparison, mean: f64) -> String {
    if mean.is_nan() {
        "-".to_string()
    } else {
        crate::report::number::mean(mean, c.integral, 4)
    }
}

/// The column of a rank or log yardstick: its header and each entry's cell, in rank order.
fn yardstick_cells(c: &Comparison) -> Option<(&'static str, Vec<String>)> {
    let cell = |f: &dyn Fn(&Totals) -> Option<String>| -> Vec<String> {
        c.totals
            .iter()
            .map(|t| f(t).unwrap_or_else(|| "-".into()))
            .collect()
    };
    match c.rank_by {
        RankBy::Rank => Some(("rank", cell(&|t| Some(format!("{:.2}", t.rank))))),
        RankBy::Log => Some(("log10", cell(&|t| t.mark.value.map(|v| format!("{v:.4}"))))),
        RankBy::Relative | RankBy::Raw => None,
    }
}

/// The comparison as a text table.
pub fn render(comparisons: &[Comparison]) -> String {
    let mut out = String::new();
    for c in comparisons {
        let _ = writeln!(out, "{}", scope_line(c));
        let width = c.labels.iter().map(String::len).max().unwrap_or(6).max(6);
        let means: Vec<String> = c.totals.iter().map(|t| mean_cell(c, t.mean)).collect();
        let mw = crate::report::number::width(&means, 12);
        let extra = yardstick_cells(c);
        let _ = write!(
            out,
            "  {:>2}  {:<width$}  {:<17}  {:<HASH$}  {:>5}  {:>mw$}  {:>12}",
            "#", "player", "run", "hash", "tests", "mean", "relative"
        );
        if let Some((header, _)) = &extra {
            let _ = write!(out, "  {header:>8}");
        }
        out.push('\n');
        for (i, (e, t)) in c.entries.iter().zip(&c.totals).enumerate() {
            let _ = write!(
                out,
                "  {:>2}  {:<width$}  {:<17}  {:<HASH$}  {:>5}  {:>mw$}  {:>12.2}",
                i + 1,
                c.labels[i],
                e.run,
                short_hash(&e.player_hash),
                t.tests,
                means[i],
                t.relative
            );
            if let Some((_, cells)) = &extra {
                let _ = write!(out, "  {:>8}", cells[i]);
            }
            out.push('\n');
        }
        let mut tagged: Vec<(&str, &str)> = Vec::new();
        for e in &c.entries {
            if let Some(tag) = &e.tag {
                if !tagged.iter().any(|(run, _)| *run == e.run) {
                    tagged.push((&e.run, tag));
                }
            }
        }
        for (run, tag) in tagged {
            let _ = writeln!(out, "  run {run}: {tag:?}");
        }
        if !c.pairs.is_empty() {
            out.push('\n');
        }
        for p in &c.pairs {
            let _ = writeln!(out, "  {}", sentence(c, p));
        }
        for g in &c.groups {
            let cell = c.labels.iter().map(String::len).max().unwrap_or(0).max(22);
            let _ = write!(out, "\n  {:<14}  {:>5}", format!("by {}", g.by), "tests");
            for l in &c.labels {
                let _ = write!(out, "  {l:>cell$}");
            }
            out.push('\n');
            for (label, totals) in &g.rows {
                let _ = write!(
                    out,
                    "  {label:<14}  {:>5}",
                    totals.first().map_or(0, |t| t.tests)
                );
                for t in totals {
                    let both = format!("{:.2} ({})", t.relative, mean_cell(c, t.mean));
                    let _ = write!(out, "  {both:>cell$}");
                }
                out.push('\n');
            }
        }
        if !c.groups.is_empty() {
            let _ = writeln!(out, "  (per group: relative score (mean raw score))");
        }
        out.push('\n');
    }
    out
}

/// The columns of `compare.csv`: one row per entry (`group` = `all`), per pair (`vs` set),
/// per entry and group (`group_by` set), and per entry and common test (`group_by` = `test`,
/// `group` = the seed or case, `mean` = its raw score, `relative` = its relative score).
pub(crate) const CSV_COLUMNS: [&str; 19] = [
    "problem",
    "group_by",
    "group",
    "player",
    "run",
    "player_hash",
    "vs",
    "tests",
    "mean",
    "relative",
    "wins",
    "ties",
    "losses",
    "diff_pct",
    "ci_low_pct",
    "ci_high_pct",
    "sign_p",
    "wilcoxon_p",
    "wilcoxon_method",
];

/// The comparison as `compare.csv`.
pub(crate) fn to_csv(comparisons: &[Comparison]) -> std::io::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CSV_COLUMNS)?;
    for c in comparisons {
        let row = |i: usize, group_by: &str, group: &str, t: &Totals| -> Vec<String> {
            let e = &c.entries[i];
            let mut r = vec![
                c.problem.clone(),
                group_by.to_string(),
                group.to_string(),
                c.labels[i].clone(),
                e.run.clone(),
                e.player_hash.clone(),
                String::new(),
                t.tests.to_string(),
                t.mean.to_string(),
                t.relative.to_string(),
            ];
            r.resize(CSV_COLUMNS.len(), String::new());
            r
        };
        for (i, t) in c.totals.iter().enumerate() {
            w.write_record(row(i, "", "all", t))?;
        }
        for p in &c.pairs {
            let mut r = row(p.a, "", "all", &c.totals[p.a]);
            r[6] = c.labels[p.b].clone();
            r[10] = p.sign.wins.to_string();
            r[11] = p.sign.ties.to_string();
            r[12] = p.sign.losses.to_string();
            r[13] = (p.diff.mean * 100.0).to_string();
            r[14] = (p.diff.low * 100.0).to_string();
            r[15] = (p.diff.high * 100.0).to_string();
            r[16] = p.sign.p.to_string();
            r[17] = p.wilcoxon.p.to_string();
            r[18] = match p.wilcoxon.method {
                WilcoxonMethod::Exact => "exact",
                WilcoxonMethod::Normal => "normal",
            }
            .to_string();
            w.write_record(r)?;
        }
        for g in &c.groups {
            for (label, totals) in &g.rows {
                for (i, t) in totals.iter().enumerate() {
                    w.write_record(row(i, &g.by, label, t))?;
                }
            }
        }
        for (i, entry) in c.entries.iter().enumerate() {
            for (t, case) in c.common.iter().enumerate() {
                let one = Totals {
                    tests: 1,
                    mean: entry.tests[case].score,
                    relative: c.scale * c.rel[i][t],
                    // Not in compare.csv's columns.
                    rank: 0.0,
                    mark: Mark::default(),
                };
                w.write_record(row(i, "test", &case.to_string(), &one))?;
            }
        }
    }
    w.into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rundir::ScoreRow;

    /// A minimised integer problem: `tle` wins the two tests it passes and times out on two;
    /// `steady` passes all four. Hashes are long, as a contest tool's may be.
    fn minimised(rank_by: Option<RankBy>) -> Comparison {
        let mut rows = Vec::new();
        let tests = [
            ("tle", [Some(100.0), Some(200.0), None, None]),
            (
                "steady",
                [Some(150.0), Some(400.0), Some(900.0), Some(1000.0)],
            ),
        ];
        for (player, scores) in tests {
            for (seed, score) in scores.iter().enumerate() {
                let (score, verdict) = match score {
                    Some(s) => (*s, Verdict::Ok),
                    None => (0.0, Verdict::TimeLimit),
                };
                let mut row = ScoreRow::new("m", player, &(seed + 1).to_string(), score, verdict);
                row.player_hash = format!("{player}-0123456789abcdef0123456789");
                rows.push(row);
            }
        }
        let entries = super::super::runs::entries("20260101-000000", None, &rows);
        let info = |_: &str| ProblemInfo {
            objective: Objective::Minimize,
            keeps_score_on_fault: false,
            groups: Vec::new(),
        };
        let options = Options {
            groups: Some(Vec::new()),
            scale: 100.0,
            rank_by,
            ..Options::default()
        };
        compare(&entries, info, &options).unwrap().remove(0)
    }

    #[test]
    fn compare_ranks_by_the_yardstick_and_a_failure_never_flatters_a_minimised_mean() {
        // relative (the default): tle 1 + 1 + 0 + 0 = 2 of 4; steady 2/3 + 1/2 + 1 + 1.
        let c = minimised(None);
        assert_eq!(c.labels, ["steady", "tle"]);
        assert!((c.totals[1].relative - 50.0).abs() < 1e-9, "{:?}", c.totals);
        let steady = 100.0 * (2.0 / 3.0 + 0.5 + 1.0 + 1.0) / 4.0;
        assert!((c.totals[0].relative - steady).abs() < 1e-9);
        // tle's mean is over its OK tests (150), never (100 + 200 + 0 + 0) / 4 = 75.
        assert_eq!(c.totals[1].mean, 150.0);
        // rank: tle 1, 1, 0, 0; steady 0.5, 0.5, 1, 1 (alone on the last two).
        let c = minimised(Some(RankBy::Rank));
        assert_eq!(c.labels, ["steady", "tle"]);
        assert_eq!((c.totals[0].rank, c.totals[1].rank), (75.0, 50.0));
        // log and raw set the two failures beside the value: steady first.
        for rank_by in [RankBy::Log, RankBy::Raw] {
            let c = minimised(Some(rank_by));
            assert_eq!(c.labels, ["steady", "tle"], "{rank_by:?}");
            assert_eq!(c.totals[1].mark.left_out, 2);
        }
        let c = minimised(Some(RankBy::Log));
        assert!((c.totals[1].mark.value.unwrap() - (2.0 + 200f64.log10()) / 2.0).abs() < 1e-12);
        let text = render(std::slice::from_ref(&c));
        assert!(text.contains("ranked by log10 average"), "{text}");
        // Whole numbers: means with two decimals; hashes cut in the table, whole in the CSV.
        assert!(
            text.contains(" 150.00 ") && text.contains("steady-01234 "),
            "{text}"
        );
        assert!(!text.contains("steady-0123456789abcdef"), "{text}");
        // The largest losses list whole scores too: tle's TLE shows as `0 TLE`.
        let lists = super::super::extremes::render(std::slice::from_ref(&c), 5, |_| false, None);
        assert!(
            lists.contains("1000 vs 0 TLE") || lists.contains("0 TLE vs 1000"),
            "{lists}"
        );
        assert!(!lists.contains(".0000"), "{lists}");
        let csv = String::from_utf8(to_csv(&[c]).unwrap()).unwrap();
        assert!(csv.contains("steady-0123456789abcdef0123456789"), "{csv}");
    }

    #[test]
    fn a_p_value_too_small_for_a_float_is_a_bound_not_zero() {
        assert_eq!(p_value(0.5), "0.500");
        assert_eq!(p_value(3.2e-5), "3.2e-5");
        assert_eq!(p_value(1e-300), "1.0e-300");
        let underflow = crate::compare::stats::sign_test(&vec![1.0; 2000]).p;
        assert_eq!(underflow, 0.0);
        assert_eq!(p_value(underflow), "< 1e-300");
        assert_eq!(p_value(3.0e-314), "< 1e-300");
    }
}
