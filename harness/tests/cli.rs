//! The `harness` binary as a user runs it: exit codes, error messages that name the offending
//! thing, the files a run writes, `gen`, determinism across thread counts, and Ctrl-C.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn harness() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
    cmd.current_dir(root());
    cmd
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.stdin(Stdio::null()).output().expect("harness runs");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).to_string(),
        String::from_utf8_lossy(&stderr).to_string(),
    )
}

/// A program as a printed command names it, started from the workspace root (where the
/// tests run the harness) is this harness binary.
fn assert_is_this_harness(program: &str) {
    let named = if program == "harness" {
        panic!("`harness` is not on PATH in the tests: the command cannot work as printed");
    } else {
        std::fs::canonicalize(root().join(program))
    };
    assert_eq!(
        named.unwrap_or_else(|e| panic!("{program}: {e}")),
        std::fs::canonicalize(env!("CARGO_BIN_EXE_harness")).unwrap(),
        "{program}"
    );
}

/// PATH without any folder that has a `harness` in it: what a user has who never installed it.
fn path_without_harness() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| !dir.join("harness").exists())
        .collect();
    std::env::join_paths(kept).unwrap()
}

/// A shell-script player in a fresh folder: (folder, path).
/// Lets a process-mode player write into its own folder: under a root harness it runs as an
/// unprivileged user, who may write only where any user may.
fn open_for_writing(dir: &Path) {
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o777))
        .expect("chmod");
}

fn script(body: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("player.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    (dir, path)
}

/// A chesspuzzle player in Python that clicks (0, 0) and then the first cell it may, knowing
/// the rules only from what it is told: it keeps the visible tops and stack heights unknown,
/// so it answers with a fixed legal-looking guess and is judged honestly.
const FIRST_CELL: &str = "read header\necho '0 0'\nwhile read line; do echo '0 0'; done";

#[test]
fn bad_seed_specs_are_usage_errors_naming_the_spec() {
    let (_d, player) = script(FIRST_CELL);
    for (spec, needle) in [
        ("5..1", "\"5..1\" is empty"),
        ("x", "\"x\""),
        ("1-10", "did you mean 1..10?"),
    ] {
        let (code, _, err) = run(harness()
            .args(["--problem", "chesspuzzle", "--seeds", spec, "--players"])
            .arg(&player));
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(needle), "{err}");
    }
}

#[test]
fn unknown_problem_and_missing_player_are_usage_errors() {
    let (code, _, err) = run(harness().args(["--problem", "chess", "--players", "x"]));
    assert_eq!(code, 2);
    assert!(err.contains("unknown problem \"chess\""), "{err}");
    let (code, _, err) = run(harness().args(["--players", "players/no-such-player"]));
    assert_eq!(code, 2);
    assert!(err.contains("players/no-such-player"), "{err}");
}

#[test]
fn a_temporary_folder_that_cannot_be_written_is_a_usage_error_naming_it() {
    let missing = tempfile::tempdir().unwrap().path().join("gone");
    let (code, _, err) = run(harness().env("TMPDIR", &missing).args([
        "--players",
        "players/linez-random",
        "--seeds",
        "1",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&*missing.to_string_lossy()), "{err}");
    assert!(err.contains("set TMPDIR"), "{err}");
    assert!(!err.contains("player /"), "not a player's problem: {err}");
}

#[test]
fn doctor_says_what_holds_and_where_a_run_keeps_its_folders() {
    let (code, out, err) = run(harness().arg("doctor"));
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("isolation checks:"), "{out}");
    // Every check on one line, its value in one column.
    let column = |line: &str| line.get(37..38) == Some(" ") && line.get(38..39) != Some(" ");
    for what in [
        "user namespaces",
        "landlock",
        "cgroup per test",
        "scratch space",
    ] {
        let line = out
            .lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no {what} line:\n{out}"));
        assert!(column(line), "{what} is out of its column:\n{out}");
    }
    // The scratch space the run below would use, as the harness chooses it here.
    let base = harness::sandbox::scratch::base().display().to_string();
    assert!(
        out.lines()
            .any(|l| l.contains("scratch space") && l.contains(&base)),
        "{out}"
    );
    assert!(out.contains("a run here "), "{out}");
    // A folder the user names is the one used.
    let named = tempfile::tempdir().unwrap();
    let (code, out, err) = run(harness().arg("doctor").env("TMPDIR", named.path()));
    assert_eq!(code, 0, "{err}");
    let line = out.lines().find(|l| l.contains("scratch space")).unwrap();
    assert!(
        line.contains(&*named.path().to_string_lossy()) && line.contains("(TMPDIR"),
        "{line}"
    );
}

