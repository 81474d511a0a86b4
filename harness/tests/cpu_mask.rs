//! CPU pinning keeps to the CPU mask the harness was started with (what a scheduler such as
//! Slurm's task/affinity, `taskset` or a container gives): workers and players are pinned
//! only to CPUs of the mask, and the default thread count is the mask's size.

mod support;

use support::expect_exit;

#[test]
fn pinning_and_the_default_thread_count_keep_to_the_given_cpu_mask() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(
        cpus >= 2,
        "this test needs a machine (or a mask) of at least 2 CPUs to give the harness a \
         mask that leaves CPU 0 out; this one allows {cpus}"
    );
    let tmp = tempfile::tempdir().unwrap();
    // An exact-answer player that says on stderr which CPUs it may run on.
    let player = tmp.path().join("where");
    std::fs::create_dir(&player).unwrap();
    std::fs::write(
        player.join("player.toml"),
        "problem = \"game-ending\"\ncommand = [\"sh\", \"main.sh\"]\n",
    )
    .unwrap();
    std::fs::write(
        player.join("main.sh"),
        "grep Cpus_allowed_list /proc/self/status >&2\ncat > /dev/null\necho 'First player wins'\n",
    )
    .unwrap();
    let results = tmp.path().join("results");
    let mut cmd = std::process::Command::new("taskset");
    cmd.args(["-c", "1"])
        .arg(env!("CARGO_BIN_EXE_harness"))
        .current_dir(support::root())
        .arg("--players")
        .arg(&player)
        .args(["--seeds", "1..4", "--no-fixed", "--results"])
        .arg(&results);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run taskset (util-linux): {e}"));
    expect_exit(&out, 0);
    let run_toml = std::fs::read_to_string(results.join("latest/run.toml")).unwrap();
    assert!(
        run_toml.contains("\nthreads = 1\n"),
        "default threads under a one-CPU mask:\n{run_toml}"
    );
    for seed in 1..=4 {
        let said = support::stderr_log(&results, "game-ending", "where", &seed.to_string());
        assert_eq!(
            said.trim(),
            "Cpus_allowed_list:\t1",
            "seed {seed}: the player ran outside the mask"
        );
    }
}
