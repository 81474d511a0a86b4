//! Choosing a move.
//!
//! - A move that makes a line is always taken when there is one (it scores, frees cells and
//!   no number lands after it): the one whose points and resulting position are best.
//! - Otherwise every legal move gets a quick value (free space and line potential after it);
//!   the best few, after a connectivity check, are scored by the expectation over sampled
//!   landings of `nextThree` of the value of the position the player then moves in: its
//!   static evaluation, or better, the line it can make at once.
//!
//! The samples are shared by all candidates (each sample is a random order of the cells and
//! the numbers land on its first empty ones, the same cells for every candidate unless the
//! move emptied or filled one), so candidates are compared on the same luck. Successive
//! halving spends them: every candidate meets the first round's samples, the better half
//! meets twice as many new ones, and so on until one is left.
//!
//! Each candidate's windows are scanned once; a landing (or a line made after it) changes a
//! few cells, and only the windows through them are read again ([`Windows::rescan`]).
//!
//! Pure apart from its own random stream: no input, no output, no clock.

use crate::eval::{bonus_of, cut_off, evaluate_with, runs, Scan, Weights, Windows};
use crate::rng::Rng;
use crate::rules::{points, Board, CELLS};

/// How much searching a move may do.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Effort {
    /// Candidates searched past the quick evaluation.
    pub(crate) candidates: usize,
    /// Sampled landings per candidate.
    pub(crate) samples: usize,
    /// Successive halving: `samples` for every candidate, then twice as many for the better
    /// half, and so on (else `samples` for every candidate).
    pub(crate) halving: bool,
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    value: f32,
    from: u8,
    to: u8,
    removed: u8,
}

pub(crate) struct Search {
    windows: Windows,
    pub(crate) weights: Weights,
    rng: Rng,
    /// Evaluations done so far (the work counter budgets are kept in).
    pub(crate) nodes: u64,
    moves: Vec<Candidate>,
    /// The cells the next three numbers will land on, when the player is shown them: only in
    /// self-play's Color Lines 98 mode (`PREVIEW=1`), never in Linez, which shows only the
    /// numbers. The sampled landings then put each number on its cell, or on a random empty
    /// cell when the move took it.
    pub(crate) preview: Option<[u8; 3]>,
}

/// Lines looked for one after the other in a position the player moves in.
const CHAIN: u32 = 2;
/// The value of a lost game (the board filled).
const LOST: f32 = -100_000.0;

impl Search {
    pub(crate) fn new(seed: u64, weights: Weights) -> Search {
        Search {
            windows: Windows::new(),
            rng: Rng::new(seed),
            nodes: 0,
            moves: Vec::with_capacity(4096),
            weights,
            preview: None,
        }
    }

    /// Every legal move with its quick value: points, free space and line potential after
    /// it (no landing, no connectivity).
    fn quick(&mut self, board: &Board, bonus: &[f32; 8]) {
        let w = &self.weights;
        let windows = &self.windows;
        let base = board.empty_count() as f32 * w.empty + windows.potential(board, w, bonus);
        let out = &mut self.moves;
        out.clear();
        board.for_each_move(|from, to| {
            let mut after = *board;
            let removed = after.play(from, to);
            let value = if removed > 0 {
                points(removed) as f32 * w.point
                    + after.empty_count() as f32 * w.empty
                    + windows.potential(&after, w, bonus)
            } else {
                base - windows.potential_near(board, from, to, w, bonus)
                    + windows.potential_near(&after, from, to, w, bonus)
            };
            out.push(Candidate {
                value,
                from: from as u8,
                to: to as u8,
                removed: removed as u8,
            });
        });
        self.nodes += out.len() as u64;
    }

    /// The static evaluation of `board` whose line potential is `potential`.
    fn evaluate(&mut self, board: &Board, potential: f32, big: &[u16]) -> f32 {
        // A full evaluation costs about as much as 4 moves of the quick one.
        self.nodes += 4;
        evaluate_with(board, potential, &self.weights, &self.windows, big)
    }

