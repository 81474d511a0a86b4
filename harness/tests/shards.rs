//! Sharded runs and their merge (`--shard I/N --run-id ID`, `harness merge`): the merged
//! run equals a single-machine run of the same plan except the measured columns, shards
//! touch no shared file, a shard resumes alone, and a merge refuses shards that are missing,
//! partial, duplicated, from another run or with rows missing or twice, naming them.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use support::{expect_exit, harness};

/// Players of three problems: two interactive ones and an exact-answer one (with fixed
/// tests, so the case list mixes fixed tests and seeds).
const PLAYERS: [&str; 3] = [
    "players/chesspuzzle-random",
    "players/linez-random",
    "players/game-ending-flawed",
];
const SEEDS: &str = "1..12";
const RUN: &str = "20260101-000000";
/// Columns measured on the machine (they differ between any two runs).
pub const MEASURED: [&str; 5] = ["think_ms", "cpu_ms", "wall_ms", "max_memory_kb", "warning"];

/// `scores.csv` rows without the measured columns, in file order.
pub fn unmeasured(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader =
        csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .zip(r.unwrap().iter())
                .filter(|(h, _)| !MEASURED.contains(h))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn run(args: &[&str]) -> std::process::Output {
    harness().args(args).output().unwrap()
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// One single-machine run and three shards of the same plan, made once for every test.
struct Fixture {
    _tmp: tempfile::TempDir,
    single: PathBuf,
    /// The results folder of the shards (`<it>/RUN/shards/I-of-3`).
    sharded: PathBuf,
}

impl Fixture {
    fn shard(&self, i: usize) -> PathBuf {
        self.sharded.join(RUN).join(format!("shards/{i}-of-3"))
    }
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let single = tmp.path().join("single");
        let sharded = tmp.path().join("sharded");
        let mut args = vec!["--players"];
        args.extend(PLAYERS);
        args.extend(["--seeds", SEEDS, "--threads", "2"]);
        let mut one = args.clone();
        one.extend(["--results", single.to_str().unwrap()]);
        expect_exit(&run(&one), 0);
        for i in 1..=3 {
            let shard = format!("{i}/3");
            let mut part = args.clone();
            part.extend(["--results", sharded.to_str().unwrap()]);
            part.extend(["--shard", &shard, "--run-id", RUN]);
            let out = run(&part);
            expect_exit(&out, 0);
        }
        Fixture {
            _tmp: tmp,
            single,
            sharded,
        }
    })
}

/// A copy of the three shard folders under a fresh results folder, to change and merge.
fn copy_shards(into: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(into).unwrap();
    (1..=3)
        .map(|i| {
            let to = into.join(format!("s{i}"));
            let status = std::process::Command::new("cp")
                .arg("-r")
                .arg(fixture().shard(i))
                .arg(&to)
                .status()
                .unwrap();
            assert!(status.success());
            to
        })
        .collect()
}

fn merge(dirs: &[PathBuf], results: &Path) -> std::process::Output {
    harness()
        .arg("merge")
        .args(dirs)
        .arg("--results")
        .arg(results)
        .output()
        .unwrap()
}

#[test]
fn shards_touch_no_shared_file_and_their_merge_equals_a_single_run() {
    let f = fixture();
    // Before the merge: nothing beside the run's folder, no report in any shard.
    let names: Vec<String> = std::fs::read_dir(&f.sharded)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(names, [RUN], "a shard wrote beside its folder");
    let mut total = 0;
    for i in 1..=3 {
        let dir = f.shard(i);
        assert!(
            !dir.join("report.html").exists(),
            "shard {i} wrote a report"
        );
        assert!(!dir.join("replays").exists(), "shard {i} wrote replays");
        let record = std::fs::read_to_string(dir.join("shard.toml")).unwrap();
        assert!(record.contains("finished = true"), "{record}");
        let rows = unmeasured(&dir.join("scores.csv"));
        assert!(!rows.is_empty(), "shard {i} ran nothing");
        total += rows.len();
    }
    let single_rows = unmeasured(&f.single.join("latest/scores.csv"));
    assert_eq!(total, single_rows.len(), "the shards' rows do not add up");

    let results = f.sharded.clone();
    let dirs: Vec<PathBuf> = (1..=3).map(|i| f.shard(i)).collect();
    let out = merge(&dirs, &results);
    expect_exit(&out, 0);
    let merged = results.join(RUN);
    assert_eq!(
        std::fs::read_link(results.join("latest")).unwrap(),
        Path::new(RUN)
    );
    assert_eq!(unmeasured(&merged.join("scores.csv")), single_rows);
    for file in ["leaderboard.csv", "run.toml", "report.html"] {
        assert!(merged.join(file).is_file(), "merged run has no {file}");
    }
    assert!(
        results.join("best.csv").is_file(),
        "the merge kept no best.csv"
    );
    // The worst game of each interactive player is replayed, as after a single run.
    let replays = std::fs::read_dir(merged.join("replays")).unwrap().count();
    assert_eq!(replays, 2, "replays of the merged run");
    // Every transcript of the single run has its twin in the merged run.
    for row in &single_rows {
        let rel = format!(
            "transcripts/{}/{}/{}.txt",
            row["problem"], row["player"], row["seed"]
        );
        assert!(merged.join(&rel).is_file(), "merged run lacks {rel}");
    }
    // The leaderboard is the single run's too (sums in another order may differ in the
    // last bits, as between two single runs with threads).
    let board = |dir: &Path| -> Vec<BTreeMap<String, String>> {
        unmeasured(&dir.join("leaderboard.csv"))
            .into_iter()
            .map(|mut r| {
                r.remove("think_ms");
                for c in ["sum", "mean", "relative"] {
                    let v: f64 = r[c].parse().unwrap();
                    r.insert(c.to_string(), format!("{v:.9e}"));
                }
                r
            })
            .collect()
    };
    let single_dir = std::fs::canonicalize(f.single.join("latest")).unwrap();
    assert_eq!(board(&merged), board(&single_dir));
    // Merging again is refused: the run exists.
    let again = merge(&dirs, &results);
    expect_exit(&again, 2);
    assert!(
        text(&again).contains("already holds a run"),
        "{}",
        text(&again)
    );
}

