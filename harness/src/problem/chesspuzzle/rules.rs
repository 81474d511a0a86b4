//! The rules of ChessPuzzle (see the [module](super) for the game): tiles and their targets,
//! the board, the checked click [`Puzzle::try_click`], reading a click, and the text form of
//! a board. Pure: no channel, no files.

use std::fmt;
use std::str::FromStr;

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::problem::tokens;
use crate::verdict::quote;

/// Smallest and largest board side, and stack height, from the statement.
pub const MIN_SIDE: usize = 6;
pub const MAX_SIDE: usize = 15;
pub const MAX_K: usize = 10;

/// A tile type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tile {
    /// Steps 1..=4 along a row, column or diagonal.
    Step(u8),
    Knight,
    Bishop,
    Rook,
    Queen,
}

impl Tile {
    /// The 8 tile types, in the statement's order.
    pub const ALL: [Tile; 8] = [
        Tile::Step(1),
        Tile::Step(2),
        Tile::Step(3),
        Tile::Step(4),
        Tile::Knight,
        Tile::Bishop,
        Tile::Rook,
        Tile::Queen,
    ];

    pub fn from_char(c: char) -> Option<Tile> {
        Some(match c {
            '1'..='4' => Tile::Step(c as u8 - b'0'),
            'K' => Tile::Knight,
            'B' => Tile::Bishop,
            'R' => Tile::Rook,
            'Q' => Tile::Queen,
            _ => return None,
        })
    }

    pub fn to_char(self) -> char {
        match self {
            Tile::Step(n) => (b'0' + n) as char,
            Tile::Knight => 'K',
            Tile::Bishop => 'B',
            Tile::Rook => 'R',
            Tile::Queen => 'Q',
        }
    }
}

const ORTHOGONAL: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];
const DIAGONAL: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];
const KNIGHT: [(i32, i32); 8] = [
    (-2, -1),
    (-2, 1),
    (-1, -2),
    (-1, 2),
    (1, -2),
    (1, 2),
    (2, -1),
    (2, 1),
];

/// A cell, (row, column), 0-based from the top left.
pub type Cell = (usize, usize);

/// The cells that may be clicked next: at most 8 for every tile type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Targets {
    cells: [Cell; 8],
    len: usize,
}

