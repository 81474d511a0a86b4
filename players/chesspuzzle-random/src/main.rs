//! ChessPuzzle player: uniformly random legal clicks, the first click anywhere on the board.
//!
//! The seed comes from the environment variable `PLAYER_SEED` (a u64) and is 1 when it is
//! unset, so a run is reproducible; a `PLAYER_SEED` that is not a number is an error.
//!
//! Standalone on purpose (its own copy of the rules, no harness code): it is written as a
//! competitor would write it, and so checks the judge independently.
//!
//! Protocol: reads `H W K` and the H rows of top tiles, answers `ROW COL`; then reads the tile
//! now on top of the clicked cell (`-` once empty) and clicks again, until its input is closed.

use std::io::{self, BufRead, Write};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

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

struct Board {
    height: i32,
    width: i32,
    /// The visible tile of each cell, row by row (`-` when empty).
    top: Vec<u8>,
    /// Tiles left on each cell.
    left: Vec<usize>,
}

impl Board {
    fn index(&self, r: i32, c: i32) -> Option<usize> {
        (r >= 0 && c >= 0 && r < self.height && c < self.width)
            .then(|| (r * self.width + c) as usize)
    }

    /// The cells that may be clicked after `tile` was removed from (r, c).
    fn allowed(&self, (r, c): (i32, i32), tile: u8) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        let mut add = |(nr, nc): (i32, i32)| {
            if let Some(i) = self.index(nr, nc) {
                if (nr, nc) != (r, c) && self.left[i] > 0 {
                    out.push((nr, nc));
                }
            }
        };
        match tile {
            b'1'..=b'4' => {
                let n = (tile - b'0') as i32;
                LINES
                    .iter()
                    .for_each(|(dr, dc)| add((r + dr * n, c + dc * n)));
            }
            b'K' => KNIGHT.iter().for_each(|(dr, dc)| add((r + dr, c + dc))),
            b'B' | b'R' | b'Q' => {
                let dirs = match tile {
                    b'R' => &LINES[..4],
                    b'B' => &LINES[4..],
                    _ => &LINES[..],
                };
                // Sliders only ever land on the edge cell of each direction.
                for &(dr, dc) in dirs {
                    let (mut nr, mut nc) = (r, c);
                    while self.index(nr + dr, nc + dc).is_some() {
                        nr += dr;
                        nc += dc;
                    }
                    add((nr, nc));
                }
            }
            _ => {}
        }
        out
    }
}

fn main() -> io::Result<()> {
    let seed = match std::env::var("PLAYER_SEED") {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| {
            eprintln!("PLAYER_SEED={text:?} is not a number");
            std::process::exit(2);
        }),
        Err(_) => 1,
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
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
    let mut top = Vec::with_capacity(height * width);
    for _ in 0..height {
        let Some(row) = input.next().transpose()? else {
            return Ok(());
        };
        top.extend_from_slice(row.trim().as_bytes());
    }
    let mut board = Board {
        height: height as i32,
        width: width as i32,
        top,
        left: vec![k; height * width],
    };

    let mut cell = (
        rng.random_range(0..height) as i32,
        rng.random_range(0..width) as i32,
    );
    loop {
        writeln!(out, "{} {}", cell.0, cell.1)?;
        out.flush()?;
        // The judge closes our input when the game is over.
        let Some(line) = input.next().transpose()? else {
            return Ok(());
        };
        let i = board
            .index(cell.0, cell.1)
            .expect("we only click on the board");
        let tile = board.top[i];
        board.left[i] -= 1;
        board.top[i] = line.trim().bytes().next().unwrap_or(b'-');
        let allowed = board.allowed(cell, tile);
        if allowed.is_empty() {
            eprintln!("the judge goes on but no cell is allowed after {tile:?}");
            std::process::exit(1);
        }
        cell = allowed[rng.random_range(0..allowed.len())];
    }
}
