//! The shipped scale-out scripts on real engines: a single-node Slurm cluster brought up
//! under a temporary folder runs `scripts/slurm/submit.sh` (an array job of shards, then the
//! merge job), and GNU parallel runs `scripts/parallel/run.sh` over ssh to two "hosts" (the
//! test's own sshd on loopback addresses), with and without a shared file system. Each merged
//! run must equal a single-machine run of the same plan but for the measured columns. Every
//! daemon started is stopped by a guard, also when the test fails; a missing engine fails the
//! test with what to install (`scripts/test` installs them), unless its switch leaves the test
//! out on purpose: `slurm` for the Slurm tests, `parallel` for GNU parallel over ssh.

mod support;

#[path = "support/engines.rs"]
mod engines;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{expect_exit, harness, root};

const PLAYERS: [&str; 3] = [
    "players/chesspuzzle-random",
    "players/linez-random",
    "players/game-ending-flawed",
];
const SEEDS: &str = "1..8";
const MEASURED: [&str; 5] = ["think_ms", "cpu_ms", "wall_ms", "max_memory_kb", "warning"];

fn unmeasured(path: &Path) -> Vec<BTreeMap<String, String>> {
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

/// The bundle the scripts expect (`<dir>/harness`, `<dir>/players/*`) and the scores.csv of
/// a single-machine run of the same plan from the sources.
fn bundle_and_single_run(tmp: &Path) -> (PathBuf, Vec<BTreeMap<String, String>>) {
    let bundle = tmp.join("bundle");
    let out = harness()
        .args(["build", "--out"])
        .arg(bundle.join("players"))
        .arg("--players")
        .args(PLAYERS)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    std::fs::copy(env!("CARGO_BIN_EXE_harness"), bundle.join("harness")).unwrap();
    let single = tmp.join("single");
    let out = harness()
        .arg("--players")
        .args(PLAYERS)
        .args(["--seeds", SEEDS, "--results"])
        .arg(&single)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let rows = unmeasured(&single.join("latest/scores.csv"));
    (bundle, rows)
}

fn show(out: &std::process::Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The merged run equals the single run, has its report and is `latest`.
fn check_merged(results: &Path, run_id: &str, single: &[BTreeMap<String, String>]) {
    let merged = results.join(run_id);
    assert_eq!(unmeasured(&merged.join("scores.csv")), single);
    assert!(merged.join("report.html").is_file());
    assert_eq!(
        std::fs::read_link(results.join("latest")).unwrap(),
        Path::new(run_id)
    );
}

/// Submits `scripts/slurm/submit.sh 3` for `run_id` (without WAIT, which polls ever more
/// slowly); returns the array's and the merge's job ids once the merge job has ended.
fn submit_and_wait(
    slurm: &engines::Slurm,
    run_id: &str,
    bundle: &Path,
    results: &Path,
    work: &Path,
) -> (String, String) {
    let out = slurm
        .command(root().join("scripts/slurm/submit.sh").to_str().unwrap())
        .current_dir(root())
        .args(["3", "--seeds", SEEDS])
        .env("RUN_ID", run_id)
        .env("BUNDLE", bundle)
        .env("RESULTS", results)
        .env("CONFIG", root().join("scoring.toml"))
        .env("SBATCH_ARGS", format!("--chdir={}", work.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "submit.sh:\n{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let array = stderr
        .split("shards in job ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_else(|| panic!("no job id in: {stderr}"))
        .to_string();
    let merge = String::from_utf8_lossy(&out.stdout).trim().to_string();
    slurm.wait_ended(&merge, std::time::Duration::from_secs(120));
    (array, merge)
}

#[test]
fn a_slurm_array_job_of_shards_merges_into_the_single_machine_run() {
    if !support::needs("slurm", engines::SLURM) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (bundle, single) = bundle_and_single_run(tmp.path());
    // Declared after `tmp`: dropped (every daemon stopped) before the folder is removed.
    let slurm = engines::Slurm::start(&tmp.path().join("slurm"), &[2], engines::Tasks::Affinity);
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let results = tmp.path().join("results");
    let run_id = "20260102-000000";
    let (array, merge) = submit_and_wait(&slurm, run_id, &bundle, &results, &work);
    // Each task of the array, and the merge, ended COMPLETED (exit code 0).
    let states = slurm.states(&array);
    assert_eq!(states.len(), 3, "{states:?}");
    assert!(
        states.iter().all(|(_, s)| s == "COMPLETED"),
        "array tasks: {states:?}"
    );
    assert_eq!(
        slurm.states(&merge),
        [(merge.clone(), "COMPLETED".to_string())]
    );
    check_merged(&results, run_id, &single);

    // A shard that fails (its folder cannot be made: a file is in the way): the merge still
    // runs (afterany), names it and fails.
    let failing = "20260102-000001";
    let shards = results.join(failing).join("shards");
    std::fs::create_dir_all(&shards).unwrap();
    std::fs::write(shards.join("2-of-3"), "in the way").unwrap();
    let (array, merge) = submit_and_wait(&slurm, failing, &bundle, &results, &work);
    let states = slurm.states(&array);
    assert!(
        states
            .iter()
            .any(|(id, s)| id.ends_with("_2") && s == "FAILED"),
        "array tasks: {states:?}"
    );
    assert_eq!(
        slurm.states(&merge),
        [(merge.clone(), "FAILED".to_string())]
    );
    let said = std::fs::read_to_string(work.join(format!("harness-harness-merge-{merge}.out")))
        .unwrap_or_else(|e| panic!("merge job {merge}'s output: {e}"));
    assert!(
        said.contains("2-of-3"),
        "the merge did not name the shard: {said}"
    );
    assert!(!results.join(failing).join("scores.csv").exists());
}

#[test]
fn gnu_parallel_runs_shards_on_two_ssh_hosts_with_and_without_a_shared_file_system() {
    let programs = [
        &[("parallel", "parallel"), ("rsync", "rsync")],
        engines::SSHD,
    ]
    .concat();
    if !support::needs("parallel", &programs) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (bundle, single) = bundle_and_single_run(tmp.path());
    let sshd = engines::Sshd::start(&tmp.path().join("ssh"));
    let ssh = sshd.ssh_command();
    for (copy, run_id) in [("0", "20260103-000000"), ("1", "20260103-000001")] {
        let results = tmp.path().join(format!("results-{copy}"));
        let remote = tmp.path().join(format!("remote-{copy}"));
        let out = Command::new(root().join("scripts/parallel/run.sh"))
            .current_dir(root())
            .args(["3", "--seeds", SEEDS])
            .env("HOSTS", "127.0.0.1,127.0.0.2")
            .env("SSH", &ssh)
            .env("RUN_ID", run_id)
            .env("BUNDLE", &bundle)
            .env("RESULTS", &results)
            .env("COPY", copy)
            .env("REMOTE_DIR", &remote)
            .output()
            .unwrap();
        assert!(out.status.success(), "run.sh COPY={copy}:\n{}", show(&out));
        // GNU parallel's --tag prefixes each shard's output with its number: all three ran.
        let stdout = String::from_utf8_lossy(&out.stdout);
        for i in 1..=3 {
            assert!(
                stdout.lines().any(|l| l.starts_with(&format!("{i}\t"))),
                "shard {i} printed nothing:\n{stdout}"
            );
        }
        check_merged(&results, run_id, &single);
        // Without a shared file system the shards ran in the remote folder, not in RESULTS.
        let shard_there = remote.join(format!("results/{run_id}/shards/1-of-3/scores.csv"));
        assert_eq!(
            shard_there.is_file(),
            copy == "1",
            "{}",
            shard_there.display()
        );
    }
    drop(sshd);
}

/// The measurement of the README's speed claim, run by hand (it takes minutes and its number
/// depends on the machine's load):
/// `cargo test -p harness --test scale_out -- --ignored --nocapture`. Two emulated Slurm nodes
/// of one CPU each (`slurmd -N`, their own ports, `task/none`, so `--no-pin`) against one of
/// them, CPU-bound players, best of `ROUNDS` alternating rounds; asserts only that both merged
/// runs are right.
#[test]
#[ignore = "a measurement of minutes, run by hand (see its doc)"]
fn two_emulated_slurm_nodes_against_one() {
    if !support::needs("slurm", engines::SLURM) {
        return;
    }
    const ROUNDS: usize = 2;
    const PLAYERS: [&str; 2] = ["players/chesspuzzle-greedy", "players/linez-greedy"];
    let seeds = std::env::var("SPEED_SEEDS").unwrap_or_else(|_| "1..60".into());
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("bundle");
    let out = harness()
        .args(["build", "--out"])
        .arg(bundle.join("players"))
        .arg("--players")
        .args(PLAYERS)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    std::fs::copy(env!("CARGO_BIN_EXE_harness"), bundle.join("harness")).unwrap();
    let slurm = engines::Slurm::start(&tmp.path().join("slurm"), &[1, 1], engines::Tasks::Unbound);
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let results = tmp.path().join("results");
    let mut best = [f64::MAX; 2];
    let mut merged: Vec<Vec<BTreeMap<String, String>>> = Vec::new();
    for round in 0..ROUNDS {
        for (which, (shards, nodes)) in [("1", "-w n1"), ("2", "")].iter().enumerate() {
            let run_id = format!("20260104-00000{round}{which}");
            let start = std::time::SystemTime::now();
            let out = slurm
                .command(root().join("scripts/slurm/submit.sh").to_str().unwrap())
                .current_dir(root())
                .args([shards, "--seeds", &seeds, "--no-pin", "--threads", "1"])
                .env("RUN_ID", &run_id)
                .env("BUNDLE", &bundle)
                .env("RESULTS", &results)
                .env("CONFIG", root().join("scoring.toml"))
                .env(
                    "SBATCH_ARGS",
                    format!("--chdir={} --cpus-per-task=1 {nodes}", work.display()),
                )
                .env("WAIT", "1")
                .output()
                .unwrap();
            assert!(out.status.success(), "submit.sh:\n{}", show(&out));
            // From the submission to the last shard's end (its shard.toml, written last):
            // `sbatch --wait` polls ever more slowly and the merge job waits for a scheduler
            // pass, which would hide the shards' time.
            let ends: Vec<f64> = std::fs::read_dir(results.join(&run_id).join("shards"))
                .unwrap()
                .map(|e| {
                    let path = e.unwrap().path().join("shard.toml");
                    let end = std::fs::metadata(path).unwrap().modified().unwrap();
                    end.duration_since(start).unwrap().as_secs_f64()
                })
                .collect();
            let secs = ends.iter().cloned().fold(0.0, f64::max);
            println!(
                "round {round}: {shards} node(s): {secs:.2} s (submitted to the last shard's \
                 end; each shard's end: {ends:.2?})"
            );
            best[which] = best[which].min(secs);
            merged.push(unmeasured(&results.join(&run_id).join("scores.csv")));
        }
    }
    assert!(
        merged.windows(2).all(|w| w[0] == w[1]),
        "merged runs differ"
    );
    println!(
        "best: one node {:.2} s, two nodes {:.2} s: {:.2}x (target <= 0.55x)",
        best[0],
        best[1],
        best[1] / best[0]
    );
}
