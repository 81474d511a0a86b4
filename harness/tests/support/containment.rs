//! Helpers of the containment tests (`containment.rs`, `fault_suite.rs`): a folder of its own
//! per test (players, config, results) whose path tags every process the test starts, runs
//! of the harness with a deadline, the good player's scores in a run alone, and the checks
//! every hostile run shares (time per test, nothing left running, nothing written outside).
//! Included with `#[path = "support/containment.rs"] mod containment;` next to `mod support;`.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

use super::support;

/// How the harness isolates players (the flags the team settled on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No flag: a sandbox per test where the machine allows it, cgroups where it can.
    Default,
    /// `--sandbox off`: process mode (no namespaces; cgroups still where available).
    Off,
    /// `--cgroup off`: the sandbox without a cgroup (the fallback of a user with none).
    NoCgroup,
    /// `--sandbox off --cgroup off`: neither.
    Bare,
}

impl Mode {
    pub fn flags(self) -> &'static [&'static str] {
        match self {
            Mode::Default => &[],
            Mode::Off => &["--sandbox", "off"],
            Mode::NoCgroup => &["--cgroup", "off"],
            Mode::Bare => &["--sandbox", "off", "--cgroup", "off"],
        }
    }
}

/// The limits of a run, written to its own scoring.toml (so the test states its grace).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Thinking time per test, seconds.
    pub time: f64,
    /// Seconds a player gets to exit once the game is over.
    pub grace: f64,
    /// MB.
    pub memory: u64,
}

impl Limits {
    /// What no test may exceed in wall time: time limit + grace + 1 s.
    pub fn per_test(&self) -> Duration {
        Duration::from_secs_f64(self.time + self.grace + 1.0)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time: 5.0,
            grace: 1.0,
            memory: 256,
        }
    }
}

/// A test's own folder, in [`open_dir`] (the target's temporary folder where others may
/// reach it): `players/<name>/`, `scoring.toml`, `results/`. Its path is the tag
/// every fixture carries as its first argument, so what a run leaves running can be found.
/// Dropping it kills whatever is still running with the tag (so a failing test leaves
/// nothing behind) and removes files a fixture named after it in /tmp.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    /// The stderr log a chesspuzzle run in this folder kept of `player` on `seed`.
    pub fn log(&self, player: &str, seed: u64) -> String {
        support::stderr_log(&self.results(), "chesspuzzle", player, &seed.to_string())
    }

    pub fn new(name: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("{name}-"))
            .tempdir_in(open_dir())
            .unwrap();
        let scratch = Scratch { dir };
        open_to_all(scratch.path());
        std::fs::create_dir(scratch.players_dir()).unwrap();
        open_to_all(&scratch.players_dir());
        scratch
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The tag of this test's processes: its folder's path.
    pub fn tag(&self) -> String {
        self.path().display().to_string()
    }

    /// A name no other test shares (the folder's own name).
    pub fn token(&self) -> String {
        self.path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string()
    }

    pub fn players_dir(&self) -> PathBuf {
        self.path().join("players")
    }

    pub fn results(&self) -> PathBuf {
        self.path().join("results")
    }

    /// Writes `scoring.toml` with these limits for chesspuzzle; returns its path.
    pub fn config(&self, limits: Limits) -> PathBuf {
        let path = self.path().join("scoring.toml");
        std::fs::write(
            &path,
            format!(
                "[problem.chesspuzzle]\ntime-limit = {}\ngrace = {}\nmemory-limit = {}\n",
                limits.time, limits.grace, limits.memory
            ),
        )
        .unwrap();
        path
    }

    /// A `player.toml` folder `players/<name>/` with a copy of `exe`, run as
    /// `./<file> TAG ARGS...`.
    pub fn player(&self, name: &str, exe: &Path, args: &[&str]) -> PathBuf {
        let dir = self.players_dir().join(name);
        std::fs::create_dir(&dir).unwrap();
        open_to_all(&dir);
        let file = exe.file_name().unwrap().to_string_lossy().to_string();
        std::fs::copy(exe, dir.join(&file)).unwrap();
        let mut command = vec![format!("./{file}"), self.tag()];
        command.extend(args.iter().map(|a| a.to_string()));
        let command: Vec<String> = command.iter().map(|a| format!("{a:?}")).collect();
        std::fs::write(
            dir.join("player.toml"),
            format!(
                "name = {name:?}\nproblem = \"chesspuzzle\"\ncommand = [{}]\n",
                command.join(", ")
            ),
        )
        .unwrap();
        dir
    }

    /// The hostile fixture `tests/fixtures/hostile/<fixture>.c` as player `name`.
    pub fn hostile(&self, fixture: &str, name: &str, args: &[&str]) -> PathBuf {
        self.player(name, &support::compile_c(fixture), args)
    }

    /// The good player, `players/chesspuzzle-greedy`, as a `player.toml` folder of this test.
    pub fn good(&self) -> PathBuf {
        self.player(GOOD, &greedy_binary(), &[])
    }

    /// Every file under `players/` with its size and modification time.
    pub fn players_snapshot(&self) -> Vec<(PathBuf, u64, SystemTime)> {
        let mut files = Vec::new();
        walk(&self.players_dir(), &mut files);
        files.sort();
        files
    }

    /// Processes still running with this test's tag, after waiting up to 3 s for them to go
    /// (a killed process takes a moment to disappear).
    pub fn left_running(&self) -> Vec<String> {
        let until = Instant::now() + Duration::from_secs(3);
        loop {
            let left = running_with(&self.tag());
            if left.is_empty() || Instant::now() > until {
                return left;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Files of the host's /tmp, /var/tmp and /dev/shm whose name holds this test's token.
    pub fn host_tmp_files(&self) -> Vec<PathBuf> {
        let token = self.token();
        let mut found = Vec::new();
        for dir in ["/tmp", "/var/tmp", "/dev/shm"] {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if entry.file_name().to_string_lossy().contains(&token) {
                    found.push(entry.path());
                }
            }
        }
        found
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for pid in running_pids(&self.tag()) {
            // SAFETY: plain syscall on a process this test started (it carries the tag).
            unsafe {
                libc::kill(pid, libc::SIGCONT);
                libc::kill(pid, libc::SIGKILL);
            }
        }
        for file in self.host_tmp_files() {
            let _ = std::fs::remove_file(file);
        }
    }
}

/// Whether every folder above `path` (and `path` itself when it is a folder) lets others
/// pass, and a file at `path` lets them read and run it.
fn open_to_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.permissions().mode());
    let own = if path.is_dir() { 0o001 } else { 0o005 };
    mode(path) & own == own
        && path
            .ancestors()
            .skip(1)
            .all(|dir| mode(dir) & 0o001 == 0o001)
}

