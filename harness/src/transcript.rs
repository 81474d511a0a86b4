//! What was said in one test, both ways, kept for debugging and for replays.
//!
//! [`Recorder`] wraps the [`Channel`] a game plays through and appends every message to one
//! `String`: each line the judge sends as `> line`, each line the player sends as `< line`.
//! One string per test grows by amortised doubling, so recording costs a copy of the bytes
//! and nothing per move beyond that. [`answers`] reads a transcript back into the player's
//! lines, which is all a deterministic judge needs to play the same game again, and
//! [`Replayed`] plays them to the judge (replays, `harness bench`).
//!
//! # Compact transcripts
//!
//! The judges are deterministic for a test, so the judge's lines of an interactive problem
//! (one with replays: [`compact_for`]) are not kept: a run records such a test with
//! [`Recorder::compact`], which keeps [`COMPACT_HEADER`] and the player's lines only (a
//! 20,000-move Linez game: 7 bytes a move instead of about 120). [`rebuild`] plays the
//! player's lines to the test again and gives back the whole conversation, equal to what
//! [`Recorder::new`] would have kept. Exact-answer problems keep both sides (one input, one
//! answer, which may be cut: see below).
//!
//! Which tests keep a transcript on disk at all is the run's [`Keep`] (`--transcripts`).
//!
//! A test whose judge started the player more than once ([`Channel::restart`]: a contest
//! tester playing more games per input) has a section per start, each after a
//! [`start_header`] note; a test of one start has none.
//!
//! What a player sends is kept as the judge understood it ([`Channel::understood`]: `7 3`
//! for `007 3`), and one message of a player is kept up to [`KEEP_BYTES`] (an exact answer;
//! a `# ` line then says how much was left out), so a transcript's size is bounded by the
//! number of moves and the judge's own messages, whatever the player sends.
//!
//! This module neither reads nor writes files: `report::files` writes transcripts and
//! `replay` reads them.

use crate::problem::{Channel, Game, Heard, Problem};
use crate::verdict::Fault;

/// Marks a line the judge sent to the player.
pub(crate) const TO_PLAYER: &str = "> ";
/// Marks a line the player sent to the judge.
pub(crate) const FROM_PLAYER: &str = "< ";
/// Marks a note of the harness (what was left out); readers of answers skip it.
pub(crate) const NOTE: &str = "# ";
/// Most bytes of one player message a transcript keeps.
pub(crate) const KEEP_BYTES: usize = 64 << 10;

/// The first line of a compact transcript: the player's lines only.
pub const COMPACT_HEADER: &str =
    "# the player's lines only; `harness replay RUN --seed S --transcript` rebuilds the judge's\n";

pub use crate::config::Keep;

/// Whether a problem's transcripts are kept compact: those of the problems with replays,
/// whose judge plays the same game again from the player's lines alone.
pub(crate) fn compact_for(problem: &dyn Problem) -> bool {
    problem.views().is_some()
}

/// Whether a transcript keeps the player's lines only ([`Recorder::compact`]).
pub fn is_compact(transcript: &str) -> bool {
    transcript.starts_with(COMPACT_HEADER)
}

/// The whole conversation of a test from its transcript: a compact one is played again to a
/// fresh copy of the test (`game`), with the judge's lines recorded as a run records them;
/// a whole one is returned as it is.
pub fn rebuild(game: &mut dyn Game, transcript: &str) -> String {
    if !is_compact(transcript) {
        return transcript.to_string();
    }
    let mut player = Replayed::new(answers(transcript));
    let mut recorder = Recorder::new(&mut player);
    game.play(&mut recorder);
    recorder.text
}

/// A channel that records everything passing through another one.
pub struct Recorder<'a> {
    inner: &'a mut dyn Channel,
    /// The transcript so far.
    pub text: String,
    /// Where the player's last message starts in `text`.
    last_answer: usize,
    /// Whether the judge's lines are kept (not in a compact transcript).
    judge: bool,
    /// How many times the player was started ([`Channel::restart`]): a transcript of more
    /// than one start has a [`start_header`] before each start's lines.
    starts: u32,
}

/// The note that begins the lines of the player's `n`th start in a test whose judge started
/// it more than once (a `# ` line: readers of answers skip it).
pub(crate) fn start_header(n: u32) -> String {
    format!("{NOTE}start {n} of the player\n")
}

impl<'a> Recorder<'a> {
    /// Keeps both sides.
    pub fn new(inner: &'a mut dyn Channel) -> Self {
        Recorder {
            inner,
            text: String::new(),
            last_answer: 0,
            judge: true,
            starts: 1,
        }
    }

