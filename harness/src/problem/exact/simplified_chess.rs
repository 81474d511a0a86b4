//! SimplifiedChessEngine (HackerRank): rules, reference solver and generator.
//!
//! Chess on a 4 x 4 board without kings and pawns: each side has exactly one queen, at most two
//! rooks and at most two minor pieces (bishops, knights), 1..=5 pieces in all. Pieces move and
//! capture as in chess; a side wins by capturing the other side's queen. For each game the
//! answer is `YES` when White, moving first, can capture Black's queen within `m` moves
//! whatever Black does, else `NO`.
//!
//! **The meaning of `m`:** it counts the moves of both sides (plies). White makes moves 1, 3
//! and 5, Black moves 2, 4 and 6; the answer is `YES` when White has a strategy that captures
//! Black's queen on some move `<= m` before Black captures White's queen. So `m = 1` and
//! `m = 2` both ask "can White take the queen now?", and `m = 3` allows one Black reply. The
//! statement's sample (`m = 1`, a knight takes the queen at once) is a test below.
//!
//! There is no check and no forbidden move: any move of a piece to an empty square or onto an
//! enemy piece is legal. (Forbidding moves that leave one's own queen attacked, as some
//! solutions do, gives the same answers: such a move loses the queen on the next move.) A side
//! is never left without a legal move with these piece counts (the test
//! `a_side_always_has_a_move` tries every army); the search would count it as White not winning.
//!
//! Input and output are HackerRank's own format, unchanged: `g`, then per game `w b m` and the
//! `w` White then `b` Black pieces as `t c r` (`Q A 4`); one `YES`/`NO` line per game.
//!
//! This module touches nothing outside itself but `testcases/simplified-chess/` (fixed cases).

use std::fmt;
use std::path::Path;

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::problem::{exact, CaseError};

pub const ID: &str = "simplified-chess";
pub const MAX_GAMES: usize = 200;
pub const MAX_PIECES: usize = 5;
pub const MAX_MOVES: usize = 6;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Queen,
    Knight,
    Bishop,
    Rook,
}

impl Kind {
    pub fn letter(self) -> char {
        match self {
            Kind::Queen => 'Q',
            Kind::Knight => 'N',
            Kind::Bishop => 'B',
            Kind::Rook => 'R',
        }
    }

    fn from_letter(text: &str) -> Option<Kind> {
        Some(match text {
            "Q" => Kind::Queen,
            "N" => Kind::Knight,
            "B" => Kind::Bishop,
            "R" => Kind::Rook,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    White,
    Black,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

/// A square: column 0..4 (`A`..`D`) and row 0..4 (`1`..`4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Square {
    pub column: u8,
    pub row: u8,
}

impl Square {
    fn index(self) -> usize {
        (self.row * 4 + self.column) as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub kind: Kind,
    pub square: Square,
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {}",
            self.kind.letter(),
            (b'A' + self.square.column) as char,
            self.square.row + 1
        )
    }
}

/// One game: the pieces of each side and the number of moves `m`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub white: Vec<Piece>,
    pub black: Vec<Piece>,
    pub m: usize,
}

/// One input: a list of games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub games: Vec<Position>,
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.games.len())?;
        for game in &self.games {
            writeln!(f, "{} {} {}", game.white.len(), game.black.len(), game.m)?;
            for piece in game.white.iter().chain(&game.black) {
                writeln!(f, "{piece}")?;
            }
        }
        Ok(())
    }
}

/// Reads whitespace-separated tokens, saying what was expected when they run out or misfit.
struct Tokens<'a> {
    words: std::str::SplitWhitespace<'a>,
}

impl<'a> Tokens<'a> {
    fn next(&mut self, what: &str) -> Result<&'a str, String> {
        self.words
            .next()
            .ok_or_else(|| format!("expected {what}, found the end of the input"))
    }

    fn number(
        &mut self,
        what: &str,
        range: std::ops::RangeInclusive<usize>,
    ) -> Result<usize, String> {
        let word = self.next(what)?;
        match word.parse::<usize>() {
            Ok(v) if range.contains(&v) => Ok(v),
            _ => Err(format!(
                "expected {what} in {}..={}, got {word:?}",
                range.start(),
                range.end()
            )),
        }
    }
}

