//! Linez (TopCoder Marathon Match 5): rules, generator and judge; its views are in
//! `terminal.rs` (`harness play`), `frames.rs` and `view.js` (replays).
//!
//! A 9x9 board of numbers 1..7. A move takes one number to an empty cell joined to it by a
//! path of horizontally or vertically adjacent empty cells. Every line (row, column or
//! diagonal) of 5 or more equal numbers through the moved number is then removed, scoring
//! `10 + k*(k-5)/2` for the k cells removed (a cell shared by two lines counts once), and the
//! player moves again. A move that removes nothing makes the three `nextThree` numbers land,
//! in order, on uniformly random empty cells; a line of 5+ that a landed number completes is
//! removed and scored the same way, before the next one lands. Then a fresh `nextThree` is
//! drawn (each uniform in 1..7). The game ends when the board has no empty cell.
//!
//! Wire protocol: each turn the judge sends the 9 rows of the board (top row first, `.` for
//! an empty cell) and a line with `nextThree`; the player answers with 4 characters, the cell
//! to move from and the cell to move to, each a row letter `A`..`I` (from the top) and a
//! column digit `1`..`9` (from the left): `I8F6`. ASCII spaces and tabs around the answer are
//! ignored; anything else (lower-case letters and other white space included) is a malformed
//! move, and a line longer than [`MAX_MOVE_LINE`] bytes is a protocol error. The transcript
//! keeps a move as the judge read it (`I8F6` for ` I8F6 `). When the game ends the judge
//! sends nothing more (the runner closes the player's input).
//!
//! Decisions where the statement is silent:
//! - An invalid or malformed move ends the game with WA and the points made so far; so does
//!   any fault on the wire (TLE, crash, ...): the score is always kept, as on TopCoder.
//! - The game also ends after `move-cap` accepted moves (`[problem.linez]` in scoring.toml;
//!   0 means [`DEFAULT_MOVE_CAP`]), with verdict OK.
//! - A removal that leaves the board without any number (after a move or after a landing)
//!   makes the `nextThree` land at once, as after a move that removed nothing, so the player
//!   always has a number to move. Three numbers cannot form a line, so this happens once.
//! - When fewer cells are empty than numbers are left to land, the numbers that find no empty
//!   cell are dropped (a line removed by an earlier landing frees cells for later ones); the
//!   board is then full and the game ends.
//! - A player always has a legal move while the board has both a number and an empty cell:
//!   the grid is connected, so some number is next to some empty cell. The judge still checks
//!   ([`Board::has_legal_move`]) and would end the game with OK if there were none.
//!
//! Randomness: one xoshiro256++ stream per seed. For a seed it draws the starting position
//! (three times: a uniform empty cell, then its number), then `nextThree`, then, as the game
//! goes, the cell of every landing number and every fresh `nextThree`. The statement's ten
//! example seeds start from the statement's positions instead (`testcases/linez/examples.txt`),
//! since its generator is unknown; their later randomness is drawn from the seed's own stream.
//! [`Game::describe`] prints the starting position exactly as the player first sees it; what
//! lands later depends on the player's moves and is not shown.
//!
//! Judging a move is O(board) and allocates nothing: the board is a fixed array, paths are
//! found with bit masks, lines are gathered in a fixed array, and the message is one buffer.

mod frames;
mod terminal;

use std::fmt::{self, Write as _};
use std::str::FromStr;

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::views::{TerminalView, Views};
use super::{trim_blanks, CaseError, CaseKey, Channel, Env, Game, Problem};
use crate::verdict::{quote, Fault, Outcome};

/// Rows and columns of the board.
pub const SIDE: usize = 9;
/// Cells on the board.
pub const CELLS: usize = SIDE * SIDE;
/// Numbers are 1..=COLORS.
pub const COLORS: u8 = 7;
/// Shortest line that is removed.
pub const MIN_LINE: usize = 5;
/// Moves a game may last when scoring.toml sets `move-cap = 0`. A strong player may never
/// fill the board; 10000 moves keeps one game to seconds of judging.
pub const DEFAULT_MOVE_CAP: u64 = 10_000;
/// The file of fixed starting positions under `testcases/linez/`.
pub const EXAMPLES_FILE: &str = "examples.txt";

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
    /// (dropping those that find none), and returns the points their lines made.
    pub fn land(&mut self, next_three: [u8; 3], rng: &mut Xoshiro256PlusPlus) -> u64 {
        let mut score = 0;
        for number in next_three {
            let empty = self.empty_count();
            if empty == 0 {
                break;
            }
            let cell = self
                .nth_empty(rng.random_range(0..empty))
                .expect("fewer than empty_count");
            score += self.place(cell, number).points;
        }
        score
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

/// A fixed starting position from `testcases/linez/examples.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    pub seed: u64,
    pub board: Board,
    pub next_three: [u8; 3],
}

