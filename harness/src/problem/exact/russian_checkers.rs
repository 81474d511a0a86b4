//! RussianCheckers (TopCoder SRM 416 Div I Level 3): rules, reference solver and generator.
//!
//! An exact-answer problem: given a board and the side to move, list every legal move in
//! lexicographic order. The rules that make it hard: capture is mandatory and must go on while
//! possible; men capture backwards; kings fly; captured pieces stay on the board as blockers
//! until the move ends and cannot be jumped twice; a king that has jumped must stop on a square
//! from which it can capture again when there is one; a man crowned mid-capture goes on as a king.
//!
//! Wire format (TopCoder order `String[] board, String turn`): `8`, the 8 rows of the board
//! (row 8 first), then `WHITE` or `BLACK`. The answer: the number of moves, then one move per
//! line (`a3-b4` for a simple move, `c3:e5:c7` for a capture).
//!
//! Pure rules and generation: nothing here touches files except through [`super`].

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::problem::exact;

/// The side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::White => "WHITE",
            Side::Black => "BLACK",
        }
    }

    /// The row (0 = row 1) on which this side's men are crowned.
    fn crowning_row(self) -> usize {
        match self {
            Side::White => 7,
            Side::Black => 0,
        }
    }

    /// The row step of this side's men moving forward.
    fn forward(self) -> i32 {
        match self {
            Side::White => 1,
            Side::Black => -1,
        }
    }
}

/// What stands on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    Empty,
    Man(Side),
    King(Side),
}

impl Piece {
    pub fn from_char(c: char) -> Option<Piece> {
        Some(match c {
            '.' => Piece::Empty,
            'w' => Piece::Man(Side::White),
            'W' => Piece::King(Side::White),
            'b' => Piece::Man(Side::Black),
            'B' => Piece::King(Side::Black),
            _ => return None,
        })
    }

    pub fn to_char(self) -> char {
        match self {
            Piece::Empty => '.',
            Piece::Man(Side::White) => 'w',
            Piece::King(Side::White) => 'W',
            Piece::Man(Side::Black) => 'b',
            Piece::King(Side::Black) => 'B',
        }
    }

    pub fn side(self) -> Option<Side> {
        match self {
            Piece::Empty => None,
            Piece::Man(s) | Piece::King(s) => Some(s),
        }
    }
}

/// A square as (column, row), both 0-based: `a1` is (0, 0), `h8` is (7, 7).
pub type Square = (usize, usize);

/// The name of a square in the statement's notation (`e5`).
pub fn square_name((col, row): Square) -> String {
    format!("{}{}", (b'a' + col as u8) as char, row + 1)
}

/// Whether a square is dark (used in the game): `a1` is dark.
pub fn is_dark((col, row): Square) -> bool {
    (col + row) % 2 == 0
}

const DIRECTIONS: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

fn step((col, row): Square, (dc, dr): (i32, i32)) -> Option<Square> {
    let (c, r) = (col as i32 + dc, row as i32 + dr);
    ((0..8).contains(&c) && (0..8).contains(&r)).then_some((c as usize, r as usize))
}

fn bit((col, row): Square) -> u64 {
    1 << (row * 8 + col)
}

/// One input: the board and the side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// `cells[row][col]`, row 0 = row 1 of the board.
    pub cells: [[Piece; 8]; 8],
    pub turn: Side,
}

impl Position {
    pub fn at(&self, (col, row): Square) -> Piece {
        self.cells[row][col]
    }

    /// The board in the statement's `String[]` form: row 8 first.
    pub fn rows(&self) -> Vec<String> {
        (0..8)
            .rev()
            .map(|row| self.cells[row].iter().map(|p| p.to_char()).collect())
            .collect()
    }

    /// Reads the statement's `String[] board` and `String turn`, checking every constraint.
    pub fn from_rows<S: AsRef<str>>(rows: &[S], turn: &str) -> Result<Position, String> {
        if rows.len() != 8 {
            return Err(format!("board has {} rows, expected 8", rows.len()));
        }
        let turn = match turn {
            "WHITE" => Side::White,
            "BLACK" => Side::Black,
            other => return Err(format!("turn is {other:?}, expected WHITE or BLACK")),
        };
        let mut cells = [[Piece::Empty; 8]; 8];
        for (i, text) in rows.iter().enumerate() {
            let text = text.as_ref();
            let row = 7 - i;
            if text.chars().count() != 8 {
                return Err(format!(
                    "row {} is {text:?}, expected 8 characters",
                    row + 1
                ));
            }
            for (col, c) in text.chars().enumerate() {
                let piece = Piece::from_char(c)
                    .ok_or_else(|| format!("row {}: unexpected character {c:?}", row + 1))?;
                if piece != Piece::Empty && !is_dark((col, row)) {
                    return Err(format!(
                        "{} is a light square but holds {c:?}",
                        square_name((col, row))
                    ));
                }
                if let Piece::Man(side) = piece {
                    if row == side.crowning_row() {
                        return Err(format!(
                            "{} holds a man {c:?} on its crowning row",
                            square_name((col, row))
                        ));
                    }
                }
                cells[row][col] = piece;
            }
        }
        Ok(Position { cells, turn })
    }