impl Input {
    /// Reads an input in HackerRank's format, checking the statement's constraints.
    pub fn parse(text: &str) -> Result<Input, String> {
        let mut t = Tokens {
            words: text.split_whitespace(),
        };
        let g = t.number("the number of games g", 1..=MAX_GAMES)?;
        let mut games = Vec::with_capacity(g);
        for game in 1..=g {
            let position = Position::parse(&mut t).map_err(|e| format!("game {game}: {e}"))?;
            games.push(position);
        }
        if let Some(extra) = t.words.next() {
            return Err(format!("unexpected {extra:?} after game {g}"));
        }
        Ok(Input { games })
    }

    /// The answers, one line per game.
    pub fn answer(&self) -> String {
        self.games
            .iter()
            .map(|g| if g.white_wins() { "YES\n" } else { "NO\n" })
            .collect()
    }
}

impl Position {
    fn parse(t: &mut Tokens) -> Result<Position, String> {
        let w = t.number("the number of White pieces w", 1..=MAX_PIECES)?;
        let b = t.number("the number of Black pieces b", 1..=MAX_PIECES)?;
        let m = t.number("the number of moves m", 1..=MAX_MOVES)?;
        let mut taken = [false; 16];
        let mut read_side = |count: usize, side: &str| -> Result<Vec<Piece>, String> {
            let mut pieces = Vec::with_capacity(count);
            for i in 1..=count {
                let what = format!("{side} piece {i}");
                let kind_text = t.next(&format!("the type of {what}"))?;
                let kind = Kind::from_letter(kind_text).ok_or_else(|| {
                    format!("{what}: expected a type Q, N, B or R, got {kind_text:?}")
                })?;
                let column_text = t.next(&format!("the column of {what}"))?;
                let column = match column_text {
                    "A" | "B" | "C" | "D" => column_text.as_bytes()[0] - b'A',
                    _ => {
                        return Err(format!(
                            "{what}: expected a column A..D, got {column_text:?}"
                        ))
                    }
                };
                let row = t.number(&format!("the row of {what}"), 1..=4)? as u8 - 1;
                let square = Square { column, row };
                if std::mem::replace(&mut taken[square.index()], true) {
                    return Err(format!("{what}: square {column_text}{} is taken", row + 1));
                }
                pieces.push(Piece { kind, square });
            }
            check_army(&pieces).map_err(|e| format!("{side}: {e}"))?;
            Ok(pieces)
        };
        let white = read_side(w, "White")?;
        let black = read_side(b, "Black")?;
        Ok(Position { white, black, m })
    }

    /// Whether White can capture Black's queen within `m` moves of both sides.
    pub fn white_wins(&self) -> bool {
        let mut board = [EMPTY; 16];
        for (side, pieces) in [(Side::White, &self.white), (Side::Black, &self.black)] {
            for p in pieces {
                board[p.square.index()] = code(side, p.kind);
            }
        }
        white_wins(&mut board, Side::White, self.m as u32)
    }
}

/// Exactly one queen, at most two rooks and at most two minor pieces.
fn check_army(pieces: &[Piece]) -> Result<(), String> {
    let count = |f: &dyn Fn(Kind) -> bool| pieces.iter().filter(|p| f(p.kind)).count();
    let queens = count(&|k| k == Kind::Queen);
    let rooks = count(&|k| k == Kind::Rook);
    let minors = count(&|k| matches!(k, Kind::Knight | Kind::Bishop));
    if queens != 1 {
        return Err(format!("has {queens} queens, expected exactly 1"));
    }
    if rooks > 2 {
        return Err(format!("has {rooks} rooks, at most 2 allowed"));
    }
    if minors > 2 {
        return Err(format!(
            "has {minors} bishops and knights, at most 2 allowed"
        ));
    }
    Ok(())
}

