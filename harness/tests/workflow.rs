//! A competitor's daily loop through the binary: variants of one program side by side,
//! `compare` with its largest losses and their replay pages, a verbose run of one seed,
//! `gen --view player`, JSON lines for scripts and the table's width.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn harness(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
    cmd.current_dir(root()).args(args).stdin(Stdio::null());
    cmd
}

fn run(mut cmd: Command) -> (i32, String, String) {
    let out = cmd.output().expect("harness runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// The whole conversation of a test of the run `run_id` under `results` (transcripts keep only
/// the player's lines; `harness replay --transcript` rebuilds the judge's).
fn full_transcript(results: &Path, run_id: &str, player: &str, seed: &str) -> String {
    let mut cmd = harness(&[
        "replay",
        run_id,
        "--player",
        player,
        "--seed",
        seed,
        "--transcript",
    ]);
    cmd.arg("--results").arg(results);
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    out
}

fn read_csv(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).expect("csv");
    let mut rows = vec![r.headers().unwrap().iter().map(String::from).collect()];
    rows.extend(
        r.records()
            .map(|rec| rec.unwrap().iter().map(String::from).collect()),
    );
    rows
}

/// (player, seed) -> (score, hash) of a run's scores.csv.
fn scores(run: &Path) -> std::collections::BTreeMap<(String, String), (String, String)> {
    let rows = read_csv(&run.join("scores.csv"));
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (p, s, sc, h) = (col("player"), col("seed"), col("score"), col("player_hash"));
    rows[1..]
        .iter()
        .map(|r| ((r[p].clone(), r[s].clone()), (r[sc].clone(), r[h].clone())))
        .collect()
}

/// A shell player of ChessPuzzle that writes its arguments and `$MODE` to stderr and then
/// gives up (closes its output): enough to see what reached it.
fn echo_player() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("echo.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\necho \"args=[$*] mode=[$MODE]\" >&2\nread header\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    (dir, path)
}

#[test]
fn variants_of_one_program_run_side_by_side_with_their_own_names_hashes_and_settings() {
    let results = tempfile::tempdir().unwrap();
    let player = "players/chesspuzzle-python";
    let go = || {
        let mut cmd = harness(&[
            "--players",
            player,
            "--variant",
            &format!("other={player}"),
            "env:PLAYER_SEED=7",
            "--variant",
            &format!("same={player}"),
            "env:PLAYER_SEED=1",
            "--seeds",
            "1..4",
            "--threads",
            "2",
        ]);
        cmd.arg("--results").arg(results.path());
        run(cmd)
    };
    let (code, out, err) = go();
    assert_eq!(code, 0, "{err}");
    let first = scores(&results.path().join("latest"));
    let get = |name: &str, seed: &str| first[&(name.to_string(), seed.to_string())].clone();
    for seed in ["1", "2", "3", "4"] {
        // PLAYER_SEED=1 is the program's default: the same games as the plain player.
        assert_eq!(get("same", seed).0, get("chesspuzzle-python", seed).0);
    }
    assert!(
        ["1", "2", "3", "4"]
            .iter()
            .any(|s| get("other", s).0 != get("chesspuzzle-python", s).0),
        "PLAYER_SEED=7 did not reach the player: {first:?}"
    );
    let hashes: std::collections::BTreeSet<String> = ["chesspuzzle-python", "other", "same"]
        .iter()
        .map(|n| get(n, "1").1)
        .collect();
    assert_eq!(
        hashes.len(),
        3,
        "every variant has its own hash: {hashes:?}"
    );
    let run_toml = std::fs::read_to_string(results.path().join("latest/run.toml")).unwrap();
    assert_eq!(
        run_toml.matches("; and its --variant settings").count(),
        2,
        "{run_toml}"
    );
    assert!(out.contains("other") && out.contains("same"), "{out}");

    // Stable: the next run gives each the same hash ("same build" against the previous run).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let (code, out, err) = go();
    assert_eq!(code, 0, "{err}");
    let second = scores(&results.path().join("latest"));
    assert_eq!(first, second);
    assert!(!out.contains("new build"), "{out}");

    // compare: the largest losses of one variant against the other, with replay pages
    // written and linked from compare.html.
    let mut cmd = harness(&["compare", "other", "same", "--largest", "2"]);
    cmd.arg("--results").arg(results.path());
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("largest"), "{out}");
    // The runs' report.html link the replay pages compare wrote, as those the run wrote.
    assert!(out.contains("updated "), "no report.html updated: {out}");
    for run in std::fs::read_dir(results.path()).unwrap().flatten() {
        let replays = run.path().join("replays");
        if run.file_name() == "latest" || !replays.is_dir() {
            continue;
        }
        let report = std::fs::read_to_string(run.path().join("report.html")).unwrap();
        for page in std::fs::read_dir(&replays).unwrap().flatten() {
            let name = page.file_name().to_string_lossy().to_string();
            let href = format!("href=\"replays/{name}\"");
            assert!(
                report.contains(&href),
                "{href} not in {}",
                run.path().display()
            );
        }
    }
    // Its replay commands work as printed, from where the comparison ran (`harness` is not
    // on PATH here: the command names the program by its path).
    let command = out
        .lines()
        .filter_map(|l| l.rsplit("   ").next())
        .find(|c| c.contains(" replay ") && c.contains(" --seed "))
        .expect("a replay command");
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(command).current_dir(root());
    let (code, written, err) = run(cmd);
    assert_eq!(code, 0, "{command}: {err}");
    assert!(written.contains("/replays/chesspuzzle-"), "{written}");
    let html = std::fs::read_to_string(results.path().join("compare.html")).unwrap();
    let link = html
        .split("<a href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a link to a replay page");
    assert!(link.contains("/replays/chesspuzzle-"), "{link}");
    let page = std::fs::read_to_string(results.path().join(link)).expect("the linked page");
    assert!(page.contains("<!DOCTYPE html>"));
}

