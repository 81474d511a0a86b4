//! Builds of other people's code are contained, and two runs at once never wreck each other
//! (issues 28 and 29): a hostile `build` step reads no host secret, reaches no network and
//! leaves no daemon when builds are contained (a secret key); two runs of one build-step
//! player at once each play their own private build; a Cargo player builds offline in the
//! sandbox against the read-only registry cache, and one whose dependencies are not there
//! gets an error naming the fix.
//!
//! The hostile fixture is `tests/fixtures/hostile/build-attack.c`, run by the player's
//! `build.sh`; what it reached is in the run's `logs/build.log` (its `REACHED` / `BLOCKED`
//! lines). No test here judges a wall-clock time; waits are for states (a process that
//! exists, a file), each bounded only to turn a hang into a failure.

#[path = "support/containment.rs"]
mod containment;
mod support;

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use containment::{expect_blocked, expect_verdict, run_within, Limits, Mode, Plan, Scratch};

/// A key long enough not to be warned about: a run judging other people's code.
const KEY: &str = "the organiser's key for the build containment tests";

/// The run's build log.
fn build_log(results: &Path) -> String {
    std::fs::read_to_string(results.join("latest/logs/build.log")).unwrap_or_default()
}

/// The pids of live processes carrying `tag` whose command line holds `what`.
fn running(tag: &str, what: &str) -> Vec<i32> {
    containment::running_with(tag)
        .iter()
        .filter(|line| line.contains(what))
        .filter_map(|line| line.split(':').next()?.parse().ok())
        .collect()
}

