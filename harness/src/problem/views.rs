//! What an interactive problem shows of its games, besides judging them: the board a person
//! plays on in the terminal (`harness play`), the frames of a replay and the replay page's
//! drawing code. Each problem implements [`Views`] in its own folder; `play` and `replay`
//! reach it through [`super::Problem::views`] and never name a problem.
//!
//! Nothing here reads files, prints or starts a process.

use serde_json::Value;

use super::{CaseKey, Env};

/// The views of one interactive problem.
pub trait Views: Sync {
    /// The terminal board of one test, for `harness play`. `Err` says why the test cannot be
    /// shown (a harness fault, such as missing test data).
    fn terminal(&self, key: &CaseKey, env: &Env) -> Result<Box<dyn TerminalView>, String>;
    /// The frames of a replay of one test from the player's recorded answers: one JSON object
    /// per state of the game, drawn by [`Views::page_script`]. A frame that has an `error`
    /// holds no board (the page then draws the last frame that has one).
    fn frames(&self, key: &CaseKey, env: &Env, answers: &[String]) -> Result<Vec<Value>, String>;
    /// The game as the replay page holds it: by default its [`Views::frames`]. A problem
    /// whose games can be long gives a compact record instead (the moves and what the judge
    /// drew), and its page script then defines `expand(data)`, which computes the frames in
    /// the page: a page grows by a few bytes a move, not by a whole frame.
    fn page_data(&self, key: &CaseKey, env: &Env, answers: &[String]) -> Result<Value, String> {
        self.frames(key, env, answers).map(Value::Array)
    }
    /// The replay page's drawing code, JavaScript that defines two functions of a frame `f`
    /// and the last frame with a board `g`: `board(f, g)` returns the board as SVG markup,
    /// `extra(f, g)` a short text shown after the score, and, with a compact
    /// [`Views::page_data`], `expand(data)` returning the frames. It may use the page's
    /// `esc(text)`.
    fn page_script(&self) -> &'static str;
}

/// What the terminal board of a problem knows: how to draw the position and how to check a
/// person's move before it reaches the judge.
pub trait TerminalView {
    /// The judge sent a message (the view may read it, or keep its own state).
    fn on_message(&mut self, _text: &str) {}
    /// The position, the legal targets marked, and the score so far.
    fn render(&self, colour: bool) -> String;
    /// Checks a typed line: `Ok(Some(line))` is a legal move to pass to the judge (the view
    /// has applied it), `Ok(None)` was a request the view answered (e.g. show a cell's
    /// targets), `Err` says why the move is not allowed.
    fn check(&mut self, line: &str) -> Result<Option<String>, String>;
    /// How a move is written.
    fn help(&self) -> &'static str;
    /// The score the moves so far have earned (what a game the person quits keeps).
    fn score(&self) -> f64;
}

/// Wraps text in an ANSI style when colour is on.
pub(crate) fn paint(colour: bool, style: &str, text: &str) -> String {
    if colour {
        format!("\x1b[{style}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    /// Every problem with views keeps the page's contract: its script defines `board` and
    /// `extra` (and `expand` when its page data is not frames), and nothing in it can end the
    /// page's inline `<script>` element.
    #[test]
    fn every_page_script_defines_board_and_extra() {
        let interactive: Vec<_> = crate::problem::all()
            .into_iter()
            .filter(|p| p.views().is_some())
            .collect();
        assert!(!interactive.is_empty());
        for problem in interactive {
            let script = problem.views().expect("filtered").page_script();
            for needed in ["function board(f, g)", "function extra("] {
                assert!(script.contains(needed), "{}: no {needed}", problem.id());
            }
            // A compact page record needs the script that expands it.
            let env = super::Env {
                testcases: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases"),
                config: Default::default(),
                secret: None,
            };
            let views = problem.views().expect("filtered");
            let data = views
                .page_data(&super::CaseKey::Seed(1), &env, &[])
                .unwrap();
            if !data.is_array() {
                assert!(script.contains("function expand(d)"), "{}", problem.id());
            }
            assert!(
                !script.to_ascii_lowercase().contains("</script"),
                "{}",
                problem.id()
            );
        }
    }
}