#[test]
fn variant_arguments_and_environment_reach_the_program_and_bad_variants_are_named() {
    let results = tempfile::tempdir().unwrap();
    let (_dir, echo) = echo_player();
    let echo = echo.display().to_string();
    let mut cmd = harness(&[
        "--problem",
        "chesspuzzle",
        "--variant",
        &format!("loud={echo}"),
        "arg:--depth",
        "arg:3 4",
        "env:MODE=fast",
        "--seeds",
        "1",
    ]);
    cmd.arg("--results").arg(results.path());
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let log = results.path().join("latest/logs/chesspuzzle/loud/1.stderr");
    let text = std::fs::read_to_string(&log).expect("the variant's stderr");
    assert_eq!(text, "args=[--depth 3 4] mode=[fast]\n");

    for (args, needle) in [
        (vec!["--variant", "x"], "NAME=PATH"),
        (
            vec!["--variant", "a=players/linez-python", "DEPTH=3"],
            "no player at \"3\" (each NAME=PATH starts a variant; its settings are written env:KEY=VALUE",
        ),
        (
            vec![
                "--players",
                "players/linez-python",
                "--variant",
                "linez-python=players/linez-python",
            ],
            "two players are named \"linez-python\"",
        ),
    ] {
        let mut cmd = harness(&args);
        cmd.arg("--results").arg(results.path());
        let (code, _, err) = run(cmd);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn json_lines_carry_every_test_and_standing_and_nothing_else_is_on_stdout() {
    let results = tempfile::tempdir().unwrap();
    let mut cmd = harness(&[
        "--players",
        "players/chesspuzzle-python",
        "--seeds",
        "1..3",
        "--json",
    ]);
    cmd.arg("--results").arg(results.path());
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["test", "test", "test", "standing", "run"], "{out}");
    // The same numbers as scores.csv, read independently.
    let run_dir = results.path().join("latest");
    let csv = scores(&run_dir);
    for t in &lines[..3] {
        let key = (
            t["player"].as_str().unwrap().to_string(),
            // A seed is a number, as scripts compare it.
            t["seed"]
                .as_u64()
                .unwrap_or_else(|| panic!("{t}"))
                .to_string(),
        );
        let (score, hash) = &csv[&key];
        // serde_json's own float parsing may be off by one unit in the last place.
        let diff = t["score"].as_f64().unwrap() - score.parse::<f64>().unwrap();
        assert!(diff.abs() < 1e-12, "{t} against {score}");
        assert_eq!(t["player_hash"].as_str().unwrap(), hash);
        assert_eq!(t["verdict"], "OK");
        assert!(t["params"]["K"].is_u64(), "{t}");
    }
    let standing = &lines[3];
    assert_eq!(standing["tests"], 3);
    assert_eq!(standing["verdicts"]["OK"], 3);
    assert_eq!(standing["relative"], 1_000_000.0);
    let id = std::fs::read_link(results.path().join("latest")).unwrap();
    assert_eq!(lines[4]["run"].as_str().unwrap(), id.to_str().unwrap());
    // The leaderboard is still shown, on stderr.
    assert!(err.contains("chesspuzzle-python"), "{err}");
    assert!(err.contains("max think"), "{err}");
}

#[test]
fn each_prints_a_line_per_finished_test() {
    let results = tempfile::tempdir().unwrap();
    let go = |each: bool| {
        let mut cmd = harness(&["--players", "players/chesspuzzle-python", "--seeds", "1..3"]);
        if each {
            cmd.arg("--each");
        }
        cmd.arg("--results").arg(results.path());
        run(cmd)
    };
    let (code, _, err) = go(true);
    assert_eq!(code, 0, "{err}");
    let scores = scores(&results.path().join("latest"));
    for seed in ["1", "2", "3"] {
        let (score, _) = &scores[&("chesspuzzle-python".to_string(), seed.to_string())];
        let score: f64 = score.parse().unwrap();
        // Whole scores as they are, others to 4 places (as the report shows them).
        let shown = if score.fract() == 0.0 {
            format!("{score}")
        } else {
            format!("{score:.4}")
        };
        let start = format!("seed {seed}  chesspuzzle-python  OK  {shown}  ");
        let line = err
            .lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_else(|| panic!("no {start:?} in:\n{err}"));
        assert!(line.ends_with(" s"), "{line}");
    }
    let (code, _, err) = go(false);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("chesspuzzle-python  OK"), "{err}");
}

