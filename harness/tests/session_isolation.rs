//! Nothing of the user's session reaches a player (issue 18): its terminal, its environment,
//! the descriptors the harness inherited, its Unix sockets, and core dumps. Each point is a
//! hostile C fixture (`tests/fixtures/hostile/`) run by the harness binary, in the default
//! mode and with `--sandbox off` where the promise holds in every mode; the fixtures report
//! what they reached on stderr (`REACHED ...` / `BLOCKED ...`), which the harness keeps, and
//! the tests also look from outside (the terminal's input queue, the caller's pipe, the
//! listening sockets) so that no check rests on the fixture's word alone.

#[path = "support/isolation.rs"]
mod isolation;
mod support;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use isolation::{expect_blocked, harness_run, output_within, reached, toml_player, Mode};
use support::{compile_c, copy_as, expect_exit, root, rows_of, scores, stderr_log};

/// Generous: a run here plays two short games; the deadline only turns a hang into a failure.
const RUN_DEADLINE: Duration = Duration::from_secs(120);

/// Panics unless every test of `player` in the latest run of `results` reported no
/// `REACHED` line; returns the logs by seed.
fn nothing_reached(results: &Path, player: &str) -> BTreeMap<String, String> {
    let rows = scores(results);
    let mine = rows_of(&rows, player);
    assert!(!mine.is_empty(), "{player} has no rows: {rows:?}");
    let mut logs = BTreeMap::new();
    for row in mine {
        let seed = row["seed"].clone();
        let log = stderr_log(results, "chesspuzzle", player, &seed);
        let got = reached(&log);
        assert!(
            got.is_empty(),
            "{player} seed {seed} reached {got:?}\n{log}\n{row:?}"
        );
        logs.insert(seed, log);
    }
    logs
}

// ---------------------------------------------------------------------------------------
// The terminal

/// A pseudo-terminal: (master, slave).
fn open_pty() -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty writes two descriptors; no name, termios or window size is asked for.
    let ret = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(ret, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned by nobody else.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    for fd in [&master, &slave] {
        // SAFETY: fcntl on a descriptor we own.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    (master, slave)
}

fn set_nonblocking(fd: i32) {
    // SAFETY: fcntl on a descriptor the caller owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

/// Reads what is there now from a non-blocking descriptor.
fn read_available(fd: i32) -> Vec<u8> {
    set_nonblocking(fd);
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: reads into a local buffer of the given length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            return bytes;
        }
        bytes.extend_from_slice(&buf[..n as usize]);
    }
}

/// Reads the terminal's screen (the master side) until `stop` is set, so that the harness
/// never blocks on a full terminal.
fn watch_screen(master: OwnedFd, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut screen = Vec::new();
        loop {
            let stopping = stop.load(Ordering::SeqCst);
            let mut poll = libc::pollfd {
                fd: master.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one pollfd, a short timeout.
            unsafe { libc::poll(&mut poll, 1, 50) };
            screen.extend(read_available(master.as_raw_fd()));
            if stopping {
                return screen;
            }
        }
    })
}

/// What the shell on the terminal would read next: the slave's input queue, read without
/// waiting (canonical mode off, so that a pushed line without its newline shows too).
fn input_queue(slave: &OwnedFd) -> String {
    let fd = slave.as_raw_fd();
    // SAFETY: termios is plain data filled by tcgetattr, then written back changed.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        assert_eq!(libc::tcgetattr(fd, &mut t), 0);
        t.c_lflag &= !(libc::ICANON | libc::ECHO);
        t.c_cc[libc::VMIN] = 0;
        t.c_cc[libc::VTIME] = 0;
        assert_eq!(libc::tcsetattr(fd, libc::TCSANOW, &t), 0);
    }
    String::from_utf8_lossy(&read_available(fd)).to_string()
}

/// The devices the sandbox's /dev may hold.
const SANDBOX_DEV: &[&str] = &[
    "null", "zero", "full", "random", "urandom", "shm", "fd", "stdin", "stdout", "stderr",
];

