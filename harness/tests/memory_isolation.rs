//! A player's memory and processes are its own test's (issue 19): memory it makes the
//! machine hold outside its resident set (a memfd, pipe buffers, a tmpfs of its own mount)
//! counts against its limit; nothing it leaves in /dev/shm, /tmp, /var/tmp, $HOME, $TMPDIR
//! or its working folder reaches a later test or stays on the machine; holding every
//! process slot of the user starves no other test; a player the machine refused to start is
//! ERR and `--resume` runs it again; and without cgroups (`--cgroup off`) each route is
//! closed or bounded and the start of the run says what is not counted.
//!
//! Memory is judged from outside as well as by verdict: a thread samples /proc/meminfo every
//! 20 ms, and the machine's free memory may not drop, from just before the run, by more than
//! the memory limit plus 32 MB per test running at once (`--threads 2`: 576 MB with
//! `--memory-limit 256`; each attack holds 1.2-1.4 GB per test, up to 2.8 GB at once). Noise:
//! other builds on the machine take and give back gigabytes of anonymous memory within
//! seconds (a rustc or a linker), which could both fail a good run and hide a bad one. So the
//! drop measured is that of `MemAvailable + AnonPages`: anonymous memory left out, which
//! hides none of the routes tested here (a memfd and tmpfs files are shared memory, pipe
//! buffers kernel pages) and which the limit binds in any case. What noise remains (page
//! cache, slab, a few hundred MB at worst in a minute of watching a machine shared with other
//! builds) is met by measuring a drop over the bound twice more, 3 s apart, before the test
//! fails: a route that is not counted breaches it every time, by gigabytes. The tests
//! of this file run one at a time, so that the drop is one run's alone.

#[path = "support/isolation.rs"]
mod isolation;
mod support;

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use isolation::{expect_blocked, harness_run, output_within, reached, toml_player, Mode};
use support::{compile_c, copy_as, expect_exit, root, rows_of, scores, stderr_log};

const LIMIT_MB: u64 = 256;
const THREADS: u64 = 2;
/// What a test may make the machine hold beyond its limit (the harness's share, the judge).
const SLACK_MB: u64 = 32;
/// The default `max-disk` (MB): the test's one tmpfs (/tmp, /var/tmp, /dev/shm, home, work).
const MAX_DISK_MB: u64 = 256;
/// Thinking time: filling 1.4 GB on a loaded machine may take seconds; never the verdict.
const TIME_LIMIT: u32 = 10;
const RUN_DEADLINE: Duration = Duration::from_secs(180);

/// The tests of this file hold gigabytes or every process slot: one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

// ---------------------------------------------------------------------------------------
// The good player and what it scores alone

/// `chesspuzzle-greedy`, built once, as an executable file (so that no `cargo build` runs
/// while memory is measured).
fn greedy() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(root())
            .args(["build", "--release", "-p", "chesspuzzle-greedy"])
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
            .expect("cargo built chesspuzzle-greedy");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("isolation-greedy");
        std::fs::create_dir_all(&dir).unwrap();
        copy_as(&exe, &dir, "chesspuzzle-greedy")
    })
    .clone()
}

/// The good player's (seed, score, verdict, moves).
fn results_of(rows: &[BTreeMap<String, String>], player: &str) -> Vec<[String; 4]> {
    rows_of(rows, player)
        .into_iter()
        .map(|r| {
            [
                r["seed"].clone(),
                r["score"].clone(),
                r["verdict"].clone(),
                r["moves"].clone(),
            ]
        })
        .collect()
}

/// What the good player scores alone on seeds 1..2.
fn greedy_alone() -> Vec<[String; 4]> {
    static ALONE: OnceLock<Vec<[String; 4]>> = OnceLock::new();
    ALONE
        .get_or_init(|| {
            let results = tempfile::tempdir().unwrap();
            let mut cmd = harness_run("1..2", 2, TIME_LIMIT, Mode::Default, results.path());
            cmd.args(["--memory-limit", &LIMIT_MB.to_string()])
                .arg("--players")
                .arg(greedy());
            expect_exit(&output_within(&mut cmd, RUN_DEADLINE), 0);
            let alone = results_of(&scores(results.path()), "chesspuzzle-greedy");
            assert_eq!(alone.len(), 2, "{alone:?}");
            alone
        })
        .clone()
}

