//! The static evaluation of a position: free space, line potential and connectivity.
//!
//! - Free space: every empty cell is worth [`Weights::empty`].
//! - Line potential: every stretch of 5 cells in a row, column or diagonal (a *window*) that
//!   holds one number and empty cells is worth [`Weights::window`] of how many it holds; a
//!   window mixing numbers is worth nothing.
//! - Runs: 2 or more equal numbers next to each other in a line, with room to grow to 5,
//!   are worth [`Weights::run`] times `(m - 1)^2` for a run of `m` (see [`runs`]).
//! - Mixing: each pair of different numbers next to each other in a line direction costs
//!   [`Weights::mixed`] (such clusters block every line through them).
//! - Connectivity: empty cells outside the largest region of empty cells cost
//!   [`Weights::cut_off`] each (numbers there are stuck, and cells there are hard to use).
//! - Plans (how a strong player counts): a window of `m` of one number can be finished in
//!   `5 - m` moves when at least that many numbers of its kind outside it touch the regions
//!   of empty cells its holes are in. The fewest such moves on the board is worth
//!   [`Weights::plan1`] (a line next move) or [`Weights::plan2`] (a line in two); each kind
//!   beyond the first with a 2-move plan adds [`Weights::plans2`]; a window of 4 that no
//!   number of its kind can reach costs [`Weights::stuck4`]. Only windows of 3 and 4 are
//!   read for these (the ones [`Windows::scan_into`] lists), so they cost little (see
//!   [`Windows::plans`]).
//!
//! Pure: reads boards, touches nothing else.

use crate::rules::{
    cells_of, flood, neighbours, step, Board, ALL, CELLS, DIRECTIONS, MIN_LINE, NEIGHBOUR, NONE,
};

/// The knobs of the evaluation.
#[derive(Clone, Debug)]
pub(crate) struct Weights {
    /// Per empty cell.
    pub(crate) empty: f32,
    /// A window holding `m` of one number and nothing else, by `m` (0..=4).
    pub(crate) window: [f32; MIN_LINE],
    /// Per empty cell cut off from the largest region.
    pub(crate) cut_off: f32,
    /// Per point scored.
    pub(crate) point: f32,
    /// How much a number in `nextThree` adds to its windows' worth (a factor 1 + this).
    pub(crate) next: f32,
    /// Per run of `m` equal numbers in a line (row, column or diagonal, `m` at least 2) with
    /// room to grow into a line of 5: this times `(m - 1)^2`.
    pub(crate) run: f32,
    /// Per pair of different numbers next to each other (in any of the 4 line directions).
    pub(crate) mixed: f32,
    /// When the fewest moves that finish a line with numbers already on the board is 1.
    pub(crate) plan1: f32,
    /// When the fewest moves that finish a line with numbers already on the board is 2.
    pub(crate) plan2: f32,
    /// Per number kind (beyond the first) with a window it can finish in 2 moves.
    pub(crate) plans2: f32,
    /// Per window of 4 of one number that no number of its kind can reach.
    pub(crate) stuck4: f32,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            empty: 7.0,
            window: [-0.3, 0.1, 2.0, 14.0, 50.0],
            cut_off: 3.0,
            point: 10.0,
            next: 0.1,
            run: 2.0,
            mixed: 2.0,
            plan1: 60.0,
            plan2: 30.0,
            plans2: 15.0,
            stuck4: 20.0,
        }
    }
}

/// The windows of the board and which windows each cell is in.
pub(crate) struct Windows {
    cells: Vec<[u8; MIN_LINE]>,
    masks: Vec<u128>,
    of_cell: Vec<Vec<u16>>,
}

impl Windows {
    pub(crate) fn new() -> Windows {
        let mut cells = Vec::new();
        let mut masks = Vec::new();
        let mut of_cell = vec![Vec::new(); CELLS];
        for start in 0..CELLS {
            for dir in DIRECTIONS {
                if step(start, dir, MIN_LINE as isize - 1).is_none() {
                    continue;
                }
                let window: [u8; MIN_LINE] = std::array::from_fn(|k| {
                    step(start, dir, k as isize).expect("end is on the board") as u8
                });
                for &c in &window {
                    of_cell[c as usize].push(cells.len() as u16);
                }
                masks.push(window.iter().fold(0u128, |m, &c| m | 1 << c));
                cells.push(window);
            }
        }
        Windows {
            cells,
            masks,
            of_cell,
        }
    }