/// A folder an unprivileged user may reach, for what a harness started as one must find
/// (its binary, the test's folder): the target's temporary folder when every folder above
/// it lets others pass (and this user may write there), else a folder of the machine's
/// temporary folder (a checkout under a 0700 /root, as root's cargo leaves it; or the test
/// binaries run by another user than the one who built them). Its name holds no test's token, so it is not one
/// of [`Scratch::host_tmp_files`].
pub fn open_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let c = std::ffi::CString::new(target.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: access(2) with a valid C string.
        let writable = unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0;
        if writable && open_to_others(&target) {
            return target;
        }
        // SAFETY: getuid has no preconditions.
        let dir = std::env::temp_dir().join(format!("harness-tests-{}", unsafe { libc::getuid() }));
        std::fs::create_dir_all(&dir).unwrap();
        open_to_all(&dir);
        assert!(
            open_to_others(&dir),
            "{} is not open to other users",
            dir.display()
        );
        dir
    })
    .clone()
}

/// The harness binary where an unprivileged user may run it: itself when others may reach
/// it, else a copy in [`open_dir`] (once per test binary and version of the harness).
pub fn open_harness() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = PathBuf::from(env!("CARGO_BIN_EXE_harness"));
        if open_to_others(&exe) {
            return exe;
        }
        let meta = std::fs::metadata(&exe).unwrap();
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let dir = open_dir().join(format!("harness-{}-{modified}", meta.len()));
        let copy = dir.join("harness");
        if !copy.is_file() {
            std::fs::create_dir_all(&dir).unwrap();
            open_to_all(&dir);
            // Copied under a name of this process, then renamed: test binaries run at once.
            let tmp = dir.join(format!("harness.{}", std::process::id()));
            std::fs::copy(&exe, &tmp).unwrap();
            open_to_all(&tmp);
            std::fs::rename(&tmp, &copy).unwrap();
        }
        copy
    })
    .clone()
}

