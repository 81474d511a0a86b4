//! Where one entry lost and won most against another: the common tests with the largest
//! differences of relative scores, each with the command that replays it, as text under the
//! comparison and as `compare.html` (links to the replay pages).
//!
//! Pure: takes a finished [`Comparison`]; which replay pages exist, and writing them, is the
//! caller's (`compare_main`).

use std::fmt::Write;

use super::report::{Comparison, Pair};
use crate::problem::CaseKey;
use crate::report::html::escape;
use crate::verdict::Verdict;

/// The tests of a pair to look at: indices into `c.common`, the largest losses of `pair.a`
/// (most negative difference first) and its largest wins, at most `n` each. Ties go to the
/// test that comes first.
pub(crate) fn extremes(c: &Comparison, pair: &Pair, n: usize) -> (Vec<usize>, Vec<usize>) {
    let diff = |t: usize| c.rel[pair.a][t] - c.rel[pair.b][t];
    let mut losses: Vec<usize> = (0..c.common.len()).filter(|&t| diff(t) < 0.0).collect();
    losses.sort_by(|&x, &y| diff(x).total_cmp(&diff(y)).then(x.cmp(&y)));
    losses.truncate(n);
    let mut wins: Vec<usize> = (0..c.common.len()).filter(|&t| diff(t) > 0.0).collect();
    wins.sort_by(|&x, &y| diff(y).total_cmp(&diff(x)).then(x.cmp(&y)));
    wins.truncate(n);
    (losses, wins)
}

/// The command that writes the replay page of entry `i`'s game on `case`; `results` is the
/// `--results` folder when one was given (the run is found there).
pub(crate) fn replay_command(
    c: &Comparison,
    i: usize,
    case: &CaseKey,
    results: Option<&std::path::Path>,
) -> String {
    let e = &c.entries[i];
    let mut command = format!(
        "{} replay {} --player {} --seed {case}",
        crate::invocation::program(),
        e.run,
        e.player
    );
    if let Some(dir) = results {
        command.push_str(&format!(" --results {}", dir.display()));
    }
    command
}

/// Where entry `i`'s transcript of `case` is, from the results folder.
fn transcript_place(c: &Comparison, i: usize, case: &CaseKey) -> String {
    let e = &c.entries[i];
    format!(
        "{}/transcripts/{}/{}/{case}.txt",
        e.run, c.problem, e.player
    )
}

/// An entry's score on a test as a cell: `0.5700`, or `0.0000 TLE` when it failed (`28400`
/// and `0 TLE` when every score compared is a whole number).
fn score_cell(c: &Comparison, i: usize, case: &CaseKey) -> String {
    let t = &c.entries[i].tests[case];
    let score = crate::report::number::score(t.score, c.integral, 4);
    if t.verdict == Verdict::Ok {
        score
    } else {
        format!("{score} {}", t.verdict.code())
    }
}

/// The text under the comparison: for each pair, its largest losses and wins with the
/// scores of both entries, the difference (percent of BEST) and the replay command of the
/// first entry's game (`replays`: the problem has replay pages; otherwise the transcript's
/// place in the run folder).
pub fn render(
    comparisons: &[Comparison],
    n: usize,
    replays: impl Fn(&str) -> bool,
    results: Option<&std::path::Path>,
) -> String {
    let mut out = String::new();
    if n == 0 {
        return out;
    }
    for c in comparisons {
        for p in &c.pairs {
            let (losses, wins) = extremes(c, p, n);
            let (a, b) = (&c.labels[p.a], &c.labels[p.b]);
            for (what, tests) in [("losses", &losses), ("wins", &wins)] {
                if tests.is_empty() {
                    continue;
                }
                let _ = writeln!(
                    out,
                    "{}: largest {what} of {a} against {b} (scores, difference in % of best):",
                    c.problem
                );
                for &t in tests.iter() {
                    let case = &c.common[t];
                    let diff = (c.rel[p.a][t] - c.rel[p.b][t]) * 100.0;
                    let how = if replays(&c.problem) {
                        replay_command(c, p.a, case, results)
                    } else {
                        format!("transcript {}", transcript_place(c, p.a, case))
                    };
                    let _ = writeln!(
                        out,
                        "  {:<14} {:>11} vs {:<11} {diff:>+8.2}%   {how}",
                        case.label(),
                        score_cell(c, p.a, case),
                        score_cell(c, p.b, case),
                    );
                }
            }
        }
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// `compare.html`: the same lists, each game a link to its replay page where `link` gives one
/// (entry index, test), else its replay command where its problem has replays (`replays`),
/// else its transcript's place in the run folder.
pub fn html(
    comparisons: &[Comparison],
    n: usize,
    link: impl Fn(&Comparison, usize, &CaseKey) -> Option<String>,
    replays: impl Fn(&str) -> bool,
    results: Option<&std::path::Path>,
) -> String {
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
<title>comparison</title>\n<style>body{font-family:system-ui,sans-serif;margin:1.2em;color:#222}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}\
th{background:#f0f0f0}td.l,th.l{text-align:left}code{background:#f4f4f4;padding:0 .2em}</style>\n\
</head>\n<body>\n<h1>Comparison</h1>\n",
    );
    for c in comparisons {
        let _ = writeln!(h, "<h2>{}</h2>", escape(&c.problem));
        let _ = writeln!(
            h,
            "<table><tr><th>#</th><th class=\"l\">entry</th><th class=\"l\">run</th><th>tests</th><th>mean</th><th>relative</th></tr>"
        );
        for (i, t) in c.totals.iter().enumerate() {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{:.2}</td></tr>",
                i + 1,
                escape(&c.labels[i]),
                escape(&c.entries[i].run),
                t.tests,
                super::report::mean_cell(c, t.mean),
                t.relative
            );
        }
        h.push_str("</table>\n");
        for p in &c.pairs {
            let (losses, wins) = extremes(c, p, n);
            let (a, b) = (escape(&c.labels[p.a]), escape(&c.labels[p.b]));
            for (what, tests) in [("losses", &losses), ("wins", &wins)] {
                if tests.is_empty() {
                    continue;
                }
                let _ = writeln!(
                    h,
                    "<h3>Largest {what} of {a} against {b}</h3>\n<table><tr><th class=\"l\">test</th>\
<th>{a}</th><th>{b}</th><th>difference (% of best)</th></tr>"
                );
                for &t in tests.iter() {
                    let case = &c.common[t];
                    let cell = |i: usize| {
                        let score = escape(&score_cell(c, i, case));
                        match link(c, i, case) {
                            Some(href) => format!("<a href=\"{}\">{score}</a>", escape(&href)),
                            None if replays(&c.problem) => format!(
                                "{score}<br><code>{}</code>",
                                escape(&replay_command(c, i, case, results))
                            ),
                            None => format!(
                                "{score}<br>transcript <code>{}</code>",
                                escape(&transcript_place(c, i, case))
                            ),
                        }
                    };
                    let _ = writeln!(
                        h,
                        "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{:+.2}</td></tr>",
                        escape(&case.label()),
                        cell(p.a),
                        cell(p.b),
                        (c.rel[p.a][t] - c.rel[p.b][t]) * 100.0
                    );
                }
                h.push_str("</table>\n");
            }
        }
    }
    h.push_str("</body>\n</html>\n");
    h
}