    /// The number a window holds and how many of it, or `None` when it mixes numbers.
    #[inline]
    fn content(&self, board: &Board, window: usize) -> Option<(u8, usize)> {
        let mut number = 0;
        let mut held = 0;
        for &c in &self.cells[window] {
            let n = board.get(c as usize);
            if n != 0 {
                if number != 0 && n != number {
                    return None;
                }
                number = n;
                held += 1;
            }
        }
        Some((number, held))
    }

    /// [`Self::content`] from the board's masks of each number (`kinds_of`): the same
    /// answer, faster when every window is read.
    #[inline]
    fn content_of(&self, board: &Board, kinds: &[u128; 8], window: usize) -> Option<(u8, usize)> {
        let held = self.masks[window] & !board.empty();
        if held == 0 {
            return Some((0, 0));
        }
        let number = board.get(held.trailing_zeros() as usize);
        (held & !kinds[number as usize] == 0).then_some((number, held.count_ones() as usize))
    }

    #[inline]
    fn value(&self, board: &Board, window: usize, w: &Weights, bonus: &[f32; 8]) -> f32 {
        match self.content(board, window) {
            Some((number, held)) if held < MIN_LINE => w.window[held] * bonus[number as usize],
            _ => 0.0,
        }
    }

    /// The line potential of the whole board.
    pub(crate) fn potential(&self, board: &Board, w: &Weights, bonus: &[f32; 8]) -> f32 {
        let kinds = board.kinds();
        let mut sum = 0.0;
        for i in 0..self.cells.len() {
            if let Some((number, held)) = self.content_of(board, kinds, i) {
                if held < MIN_LINE {
                    sum += w.window[held] * bonus[number as usize];
                }
            }
        }
        sum
    }

    /// The line potential of the windows through `a` or `b`.
    pub(crate) fn potential_near(
        &self,
        board: &Board,
        a: usize,
        b: usize,
        w: &Weights,
        bonus: &[f32; 8],
    ) -> f32 {
        let mut sum = 0.0;
        for &i in &self.of_cell[a] {
            sum += self.value(board, i as usize, w, bonus);
        }
        for &i in &self.of_cell[b] {
            if self.masks[i as usize] & (1 << a) == 0 {
                sum += self.value(board, i as usize, w, bonus);
            }
        }
        sum
    }

    /// [`Self::scan_into`] of `board`, which differs from the board scanned into `known` only
    /// on the cells of `changed`: the windows through those cells are read again, the rest
    /// is taken from `known`. Much less work when a few numbers landed and no line went.
    pub(crate) fn rescan(
        &self,
        board: &Board,
        changed: u128,
        known: &Scan,
        w: &Weights,
        bonus: &[f32; 8],
        out: &mut Scan,
    ) {
        let mut touched = [0u64; 3];
        for cell in cells_of(changed) {
            for &i in &self.of_cell[cell] {
                touched[i as usize / 64] |= 1 << (i % 64);
            }
        }
        let is_touched = |i: u16| touched[i as usize / 64] & (1 << (i % 64)) != 0;
        out.values.clone_from(&known.values);
        out.fours.clear();
        out.big.clear();
        out.fours
            .extend(known.fours.iter().copied().filter(|&i| !is_touched(i)));
        out.big
            .extend(known.big.iter().copied().filter(|&i| !is_touched(i)));
        let kinds = board.kinds();
        let mut sum = known.potential;
        for (word, &bits) in touched.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let i = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                sum += self.read_window(board, kinds, i, w, bonus, out) - known.values[i];
            }
        }
        out.potential = sum;
    }

    /// The line potential of the whole board (each window's worth, as [`Self::potential`]),
    /// the windows holding 4 of one number and an empty cell and those holding 3 or 4, into
    /// `out` (which [`Self::rescan`] can start from).
    pub(crate) fn scan_into(&self, board: &Board, w: &Weights, bonus: &[f32; 8], out: &mut Scan) {
        out.fours.clear();
        out.big.clear();
        out.values.resize(self.cells.len(), 0.0);
        let kinds = board.kinds();
        let mut sum = 0.0;
        for i in 0..self.cells.len() {
            sum += self.read_window(board, kinds, i, w, bonus, out);
        }
        out.potential = sum;
    }

    /// Reads window `i` of `board` into `out` (its worth, and whether it is a 4 or a 3 or 4
    /// of one number) and returns its worth.
    #[inline]
    fn read_window(
        &self,
        board: &Board,
        kinds: &[u128; 8],
        i: usize,
        w: &Weights,
        bonus: &[f32; 8],
        out: &mut Scan,
    ) -> f32 {
        let value = match self.content_of(board, kinds, i) {
            Some((number, held)) if held < MIN_LINE => {
                if held == MIN_LINE - 1 {
                    out.fours.push(i as u16);
                }
                if held >= MIN_LINE - 2 {
                    out.big.push(i as u16);
                }
                w.window[held] * bonus[number as usize]
            }
            _ => 0.0,
        };
        out.values[i] = value;
        value
    }

    /// The moves that complete a line in a window of 4 that [`Self::scan_into`] found: a number of
    /// the window's kind, from outside it, next to the region of its empty cell.
    pub(crate) fn finishing_from(&self, board: &Board, fours: &[u16], out: &mut Vec<(u8, u8)>) {
        out.clear();
        let kinds = board.kinds();
        for &i in fours {
            let i = i as usize;
            let number = board.get((self.masks[i] & !board.empty()).trailing_zeros() as usize);
            let hole = self.masks[i] & board.empty();
            let region = flood(hole, board.empty());
            let movers = neighbours(region) & kinds[number as usize] & !self.masks[i];
            let to = hole.trailing_zeros() as u8;
            for from in cells_of(movers) {
                if !out.contains(&(from as u8, to)) {
                    out.push((from as u8, to));
                }
            }
        }
    }
}