// ---------------------------------------------------------------------------------------
// The machine's free memory

/// MemAvailable + AnonPages, in kB: the machine's free memory, other builds' anonymous
/// memory left out (see the module doc).
fn free_but_anon_kb() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap();
    let field = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} in /proc/meminfo"))
    };
    field("MemAvailable:") + field("AnonPages:")
}

/// Samples the machine's free memory every 20 ms from now on; `finish` gives the largest
/// drop below the value read at the start, in MB.
struct MemoryWatch {
    baseline_kb: u64,
    stop: Arc<AtomicBool>,
    sampler: std::thread::JoinHandle<u64>,
}

impl MemoryWatch {
    fn start() -> MemoryWatch {
        let baseline_kb = free_but_anon_kb();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let sampler = std::thread::spawn(move || {
            let mut lowest = u64::MAX;
            while !flag.load(Ordering::SeqCst) {
                lowest = lowest.min(free_but_anon_kb());
                std::thread::sleep(Duration::from_millis(20));
            }
            lowest.min(free_but_anon_kb())
        });
        MemoryWatch {
            baseline_kb,
            stop,
            sampler,
        }
    }

    fn finish(self) -> u64 {
        self.stop.store(true, Ordering::SeqCst);
        let lowest = self.sampler.join().unwrap();
        self.baseline_kb.saturating_sub(lowest) >> 10
    }
}

// ---------------------------------------------------------------------------------------
// Memory held outside the resident set

/// The most a fixture said it held (`HELD <n> MB` lines).
fn held_mb(log: &str) -> u64 {
    log.lines()
        .filter_map(|l| l.strip_prefix("HELD "))
        .filter_map(|l| l.strip_suffix(" MB"))
        .filter_map(|n| n.parse().ok())
        .max()
        .unwrap_or(0)
}

/// Whether the harness's stderr has a start-of-run note saying what memory a run without
/// cgroups does not count.
fn says_what_is_not_counted(stderr: &str) -> bool {
    stderr.lines().any(|l| {
        let l = l.to_lowercase();
        l.contains("cgroup") && (l.contains("not counted") || l.contains("rss"))
    })
}

/// Runs a memory fixture on seeds 1..2 beside the good player, `--memory-limit 256`,
/// `--threads 2`: the fixture is not OK while holding more than it may, the machine's free
/// memory drops by no more than `bound_mb`, and the good player scores what it scores alone.
/// Returns the fixture's logs.
fn memory_attack(fixture: &str, mode: Mode, may_hold_mb: u64, bound_mb: u64) -> Vec<String> {
    let exe = compile_c(fixture);
    let players = tempfile::tempdir().unwrap();
    let attacker = copy_as(&exe, players.path(), fixture);
    let alone = greedy_alone();
    let mut drops = Vec::new();
    for _ in 0..3 {
        let results = tempfile::tempdir().unwrap();
        let mut cmd = harness_run("1..2", THREADS as u32, TIME_LIMIT, mode, results.path());
        cmd.args(["--memory-limit", &LIMIT_MB.to_string()])
            .arg("--players")
            .arg(&attacker)
            .arg(greedy());
        let watch = MemoryWatch::start();
        let out = output_within(&mut cmd, RUN_DEADLINE);
        let dropped = watch.finish();
        drops.push(dropped);
        expect_exit(&out, 0);
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();

        let rows = scores(results.path());
        let mut problems = Vec::new();
        let mut logs = Vec::new();
        for row in rows_of(&rows, fixture) {
            let log = stderr_log(results.path(), "chesspuzzle", fixture, &row["seed"]);
            let held = held_mb(&log);
            if row["verdict"] == "OK" && held > may_hold_mb {
                problems.push(format!(
                    "seed {}: OK while holding {held} MB (may hold {may_hold_mb} MB): {row:?}",
                    row["seed"]
                ));
            }
            logs.push(log);
        }
        if logs.len() != 2 {
            problems.push(format!("{fixture} did not play both seeds: {rows:?}"));
        }
        let good = results_of(&rows, "chesspuzzle-greedy");
        if good != alone {
            problems.push(format!("the good player scored {good:?}, alone {alone:?}"));
        }
        match mode {
            Mode::CgroupOff if !says_what_is_not_counted(&stderr) => problems.push(format!(
                "no start-of-run note says what a run without cgroups does not count:\n{stderr}"
            )),
            Mode::Default if stderr.to_lowercase().contains("not counted") => problems.push(
                format!("with cgroups, the run still says something is not counted:\n{stderr}"),
            ),
            _ => {}
        }
        if dropped > bound_mb {
            problems.push(format!(
                "free memory (MemAvailable + AnonPages) dropped by {drops:?} MB in {} run(s) \
                 (bound {bound_mb} MB)",
                drops.len()
            ));
        }
        let only_memory = problems.len() == 1 && dropped > bound_mb;
        if problems.is_empty() {
            return logs;
        }
        if !only_memory || drops.len() == 3 {
            panic!(
                "{fixture} ({mode:?}):\n{}\n--- fixture logs\n{}",
                problems.join("\n"),
                logs.join("\n---\n")
            );
        }
        // Let a burst of another build's memory pass before measuring again.
        std::thread::sleep(Duration::from_secs(3));
    }
    unreachable!()
}

