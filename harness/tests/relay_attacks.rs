//! Players and tools that go after the relay between a contest's tester and the player
//! (issue 37; `sandbox::relay`, `sandbox::peer`, `problem::tools::relayed`), end to end
//! through the harness binary on a shell tester of their own:
//!
//! - `tests/fixtures/hostile/relay-spy.c`, in process mode (`--sandbox off`) and in the
//!   sandbox, beside an honest competitor at 2 tests at once: one copy watches
//!   `/proc/net/unix` for relay sockets and connects to each (a bare connect-and-close, then
//!   posing as the tester), one `chmod 000`s the folder of each socket it finds; both then
//!   answer wrong on purpose. Each must be WA (never ERR), the competitor's tests OK with its
//!   scores of a run alone, and nothing left in the run's scratch space. The same as an
//!   ordinary user in process mode, where the spies are the tools' user: the connections
//!   are ignored (`SO_PEERCRED`), the `chmod`s refused by the player's seccomp filter.
//! - A tester that writes hundreds of MB to its player without a newline: ERR naming the
//!   tool and the relay's limit (no verdict against the player), the harness's own peak
//!   memory bounded.

#[path = "support/containment.rs"]
mod containment;
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::tools::{by_seed as by_seed_of, ToolsWorkspace, DOUBLE, SEEDS_GEN};
use support::{expect_exit, stderr_log};

/// A tester in shell: reads N, starts the player ("$@") over two FIFOs, sends N, reads one
/// line and scores it (twice N is right). `target/mode`: `late` waits 1.5 s before it starts
/// its player (so the relay's socket waits that long for it); `flood` sends 400 MB without a
/// newline instead of N.
const TESTER: &str = r#"#!/bin/sh
mode=$(cat target/mode 2>/dev/null)
read n
mkfifo to from
if [ "$mode" = late ]; then sleep 1.5; fi
"$@" < to > from &
exec 3> to 4< from
if [ "$mode" = flood ]; then
  yes | tr -d '\n' | head -c 400000000 >&3
  echo "tester: flood sent" >&2
fi
echo "$n" >&3
read answer <&4
echo "$answer"
exec 3>&- 4<&-
wait
if [ "$answer" = "$((n * 2))" ]; then
  echo "Score = $answer" >&2
else
  echo "Wrong answer: $answer" >&2
  echo "Score = 0" >&2
fi
"#;

const PROBLEM: &str = r#"title = "Double it (relay attacks)"
shape = "interactive"
objective = "max"
tools = "tools"
inputs = { gen = ["gen.sh", "{seeds}"], dir = "in" }
judge = ["tester.sh", "{player...}"]
params = ["N"]
judge-timeout = 20
judge-memory = 32

[limits]
time-limit = 10
"#;

/// A workspace every id may read (a root harness's tools and players run as ids of their
/// own): the problem `double`, its honest player, and `tmp/`, the run's TMPDIR (its scratch
/// space and process-mode test folders), to be found empty after the run.
struct Workspace {
    ws: ToolsWorkspace,
}

impl Workspace {
    fn new(mode: &str) -> Workspace {
        let ws = ToolsWorkspace::new_in(&containment::open_dir(), "relay-attacks-");
        ws.problem_toml("double", PROBLEM)
            .script("double", "tester.sh", TESTER)
            .script("double", "gen.sh", SEEDS_GEN)
            .tool_file("double", "target/mode", mode)
            .player("double", "double", DOUBLE);
        std::fs::create_dir_all(ws.root().join("tmp")).unwrap();
        open_all(ws.root());
        Workspace { ws }
    }

    fn path(&self) -> &Path {
        self.ws.root()
    }

    fn results(&self) -> PathBuf {
        self.path().join("results")
    }

    /// A `player.toml` folder running the compiled fixture `relay-spy` with `args`.
    fn spy(&self, name: &str, args: &[&str]) -> PathBuf {
        let exe = support::compile_c("relay-spy");
        let args: Vec<&str> = ["relay-spy-tag"]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        let dir = self.ws.exe_player(name, "double", &exe, &args);
        open_all(&dir);
        dir
    }

    /// The harness on `players` and `seeds` at 2 tests at once, with `more` flags.
    fn command(&self, players: &[&str], seeds: &str, more: &[&str]) -> Command {
        let mut cmd = self.ws.command(players, seeds, &self.results());
        cmd.env("TMPDIR", self.path().join("tmp"))
            .args(["--threads", "2"])
            .args(more);
        cmd
    }

    /// [`Workspace::command`] run by user `uid` (no supplementary group) through `setpriv`:
    /// the harness binary from `containment::open_harness`, the results folder and TMPDIR
    /// given to that user.
    fn command_as(&self, uid: u32, players: &[&str], seeds: &str, more: &[&str]) -> Command {
        let inner = self.command(players, seeds, more);
        for dir in [self.results(), self.path().join("tmp")] {
            std::fs::create_dir_all(&dir).unwrap();
            std::os::unix::fs::chown(&dir, Some(uid), Some(uid)).unwrap();
        }
        self.ws.as_user(uid, &containment::open_harness(), &inner)
    }