/// `harness bench`'s short check, as docs/benchmark.md gives it, with the parts that start
/// peers of their own (the plain forwarder, the relay, sandboxed suites): every way is
/// measured and every figure is a positive number.
#[test]
fn the_bench_measures_every_way_of_the_relay_and_both_modes_of_the_suite() {
    let (code, out, err) = run(harness().args([
        "bench",
        "--only",
        "relay",
        "--only",
        "suite",
        "--round-trips",
        "900",
        "--seeds",
        "1..3",
    ]));
    assert_eq!(code, 0, "{out}\n{err}");
    let number = |text: &str, line: &str| -> f64 {
        let token = text.split_whitespace().next().unwrap_or_default();
        token
            .trim_end_matches('x')
            .parse()
            .unwrap_or_else(|_| panic!("no number at {text:?} in {line:?}"))
    };
    // The first figure after `label` on its line.
    let figure = |label: &str| -> f64 {
        let line = out
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no {label:?} line:\n{out}"));
        let (_, after) = line.split_once(label).expect("found");
        number(after, line)
    };
    for way in [
        "tool <-> plain process, one pipe",
        "tool <-> plain forwarder <-> plain process",
        "tool <-> waiting forwarder <-> plain process",
        "tool <-> harness (proxy) <-> sandboxed player",
        "tool <-> sandboxed player (relay = \"direct\")",
    ] {
        assert!(figure(way) > 0.0, "{out}");
    }
    let proxy = out.lines().find(|l| l.contains("(proxy)")).expect("above");
    let (_, over) = proxy
        .rsplit_once("; ")
        .expect("the proxy over the waiting forwarder");
    assert!(over.ends_with("x the waiting forwarder"), "{proxy}");
    assert!(number(over, proxy) > 0.0, "{out}");
    for ratio in [
        "threads / 1 thread, process mode:",
        "threads / 1 thread, sandbox + cgroup:",
        "sandbox + cgroup / process mode, 1 thread:",
    ] {
        assert!(figure(ratio) > 0.0, "{out}");
    }
}

/// The bench's two forwarders pass each line of their input to `harness echo` and its answer
/// back, the last answers too once their input has ended.
#[test]
fn the_bench_forwarders_pass_every_line_and_its_answer() {
    for forwarder in ["forward", "forward-waiting"] {
        let mut child = harness()
            .arg(forwarder)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut input, b"1 2\n3 4\n5 6\n").unwrap();
        drop(input);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{forwarder}: {:?}", out.status);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "0 0\n0 0\n0 0\n",
            "{forwarder}"
        );
    }
}

#[test]
fn doctor_says_what_holds_a_contests_tools_without_a_cgroup() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("scoring.toml");
    std::fs::write(&config, "[harness]\ncgroup = \"off\"\n").unwrap();
    let (code, out, err) = run(harness().arg("doctor").arg("--config").arg(&config));
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.contains("contest tools without a cgroup"))
        .unwrap_or_else(|| panic!("no note on the tools:\n{out}"));
    // The same facts as the note at the start of a run.
    assert!(line.starts_with("  note: "), "{line}");
    assert!(
        line.contains("judge-memory") && line.contains("RLIMIT_AS"),
        "{line}"
    );
    assert!(line.contains("RLIMIT_FSIZE"), "{line}");
}

#[test]
fn non_executable_player_and_bad_player_toml_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain.txt");
    std::fs::write(&file, "not a program").unwrap();
    let (code, _, err) = run(harness()
        .args(["--problem", "chesspuzzle", "--players"])
        .arg(&file));
    assert_eq!(code, 2);
    assert!(
        err.contains("plain.txt") && err.contains("not executable"),
        "{err}"
    );

    std::fs::write(
        dir.path().join("player.toml"),
        "name = \"p\"\nproblem = \"chesspuzzle\"\n",
    )
    .unwrap();
    let (code, _, err) = run(harness().arg("--players").arg(dir.path()));
    assert_eq!(code, 2);
    assert!(
        err.contains("player.toml") && err.contains("command"),
        "{err}"
    );

    std::fs::write(
        dir.path().join("player.toml"),
        "name = \"p\"\nproblem = \"go\"\ncommand = [\"sh\"]\n",
    )
    .unwrap();
    let (code, _, err) = run(harness().arg("--players").arg(dir.path()));
    assert_eq!(code, 2);
    assert!(err.contains("unknown problem \"go\""), "{err}");
}

#[test]
fn invalid_scoring_toml_shows_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("scoring.toml");
    std::fs::write(&config, "[problem.chesspuzzle]\ntime-limit = \"soon\"\n").unwrap();
    let (_d, player) = script(FIRST_CELL);
    let (code, _, err) = run(harness()
        .arg("--config")
        .arg(&config)
        .args(["--problem", "chesspuzzle", "--players"])
        .arg(&player));
    assert_eq!(code, 2);
    assert!(
        err.contains("scoring.toml") && err.contains("line 2"),
        "{err}"
    );
}

#[test]
fn gen_prints_the_same_full_input_every_time() {
    let (code, first, err) =
        run(harness().args(["gen", "--problem", "chesspuzzle", "--seed", "5"]));
    assert_eq!(code, 0, "{err}");
    let (_, second, _) = run(harness().args(["gen", "--problem", "chesspuzzle", "--seed", "5"]));
    assert_eq!(first, second);
    let header: Vec<usize> = first
        .lines()
        .next()
        .unwrap()
        .split(' ')
        .map(|t| t.parse().unwrap())
        .collect();
    let (h, k) = (header[0], header[2]);
    let rows = first.lines().skip(1).filter(|l| !l.is_empty()).count();
    assert_eq!(rows, h * k, "all K layers are printed");
}

fn read_csv(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).expect("csv");
    let mut rows = vec![r.headers().unwrap().iter().map(String::from).collect()];
    rows.extend(
        r.records()
            .map(|rec| rec.unwrap().iter().map(String::from).collect::<Vec<_>>()),
    );
    rows
}

