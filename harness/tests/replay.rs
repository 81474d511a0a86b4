//! Transcripts, replays, report.html and manual play, through the binary as a user runs it.
//! The players are the Python examples (no Cargo build in the test).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn harness() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
    cmd.current_dir(root());
    cmd
}

/// Runs the harness with `stdin` as its input: (exit code, stdout, stderr).
fn run_with(cmd: &mut Command, stdin: &str) -> (i32, String, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("harness runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("harness ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// The rows of scores.csv as (problem, player, seed, score, verdict, moves).
fn scores(run: &Path) -> Vec<(String, String, String, f64, String, u64)> {
    let mut r = csv::Reader::from_path(run.join("scores.csv")).expect("scores.csv");
    r.records()
        .map(|rec| {
            let rec = rec.expect("row");
            (
                rec[0].to_string(),
                rec[1].to_string(),
                rec[2].to_string(),
                rec[3].parse().expect("score"),
                rec[4].to_string(),
                rec[5].parse().expect("moves"),
            )
        })
        .collect()
}

/// The replay data embedded in a replay page.
fn replay_data(html: &str) -> serde_json::Value {
    let start = html
        .find(r#"<script id="data" type="application/json">"#)
        .expect("data script")
        + r#"<script id="data" type="application/json">"#.len();
    let end = start + html[start..].find("</script>").expect("end of data");
    serde_json::from_str(&html[start..end]).expect("replay JSON")
}

/// Asserts that a page fetches nothing: no address of another site in a `src`, `href`,
/// `url(...)` or `@import`, and a policy that forbids any fetch but `data:` images.
fn assert_self_contained(html: &str, what: &str) {
    let lower = html.to_lowercase();
    for needle in [
        "src=\"http",
        "src='http",
        "href=\"http",
        "href='http",
        "url(http",
        "@import",
        "<link",
    ] {
        assert!(!lower.contains(needle), "{what} contains {needle:?}");
    }
    assert!(
        html.contains("default-src 'none'"),
        "{what} has no Content-Security-Policy"
    );
}

fn one_run(results: &Path) -> PathBuf {
    let (code, out, err) = run_with(
        harness()
            .args([
                "--players",
                "players/linez-python",
                "players/chesspuzzle-python",
            ])
            .args(["--seeds", "1..3", "--threads", "2", "--results"])
            .arg(results),
        "",
    );
    assert_eq!(code, 0, "{out}{err}");
    std::fs::canonicalize(results.join("latest")).expect("latest run")
}

#[test]
fn a_run_keeps_every_transcript_and_writes_a_report_with_charts_and_the_worst_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let run = one_run(tmp.path());
    let rows = scores(&run);
    assert_eq!(rows.len(), 6);
    for (problem, player, seed, ..) in &rows {
        let path = run.join(format!("transcripts/{problem}/{player}/{seed}.txt"));
        let text = std::fs::read_to_string(&path).expect("transcript");
        // Interactive problems keep the player's lines only; the judge's are rebuilt.
        let moves = text
            .strip_prefix(harness::transcript::COMPACT_HEADER)
            .unwrap_or_else(|| panic!("{} is not compact", path.display()));
        assert!(moves.lines().all(|l| l.starts_with("< ") || l == "<"));
    }
    let report = std::fs::read_to_string(run.join("report.html")).expect("report.html");
    assert_self_contained(&report, "report.html");
    // The leaderboard, two charts per problem (plotters' SVG), the players.
    assert_eq!(
        report.matches("<svg").count(),
        4,
        "per-seed chart and histogram, 2 problems"
    );
    assert!(report.contains("score per seed") && report.contains("histogram of scores"));
    assert!(report.contains("linez-python") && report.contains("chesspuzzle-python"));
    // The worst seed of each player was replayed and is linked.
    for player in ["linez-python", "chesspuzzle-python"] {
        let (problem, _, seed, ..) = rows
            .iter()
            .filter(|r| r.1 == player)
            .min_by(|a, b| {
                a.3.total_cmp(&b.3)
                    .then(a.2.parse::<u64>().unwrap().cmp(&b.2.parse().unwrap()))
            })
            .unwrap();
        let link = format!("replays/{problem}-{player}-{seed}.html");
        assert!(run.join(&link).is_file(), "{link}");
        assert!(
            report.contains(&format!("href=\"{link}\"")),
            "{link} not linked"
        );
    }
}

#[test]
fn replays_rebuild_every_recorded_game_with_the_judge_own_score() {
    let tmp = tempfile::tempdir().unwrap();
    let run = one_run(tmp.path());
    let (code, out, err) = run_with(harness().arg("replay").arg(&run).args(["--worst", "3"]), "");
    assert_eq!(code, 0, "{out}{err}");
    let rows = scores(&run);
    assert_eq!(
        out.lines().filter(|l| l.ends_with(".html")).count(),
        7,
        "{out}"
    );
    for (problem, player, seed, score, verdict, moves) in &rows {
        let path = run.join(format!("replays/{problem}-{player}-{seed}.html"));
        let html = std::fs::read_to_string(&path).expect("replay page");
        assert_self_contained(&html, &path.display().to_string());
        let data = replay_data(&html);
        // serde_json's default float parsing may be off in the last bit; browsers parse exactly.
        let judged = data["score"].as_f64().unwrap();
        assert!(
            (judged - score).abs() <= 1e-12 * score.abs().max(1.0),
            "{}: {judged} vs {score}",
            path.display()
        );
        assert_eq!(data["verdict"], verdict.as_str());
        match problem.as_str() {
            "linez" => {
                // The start and one record per accepted move; the page computes the frames.
                let game = &data["data"];
                assert_eq!(game["cells"].as_str().unwrap().len(), 81);
                let records = game["moves"].as_array().unwrap();
                assert_eq!(records.len() as u64, *moves, "{}", path.display());
                assert!(records.iter().all(|r| r.as_str().unwrap().len() >= 4));
            }
            _ => {
                let frames = data["data"].as_array().unwrap();
                // A start frame, then one per accepted move.
                assert_eq!(frames.len() as u64, moves + 1, "{}", path.display());
                assert_eq!(frames.last().unwrap()["move"].as_u64().unwrap(), *moves);
                let f = &frames[1];
                assert!(
                    f["clicked"].is_array() && f["allowed"].is_array() && f["heights"].is_array()
                );
            }
        }
    }
}

#[test]
fn replay_names_what_it_cannot_find() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, err) = run_with(
        harness()
            .args(["replay", "no-such-run", "--seed", "1", "--results"])
            .arg(tmp.path()),
        "",
    );
    assert_eq!(code, 2);
    assert!(err.contains("\"no-such-run\" not found"), "{err}");
    let run = one_run(tmp.path());
    let (code, _, err) = run_with(
        harness()
            .arg("replay")
            .arg(&run)
            .args(["--player", "linez-python", "--seed", "99"]),
        "",
    );
    assert_eq!(code, 2);
    assert!(err.contains("no test with seed 99"), "{err}");
    let (code, _, err) = run_with(
        harness()
            .arg("replay")
            .arg(&run)
            .args(["--player", "nobody", "--seed", "1"]),
        "",
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("\"nobody\"") && err.contains("linez-python"),
        "{err}"
    );
}

