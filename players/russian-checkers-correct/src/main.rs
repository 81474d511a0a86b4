//! RussianCheckers, a correct player written from the statement alone (no code of the
//! harness): it reads one test (`8`, the 8 rows with row 8 first, the turn), writes the count
//! of legal moves and the moves in lexicographic order, and exits.
//!
//! Being independent of the judge is its point: it passing every fixed test (TopCoder's system
//! tests) and every generated one is evidence that the judge's reference solver is right, which
//! a player calling that solver could never be.
//!
//! Rules as the statement gives them: capturing is compulsory; a capture goes on while one is
//! possible; men capture in all four directions, kings fly; captured pieces are removed only
//! when the move ends (so they block, and are never jumped twice); a king that has jumped
//! must stop on a square from which it can capture again when there is such a square; a man
//! crowned during a capture goes on capturing as a king.

use std::collections::BTreeSet;
use std::io::{Read, Write};

/// What is on a square during the search of one move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Square {
    Empty,
    /// A piece of the side to move (the moving piece is lifted off the board).
    Friend,
    /// An opponent's piece not yet captured in this move.
    Foe,
    /// An opponent's piece captured earlier in this move: it still blocks.
    Taken,
}

/// `grid[x][y]`: x the column (0 = a), y the row (0 = row 1).
type Grid = [[Square; 8]; 8];

/// A square as (column, row), both 0-based.
type Pos = (i8, i8);

/// One jump: the captured square and the squares the piece may land on.
type Jump = (Pos, Vec<Pos>);

/// The four diagonal steps.
const DIAGONALS: [(i8, i8); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];

fn shift((x, y): Pos, (dx, dy): Pos) -> Option<Pos> {
    let (nx, ny) = (x + dx, y + dy);
    ((0..8).contains(&nx) && (0..8).contains(&ny)).then_some((nx, ny))
}

fn cell(grid: &Grid, (x, y): Pos) -> Square {
    grid[x as usize][y as usize]
}

fn label((x, y): Pos) -> String {
    format!("{}{}", char::from(b'a' + x as u8), y + 1)
}

/// The test: the letters of the board by square, and whether White moves.
struct Test {
    letters: [[u8; 8]; 8],
    white: bool,
}

fn parse(text: &str) -> Result<Test, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() != 10 || words[0] != "8" {
        return Err(format!(
            "expected `8`, 8 rows and a turn, got {} words",
            words.len()
        ));
    }
    let mut letters = [[b'.'; 8]; 8];
    for (i, row) in words[1..9].iter().enumerate() {
        if row.len() != 8 || !row.bytes().all(|b| b".wWbB".contains(&b)) {
            return Err(format!("bad row {row:?}"));
        }
        for (x, b) in row.bytes().enumerate() {
            letters[x][7 - i] = b;
        }
    }
    let white = match words[9] {
        "WHITE" => true,
        "BLACK" => false,
        other => return Err(format!("bad turn {other:?}")),
    };
    Ok(Test { letters, white })
}

impl Test {
    fn is_mine(&self, b: u8) -> bool {
        if self.white {
            b == b'w' || b == b'W'
        } else {
            b == b'b' || b == b'B'
        }
    }

    /// The row a man of the side to move is crowned on.
    fn last_row(&self) -> i8 {
        if self.white {
            7
        } else {
            0
        }
    }

    fn pieces(&self) -> Vec<(Pos, bool)> {
        let mut found = Vec::new();
        for x in 0..8 {
            for y in 0..8 {
                let b = self.letters[x as usize][y as usize];
                if self.is_mine(b) {
                    found.push(((x, y), b.is_ascii_uppercase()));
                }
            }
        }
        found
    }

    /// The board as the piece at `from` sees it when it starts to move.
    fn grid_without(&self, from: Pos) -> Grid {
        let mut grid = [[Square::Empty; 8]; 8];
        for (x, column) in self.letters.iter().enumerate() {
            for (y, &b) in column.iter().enumerate() {
                grid[x][y] = match b {
                    b'.' => Square::Empty,
                    b if self.is_mine(b) => Square::Friend,
                    _ => Square::Foe,
                };
            }
        }
        grid[from.0 as usize][from.1 as usize] = Square::Empty;
        grid
    }