/// Runs the harness on a pseudo-terminal that is its controlling terminal (as when a user
/// starts it from a shell) with a player that pushes a command into the terminal's input
/// with TIOCSTI: afterwards the terminal holds nothing the player pushed.
fn player_cannot_type_into_the_terminal(mode: Mode) {
    let exe = compile_c("tty-inject");
    let players = tempfile::tempdir().unwrap();
    let player = copy_as(&exe, players.path(), "tty-inject");
    let results = tempfile::tempdir().unwrap();
    let (master, slave) = open_pty();

    let mut cmd = harness_run("1..2", 2, 5, mode, results.path());
    cmd.arg("--players").arg(&player);
    cmd.stdin(File::from(slave.try_clone().unwrap()))
        .stdout(File::from(slave.try_clone().unwrap()))
        .stderr(File::from(slave.try_clone().unwrap()));
    // SAFETY: setsid and ioctl are async-signal-safe; fd 0 is the terminal by now.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("the harness starts");
    drop(cmd);
    let stop = Arc::new(AtomicBool::new(false));
    // The thread reads a copy: closing the master would hang up the terminal.
    let screen = watch_screen(master.try_clone().unwrap(), stop.clone());
    let status = isolation::wait_within(&mut child, RUN_DEADLINE);
    stop.store(true, Ordering::SeqCst);
    let screen = String::from_utf8_lossy(&screen.join().unwrap()).to_string();
    let queued = input_queue(&slave);
    drop(master);
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "harness exit status; its terminal showed:\n{screen}"
    );

    assert!(
        !queued.contains("INJECTED-BY-PLAYER"),
        "the player typed into the user's terminal; the shell would read: {queued:?}"
    );
    assert!(
        !screen.contains("WRITTEN-BY-PLAYER"),
        "the player wrote on the user's screen:\n{screen}"
    );
    for (seed, log) in nothing_reached(results.path(), "tty-inject") {
        expect_blocked(&log, "open /dev/tty");
        for fd in 0..3 {
            expect_blocked(&log, &format!("TIOCSTI on fd {fd}"));
        }
        if mode.sandboxed() {
            let devices: Vec<&str> = log.lines().filter_map(|l| l.strip_prefix("DEV ")).collect();
            assert!(
                !devices.is_empty(),
                "seed {seed}: the player saw no /dev\n{log}"
            );
            let extra: Vec<&&str> = devices
                .iter()
                .filter(|d| !SANDBOX_DEV.contains(d))
                .collect();
            assert!(
                extra.is_empty(),
                "seed {seed}: the sandbox's /dev also holds {extra:?}"
            );
        }
    }
}

#[test]
fn a_player_cannot_type_into_the_users_terminal() {
    player_cannot_type_into_the_terminal(Mode::Default);
}

#[test]
fn a_player_cannot_type_into_the_users_terminal_without_sandbox() {
    player_cannot_type_into_the_terminal(Mode::SandboxOff);
}

// ---------------------------------------------------------------------------------------
// The environment

/// Variables of the user's session that no player may see (values unique enough to be
/// found anywhere in a log).
const PLANTED: &[(&str, &str)] = &[
    ("OPENAI_API_KEY", "sk-planted-api-token-8d1f0c"),
    ("GITHUB_TOKEN", "ghp_planted-github-token-77a2e1"),
    ("AWS_ACCESS_KEY_ID", "AKIAPLANTEDKEYID7Q3Z"),
    (
        "AWS_SECRET_ACCESS_KEY",
        "planted-aws-secret-access-key-5c3e9a",
    ),
    ("HARNESS_SECRET", "planted-key-of-the-secret-seeds-91b0d4"),
    ("SSH_AUTH_SOCK", "/tmp/planted-ssh-agent-3f7/agent.4242"),
    ("XDG_RUNTIME_DIR", "/tmp/planted-xdg-runtime-dir-6a1"),
    (
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/tmp/planted-xdg-runtime-dir-6a1/bus",
    ),
    ("DISPLAY", ":planted-display-42"),
    ("NOT_PASSED", "planted-value-nobody-asked-for-0e5"),
];
/// Passed by a player.toml's `pass-env`.
const BY_PLAYER: (&str, &str) = ("PASSED_BY_PLAYER_TOML", "planted-passed-by-player-toml-2b8");
/// Passed by scoring.toml's `[harness] pass-env`.
const BY_CONFIG: (&str, &str) = ("PASSED_BY_CONFIG", "planted-passed-by-scoring-toml-c41");
/// Set by a player.toml's `env`.
const SET_BY_PLAYER: (&str, &str) = ("FROM_PLAYER_TOML", "set-by-player-toml");

