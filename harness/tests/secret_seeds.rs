//! Secret seeds (`--secret KEY` / `HARNESS_SECRET`).
//!
//! Without a key every generated test is exactly what it was before keys existed: compared
//! with `harness gen` output and three whole Linez games recorded before the key was added
//! (`data/unkeyed/`). With a key every generated test changes, stays the same for the same
//! key, and fixed tests do not change. The key's derivation is checked against Python's own
//! HMAC-SHA256. The key never reaches a player, `run.toml`, `scores.csv`, logs or the
//! recorded command line, and runs made with one key are never resumed, replayed or compared
//! with another.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use harness::config::ProblemConfig;
use harness::problem::linez::{self, Cell, Linez};
use harness::problem::{CaseKey, Env, Problem};
use harness::secret::Secret;
use harness::testkit::FnPlayer;

const KEY: &str = "correct horse battery staple 1729";
const OTHER_KEY: &str = "correct horse battery staple 1730";

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
/// A Linez seed whose start is the statement's position (`testcases/linez/examples.txt`).
const LINEZ_EXAMPLE: &str = "149738788";

/// The harness, without a key from the environment of whoever runs the tests.
fn harness() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
    cmd.current_dir(root())
        .env_remove("HARNESS_SECRET")
        .stdin(Stdio::null());
    cmd
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("harness runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn gen_with(mut cmd: Command, problem: &str, seed: &str) -> String {
    let (code, out, err) = run(cmd.args(["gen", "--problem", problem, "--seed", seed]));
    assert_eq!(code, 0, "{err}");
    out
}

fn gen(problem: &str, seed: &str) -> String {
    gen_with(harness(), problem, seed)
}

fn gen_keyed(problem: &str, seed: &str, key: &str) -> String {
    let mut cmd = harness();
    let (code, out, err) = run(cmd
        .args(["gen", "--problem", problem, "--seed", seed, "--secret"])
        .arg(key));
    assert_eq!(code, 0, "{err}");
    out
}

/// The seeds of a problem the recorded data covers.
fn seeds(problem: &str) -> Vec<&'static str> {
    let mut seeds = SEEDS.to_vec();
    if problem == "linez" {
        seeds.push(LINEZ_EXAMPLE);
    }
    seeds
}

fn recorded(problem: &str, seed: &str) -> String {
    std::fs::read_to_string(data(&format!("{problem}-{seed}.txt"))).expect("recorded gen output")
}

#[test]
fn without_a_key_gen_prints_what_it_printed_before_keys_existed() {
    for problem in PROBLEMS {
        for seed in seeds(problem) {
            assert_eq!(
                gen(problem, seed),
                recorded(problem, seed),
                "{problem} seed {seed}"
            );
        }
    }
}

#[test]
fn with_a_key_every_generated_test_changes_and_is_the_same_for_the_same_key() {
    for problem in PROBLEMS {
        for seed in seeds(problem) {
            let keyed = gen_keyed(problem, seed, KEY);
            let from_env = gen_with(harness_with(Some(KEY), &[]), problem, seed);
            assert_eq!(
                from_env, keyed,
                "{problem} seed {seed}: HARNESS_SECRET = --secret"
            );
            assert_eq!(
                gen_keyed(problem, seed, KEY),
                keyed,
                "{problem} seed {seed}"
            );
            if problem == "linez" && seed == LINEZ_EXAMPLE {
                // The statement's position; what lands later is keyed (the games below).
                assert_eq!(keyed, recorded(problem, seed), "linez example start");
                continue;
            }
            assert_ne!(keyed, recorded(problem, seed), "{problem} seed {seed}");
            assert_ne!(
                gen_keyed(problem, seed, OTHER_KEY),
                keyed,
                "{problem} seed {seed}: another key, another test"
            );
        }
    }
}

