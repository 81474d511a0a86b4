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
//! Its weights are parameters that `harness tune` can tune: read from `PARAM_STRETCH_2`,
//! `_3`, `_4`, `PARAM_NEXT_BONUS`, `PARAM_CUT_OFF` and `PARAM_SHORTLIST` (declared with
//! their ranges in Cargo.toml), each defaulting to the value the player always had.
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

/// The evaluation's weights.
#[derive(Clone, Copy, Debug)]
struct Weights {
    /// Worth of a stretch of 5 cells holding `m` equal numbers and nothing else: `0, 1` for
    /// `m = 0, 1`, then `PARAM_STRETCH_2`, `PARAM_STRETCH_3`, `PARAM_STRETCH_4` (default
    /// 10, 100, 1000), rounded.
    stretch: [i64; LINE],
    /// Added (in quarters) to a number's stretches per time it is in `nextThree`
    /// (`PARAM_NEXT_BONUS`, default 1).
    next_bonus: i64,
    /// Per empty cell that no number outside it can reach any more (`PARAM_CUT_OFF`,
    /// default 40).
    cut_off: i64,
    /// Moves checked for cut-off cells (`PARAM_SHORTLIST`, default 40).
    shortlist: usize,
    /// Per neighbour (of 8) holding the same number, gained at the target and lost at the
    /// source (`PARAM_SAME_NEIGHBOUR`, default 0: off).
    same_neighbour: f64,
    /// Per step towards the centre (rings around E5) (`PARAM_CENTRE`, default 0: off).
    centre: f64,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights::from_vars(|_| None).expect("the defaults parse")
    }
}

impl Weights {
    /// The weights named by `PARAM_*` variables (`var` looks one up), the defaults for the
    /// others. A value that does not parse is an error naming the variable.
    fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Weights, String> {
        fn get<T: std::str::FromStr>(
            var: &impl Fn(&str) -> Option<String>,
            name: &str,
            default: T,
        ) -> Result<T, String> {
            match var(name) {
                None => Ok(default),
                Some(text) => text
                    .trim()
                    .parse()
                    .map_err(|_| format!("{name}={text:?} is not a valid value")),
            }
        }
        let worth = |name, default: f64| get(&var, name, default).map(|w| w.round() as i64);
        Ok(Weights {
            stretch: [
                0,
                1,
                worth("PARAM_STRETCH_2", 10.0)?,
                worth("PARAM_STRETCH_3", 100.0)?,
                worth("PARAM_STRETCH_4", 1000.0)?,
            ],
            next_bonus: get(&var, "PARAM_NEXT_BONUS", 1)?,
            cut_off: get(&var, "PARAM_CUT_OFF", 40)?,
            shortlist: get(&var, "PARAM_SHORTLIST", 40usize)?.max(1),
            same_neighbour: get(&var, "PARAM_SAME_NEIGHBOUR", 0.0)?,
            centre: get(&var, "PARAM_CENTRE", 0.0)?,
        })
    }

    /// The placement terms of moving `from` -> `to` (`after` is the board after the move):
    /// 0 with the default weights.
    fn placement(&self, before: &Board, after: &Board, from: usize, to: usize) -> i64 {
        if self.same_neighbour == 0.0 && self.centre == 0.0 {
            return 0;
        }
        let same = |board: &Board, cell: usize| {
            let number = board[cell];
            let mut count = 0;
            for dr in -1..=1 {
                for dc in -1..=1 {
                    if (dr, dc) != (0, 0)
                        && step(cell, (dr, dc), 1).is_some_and(|c| board[c] == number)
                    {
                        count += 1;
                    }
                }
            }
            count as f64
        };
        let ring = |cell: usize| {
            let (r, c) = ((cell / SIDE) as isize, (cell % SIDE) as isize);
            (r - 4).abs().max((c - 4).abs()) as f64
        };
        let value = self.same_neighbour * (same(after, to) - same(before, from))
            + self.centre * (ring(from) - ring(to));
        value.round() as i64
    }
}

/// Taking a line beats every other move.
const LINE_MADE: i64 = 1 << 40;

type Board = [u8; CELLS];

/// The stretches of 5 cells on the board, and which stretches each cell is in.
struct Stretches {
    cells: Vec<[usize; LINE]>,
    of_cell: Vec<Vec<usize>>,
    /// Worth by the count of equal numbers held ([`Weights::stretch`]).
    weight: [i64; LINE],
}

impl Stretches {
    fn new(weights: &Weights) -> Stretches {
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
        Stretches {
            cells,
            of_cell,
            weight: weights.stretch,
        }
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
        self.weight[held] * bonus[number as usize] / 4
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
fn choose(
    board: &Board,
    next_three: &[u8],
    stretches: &Stretches,
    weights: &Weights,
) -> Option<(usize, usize)> {
    // A number that is about to land is slightly more likely to help its stretches.
    let mut bonus = [4i64; 8];
    for &n in next_three {
        bonus[n as usize] += weights.next_bonus;
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
                let mut gain = stretches.worth_near(&work, from, to, &bonus) - before;
                gain += weights.placement(board, &work, from, to);
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
        .take(weights.shortlist)
        .map(|&(gain, from, to, _)| {
            let mut after = *board;
            after[to] = after[from];
            after[from] = 0;
            (
                gain - weights.cut_off * (cut_off(&after) - cut_before),
                from,
                to,
            )
        })
        .max_by_key(|&(value, from, to)| (value, std::cmp::Reverse((from, to))))
        .map(|(_, from, to)| (from, to))
}

fn main() -> io::Result<()> {
    let weights = match Weights::from_vars(|name| std::env::var(name).ok()) {
        Ok(weights) => weights,
        Err(why) => {
            eprintln!("linez-greedy: {why}");
            std::process::exit(2);
        }
    };
    let stretches = Stretches::new(&weights);
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
        let (from, to) = choose(&board, &next_three, &stretches, &weights).unwrap_or((0, 1));
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
        let w = Weights::default();
        let (from, to) = choose(&b, &[1, 2, 3], &Stretches::new(&w), &w).unwrap();
        assert_eq!((name(from).as_str(), name(to).as_str()), ("A1", "E5"));
    }

    #[test]
    fn default_weights_are_the_old_constants_and_variables_override_them() {
        let w = Weights::from_vars(|_| None).unwrap();
        assert_eq!(w.stretch, [0, 1, 10, 100, 1000]);
        assert_eq!((w.next_bonus, w.cut_off, w.shortlist), (1, 40, 40));
        let w = Weights::from_vars(|name| match name {
            "PARAM_STRETCH_3" => Some("12.5".into()),
            "PARAM_CUT_OFF" => Some("7".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(w.stretch, [0, 1, 10, 13, 1000]);
        assert_eq!((w.next_bonus, w.cut_off, w.shortlist), (1, 7, 40));
        let bad = Weights::from_vars(|name| (name == "PARAM_SHORTLIST").then(|| "x".into()));
        assert!(bad.unwrap_err().contains("PARAM_SHORTLIST"));
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
        let w = Weights::default();
        let (from, to) = choose(&b, &[5, 5, 5], &Stretches::new(&w), &w).unwrap();
        assert_eq!(name(from), "I9");
        assert!(["E4", "E5"].contains(&name(to).as_str()), "{}", name(to));
    }
}
