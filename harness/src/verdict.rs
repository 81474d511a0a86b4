//! How a test ended: the verdict, its reason and the score, and the faults a player can commit
//! on the wire. Pure data shared by the problems, the session, the runner and the reports.
//!
//! Reasons are shown on screen and kept in `scores.csv`, and many quote what a player sent:
//! [`quote`] is how every reason quotes a player's text, and [`clip`] with [`REASON_BYTES`]
//! is the bound the runner puts on every reason, so no player can make either large.

use std::fmt;

/// The verdict of one test, as in contest judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Verdict {
    /// The test was played to its end and scored.
    #[serde(rename = "OK")]
    Ok,
    /// Wrong answer: an invalid or malformed move, or a wrong result.
    #[serde(rename = "WA")]
    WrongAnswer,
    /// Thinking time over the limit.
    #[serde(rename = "TLE")]
    TimeLimit,
    /// Memory over the limit.
    #[serde(rename = "MLE")]
    MemoryLimit,
    /// The player died (signal or non-zero status) before the test ended.
    #[serde(rename = "RE")]
    RuntimeError,
    /// Protocol error: a line without newline, a line too long, binary junk, too much output.
    #[serde(rename = "PE")]
    ProtocolError,
    /// The test was not run.
    #[serde(rename = "SKIP")]
    Skipped,
    /// The harness itself failed; never the player's fault.
    #[serde(rename = "ERR")]
    HarnessError,
}

impl Verdict {
    /// Every verdict, in report column order.
    pub const ALL: [Verdict; 8] = [
        Verdict::Ok,
        Verdict::WrongAnswer,
        Verdict::TimeLimit,
        Verdict::MemoryLimit,
        Verdict::RuntimeError,
        Verdict::ProtocolError,
        Verdict::Skipped,
        Verdict::HarnessError,
    ];

    /// The short code shown in reports.
    pub fn code(self) -> &'static str {
        match self {
            Verdict::Ok => "OK",
            Verdict::WrongAnswer => "WA",
            Verdict::TimeLimit => "TLE",
            Verdict::MemoryLimit => "MLE",
            Verdict::RuntimeError => "RE",
            Verdict::ProtocolError => "PE",
            Verdict::Skipped => "SKIP",
            Verdict::HarnessError => "ERR",
        }
    }

    /// Reads a code back (CSV files of earlier runs).
    pub fn from_code(code: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.code() == code)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.code())
    }
}

/// A player's fault on the wire, found by the channel while reading or writing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// The thinking time ran out; what the harness was waiting for says why.
    #[error("{0}")]
    TimeLimit(Overtime),
    #[error("the player closed its output before the game ended")]
    Eof,
    #[error("last line has no newline before end of output: {0:?}")]
    Unterminated(String),
    #[error("line longer than {0} bytes")]
    LineTooLong(usize),
    #[error("output over the limit of {0} bytes")]
    OutputLimit(u64),
    /// A control character or a byte that is not UTF-8, at `at` bytes into the line (or
    /// into the whole answer of an exact-answer problem).
    #[error("output is not text (byte {byte:#04x} at offset {at})")]
    NotText { byte: u8, at: usize },
    #[error("cannot write to the player: {0}")]
    Gone(String),
    /// The run was interrupted (Ctrl-C); the test did not finish and is not recorded.
    #[error("the run was interrupted")]
    Interrupted,
}

impl Fault {
    /// The verdict this fault earns unless the runner learns more (a crash turns `Eof` into RE).
    pub fn verdict(&self) -> Verdict {
        match self {
            Fault::TimeLimit(_) => Verdict::TimeLimit,
            Fault::Interrupted => Verdict::Skipped,
            Fault::Eof | Fault::Gone(_) => Verdict::WrongAnswer,
            Fault::Unterminated(_)
            | Fault::LineTooLong(_)
            | Fault::OutputLimit(_)
            | Fault::NotText { .. } => Verdict::ProtocolError,
        }
    }
}

