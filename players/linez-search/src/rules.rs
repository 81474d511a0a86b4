//! The rules of Linez as the player needs them: the board, reachability, moves, lines of 5+
//! and their points, and the random landing of `nextThree` (for the player's own sampling and
//! for the self-play simulator). Pure: no input, no output.

use crate::rng::Rng;

pub(crate) const SIDE: usize = 9;
pub(crate) const CELLS: usize = SIDE * SIDE;
/// Numbers are 1..=COLORS.
pub(crate) const COLORS: u8 = 7;
/// Shortest line that is removed.
pub(crate) const MIN_LINE: usize = 5;
pub(crate) const ALL: u128 = (1 << CELLS) - 1;
/// Row and column steps of the 4 line directions: row, column, both diagonals.
pub(crate) const DIRECTIONS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

const FIRST_COLUMN: u128 = column(0);
const LAST_COLUMN: u128 = column(SIDE - 1);

const fn column(col: usize) -> u128 {
    let mut mask = 0;
    let mut row = 0;
    while row < SIDE {
        mask |= 1 << (row * SIDE + col);
        row += 1;
    }
    mask
}

/// Points for removing `k` cells at once: `10 + k*(k-5)/2`; 0 when nothing is removed.
pub(crate) fn points(k: usize) -> u64 {
    if k < MIN_LINE {
        0
    } else {
        10 + (k * (k - MIN_LINE) / 2) as u64
    }
}

/// The cells next to a cell of `mask`, horizontally or vertically.
pub(crate) fn neighbours(mask: u128) -> u128 {
    ((mask << SIDE) | (mask >> SIDE) | ((mask & !LAST_COLUMN) << 1) | ((mask & !FIRST_COLUMN) >> 1))
        & ALL
}

/// The cells of `within` joined to `seed & within` through `within`.
pub(crate) fn flood(seed: u128, within: u128) -> u128 {
    let mut reach = seed & within;
    loop {
        let grown = reach | (neighbours(reach) & within);
        if grown == reach {
            return reach;
        }
        reach = grown;
    }
}

/// The cells of a mask, lowest first.
pub(crate) fn cells_of(mut mask: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let cell = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            cell
        })
    })
}

/// The cell `k` steps from `cell` in direction `(dr, dc)`, if it is on the board.
pub(crate) fn step(cell: usize, (dr, dc): (isize, isize), k: isize) -> Option<usize> {
    let r = (cell / SIDE) as isize + dr * k;
    let c = (cell % SIDE) as isize + dc * k;
    ((0..SIDE as isize).contains(&r) && (0..SIDE as isize).contains(&c))
        .then(|| (r * SIDE as isize + c) as usize)
}

/// Marks "off the board" in [`NEIGHBOUR`].
pub(crate) const NONE: u8 = u8::MAX;

/// `NEIGHBOUR[cell][d]`: the next cell in direction `DIRECTIONS[d]` and the previous one,
/// [`NONE`] off the board (a table of [`step`] by 1 and -1).
pub(crate) const NEIGHBOUR: [[[u8; 2]; 4]; CELLS] = neighbour_table();

const fn neighbour_table() -> [[[u8; 2]; 4]; CELLS] {
    let mut table = [[[NONE; 2]; 4]; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let mut d = 0;
        while d < 4 {
            let (dr, dc) = DIRECTIONS[d];
            let mut k = 0;
            while k < 2 {
                let sign = if k == 0 { 1 } else { -1 };
                let r = (cell / SIDE) as isize + dr * sign;
                let c = (cell % SIDE) as isize + dc * sign;
                if r >= 0 && r < SIDE as isize && c >= 0 && c < SIDE as isize {
                    table[cell][d][k] = (r * SIDE as isize + c) as u8;
                }
                k += 1;
            }
            d += 1;
        }
        cell += 1;
    }
    table
}

/// A cell's wire name: row letter `A`..`I` from the top, column digit `1`..`9`.
pub(crate) fn name(cell: usize) -> String {
    format!(
        "{}{}",
        (b'A' + (cell / SIDE) as u8) as char,
        (b'1' + (cell % SIDE) as u8) as char
    )
}