#[test]
fn a_merge_refuses_missing_partial_foreign_and_duplicated_shards_naming_them() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let check = |dirs: &[PathBuf], needles: &[&str]| {
        let out = merge(dirs, &results);
        expect_exit(&out, 2);
        let said = text(&out);
        for needle in needles {
            assert!(said.contains(needle), "{needle:?} not in:\n{said}");
        }
        assert!(!results.join(RUN).exists(), "a refused merge wrote the run");
    };
    let dirs = copy_shards(&tmp.path().join("a"));
    check(&dirs[..2], &["shard 3/3 missing"]);
    check(
        &[dirs[0].clone(), dirs[1].clone(), dirs[1].clone()],
        &["shard 2/3", "given twice"],
    );

    let edit = |path: &Path, from: &str, to: &str| {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains(from), "{}: no {from:?}", path.display());
        std::fs::write(path, text.replacen(from, to, 1)).unwrap();
    };
    let partial = copy_shards(&tmp.path().join("b"));
    edit(
        &partial[1].join("shard.toml"),
        "finished = true",
        "finished = false",
    );
    check(
        &partial,
        &[
            "shard 2/3",
            "is partial",
            "--resume 20260101-000000 --shard 2/3",
        ],
    );

    let foreign = copy_shards(&tmp.path().join("c"));
    edit(&foreign[2].join("shard.toml"), RUN, "20260101-000001");
    check(&foreign, &["shard 3/3", "run id"]);

    let rebuilt = copy_shards(&tmp.path().join("d"));
    let record = rebuilt[1].join("shard.toml");
    let hash = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("linez-random = "))
        .unwrap()
        .to_string();
    edit(&record, &hash, "\"0000000000000000\"");
    check(&rebuilt, &["shard 2/3", "linez players and hashes"]);

    // A row given twice, and a row missing: the pairs are named.
    let twice = copy_shards(&tmp.path().join("e"));
    let first_rows = std::fs::read_to_string(twice[0].join("scores.csv")).unwrap();
    let row = first_rows
        .lines()
        .find(|l| l.starts_with("linez,linez-random,"))
        .unwrap();
    let seed = row.split(',').nth(2).unwrap().to_string();
    let second = twice[1].join("scores.csv");
    let mut text2 = std::fs::read_to_string(&second).unwrap();
    text2.push_str(row);
    text2.push('\n');
    std::fs::write(&second, text2).unwrap();
    check(
        &twice,
        &[
            "more than one row",
            &format!("linez linez-random {seed} (shards 1 and 2)"),
        ],
    );

    let short = copy_shards(&tmp.path().join("f"));
    let path = short[0].join("scores.csv");
    let kept: Vec<&str> = first_rows.lines().filter(|l| *l != row).collect();
    std::fs::write(&path, kept.join("\n") + "\n").unwrap();
    check(
        &short,
        &["no row in any shard", &format!("linez linez-random {seed}")],
    );
}

