//! The rules of Linez (see the [module](super) for the game): cells, the board, the checked
//! move [`Board::try_move`] with its lines and points, the landing of `nextThree`, and the
//! text forms of a board and a move. Pure: no channel, no files.

use std::fmt;
use std::str::FromStr;

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::problem::trim_blanks;
use crate::verdict::quote;

pub const SIDE: usize = 9;
/// Cells on the board.
pub const CELLS: usize = SIDE * SIDE;
/// Numbers are 1..=COLORS.
pub const COLORS: u8 = 7;
/// Shortest line that is removed.
pub const MIN_LINE: usize = 5;
/// The file of fixed starting positions under `testcases/linez/`.
pub const EXAMPLES_FILE: &str = "examples.txt";
/// The seeds of the statement's examples, whose positions [`EXAMPLES_FILE`] holds: only these
/// need the file (a test keeps the two in step).
pub(crate) const STATEMENT_SEEDS: [u64; 10] = [
    149738788, 1982697456, 2060431272, 1077274560, 825809896, 1911009, 149738789, 1109944003,
    1732993602, 1438702088,
];

/// Most cells one removal can take: the moved cell and 8 more in each of 4 directions.
const MAX_REMOVED: usize = 1 + 4 * (SIDE - 1);

const ALL_CELLS: u128 = (1 << CELLS) - 1;
const FIRST_COLUMN: u128 = column_mask(0);
const LAST_COLUMN: u128 = column_mask(SIDE - 1);
/// Row and column steps of the 4 line directions: row, column, both diagonals.
const DIRECTIONS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

const fn column_mask(col: usize) -> u128 {
    let mut mask = 0;
    let mut row = 0;
    while row < SIDE {
        mask |= 1 << (row * SIDE + col);
        row += 1;
    }
    mask
}

/// The cells next to any cell of `mask`, horizontally or vertically.
fn neighbours(mask: u128) -> u128 {
    ((mask << SIDE) | (mask >> SIDE) | ((mask & !LAST_COLUMN) << 1) | ((mask & !FIRST_COLUMN) >> 1))
        & ALL_CELLS
}

/// A cell of the board, written as on the wire: row letter `A`..`I` from the top, column
/// digit `1`..`9` from the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(u8);

impl Cell {
    /// The cell at 0-based `row` and `col`; both must be below [`SIDE`].
    pub fn new(row: usize, col: usize) -> Cell {
        assert!(
            row < SIDE && col < SIDE,
            "cell ({row}, {col}) is off the board"
        );
        Cell((row * SIDE + col) as u8)
    }

    /// The cell with index `row * 9 + col`.
    pub fn from_index(index: usize) -> Cell {
        assert!(index < CELLS, "cell index {index} is off the board");
        Cell(index as u8)
    }

    pub fn row(self) -> usize {
        self.0 as usize / SIDE
    }

    pub fn col(self) -> usize {
        self.0 as usize % SIDE
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    fn bit(self) -> u128 {
        1 << self.0
    }

    /// The cell `steps` steps away in direction `(dr, dc)`, if it is on the board.
    fn step(self, (dr, dc): (isize, isize), steps: isize) -> Option<Cell> {
        let row = self.row() as isize + dr * steps;
        let col = self.col() as isize + dc * steps;
        let on_board = (0..SIDE as isize).contains(&row) && (0..SIDE as isize).contains(&col);
        on_board.then(|| Cell::new(row as usize, col as usize))
    }

    /// Reads a cell from its two wire characters.
    pub fn parse(text: &str) -> Result<Cell, String> {
        let &[row, col] = text.as_bytes() else {
            return Err(format!("expected a cell like `F6`, got {text:?}"));
        };
        if !(b'A'..=b'I').contains(&row) {
            return Err(format!(
                "row {:?} of cell {text:?} is not a letter A..I",
                row as char
            ));
        }
        if !(b'1'..=b'9').contains(&col) {
            return Err(format!(
                "column {:?} of cell {text:?} is not a digit 1..9",
                col as char
            ));
        }
        Ok(Cell::new((row - b'A') as usize, (col - b'1') as usize))
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'A' + self.row() as u8) as char,
            (b'1' + self.col() as u8) as char
        )
    }
}

