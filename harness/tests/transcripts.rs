//! Transcripts at scale: a long Linez game costs a few bytes a move on disk (the judge's lines
//! are rebuilt from the test), the rebuilt conversation is the one a run would have kept
//! whole, and `--transcripts none|failed|all` (or scoring.toml's `[harness] transcripts`)
//! decides which tests keep one, with replays and the report saying when one was not kept.

mod support;

use std::path::{Path, PathBuf};

use harness::config::ProblemConfig;
use harness::problem::linez::{Linez, LONG_GAME_FILE};
use harness::problem::{by_id, CaseKey, Env, Problem};
use harness::testkit::scripted;
use harness::transcript::{self, Recorder, COMPACT_HEADER};
use harness::verdict::Verdict;
use support::{harness, root};

fn env(move_cap: u64) -> Env {
    Env {
        testcases: root().join("testcases"),
        config: ProblemConfig {
            move_cap,
            ..Default::default()
        },
        secret: None,
    }
}

/// The recorded long game: its test and its moves.
fn long_game() -> (CaseKey, Vec<String>) {
    Linez
        .long_game(&env(0))
        .expect("Linez has a long game")
        .unwrap_or_else(|e| panic!("testcases/linez/{LONG_GAME_FILE}: {e}"))
}

/// Plays `lines` to a test, recorded whole and compact: (outcome, whole, compact).
fn record(
    problem: &dyn Problem,
    key: &CaseKey,
    env: &Env,
    lines: &[String],
) -> (harness::verdict::Outcome, String, String) {
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let mut player = scripted(&lines);
    let mut whole = Recorder::new(&mut player);
    let outcome = problem.case(key, env).unwrap().play(&mut whole);
    let whole = whole.text;
    let mut player = scripted(&lines);
    let mut compact = Recorder::for_problem(problem, &mut player);
    let again = problem.case(key, env).unwrap().play(&mut compact);
    assert_eq!(again, outcome, "the same game twice");
    (outcome, whole, compact.text)
}

#[test]
fn a_20000_move_linez_game_costs_at_most_10_bytes_a_move() {
    let (key, moves) = long_game();
    assert_eq!(moves.len(), 20_000, "the recorded game");
    // Every recorded move is judged: the game is played to the cap, OK.
    let (outcome, whole, compact) = record(&Linez, &key, &env(20_000), &moves);
    assert_eq!(outcome.verdict, Verdict::Ok, "{outcome:?}");
    assert_eq!(outcome.moves, 20_000);
    let per_move = compact.len() as f64 / 20_000.0;
    assert!(per_move <= 10.0, "{per_move:.2} bytes a move");
    // The whole conversation is what the judge says each turn: over 100 bytes a move.
    assert!(whole.len() as f64 / 20_000.0 > 100.0);
    assert!(transcript::is_compact(&compact) && !transcript::is_compact(&whole));
}

#[test]
fn a_rebuilt_transcript_is_the_whole_one() {
    let (key, moves) = long_game();
    let linez = by_id("linez").unwrap();
    let mut games: Vec<(&dyn Problem, CaseKey, Env, Vec<String>)> = vec![
        // The long game, whole; its first 1,000 moves, then the player stops (EOF).
        (linez.as_ref(), key.clone(), env(20_000), moves.clone()),
        (linez.as_ref(), key.clone(), env(0), moves[..1000].to_vec()),
    ];
    // Padded moves are kept as the judge read them; an illegal move ends the game (WA).
    let mut odd = moves[..300].to_vec();
    odd[10] = format!("  {}\t", odd[10]);
    odd[299] = "A1A1".into();
    games.push((linez.as_ref(), key.clone(), env(0), odd));
    // A move cap ends the game with moves left over.
    games.push((linez.as_ref(), key.clone(), env(50), moves[..80].to_vec()));
    // ChessPuzzle: clicks read from its own whole transcript's first game, then a refusal.
    let chess = by_id("chesspuzzle").unwrap();
    let clicks: Vec<String> = ["0 0", " 00 1 ", "x", "5 5"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for seed in 1..=3 {
        games.push((chess.as_ref(), CaseKey::Seed(seed), env(0), clicks.clone()));
    }
    for (problem, key, env, lines) in &games {
        let (outcome, whole, compact) = record(*problem, key, env, lines);
        let what = format!("{} {key} after {} moves", problem.id(), outcome.moves);
        assert!(transcript::is_compact(&compact), "{what}");
        assert!(compact.len() < whole.len(), "{what}");
        let mut fresh = problem.case(key, env).unwrap();
        let rebuilt = transcript::rebuild(fresh.as_mut(), &compact);
        assert!(rebuilt == whole, "{what}: the rebuilt transcript differs");
    }
    // A whole transcript is read as it is.
    let mut fresh = linez.case(&key, &env(0)).unwrap();
    assert_eq!(
        transcript::rebuild(fresh.as_mut(), "> x\n< y\n"),
        "> x\n< y\n"
    );
}

/// A player that answers garbage (WA at its first move).
fn garbage_player(dir: &Path) -> PathBuf {
    let path = dir.join("garbage.sh");
    std::fs::write(&path, "#!/bin/sh\necho Z9Z9\ncat > /dev/null\n").unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path
}

/// A run of `players/linez-python` (OK) and the garbage player (WA) on seeds 1..2, with
/// `args`; returns the run folder.
fn run(tmp: &Path, name: &str, args: &[&str]) -> PathBuf {
    let results = tmp.join(name);
    let out = harness()
        .args(["--problem", "linez", "--seeds", "1..2", "--players"])
        .arg("players/linez-python")
        .arg(garbage_player(tmp))
        .args(args)
        .arg("--results")
        .arg(&results)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::canonicalize(results.join("latest")).unwrap()
}

/// The transcript files of a run, as `player/seed`.
fn kept(run: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let dir = run.join("transcripts/linez");
    for player in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(player.path()).unwrap().flatten() {
            found.push(format!(
                "{}/{}",
                player.file_name().to_string_lossy(),
                file.file_name().to_string_lossy()
            ));
        }
    }
    found.sort();
    found
}

