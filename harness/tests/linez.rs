//! Linez rules and judge, driven by the cases in `tests/data/linez/`.
//!
//! One loader reads every file there: blocks separated by blank lines, each made of
//! `key: value` lines; a key with nothing after its colon takes the following lines that have
//! no colon (a board of 9 rows, a player's view). Values in double quotes keep their spaces.

use std::path::{Path, PathBuf};

use harness::config::ProblemConfig;
use harness::problem::linez::{
    self, parse_next_three, points, Board, Cell, IllegalMove, Linez, LinezGame, Removal,
};
use harness::problem::{CaseKey, Channel, Env, Game, Problem};
use harness::testkit::scripted;
use harness::verdict::{Fault, Overtime, Verdict, Waiting};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// One case of a data file: its fields in order, and where it starts.
struct Case {
    file: String,
    line: usize,
    fields: Vec<(String, String)>,
}

impl Case {
    fn name(&self) -> String {
        let name = self
            .all("case")
            .into_iter()
            .chain(self.all("example"))
            .next()
            .unwrap_or("");
        format!("{}:{} ({name})", self.file, self.line)
    }

    fn all(&self, key: &str) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    fn get(&self, key: &str) -> Option<&str> {
        match self.all(key)[..] {
            [] => None,
            [one] => Some(one),
            _ => panic!("{}: `{key}` given more than once", self.name()),
        }
    }

    fn field(&self, key: &str) -> &str {
        self.get(key)
            .unwrap_or_else(|| panic!("{}: no `{key}`", self.name()))
    }

    fn board(&self, key: &str) -> Board {
        self.field(key)
            .parse()
            .unwrap_or_else(|e| panic!("{}: `{key}`: {e}", self.name()))
    }
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/linez")
}

/// Reads the cases of one data file.
fn load(file: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(data_dir().join(file))
        .unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
    let mut cases: Vec<Case> = Vec::new();
    let mut current: Option<Case> = None;
    let mut open_key: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            cases.extend(current.take());
            open_key = None;
            continue;
        }
        let case = current.get_or_insert_with(|| Case {
            file: file.to_string(),
            line: i + 1,
            fields: Vec::new(),
        });
        match line.split_once(':') {
            Some((key, value)) => {
                let (key, value) = (key.trim(), value.trim());
                let value = value
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .map_or(value.to_string(), unescape);
                open_key = value.is_empty().then(|| key.to_string());
                case.fields.push((key.to_string(), value));
            }
            None => {
                let key = open_key
                    .as_ref()
                    .unwrap_or_else(|| panic!("{file}:{}: a line outside any field", i + 1));
                let (_, value) = case.fields.iter_mut().rfind(|(k, _)| k == key).unwrap();
                value.push_str(line);
                value.push('\n');
            }
        }
    }
    cases.extend(current);
    assert!(!cases.is_empty(), "{file} has no cases");
    cases
}

fn unescape(quoted: &str) -> String {
    quoted
        .replace("\\r", "\r")
        .replace("\\n", "\n")
        .replace("\\t", "\t")
}

fn yes_no(case: &Case, text: &str) -> bool {
    match text {
        "yes" => true,
        "no" => false,
        _ => panic!("{}: expected yes or no, got {text:?}", case.name()),
    }
}

fn cell(case: &Case, text: &str) -> Cell {
    Cell::parse(text).unwrap_or_else(|e| panic!("{}: {e}", case.name()))
}

/// `removed K points P`.
fn removal(case: &Case, text: &str) -> Removal {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let ["removed", k, "points", p] = tokens[..] else {
        panic!(
            "{}: expected `removed K points P`, got {text:?}",
            case.name()
        );
    };
    Removal {
        removed: k.parse().unwrap(),
        points: p.parse().unwrap(),
    }
}

#[test]
fn points_follow_the_formula() {
    let text = std::fs::read_to_string(data_dir().join("score.txt")).unwrap();
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (k, p) = line.split_once(' ').unwrap();
        assert_eq!(
            points(k.parse().unwrap()),
            p.trim().parse::<u64>().unwrap(),
            "k = {k}"
        );
        checked += 1;
    }
    assert!(checked >= 5);
    assert_eq!(points(0), 0);
}