impl Targets {
    fn push(&mut self, cell: Cell) {
        self.cells[self.len] = cell;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[Cell] {
        &self.cells[..self.len]
    }

    pub fn contains(&self, cell: Cell) -> bool {
        self.as_slice().contains(&cell)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

/// A board position: every stack with the tiles still on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub height: usize,
    pub width: usize,
    /// Tiles per stack at the start.
    pub k: usize,
    /// `stacks[r * width + c]`: the tiles of the stack from the top down (all K at the start).
    stacks: Vec<Vec<Tile>>,
    /// Tiles already removed from each stack (a parsed board may have any K).
    removed: Vec<usize>,
}

/// A board of no cells (what is left in a place a board was taken from).
impl Default for Board {
    fn default() -> Board {
        Board {
            height: 0,
            width: 0,
            k: 0,
            stacks: Vec::new(),
            removed: Vec::new(),
        }
    }
}

impl Board {
    /// Builds a board from its layers: `layers[i][r][c]` is the i-th tile from the top.
    pub fn from_layers(layers: &[Vec<Vec<Tile>>]) -> Result<Board, String> {
        let k = layers.len();
        let height = layers.first().map_or(0, Vec::len);
        let width = layers.first().and_then(|l| l.first()).map_or(0, Vec::len);
        if k == 0 || height == 0 || width == 0 {
            return Err("a board needs at least one layer, row and column".into());
        }
        let mut stacks = vec![Vec::with_capacity(k); height * width];
        for (i, layer) in layers.iter().enumerate() {
            if layer.len() != height || layer.iter().any(|row| row.len() != width) {
                return Err(format!("layer {i} is not {height} x {width}"));
            }
            for (r, row) in layer.iter().enumerate() {
                for (c, &tile) in row.iter().enumerate() {
                    stacks[r * width + c].push(tile);
                }
            }
        }
        Ok(Board {
            height,
            width,
            k,
            stacks,
            removed: vec![0; height * width],
        })
    }

    /// Generates a board from a test's stream ([`super::Env::stream`]): H, W, K uniform in their ranges, then every tile
    /// uniform and independent, row by row, each stack from the top down.
    pub fn generate(mut rng: Xoshiro256PlusPlus) -> Board {
        let height = rng.random_range(MIN_SIDE..=MAX_SIDE);
        let width = rng.random_range(MIN_SIDE..=MAX_SIDE);
        let k = rng.random_range(1..=MAX_K);
        let stacks = (0..height * width)
            .map(|_| (0..k).map(|_| Tile::ALL[rng.random_range(0..8)]).collect())
            .collect();
        Board {
            height,
            width,
            k,
            stacks,
            removed: vec![0; height * width],
        }
    }

    /// The visible tile of a cell, or `None` when its stack is empty.
    pub fn top(&self, (r, c): Cell) -> Option<Tile> {
        let i = r * self.width + c;
        self.stacks[i].get(self.removed[i]).copied()
    }

    pub fn is_empty(&self, cell: Cell) -> bool {
        self.top(cell).is_none()
    }

    /// Tiles left on a cell.
    pub fn remaining(&self, (r, c): Cell) -> usize {
        let i = r * self.width + c;
        self.stacks[i].len() - self.removed[i]
    }

    /// Removes and returns the top tile of a cell (`None`, and no change, when it is empty).
    pub fn click(&mut self, cell: Cell) -> Option<Tile> {
        let tile = self.top(cell)?;
        self.removed[cell.0 * self.width + cell.1] += 1;
        Some(tile)
    }

    fn offset(&self, (r, c): Cell, dr: i32, dc: i32) -> Option<Cell> {
        let (nr, nc) = (r as i32 + dr, c as i32 + dc);
        (nr >= 0 && nc >= 0 && (nr as usize) < self.height && (nc as usize) < self.width)
            .then_some((nr as usize, nc as usize))
    }

    /// The cells that may be clicked after `tile` was removed from `from`: never `from`
    /// itself, never an empty cell, never off the board. Bishops, rooks and queens reach only
    /// the edge cell in each of their directions, and only when it is not empty.
    pub fn targets(&self, from: Cell, tile: Tile) -> Targets {
        let mut out = Targets::default();
        let mut add = |board: &Board, cell: Option<Cell>| {
            if let Some(cell) = cell {
                if cell != from && !board.is_empty(cell) {
                    out.push(cell);
                }
            }
        };
        let slide_to_edge = |dr: i32, dc: i32| {
            let mut cell = from;
            while let Some(next) = self.offset(cell, dr, dc) {
                cell = next;
            }
            (cell != from).then_some(cell)
        };
        match tile {
            Tile::Step(n) => {
                let n = n as i32;
                for (dr, dc) in ORTHOGONAL.iter().chain(&DIAGONAL) {
                    add(self, self.offset(from, dr * n, dc * n));
                }
            }
            Tile::Knight => {
                for (dr, dc) in KNIGHT {
                    add(self, self.offset(from, dr, dc));
                }
            }
            Tile::Bishop | Tile::Rook | Tile::Queen => {
                let dirs: &[(i32, i32)] = match tile {
                    Tile::Bishop => &DIAGONAL,
                    Tile::Rook => &ORTHOGONAL,
                    _ => &[
                        (-1, 0),
                        (1, 0),
                        (0, -1),
                        (0, 1),
                        (-1, -1),
                        (-1, 1),
                        (1, -1),
                        (1, 1),
                    ],
                };
                for &(dr, dc) in dirs {
                    add(self, slide_to_edge(dr, dc));
                }
            }
        }
        out
    }

    /// Total tiles at the start: the score's denominator.
    pub fn total_tiles(&self) -> usize {
        self.height * self.width * self.k
    }

    /// What the player is shown at the start: `H W K` and the rows of top tiles.
    pub fn player_view(&self) -> String {
        let mut s = format!("{} {} {}\n", self.height, self.width, self.k);
        for r in 0..self.height {
            for c in 0..self.width {
                s.push(self.top((r, c)).map_or('-', Tile::to_char));
            }
            s.push('\n');
        }
        s
    }
}

/// Why a click is not allowed (the checked click of [`Puzzle::try_click`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalClick {
    /// The cell is not one of the targets of the last click (`allowed` lists them).
    #[error("({}, {}) is not allowed; allowed: {allowed}", .cell.0, .cell.1)]
    NotAllowed { cell: Cell, allowed: String },
    /// The cell has no tile left (only a first click can name one: later targets never do).
    #[error("cell is empty")]
    Empty(Cell),
}

/// A game in progress: the board and the cells the next click may take. The judge, the
/// terminal board of `harness play` and the replay frames all click through
/// [`Puzzle::try_click`].
#[derive(Clone, Debug)]
pub struct Puzzle {
    pub board: Board,
    /// The targets of the last click; `None` before the first click (any non-empty cell).
    allowed: Option<Targets>,
}

impl Puzzle {
    pub fn new(board: Board) -> Puzzle {
        Puzzle {
            board,
            allowed: None,
        }
    }

