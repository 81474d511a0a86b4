//! The part of the sandbox's view that is the same for every test of a player (the root,
//! the system folders, /etc, /dev, the player's own files) is built once and kept from test
//! to test; each test still gets its own box, /proc and namespaces. These tests run the
//! `shared-view` fixture (`tests/fixtures/hostile/shared-view.c`) on three seeds, one test at
//! a time, beside the good player, and read what it saw and tried: the three tests were shown
//! one and the same read-only root (the kept view was used: its folder's change time, the
//! moment its file system was made, is the same in all three), each its own box, and none
//! could change what the next one sees. The `box-moves` fixture turns its box's folders
//! against the end of its test (which moves its /tmp, /var/tmp and /dev/shm into its box and
//! detaches the box once). What a test leaves in its writable places and keyrings is
//! `memory_isolation.rs`'s and `host_reach.rs`'s (they run on the kept view too).

#[path = "support/containment.rs"]
mod containment;
mod support;

use containment::{expect_blocked, expect_verdict, free_uid, reached, Mode, Plan, Scratch};

const SEEDS: [u64; 3] = [1, 2, 3];

/// The attempts the fixture makes, each of which must be refused.
const ATTEMPTS: [&str; 5] = [
    "write a file in the shared root",
    "remount the shared root read-write",
    "unmount the test's /proc",
    "make a user namespace",
    "write beside its own program",
];

/// The value of the fixture's `<head> <point> <value...>` line of a log.
fn line_of<'a>(log: &'a str, head: &str, point: &str) -> &'a str {
    let prefix = format!("{head} {point} ");
    log.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line (the fixture did not run):\n{log}"))
}

/// The fixture's `HELD <MB>` line, written after its game.
fn held_of(log: &str) -> &str {
    log.lines()
        .find_map(|l| l.strip_prefix("HELD "))
        .unwrap_or_else(|| panic!("no HELD line (the fixture did not reach its end):\n{log}"))
}

/// The fixture and the good player on [`SEEDS`] at one thread in `mode`, by `uid` when
/// given; the fixture's logs and peak memory (KiB, scores.csv's) in seed order, once the
/// run's own checks have passed.
fn three_tests(mode: Mode, uid: Option<u32>) -> Vec<(String, u64)> {
    let s = Scratch::new("kept-view");
    let players = vec![s.hostile("shared-view", "shared-view", &[]), s.good()];
    let mut plan = Plan::new(&s, mode, &SEEDS, players);
    plan.threads = 1;
    let rows = match uid {
        None => plan.run_and_check().1,
        Some(uid) => plan.run_as_and_check(uid).1,
    };
    let mine = expect_verdict(&rows, "shared-view", &["OK"]);
    SEEDS
        .iter()
        .map(|&seed| {
            let row = mine
                .iter()
                .find(|r| r["seed"] == seed.to_string())
                .unwrap_or_else(|| panic!("no row of seed {seed}"));
            let kb = row["max_memory_kb"].parse().expect("max_memory_kb");
            (s.log("shared-view", seed), kb)
        })
        .collect()
}

fn kept_but_private(mode: Mode, uid: Option<u32>) {
    let tests = three_tests(mode, uid);
    let logs: Vec<&str> = tests.iter().map(|(log, _)| log.as_str()).collect();
    for &log in &logs {
        // Each attempt ran (its line) and none got through.
        assert!(reached(log).is_empty(), "{log}");
        for what in ATTEMPTS {
            expect_blocked(log, what);
        }
        let root = line_of(log, "MOUNT", "/");
        assert!(root.contains(" ro,"), "/ is not read-only: {root}\n{log}");
        // Each test's player is the first process of its test (a player seeding its random
        // numbers with its pid plays every test as in a test of its own).
        assert_eq!(line_of(log, "SEEN", "pid").trim(), "2", "{log}");
    }
    let made =
        |point: &str| -> Vec<&str> { logs.iter().map(|log| line_of(log, "MADE", point)).collect() };
    let roots = made("/");
    assert!(
        roots.iter().all(|t| *t == roots[0]),
        "the tests were not shown one kept root (made at {roots:?})"
    );
    // One init ran the three (the player's kept init, whose /proc is mounted once), each
    // test's player still PID 2.
    let procs = made("/proc");
    assert!(
        procs.iter().all(|t| *t == procs[0]),
        "the tests did not run in one kept init (/proc mounted at {procs:?})"
    );
    // Each test's peak memory is its own: the fixture held 96 MB on seed 1's board only.
    let held: Vec<&str> = logs.iter().map(|log| held_of(log)).collect();
    assert_eq!(held, ["96", "0", "0"], "the boards changed: {held:?}");
    for ((_, kb), held) in tests.iter().zip(&held) {
        match *held {
            "96" => assert!(*kb >= 96 << 10, "peak {kb} KiB for 96 MB held"),
            _ => assert!(
                *kb < 48 << 10,
                "peak {kb} KiB of a test that held little: {:?}",
                tests.iter().map(|t| t.1).collect::<Vec<_>>()
            ),
        }
    }
    let boxes = made("/box");
    for (i, made) in boxes.iter().enumerate() {
        assert!(
            !boxes[..i].contains(made),
            "a test's box is an earlier test's (made at {boxes:?})"
        );
    }
}

