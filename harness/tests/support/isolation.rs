//! Helpers shared by the isolation tests (`session_isolation.rs`, `memory_isolation.rs`):
//! the isolation modes a run is started in, `player.toml` folders for fixtures that take
//! arguments or settings, a harness command with the usual flags, waiting on it with a
//! deadline, and reading the `REACHED` / `BLOCKED` reports the fixtures write on stderr.
//! Included with `#[path = "support/isolation.rs"] mod isolation;` next to `mod support;`.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How the harness isolates players in a run (the flags the team settled on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No flag: the sandbox where the machine has user namespaces, cgroups where it can.
    Default,
    /// `--sandbox off`: process mode, no namespaces (cgroups still where available).
    SandboxOff,
    /// `--cgroup off`: the sandbox, but no cgroups (the fallback of an unprivileged user).
    CgroupOff,
}

impl Mode {
    pub fn flags(self) -> &'static [&'static str] {
        match self {
            Mode::Default => &[],
            Mode::SandboxOff => &["--sandbox", "off"],
            Mode::CgroupOff => &["--cgroup", "off"],
        }
    }

    /// Whether players run in their own namespaces (no host paths, private /dev, /tmp).
    pub fn sandboxed(self) -> bool {
        self != Mode::SandboxOff
    }
}

/// Writes a `player.toml` folder `<parent>/<name>/` holding a copy of the fixture `exe`, run
/// as `./<file> ARGS...`, with `extra` appended to the manifest (e.g. `env = {...}`). Returns
/// the folder. The folder (and `parent`) are made readable by every user.
pub fn toml_player(parent: &Path, name: &str, exe: &Path, args: &[&str], extra: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let file = exe.file_name().unwrap().to_string_lossy().to_string();
    std::fs::copy(exe, dir.join(&file)).unwrap();
    let mut command = vec![format!("./{file}")];
    command.extend(args.iter().map(|a| a.to_string()));
    let command: Vec<String> = command.iter().map(|a| format!("{a:?}")).collect();
    std::fs::write(
        dir.join("player.toml"),
        format!(
            "name = {name:?}\nproblem = \"chesspuzzle\"\ncommand = [{}]\n{extra}",
            command.join(", ")
        ),
    )
    .unwrap();
    open_to_all(parent);
    open_to_all(&dir);
    dir
}

/// chmod 0755 (a temporary folder is 0700; players of an unprivileged run must get in).
pub fn open_to_all(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The harness on chesspuzzle with these seeds, threads, time limit (seconds), isolation
/// mode and results folder; players are added by the caller.
pub fn harness_run(
    seeds: &str,
    threads: u32,
    time_limit: u32,
    mode: Mode,
    results: &Path,
) -> Command {
    let mut cmd = super::support::harness();
    cmd.args(["--problem", "chesspuzzle", "--seeds", seeds])
        .args(["--threads", &threads.to_string()])
        .args(["--time-limit", &time_limit.to_string()])
        .args(mode.flags())
        .arg("--results")
        .arg(results);
    cmd
}

/// Runs `cmd` (stdin as it was set) and collects its output; kills it and panics with what
/// it wrote when it has not ended within `limit` (a harness that hangs must fail the test,
/// not the whole suite).
pub fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the harness starts");
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let status = wait_within(&mut child, limit);
    let stdout = stdout.join().unwrap();
    let stderr = stderr.join().unwrap();
    match status {
        Some(status) => Output {
            status,
            stdout,
            stderr,
        },
        None => panic!(
            "the harness did not end within {limit:?}\n--- stdout\n{}\n--- stderr\n{}",
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(&stderr)
        ),
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// Waits for `child`; on the deadline kills it (by its id), reaps it and returns None.
pub fn wait_within(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let until = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The `REACHED ...` lines of a fixture's kept stderr: what it could get at.
pub fn reached(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.starts_with("REACHED ")).collect()
}

/// Panics unless the log holds a `BLOCKED <what>` line (proof that the fixture tried).
pub fn expect_blocked(log: &str, what: &str) {
    let prefix = format!("BLOCKED {what}");
    assert!(
        log.lines().any(|l| l.starts_with(&prefix)),
        "expected a line `{prefix}...` in the fixture's stderr:\n{log}"
    );
}

/// A name no other run shares (for files a fixture leaves in shared folders).
pub fn unique_tag() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{}x{nanos:x}", std::process::id())
}
