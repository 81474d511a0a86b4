//! `results/<run-id>/report.html`: the leaderboard (with the relative score and the longest
//! thinking time of a test), a per-seed score chart and a histogram of scores for every
//! problem of a run, the failures with their reasons and files, and links to the replays
//! written under `replays/`. Scores are rounded to 4 decimals (means to 6, as on the terminal).
//!
//! Built from `scores.csv` (so `harness replay` can rewrite it after adding replays), and the
//! relative and rank scores from `leaderboard.csv` when the run wrote one, ranked by the
//! run's `rank-by` (run.toml).
//! Charts are drawn by plotters' SVG backend and embedded inline: the page is one
//! self-contained file. This module reads the run folder and writes only `report.html`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::time::Duration;

use plotters::prelude::*;

use super::summary::{self, Standing};
use super::table::human_duration;
use crate::problem::{self, Objective};
use crate::rank::yardstick::RankBy;
use crate::rundir::{recorded, transcript_path, Recorded};
use crate::rundir::{replay_file, ScoreRow as Row};
use crate::rundir::{seed_order, write_atomic};
use crate::verdict::Verdict;

/// Okabe-Ito colours: one per player, told apart with any colour vision.
const COLOURS: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(230, 159, 0),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// Bins of a histogram.
const BINS: usize = 20;

fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

fn css(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// One problem's tests, grouped.
struct Problem<'a> {
    id: String,
    players: Vec<String>,
    seeds: Vec<String>,
    /// (player, seed) -> row.
    rows: BTreeMap<(String, String), &'a Row>,
}

fn group(rows: &[Row]) -> Vec<Problem<'_>> {
    let mut out: Vec<Problem> = Vec::new();
    for r in rows {
        let i = match out.iter().position(|p| p.id == r.problem) {
            Some(i) => i,
            None => {
                out.push(Problem {
                    id: r.problem.clone(),
                    players: Vec::new(),
                    seeds: Vec::new(),
                    rows: BTreeMap::new(),
                });
                out.len() - 1
            }
        };
        let p = &mut out[i];
        if !p.players.contains(&r.player) {
            p.players.push(r.player.clone());
        }
        if !p.seeds.contains(&r.seed) {
            p.seeds.push(r.seed.clone());
        }
        p.rows.insert((r.player.clone(), r.seed.clone()), r);
    }
    for p in &mut out {
        p.seeds.sort_by_key(|s| seed_order(s));
    }
    out
}

/// Writes `report.html` of a run from its `scores.csv` rows.
pub fn write(run: &Path, rows: &[Row]) -> io::Result<()> {
    let html = render(run, rows).map_err(io::Error::other)?;
    write_atomic(&run.join("report.html"), html.as_bytes())
}

