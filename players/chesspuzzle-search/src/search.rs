//! Choosing a click: flat Monte Carlo. Each allowed cell is scored by the mean length of
//! rollouts that click it and then go on with a light policy, the hidden tiles drawn
//! uniformly (each tile type 1/8, independently, as the statement generates them) when a
//! rollout reveals them. The candidates share the random stream's seeds per rollout, so they
//! are compared on the same luck where their paths agree.
//!
//! Pure apart from its own random stream: no input, no output, no clock.

use crate::rng::Rng;
use crate::rules::{Cells, Geometry, EMPTY};

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
            steps: 0,
            horizon,
        }
    }

    /// Clicks from `first` on (it included) until no cell is allowed or the horizon, with
    /// the light policy: the allowed cell whose visible tile allows the most cells next,
    /// ties broken at random.
    fn rollout(&mut self, known: &Known, first: usize, seed: u64) -> u32 {
        let mut rng = Rng::new(seed);
        let s = &mut self.scratch;
        s.top.copy_from_slice(&known.top);
        s.left.copy_from_slice(&known.left);
        let g = &self.geometry;
        let mut cell = first;
        let mut clicks = 0;
        loop {
            let tile = s.top[cell];
            s.left[cell] -= 1;
            s.top[cell] = if s.left[cell] > 0 {
                rng.below(8) as u8
            } else {
                EMPTY
            };
            clicks += 1;
            let allowed = g.allowed(&s.left, cell, tile);
            if allowed.len() == 0 || clicks >= self.horizon {
                break;
            }
            cell = pick(g, s, &allowed, &mut rng);
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
        // (sum of rollout lengths, rollouts, cell)
        let mut alive: Vec<(u64, u64, u16)> = allowed.iter().map(|&c| (0, 0, c)).collect();
        let phases = (usize::BITS - (allowed.len() - 1).leading_zeros()) as u64;
        let per_phase = budget / phases;
        loop {
            let start = self.steps;
            let mut rounds = 0;
            while rounds < 2 || (self.steps - start < per_phase && rounds < 10_000) {
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

fn pick(g: &Geometry, s: &Known, allowed: &Cells, rng: &mut Rng) -> usize {
    let cells = allowed.as_slice();
    let mut best = cells[0];
    let mut best_n = 0;
    let mut ties = 0;
    for &c in cells {
        let n = g.allowed_count(&s.left, c as usize, s.top[c as usize]);
        if n > best_n {
            best = c;
            best_n = n;
            ties = 1;
        } else if n == best_n {
            ties += 1;
            if rng.below(ties) == 0 {
                best = c;
            }
        }
    }
    best as usize
}