#[test]
fn gen_view_player_prints_what_a_player_reads_first_and_a_player_answers_it_by_hand() {
    let (code, first, err) = run(harness(&[
        "gen",
        "--problem",
        "chesspuzzle",
        "--seed",
        "5",
        "--view",
        "player",
    ]));
    assert_eq!(code, 0, "{err}");
    // The protocol (README): `H W K`, then H lines of W tiles.
    let head: Vec<usize> = first
        .lines()
        .next()
        .unwrap()
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(first.lines().count(), 1 + head[0], "{first}");
    assert!(first.lines().skip(1).all(|l| l.len() == head[1]), "{first}");
    // Piped into the example player by hand: it answers with a click on the board.
    let mut child = Command::new("python3")
        .arg(root().join("players/chesspuzzle-python/main.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), first.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let click: Vec<usize> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .expect("a click")
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    assert!(click[0] < head[0] && click[1] < head[1], "{click:?}");
    // The full view holds every layer: more than the player sees.
    let (_, full, _) = run(harness(&["gen", "--problem", "chesspuzzle", "--seed", "5"]));
    assert_ne!(full, first);
}

#[test]
fn verbose_shows_the_messages_and_the_stderr_of_one_test_as_they_pass() {
    let results = tempfile::tempdir().unwrap();
    let mut cmd = harness(&[
        "--players",
        "players/chesspuzzle-python",
        "--seeds",
        "2",
        "--verbose",
    ]);
    cmd.arg("--results").arg(results.path());
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    // A debugging run: kept, said so, but not linked as latest.
    assert!(!results.path().join("latest").exists(), "{out}");
    assert!(out.contains("debugging run: not linked as latest"), "{out}");
    let id = std::fs::read_dir(results.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .find(|n| !n.ends_with(".csv"))
        .expect("the run's folder");
    let run_toml = std::fs::read_to_string(results.path().join(&id).join("run.toml")).unwrap();
    assert!(run_toml.contains("\ndebug = true\n"), "{run_toml}");
    assert!(
        !results.path().join("best.csv").exists(),
        "a debugging run in best.csv"
    );
    let mut cmd = harness(&["runs"]);
    cmd.arg("--results").arg(results.path());
    let (code, listed, listing_err) = run(cmd);
    assert_eq!(code, 0, "{listing_err}");
    assert!(listed.contains("debugging run (--verbose)"), "{listed}");
    // Every message of the test was shown, in order: the whole conversation (the judge's
    // lines rebuilt from the compact transcript).
    let transcript = full_transcript(results.path(), &id, "chesspuzzle-python", "2");
    let messages = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("> ") || l.starts_with("< "))
            .map(String::from)
            .collect()
    };
    assert!(!messages(&transcript).is_empty());
    assert_eq!(messages(&err), messages(&transcript));

    // A player's stderr is shown as it writes it, marked.
    let (_dir, echo) = echo_player();
    let mut cmd = harness(&["--problem", "chesspuzzle", "--seeds", "1", "--verbose"]);
    cmd.arg("--results")
        .arg(results.path())
        .arg("--players")
        .arg(&echo);
    let (_, _, err) = run(cmd);
    assert!(err.contains("[stderr] args=[] mode=[]"), "{err}");

    // One test only.
    let mut cmd = harness(&["--problem", "chesspuzzle", "--seeds", "1..2", "--verbose"]);
    cmd.arg("--results")
        .arg(results.path())
        .arg("--players")
        .arg(&echo);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give one player and one seed"), "{err}");
}

#[test]
fn a_failure_line_names_the_stderr_log_the_transcript_and_the_replay() {
    let results = tempfile::tempdir().unwrap();
    let (_dir, echo) = echo_player();
    let mut cmd = harness(&["--problem", "chesspuzzle", "--seeds", "3"]);
    cmd.arg("--results")
        .arg(results.path())
        .arg("--players")
        .arg(&echo);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let run_dir = std::fs::canonicalize(results.path().join("latest")).unwrap();
    let pointers = err
        .lines()
        .find(|l| l.starts_with("  stderr "))
        .unwrap_or_else(|| panic!("no line naming the files: {err}"));
    let name = echo.file_stem().unwrap().to_str().unwrap();
    let log = run_dir.join(format!("logs/chesspuzzle/{name}/3.stderr"));
    let transcript = run_dir.join(format!("transcripts/chesspuzzle/{name}/3.txt"));
    // The run folder is named as the user gave it (here, the temporary folder).
    let shown = |p: &Path| {
        p.display()
            .to_string()
            .replace(&run_dir.display().to_string(), "")
    };
    assert!(pointers.contains(&shown(&log)), "{pointers}");
    assert!(pointers.contains(&shown(&transcript)), "{pointers}");
    assert!(log.is_file() && transcript.is_file());
    let replay = pointers.split("replay: ").nth(1).expect("a replay command");
    let mut args: Vec<&str> = replay.split(' ').skip(1).collect();
    args.extend(["--results"]);
    let mut cmd = harness(&args);
    cmd.arg(results.path());
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{replay}: {err}");
    assert!(out.contains("replays/"), "{out}");
}

/// The game data embedded in a replay page.
fn data_of(page: &Path) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap();
    let start = html
        .find("<script id=\"data\" type=\"application/json\">")
        .unwrap();
    let json = &html[start..];
    let json = &json[json.find('>').unwrap() + 1..json.find("</script>").unwrap()];
    let data: serde_json::Value = serde_json::from_str(json).unwrap();
    data["data"].clone()
}

