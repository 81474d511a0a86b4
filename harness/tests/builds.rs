//! One build per run, and builds that end when asked: SIGTERM during a player's Cargo build
//! ends the run and the whole build, a build past `build-timeout` is killed with its last
//! lines, the build's output is kept in the run's log, and a player replaced during a run
//! changes none of that run's results (or makes its later tests ERR with the reason); a
//! contained build in process mode may set its output's mode (a linker's `chmod`).
//!
//! The Cargo fixture `tests/fixtures/slow-build` is built in a target folder of each test's
//! own (`CARGO_TARGET_DIR`), never in the repository's.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn slow_build() -> PathBuf {
    root().join("harness/tests/fixtures/slow-build")
}

/// The harness on one game-ending seed of the slow-build fixture, built under `dir`.
fn harness_building(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
    cmd.current_dir(root())
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .args(["--seeds", "1", "--no-fixed", "--results"])
        .arg(dir.join("results"))
        .arg("--players")
        .arg(slow_build())
        .stdin(Stdio::null());
    cmd
}

/// Processes started for the build under `dir` (they all inherit its `CARGO_TARGET_DIR`),
/// zombies left out (killed, waiting to be reaped by init).
fn builds_running(dir: &Path) -> Vec<String> {
    let needle = format!("CARGO_TARGET_DIR={}", dir.join("target").display());
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().to_string();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let zombie = std::fs::read_to_string(entry.path().join("stat"))
            .map_or(true, |stat| stat.contains(") Z "));
        if !zombie
            && environ
                .split(|&b| b == 0)
                .any(|var| var == needle.as_bytes())
        {
            found.push(pid);
        }
    }
    found
}

/// Waits (up to `limit`) until no build process of `dir` is left; returns those left.
fn builds_left_after(dir: &Path, limit: Duration) -> Vec<String> {
    let deadline = Instant::now() + limit;
    loop {
        let left = builds_running(dir);
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits for a file to appear with some content (up to `limit`).
fn wait_for(path: &Path, limit: Duration) -> String {
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            if !text.is_empty() {
                return text;
            }
        }
        assert!(
            Instant::now() < deadline,
            "{} did not appear within {limit:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_during_a_build_ends_the_run_and_kills_the_whole_build() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("build-script.pid");
    let harness = harness_building(dir.path())
        .env("SLOW_BUILD_MARKER", &marker)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The build script is running (and about to sleep 60 s) once it has written its pid.
    let script = wait_for(&marker, Duration::from_secs(240));
    let asked = Instant::now();
    // SAFETY: plain syscall on our own child.
    unsafe {
        libc::kill(harness.id() as i32, libc::SIGTERM);
    }
    let out = harness.wait_with_output().unwrap();
    let took = asked.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        took < Duration::from_secs(15),
        "the run took {took:?} to end after SIGTERM, the build's sleep is 60 s"
    );
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(
        !dir.path().join("results").exists(),
        "no run folder is made when the build was interrupted"
    );
    let left = builds_left_after(dir.path(), Duration::from_secs(10));
    assert!(
        left.is_empty(),
        "build processes left: {left:?} (the build script was {script})"
    );
}

#[test]
fn a_build_past_build_timeout_is_killed_with_exit_2_and_its_last_lines() {
    let dir = tempfile::tempdir().unwrap();
    let scoring = dir.path().join("scoring.toml");
    std::fs::write(&scoring, "[harness]\nbuild-timeout = 6\n").unwrap();
    let start = Instant::now();
    let out = harness_building(dir.path())
        .env("SLOW_BUILD_MARKER", dir.path().join("build-script.pid"))
        .arg("--config")
        .arg(&scoring)
        .arg("--testcases")
        .arg(root().join("testcases"))
        .output()
        .unwrap();
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        took < Duration::from_secs(45),
        "took {took:?}: the build's sleep is 60 s"
    );
    assert!(
        stderr.contains("slow-build")
            && stderr.contains("build-timeout = 6 s")
            && stderr.contains("its last lines:"),
        "{stderr}"
    );
    // Cargo's status line, which the screen otherwise leaves out, names the crate it was at.
    assert!(stderr.contains("  Compiling slow-build v0.1.0"), "{stderr}");
    let left = builds_left_after(dir.path(), Duration::from_secs(10));
    assert!(left.is_empty(), "build processes left: {left:?}");
}

