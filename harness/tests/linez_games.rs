//! Whole Linez games against in-process players: the same seed and player give the same game,
//! and the score the judge reports is the sum of the removals the player saw on the wire.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use harness::config::ProblemConfig;
use harness::problem::linez::{self, parse_next_three, points, Board, Cell, Linez};
use harness::problem::{CaseKey, Env, Problem};
use harness::testkit::FnPlayer;
use harness::verdict::{Outcome, Verdict};

fn env() -> Env {
    Env {
        testcases: Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases"),
        config: ProblemConfig::default(),
        secret: None,
    }
}

fn read_view(inbox: &str) -> (Board, [u8; 3]) {
    let lines: Vec<&str> = inbox.lines().collect();
    assert_eq!(lines.len(), 10, "one view per turn, got:\n{inbox}");
    let board = lines[..9].join("\n").parse().expect("a board");
    (board, parse_next_three(lines[9]).expect("nextThree"))
}

fn count(board: &Board) -> usize {
    linez::CELLS - board.empty_count()
}

/// Every legal move, in a fixed order.
fn legal_moves(board: &Board) -> Vec<(Cell, Cell)> {
    let mut moves = Vec::new();
    for from in (0..linez::CELLS).map(Cell::from_index) {
        if board.get(from) == 0 {
            continue;
        }
        let mut reach = board.reachable_from(from);
        while reach != 0 {
            moves.push((from, Cell::from_index(reach.trailing_zeros() as usize)));
            reach &= reach - 1;
        }
    }
    moves
}

/// A small greedy player built on the harness's rules: the move that removes the most, else
/// the one that leaves the longest run of equal numbers through its target.
fn choose(board: &Board) -> (Cell, Cell) {
    let run_through = |b: &Board, cell: Cell| -> usize {
        let n = b.get(cell);
        let mut best = 0;
        for (dr, dc) in [(0isize, 1isize), (1, 0), (1, 1), (1, -1)] {
            let mut len = 1;
            for sign in [1, -1] {
                let (mut r, mut c) = (cell.row() as isize, cell.col() as isize);
                loop {
                    r += dr * sign;
                    c += dc * sign;
                    if !(0..9).contains(&r) || !(0..9).contains(&c) {
                        break;
                    }
                    if b.get(Cell::new(r as usize, c as usize)) != n {
                        break;
                    }
                    len += 1;
                }
            }
            best = best.max(len);
        }
        best
    };
    legal_moves(board)
        .into_iter()
        .max_by_key(|&(from, to)| {
            let mut after = *board;
            let removal = after.try_move(from, to).expect("legal");
            (removal.removed, run_through(&after, to))
        })
        .expect("the judge only asks when a move exists")
}

/// What the player believes the score is, from what it saw.
#[derive(Default)]
struct Tally {
    score: u64,
    removals: u64,
    /// The board after the player's last move (before anything landed), and whether numbers
    /// were due to land.
    after_move: Option<(Board, bool)>,
}

/// Plays one game with the greedy player, tallying every removal it can see: its own moves'
/// (from the rules) and those of landing numbers (numbers that landed minus numbers added).
fn play_tallied(seed: u64) -> (Outcome, String, Tally) {
    let tally = Rc::new(RefCell::new(Tally::default()));
    let seen = Rc::clone(&tally);
    let mut player = FnPlayer::new(move |inbox: &str| {
        let (board, _) = read_view(inbox);
        let mut t = seen.borrow_mut();
        if let Some((before, landing)) = t.after_move.take() {
            if landing {
                let removed = count(&before) + 3 - count(&board);
                // Two lines in one landing could not be told apart from one; these seeds
                // have none, and a sum this large would say so.
                assert!(
                    removed < 10,
                    "seed {seed}: ambiguous landing removal {removed}"
                );
                if removed > 0 {
                    assert!(removed >= 5, "seed {seed}: {removed} cells vanished");
                    t.score += points(removed);
                    t.removals += 1;
                }
            } else {
                assert_eq!(board, before, "seed {seed}: nothing lands after a line");
            }
        }
        let (from, to) = choose(&board);
        let mut after = board;
        let removal = after.try_move(from, to).expect("legal");
        t.score += removal.points;
        t.removals += u64::from(removal.removed > 0);
        // A line that empties the board makes numbers land at once.
        let landing = removal.removed == 0 || !after.has_numbers();
        t.after_move = Some((after, landing));
        Some(format!("{from}{to}"))
    });
    let mut game = Linez.case(&CaseKey::Seed(seed), &env()).unwrap();
    let outcome = game.play(&mut player);
    let transcript = std::mem::take(&mut player.transcript);
    drop(player);
    let tally = Rc::try_unwrap(tally).ok().unwrap().into_inner();
    (outcome, transcript, tally)
}

#[test]
fn the_score_is_the_sum_of_the_removals_seen_on_the_wire() {
    let mut total_removals = 0;
    for seed in 1..=8 {
        let (outcome, _, tally) = play_tallied(seed);
        assert_eq!(outcome.verdict, Verdict::Ok, "seed {seed}: {outcome:?}");
        assert_eq!(outcome.score, tally.score as f64, "seed {seed}");
        total_removals += tally.removals;
    }
    assert!(
        total_removals > 8,
        "the player made lines: {total_removals}"
    );
}

#[test]
fn same_seed_and_player_give_the_same_game() {
    for seed in [1, 149738788, 99] {
        let (first, transcript, _) = play_tallied(seed);
        let (again, transcript_again, _) = play_tallied(seed);
        assert_eq!(first, again, "seed {seed}");
        assert_eq!(transcript, transcript_again, "seed {seed}");
        assert!(first.moves > 10, "seed {seed}: {first:?}");
    }
    let (_, one, _) = play_tallied(1);
    let (_, two, _) = play_tallied(2);
    assert_ne!(one, two);
}
