//! Time is counted wherever the player spends it (issue 37), end to end through the harness
//! binary on a contest tool's problem of the test's own (a Python tester that asks QUERIES
//! numbers, needing some CPU time before each, and scores the right doublings):
//!
//! - `relay = "direct"`, whose limit holds the player's CPU time: a player that ignores
//!   `SIGCHLD` (its children reaped by the kernel, their time in no `RUSAGE_CHILDREN`) and
//!   has them spin past the limit is TLE with its children's CPU time (`hostile/
//!   reaped-children.c`), in the namespace mode and in process mode.
//! - The proxy, whose thinking clock stops once the player's line is out: a player whose
//!   threads spin on the CPU it shares with the tester, starving it, is TLE for its CPU
//!   time however short its thinking time (`hostile/starve-tester.c`).

mod support;

use support::tools::{ToolsWorkspace, SEEDS_GEN};
use support::{expect_exit, rows_of, scores, stderr_log};

/// The tester: reads N, starts the player, asks N, N+1, ... (QUERIES of them, its first
/// argument), each after WORK_MS of its own CPU time (its second) and a pause of PAUSE_MS
/// (its third: waiting on something slow), and prints `Score = <right answers>`.
const TESTER: &str = r#"#!/usr/bin/env python3
import subprocess, sys, time
queries, work, pause = int(sys.argv[1]), int(sys.argv[2]) / 1000, int(sys.argv[3]) / 1000
n = int(sys.stdin.readline())
p = subprocess.Popen(sys.argv[4:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
right = 0
for i in range(queries):
    until = time.process_time() + work
    while time.process_time() < until:
        pass
    time.sleep(pause)
    p.stdin.write(f"{n + i}\n")
    p.stdin.flush()
    line = p.stdout.readline().strip()
    print(line)
    if line == str(2 * (n + i)):
        right += 1
p.stdin.close()
p.wait()
print(f"Score = {right}", file=sys.stderr)
"#;

/// A workspace with the problem `queries` (`relay` and the time limit (s) as given, the
/// tester asking `queries` numbers after `work_ms` of CPU time and `pause_ms` each) and the C
/// fixture `fixture` as the player `fixture`, run with `args`.
fn workspace(
    relay: &str,
    limit: u32,
    (queries, work_ms, pause_ms): (u32, u32, u32),
    fixture: &str,
    args: &[&str],
) -> ToolsWorkspace {
    let exe = support::compile_c(fixture);
    let ws = ToolsWorkspace::new();
    ws.problem_toml(
        "queries",
        &format!(
            r#"title = "Queries (CPU time tests)"
shape = "interactive"
objective = "max"
tools = "tools"
inputs = {{ gen = ["gen.sh", "{{seeds}}"], dir = "in" }}
judge = ["tester.py", "{queries}", "{work_ms}", "{pause_ms}", "{{player...}}"]
judge-timeout = 30
relay = "{relay}"

[limits]
time-limit = {limit}
"#
        ),
    )
    .script("queries", "tester.py", TESTER)
    .script("queries", "gen.sh", SEEDS_GEN);
    let player = ws.root().join("players").join(fixture);
    let player = player.display().to_string();
    let args: Vec<&str> = [player.as_str()]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    ws.exe_player(fixture, "queries", &exe, &args);
    ws
}

/// Runs the fixture's player on seed 1 (`extra` flags after); its one row and its stderr.
fn run_one(
    ws: &ToolsWorkspace,
    fixture: &str,
    extra: &[&str],
) -> (std::collections::BTreeMap<String, String>, String) {
    let results = ws.root().join("results");
    let out = ws
        .command(&[fixture], "1", &results)
        .args(extra)
        .output()
        .expect("harness runs");
    expect_exit(&out, 0);
    let rows = scores(&results);
    let row = rows_of(&rows, fixture)[0].clone();
    (row, stderr_log(&results, "queries", fixture, "1"))
}

/// The direct player's children: 3 x 700 ms of CPU time under a 1 s limit, all of it
/// hidden from `wait`.
fn children_reaped_by_the_kernel_count(extra: &[&str]) {
    let ws = workspace("direct", 1, (1, 10, 0), "reaped-children", &["3", "700"]);
    let (row, log) = run_one(&ws, "reaped-children", extra);
    // The attack ran, and `wait` saw none of it: without the tree's own count, the player
    // would be OK with the CPU time of its own few instructions.
    let marker = log
        .lines()
        .find_map(|l| l.strip_prefix("RAN reaped-children: "))
        .unwrap_or_else(|| panic!("no marker: {row:?}\n{log}"));
    let hidden: u64 = marker
        .rsplit_once("RUSAGE_CHILDREN ")
        .and_then(|(_, ms)| ms.trim_end_matches(" ms").parse().ok())
        .unwrap_or_else(|| panic!("{marker}"));
    assert!(hidden < 500, "the kernel's reaping hid nothing: {marker}");
    assert_eq!(row["verdict"], "TLE", "{row:?}\n{log}");
    assert!(row["reason"].contains("CPU time"), "{row:?}");
    let cpu: u64 = row["cpu_ms"].parse().unwrap();
    eprintln!("{extra:?}: 3 x 700 ms reaped by the kernel, counted {cpu} ms");
    assert!(
        cpu > 1000,
        "the children's time counted: {cpu} ms ({row:?})"
    );
}

#[test]
fn a_direct_player_whose_children_the_kernel_reaps_is_held_to_their_cpu_time() {
    children_reaped_by_the_kernel_count(&[]);
}

#[test]
fn a_direct_player_whose_children_the_kernel_reaps_is_held_to_their_cpu_time_in_process_mode() {
    children_reaped_by_the_kernel_count(&["--sandbox", "off"]);
}

#[test]
fn a_proxied_player_that_starves_the_tester_is_tle_by_its_cpu_time() {
    // Measured on this loaded 2-core machine: beside 100 spinning threads, a query that
    // costs the tester 10 ms of CPU time took it 0.3-0.6 s, and the player's answer waited
    // 70-170 ms for its turn among its threads (thinking time): on a loaded machine, its
    // CPU time came to only 1.5-3x its thinking time, short of the limit plus the grace
    // period before the clock ran out. With 4 threads its answers come at once, and the
    // tester's pause (0.5 s a query, under the time limit: the clock runs in it, as for a
    // player still thinking) is the time it thinks on, as much of a CPU as it gets: past
    // 3 s of CPU time within 6-20 queries, killed a second of CPU time later.
    let ws = workspace("proxy", 2, (40, 10, 500), "starve-tester", &["4"]);
    let (row, log) = run_one(&ws, "starve-tester", &[]);
    assert!(
        log.contains("RAN starve-tester: 4 threads spinning"),
        "no marker: {row:?}\n{log}"
    );
    assert_eq!(row["verdict"], "TLE", "{row:?}\n{log}");
    assert!(row["reason"].contains("s of CPU time"), "{row:?}");
    let (cpu, think): (u64, u64) = (
        row["cpu_ms"].parse().unwrap(),
        row["think_ms"].parse().unwrap(),
    );
    eprintln!("the starving player: {cpu} ms of CPU time, {think} ms of thinking time");
    // Over the limit plus the grace period (2 s + 1 s), while its thinking looked short.
    assert!(cpu > 3000, "{row:?}");
    assert!(think < 2000, "it answered at once: {row:?}");
}