    pub fn count(&self, keep: impl Fn(Piece) -> bool) -> usize {
        self.cells.iter().flatten().filter(|&&p| keep(p)).count()
    }

    /// Every legal move of the side to move, sorted, without duplicates.
    pub fn legal_moves(&self) -> Vec<String> {
        let mut captures = BTreeSet::new();
        for sq in self.own_squares() {
            let mut board = self.cells;
            let piece = board[sq.1][sq.0];
            board[sq.1][sq.0] = Piece::Empty;
            let mut search = CaptureSearch {
                board: &board,
                side: self.turn,
                moves: &mut captures,
            };
            search.go(sq, matches!(piece, Piece::King(_)), 0, &mut vec![sq]);
        }
        if !captures.is_empty() {
            return captures.into_iter().collect();
        }
        let mut moves = BTreeSet::new();
        for sq in self.own_squares() {
            let king = matches!(self.at(sq), Piece::King(_));
            for dir in DIRECTIONS {
                if !king && dir.1 != self.turn.forward() {
                    continue;
                }
                let mut to = sq;
                while let Some(next) = step(to, dir) {
                    if self.at(next) != Piece::Empty {
                        break;
                    }
                    to = next;
                    moves.insert(format!("{}-{}", square_name(sq), square_name(to)));
                    if !king {
                        break;
                    }
                }
            }
        }
        moves.into_iter().collect()
    }

    fn own_squares(&self) -> Vec<Square> {
        let mut squares = Vec::new();
        for row in 0..8 {
            for col in 0..8 {
                if self.cells[row][col].side() == Some(self.turn) {
                    squares.push((col, row));
                }
            }
        }
        squares
    }
}

/// The search of all capture sequences of one piece. The moving piece is lifted off `board`,
/// so its starting square counts as empty; captured pieces stay on `board` (they block) and
/// are marked in a bit set so they are never jumped twice.
struct CaptureSearch<'a> {
    board: &'a [[Piece; 8]; 8],
    side: Side,
    moves: &'a mut BTreeSet<String>,
}

impl CaptureSearch<'_> {
    fn empty(&self, (col, row): Square) -> bool {
        self.board[row][col] == Piece::Empty
    }

    fn is_victim(&self, (col, row): Square, captured: u64) -> bool {
        let piece = self.board[row][col];
        piece.side().is_some_and(|s| s != self.side) && captured & bit((col, row)) == 0
    }

    /// The first jump in one direction: the victim and the squares the piece may land on.
    fn jump(
        &self,
        from: Square,
        dir: (i32, i32),
        king: bool,
        captured: u64,
    ) -> Option<(Square, Vec<Square>)> {
        let mut at = step(from, dir)?;
        if king {
            while self.empty(at) {
                at = step(at, dir)?;
            }
        }
        if !self.is_victim(at, captured) {
            return None;
        }
        let mut landings = Vec::new();
        let mut next = step(at, dir);
        while let Some(sq) = next.filter(|&sq| self.empty(sq)) {
            landings.push(sq);
            if !king {
                break;
            }
            next = step(sq, dir);
        }
        (!landings.is_empty()).then_some((at, landings))
    }

    fn can_capture(&self, from: Square, king: bool, captured: u64) -> bool {
        DIRECTIONS
            .iter()
            .any(|&dir| self.jump(from, dir, king, captured).is_some())
    }

    fn go(&mut self, from: Square, king: bool, captured: u64, path: &mut Vec<Square>) {
        let mut ended = true;
        for dir in DIRECTIONS {
            let Some((victim, landings)) = self.jump(from, dir, king, captured) else {
                continue;
            };
            ended = false;
            let captured = captured | bit(victim);
            let crowning_row = self.side.crowning_row();
            let crowned = |sq: Square| king || sq.1 == crowning_row;
            // A king must stop where it can capture again, if any such square exists.
            let onward: Vec<Square> = landings
                .iter()
                .copied()
                .filter(|&sq| self.can_capture(sq, crowned(sq), captured))
                .collect();
            let stops = if onward.is_empty() { landings } else { onward };
            for sq in stops {
                path.push(sq);
                self.go(sq, crowned(sq), captured, path);
                path.pop();
            }
        }
        if ended && path.len() > 1 {
            let names: Vec<String> = path.iter().map(|&sq| square_name(sq)).collect();
            self.moves.insert(names.join(":"));
        }
    }
}

