//! Linez (TopCoder Marathon Match 5): the generator and the judge here, the rules in
//! `rules.rs` (re-exported), the views in `terminal.rs` (`harness play`), `frames.rs` and
//! `view.js` (replays: the page gets the moves and the judge's landings, a few bytes a move,
//! and computes its frames itself).
//!
//! A 9x9 board of numbers 1..7. A move takes one number to an empty cell joined to it by a
//! path of horizontally or vertically adjacent empty cells. Every line (row, column or
//! diagonal) of 5 or more equal numbers through the moved number is then removed, scoring
//! `10 + k*(k-5)/2` for the k cells removed (a cell shared by two lines counts once), and the
//! player moves again. A move that removes nothing makes the three `nextThree` numbers land,
//! in order, on uniformly random empty cells; a line of 5+ that a landed number completes is
//! removed and scored the same way, before the next one lands. Then a fresh `nextThree` is
//! drawn (each uniform in 1..7). The game ends when the board has no empty cell.
//!
//! Wire protocol: each turn the judge sends the 9 rows of the board (top row first, `.` for
//! an empty cell) and a line with `nextThree`; the player answers with 4 characters, the cell
//! to move from and the cell to move to, each a row letter `A`..`I` (from the top) and a
//! column digit `1`..`9` (from the left): `I8F6`. ASCII spaces and tabs around the answer are
//! ignored; anything else (lower-case letters and other white space included) is a malformed
//! move, and a line longer than [`MAX_MOVE_LINE`] bytes is a protocol error. The transcript
//! keeps a move as the judge read it (`I8F6` for ` I8F6 `). When the game ends the judge
//! sends nothing more (the runner closes the player's input).
//!
//! Decisions where the statement is silent:
//! - An invalid or malformed move ends the game with WA and the points made so far; so does
//!   any fault on the wire (TLE, crash, ...): the score is always kept, as on TopCoder.
//! - The statement has no move cap: a game lasts until the board is full, however long a
//!   strong player makes it. `move-cap` (`[problem.linez]` in scoring.toml; 0, the default,
//!   means none) ends a game after that many accepted moves, with verdict OK.
//! - A removal that leaves the board without any number (after a move or after a landing)
//!   makes the `nextThree` land at once, as after a move that removed nothing, so the player
//!   always has a number to move. Three numbers cannot form a line, so this happens once.
//! - When fewer cells are empty than numbers are left to land, the numbers that find no empty
//!   cell are dropped (a line removed by an earlier landing frees cells for later ones); the
//!   board is then full and the game ends.
//! - A player always has a legal move while the board has both a number and an empty cell:
//!   the grid is connected, so some number is next to some empty cell. The judge still checks
//!   ([`Board::has_legal_move`]) and would end the game with OK if there were none.
//!
//! Randomness: one xoshiro256++ stream per seed. For a seed it draws the starting position
//! (three times: a uniform empty cell, then its number), then `nextThree`, then, as the game
//! goes, the cell of every landing number and every fresh `nextThree`. The statement's ten
//! example seeds start from the statement's positions instead (`testcases/linez/examples.txt`),
//! since its generator is unknown; their later randomness is drawn from the seed's own stream.
//! [`Game::describe`] prints the starting position exactly as the player first sees it; what
//! lands later depends on the player's moves and is not shown.
//!
//! Judging a move is O(board) and allocates nothing: the board is a fixed array, paths are
//! found with bit masks, lines are gathered in a fixed array, and the message is one buffer.

mod frames;
mod rules;
mod terminal;

pub use rules::*;

use std::fmt::Write as _;

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value;

use super::views::{TerminalView, Views};
use super::{CaseError, CaseKey, Channel, Env, Game, Problem};
use crate::verdict::{Fault, Outcome};

/// A long game under `testcases/linez/`: the moves of one game of seed [`LONG_GAME_SEED`], one
/// a line (`#` lines are comments), played by a strong player (see the folder's README).
pub const LONG_GAME_FILE: &str = "long-game-1.txt";
/// The seed of [`LONG_GAME_FILE`].
pub const LONG_GAME_SEED: u64 = 1;

/// A fixed starting position from `testcases/linez/examples.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    pub seed: u64,
    pub board: Board,
    pub next_three: [u8; 3],
}

