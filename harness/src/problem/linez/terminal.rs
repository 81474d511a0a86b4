//! The terminal view of Linez: the board in colour with row letters and column digits,
//! `nextThree`, the score. Each move is first played by the judge
//! ([`LinezGame::try_turn`]): a refused move is reported with the judge's own reason and the game goes on; an accepted
//! one gives the exact points, landings included. Typing one cell (`C5`) marks where its
//! number can go.

use super::{parse_move, Cell, LinezGame, SIDE};
use crate::problem::views::{paint, TerminalView};

pub(super) struct LinezView {
    game: LinezGame,
    score: f64,
    moves: u64,
    /// Cells marked as reachable (after the player typed one cell).
    marked: u128,
    picked: Option<Cell>,
    last: Option<(Cell, Cell)>,
}

/// Background colours close to the Okabe-Ito palette of the replays (256-colour codes).
const BG: [u8; 8] = [0, 214, 117, 36, 227, 25, 166, 175];
const FG: [&str; 8] = ["", "30", "30", "97", "30", "97", "97", "30"];

impl LinezView {
    pub(super) fn new(game: LinezGame) -> Self {
        LinezView {
            game,
            score: 0.0,
            moves: 0,
            marked: 0,
            picked: None,
            last: None,
        }
    }
}

impl TerminalView for LinezView {
    fn render(&self, colour: bool) -> String {
        let board = &self.game.board;
        let mut s = String::from("    1  2  3  4  5  6  7  8  9\n");
        for r in 0..SIDE {
            s.push_str(&format!(" {} ", (b'A' + r as u8) as char));
            for c in 0..SIDE {
                let cell = Cell::new(r, c);
                let n = board.get(cell) as usize;
                let reach = self.marked >> cell.index() & 1 == 1;
                let moved = self.last.is_some_and(|(_, to)| to == cell);
                let text = match (n, reach) {
                    (0, true) => " * ".to_string(),
                    (0, false) => " · ".to_string(),
                    (n, _) if moved || self.picked == Some(cell) => format!("[{n}]"),
                    (n, _) => format!(" {n} "),
                };
                s.push_str(&match (n, reach) {
                    (0, true) => paint(colour, "1;32", &text),
                    (0, false) => paint(colour, "90", &text),
                    (n, _) => paint(colour, &format!("1;{};48;5;{}", FG[n], BG[n]), &text),
                });
            }
            s.push('\n');
        }
        let next: Vec<String> = self
            .game
            .next_three
            .iter()
            .map(|&n| {
                paint(
                    colour,
                    &format!("1;{};48;5;{}", FG[n as usize], BG[n as usize]),
                    &format!(" {n} "),
                )
            })
            .collect();
        s.push_str(&format!(
            "nextThree {}   moves {}   score {}\n",
            next.join(" "),
            self.moves,
            self.score
        ));
        if let Some(from) = self.picked {
            s.push_str(&format!(
                "{from} can move to the cells marked * ({} of them)\n",
                self.marked.count_ones()
            ));
        }
        s
    }

    fn check(&mut self, line: &str) -> Result<Option<String>, String> {
        // The judge reads capitals only: the same rule here, so that play teaches the wire.
        if line.bytes().any(|b| b.is_ascii_lowercase()) {
            return Err(format!(
                "cells are written in capitals, as the judge reads them (`{}`)",
                line.to_ascii_uppercase()
            ));
        }
        self.marked = 0;
        self.picked = None;
        if line.trim().len() == 2 {
            let cell = Cell::parse(line.trim())?;
            if self.game.board.get(cell) == 0 {
                return Err(format!("{cell} is empty: pick a cell with a number"));
            }
            self.marked = self.game.board.reachable_from(cell);
            self.picked = Some(cell);
            return Ok(None);
        }
        let (from, to) = parse_move(line)?;
        let points = self.game.try_turn(line).map_err(|reason| {
            // The judge's own reason, without its `move N ...:` prefix.
            reason
                .split_once(": ")
                .map_or(reason.as_str(), |(_, w)| w)
                .to_string()
        })?;
        self.score += points as f64;
        self.moves += 1;
        self.last = Some((from, to));
        Ok(Some(format!("{from}{to}")))
    }

    fn score(&self) -> f64 {
        self.score
    }

    fn help(&self) -> &'static str {
        "move by typing FROM and TO cells, row letter then column digit (e.g. `I8F6`); \
type one cell (e.g. `I8`) to mark where its number can go; `quit` ends the game"
    }
}
