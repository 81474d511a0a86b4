//! `tune.html`: one self-contained page (inline SVG and CSS, no script, nothing fetched) with
//! the score of every trial in order, the score against each parameter, the best values and
//! the validation. Pure: returns the text.

use std::fmt::Write;

use super::params::{Kind, Param};
use super::search::{State, Trial};
use super::Summary;

pub(crate) struct Page<'a> {
    pub id: &'a str,
    pub params: &'a [Param],
    pub trials: &'a [Trial],
    pub best: Option<usize>,
    pub summary: Option<&'a Summary>,
    pub holdout: usize,
    /// 1 when the problem maximises, -1 when it minimises.
    pub sign: f64,
}

fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const W: f64 = 520.0;
const H: f64 = 240.0;
const PAD: f64 = 44.0;

/// A point of a chart: x, mean score, complete (else pruned or unfinished), the best.
type Point = (f64, f64, bool, bool);

/// A scatter chart in SVG; `ticks` labels the x axis (position, text).
fn chart(title: &str, points: &[Point], ticks: &[(f64, String)], line: &[(f64, f64)]) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<figure><figcaption>{}</figcaption><svg viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\">",
        esc(title)
    );
    if points.is_empty() {
        s.push_str("</svg></figure>");
        return s;
    }
    let (mut x0, mut x1) = (f64::MAX, f64::MIN);
    let (mut y0, mut y1) = (f64::MAX, f64::MIN);
    for &(x, y, ..) in points {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    for (x, _) in ticks {
        x0 = x0.min(*x);
        x1 = x1.max(*x);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let px = |x: f64| PAD + (x - x0) / (x1 - x0) * (W - 2.0 * PAD);
    let py = |y: f64| H - PAD - (y - y0) / (y1 - y0) * (H - 2.0 * PAD);
    let _ = write!(
        s,
        "<line x1=\"{PAD}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" class=\"axis\"/><line x1=\"{PAD}\" y1=\"{PAD}\" x2=\"{PAD}\" y2=\"{b}\" class=\"axis\"/>",
        b = H - PAD,
        r = W - PAD
    );
    for (y, anchor) in [(y0, H - PAD), (y1, PAD)] {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            PAD - 4.0,
            anchor + 4.0,
            short(y)
        );
    }
    for (x, label) in ticks {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            px(*x),
            H - PAD + 16.0,
            esc(label)
        );
    }
    if line.len() > 1 {
        let path: Vec<String> = line
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = write!(
            s,
            "<polyline points=\"{}\" class=\"line\"/>",
            path.join(" ")
        );
    }
    for &(x, y, complete, best) in points {
        let class = match (best, complete) {
            (true, _) => "best",
            (false, true) => "complete",
            (false, false) => "pruned",
        };
        let _ = write!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\" class=\"{class}\"><title>{}</title></circle>",
            px(x),
            py(y),
            if best { 6 } else { 3 },
            short(y)
        );
    }
    s.push_str("</svg></figure>");
    s
}