/// A user id no process has, from `first` on (a range of its own per test, so tests running
/// at once do not share one): the harness of an unprivileged user runs as it through
/// `setpriv`, which needs no account.
pub fn free_uid(first: u32) -> u32 {
    let taken = |uid: u32| {
        std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
            std::fs::read_to_string(e.path().join("status"))
                .ok()
                .and_then(|s| {
                    s.lines()
                        .find_map(|l| l.strip_prefix("Uid:"))
                        .map(|ids| ids.split_whitespace().any(|id| id == uid.to_string()))
                })
                .unwrap_or(false)
        })
    };
    (first..first + 100)
        .find(|&uid| !taken(uid))
        .expect("a free user id")
}

/// chmod 0755: a temporary folder is 0700, and a sandboxed player may run as another user.
pub fn open_to_all(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn walk(dir: &Path, out: &mut Vec<(PathBuf, u64, SystemTime)>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() {
            walk(&entry.path(), out);
        }
        out.push((
            entry.path(),
            meta.len(),
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        ));
    }
}

/// Live processes (not zombies) whose command line or executable mentions `tag`, or whose
/// environment does (a player's `HARNESS_PLAYER_DIR`, inherited by whatever it starts).
pub fn running_with(tag: &str) -> Vec<String> {
    let mut found = support::processes_mentioning(tag);
    for pid in environ_mentioning(tag) {
        if !found.iter().any(|f| f.starts_with(&format!("{pid}: "))) {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            found.push(format!(
                "{pid}: {} (by its environment)",
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            ));
        }
    }
    found
}

fn running_pids(tag: &str) -> Vec<i32> {
    let mut pids: Vec<i32> = running_with(tag)
        .iter()
        .filter_map(|line| line.split(':').next()?.parse().ok())
        .collect();
    pids.sort();
    pids.dedup();
    pids
}

fn environ_mentioning(tag: &str) -> Vec<i32> {
    let me = std::process::id() as i32;
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        if stat.is_empty() || state.starts_with('Z') {
            continue;
        }
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ.windows(tag.len()).any(|w| w == tag.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// The good player's name.
pub const GOOD: &str = "chesspuzzle-greedy";

/// One test of the good player: what must not change when hostile players run beside it.
pub type GoodRow = (String, String, String, String);

/// The good player's (seed, score, verdict, moves) rows.
pub fn good_rows(rows: &[BTreeMap<String, String>]) -> Vec<GoodRow> {
    rows.iter()
        .filter(|r| r["player"] == GOOD)
        .map(|r| {
            (
                r["seed"].clone(),
                r["score"].clone(),
                r["verdict"].clone(),
                r["moves"].clone(),
            )
        })
        .collect()
}

/// The seeds every test picks its own from.
pub const BASELINE_SEEDS: &str = "1..4";

/// The good player's rows in a run of its own on [`BASELINE_SEEDS`] (once per test binary;
/// this also builds it).
pub fn baseline() -> &'static [GoodRow] {
    static BASELINE: OnceLock<Vec<GoodRow>> = OnceLock::new();
    BASELINE.get_or_init(|| {
        let results = tempfile::tempdir().unwrap();
        // The player's folder, which the harness builds with cargo; where this user has no
        // cargo (test binaries run by another user than root, whose cargo is under a 0700
        // /root), the program built before.
        let good = if support::skip::on_path("cargo") {
            support::root().join("players").join(GOOD)
        } else {
            let exe = release_binary();
            assert!(
                exe.is_file(),
                "no cargo on PATH to build {GOOD}, and {} is not built",
                exe.display()
            );
            exe
        };
        let out = support::harness()
            .args(["--problem", "chesspuzzle", "--seeds", BASELINE_SEEDS])
            .args(["--threads", "2", "--time-limit", "20"])
            .arg("--results")
            .arg(results.path())
            .arg("--players")
            .arg(good)
            .output()
            .expect("the harness runs");
        support::expect_exit(&out, 0);
        let rows = good_rows(&support::scores(results.path()));
        assert_eq!(rows.len(), 4, "the good player played every seed alone");
        assert!(rows.iter().all(|r| r.2 == "OK"), "{rows:?}");
        rows
    })
}

/// The good player's rows alone, for these seeds (a subset of [`BASELINE_SEEDS`]).
pub fn baseline_for(seeds: &[u64]) -> Vec<GoodRow> {
    baseline()
        .iter()
        .filter(|r| seeds.contains(&r.0.parse().unwrap()))
        .cloned()
        .collect()
}

/// The good player's binary, built by the baseline run.
pub fn greedy_binary() -> PathBuf {
    baseline();
    let exe = release_binary();
    assert!(exe.is_file(), "{} was not built", exe.display());
    exe
}

/// Where the harness builds the good player's program.
fn release_binary() -> PathBuf {
    let target = Path::new(env!("CARGO_BIN_EXE_harness"))
        .parent()
        .and_then(Path::parent)
        .unwrap();
    target.join("release").join(GOOD)
}

/// What a run of the harness gave.
pub struct Ran {
    pub output: Output,
    /// The harness's pid (its run's cgroup folders are named after it).
    pub pid: u32,
    /// From the start of the harness to its exit.
    pub elapsed: Duration,
}

impl Ran {
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).to_string()
    }
}