    /// Keeps the player's lines only, after [`COMPACT_HEADER`]: for a test whose judge can
    /// play them again ([`rebuild`]).
    pub fn compact(inner: &'a mut dyn Channel) -> Self {
        Recorder {
            inner,
            text: COMPACT_HEADER.to_string(),
            last_answer: 0,
            judge: false,
            starts: 1,
        }
    }

    /// The recorder a run uses for a test of `problem`: compact when [`compact_for`] it.
    pub fn for_problem(problem: &dyn Problem, inner: &'a mut dyn Channel) -> Self {
        if compact_for(problem) {
            Recorder::compact(inner)
        } else {
            Recorder::new(inner)
        }
    }

    fn push_lines(text: &mut String, marker: &str, message: &str) {
        for line in message.lines() {
            text.push_str(marker);
            text.push_str(line);
            text.push('\n');
        }
    }

    /// Keeps one line of a player.
    fn keep_line(text: &mut String, line: &str) {
        if line.len() > KEEP_BYTES {
            // Only a channel without a line limit hands out such a line.
            Self::keep(text, line);
        } else {
            // One line, whatever it holds: a stray `\r` or an empty answer is kept as sent.
            text.push_str(FROM_PLAYER);
            text.push_str(line);
            text.push('\n');
        }
    }

    /// Keeps a player's message, cut after [`KEEP_BYTES`] with a note saying how much.
    fn keep(text: &mut String, message: &str) {
        let mut end = message.len().min(KEEP_BYTES);
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        Self::push_lines(text, FROM_PLAYER, &message[..end]);
        if end < message.len() {
            text.push_str(NOTE);
            text.push_str(&format!(
                "harness: {} more bytes of this message not kept\n",
                message.len() - end
            ));
        }
    }
}

impl Channel for Recorder<'_> {
    fn send(&mut self, text: &str) -> Result<(), Fault> {
        if self.judge {
            Self::push_lines(&mut self.text, TO_PLAYER, text);
        }
        self.inner.send(text)
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        let line = self.inner.recv()?;
        self.last_answer = self.text.len();
        Self::keep_line(&mut self.text, line);
        Ok(line)
    }

    fn recv_or(
        &mut self,
        other: std::os::fd::BorrowedFd<'_>,
        writable: bool,
    ) -> Result<Heard<'_>, Fault> {
        let heard = self.inner.recv_or(other, writable)?;
        if let Heard::Line(line) = heard {
            self.last_answer = self.text.len();
            Self::keep_line(&mut self.text, line);
        }
        Ok(heard)
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        let answer = self.inner.recv_to_end()?;
        self.last_answer = self.text.len();
        Self::keep(&mut self.text, answer);
        Ok(answer)
    }

    fn start_on(
        &mut self,
        stdin: std::os::fd::OwnedFd,
        stdout: std::os::fd::OwnedFd,
    ) -> Result<(), Fault> {
        self.inner.start_on(stdin, stdout)
    }

    fn restart(&mut self) -> Result<(), Fault> {
        self.inner.restart()?;
        self.starts += 1;
        if self.starts == 2 {
            // The first start's section begins where its game did: before every line.
            let at = if is_compact(&self.text) {
                COMPACT_HEADER.len()
            } else {
                0
            };
            self.text.insert_str(at, &start_header(1));
            self.last_answer += start_header(1).len();
        }
        self.text.push_str(&start_header(self.starts));
        Ok(())
    }

    fn wait_player(
        &mut self,
        other: Option<std::os::fd::BorrowedFd<'_>>,
        deadline: std::time::Instant,
    ) -> Result<crate::problem::Waited, Fault> {
        self.inner.wait_player(other, deadline)
    }

    fn understood(&mut self, canonical: &str) {
        self.text.truncate(self.last_answer);
        self.text.push_str(FROM_PLAYER);
        self.text.push_str(canonical);
        self.text.push('\n');
        self.inner.understood(canonical);
    }
}

/// The player's lines of a transcript, in order.
pub fn answers(transcript: &str) -> Vec<String> {
    transcript
        .lines()
        .filter_map(|l| l.strip_prefix(FROM_PLAYER).or((l == "<").then_some("")))
        .map(str::to_string)
        .collect()
}

/// A player that gives recorded answers in order, then closes its output: a game played
/// again from its transcript.
pub(crate) struct Replayed {
    answers: std::vec::IntoIter<String>,
    reply: String,
}

impl Replayed {
    pub fn new(answers: Vec<String>) -> Replayed {
        Replayed {
            answers: answers.into_iter(),
            reply: String::new(),
        }
    }
}