#[test]
fn fixed_tests_are_the_same_with_a_key() {
    for (problem, case) in [
        ("game-ending", "example-0"),
        ("game-ending", "sys-030"),
        ("russian-checkers", "sys-000"),
        ("simplified-chess", "sample-0"),
    ] {
        let file = std::fs::read_to_string(root().join(format!("testcases/{problem}/{case}.in")))
            .expect("fixed test");
        assert_eq!(gen_keyed(problem, case, KEY), file, "{problem} {case}");
        assert_eq!(gen(problem, case), file, "{problem} {case}");
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
fn linez_game(secret: Option<&str>, seed: u64) -> String {
    let env = Env {
        testcases: root().join("testcases"),
        config: ProblemConfig::default(),
        secret: secret.map(|k| Secret::new(k).unwrap()),
    };
    let mut game = Linez.case(&CaseKey::Seed(seed), &env).expect("a game");
    let mut player = FnPlayer::new(first_legal);
    let outcome = game.play(&mut player);
    format!(
        "{:?} score {} moves {}\n{}",
        outcome.verdict, outcome.score, outcome.moves, player.transcript
    )
}

#[test]
fn without_a_key_a_linez_game_draws_what_it_drew_before_keys_existed() {
    for seed in [1, 17, 149738788] {
        let recorded = std::fs::read_to_string(data(&format!("linez-{seed}.game.txt")))
            .expect("recorded game");
        assert_eq!(linez_game(None, seed), recorded, "linez seed {seed}");
    }
}

#[test]
fn with_a_key_a_linez_game_draws_other_numbers_the_same_for_the_same_key() {
    for seed in [1, 17, 149738788] {
        let recorded = std::fs::read_to_string(data(&format!("linez-{seed}.game.txt")))
            .expect("recorded game");
        let keyed = linez_game(Some(KEY), seed);
        assert_ne!(keyed, recorded, "linez seed {seed}");
        assert_eq!(linez_game(Some(KEY), seed), keyed, "linez seed {seed}");
        assert_ne!(
            linez_game(Some(OTHER_KEY), seed),
            keyed,
            "linez seed {seed}"
        );
    }
}

/// HMAC-SHA256 computed by Python's standard library, in hex.
fn python_hmac(key: &str, message: &str) -> String {
    let out = Command::new("python3")
        .args([
            "-c",
            "import hashlib, hmac, sys; \
             print(hmac.new(sys.argv[1].encode(), sys.argv[2].encode(), hashlib.sha256).hexdigest())",
            key,
            message,
        ])
        .output()
        .expect("python3 runs");
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn the_derivation_is_hmac_sha256_as_documented() {
    let secret = Secret::new(KEY).unwrap();
    assert_eq!(
        secret.fingerprint(),
        &python_hmac(KEY, "harness-fingerprint-v1")[..32]
    );
    for (problem, seed) in [("chesspuzzle", 5), ("linez", u64::MAX), ("game-ending", 0)] {
        assert_eq!(
            hex(&secret.stream_seed(problem, seed)),
            python_hmac(KEY, &format!("harness-seed-v1/{problem}/{seed}")),
            "{problem} {seed}"
        );
    }
}

/// A chesspuzzle player that writes its environment to stderr (kept in the run's logs) and
/// clicks (0, 0) until the judge stops it.
fn env_dumping_player() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("dump.sh");
    std::fs::write(
        &path,
        // What it reads goes to stderr too, as `> line`: what the judge showed it.
        "#!/bin/sh\nenv >&2\nread header\necho \"> $header\" >&2\necho '0 0'\n\
         while read line; do echo \"> $line\" >&2; echo '0 0'; done\n",
    )
    .expect("write");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    (dir, path)
}

/// Every file under a folder, with its contents.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            out.extend(files_under(&path));
        } else if kind.is_file() {
            out.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

fn latest(results: &Path) -> String {
    let link = std::fs::read_link(results.join("latest")).expect("results/latest");
    link.to_str().unwrap().to_string()
}

/// A chesspuzzle run of seeds 1..2 in `results`; returns (exit code, stdout + stderr).
fn chess_run(cmd: &mut Command, results: &Path, player: &Path) -> (i32, String) {
    let (code, out, err) = run(cmd
        .args(["--problem", "chesspuzzle", "--seeds", "1..2", "--results"])
        .arg(results)
        .arg("--players")
        .arg(player));
    (code, format!("{out}{err}"))
}

#[test]
fn a_keyed_run_keeps_only_the_fingerprint_and_no_player_or_file_sees_the_key() {
    let fingerprint = Secret::new(KEY).unwrap().fingerprint().to_string();
    let (_d, player) = env_dumping_player();
    let results = tempfile::tempdir().unwrap();
    // One run with the key in the environment, one with it on the command line.
    let runs = [
        ("HARNESS_SECRET", harness_with(Some(KEY), &[])),
        ("--secret", harness_with(None, &["--secret", KEY])),
    ];
    for (how, mut cmd) in runs {
        let (code, output) = chess_run(&mut cmd, results.path(), &player);
        assert_eq!(code, 0, "{how}: {output}");
        assert!(
            !output.contains(KEY),
            "{how}: the key on the terminal:\n{output}"
        );
        let dir = results.path().join(latest(results.path()));
        let files = files_under(&dir);
        let log = files
            .iter()
            .find(|(p, _)| p.extension().is_some_and(|e| e == "stderr"))
            .expect("a player's stderr log");
        assert!(
            contains(&log.1, "HARNESS_PLAYER_DIR="),
            "{how}: the player's environment is in its log"
        );
        assert!(
            !contains(&log.1, "HARNESS_SECRET"),
            "{how}: the player inherited HARNESS_SECRET"
        );
        for (path, bytes) in &files {
            assert!(
                !contains(bytes, KEY),
                "{how}: the key is in {}",
                path.display()
            );
        }
        let run_toml = std::fs::read_to_string(dir.join("run.toml")).unwrap();
        assert!(
            run_toml.contains(&format!("secret-fingerprint = \"{fingerprint}\"")),
            "{how}:\n{run_toml}"
        );
        if how == "--secret" {
            assert!(run_toml.contains("--secret ***"), "{run_toml}");
        }
        // The run played the keyed boards: what the player read (its stderr log; the
        // transcript keeps the player's lines only) starts with the keyed top layer.
        let transcript = files
            .iter()
            .find(|(p, _)| p.ends_with("logs/chesspuzzle/dump/1.stderr"))
            .map(|(_, b)| String::from_utf8_lossy(b).to_string())
            .expect("stderr log of seed 1");
        let board = gen_keyed("chesspuzzle", "1", KEY);
        let height: usize = board.split(' ').next().unwrap().parse().unwrap();
        let sent: Vec<&str> = transcript
            .lines()
            .filter_map(|l| l.strip_prefix("> "))
            .take(1 + height)
            .collect();
        let shown: Vec<&str> = board
            .lines()
            .filter(|l| !l.is_empty())
            .take(1 + height)
            .collect();
        assert_eq!(sent, shown, "{how}");
    }
}

/// The harness with `HARNESS_SECRET` set to `key` (when given) and these arguments.
fn harness_with(key: Option<&str>, args: &[&str]) -> Command {
    let mut cmd = harness();
    if let Some(key) = key {
        cmd.env("HARNESS_SECRET", key);
    }
    cmd.args(args);
    cmd
}

#[test]
fn resume_replay_and_compare_refuse_a_run_of_another_key() {
    let (_d, player) = env_dumping_player();
    let results = tempfile::tempdir().unwrap();
    let r = results.path();
    let (code, output) = chess_run(&mut harness_with(Some(KEY), &[]), r, &player);
    assert_eq!(code, 0, "{output}");
    let keyed = latest(r);
    assert!(
        !r.join("best.csv").exists(),
        "a keyed run leaves best.csv (tests made without a key) alone"
    );
    // A keyed run says so at its start and its end, and so does its report.
    let fingerprint = Secret::new(KEY).unwrap().fingerprint().to_string();
    assert!(
        output.contains(&format!("KEYED run (secret key {fingerprint})")),
        "{output}"
    );
    assert!(
        output.contains(&format!("KEYED run: secret key {fingerprint}")),
        "{output}"
    );
    let report = std::fs::read_to_string(r.join(&keyed).join("report.html")).unwrap();
    assert!(report.contains("KEYED run"), "{report}");
    let (code, output) = chess_run(&mut harness(), r, &player);
    assert_eq!(code, 0, "{output}");
    let plain = latest(r);
    assert_ne!(keyed, plain);
    assert!(!output.contains("KEYED"), "{output}");
    let report = std::fs::read_to_string(r.join(&plain).join("report.html")).unwrap();
    assert!(!report.contains("KEYED"));
    // `harness runs` marks the keyed run, and only it.
    let (code, listed, err) = run(harness().arg("runs").arg("--results").arg(r));
    assert_eq!(code, 0, "{err}");
    let marked: Vec<&str> = listed.lines().filter(|l| l.contains("KEYED")).collect();
    assert_eq!(marked.len(), 1, "{listed}");
    let above = listed
        .lines()
        .take_while(|l| !l.contains("KEYED"))
        .last()
        .unwrap();
    assert!(above.starts_with(&keyed), "{listed}");
    assert!(r.join("best.csv").exists());
    assert!(
        !output.contains("vs previous run"),
        "a run without a key is not compared with one made with a key:\n{output}"
    );
    let (code, output) = chess_run(&mut harness_with(Some(KEY), &[]), r, &player);
    assert_eq!(code, 0, "{output}");
    assert!(
        output.contains(&format!("vs previous run {keyed}")),
        "runs of the same key are compared:\n{output}"
    );

    let refused = |mut cmd: Command, needle: &str| {
        let (code, out, err) = run(cmd.arg("--results").arg(r));
        assert_eq!(code, 2, "{out}{err}");
        assert!(err.contains(needle), "expected {needle:?} in:\n{err}");
        assert!(!err.contains(KEY), "{err}");
    };
    let accepted = |mut cmd: Command| {
        let (code, out, err) = run(cmd.arg("--results").arg(r));
        assert_eq!(code, 0, "{out}{err}");
    };
    let (with_key, without, other) = (
        "the run was made with a secret key",
        "the run was made without a secret key",
        "is not the run's key",
    );

    refused(harness_with(None, &["--resume", &keyed]), with_key);
    refused(
        harness_with(None, &["--resume", &keyed, "--secret", OTHER_KEY]),
        other,
    );
    refused(harness_with(Some(KEY), &["--resume", &plain]), without);
    accepted(harness_with(Some(KEY), &["--resume", &keyed]));
    accepted(harness_with(None, &["--resume", &keyed, "--secret", KEY]));

    let replay = ["replay", keyed.as_str(), "--seed", "1"];
    refused(harness_with(None, &replay), with_key);
    refused(harness_with(Some(OTHER_KEY), &replay), other);
    accepted(harness_with(Some(KEY), &replay));
    let page = r.join(&keyed).join("replays/chesspuzzle-dump-1.html");
    assert!(page.is_file(), "{}", page.display());
    refused(
        harness_with(Some(KEY), &["replay", &plain, "--seed", "1"]),
        without,
    );

    refused(
        harness_with(None, &["compare", &keyed, &plain]),
        "the same seeds are different tests",
    );
    refused(
        harness_with(None, &["compare", &keyed, "--vs-best"]),
        "best.csv holds tests made without a key",
    );
    accepted(harness_with(None, &["compare", &keyed]));
    let mut vs_best = harness_with(Some(KEY), &["--problem", "chesspuzzle", "--vs-best"]);
    vs_best.arg("--players").arg(&player);
    refused(vs_best, "--vs-best with a secret key");
}

#[test]
fn an_empty_key_is_a_usage_error() {
    let (code, _, err) =
        run(harness()
            .env("HARNESS_SECRET", "")
            .args(["gen", "--problem", "linez", "--seed", "1"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("HARNESS_SECRET: the key is empty"), "{err}");
    let (code, _, err) =
        run(harness().args(["gen", "--problem", "linez", "--seed", "1", "--secret", ""]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--secret") && err.contains("the key is empty"),
        "{err}"
    );
}