#[test]
fn reachability_and_legal_moves() {
    for case in load("reach.txt") {
        let board = case.board("board");
        for query in case.all("reach") {
            let [from, to, want] = query.split_whitespace().collect::<Vec<_>>()[..] else {
                panic!("{}: bad reach {query:?}", case.name());
            };
            let (from, to) = (cell(&case, from), cell(&case, to));
            assert_eq!(
                board.reachable(from, to),
                yes_no(&case, want),
                "{}: reach {query}",
                case.name()
            );
            if board.get(from) != 0 && board.get(to) == 0 {
                let mut after = board;
                assert_eq!(
                    after.try_move(from, to).is_ok(),
                    yes_no(&case, want),
                    "{}: try_move agrees with reach {query}",
                    case.name()
                );
            }
        }
        if let Some(want) = case.get("legal-move") {
            assert_eq!(
                board.has_legal_move(),
                yes_no(&case, want),
                "{}: legal-move",
                case.name()
            );
            // Connectivity of the grid: a legal move exists exactly when there is a number
            // and an empty cell, so the judge's "no legal move" end can never be reached.
            assert_eq!(
                board.has_legal_move(),
                board.has_numbers() && !board.is_full(),
                "{}",
                case.name()
            );
        }
    }
}

#[test]
fn moves_remove_lines_through_the_moved_number() {
    for case in load("moves.txt") {
        let start = case.board("board");
        let mv = case.field("move");
        let (from, to) = linez::parse_move(mv).unwrap();
        let mut board = start;
        let result = board.try_move(from, to);
        let expect = case.field("expect");
        match expect.strip_prefix("illegal ") {
            Some(kind) => {
                let err = result.expect_err(&case.name());
                let got = match err {
                    IllegalMove::EmptySource(_) => "empty-source",
                    IllegalMove::OccupiedTarget(..) => "occupied-target",
                    IllegalMove::SameCell(_) => "same-cell",
                    IllegalMove::Unreachable(..) => "unreachable",
                };
                assert_eq!(got, kind, "{}: {err}", case.name());
                assert_eq!(
                    board,
                    start,
                    "{}: an illegal move changes nothing",
                    case.name()
                );
            }
            None => {
                let got = result.unwrap_or_else(|e| panic!("{}: {e}", case.name()));
                assert_eq!(got, removal(&case, expect), "{}", case.name());
                assert_eq!(board, case.board("after"), "{}", case.name());
            }
        }
    }
}

#[test]
fn landing_numbers_complete_lines() {
    for case in load("place.txt") {
        let mut board = case.board("board");
        let [at, number] = case.field("place").split_whitespace().collect::<Vec<_>>()[..] else {
            panic!("{}: bad place", case.name());
        };
        let got = board.place(cell(&case, at), number.parse().unwrap());
        assert_eq!(got, removal(&case, case.field("expect")), "{}", case.name());
        assert_eq!(board, case.board("after"), "{}", case.name());
        // The landing cell ends as it began (empty) exactly when it was part of a line.
        let changed = board_diff(&case.board("board"), &board);
        let expected_changes = if got.removed == 0 { 1 } else { got.removed - 1 };
        assert_eq!(changed, expected_changes, "{}", case.name());
    }
}

/// Cells whose content differs between two boards.
fn board_diff(a: &Board, b: &Board) -> usize {
    (0..linez::CELLS)
        .filter(|&i| a.get(Cell::from_index(i)) != b.get(Cell::from_index(i)))
        .count()
}

/// The positions in a transcript: (board, nextThree) for every 10 lines.
fn views(transcript: &str) -> Vec<(Board, [u8; 3])> {
    let lines: Vec<&str> = transcript.lines().collect();
    assert_eq!(
        lines.len() % 10,
        0,
        "transcript is not whole views:\n{transcript}"
    );
    lines
        .chunks(10)
        .map(|v| {
            (
                v[..9].join("\n").parse().unwrap(),
                parse_next_three(v[9]).unwrap(),
            )
        })
        .collect()
}

