//! A batch judge made ready ahead (issue 40): a run's worker launches the judge of its next
//! test while the judge of this one runs, so that a quick player's answer does not wait for
//! its judge's sandbox; each test's judge is still a fresh sandbox, its own folder, and
//! judges that test's answer only.
//!
//! The player answers the time its own process began (clock ticks since boot); the judge
//! (`vis`) scores how long before that its own process began (when its sandbox was set up),
//! and what it judged, after a second's sleep. A judge made ready ahead began during the
//! worker's last test, while that test's judge slept; one launched in its own test began
//! after its player.

mod support;

use support::expect_exit;
use support::tools::{by_seed, ToolsWorkspace, SEEDS_GEN};

/// Reads N, answers N and the clock tick its process began at.
const PLAYER: &str = "read n\necho \"$n $(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)\"\n";

/// vis <input> <output> [seed]: `Score = 1000000 + (player's start - the judge's start)` in
/// clock ticks, when the answer is the input's number (and the input that of the seed, when
/// given one), 0 else; after a second's sleep. The judge's process began when its sandbox was
/// set up: it is forked then and held before its exec until the answer is there.
const VIS: &str = r#"#!/bin/sh
read -r n < "$1"
read -r said began < "$2"
seed=$3
set -- $(sed 's/.*) //' /proc/$$/stat)
echo "judged $said of input $n (seed ${seed:-none}); its process began at ${20}" >&2
sleep 1
[ "$said" = "$n" ] || { echo "Score = 0"; exit 0; }
[ -z "$seed" ] || [ "$n" = "$((seed % 1000 + 1))" ] || { echo "Score = 0"; exit 0; }
echo "Score = $((1000000 + began - ${20}))"
"#;

/// A run of problem `id` whose judge is `judge` (TOML), seeds 1 to 4 on one worker, with
/// `--sandbox` `sandbox`: the ticks by which each test's judge began before its player,
/// sorted. Each judge judged its own test's answer (else its score is 0).
fn leads(id: &str, judge: &str, sandbox: &str) -> Vec<i64> {
    let ws = ToolsWorkspace::new();
    let player = format!("{id}-starts");
    ws.script(id, "gen", SEEDS_GEN)
        .script(id, "vis", VIS)
        .problem_toml(
            id,
            &format!(
                "shape = \"batch\"\nobjective = \"max\"\ntools = \"tools\"\n\
                 inputs = {{ gen = [\"./gen\", \"{{seeds}}\"], dir = \"in\" }}\n\
                 judge = {judge}\njudge-timeout = 60\n"
            ),
        )
        .player(&player, id, PLAYER);
    let results = ws.root().join("results").join(id);
    let out = ws
        .command(&[&player], "1..4", &results)
        .args(["--sandbox", sandbox, "--threads", "1"])
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let rows = by_seed(&results, Some(&player), |r| {
        (r["verdict"].clone(), r["score"].clone())
    });
    assert_eq!(rows.len(), 4, "{rows:?}");
    let mut leads: Vec<i64> = rows
        .iter()
        .map(|(seed, (verdict, score))| {
            assert_eq!(verdict, "OK", "seed {seed}: {rows:?}");
            let score: f64 = score.parse().unwrap();
            assert!(
                score > 0.0,
                "seed {seed}'s judge judged another test: {rows:?}"
            );
            score as i64 - 1_000_000
        })
        .collect();
    leads.sort();
    leads
}

#[test]
fn a_runs_judges_after_its_first_are_made_ready_while_the_last_judge_runs() {
    // In the sandbox and in process mode (the same held judge, its sandbox of the mode's).
    for (id, sandbox) in [("ahead", "require"), ("ahead-process", "off")] {
        let leads = leads(id, r#"["./vis", "{input}", "{output}"]"#, sandbox);
        // The worker's first test launched its judge itself, after its player: its process
        // began a few ticks after the player's (on a busy machine), never a second before.
        assert!(
            leads[0] < 30,
            "{sandbox}: ticks by which each judge's process led its player: {leads:?}"
        );
        // Every later one was launched while the last test's judge slept its second.
        assert!(
            leads[1..].iter().all(|&l| l >= 50),
            "{sandbox}: ticks by which each judge's process led its player: {leads:?}"
        );
    }
}

#[test]
fn a_judge_given_its_tests_seed_is_launched_by_its_own_test() {
    // Its command differs from test to test: none is launched before its test is known.
    let leads = leads(
        "by-seed",
        r#"["./vis", "{input}", "{output}", "{seed}"]"#,
        "require",
    );
    assert!(
        leads.iter().all(|&l| l < 30),
        "ticks by which each judge's process led its player: {leads:?}"
    );
}