#[test]
fn the_replay_of_a_refused_linez_move_shows_the_cells_that_were_allowed() {
    // Moves its first number onto itself: refused (the target is not empty).
    let dir = tempfile::tempdir().unwrap();
    let player = dir.path().join("self.py");
    std::fs::write(
        &player,
        "#!/usr/bin/env python3\nimport sys\nrows = [sys.stdin.readline().strip() for _ in range(9)]\n\
         sys.stdin.readline()\nr, c = next((r, c) for r in range(9) for c in range(9) if rows[r][c] != '.')\n\
         cell = 'ABCDEFGHI'[r] + str(c + 1)\nprint(cell + cell, flush=True)\n",
    )
    .unwrap();
    std::fs::set_permissions(&player, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let results = tempfile::tempdir().unwrap();
    let mut cmd = harness(&["--problem", "linez", "--seeds", "4"]);
    cmd.arg("--players")
        .arg(&player)
        .arg("--results")
        .arg(results.path());
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let run_dir = results.path().join("latest");
    // The page holds the game compactly; the refused move is its `error`.
    let data = data_of(&run_dir.join("replays/linez-self-4.html"));
    let last = &data["error"];
    assert!(last["reason"].is_string(), "{last}");
    let allowed: Vec<u64> = last["allowed"]
        .as_array()
        .expect("the allowed cells")
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    // The empty cells joined to the first number by empty neighbours, counted here from the
    // board the player was sent (the transcript), by a search of this test's own.
    let transcript = full_transcript(results.path(), "latest", "self", "4");
    let board: Vec<Vec<u8>> = transcript
        .lines()
        .take(9)
        .map(|l| l.trim_start_matches("> ").bytes().collect())
        .collect();
    let first = (0..81).find(|i| board[i / 9][i % 9] != b'.').unwrap();
    let mut seen = [false; 81];
    let mut todo = vec![first];
    while let Some(i) = todo.pop() {
        let (r, c) = (i / 9, i % 9);
        let mut next = Vec::new();
        if r > 0 {
            next.push(i - 9);
        }
        if r < 8 {
            next.push(i + 9);
        }
        if c > 0 {
            next.push(i - 1);
        }
        if c < 8 {
            next.push(i + 1);
        }
        for n in next {
            if !seen[n] && board[n / 9][n % 9] == b'.' {
                seen[n] = true;
                todo.push(n);
            }
        }
    }
    let expected: Vec<u64> = (0..81u64).filter(|&i| seen[i as usize]).collect();
    assert!(!expected.is_empty());
    assert_eq!(allowed, expected);
}

#[test]
fn the_report_lists_failures_with_reasons_and_files_relative_scores_and_rounded_numbers() {
    let results = tempfile::tempdir().unwrap();
    let (_dir, echo) = echo_player();
    let mut cmd = harness(&["--problem", "chesspuzzle", "--seeds", "1..3"]);
    cmd.arg("--results")
        .arg(results.path())
        .arg("--players")
        .arg(&echo)
        .arg(root().join("players/chesspuzzle-python"));
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let run_dir = std::fs::canonicalize(results.path().join("latest")).unwrap();
    let html = std::fs::read_to_string(run_dir.join("report.html")).unwrap();
    let rows = read_csv(&run_dir.join("scores.csv"));
    let reason = rows[0].iter().position(|h| h == "reason").unwrap();
    let failed: Vec<&Vec<String>> = rows[1..].iter().filter(|r| r[4] != "OK").collect();
    assert_eq!(failed.len(), 3, "the echo player fails every test");
    assert!(html.contains("<h3>Failures (3)</h3>"), "{html}");
    for r in &failed {
        assert!(
            html.contains(&r[reason]),
            "reason {:?} not in the report",
            r[reason]
        );
        let log = format!("logs/chesspuzzle/echo/{}.stderr", r[2]);
        assert!(html.contains(&format!("<a href=\"{log}\">stderr</a>")));
        assert!(run_dir.join(&log).is_file());
        let transcript = format!("transcripts/chesspuzzle/echo/{}.txt", r[2]);
        assert!(html.contains(&format!("<a href=\"{transcript}\">transcript</a>")));
    }
    // The leaderboard: relative score (as leaderboard.csv has it) and the longest think.
    let board = read_csv(&run_dir.join("leaderboard.csv"));
    let rel = board[0].iter().position(|h| h == "relative").unwrap();
    let python = board.iter().find(|r| r[1] == "chesspuzzle-python").unwrap();
    let shown = format!("<td>{:.2}</td>", python[rel].parse::<f64>().unwrap());
    assert!(html.contains(&shown), "{shown} not in the report");
    assert!(html.contains("<th>max think</th>"));
    // Rounded: no score with more than 6 decimals anywhere in the tables (the charts'
    // drawing coordinates aside).
    let mut tables = String::new();
    for part in html.split("<svg") {
        tables.push_str(part.split_once("</svg>").map_or(part, |(_, rest)| rest));
    }
    let long = tables
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|t| t.split_once('.').is_some_and(|(_, d)| d.len() > 6));
    assert_eq!(long, None, "an unrounded number");
    let exact = rows[1..]
        .iter()
        .find(|r| r[3].len() > 8)
        .expect("a score with many decimals");
    assert!(!tables.contains(&exact[3]), "{} shown unrounded", exact[3]);
}
