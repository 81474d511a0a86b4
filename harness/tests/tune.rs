//! `harness tune` end to end, with the shipped tunable player (linez-greedy) behind a
//! player.toml of the test's own: interruption and `--resume`, the held-out split, and
//! mistakes in parameter declarations. The sampler, the pruner and the loop are unit-tested
//! in `harness/src/tune/`.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use support::{expect_exit, harness, root};

/// linez-greedy, built once (release), as a program a player.toml can name.
fn greedy() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(root())
            .args(["build", "--release", "-p", "linez-greedy"])
            .args(["--message-format", "json-render-diagnostics"])
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let exe = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .expect("cargo built linez-greedy");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tune-greedy");
        std::fs::create_dir_all(&dir).unwrap();
        support::copy_as(&exe, &dir, "linez-greedy")
    })
    .clone()
}

/// A player.toml folder running linez-greedy, whose declared default for `cut-off` (0) is
/// clearly worse than most of its range (40 is the player's own default), so a short tuning
/// finds better values and validates them.
fn tunable(dir: &Path) -> PathBuf {
    let folder = dir.join("greedy-tuned");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("player.toml"),
        format!(
            "problem = \"linez\"\ncommand = [{:?}]\n\n[params]\n\
             cut-off = {{ kind = \"int\", range = [0, 200], default = 0 }}\n\
             stretch-4 = {{ kind = \"log-float\", range = [300.0, 3000.0], default = 1000.0 }}\n",
            greedy().display().to_string()
        ),
    )
    .unwrap();
    folder
}

fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader =
        csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
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

fn only_tuning(results: &Path) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(results)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("tune-")
        })
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found[0].clone()
}

#[test]
fn an_interrupted_tuning_resumes_without_playing_any_test_twice_then_validates_on_held_out_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let player = tunable(dir.path());
    let results = dir.path().join("results");
    let child = harness()
        .arg("tune")
        .arg(&player)
        .args(["--seeds", "1..12", "--holdout", "201..216", "--trials", "8"])
        .args(["--prune-after", "4", "--threads", "2", "--results"])
        .arg(&results)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once some tests are kept (of up to 8 x 12 + 2 x 16).
    let until = Instant::now() + Duration::from_secs(120);
    let kept = || {
        std::fs::read_dir(&results)
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .and_then(|e| std::fs::read_to_string(e.path().join("trial-scores.csv")).ok())
            .map_or(0, |t| t.lines().count().saturating_sub(1))
    };
    while kept() < 10 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(kept() >= 10, "the tuning played tests");
    // SAFETY: kill takes no pointer; the child is ours and not yet reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    expect_exit(&out, 130);
    let tuning = only_tuning(&results);
    let id = tuning.file_name().unwrap().to_string_lossy().to_string();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("harness tune --resume {id} --results")),
        "{stdout}"
    );
    let before = csv_rows(&tuning.join("trial-scores.csv"));
    assert!(before.len() < 8 * 12, "interrupted before the end");
    // Flags that would change the tuning cannot be given again.
    let out = harness()
        .args(["tune", "--resume", &id, "--seeds", "1..5", "--results"])
        .arg(&results)
        .output()
        .unwrap();
    expect_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--seeds is recorded"), "{stderr}");

    let out = harness()
        .args(["tune", "--resume", &id, "--results"])
        .arg(&results)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("resuming {id}")), "{stdout}");

    // Every (trial, seed) once; the rows kept before the interrupt are still there.
    let rows = csv_rows(&tuning.join("trial-scores.csv"));
    let pairs: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r["trial"].clone(), r["seed"].clone()))
        .collect();
    let unique: BTreeSet<_> = pairs.iter().cloned().collect();
    assert_eq!(unique.len(), pairs.len(), "a test was played twice");
    assert_eq!(&rows[..before.len()], &before[..]);
    // Every trial finished: complete ones with all 12 seeds, pruned ones with fewer.
    let trials = csv_rows(&tuning.join("trials.csv"));
    assert_eq!(trials.len(), 8);
    for t in &trials {
        let played = pairs
            .iter()
            .filter(|(trial, _)| *trial == t["trial"])
            .count();
        assert_eq!(t["seeds"], played.to_string());
        match t["state"].as_str() {
            "complete" => assert_eq!(played, 12),
            "pruned" => assert!([4, 8].contains(&played), "{t:?}"),
            other => panic!("trial {} is {other}", t["trial"]),
        }
    }
    // The trials' values reached the player: one seed scores differently across trials.
    let seed1: BTreeSet<&String> = rows
        .iter()
        .filter(|r| r["seed"] == "1")
        .map(|r| &r["score"])
        .collect();
    assert!(seed1.len() > 1, "{seed1:?}");

    // Validation: the defaults and the best on exactly the held-out seeds, none of which
    // was a tuning seed.
    let tuning_seeds: BTreeSet<u64> = rows.iter().map(|r| r["seed"].parse().unwrap()).collect();
    let validation = csv_rows(&tuning.join("validation.csv"));
    for arm in ["default", "best"] {
        let seeds: BTreeSet<u64> = validation
            .iter()
            .filter(|r| r["arm"] == arm)
            .map(|r| r["seed"].parse().unwrap())
            .collect();
        assert_eq!(seeds, (201..=216).collect(), "{arm}");
        assert!(seeds.is_disjoint(&tuning_seeds));
    }
    assert!(validation
        .iter()
        .filter(|r| r["arm"] == "default")
        .all(|r| r["cut-off"] == "0"));
    assert!(
        stdout.contains("best vs defaults by relative score: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("trials are judged by the relative score"),
        "{stdout}"
    );
    assert!(stdout.contains("Wilcoxon p = "), "{stdout}");
    let best = std::fs::read_to_string(tuning.join("best.toml")).unwrap();
    assert!(best.contains("PARAM_CUT_OFF = "), "{best}");
    assert!(best.contains("[validation]"), "{best}");
    let page = std::fs::read_to_string(tuning.join("tune.html")).unwrap();
    assert!(page.contains("<svg") && !page.contains("<script"));
}

