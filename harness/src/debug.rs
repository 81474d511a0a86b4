//! Debugging one test: what a player receives first (`harness gen --view player`), and the
//! live view of a `--verbose` run (the messages as they pass, the player's stderr as it
//! writes it), and the line under a failure naming its stderr log, transcript and replay.
//!
//! The live view is switched on once for the whole process ([`watch`]); the runner and the
//! session ask [`watching`] and hand this module what passes. Everything goes to stderr; no
//! file is touched here.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::problem::{Channel, Game, Heard};
use crate::transcript::{FROM_PLAYER, TO_PLAYER};
use crate::verdict::Fault;

static WATCH: AtomicBool = AtomicBool::new(false);

/// A player's stderr bytes since its last newline (shown when the line ends, or at the end).
static PARTIAL: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// Marks a line the player wrote to its stderr in the live view.
pub(crate) const STDERR: &str = "[stderr] ";

/// Turns the live view on (a `--verbose` run: one player, one test).
pub fn watch() {
    WATCH.store(true, Ordering::Relaxed);
}

/// Whether the live view is on.
pub fn watching() -> bool {
    WATCH.load(Ordering::Relaxed)
}

/// Shows what the player just wrote to its stderr, line by line as lines complete.
pub(crate) fn stderr_chunk(bytes: &[u8]) {
    let mut partial = PARTIAL.lock().unwrap_or_else(|e| e.into_inner());
    partial.extend_from_slice(bytes);
    let Some(end) = partial.iter().rposition(|&b| b == b'\n') else {
        return;
    };
    let complete: Vec<u8> = partial.drain(..=end).collect();
    let mut err = std::io::stderr().lock();
    for line in String::from_utf8_lossy(&complete).lines() {
        let _ = writeln!(err, "{STDERR}{line}");
    }
}

/// Shows the rest of the player's stderr when its test ends (a last line without newline).
pub(crate) fn stderr_end() {
    let mut partial = PARTIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !partial.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "{STDERR}{} (no newline)",
            String::from_utf8_lossy(&partial)
        );
        partial.clear();
    }
}

/// A channel that shows every message as it passes: `> ` judge to player, `< ` player to
/// judge (the transcript's marks), on stderr.
pub(crate) struct Tee<'a> {
    inner: &'a mut dyn Channel,
}

impl<'a> Tee<'a> {
    pub fn new(inner: &'a mut dyn Channel) -> Self {
        Tee { inner }
    }

    fn show(marker: &str, text: &str) {
        let mut err = std::io::stderr().lock();
        for line in text.lines() {
            let _ = writeln!(err, "{marker}{line}");
        }
    }
}

impl Channel for Tee<'_> {
    fn send(&mut self, text: &str) -> Result<(), Fault> {
        Self::show(TO_PLAYER, text);
        self.inner.send(text)
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        match self.inner.recv() {
            Ok(line) => {
                Self::show(FROM_PLAYER, if line.is_empty() { " " } else { line });
                Ok(line)
            }
            Err(fault) => {
                let _ = writeln!(std::io::stderr(), "# {fault}");
                Err(fault)
            }
        }
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        let answer = self.inner.recv_to_end()?;
        Self::show(FROM_PLAYER, answer);
        Ok(answer)
    }

    fn recv_or(
        &mut self,
        other: std::os::fd::BorrowedFd<'_>,
        writable: bool,
    ) -> Result<Heard<'_>, Fault> {
        match self.inner.recv_or(other, writable) {
            Ok(Heard::Line(line)) => {
                Self::show(FROM_PLAYER, if line.is_empty() { " " } else { line });
                Ok(Heard::Line(line))
            }
            Ok(Heard::Other) => Ok(Heard::Other),
            // With another program judging, the end of the player's output is no fault of
            // itself: that program says what it makes of it.
            Err(Fault::Eof) => {
                let _ = writeln!(std::io::stderr(), "# the player closed its output");
                Err(Fault::Eof)
            }
            Err(fault) => {
                let _ = writeln!(std::io::stderr(), "# {fault}");
                Err(fault)
            }
        }
    }

    fn start_on(
        &mut self,
        stdin: std::os::fd::OwnedFd,
        stdout: std::os::fd::OwnedFd,
    ) -> Result<(), Fault> {
        let _ = writeln!(
            std::io::stderr(),
            "# relay = \"direct\": the player talks to the tool on the tool's own pipes; no line passes the harness"
        );
        self.inner.start_on(stdin, stdout)
    }

    fn wait_player(
        &mut self,
        other: Option<std::os::fd::BorrowedFd<'_>>,
        deadline: std::time::Instant,
    ) -> Result<crate::problem::Waited, Fault> {
        self.inner.wait_player(other, deadline)
    }

    fn restart(&mut self) -> Result<(), Fault> {
        let _ = writeln!(
            std::io::stderr(),
            "# the tester starts the player again (max-starts in problem.toml)"
        );
        self.inner.restart()
    }

    fn understood(&mut self, canonical: &str) {
        self.inner.understood(canonical);
    }
}

