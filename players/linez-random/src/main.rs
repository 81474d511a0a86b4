//! Linez player that makes a uniformly random legal move every turn: the baseline.
//!
//! Every (from, to) pair allowed by the rules is equally likely. The random stream is seeded
//! from the first command-line argument, else from the `LINEZ_RANDOM_SEED` environment
//! variable, else with 1, so a run can be replayed.
//!
//! Protocol: each turn 9 board rows (top first, `.` empty) and a `nextThree` line on stdin;
//! answer `FROMTO` such as `I8F6` (row letter A..I from the top, column digit 1..9). The game
//! is over when stdin closes.

use std::io::{self, BufRead, Write};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const SIDE: usize = 9;
const CELLS: usize = SIDE * SIDE;

fn seed() -> u64 {
    std::env::args()
        .nth(1)
        .or_else(|| std::env::var("LINEZ_RANDOM_SEED").ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(1)
}

/// The empty cells joined to `from` by horizontally or vertically adjacent empty cells.
fn reachable(board: &[u8; CELLS], from: usize, out: &mut Vec<usize>) {
    let mut seen = [false; CELLS];
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(cell) = stack.pop() {
        let (r, c) = (cell / SIDE, cell % SIDE);
        let mut visit = |next: usize| {
            if !seen[next] && board[next] == 0 {
                seen[next] = true;
                out.push(next);
                stack.push(next);
            }
        };
        if r > 0 {
            visit(cell - SIDE);
        }
        if r + 1 < SIDE {
            visit(cell + SIDE);
        }
        if c > 0 {
            visit(cell - 1);
        }
        if c + 1 < SIDE {
            visit(cell + 1);
        }
    }
}

fn name(cell: usize) -> String {
    format!(
        "{}{}",
        (b'A' + (cell / SIDE) as u8) as char,
        (b'1' + (cell % SIDE) as u8) as char
    )
}

fn main() -> io::Result<()> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed());
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = io::stdout().lock();
    let mut moves: Vec<(usize, usize)> = Vec::new();
    let mut targets = Vec::new();
    loop {
        let mut board = [0u8; CELLS];
        for r in 0..SIDE {
            let Some(line) = lines.next().transpose()? else {
                return Ok(());
            };
            for (c, ch) in line.trim().bytes().take(SIDE).enumerate() {
                board[r * SIDE + c] = if ch == b'.' { 0 } else { ch - b'0' };
            }
        }
        if lines.next().transpose()?.is_none() {
            return Ok(());
        }
        moves.clear();
        for from in (0..CELLS).filter(|&i| board[i] != 0) {
            targets.clear();
            reachable(&board, from, &mut targets);
            moves.extend(targets.iter().map(|&to| (from, to)));
        }
        // The judge only asks when a move exists; answer something well-formed regardless.
        let (from, to) = if moves.is_empty() {
            (0, 1)
        } else {
            moves[rng.random_range(0..moves.len())]
        };
        writeln!(out, "{}{}", name(from), name(to))?;
        out.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reaches_only_through_empty_cells() {
        // A number in the top-left corner walled in by two others.
        let mut board = [0u8; CELLS];
        board[0] = 1;
        board[1] = 2;
        board[SIDE] = 3;
        let mut out = Vec::new();
        reachable(&board, 0, &mut out);
        assert!(out.is_empty());
        reachable(&board, 1, &mut out);
        assert_eq!(out.len(), CELLS - 3);
        assert_eq!(name(CELLS - 1), "I9");
    }
}