/// Writes the hostile player `players/hostile-build/`: `build = ["sh", "build.sh"]`, whose
/// build.sh reads /etc/shadow, connects to `port` and leaves a daemon after `victim`'s copy.
fn hostile_build(scratch: &Scratch, port: u16, victim: &str) -> PathBuf {
    let dir = scratch.players_dir().join("hostile-build");
    std::fs::create_dir(&dir).unwrap();
    containment::open_to_all(&dir);
    std::fs::copy(support::compile_c("build-attack"), dir.join("build-attack")).unwrap();
    let tag = scratch.tag();
    std::fs::write(
        dir.join("build.sh"),
        format!(
            "./build-attack {tag:?} shadow\n./build-attack {tag:?} network {port}\n\
             ./build-attack {tag:?} daemon {victim}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("player.toml"),
        format!(
            "name = \"hostile-build\"\nproblem = \"chesspuzzle\"\nbuild = [\"sh\", \"build.sh\"]\n\
             command = [\"./build-attack\", {tag:?}, \"play\"]\n"
        ),
    )
    .unwrap();
    dir
}

#[test]
fn a_contained_build_reads_no_secret_reaches_no_network_and_leaves_no_daemon() {
    let scratch = Scratch::new("build-attack");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    // The other player: the good player's program as an executable file, which the run
    // plays from its own copy (the daemon's target).
    let victim = format!("victim-{}", scratch.token());
    let victim_exe = support::copy_as(&containment::greedy_binary(), scratch.path(), &victim);
    let hostile = hostile_build(&scratch, port, &victim);
    let plan = Plan {
        scratch: &scratch,
        mode: Mode::Default,
        limits: Limits::default(),
        seeds: &[1, 2, 3],
        threads: 2,
        players: vec![hostile, victim_exe],
        extra: Vec::new(),
    };

    // Not contained (a run of one's own code, without a key): the attacks work, which is
    // what the contained run below must stop.
    let ran = run_within(&mut plan.command(), plan.deadline());
    let log = build_log(&scratch.results());
    assert!(
        log.contains("REACHED connect to the host's 127.0.0.1"),
        "{log}\n{}",
        ran.stderr()
    );
    assert!(listener.accept().is_ok(), "the build's connection arrived");
    assert!(
        log.contains("REACHED leave a daemon"),
        "{log}\n{}",
        ran.stderr()
    );
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 && Path::new("/etc/shadow").exists() {
        assert!(log.contains("REACHED read /etc/shadow"), "{log}");
    }
    let daemons = running(&scratch.tag(), " daemon ");
    assert!(
        !daemons.is_empty(),
        "the daemon outlived the build and the run"
    );
    for pid in daemons {
        // SAFETY: plain syscall on a process this test's fixture started (it has the tag).
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(
        scratch.left_running().is_empty(),
        "the uncontained run's daemon is gone before the contained run starts"
    );
    let _ = std::fs::remove_file(scratch.path().join("swapped"));

    contained_build_holds(&plan, &listener, &victim, None);
}

/// The same build attack under an unprivileged user's harness (setpriv), judged with a key:
/// what holds for a root harness holds for it too.
#[test]
fn a_contained_build_reads_no_secret_reaches_no_network_and_leaves_no_daemon_unprivileged() {
    if !support::needs_root("starts the harness as another user (setpriv)") {
        return;
    }
    let scratch = Scratch::new("build-attack");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let victim = format!("victim-{}", scratch.token());
    let victim_exe = support::copy_as(&containment::greedy_binary(), scratch.path(), &victim);
    let hostile = hostile_build(&scratch, port, &victim);
    let plan = Plan {
        scratch: &scratch,
        mode: Mode::Default,
        limits: Limits::default(),
        seeds: &[1, 2, 3],
        threads: 2,
        players: vec![hostile, victim_exe],
        extra: Vec::new(),
    };
    contained_build_holds(
        &plan,
        &listener,
        &victim,
        Some(containment::free_uid(44_000)),
    );
}

/// Runs `plan` (the hostile build beside `victim`) with a key, by root or by user `as_user`:
/// the build ran contained, its daemon started and is gone, /etc/shadow and the host's
/// `listener` out of its reach, the victim's tests all OK, the player's folder untouched.
fn contained_build_holds(plan: &Plan, listener: &TcpListener, victim: &str, as_user: Option<u32>) {
    let scratch = plan.scratch;
    let mut cmd = match as_user {
        None => plan.command(),
        Some(uid) => plan.command_as(uid),
    };
    cmd.env("HARNESS_SECRET", KEY);
    let ran = run_within(&mut cmd, plan.deadline());
    support::expect_exit(&ran.output, 0);
    let log = build_log(&scratch.results());
    assert!(
        log.contains("(in ") && log.contains(", contained)"),
        "the build ran contained: {log}"
    );
    let run_toml = std::fs::read_to_string(scratch.results().join("latest/run.toml")).unwrap();
    assert!(run_toml.contains("builds = \"contained ("), "{run_toml}");
    // The fixture ran (its daemon was started) and was held.
    assert!(log.contains("REACHED leave a daemon"), "{log}");
    expect_blocked(&log, "read /etc/shadow");
    expect_blocked(&log, "connect to the host's 127.0.0.1");
    assert_eq!(
        listener.accept().map(|_| ()).map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock),
        "no connection from the contained build"
    );
    let left = scratch.left_running();
    assert!(left.is_empty(), "processes left running: {left:#?}");
    assert!(
        !scratch.path().join("swapped").exists(),
        "the daemon swapped a copy"
    );
    let rows = support::scores(&scratch.results());
    assert_eq!(rows.len(), 6, "{rows:?}");
    expect_verdict(&rows, victim, &["OK"]);
    expect_verdict(&rows, "hostile-build", &["OK"]);
    plan.check_rows(&rows);
    assert!(
        !scratch.players_dir().join("hostile-build/target").exists()
            && std::fs::read_dir(scratch.players_dir().join("hostile-build"))
                .unwrap()
                .count()
                == 3,
        "the build wrote only in the run's private copy"
    );
}

/// A `player.toml` player whose build makes `target/player` (a new file at every build, as
/// a compiler's output is) and which, run with `BUILD_GATE` set, waits for that file before
/// each game.
fn gated_player(scratch: &Scratch) -> PathBuf {
    let dir = scratch.players_dir().join("gated");
    std::fs::create_dir(&dir).unwrap();
    containment::open_to_all(&dir);
    std::fs::copy(support::compile_c("build-attack"), dir.join("build-attack")).unwrap();
    std::fs::write(
        dir.join("build.sh"),
        "mkdir -p target\ncp build-attack target/player\ndate +%s.%N > target/built-at\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("player.toml"),
        format!(
            "problem = \"chesspuzzle\"\nbuild = [\"sh\", \"build.sh\"]\npass-env = [\"BUILD_GATE\"]\n\
             command = [\"target/player\", {:?}, \"play\"]\n",
            scratch.tag()
        ),
    )
    .unwrap();
    dir
}

#[test]
fn a_second_run_of_a_build_step_player_never_rebuilds_into_the_first_runs_folder() {
    let scratch = Scratch::new("two-runs");
    let gate = scratch.path().join("gate");
    std::fs::create_dir(&gate).unwrap();
    containment::open_to_all(&gate);
    let player = gated_player(&scratch);
    let before = scratch.players_snapshot();
    // The sandboxed player must see the gate: a folder shown to every player.
    let config = scratch.path().join("scoring.toml");
    std::fs::write(
        &config,
        format!(
            "[harness]\nsandbox-bind = [{:?}]\n\n[problem.chesspuzzle]\ntime-limit = 600\n",
            gate.display().to_string()
        ),
    )
    .unwrap();
    let run = |results: &Path, seeds: &str| {
        let mut cmd = support::harness();
        cmd.args(["--seeds", seeds, "--threads", "1", "--config"])
            .arg(&config)
            .arg("--results")
            .arg(results)
            .arg("--players")
            .arg(&player);
        cmd
    };
    // Run A: three games, the first held at the gate.
    let results_a = scratch.path().join("results-a");
    let mut a = run(&results_a, "1..3");
    a.env("BUILD_GATE", gate.join("go"));
    let a = containment::start(&mut a);
    let deadline = Instant::now() + Duration::from_secs(300);
    while running(&scratch.tag(), " play").is_empty() {
        assert!(
            Instant::now() < deadline,
            "run A's first game never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Run B of the same player while A is mid-run (its own results, so its own build).
    let results_b = scratch.path().join("results-b");
    let b = run_within(&mut run(&results_b, "1"), Duration::from_secs(300));
    support::expect_exit(&b.output, 0);
    assert!(
        build_log(&results_b).contains("$ sh build.sh"),
        "run B built the player"
    );
    expect_verdict(&support::scores(&results_b), "gated", &["OK"]);
    std::fs::write(gate.join("go"), "").unwrap();
    let a = a.finish(Duration::from_secs(600));
    support::expect_exit(&a.output, 0);
    let rows = support::scores(&results_a);
    assert_eq!(rows.len(), 3, "{rows:?}");
    expect_verdict(&rows, "gated", &["OK"]);
    assert_eq!(
        before,
        scratch.players_snapshot(),
        "no build wrote into the player's own folder"
    );
    // A third run of the unchanged player takes A's build as it is: no build at all.
    let c = run_within(&mut run(&results_a, "1"), Duration::from_secs(300));
    support::expect_exit(&c.output, 0);
    let log = build_log(&results_a);
    assert!(
        log.contains("gated: unchanged since an earlier build") && !log.contains("$ sh"),
        "{log}"
    );
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// A game-ending Cargo package of its own workspace under `dir`, depending on `dependency`
/// (a `[dependencies]` line) when given.
fn cargo_player(dir: &Path, name: &str, dependency: &str) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(folder.join("src")).unwrap();
    std::fs::write(
        folder.join("Cargo.toml"),
        format!(
            "[package]\nname = {name:?}\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [package.metadata.harness]\nproblem = \"game-ending\"\n\n\
             [dependencies]\n{dependency}\n\n[workspace]\n"
        ),
    )
    .unwrap();
    std::fs::write(
        folder.join("src/main.rs"),
        "use std::io::Read;\nfn main() {\n    let mut input = String::new();\n    \
         let _ = std::io::stdin().read_to_string(&mut input);\n    println!(\"Invalid input\");\n}\n",
    )
    .unwrap();
    folder
}

/// A contained run of one game-ending seed of `player`, its outputs under `dir`.
fn contained_run(dir: &Path, player: &Path) -> (std::process::Output, String) {
    let out = support::harness()
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .args(["--seeds", "1", "--no-fixed", "--build-sandbox", "--results"])
        .arg(dir.join("results"))
        .arg("--players")
        .arg(player)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

#[test]
fn a_cargo_player_builds_offline_in_the_sandbox_from_the_registry_cache() {
    let dir = tempfile::tempdir().unwrap();
    // A dependency of the harness itself, so it is in the registry cache; the lock file is
    // made once outside, as the error below tells a user to.
    let player = cargo_player(dir.path(), "with-libc", "libc = \"0.2\"");
    let lock = cargo()
        .args(["generate-lockfile", "--offline", "--manifest-path"])
        .arg(player.join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(
        lock.status.success(),
        "{}",
        String::from_utf8_lossy(&lock.stderr)
    );
    let (out, text) = contained_run(dir.path(), &player);
    support::expect_exit(&out, 0);
    let log = build_log(&dir.path().join("results"));
    assert!(
        log.contains("--offline") && log.contains(", contained)") && log.contains("Compiling libc"),
        "{log}"
    );
    let rows = support::scores(&dir.path().join("results"));
    assert_eq!(rows.len(), 1, "{text}");
    // Built into the contained build's own folder, apart from the user's builds.
    assert!(dir
        .path()
        .join("target/harness-sandbox/release/with-libc")
        .is_file());
    assert!(!dir.path().join("target/release").exists());
}

#[test]
fn a_cargo_player_whose_dependencies_are_not_fetched_gets_an_error_naming_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    // Locked to a crate no registry cache holds.
    let player = cargo_player(
        dir.path(),
        "not-fetched",
        "harness-fixture-never-fetched = \"1.0.0\"",
    );
    std::fs::write(
        player.join("Cargo.lock"),
        "version = 4\n\n[[package]]\nname = \"harness-fixture-never-fetched\"\nversion = \"1.0.0\"\n\
         source = \"registry+https://github.com/rust-lang/crates.io-index\"\n\
         checksum = \"0000000000000000000000000000000000000000000000000000000000000000\"\n\n\
         [[package]]\nname = \"not-fetched\"\nversion = \"0.1.0\"\n\
         dependencies = [\n \"harness-fixture-never-fetched\",\n]\n",
    )
    .unwrap();
    let (out, text) = contained_run(dir.path(), &player);
    support::expect_exit(&out, 2);
    assert!(
        text.contains("harness-fixture-never-fetched")
            && text.contains("a contained build has no network")
            && text.contains(&format!(
                "cargo fetch --manifest-path {}",
                player.join("Cargo.toml").display()
            )),
        "{text}"
    );
    // Without a lock file: the same fix, said before any build.
    std::fs::remove_file(player.join("Cargo.lock")).unwrap();
    let (out, text) = contained_run(dir.path(), &player);
    support::expect_exit(&out, 2);
    assert!(
        text.contains("has no Cargo.lock") && text.contains("cargo fetch --manifest-path"),
        "{text}"
    );
}

#[test]
fn a_contained_build_over_its_memory_limit_is_killed_and_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let player = dir.path().join("greedy-build");
    std::fs::create_dir(&player).unwrap();
    // 400 MB held at once, then a line that says it got them.
    std::fs::write(
        player.join("player.toml"),
        "problem = \"chesspuzzle\"\n\
         build = [\"python3\", \"-c\", \"x = bytearray(400 << 20); print('held', len(x) >> 20, 'MB')\"]\n\
         command = [\"python3\", \"main.py\"]\n",
    )
    .unwrap();
    std::fs::copy(
        support::root().join("players/chesspuzzle-python/main.py"),
        player.join("main.py"),
    )
    .unwrap();
    let config = dir.path().join("scoring.toml");
    std::fs::write(&config, "[harness]\nbuild-memory-limit = 64\n").unwrap();
    let run = |contained: bool| {
        let mut cmd = support::harness();
        cmd.args(["--seeds", "1", "--config"])
            .arg(&config)
            .arg("--testcases")
            .arg(support::root().join("testcases"))
            .arg("--results")
            .arg(dir.path().join("results"))
            .arg("--players")
            .arg(&player);
        if contained {
            cmd.arg("--build-sandbox");
        }
        cmd.output().unwrap()
    };
    // As the user, the build gets its memory (the limit is the sandbox's).
    let out = run(false);
    support::expect_exit(&out, 0);
    assert!(
        build_log(&dir.path().join("results")).contains("held 400 MB"),
        "{}",
        build_log(&dir.path().join("results"))
    );
    let out = run(true);
    support::expect_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ran out of memory") && stderr.contains("build-memory-limit = 64 MB"),
        "{stderr}"
    );
}

#[test]
fn sigterm_during_a_contained_build_ends_the_run_and_leaves_nothing() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let token = format!(
        "sleeper-{}",
        dir.path().file_name().unwrap().to_string_lossy()
    );
    let player = dir.path().join("hangs");
    std::fs::create_dir(&player).unwrap();
    // A build that starts a background process and waits, both under the token's name.
    std::fs::write(
        player.join("player.toml"),
        format!(
            "problem = \"chesspuzzle\"\nbuild = [\"sh\", \"-c\", \"cp /bin/sleep ./{token} && \
             (./{token} 300 &) && echo started >&2 && exec ./{token} 300\"]\n\
             command = [\"target/main\"]\n"
        ),
    )
    .unwrap();
    let mut harness = support::harness()
        .args(["--seeds", "1", "--build-sandbox", "--results"])
        .arg(dir.path().join("results"))
        .arg("--players")
        .arg(&player)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = harness.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    // The build's stderr reaches the screen as it comes: it is running.
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| l == "started") {
        match rx.recv_timeout(Duration::from_secs(240)) {
            Ok(line) => seen.push(line),
            Err(e) => panic!("the build never started ({e}): {seen:?}"),
        }
    }
    assert_eq!(
        support::processes_mentioning(&token).len(),
        2,
        "both of the build's processes run"
    );
    // SAFETY: plain syscall on the harness this test started.
    unsafe { libc::kill(harness.id() as i32, libc::SIGTERM) };
    let status = harness.wait().unwrap();
    seen.extend(rx.iter());
    assert_eq!(status.code(), Some(130), "{seen:?}");
    assert!(
        seen.iter().any(|l| l.contains("was interrupted")),
        "{seen:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !support::processes_mentioning(&token).is_empty() {
        assert!(
            Instant::now() < deadline,
            "left running: {:?}",
            support::processes_mentioning(&token)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!dir.path().join("results").exists(), "nothing written");
}

/// Under `umask 077` (a hardened shell), a contained build and its player run as under any
/// other umask, in both modes: the harness sets the modes of the folders it makes (the
/// run's private copy and the folders above it, the sandbox's mount points). The player's
/// own files are as such a umask leaves them (owner only).
#[test]
fn a_contained_build_works_under_umask_077() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let player = dir.path().join("players/alice");
    std::fs::create_dir_all(&player).unwrap();
    std::fs::copy(support::compile_c("build-attack"), player.join("source")).unwrap();
    std::fs::write(
        player.join("player.toml"),
        "problem = \"chesspuzzle\"\nbuild = [\"cp\", \"source\", \"player\"]\n\
         command = [\"./player\", \".\", \"play\"]\n",
    )
    .unwrap();
    for (path, mode) in [
        (dir.path().join("players"), 0o700),
        (player.clone(), 0o700),
        (player.join("source"), 0o700),
        (player.join("player.toml"), 0o600),
    ] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    std::fs::write(dir.path().join("scoring.toml"), "").unwrap();
    for sandbox in ["auto", "off"] {
        let results = dir.path().join(format!("results-{sandbox}"));
        let out = Command::new("sh")
            .args(["-c", "umask 077 && exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_harness"))
            .arg("--players")
            .arg(&player)
            .args(["--seeds", "1..3", "--build-sandbox", "--sandbox", sandbox])
            .arg("--results")
            .arg(&results)
            .current_dir(dir.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        support::expect_exit(&out, 0);
        let log = build_log(&results);
        assert!(log.contains(", contained)"), "{sandbox}: {log}");
        let rows = support::scores(&results);
        assert_eq!(rows.len(), 3, "{sandbox}: {rows:?}");
        assert!(
            rows.iter().all(|r| r["verdict"] == "OK"),
            "{sandbox}: {rows:?}"
        );
    }
}

/// A contest's own `build` (problem.toml) is other people's code too: under
/// `--build-sandbox` with a key it runs contained as a player's build does (issue 37). The
/// hostile build reads /etc/shadow and leaves a `setsid` daemon: the build log proves both
/// attacks ran (its REACHED / BLOCKED lines), the file is out of reach, nothing is left
/// running, `run.toml` says the builds were contained, and the contest's folder is as it was.
#[test]
fn a_contest_build_is_contained_like_a_players() {
    let scratch = Scratch::new("contest-build");
    let tag = scratch.tag();
    let problem = scratch.path().join("testcases/attack");
    let tools = problem.join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::copy(
        support::compile_c("build-attack"),
        tools.join("build-attack"),
    )
    .unwrap();
    std::fs::write(
        tools.join("build.sh"),
        format!(
            "./build-attack {tag:?} shadow\n./build-attack {tag:?} daemon victim-{}\n\
             echo built > built.txt\n",
            scratch.token()
        ),
    )
    .unwrap();
    std::fs::write(
        tools.join("gen.sh"),
        "mkdir in\ni=0\nwhile read s; do echo \"$s\" > in/$(printf %04d $i).txt; i=$((i+1)); done < \"$1\"\n",
    )
    .unwrap();
    std::fs::write(
        tools.join("judge.sh"),
        "cat built.txt >&2\necho 'Score = 1'\n",
    )
    .unwrap();
    std::fs::write(
        problem.join("problem.toml"),
        "shape = \"batch\"\nobjective = \"max\"\ntools = \"tools\"\nbuild = [\"sh\", \"build.sh\"]\n\
         inputs = { gen = [\"sh\", \"gen.sh\", \"{seeds}\"], dir = \"in\" }\n\
         judge = [\"sh\", \"judge.sh\", \"{input}\", \"{output}\"]\n",
    )
    .unwrap();
    std::fs::write(scratch.path().join("scoring.toml"), "").unwrap();
    let player = scratch.players_dir().join("echo");
    support::sh_player(&player, "attack", "read x\necho 1\n");
    for dir in [&problem, &tools, &player] {
        containment::open_to_all(dir);
    }
    let before = support::checksums(&problem);

    let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
    cmd.current_dir(scratch.path())
        .stdin(std::process::Stdio::null())
        .env("HARNESS_SECRET", KEY)
        .arg("--players")
        .arg(&player)
        .args(["--seeds", "1..2", "--build-sandbox", "--results"])
        .arg(scratch.results());
    let ran = run_within(&mut cmd, Duration::from_secs(300));
    support::expect_exit(&ran.output, 0);
    let log = build_log(&scratch.results());
    assert!(
        log.contains("$ sh build.sh") && log.contains(", contained)"),
        "the contest's build ran contained: {log}"
    );
    // The fixture ran both attacks.
    assert!(log.contains("read /etc/shadow"), "{log}");
    assert!(log.contains("REACHED leave a daemon"), "{log}");
    expect_blocked(&log, "read /etc/shadow");
    let left = scratch.left_running();
    assert!(left.is_empty(), "processes left running: {left:#?}");
    let run_toml = std::fs::read_to_string(scratch.results().join("latest/run.toml")).unwrap();
    assert!(run_toml.contains("builds = \"contained ("), "{run_toml}");
    let rows = support::scores(&scratch.results());
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r["verdict"] == "OK"), "{rows:?}");
    assert_eq!(
        support::checksums(&problem),
        before,
        "the contest's folder changed"
    );
}