fn replay(run: &Path, player: &str, seed: &str, extra: &[&str]) -> (i32, String, String) {
    let out = harness()
        .arg("replay")
        .arg(run)
        .args(["--player", player, "--seed", seed])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn transcripts_none_failed_all_keep_what_they_say_and_replays_say_what_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let all = run(tmp.path(), "all", &[]);
    assert_eq!(
        kept(&all),
        [
            "garbage/1.txt",
            "garbage/2.txt",
            "linez-python/1.txt",
            "linez-python/2.txt"
        ]
    );
    let failed = run(tmp.path(), "failed", &["--transcripts", "failed"]);
    assert_eq!(kept(&failed), ["garbage/1.txt", "garbage/2.txt"]);
    // The scoring.toml key does the same as the flag.
    let config = tmp.path().join("scoring.toml");
    std::fs::write(&config, "[harness]\ntranscripts = \"none\"\n").unwrap();
    let none = run(
        tmp.path(),
        "none",
        &[
            "--config",
            config.to_str().unwrap(),
            "--testcases",
            root().join("testcases").to_str().unwrap(),
        ],
    );
    assert_eq!(kept(&none), Vec::<String>::new());
    assert!(std::fs::read_to_string(none.join("run.toml"))
        .unwrap()
        .contains("transcripts = \"none\""));

    // A test whose transcript was kept replays; asking for one that was not is a usage
    // error that says so (exit 2); --worst picks among the kept ones.
    let (code, out, err) = replay(&failed, "garbage", "1", &[]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = replay(&failed, "linez-python", "1", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("was not kept (the run kept transcripts: failed)")
            && err.contains("--transcripts all"),
        "{err}"
    );
    let (code, _, err) = replay(&none, "garbage", "2", &["--transcript"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the run kept transcripts: none"), "{err}");
    let out = harness()
        .arg("replay")
        .arg(&failed)
        .args(["--worst", "1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let pages: Vec<&str> = std::str::from_utf8(&out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.ends_with(".html") && l.contains("/replays/"))
        .collect();
    assert_eq!(pages.len(), 1, "{pages:?}");
    assert!(pages[0].contains("linez-garbage-"), "{pages:?}");
    // The report links what exists and says what was not kept.
    let report = std::fs::read_to_string(none.join("report.html")).unwrap();
    assert!(report.contains("transcript not kept (--transcripts none)"));
    assert!(!report.contains("href=\"replays/"));
    let report = std::fs::read_to_string(failed.join("report.html")).unwrap();
    assert!(report.contains("transcript not kept (--transcripts failed)"));
    assert!(report.contains("href=\"replays/linez-garbage-"));

    // --transcript prints the whole conversation: each turn the judge's 10 lines (the board,
    // nextThree), then the player's move, which is what the compact file keeps.
    let (code, out, err) = replay(&all, "linez-python", "2", &["--transcript"]);
    assert_eq!(code, 0, "{err}");
    let compact =
        std::fs::read_to_string(all.join("transcripts/linez/linez-python/2.txt")).unwrap();
    assert!(compact.starts_with(COMPACT_HEADER));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() > 11, "{out}");
    for (i, line) in lines.iter().enumerate() {
        let judge = i % 11 < 10;
        assert_eq!(line.starts_with("> "), judge, "line {i}: {line}");
    }
    let moves: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("< "))
        .copied()
        .collect();
    let kept_moves: Vec<&str> = compact.lines().skip(1).collect();
    assert_eq!(moves, kept_moves);
}

#[test]
fn a_transcript_is_rebuilt_with_the_move_cap_of_its_run() {
    // A run with `move-cap = 5` (its own scoring.toml); the rebuild reads the cap from the
    // run, not from today's scoring.toml (no cap): 5 turns, and no sixth board.
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("scoring.toml");
    std::fs::write(&config, "[problem.linez]\nmove-cap = 5\n").unwrap();
    let results = tmp.path().join("results");
    let out = harness()
        .args(["--problem", "linez", "--seeds", "3", "--players"])
        .arg("players/linez-python")
        .arg("--config")
        .arg(&config)
        .arg("--testcases")
        .arg(root().join("testcases"))
        .arg("--results")
        .arg(&results)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = std::fs::canonicalize(results.join("latest")).unwrap();
    let (code, out, err) = replay(&run, "linez-python", "3", &["--transcript"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.iter().filter(|l| l.starts_with("< ")).count(), 5);
    assert_eq!(lines.len(), 5 * 11, "{out}");
}