fn numbers_on(board: &Board) -> String {
    let mut digits: Vec<char> = (0..linez::CELLS)
        .map(|i| board.get(Cell::from_index(i)))
        .filter(|&n| n != 0)
        .map(|n| (b'0' + n) as char)
        .collect();
    digits.sort_unstable();
    digits.into_iter().collect()
}

#[test]
fn games_against_scripted_players() {
    for case in load("games.txt") {
        let name = case.name();
        let board = case.board("board");
        for i in 0..linez::CELLS {
            assert!(
                board.lines_through(Cell::from_index(i)).is_empty(),
                "{name}: the starting position already has a line"
            );
        }
        let next = parse_next_three(case.field("next")).unwrap();
        let seed: u64 = case.field("seed").parse().unwrap();
        let cap: u64 = case.field("cap").parse().unwrap();
        let cap = if cap == 0 { u64::MAX } else { cap };
        let mut game = LinezGame::new(board, next, Xoshiro256PlusPlus::seed_from_u64(seed), cap);
        let says = case.all("say");
        let mut player = scripted(&says);
        let outcome = game.play(&mut player);

        let [verdict, score, moves] =
            case.field("expect").split_whitespace().collect::<Vec<_>>()[..]
        else {
            panic!("{name}: expect is `VERDICT SCORE MOVES`");
        };
        assert_eq!(outcome.verdict.code(), verdict, "{name}: {outcome:?}");
        assert_eq!(
            outcome.score,
            score.parse::<f64>().unwrap(),
            "{name}: {outcome:?}"
        );
        assert_eq!(
            outcome.moves,
            moves.parse::<u64>().unwrap(),
            "{name}: {outcome:?}"
        );
        if let Some(part) = case.get("reason") {
            assert!(
                outcome.reason.contains(part),
                "{name}: reason {:?} lacks {part:?}",
                outcome.reason
            );
        }
        if outcome.verdict == Verdict::Ok {
            assert!(
                !player.closed,
                "{name}: the judge has no input to close for Linez"
            );
        }
        let seen = views(&player.transcript);
        assert_eq!(seen[0].0, board, "{name}: the first view is the start");
        assert_eq!(seen[0].1, next, "{name}");
        if let Some(n) = case.get("views") {
            assert_eq!(seen.len(), n.parse::<usize>().unwrap(), "{name}");
        }
        let last = &seen.last().unwrap().0;
        if let Some(numbers) = case.get("last-view-numbers") {
            assert_eq!(numbers_on(last), numbers, "{name}: last view {last:?}");
        }
        if let Some(count) = case.get("last-view-count") {
            assert_eq!(
                numbers_on(last).len(),
                count.parse::<usize>().unwrap(),
                "{name}"
            );
        }
    }
}

fn env(move_cap: u64) -> Env {
    Env {
        testcases: Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases"),
        config: ProblemConfig {
            move_cap,
            ..ProblemConfig::default()
        },
        secret: None,
    }
}

#[test]
fn example_seeds_start_from_the_statement_positions() {
    let cases = load("examples.txt");
    assert_eq!(cases.len(), 10);
    for case in cases {
        let seed: u64 = case.field("seed").parse().unwrap();
        let game = Linez.case(&CaseKey::Seed(seed), &env(0)).unwrap();
        assert_eq!(game.describe(), case.field("view"), "{}", case.name());
        assert!(game.params().is_empty());
    }
}

#[test]
fn describe_is_the_first_view_for_generated_seeds() {
    for seed in [1, 2, 3, 149738787, u64::MAX] {
        let mut game = Linez.case(&CaseKey::Seed(seed), &env(0)).unwrap();
        let described = game.describe();
        let (board, _) = views(&described)[0];
        assert_eq!(numbers_on(&board).len(), 3, "seed {seed}:\n{described}");
        let mut player = scripted(&[]);
        game.play(&mut player);
        assert_eq!(player.transcript, described, "seed {seed}");
    }
    let a = Linez.case(&CaseKey::Seed(1), &env(0)).unwrap().describe();
    let b = Linez.case(&CaseKey::Seed(2), &env(0)).unwrap().describe();
    assert_ne!(a, b, "seeds differ");
}