/// A channel that keeps what the judge sends until it first waits for the player, then ends
/// the game (the player has closed its output).
struct FirstMessage {
    text: String,
}

impl Channel for FirstMessage {
    fn send(&mut self, text: &str) -> Result<(), Fault> {
        self.text.push_str(text);
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        Err(Fault::Eof)
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        Err(Fault::Eof)
    }
}

/// Exactly what a player of this test reads before its first answer (`gen --view player`):
/// for an interactive problem its first message, for an exact-answer problem its input.
pub(crate) fn first_message(game: &mut dyn Game) -> String {
    let mut channel = FirstMessage {
        text: String::new(),
    };
    game.play(&mut channel);
    channel.text
}

/// The line under a failure: where to look next. The stderr log when the player wrote any,
/// the transcript when there is one, and the command of its replay page (naming the run by
/// its folder, which works with any `--results`) when the problem has replays.
pub(crate) fn failure_pointers(
    run: &Path,
    problem: &str,
    player: &str,
    case: &str,
    wrote_stderr: bool,
    has_transcript: bool,
) -> String {
    let mut parts = Vec::new();
    if wrote_stderr {
        let log = run
            .join("logs")
            .join(problem)
            .join(player)
            .join(format!("{case}.stderr"));
        parts.push(format!("stderr {}", log.display()));
    }
    if has_transcript {
        let path = crate::rundir::transcript_path(run, problem, player, case);
        parts.push(format!("transcript {}", path.display()));
    }
    if crate::problem::has_views(problem) {
        parts.push(format!(
            "replay: {} replay {} --player {player} --seed {case}",
            crate::invocation::program(),
            run.display()
        ));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!("  {}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{CaseKey, Env};

    fn env() -> Env {
        Env {
            testcases: Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases"),
            config: crate::config::Scoring::default().problem("chesspuzzle"),
            secret: None,
        }
    }

    #[test]
    fn the_first_message_is_what_the_generator_shows_a_player() {
        // ChessPuzzle: `H W K` and the top tiles, as `gen` prints them in its first lines.
        let p = crate::problem::by_id("chesspuzzle").unwrap();
        let mut game = p.case(&CaseKey::Seed(5), &env()).unwrap();
        let full = game.describe();
        let first = first_message(game.as_mut());
        let header: Vec<usize> = first
            .lines()
            .next()
            .unwrap()
            .split(' ')
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(first.lines().count(), 1 + header[0], "{first}");
        assert!(
            first.lines().skip(1).all(|l| l.len() == header[1]),
            "{first}"
        );
        assert_ne!(first, full, "the full input shows every layer");
        // An exact-answer problem: the whole input.
        let p = crate::problem::by_id("game-ending").unwrap();
        let mut game = p.case(&CaseKey::Seed(5), &env()).unwrap();
        let full = game.describe();
        assert_eq!(first_message(game.as_mut()), full);
    }
}