/// A square's content: 0 empty, else the side in bit 3 and the kind in the low bits.
type Cell = u8;
const EMPTY: Cell = 0;
const BLACK_BIT: Cell = 8;

fn code(side: Side, kind: Kind) -> Cell {
    let k = match kind {
        Kind::Queen => 1,
        Kind::Knight => 2,
        Kind::Bishop => 3,
        Kind::Rook => 4,
    };
    if side == Side::Black {
        k | BLACK_BIT
    } else {
        k
    }
}

fn side_of(cell: Cell) -> Side {
    if cell & BLACK_BIT != 0 {
        Side::Black
    } else {
        Side::White
    }
}

fn kind_of(cell: Cell) -> Kind {
    match cell & 7 {
        1 => Kind::Queen,
        2 => Kind::Knight,
        3 => Kind::Bishop,
        _ => Kind::Rook,
    }
}

const ROOK_LINES: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_LINES: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_JUMPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

fn step(from: usize, (dc, dr): (i8, i8)) -> Option<usize> {
    let (c, r) = ((from % 4) as i8 + dc, (from / 4) as i8 + dr);
    ((0..4).contains(&c) && (0..4).contains(&r)).then_some((r * 4 + c) as usize)
}

/// Every move of `side` as (from, to), captures of the queen first.
fn moves(board: &[Cell; 16], side: Side) -> Vec<(usize, usize)> {
    let mut list = Vec::with_capacity(48);
    for from in 0..16 {
        let cell = board[from];
        if cell == EMPTY || side_of(cell) != side {
            continue;
        }
        let mut target = |to: usize| -> bool {
            let there = board[to];
            if there == EMPTY {
                list.push((from, to));
                true
            } else {
                if side_of(there) != side {
                    list.push((from, to));
                }
                false
            }
        };
        let slide = |lines: &[(i8, i8)], target: &mut dyn FnMut(usize) -> bool| {
            for &d in lines {
                let mut at = from;
                while let Some(next) = step(at, d) {
                    if !target(next) {
                        break;
                    }
                    at = next;
                }
            }
        };
        match kind_of(cell) {
            Kind::Queen => {
                slide(&ROOK_LINES, &mut target);
                slide(&BISHOP_LINES, &mut target);
            }
            Kind::Rook => slide(&ROOK_LINES, &mut target),
            Kind::Bishop => slide(&BISHOP_LINES, &mut target),
            Kind::Knight => {
                for d in KNIGHT_JUMPS {
                    if let Some(to) = step(from, d) {
                        target(to);
                    }
                }
            }
        }
    }
    let enemy_queen = code(side.other(), Kind::Queen);
    list.sort_by_key(|&(_, to)| board[to] != enemy_queen);
    list
}

/// Whether White captures Black's queen within `plies` more moves, `to_move` moving next.
fn white_wins(board: &mut [Cell; 16], to_move: Side, plies: u32) -> bool {
    if plies == 0 {
        return false;
    }
    let list = moves(board, to_move);
    let enemy_queen = code(to_move.other(), Kind::Queen);
    let takes_queen = list
        .first()
        .is_some_and(|&(_, to)| board[to] == enemy_queen);
    match to_move {
        Side::White => {
            if takes_queen {
                return true;
            }
            // After a quiet White move White needs Black's move and one more of its own.
            if plies < 3 {
                return false;
            }
            list.iter()
                .any(|&mv| with_move(board, mv, |b| white_wins(b, Side::Black, plies - 1)))
        }
        Side::Black => {
            if takes_queen || plies < 2 || list.is_empty() {
                return false;
            }
            list.iter()
                .all(|&mv| with_move(board, mv, |b| white_wins(b, Side::White, plies - 1)))
        }
    }
}

