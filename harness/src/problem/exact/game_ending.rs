//! GameEnding (TopCoder SRM 271, Div I Level 2): rules, reference solver and generator.
//!
//! Two players take turns putting figures on an n x n board (n = 1..7); a figure may only go
//! on an empty cell that no figure already on the board attacks, and every figure attacks like
//! a rook and like a knight. The player who cannot move loses. Given the first moves, the
//! answer is `First player wins`, `Second player wins`, or `Invalid input` when one of the
//! given moves was already illegal.
//!
//! Encoding (TopCoder order, see [`super`]): `n` on a line, then `moves` as its length
//! and one cell a line (`b2`: letter `a`.. then digit `1`..); the answer is one line.
//!
//! Rook attacks could in principle be blocked, but two figures on one line always include a
//! neighbouring pair with nothing between them, so "no two figures share a row or column and
//! none is a knight's move from another" is the whole rule. The search therefore only needs
//! the set of cells still free to play, a bitmask of at most 49 cells, and memoises on it.
//!
//! This module touches nothing outside itself but `testcases/game-ending/` (fixed cases).

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{TcReader, TcWriter};
use crate::problem::{exact, CaseError};

pub const ID: &str = "game-ending";
/// Largest board side, from the statement.
pub const MAX_N: usize = 7;

/// The three answers, worded as the statement wants them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    FirstWins,
    SecondWins,
    Invalid,
}

impl Ending {
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::FirstWins => "First player wins",
            Ending::SecondWins => "Second player wins",
            Ending::Invalid => "Invalid input",
        }
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A cell as `(letter, digit)`, both 0-based.
pub type Cell = (usize, usize);

/// One input: the board side and the moves already made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub n: usize,
    pub moves: Vec<Cell>,
}

/// The statement's spelling of a cell: `a1` is `(0, 0)`.
pub fn cell_name((letter, digit): Cell) -> String {
    format!("{}{}", (b'a' + letter as u8) as char, digit + 1)
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let moves: Vec<String> = self.moves.iter().map(|&c| cell_name(c)).collect();
        let text = TcWriter::default()
            .int(self.n as i64)
            .strings(&moves)
            .finish();
        f.write_str(&text)
    }
}

impl Input {
    /// Reads an input in the TopCoder encoding, checking the statement's constraints.
    pub fn parse(text: &str) -> Result<Input, String> {
        let mut r = TcReader::new(text);
        let n = r.int()?;
        if !(1..=MAX_N as i64).contains(&n) {
            return Err(format!("n = {n} is outside 1..={MAX_N}"));
        }
        let n = n as usize;
        let moves = r
            .strings(n)?
            .into_iter()
            .map(|m| parse_cell(m, n))
            .collect::<Result<Vec<_>, _>>()?;
        r.end()?;
        Ok(Input { n, moves })
    }

    /// The answer if both players play their best from here on.
    pub fn result(&self) -> Ending {
        result(self.n, &self.moves)
    }
}

fn parse_cell(text: &str, n: usize) -> Result<Cell, String> {
    let bytes = text.as_bytes();
    let last_letter = (b'a' + n as u8 - 1) as char;
    if bytes.len() == 2
        && (b'a'..b'a' + n as u8).contains(&bytes[0])
        && (b'1'..b'1' + n as u8).contains(&bytes[1])
    {
        Ok(((bytes[0] - b'a') as usize, (bytes[1] - b'1') as usize))
    } else {
        Err(format!(
            "move {text:?} is not a cell of a{n}-{last_letter}{n} board"
        ))
    }
}

/// The board: which cells each figure makes unplayable (itself included).
struct Board {
    blocks: Vec<u64>,
}

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

impl Board {
    fn new(n: usize) -> Board {
        let bit = |x: usize, y: usize| 1u64 << (x * n + y);
        let mut blocks = vec![0; n * n];
        for x in 0..n {
            for y in 0..n {
                let mut mask = 0;
                for i in 0..n {
                    mask |= bit(x, i) | bit(i, y);
                }
                for (dx, dy) in KNIGHT {
                    let (kx, ky) = (x as i32 + dx, y as i32 + dy);
                    if (0..n as i32).contains(&kx) && (0..n as i32).contains(&ky) {
                        mask |= bit(kx as usize, ky as usize);
                    }
                }
                blocks[x * n + y] = mask;
            }
        }
        Board { blocks }
    }

    /// Whether the player to move wins when `free` is the set of playable cells.
    fn mover_wins(&self, free: u64, memo: &mut HashMap<u64, bool>) -> bool {
        if free == 0 {
            return false;
        }
        if let Some(&known) = memo.get(&free) {
            return known;
        }
        let mut rest = free;
        let mut wins = false;
        while rest != 0 {
            let cell = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if !self.mover_wins(free & !self.blocks[cell], memo) {
                wins = true;
                break;
            }
        }
        memo.insert(free, wins);
        wins
    }
}

