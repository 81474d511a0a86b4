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

use support::{expect_exit, harness, rows_of, scores, stderr_log, write_exec};

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

const GEN: &str = r#"#!/bin/sh
mkdir in || exit 1
i=0
while read s; do
  [ -z "$s" ] && continue
  echo $(( s % 1000 + 1 )) > in/$(printf %04d $i).txt
  i=$((i+1))
done < "$1"
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
    dir: tempfile::TempDir,
}

impl Workspace {
    fn new(mode: &str) -> Workspace {
        let dir = tempfile::Builder::new()
            .prefix("relay-attacks-")
            .tempdir_in(containment::open_dir())
            .unwrap();
        let root = dir.path();
        std::fs::write(root.join("scoring.toml"), "").unwrap();
        let p = root.join("testcases/double");
        std::fs::create_dir_all(p.join("tools/target")).unwrap();
        std::fs::write(p.join("problem.toml"), PROBLEM).unwrap();
        write_exec(&p.join("tools/tester.sh"), TESTER);
        write_exec(&p.join("tools/gen.sh"), GEN);
        std::fs::write(p.join("tools/target/mode"), mode).unwrap();
        support::sh_player(
            &root.join("players/double"),
            "double",
            "read n\necho $((n * 2))\n",
        );
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        open_all(root);
        Workspace { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn results(&self) -> PathBuf {
        self.path().join("results")
    }

    /// A `player.toml` folder running the compiled fixture `relay-spy` with `args`.
    fn spy(&self, name: &str, args: &[&str]) -> PathBuf {
        let exe = support::compile_c("relay-spy");
        let dir = self.path().join("players").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(&exe, dir.join("relay-spy")).unwrap();
        let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
        std::fs::write(
            dir.join("player.toml"),
            format!(
                "problem = \"double\"\ncommand = [\"./relay-spy\", \"relay-spy-tag\", {}]\n",
                args.join(", ")
            ),
        )
        .unwrap();
        open_all(&dir);
        dir
    }

    /// The harness on `players` and `seeds` at 2 tests at once, with `more` flags.
    fn command(&self, players: &[&str], seeds: &str, more: &[&str]) -> Command {
        let mut cmd = harness();
        cmd.current_dir(self.path())
            .env("TMPDIR", self.path().join("tmp"))
            .arg("--players")
            .args(players)
            .args(["--seeds", seeds, "--threads", "2", "--results"])
            .arg(self.results())
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
        let mut cmd = Command::new("setpriv");
        cmd.arg(format!("--reuid={uid}"))
            .arg(format!("--regid={uid}"))
            .arg("--clear-groups")
            .arg(containment::open_harness())
            .args(inner.get_args())
            .current_dir(self.path())
            .env("HOME", self.path())
            .env("TMPDIR", self.path().join("tmp"))
            .stdin(Stdio::null());
        cmd
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
    let rows = scores(results);
    rows_of(&rows, player)
        .into_iter()
        .map(|r| {
            (
                r["seed"].clone(),
                (
                    r["verdict"].clone(),
                    r["score"].clone(),
                    r["reason"].clone(),
                ),
            )
        })
        .collect()
}

/// The spies beside the honest player, in process mode (`sandbox`: false) or the sandbox.
fn spies_beside_a_competitor(sandbox: bool) {
    let ws = Workspace::new("late");
    let mode: &[&str] = if sandbox { &[] } else { &["--sandbox", "off"] };
    // The competitor alone first: its scores to keep.
    let out = ws
        .command(&["players/double"], "1..4", mode)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let alone = by_seed(&ws.results(), "double");
    assert_eq!(alone.len(), 4, "{alone:?}");
    assert!(alone.values().all(|(v, _, _)| v == "OK"), "{alone:?}");
    // Only sockets of this test's own runs: other runs on the machine are not its to attack.
    let prefix = format!("{}/", ws.path().join("tmp").display());
    ws.spy("spy-connect", &["connect", &prefix, "3"]);
    ws.spy("spy-chmod", &["chmod", &prefix, "3"]);
    let players = ["players/spy-connect", "players/spy-chmod", "players/double"];
    let out = ws.command(&players, "1..4", mode).output().unwrap();
    expect_exit(&out, 0);
    let mut found = 0;
    for spy in ["spy-connect", "spy-chmod"] {
        for seed in ["1", "2", "3", "4"] {
            // The marker first: it ran its attack (and what it found).
            let log = stderr_log(&ws.results(), "double", spy, seed);
            assert!(
                log.contains("RAN relay-spy"),
                "{spy} {seed}: no marker:\n{log}"
            );
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
    assert_eq!(
        by_seed(&ws.results(), "double"),
        alone,
        "the competitor's tests"
    );
    let left = ws.left_in_tmp();
    assert!(left.is_empty(), "left in the scratch space: {left:?}");
}

#[test]
fn relay_spies_in_process_mode_get_wa_and_leave_the_competitor_as_alone() {
    spies_beside_a_competitor(false);
}

#[test]
fn relay_spies_in_the_sandbox_get_wa_and_leave_the_competitor_as_alone() {
    spies_beside_a_competitor(true);
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
    let ws = Workspace::new("late");
    let off = ["--sandbox", "off"];
    let out = ws
        .command_as(uid, &["players/double"], "1..4", &off)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let alone = by_seed(&ws.results(), "double");
    assert_eq!(alone.len(), 4, "{alone:?}");
    let prefix = format!("{}/", ws.path().join("tmp").display());
    ws.spy("spy-connect", &["connect", &prefix, "3"]);
    let players = ["players/spy-connect", "players/double"];
    let out = ws.command_as(uid, &players, "1..4", &off).output().unwrap();
    expect_exit(&out, 0);
    let mut connected = 0;
    for seed in ["1", "2", "3", "4"] {
        let log = stderr_log(&ws.results(), "double", "spy-connect", seed);
        assert!(
            log.contains("RAN relay-spy"),
            "seed {seed}: no marker:\n{log}"
        );
        connected += log.matches("REACHED connect to a relay socket").count();
        // Connected, but nobody took its pipes: no player answered it.
        assert!(!log.contains("REACHED read"), "seed {seed}:\n{log}");
    }
    assert!(connected >= 4, "the spy connected {connected} times");
    let rows = by_seed(&ws.results(), "spy-connect");
    assert!(rows.values().all(|(v, _, _)| v == "WA"), "{rows:?}");
    assert_eq!(
        by_seed(&ws.results(), "double"),
        alone,
        "the competitor's tests"
    );
    let left = ws.left_in_tmp();
    assert!(left.is_empty(), "left in the scratch space: {left:?}");
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
    let ws = Workspace::new("late");
    let off = ["--sandbox", "off"];
    let out = ws
        .command_as(uid, &["players/double"], "1..4", &off)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let alone = by_seed(&ws.results(), "double");
    assert_eq!(alone.len(), 4, "{alone:?}");
    let prefix = format!("{}/", ws.path().join("tmp").display());
    ws.spy("spy-chmod", &["chmod", &prefix, "3"]);
    let players = ["players/spy-chmod", "players/double"];
    let out = ws.command_as(uid, &players, "1..4", &off).output().unwrap();
    expect_exit(&out, 0);
    let mut refused = 0;
    for seed in ["1", "2", "3", "4"] {
        let log = stderr_log(&ws.results(), "double", "spy-chmod", seed);
        assert!(
            log.contains("RAN relay-spy"),
            "seed {seed}: no marker:\n{log}"
        );
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
    assert_eq!(
        by_seed(&ws.results(), "double"),
        alone,
        "the competitor's tests"
    );
    let left = ws.left_in_tmp();
    assert!(left.is_empty(), "left in the scratch space: {left:?}");
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
    let (out, peak_kb) = run_watching_memory(&mut ws.command(&["players/double"], "1..2", &[]));
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