/// Reads the examples file: one example a line, `SEED CELL=N ... NEXT` (e.g.
/// `149738788 B6=4 D7=5 G7=3 545`); `#` starts a comment.
pub fn parse_examples(text: &str, path: &std::path::Path) -> Result<Vec<Example>, CaseError> {
    let mut examples = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let malformed = |message: String| CaseError::Malformed {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let [seed, placements @ .., next] = &tokens[..] else {
            return Err(malformed("expected `SEED CELL=N ... NEXT`".into()));
        };
        if placements.is_empty() {
            return Err(malformed("expected `SEED CELL=N ... NEXT`".into()));
        }
        let seed: u64 = seed
            .parse()
            .map_err(|_| malformed(format!("seed {seed:?} is not a number")))?;
        let mut board = Board::EMPTY;
        for p in placements {
            let (cell, number) = p
                .split_once('=')
                .ok_or_else(|| malformed(format!("{p:?} is not CELL=N")))?;
            let cell = Cell::parse(cell).map_err(malformed)?;
            let number = match number.as_bytes() {
                &[d @ b'1'..=b'7'] => d - b'0',
                _ => return Err(malformed(format!("number in {p:?} is not 1..7"))),
            };
            board.set(cell, number);
        }
        let next_three = parse_next_three(next).map_err(malformed)?;
        examples.push(Example {
            seed,
            board,
            next_three,
        });
    }
    Ok(examples)
}

/// The Linez problem.
pub struct Linez;

impl Problem for Linez {
    fn id(&self) -> &'static str {
        "linez"
    }

    fn title(&self) -> &'static str {
        "Linez (TopCoder Marathon Match 5)"
    }

    /// TopCoder rule: a crash, a timeout or an invalid move keeps the points made so far.
    fn keeps_score_on_fault(&self) -> bool {
        true
    }

    /// For `harness bench`: moves the first number that can move to its first reachable cell.
    fn bench_player(&self, _key: &CaseKey, _env: &Env) -> Option<Box<dyn Channel>> {
        Some(Box::new(FirstMovable::default()))
    }

    fn max_line(&self) -> Option<usize> {
        Some(MAX_MOVE_LINE)
    }

    /// Nothing is generated but the position; tests are told apart by their length (`moves`).
    fn param_names(&self) -> &'static [&'static str] {
        &[]
    }

    /// Linez has no generator parameters; the game's length tells easy seeds from hard.
    fn groups(&self) -> &'static [&'static str] {
        &["moves"]
    }

    fn case(&self, key: &CaseKey, env: &Env) -> Result<Box<dyn Game>, CaseError> {
        Ok(Box::new(Linez::game(key, env)?))
    }

    fn views(&self) -> Option<&dyn Views> {
        Some(self)
    }
}

impl Views for Linez {
    fn terminal(&self, key: &CaseKey, env: &Env) -> Result<Box<dyn TerminalView>, String> {
        let game = Linez::game(key, env).map_err(|e| e.to_string())?;
        Ok(Box::new(terminal::LinezView::new(game)))
    }

    fn frames(
        &self,
        key: &CaseKey,
        env: &Env,
        answers: &[String],
    ) -> Result<Vec<serde_json::Value>, String> {
        let game = Linez::game(key, env).map_err(|e| e.to_string())?;
        Ok(frames::frames(game, answers))
    }

    fn page_script(&self) -> &'static str {
        include_str!("view.js")
    }
}

/// For `harness bench`: moves the first number that can move to its first reachable cell.
#[derive(Default)]
struct FirstMovable {
    /// What the judge sent since the last move.
    view: String,
    reply: String,
}

impl Channel for FirstMovable {
    fn send(&mut self, text: &str) -> Result<(), Fault> {
        self.view.push_str(text);
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        let view = std::mem::take(&mut self.view);
        let rows: String = view.lines().take(SIDE).collect::<Vec<_>>().join("\n");
        let board: Board = rows.parse().map_err(|_| Fault::Eof)?;
        let first = (0..CELLS).map(Cell::from_index).find_map(|from| {
            if board.get(from) == 0 {
                return None;
            }
            let reach = board.reachable_from(from);
            (reach != 0).then(|| (from, Cell::from_index(reach.trailing_zeros() as usize)))
        });
        let (from, to) = first.ok_or(Fault::Eof)?;
        self.reply = format!("{from}{to}");
        Ok(&self.reply)
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        Err(Fault::Eof)
    }
}

impl Linez {
    /// The test of a key as its concrete type, which can be cloned mid-game (replays play
    /// it one move at a time).
    pub fn game(key: &CaseKey, env: &Env) -> Result<LinezGame, CaseError> {
        let CaseKey::Seed(seed) = *key else {
            return Err(CaseError::Unknown {
                problem: "linez",
                key: key.to_string(),
            });
        };
        let path = env.problem_dir("linez").join(EXAMPLES_FILE);
        let examples = parse_examples(&CaseError::read(&path)?, &path)?;
        let move_cap = match env.config.move_cap {
            0 => DEFAULT_MOVE_CAP,
            cap => cap,
        };
        let game = match examples.into_iter().find(|e| e.seed == seed) {
            // The statement's position; what lands later still comes from the seed's stream.
            Some(e) => LinezGame::new(e.board, e.next_three, env.stream("linez", seed), move_cap),
            None => LinezGame::generate(env.stream("linez", seed), move_cap),
        };
        Ok(game)
    }
}

