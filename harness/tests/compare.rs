//! `harness compare` and `harness runs` on synthetic run folders: the table (snapshot), the
//! common-tests rule, compare.csv, and errors naming what was not found.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `harness <args> --results <results>`.
fn harness(results: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
    cmd.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(args)
        .arg("--results")
        .arg(results)
        .stdin(Stdio::null());
    cmd
}

/// `out` with the results folder as `<results>` and the program of each printed replay
/// command (where the test binary is: `./target/debug/harness`, or an absolute path) as
/// `<harness>`.
fn redact(out: &str, results: &Path) -> String {
    out.replace(&results.display().to_string(), "<results>")
        .lines()
        .map(|line| match line.find(" replay ") {
            Some(at) => {
                let start = line[..at].rfind(' ').map_or(0, |i| i + 1);
                format!("{}<harness>{}\n", &line[..start], &line[at..])
            }
            None => format!("{line}\n"),
        })
        .collect()
}

fn run(mut cmd: Command) -> (i32, String, String) {
    let out = cmd.output().expect("harness runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// Writes `results/<id>/scores.csv` with chesspuzzle rows: (player, hash, seed, score,
/// verdict); H, W, K are functions of the seed.
fn write_run(results: &Path, id: &str, rows: &[(&str, &str, u64, f64, &str)]) -> PathBuf {
    let dir = results.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    let mut csv = String::from(
        "problem,player,seed,score,verdict,moves,think_ms,cpu_ms,wall_ms,max_memory_kb,warning,player_hash,harness_version,H,W,K,reason\n",
    );
    for (player, hash, seed, score, verdict) in rows {
        let (h, w, k) = (6 + seed % 5, 7 + seed % 3, 1 + seed % 4);
        csv.push_str(&format!(
            "chesspuzzle,{player},{seed},{score},{verdict},10,5,5,6,1000,,{hash},0.1.0,{h},{w},{k},\n"
        ));
    }
    std::fs::write(dir.join("scores.csv"), csv).unwrap();
    std::fs::write(
        dir.join("run.toml"),
        "command = \"harness --players ...\"\n",
    )
    .unwrap();
    dir
}

/// Two runs: `old` (alpha and beta on seeds 1..=12) and `new` (alpha, rebuilt, on 5..=20).
fn two_runs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut old = Vec::new();
    for s in 1..=12u64 {
        old.push(("alpha", "aaaa", s, 0.5 + 0.01 * s as f64, "OK"));
        // beta fails seed 3 and ties alpha on seed 4.
        let (score, verdict) = match s {
            3 => (0.0, "TLE"),
            4 => (0.54, "OK"),
            _ => (0.4 + 0.02 * s as f64, "OK"),
        };
        old.push(("beta", "bbbb", s, score, verdict));
    }
    write_run(dir.path(), "20260101-000000", &old);
    let new: Vec<_> = (5..=20u64)
        .map(|s| {
            let better = if s % 4 == 0 { -0.01 } else { 0.03 };
            ("alpha", "cccc", s, 0.5 + 0.01 * s as f64 + better, "OK")
        })
        .collect();
    write_run(dir.path(), "20260102-000000", &new);
    dir
}

#[test]
fn compare_two_versions_of_a_player_uses_only_the_common_seeds() {
    let results = two_runs();
    let (code, out, err) = run(harness(
        results.path(),
        &["compare", "alpha@20260101-000000", "alpha@20260102-000000"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("only the 8 tests common to all are used"),
        "{out}"
    );
    insta::assert_snapshot!(redact(&out, results.path()));
    let csv = std::fs::read_to_string(results.path().join("compare.csv")).unwrap();
    let pair = csv
        .lines()
        .find(|l| l.split(',').nth(6) == Some("alpha@20260101-000000"))
        .expect("a pair row");
    // New alpha wins 6 of 8 common seeds (5..=12 less 8 and 12), loses 2.
    assert!(pair.contains(",8,") && pair.contains(",6,0,2,"), "{pair}");
}

#[test]
fn compare_a_whole_run_with_filter_and_group_by() {
    let results = two_runs();
    let (code, out, err) = run(harness(
        results.path(),
        &[
            "compare",
            "20260101-000000",
            "--filter",
            "K=1..2",
            "--group-by",
            "K",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(redact(&out, results.path()));
}

#[test]
fn player_names_resolve_to_their_newest_run_and_unknowns_are_named() {
    let results = two_runs();
    // beta is only in the old run; alpha's newest run is the new one.
    let (code, out, err) = run(harness(results.path(), &["compare", "beta", "alpha"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("20260102-000000") && out.contains("20260101-000000"),
        "{out}"
    );
    let (code, _, err) = run(harness(results.path(), &["compare", "gamma"]));
    assert_eq!(code, 2);
    assert!(err.contains("gamma: no run or player"), "{err}");
    let (code, _, err) = run(harness(results.path(), &["compare", "alpha@1999"]));
    assert_eq!(code, 2);
    assert!(err.contains("no run \"1999\""), "{err}");
    let (code, _, err) = run(harness(
        results.path(),
        &["compare", "20260101-000000", "--group-by", "Q"],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--group-by Q"), "{err}");
}

#[test]
fn runs_lists_every_run_with_its_players() {
    let results = two_runs();
    // A run of whole scores: its means show two decimals, as on the leaderboard.
    let whole: Vec<_> = (1..=4u64)
        .flat_map(|s| {
            let solved = if s == 2 { 0.0 } else { 1.0 };
            [
                ("alpha", "eeee", s, 1.0, "OK"),
                ("gamma", "ffff", s, solved, "OK"),
            ]
        })
        .collect();
    write_run(results.path(), "20260103-000000", &whole);
    let (code, out, err) = run(harness(results.path(), &["runs"]));
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn runs_ranks_a_minimised_problem_by_its_yardstick_and_never_counts_a_failed_test() {
    // tools-interactive (testcases/) is minimised. tle is fast on its two OK tests and fails
    // two (TLE, score 0); steady passes all four.
    let results = tempfile::tempdir().unwrap();
    let dir = results.path().join("20260105-000000");
    std::fs::create_dir_all(&dir).unwrap();
    let mut csv = String::from(
        "problem,player,seed,score,verdict,moves,think_ms,cpu_ms,wall_ms,max_memory_kb,warning,player_hash,harness_version,N,M,reason\n",
    );
    let tests = [
        (
            "tle",
            "tttt",
            [
                (3651.0, "OK"),
                (4666811.0, "OK"),
                (0.0, "TLE"),
                (0.0, "TLE"),
            ],
        ),
        (
            "steady",
            "ssss",
            [(28400.0, "OK"), (37e6, "OK"), (4e7, "OK"), (4e7, "OK")],
        ),
    ];
    for (player, hash, scores) in tests {
        for (seed, (score, verdict)) in scores.iter().enumerate() {
            csv.push_str(&format!(
                "tools-interactive,{player},{},{score},{verdict},1,5,5,6,1000,,{hash},0.1.0,3,4,\n",
                seed + 1
            ));
        }
    }
    std::fs::write(dir.join("scores.csv"), csv).unwrap();
    let line = |rank_by: &str| {
        std::fs::write(
            dir.join("run.toml"),
            format!("[problem.tools-interactive]\nrank-by = \"{rank_by}\"\n"),
        )
        .unwrap();
        let (code, out, err) = run(harness(results.path(), &["runs"]));
        assert_eq!(code, 0, "{err}");
        out.lines()
            .find(|l| l.contains("tools-interactive"))
            .unwrap_or_else(|| panic!("no line:\n{out}"))
            .to_string()
    };
    // By the mean: tle's is over its OK tests, its two failures beside it, so the steady
    // player ranks first.
    let raw = line("raw");
    assert!(
        raw.ends_with("raw: steady 29257100.00 (ssss), tle 2335231.00, 2 left out (tttt)"),
        "{raw}"
    );
    // By the log average: the same order, tle's value its OK tests' log10 mean.
    let log = line("log");
    let tle_log = (3651f64.log10() + 4666811f64.log10()) / 2.0;
    assert!(log.contains("log: steady "), "{log}");
    assert!(
        log.ends_with(&format!("tle {tle_log:.4}, 2 left out (tttt)")),
        "{log}"
    );
    // By the rank score, with no leaderboard.csv to hold it: the mean, said so.
    assert!(
        line("rank").contains("raw: steady "),
        "no rank scores to rank by"
    );
    // With leaderboard.csv's rank scores: by them.
    std::fs::write(
        dir.join("leaderboard.csv"),
        "problem,player,relative,rank\ntools-interactive,tle,,62.5\ntools-interactive,steady,,50\n",
    )
    .unwrap();
    let rank = line("rank");
    assert!(
        rank.ends_with("rank: tle 62.5000 (tttt), steady 50.0000 (ssss)"),
        "{rank}"
    );
}

#[test]
fn a_player_name_picks_its_run_with_the_most_tests_in_common_and_says_why() {
    let results = two_runs();
    // The newest run of alpha is a 1-seed smoke test.
    write_run(
        results.path(),
        "20260103-000000",
        &[("alpha", "dddd", 3, 0.7, "OK")],
    );
    let (code, out, err) = run(harness(results.path(), &["compare", "alpha"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "alpha: run 20260102-000000, the newest of its 3 run(s) with the most tests (16 tests"
        ),
        "{out}"
    );
    // Against the old run: the new run shares 8 tests with it, the smoke test 1.
    let (code, out, err) = run(harness(
        results.path(),
        &["compare", "20260101-000000", "alpha"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("alpha: run 20260102-000000") && out.contains("(8 tests in common"),
        "{out}"
    );
    assert!(!out.contains("20260103-000000"), "{out}");
}

#[test]
fn a_player_name_only_in_a_named_run_is_compared_there() {
    let results = two_runs();
    // beta is only in the old run, which is named too.
    let (code, out, err) = run(harness(
        results.path(),
        &["compare", "20260101-000000", "beta"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("beta"), "{out}");
}

#[test]
fn compare_lists_the_largest_losses_and_wins_with_replay_commands_and_per_test_rows() {
    let results = two_runs();
    let (code, out, err) = run(harness(
        results.path(),
        &["compare", "alpha@20260101-000000", "alpha@20260102-000000"],
    ));
    assert_eq!(code, 0, "{err}");
    // The new alpha is ranked first; it lost on seeds 8 and 12 (the larger loss first: the
    // same raw difference is more of best on seed 8) and won on the other 6.
    let losses = out
        .split("largest losses of alpha@20260102-000000 against alpha@20260101-000000")
        .nth(1)
        .expect("a list of losses");
    let lines: Vec<&str> = losses.lines().skip(1).take(3).collect();
    assert!(lines[0].starts_with("  seed 8 "), "{out}");
    // The run is found where this comparison found it (--results).
    let command = format!(
        "replay 20260102-000000 --player alpha --seed 8 --results {}",
        results.path().display()
    );
    assert!(lines[0].ends_with(&command), "{out}");
    // The program as the user can start it (`harness` is not on PATH in the tests).
    let shown = lines[0].rsplit("   ").next().unwrap();
    let program = shown.strip_suffix(&command).unwrap().trim_end();
    assert_eq!(
        std::fs::canonicalize(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join(program)
        )
        .unwrap(),
        std::fs::canonicalize(env!("CARGO_BIN_EXE_harness")).unwrap(),
        "{shown}"
    );
    assert!(lines[1].starts_with("  seed 12 "), "{out}");
    assert!(lines[2].contains("largest wins"), "{out}");
    let wins = out.split("largest wins").nth(1).expect("wins");
    assert_eq!(wins.lines().filter(|l| l.starts_with("  seed ")).count(), 5);
    // compare.csv: one row per entry and common test, with its raw and relative score.
    let csv = std::fs::read_to_string(results.path().join("compare.csv")).unwrap();
    let tests: Vec<&str> = csv
        .lines()
        .filter(|l| l.split(',').nth(1) == Some("test"))
        .collect();
    assert_eq!(tests.len(), 16, "{csv}");
    let seed8_old = tests
        .iter()
        .find(|l| l.contains(",8,alpha@20260101-000000,20260101-000000,"))
        .expect("old alpha on seed 8");
    assert!(seed8_old.contains(",1,0.58,1000000,"), "{seed8_old}");
    // compare.html: no transcripts here, so each game shows its replay command.
    let html = std::fs::read_to_string(results.path().join("compare.html")).unwrap();
    assert!(html.contains(&format!("<code>{shown}</code>")), "{html}");
    let (code, out, _) = run(harness(
        results.path(),
        &[
            "compare",
            "alpha@20260101-000000",
            "alpha@20260102-000000",
            "--largest",
            "0",
        ],
    ));
    assert_eq!(code, 0);
    assert!(!out.contains("largest"), "{out}");
}

#[test]
fn compare_html_gives_no_replay_command_for_a_problem_without_replays() {
    let results = tempfile::tempdir().unwrap();
    for (id, hash, scores) in [
        ("20260101-000000", "aaaa", [1, 1, 0, 1]),
        ("20260102-000000", "bbbb", [0, 1, 1, 1]),
    ] {
        let dir = results.path().join(id);
        std::fs::create_dir_all(&dir).unwrap();
        let mut csv = String::from(
            "problem,player,seed,score,verdict,moves,think_ms,cpu_ms,wall_ms,max_memory_kb,warning,player_hash,harness_version,reason\n",
        );
        for (seed, score) in (1..).zip(scores) {
            let verdict = if score == 1 { "OK" } else { "WA" };
            csv.push_str(&format!(
                "game-ending,g,{seed},{score},{verdict},1,5,5,6,1000,,{hash},0.1.0,\n"
            ));
        }
        std::fs::write(dir.join("scores.csv"), csv).unwrap();
        std::fs::write(dir.join("run.toml"), "command = \"harness\"\n").unwrap();
    }
    let (code, out, err) = run(harness(
        results.path(),
        &["compare", "g@20260101-000000", "g@20260102-000000"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("largest losses"), "{out}");
    let html = std::fs::read_to_string(results.path().join("compare.html")).unwrap();
    assert!(
        html.contains("transcript <code>20260102-000000/transcripts/game-ending/g/1.txt</code>"),
        "{html}"
    );
    assert!(
        !html.contains(" replay "),
        "a replay command for game-ending: {html}"
    );
}

#[test]
fn a_runs_tag_is_shown_by_runs_and_compare() {
    let results = two_runs();
    let new = results.path().join("20260102-000000");
    std::fs::write(new.join("run.toml"), "tag = \"wider beam\"\n").unwrap();
    let (code, out, err) = run(harness(results.path(), &["runs"]));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("20260102-000000"))
        .expect("the run's line");
    assert_eq!(lines[at + 1].trim(), "tag \"wider beam\"", "{out}");
    assert_eq!(out.matches("tag ").count(), 1, "{out}");
    let (code, out, err) = run(harness(
        results.path(),
        &["compare", "alpha@20260101-000000", "alpha@20260102-000000"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  run 20260102-000000: \"wider beam\"\n"),
        "{out}"
    );
    assert!(!out.contains("run 20260101-000000: "), "{out}");
}