/// The longest move line accepted, in bytes: a move is 4; the rest is room for white space.
/// A longer line is a protocol error.
pub(crate) const MAX_MOVE_LINE: usize = 32;

/// Reads a player's answer `FROMTO` (e.g. `I8F6`), ASCII spaces and tabs around it ignored.
pub fn parse_move(line: &str) -> Result<(Cell, Cell), String> {
    let text = trim_blanks(line);
    if text.len() != 4 || !text.is_ascii() {
        return Err(format!(
            "expected 4 characters like `I8F6` (from-cell, to-cell), got {}",
            quote(line)
        ));
    }
    Ok((Cell::parse(&text[..2])?, Cell::parse(&text[2..])?))
}

/// Points for removing `k` cells at once: `10 + k*(k-5)/2`, integer division; 0 when
/// nothing is removed.
pub fn points(k: usize) -> u64 {
    if k == 0 {
        0
    } else {
        10 + (k * (k - MIN_LINE) / 2) as u64
    }
}

/// The cells of every line of 5+ equal numbers through one cell (each cell once).
#[derive(Clone, Copy, Debug)]
pub struct Lines {
    cells: [Cell; MAX_REMOVED],
    len: usize,
}

impl Lines {
    const NONE: Lines = Lines {
        cells: [Cell(0); MAX_REMOVED],
        len: 0,
    };

    pub fn as_slice(&self) -> &[Cell] {
        &self.cells[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn push(&mut self, cell: Cell) {
        self.cells[self.len] = cell;
        self.len += 1;
    }
}

/// Where the numbers of one landing went, in the order they landed, and the points the
/// lines they completed made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Landing {
    cells: [Cell; 3],
    len: usize,
    pub points: u64,
}

impl Default for Landing {
    fn default() -> Self {
        Landing {
            cells: [Cell(0); 3],
            len: 0,
            points: 0,
        }
    }
}

impl Landing {
    /// The cells, in order: one per number of `nextThree` that found an empty cell.
    pub fn cells(&self) -> &[Cell] {
        &self.cells[..self.len]
    }
}

/// What a move or a landing removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Removal {
    /// Cells removed (k); 0 when no line was made.
    pub removed: usize,
    /// Points scored: [`points`] of `removed`.
    pub points: u64,
}

/// Why a move is not allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    #[error("there is no number on {0} to move")]
    EmptySource(Cell),
    #[error("{0} is not empty (it holds {1})")]
    OccupiedTarget(Cell, u8),
    #[error("{0} is both the cell to move from and the cell to move to")]
    SameCell(Cell),
    #[error("no path of empty cells leads from {0} to {1}")]
    Unreachable(Cell, Cell),
}

/// A position: the number on every cell, 0 for an empty one.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [u8; CELLS],
}

impl Default for Board {
    fn default() -> Self {
        Board::EMPTY
    }
}

impl Board {
    pub const EMPTY: Board = Board { cells: [0; CELLS] };

    /// The number on a cell, 0 when it is empty.
    pub fn get(&self, cell: Cell) -> u8 {
        self.cells[cell.index()]
    }

    /// Puts a number (0 to empty the cell) on a cell, with no rule applied.
    pub fn set(&mut self, cell: Cell, number: u8) {
        assert!(number <= COLORS, "number {number} is not 0..{COLORS}");
        self.cells[cell.index()] = number;
    }