    /// What the run left in its TMPDIR.
    fn left_in_tmp(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.path().join("tmp"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect()
    }
}

/// Every folder under `path` (and it) open to every id.
fn open_all(path: &Path) {
    containment::open_to_all(path);
    for entry in std::fs::read_dir(path).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            open_all(&entry.path());
        }
    }
}

/// (seed -> (verdict, score, reason)) of one player's rows.
fn by_seed(results: &Path, player: &str) -> BTreeMap<String, (String, String, String)> {
    by_seed_of(results, Some(player), |r| {
        let cell = |c: &str| r[c].clone();
        (cell("verdict"), cell("score"), cell("reason"))
    })
}

/// The spy `spy`'s stderr for `seed`, once it shows the fixture's marker (it ran its
/// attack); without it, a panic naming the test's verdict and reason as well.
fn spy_log(ws: &Workspace, spy: &str, seed: &str) -> String {
    let log = stderr_log(&ws.results(), "double", spy, seed);
    if !log.contains("RAN relay-spy") {
        let row = by_seed(&ws.results(), spy).remove(seed);
        panic!("{spy} seed {seed}: no marker (its test: {row:?}):\n{log}");
    }
    log
}

/// The competitor's run alone (`command`), before the spies join it: its 4 tests' scores,
/// to keep.
fn competitor_alone(
    ws: &Workspace,
    mut command: Command,
) -> BTreeMap<String, (String, String, String)> {
    let out = command.output().unwrap();
    expect_exit(&out, 0);
    let alone = by_seed(&ws.results(), "double");
    assert_eq!(alone.len(), 4, "{alone:?}");
    alone
}

/// After the spies' run: the competitor's tests as `alone`, and nothing left in the run's
/// scratch space.
fn competitor_as_alone_and_nothing_left(
    ws: &Workspace,
    alone: &BTreeMap<String, (String, String, String)>,
) {
    assert_eq!(
        &by_seed(&ws.results(), "double"),
        alone,
        "the competitor's tests"
    );
    let left = ws.left_in_tmp();
    assert!(left.is_empty(), "left in the scratch space: {left:?}");
}

/// The spies beside the honest player, in process mode (`sandbox`: false) or the sandbox.
fn spies_beside_a_competitor(sandbox: bool) {
    let ws = Workspace::new("late");
    let mode: &[&str] = if sandbox { &[] } else { &["--sandbox", "off"] };
    // The competitor alone first: its scores to keep.
    let alone = competitor_alone(&ws, ws.command(&["double"], "1..4", mode));
    assert!(alone.values().all(|(v, _, _)| v == "OK"), "{alone:?}");
    // Only sockets of this test's own runs: other runs on the machine are not its to attack.
    let prefix = format!("{}/", ws.path().join("tmp").display());
    ws.spy("spy-connect", &["connect", &prefix, "3"]);
    ws.spy("spy-chmod", &["chmod", &prefix, "3"]);
    let players = ["spy-connect", "spy-chmod", "double"];
    let out = ws.command(&players, "1..4", mode).output().unwrap();
    expect_exit(&out, 0);
    let mut found = 0;
    for spy in ["spy-connect", "spy-chmod"] {
        for seed in ["1", "2", "3", "4"] {
            // The marker first: it ran its attack (and what it found).
            let log = spy_log(&ws, spy, seed);
            found += log.lines().filter(|l| l.starts_with("FOUND ")).count();
            assert!(!log.contains("REACHED"), "{spy} {seed}: reached:\n{log}");
        }
        let rows = by_seed(&ws.results(), spy);
        assert_eq!(rows.len(), 4, "{spy}: {rows:?}");
        for (seed, (verdict, _, why)) in &rows {
            assert_eq!(verdict, "WA", "{spy} seed {seed}: {why}");
        }
    }
    if !sandbox {
        // Process mode shows the host's sockets: the spies found relays to attack (their own
        // tests' and the competitor's).
        assert!(found >= 4, "the spies found {found} relay sockets");
    }
    competitor_as_alone_and_nothing_left(&ws, &alone);
}

#[test]
fn relay_spies_in_process_mode_get_wa_and_leave_the_competitor_as_alone() {
    spies_beside_a_competitor(false);
}

#[test]
fn relay_spies_in_the_sandbox_get_wa_and_leave_the_competitor_as_alone() {
    spies_beside_a_competitor(true);
}

/// The competitor alone, then the spy `spy` (relay-spy's `attack`) beside it, both run by
/// user `uid` in process mode: the workspace, and the competitor's scores alone.
fn spy_of_an_ordinary_user(
    uid: u32,
    spy: &str,
    attack: &str,
) -> (Workspace, BTreeMap<String, (String, String, String)>) {
    let ws = Workspace::new("late");
    let off = ["--sandbox", "off"];
    let alone = competitor_alone(&ws, ws.command_as(uid, &["double"], "1..4", &off));
    let prefix = format!("{}/", ws.path().join("tmp").display());
    ws.spy(spy, &[attack, &prefix, "3"]);
    let players = [spy, "double"];
    let out = ws.command_as(uid, &players, "1..4", &off).output().unwrap();
    expect_exit(&out, 0);
    (ws, alone)
}

