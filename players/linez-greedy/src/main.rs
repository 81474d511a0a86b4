//! Linez player: tries every legal move and keeps the best by a static evaluation.
//!
//! - A move that makes a line is always taken (the biggest removal first): it scores and
//!   nothing lands after it.
//! - Otherwise a move is worth the change it makes to the board's line potential: every
//!   stretch of 5 cells in a row, column or diagonal that holds only one number (and empty
//!   cells) is worth more the more of that number it holds, a bit more when that number is
//!   coming in `nextThree`. Moves that cut empty cells off from the rest of the board (where
//!   nothing can reach them) are penalised.
//!
//! Deterministic: no randomness of its own. Standalone (its own rule code).
//!
//! Protocol: each turn 9 board rows (top first, `.` empty) and a `nextThree` line on stdin;
//! answer `FROMTO` such as `I8F6` (row letter A..I from the top, column digit 1..9). The game
//! is over when stdin closes.

use std::io::{self, BufRead, Write};

const SIDE: usize = 9;
const CELLS: usize = SIDE * SIDE;
const LINE: usize = 5;
const ALL: u128 = (1 << CELLS) - 1;
const DIRECTIONS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// Worth of a stretch of 5 cells holding `m` equal numbers and nothing else.
const STRETCH: [i64; LINE] = [0, 1, 10, 100, 1000];
/// Per empty cell that no number outside it can reach any more.
const CUT_OFF: i64 = 40;
/// Moves checked for cut-off cells.
const SHORTLIST: usize = 40;
/// Taking a line beats every other move.
const LINE_MADE: i64 = 1 << 40;

type Board = [u8; CELLS];

/// The stretches of 5 cells on the board, and which stretches each cell is in.
struct Stretches {
    cells: Vec<[usize; LINE]>,
    of_cell: Vec<Vec<usize>>,
}

impl Stretches {
    fn new() -> Stretches {
        let mut cells = Vec::new();
        let mut of_cell = vec![Vec::new(); CELLS];
        for r in 0..SIDE as isize {
            for c in 0..SIDE as isize {
                for (dr, dc) in DIRECTIONS {
                    let (er, ec) = (r + dr * (LINE as isize - 1), c + dc * (LINE as isize - 1));
                    if !(0..SIDE as isize).contains(&er) || !(0..SIDE as isize).contains(&ec) {
                        continue;
                    }
                    let stretch: [usize; LINE] = std::array::from_fn(|i| {
                        ((r + dr * i as isize) * SIDE as isize + c + dc * i as isize) as usize
                    });
                    for &cell in &stretch {
                        of_cell[cell].push(cells.len());
                    }
                    cells.push(stretch);
                }
            }
        }
        Stretches { cells, of_cell }
    }

    fn worth(&self, board: &Board, stretch: usize, bonus: &[i64; 8]) -> i64 {
        let mut number = 0;
        let mut held = 0;
        for &cell in &self.cells[stretch] {
            let n = board[cell];
            if n != 0 {
                if number != 0 && n != number {
                    return 0;
                }
                number = n;
                held += 1;
            }
        }
        if held >= LINE {
            return 0;
        }
        STRETCH[held] * bonus[number as usize] / 4
    }

    /// The worth of the stretches through `a` or `b`.
    fn worth_near(&self, board: &Board, a: usize, b: usize, bonus: &[i64; 8]) -> i64 {
        let through_a = self.of_cell[a].iter();
        let through_b_only = self.of_cell[b]
            .iter()
            .filter(|&&s| !self.cells[s].contains(&a));
        through_a
            .chain(through_b_only)
            .map(|&s| self.worth(board, s, bonus))
            .sum()
    }

    fn worth_all(&self, board: &Board, bonus: &[i64; 8]) -> i64 {
        (0..self.cells.len())
            .map(|s| self.worth(board, s, bonus))
            .sum()
    }
}

fn step(cell: usize, (dr, dc): (isize, isize), k: isize) -> Option<usize> {
    let r = (cell / SIDE) as isize + dr * k;
    let c = (cell % SIDE) as isize + dc * k;
    ((0..SIDE as isize).contains(&r) && (0..SIDE as isize).contains(&c))
        .then(|| (r * SIDE as isize + c) as usize)
}

/// Removes the lines of 5+ through `cell` and returns how many cells went.
fn remove_lines(board: &mut Board, cell: usize) -> usize {
    let number = board[cell];
    let mut gone = [0usize; 1 + 4 * (SIDE - 1)];
    let mut len = 0;
    for dir in DIRECTIONS {
        let same = |k: isize| step(cell, dir, k).filter(|&c| board[c] == number);
        let ahead = (1..).map_while(same).count();
        let behind = (1..).map_while(|k| same(-k)).count();
        if 1 + ahead + behind >= LINE {
            for k in (1..=ahead as isize).chain((1..=behind as isize).map(|k| -k)) {
                gone[len] = step(cell, dir, k).expect("on the board");
                len += 1;
            }
        }
    }
    if len == 0 {
        return 0;
    }
    gone[len] = cell;
    len += 1;
    for &c in &gone[..len] {
        board[c] = 0;
    }
    len
}

fn points(k: usize) -> i64 {
    10 + (k * (k - LINE) / 2) as i64
}

fn neighbours(mask: u128) -> u128 {
    const FIRST: u128 = column(0);
    const LAST: u128 = column(SIDE - 1);
    ((mask << SIDE) | (mask >> SIDE) | ((mask & !LAST) << 1) | ((mask & !FIRST) >> 1)) & ALL
}