/// Plays by piped keystrokes; returns (stdout, the saved run folder).
fn play(problem: &str, seed: &str, keys: &str, results: &Path) -> (String, PathBuf) {
    let (code, out, err) = run_with(
        harness()
            .args(["play", "--problem", problem, "--seed", seed, "--results"])
            .arg(results),
        keys,
    );
    assert_eq!(code, 0, "{out}{err}");
    let saved = out
        .lines()
        .find_map(|l| l.strip_prefix("saved: "))
        .expect("saved line");
    (out.clone(), PathBuf::from(saved))
}

#[test]
fn manual_linez_reprompts_an_illegal_move_and_saves_a_game_that_replays() {
    let tmp = tempfile::tempdir().unwrap();
    // Seed 5 starts with 1 on A8, 5 on C6 and 5 on E8. A1 is empty: refused, asked again.
    // `E8` alone marks where that 5 can go. `c6a6` in lower case is refused, as the judge
    // refuses it.
    let keys = "A1A2\nzz\nE8\nE8E6\nc6a6\nC6A6\nquit\n";
    let (out, run) = play("linez", "5", keys, tmp.path());
    assert!(
        out.contains("illegal move \"A1A2\": there is no number on A1 to move"),
        "{out}"
    );
    assert!(
        out.contains("illegal move \"c6a6\": cells are written in capitals"),
        "{out}"
    );
    // Quitting ends the game as it stands: not a wrong answer.
    assert!(out.contains("(OK: quit after 2 moves)"), "{out}");
    assert_eq!(scores(&run)[0].4, "OK");
    assert!(out.contains("illegal move \"zz\""), "{out}");
    assert!(out.contains("E8 can move to the cells marked *"), "{out}");
    assert!(out.contains("moves 2"), "{out}");
    assert!(out.contains("game over"), "{out}");
    assert!(run
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("play-"));
    let transcript = std::fs::read_to_string(run.join("transcripts/linez/human/5.txt")).unwrap();
    let answers: Vec<&str> = transcript
        .lines()
        .filter_map(|l| l.strip_prefix("< "))
        .collect();
    assert_eq!(
        answers,
        ["E8E6", "C6A6"],
        "only legal moves reach the judge"
    );
    let (code, replay_out, err) = run_with(
        harness()
            .arg("replay")
            .arg(&run)
            .args(["--player", "human", "--seed", "5"]),
        "",
    );
    assert_eq!(code, 0, "{replay_out}{err}");
    let html = std::fs::read_to_string(run.join("replays/linez-human-5.html")).unwrap();
    let data = replay_data(&html);
    assert_eq!(data["data"]["moves"].as_array().unwrap().len(), 2);
    assert!((data["score"].as_f64().unwrap() - scores(&run)[0].3).abs() < 1e-9);
}

