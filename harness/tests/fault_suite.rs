//! Every fault player of `tests/fixtures/` in one parallel run next to a good player: each gets
//! its verdict, no test outlives its limit, the good player's scores are the same as in a run
//! without them, and no process of the run is left afterwards.
//!
//! The time limit is 5 s, so that on a loaded machine the players that must finish in time
//! (100 MB of stderr, a crash, a 100 MB line) still do, and the good player never runs short.

#[path = "support/containment.rs"]
mod containment;
mod support;

use containment::{expect_verdict, Limits, Mode, Plan, Scratch};

#[test]
fn fault_players_get_their_verdicts_and_leave_nothing_behind() {
    let s = Scratch::new("fault-suite");
    // Copies in the test's own folder, so that leftover processes can be told apart by it.
    let mut players = Vec::new();
    for entry in std::fs::read_dir(support::root().join("harness/tests/fixtures")).unwrap() {
        let src = entry.unwrap().path();
        let fault = src
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("faulty-");
        if !src.is_dir() || !fault {
            continue;
        }
        let dst = s.players_dir().join(src.file_name().unwrap());
        std::fs::create_dir(&dst).unwrap();
        containment::open_to_all(&dst);
        for file in std::fs::read_dir(&src).unwrap() {
            let file = file.unwrap().path();
            std::fs::copy(&file, dst.join(file.file_name().unwrap())).unwrap();
        }
        players.push(dst);
    }
    assert_eq!(players.len(), 12, "every fault player is there");
    players.push(s.good());
    let plan = Plan {
        scratch: &s,
        mode: Mode::Default,
        limits: Limits {
            time: 5.0,
            grace: 0.5,
            memory: 256,
        },
        seeds: &[1, 2],
        threads: 2,
        players,
        extra: Vec::new(),
    };
    // Exit status 0, every test within limit + grace + 1 s, the good player's scores as in
    // a run alone, no process left, the player folders untouched.
    let (_, rows) = plan.run_and_check();

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
        let mine = expect_verdict(&rows, player, &[verdict]);
        assert_eq!(mine.len(), 2, "{player} played both seeds");
        for row in mine {
            assert!(row["reason"].contains(reason), "{player}: {row:?}");
            assert_eq!(row["score"], "0", "{player}: {row:?}");
        }
    }
    // Time limits end tests at the limit, not before it (load only makes thinking longer).
    for row in rows.iter().filter(|r| r["verdict"] == "TLE") {
        let think: u64 = row["think_ms"].parse().unwrap();
        assert!(think >= 5000, "TLE after {think} ms of thinking: {row:?}");
    }
    // The spinning player did spin: it got CPU time (a sleeping one gets ~1 ms; with six
    // busy loops on two cores a spinner still got ~250 ms of its 5 s).
    for row in support::rows_of(&rows, "faulty-spin") {
        let cpu: u64 = row["cpu_ms"].parse().unwrap();
        assert!(cpu >= 20, "faulty-spin used {cpu} ms of CPU: {row:?}");
    }
    // Only the tail of the flood is kept.
    let log = s
        .results()
        .join("latest/logs/chesspuzzle/faulty-stderr-flood/1.stderr");
    let kept = std::fs::metadata(&log).unwrap().len();
    assert!(kept < 2 << 20, "stderr log is capped, got {kept} bytes");
}