#[test]
fn a_run_writes_scores_leaderboard_and_latest() {
    let results = tempfile::tempdir().unwrap();
    let (_d, player) = script(FIRST_CELL);
    let (code, out, err) = run(harness()
        .args([
            "--problem",
            "chesspuzzle",
            "--seeds",
            "1..3,7",
            "--threads",
            "2",
            "--results",
        ])
        .arg(results.path())
        .arg("--players")
        .arg(&player));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("chesspuzzle") && out.contains("player"),
        "{out}"
    );
    let latest = results.path().join("latest");
    let scores = read_csv(&latest.join("scores.csv"));
    assert_eq!(
        scores[0],
        [
            "problem",
            "player",
            "seed",
            "score",
            "verdict",
            "moves",
            "think_ms",
            "cpu_ms",
            "wall_ms",
            "max_memory_kb",
            "warning",
            "player_hash",
            "harness_version",
            "H",
            "W",
            "K",
            "reason"
        ]
    );
    let seeds: Vec<&str> = scores[1..].iter().map(|r| r[2].as_str()).collect();
    assert_eq!(seeds, ["1", "2", "3", "7"], "rows sorted by seed");
    for row in &scores[1..] {
        // Clicking (0, 0) twice is never allowed: the second click is judged invalid.
        assert_eq!(row[4], "WA", "{row:?}");
        assert_eq!(row[3], "0");
        assert!(row[16].contains("not allowed"), "{row:?}");
    }
    let board = read_csv(&latest.join("leaderboard.csv"));
    assert_eq!(board[1][0..3], ["chesspuzzle", "player", "4"]);
    let wa = board[0].iter().position(|c| c == "WA").unwrap();
    assert_eq!(board[1][wa], "4");
}

/// Rows of scores.csv without the columns of times, memory and warnings about them (which
/// vary from run to run).
fn stable_rows(path: &Path) -> Vec<Vec<String>> {
    const VARYING: [&str; 5] = ["think_ms", "cpu_ms", "wall_ms", "max_memory_kb", "warning"];
    let rows = read_csv(path);
    let keep: Vec<bool> = rows[0]
        .iter()
        .map(|c| !VARYING.contains(&c.as_str()))
        .collect();
    rows.into_iter()
        .map(|row| {
            row.into_iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(v, _)| v)
                .collect()
        })
        .collect()
}

/// A copy of a player's folder under `dir` (its files and folders, build outputs and
/// caches left out).
fn private_copy(player: &Path, dir: &Path) -> PathBuf {
    let copy = dir.join(player.file_name().unwrap());
    std::fs::create_dir(&copy).unwrap();
    for entry in std::fs::read_dir(player).unwrap().flatten() {
        let kind = entry.file_type().unwrap();
        let name = entry.file_name();
        if kind.is_dir() && !["target", "__pycache__", ".git"].contains(&&*name.to_string_lossy()) {
            private_copy(&entry.path(), &copy);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), copy.join(&name)).unwrap();
        }
    }
    copy
}

#[test]
fn thread_count_does_not_change_any_score() {
    // The shipped players, the `player.toml` ones as copies of this test's own: what a user
    // does in players/ meanwhile (editing, running them) cannot change this test's runs.
    // (Cargo players run from a copy of their binary taken when each run starts.)
    let copies = tempfile::tempdir().unwrap();
    let players: Vec<PathBuf> = std::fs::read_dir(root().join("players"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| match p.join("player.toml").is_file() {
            true => private_copy(&p, copies.path()),
            false => p,
        })
        .collect();
    let mut runs = Vec::new();
    for threads in ["1", "2"] {
        let results = tempfile::tempdir().unwrap();
        let (code, _, err) = run(harness()
            .args(["--seeds", "1..12", "--threads", threads, "--results"])
            .arg(results.path())
            .arg("--players")
            .args(&players));
        assert_eq!(code, 0, "{err}");
        runs.push(stable_rows(&results.path().join("latest/scores.csv")));
    }
    assert!(runs[0].len() > 12, "every player ran");
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn ctrl_c_keeps_finished_rows_writes_a_partial_leaderboard_and_exits_130() {
    let results = tempfile::tempdir().unwrap();
    // Answers at once for the first seeds, then thinks for a long time (the pid file of its
    // child appears whole: written, then renamed).
    let (dir, player) = script(
        "read header\ncd \"$HARNESS_PLAYER_DIR\"\nif [ -e started ]; then sleep 30 & echo $! > pids.part; mv pids.part pids; wait; fi\ntouch started\necho '0 0'\nexit 0",
    );
    open_for_writing(dir.path());
    let child = harness()
        .args([
            "--problem",
            "chesspuzzle",
            "--seeds",
            "1..50",
            "--threads",
            "1",
            // The player marks its progress in its own folder: process mode, where it may.
            "--sandbox",
            "off",
            "--results",
        ])
        .arg(results.path())
        .arg("--players")
        .arg(&player)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pids = dir.path().join("pids");
    let until = Instant::now() + Duration::from_secs(20);
    while !pids.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(pids.exists(), "the run reached the slow seed");
    // SAFETY: kill takes no pointer; the child is ours and not yet reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let start = Instant::now();
    let out = child.wait_with_output().unwrap();
    // The player's sleep is 30 s: well under that is prompt, on a loaded machine too.
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "stopped promptly"
    );
    assert_eq!(out.status.code(), Some(130));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("partial: 1 of 50 tests finished"),
        "{stdout}"
    );
    let latest = results.path().join("latest");
    let id = std::fs::read_link(&latest).unwrap();
    let resume = stdout
        .lines()
        .find_map(|l| l.strip_prefix("interrupted: to finish this run, "))
        .unwrap_or_else(|| panic!("no resume command:\n{stdout}"));
    let (program, flags) = resume.split_once(' ').unwrap();
    assert_is_this_harness(program);
    assert_eq!(
        flags,
        format!(
            "--resume {} --results {}",
            id.display(),
            results.path().display()
        )
    );
    assert_eq!(
        read_csv(&latest.join("scores.csv")).len(),
        2,
        "the finished row is kept"
    );
    let board = read_csv(&latest.join("leaderboard.csv"));
    assert_eq!(board[1][2], "1");
    assert_eq!(board[1].last().unwrap(), "true", "marked partial");
    let pid: i32 = std::fs::read_to_string(&pids)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SIGKILL is delivered asynchronously and init reaps the orphan shortly after.
    let until = Instant::now() + Duration::from_secs(5);
    // SAFETY: signal 0 only checks that the process exists.
    while unsafe { libc::kill(pid, 0) } == 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        // SAFETY: signal 0 only checks that the process exists.
        unsafe { libc::kill(pid, 0) } != 0,
        "the player's child was killed"
    );
}

