//! ChessPuzzle player: a short lookahead over the tiles it can see.
//!
//! Every top tile is visible, so the next few clicks are known exactly until the path comes back
//! to a cell it already clicked, whose next tile is hidden. The player tries every path of up to
//! [`DEPTH`] clicks through the visible tiles and clicks the first cell of the best one: a path
//! that dies early scores its length, one that survives scores its length plus a bonus for the
//! options left at its end. Clicking a cell whose next tile is hidden ends a path with the
//! value of an average tile.
//!
//! Two more terms add to every click of a path: a taste for tall stacks and for cells that
//! few (cell, tile) pairs reach. The weights of the evaluation are parameters that
//! `harness tune` can tune, read from `PARAM_*` variables (declared with their ranges in
//! Cargo.toml; see [`Weights`]); their defaults are the values a tuning found (README,
//! "Tuning parameters"), which replaced the hand-set ones.
//!
//! Standalone on purpose (its own copy of the rules, no harness code): it is written as a
//! competitor would write it, and so checks the judge independently.
//!
//! Protocol: reads `H W K` and the H rows of top tiles, answers `ROW COL`; then reads the tile
//! now on top of the clicked cell (`-` once empty) and clicks again, until its input is closed.

use std::io::{self, BufRead, Write};

/// Clicks looked ahead after the candidate click.
const DEPTH: u32 = 4;
/// A cell whose tile is not known yet (in the lookahead only).
const HIDDEN: u8 = b'?';
const EMPTY: u8 = b'-';

const LINES: [(i32, i32); 8] = [
    (-1, 0),
    (1, 0),
    (0, -1),
    (0, 1),
    (-1, -1),
    (-1, 1),
    (1, -1),
    (1, 1),
];
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

/// The evaluation's weights.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Weights {
    /// Worth of `ln(1 + options)` at the end of a surviving path (`PARAM_OPTIONS`, default
    /// 0.008398; hand-set 0.5 before tuning).
    options: f64,
    /// Clicks a hidden tile is counted for, per click of lookahead left (`PARAM_HIDDEN_STEP`,
    /// default 0.6773; 0.8 before).
    hidden_step: f64,
    /// Options counted at the end of a path through a hidden tile (`PARAM_HIDDEN_OPTIONS`,
    /// default 2.891; 4 before).
    hidden_options: f64,
    /// Cost of emptying a cell, which closes it for good (`PARAM_EMPTIED`, default 0.2294;
    /// 0.15 before).
    emptied: f64,
    /// Per click on a cell, times the share of its K tiles still on it before the click: a
    /// taste for tall stacks, which keeps the board's stacks even (`PARAM_TALL`, default
    /// 0.302; 0, off, before).
    tall: f64,
    /// Per click on a cell that few (cell, tile) pairs can reach, times
    /// `1 - reachers / most reachers of any cell`: take the cells the path may never come back
    /// to while it can (`PARAM_RARE`, default 0.2575; 0, off, before).
    rare: f64,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights::from_vars(|_| None).expect("the defaults parse")
    }
}

impl Weights {
    /// The weights named by `PARAM_*` variables (`var` looks one up), the defaults for the
    /// others. A value that does not parse as a finite number is an error naming the variable.
    fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Weights, String> {
        let get = |name: &str, default: f64| match var(name) {
            None => Ok(default),
            Some(text) => match text.trim().parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => Err(format!("{name}={text:?} is not a valid value")),
            },
        };
        Ok(Weights {
            options: get("PARAM_OPTIONS", 0.008398)?,
            hidden_step: get("PARAM_HIDDEN_STEP", 0.6773)?,
            hidden_options: get("PARAM_HIDDEN_OPTIONS", 2.891)?,
            emptied: get("PARAM_EMPTIED", 0.2294)?,
            tall: get("PARAM_TALL", 0.302)?,
            rare: get("PARAM_RARE", 0.2575)?,
        })
    }

    /// The worth of the options left at the end of a lookahead path: more is safer, with
    /// diminishing returns.
    fn options_bonus(&self, options: f64) -> f64 {
        self.options * (1.0 + options).ln()
    }
}

