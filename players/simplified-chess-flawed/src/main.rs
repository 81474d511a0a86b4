//! A deliberately flawed SimplifiedChessEngine player, to show what a wrong answer looks like.
//!
//! The flaw: it reads `m` as the number of White's own moves, so it searches `2m - 1` moves
//! of both sides instead of `m`. It is right whenever `m = 1` or the answer does not depend on
//! the extra moves, and says YES where White needs more moves than `m` allows
//! (fixed cases `boxed-queen` and
//! `boxed-queen-m2`; about 1 generated input in 40).

use std::io::{BufRead, Write};
use std::process::ExitCode;

#[derive(Clone, Copy, PartialEq, Eq)]
struct Piece {
    white: bool,
    kind: u8,
    x: i8,
    y: i8,
}

const ROOK: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

fn on_board(x: i8, y: i8) -> bool {
    (0..4).contains(&x) && (0..4).contains(&y)
}

fn piece_at(pieces: &[Piece], x: i8, y: i8) -> Option<usize> {
    pieces.iter().position(|p| p.x == x && p.y == y)
}

/// Every target square of piece `i`: empty squares and enemy pieces.
fn targets(pieces: &[Piece], i: usize) -> Vec<(i8, i8)> {
    let p = pieces[i];
    let mut out = Vec::new();
    let (lines, reach): (Vec<(i8, i8)>, i8) = match p.kind {
        b'Q' => (ROOK.iter().chain(&BISHOP).copied().collect(), 3),
        b'R' => (ROOK.to_vec(), 3),
        b'B' => (BISHOP.to_vec(), 3),
        _ => (KNIGHT.to_vec(), 1),
    };
    for (dx, dy) in lines {
        for k in 1..=reach {
            let (x, y) = (p.x + dx * k, p.y + dy * k);
            if !on_board(x, y) {
                break;
            }
            match piece_at(pieces, x, y) {
                None => out.push((x, y)),
                Some(j) => {
                    if pieces[j].white != p.white {
                        out.push((x, y));
                    }
                    break;
                }
            }
        }
    }
    out
}

/// Whether White takes Black's queen within `left` more moves; `white` says who moves next.
fn white_wins(pieces: &[Piece], white: bool, left: u32) -> bool {
    if left == 0 {
        return false;
    }
    let mut moves = Vec::new();
    for i in 0..pieces.len() {
        if pieces[i].white != white {
            continue;
        }
        for to in targets(pieces, i) {
            if piece_at(pieces, to.0, to.1).is_some_and(|j| pieces[j].kind == b'Q') {
                // The side to move takes the queen and wins.
                return white;
            }
            moves.push((i, to));
        }
    }
    // After a quiet move White needs one more move of its own, two moves later.
    if (white && left < 3) || (!white && left < 2) {
        return false;
    }
    let play = |&(i, (x, y)): &(usize, (i8, i8))| -> Vec<Piece> {
        let mut next = pieces.to_vec();
        next[i].x = x;
        next[i].y = y;
        if let Some(j) = (0..next.len()).find(|&j| j != i && next[j].x == x && next[j].y == y) {
            next.remove(j);
        }
        next
    };
    if white {
        moves
            .iter()
            .any(|mv| white_wins(&play(mv), false, left - 1))
    } else {
        !moves.is_empty() && moves.iter().all(|mv| white_wins(&play(mv), true, left - 1))
    }
}

/// Whitespace-separated words, reading stdin a line at a time (never more than needed).
struct Words<R> {
    input: R,
    pending: Vec<String>,
}

impl<R: BufRead> Words<R> {
    fn next(&mut self) -> Result<String, String> {
        while self.pending.is_empty() {
            let mut line = String::new();
            match self.input.read_line(&mut line) {
                Ok(0) => return Err("input ends too early".to_string()),
                Ok(_) => self.pending = line.split_whitespace().rev().map(String::from).collect(),
                Err(e) => return Err(format!("cannot read stdin: {e}")),
            }
        }
        Ok(self.pending.pop().unwrap_or_default())
    }

    fn number(&mut self, low: u32, high: u32) -> Result<u32, String> {
        let word = self.next()?;
        match word.parse() {
            Ok(v) if (low..=high).contains(&v) => Ok(v),
            _ => Err(format!("expected a number in {low}..={high}, got {word:?}")),
        }
    }
}

fn answers() -> Result<String, String> {
    let mut words = Words {
        input: std::io::stdin().lock(),
        pending: Vec::new(),
    };
    let games = words.number(1, 200)?;
    let mut out = String::new();
    for _ in 0..games {
        let w = words.number(1, 5)?;
        let b = words.number(1, 5)?;
        let m = words.number(1, 6)?;
        let mut pieces = Vec::new();
        for i in 0..w + b {
            let kind = words.next()?;
            let column = words.next()?;
            let row = words.number(1, 4)?;
            let kind = match kind.as_str() {
                "Q" | "N" | "B" | "R" => kind.as_bytes()[0],
                _ => return Err(format!("bad piece type {kind:?}")),
            };
            let x = match column.as_str() {
                "A" | "B" | "C" | "D" => (column.as_bytes()[0] - b'A') as i8,
                _ => return Err(format!("bad column {column:?}")),
            };
            pieces.push(Piece {
                white: i < w,
                kind,
                x,
                y: row as i8 - 1,
            });
        }
        out.push_str(if white_wins(&pieces, true, 2 * m - 1) {
            "YES\n"
        } else {
            "NO\n"
        });
    }
    Ok(out)
}

fn main() -> ExitCode {
    match answers() {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            if out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("simplified-chess-flawed: {why}");
            ExitCode::FAILURE
        }
    }
}