/// What a scan of the windows found: the line potential, the windows holding 4 of one
/// number and an empty cell, those holding 3 or 4, and each window's worth.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scan {
    pub(crate) potential: f32,
    pub(crate) fours: Vec<u16>,
    pub(crate) big: Vec<u16>,
    values: Vec<f32>,
}

/// Empty cells outside the largest region of empty cells.
pub(crate) fn cut_off(board: &Board) -> u32 {
    let mut left = board.empty();
    let total = left.count_ones();
    let mut largest = 0;
    while left != 0 {
        let region = flood(left & left.wrapping_neg(), left);
        largest = largest.max(region.count_ones());
        left &= !region;
        if largest * 2 >= total {
            break;
        }
    }
    total - largest
}

/// A multiplier per number: numbers in `next` help their windows a bit more.
pub(crate) fn bonus_of(next: &[u8], per: f32) -> [f32; 8] {
    let mut bonus = [1.0; 8];
    for &n in next {
        bonus[n as usize] += per;
    }
    bonus
}

/// The static evaluation (free space, line potential, runs, connectivity and plans), given
/// the board's line potential and its windows of 3 and 4 (`big`, from its scan).
pub(crate) fn evaluate_with(
    board: &Board,
    potential: f32,
    w: &Weights,
    windows: &Windows,
    big: &[u16],
) -> f32 {
    board.empty_count() as f32 * w.empty + potential + runs(board, w)
        - cut_off(board) as f32 * w.cut_off
        + windows.plans(board, w, big)
}

impl Windows {
    /// The plan terms (see the [module](self)), from `big`, the windows holding 3 or 4 of one
    /// number and empty cells ([`Windows::scan_into`]).
    pub(crate) fn plans(&self, board: &Board, w: &Weights, big: &[u16]) -> f32 {
        let empty = board.empty();
        let kinds = board.kinds();
        let occupied = ALL & !empty;
        // Regions of empty cells met so far, with the numbers next to each.
        let mut regions: [(u128, u128); 12] = [(0, 0); 12];
        let mut count = 0;
        let mut fewest = MIN_LINE;
        let mut kinds2 = 0u8;
        let mut sum = 0.0;
        for &i in big {
            let mask = self.masks[i as usize];
            let held = mask & occupied;
            let m = held.count_ones() as usize;
            let number = board.get(held.trailing_zeros() as usize);
            debug_assert!(
                (MIN_LINE - 2..MIN_LINE).contains(&m) && held & !kinds[number as usize] == 0,
                "window {i} is not a 3 or 4 of one number: `big` is from another board"
            );
            let mut touch = 0u128;
            for hole in cells_of(mask & empty) {
                let bit = 1u128 << hole;
                touch |= match regions[..count].iter().find(|(r, _)| r & bit != 0) {
                    Some(&(_, next)) => next,
                    None => {
                        let region = flood(bit, empty);
                        let next = neighbours(region) & occupied;
                        if count < regions.len() {
                            regions[count] = (region, next);
                            count += 1;
                        }
                        next
                    }
                };
            }
            let movers = (touch & kinds[number as usize] & !mask).count_ones() as usize;
            let holes = MIN_LINE - m;
            if movers == 0 && m == MIN_LINE - 1 {
                sum -= w.stuck4;
            }
            if movers >= holes {
                fewest = fewest.min(holes);
                if holes == 2 {
                    kinds2 |= 1 << number;
                }
            }
        }
        sum += match fewest {
            1 => w.plan1,
            2 => w.plan2,
            _ => 0.0,
        };
        sum + kinds2.count_ones().saturating_sub(1) as f32 * w.plans2
    }
}