    /// The empty cells as a bit mask (bit `row * 9 + col`).
    pub fn empty_mask(&self) -> u128 {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, &n)| n == 0)
            .fold(0, |mask, (i, _)| mask | 1 << i)
    }

    pub fn empty_count(&self) -> usize {
        self.cells.iter().filter(|&&n| n == 0).count()
    }

    pub fn is_full(&self) -> bool {
        self.cells.iter().all(|&n| n != 0)
    }

    pub fn has_numbers(&self) -> bool {
        self.cells.iter().any(|&n| n != 0)
    }

    /// The `n`-th empty cell in reading order (row by row, top to bottom), if there is one.
    pub fn nth_empty(&self, n: usize) -> Option<Cell> {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, &v)| v == 0)
            .nth(n)
            .map(|(i, _)| Cell::from_index(i))
    }

    /// The empty cells a number on `from` can move to, as a bit mask: the empty cells joined
    /// to `from` by a path of horizontally or vertically adjacent empty cells.
    pub fn reachable_from(&self, from: Cell) -> u128 {
        let empty = self.empty_mask();
        let mut reach = neighbours(from.bit()) & empty;
        loop {
            let grown = reach | (neighbours(reach) & empty);
            if grown == reach {
                return reach;
            }
            reach = grown;
        }
    }

    /// Whether a number on `from` can move to the empty cell `to`.
    pub fn reachable(&self, from: Cell, to: Cell) -> bool {
        self.reachable_from(from) & to.bit() != 0
    }

    /// Whether some number can move somewhere.
    pub fn has_legal_move(&self) -> bool {
        let empty = self.empty_mask();
        neighbours(empty) & !empty != 0
    }

    /// Every line of 5 or more numbers equal to the one on `cell` that passes through `cell`.
    /// Empty when `cell` is empty.
    pub fn lines_through(&self, cell: Cell) -> Lines {
        let mut lines = Lines::NONE;
        let number = self.get(cell);
        if number == 0 {
            return lines;
        }
        let same = |c: Option<Cell>| c.filter(|&c| self.get(c) == number);
        for dir in DIRECTIONS {
            let ahead = (1..).map_while(|s| same(cell.step(dir, s))).count();
            let behind = (1..).map_while(|s| same(cell.step(dir, -s))).count();
            if 1 + ahead + behind >= MIN_LINE {
                for s in 1..=ahead as isize {
                    lines.push(cell.step(dir, s).expect("counted on the board"));
                }
                for s in 1..=behind as isize {
                    lines.push(cell.step(dir, -s).expect("counted on the board"));
                }
            }
        }
        if !lines.is_empty() {
            lines.push(cell);
        }
        lines
    }

    /// Removes the lines through `cell` and says what they were worth.
    fn remove_lines_through(&mut self, cell: Cell) -> Removal {
        let lines = self.lines_through(cell);
        for &c in lines.as_slice() {
            self.cells[c.index()] = 0;
        }
        Removal {
            removed: lines.len(),
            points: points(lines.len()),
        }
    }

    /// Moves the number on `from` to `to` and removes the lines through `to`. Nothing changes
    /// when the move is illegal.
    pub fn try_move(&mut self, from: Cell, to: Cell) -> Result<Removal, IllegalMove> {
        let number = self.get(from);
        if number == 0 {
            return Err(IllegalMove::EmptySource(from));
        }
        if from == to {
            return Err(IllegalMove::SameCell(from));
        }
        if self.get(to) != 0 {
            return Err(IllegalMove::OccupiedTarget(to, self.get(to)));
        }
        if !self.reachable(from, to) {
            return Err(IllegalMove::Unreachable(from, to));
        }
        self.cells[from.index()] = 0;
        self.cells[to.index()] = number;
        Ok(self.remove_lines_through(to))
    }

    /// Lands `number` on the empty cell `cell` and removes the lines it completes.
    pub fn place(&mut self, cell: Cell, number: u8) -> Removal {
        assert_eq!(self.get(cell), 0, "{cell} is not empty");
        self.set(cell, number);
        self.remove_lines_through(cell)
    }

    /// Lands the numbers of `next_three`, in order, each on a uniformly random empty cell
    /// (dropping those that find none), and says where they went and the points their lines
    /// made.
    pub fn land(&mut self, next_three: [u8; 3], rng: &mut Xoshiro256PlusPlus) -> Landing {
        let mut landing = Landing::default();
        for number in next_three {
            let empty = self.empty_count();
            if empty == 0 {
                break;
            }
            let cell = self
                .nth_empty(rng.random_range(0..empty))
                .expect("fewer than empty_count");
            landing.points += self.place(cell, number).points;
            landing.cells[landing.len] = cell;
            landing.len += 1;
        }
        landing
    }

    /// Appends what the player is shown: the 9 rows, then `nextThree`, each line ended.
    pub fn write_view(&self, next_three: [u8; 3], out: &mut String) {
        for row in self.cells.chunks(SIDE) {
            out.extend(row.iter().map(|&n| number_char(n)));
            out.push('\n');
        }
        out.extend(next_three.iter().map(|&n| number_char(n)));
        out.push('\n');
    }
}