/// Why the default-mode memory tests need root: they check what a cgroup per test counts, and
/// a user's run has none (unless the machine delegates one; these tests assume root's).
const CGROUPS: &str = "a cgroup per test (the default mode's memory accounting)";

/// The bound of the default mode: the limit plus 32 MB per test at once.
fn counted_bound() -> u64 {
    THREADS * (LIMIT_MB + SLACK_MB)
}

/// The bound without cgroups: a test may hold its limit (resident memory) plus its disk.
fn fallback_bound() -> u64 {
    THREADS * (LIMIT_MB + MAX_DISK_MB + SLACK_MB)
}

#[test]
fn a_memfd_written_but_never_mapped_counts_against_the_limit() {
    if !support::needs_root(CGROUPS) {
        return;
    }
    let _serial = serial();
    memory_attack("memfd-fill", Mode::Default, LIMIT_MB, counted_bound());
}

#[test]
fn filled_pipe_buffers_count_against_the_limit() {
    if !support::needs_root(CGROUPS) {
        return;
    }
    let _serial = serial();
    memory_attack("pipe-fill", Mode::Default, LIMIT_MB, counted_bound());
}

#[test]
fn a_tmpfs_mounted_by_the_player_counts_or_cannot_be_mounted() {
    if !support::needs_root(CGROUPS) {
        return;
    }
    let _serial = serial();
    memory_attack("nested-mount", Mode::Default, LIMIT_MB, counted_bound());
}

#[test]
fn without_cgroups_a_memfd_is_bounded_and_the_note_says_what_is_not_counted() {
    let _serial = serial();
    let bound = LIMIT_MB + MAX_DISK_MB;
    memory_attack("memfd-fill", Mode::CgroupOff, bound, fallback_bound());
}

#[test]
fn without_cgroups_pipe_buffers_are_bounded() {
    let _serial = serial();
    let bound = LIMIT_MB + MAX_DISK_MB;
    memory_attack("pipe-fill", Mode::CgroupOff, bound, fallback_bound());
}

#[test]
fn without_cgroups_a_player_cannot_mount_anything() {
    let _serial = serial();
    for log in memory_attack("nested-mount", Mode::CgroupOff, 0, fallback_bound()) {
        expect_blocked(&log, "unshare a user and a mount namespace");
    }
}

// ---------------------------------------------------------------------------------------
// Notes between tests