/// The runs of 2 or more equal numbers next to each other in a row, column or diagonal
/// that have room (empty cells on either side) to grow into a line, each worth
/// [`Weights::run`] times `(m - 1)^2` for a run of `m`; less [`Weights::mixed`] per pair of
/// different numbers next to each other.
pub(crate) fn runs(board: &Board, w: &Weights) -> f32 {
    let (mut mixed, mut sum) = (0u32, 0usize);
    let at = |c: u8| board.get(c as usize);
    for cell in cells_of(!board.empty() & ALL) {
        let number = board.get(cell);
        for (d, &[next, prev]) in NEIGHBOUR[cell].iter().enumerate() {
            if next != NONE && at(next) != 0 && at(next) != number {
                mixed += 1;
            }
            // Each run is counted once, from its first cell.
            if w.run == 0.0 || (prev != NONE && at(prev) == number) {
                continue;
            }
            let (mut len, mut c) = (1, next);
            while c != NONE && at(c) == number {
                len += 1;
                c = NEIGHBOUR[c as usize][d][0];
            }
            if len < 2 {
                continue;
            }
            let mut room = 0;
            while c != NONE && at(c) == 0 && room < MIN_LINE {
                room += 1;
                c = NEIGHBOUR[c as usize][d][0];
            }
            let mut c = prev;
            let mut behind = 0;
            while c != NONE && at(c) == 0 && behind < MIN_LINE {
                behind += 1;
                c = NEIGHBOUR[c as usize][d][1];
            }
            if len + room + behind >= MIN_LINE {
                sum += (len - 1) * (len - 1);
            }
        }
    }
    sum as f32 * w.run - mixed as f32 * w.mixed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn runs_count_only_runs_with_room_to_grow() {
        let w = Weights {
            run: 1.0,
            ..Weights::default()
        };
        // A run of 3 in row E with room: (3-1)^2 = 4; a lone number: nothing.
        let open = rows("......... ......... ......... ......... 111...... ......... ......... ......... ........2");
        assert_eq!(runs(&open, &w), 4.0);
        // The same run walled in by 2s has room for 4 only: nothing.
        let walled = rows("......... ......... ......... ......... 111.2.... ......... ......... ......... .........");
        assert_eq!(runs(&walled, &w), 0.0);
        // Two runs of 2 on a diagonal and a column: 1 each.
        let two = rows("3........ .3....... ......... ......... ......... ......... ......... ........4 ........4");
        assert_eq!(runs(&two, &w), 2.0);
    }

    #[test]
    fn finishing_moves_complete_a_four_from_a_reachable_number() {
        let windows = Windows::new();
        let w = Weights::default();
        let finishing = |board: &Board| {
            let mut scan = Scan::default();
            windows.scan_into(board, &w, &[1.0; 8], &mut scan);
            assert_eq!(scan.potential, windows.potential(board, &w, &[1.0; 8]));
            let mut out = Vec::new();
            windows.finishing_from(board, &scan.fours, &mut out);
            out
        };
        // Four 1s in row E (hole E5) and a 1 on I9 that can reach it: one finishing move.
        let open = rows("......... ......... ......... ......... 1111..... ......... ......... ......... ........1");
        assert_eq!(finishing(&open), vec![(80, 40)]);
        // The same 1 walled in by 2s in the corner: none.
        let walled = rows("......... ......... ......... ......... 1111..... ......... ......... .......22 .......21");
        assert_eq!(finishing(&walled), vec![]);
        // A four with a 2 in its fifth cell is no four.
        let mixed = rows("......... ......... ......... ......... 11112.... ......... ......... ......... ........1");
        assert_eq!(finishing(&mixed), vec![]);
    }

    #[test]
    fn plans_count_the_moves_numbers_on_the_board_can_finish_a_line_in() {
        let windows = Windows::new();
        let w = Weights {
            plan1: 100.0,
            plan2: 10.0,
            plans2: 1.0,
            stuck4: 1000.0,
            ..Weights::default()
        };
        let plan = |board: &Board| {
            let mut scan = Scan::default();
            windows.scan_into(board, &w, &[1.0; 8], &mut scan);
            windows.plans(board, &w, &scan.big)
        };
        // Three 1s in row E and two 1s that can reach its holes: a line in 2 moves.
        let two = rows("......... ......... ......... ......... 111...... ......... ......... 1........ ........1");
        assert_eq!(plan(&two), 10.0);
        // Only one 1 outside: no plan.
        let one = rows("......... ......... ......... ......... 111...... ......... ......... ......... ........1");
        assert_eq!(plan(&one), 0.0);
        // A four with a reachable finisher: a line next move.
        let four = rows("......... ......... ......... ......... 1111..... ......... ......... ......... ........1");
        assert_eq!(plan(&four), 100.0);
        // Two kinds with 2-move plans: one more kind.
        let kinds = rows("......... 222...... ......... 2........ 111...... ......... 2........ 1........ ........1");
        assert_eq!(plan(&kinds), 11.0);
        // A four no 1 can reach (walled in by 2s) is stuck, and there is no plan.
        let stuck = rows("......... ......... ......... ......... 1111..... ......... ......... .......22 .......21");
        assert_eq!(plan(&stuck), -1000.0);
    }

    /// A board from its 9 rows, separated by white space.
    fn rows(text: &str) -> Board {
        let rows: Vec<&str> = text.split_whitespace().collect();
        Board::parse(&rows)
    }

    /// A board with about half its cells holding numbers 1..3 (so windows of one number are
    /// common).
    fn half_full(rng: &mut Rng) -> Board {
        let mut board = Board::EMPTY;
        for cell in 0..CELLS {
            if rng.below(2) == 0 {
                board.put(cell, 1 + rng.below(3) as u8);
            }
        }
        board
    }

    #[test]
    fn a_rescan_after_a_landing_finds_what_a_full_scan_finds() {
        let windows = Windows::new();
        let w = Weights::default();
        let bonus = [1.0; 8];
        let mut rng = Rng::new(11);
        for _ in 0..300 {
            let board = half_full(&mut rng);
            let mut known = Scan::default();
            windows.scan_into(&board, &w, &bonus, &mut known);
            let mut landed = board;
            for _ in 0..3 {
                if landed.empty_count() > 0 {
                    let cell =
                        crate::rules::nth_cell(landed.empty(), rng.below(landed.empty_count()));
                    landed.put(cell, 1 + rng.below(3) as u8);
                }
            }
            let mut again = Scan::default();
            windows.rescan(
                &landed,
                board.changed(&landed),
                &known,
                &w,
                &bonus,
                &mut again,
            );
            let mut full = Scan::default();
            windows.scan_into(&landed, &w, &bonus, &mut full);
            let sorted = |list: &[u16]| {
                let mut list = list.to_vec();
                list.sort_unstable();
                list
            };
            assert!((again.potential - full.potential).abs() < 1e-2);
            assert_eq!(sorted(&again.fours), sorted(&full.fours));
            assert_eq!(sorted(&again.big), sorted(&full.big));
            assert_eq!(again.values, full.values);
        }
    }

    #[test]
    fn the_potential_near_a_move_accounts_for_all_its_change() {
        let windows = Windows::new();
        let w = Weights::default();
        let bonus = bonus_of(&[2, 2, 5], 0.5);
        let mut rng = Rng::new(7);
        for _ in 0..200 {
            let board = half_full(&mut rng);
            let mut moves = Vec::new();
            board.for_each_move(|from, to| moves.push((from, to)));
            let Some(&(from, to)) = moves.get(rng.below(moves.len().max(1) as u32) as usize) else {
                continue;
            };
            let mut after = board;
            if after.play(from, to) > 0 {
                continue;
            }
            let delta = windows.potential_near(&after, from, to, &w, &bonus)
                - windows.potential_near(&board, from, to, &w, &bonus);
            let full =
                windows.potential(&after, &w, &bonus) - windows.potential(&board, &w, &bonus);
            assert!((delta - full).abs() < 1e-2, "{delta} vs {full}");
        }
    }
}