/// Up to 8 cells (every tile allows at most 8).
#[derive(Clone, Copy, Default)]
struct Cells {
    cells: [u16; 8],
    len: usize,
}

impl Cells {
    fn push(&mut self, cell: u16) {
        self.cells[self.len] = cell;
        self.len += 1;
    }

    fn as_slice(&self) -> &[u16] {
        &self.cells[..self.len]
    }
}

/// What the player knows of the board, and the cells each tile reaches from each cell on an
/// empty-free board (only emptiness changes during the game, so this is computed once).
struct Board {
    height: usize,
    width: usize,
    /// The visible tile of each cell (`-` when empty, `?` in the lookahead when hidden).
    top: Vec<u8>,
    /// Tiles left on each cell.
    left: Vec<u8>,
    /// `reach[cell * 8 + tile]`: the cells the tile allows from the cell, empties ignored.
    reach: Vec<Cells>,
    /// Per cell, `1 - reachers / most reachers of any cell`, where the reachers of a cell are
    /// the (cell, tile) pairs whose `reach` holds it.
    rarity: Vec<f64>,
    k: u8,
    weights: Weights,
}

fn tile_index(tile: u8) -> Option<usize> {
    b"1234KBRQ".iter().position(|&t| t == tile)
}

impl Board {
    fn new(height: usize, width: usize, k: u8, rows: &[Vec<u8>], weights: Weights) -> Board {
        let mut board = Board {
            height,
            width,
            top: rows.concat(),
            left: vec![k; height * width],
            reach: Vec::with_capacity(height * width * 8),
            rarity: Vec::new(),
            k,
            weights,
        };
        for cell in 0..height * width {
            for tile in b"1234KBRQ" {
                let reach = board.reach_from(cell, *tile);
                board.reach.push(reach);
            }
        }
        let mut reachers = vec![0u32; height * width];
        for cells in &board.reach {
            for &cell in cells.as_slice() {
                reachers[cell as usize] += 1;
            }
        }
        let most = reachers.iter().copied().max().unwrap_or(0).max(1) as f64;
        board.rarity = reachers.iter().map(|&r| 1.0 - r as f64 / most).collect();
        board
    }

    fn inside(&self, r: i32, c: i32) -> bool {
        r >= 0 && c >= 0 && (r as usize) < self.height && (c as usize) < self.width
    }

    fn reach_from(&self, cell: usize, tile: u8) -> Cells {
        let (r, c) = ((cell / self.width) as i32, (cell % self.width) as i32);
        let mut out = Cells::default();
        let mut add = |r: i32, c: i32| {
            if self.inside(r, c)
                && (r, c) != ((cell / self.width) as i32, (cell % self.width) as i32)
            {
                out.push((r as usize * self.width + c as usize) as u16);
            }
        };
        match tile {
            b'1'..=b'4' => {
                let n = (tile - b'0') as i32;
                for (dr, dc) in LINES {
                    add(r + dr * n, c + dc * n);
                }
            }
            b'K' => {
                for (dr, dc) in KNIGHT {
                    add(r + dr, c + dc);
                }
            }
            _ => {
                let dirs = match tile {
                    b'R' => &LINES[..4],
                    b'B' => &LINES[4..],
                    _ => &LINES[..],
                };
                // Sliders only ever land on the edge cell of each direction.
                for &(dr, dc) in dirs {
                    let (mut rr, mut cc) = (r, c);
                    while self.inside(rr + dr, cc + dc) {
                        rr += dr;
                        cc += dc;
                    }
                    add(rr, cc);
                }
            }
        }
        out
    }

    /// The cells that may be clicked after `tile` was removed from `cell`.
    fn allowed(&self, cell: usize, tile: u8) -> Cells {
        let mut out = Cells::default();
        let Some(t) = tile_index(tile) else {
            return out;
        };
        for &next in self.reach[cell * 8 + t].as_slice() {
            if self.left[next as usize] > 0 {
                out.push(next);
            }
        }
        out
    }