/// The environment a player wrote on stderr (`ENV NAME=VALUE` lines).
fn dumped_env(log: &str) -> BTreeMap<String, String> {
    log.lines()
        .filter_map(|l| l.strip_prefix("ENV "))
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// Panics unless `log` shows exactly the documented environment plus `extra`.
fn check_env(log: &str, extra: &[(&str, &str)], user_home: &Path, user_tmp: &Path) {
    let env = dumped_env(log);
    let readme = std::fs::read_to_string(root().join("docs/containment.md")).unwrap();
    let mut allowed: Vec<String> = ["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    allowed.extend(extra.iter().map(|(k, _)| k.to_string()));
    for name in env.keys() {
        let documented = name.starts_with("HARNESS_") && name != "HARNESS_SECRET";
        assert!(
            allowed.contains(name) || documented,
            "the player sees {name}={:?}\n{log}",
            env[name]
        );
        if documented {
            assert!(
                readme.contains(name.as_str()),
                "the player sees {name}, which docs/containment.md does not document"
            );
        }
    }
    for name in [
        "PATH",
        "HOME",
        "TMPDIR",
        "LANG",
        "LC_ALL",
        "HARNESS_PLAYER_DIR",
    ] {
        assert!(env.contains_key(name), "the player lacks {name}\n{log}");
    }
    assert_eq!(
        env["PATH"],
        std::env::var("PATH").unwrap(),
        "the user's PATH"
    );
    assert_eq!(env["LANG"], "C.UTF-8");
    assert_eq!(env["LC_ALL"], "C.UTF-8");
    for (name, user) in [("HOME", user_home), ("TMPDIR", user_tmp)] {
        assert_ne!(Path::new(&env[name]), user, "{name} is the user's own");
        assert!(
            log.lines().any(|l| l == format!("WRITABLE {name}")),
            "the player cannot write in its {name}\n{log}"
        );
    }
    for (name, value) in extra {
        assert_eq!(
            env.get(*name).map(String::as_str),
            Some(*value),
            "{name}\n{log}"
        );
    }
    for (name, value) in PLANTED.iter().chain([&BY_PLAYER, &BY_CONFIG]) {
        if !extra.contains(&(*name, *value)) {
            assert!(
                !log.contains(value),
                "the value of {name} reached the player\n{log}"
            );
        }
    }
}

fn environment_is_clean(mode: Mode) {
    let exe = compile_c("env-dump");
    let players = tempfile::tempdir().unwrap();
    let plain = toml_player(players.path(), "env-plain", &exe, &[], "");
    let asks = toml_player(
        players.path(),
        "env-asks",
        &exe,
        &[],
        &format!(
            "env = {{ {} = {:?} }}\npass-env = [{:?}]\n",
            SET_BY_PLAYER.0, SET_BY_PLAYER.1, BY_PLAYER.0
        ),
    );
    let user = tempfile::tempdir().unwrap();
    let (user_home, user_tmp) = (user.path().join("home"), user.path().join("tmp"));
    std::fs::create_dir(&user_home).unwrap();
    std::fs::create_dir(&user_tmp).unwrap();
    let planted = |cmd: &mut std::process::Command| {
        cmd.envs(PLANTED.iter().copied())
            .envs([BY_PLAYER, BY_CONFIG])
            .env("HOME", &user_home)
            .env("TMPDIR", &user_tmp);
    };

    // player.toml's `env` and `pass-env`, next to a player that asks for nothing.
    let results = tempfile::tempdir().unwrap();
    let mut cmd = harness_run("1", 2, 5, mode, results.path());
    cmd.arg("--players").args([&plain, &asks]);
    planted(&mut cmd);
    expect_exit(&output_within(&mut cmd, RUN_DEADLINE), 0);
    let log = |player: &str| stderr_log(results.path(), "chesspuzzle", player, "1");
    check_env(&log("env-plain"), &[], &user_home, &user_tmp);
    check_env(
        &log("env-asks"),
        &[SET_BY_PLAYER, BY_PLAYER],
        &user_home,
        &user_tmp,
    );
    let run_toml = std::fs::read_to_string(results.path().join("latest/run.toml")).unwrap();
    assert!(
        run_toml.contains(BY_PLAYER.0),
        "run.toml names the passed variable:\n{run_toml}"
    );
    for (name, value) in PLANTED.iter().chain([&BY_PLAYER, &BY_CONFIG]) {
        assert!(
            !run_toml.contains(value),
            "run.toml holds the value of {name}:\n{run_toml}"
        );
    }

    // scoring.toml's `[harness] pass-env`, for every player.
    let config_dir = tempfile::tempdir().unwrap();
    let repo_config = std::fs::read_to_string(root().join("scoring.toml")).unwrap();
    let config = repo_config.replacen(
        "[harness]\n",
        &format!("[harness]\npass-env = [{:?}]\n", BY_CONFIG.0),
        1,
    );
    assert_ne!(config, repo_config, "scoring.toml has a [harness] table");
    let config_path = config_dir.path().join("scoring.toml");
    std::fs::write(&config_path, config).unwrap();
    let results = tempfile::tempdir().unwrap();
    let mut cmd = harness_run("1", 2, 5, mode, results.path());
    cmd.arg("--config")
        .arg(&config_path)
        .arg("--testcases")
        .arg(root().join("testcases"))
        .arg("--players")
        .arg(&plain);
    planted(&mut cmd);
    expect_exit(&output_within(&mut cmd, RUN_DEADLINE), 0);
    check_env(
        &stderr_log(results.path(), "chesspuzzle", "env-plain", "1"),
        &[BY_CONFIG],
        &user_home,
        &user_tmp,
    );
    let run_toml = std::fs::read_to_string(results.path().join("latest/run.toml")).unwrap();
    assert!(
        run_toml.contains(BY_CONFIG.0),
        "run.toml names the passed variable:\n{run_toml}"
    );
    assert!(
        !run_toml.contains(BY_CONFIG.1),
        "run.toml holds the value:\n{run_toml}"
    );
}

#[test]
fn a_player_sees_only_its_documented_environment() {
    environment_is_clean(Mode::Default);
}

#[test]
fn a_player_sees_only_its_documented_environment_without_sandbox() {
    environment_is_clean(Mode::SandboxOff);
}

// ---------------------------------------------------------------------------------------
// Open descriptors

/// In a child between fork and exec: makes `src` also open as `dst`, inherited by exec.
fn inherit_as(src: i32, dst: i32) -> std::io::Result<()> {
    // SAFETY: dup2 and fcntl are async-signal-safe and act on descriptors of this process.
    let ret = unsafe {
        if src == dst {
            libc::fcntl(dst, libc::F_SETFD, 0)
        } else {
            libc::dup2(src, dst)
        }
    };
    if ret < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The harness is started with fd 5 on /dev/null and fd 250 on a pipe of the caller: the
/// player finds only 0, 1 and 2, and nothing arrives on the pipe.
fn only_standard_descriptors(mode: Mode) {
    let exe = compile_c("fd-list");
    let players = tempfile::tempdir().unwrap();
    let player = copy_as(&exe, players.path(), "fd-list");
    let results = tempfile::tempdir().unwrap();
    let devnull = File::open("/dev/null").unwrap();
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 fills two descriptors, which are owned below.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: both were just opened.
    let (read_end, write_end) =
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };

    let mut cmd = harness_run("1..2", 2, 5, mode, results.path());
    cmd.arg("--players").arg(&player);
    let (null_fd, pipe_fd) = (devnull.as_raw_fd(), write_end.as_raw_fd());
    // SAFETY: the closure only calls dup2/fcntl.
    unsafe {
        cmd.pre_exec(move || {
            inherit_as(null_fd, 5)?;
            inherit_as(pipe_fd, 250)
        });
    }
    let out = output_within(&mut cmd, RUN_DEADLINE);
    drop(write_end);
    expect_exit(&out, 0);
    let leaked = String::from_utf8_lossy(&read_available(read_end.as_raw_fd())).to_string();
    assert!(
        !leaked.contains("LEAKED-BY-PLAYER"),
        "a player wrote into the caller's pipe (fd 250): {leaked:?}"
    );
    for (_, log) in nothing_reached(results.path(), "fd-list") {
        expect_blocked(&log, "descriptors above 2");
    }
}

#[test]
fn a_player_inherits_only_stdin_stdout_stderr() {
    only_standard_descriptors(Mode::Default);
}

#[test]
fn a_player_inherits_only_stdin_stdout_stderr_without_sandbox() {
    only_standard_descriptors(Mode::SandboxOff);
}

// ---------------------------------------------------------------------------------------
// Unix sockets (in the sandbox)

/// A session bus under a planted `XDG_RUNTIME_DIR` and an ssh agent at `SSH_AUTH_SOCK`,
/// both listening: the sandboxed player, given their paths as arguments, cannot connect to
/// either, and neither listener sees a connection.
#[test]
fn a_sandboxed_player_cannot_reach_the_users_unix_sockets() {
    use std::os::unix::net::UnixListener;
    let exe = compile_c("unix-connect");
    let runtime = tempfile::tempdir().unwrap();
    let agent_dir = tempfile::tempdir().unwrap();
    let bus_path = runtime.path().join("bus");
    let agent_path = agent_dir.path().join("agent.4242");
    let bus = UnixListener::bind(&bus_path).unwrap();
    let agent = UnixListener::bind(&agent_path).unwrap();
    for path in [runtime.path(), agent_dir.path()] {
        isolation::open_to_all(path);
    }
    let (bus_str, agent_str) = (bus_path.to_str().unwrap(), agent_path.to_str().unwrap());
    let players = tempfile::tempdir().unwrap();
    let player = toml_player(
        players.path(),
        "unix-connect",
        &exe,
        &[bus_str, agent_str],
        "",
    );
    let results = tempfile::tempdir().unwrap();

    let mut cmd = harness_run("1..2", 2, 5, Mode::Default, results.path());
    cmd.arg("--players")
        .arg(&player)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env("SSH_AUTH_SOCK", &agent_path);
    expect_exit(&output_within(&mut cmd, RUN_DEADLINE), 0);

    for (name, listener) in [("session bus", &bus), ("ssh agent", &agent)] {
        listener.set_nonblocking(true).unwrap();
        match listener.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("{name}: accept: {e}"),
            Ok((mut stream, _)) => {
                let mut said = String::new();
                stream.set_nonblocking(true).unwrap();
                let _ = stream.read_to_string(&mut said);
                panic!("a player connected to the user's {name} and said {said:?}");
            }
        }
    }
    for (_, log) in nothing_reached(results.path(), "unix-connect") {
        expect_blocked(&log, &format!("connect {bus_str}"));
        expect_blocked(&log, &format!("connect {agent_str}"));
    }
}

// ---------------------------------------------------------------------------------------
// Core dumps

/// The harness is started with RLIMIT_CORE unlimited (`ulimit -c unlimited`): the player's
/// soft limit is 0 from its first instruction, a crashing child of it dumps no core, and its
/// own crash is RE with no core file left.
fn no_core_dumps(mode: Mode) {
    let exe = compile_c("core-dump");
    let players = tempfile::tempdir().unwrap();
    let player = copy_as(&exe, players.path(), "core-dump");
    let results = tempfile::tempdir().unwrap();
    let mut cmd = harness_run("1..2", 2, 5, mode, results.path());
    cmd.arg("--players").arg(&player);
    // SAFETY: setrlimit is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            let unlimited = libc::rlimit {
                rlim_cur: libc::RLIM_INFINITY,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_CORE, &unlimited) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    expect_exit(&output_within(&mut cmd, RUN_DEADLINE), 0);
    let rows = scores(results.path());
    for row in rows_of(&rows, "core-dump") {
        assert_eq!(row["verdict"], "RE", "{row:?}");
        assert!(row["reason"].contains("SIGSEGV"), "{row:?}");
    }
    for (_, log) in nothing_reached(results.path(), "core-dump") {
        expect_blocked(&log, "core limit");
        expect_blocked(&log, "core dump of a crashing child");
    }
    let player_dir = player.parent().unwrap();
    for entry in std::fs::read_dir(player_dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        let core = name == "core" || name.starts_with("core.");
        assert!(!core, "a core file in the player's folder: {name}");
    }
}

#[test]
fn a_crashing_player_dumps_no_core() {
    no_core_dumps(Mode::Default);
}

#[test]
fn a_crashing_player_dumps_no_core_without_sandbox() {
    no_core_dumps(Mode::SandboxOff);
}