/// The page. `run` is only looked at for which replays exist.
pub fn render(run: &Path, rows: &[Row]) -> Result<String, String> {
    let id = run
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().to_string());
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
<title>run {id}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>Run {id}</h1>\n",
        id = escape(&id)
    );
    let meta = crate::rundir::Meta::read(run);
    if let Some(tag) = &meta.tag {
        let _ = writeln!(h, "<p class=\"tag\">Tag: {}</p>", escape(tag));
    }
    if let Some(f) = &meta.secret {
        let _ = writeln!(
            h,
            "<p class=\"keyed\"><strong>KEYED run</strong> (secret key {}): its tests are not \
             the usual tests of these seeds; only that key reproduces them.</p>",
            escape(f)
        );
    }
    if meta.debug {
        h.push_str("<p class=\"debug\">A debugging run (--verbose): not a baseline of later runs, not in best.csv.</p>\n");
    }
    let recorded = recorded(run);
    if let Some(line) = meta
        .relative_to
        .as_deref()
        .filter(|_| has_relative(&recorded))
    {
        let against = line.strip_prefix("relative: to ").unwrap_or(line);
        let _ = writeln!(
            h,
            "<p class=\"yardstick\">The <em>relative</em> column: per test, how near the \
             player's score is to BEST (1 when equal, a failed test 0), its mean times \
             relative-scale (scoring.toml). BEST is {}.</p>",
            escape(against)
        );
    }
    if let Some(note) = crate::rundir::rerun_note(rows) {
        let _ = writeln!(h, "<p class=\"reruns\">{}.</p>", escape(&note));
    }
    for (i, p) in group(rows).into_iter().enumerate() {
        let objective = problem::by_id(&p.id).map_or(Objective::Maximize, |pr| pr.objective());
        let minimize = objective == Objective::Minimize;
        let title = problem::by_id(&p.id).map_or(p.id.clone(), |pr| pr.title().to_string());
        let _ = writeln!(h, "<h2>{}</h2>", escape(&title));
        leaderboard(&mut h, &p, objective, meta.rank_by(&p.id), &recorded);
        if i == 0 {
            left_out(&mut h, &meta.left_out);
        }
        h.push_str("<div class=\"charts\">");
        h.push_str(&per_seed_chart(&p)?);
        h.push_str(&histogram(&p)?);
        h.push_str("</div>\n");
        if problem::by_id(&p.id).is_some_and(|pr| !pr.pass_fail()) {
            worst_table(&mut h, run, &p, minimize, &id);
        }
        failures_table(&mut h, run, &p, &id);
        seed_table(&mut h, run, &p);
    }
    h.push_str("</body>\n</html>\n");
    Ok(h)
}