#[test]
fn the_tests_of_a_player_share_one_read_only_view_and_nothing_else() {
    kept_but_private(Mode::Default, None);
}

#[test]
fn without_cgroups_the_tests_of_a_player_share_one_read_only_view_and_nothing_else() {
    kept_but_private(Mode::NoCgroup, None);
}

#[test]
fn the_tests_of_a_player_share_one_read_only_view_and_nothing_else_unprivileged() {
    if !support::needs_root("starts the harness as another user (setpriv)") {
        return;
    }
    kept_but_private(Mode::Default, Some(free_uid(63_000)));
}

/// What `box-moves` (`tests/fixtures/hostile/box-moves.c`) does to its box before its test
/// ends, each step's `MOVED` line: proof that it ran its attack.
const BOX_MOVES: [&str; 6] = [
    "/box/tmp",
    "/box/vartmp",
    "/box/shm",
    "/box/tmp -> /etc",
    "/box/vartmp -> /",
    "/box/shm -> its working folder",
];

/// A test of a kept init ends by moving the mounts of its /tmp, /var/tmp and /dev/shm onto
/// their folders in its box and detaching the box once. A player that renames those folders
/// (the moves then follow them), removes one (its mount is then detached on its own) and
/// leaves links to /etc, / and its working folder in their place: the next test of the same
/// init finds none of its notes anywhere, and a box of folders of its own.
fn box_moves(mode: Mode, uid: Option<u32>) {
    let s = Scratch::new("box-moves");
    let players = vec![s.hostile("box-moves", "box-moves", &[]), s.good()];
    let mut plan = Plan::new(&s, mode, &SEEDS, players);
    plan.threads = 1;
    let rows = match uid {
        None => plan.run_and_check().1,
        Some(uid) => plan.run_as_and_check(uid).1,
    };
    expect_verdict(&rows, "box-moves", &["OK"]);
    let logs: Vec<String> = SEEDS.iter().map(|&seed| s.log("box-moves", seed)).collect();
    for log in &logs {
        for place in ["/tmp", "/var/tmp", "/dev/shm"] {
            assert!(
                log.lines().any(|l| l == format!("LEFT {place}")),
                "no note left in {place} (the fixture did not run):\n{log}"
            );
        }
        for step in BOX_MOVES {
            assert!(
                log.lines().any(|l| l == format!("MOVED {step}")),
                "the fixture did not do `{step}`:\n{log}"
            );
        }
        assert!(reached(log).is_empty(), "{log}");
        for dir in ["/tmp", "/var/tmp", "/dev/shm", "/etc", "/", "."] {
            expect_blocked(log, &format!("note of an earlier test in {dir}:"));
        }
        for folder in ["tmp", "vartmp", "shm"] {
            expect_blocked(log, &format!("an earlier test's link at /box/{folder}:"));
        }
    }
    // One init ran the three: a folder removed by its test ended no init.
    let procs: Vec<&str> = logs
        .iter()
        .map(|log| line_of(log, "MADE", "/proc"))
        .collect();
    assert!(
        procs.iter().all(|t| *t == procs[0]),
        "the tests did not run in one kept init (/proc mounted at {procs:?})"
    );
}

#[test]
fn a_player_that_moves_its_box_folders_leaves_nothing_to_the_next_test() {
    box_moves(Mode::Default, None);
}

#[test]
fn without_cgroups_a_player_that_moves_its_box_folders_leaves_nothing_to_the_next_test() {
    box_moves(Mode::NoCgroup, None);
}

#[test]
fn a_player_that_moves_its_box_folders_leaves_nothing_to_the_next_test_unprivileged() {
    if !support::needs_root("starts the harness as another user (setpriv)") {
        return;
    }
    box_moves(Mode::Default, Some(free_uid(63_100)));
}