    /// The value of a position the player moves in: the best line it can make at once
    /// (points and the position left), else its static evaluation.
    fn player_to_move(&mut self, board: &Board, bonus: &[f32; 8]) -> f32 {
        self.chain(board, bonus, CHAIN)
    }

    /// [`Self::player_to_move`] with up to `depth` lines made one after the other (a line
    /// gives the move back).
    /// The player always makes a line when it can, so a position with one is worth its best
    /// line, whatever potential the line uses up.
    fn chain(&mut self, board: &Board, bonus: &[f32; 8], depth: u32) -> f32 {
        let mut scan = Scan::default();
        self.windows
            .scan_into(board, &self.weights, bonus, &mut scan);
        self.chain_scanned(board, &scan, bonus, depth)
    }

    /// [`Self::chain`] of a board whose windows are scanned already.
    fn chain_scanned(&mut self, board: &Board, scan: &Scan, bonus: &[f32; 8], depth: u32) -> f32 {
        if depth == 0 || scan.fours.is_empty() {
            return self.evaluate(board, scan.potential, &scan.big);
        }
        let mut finishing = Vec::new();
        self.windows
            .finishing_from(board, &scan.fours, &mut finishing);
        let mut best: Option<f32> = None;
        let mut next = Scan::default();
        for &(from, to) in &finishing {
            let mut after = *board;
            let removed = after.play(from as usize, to as usize);
            let changed = board.changed(&after);
            self.windows
                .rescan(&after, changed, scan, &self.weights, bonus, &mut next);
            let value = points(removed) as f32 * self.weights.point
                + self.chain_scanned(&after, &next, bonus, depth - 1);
            best = Some(best.map_or(value, |b| b.max(value)));
        }
        best.unwrap_or_else(|| self.evaluate(board, scan.potential, &scan.big))
    }

    /// A uniformly random order of all the cells, from the search's own stream.
    fn order(&mut self) -> [u8; CELLS] {
        random_order(&mut self.rng)
    }