fn short(v: f64) -> String {
    if v.abs() >= 1000.0 || v == v.trunc() {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

pub(crate) fn render(page: &Page) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{id}</title><style>\
         body{{font-family:sans-serif;margin:1.5em;max-width:1400px}}\
         figure{{display:inline-block;margin:0 1em 1em 0}}figcaption{{font-weight:bold}}\
         .axis{{stroke:#444}}.tick{{font-size:11px;fill:#333}}.line{{fill:none;stroke:#2a7;stroke-width:1.5}}\
         .complete{{fill:#36c;opacity:.75}}.pruned{{fill:none;stroke:#999}}.best{{fill:#e60}}\
         table{{border-collapse:collapse}}td,th{{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}}\
         </style></head><body><h1>Tuning {id}</h1>",
        id = esc(page.id)
    );
    let t = page.trials;
    let count = |s: State| t.iter().filter(|x| x.state == s).count();
    let _ = write!(
        h,
        "<p>{} trials: {} complete, {} pruned (hollow grey), {} unfinished. The best (orange) is \
         the complete trial with the highest mean on the tuning seeds; the line is the best so far.</p>",
        t.len(),
        count(State::Complete),
        count(State::Pruned),
        count(State::Running) + count(State::Error)
    );
    if let Some(s) = page.summary {
        h.push_str("<h2>Validation on held-out seeds</h2><ul>");
        for line in super::summary_lines(s) {
            let _ = write!(h, "<li>{}</li>", esc(&line));
        }
        h.push_str("</ul>");
    } else {
        let _ = write!(
            h,
            "<p>Validation on {} held-out seeds: not done yet.</p>",
            page.holdout
        );
    }
    if let Some(b) = page.best {
        for note in super::params::edge_notes(page.params, &t[b].values) {
            let _ = write!(h, "<p class=\"edge\">The best value: {}.</p>", esc(&note));
        }
    }
    charts(&mut h, page);
    best_trials(&mut h, page);
    h
}

/// The charts: mean score by trial (with the best so far), and by each parameter.
fn charts(h: &mut String, page: &Page) {
    let t = page.trials;
    let point = |trial: &Trial, x: f64| -> Option<Point> {
        trial.mean().map(|m| {
            (
                x,
                m,
                trial.state == State::Complete,
                page.best == Some(trial.id),
            )
        })
    };
    let by_trial: Vec<Point> = t.iter().filter_map(|tr| point(tr, tr.id as f64)).collect();
    // The best so far, in the objective's direction (as `search::best` ranks).
    let mut line = Vec::new();
    let mut best_so_far = f64::MIN;
    for tr in t.iter().filter(|tr| tr.eligible()) {
        best_so_far = best_so_far.max(page.sign * tr.mean().unwrap_or(0.0));
        line.push((tr.id as f64, page.sign * best_so_far));
    }
    let ticks = vec![
        (0.0, "0".to_string()),
        (
            t.len().saturating_sub(1) as f64,
            t.len().saturating_sub(1).to_string(),
        ),
    ];
    h.push_str("<h2>Mean score by trial</h2>");
    h.push_str(&chart(
        "mean score (tuning seeds played) by trial number",
        &by_trial,
        &ticks,
        &line,
    ));
    h.push_str("<h2>Mean score by parameter</h2>");
    for (i, p) in page.params.iter().enumerate() {
        let points: Vec<Point> = t
            .iter()
            .filter_map(|tr| point(tr, p.coordinate(tr.values[i])))
            .collect();
        let (low, high) = p.bounds();
        let ticks: Vec<(f64, String)> = match &p.kind {
            Kind::Choice(words) => words
                .iter()
                .enumerate()
                .map(|(j, w)| (j as f64, w.clone()))
                .collect(),
            Kind::LogFloat { low: a, high: b } => vec![(low, short(*a)), (high, short(*b))],
            Kind::Int { low: a, high: b } => {
                vec![(*a as f64, a.to_string()), (*b as f64, b.to_string())]
            }
            Kind::Float { .. } => vec![(low, short(low)), (high, short(high))],
        };
        let scale = if matches!(p.kind, Kind::LogFloat { .. }) {
            " (log scale)"
        } else {
            ""
        };
        h.push_str(&chart(
            &format!("{} ({}){scale}", p.name, p.var()),
            &points,
            &ticks,
            &[],
        ));
    }
}

/// The table of the best complete trials (at most 20), best first.
fn best_trials(h: &mut String, page: &Page) {
    let t = page.trials;
    h.push_str("<h2>The best complete trials</h2><table><tr><th>trial</th><th>mean</th>");
    for p in page.params {
        let _ = write!(h, "<th>{}</th>", esc(&p.name));
    }
    h.push_str("</tr>");
    let mut complete: Vec<&Trial> = t.iter().filter(|tr| tr.eligible()).collect();
    let sign = page.sign;
    complete.sort_by(|a, b| {
        (sign * b.mean().unwrap_or(0.0)).total_cmp(&(sign * a.mean().unwrap_or(0.0)))
    });
    for tr in complete.iter().take(20) {
        let _ = write!(
            h,
            "<tr><td>{}{}</td><td>{:.4}</td>",
            tr.id,
            if tr.id == 0 { " (defaults)" } else { "" },
            tr.mean().unwrap_or(0.0)
        );
        for (p, v) in page.params.iter().zip(&tr.values) {
            let _ = write!(h, "<td>{}</td>", esc(&p.show(*v)));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table><p>Every trial and every seed: trials.csv and trial-scores.csv beside this page.</p></body></html>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::params::Value;
    use crate::tune::search::SeedScore;
    use crate::verdict::Verdict;

    #[test]
    fn the_page_is_self_contained_and_escapes_choice_words() {
        let table: toml::Table =
            "mode = { kind = \"choice\", choices = [\"<a>\", \"b&c\"], default = \"<a>\" }"
                .parse()
                .unwrap();
        let params =
            super::super::params::parse(&table, std::path::Path::new("t"), "params").unwrap();
        let trial = |id, c, score| Trial {
            id,
            values: vec![Value::Choice(c)],
            scores: vec![Some(SeedScore {
                verdict: Verdict::Ok,
                score,
                think_ms: 1,
            })],
            state: State::Complete,
        };
        let trials = [trial(0, 0, 1.0), trial(1, 1, 2.0)];
        let html = render(&Page {
            id: "tune-x",
            params: &params,
            trials: &trials,
            best: Some(1),
            summary: None,
            holdout: 10,
            sign: 1.0,
        });
        assert!(html.contains("&lt;a&gt;") && html.contains("b&amp;c"));
        assert!(!html.contains("<a>"));
        assert!(
            !html.contains("<script") && !html.contains("http"),
            "no script, nothing fetched"
        );
        assert_eq!(
            html.matches("<svg").count(),
            2,
            "by trial, by the one parameter"
        );
        assert_eq!(html.matches("class=\"best\"").count(), 2);
        // A choice has no edge: no note.
        assert!(!html.contains("class=\"edge\""));
    }

    #[test]
    fn the_page_says_when_the_best_value_is_at_the_edge_of_its_range() {
        let table: toml::Table = "w-keep = { kind = \"float\", range = [0.0, 5.0], default = 1.0 }"
            .parse()
            .unwrap();
        let params =
            super::super::params::parse(&table, std::path::Path::new("t"), "params").unwrap();
        let trial = |id, v, score| Trial {
            id,
            values: vec![Value::Float(v)],
            scores: vec![Some(SeedScore {
                verdict: Verdict::Ok,
                score,
                think_ms: 1,
            })],
            state: State::Complete,
        };
        let trials = [trial(0, 1.0, 1.0), trial(1, 4.954, 2.0)];
        let html = render(&Page {
            id: "tune-x",
            params: &params,
            trials: &trials,
            best: Some(1),
            summary: None,
            holdout: 10,
            sign: 1.0,
        });
        assert!(
            html.contains("w-keep = 4.954 in [0, 5]: at the edge of its range; widen it"),
            "{html}"
        );
    }
}
