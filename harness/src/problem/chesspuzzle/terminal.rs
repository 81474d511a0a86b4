//! The terminal view of ChessPuzzle: the top tiles with their stack heights, the cells that
//! may be clicked next marked, the clicks so far. A click is checked by the rule code
//! (`parse_click`, [`Puzzle::try_click`]) before it reaches the judge.

use super::{parse_click, Board, Cell, IllegalClick, Puzzle};
use crate::problem::views::{paint, TerminalView};

pub(super) struct ChessView {
    puzzle: Puzzle,
    last: Option<Cell>,
    clicks: usize,
}

impl ChessView {
    pub(super) fn new(board: Board) -> Self {
        ChessView {
            puzzle: Puzzle::new(board),
            last: None,
            clicks: 0,
        }
    }

    fn allowed(&self, cell: Cell) -> bool {
        match self.puzzle.allowed() {
            Some(cells) => cells.contains(&cell),
            None => !self.puzzle.board.is_empty(cell),
        }
    }
}

impl TerminalView for ChessView {
    fn render(&self, colour: bool) -> String {
        let b = &self.puzzle.board;
        let mut s = String::from("     ");
        for c in 0..b.width {
            s.push_str(&format!("{c:^5}"));
        }
        s.push('\n');
        for r in 0..b.height {
            s.push_str(&format!("{r:>3}  "));
            for c in 0..b.width {
                let cell = (r, c);
                let text = match b.top(cell) {
                    Some(t) => format!("{}{:<2}", t.to_char(), b.remaining(cell)),
                    None => " · ".to_string(),
                };
                let (mark, style) = if self.last == Some(cell) {
                    ('>', "1;97;41")
                } else if self.puzzle.allowed().is_some() && self.allowed(cell) {
                    ('*', "1;30;102")
                } else if b.is_empty(cell) {
                    (' ', "90")
                } else {
                    (' ', "")
                };
                let text = format!("{mark}{text} ");
                s.push_str(&if style.is_empty() {
                    text
                } else {
                    paint(colour, style, &text)
                });
            }
            s.push('\n');
        }
        let total = b.total_tiles();
        s.push_str(&format!(
            "clicks {} of {} tiles, score {}\n",
            self.clicks,
            total,
            self.clicks as f64 / total as f64
        ));
        match self.puzzle.allowed() {
            None => s.push_str("first click: any cell\n"),
            Some(cells) => {
                let list: Vec<String> = cells.iter().map(|(r, c)| format!("{r} {c}")).collect();
                s.push_str(&format!("allowed next (*): {}\n", list.join(", ")));
            }
        }
        s
    }

    fn check(&mut self, line: &str) -> Result<Option<String>, String> {
        let cell = parse_click(line, &self.puzzle.board)?;
        self.puzzle.try_click(cell).map_err(|why| match why {
            IllegalClick::NotAllowed { cell, .. } => {
                format!("({}, {}) is not one of the cells marked *", cell.0, cell.1)
            }
            IllegalClick::Empty(cell) => format!("({}, {}) is empty", cell.0, cell.1),
        })?;
        self.last = Some(cell);
        self.clicks += 1;
        Ok(Some(format!("{} {}", cell.0, cell.1)))
    }

    fn score(&self) -> f64 {
        self.clicks as f64 / self.puzzle.board.total_tiles() as f64
    }

    fn help(&self) -> &'static str {
        "click a cell by typing `ROW COL` (0-based, e.g. `3 5`); cells marked * may be clicked; \
each cell shows its top tile (1-4 steps, K knight, B bishop, R rook, Q queen) and its stack \
height; `quit` ends the game"
    }
}