fn with_move<T>(
    board: &mut [Cell; 16],
    (from, to): (usize, usize),
    then: impl FnOnce(&mut [Cell; 16]) -> T,
) -> T {
    let captured = board[to];
    board[to] = board[from];
    board[from] = EMPTY;
    let result = then(board);
    board[from] = board[to];
    board[to] = captured;
    result
}

/// The reference answer to an input in HackerRank's format.
pub fn solve(input: &str) -> Result<String, String> {
    Ok(Input::parse(input)?.answer())
}

/// A random valid input from a test's stream ([`crate::problem::Env::stream`]): usually one game, sometimes up to five. Each side gets its queen, 0..=2
/// rooks, at most one bishop and at most one knight (so it is valid however "at most two minor
/// pieces (i.e., a Bishop and/or Knight)" is read), on distinct random squares; m is 1..=6.
pub fn generate(mut rng: Xoshiro256PlusPlus) -> Input {
    let g = if rng.random_range(0..4) == 0 {
        rng.random_range(2..=5)
    } else {
        1
    };
    let games = (0..g)
        .map(|_| {
            let mut free: Vec<u8> = (0..16).collect();
            let mut army = |rng: &mut Xoshiro256PlusPlus| {
                let mut kinds = vec![Kind::Queen];
                kinds.extend(std::iter::repeat_n(Kind::Rook, rng.random_range(0..=2)));
                if rng.random_range(0..2) == 0 {
                    kinds.push(Kind::Bishop);
                }
                if rng.random_range(0..2) == 0 {
                    kinds.push(Kind::Knight);
                }
                // The statement lists pieces in any order; so do we.
                for i in (1..kinds.len()).rev() {
                    kinds.swap(i, rng.random_range(0..=i));
                }
                kinds
                    .into_iter()
                    .map(|kind| {
                        let at = free.swap_remove(rng.random_range(0..free.len()));
                        Piece {
                            kind,
                            square: Square {
                                column: at % 4,
                                row: at / 4,
                            },
                        }
                    })
                    .collect::<Vec<_>>()
            };
            let white = army(&mut rng);
            let black = army(&mut rng);
            let m = rng.random_range(1..=MAX_MOVES);
            Position { white, black, m }
        })
        .collect();
    Input { games }
}

/// Parameters for the CSV columns: the number of games and, over them, the largest `w`, `b`
/// and `m` (for the usual one-game input, that game's own).
fn params(input: &str) -> Vec<String> {
    match Input::parse(input) {
        Ok(i) => {
            let max = |f: &dyn Fn(&Position) -> usize| {
                i.games.iter().map(f).max().unwrap_or(0).to_string()
            };
            vec![
                i.games.len().to_string(),
                max(&|p| p.white.len()),
                max(&|p| p.black.len()),
                max(&|p| p.m),
            ]
        }
        Err(_) => vec![String::new(); 4],
    }
}

/// Solves every fixed case in `dir` and lists those where the reference solver disagrees with
/// the shipped answer (the benchmark and the agreement test use it).
pub fn check_fixed(dir: &Path) -> Result<Vec<exact::Mismatch>, CaseError> {
    exact::check_fixed(dir, solve)
}

