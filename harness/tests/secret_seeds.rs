//! Secret seeds: without a key every generated test is exactly what it was before keys
//! existed (compared with `harness gen` output and a Linez game recorded before the key was
//! added, in `data/unkeyed/`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use harness::config::ProblemConfig;
use harness::problem::linez::{self, Cell, Linez};
use harness::problem::{CaseKey, Env, Problem};
use harness::testkit::FnPlayer;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/unkeyed")
        .join(name)
}

const PROBLEMS: [&str; 5] = [
    "chesspuzzle",
    "linez",
    "game-ending",
    "russian-checkers",
    "simplified-chess",
];
const SEEDS: [&str; 5] = ["1", "2", "17", "4242", "18446744073709551615"];

fn gen(problem: &str, seed: &str, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(root())
        .args(["gen", "--problem", problem, "--seed", seed])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("harness runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn without_a_key_gen_prints_what_it_printed_before_keys_existed() {
    for problem in PROBLEMS {
        let extra: &[&str] = if problem == "linez" {
            &["149738788"]
        } else {
            &[]
        };
        for seed in SEEDS.iter().chain(extra) {
            let recorded = std::fs::read_to_string(data(&format!("{problem}-{seed}.txt")))
                .expect("recorded gen output");
            assert_eq!(gen(problem, seed, &[]), recorded, "{problem} seed {seed}");
        }
    }
}

/// Moves the first number that can move to its first reachable cell.
fn first_legal(inbox: &str) -> Option<String> {
    let rows: String = inbox.lines().take(9).collect::<Vec<_>>().join("\n");
    let board: linez::Board = rows.parse().ok()?;
    (0..linez::CELLS).map(Cell::from_index).find_map(|from| {
        let reach = board.reachable_from(from);
        (board.get(from) != 0 && reach != 0).then(|| {
            format!(
                "{from}{}",
                Cell::from_index(reach.trailing_zeros() as usize)
            )
        })
    })
}

/// What the judge sends in a whole Linez game of a seed: every landing and `nextThree` after
/// the start comes from the seed's stream.
fn linez_game(env: &Env, seed: u64) -> String {
    let mut game = Linez.case(&CaseKey::Seed(seed), env).expect("a game");
    let mut player = FnPlayer::new(first_legal);
    let outcome = game.play(&mut player);
    format!(
        "{:?} score {} moves {}\n{}",
        outcome.verdict, outcome.score, outcome.moves, player.transcript
    )
}

#[test]
fn without_a_key_a_linez_game_draws_what_it_drew_before_keys_existed() {
    let env = Env {
        testcases: root().join("testcases"),
        config: ProblemConfig::default(),
    };
    for seed in [1, 17, 149738788] {
        let recorded = std::fs::read_to_string(data(&format!("linez-{seed}.game.txt")))
            .expect("recorded game");
        assert_eq!(linez_game(&env, seed), recorded, "linez seed {seed}");
    }
}