#[test]
fn build_output_goes_to_the_run_log_and_warnings_to_the_screen() {
    let dir = tempfile::tempdir().unwrap();
    let out = harness_building(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let log = std::fs::read_to_string(dir.path().join("results/latest/logs/build.log")).unwrap();
    assert!(log.starts_with("$ "), "{log}");
    assert!(
        log.contains("cargo") && log.contains("build --release"),
        "{log}"
    );
    assert!(log.contains("Compiling slow-build v0.1.0"), "{log}");
    assert!(log.contains("exit status: 0"), "{log}");
    // Status lines stay off the screen, as with `cargo build --quiet`.
    assert!(!stderr.contains("Compiling"), "{stderr}");
}

/// A game-ending player that answers after a second (so a run lasts long enough to change
/// it during the run), and one that crashes at once.
const SLOW_ANSWER: &str = "#!/bin/sh\ncat > /dev/null\nsleep 1\necho 'Invalid input'\n";
const CRASH: &str = "#!/bin/sh\nkill -SEGV $$\n";

fn write_script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// Replaces a file the way an editor or a build does: a new file renamed over the old.
fn replace(path: &Path, text: &str) {
    let new = path.with_extension("new");
    write_script(&new, text);
    std::fs::rename(&new, path).unwrap();
}

fn rows(scores: &Path) -> Vec<csv::StringRecord> {
    let Ok(mut reader) = csv::Reader::from_path(scores) else {
        return Vec::new();
    };
    reader.records().filter_map(Result::ok).collect()
}

#[test]
fn players_replaced_during_a_run_change_none_of_its_results() {
    const SEEDS: usize = 6;
    let dir = tempfile::tempdir().unwrap();
    // An executable-file player, and a player.toml script player.
    let file = dir.path().join("answer.sh");
    write_script(&file, SLOW_ANSWER);
    let folder = dir.path().join("scripted");
    std::fs::create_dir_all(folder.join("lib")).unwrap();
    std::fs::write(
        folder.join("player.toml"),
        "name = \"scripted\"\nproblem = \"game-ending\"\ncommand = [\"sh\", \"lib/run.sh\"]\n",
    )
    .unwrap();
    let script = folder.join("lib/run.sh");
    write_script(&script, SLOW_ANSWER);
    let results = dir.path().join("results");
    let harness = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(root())
        .args(["--problem", "game-ending", "--no-fixed", "--threads", "2"])
        .args(["--seeds", &format!("1..{SEEDS}"), "--results"])
        .arg(&results)
        .arg("--players")
        .arg(&file)
        .arg(&folder)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // As soon as a test has finished, both players are replaced by crashing ones. (The run's
    // folder is the only one in `results/`; `latest` points at it only once the run ends.)
    let deadline = Instant::now() + Duration::from_secs(120);
    let before = loop {
        let rows: Vec<_> = std::fs::read_dir(&results)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|run| rows(&run.path().join("scores.csv")))
            .collect();
        if !rows.is_empty() {
            replace(&file, CRASH);
            replace(&script, CRASH);
            break rows;
        }
        assert!(Instant::now() < deadline, "no test finished in time");
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = harness.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for player in ["answer", "scripted"] {
        let done = before.iter().filter(|r| &r[1] == player).count();
        // Two tests of a player may be running at once: at least one starts after the change.
        assert!(
            done + 2 < SEEDS,
            "the run was too quick to change {player} during it: {before:?}"
        );
    }
    let rows = rows(&results.join("latest/scores.csv"));
    assert_eq!(rows.len(), 2 * SEEDS, "{stderr}");
    for row in &rows {
        assert!(
            !row[4].contains("RE") && !row.iter().any(|c| c.contains("SIGSEGV")),
            "a test was played by the replacement: {row:?}"
        );
    }
    // The executable file runs from its copy: every test is the first version's.
    for row in rows.iter().filter(|r| &r[1] == "answer") {
        assert!(["OK", "WA"].contains(&&row[4]), "{row:?}");
    }
    // The player.toml folder is watched: its tests after the change are ERR, with the reason.
    let scripted: Vec<_> = rows.iter().filter(|r| &r[1] == "scripted").collect();
    let errs: Vec<_> = scripted.iter().filter(|r| &r[4] == "ERR").collect();
    assert!(!errs.is_empty(), "{scripted:?}");
    for row in &scripted {
        let reason = &row[row.len() - 1];
        match &row[4] {
            "ERR" => assert_eq!(reason, "the player's files changed during the run"),
            verdict => assert!(["OK", "WA"].contains(&verdict), "{row:?}"),
        }
    }
    assert!(
        stdout.contains("scripted: the player's files changed during the run"),
        "{stdout}"
    );
    assert!(!stdout.contains("answer: the player's"), "{stdout}");
    assert_eq!(out.status.code(), Some(1), "ERR rows: exit 1\n{stderr}");
    // The run's private copies are gone with the run.
    let copies = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("harness-run-"))
        .filter(|e| {
            std::fs::read(e.path().join("players/answer/answer.sh"))
                .is_ok_and(|b| b == SLOW_ANSWER.as_bytes())
        })
        .count();
    assert_eq!(copies, 0, "the run's copy of answer.sh was left behind");
}