/// A harness of an ordinary user in process mode: its tools and players are that user, so
/// the kernel lets a player connect to any relay socket it finds; the harness takes only the
/// tool's own (`SO_PEERCRED`), and the spy is ignored.
#[test]
fn a_relay_spy_of_an_ordinary_users_process_mode_run_is_ignored() {
    if !support::needs_root("the harness is started as another user") {
        return;
    }
    let uid = containment::free_uid(62_900);
    let (ws, alone) = spy_of_an_ordinary_user(uid, "spy-connect", "connect");
    let mut connected = 0;
    for seed in ["1", "2", "3", "4"] {
        let log = spy_log(&ws, "spy-connect", seed);
        connected += log.matches("REACHED connect to a relay socket").count();
        // Connected, but nobody took its pipes: no player answered it.
        assert!(!log.contains("REACHED read"), "seed {seed}:\n{log}");
    }
    assert!(connected >= 4, "the spy connected {connected} times");
    let rows = by_seed(&ws.results(), "spy-connect");
    assert!(rows.values().all(|(v, _, _)| v == "WA"), "{rows:?}");
    competitor_as_alone_and_nothing_left(&ws, &alone);
}

/// A harness of an ordinary user in process mode: its tools and players are that user, and
/// landlock does not cover a mode change, but a player's seccomp filter refuses `chmod` by
/// path: the spy's `chmod 000` of every tool's folder it finds (its own test's and the
/// competitor's) is refused with EPERM, its tests are WA and the competitor's as alone.
#[test]
fn a_chmod_spy_of_an_ordinary_users_process_mode_run_is_refused() {
    if !support::needs_root("the harness is started as another user") {
        return;
    }
    let uid = containment::free_uid(62_950);
    let (ws, alone) = spy_of_an_ordinary_user(uid, "spy-chmod", "chmod");
    let mut refused = 0;
    for seed in ["1", "2", "3", "4"] {
        let log = spy_log(&ws, "spy-chmod", seed);
        assert!(!log.contains("REACHED"), "seed {seed}: reached:\n{log}");
        refused += log
            .lines()
            .filter(|l| {
                l.starts_with("BLOCKED chmod 000 the tool's folder")
                    && l.ends_with(": Operation not permitted")
            })
            .count();
    }
    assert!(
        refused >= 4,
        "the spy tried {refused} chmods refused with EPERM"
    );
    let rows = by_seed(&ws.results(), "spy-chmod");
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(rows.values().all(|(v, _, _)| v == "WA"), "{rows:?}");
    competitor_as_alone_and_nothing_left(&ws, &alone);
}

/// The harness's peak resident memory (`VmHWM`, kB) while `cmd` runs, with its output.
fn run_watching_memory(cmd: &mut Command) -> (std::process::Output, u64) {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let (tx, rx) = std::sync::mpsc::channel();
    let watcher = std::thread::spawn(move || {
        let mut most = 0u64;
        let deadline = Instant::now() + Duration::from_secs(300);
        while rx.try_recv().is_err() && Instant::now() < deadline {
            if let Ok(text) = std::fs::read_to_string(&status) {
                let hwm = text
                    .lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok());
                most = most.max(hwm.unwrap_or(0));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        most
    });
    let out = child.wait_with_output().unwrap();
    let _ = tx.send(());
    (out, watcher.join().unwrap())
}

#[test]
fn a_tester_flooding_without_a_newline_is_the_tools_err_and_the_harness_stays_small() {
    let ws = Workspace::new("flood");
    let (out, peak_kb) = run_watching_memory(&mut ws.command(&["double"], "1..2", &[]));
    expect_exit(&out, 1);
    let rows = by_seed(&ws.results(), "double");
    assert_eq!(rows.len(), 2, "{rows:?}");
    for (seed, (verdict, _, why)) in &rows {
        // The tool's failure, named with the limit: not a verdict against the player.
        assert_eq!(verdict, "ERR", "seed {seed}: {why}");
        assert!(why.contains("tester.sh"), "seed {seed}: {why}");
        assert!(why.contains("8 MB without a newline"), "seed {seed}: {why}");
    }
    // Two floods at once, 400 MB each: the harness held at most its limit of each.
    assert!(peak_kb > 0, "the harness's memory was never read");
    assert!(
        peak_kb < 80 << 10,
        "the harness's peak memory: {peak_kb} kB"
    );
    eprintln!("harness peak memory with two floods: {peak_kb} kB");
    let left = ws.left_in_tmp();
    assert!(left.is_empty(), "left in the scratch space: {left:?}");
}
