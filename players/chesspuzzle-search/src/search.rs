//! Choosing a click: flat Monte Carlo. Each allowed cell is scored by the mean length of
//! rollouts that click it and then go on with a light policy, the hidden tiles drawn
//! uniformly (each tile type 1/8, independently, as the statement generates them) when a
//! rollout reveals them. The candidates share the random stream's seeds per rollout, so they
//! are compared on the same luck where their paths agree.
//!
//! Pure apart from its own random stream: no input, no output, no clock.

use crate::rng::Rng;
use crate::rules::{Geometry, EMPTY};

/// What the player knows: the top tile of every cell and how many tiles each has left.
#[derive(Clone)]
pub(crate) struct Known {
    pub(crate) top: Vec<u8>,
    pub(crate) left: Vec<u8>,
}

pub(crate) struct Search {
    pub(crate) geometry: Geometry,
    rng: Rng,
    scratch: Known,
    /// For every cell, how many cells its top tile allows (0 when it is empty): the rollout
    /// policy's measure, kept up to date click by click instead of recounted.
    options: Vec<u8>,
    scratch_options: Vec<u8>,
    /// Rollout steps done so far (the work counter budgets are kept in).
    pub(crate) steps: u64,
    /// Longest rollout, in clicks.
    pub(crate) horizon: u32,
}

impl Search {
    pub(crate) fn new(geometry: Geometry, seed: u64, horizon: u32) -> Search {
        let n = geometry.cells();
        Search {
            geometry,
            rng: Rng::new(seed),
            scratch: Known {
                top: vec![EMPTY; n],
                left: vec![0; n],
            },
            options: vec![0; n],
            scratch_options: vec![0; n],
            steps: 0,
            horizon,
        }
    }

    /// Clicks from `first` on (it included) until no cell is allowed or the horizon, with
    /// the light policy: the allowed cell whose visible tile allows the most cells next, then
    /// one that keeps a tile, ties broken at random.
    fn rollout(&mut self, known: &Known, first: usize, seed: u64) -> u32 {
        let mut rng = Rng::new(seed);
        let s = &mut self.scratch;
        s.top.copy_from_slice(&known.top);
        s.left.copy_from_slice(&known.left);
        let options = &mut self.scratch_options;
        options.copy_from_slice(&self.options);
        let g = &self.geometry;
        let mut cell = first;
        let mut clicks = 0;
        loop {
            let tile = s.top[cell];
            s.left[cell] -= 1;
            if s.left[cell] > 0 {
                s.top[cell] = rng.below(8) as u8;
                options[cell] = g.allowed_count(&s.left, cell, s.top[cell]) as u8;
            } else {
                s.top[cell] = EMPTY;
                options[cell] = 0;
                // Every cell whose top tile reached this one has one option fewer.
                for t in 0..8u8 {
                    for &from in g.into(cell, t) {
                        if s.top[from as usize] == t {
                            options[from as usize] -= 1;
                        }
                    }
                }
            }
            clicks += 1;
            if clicks >= self.horizon {
                break;
            }
            // The policy in one pass over the cells the tile reaches: the one whose top tile
            // allows the most cells, then one that keeps a tile, ties broken at random.
            let mut best = usize::MAX;
            let mut best_n = 0;
            let mut ties = 0;
            for &next in g.reach(cell, tile) {
                let next = next as usize;
                if s.left[next] == 0 {
                    continue;
                }
                debug_assert_eq!(
                    options[next] as usize,
                    g.allowed_count(&s.left, next, s.top[next])
                );
                // Ties go to a cell that keeps a tile (an emptied cell is lost for good).
                let n = 2 * u16::from(options[next]) + u16::from(s.left[next] > 1);
                if best == usize::MAX || n > best_n {
                    best = next;
                    best_n = n;
                    ties = 1;
                } else if n == best_n {
                    ties += 1;
                    if rng.below(ties) == 0 {
                        best = next;
                    }
                }
            }
            if best == usize::MAX {
                break;
            }
            cell = best;
        }
        self.steps += u64::from(clicks);
        clicks
    }

    /// The cell to click among `allowed`, spending about `budget` rollout steps: successive
    /// halving (every round of rollouts goes to the cells still in the race, and after each
    /// phase the worse half drops out).
    pub(crate) fn choose(&mut self, known: &Known, allowed: &[u16], budget: u64) -> usize {
        if allowed.len() == 1 {
            return allowed[0] as usize;
        }
        for cell in 0..self.geometry.cells() {
            self.options[cell] = if known.left[cell] > 0 {
                self.geometry
                    .allowed_count(&known.left, cell, known.top[cell]) as u8
            } else {
                0
            };
        }
        // (sum of rollout lengths, rollouts, cell)
        let mut alive: Vec<(u64, u64, u16)> = allowed.iter().map(|&c| (0, 0, c)).collect();
        let phases = (usize::BITS - (allowed.len() - 1).leading_zeros()) as u64;
        let per_phase = budget / phases;
        loop {
            let start = self.steps;
            let mut rounds = 0;
            while rounds < 1 || (self.steps - start < per_phase && rounds < 10_000) {
                let seed = self.rng.next_u64();
                for entry in alive.iter_mut() {
                    entry.0 += u64::from(self.rollout(known, entry.2 as usize, seed));
                    entry.1 += 1;
                }
                rounds += 1;
            }
            // Best mean first (sums over the same rollouts while in the race), the first of
            // equals by position.
            alive.sort_by(|a, b| (b.0 * a.1).cmp(&(a.0 * b.1)).then(a.2.cmp(&b.2)));
            if alive.len() <= 2 {
                return alive[0].2 as usize;
            }
            alive.truncate(alive.len().div_ceil(2));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_counts_kept_click_by_click_match_a_recount() {
        // Debug builds check every count the policy reads against a recount.
        for seed in 1..=3 {
            let (score, clicks, tiles) = crate::selfplay::game_with(seed, 3, 10_000);
            assert!(clicks >= 1 && clicks <= tiles && score > 0.0);
        }
    }

    #[test]
    fn the_same_seed_plays_the_same_game() {
        assert_eq!(
            crate::selfplay::game_with(4, 7, 50_000),
            crate::selfplay::game_with(4, 7, 50_000)
        );
    }

    #[test]
    fn a_click_that_leads_on_beats_one_that_ends_the_game() {
        // A 6x6 board of single knights, all cells empty but (0, 3), (2, 2) and (5, 5).
        // Clicking (0, 3) leads on to (2, 2), a knight's jump away; clicking (5, 5) ends the
        // game, its jumps (3, 4) and (4, 3) being empty.
        let geometry = Geometry::new(6, 6);
        let knight = crate::rules::tile_of(b'K').unwrap();
        let mut known = Known {
            top: vec![EMPTY; 36],
            left: vec![0; 36],
        };
        for cell in [3, 14, 35] {
            known.top[cell] = knight;
            known.left[cell] = 1;
        }
        let mut search = Search::new(geometry, 1, 1000);
        assert_eq!(search.choose(&known, &[3, 35], 1000), 3);
    }
}