const fn column(col: usize) -> u128 {
    let mut mask = 0;
    let mut r = 0;
    while r < SIDE {
        mask |= 1 << (r * SIDE + col);
        r += 1;
    }
    mask
}

fn flood(seed: u128, within: u128) -> u128 {
    let mut reach = seed & within;
    loop {
        let grown = reach | (neighbours(reach) & within);
        if grown == reach {
            return reach;
        }
        reach = grown;
    }
}

fn empties(board: &Board) -> u128 {
    (0..CELLS)
        .filter(|&i| board[i] == 0)
        .fold(0, |m, i| m | 1 << i)
}

/// Empty cells outside the largest region of empty cells.
fn cut_off(board: &Board) -> i64 {
    let mut left = empties(board);
    let total = left.count_ones();
    let mut largest = 0;
    while left != 0 {
        let region = flood(left & left.wrapping_neg(), left);
        largest = largest.max(region.count_ones());
        left &= !region;
    }
    i64::from(total - largest)
}

fn name(cell: usize) -> String {
    format!(
        "{}{}",
        (b'A' + (cell / SIDE) as u8) as char,
        (b'1' + (cell % SIDE) as u8) as char
    )
}

/// The best move on `board`, or `None` when nothing can move.
fn choose(board: &Board, next_three: &[u8], stretches: &Stretches) -> Option<(usize, usize)> {
    // A number that is about to land is slightly more likely to help its stretches.
    let mut bonus = [4i64; 8];
    for &n in next_three {
        bonus[n as usize] += 1;
    }
    let empty = empties(board);
    // (value, from, to, makes a line)
    let mut candidates: Vec<(i64, usize, usize, bool)> = Vec::new();
    let mut work = *board;
    for from in (0..CELLS).filter(|&i| board[i] != 0) {
        let mut targets = flood(neighbours(1 << from), empty);
        while targets != 0 {
            let to = targets.trailing_zeros() as usize;
            targets &= targets - 1;
            let before = stretches.worth_near(&work, from, to, &bonus);
            work[to] = work[from];
            work[from] = 0;
            let removed = remove_lines(&mut work, to);
            if removed > 0 {
                let value = LINE_MADE + points(removed) * 1000 + stretches.worth_all(&work, &bonus);
                work = *board;
                candidates.push((value, from, to, true));
            } else {
                let gain = stretches.worth_near(&work, from, to, &bonus) - before;
                work[from] = work[to];
                work[to] = 0;
                candidates.push((gain, from, to, false));
            }
        }
    }
    // Cutting cells off is rare and costly to find: check only the most promising moves.
    candidates.sort_unstable_by_key(|&(value, ..)| std::cmp::Reverse(value));
    if candidates.first().is_some_and(|c| c.3) {
        return Some((candidates[0].1, candidates[0].2));
    }
    let cut_before = cut_off(board);
    candidates
        .iter()
        .take(SHORTLIST)
        .map(|&(gain, from, to, _)| {
            let mut after = *board;
            after[to] = after[from];
            after[from] = 0;
            (gain - CUT_OFF * (cut_off(&after) - cut_before), from, to)
        })
        .max_by_key(|&(value, from, to)| (value, std::cmp::Reverse((from, to))))
        .map(|(_, from, to)| (from, to))
}

fn main() -> io::Result<()> {
    let stretches = Stretches::new();
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = io::stdout().lock();
    loop {
        let mut board = [0u8; CELLS];
        for r in 0..SIDE {
            let Some(line) = lines.next().transpose()? else {
                return Ok(());
            };
            for (c, ch) in line.trim().bytes().take(SIDE).enumerate() {
                board[r * SIDE + c] = if (b'1'..=b'7').contains(&ch) {
                    ch - b'0'
                } else {
                    0
                };
            }
        }
        let Some(next) = lines.next().transpose()? else {
            return Ok(());
        };
        let next_three: Vec<u8> = next
            .trim()
            .bytes()
            .filter(|b| (b'1'..=b'7').contains(b))
            .map(|b| b - b'0')
            .collect();
        let (from, to) = choose(&board, &next_three, &stretches).unwrap_or((0, 1));
        writeln!(out, "{}{}", name(from), name(to))?;
        out.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &str) -> Board {
        let mut board = [0; CELLS];
        for (i, ch) in rows
            .bytes()
            .filter(|b| !b.is_ascii_whitespace())
            .enumerate()
        {
            board[i] = if ch == b'.' { 0 } else { ch - b'0' };
        }
        board
    }

    #[test]
    fn takes_a_line_when_it_can() {
        let b = board(
            "3........ ......... ......... ......... 3333..... \
             ......... ......... ......... ........7",
        );
        let (from, to) = choose(&b, &[1, 2, 3], &Stretches::new()).unwrap();
        assert_eq!((name(from).as_str(), name(to).as_str()), ("A1", "E5"));
    }

    #[test]
    fn removes_crossing_lines_once() {
        let mut b = board(
            "..3...... ..3...... ..3...... ..3...... 33333.... \
             ......... ......... ......... .........",
        );
        assert_eq!(remove_lines(&mut b, 4 * SIDE + 2), 9);
        assert!(b.iter().all(|&n| n == 0));
    }

    #[test]
    fn builds_on_a_run_rather_than_scattering() {
        let b = board(
            "......... ......... ......... ......... 222...... \
             ......... ......... ......... ........2",
        );
        let (from, to) = choose(&b, &[5, 5, 5], &Stretches::new()).unwrap();
        assert_eq!(name(from), "I9");
        assert!(["E4", "E5"].contains(&name(to).as_str()), "{}", name(to));
    }
}