/// Where a test's thinking time ran out: the limit, and what the harness was waiting for.
/// Its text is the reason of the TLE, written for the most common marathon bug: a player that
/// does not flush its output (Python's stdout is block-buffered when it is a pipe).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overtime {
    /// The thinking time of the whole test.
    pub limit: std::time::Duration,
    pub waiting: Waiting,
}

/// What the harness was waiting for when the thinking time ran out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// The player's answer line `line` (counted from 1: a move of an interactive problem),
    /// with `partial` bytes of it received and no newline yet; `earlier`: whether any byte
    /// at all came from the player before it in this test.
    Line {
        line: u64,
        partial: usize,
        earlier: bool,
    },
    /// The player to read the message before answer line `line` (its input pipe was full).
    Reading { line: u64 },
    /// The end of the player's output (an answer given whole), `received` bytes of it in.
    End { received: u64 },
}

impl Overtime {
    /// Whether the player is likely waiting on output it never flushed: part of a line came,
    /// or nothing at all in the whole test (then it waits for a reply to an answer it did not
    /// send, and its CPU time is low: the machine is not to blame).
    pub fn unflushed(&self) -> bool {
        matches!(
            self.waiting,
            Waiting::Line { partial: 1.., .. } | Waiting::Line { earlier: false, .. }
        )
    }
}

/// `10 s`, `2.5 s`.
fn seconds(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s} s")
    } else {
        format!("{} s", format!("{s:.3}").trim_end_matches('0'))
    }
}

impl fmt::Display for Overtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let limit = seconds(self.limit);
        write!(f, "thinking time over the limit of {limit} per test")?;
        match self.waiting {
            Waiting::Line {
                line,
                partial: 0,
                earlier: false,
            } => write!(
                f,
                " at move {line}: no bytes received: did the player flush its output?"
            ),
            Waiting::Line {
                line,
                partial: 0,
                earlier: true,
            } => write!(
                f,
                " at move {line}: no bytes received since the last message (did the player \
                 flush its output, or is it still thinking?)"
            ),
            Waiting::Line { line, partial, .. } => write!(
                f,
                " at move {line}, with {partial} bytes of a line received and no newline: \
                 flush your output after each line"
            ),
            Waiting::Reading { line } => write!(
                f,
                " before move {line}: the player did not read its input (the harness's message \
                 waited in a full pipe)"
            ),
            Waiting::End { received: 0 } => write!(
                f,
                " waiting for the answer: no bytes received (the answer ends when the player \
                 closes its output)"
            ),
            Waiting::End { received } => write!(
                f,
                " waiting for the end of the answer ({received} bytes received; it ends when \
                 the player closes its output)"
            ),
        }
    }
}

/// How one test ended, as the judge of the problem sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub verdict: Verdict,
    /// The raw score of the test (what the problem's statement defines).
    pub score: f64,
    /// Moves (clicks, answers) the judge accepted.
    pub moves: u64,
    /// Why the test ended when it is not `OK`, or a note from the judge; empty otherwise.
    pub reason: String,
    /// The wire fault that ended the test, if one did (the runner refines its verdict with
    /// what it learns from the process: a crash, a memory limit).
    pub fault: Option<Fault>,
    /// A contest's tool ended the game (it died, or judged and exited) while the player was
    /// still in it: the player's exit after that (a crash at the end of its input) is no
    /// news, and the tool's verdict stands.
    pub ended_by_tool: bool,
}

impl Outcome {
    /// The test was played to its end.
    pub fn ok(score: f64, moves: u64) -> Outcome {
        Outcome {
            verdict: Verdict::Ok,
            score,
            moves,
            reason: String::new(),
            fault: None,
            ended_by_tool: false,
        }
    }