impl fmt::Display for Position {
    /// The TopCoder encoding: `8`, the rows (row 8 first), the turn.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = exact::TcWriter::default()
            .strings(&self.rows())
            .string(self.turn.name())
            .finish();
        f.write_str(&text)
    }
}

impl FromStr for Position {
    type Err = String;

    fn from_str(text: &str) -> Result<Position, String> {
        let mut reader = exact::TcReader::new(text);
        let rows = reader.strings(8)?;
        let turn = reader.string()?;
        reader.end()?;
        Position::from_rows(&rows, turn)
    }
}

/// The reference answer to an input, in the wire format.
pub fn solve(input: &str) -> Result<String, String> {
    let position: Position = input.parse()?;
    Ok(exact::TcWriter::default()
        .strings(&position.legal_moves())
        .finish())
}

/// The most pieces one of these moves captures (0 when they are simple moves).
pub fn most_captured(moves: &[String]) -> usize {
    moves
        .iter()
        .map(|m| m.matches(':').count())
        .max()
        .unwrap_or(0)
}

/// Test parameters read from an input: pieces on the board, kings among them, the number of
/// legal moves and the most pieces one move captures. `?` when the input cannot be read.
pub fn params(input: &str) -> Vec<String> {
    match input.parse::<Position>() {
        Ok(position) => {
            let moves = position.legal_moves();
            vec![
                position.count(|p| p != Piece::Empty).to_string(),
                position.count(|p| matches!(p, Piece::King(_))).to_string(),
                moves.len().to_string(),
                most_captured(&moves).to_string(),
            ]
        }
        Err(_) => vec!["?".to_string(); 4],
    }
}

/// A random man or king of `side` for `sq`; a man drawn on its crowning row is made a king,
/// as the statement forbids such men.
fn random_piece(rng: &mut Xoshiro256PlusPlus, sq: Square, side: Side, king_chance: f64) -> Piece {
    if rng.random_bool(king_chance) || sq.1 == side.crowning_row() {
        Piece::King(side)
    } else {
        Piece::Man(side)
    }
}

fn random_side(rng: &mut Xoshiro256PlusPlus) -> Side {
    if rng.random_bool(0.5) {
        Side::White
    } else {
        Side::Black
    }
}

fn dark_squares() -> impl Iterator<Item = Square> {
    (0..8)
        .flat_map(|row| (0..8).map(move |col| (col, row)))
        .filter(|&sq| is_dark(sq))
}

/// Plants a capture chain of up to `length` jumps for a piece of the side to move: the
/// squares the piece passes are kept empty and the victims placed. The rules (a king's forced
/// stops) and the pieces sprinkled later (other captures) may turn the actual moves elsewhere,
/// but captures, long chains and flying jumps become common instead of rare.
fn plant_chain(
    rng: &mut Xoshiro256PlusPlus,
    cells: &mut [[Option<Piece>; 8]; 8],
    side: Side,
    length: usize,
    king_chance: f64,
) {
    let foe = match side {
        Side::White => Side::Black,
        Side::Black => Side::White,
    };
    let dark: Vec<Square> = dark_squares().collect();
    let mover_is_king = rng.random_bool(0.5);
    // Half the men start near their crowning row, so that crowning mid-capture is common.
    let near_crowning = |sq: &Square| sq.1.abs_diff(side.crowning_row()) == 2;
    let starts: Vec<Square> = if !mover_is_king && rng.random_bool(0.5) {
        dark.iter().copied().filter(near_crowning).collect()
    } else {
        dark.clone()
    };
    let start = starts[rng.random_range(0..starts.len())];
    let mover = random_piece(rng, start, side, if mover_is_king { 1.0 } else { 0.0 });
    cells[start.1][start.0] = Some(Piece::Empty);
    let mut king = matches!(mover, Piece::King(_));
    let mut at = start;
    for _ in 0..length {
        // Some directions are blocked; a few tries find a free one or end the chain.
        let planted = (0..12).find_map(|_| {
            let dir = DIRECTIONS[rng.random_range(0..4)];
            let before = if king { rng.random_range(0..=3) } else { 0 };
            let after = if king { rng.random_range(1..=3) } else { 1 };
            let mut path = Vec::new();
            let mut sq = at;
            for _ in 0..before {
                sq = step(sq, dir)?;
                path.push(sq);
            }
            let victim = step(sq, dir)?;
            sq = victim;
            for _ in 0..after {
                sq = step(sq, dir)?;
                path.push(sq);
            }
            let free = |s: &Square| matches!(cells[s.1][s.0], None | Some(Piece::Empty));
            (cells[victim.1][victim.0].is_none() && path.iter().all(free))
                .then_some((victim, path, sq))
        });
        let Some((victim, path, landing)) = planted else {
            break;
        };
        for sq in path {
            cells[sq.1][sq.0] = Some(Piece::Empty);
        }
        cells[victim.1][victim.0] = Some(random_piece(rng, victim, foe, king_chance));
        at = landing;
        king = king || at.1 == side.crowning_row();
    }
    cells[start.1][start.0] = Some(mover);
}

