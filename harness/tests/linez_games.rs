//! Whole Linez games recorded from the shipped players, judged again: the judge must send the
//! recorded boards and score every move as `harness/tests/data/linez/recorded/count.py`
//! counted it from the rules alone (see the README there). Nothing here uses the judge's rule
//! code to decide what is right.

mod support;

use std::path::{Path, PathBuf};

use harness::config::ProblemConfig;
use harness::problem::linez::Linez;
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

/// One recorded game: its seed, what the judge sent before each move, the moves, and the
/// running total after each move and the final score, as counted independently.
struct Recorded {
    name: String,
    seed: u64,
    views: Vec<String>,
    moves: Vec<String>,
    totals: Vec<u64>,
    score: u64,
}

fn recorded_games() -> Vec<Recorded> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/linez/recorded");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "expected"))
        .collect();
    paths.sort();
    paths.iter().map(|p| read_game(p)).collect()
}

fn read_game(expected: &Path) -> Recorded {
    let name = expected.file_stem().unwrap().to_str().unwrap().to_string();
    let seed = name.rsplit("-seed").next().unwrap().parse().unwrap();
    let transcript = std::fs::read_to_string(expected.with_extension("transcript")).unwrap();
    let (mut views, mut moves, mut view) = (Vec::new(), Vec::new(), String::new());
    for line in transcript.lines() {
        if let Some(sent) = line.strip_prefix("> ") {
            view.push_str(sent);
            view.push('\n');
        } else {
            let answer = line.strip_prefix("< ").expect("a transcript line");
            views.push(std::mem::take(&mut view));
            moves.push(answer.to_string());
        }
    }
    assert!(
        view.is_empty(),
        "{name}: the judge sent nothing after the last move"
    );
    let (mut totals, mut score) = (Vec::new(), None);
    for line in std::fs::read_to_string(expected).unwrap().lines() {
        if let Some(s) = line.strip_prefix("score: ") {
            score = Some(s.parse().unwrap());
        } else if !line.starts_with('#') {
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(fields[1], moves[totals.len()], "{name}: {line}");
            totals.push(fields[4].parse().unwrap());
        }
    }
    assert_eq!(totals.len(), moves.len(), "{name}");
    Recorded {
        name,
        seed,
        views,
        moves,
        totals,
        score: score.expect("a score line"),
    }
}

/// Plays the first `count` moves of a game, checking that each board sent is the recorded
/// one, then closes the player's output.
fn replay(game: &Recorded, count: usize) -> Outcome {
    let mut turn = 0;
    let mut player = FnPlayer::new(|inbox: &str| {
        assert_eq!(
            inbox,
            game.views[turn],
            "{}: the board before move {}",
            game.name,
            turn + 1
        );
        turn += 1;
        game.moves[..count].get(turn - 1).cloned()
    });
    Linez
        .case(&CaseKey::Seed(game.seed), &env())
        .unwrap()
        .play(&mut player)
}

#[test]
fn recorded_games_score_as_counted_independently() {
    let games = recorded_games();
    assert!(games.len() >= 3, "recorded games: {}", games.len());
    let mut scoring_moves = 0;
    for game in &games {
        let outcome = replay(game, game.moves.len());
        assert_eq!(outcome.verdict, Verdict::Ok, "{}: {outcome:?}", game.name);
        assert_eq!(outcome.moves, game.moves.len() as u64, "{}", game.name);
        assert_eq!(outcome.score, game.score as f64, "{}", game.name);
        assert_eq!(game.totals.last(), Some(&game.score), "{}", game.name);
        // Each move that scored, and the one before it: the player stops there (closes its
        // output, TopCoder keeps its points), so the judge's running total shows.
        for i in 0..game.moves.len() {
            let before = if i == 0 { 0 } else { game.totals[i - 1] };
            if game.totals[i] == before {
                continue;
            }
            scoring_moves += 1;
            for count in [i, i + 1] {
                let expected = if count == 0 {
                    0
                } else {
                    game.totals[count - 1]
                };
                let outcome = replay(game, count);
                assert_eq!(
                    outcome.score, expected as f64,
                    "{}: the score after {count} moves: {outcome:?}",
                    game.name
                );
            }
        }
    }
    assert!(scoring_moves > 50, "moves that scored: {scoring_moves}");
}

/// The `.expected` files are what `count.py` makes of the transcripts today: re-counted from
/// a copy, so a hand edit or a change of the script shows.
#[test]
fn expected_files_are_the_independent_count_of_the_transcripts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/linez/recorded");
    support::recount(&dir);
}
