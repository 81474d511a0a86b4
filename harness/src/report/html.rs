//! `results/<run-id>/report.html`: the leaderboard (with the relative score and the longest
//! thinking time of a test), a per-seed score chart and a histogram of scores for every
//! problem of a run, the failures with their reasons and files, and links to the replays
//! written under `replays/`. Scores are rounded to 4 decimals (means to 6, as on the terminal).
//!
//! Built from `scores.csv` (so `harness replay` can rewrite it after adding replays), and the
//! relative scores from `leaderboard.csv` when the run wrote one.
//! Charts are drawn by plotters' SVG backend and embedded inline: the page is one
//! self-contained file. This module reads the run folder and writes only `report.html`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::time::Duration;

use plotters::prelude::*;

use super::summary::Standing;
use super::table::human_duration;
use crate::problem::{self, Objective};
use crate::rank::yardstick::{self, RankBy};
use crate::rundir::transcript_path;
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
    let relatives = relatives(run);
    if let Some(line) = meta
        .relative_to
        .as_deref()
        .filter(|_| !relatives.is_empty())
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
        let minimize =
            problem::by_id(&p.id).is_some_and(|pr| pr.objective() == Objective::Minimize);
        let title = problem::by_id(&p.id).map_or(p.id.clone(), |pr| pr.title().to_string());
        let _ = writeln!(h, "<h2>{}</h2>", escape(&title));
        leaderboard(&mut h, &p, minimize, &relatives);
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

/// (problem, player) -> the relative score of the run's `leaderboard.csv` (none when absent).
fn relatives(run: &Path) -> BTreeMap<(String, String), f64> {
    let mut out = BTreeMap::new();
    let Ok(mut reader) = csv::Reader::from_path(run.join("leaderboard.csv")) else {
        return out;
    };
    let Ok(header) = reader.headers().cloned() else {
        return out;
    };
    let col = |name: &str| header.iter().position(|h| h == name);
    let (Some(p), Some(pl), Some(rel)) = (col("problem"), col("player"), col("relative")) else {
        return out;
    };
    for record in reader.records().flatten() {
        if let Ok(value) = record.get(rel).unwrap_or_default().parse() {
            let key = (record[p].to_string(), record[pl].to_string());
            out.insert(key, value);
        }
    }
    out
}

fn leaderboard(
    h: &mut String,
    p: &Problem,
    minimize: bool,
    relatives: &BTreeMap<(String, String), f64>,
) {
    let mut standings: Vec<(usize, &String, Standing)> = p
        .players
        .iter()
        .enumerate()
        .map(|(i, name)| (i, name, stats(p, name)))
        .collect();
    let objective = if minimize {
        Objective::Minimize
    } else {
        Objective::Maximize
    };
    for (_, name, s) in &mut standings {
        s.relative = relatives.get(&(p.id.clone(), name.to_string())).copied();
    }
    // As the terminal's leaderboard: by the relative score when the run has one, else by
    // the mean (a minimised problem's over its OK tests, the fewest failures first).
    let rank_by = if standings.iter().any(|(_, _, s)| s.relative.is_some()) {
        RankBy::Relative
    } else {
        RankBy::Raw
    };
    let order = |a: &Standing, b: &Standing| {
        yardstick::order(
            &a.mark(rank_by, objective),
            &b.mark(rank_by, objective),
            rank_by,
            objective,
        )
    };
    standings.sort_by(|a, b| order(&a.2, &b.2));
    let integral = !standings.iter().any(|(_, _, s)| s.fractional);
    h.push_str("<table><tr><th>#</th><th class=\"l\">player</th><th>tests</th><th>mean</th><th>relative</th><th>min</th><th>max</th><th>max think</th><th class=\"l\">verdicts</th></tr>\n");
    let ranks = super::summary::competition_ranks(&standings, |a, b| order(&a.2, &b.2).is_eq());
    for (rank, (i, name, s)) in ranks.into_iter().zip(&standings) {
        let n = s.tests;
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
        let relative = relatives
            .get(&(p.id.clone(), name.to_string()))
            .map_or(String::new(), |r| format!("{r:.2}"));
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"l\"><span class=\"sw\" style=\"background:{}\"></span>{}</td><td>{n}</td><td>{mean}</td><td>{relative}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            rank,
            css(colour(*i)),
            escape(name),
            min,
            max,
            human_duration(s.max_think),
            v.join(", ")
        );
    }
    h.push_str("</table>\n");
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