#[test]
fn a_tuning_interrupted_during_validation_finishes_it_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    // Only `cut-off`, declared with a bad default (0): the best of these trials is another.
    let player = dir.path().join("cut-off-only");
    std::fs::create_dir_all(&player).unwrap();
    std::fs::write(
        player.join("player.toml"),
        format!(
            "problem = \"linez\"\ncommand = [{:?}]\n\n[params]\n\
             cut-off = {{ kind = \"int\", range = [0, 200], default = 0 }}\n",
            greedy().display().to_string()
        ),
    )
    .unwrap();
    let results = dir.path().join("results");
    let child = harness()
        .arg("tune")
        .arg(&player)
        .args(["--seeds", "1..6", "--holdout", "101..180", "--trials", "4"])
        .args(["--prune-after", "0", "--threads", "2", "--results"])
        .arg(&results)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let validated = || {
        std::fs::read_dir(&results)
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .and_then(|e| std::fs::read_to_string(e.path().join("validation.csv")).ok())
            .map_or(0, |t| t.lines().count().saturating_sub(1))
    };
    let until = Instant::now() + Duration::from_secs(120);
    while validated() < 10 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(validated() >= 10, "the validation began");
    // SAFETY: kill takes no pointer; the child is ours and not yet reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    expect_exit(&out, 130);
    let tuning = only_tuning(&results);
    let before = csv_rows(&tuning.join("validation.csv"));
    assert!(
        before.len() < 160,
        "interrupted before the end of the validation"
    );
    let id = tuning.file_name().unwrap().to_string_lossy().to_string();
    let out = harness()
        .args(["tune", "--resume", &id, "--results"])
        .arg(&results)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let rows = csv_rows(&tuning.join("validation.csv"));
    assert_eq!(&rows[..before.len()], &before[..], "kept rows stay");
    let pairs: BTreeSet<(String, String)> = rows
        .iter()
        .map(|r| (r["arm"].clone(), r["seed"].clone()))
        .collect();
    assert_eq!(pairs.len(), 160, "each held-out seed once per arm");
    assert_eq!(rows.len(), 160);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("held-out seeds: 80;"), "{stdout}");
}

