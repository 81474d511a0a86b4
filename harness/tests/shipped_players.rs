//! docs/players.md's claim about the shipped exact-answer players, checked by running them: every
//! `-correct` player passes every fixed and generated test, and every `-flawed` player fails
//! some. The players are read from the table in docs/players.md (`all pass / ...`), so the claim and the
//! test cannot drift apart; the fixed tests are counted from `testcases/<problem>/*.in`.

mod support;

use std::collections::BTreeMap;

use support::{expect_exit, harness, root, rows_of, scores};

/// Seeds of the generated tests, besides every fixed test.
const SEEDS: &str = "1..100";
const SEED_COUNT: usize = 100;

/// (problem, correct player, flawed player) for each docs/players.md table row that says `all pass`.
fn claimed_pairs() -> Vec<(String, String, String)> {
    let readme = std::fs::read_to_string(root().join("docs/players.md")).unwrap();
    let mut pairs = Vec::new();
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | `x-correct` / `-flawed` | problem | language | all pass / ... |
        if cells.len() < 5 || !cells[4].starts_with("all pass /") {
            continue;
        }
        let names: Vec<&str> = cells[1].split('`').collect();
        let correct = names[1];
        assert_eq!(names[3], "-flawed", "docs/players.md row: {line}");
        let stem = correct.strip_suffix("-correct").expect("a -correct player");
        pairs.push((
            cells[2].to_string(),
            correct.to_string(),
            format!("{stem}-flawed"),
        ));
    }
    pairs
}

fn fixed_count(problem: &str) -> usize {
    std::fs::read_dir(root().join("testcases").join(problem))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "in"))
        .count()
}

fn verdicts(rows: &[&BTreeMap<String, String>]) -> BTreeMap<String, usize> {
    let mut count = BTreeMap::new();
    for row in rows {
        *count.entry(row["verdict"].clone()).or_default() += 1;
    }
    count
}

#[test]
fn correct_players_pass_everything_and_flawed_players_fail_some() {
    let pairs = claimed_pairs();
    let problems: Vec<&str> = pairs.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        problems,
        ["game-ending", "russian-checkers", "simplified-chess"],
        "docs/players.md's table lists a correct and a flawed player for each exact-answer problem"
    );
    // Evidence only if independent: no shipped exact-answer player may use the harness's code.
    for name in pairs.iter().flat_map(|(_, c, f)| [c, f]) {
        let manifest = root().join("players").join(name).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        let deps = text.split("[dependencies]").nth(1).unwrap_or("");
        assert!(
            !deps.lines().any(|l| l.trim_start().starts_with("harness")),
            "{} depends on the harness",
            manifest.display()
        );
    }
    let results = tempfile::tempdir().unwrap();
    let out = harness()
        .args(["--seeds", SEEDS, "--results"])
        .arg(results.path())
        .arg("--players")
        .args(
            pairs
                .iter()
                .flat_map(|(_, c, f)| [c, f])
                .map(|name| root().join("players").join(name)),
        )
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let rows = scores(results.path());
    for (problem, correct, flawed) in &pairs {
        let expected = fixed_count(problem) + SEED_COUNT;
        assert!(fixed_count(problem) > 0, "{problem} has fixed tests");
        let passed = rows_of(&rows, correct);
        assert_eq!(
            verdicts(&passed),
            BTreeMap::from([("OK".to_string(), expected)]),
            "{correct}: {:?}",
            passed.iter().find(|r| r["verdict"] != "OK")
        );
        let failed = rows_of(&rows, flawed);
        assert_eq!(failed.len(), expected, "{flawed} ran every test");
        let wrong = failed.iter().filter(|r| r["verdict"] == "WA").count();
        assert!(
            wrong > 0,
            "{flawed} fails some test: {:?}",
            verdicts(&failed)
        );
    }
}