/// Reads the examples file: one example a line, `SEED CELL=N ... NEXT` (e.g.
/// `149738788 B6=4 D7=5 G7=3 545`); `#` starts a comment.
pub fn parse_examples(text: &str, path: &std::path::Path) -> Result<Vec<Example>, CaseError> {
    let mut examples = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let malformed = |message: String| CaseError::Malformed {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let [seed, placements @ .., next] = &tokens[..] else {
            return Err(malformed("expected `SEED CELL=N ... NEXT`".into()));
        };
        if placements.is_empty() {
            return Err(malformed("expected `SEED CELL=N ... NEXT`".into()));
        }
        let seed: u64 = seed
            .parse()
            .map_err(|_| malformed(format!("seed {seed:?} is not a number")))?;
        let mut board = Board::EMPTY;
        for p in placements {
            let (cell, number) = p
                .split_once('=')
                .ok_or_else(|| malformed(format!("{p:?} is not CELL=N")))?;
            let cell = Cell::parse(cell).map_err(malformed)?;
            let number = match number.as_bytes() {
                &[d @ b'1'..=b'7'] => d - b'0',
                _ => return Err(malformed(format!("number in {p:?} is not 1..7"))),
            };
            board.set(cell, number);
        }
        let next_three = parse_next_three(next).map_err(malformed)?;
        examples.push(Example {
            seed,
            board,
            next_three,
        });
    }
    Ok(examples)
}

/// The Linez problem.
pub struct Linez;

impl Problem for Linez {
    fn id(&self) -> &'static str {
        "linez"
    }

    fn title(&self) -> &'static str {
        "Linez (TopCoder Marathon Match 5)"
    }

    /// TopCoder rule: a crash, a timeout or an invalid move keeps the points made so far.
    fn keeps_score_on_fault(&self) -> bool {
        true
    }

    /// For `harness bench`: moves the first number that can move to its first reachable cell.
    fn bench_player(&self, _key: &CaseKey, _env: &Env) -> Option<Box<dyn Channel>> {
        Some(Box::new(FirstMovable::default()))
    }

    fn max_line(&self) -> Option<usize> {
        Some(MAX_MOVE_LINE)
    }

    /// [`LONG_GAME_FILE`]: 20,000 moves of seed 1.
    fn long_game(&self, env: &Env) -> Option<Result<(CaseKey, Vec<String>), CaseError>> {
        let path = env.problem_dir("linez").join(LONG_GAME_FILE);
        Some(CaseError::read(&path).map(|text| {
            let moves = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(String::from)
                .collect();
            (CaseKey::Seed(LONG_GAME_SEED), moves)
        }))
    }

    /// Nothing is generated but the position; tests are told apart by their length (`moves`).
    fn param_names(&self) -> &'static [&'static str] {
        &[]
    }

    /// Linez has no generator parameters; the game's length tells easy seeds from hard.
    fn groups(&self) -> &'static [&'static str] {
        &["moves"]
    }

    fn case(&self, key: &CaseKey, env: &Env) -> Result<Box<dyn Game>, CaseError> {
        Ok(Box::new(Linez::game(key, env)?))
    }

    fn views(&self) -> Option<&dyn Views> {
        Some(self)
    }
}

impl Views for Linez {
    fn terminal(&self, key: &CaseKey, env: &Env) -> Result<Box<dyn TerminalView>, String> {
        let game = Linez::game(key, env).map_err(|e| e.to_string())?;
        Ok(Box::new(terminal::LinezView::new(game)))
    }

    fn frames(&self, key: &CaseKey, env: &Env, answers: &[String]) -> Result<Vec<Value>, String> {
        let game = Linez::game(key, env).map_err(|e| e.to_string())?;
        Ok(frames::frames(game, answers))
    }

    /// The moves and the judge's landings; `expand` in `view.js` computes the frames.
    fn page_data(&self, key: &CaseKey, env: &Env, answers: &[String]) -> Result<Value, String> {
        let game = Linez::game(key, env).map_err(|e| e.to_string())?;
        Ok(frames::page_data(game, answers))
    }

    fn page_script(&self) -> &'static str {
        include_str!("view.js")
    }
}

/// For `harness bench`: moves the first number that can move to its first reachable cell.
#[derive(Default)]
struct FirstMovable {
    /// What the judge sent since the last move.
    view: String,
    reply: String,
}