#[test]
fn resume_runs_only_the_missing_tests_and_reruns_a_changed_player() {
    let results = tempfile::tempdir().unwrap();
    let (dir, player) = script(&format!(
        "echo run >> \"$HARNESS_PLAYER_DIR/calls\"\n{FIRST_CELL}"
    ));
    open_for_writing(dir.path());
    let calls = || {
        std::fs::read_to_string(dir.path().join("calls"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    let (code, _, err) = run(harness()
        // The player counts its runs in its own folder: process mode, where it may write.
        .args([
            "--problem",
            "chesspuzzle",
            "--seeds",
            "1..4",
            "--sandbox",
            "off",
            "--results",
        ])
        .arg(results.path())
        .arg("--players")
        .arg(&player));
    assert_eq!(code, 0, "{err}");
    assert_eq!(calls(), 4);
    let id = std::fs::read_link(results.path().join("latest")).unwrap();
    let id = id.to_str().unwrap();
    let scores_path = results.path().join(id).join("scores.csv");

    // As an interrupted run leaves it: only some rows written.
    let text = std::fs::read_to_string(&scores_path).unwrap();
    let kept: Vec<&str> = text.lines().take(3).collect();
    std::fs::write(&scores_path, kept.join("\n") + "\n").unwrap();
    let (code, _, err) = run(harness()
        .args(["--resume", id, "--results"])
        .arg(results.path()));
    assert_eq!(code, 0, "{err}");
    assert_eq!(calls(), 6, "only the 2 missing tests ran");
    let rows = read_csv(&scores_path);
    let seeds: Vec<&str> = rows[1..].iter().map(|r| r[2].as_str()).collect();
    assert_eq!(seeds, ["1", "2", "3", "4"]);
    let board = read_csv(&results.path().join(id).join("leaderboard.csv"));
    assert_eq!(board[1][2], "4", "the leaderboard counts old and new rows");

    // A changed player is not mixed with its old rows: all its tests run again.
    std::fs::write(
        &player,
        format!("#!/bin/sh\n# changed\necho run >> \"$HARNESS_PLAYER_DIR/calls\"\n{FIRST_CELL}\n"),
    )
    .unwrap();
    let (code, _, err) = run(harness()
        .args(["--resume", id, "--results"])
        .arg(results.path()));
    assert_eq!(code, 0, "{err}");
    assert_eq!(calls(), 10);
    assert_eq!(read_csv(&scores_path).len(), 5);
    assert!(
        err.contains(
            "player player changed since the run began (new hash): its 4 finished tests run again"
        ),
        "the resume does not say why it reruns the player:\n{err}"
    );

    let (code, _, err) = run(harness()
        .args(["--resume", "no-such-run", "--results"])
        .arg(results.path()));
    assert_eq!(code, 2);
    assert!(err.contains("no-such-run"), "{err}");
}

#[test]
fn a_tag_given_on_resume_names_the_resumed_run() {
    let results = tempfile::tempdir().unwrap();
    let (_dir, player) = script(FIRST_CELL);
    let (code, _, err) = run(harness()
        .args([
            "--problem",
            "chesspuzzle",
            "--seeds",
            "1..2",
            "--tag",
            "first",
        ])
        .arg("--results")
        .arg(results.path())
        .arg("--players")
        .arg(&player));
    assert_eq!(code, 0, "{err}");
    let id = std::fs::read_link(results.path().join("latest")).unwrap();
    let id = id.to_str().unwrap().to_string();
    let runs = |results: &Path| {
        let (code, out, err) = run(harness().arg("runs").arg("--results").arg(results));
        assert_eq!(code, 0, "{err}");
        out
    };
    assert!(runs(results.path()).contains("tag \"first\""));
    // Resumed without --tag: the run keeps its tag.
    let (code, _, err) = run(harness()
        .args(["--resume", &id, "--results"])
        .arg(results.path()));
    assert_eq!(code, 0, "{err}");
    assert!(runs(results.path()).contains("tag \"first\""));
    let (code, _, err) = run(harness()
        .args(["--resume", &id, "--comment", "wider beam", "--results"])
        .arg(results.path()));
    assert_eq!(code, 0, "{err}");
    let out = runs(results.path());
    assert!(
        out.contains("tag \"wider beam\"") && !out.contains("first"),
        "{out}"
    );
}

#[test]
fn a_resumed_run_keeps_its_recorded_rank_by_unless_told_another() {
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("scoring.toml");
    let rank_by = |by: &str| {
        std::fs::write(
            &config,
            format!("[problem.chesspuzzle]\nrank-by = \"{by}\"\n"),
        )
        .unwrap()
    };
    let results = tempfile::tempdir().unwrap();
    let (_dir, player) = script(FIRST_CELL);
    let harness_with_config = || {
        let mut cmd = harness();
        cmd.arg("--config")
            .arg(&config)
            .arg("--testcases")
            .arg(root().join("testcases"))
            .arg("--results")
            .arg(results.path());
        cmd
    };
    rank_by("log");
    let (code, _, err) = run(harness_with_config()
        .args(["--problem", "chesspuzzle", "--seeds", "1..2", "--players"])
        .arg(&player));
    assert_eq!(code, 0, "{err}");
    let id = std::fs::read_link(results.path().join("latest")).unwrap();
    let dir = results.path().join(id);
    // What run.toml and leaderboard.csv say the run is ranked by.
    let ranked_by = || {
        let toml: toml::Table = std::fs::read_to_string(dir.join("run.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let recorded = toml["problem"]["chesspuzzle"]["rank-by"].as_str().unwrap();
        let board = read_csv(&dir.join("leaderboard.csv"));
        let column = board[0].iter().position(|h| h == "rank_by").unwrap();
        (recorded.to_string(), board[1][column].clone())
    };
    assert_eq!(ranked_by(), ("log".into(), "log".into()));
    // scoring.toml changed since: the resumed run is ranked as it began.
    rank_by("raw");
    let id = dir.file_name().unwrap().to_str().unwrap().to_string();
    let (code, _, err) = run(harness_with_config().args(["--resume", &id]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(ranked_by(), ("log".into(), "log".into()));
    // --rank-by given on --resume ranks it, and run.toml records it.
    let (code, _, err) = run(harness_with_config().args(["--resume", &id, "--rank-by", "rank"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(ranked_by(), ("rank".into(), "rank".into()));
}

#[test]
fn unreadable_test_data_and_unwritable_results_are_usage_errors() {
    let empty = tempfile::tempdir().unwrap();
    let results = tempfile::tempdir().unwrap();
    let (_d, player) = script("exit 0");
    // Linez needs the statement's positions from testcases/linez/examples.txt for the
    // statement's seeds (other seeds run without it).
    let (code, _, err) = run(harness()
        .args(["--problem", "linez", "--seeds", "149738788", "--testcases"])
        .arg(empty.path())
        .arg("--results")
        .arg(results.path())
        .arg("--players")
        .arg(&player));
    assert_eq!(code, 2);
    assert!(err.contains("examples.txt"), "{err}");
    assert_eq!(
        std::fs::read_dir(results.path()).unwrap().count(),
        0,
        "nothing written"
    );

    let file = empty.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let (code, _, err) = run(harness()
        .args(["--problem", "chesspuzzle", "--seeds", "1", "--results"])
        .arg(file.join("results"))
        .arg("--players")
        .arg(&player));
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot write results") && err.contains("a-file"),
        "{err}"
    );
}

#[test]
fn players_inherit_no_descriptor_of_the_harness() {
    // The player becomes `ls`, which lists its open descriptors on stderr: 0, 1, 2 and the
    // folder `ls` itself reads (3). This test process holds more (the test runner's), and the
    // harness more still (its pipes, pidfds, scores.csv): none may reach a player, in either
    // isolation mode.
    let (_d, player) = script("exec ls /proc/self/fd >&2");
    for sandbox in ["auto", "off"] {
        let results = tempfile::tempdir().unwrap();
        let (code, _, err) = run(harness()
            .args([
                "--problem",
                "chesspuzzle",
                "--seeds",
                "1..6",
                "--threads",
                "2",
                "--sandbox",
                sandbox,
                "--results",
            ])
            .arg(results.path())
            .arg("--players")
            .arg(&player));
        assert_eq!(code, 0, "{err}");
        for seed in 1..=6 {
            let log = results
                .path()
                .join(format!("latest/logs/chesspuzzle/player/{seed}.stderr"));
            let fds = std::fs::read_to_string(&log).unwrap();
            assert_eq!(
                fds, "0\n1\n2\n3\n",
                "--sandbox {sandbox}, seed {seed}: descriptors beyond 0, 1, 2 reached the player"
            );
        }
    }
}

#[test]
fn exact_answer_players_that_crash_hang_or_babble_get_verdicts_not_errors() {
    let cases = [
        ("crash", "kill -SEGV $$", "RE", "SIGSEGV"),
        ("hang", "sleep 30", "TLE", "thinking time"),
        ("silent", "cat > /dev/null", "WA", "no output"),
        (
            "garbage",
            "cat > /dev/null; echo 'no idea'",
            "WA",
            "line 1: expected",
        ),
    ];
    for (name, body, verdict, reason) in cases {
        let results = tempfile::tempdir().unwrap();
        let (_d, player) = script(body);
        let (code, _, err) = run(harness()
            .args(["--problem", "game-ending", "--no-fixed", "--seeds", "1..2"])
            .args(["--time-limit", "5", "--results"])
            .arg(results.path())
            .arg("--players")
            .arg(&player));
        assert_eq!(code, 0, "{name}: {err}");
        let rows = read_csv(&results.path().join("latest/scores.csv"));
        assert_eq!(rows.len(), 3, "{name}: two generated tests, no fixed ones");
        for row in &rows[1..] {
            assert_eq!(row[4], verdict, "{name}: {row:?}");
            assert!(row.last().unwrap().contains(reason), "{name}: {row:?}");
        }
    }
}

#[test]
fn a_run_is_compared_with_the_previous_run_of_the_same_players() {
    let results = tempfile::tempdir().unwrap();
    // A deterministic player that scores (failed tests never count as best).
    let player = root().join("players/chesspuzzle-python");
    let go = || {
        run(harness()
            .args(["--problem", "chesspuzzle", "--seeds", "1..3", "--results"])
            .arg(results.path())
            .arg("--players")
            .arg(&player))
    };
    let (code, first, err) = go();
    assert_eq!(code, 0, "{err}");
    assert!(!first.contains("vs previous run"), "{first}");
    let id = std::fs::read_link(results.path().join("latest")).unwrap();
    std::thread::sleep(Duration::from_millis(1100)); // a new run id
    let (code, second, err) = go();
    assert_eq!(code, 0, "{err}");
    let line = format!(
        "chesspuzzle: vs previous run {} (3 common tests)",
        id.display()
    );
    assert!(second.contains(&line), "{second}");
    assert!(second.contains("same build"), "{second}");
    let best = read_csv(&results.path().join("best.csv"));
    assert_eq!(best.len(), 4, "a header and one row per seed: {best:?}");
    let scores = read_csv(&results.path().join("latest/scores.csv"));
    for (b, s) in best[1..].iter().zip(&scores[1..]) {
        assert_eq!(
            (&b[1], &b[2]),
            (&s[2], &s[3]),
            "best score of seed {}",
            s[2]
        );
    }

    // A tag (or --comment) is kept in run.toml and named by the next run's comparison.
    std::thread::sleep(Duration::from_millis(1100));
    let (code, _, err) = run(harness()
        .args(["--problem", "chesspuzzle", "--seeds", "1..3"])
        .args(["--comment", "try \"wider\" beam", "--results"])
        .arg(results.path())
        .arg("--players")
        .arg(&player));
    assert_eq!(code, 0, "{err}");
    let tagged = std::fs::read_link(results.path().join("latest")).unwrap();
    let run_toml = std::fs::read_to_string(results.path().join(&tagged).join("run.toml")).unwrap();
    assert!(
        run_toml.contains("\ntag = 'try \"wider\" beam'\n"),
        "{run_toml}"
    );
    std::thread::sleep(Duration::from_millis(1100));
    let (code, third, err) = go();
    assert_eq!(code, 0, "{err}");
    let line = format!(
        "chesspuzzle: vs previous run {} \"try \\\"wider\\\" beam\" (3 common tests)",
        tagged.display()
    );
    assert!(third.contains(&line), "{third}");

    let (code, _, err) = run(harness()
        .args(["--problem", "chesspuzzle", "--group-by", "Q", "--results"])
        .arg(results.path())
        .arg("--players")
        .arg(&player));
    assert_eq!(code, 2);
    assert!(err.contains("--group-by Q"), "{err}");
}

#[test]
fn a_runs_relative_scores_are_against_the_best_known_score_of_each_test() {
    let results = tempfile::tempdir().unwrap();
    // An earlier run scored 10 on every test: more than this player ever does.
    let mut best = String::from("problem,seed,score,player,run,player_hash\n");
    for seed in 1..=3 {
        best.push_str(&format!(
            "chesspuzzle,{seed},10,legend,20260101-000000,ffff\n"
        ));
    }
    std::fs::write(results.path().join("best.csv"), best).unwrap();
    let player = root().join("players/chesspuzzle-python");
    let go = |extra: &[&str]| {
        run(harness()
            .args(["--problem", "chesspuzzle", "--seeds", "1..3"])
            .args(extra)
            .arg("--results")
            .arg(results.path())
            .arg("--players")
            .arg(&player))
    };
    let relative = || {
        let rows = read_csv(&results.path().join("latest/leaderboard.csv"));
        let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
        let mean: f64 = rows[1][col("mean")].parse().unwrap();
        let relative: f64 = rows[1][col("relative")].parse().unwrap();
        (mean, relative)
    };
    let (code, out, err) = go(&[]);
    assert_eq!(code, 0, "{err}");
    let (mean, rel) = relative();
    assert!(mean > 0.0 && mean < 10.0, "{mean}");
    // 1,000,000 x mean(score / 10), the known best of every test.
    assert!(
        (rel - 100_000.0 * mean).abs() < 1e-6 * rel.max(1.0),
        "{rel} for a mean of {mean}"
    );
    assert!(
        out.contains(
            "relative: to the best known score of each test, of results/best.csv and this run \
             (3 of 3 from earlier runs; "
        ),
        "{out}"
    );
    let report = || std::fs::read_to_string(results.path().join("latest/report.html")).unwrap();
    assert!(
        report().contains(
            "BEST is the best known score of each test, of results/best.csv and this run (3 \
             of 3 from earlier runs; "
        ),
        "report.html does not say what the relative score is against"
    );
    std::thread::sleep(Duration::from_millis(1100));
    let (code, out, err) = go(&["--vs-run"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(relative().1, 1_000_000.0);
    assert!(
        out.contains("relative: to the best score of each test in this run (--vs-run)"),
        "{out}"
    );
    assert!(
        report().contains("BEST is the best score of each test in this run (--vs-run)."),
        "report.html does not say what the relative score is against"
    );
}

#[test]
fn gen_and_solve_round_trip_for_an_exact_answer_problem() {
    let (code, input, err) =
        run(harness().args(["gen", "--problem", "russian-checkers", "--seed", "3"]));
    assert_eq!(code, 0, "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .args(["solve", "--problem", "russian-checkers"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(input.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let answer = String::from_utf8_lossy(&out.stdout);
    let count: usize = answer.lines().next().unwrap().parse().unwrap();
    assert_eq!(
        answer.lines().count(),
        count + 1,
        "a count, then that many moves: {answer}"
    );
    let (code, _, err) = run(harness().args(["solve", "--problem", "linez"]));
    assert_eq!(code, 2);
    assert!(err.contains("interactive"), "{err}");
}

#[test]
fn examples_are_the_statement_seeds_for_linez() {
    let results = tempfile::tempdir().unwrap();
    let (code, _, err) = run(harness()
        .args(["--seeds", "examples", "--results"])
        .arg(results.path())
        .arg("--players")
        .arg(root().join("players/linez-python")));
    assert_eq!(code, 0, "{err}");
    let rows = read_csv(&results.path().join("latest/scores.csv"));
    let mut seeds: Vec<u64> = rows[1..].iter().map(|r| r[2].parse().unwrap()).collect();
    seeds.sort();
    assert_eq!(
        seeds,
        [
            1911009, 149738788, 149738789, 825809896, 1077274560, 1109944003, 1438702088,
            1732993602, 1982697456, 2060431272
        ]
    );
    let (code, position, _) =
        run(harness().args(["gen", "--problem", "linez", "--seed", "149738788"]));
    assert_eq!(code, 0);
    assert_eq!(
        position,
        ".........\n.....4...\n.........\n......5..\n.........\n.........\n......3..\n.........\n.........\n545\n"
    );
}

#[test]
fn a_filter_that_matches_no_test_is_a_usage_error_and_runs_nothing() {
    let results = tempfile::tempdir().unwrap();
    let (_d, player) = script(FIRST_CELL);
    for filter in ["K=a", "K=20", "K=3..2"] {
        let (code, _out, err) = run(harness()
            .args([
                "--problem",
                "chesspuzzle",
                "--seeds",
                "1..5",
                "--filter",
                filter,
            ])
            .arg("--results")
            .arg(results.path())
            .arg("--players")
            .arg(&player));
        assert_eq!(code, 2, "--filter {filter}: {err}");
        assert!(err.contains("--filter") && err.contains(filter), "{err}");
    }
    assert!(
        !results.path().join("latest").exists(),
        "an empty run became latest"
    );
    // A filter that keeps some tests still runs them.
    let (code, _out, err) = run(harness()
        .args([
            "--problem",
            "chesspuzzle",
            "--seeds",
            "1..5",
            "--filter",
            "K=1..10",
        ])
        .arg("--results")
        .arg(results.path())
        .arg("--players")
        .arg(&player));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn vs_previous_run_skips_runs_with_no_test_in_common() {
    let results = tempfile::tempdir().unwrap();
    let (_d, player) = script(FIRST_CELL);
    let mut outs = Vec::new();
    for seeds in ["1..2", "3..4", "2..3"] {
        let (code, out, err) = run(harness()
            .args([
                "--problem",
                "chesspuzzle",
                "--seeds",
                seeds,
                "--threads",
                "1",
            ])
            .arg("--results")
            .arg(results.path())
            .arg("--players")
            .arg(&player));
        assert_eq!(code, 0, "{err}");
        outs.push(out);
        // Run ids are timestamps to the second.
        std::thread::sleep(Duration::from_millis(1100));
    }
    assert!(!outs[1].contains("vs previous run"), "{}", outs[1]);
    assert!(outs[2].contains("(1 common tests)"), "{}", outs[2]);
}

#[test]
fn a_time_limit_after_a_partial_line_says_so_and_does_not_blame_the_machine() {
    let results = tempfile::tempdir().unwrap();
    // Writes half an answer and waits: the line never ends (an unflushed line looks alike).
    let (_d, player) = script("read header\nprintf '0 '\nsleep 30");
    let (code, _out, err) = run(harness()
        .args([
            "--problem",
            "chesspuzzle",
            "--seeds",
            "1",
            "--time-limit",
            "1",
        ])
        .arg("--results")
        .arg(results.path())
        .arg("--players")
        .arg(&player));
    assert_eq!(code, 0, "{err}");
    let scores = read_csv(&results.path().join("latest/scores.csv"));
    let col = |name: &str| scores[0].iter().position(|h| h == name).unwrap();
    let row = &scores[1];
    assert_eq!(row[col("verdict")], "TLE");
    let reason = &row[col("reason")];
    assert!(
        reason.contains("2 bytes of a line received and no newline") && reason.contains("flush"),
        "{reason}"
    );
    let warning = &row[col("warning")];
    assert!(!warning.contains("overloaded"), "{warning}");
}

#[test]
fn a_player_that_never_flushes_gets_a_time_limit_that_says_so_with_the_move_and_the_limit() {
    let results = tempfile::tempdir().unwrap();
    // Python block-buffers stdout into a pipe: its answer waits in the buffer while it waits
    // for the reply. The other player answers once (flushed) and then goes silent.
    let dir = tempfile::tempdir().unwrap();
    let python = dir.path().join("unflushed.py");
    let py = "#!/usr/bin/env python3\nimport sys\nsys.stdin.readline()\nprint('0 0')\nsys.stdin.read()\n";
    let once = dir.path().join("once.sh");
    let sh = "#!/bin/sh\nread header\necho '0 0'\nread line\nsleep 30\n";
    for (path, text) in [(&python, py), (&once, sh)] {
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    let (code, _out, err) = run(harness()
        .args([
            "--problem",
            "chesspuzzle",
            "--seeds",
            "1",
            "--time-limit",
            "5",
        ])
        .arg("--results")
        .arg(results.path())
        .arg("--players")
        .arg(&python)
        .arg(&once));
    assert_eq!(code, 0, "{err}");
    let scores = read_csv(&results.path().join("latest/scores.csv"));
    let col = |name: &str| scores[0].iter().position(|h| h == name).unwrap();
    let reason = |player: &str| {
        let row = scores[1..]
            .iter()
            .find(|r| r[col("player")] == player)
            .expect("a row");
        assert_eq!(row[col("verdict")], "TLE", "{row:?}");
        row[col("reason")].clone()
    };
    let silent = "thinking time over the limit of 5 s per test at move 1: no bytes received: \
                  did the player flush its output?";
    assert_eq!(reason("unflushed"), silent);
    // The failure line on screen says it too.
    assert!(
        err.contains(&format!("TLE chesspuzzle unflushed seed 1: {silent}")),
        "{err}"
    );
    let since = reason("once");
    assert!(
        since.contains("at move 2: no bytes received since the last message"),
        "{since}"
    );
}

#[test]
fn results_naming_a_file_says_it_is_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("results.txt");
    std::fs::write(&file, "not a folder").unwrap();
    let (_d, player) = script(FIRST_CELL);
    let (code, _out, err) = run(harness()
        .args(["--problem", "chesspuzzle", "--seeds", "1"])
        .arg("--results")
        .arg(&file)
        .arg("--players")
        .arg(&player));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{}: is a file, not a folder", file.display())),
        "{err}"
    );
}

#[test]
fn negative_numbers_are_usage_errors_naming_the_flag() {
    let (_d, player) = script(FIRST_CELL);
    let cases: [(&[&str], &str); 6] = [
        (&["--seeds", "-3"], "\"-3\" in \"-3\" is not a seed"),
        (
            &["--time-limit", "-1"],
            "--time-limit -1: must be a positive number",
        ),
        (
            &["--threads", "-2"],
            "'--threads <N>': must be 0 or more, got -2",
        ),
        (
            &["--memory-limit", "-5"],
            "'--memory-limit <MB>': must be 0 or more, got -5",
        ),
        (
            &["--time-limit", "-0.5"],
            "--time-limit -0.5: must be a positive number",
        ),
        (
            &["--threads", "two"],
            "'--threads <N>': must be a whole number, got \"two\"",
        ),
    ];
    for (flags, needle) in cases {
        let (code, _, err) = run(harness()
            .args(["--problem", "chesspuzzle", "--players"])
            .arg(&player)
            .args(flags)
            .args(if flags[0] == "--seeds" {
                &[][..]
            } else {
                &["--seeds", "1"][..]
            }));
        assert_eq!(code, 2, "{flags:?}: {err}");
        assert!(err.contains(needle), "{flags:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{flags:?}: {err}");
    }
    let (code, _, err) = run(harness().args(["tune", "players/linez-python", "--trials", "-3"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("must be 0 or more, got -3"), "{err}");
    let (code, _, err) = run(harness().args(["replay", "--worst", "-1"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("must be 0 or more, got -1"), "{err}");
}

#[test]
fn problem_sums_up_the_players_of_other_problems_in_one_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<PathBuf> = vec![root().join("players/linez-python")];
    for i in 0..5 {
        let player = dir.path().join(format!("chess-{i}"));
        std::fs::create_dir(&player).unwrap();
        std::fs::write(
            player.join("player.toml"),
            "problem = \"chesspuzzle\"\ncommand = [\"python3\", \"main.py\"]\n",
        )
        .unwrap();
        args.push(player);
    }
    let results = tempfile::tempdir().unwrap();
    let (code, _, err) = run(harness()
        .args(["--problem", "linez", "--seeds", "1", "--players"])
        .args(&args)
        .arg("--results")
        .arg(results.path()));
    assert_eq!(code, 0, "{err}");
    let skipped: Vec<&str> = err.lines().filter(|l| l.contains("skipped")).collect();
    assert_eq!(skipped.len(), 1, "{err}");
    assert!(
        skipped[0].starts_with("skipped 5 players that play another problem than linez: chess-0,"),
        "{err}"
    );
    for i in 0..5 {
        assert!(err.contains(&format!("chess-{i}")), "{err}");
    }
}

#[test]
fn the_printed_replay_command_works_as_printed_without_harness_on_path() {
    let (_d, player) = script(FIRST_CELL);
    let results = tempfile::tempdir().unwrap();
    let (code, _, err) = run(harness()
        .args(["--problem", "chesspuzzle", "--seeds", "1", "--players"])
        .arg(&player)
        .arg("--results")
        .arg(results.path()));
    assert_eq!(code, 0, "{err}");
    // The player clicks the same cell twice: WA, with where to look next.
    let replay = err
        .lines()
        .flat_map(|l| l.split(&[';', ','][..]))
        .find_map(|part| part.trim().strip_prefix("replay: "))
        .unwrap_or_else(|| panic!("no replay command:\n{err}"));
    assert_is_this_harness(replay.split(' ').next().unwrap());
    // A failed test's page is written at once: the command must write it again.
    let run = std::fs::canonicalize(results.path().join("latest")).unwrap();
    let _ = std::fs::remove_dir_all(run.join("replays"));
    let out = Command::new("sh")
        .arg("-c")
        .arg(replay)
        .current_dir(root())
        .env("PATH", path_without_harness())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{replay}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pages: Vec<_> = std::fs::read_dir(run.join("replays"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .collect();
    assert!(!pages.is_empty(), "no replay page written by {replay}");
}