    fn all_moves(&self) -> BTreeSet<String> {
        let mut captures = BTreeSet::new();
        for (from, king) in self.pieces() {
            let mut grid = self.grid_without(from);
            let mut path = vec![from];
            self.extend_capture(&mut grid, from, king, &mut path, &mut captures);
        }
        if !captures.is_empty() {
            return captures;
        }
        let forward = if self.white { 1 } else { -1 };
        let mut simple = BTreeSet::new();
        for (from, king) in self.pieces() {
            let grid = self.grid_without(from);
            for dir in DIAGONALS {
                if !king && dir.1 != forward {
                    continue;
                }
                let mut at = from;
                while let Some(next) = shift(at, dir) {
                    if cell(&grid, next) != Square::Empty {
                        break;
                    }
                    simple.insert(format!("{}-{}", label(from), label(next)));
                    at = next;
                    if !king {
                        break;
                    }
                }
            }
        }
        simple
    }

    /// The single jumps from `at` in direction `dir`: the captured square and the squares the
    /// piece may land on (one for a man, every empty square up to the next piece for a king).
    fn jumps(grid: &Grid, at: Pos, king: bool, dir: Pos) -> Option<Jump> {
        let mut look = shift(at, dir)?;
        if king {
            while cell(grid, look) == Square::Empty {
                look = shift(look, dir)?;
            }
        }
        if cell(grid, look) != Square::Foe {
            return None;
        }
        let mut lands = Vec::new();
        let mut next = shift(look, dir);
        while let Some(sq) = next {
            if cell(grid, sq) != Square::Empty {
                break;
            }
            lands.push(sq);
            if !king {
                break;
            }
            next = shift(sq, dir);
        }
        (!lands.is_empty()).then_some((look, lands))
    }

    fn any_jump(grid: &Grid, at: Pos, king: bool) -> bool {
        DIAGONALS
            .iter()
            .any(|&d| Self::jumps(grid, at, king, d).is_some())
    }

    /// Extends a capture whose piece stands on `at` after the jumps in `path`; a sequence that
    /// cannot go on is a finished move.
    fn extend_capture(
        &self,
        grid: &mut Grid,
        at: Pos,
        king: bool,
        path: &mut Vec<Pos>,
        out: &mut BTreeSet<String>,
    ) {
        let mut went_on = false;
        for dir in DIAGONALS {
            let Some((victim, lands)) = Self::jumps(grid, at, king, dir) else {
                continue;
            };
            went_on = true;
            grid[victim.0 as usize][victim.1 as usize] = Square::Taken;
            let crowned = |sq: Pos| king || sq.1 == self.last_row();
            let can_go_on: Vec<Pos> = lands
                .iter()
                .copied()
                .filter(|&sq| Self::any_jump(grid, sq, crowned(sq)))
                .collect();
            let stops = if can_go_on.is_empty() {
                lands
            } else {
                can_go_on
            };
            for sq in stops {
                path.push(sq);
                self.extend_capture(grid, sq, crowned(sq), path, out);
                path.pop();
            }
            grid[victim.0 as usize][victim.1 as usize] = Square::Foe;
        }
        if !went_on && path.len() > 1 {
            let names: Vec<String> = path.iter().map(|&sq| label(sq)).collect();
            out.insert(names.join(":"));
        }
    }
}

fn main() {
    let mut text = String::new();
    // Read at most the 10 lines of a test (they are short), so the player answers even if
    // the judge keeps its input open: stop at the turn's line.
    let mut stdin = std::io::stdin().lock();
    let mut byte = [0u8; 1];
    while text.lines().count() < 10 || !text.ends_with('\n') {
        match stdin.read(&mut byte) {
            Ok(1) => text.push(char::from(byte[0])),
            _ => break,
        }
    }
    let answer = match parse(&text) {
        Ok(test) => {
            let moves = test.all_moves();
            let mut answer = format!("{}\n", moves.len());
            for m in moves {
                answer.push_str(&m);
                answer.push('\n');
            }
            answer
        }
        Err(why) => {
            eprintln!("cannot read the test: {why}");
            "0\n".to_string()
        }
    };
    let mut out = std::io::stdout().lock();
    // A closed stdout leaves nothing to do; the judge reports the missing answer.
    let _ = out.write_all(answer.as_bytes()).and_then(|()| out.flush());
}