impl Channel for FirstMovable {
    fn send(&mut self, text: &str) -> Result<(), Fault> {
        self.view.push_str(text);
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        let view = std::mem::take(&mut self.view);
        let rows: String = view.lines().take(SIDE).collect::<Vec<_>>().join("\n");
        let board: Board = rows.parse().map_err(|_| Fault::Eof)?;
        let first = (0..CELLS).map(Cell::from_index).find_map(|from| {
            if board.get(from) == 0 {
                return None;
            }
            let reach = board.reachable_from(from);
            (reach != 0).then(|| (from, Cell::from_index(reach.trailing_zeros() as usize)))
        });
        let (from, to) = first.ok_or(Fault::Eof)?;
        self.reply = format!("{from}{to}");
        Ok(&self.reply)
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        Err(Fault::Eof)
    }
}

impl Linez {
    /// The test of a key as its concrete type, which can be cloned mid-game (replays play
    /// it one move at a time).
    pub fn game(key: &CaseKey, env: &Env) -> Result<LinezGame, CaseError> {
        let CaseKey::Seed(seed) = *key else {
            return Err(CaseError::Unknown {
                problem: "linez",
                key: key.to_string(),
            });
        };
        let path = env.problem_dir("linez").join(EXAMPLES_FILE);
        let examples = match CaseError::read(&path) {
            Ok(text) => parse_examples(&text, &path)?,
            // Only the statement's seeds need the file (run from outside the repository).
            Err(CaseError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound
                    && !STATEMENT_SEEDS.contains(&seed) =>
            {
                Vec::new()
            }
            Err(e) => return Err(e),
        };
        // 0: no cap, as in the statement.
        let move_cap = match env.config.move_cap {
            0 => u64::MAX,
            cap => cap,
        };
        let game = match examples.into_iter().find(|e| e.seed == seed) {
            // The statement's position; what lands later still comes from the seed's stream.
            Some(e) => LinezGame::new(e.board, e.next_three, env.stream("linez", seed), move_cap),
            None => LinezGame::generate(env.stream("linez", seed), move_cap),
        };
        Ok(game)
    }
}

/// A landing after a move, with the fresh `nextThree` drawn after it.
pub type Landed = (Landing, [u8; 3]);

/// One Linez test: a starting position and the random stream the rest of the game draws from.
#[derive(Clone, Debug)]
pub struct LinezGame {
    pub board: Board,
    pub next_three: [u8; 3],
    pub move_cap: u64,
    rng: Xoshiro256PlusPlus,
}

impl LinezGame {
    /// A game from a given position; later landings and `nextThree`s are drawn from `rng`.
    pub fn new(
        board: Board,
        next_three: [u8; 3],
        rng: Xoshiro256PlusPlus,
        move_cap: u64,
    ) -> LinezGame {
        LinezGame {
            board,
            next_three,
            move_cap,
            rng,
        }
    }

    /// The game of a test's stream ([`super::Env::stream`]): three numbers, each uniform 1..7, on uniformly random empty cells
    /// (cell first, then number), then `nextThree`.
    pub fn generate(mut rng: Xoshiro256PlusPlus, move_cap: u64) -> LinezGame {
        let mut board = Board::EMPTY;
        for _ in 0..3 {
            let cell = board
                .nth_empty(rng.random_range(0..board.empty_count()))
                .expect("the board has room for three");
            board.set(cell, rng.random_range(1..=COLORS));
        }
        let next_three = draw_next_three(&mut rng);
        LinezGame::new(board, next_three, rng, move_cap)
    }
}

impl LinezGame {
    /// Plays one move exactly as the judge does (its checks, points and landings), for the
    /// terminal board and the replay frames. An accepted move changes the game and gives the
    /// points it scored, landings included; a refused one leaves the game as it was and gives
    /// the judge's reason (`move 1 ...: why`: the judge counts from this move).
    pub fn try_turn(&mut self, line: &str) -> Result<u64, String> {
        self.try_turn_landings(line).map(|(points, _)| points)
    }

