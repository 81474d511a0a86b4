//! The leaderboard as a text table, one section per problem, players ranked by the
//! problem's yardstick (`rank-by`: the relative score unless the problem or `--rank-by` says
//! otherwise; the raw mean before relative scores are known): compact by default (fits 100
//! columns for names up to [`COMPACT_NAME`] characters: mean, relative score, the rank or log
//! column when ranked by it, the longest thinking time of a test, OK and the failures by
//! verdict), or wide (`--wide`: sum, min, max, a column per verdict, total and longest
//! thinking time). A minimised problem's mean, sum, min and max are over its OK tests.
//! Pure rendering: the caller decides where it goes and whether colours are on.

use std::fmt::Write;

use super::number;
use super::summary::{rank_by, ranked, Standing, Summary};
use crate::problem::Objective;
use crate::rank::yardstick::RankBy;
use crate::verdict::Verdict;

/// ANSI colour of a verdict's column (bright for failures).
fn colour(v: Verdict) -> &'static str {
    match v {
        Verdict::Ok => "\x1b[32m",
        Verdict::WrongAnswer => "\x1b[31m",
        Verdict::TimeLimit => "\x1b[33m",
        Verdict::MemoryLimit => "\x1b[35m",
        Verdict::RuntimeError => "\x1b[91m",
        Verdict::ProtocolError => "\x1b[36m",
        Verdict::Skipped => "\x1b[90m",
        Verdict::HarnessError => "\x1b[41;97m",
    }
}

/// Formats a duration of thinking time compactly: `850ms`, `12.3s`, `4m05s`.
pub(crate) fn human_duration(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    }
}

/// Longest player name the compact table shows in full; longer ones are cut with `~`.
pub(crate) const COMPACT_NAME: usize = 24;

/// The verdicts that are failures, in the order the tables list them.
const FAILURES: [Verdict; 6] = [
    Verdict::WrongAnswer,
    Verdict::TimeLimit,
    Verdict::MemoryLimit,
    Verdict::RuntimeError,
    Verdict::ProtocolError,
    Verdict::HarnessError,
];

/// Renders the leaderboard, compact or `wide`. `partial` adds a line saying the run did not
/// finish.
pub fn render(summary: &Summary, colours: bool, partial: bool, wide: bool) -> String {
    let mut out = if wide {
        render_wide(summary, colours)
    } else {
        render_compact(summary, colours)
    };
    if partial {
        let _ = writeln!(
            out,
            "partial: {} of {} tests finished (the run was interrupted)",
            summary.finished(),
            summary.planned
        );
    }
    out
}

/// A name cut to `width` characters, its end marked with `~`.
fn cut(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        return name.to_string();
    }
    let mut s: String = name.chars().take(width - 1).collect();
    s.push('~');
    s
}