    /// The value of having just removed `tile` from `cell`: the best lookahead path from there.
    fn value(&mut self, cell: usize, tile: u8, depth: u32) -> f64 {
        let next = self.allowed(cell, tile);
        if next.len == 0 {
            return 0.0;
        }
        if depth == 0 {
            return self.weights.options_bonus(next.len as f64);
        }
        let mut best = f64::MIN;
        for &n in next.as_slice() {
            best = best.max(1.0 + self.value_of_click(n as usize, depth - 1));
        }
        best
    }

    /// The value of clicking `cell` now, looking `depth` clicks further.
    fn value_of_click(&mut self, cell: usize, depth: u32) -> f64 {
        let tile = self.top[cell];
        if tile == HIDDEN {
            // A tile we cannot see: count it as surviving about as long as an average path.
            let w = &self.weights;
            return depth as f64 * w.hidden_step + w.options_bonus(w.hidden_options);
        }
        let (top, left) = (self.top[cell], self.left[cell]);
        self.left[cell] -= 1;
        self.top[cell] = if self.left[cell] == 0 { EMPTY } else { HIDDEN };
        // Emptying a cell closes it for good: a small cost, so a tie keeps the board connected.
        let emptied = if self.left[cell] == 0 {
            self.weights.emptied
        } else {
            0.0
        };
        let v = self.value(cell, tile, depth) - emptied + self.taste(cell, left);
        self.top[cell] = top;
        self.left[cell] = left;
        v
    }

    /// The terms added by tuning ([`Weights::tall`], [`Weights::rare`]) for a click on `cell`
    /// while it holds `left` tiles: exactly 0 when both weights are 0, so the hand-set weights
    /// still play as the player did before them.
    fn taste(&self, cell: usize, left: u8) -> f64 {
        let w = &self.weights;
        if w.tall == 0.0 && w.rare == 0.0 {
            return 0.0;
        }
        w.tall * left as f64 / self.k as f64 + w.rare * self.rarity[cell]
    }