    /// The move to make, or `None` when nothing can move.
    pub(crate) fn choose(
        &mut self,
        board: &Board,
        next: [u8; 3],
        effort: Effort,
    ) -> Option<(usize, usize)> {
        let bonus = bonus_of(&next, self.weights.next);
        self.quick(board, &bonus);
        if self.moves.is_empty() {
            return None;
        }
        let order = |a: &Candidate, b: &Candidate| {
            b.value
                .total_cmp(&a.value)
                .then((a.from, a.to).cmp(&(b.from, b.to)))
        };
        let lines: Vec<Candidate> = self
            .moves
            .iter()
            .filter(|c| c.removed > 0)
            .copied()
            .collect();
        if !lines.is_empty() {
            let mut best: Option<(f32, Candidate)> = None;
            for c in lines {
                let mut after = *board;
                after.play(c.from as usize, c.to as usize);
                let value = points(c.removed as usize) as f32 * self.weights.point
                    + self.player_to_move(&after, &bonus);
                if best.is_none_or(|(v, _)| value > v) {
                    best = Some((value, c));
                }
            }
            return best.map(|(_, c)| (c.from as usize, c.to as usize));
        }
        self.moves.sort_unstable_by(order);
        let shortlist = (effort.candidates * 3).max(1).min(self.moves.len());
        let mut short: Vec<Candidate> = self.moves[..shortlist].to_vec();
        let mut scan = Scan::default();
        for c in &mut short {
            let mut after = *board;
            after.play(c.from as usize, c.to as usize);
            self.windows
                .scan_into(&after, &self.weights, &bonus, &mut scan);
            c.value += runs(&after, &self.weights) - cut_off(&after) as f32 * self.weights.cut_off
                + self.windows.plans(&after, &self.weights, &scan.big);
        }
        short.sort_by(order);
        short.truncate(effort.candidates.max(1));
        if effort.samples == 0 || short.len() == 1 {
            return Some((short[0].from as usize, short[0].to as usize));
        }
        // The shared landings: a random order of the cells per sample. Successive halving:
        // every candidate left meets the same new samples, then the better half stays, with
        // twice as many samples next round.
        let unknown = [1.0; 8];
        // Each candidate's position and its scan: a landing changes three cells, whose
        // windows alone are read again.
        let mut left: Vec<(f32, Candidate, Board, Scan)> = short
            .iter()
            .map(|&c| {
                let mut after = *board;
                after.play(c.from as usize, c.to as usize);
                let mut scan = Scan::default();
                self.windows
                    .scan_into(&after, &self.weights, &unknown, &mut scan);
                (0.0, c, after, scan)
            })
            .collect();
        let mut landed_scan = Scan::default();
        let mut round = effort.samples;
        loop {
            let draws: Vec<[u8; CELLS]> = (0..round).map(|_| self.order()).collect();
            for (sum, _, after, scan) in left.iter_mut() {
                for draw in &draws {
                    let mut landed = *after;
                    let scored = match &self.preview {
                        Some(cells) => land_previewed(&mut landed, next, cells, draw),
                        None => land_with(&mut landed, next, draw),
                    };
                    *sum += if landed.empty_count() == 0 {
                        LOST
                    } else {
                        let changed = after.changed(&landed);
                        self.windows.rescan(
                            &landed,
                            changed,
                            scan,
                            &self.weights,
                            &unknown,
                            &mut landed_scan,
                        );
                        scored as f32 * self.weights.point
                            + self.chain_scanned(&landed, &landed_scan, &unknown, CHAIN)
                    };
                }
            }
            // Stable: equal sums keep the quick order.
            left.sort_by(|a, b| b.0.total_cmp(&a.0));
            if !effort.halving || left.len() <= 1 {
                break;
            }
            left.truncate(left.len().div_ceil(2));
            if left.len() == 1 {
                break;
            }
            round *= 2;
        }
        let best: Option<(f32, Candidate)> = left.first().map(|&(v, c, _, _)| (v, c));
        best.map(|(_, c)| (c.from as usize, c.to as usize))
    }
}

/// The first move that makes a line, else the first legal move (reading order): the
/// player's move when it has no time left to think.
pub(crate) fn first_move(board: &Board) -> Option<(usize, usize)> {
    let mut first = None;
    let mut line = None;
    board.for_each_move(|from, to| {
        first.get_or_insert((from, to));
        if line.is_none() && board.get(from) != 0 {
            let mut after = *board;
            if after.play(from, to) > 0 {
                line = Some((from, to));
            }
        }
    });
    line.or(first)
}

/// Lands `next` as the judge does, each on the first empty cell of `order` (a random order
/// of all the cells): uniform over the empty cells, and the same cells for every candidate
/// move unless the move itself emptied or filled one of them.
fn land_with(board: &mut Board, next: [u8; 3], order: &[u8; CELLS]) -> u64 {
    let mut score = 0;
    for number in next {
        let Some(cell) = first_empty(board, order) else {
            break;
        };
        score += board.place(cell as usize, number);
    }
    score
}

/// The first cell of `order` that is empty on `board`, if any: where a number lands when
/// the landing's cells are a random order of all the cells.
fn first_empty(board: &Board, order: &[u8; CELLS]) -> Option<u8> {
    order.iter().copied().find(|&c| board.get(c as usize) == 0)
}

/// A uniformly random order of all the cells.
pub(crate) fn random_order(rng: &mut Rng) -> [u8; CELLS] {
    let mut order: [u8; CELLS] = std::array::from_fn(|i| i as u8);
    for i in (1..CELLS).rev() {
        order.swap(i, rng.below(i as u32 + 1) as usize);
    }
    order
}