#[test]
fn a_shard_resumes_alone_and_a_sharded_run_is_resumed_by_shard() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let shard = results.join(RUN).join("shards/2-of-3");
    std::fs::create_dir_all(shard.parent().unwrap()).unwrap();
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(fixture().shard(2))
        .arg(&shard)
        .status()
        .unwrap();
    assert!(status.success());
    // As if interrupted: three rows lost, not finished.
    let scores = shard.join("scores.csv");
    let all = std::fs::read_to_string(&scores).unwrap();
    let lines: Vec<&str> = all.lines().collect();
    std::fs::write(&scores, lines[..lines.len() - 3].join("\n") + "\n").unwrap();
    let record = shard.join("shard.toml");
    let text0 = std::fs::read_to_string(&record).unwrap();
    std::fs::write(
        &record,
        text0.replace("finished = true", "finished = false"),
    )
    .unwrap();

    let r = results.to_str().unwrap();
    let out = run(&["--resume", RUN, "--results", r]);
    expect_exit(&out, 2);
    assert!(
        text(&out).contains("--shard I/N"),
        "resuming a sharded run without --shard: {}",
        text(&out)
    );
    let out = run(&["--resume", RUN, "--shard", "2/3", "--results", r]);
    expect_exit(&out, 0);
    assert!(
        text(&out).contains(&format!(
            "{} of {} tests already done",
            lines.len() - 4,
            lines.len() - 1
        )),
        "{}",
        text(&out)
    );
    assert!(std::fs::read_to_string(&record)
        .unwrap()
        .contains("finished = true"));
    let mut resumed = unmeasured(&scores);
    let mut original = unmeasured(&fixture().shard(2).join("scores.csv"));
    let key = |r: &BTreeMap<String, String>| {
        (r["problem"].clone(), r["player"].clone(), r["seed"].clone())
    };
    resumed.sort_by_key(key);
    original.sort_by_key(key);
    assert_eq!(resumed, original);
    // Still a shard: nothing beside the run's folder.
    assert!(!results.join("latest").exists() && !results.join("best.csv").exists());
}

#[test]
fn a_shard_needs_a_run_id() {
    let out = run(&[
        "--players",
        "players/linez-random",
        "--seeds",
        "1..2",
        "--shard",
        "1/2",
    ]);
    expect_exit(&out, 2);
    assert!(
        text(&out).contains("--shard 1/2 needs --run-id"),
        "{}",
        text(&out)
    );
    let out = run(&[
        "--players",
        "players/linez-random",
        "--shard",
        "3/2",
        "--run-id",
        "x",
    ]);
    expect_exit(&out, 2);
    assert!(text(&out).contains("1 <= I <= N"), "{}", text(&out));
}

#[test]
fn a_run_with_secret_seeds_merges_only_with_its_key() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let key = "a long enough key for the shards of this test";
    for i in 1..=2 {
        let out = harness()
            .args(["--players", "players/linez-random", "--seeds", "1..3"])
            .args(["--shard", &format!("{i}/2"), "--run-id", RUN, "--results"])
            .arg(&results)
            .env("HARNESS_SECRET", key)
            .output()
            .unwrap();
        expect_exit(&out, 0);
    }
    let dirs: Vec<PathBuf> = (1..=2)
        .map(|i| results.join(RUN).join(format!("shards/{i}-of-2")))
        .collect();
    let with = |secret: Option<&str>| {
        let mut cmd = harness();
        cmd.arg("merge").args(&dirs).arg("--results").arg(&results);
        if let Some(secret) = secret {
            cmd.env("HARNESS_SECRET", secret);
        }
        cmd.output().unwrap()
    };
    for wrong in [None, Some("another key, also long enough for a key")] {
        let out = with(wrong);
        expect_exit(&out, 2);
        assert!(text(&out).contains("key"), "{}", text(&out));
        assert!(!results.join(RUN).join("scores.csv").exists());
    }
    expect_exit(&with(Some(key)), 0);
    assert_eq!(unmeasured(&results.join(RUN).join("scores.csv")).len(), 3);
    // A run with a key leaves best.csv alone, merged or not.
    assert!(!results.join("best.csv").exists());
}

#[test]
fn a_run_id_names_a_whole_run_once() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let args = |cmd: &mut std::process::Command| {
        cmd.args(["--players", "players/linez-random", "--seeds", "1..2"])
            .args(["--run-id", "nightly-1", "--results"])
            .arg(&results);
    };
    let mut first = harness();
    args(&mut first);
    expect_exit(&first.output().unwrap(), 0);
    assert_eq!(
        std::fs::read_link(results.join("latest")).unwrap(),
        Path::new("nightly-1")
    );
    assert_eq!(unmeasured(&results.join("nightly-1/scores.csv")).len(), 2);
    let mut again = harness();
    args(&mut again);
    let out = again.output().unwrap();
    expect_exit(&out, 2);
    assert!(text(&out).contains("already holds a run"), "{}", text(&out));
}