/// A position: the number on each cell (0 when empty) and the empty cells as a mask.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Board {
    cells: [u8; CELLS],
    empty: u128,
    /// The cells of each number, indexed by the number (index 0 unused).
    kinds: [u128; 8],
}

impl Board {
    pub(crate) const EMPTY: Board = Board {
        cells: [0; CELLS],
        empty: ALL,
        kinds: [0; 8],
    };

    /// Reads 9 rows of 9 characters, `1`..`7` or `.` (anything else is empty).
    pub(crate) fn parse<S: AsRef<str>>(rows: &[S]) -> Board {
        let mut board = Board::EMPTY;
        for (r, row) in rows.iter().take(SIDE).enumerate() {
            for (c, ch) in row.as_ref().trim().bytes().take(SIDE).enumerate() {
                if (b'1'..=b'0' + COLORS).contains(&ch) {
                    board.put(r * SIDE + c, ch - b'0');
                }
            }
        }
        board
    }

    pub(crate) fn get(&self, cell: usize) -> u8 {
        self.cells[cell]
    }

    pub(crate) fn empty(&self) -> u128 {
        self.empty
    }

    /// The cells of each number, indexed by the number (index 0 is empty).
    pub(crate) fn kinds(&self) -> &[u128; 8] {
        &self.kinds
    }

    /// The cells whose content differs between `self` and `other`.
    pub(crate) fn changed(&self, other: &Board) -> u128 {
        (1..8).fold(self.empty ^ other.empty, |mask, n| {
            mask | (self.kinds[n] ^ other.kinds[n])
        })
    }

    pub(crate) fn empty_count(&self) -> u32 {
        self.empty.count_ones()
    }

    /// Puts a number (0 empties the cell) with no rule applied.
    pub(crate) fn put(&mut self, cell: usize, number: u8) {
        self.kinds[self.cells[cell] as usize] &= !(1 << cell);
        self.kinds[number as usize] |= 1 << cell;
        self.kinds[0] = 0;
        self.cells[cell] = number;
        if number == 0 {
            self.empty |= 1 << cell;
        } else {
            self.empty &= !(1 << cell);
        }
    }

    /// The cells of every line of 5+ equal numbers through `cell`, `cell` included; 0 when
    /// there is none (or `cell` is empty).
    pub(crate) fn lines_through(&self, cell: usize) -> u128 {
        let number = self.cells[cell];
        if number == 0 {
            return 0;
        }
        let mut lines = 0;
        for dir in DIRECTIONS {
            let mut run = 0u128;
            let mut len = 1;
            for sign in [1, -1] {
                let mut k = 1;
                while let Some(c) = step(cell, dir, sign * k).filter(|&c| self.cells[c] == number) {
                    run |= 1 << c;
                    len += 1;
                    k += 1;
                }
            }
            if len >= MIN_LINE {
                lines |= run;
            }
        }
        if lines != 0 {
            lines |= 1 << cell;
        }
        lines
    }

    /// Removes the lines through `cell`; returns how many cells went.
    pub(crate) fn remove_lines_through(&mut self, cell: usize) -> usize {
        let lines = self.lines_through(cell);
        for c in cells_of(lines) {
            self.cells[c] = 0;
        }
        for kind in &mut self.kinds {
            *kind &= !lines;
        }
        self.empty |= lines;
        lines.count_ones() as usize
    }

    /// The empty cells a number on `from` can reach.
    pub(crate) fn reachable_from(&self, from: usize) -> u128 {
        flood(neighbours(1 << from), self.empty)
    }

    /// Moves `from` to `to` with no check, removes the lines made, returns the cells removed.
    pub(crate) fn play(&mut self, from: usize, to: usize) -> usize {
        let number = self.cells[from];
        self.put(from, 0);
        self.put(to, number);
        self.remove_lines_through(to)
    }