#[test]
fn manual_chesspuzzle_reprompts_a_click_that_is_not_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    // Seed 3: (0, 0) holds a bishop, which allows (5, 0) and (0, 11) next.
    let keys = "0 0\n0 0\n99 1\n5 0\n";
    let (out, run) = play("chesspuzzle", "3", keys, tmp.path());
    assert!(out.contains("allowed next (*): 5 0, 0 11"), "{out}");
    assert!(
        out.contains("illegal move \"0 0\": (0, 0) is not one of the cells marked *"),
        "{out}"
    );
    assert!(
        out.contains("illegal move \"99 1\": row 99 is off the board"),
        "{out}"
    );
    assert!(out.contains("clicks 2 of"), "{out}");
    let transcript =
        std::fs::read_to_string(run.join("transcripts/chesspuzzle/human/3.txt")).unwrap();
    let answers: Vec<&str> = transcript
        .lines()
        .filter_map(|l| l.strip_prefix("< "))
        .collect();
    assert_eq!(answers, ["0 0", "5 0"]);
}

#[test]
fn a_refused_click_ends_the_replay_with_the_reason_and_the_recorded_score() {
    let tmp = tempfile::tempdir().unwrap();
    let player = tmp.path().join("p.sh");
    // Clicks (0, 0) for ever: on seed 3 the second click is not allowed.
    std::fs::write(
        &player,
        "#!/bin/sh\nread header\necho '0 0'\nwhile read line; do echo '0 0'; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&player, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (code, out, err) = run_with(
        harness()
            .args(["--problem", "chesspuzzle", "--seeds", "3", "--players"])
            .arg(&player)
            .arg("--results")
            .arg(tmp.path().join("res")),
        "",
    );
    assert_eq!(code, 0, "{out}{err}");
    let run = std::fs::canonicalize(tmp.path().join("res/latest")).unwrap();
    let html = std::fs::read_to_string(run.join("replays/chesspuzzle-p-3.html")).unwrap();
    let data = replay_data(&html);
    assert_eq!(data["verdict"], "WA");
    assert_eq!(data["score"].as_f64(), Some(0.0));
    let frames = data["data"].as_array().unwrap();
    let last = frames.last().unwrap();
    assert_eq!(frames.len(), 3, "start, one click, the refused one");
    assert_eq!(last["move"], 1);
    assert!(last["error"]
        .as_str()
        .unwrap()
        .contains("(0, 0) is not allowed"));
}

#[test]
fn a_quit_chesspuzzle_game_keeps_its_clicks_and_an_empty_game_is_not_saved() {
    let tmp = tempfile::tempdir().unwrap();
    // Seed 3: (0, 0) holds a bishop, which allows (5, 0) next.
    let (out, run) = play("chesspuzzle", "3", "0 0\n5 0\nquit\n", tmp.path());
    assert!(out.contains("(OK: quit after 2 moves)"), "{out}");
    let row = &scores(&run)[0];
    assert_eq!(row.4, "OK");
    assert!(row.3 > 0.0, "the 2 clicks count: {row:?}");
    // `latest` is what compare and report take by default: a game by hand is not a run.
    assert!(
        !tmp.path().join("latest").exists(),
        "a game played by hand became latest"
    );
    let toml = std::fs::read_to_string(run.join("run.toml")).unwrap();
    assert!(toml.contains("played = true"), "{toml}");

    let empty = tempfile::tempdir().unwrap();
    let (code, out, err) = run_with(
        harness()
            .args([
                "play",
                "--problem",
                "chesspuzzle",
                "--seed",
                "3",
                "--results",
            ])
            .arg(empty.path()),
        "quit\n",
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("no move was made: the game is not saved"),
        "{out}"
    );
    assert!(
        !empty.path().join("latest").exists(),
        "an empty game became latest"
    );
}
