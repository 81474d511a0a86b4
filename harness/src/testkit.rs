//! In-memory players: no processes, no clocks.
//!
//! Used by the tests only: the module exists in test builds and with the `testkit` feature
//! (which the integration tests turn on through a dev-dependency), never in a normal build,
//! so production code cannot use it.

use crate::problem::Channel;
use crate::verdict::Fault;

/// A player written as a function: it is given everything the judge sent since its last
/// answer and returns its next line (without newline), or `None` to close its output.
pub struct FnPlayer<F> {
    answer: F,
    inbox: String,
    reply: String,
    /// Everything the judge sent, in order.
    pub transcript: String,
    /// Whether the judge closed the player's input.
    pub closed: bool,
}

impl<F: FnMut(&str) -> Option<String>> FnPlayer<F> {
    pub fn new(answer: F) -> Self {
        FnPlayer {
            answer,
            inbox: String::new(),
            reply: String::new(),
            transcript: String::new(),
            closed: false,
        }
    }
}

impl<F: FnMut(&str) -> Option<String>> Channel for FnPlayer<F> {
    fn send(&mut self, text: &str) -> Result<(), Fault> {
        self.inbox.push_str(text);
        self.transcript.push_str(text);
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        let inbox = std::mem::take(&mut self.inbox);
        match (self.answer)(&inbox) {
            Some(line) => {
                self.reply = line;
                Ok(&self.reply)
            }
            None => Err(Fault::Eof),
        }
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        self.closed = true;
        let inbox = std::mem::take(&mut self.inbox);
        self.reply = (self.answer)(&inbox).unwrap_or_default();
        Ok(&self.reply)
    }
}

/// A player that answers with fixed lines in order, then closes its output.
pub fn scripted(lines: &[&str]) -> FnPlayer<impl FnMut(&str) -> Option<String>> {
    let mut lines: std::collections::VecDeque<String> =
        lines.iter().map(|s| s.to_string()).collect();
    FnPlayer::new(move |_| lines.pop_front())
}