    /// The candidate with the best lookahead (the first of equals, so the player is
    /// deterministic).
    fn choose(&mut self, candidates: impl Iterator<Item = usize>) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        for cell in candidates {
            let v = self.value_of_click(cell, DEPTH);
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, cell));
            }
        }
        best.map(|(_, cell)| cell)
    }
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut input = stdin.lock().lines();
    let mut out = io::stdout().lock();
    let Some(header) = input.next().transpose()? else {
        return Ok(());
    };
    let dims: Vec<usize> = header
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    let [height, width, k] = dims[..] else {
        eprintln!("bad header {header:?}");
        std::process::exit(1);
    };
    let mut rows = Vec::with_capacity(height);
    for _ in 0..height {
        let Some(row) = input.next().transpose()? else {
            return Ok(());
        };
        rows.push(row.trim().as_bytes().to_vec());
    }
    let weights = match Weights::from_vars(|name| std::env::var(name).ok()) {
        Ok(weights) => weights,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(1);
        }
    };
    let mut board = Board::new(height, width, k as u8, &rows, weights);

    let mut cell = board.choose(0..height * width).expect("a board has cells");
    loop {
        writeln!(out, "{} {}", cell / width, cell % width)?;
        out.flush()?;
        // The judge closes our input when the game is over.
        let Some(line) = input.next().transpose()? else {
            return Ok(());
        };
        let tile = board.top[cell];
        board.left[cell] -= 1;
        board.top[cell] = line.trim().bytes().next().unwrap_or(EMPTY);
        let allowed = board.allowed(cell, tile);
        match board.choose(allowed.as_slice().iter().map(|&c| c as usize)) {
            Some(next) => cell = next,
            None => {
                eprintln!("the judge goes on but no cell is allowed after {tile:?}");
                std::process::exit(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The weights the player was written with, before `harness tune` found its defaults.
    fn hand_set() -> Weights {
        Weights {
            options: 0.5,
            hidden_step: 0.8,
            hidden_options: 4.0,
            emptied: 0.15,
            tall: 0.0,
            rare: 0.0,
        }
    }

    #[test]
    fn default_weights_are_the_tuned_ones_and_variables_override_them() {
        let w = Weights::from_vars(|_| None).unwrap();
        assert_eq!(
            (w.options, w.hidden_step, w.hidden_options, w.emptied),
            (0.008398, 0.6773, 2.891, 0.2294)
        );
        assert_eq!((w.tall, w.rare), (0.302, 0.2575));
        let w = Weights::from_vars(|name| match name {
            "PARAM_HIDDEN_STEP" => Some(" 0.6 ".into()),
            "PARAM_RARE" => Some("-0.25".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!((w.hidden_step, w.rare, w.options), (0.6, -0.25, 0.008398));
        for bad in ["x", "nan", "inf"] {
            let err = Weights::from_vars(|name| (name == "PARAM_TALL").then(|| bad.into()));
            assert_eq!(
                err.unwrap_err(),
                format!("PARAM_TALL={bad:?} is not a valid value")
            );
        }
    }

    /// A 6x6 board of knights, K = 2.
    fn knights(weights: Weights) -> Board {
        let rows = vec![b"KKKKKK".to_vec(); 6];
        Board::new(6, 6, 2, &rows, weights)
    }

    #[test]
    fn the_tuned_terms_add_nothing_at_weight_zero() {
        let board = knights(hand_set());
        assert_eq!(board.taste(0, 2), 0.0);
        // Reachers of a corner on 6x6, counted by hand: 12 by tiles 1-4 (3 lines, 4
        // distances), 2 knights, sliders from the 5 cells of its diagonal (B, Q) and the 10 of
        // its row and column (R, Q): 44. Of (2, 2): 8 + 8 + 3 by tiles 1-4, 8 knights, no
        // slider (it is not on the edge): 27.
        let (corner, centre) = (0, 2 * 6 + 2);
        let reached = |cell: usize| 1.0 - board.rarity[cell];
        assert!((reached(corner) / reached(centre) - 44.0 / 27.0).abs() < 1e-12);
        let board = knights(Weights {
            tall: 1.0,
            rare: 2.0,
            ..hand_set()
        });
        assert_eq!(board.taste(centre, 1), 0.5 + 2.0 * board.rarity[centre]);
        assert_eq!(board.taste(corner, 2), 1.0 + 2.0 * board.rarity[corner]);
        assert!(board.rarity[centre] > board.rarity[corner]);
    }

    #[test]
    fn a_rare_cell_weight_moves_the_first_click() {
        let mut plain = knights(hand_set());
        let first = plain.choose(0..36).unwrap();
        let mut rare = knights(Weights {
            rare: 1.0,
            ..hand_set()
        });
        let chosen = rare.choose(0..36).unwrap();
        assert!(
            rare.rarity[chosen] > rare.rarity[first],
            "{first} -> {chosen}"
        );
    }

    /// The harness passes the defaults declared in Cargo.toml; a run without it gets the
    /// code's. They must be the same numbers.
    #[test]
    fn the_declared_defaults_are_the_code_defaults() {
        let manifest = include_str!("../Cargo.toml");
        let declared = |name: &str| -> f64 {
            let line = manifest
                .lines()
                .find(|l| l.starts_with(&format!("{name} = {{")))
                .unwrap_or_else(|| panic!("{name} is declared"));
            let default = line.split("default = ").nth(1).expect("a default");
            default
                .trim_end_matches([' ', '}'])
                .parse()
                .expect("a number")
        };
        let w = Weights::default();
        assert_eq!(declared("options"), w.options);
        assert_eq!(declared("hidden-step"), w.hidden_step);
        assert_eq!(declared("hidden-options"), w.hidden_options);
        assert_eq!(declared("emptied"), w.emptied);
        assert_eq!(declared("tall"), w.tall);
        assert_eq!(declared("rare"), w.rare);
    }
}