/// The random valid input of a test's stream ([`crate::problem::Env::stream`]). Five kinds of boards, so that simple moves, captures,
/// multi-captures, flying kings and crowning mid-capture all occur often.
pub fn generate(mut rng: Xoshiro256PlusPlus) -> Position {
    let turn = random_side(&mut rng);
    // `None` = not decided yet; the sprinkling pass fills those squares.
    let mut cells: [[Option<Piece>; 8]; 8] = [[None; 8]; 8];
    let (density, king_chance) = match rng.random_range(0..6) {
        // A crowded middle game of mostly men.
        0 => (rng.random_range(0.35..0.8), rng.random_range(0.0..0.15)),
        // A sparse ending with many kings.
        1 => (rng.random_range(0.05..0.3), rng.random_range(0.4..1.0)),
        // A planted chain for a man or a king among a few other pieces.
        2 | 3 => {
            let king_chance = rng.random_range(0.0..0.6);
            let length = rng.random_range(1..=8);
            plant_chain(&mut rng, &mut cells, turn, length, king_chance);
            (rng.random_range(0.0..0.3), king_chance)
        }
        // A quiet board: few pieces, mostly men, so simple moves are common.
        4 => (rng.random_range(0.05..0.25), rng.random_range(0.0..0.2)),
        // Anything goes.
        _ => (rng.random_range(0.0..1.0), rng.random_range(0.0..1.0)),
    };
    let mut position = Position {
        cells: [[Piece::Empty; 8]; 8],
        turn,
    };
    for sq in dark_squares() {
        position.cells[sq.1][sq.0] = match cells[sq.1][sq.0] {
            Some(piece) => piece,
            None if rng.random_bool(density) => {
                let side = random_side(&mut rng);
                random_piece(&mut rng, sq, side, king_chance)
            }
            None => Piece::Empty,
        };
    }
    position
}

pub const ID: &str = "russian-checkers";

/// The problem as the harness runs it.
pub const SPEC: exact::Spec = exact::Spec {
    id: ID,
    title: "RussianCheckers (TopCoder SRM 416 Div I Level 3)",
    params: &["pieces", "kings", "moves", "captures"],
    generate: |rng| generate(rng).to_string(),
    solve,
    params_of: params,
};

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn board(rows: &[&str]) -> Vec<String> {
        rows.iter().map(|r| r.to_string()).collect()
    }

    const EMPTY: [&str; 8] = [
        "........", "........", "........", "........", "........", "........", "........",
        "........",
    ];

    #[test]
    fn from_rows_checks_every_constraint() {
        let bad: [(usize, &str, &str, &str); 6] = [
            (0, ".w......", "WHITE", "crowning row"),
            (7, "b.......", "WHITE", "crowning row"),
            (3, ".w......", "WHITE", "light square"),
            (3, "x.......", "WHITE", "unexpected character"),
            (3, "w......", "WHITE", "8 characters"),
            (3, "w.......", "RED", "WHITE or BLACK"),
        ];
        for (index, row, turn, why) in bad {
            let mut rows = board(&EMPTY);
            rows[index] = row.to_string();
            let err = Position::from_rows(&rows, turn).unwrap_err();
            assert!(err.contains(why), "{row} {turn}: {err}");
        }
        assert!(Position::from_rows(&board(&EMPTY[..7]), "WHITE")
            .unwrap_err()
            .contains("7 rows"));
        let mut rows = board(&EMPTY);
        rows[0] = ".W.b....".to_string();
        rows[7] = "B.w.....".to_string();
        let position = Position::from_rows(&rows, "BLACK").unwrap();
        assert_eq!(position.at((1, 7)), Piece::King(Side::White));
        assert_eq!(position.at((2, 0)), Piece::Man(Side::White));
        assert_eq!(position.rows(), rows);
    }

    #[test]
    fn wire_format_round_trips() {
        let position = generate(Xoshiro256PlusPlus::seed_from_u64(7));
        let text = position.to_string();
        assert!(text.starts_with("8\n"));
        assert!(text.ends_with(&format!("\n{}\n", position.turn.name())));
        assert_eq!(text.parse::<Position>(), Ok(position));
        assert!("8\n".parse::<Position>().is_err());
        assert!(format!("{text}extra\n").parse::<Position>().is_err());
    }

    #[test]
    fn no_moves_gives_an_empty_list() {
        let mut rows = board(&EMPTY);
        rows[7] = "b.......".replace('b', "B");
        assert_eq!(
            solve(&format!("8\n{}\nWHITE\n", rows.join("\n"))),
            Ok("0\n".into())
        );
    }
}