    /// [`LinezGame::try_turn`], also saying where the judge landed numbers after the move:
    /// each landing with the fresh `nextThree` drawn after it (replay pages).
    pub fn try_turn_landings(&mut self, line: &str) -> Result<(u64, Vec<Landed>), String> {
        let mut step = self.clone();
        let mut landings = Vec::new();
        let outcome = play(
            &mut step.board,
            &mut step.next_three,
            &mut step.rng,
            step.move_cap,
            &mut OneMove(Some(line)),
            &mut |landing, next| landings.push((landing, next)),
        );
        if outcome.moves == 0 {
            return Err(outcome.reason);
        }
        *self = step;
        // Points are whole numbers: the judge's f64 score holds them exactly.
        Ok((outcome.score as u64, landings))
    }
}

/// The judge's channel in [`LinezGame::try_turn`]: a player with one move, then no more.
struct OneMove<'a>(Option<&'a str>);

impl Channel for OneMove<'_> {
    fn send(&mut self, _text: &str) -> Result<(), Fault> {
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        self.0.take().ok_or(Fault::Eof)
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        Err(Fault::Eof)
    }
}

impl Game for LinezGame {
    fn params(&self) -> Vec<String> {
        Vec::new()
    }

    fn describe(&self) -> String {
        let mut text = String::new();
        self.board.write_view(self.next_three, &mut text);
        text
    }

    fn play(&mut self, player: &mut dyn Channel) -> Outcome {
        play(
            &mut self.board,
            &mut self.next_three,
            &mut self.rng,
            self.move_cap,
            player,
            &mut |_, _| {},
        )
    }
}

/// Judges one game from `board` (played out in place) and returns how it ended. Each landing
/// is shown to `landed`, with the fresh `nextThree` drawn after it.
pub fn play(
    board: &mut Board,
    next_three: &mut [u8; 3],
    rng: &mut Xoshiro256PlusPlus,
    move_cap: u64,
    player: &mut dyn Channel,
    landed: &mut dyn FnMut(Landing, [u8; 3]),
) -> Outcome {
    let mut score: u64 = 0;
    let mut moves: u64 = 0;
    let mut message = String::with_capacity((SIDE + 1) * (SIDE + 1) + 4);
    loop {
        if board.is_full() || moves >= move_cap {
            return Outcome::ok(score as f64, moves);
        }
        if !board.has_numbers() {
            let landing = board.land(*next_three, rng);
            score += landing.points;
            *next_three = draw_next_three(rng);
            landed(landing, *next_three);
            continue;
        }
        if !board.has_legal_move() {
            let mut outcome = Outcome::ok(score as f64, moves);
            outcome.reason = "no number can reach an empty cell".to_string();
            return outcome;
        }
        message.clear();
        board.write_view(*next_three, &mut message);
        if let Err(fault) = player.send(&message) {
            return Outcome::fault(&fault, score as f64, moves);
        }
        let turn = moves + 1;
        let (from, to, padded) = match player.recv() {
            Ok(line) if line.len() > MAX_MOVE_LINE => {
                let fault = Fault::LineTooLong(MAX_MOVE_LINE);
                return Outcome::fault(&fault, score as f64, moves);
            }
            // A parsed move is 4 bytes long; any other length was padded.
            Ok(line) => match parse_move(line) {
                Ok((from, to)) => (from, to, line.len() != 4),
                Err(why) => {
                    return Outcome::wrong(score as f64, moves, format!("move {turn}: {why}"))
                }
            },
            Err(fault) => return Outcome::fault(&fault, score as f64, moves),
        };
        if padded {
            message.clear();
            let _ = write!(message, "{from}{to}");
            player.understood(&message);
        }
        let removal = match board.try_move(from, to) {
            Ok(removal) => removal,
            Err(why) => {
                return Outcome::wrong(
                    score as f64,
                    moves,
                    format!("move {turn} {from}{to}: {why}"),
                )
            }
        };
        moves += 1;
        score += removal.points;
        if removal.removed == 0 {
            let landing = board.land(*next_three, rng);
            score += landing.points;
            *next_three = draw_next_three(rng);
            landed(landing, *next_three);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_statement_seeds_are_the_seeds_of_the_examples_file() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../testcases/linez")
            .join(EXAMPLES_FILE);
        let text = std::fs::read_to_string(&path).expect("examples file");
        let seeds: Vec<u64> = parse_examples(&text, &path)
            .expect("parses")
            .iter()
            .map(|e| e.seed)
            .collect();
        assert_eq!(seeds, STATEMENT_SEEDS);
    }
}