    /// The cells the next click may take; `None` before the first click, when any cell with
    /// a tile may be clicked.
    pub fn allowed(&self) -> Option<&[Cell]> {
        self.allowed.as_ref().map(Targets::as_slice)
    }

    /// Whether no cell may be clicked any more (the game is over).
    pub fn is_over(&self) -> bool {
        self.allowed.as_ref().is_some_and(Targets::is_empty)
    }

    /// Clicks a cell if the rules allow it: removes its top tile, which is returned, and makes
    /// that tile's targets the cells allowed next. A refused click changes nothing.
    pub fn try_click(&mut self, cell: Cell) -> Result<Tile, IllegalClick> {
        if let Some(targets) = &self.allowed {
            if !targets.contains(cell) {
                return Err(IllegalClick::NotAllowed {
                    cell,
                    allowed: describe_cells(targets.as_slice()),
                });
            }
        }
        let tile = self.board.click(cell).ok_or(IllegalClick::Empty(cell))?;
        self.allowed = Some(self.board.targets(cell, tile));
        Ok(tile)
    }
}

/// The full board: `H W K`, then K layers of H rows each (top layer first), a blank line
/// before each layer. Parsing it gives the board back.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {} {}", self.height, self.width, self.k)?;
        for layer in 0..self.k {
            writeln!(f)?;
            for r in 0..self.height {
                let row: String = (0..self.width)
                    .map(|c| self.stacks[r * self.width + c][layer].to_char())
                    .collect();
                writeln!(f, "{row}")?;
            }
        }
        Ok(())
    }
}

impl FromStr for Board {
    type Err = String;

    fn from_str(text: &str) -> Result<Board, String> {
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let header = lines.next().ok_or("empty board")?;
        let dims: Vec<usize> = header
            .split_whitespace()
            .map(|t| t.parse().map_err(|_| format!("bad header {header:?}")))
            .collect::<Result<_, _>>()?;
        let [h, w, k] = dims[..] else {
            return Err(format!("header {header:?} is not `H W K`"));
        };
        // Capacities are capped: a wrong header must give an error, not a huge allocation.
        let mut layers = Vec::with_capacity(k.min(MAX_K));
        for i in 0..k {
            let mut layer = Vec::with_capacity(h.min(MAX_SIDE));
            for r in 0..h {
                let line = lines.next().ok_or(format!("layer {i} has no row {r}"))?;
                let row: Vec<Tile> = line
                    .chars()
                    .map(|ch| Tile::from_char(ch).ok_or(format!("bad tile {ch:?} in {line:?}")))
                    .collect::<Result<_, _>>()?;
                if row.len() != w {
                    return Err(format!("row {line:?} is not {w} tiles wide"));
                }
                layer.push(row);
            }
            layers.push(layer);
        }
        if let Some(extra) = lines.next() {
            return Err(format!("unexpected line after the last layer: {extra:?}"));
        }
        Board::from_layers(&layers)
    }
}

