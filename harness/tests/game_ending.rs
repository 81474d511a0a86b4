//! GameEnding: the reference solver against the TopCoder system tests, the generator, and the
//! problem as the harness sees it.

use std::path::PathBuf;

use harness::config::ProblemConfig;
use harness::problem::game_ending::{self, Ending, Input, MAX_N};
use harness::problem::{by_id, CaseKey, Env};
use harness::testkit::scripted;
use harness::verdict::Verdict;

fn env() -> Env {
    Env {
        testcases: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testcases"),
        config: ProblemConfig::default(),
        secret: None,
    }
}

#[test]
fn reference_agrees_with_every_system_test() {
    let dir = env().problem_dir(game_ending::ID);
    let mismatches = game_ending::check_fixed(&dir).unwrap();
    assert_eq!(mismatches, vec![]);
}

#[test]
fn fixed_cases_are_the_65_system_tests() {
    let problem = by_id("game-ending").unwrap();
    let keys = problem.fixed_cases(&env()).unwrap();
    assert_eq!(keys.len(), 65);
    assert_eq!(keys[0], CaseKey::Fixed("example-0".to_string()));
    assert!(keys.contains(&CaseKey::Fixed("sys-064".to_string())));
    let game = problem
        .case(&CaseKey::Fixed("example-1".into()), &env())
        .unwrap();
    assert_eq!(game.describe(), "4\n2\na2\nb3\n");
    assert_eq!(game.params(), vec!["4", "2"]);
}

#[test]
fn judge_accepts_the_right_answer_and_rejects_a_wrong_one() {
    let problem = by_id("game-ending").unwrap();
    let key = CaseKey::Fixed("example-2".into());
    let outcome = problem
        .case(&key, &env())
        .unwrap()
        .play(&mut scripted(&["Invalid input"]));
    assert_eq!((outcome.verdict, outcome.score), (Verdict::Ok, 1.0));
    let outcome = problem
        .case(&key, &env())
        .unwrap()
        .play(&mut scripted(&["First player wins"]));
    assert_eq!(outcome.verdict, Verdict::WrongAnswer);
    assert_eq!(outcome.score, 0.0);
    assert!(
        outcome.reason.contains("\"Invalid input\""),
        "{}",
        outcome.reason
    );
}

#[test]
fn generator_is_deterministic_and_obeys_the_constraints() {
    let problem = by_id("game-ending").unwrap();
    let mut endings = [0usize; 3];
    let mut sizes = [0usize; MAX_N + 1];
    for seed in 0..500 {
        let input = input_of(seed);
        assert_eq!(input, input_of(seed), "seed {seed}");
        assert!((1..=MAX_N).contains(&input.n), "seed {seed}");
        assert!(input.moves.len() <= input.n, "seed {seed}");
        assert_eq!(Input::parse(&input.to_string()).as_ref(), Ok(&input));
        sizes[input.n] += 1;
        endings[match input.result() {
            Ending::FirstWins => 0,
            Ending::SecondWins => 1,
            Ending::Invalid => 2,
        }] += 1;
        let game = problem.case(&CaseKey::Seed(seed), &env()).unwrap();
        assert_eq!(game.describe(), input.to_string());
    }
    assert!(endings.iter().all(|&k| k >= 50), "answers {endings:?}");
    assert!(sizes[1..].iter().all(|&k| k > 0), "sizes {sizes:?}");
}

#[test]
fn solve_reads_the_topcoder_encoding() {
    let problem = by_id("game-ending").unwrap();
    assert_eq!(
        problem.solve("3\n1\nb2\n"),
        Some(Ok("First player wins\n".to_string()))
    );
    let err = problem.solve("3\n1\nz9\n").unwrap().unwrap_err();
    assert!(err.contains("z9"), "{err}");
}

/// The generated test of a seed, made without a secret key.
fn input_of(seed: u64) -> game_ending::Input {
    game_ending::generate(harness::secret::stream(None, "game-ending", seed))
}