/// One line under the first leaderboard naming the players the run left out for a program
/// the machine lacked (none of their rows is on the page), each with its reason.
fn left_out(h: &mut String, players: &[(String, String)]) {
    if players.is_empty() {
        return;
    }
    let each: Vec<String> = players
        .iter()
        .map(|(player, reason)| format!("<code>{}</code>: {}", escape(player), escape(reason)))
        .collect();
    let _ = writeln!(
        h,
        "<p class=\"left-out\">Left out of this run, for a program this machine lacks: {}.</p>",
        each.join("; ")
    );
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.2em;color:#222}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}\
th{background:#f0f0f0}td.l,th.l{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:1em}\
.sw{display:inline-block;width:.8em;height:.8em;margin-right:.3em;vertical-align:middle}\
code{background:#f4f4f4;padding:0 .2em}details{margin:.5em 0}\
.keyed{background:#fff3cd;border:1px solid #e0c060;padding:.4em .8em;display:inline-block}";

/// One player's standing, counted as the terminal leaderboard counts it.
fn stats(p: &Problem, player: &str) -> Standing {
    let mut s = Standing::default();
    for r in p.rows.values().filter(|r| r.player == player) {
        s.add(r.score, r.verdict, Duration::from_millis(r.think_ms));
    }
    s
}

/// Whether the run's leaderboard.csv has a relative score.
fn has_relative(recorded: &Recorded) -> bool {
    recorded.values().any(|(rel, _)| rel.is_some())
}

/// One problem's leaderboard, ranked as the terminal ranks it: by `wanted` (the run's
/// `rank-by`), or the raw mean while the run has no relative or rank score (a minimised
/// problem's over its OK tests, the fewest failures first).
fn leaderboard(
    h: &mut String,
    p: &Problem,
    objective: Objective,
    wanted: RankBy,
    recorded: &Recorded,
) {
    let players: Vec<(String, Standing)> = p
        .players
        .iter()
        .map(|name| {
            let mut s = stats(p, name);
            let (rel, rank) = recorded
                .get(&(p.id.clone(), name.clone()))
                .copied()
                .unwrap_or_default();
            (s.relative, s.rank) = (rel, rank);
            (name.clone(), s)
        })
        .collect();
    let rank_by = summary::rank_by(wanted, &players);
    if rank_by != RankBy::Relative {
        let _ = writeln!(
            h,
            "<p class=\"rank-by\">Ranked by {}.</p>",
            describe(rank_by)
        );
    }
    let integral = !players.iter().any(|(_, s)| s.fractional);
    let extra = match rank_by {
        RankBy::Rank => "<th>rank</th>",
        RankBy::Log => "<th>log10</th>",
        RankBy::Relative | RankBy::Raw => "",
    };
    let _ = writeln!(h, "<table><tr><th>#</th><th class=\"l\">player</th><th>tests</th><th>mean</th><th>relative</th>{extra}<th>min</th><th>max</th><th>max think</th><th class=\"l\">verdicts</th></tr>");
    for (place, (name, s)) in summary::ranked(&players, rank_by, objective) {
        let i = p.players.iter().position(|n| n == name).unwrap_or(0);
        let mean = s
            .shown_mean(objective)
            .map_or("-".to_string(), |m| super::number::mean(m, integral, 6));
        let (min, max) = s
            .shown_range(objective)
            .map_or(("-".to_string(), "-".to_string()), |(_, lo, hi)| {
                (short(lo), short(hi))
            });
        // Codes in alphabetical order, as the page has always listed them.
        let mut v: Vec<String> = s
            .verdicts
            .iter()
            .map(|(k, c)| format!("{} {c}", k.code()))
            .collect();
        v.sort();
        let relative = s.relative.map_or(String::new(), |r| format!("{r:.2}"));
        let extra = match rank_by {
            RankBy::Rank => format!(
                "<td>{}</td>",
                s.rank.map_or("-".into(), |r| format!("{r:.2}"))
            ),
            RankBy::Log => {
                let log = s.mark(rank_by, objective).value;
                format!("<td>{}</td>", log.map_or("-".into(), |l| format!("{l:.4}")))
            }
            RankBy::Relative | RankBy::Raw => String::new(),
        };
        let _ = writeln!(
            h,
            "<tr><td>{place}</td><td class=\"l\"><span class=\"sw\" style=\"background:{}\"></span>{}</td><td>{}</td><td>{mean}</td><td>{relative}</td>{extra}<td>{min}</td><td>{max}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            css(colour(i)),
            escape(name),
            s.tests,
            human_duration(s.max_think),
            v.join(", ")
        );
    }
    h.push_str("</table>\n");
}

/// What a leaderboard ranked by other than the relative score is ranked by, in words.
fn describe(rank_by: RankBy) -> &'static str {
    match rank_by {
        RankBy::Relative => "the relative score",
        RankBy::Rank => "the rank score (pahcer's: per test, how many players did better)",
        RankBy::Log => "the log10 average of the OK scores, the fewest left out first",
        RankBy::Raw => {
            "the mean score (of a minimised problem: over its OK tests, the fewest failures first)"
        }
    }
}

/// A score in a table: integers as they are, fractions rounded to 4 places.
fn short(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x}")
    } else {
        format!("{x:.4}")
    }
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        return (lo - 0.5, hi + 0.5);
    }
    (lo, hi)
}

fn plot_err<E: std::fmt::Debug>(e: E) -> String {
    format!("chart: {e:?}")
}

/// One line per player over the seeds (in seed order).
fn per_seed_chart(p: &Problem) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 340)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (lo, hi) = range(p.rows.values().map(|r| r.score));
        let pad = (hi - lo) * 0.05;
        let n = p.seeds.len().max(2);
        let seeds = p.seeds.clone();
        let mut chart = ChartBuilder::on(&root)
            .caption("score per seed", ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..(n - 1) as f64, (lo - pad)..(hi + pad))
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("seed")
            .y_desc("score")
            .x_labels(10.min(n))
            .x_label_formatter(&|x| {
                let i = x.round() as usize;
                seeds.get(i).cloned().unwrap_or_default()
            })
            .draw()
            .map_err(plot_err)?;
        for (i, player) in p.players.iter().enumerate() {
            let points: Vec<(f64, f64)> = p
                .seeds
                .iter()
                .enumerate()
                .filter_map(|(x, s)| {
                    p.rows
                        .get(&(player.clone(), s.clone()))
                        .map(|r| (x as f64, r.score))
                })
                .collect();
            let c = colour(i);
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
                .map_err(plot_err)?
                .label(player.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|&pt| Circle::new(pt, 2, c.filled())))
                .map_err(plot_err)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// Scores of every player in 20 bins, the players' bars stacked side by side in each bin.