#[test]
fn held_out_seeds_that_are_tuning_seeds_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let player = tunable(dir.path());
    let out = harness()
        .arg("tune")
        .arg(&player)
        .args(["--seeds", "1..20", "--holdout", "15..30", "--results"])
        .arg(dir.path().join("results"))
        .output()
        .unwrap();
    expect_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--holdout 15..30 shares seeds with --seeds 1..20 (e.g. 15, 16, 17"),
        "{stderr}"
    );
    assert!(!dir.path().join("results").exists(), "nothing written");
}

/// A player.toml folder (a shell player) declaring `params`.
fn declaring(dir: &Path, params: &str) -> PathBuf {
    let folder = dir.join("p");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("run.sh"), "env | grep '^PARAM_' >&2\n").unwrap();
    std::fs::write(
        folder.join("player.toml"),
        format!("problem = \"game-ending\"\ncommand = [\"sh\", \"run.sh\"]\n\n[params]\n{params}"),
    )
    .unwrap();
    folder
}

#[test]
fn a_mistake_in_a_declaration_is_exit_2_naming_the_file_and_the_key() {
    for (params, key, message) in [
        (
            "depth = { kind = \"int\", range = [1, 9], default = 12 }\n",
            "params.depth",
            "`default` 12 is outside the range",
        ),
        (
            "rate = { kind = \"log-float\", range = [0.0, 1.0], default = 0.5 }\n",
            "params.rate",
            "`range` [0, 1]: a log-float range must be above 0",
        ),
        (
            "mode = { kind = \"choice\", choices = [\"a\", \"b\"], default = \"c\" }\n",
            "params.mode",
            "`default` \"c\" is not one of the choices",
        ),
        (
            "w = { kind = \"float\", range = [1, 2] }\n",
            "params.w",
            "`default` is missing",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let player = declaring(dir.path(), params);
        let file = player.canonicalize().unwrap().join("player.toml");
        let tune = harness()
            .arg("tune")
            .arg(&player)
            .arg("--results")
            .arg(dir.path().join("results"))
            .output()
            .unwrap();
        let run = harness()
            .args(["--seeds", "1", "--results"])
            .arg(dir.path().join("results"))
            .arg("--players")
            .arg(&player)
            .output()
            .unwrap();
        for out in [tune, run] {
            expect_exit(&out, 2);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let expected = format!("player {}: {key}: {message}", file.display());
            assert!(stderr.contains(&expected), "{expected}\n{stderr}");
        }
    }
    // The Cargo spelling: [package.metadata.harness.params], checked before any build.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("c/src")).unwrap();
    std::fs::write(dir.path().join("c/src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(
        dir.path().join("c/Cargo.toml"),
        "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [package.metadata.harness]\nproblem = \"linez\"\n\n\
         [package.metadata.harness.params]\nk = { kind = \"int\", range = [1, 9], default = 3, step = 2 }\n",
    )
    .unwrap();
    let out = harness()
        .arg("tune")
        .arg(dir.path().join("c"))
        .output()
        .unwrap();
    expect_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Cargo.toml: package.metadata.harness.params.k: unknown key `step`"),
        "{stderr}"
    );
    assert!(!dir.path().join("c/target").exists(), "nothing was built");
}

#[test]
fn a_player_without_parameters_cannot_be_tuned_and_declared_defaults_reach_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = harness()
        .args(["tune", "players/linez-random", "--results"])
        .arg(dir.path().join("results"))
        .output()
        .unwrap();
    expect_exit(&out, 2);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("declares no parameters to tune"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A normal run passes the declared defaults as PARAM_<NAME>.
    let player = declaring(
        dir.path(),
        "max-depth = { kind = \"int\", range = [1, 9], default = 4 }\n\
         mode = { kind = \"choice\", choices = [\"fast\", \"slow\"], default = \"slow\" }\n",
    );
    let results = dir.path().join("results");
    let out = harness()
        .args(["--seeds", "1", "--no-fixed", "--results"])
        .arg(&results)
        .arg("--players")
        .arg(&player)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let stderr = support::stderr_log(&results, "game-ending", "p", "1");
    let mut vars: Vec<&str> = stderr.lines().collect();
    vars.sort();
    assert_eq!(vars, ["PARAM_MAX_DEPTH=4", "PARAM_MODE=slow"]);
}