/// A harness started by [`start`]: its output is collected while it runs.
pub struct Started {
    pub child: std::process::Child,
    start: Instant,
    stdout: std::sync::mpsc::Receiver<Vec<u8>>,
    stderr: std::sync::mpsc::Receiver<Vec<u8>>,
}

/// Starts `cmd` (the harness) in a process group of its own, collecting its output.
pub fn start(cmd: &mut Command) -> Started {
    let start = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("the harness starts");
    Started {
        stdout: drain(child.stdout.take().unwrap()),
        stderr: drain(child.stderr.take().unwrap()),
        child,
        start,
    }
}

impl Started {
    /// Time since the harness started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Waits for the harness to exit, at most until `deadline` after its start: a harness
    /// still running then is killed with its group and the test fails, saying so (it
    /// blocked on a player, or stalled).
    pub fn finish(mut self, deadline: Duration) -> Ran {
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break Some(status);
            }
            if self.start.elapsed() > deadline {
                // SAFETY: plain syscall on the group of the harness this test started.
                unsafe {
                    libc::killpg(self.child.id() as i32, libc::SIGKILL);
                }
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let elapsed = self.start.elapsed();
        let take = |rx: &std::sync::mpsc::Receiver<Vec<u8>>| {
            rx.recv_timeout(Duration::from_secs(5)).unwrap_or_default()
        };
        let (stdout, stderr) = (take(&self.stdout), take(&self.stderr));
        let Some(status) = status else {
            panic!(
                "the harness was still running {deadline:?} after its start (it blocks on a player)\n--- stdout\n{}\n--- stderr\n{}",
                String::from_utf8_lossy(&stdout),
                String::from_utf8_lossy(&stderr)
            );
        };
        Ran {
            output: Output {
                status,
                stdout,
                stderr,
            },
            pid: self.child.id(),
            elapsed,
        }
    }
}

/// Runs `cmd` (the harness) in a process group of its own and waits for it at most
/// `deadline` (see [`Started::finish`]).
pub fn run_within(cmd: &mut Command, deadline: Duration) -> Ran {
    start(cmd).finish(deadline)
}

/// Reads a pipe to its end on a thread of its own; the bytes arrive on the channel.
fn drain(mut pipe: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = tx.send(bytes);
    });
    rx
}

/// A run of chesspuzzle: these players on these seeds, `threads` at once.
pub struct Plan<'a> {
    pub scratch: &'a Scratch,
    pub mode: Mode,
    pub limits: Limits,
    pub seeds: &'a [u64],
    pub threads: usize,
    pub players: Vec<PathBuf>,
    pub extra: Vec<String>,
}