    /// The checked move: `Err` says why it is not allowed, and nothing changes then.
    #[cfg(test)]
    pub(crate) fn try_move(&mut self, from: usize, to: usize) -> Result<usize, &'static str> {
        if self.cells[from] == 0 {
            return Err("nothing to move");
        }
        if self.cells[to] != 0 {
            return Err("target taken");
        }
        if self.reachable_from(from) & (1 << to) == 0 {
            return Err("no path");
        }
        Ok(self.play(from, to))
    }

    /// Lands a number on an empty cell and removes the lines it completes; returns the points.
    pub(crate) fn place(&mut self, cell: usize, number: u8) -> u64 {
        self.put(cell, number);
        points(self.remove_lines_through(cell))
    }

    /// Lands `next` in order, each on a uniformly random empty cell (none once the board is
    /// full), as the judge does; returns the points of the lines they complete.
    pub(crate) fn land(&mut self, next: [u8; 3], rng: &mut Rng) -> u64 {
        let mut score = 0;
        for number in next {
            let empty = self.empty_count();
            if empty == 0 {
                break;
            }
            let cell = nth_cell(self.empty, rng.below(empty));
            score += self.place(cell, number);
        }
        score
    }

    /// Calls `f(from, to)` for every legal move, region of empty cells by region.
    pub(crate) fn for_each_move(&self, mut f: impl FnMut(usize, usize)) {
        let mut left = self.empty;
        while left != 0 {
            let region = flood(left & left.wrapping_neg(), left);
            left &= !region;
            let movers = neighbours(region) & !self.empty;
            for from in cells_of(movers) {
                for to in cells_of(region) {
                    f(from, to);
                }
            }
        }
    }

    /// Prints the 9 rows, the wire form of a board.
    pub(crate) fn rows(&self) -> String {
        let mut out = String::with_capacity(CELLS + SIDE);
        for r in 0..SIDE {
            for c in 0..SIDE {
                let n = self.cells[r * SIDE + c];
                out.push(if n == 0 { '.' } else { (b'0' + n) as char });
            }
            out.push('\n');
        }
        out
    }
}