/// Lands `next` as Color Lines 98 does with the cells it showed: number `i` on `cells[i]`,
/// or, when that cell was taken, on the first empty cell of `order` (a random order of all the
/// cells).
pub(crate) fn land_previewed(
    board: &mut Board,
    next: [u8; 3],
    cells: &[u8; 3],
    order: &[u8; CELLS],
) -> u64 {
    let mut score = 0;
    for (number, &shown) in next.into_iter().zip(cells) {
        let cell = if board.get(shown as usize) == 0 {
            shown
        } else {
            match first_empty(board, order) {
                Some(c) => c,
                None => break,
            }
        };
        score += board.place(cell as usize, number);
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::SIDE;

    fn board(rows: &str) -> Board {
        let rows: Vec<&str> = rows.split_whitespace().collect();
        Board::parse(&rows)
    }

    fn cell(name: &str) -> usize {
        let b = name.as_bytes();
        (b[0] - b'A') as usize * SIDE + (b[1] - b'1') as usize
    }

    const FULL: Effort = Effort {
        candidates: 8,
        samples: 8,
        halving: true,
    };

    #[test]
    fn makes_a_line_when_it_can() {
        let b = board(
            "3........ ......... ......... ......... 3333..... ......... ......... ......... ........7",
        );
        let mut search = Search::new(1, Weights::default());
        assert_eq!(
            search.choose(&b, [1, 2, 4], FULL),
            Some((cell("A1"), cell("E5")))
        );
        assert_eq!(first_move(&b), Some((cell("A1"), cell("E5"))));
    }

    #[test]
    fn prefers_the_bigger_line() {
        // I1 to E4 makes 6 in row E (13 points); I8 to E9 makes 5 in column 9 (10 points).
        let b = board(
            "........6 ........6 ........6 ........6 555.55... ......... ......... ......... 5......67",
        );
        let mut search = Search::new(1, Weights::default());
        let (from, to) = search.choose(&b, [1, 2, 3], FULL).unwrap();
        assert_eq!((from, to), (cell("I1"), cell("E4")));
    }

    #[test]
    fn builds_a_four_it_can_finish_rather_than_scattering() {
        // Three 2s in row E and two more 2s elsewhere: the move should put a 2 next to the
        // three (making a 4 the other 2 can finish).
        let b = board(
            "......... ......... ......... ......... 222...... ......... ......... 2........ ........2",
        );
        let mut search = Search::new(1, Weights::default());
        let (from, to) = search.choose(&b, [5, 6, 7], FULL).unwrap();
        assert_eq!(b.get(from), 2);
        assert!(
            [cell("E4"), cell("E5")].contains(&to),
            "moved to {}",
            crate::rules::name(to)
        );
    }

    #[test]
    fn previewed_numbers_land_on_their_cells_or_anywhere_when_taken() {
        // A1 and A3 are shown and empty; A2 is shown but taken, so its number goes to the
        // first empty cell of the order (A2 and A1 are not, I9 is).
        let mut b = board(
            ".1....... ......... ......... ......... ......... ......... ......... ......... .........",
        );
        let mut order: [u8; CELLS] = std::array::from_fn(|i| (CELLS - 1 - i) as u8);
        order[..3].copy_from_slice(&[cell("A2") as u8, cell("A1") as u8, cell("I9") as u8]);
        let shown = [cell("A1") as u8, cell("A2") as u8, cell("A3") as u8];
        assert_eq!(land_previewed(&mut b, [5, 6, 7], &shown, &order), 0);
        assert_eq!(b.get(cell("A1")), 5);
        assert_eq!(b.get(cell("A2")), 1);
        assert_eq!(b.get(cell("I9")), 6);
        assert_eq!(b.get(cell("A3")), 7);
        assert_eq!(b.empty_count(), 77);
    }

    #[test]
    fn the_same_seed_plays_the_same_game() {
        let w = Weights::default();
        let a = crate::selfplay::game(5, 9, w.clone(), 60, false);
        let b = crate::selfplay::game(5, 9, w, 60, false);
        assert_eq!(a, b);
        assert_eq!(a.1, 60, "the game lasts the 60 moves asked");
    }
}