/// Files named `hostile-<tag>-...` in a folder.
fn tagged(dir: &Path, tag: &str) -> Vec<PathBuf> {
    let prefix = format!("hostile-{tag}-");
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

/// Removes what a run of `leave-notes` left in the host's shared folders, even when the
/// test fails (512 MB in /dev/shm would stay in RAM until the next boot).
struct RemoveLeftovers(String);

impl Drop for RemoveLeftovers {
    fn drop(&mut self) {
        for dir in ["/dev/shm", "/tmp", "/var/tmp"] {
            for path in tagged(Path::new(dir), &self.0) {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// Two tests one after the other (`--threads 1`): the second finds no note of the first in
/// any place the mode makes private, and nothing is left on the host afterwards.
fn notes_do_not_pass(mode: Mode) {
    let exe = compile_c("leave-notes");
    let tag = isolation::unique_tag();
    let _cleanup = RemoveLeftovers(tag.clone());
    let players = tempfile::tempdir().unwrap();
    let player = toml_player(players.path(), "leave-notes", &exe, &[&tag], "");
    let user_home = tempfile::tempdir().unwrap();
    let results = tempfile::tempdir().unwrap();
    let mut cmd = harness_run("1..2", 1, TIME_LIMIT, mode, results.path());
    cmd.args(["--memory-limit", &LIMIT_MB.to_string()])
        .arg("--players")
        .arg(&player)
        .env("HOME", user_home.path());
    expect_exit(&output_within(&mut cmd, RUN_DEADLINE), 0);

    let private: &[&str] = if mode.sandboxed() {
        &["/dev/shm", "/tmp", "/var/tmp", "HOME", "TMPDIR", "."]
    } else {
        &["HOME", "TMPDIR", "."]
    };
    let rows = scores(results.path());
    let mine = rows_of(&rows, "leave-notes");
    assert_eq!(mine.len(), 2, "{rows:?}");
    let logs: Vec<(String, String)> = mine
        .iter()
        .map(|row| {
            let seed = row["seed"].clone();
            let log = stderr_log(results.path(), "chesspuzzle", "leave-notes", &seed);
            (seed, log)
        })
        .collect();
    for (seed, log) in &logs {
        for place in private {
            let what = format!("note of an earlier test in {place} ");
            let got: Vec<_> = reached(log)
                .into_iter()
                .filter(|l| l.contains(&what))
                .collect();
            assert!(got.is_empty(), "seed {seed} read {got:?}\n{log}");
        }
    }
    for (seed, log) in &logs {
        for place in private {
            expect_blocked(log, &format!("note of an earlier test in {place}:"));
        }
        if mode.sandboxed() {
            let held = held_mb(log);
            assert!(
                held <= MAX_DISK_MB,
                "seed {seed}: {held} MB in /dev/shm, over max-disk\n{log}"
            );
        }
    }
    let mut left = tagged(user_home.path(), &tag);
    if mode.sandboxed() {
        for dir in ["/dev/shm", "/tmp", "/var/tmp"] {
            left.extend(tagged(Path::new(dir), &tag));
        }
    }
    assert!(
        left.is_empty(),
        "left on the machine after the run: {left:?}"
    );
}

#[test]
fn notes_in_dev_shm_tmp_and_home_do_not_reach_the_next_test() {
    let _serial = serial();
    notes_do_not_pass(Mode::Default);
}

#[test]
fn notes_in_dev_shm_tmp_and_home_do_not_reach_the_next_test_without_cgroups() {
    let _serial = serial();
    notes_do_not_pass(Mode::CgroupOff);
}

#[test]
fn notes_in_home_tmpdir_and_workdir_do_not_reach_the_next_test_without_sandbox() {
    let _serial = serial();
    notes_do_not_pass(Mode::SandboxOff);
}

// ---------------------------------------------------------------------------------------
// Process slots (RLIMIT_NPROC binds only users other than root)

/// The user's process limit in the slot tests.
const NPROC: u64 = 400;

/// A user id with no process on the machine, and a folder that user can use: a copy of the
/// harness binary, scoring.toml, empty testcases/ and a results/ it owns. (The workspace
/// may sit in a folder only root can enter.)
struct Unprivileged {
    uid: u32,
    dir: tempfile::TempDir,
}

fn uid_of(status: &str) -> Option<u32> {
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Pids of the processes of `uid`: live ones, or also zombies (which still count against
/// the user's process limit until their parent, or init, reaps them).
fn processes_of(uid: u32, zombies: bool) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        let zombie = status
            .lines()
            .any(|l| l.starts_with("State:") && l.contains('Z'));
        if uid_of(&status) == Some(uid) && (zombies || !zombie) {
            pids.push(pid);
        }
    }
    pids
}

impl Unprivileged {
    /// Takes the first user id from `first` on that has no process at all (each test starts
    /// from its own: the children of a killed player can stay zombies for seconds).
    /// `None` when the switch `root` leaves the test out (recorded); panics when not root.
    fn new(first: u32) -> Option<Unprivileged> {
        if !support::needs_root("the process-slot tests switch to another user with setpriv") {
            return None;
        }
        let uid = (first..first + 100)
            .find(|&uid| processes_of(uid, true).is_empty())
            .expect("a free user id");
        let dir = tempfile::tempdir().unwrap();
        isolation::open_to_all(dir.path());
        let harness = dir.path().join("harness");
        std::fs::copy(env!("CARGO_BIN_EXE_harness"), &harness).unwrap();
        std::fs::copy(root().join("scoring.toml"), dir.path().join("scoring.toml")).unwrap();
        for sub in ["players", "testcases"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
            isolation::open_to_all(&dir.path().join(sub));
        }
        Some(Unprivileged { uid, dir })
    }

    /// An executable-file player in a folder of its own that the user can read.
    fn player(&self, exe: &Path, name: &str) -> PathBuf {
        let path = copy_as(exe, &self.dir.path().join("players"), name);
        isolation::open_to_all(path.parent().unwrap());
        path
    }

    /// A fresh results folder owned by the user.
    fn results(&self, name: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::create_dir(&path).unwrap();
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: chown of a path we just created.
        assert_eq!(unsafe { libc::chown(c.as_ptr(), self.uid, self.uid) }, 0);
        path
    }

    /// The harness as this user, under a process limit of `nproc`, in its folder.
    fn harness(&self, nproc: u64, results: &Path) -> Command {
        let id = self.uid.to_string();
        let mut cmd = Command::new("setpriv");
        cmd.arg(format!("--reuid={id}"))
            .arg(format!("--regid={id}"))
            .arg("--clear-groups")
            .arg(self.dir.path().join("harness"))
            .args(["--problem", "chesspuzzle", "--config", "scoring.toml"])
            .args(["--testcases", "testcases", "--results"])
            .arg(results)
            .current_dir(self.dir.path())
            .stdin(std::process::Stdio::null());
        // SAFETY: setrlimit is async-signal-safe.
        unsafe {
            cmd.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: nproc,
                    rlim_max: nproc,
                };
                if libc::setrlimit(libc::RLIMIT_NPROC, &limit) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        cmd
    }

    /// Panics, after killing them, if live processes of the user outlive the run by 5 s;
    /// waits up to 5 s more for its zombies to be reaped (by init, which may be slow).
    fn expect_nothing_left(&self) {
        for _ in 0..250 {
            if processes_of(self.uid, false).is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        for _ in 0..250 {
            if processes_of(self.uid, true).is_empty() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let left = processes_of(self.uid, false);
        if left.is_empty() {
            return;
        }
        for &pid in &left {
            // SAFETY: SIGKILL to a process of the test's own user id, started by this test.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        panic!("processes of the run outlived it: {left:?}");
    }
}

impl Drop for Unprivileged {
    fn drop(&mut self) {
        for pid in processes_of(self.uid, false) {
            // SAFETY: as above: only processes of the test's own user id.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Under a user limit of 400 processes, a player that keeps forking (retrying every 2 ms)
/// to hold every slot runs beside a patient player and the good player; the worker that runs
/// the patient player (1.5 s) then starts the good player while the attacker holds its
/// slots. The good player gets exactly what it gets alone; the attacker's own test gets a
/// player's verdict.
#[test]
fn a_player_holding_every_process_slot_starves_no_other_test() {
    let _serial = serial();
    let Some(user) = Unprivileged::new(61_000) else {
        return;
    };
    let attacker = user.player(&compile_c("fork-hold"), "fork-hold");
    let patient = user.player(&compile_c("patient"), "patient");
    let good = user.player(&greedy(), "chesspuzzle-greedy");
    let run = |players: &[&PathBuf], name: &str| {
        let results = user.results(name);
        let mut cmd = user.harness(NPROC, &results);
        cmd.args(["--seeds", "1", "--threads", "2", "--time-limit", "5"])
            .arg("--players")
            .args(players);
        let out = output_within(&mut cmd, RUN_DEADLINE);
        user.expect_nothing_left();
        (out, scores(&results))
    };
    let (out, alone) = run(&[&good], "alone");
    expect_exit(&out, 0);
    let alone = results_of(&alone, "chesspuzzle-greedy");
    assert_eq!(alone.len(), 1, "{}", String::from_utf8_lossy(&out.stderr));

    // Job order is (seed, player): one worker takes the attacker, the other the patient
    // player and then the good one.
    let (out, rows) = run(&[&attacker, &patient, &good], "attacked");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        results_of(&rows, "chesspuzzle-greedy"),
        alone,
        "the good player beside the attacker; rows: {rows:?}\n{stderr}"
    );
    for row in rows_of(&rows, "patient") {
        assert_eq!(row["verdict"], "OK", "{row:?}");
    }
    for row in rows_of(&rows, "fork-hold") {
        assert!(
            !["OK", "ERR", "SKIP"].contains(&row["verdict"].as_str()),
            "the attacker's own test is its own failure: {row:?}"
        );
    }
    expect_exit(&out, 0);
}

/// The run's id (the folder `latest` points at).
fn run_id(results: &Path) -> String {
    std::fs::read_link(results.join("latest"))
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string()
}

/// The harness runs under the lowest process limit that lets it start at all, so that no
/// player can be started: every test is ERR (not RE), and `--resume` with a normal limit
/// runs those tests again, and they pass.
#[test]
fn a_player_the_machine_refused_to_start_is_err_and_resume_reruns_it() {
    let _serial = serial();
    let Some(user) = Unprivileged::new(61_200) else {
        return;
    };
    let good = user.player(&greedy(), "chesspuzzle-greedy");
    let args = |cmd: &mut Command| {
        cmd.args(["--seeds", "1..2", "--threads", "1", "--time-limit", "5"])
            .arg("--players")
            .arg(&good);
    };
    // The harness's own threads count against the limit too: find the lowest limit under
    // which it gets as far as running tests.
    let mut refused = None;
    for nproc in 1..=64 {
        let results = user.results(&format!("limit-{nproc}"));
        let mut cmd = user.harness(nproc, &results);
        args(&mut cmd);
        let out = output_within(&mut cmd, RUN_DEADLINE);
        user.expect_nothing_left();
        let csv = results.join("latest/scores.csv");
        if csv.exists() && !scores(&results).is_empty() {
            refused = Some((nproc, results, out));
            break;
        }
    }
    let (nproc, results, out) = refused.expect("the harness ran tests under some limit <= 64");
    let rows = scores(&results);
    assert_eq!(rows.len(), 2, "{rows:?}");
    // Refused at the start: ERR, never the player's RE. (The harness retries a refused start
    // once, and a slot freed meanwhile can let the retry through: then that test is OK.)
    for row in &rows {
        assert!(
            ["ERR", "OK"].contains(&row["verdict"].as_str()),
            "a player the machine refused to start (process limit {nproc}): {row:?}"
        );
    }
    assert!(
        rows.iter().any(|r| r["verdict"] == "ERR"),
        "under process limit {nproc} some start was refused: {rows:?}"
    );
    expect_exit(&out, 1);

    let mut cmd = user.harness(NPROC, &results);
    cmd.args(["--resume", &run_id(&results)]);
    let out = output_within(&mut cmd, RUN_DEADLINE);
    user.expect_nothing_left();
    expect_exit(&out, 0);
    let rows = scores(&results);
    let resumed = results_of(&rows, "chesspuzzle-greedy");
    assert_eq!(resumed.len(), 2, "each test once after --resume: {rows:?}");
    for row in &resumed {
        assert_eq!(row[2], "OK", "after --resume: {rows:?}");
    }
}