    /// A test that ended before any move with this verdict (it could not start, its test
    /// data could not be made): score 0.
    pub fn failed(verdict: Verdict, reason: impl Into<String>) -> Outcome {
        Outcome {
            verdict,
            reason: reason.into(),
            ..Outcome::ok(0.0, 0)
        }
    }

    /// The player made an invalid or malformed move, or gave a wrong answer.
    pub fn wrong(score: f64, moves: u64, reason: impl Into<String>) -> Outcome {
        Outcome {
            verdict: Verdict::WrongAnswer,
            score,
            moves,
            reason: reason.into(),
            fault: None,
            ended_by_tool: false,
        }
    }

    /// The player committed a fault on the wire.
    pub fn fault(fault: &Fault, score: f64, moves: u64) -> Outcome {
        Outcome {
            verdict: fault.verdict(),
            score,
            moves,
            reason: fault.to_string(),
            fault: Some(fault.clone()),
            ended_by_tool: false,
        }
    }
}

/// Most bytes of a player's text one quote in a reason shows.
pub(crate) const QUOTE_BYTES: usize = 100;
/// Most bytes of a reason as `scores.csv` and the screen show it.
pub const REASON_BYTES: usize = 400;

/// Cuts text to at most `max` bytes (at a character boundary) and says how long it was.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes in all)", &text[..end], text.len())
}

/// A player's text as a reason quotes it: in double quotes, with control and invisible
/// characters escaped as Rust does (`\t`, `\u{3000}`), and cut after [`QUOTE_BYTES`] bytes
/// of the quote (saying how long the text was).
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(QUOTE_BYTES) + 2);
    out.push('"');
    for c in text.chars() {
        // As in `{:?}` of a string: a single quote needs no escape between double quotes.
        let escaped: String = if c == '\'' {
            c.to_string()
        } else {
            c.escape_debug().collect()
        };
        if out.len() + escaped.len() > QUOTE_BYTES {
            out.push_str(&format!("\"... ({} bytes in all)", text.len()));
            return out;
        }
        out.push_str(&escaped);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_reasons_are_cut() {
        assert_eq!(quote("0 1"), "\"0 1\"");
        assert_eq!(quote("it's"), format!("{:?}", "it's"));
        assert_eq!(quote("a\u{3000}\t"), "\"a\\u{3000}\\t\"");
        let long = "0".repeat(60 << 20);
        let q = quote(&long);
        assert!(q.len() < QUOTE_BYTES + 40, "{q}");
        assert!(q.ends_with("... (62914560 bytes in all)"), "{q}");
        let c = clip(&long, REASON_BYTES);
        assert!(c.len() < REASON_BYTES + 40);
        assert_eq!(clip("short", REASON_BYTES), "short");
        // Never inside a character.
        assert_eq!(clip("\u{3000}\u{3000}", 4), "\u{3000}... (6 bytes in all)");
    }

    #[test]
    fn a_time_limit_names_the_move_the_limit_and_what_had_arrived() {
        let at = |waiting| {
            Fault::TimeLimit(Overtime {
                limit: std::time::Duration::from_millis(2500),
                waiting,
            })
            .to_string()
        };
        let silent = |line, earlier| Waiting::Line {
            line,
            partial: 0,
            earlier,
        };
        assert_eq!(
            at(silent(1, false)),
            "thinking time over the limit of 2.5 s per test at move 1: no bytes received: \
             did the player flush its output?"
        );
        let since = at(silent(7, true));
        assert!(
            since.contains("at move 7: no bytes received since the last message"),
            "{since}"
        );
        let partial = at(Waiting::Line {
            line: 3,
            partial: 2,
            earlier: true,
        });
        assert!(
            partial.contains("at move 3, with 2 bytes of a line received and no newline"),
            "{partial}"
        );
        assert!(at(Waiting::Reading { line: 4 }).contains("did not read its input"));
        assert!(at(Waiting::End { received: 0 }).contains("no bytes received"));
        assert_eq!(seconds(std::time::Duration::from_secs(10)), "10 s");
    }
}