impl Channel for Replayed {
    fn send(&mut self, _text: &str) -> Result<(), Fault> {
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        self.reply = self.answers.next().ok_or(Fault::Eof)?;
        Ok(&self.reply)
    }

    /// The next recorded answer (an exact answer is one message), or nothing.
    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        self.reply = self.answers.next().unwrap_or_default();
        Ok(&self.reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::scripted;
    use crate::verdict::Verdict;

    #[test]
    fn records_both_directions_and_reads_the_answers_back() {
        let mut player = scripted(&["0 1", "", "2 3"]);
        let mut rec = Recorder::new(&mut player);
        rec.send("3 3 1\nabc\n").unwrap();
        assert_eq!(rec.recv().unwrap(), "0 1");
        rec.send("x\n").unwrap();
        assert_eq!(rec.recv().unwrap(), "");
        assert_eq!(rec.recv().unwrap(), "2 3");
        assert!(rec.recv().is_err());
        assert_eq!(rec.text, "> 3 3 1\n> abc\n< 0 1\n> x\n< \n< 2 3\n");
        assert_eq!(answers(&rec.text), ["0 1", "", "2 3"]);
    }

    #[test]
    fn a_compact_recorder_keeps_the_header_and_the_player_lines() {
        let mut player = scripted(&["0 1", "", "2 3"]);
        let mut rec = Recorder::compact(&mut player);
        rec.send("3 3 1\nabc\n").unwrap();
        assert_eq!(rec.recv().unwrap(), "0 1");
        rec.send("x\n").unwrap();
        assert_eq!(rec.recv().unwrap(), "");
        assert_eq!(rec.recv().unwrap(), "2 3");
        assert_eq!(rec.text, format!("{COMPACT_HEADER}< 0 1\n< \n< 2 3\n"));
        assert!(is_compact(&rec.text));
        assert_eq!(answers(&rec.text), ["0 1", "", "2 3"]);
    }

    /// A player that can be started again: another channel, restarted in place.
    struct Restartable<'a>(&'a mut dyn Channel);

    impl Channel for Restartable<'_> {
        fn send(&mut self, text: &str) -> Result<(), Fault> {
            self.0.send(text)
        }
        fn recv(&mut self) -> Result<&str, Fault> {
            self.0.recv()
        }
        fn recv_to_end(&mut self) -> Result<&str, Fault> {
            self.0.recv_to_end()
        }
        fn restart(&mut self) -> Result<(), Fault> {
            Ok(())
        }
    }

    #[test]
    fn each_start_of_the_player_gets_a_section_and_the_answers_read_through_them() {
        for compact in [false, true] {
            let mut inner = scripted(&["4", "6", "8"]);
            let mut player = Restartable(&mut inner);
            let mut rec = if compact {
                Recorder::compact(&mut player)
            } else {
                Recorder::new(&mut player)
            };
            rec.send("2\n").unwrap();
            assert_eq!(rec.recv().unwrap(), "4");
            rec.restart().unwrap();
            rec.send("3\n").unwrap();
            assert_eq!(rec.recv().unwrap(), "6");
            rec.restart().unwrap();
            assert_eq!(rec.recv().unwrap(), "8");
            let want = if compact {
                format!("{COMPACT_HEADER}# start 1 of the player\n< 4\n# start 2 of the player\n< 6\n# start 3 of the player\n< 8\n")
            } else {
                "# start 1 of the player\n> 2\n< 4\n# start 2 of the player\n> 3\n< 6\n# start 3 of the player\n< 8\n".to_string()
            };
            assert_eq!(rec.text, want);
            assert_eq!(answers(&rec.text), ["4", "6", "8"]);
        }
        // A player that cannot be started again: no section is written.
        let mut player = scripted(&["4"]);
        let mut rec = Recorder::new(&mut player);
        rec.send("2\n").unwrap();
        rec.recv().unwrap();
        assert!(rec.restart().is_err());
        assert_eq!(rec.text, "> 2\n< 4\n");
    }

    #[test]
    fn keep_says_which_verdicts_keep_a_transcript() {
        for keep in [Keep::None, Keep::Failed, Keep::All] {
            assert_eq!(Keep::parse(&keep.name()), Some(keep));
        }
        assert!(!Keep::None.keeps(Verdict::WrongAnswer));
        assert!(!Keep::Failed.keeps(Verdict::Ok));
        assert!(Keep::Failed.keeps(Verdict::TimeLimit));
        assert!(Keep::All.keeps(Verdict::Ok));
    }
}
