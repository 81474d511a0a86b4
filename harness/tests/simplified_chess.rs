//! SimplifiedChessEngine: the reference solver against the fixed cases, the generator, and the
//! problem as the harness sees it.

use std::path::PathBuf;

use harness::config::ProblemConfig;
use harness::problem::simplified_chess::{self, Input, Kind, MAX_MOVES, MAX_PIECES};
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
fn reference_agrees_with_every_fixed_case() {
    let dir = env().problem_dir(simplified_chess::ID);
    assert_eq!(simplified_chess::check_fixed(&dir).unwrap(), vec![]);
    let keys = by_id("simplified-chess")
        .unwrap()
        .fixed_cases(&env())
        .unwrap();
    assert!(keys.contains(&CaseKey::Fixed("sample-0".to_string())));
    assert_eq!(keys.len(), 5);
}

#[test]
fn judge_compares_every_game() {
    let problem = by_id("simplified-chess").unwrap();
    let key = CaseKey::Fixed("boxed-queen".into());
    let right = ["NO", "NO", "YES", "YES", "YES", "YES"];
    let outcome = problem
        .case(&key, &env())
        .unwrap()
        .play(&mut scripted(&[&(right.join("\n") + "\n")]));
    assert_eq!(outcome.verdict, Verdict::Ok, "{}", outcome.reason);
    let outcome = problem
        .case(&key, &env())
        .unwrap()
        .play(&mut scripted(&["NO\nYES\nYES\nYES\nYES\nYES\n"]));
    assert_eq!(outcome.verdict, Verdict::WrongAnswer);
    assert!(outcome.reason.starts_with("line 2:"), "{}", outcome.reason);
}

#[test]
fn generator_is_deterministic_and_obeys_the_constraints() {
    let problem = by_id("simplified-chess").unwrap();
    let (mut yes, mut no) = (0, 0);
    let mut seen_m = [false; MAX_MOVES + 1];
    let mut seen_w = [false; MAX_PIECES + 1];
    for seed in 0..300 {
        let input = input_of(seed);
        assert_eq!(input, input_of(seed), "seed {seed}");
        // parse checks every constraint of the statement (counts, pieces, distinct squares).
        assert_eq!(
            Input::parse(&input.to_string()).as_ref(),
            Ok(&input),
            "seed {seed}"
        );
        for game in &input.games {
            seen_m[game.m] = true;
            seen_w[game.white.len()] = true;
            for army in [&game.white, &game.black] {
                let count = |k| army.iter().filter(|p| p.kind == k).count();
                assert!(count(Kind::Bishop) <= 1 && count(Kind::Knight) <= 1);
            }
            if game.white_wins() {
                yes += 1;
            } else {
                no += 1;
            }
        }
        let game = problem.case(&CaseKey::Seed(seed), &env()).unwrap();
        assert_eq!(game.describe(), input.to_string());
    }
    assert!(seen_m[1..].iter().all(|&s| s), "m seen {seen_m:?}");
    assert!(seen_w[1..].iter().all(|&s| s), "w seen {seen_w:?}");
    assert!(yes >= 50 && no >= 50, "YES {yes}, NO {no}");
}

/// The generated test of a seed, made without a secret key.
fn input_of(seed: u64) -> simplified_chess::Input {
    simplified_chess::generate(harness::secret::stream(None, "simplified-chess", seed))
}
