//! A deliberately flawed GameEnding player, to show what a wrong answer looks like.
//!
//! The flaw: when it checks the moves already made, it forgets that figures also capture like
//! knights (taken cells and rook attacks are still caught). Its search of the rest of the game
//! is right, so it passes most tests and answers wrongly where a given move is invalid only
//! because of a knight (TopCoder system tests `sys-009`, `sys-045`, `sys-051`, `sys-053`,
//! `sys-062` and `sys-064`; it passes the other 59).

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Whether a figure on `a` and one on `b` attack each other: same row or column, or a
/// knight's move apart.
fn attack(a: (i32, i32), b: (i32, i32)) -> bool {
    let (dx, dy) = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
    dx == 0 || dy == 0 || (dx == 1 && dy == 2) || (dx == 2 && dy == 1)
}

struct Game {
    n: i32,
    memo: HashMap<u64, bool>,
}

impl Game {
    fn cell(&self, bit: u32) -> (i32, i32) {
        (bit as i32 / self.n, bit as i32 % self.n)
    }

    fn legal(&self, placed: u64, at: (i32, i32)) -> bool {
        let mut rest = placed;
        while rest != 0 {
            let bit = rest.trailing_zeros();
            rest &= rest - 1;
            if attack(self.cell(bit), at) {
                return false;
            }
        }
        true
    }

    /// Whether the player to move wins with these figures on the board.
    fn mover_wins(&mut self, placed: u64) -> bool {
        if let Some(&w) = self.memo.get(&placed) {
            return w;
        }
        let mut wins = false;
        for bit in 0..(self.n * self.n) as u32 {
            if self.legal(placed, self.cell(bit)) && !self.mover_wins(placed | 1 << bit) {
                wins = true;
                break;
            }
        }
        self.memo.insert(placed, wins);
        wins
    }
}

/// The flaw: only rows, columns and taken cells are checked.
fn legal_ignoring_knights(game: &Game, placed: u64, at: (i32, i32)) -> bool {
    (0..(game.n * game.n) as u32)
        .filter(|&bit| placed & 1 << bit != 0)
        .map(|bit| game.cell(bit))
        .all(|p| p.0 != at.0 && p.1 != at.1)
}

fn read_line(lines: &mut impl Iterator<Item = std::io::Result<String>>) -> Result<String, String> {
    match lines.next() {
        Some(Ok(line)) => Ok(line.trim().to_string()),
        Some(Err(e)) => Err(format!("cannot read stdin: {e}")),
        None => Err("input ends too early".to_string()),
    }
}

fn answer() -> Result<&'static str, String> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let n: i32 = read_line(&mut lines)?
        .parse()
        .map_err(|_| "n is not a number")?;
    if !(1..=7).contains(&n) {
        return Err(format!("n = {n} is outside 1..=7"));
    }
    let count: usize = read_line(&mut lines)?
        .parse()
        .map_err(|_| "the number of moves is not a number")?;
    if count > n as usize {
        return Err(format!("{count} moves on a board of side {n}"));
    }
    let mut game = Game {
        n,
        memo: HashMap::new(),
    };
    let mut placed = 0u64;
    let mut invalid = false;
    for _ in 0..count {
        let text = read_line(&mut lines)?;
        let b = text.as_bytes();
        if b.len() != 2 {
            return Err(format!("bad move {text:?}"));
        }
        let at = (b[0] as i32 - 'a' as i32, b[1] as i32 - '1' as i32);
        if !(0..n).contains(&at.0) || !(0..n).contains(&at.1) {
            return Err(format!("move {text:?} is off the board"));
        }
        // Keep reading the remaining moves even after an invalid one: they are part of the input.
        if !invalid && legal_ignoring_knights(&game, placed, at) {
            placed |= 1 << (at.0 * n + at.1);
        } else {
            invalid = true;
        }
    }
    if invalid {
        return Ok("Invalid input");
    }
    let first_to_move = count.is_multiple_of(2);
    Ok(if game.mover_wins(placed) == first_to_move {
        "First player wins"
    } else {
        "Second player wins"
    })
}

fn main() -> ExitCode {
    match answer() {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("game-ending-flawed: {why}");
            ExitCode::FAILURE
        }
    }
}