fn number_char(n: u8) -> char {
    if n == 0 {
        '.'
    } else {
        (b'0' + n) as char
    }
}

/// Draws a fresh `nextThree`.
pub fn draw_next_three(rng: &mut Xoshiro256PlusPlus) -> [u8; 3] {
    std::array::from_fn(|_| rng.random_range(1..=COLORS))
}

/// Reads a `nextThree` line: exactly 3 digits 1..7.
pub fn parse_next_three(text: &str) -> Result<[u8; 3], String> {
    let bytes = text.trim().as_bytes();
    if bytes.len() != 3 || !bytes.iter().all(|b| (b'1'..=b'0' + COLORS).contains(b)) {
        return Err(format!("nextThree {text:?} is not 3 digits 1..7"));
    }
    Ok(std::array::from_fn(|i| bytes[i] - b'0'))
}

/// The 9 rows, each ended by a newline: the first 9 lines of the player's view.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in self.cells.chunks(SIDE) {
            let line: String = row.iter().map(|&n| number_char(n)).collect();
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{self}")
    }
}

/// Reads 9 rows of 9 characters (`1`..`7` or `.`); blank lines and surrounding white space
/// are ignored.
impl FromStr for Board {
    type Err = String;

    fn from_str(text: &str) -> Result<Board, String> {
        let rows: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if rows.len() != SIDE {
            return Err(format!("a board has {SIDE} rows, got {}", rows.len()));
        }
        let mut board = Board::EMPTY;
        for (r, row) in rows.iter().enumerate() {
            if row.len() != SIDE {
                return Err(format!("row {row:?} is not {SIDE} cells wide"));
            }
            for (c, ch) in row.bytes().enumerate() {
                board.cells[r * SIDE + c] = match ch {
                    b'.' => 0,
                    b'1'..=b'7' => ch - b'0',
                    _ => return Err(format!("bad cell {:?} in row {row:?}", ch as char)),
                };
            }
        }
        Ok(board)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_round_trip_through_their_wire_form() {
        for i in 0..CELLS {
            let cell = Cell::from_index(i);
            assert_eq!(Cell::parse(&cell.to_string()), Ok(cell));
        }
        assert_eq!(Cell::new(8, 7).to_string(), "I8");
        assert_eq!(Cell::new(5, 5).to_string(), "F6");
    }

    #[test]
    fn neighbours_do_not_wrap_around_rows() {
        let right_edge = Cell::new(3, 8).bit();
        assert_eq!(neighbours(right_edge) & Cell::new(4, 0).bit(), 0);
        let left_edge = Cell::new(4, 0).bit();
        assert_eq!(neighbours(left_edge) & Cell::new(3, 8).bit(), 0);
        assert_eq!(neighbours(Cell::new(8, 8).bit()).count_ones(), 2);
        assert_eq!(neighbours(Cell::new(4, 4).bit()).count_ones(), 4);
    }
}
