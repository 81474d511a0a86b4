//! ChessPuzzle (TopCoder NSA 2 non-US): the judge here, the rules and the generator in
//! `rules.rs` (re-exported), the views in `terminal.rs` (`harness play`), `frames.rs` and
//! `view.js` (replays).
//!
//! A board of H x W stacks of K tiles. A click removes the top tile of a cell; the removed tile
//! says which cells may be clicked next, seen from the clicked cell. The game ends when no cell
//! may be clicked; the score is clicks / (H*W*K), and any invalid click scores 0.
//!
//! Wire protocol: the judge sends `H W K` and the H rows of top tiles; the player answers
//! `ROW COL` (0-based); then each turn the judge sends the tile now on top of the cell just
//! clicked (`-` when it is empty) and the player clicks again. At the end the judge closes the
//! player's input.
//!
//! A click is read strictly (see [`parse_click`]): two decimal numbers, digits only, on a
//! line of at most [`MAX_CLICK_LINE`] bytes; the transcript keeps it as the judge read it
//! (`7 3` for `007 3`).
mod frames;
mod rules;
mod terminal;

pub use rules::*;

use std::fmt::Write as _;

use super::views::{TerminalView, Views};
use super::{CaseError, CaseKey, Channel, Env, Game, Problem};
use crate::verdict::{Fault, Outcome};

/// The ChessPuzzle problem.
pub struct ChessPuzzle;

impl Problem for ChessPuzzle {
    fn id(&self) -> &'static str {
        "chesspuzzle"
    }

    fn title(&self) -> &'static str {
        "ChessPuzzle (TopCoder NSA 2)"
    }

    fn param_names(&self) -> &'static [&'static str] {
        &["H", "W", "K"]
    }

    fn max_line(&self) -> Option<usize> {
        Some(MAX_CLICK_LINE)
    }

    fn groups(&self) -> &'static [&'static str] {
        &["H*W", "K"]
    }

    fn bench_player(&self, key: &CaseKey, env: &Env) -> Option<Box<dyn Channel>> {
        let CaseKey::Seed(seed) = key else {
            return None;
        };
        Some(Box::new(FirstAllowed {
            puzzle: Puzzle::new(Board::generate(env.stream(self.id(), *seed))),
            reply: String::new(),
        }))
    }

    fn case(&self, key: &CaseKey, env: &Env) -> Result<Box<dyn Game>, CaseError> {
        Ok(Box::new(ChessGame {
            board: ChessPuzzle::board(key, env)?,
        }))
    }

    fn views(&self) -> Option<&dyn Views> {
        Some(self)
    }
}

impl ChessPuzzle {
    /// The starting board of a test (only generated tests exist).
    pub fn board(key: &CaseKey, env: &Env) -> Result<Board, CaseError> {
        match key {
            CaseKey::Seed(seed) => Ok(Board::generate(env.stream("chesspuzzle", *seed))),
            CaseKey::Fixed(name) => Err(CaseError::Unknown {
                problem: "chesspuzzle",
                key: name.clone(),
            }),
        }
    }
}

impl Views for ChessPuzzle {
    fn terminal(&self, key: &CaseKey, env: &Env) -> Result<Box<dyn TerminalView>, String> {
        let board = ChessPuzzle::board(key, env).map_err(|e| e.to_string())?;
        Ok(Box::new(terminal::ChessView::new(board)))
    }

    fn frames(
        &self,
        key: &CaseKey,
        env: &Env,
        answers: &[String],
    ) -> Result<Vec<serde_json::Value>, String> {
        let board = ChessPuzzle::board(key, env).map_err(|e| e.to_string())?;
        Ok(frames::frames(board, answers))
    }

    fn page_script(&self) -> &'static str {
        include_str!("view.js")
    }
}

/// For `harness bench`: a player that knows the board and clicks the first allowed cell.
struct FirstAllowed {
    puzzle: Puzzle,
    reply: String,
}

impl Channel for FirstAllowed {
    fn send(&mut self, _text: &str) -> Result<(), Fault> {
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        let cell = match self.puzzle.allowed() {
            None => (0, 0),
            Some(cells) => *cells.first().ok_or(Fault::Eof)?,
        };
        self.puzzle.try_click(cell).map_err(|_| Fault::Eof)?;
        self.reply = format!("{} {}", cell.0, cell.1);
        Ok(&self.reply)
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        Err(Fault::Eof)
    }
}

/// One ChessPuzzle test.
pub struct ChessGame {
    pub board: Board,
}

impl Game for ChessGame {
    fn params(&self) -> Vec<String> {
        vec![
            self.board.height.to_string(),
            self.board.width.to_string(),
            self.board.k.to_string(),
        ]
    }

    fn describe(&self) -> String {
        self.board.to_string()
    }

    fn play(&mut self, player: &mut dyn Channel) -> Outcome {
        play(&mut self.board, player)
    }
}

/// Judges one game on `board` (which is played out in place).
pub fn play(board: &mut Board, player: &mut dyn Channel) -> Outcome {
    // The board moves into the game and back: no copy.
    let mut puzzle = Puzzle::new(std::mem::take(board));
    let outcome = judge(&mut puzzle, player);
    *board = puzzle.board;
    outcome
}

fn judge(puzzle: &mut Puzzle, player: &mut dyn Channel) -> Outcome {
    let mut clicks: u64 = 0;
    let mut message = puzzle.board.player_view();
    let mut canonical = String::new();
    loop {
        if let Err(fault) = player.send(&message) {
            return Outcome::fault(&fault, 0.0, clicks);
        }
        let (cell, padded) = match player.recv() {
            Ok(line) if line.len() > MAX_CLICK_LINE => {
                return Outcome::fault(&Fault::LineTooLong(MAX_CLICK_LINE), 0.0, clicks)
            }
            Ok(line) => match parse_click(line, &puzzle.board) {
                Ok(cell) => {
                    canonical.clear();
                    let _ = write!(canonical, "{} {}", cell.0, cell.1);
                    (cell, canonical != line)
                }
                Err(why) => {
                    return Outcome::wrong(0.0, clicks, format!("click {}: {why}", clicks + 1))
                }
            },
            Err(fault) => return Outcome::fault(&fault, 0.0, clicks),
        };
        if padded {
            player.understood(&canonical);
        }
        if let Err(why) = puzzle.try_click(cell) {
            return Outcome::wrong(0.0, clicks, format!("click {}: {why}", clicks + 1));
        }
        clicks += 1;
        if puzzle.is_over() {
            let total = puzzle.board.total_tiles() as f64;
            return Outcome::ok(clicks as f64 / total, clicks);
        }
        message.clear();
        message.push(puzzle.board.top(cell).map_or('-', Tile::to_char));
        message.push('\n');
    }
}
