//! Interactive moves are read strictly and kept canonically: the Python example players,
//! padded with zeros, spaces and tabs, play the very game they play unpadded and leave the
//! very same transcript; a line longer than the protocol needs is cut off by the session.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use harness::config::ProblemConfig;
use harness::players::{discover, Player};
use harness::problem::{by_id, CaseKey, Env};
use harness::runner::{base_env, run_one, Containment, Suite, TestResult};
use harness::sandbox::{Isolation, Want};
use harness::verdict::Verdict;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn suite(problem: &str) -> Suite {
    Suite {
        problem: by_id(problem).unwrap(),
        env: Env {
            testcases: root().join("testcases"),
            config: ProblemConfig {
                time_limit: 20.0,
                memory_limit: 0,
                ..ProblemConfig::default()
            },
            secret: None,
        },
        cases: Vec::new(),
        players: Vec::new(),
        done: Default::default(),
    }
}

/// The default containment of a run (the sandbox where the machine offers it).
fn containment() -> Containment {
    harness::sandbox::set_supervisor(Path::new(env!("CARGO_BIN_EXE_harness")));
    Containment {
        isolation: Isolation::prepare(Want::Auto, Want::Auto, &[])
            .expect("isolation")
            .into(),
        base_env: base_env(&[]),
        core_dumps: false,
    }
}

fn play(problem: &str, seed: u64, player: &Player) -> TestResult {
    run_one(
        &suite(problem),
        &containment(),
        &CaseKey::Seed(seed),
        player,
    )
    .expect("not interrupted")
}

/// A player folder found as a run finds it.
fn found(folder: &Path, problem: &str) -> Player {
    let (mut players, _) = discover(
        &[folder.to_path_buf()],
        Some(problem),
        &[problem],
        &mut builds(),
    )
    .unwrap();
    players.remove(0)
}

/// An example player, or a copy of it whose `print` is replaced: `pad` is Python code
/// turning the printed values `a` into the line to print.
fn python_player(dir: &Path, problem: &str, example: &str, pad: Option<&str>) -> Player {
    let source = root().join("players").join(example);
    let Some(pad) = pad else {
        return found(&source, problem);
    };
    let folder = dir.join(format!("{example}-padded"));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(source.join("main.py"), folder.join("main.py")).unwrap();
    std::fs::write(
        folder.join("pad.py"),
        format!(
            "import builtins, runpy, sys\n\
             plain = builtins.print\n\
             builtins.print = lambda *a, **k: plain({pad}, **k)\n\
             runpy.run_path(sys.argv[1], run_name='__main__')\n"
        ),
    )
    .unwrap();
    std::fs::write(
        folder.join("player.toml"),
        format!(
            "name = \"padded\"\nproblem = \"{problem}\"\ncommand = [\"python3\", \"pad.py\", \"main.py\"]\n"
        ),
    )
    .unwrap();
    found(&folder, problem)
}

/// A shell-script player: `body` is its script.
fn script_player(dir: &Path, problem: &str, body: &str) -> Player {
    let folder = dir.join("script");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("player.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (mut players, _) = discover(&[path], Some(problem), &[problem], &mut builds()).unwrap();
    players.remove(0)
}

#[test]
fn a_padded_game_is_the_unpadded_game_with_the_same_transcript() {
    let cases = [
        // `3 5` sent as ` \t00003\t00005 `: zero padding, a tab between, blanks around.
        (
            "chesspuzzle",
            "chesspuzzle-python",
            "' \\t' + '\\t'.join('%05d' % x for x in a) + ' '",
        ),
        // `I8F6` sent as `\t  I8F6 \t`.
        ("linez", "linez-python", "'\\t  ' + a[0] + ' \\t'"),
    ];
    for (problem, example, pad) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let plain = play(
            problem,
            1,
            &python_player(tmp.path(), problem, example, None),
        );
        let padded = python_player(tmp.path(), problem, example, Some(pad));
        let padded = play(problem, 1, &padded);
        assert_eq!(plain.outcome.verdict, Verdict::Ok, "{problem}: {plain:?}");
        assert!(plain.outcome.moves >= 5, "{problem}: a real game");
        assert_eq!(padded.outcome, plain.outcome, "{problem}");
        assert_eq!(padded.transcript, plain.transcript, "{problem}");
        // What is kept is the canonical move, not what was sent.
        let moves: Vec<&str> = padded
            .transcript
            .lines()
            .filter_map(|l| l.strip_prefix("< "))
            .collect();
        assert_eq!(moves.len() as u64, padded.outcome.moves);
        for m in moves {
            let canonical = match problem {
                "chesspuzzle" => {
                    let (r, c) = m.split_once(' ').unwrap();
                    [r, c]
                        .iter()
                        .all(|n| n.parse::<u8>().is_ok_and(|v| v.to_string() == *n))
                }
                _ => m.len() == 4,
            };
            assert!(canonical, "{problem}: kept {m:?}");
        }
    }
}

#[test]
fn a_click_padded_past_the_protocol_line_is_cut_off_by_the_session() {
    // `7 3` padded with zeros to 100,000 bytes: beyond the 64 KiB `max-line` too, so only the
    // problem's own bound (32 bytes) can give this reason.
    // (A player may write before it reads: the judge's message waits in the pipe.)
    let script = "printf '%099998d 3\\n' 7\ncat > /dev/null";
    let tmp = tempfile::tempdir().unwrap();
    let p = script_player(tmp.path(), "chesspuzzle", script);
    let start = Instant::now();
    let r = play("chesspuzzle", 1, &p);
    assert_eq!(r.outcome.verdict, Verdict::ProtocolError, "{:?}", r.outcome);
    assert_eq!(r.outcome.reason, "line longer than 32 bytes");
    assert!(!r.transcript.contains("000000"), "the line is not kept");
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn signs_and_other_white_space_are_malformed_moves() {
    for (problem, line, reason) in [
        ("chesspuzzle", "+0 1", "row \"+0\" is not a number"),
        ("chesspuzzle", "0 -1", "column \"-1\" is not a number"),
        ("chesspuzzle", "0\\v1", "expected `ROW COL`"),
        ("chesspuzzle", "0\\342\\200\\2001", "expected `ROW COL`"),
        ("linez", "\\302\\240A1E5", "expected 4 characters"),
        ("linez", "A1E5\\r\\r", "expected 4 characters"),
    ] {
        let script = format!("printf '{line}\\n'\ncat > /dev/null");
        let tmp = tempfile::tempdir().unwrap();
        let p = script_player(tmp.path(), problem, &script);
        let r = play(problem, 1, &p);
        if line.contains("\\v") {
            // A control character never reaches the judge: it is not text.
            assert_eq!(r.outcome.verdict, Verdict::ProtocolError, "{line}: {r:?}");
            continue;
        }
        assert_eq!(r.outcome.verdict, Verdict::WrongAnswer, "{line}: {r:?}");
        assert!(r.outcome.reason.contains(reason), "{line}: {r:?}");
    }
}

/// Builds as a run makes them (no Cargo player is built here).
fn builds() -> harness::build::Builds {
    harness::build::Builds::new(std::time::Duration::from_secs(600))
}
