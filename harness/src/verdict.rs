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
    #[error("thinking time over the limit")]
    TimeLimit,
    /// The time ran out while part of an answer line had arrived: often a line the player
    /// wrote but did not flush.
    #[error(
        "thinking time over the limit, with {0} bytes of a line received and no newline: \
         flush your output after each line"
    )]
    TimeLimitMidLine(usize),
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
            Fault::TimeLimit | Fault::TimeLimitMidLine(_) => Verdict::TimeLimit,
            Fault::Interrupted => Verdict::Skipped,
            Fault::Eof | Fault::Gone(_) => Verdict::WrongAnswer,
            Fault::Unterminated(_)
            | Fault::LineTooLong(_)
            | Fault::OutputLimit(_)
            | Fault::NotText { .. } => Verdict::ProtocolError,
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
}