/// The longest click line accepted, in bytes: `ROW COL` needs at most 5; the rest is room
/// for white space and zero padding. A longer line is a protocol error.
pub(crate) const MAX_CLICK_LINE: usize = 32;

/// Parses a click `ROW COL`: exactly two decimal numbers inside the board, digits only (no
/// sign; leading zeros are allowed: `07` is 7), separated by ASCII spaces or tabs, with
/// spaces and tabs around the click ignored.
pub fn parse_click(line: &str, board: &Board) -> Result<Cell, String> {
    let mut tokens = tokens(line);
    let (Some(r), Some(c), None) = (tokens.next(), tokens.next(), tokens.next()) else {
        return Err(format!("expected `ROW COL`, got {}", quote(line)));
    };
    let number = |t: &str, what: &str, bound: usize| -> Result<usize, String> {
        if !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "{what} {} is not a number (digits only; in {})",
                quote(t),
                quote(line)
            ));
        }
        // All digits: the only way to fail parsing is a number too big for usize, which is
        // off the board like any other large number (leading zeros are still a number).
        match t.parse::<usize>() {
            Ok(v) if v < bound => Ok(v),
            _ => Err(format!(
                "{what} {} is off the board ({})",
                t.trim_start_matches('0'),
                match bound {
                    1 => format!("only {what} 0"),
                    _ => format!("{what}s 0 to {}", bound - 1),
                }
            )),
        }
    };
    Ok((
        number(r, "row", board.height)?,
        number(c, "column", board.width)?,
    ))
}

fn describe_cells(cells: &[Cell]) -> String {
    let list: Vec<String> = cells.iter().map(|(r, c)| format!("({r}, {c})")).collect();
    list.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One row of three single tiles: `1 2 1`.
    fn row() -> Board {
        let layer = vec![vec![Tile::Step(1), Tile::Step(2), Tile::Step(1)]];
        Board::from_layers(&[layer]).unwrap()
    }

    #[test]
    fn a_refused_click_changes_nothing_and_an_allowed_one_moves_on() {
        let mut puzzle = Puzzle::new(row());
        assert_eq!(puzzle.allowed(), None);
        assert_eq!(puzzle.try_click((0, 0)), Ok(Tile::Step(1)));
        // A one-step tile at the left end reaches only its right neighbour.
        assert_eq!(puzzle.allowed(), Some(&[(0, 1)][..]));
        let refused = puzzle.try_click((0, 2)).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "(0, 2) is not allowed; allowed: (0, 1)"
        );
        assert_eq!(puzzle.board.top((0, 2)), Some(Tile::Step(1)));
        assert_eq!(puzzle.allowed(), Some(&[(0, 1)][..]));
        assert!(!puzzle.is_over());
        // Two steps from the middle of three cells leave the row: the game is over.
        assert_eq!(puzzle.try_click((0, 1)), Ok(Tile::Step(2)));
        assert!(puzzle.is_over());
    }

    #[test]
    fn a_first_click_on_an_empty_cell_is_refused() {
        let mut board = row();
        board.click((0, 2));
        let mut puzzle = Puzzle::new(board);
        assert_eq!(puzzle.try_click((0, 2)), Err(IllegalClick::Empty((0, 2))));
        assert_eq!(puzzle.allowed(), None);
    }
}