/// One Linez test: a starting position and the random stream the rest of the game draws from.
#[derive(Clone, Debug)]
pub struct LinezGame {
    pub board: Board,
    pub next_three: [u8; 3],
    pub move_cap: u64,
    rng: Xoshiro256PlusPlus,
}

impl LinezGame {
    /// A game from a given position; later landings and `nextThree`s are drawn from `rng`.
    pub fn new(
        board: Board,
        next_three: [u8; 3],
        rng: Xoshiro256PlusPlus,
        move_cap: u64,
    ) -> LinezGame {
        LinezGame {
            board,
            next_three,
            move_cap,
            rng,
        }
    }

    /// The game of a test's stream ([`super::Env::stream`]): three numbers, each uniform 1..7, on uniformly random empty cells
    /// (cell first, then number), then `nextThree`.
    pub fn generate(mut rng: Xoshiro256PlusPlus, move_cap: u64) -> LinezGame {
        let mut board = Board::EMPTY;
        for _ in 0..3 {
            let cell = board
                .nth_empty(rng.random_range(0..board.empty_count()))
                .expect("the board has room for three");
            board.set(cell, rng.random_range(1..=COLORS));
        }
        let next_three = draw_next_three(&mut rng);
        LinezGame::new(board, next_three, rng, move_cap)
    }
}

impl LinezGame {
    /// Plays one move exactly as the judge does (its checks, points and landings), for the
    /// terminal board and the replay frames. An accepted move changes the game and gives the
    /// points it scored, landings included; a refused one leaves the game as it was and gives
    /// the judge's reason (`move 1 ...: why`: the judge counts from this move).
    pub fn try_turn(&mut self, line: &str) -> Result<u64, String> {
        let mut step = self.clone();
        let outcome = step.play(&mut OneMove(Some(line)));
        if outcome.moves == 0 {
            return Err(outcome.reason);
        }
        *self = step;
        // Points are whole numbers: the judge's f64 score holds them exactly.
        Ok(outcome.score as u64)
    }
}

/// The judge's channel in [`LinezGame::try_turn`]: a player with one move, then no more.
struct OneMove<'a>(Option<&'a str>);

impl Channel for OneMove<'_> {
    fn send(&mut self, _text: &str) -> Result<(), Fault> {
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        self.0.take().ok_or(Fault::Eof)
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        Err(Fault::Eof)
    }
}

impl Game for LinezGame {
    fn params(&self) -> Vec<String> {
        Vec::new()
    }

    fn describe(&self) -> String {
        let mut text = String::new();
        self.board.write_view(self.next_three, &mut text);
        text
    }

    fn play(&mut self, player: &mut dyn Channel) -> Outcome {
        play(
            &mut self.board,
            &mut self.next_three,
            &mut self.rng,
            self.move_cap,
            player,
        )
    }
}

/// Judges one game from `board` (played out in place) and returns how it ended.
pub fn play(
    board: &mut Board,
    next_three: &mut [u8; 3],
    rng: &mut Xoshiro256PlusPlus,
    move_cap: u64,
    player: &mut dyn Channel,
) -> Outcome {
    let mut score: u64 = 0;
    let mut moves: u64 = 0;
    let mut message = String::with_capacity((SIDE + 1) * (SIDE + 1) + 4);
    loop {
        if board.is_full() || moves >= move_cap {
            return Outcome::ok(score as f64, moves);
        }
        if !board.has_numbers() {
            score += board.land(*next_three, rng);
            *next_three = draw_next_three(rng);
            continue;
        }
        if !board.has_legal_move() {
            let mut outcome = Outcome::ok(score as f64, moves);
            outcome.reason = "no number can reach an empty cell".to_string();
            return outcome;
        }
        message.clear();
        board.write_view(*next_three, &mut message);
        if let Err(fault) = player.send(&message) {
            return Outcome::fault(&fault, score as f64, moves);
        }
        let turn = moves + 1;
        let (from, to, padded) = match player.recv() {
            Ok(line) if line.len() > MAX_MOVE_LINE => {
                let fault = Fault::LineTooLong(MAX_MOVE_LINE);
                return Outcome::fault(&fault, score as f64, moves);
            }
            // A parsed move is 4 bytes long; any other length was padded.
            Ok(line) => match parse_move(line) {
                Ok((from, to)) => (from, to, line.len() != 4),
                Err(why) => {
                    return Outcome::wrong(score as f64, moves, format!("move {turn}: {why}"))
                }
            },
            Err(fault) => return Outcome::fault(&fault, score as f64, moves),
        };
        if padded {
            message.clear();
            let _ = write!(message, "{from}{to}");
            player.understood(&message);
        }
        let removal = match board.try_move(from, to) {
            Ok(removal) => removal,
            Err(why) => {
                return Outcome::wrong(
                    score as f64,
                    moves,
                    format!("move {turn} {from}{to}: {why}"),
                )
            }
        };
        moves += 1;
        score += removal.points;
        if removal.removed == 0 {
            score += board.land(*next_three, rng);
            *next_three = draw_next_three(rng);
        }
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