impl<'a> Plan<'a> {
    /// A plan with the default limits, two threads at once and no extra flags.
    pub fn new(
        scratch: &'a Scratch,
        mode: Mode,
        seeds: &'a [u64],
        players: Vec<PathBuf>,
    ) -> Plan<'a> {
        Plan {
            scratch,
            mode,
            limits: Limits::default(),
            seeds,
            threads: 2,
            players,
            extra: Vec::new(),
        }
    }

    /// The harness command of this plan (the caller may add to it).
    pub fn command(&self) -> Command {
        let config = self.scratch.config(self.limits);
        let seeds: Vec<String> = self.seeds.iter().map(u64::to_string).collect();
        let mut cmd = support::harness();
        cmd.args(["--problem", "chesspuzzle", "--seeds", &seeds.join(",")])
            .args(["--threads", &self.threads.to_string()])
            .args(self.mode.flags())
            .args(&self.extra)
            .arg("--config")
            .arg(config)
            .arg("--results")
            .arg(self.scratch.results())
            .arg("--players")
            .args(&self.players);
        cmd
    }

    /// The plan's command run by user `uid` (no supplementary group) through `setpriv`: the
    /// harness binary from [`open_harness`], in this test's folder (with HOME there), the
    /// results folder made and given to that user. The environment the caller set on
    /// [`Plan::command`] is not carried; set it on the result.
    pub fn command_as(&self, uid: u32) -> Command {
        let inner = self.command();
        let results = self.scratch.results();
        std::fs::create_dir_all(&results).unwrap();
        std::os::unix::fs::chown(&results, Some(uid), Some(uid)).unwrap();
        let mut cmd = Command::new("setpriv");
        cmd.arg(format!("--reuid={uid}"))
            .arg(format!("--regid={uid}"))
            .arg("--clear-groups")
            .arg(open_harness())
            .args(inner.get_args())
            .current_dir(self.scratch.path())
            .env("HOME", self.scratch.path())
            .stdin(Stdio::null());
        cmd
    }

    /// [`Plan::run_and_check`] with the harness started by user `uid` ([`Plan::command_as`]).
    pub fn run_as_and_check(&self, uid: u32) -> (Ran, Vec<BTreeMap<String, String>>) {
        self.check_run(self.command_as(uid), 0)
    }

    /// The longest a whole run may take: every test at its longest, `threads` at once, plus
    /// 20 s for the harness's start and end on a loaded machine.
    pub fn deadline(&self) -> Duration {
        let tests = self.players.len() * self.seeds.len();
        let rounds = tests.div_ceil(self.threads) as u32;
        self.limits.per_test() * rounds + Duration::from_secs(20)
    }

    /// Runs the plan within its deadline and checks what every run must hold: exit status 0,
    /// every row within limit + grace + 1 s, the good player's rows as in a run alone,
    /// nothing left running, the player folders untouched, no file named after the test in
    /// the host's temporary folders. Returns the rows.
    pub fn run_and_check(&self) -> (Ran, Vec<BTreeMap<String, String>>) {
        self.check_run(self.command(), 0)
    }

    /// Runs `cmd` (this plan's harness, however started) within the plan's deadline and
    /// checks what [`Plan::run_and_check`] checks, with exit status `exit`.
    pub fn check_run(&self, mut cmd: Command, exit: i32) -> (Ran, Vec<BTreeMap<String, String>>) {
        let before = self.scratch.players_snapshot();
        let ran = run_within(&mut cmd, self.deadline());
        support::expect_exit(&ran.output, exit);
        let rows = support::scores(&self.scratch.results());
        assert_eq!(
            rows.len(),
            self.players.len() * self.seeds.len(),
            "every player played every seed: {rows:?}"
        );
        self.check_rows(&rows);
        let left = self.scratch.left_running();
        assert!(left.is_empty(), "processes left running: {left:#?}");
        assert_eq!(
            before,
            self.scratch.players_snapshot(),
            "the player folders changed"
        );
        let stray = self.scratch.host_tmp_files();
        assert!(
            stray.is_empty(),
            "files left in the host's temporary folders: {stray:?}"
        );
        let groups = support::cgroup_folders_of(ran.pid);
        assert!(
            groups.is_empty(),
            "the run's cgroup folders were left: {groups:?}"
        );
        (ran, rows)
    }

    /// Every row within limit + grace + 1 s; the good player's rows as in a run alone.
    pub fn check_rows(&self, rows: &[BTreeMap<String, String>]) {
        let bound = self.limits.per_test().as_millis();
        for row in rows {
            let wall: u128 = row["wall_ms"].parse().unwrap();
            assert!(
                wall <= bound,
                "{} seed {} took {wall} ms (> {bound} ms): {row:?}",
                row["player"],
                row["seed"]
            );
        }
        if self.players.iter().any(|p| p.ends_with(GOOD)) {
            assert_eq!(
                good_rows(rows),
                baseline_for(self.seeds),
                "the good player's tests changed beside hostile players"
            );
        }
    }
}