fn histogram(p: &Problem) -> Result<String, String> {
    let (lo, hi) = range(p.rows.values().map(|r| r.score));
    let width = (hi - lo) / BINS as f64;
    let bin = |s: f64| (((s - lo) / width) as usize).min(BINS - 1);
    let players = p.players.len().max(1);
    let mut counts = vec![vec![0u32; BINS]; players];
    for r in p.rows.values() {
        if let Some(i) = p.players.iter().position(|x| *x == r.player) {
            if r.score.is_finite() {
                counts[i][bin(r.score)] += 1;
            }
        }
    }
    let top = counts.iter().flatten().copied().max().unwrap_or(1).max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (560, 340)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let slots = (BINS * players) as u32;
        let mut chart = ChartBuilder::on(&root)
            .caption("histogram of scores", ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d((0u32..slots).into_segmented(), 0u32..top + 1)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("score")
            .y_desc("tests")
            .x_labels(6)
            .x_label_formatter(&|v| {
                let slot = match v {
                    SegmentValue::Exact(s) | SegmentValue::CenterOf(s) => *s,
                    SegmentValue::Last => slots,
                };
                let b = slot as f64 / players as f64;
                format!("{:.3}", lo + b * width)
            })
            .draw()
            .map_err(plot_err)?;
        for (i, player) in p.players.iter().enumerate() {
            let c = colour(i);
            let data: Vec<(u32, u32)> = counts[i]
                .iter()
                .enumerate()
                .map(|(b, &n)| ((b * players + i) as u32, n))
                .collect();
            chart
                .draw_series(
                    Histogram::vertical(&chart)
                        .style(c.filled())
                        .margin(0)
                        .data(data),
                )
                .map_err(plot_err)?
                .label(player.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

fn link_or_command(run: &Path, row: &Row, run_id: &str) -> String {
    let file = replay_file(row);
    let transcript = crate::rundir::transcript_path(run, &row.problem, &row.player, &row.seed);
    if run.join(&file).is_file() {
        format!("<a href=\"{}\">replay</a>", escape(&file.to_string_lossy()))
    } else if !transcript.is_file() {
        format!(
            "transcript not kept (--transcripts {})",
            crate::rundir::kept(run).name()
        )
    } else {
        format!(
            "<code>{} replay {} --player {} --seed {}</code>",
            escape(crate::invocation::program()),
            escape(run_id),
            escape(&row.player),
            escape(&row.seed)
        )
    }
}

/// Links to the pictures the judge drew of a test (a contest visualizer's files).
fn picture_links(run: &Path, r: &Row) -> Vec<String> {
    crate::rundir::picture_links(run, &r.problem, &r.player, &r.seed)
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            format!(
                "<a href=\"{}\">{}</a>",
                escape(&p.to_string_lossy()),
                escape(&name)
            )
        })
        .collect()
}

/// What a test's row links, for every kind of problem: its replay page (or the command that
/// writes it) when the problem has replays, its transcript and its stderr log when the run
/// kept them, and the pictures its tools drew (with their `judge.log` or `vis.log`).
fn test_files(run: &Path, r: &Row, run_id: &str) -> Vec<String> {
    let mut files = Vec::new();
    if problem::has_views(&r.problem) {
        files.push(link_or_command(run, r, run_id));
    }
    let transcript = transcript_path(Path::new(""), &r.problem, &r.player, &r.seed);
    let log = Path::new("logs")
        .join(&r.problem)
        .join(&r.player)
        .join(format!("{}.stderr", r.seed));
    for (file, name) in [(transcript, "transcript"), (log, "stderr")] {
        if run.join(&file).is_file() {
            files.push(format!(
                "<a href=\"{}\">{name}</a>",
                escape(&file.to_string_lossy())
            ));
        }
    }
    files.extend(picture_links(run, r));
    files
}

/// The 5 lowest-scoring tests of each player, with their [`test_files`].
fn worst_table(h: &mut String, run: &Path, p: &Problem, minimize: bool, run_id: &str) {
    h.push_str("<h3>Worst seeds</h3>\n<table><tr><th class=\"l\">player</th><th>seed</th><th>score</th><th class=\"l\">verdict</th><th class=\"l\">files</th></tr>\n");
    let all: Vec<Row> = p.rows.values().map(|r| (*r).clone()).collect();
    for player in &p.players {
        let mut mine: Vec<&Row> = all.iter().filter(|r| r.player == *player).collect();
        mine.sort_by(|a, b| {
            let o = a.score.total_cmp(&b.score);
            let o = if minimize { o.reverse() } else { o };
            o.then_with(|| seed_order(&a.seed).cmp(&seed_order(&b.seed)))
        });
        for r in mine.into_iter().take(5) {
            let _ = writeln!(
                h,
                "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
                escape(&r.player),
                escape(&r.seed),
                short(r.score),
                escape(r.verdict.code()),
                test_files(run, r, run_id).join(" ")
            );
        }
    }
    h.push_str("</table>\n");
}

/// Most failures listed per problem; the rest are counted (all are in scores.csv).
const FAILURE_ROWS: usize = 100;

/// Every test that did not end OK, with its reason and its [`test_files`].
fn failures_table(h: &mut String, run: &Path, p: &Problem, run_id: &str) {
    let mut failed: Vec<&Row> = p
        .rows
        .values()
        .copied()
        .filter(|r| r.verdict != Verdict::Ok)
        .collect();
    if failed.is_empty() {
        return;
    }
    failed.sort_by(|a, b| {
        (a.player.as_str(), seed_order(&a.seed)).cmp(&(b.player.as_str(), seed_order(&b.seed)))
    });
    let _ = writeln!(
        h,
        "<h3>Failures ({})</h3>\n<table><tr><th class=\"l\">player</th><th>seed</th><th class=\"l\">verdict</th><th>score</th><th class=\"l\">reason</th><th class=\"l\">files</th></tr>",
        failed.len()
    );
    for r in failed.iter().take(FAILURE_ROWS) {
        let files = test_files(run, r, run_id);
        let _ = writeln!(
            h,
            "<tr><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
            escape(&r.player),
            escape(&r.seed),
            escape(r.verdict.code()),
            short(r.score),
            escape(&r.reason),
            files.join(" ")
        );
    }
    h.push_str("</table>\n");
    if failed.len() > FAILURE_ROWS {
        let _ = writeln!(
            h,
            "<p>{} more failures: see scores.csv.</p>",
            failed.len() - FAILURE_ROWS
        );
    }
}

fn seed_table(h: &mut String, run: &Path, p: &Problem) {
    h.push_str("<details><summary>every test</summary>\n<table><tr><th>seed</th>");
    for player in &p.players {
        let _ = write!(h, "<th>{}</th>", escape(player));
    }
    h.push_str("</tr>\n");
    for seed in &p.seeds {
        let _ = write!(h, "<tr><td>{}</td>", escape(seed));
        for player in &p.players {
            match p.rows.get(&(player.clone(), seed.clone())) {
                Some(r) => {
                    let file = replay_file(r);
                    let verdict = if r.verdict == Verdict::Ok {
                        String::new()
                    } else {
                        format!(" {}", escape(r.verdict.code()))
                    };
                    if run.join(&file).is_file() {
                        let _ = write!(
                            h,
                            "<td><a href=\"{}\">{}</a>{verdict}</td>",
                            escape(&file.to_string_lossy()),
                            short(r.score)
                        );
                    } else {
                        let _ = write!(h, "<td>{}{verdict}</td>", short(r.score));
                    }
                }
                None => h.push_str("<td></td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></details>\n");
}

/// Text made safe to stand in HTML, inside elements and quoted attributes.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tle` is fast on its two OK tests and fails two (TLE, score 0); `steady` passes all 4.
    fn minimised_rows() -> Vec<Row> {
        let mut rows = Vec::new();
        let tests = [
            (
                "tle",
                [
                    (3651.0, Verdict::Ok),
                    (4_666_811.0, Verdict::Ok),
                    (0.0, Verdict::TimeLimit),
                    (0.0, Verdict::TimeLimit),
                ],
            ),
            (
                "steady",
                [
                    (28400.0, Verdict::Ok),
                    (37e6, Verdict::Ok),
                    (4e7, Verdict::Ok),
                    (4e7, Verdict::Ok),
                ],
            ),
        ];
        for (player, scores) in tests {
            for (seed, (score, verdict)) in scores.into_iter().enumerate() {
                rows.push(Row::new(
                    "tools-min",
                    player,
                    &(seed + 1).to_string(),
                    score,
                    verdict,
                ));
            }
        }
        rows
    }

    /// The players of a leaderboard's table, best first.
    fn order(h: &str) -> Vec<&str> {
        h.lines()
            .filter_map(|l| l.split("</span>").nth(1)?.split("</td>").next())
            .collect()
    }

    #[test]
    fn a_minimised_leaderboard_ranks_by_the_runs_yardstick_and_never_counts_a_failure() {
        let rows = minimised_rows();
        let p = group(&rows).remove(0);
        let mut h = String::new();
        leaderboard(
            &mut h,
            &p,
            Objective::Minimize,
            RankBy::Log,
            &Recorded::new(),
        );
        assert!(h.contains("Ranked by the log10 average"), "{h}");
        assert!(h.contains("<th>log10</th>"), "{h}");
        // Fewer tests left out first: steady, although its scores are higher.
        assert_eq!(order(&h), ["steady", "tle"], "{h}");
        // tle's mean and min are its OK tests', not 4 tests with two 0s.
        let tle = h.lines().find(|l| l.contains(">tle<")).unwrap();
        assert!(
            tle.contains("<td>2335231.00</td>") && tle.contains("<td>3651</td>"),
            "{tle}"
        );
        assert!(!tle.contains("1167615.50"), "{tle}");
        // By rank, with the rank scores of leaderboard.csv: the better rank score first.
        let recorded: Recorded = [
            (
                ("tools-min".to_string(), "tle".to_string()),
                (Some(0.9), Some(62.5)),
            ),
            (
                ("tools-min".to_string(), "steady".to_string()),
                (Some(0.8), Some(50.0)),
            ),
        ]
        .into();
        let mut h = String::new();
        leaderboard(&mut h, &p, Objective::Minimize, RankBy::Rank, &recorded);
        assert_eq!(order(&h), ["tle", "steady"], "{h}");
        assert!(
            h.contains("<th>rank</th>") && h.contains("<td>62.50</td>"),
            "{h}"
        );
    }

    #[test]
    fn the_page_ranks_by_the_rank_by_of_run_toml_and_an_old_run_by_the_relative_score() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let rows: Vec<Row> = [("a", 0.9), ("b", 0.5)]
            .into_iter()
            .map(|(player, score)| Row::new("chesspuzzle", player, "1", score, Verdict::Ok))
            .collect();
        // b's relative score is the better one, a's rank score.
        std::fs::write(
            run.join("leaderboard.csv"),
            "problem,player,relative,rank\nchesspuzzle,a,10,90\nchesspuzzle,b,20,40\n",
        )
        .unwrap();
        let ranked = |run_toml: &str| {
            std::fs::write(run.join("run.toml"), run_toml).unwrap();
            let page = render(run, &rows).unwrap();
            let board = page.split("</table>").next().unwrap().to_string();
            order(&board)
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ranked("[problem.chesspuzzle]\nrank-by = \"rank\"\n"),
            ["a", "b"]
        );
        assert_eq!(
            ranked("[problem.chesspuzzle]\nrank-by = \"raw\"\n"),
            ["a", "b"]
        );
        assert_eq!(
            ranked("[problem.chesspuzzle]\nrank-by = \"relative\"\n"),
            ["b", "a"]
        );
        // A run.toml from before rank-by was recorded: the relative score, as then.
        assert_eq!(
            ranked("[problem.chesspuzzle]\ntime-by = \"think\"\n"),
            ["b", "a"]
        );
    }
}
