//! Every fault player of `tests/fixtures/` in one parallel run next to a good player: each gets
//! its verdict, no test outlives its limit, the good player's scores are the same as in a run
//! without them, and no process of the run is left afterwards.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const TIME_LIMIT: f64 = 2.0;
const GRACE: f64 = 0.5;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs the harness on chesspuzzle seeds 1..2 with these players; returns scores.csv rows
/// as maps from column to value.
fn run(players: &[PathBuf], results: &Path) -> Vec<BTreeMap<String, String>> {
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(root())
        .args([
            "--problem",
            "chesspuzzle",
            "--seeds",
            "1..2",
            "--threads",
            "2",
        ])
        .args([
            "--time-limit",
            &TIME_LIMIT.to_string(),
            "--memory-limit",
            "256",
        ])
        .arg("--results")
        .arg(results)
        .arg("--players")
        .args(players)
        .stdin(Stdio::null())
        .output()
        .expect("harness runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::Reader::from_path(results.join("latest/scores.csv")).expect("csv");
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .zip(r.unwrap().iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Processes whose environment names a folder below `dir` as their player folder.
fn processes_from(dir: &Path) -> Vec<String> {
    let needle = format!("HARNESS_PLAYER_DIR={}", dir.display());
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|var| String::from_utf8_lossy(var).starts_with(&needle))
        {
            found.push(name);
        }
    }
    found
}

#[test]
fn fault_players_get_their_verdicts_and_leave_nothing_behind() {
    // A private copy, so that leftover processes can be told apart by their folder.
    let fixtures = tempfile::tempdir().unwrap();
    let mut players = Vec::new();
    for entry in std::fs::read_dir(root().join("harness/tests/fixtures")).unwrap() {
        let src = entry.unwrap().path();
        let fault = src
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("faulty-");
        if !src.is_dir() || !fault {
            continue;
        }
        let dst = fixtures.path().join(src.file_name().unwrap());
        std::fs::create_dir(&dst).unwrap();
        for file in std::fs::read_dir(&src).unwrap() {
            let file = file.unwrap().path();
            std::fs::copy(&file, dst.join(file.file_name().unwrap())).unwrap();
        }
        players.push(dst);
    }
    assert_eq!(players.len(), 12, "every fault player is there");
    let good = root().join("players/chesspuzzle-greedy");

    let alone = tempfile::tempdir().unwrap();
    let baseline = run(std::slice::from_ref(&good), alone.path());
    let with_faults = tempfile::tempdir().unwrap();
    let mut all = players.clone();
    all.push(good);
    let rows = run(&all, with_faults.path());

    let expected = [
        ("faulty-crash-at-start", "RE", "SIGSEGV"),
        ("faulty-crash-mid-game", "RE", "SIGSEGV"),
        ("faulty-exit-mid-game", "WA", "exit status 0"),
        ("faulty-hang", "TLE", "thinking time"),
        ("faulty-spin", "TLE", "thinking time"),
        ("faulty-sleep-past-limit", "TLE", "thinking time"),
        ("faulty-huge-line", "PE", "longer than"),
        ("faulty-stderr-flood", "RE", "exit status 3"),
        ("faulty-close-stdout", "WA", "closed its output"),
        ("faulty-no-newline", "PE", "no newline"),
        ("faulty-grandchild", "WA", "closed its output"),
        ("faulty-memory-hog", "MLE", "memory limit 256 MB"),
    ];
    for (player, verdict, reason) in expected {
        let mine: Vec<_> = rows.iter().filter(|r| r["player"] == player).collect();
        assert_eq!(mine.len(), 2, "{player} played both seeds");
        for row in mine {
            assert_eq!(row["verdict"], verdict, "{player}: {row:?}");
            assert!(row["reason"].contains(reason), "{player}: {row:?}");
            assert_eq!(row["score"], "0", "{player}: {row:?}");
            let wall: f64 = row["wall_ms"].parse().unwrap();
            assert!(
                wall <= (TIME_LIMIT + GRACE + 1.0) * 1000.0,
                "{player} took {wall} ms"
            );
        }
    }
    // Only the tail of the flood is kept.
    let log = with_faults
        .path()
        .join("latest/logs/chesspuzzle/faulty-stderr-flood/1.stderr");
    let kept = std::fs::metadata(&log).unwrap().len();
    assert!(kept < 2 << 20, "stderr log is capped, got {kept} bytes");

    let good_rows = |rows: &[BTreeMap<String, String>]| -> Vec<(String, String, String, String)> {
        rows.iter()
            .filter(|r| r["player"] == "chesspuzzle-greedy")
            .map(|r| {
                (
                    r["seed"].clone(),
                    r["score"].clone(),
                    r["verdict"].clone(),
                    r["moves"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(good_rows(&baseline).len(), 2);
    assert_eq!(good_rows(&baseline), good_rows(&rows));

    let left = processes_from(fixtures.path());
    assert!(left.is_empty(), "processes left behind: {left:?}");
}