/// Panics unless every row of `player` has one of `verdicts`; returns its rows.
pub fn expect_verdict<'a>(
    rows: &'a [BTreeMap<String, String>],
    player: &str,
    verdicts: &[&str],
) -> Vec<&'a BTreeMap<String, String>> {
    let mine = support::rows_of(rows, player);
    assert!(!mine.is_empty(), "{player} has no rows");
    for row in &mine {
        assert!(
            verdicts.contains(&row["verdict"].as_str()),
            "{player} seed {}: verdict {} (expected {verdicts:?}), reason {:?}",
            row["seed"],
            row["verdict"],
            row["reason"]
        );
    }
    mine
}

/// The `REACHED ...` lines of a fixture's kept stderr.
pub fn reached(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.starts_with("REACHED ")).collect()
}

/// Panics unless the log holds a `BLOCKED <what>` line (proof that the fixture tried) and
/// no `REACHED <what>` line.
pub fn expect_blocked(log: &str, what: &str) {
    let blocked = format!("BLOCKED {what}");
    let got = format!("REACHED {what}");
    assert!(
        !log.lines().any(|l| l.starts_with(&got)),
        "the fixture reached `{what}`:\n{log}"
    );
    assert!(
        log.lines().any(|l| l.starts_with(&blocked)),
        "expected a line `{blocked}...` in the fixture's stderr:\n{log}"
    );
}

/// The mount point and this process's own group of the cgroup v1 hierarchy of `controller`.
fn own_v1_group(controller: &str) -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mounts.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let mut r = right.split(' ');
        let ok = r.next()? == "cgroup" && r.nth(1)?.split(',').any(|o| o == controller);
        let point = left.split(' ').nth(4)?;
        ok.then(|| PathBuf::from(point))
    })?;
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = groups.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == controller)
            .then_some(path)
    })?;
    Some(mount.join(own.trim_start_matches('/')))
}

/// cgroup v1 folders of the `memory`, `pids`, `cpu` and `cpuset` hierarchies given to user
/// `uid`, made in this (root) process's own groups and removed when dropped: a harness that
/// user starts in them has a cgroup per test with every controller, as root has, the way a
/// delegated cgroup v2 subtree would give it one.
pub struct Delegated {
    dirs: Vec<PathBuf>,
}

impl Delegated {
    pub fn new(uid: u32, name: &str) -> Delegated {
        let mut dirs = Vec::new();
        for controller in ["memory", "pids", "cpu", "cpuset"] {
            let parent = own_v1_group(controller)
                .unwrap_or_else(|| panic!("no cgroup v1 {controller} hierarchy mounted"));
            let dir = parent.join(format!("harness-tests-{name}"));
            std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            dirs.push(dir.clone());
            if controller == "cpuset" {
                for file in ["cpuset.cpus", "cpuset.mems"] {
                    let value = std::fs::read_to_string(parent.join(file)).unwrap();
                    std::fs::write(dir.join(file), value.trim()).unwrap();
                }
            }
            for path in [dir.clone(), dir.join("cgroup.procs"), dir.join("tasks")] {
                std::os::unix::fs::chown(&path, Some(uid), Some(uid)).unwrap();
            }
        }
        Delegated { dirs }
    }

    /// `cmd` started by a shell that first moves itself into the folders (as root, before
    /// `cmd`'s setpriv gives up root).
    pub fn wrap(&self, cmd: &Command) -> Command {
        let mut shell = Command::new("sh");
        shell
            .arg("-c")
            .arg(
                r#"n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" || exit 99; shift; n=$((n - 1)); done; exec "$@""#,
            )
            .arg("sh")
            .arg(self.dirs.len().to_string())
            .args(&self.dirs)
            .arg(cmd.get_program())
            .args(cmd.get_args())
            .stdin(Stdio::null());
        if let Some(dir) = cmd.get_current_dir() {
            shell.current_dir(dir);
        }
        for (key, value) in cmd.get_envs() {
            match value {
                Some(v) => shell.env(key, v),
                None => shell.env_remove(key),
            };
        }
        shell
    }
}

impl Drop for Delegated {
    fn drop(&mut self) {
        // The run's folders are the harness's to remove; what a failed run left goes too.
        fn remove(dir: &Path) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if entry.path().is_dir() {
                    remove(&entry.path());
                }
            }
            let _ = std::fs::remove_dir(dir);
        }
        for dir in &self.dirs {
            remove(dir);
        }
    }
}