/// One problem's leaderboard as cells: the ranked players, whether scores are whole
/// numbers, and the column of the yardstick when it is not one the table has anyway.
struct Board<'a> {
    ranked: Vec<(usize, &'a (String, Standing))>,
    objective: Objective,
    integral: bool,
    relative: bool,
    /// (header, the cell of each player in rank order) of a rank or log yardstick.
    extra: Option<(&'static str, Vec<String>)>,
    /// The mean of each player in rank order (`-` without an OK test when minimising).
    means: Vec<String>,
}

impl<'a> Board<'a> {
    fn new(summary: &Summary, problem: &str, players: &'a [(String, Standing)]) -> Board<'a> {
        let objective = summary.objective(problem);
        let rank_by = rank_by(summary.rank_by(problem), players);
        let ranked = ranked(players, rank_by, objective);
        let integral = !players.iter().any(|(_, s)| s.fractional);
        let column = |f: &dyn Fn(&Standing) -> Option<String>| -> Vec<String> {
            ranked
                .iter()
                .map(|(_, (_, s))| f(s).unwrap_or_else(|| "-".into()))
                .collect()
        };
        let extra = match rank_by {
            RankBy::Rank => Some(("rank", column(&|s| s.rank.map(|r| format!("{r:.2}"))))),
            RankBy::Log => Some((
                "log10",
                column(&|s| s.mark(rank_by, objective).value.map(|v| format!("{v:.4}"))),
            )),
            RankBy::Relative | RankBy::Raw => None,
        };
        let means = column(&|s| {
            s.shown_mean(objective)
                .map(|m| number::mean(m, integral, 6))
        });
        Board {
            objective,
            integral,
            relative: players.iter().any(|(_, s)| s.relative.is_some()),
            extra,
            means,
            ranked,
        }
    }

    /// The header of the problem: its id, and what it ranks by when that is not the default.
    fn title(summary: &Summary, problem: &str) -> String {
        match summary.rank_by(problem) {
            RankBy::Relative => problem.to_string(),
            RankBy::Rank => format!("{problem} (ranked by rank score)"),
            RankBy::Log => format!("{problem} (ranked by log10 average)"),
            RankBy::Raw => format!("{problem} (ranked by mean score)"),
        }
    }
}

/// The failures of a standing by verdict: `1 TLE, 2 RE`, or `.`.
fn failure_cells(s: &Standing, colours: bool) -> String {
    let failures: Vec<String> = FAILURES
        .iter()
        .filter(|&&v| s.count(v) > 0)
        .map(|&v| {
            let text = format!("{} {}", s.count(v), v.code());
            if colours {
                format!("{}{text}\x1b[0m", colour(v))
            } else {
                text
            }
        })
        .collect();
    if failures.is_empty() {
        ".".to_string()
    } else {
        failures.join(", ")
    }
}

fn render_compact(summary: &Summary, colours: bool) -> String {
    let mut out = String::new();
    for (problem, players) in &summary.problems {
        let board = Board::new(summary, problem, players);
        let width = board
            .ranked
            .iter()
            .map(|(_, (n, _))| n.chars().count())
            .max()
            .unwrap_or(6)
            .clamp(6, COMPACT_NAME);
        let mw = number::width(&board.means, 10);
        let _ = writeln!(out, "{}", Board::title(summary, problem));
        let _ = write!(
            out,
            "  {:>2}  {:<width$}  {:>5}  {:>mw$}",
            "#", "player", "tests", "mean"
        );
        if board.relative {
            let _ = write!(out, "  {:>11}", "relative");
        }
        if let Some((header, _)) = &board.extra {
            let _ = write!(out, "  {header:>8}");
        }
        let _ = writeln!(out, "  {:>9}  {:>4}  failures", "max think", "OK");
        for (i, (rank, (name, s))) in board.ranked.iter().enumerate() {
            let _ = write!(
                out,
                "  {:>2}  {:<width$}  {:>5}  {:>mw$}",
                rank,
                cut(name, width),
                s.tests,
                board.means[i],
            );
            if board.relative {
                let _ = write!(out, "  {:>11.2}", s.relative.unwrap_or(0.0));
            }
            if let Some((_, cells)) = &board.extra {
                let _ = write!(out, "  {:>8}", cells[i]);
            }
            let _ = writeln!(
                out,
                "  {:>9}  {:>4}  {}",
                human_duration(s.max_think),
                s.count(Verdict::Ok),
                failure_cells(s, colours)
            );
        }
        out.push('\n');
    }
    out
}

fn render_wide(summary: &Summary, colours: bool) -> String {
    let mut out = String::new();
    let shown = [
        Verdict::Ok,
        Verdict::WrongAnswer,
        Verdict::TimeLimit,
        Verdict::MemoryLimit,
        Verdict::RuntimeError,
        Verdict::ProtocolError,
        Verdict::HarnessError,
    ];
    for (problem, players) in &summary.problems {
        let board = Board::new(summary, problem, players);
        let width = board
            .ranked
            .iter()
            .map(|(_, (n, _))| n.len())
            .max()
            .unwrap_or(6)
            .max(6);
        // sum, min, max of each player in rank order.
        let ranges: Vec<[String; 3]> = board
            .ranked
            .iter()
            .map(|(_, (_, s))| match s.shown_range(board.objective) {
                Some((sum, min, max)) => [
                    number::score(sum, board.integral, 4),
                    number::score(min, board.integral, 4),
                    number::score(max, board.integral, 4),
                ],
                None => ["-".into(), "-".into(), "-".into()],
            })
            .collect();
        let mw = number::width(&board.means, 10);
        let sw = number::width(ranges.iter().map(|r| &r[0]), 11);
        let xw = number::width(ranges.iter().flat_map(|r| &r[1..]), 8);
        let _ = writeln!(out, "{}", Board::title(summary, problem));
        let _ = write!(
            out,
            "  {:>2}  {:<width$}  {:>5}  {:>mw$}  {:>sw$}  {:>xw$}  {:>xw$}",
            "#", "player", "tests", "mean", "sum", "min", "max"
        );
        if board.relative {
            let _ = write!(out, "  {:>11}", "relative");
        }
        if let Some((header, _)) = &board.extra {
            let _ = write!(out, "  {header:>8}");
        }
        for v in shown {
            let _ = write!(out, " {:>4}", v.code());
        }
        let _ = writeln!(out, "  {:>8}  {:>9}", "think", "max think");
        for (i, (rank, (name, s))) in board.ranked.iter().enumerate() {
            let [sum, min, max] = &ranges[i];
            let _ = write!(
                out,
                "  {:>2}  {:<width$}  {:>5}  {:>mw$}  {sum:>sw$}  {min:>xw$}  {max:>xw$}",
                rank, name, s.tests, board.means[i],
            );
            if board.relative {
                let _ = write!(out, "  {:>11.2}", s.relative.unwrap_or(0.0));
            }
            if let Some((_, cells)) = &board.extra {
                let _ = write!(out, "  {:>8}", cells[i]);
            }
            for v in shown {
                let n = s.count(v);
                let cell = if n == 0 {
                    ".".to_string()
                } else {
                    n.to_string()
                };
                if colours && n > 0 {
                    let _ = write!(out, " {}{:>4}\x1b[0m", colour(v), cell);
                } else {
                    let _ = write!(out, " {cell:>4}");
                }
            }
            let _ = writeln!(
                out,
                "  {:>8}  {:>9}",
                human_duration(s.think),
                human_duration(s.max_think)
            );
        }
        out.push('\n');
    }
    out
}

/// The leaderboard once the run ends, with the lines under it: on stdout, or on stderr when
/// stdout is for JSON lines (`--json`).
pub(crate) struct Table {
    /// Every column (`--wide`).
    pub wide: bool,
    pub to_stderr: bool,
}

impl Table {
    /// Where what people read goes, and whether it may have colours.
    pub fn out(to_stderr: bool) -> (Box<dyn std::io::Write>, bool) {
        use std::io::IsTerminal;
        if to_stderr {
            (Box::new(std::io::stderr()), std::io::stderr().is_terminal())
        } else {
            (Box::new(std::io::stdout()), std::io::stdout().is_terminal())
        }
    }
}

impl super::Reporter for Table {
    fn on_event(
        &mut self,
        event: &super::Event<'_>,
        state: &mut super::RunState,
    ) -> Result<(), String> {
        if let super::Event::RunFinished = event {
            let (mut out, colours) = Table::out(self.to_stderr);
            let _ = write!(
                out,
                "{}",
                render(&state.summary, colours, !state.complete, self.wide)
            );
            for line in &state.footer {
                let _ = writeln!(out, "{line}");
            }
            let _ = out.flush();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::minimised_with_failures;
    use crate::rundir::ScoreRow;

    /// Two problems, players given out of rank order, every kind of failure, a partial run.
    fn summary() -> Summary {
        let mut s = Summary::new(
            &[
                (
                    "chesspuzzle".to_string(),
                    vec!["slow-but-good".to_string(), "crashy".to_string()],
                ),
                ("game-ending".to_string(), vec!["correct".to_string()]),
            ],
            7,
        );
        let mut record = |problem: &str, player: &str, score: f64, verdict, think_ms| {
            s.add(&ScoreRow {
                think_ms,
                ..ScoreRow::new(problem, player, "1", score, verdict)
            })
        };
        record("chesspuzzle", "slow-but-good", 0.75, Verdict::Ok, 15_500);
        record("chesspuzzle", "slow-but-good", 0.25, Verdict::Ok, 61_000);
        record("chesspuzzle", "crashy", 0.5, Verdict::Ok, 3);
        record("chesspuzzle", "crashy", 0.0, Verdict::RuntimeError, 1);
        record("chesspuzzle", "crashy", 0.0, Verdict::TimeLimit, 20_000);
        record("game-ending", "correct", 1.0, Verdict::Ok, 40);
        s.set_relative("chesspuzzle", "slow-but-good", 1_000_000.0);
        s.set_relative("chesspuzzle", "crashy", 222_222.22);
        s.set_relative("game-ending", "correct", 1_000_000.0);
        s
    }

    #[test]
    fn leaderboard_ranks_by_mean_and_counts_verdicts() {
        insta::assert_snapshot!(render(&summary(), false, true, true));
    }

    #[test]
    fn the_compact_leaderboard_names_the_failures_and_the_longest_thinking_time() {
        insta::assert_snapshot!(render(&summary(), false, true, false));
    }

    #[test]
    fn the_compact_leaderboard_fits_100_columns() {
        let mut s = summary();
        let long = "a-player-name-of-thirty-characters";
        s.problems[0]
            .1
            .push((long.to_string(), Standing::default()));
        let row = |score, verdict, think_ms| ScoreRow {
            think_ms,
            ..ScoreRow::new("chesspuzzle", long, "1", score, verdict)
        };
        s.add(&row(43632.0, Verdict::Ok, 4_000_000));
        for v in [Verdict::WrongAnswer, Verdict::TimeLimit] {
            s.add(&row(0.0, v, 1000));
        }
        s.set_relative("chesspuzzle", long, 1_000_000.0);
        let text = render(&s, false, false, false);
        for line in text.lines() {
            assert!(
                line.chars().count() <= 100,
                "{} columns: {line}",
                line.len()
            );
        }
        assert!(text.contains("a-player-name-of-thirty~"), "{text}");
        let wide = render(&s, false, false, true);
        assert!(wide.lines().any(|l| l.len() > 100), "{wide}");
        assert!(wide.contains(long), "{wide}");
    }

    #[test]
    fn equal_means_share_a_rank_in_both_tables() {
        let names = ["tied-b", "tied-a", "third"].map(String::from);
        let mut s = Summary::new(&[("chesspuzzle".to_string(), names.to_vec())], 6);
        for (player, scores) in [
            ("tied-b", [0.5, 0.25]),
            ("tied-a", [0.25, 0.5]),
            ("third", [0.1, 0.1]),
        ] {
            for score in scores {
                s.add(&ScoreRow::new(
                    "chesspuzzle",
                    player,
                    "1",
                    score,
                    Verdict::Ok,
                ));
            }
        }
        for wide in [false, true] {
            let text = render(&s, false, false, wide);
            let ranks: Vec<(&str, &str)> = text
                .lines()
                .filter_map(|l| {
                    let mut cells = l.split_whitespace();
                    Some((cells.next()?, cells.next()?))
                })
                .filter(|(rank, _)| rank.parse::<usize>().is_ok())
                .collect();
            assert_eq!(
                ranks,
                [("1", "tied-a"), ("1", "tied-b"), ("3", "third")],
                "{text}"
            );
        }
    }

    #[test]
    fn colours_mark_only_non_zero_verdict_counts() {
        let text = render(&summary(), true, false, true);
        assert!(
            text.contains("\x1b[91m   1\x1b[0m"),
            "RE count in its colour: {text}"
        );
        assert!(!text.contains("partial"));
        assert_eq!(
            text.matches("\x1b[31m").count(),
            0,
            "no WA anywhere, so no WA colour"
        );
    }

    #[test]
    fn a_minimised_problem_ranks_the_lowest_mean_first() {
        let mut s = Summary::new(
            &[(
                "tools-interactive".to_string(),
                vec!["scan".to_string(), "sieve".to_string()],
            )],
            2,
        );
        s.add(&ScoreRow::new(
            "tools-interactive",
            "scan",
            "1",
            104.2,
            Verdict::Ok,
        ));
        s.add(&ScoreRow::new(
            "tools-interactive",
            "sieve",
            "1",
            12.1,
            Verdict::Ok,
        ));
        let players = &s.problems[0].1;
        let names = |objective| -> Vec<(usize, String)> {
            ranked(players, RankBy::Raw, objective)
                .into_iter()
                .map(|(rank, (name, _))| (rank, name.clone()))
                .collect()
        };
        assert_eq!(
            names(Objective::Minimize),
            [(1, "sieve".to_string()), (2, "scan".to_string())]
        );
        assert_eq!(
            names(Objective::Maximize),
            [(1, "scan".to_string()), (2, "sieve".to_string())]
        );
    }

    #[test]
    fn a_minimised_leaderboard_never_counts_a_failed_test_as_its_best_score() {
        let s = minimised_with_failures(RankBy::Raw);
        let wide = render(&s, false, false, true);
        insta::assert_snapshot!(wide);
        let compact = render(&s, false, false, false);
        // The mean of tle's two OK tests, not 4 tests with two 0s; its min is an OK test's.
        assert!(compact.contains("2335231.00"), "{compact}");
        assert!(!compact.contains("1167615.50"), "{compact}");
        assert!(wide.contains(" 3651 "), "{wide}");
        // steady fails nothing: it ranks first although its OK scores are higher.
        let first = compact.lines().nth(2).unwrap();
        assert!(first.contains("steady"), "{compact}");
        // Whole numbers: no `.000000` anywhere.
        assert!(
            !wide.contains(".000000") && !wide.contains(".0000 "),
            "{wide}"
        );
    }

    #[test]
    fn the_rank_and_log_yardsticks_add_their_column_and_rank_by_it() {
        let mut s = minimised_with_failures(RankBy::Rank);
        s.set_rank("tools-min", "tle", 50.0);
        s.set_rank("tools-min", "steady", 62.5);
        let text = render(&s, false, false, false);
        assert!(
            text.starts_with("tools-min (ranked by rank score)\n"),
            "{text}"
        );
        assert!(text.lines().nth(1).unwrap().contains("    rank"), "{text}");
        let first = text.lines().nth(2).unwrap();
        assert!(
            first.contains("steady") && first.contains("62.50"),
            "{text}"
        );
        // log: fewer tests without a logarithm first (tle has 2 TLEs), so steady leads even
        // with a larger log10 mean (lower is better when minimising).
        let s = minimised_with_failures(RankBy::Log);
        let text = render(&s, false, false, false);
        let first = text.lines().nth(2).unwrap();
        let steady_log = ((28400f64).log10() + 37e6f64.log10() + 2.0 * 4e7f64.log10()) / 4.0;
        assert!(first.contains("steady"), "{text}");
        assert!(first.contains(&format!("{steady_log:.4}")), "{text}");
    }
}