/// The harness on one chesspuzzle seed with the players at `paths`, results under `dir`.
fn harness_on(dir: &Path, paths: &[PathBuf]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(root())
        .args(["--seeds", "1..3", "--results"])
        .arg(dir.join("results"))
        .arg("--players")
        .args(paths)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn a_player_toml_build_runs_once_before_the_run_and_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    // The shipped C++ player, copied so that its build writes nowhere in the repository.
    let player = dir.path().join("chesspuzzle-cpp");
    std::fs::create_dir_all(&player).unwrap();
    for file in ["player.toml", "main.cpp"] {
        std::fs::copy(
            root().join("players/chesspuzzle-cpp").join(file),
            player.join(file),
        )
        .unwrap();
    }
    let (code, stderr) = harness_on(dir.path(), std::slice::from_ref(&player));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !player.join("target").exists(),
        "the build ran in the run's private copy, not in the player's folder"
    );
    let run = std::fs::canonicalize(dir.path().join("results/latest")).unwrap();
    let scores = rows(&run.join("scores.csv"));
    assert_eq!(scores.len(), 3);
    assert!(scores.iter().all(|r| &r[4] == "OK"), "{scores:?}");
    let log = std::fs::read_to_string(run.join("logs/build.log")).unwrap();
    assert_eq!(log.matches("$ sh -c mkdir -p target").count(), 1, "{log}");
    assert!(log.contains("[exit status: 0"), "{log}");
}

/// A contained build in process mode keeps what a player's filter refuses: the linker sets
/// its output's mode by path (`chmod`), and the shipped C++ player builds and plays.
#[test]
fn a_process_mode_contained_build_may_set_its_outputs_mode() {
    let dir = tempfile::tempdir().unwrap();
    let player = dir.path().join("chesspuzzle-cpp");
    std::fs::create_dir_all(&player).unwrap();
    for file in ["player.toml", "main.cpp"] {
        std::fs::copy(
            root().join("players/chesspuzzle-cpp").join(file),
            player.join(file),
        )
        .unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(root())
        .args(["--seeds", "1..2", "--sandbox", "off", "--build-sandbox"])
        .arg("--results")
        .arg(dir.path().join("results"))
        .arg("--players")
        .arg(&player)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let run = std::fs::canonicalize(dir.path().join("results/latest")).unwrap();
    let log = std::fs::read_to_string(run.join("logs/build.log")).unwrap();
    assert!(log.contains("[exit status: 0"), "{log}");
    let scores = rows(&run.join("scores.csv"));
    assert_eq!(scores.len(), 2);
    assert!(scores.iter().all(|r| &r[4] == "OK"), "{scores:?}");
}

#[test]
fn a_failing_player_toml_build_is_exit_2_with_its_messages() {
    let dir = tempfile::tempdir().unwrap();
    let player = dir.path().join("broken");
    std::fs::create_dir_all(&player).unwrap();
    std::fs::write(
        player.join("player.toml"),
        "problem = \"chesspuzzle\"\nbuild = [\"sh\", \"-c\", \"echo 'main.cpp:3: error: expected ;'; exit 1\"]\ncommand = [\"target/main\"]\n",
    )
    .unwrap();
    let (code, stderr) = harness_on(dir.path(), std::slice::from_ref(&player));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("main.cpp:3: error: expected ;"), "{stderr}");
    assert!(
        stderr.contains(&format!("player {}", player.join("player.toml").display()))
            && stderr.contains("build command `sh -c")
            && stderr.contains("failed (exit status: 1"),
        "{stderr}"
    );
}

#[test]
fn the_build_cache_keeps_the_most_recently_used_builds_of_a_player() {
    let dir = tempfile::tempdir().unwrap();
    let player = dir.path().join("built-clicker");
    std::fs::create_dir_all(&player).unwrap();
    std::fs::write(
        player.join("player.toml"),
        "problem = \"chesspuzzle\"\nbuild = [\"sh\", \"-c\", \"cp play.sh built.sh\"]\n\
         command = [\"sh\", \"built.sh\"]\n",
    )
    .unwrap();
    let cache = dir.path().join("results/.cache/builds");
    let entries = || {
        let mut keys: Vec<String> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| !n.starts_with('.') && !n.ends_with(".used"))
            .collect();
        keys.sort();
        keys
    };
    // Five versions of the player, each built once: the cache keeps the last three.
    let mut keys = Vec::new();
    for version in 1..=5 {
        write_script(
            &player.join("play.sh"),
            &format!("#!/bin/sh\n# version {version}\nread h\necho '0 0'\nwhile read l; do echo '0 0'; done\n"),
        );
        let (code, stderr) = harness_on(dir.path(), std::slice::from_ref(&player));
        assert_eq!(code, 0, "{stderr}");
        let now = entries();
        let new: Vec<&String> = now.iter().filter(|k| !keys.contains(*k)).collect();
        assert_eq!(new.len(), 1, "version {version}: {now:?}");
        keys.push(new[0].clone());
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut last: Vec<String> = keys[2..].to_vec();
    last.sort();
    assert_eq!(entries(), last, "built in order {keys:?}");
    let run = std::fs::canonicalize(dir.path().join("results/latest")).unwrap();
    let log = std::fs::read_to_string(run.join("logs/build.log")).unwrap();
    assert!(log.contains("pruned 1 build(s)"), "{log}");
}