#[test]
fn fixed_keys_are_unknown_and_a_missing_examples_file_fails_only_the_statement_seeds() {
    assert!(Linez
        .case(&CaseKey::Fixed("example-0".into()), &env(0))
        .is_err());
    let nowhere = Env {
        testcases: PathBuf::from("/nonexistent/testcases"),
        config: ProblemConfig::default(),
        secret: None,
    };
    // A seed of the statement needs its position from the file, which is named.
    let err = Linez
        .case(&CaseKey::Seed(149738788), &nowhere)
        .err()
        .unwrap();
    assert!(err.to_string().contains("examples.txt"), "{err}");
    // Any other seed is generated, the same test as with the file there.
    let without = Linez.case(&CaseKey::Seed(1), &nowhere).unwrap();
    let with = Linez.case(&CaseKey::Seed(1), &env(0)).unwrap();
    assert_eq!(without.describe(), with.describe());
}

#[test]
fn move_cap_from_the_config_ends_the_game() {
    // A player that always moves the first number it can, wherever it can.
    let first_legal = |inbox: &str| -> Option<String> {
        let (board, _) = views(inbox)[0];
        (0..linez::CELLS).map(Cell::from_index).find_map(|from| {
            let reach = board.reachable_from(from);
            (board.get(from) != 0 && reach != 0).then(|| {
                format!(
                    "{from}{}",
                    Cell::from_index(reach.trailing_zeros() as usize)
                )
            })
        })
    };
    let mut game = Linez.case(&CaseKey::Seed(42), &env(3)).unwrap();
    let mut player = harness::testkit::FnPlayer::new(first_legal);
    let outcome = game.play(&mut player);
    assert_eq!(outcome.verdict, Verdict::Ok, "{outcome:?}");
    assert_eq!(outcome.moves, 3);
    assert_eq!(views(&player.transcript).len(), 3);

    let mut game = Linez.case(&CaseKey::Seed(42), &env(0)).unwrap();
    let mut player = harness::testkit::FnPlayer::new(first_legal);
    let outcome = game.play(&mut player);
    assert_eq!(outcome.verdict, Verdict::Ok, "{outcome:?}");
    assert!(
        outcome.moves > 3 && outcome.reason.is_empty(),
        "with no cap (the default) the game goes on until the board is full: {outcome:?}"
    );
}

/// A channel that answers with fixed lines, then commits a fault.
struct FaultAfter {
    lines: Vec<&'static str>,
    fault: Fault,
}

impl Channel for FaultAfter {
    fn send(&mut self, _text: &str) -> Result<(), Fault> {
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        if self.lines.is_empty() {
            Err(self.fault.clone())
        } else {
            Ok(self.lines.remove(0))
        }
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        unreachable!("Linez never reads to the end")
    }
}

#[test]
fn a_fault_keeps_the_score() {
    let board: Board = "3........\n.........\n.........\n.........\n3333.....\n\
                        .........\n.........\n.........\n........7\n"
        .parse()
        .unwrap();
    let overtime = Fault::TimeLimit(Overtime {
        limit: std::time::Duration::from_secs(10),
        waiting: Waiting::Line {
            line: 2,
            partial: 0,
            earlier: true,
        },
    });
    for fault in [overtime, Fault::Eof, Fault::LineTooLong(10)] {
        let mut game = LinezGame::new(board, [5, 4, 5], Xoshiro256PlusPlus::seed_from_u64(1), 100);
        let mut player = FaultAfter {
            lines: vec!["A1E5"],
            fault: fault.clone(),
        };
        let outcome = game.play(&mut player);
        assert_eq!(outcome.verdict, fault.verdict());
        assert_eq!(outcome.score, 10.0, "{fault:?}");
        assert_eq!(outcome.moves, 1);
        assert_eq!(outcome.reason, fault.to_string());
    }
}