/// The `n`-th set cell of `mask`, lowest first (reading order for a board mask).
pub(crate) fn nth_cell(mut mask: u128, n: u32) -> usize {
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask.trailing_zeros() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &str) -> Board {
        let rows: Vec<&str> = rows.split_whitespace().collect();
        assert_eq!(rows.len(), SIDE);
        Board::parse(&rows)
    }

    fn cell(name: &str) -> usize {
        let b = name.as_bytes();
        (b[0] - b'A') as usize * SIDE + (b[1] - b'1') as usize
    }

    #[test]
    fn changed_cells_include_a_number_replaced_by_another() {
        let before = board(
            "1........ ......... ......... ......... ....3.... ......... ......... ......... ........7",
        );
        // A1: 1 -> 2 (a line took the 1 and a landing put a 2 there); E5 emptied; C3 filled.
        let after = board(
            "2........ ......... ..4...... ......... ......... ......... ......... ......... ........7",
        );
        let expected = [cell("A1"), cell("C3"), cell("E5")]
            .iter()
            .fold(0u128, |mask, &c| mask | 1 << c);
        assert_eq!(before.changed(&after), expected);
        assert_eq!(after.changed(&before), expected);
        assert_eq!(before.changed(&before), 0);
    }

    #[test]
    fn points_follow_the_statement() {
        // 10 + k*(k-5)/2: 5 -> 10, 6 -> 13, 7 -> 17, 9 -> 28 (integer division).
        assert_eq!(points(4), 0);
        assert_eq!(points(5), 10);
        assert_eq!(points(6), 13);
        assert_eq!(points(7), 17);
        assert_eq!(points(9), 28);
    }

    #[test]
    fn a_line_of_five_goes_in_each_of_the_four_directions() {
        // Row E, column 3, the main diagonal and the anti-diagonal through E5, each completed
        // by moving the fifth number in.
        let cases = [
            ("......... ......... ......... ......... 1111..... ......... ......... ......... ........1", "I9", "E5"),
            ("..2...... ..2...... ..2...... ..2...... ......... ......... ......... ......... 2........", "I1", "E3"),
            ("3........ .3....... ..3...... ...3..... ......... ......... ......... ......... ........3", "I9", "E5"),
            ("........4 .......4. ......4.. .....4... ......... ......... ......... ......... 4........", "I1", "E5"),
        ];
        for (rows, from, to) in cases {
            let mut b = board(rows);
            assert_eq!(b.try_move(cell(from), cell(to)), Ok(5), "{rows}");
            assert_eq!(b, Board::EMPTY, "{rows}");
        }
    }

    #[test]
    fn four_in_a_row_stay_and_a_longer_line_goes_whole() {
        let mut b = board(
            "......... ......... ......... ......... 111...... ......... ......... ......... ........1",
        );
        assert_eq!(b.try_move(cell("I9"), cell("E4")), Ok(0));
        assert_eq!(b.empty_count(), 81 - 4);
        // 6 in a row: 3 left of the gap, 2 right of it, the moved one in it.
        let mut b = board(
            "......... ......... ......... ......... 555.55... ......... ......... ......... 5........",
        );
        assert_eq!(b.try_move(cell("I1"), cell("E4")), Ok(6));
        assert_eq!(b, Board::EMPTY);
    }

    #[test]
    fn crossing_lines_count_their_shared_cell_once() {
        let mut b = board(
            "..6...... ..6...... ..6...... ..6...... 66.66.... ......... ......... ......... ..6......",
        );
        assert_eq!(b.try_move(cell("I3"), cell("E3")), Ok(9));
        assert_eq!(points(9), 28);
        assert_eq!(b, Board::EMPTY);
    }

    #[test]
    fn a_move_needs_a_path_of_empty_cells() {
        // A1 is walled in by B1, B2 and A2 (no diagonal steps); I9 reaches everything else.
        let mut b = board(
            "17....... 22....... ......... ......... ......... ......... ......... ......... ........3",
        );
        assert_eq!(b.try_move(cell("A1"), cell("E5")), Err("no path"));
        assert_eq!(b.reachable_from(cell("A1")), 0);
        assert_eq!(b.try_move(cell("I9"), cell("A3")), Ok(0));
        assert_eq!(b.try_move(cell("A2"), cell("A1")), Err("target taken"));
        assert_eq!(b.try_move(cell("C3"), cell("C4")), Err("nothing to move"));
        // A9 is walled in by A8 and B9: the right edge does not wrap to B1 (next in reading
        // order, and empty).
        let walled = board(
            ".......21 ........2 ......... ......... ......... ......... ......... ......... .........",
        );
        assert_eq!(walled.reachable_from(cell("A9")), 0);
    }

    #[test]
    fn moves_are_every_number_next_to_a_region_times_the_region() {
        // Two regions: A1 alone (next to A2, B1) and the rest.
        let b = board(
            ".1....... 2........ ......... ......... ......... ......... ......... ......... .........",
        );
        let mut moves = Vec::new();
        b.for_each_move(|from, to| moves.push((from, to)));
        assert_eq!(moves.len(), 2 + 2 * 78);
        assert!(moves.contains(&(cell("A2"), cell("A1"))));
        assert!(moves.contains(&(cell("B1"), cell("I9"))));
    }

    #[test]
    fn landing_fills_empty_cells_and_scores_the_lines_it_completes() {
        let mut rng = Rng::new(3);
        let mut b = Board::EMPTY;
        for c in 0..CELLS - 2 {
            b.put(c, 1 + (c % 2) as u8 + 2 * ((c / SIDE) % 2) as u8);
        }
        assert_eq!(b.land([7, 7, 7], &mut rng), 0);
        assert_eq!(b.empty_count(), 0);
        // A landing that completes a line scores it.
        let mut b = board(
            "......... ......... ......... ......... 1111..... ......... ......... ......... .........",
        );
        let points_of_e5 = b.place(cell("E5"), 1);
        assert_eq!(points_of_e5, 10);
        assert_eq!(b, Board::EMPTY);
    }
}