/// The problem as the harness runs it.
pub const SPEC: exact::Spec = exact::Spec {
    id: ID,
    title: "SimplifiedChessEngine (HackerRank)",
    params: &["games", "w", "b", "m"],
    generate: |rng| generate(rng).to_string(),
    solve,
    params_of: params,
};

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn statement_sample() {
        assert_eq!(
            solve("1\n2 1 1\nN B 2\nQ B 1\nQ A 4\n"),
            Ok("YES\n".to_string())
        );
    }

    #[test]
    fn m_counts_the_moves_of_both_sides() {
        // Black's queen on A4 is boxed in by its own rooks and bishop and nothing Black has can
        // reach C3: White plays N D1-C3 (move 1), Black moves anything (move 2), NxA4 (move 3).
        let boxed = |m| format!("1\n2 4 {m}\nQ D 2\nN D 1\nQ A 4\nR A 3\nR B 4\nB B 3\n");
        for (m, answer) in [(1, "NO"), (2, "NO"), (3, "YES"), (6, "YES")] {
            assert_eq!(solve(&boxed(m)), Ok(format!("{answer}\n")), "m = {m}");
        }
    }

    #[test]
    fn a_side_always_has_a_move() {
        // Enemy pieces only turn quiet moves into captures, so it is enough to try every army
        // of one side alone on the board: 1 queen, 0..=2 rooks, 0..=2 bishops and knights. A
        // piece can move unless each square next to it along its lines (or a knight's jump away)
        // is off the board or holds a piece of its own side.
        type Steps = &'static [(i8, i8)];
        fn has_move(board: &[Cell; 16]) -> bool {
            (0..16).filter(|&at| board[at] != EMPTY).any(|at| {
                let (lines, jumps): (Steps, Steps) = match kind_of(board[at]) {
                    Kind::Queen => (&ROOK_LINES, &BISHOP_LINES),
                    Kind::Rook => (&ROOK_LINES, &[]),
                    Kind::Bishop => (&BISHOP_LINES, &[]),
                    Kind::Knight => (&KNIGHT_JUMPS, &[]),
                };
                lines
                    .iter()
                    .chain(jumps)
                    .filter_map(|&d| step(at, d))
                    .any(|to| board[to] == EMPTY)
            })
        }
        fn place(board: &mut [Cell; 16], from: usize, rooks: u8, minors: u8, checked: &mut u64) {
            if board.contains(&code(Side::White, Kind::Queen)) {
                assert!(has_move(board), "no move: {board:?}");
                *checked += 1;
            }
            for at in from..16 {
                let queen = !board.contains(&code(Side::White, Kind::Queen));
                let mut kinds = vec![];
                if queen {
                    kinds.push((Kind::Queen, rooks, minors));
                }
                if rooks < 2 {
                    kinds.push((Kind::Rook, rooks + 1, minors));
                }
                if minors < 2 {
                    kinds.push((Kind::Bishop, rooks, minors + 1));
                    kinds.push((Kind::Knight, rooks, minors + 1));
                }
                for (kind, r, m) in kinds {
                    board[at] = code(Side::White, kind);
                    place(board, at + 1, r, m, checked);
                    board[at] = EMPTY;
                }
            }
        }
        let mut checked = 0;
        place(&mut [EMPTY; 16], 0, 0, 0, &mut checked);
        // 16 queen squares x sum over r rooks and k minors of C(15, r) C(15 - r, k) 2^k.
        assert_eq!(checked, 671_056);
    }

    #[test]
    fn parse_names_what_is_wrong() {
        let err = Input::parse("1\n2 1 1\nN B 2\nQ B 2\nQ A 4\n").unwrap_err();
        assert!(err.contains("taken"), "{err}");
        let err = Input::parse("1\n1 1 7\nQ A 1\nQ D 4\n").unwrap_err();
        assert!(err.contains("m in 1..=6"), "{err}");
        let err = Input::parse("1\n2 1 1\nR A 1\nR A 2\nQ D 4\n").unwrap_err();
        assert!(err.contains("0 queens"), "{err}");
        let err = Input::parse("1\n1 1 1\nQ E 1\nQ D 4\n").unwrap_err();
        assert!(err.contains("column A..D"), "{err}");
        let err = Input::parse("1\n1 1 1\nQ A 1\nQ D 4\nQ\n").unwrap_err();
        assert!(err.contains("unexpected"), "{err}");
        let err = Input::parse("2\n1 1 1\nQ A 1\nQ D 4\n").unwrap_err();
        assert!(err.contains("game 2"), "{err}");
    }

    #[test]
    fn generated_inputs_parse_back() {
        for seed in 0..200 {
            let input = generate(Xoshiro256PlusPlus::seed_from_u64(seed));
            assert_eq!(Input::parse(&input.to_string()), Ok(input), "seed {seed}");
        }
    }
}