/// The reference answer for a board of side `n` after `moves`.
pub fn result(n: usize, moves: &[Cell]) -> Ending {
    let board = Board::new(n);
    let mut free = if n * n == 64 {
        u64::MAX
    } else {
        (1u64 << (n * n)) - 1
    };
    for &(x, y) in moves {
        let cell = x * n + y;
        if free & (1 << cell) == 0 {
            return Ending::Invalid;
        }
        free &= !board.blocks[cell];
    }
    let mover_wins = board.mover_wins(free, &mut HashMap::new());
    // The first player is to move after an even number of moves.
    let first_to_move = moves.len().is_multiple_of(2);
    if mover_wins == first_to_move {
        Ending::FirstWins
    } else {
        Ending::SecondWins
    }
}

/// The reference answer to an input in the TopCoder encoding (one line).
pub fn solve(input: &str) -> Result<String, String> {
    Ok(format!("{}\n", Input::parse(input)?.result()))
}

/// A random valid input from a test's stream ([`crate::problem::Env::stream`]): n in 1..=7, 0..=n moves. About half the inputs follow the
/// rules throughout; the others break them once (a taken or attacked cell) and then go on with
/// any cells, so both the search and the validity check are exercised.
pub fn generate(mut rng: Xoshiro256PlusPlus) -> Input {
    let n = rng.random_range(1..=MAX_N);
    let count = rng.random_range(0..=n);
    let board = Board::new(n);
    let cells = n * n;
    // The move at which the rules are broken, if any; the first move can never break them.
    let break_at = if count >= 2 && rng.random_range(0..2) == 0 {
        Some(rng.random_range(1..count))
    } else {
        None
    };
    let mut free: u64 = (1u64 << cells) - 1;
    let mut moves = Vec::with_capacity(count);
    for i in 0..count {
        let wanted = match break_at {
            Some(b) if i == b => !free & ((1u64 << cells) - 1),
            Some(b) if i > b => (1u64 << cells) - 1,
            _ => free,
        };
        if wanted == 0 {
            // No legal cell is left: the game is over early, which is an input worth having.
            break;
        }
        let cell = nth_bit(wanted, rng.random_range(0..wanted.count_ones() as usize));
        free &= !board.blocks[cell];
        moves.push((cell / n, cell % n));
    }
    Input { n, moves }
}

fn nth_bit(mut mask: u64, n: usize) -> usize {
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask.trailing_zeros() as usize
}

/// Parameters of an input for the CSV columns: `n` and the number of moves.
fn params(input: &str) -> Vec<String> {
    match Input::parse(input) {
        Ok(i) => vec![i.n.to_string(), i.moves.len().to_string()],
        Err(_) => vec![String::new(), String::new()],
    }
}

/// Solves every fixed case in `dir` and returns the names of those where the reference solver
/// disagrees with the shipped answer (the benchmark and the agreement test use it).
pub fn check_fixed(dir: &Path) -> Result<Vec<exact::Mismatch>, CaseError> {
    exact::check_fixed(dir, solve)
}

/// The problem as the harness runs it.
pub const SPEC: exact::Spec = exact::Spec {
    id: ID,
    title: "GameEnding (TopCoder SRM 271)",
    params: &["n", "moves"],
    generate: |rng| generate(rng).to_string(),
    solve,
    params_of: params,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(list: &[&str], n: usize) -> Vec<Cell> {
        list.iter().map(|m| parse_cell(m, n).unwrap()).collect()
    }

    #[test]
    fn statement_examples() {
        assert_eq!(result(3, &moves(&["b2"], 3)), Ending::FirstWins);
        assert_eq!(result(4, &moves(&["a2", "b3"], 4)), Ending::SecondWins);
        assert_eq!(result(4, &moves(&["a3", "b3"], 4)), Ending::Invalid);
        assert_eq!(
            result(4, &moves(&["a1", "b2", "c3", "d4"], 4)),
            Ending::SecondWins
        );
        assert_eq!(result(7, &[]), Ending::FirstWins);
        assert_eq!(
            result(7, &moves(&["b5", "g3", "f2"], 7)),
            Ending::SecondWins
        );
    }

    #[test]
    fn knight_attack_and_taken_cell_are_invalid() {
        // c2 and a1 are a knight's move apart.
        assert_eq!(result(3, &moves(&["c2", "a1"], 3)), Ending::Invalid);
        assert_eq!(result(3, &moves(&["a2", "a2"], 3)), Ending::Invalid);
    }

    #[test]
    fn parse_checks_constraints() {
        assert!(Input::parse("3\n1\nd1\n").unwrap_err().contains("d1"));
        assert!(Input::parse("8\n0\n").unwrap_err().contains("n = 8"));
        assert!(Input::parse("2\n3\na1\nb2\na2\n")
            .unwrap_err()
            .contains("outside 0..=2"));
        assert!(Input::parse("2\n1\na1\nextra\n").is_err());
        assert_eq!(
            Input::parse("2\n1\nb1\n").unwrap(),
            Input {
                n: 2,
                moves: vec![(1, 0)]
            }
        );
    }
}
