//! RussianCheckers: the reference solver against the statement's examples and the TopCoder
//! system tests in `testcases/russian-checkers/`, and the generator's promises.

use std::path::PathBuf;

use harness::config::ProblemConfig;
use harness::problem::russian_checkers::{self, Piece, Position, Side};
use harness::problem::{exact, CaseKey, Env};

fn env() -> Env {
    Env {
        testcases: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testcases"),
        config: ProblemConfig::default(),
        secret: None,
    }
}

fn fixed_dir() -> PathBuf {
    env().problem_dir(russian_checkers::ID)
}

#[test]
fn solver_agrees_with_every_fixed_case() {
    let keys = exact::fixed_cases(&fixed_dir()).expect("fixed cases");
    let names: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    assert_eq!(
        names.iter().filter(|n| n.starts_with("example-")).count(),
        7
    );
    assert_eq!(names.iter().filter(|n| n.starts_with("sys-")).count(), 125);
    let mut wrong = Vec::new();
    for name in &names {
        let input = std::fs::read_to_string(fixed_dir().join(format!("{name}.in"))).unwrap();
        let answer = std::fs::read_to_string(fixed_dir().join(format!("{name}.ans"))).unwrap();
        let got = russian_checkers::solve(&input).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(why) = exact::compare(&answer, &got) {
            wrong.push(format!("{name}: {why}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn problem_lists_and_plays_fixed_cases() {
    let problem = harness::problem::by_id("russian-checkers").expect("registered");
    let keys = problem.fixed_cases(&env()).unwrap();
    assert_eq!(keys.len(), 132);
    let game = problem
        .case(&CaseKey::Fixed("example-1".into()), &env())
        .unwrap();
    assert!(game.describe().starts_with("8\n.......B\n"));
    assert_eq!(game.params(), ["5", "4", "2", "3"]);
    let answer = problem.solve(&game.describe()).unwrap().unwrap();
    assert_eq!(answer, "2\nh8:c3:e1:g3\nh8:d4:g1\n");
    assert!(problem.solve("7\n").unwrap().is_err());
}

#[test]
fn generator_is_deterministic() {
    for seed in [0, 1, 42, u64::MAX] {
        assert_eq!(position_of(seed), position_of(seed));
    }
    assert_ne!(position_of(1), position_of(2));
}

#[test]
fn generated_inputs_obey_the_constraints_and_parse_back() {
    for seed in 0..2000 {
        let position = position_of(seed);
        let text = position.to_string();
        let back: Position = text
            .parse()
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(back, position, "seed {seed}");
        let rows = position.rows();
        assert!(!rows[0].contains('w'), "seed {seed}: white man on row 8");
        assert!(!rows[7].contains('b'), "seed {seed}: black man on row 1");
        for (i, row) in rows.iter().enumerate() {
            for (col, c) in row.chars().enumerate() {
                let light = (col + i) % 2 == 0;
                assert!(!light || c == '.', "seed {seed}: piece on a light square");
            }
        }
    }
}

#[test]
fn generated_inputs_are_interesting() {
    let n = 2000;
    let (mut capture, mut multi, mut long, mut kings, mut flying, mut simple, mut crowned) =
        (0, 0, 0, 0, 0, 0, 0);
    for seed in 0..n {
        let position = position_of(seed);
        let moves = position.legal_moves();
        let most = russian_checkers::most_captured(&moves);
        capture += usize::from(most >= 1);
        multi += usize::from(most >= 2);
        long += usize::from(most >= 4);
        simple += usize::from(most == 0 && !moves.is_empty());
        kings += usize::from(position.count(|p| matches!(p, Piece::King(_))) > 0);
        // A flying capture: a king's jump from or to a square not adjacent to the victim.
        flying += usize::from(moves.iter().any(|m| has_long_jump(m)));
        crowned += usize::from(crowns_mid_capture(&position, &moves));
    }
    let share = |k: usize| k as f64 / n as f64;
    assert!(share(capture) > 0.6, "captures in {capture}/{n}");
    assert!(share(multi) > 0.25, "multi-captures in {multi}/{n}");
    assert!(share(long) > 0.04, "captures of 4+ pieces in {long}/{n}");
    assert!(share(simple) > 0.12, "simple moves only in {simple}/{n}");
    assert!(share(kings) > 0.6, "kings in {kings}/{n}");
    assert!(share(flying) > 0.3, "flying-king captures in {flying}/{n}");
    assert!(crowned > 40, "crowning mid-capture in {crowned}/{n}");
}

fn square(name: &str) -> (i32, i32) {
    let b = name.as_bytes();
    ((b[0] - b'a') as i32, (b[1] - b'1') as i32)
}

fn has_long_jump(mv: &str) -> bool {
    let squares: Vec<(i32, i32)> = mv.split(':').map(square).collect();
    squares.len() > 1 && squares.windows(2).any(|w| (w[0].0 - w[1].0).abs() != 2)
}

/// Whether a man's capture passes its crowning row and goes on afterwards.
fn crowns_mid_capture(position: &Position, moves: &[String]) -> bool {
    let crowning = match position.turn {
        Side::White => 7,
        Side::Black => 0,
    };
    moves.iter().any(|m| {
        let squares: Vec<(i32, i32)> = m.split(':').map(square).collect();
        let (c, r) = squares[0];
        matches!(position.cells[r as usize][c as usize], Piece::Man(_))
            && squares.len() > 2
            && squares[1..squares.len() - 1]
                .iter()
                .any(|s| s.1 == crowning)
    })
}

#[test]
fn judge_accepts_the_answer_and_names_the_first_wrong_move() {
    use harness::testkit::FnPlayer;
    use harness::verdict::Verdict;
    let problem = harness::problem::by_id("russian-checkers").unwrap();
    let key = CaseKey::Fixed("example-1".into());
    // TopCoder's answer, not the judge's own solver.
    let ans = std::fs::read_to_string(fixed_dir().join("example-1.ans")).unwrap();
    let mut right = FnPlayer::new(move |_: &str| Some(ans.clone()));
    let outcome = problem.case(&key, &env()).unwrap().play(&mut right);
    assert_eq!((outcome.verdict, outcome.score), (Verdict::Ok, 1.0));
    assert!(right.transcript.starts_with("8\n.......B\n......w.\n"));
    assert!(right.transcript.ends_with("\nBLACK\n"));
    // The king stopping on e5 instead of d4 or c3 after jumping g7: a move that ignores the
    // rule that a king must stop where it can capture again.
    let mut wrong = FnPlayer::new(|_: &str| Some("3\nh8:c3:e1:g3\nh8:d4:g1\nh8:e5\n".to_string()));
    let outcome = problem.case(&key, &env()).unwrap().play(&mut wrong);
    assert_eq!(
        (outcome.verdict, outcome.score),
        (Verdict::WrongAnswer, 0.0)
    );
    assert!(
        outcome.reason.contains("expected \"2\", got \"3\""),
        "{}",
        outcome.reason
    );
}

/// Pieces and kings counted from a test's text: `8`, the 8 rows, the turn.
fn pieces_and_kings(input: &str) -> (usize, usize) {
    let lines: Vec<&str> = input.lines().collect();
    assert_eq!(lines.len(), 10, "{input}");
    let cells = || lines[1..9].iter().flat_map(|row| row.chars());
    (
        cells().filter(|&c| c != '.').count(),
        cells().filter(|c| c.is_ascii_uppercase()).count(),
    )
}

/// The number of moves and the most pieces one of them captures, read from an answer.
fn moves_and_captures(answer: &str) -> (usize, usize) {
    let mut lines = answer.lines();
    let count: usize = lines.next().unwrap().parse().unwrap();
    let most = lines.map(|m| m.matches(':').count()).max().unwrap_or(0);
    (count, most)
}

/// The test parameters (pieces, kings, moves, captures) agree with what the test's files say:
/// the board counted from the `.in` text, the moves from TopCoder's `.ans`.
#[test]
fn params_of_fixed_cases_agree_with_their_files() {
    let problem = harness::problem::by_id("russian-checkers").unwrap();
    let keys = exact::fixed_cases(&fixed_dir()).expect("fixed cases");
    let mut captures = 0;
    for key in &keys {
        let read = |ext: &str| std::fs::read_to_string(fixed_dir().join(format!("{key}.{ext}")));
        let (input, answer) = (read("in").unwrap(), read("ans").unwrap());
        let (pieces, kings) = pieces_and_kings(&input);
        let (moves, most) = moves_and_captures(&answer);
        captures += usize::from(most > 0);
        let game = problem.case(key, &env()).unwrap();
        let expected = [pieces, kings, moves, most].map(|n| n.to_string());
        assert_eq!(game.params(), expected, "{key}");
    }
    assert!(captures > 50, "captures in {captures} fixed tests");
}

/// For generated tests the board is counted from the text sent to the player, and the moves
/// from the answer the judge expects (which the independent `russian-checkers-correct` player
/// is checked against in `shipped_players.rs`).
#[test]
fn params_of_generated_cases_agree_with_their_text() {
    let problem = harness::problem::by_id("russian-checkers").unwrap();
    for seed in 1..=40 {
        let game = problem.case(&CaseKey::Seed(seed), &env()).unwrap();
        let input = game.describe();
        let (pieces, kings) = pieces_and_kings(&input);
        let answer = problem.solve(&input).unwrap().unwrap();
        let (moves, most) = moves_and_captures(&answer);
        let expected = [pieces, kings, moves, most].map(|n| n.to_string());
        assert_eq!(game.params(), expected, "seed {seed}\n{input}");
    }
}

/// The generated test of a seed, made without a secret key.
fn position_of(seed: u64) -> russian_checkers::Position {
    russian_checkers::generate(harness::secret::stream(None, "russian-checkers", seed))
}
