//! Running the build step of players before a run: `cargo build` of Cargo packages and the
//! `build` command of a `player.toml` ([`Builds::run_job`]).
//!
//! A build runs either as the user, outside any sandbox (the user's own code and tool
//! chain: the default of a run without a key), or contained ([`Builds::contain`]: with a
//! secret key, `--build-sandbox` or `[harness] build-sandbox = true`), in a sandbox of its
//! own like a test's ([`crate::sandbox::BuildJob`]): no network, a memory limit, only its
//! own folders writable, and every process of it killed when its command ends. Either way it
//! is waited on together with the interrupt pipe, so Ctrl-C or SIGTERM kills the whole build
//! (compilers, build scripts) at once; a build that outlasts `build-timeout` is killed the
//! same way. What it writes to stderr is shown to the user as it comes (without cargo's
//! status lines) and kept whole for the run's `logs/build.log`.
//! This module starts build commands and nothing else; it never runs a player.

use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::os::{self, PollFd};
use crate::sandbox::spec::EnvRules;
use crate::sandbox::{self, BuildJob, Isolation, Want};

/// How many of a build's last lines a timeout shows.
const LAST_LINES: usize = 20;

/// The builds of one run: their limit and what they printed.
#[derive(Debug)]
pub struct Builds {
    timeout: Duration,
    /// Every build's command line, its stderr and how it ended, for `logs/build.log`.
    log: Vec<u8>,
    /// `--no-build`: every build is refused ([`BuildError::Refused`]).
    pub refuse: bool,
    /// Builds run in a sandbox ([`Builds::contain`]); `None`: as the user.
    contain: Option<Contain>,
    /// Where finished builds of `player.toml` players are kept by the hash of their sources
    /// (`crate::players`), so that a later run of an unchanged player does not build again;
    /// `None`: nothing is kept.
    pub cache: Option<PathBuf>,
}

/// How contained builds are run: what the sandbox is made of, made at the first build.
#[derive(Debug)]
struct Contain {
    sandbox: Want,
    cgroup: Want,
    binds: Vec<PathBuf>,
    /// Bytes of memory for a build's whole tree.
    memory: u64,
    isolation: Option<Isolation>,
    /// How the last sandbox was made (kept once it is freed), for [`Builds::describe`].
    described: Option<String>,
}

/// Why a build did not give a program.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("cannot start it: {0}")]
    Start(io::Error),
    #[error(
        "was not run: --no-build was given (run a bundle made by `harness build --out DIR` \
         instead, or leave out --no-build)"
    )]
    Refused,
    #[error("was interrupted (Ctrl-C or SIGTERM); the build was killed")]
    Interrupted,
    #[error(
        "did not finish within build-timeout = {} s ([harness] in scoring.toml) and was killed; its last lines:\n{}",
        .timeout.as_secs_f64(),
        .last_lines
    )]
    TimedOut {
        timeout: Duration,
        last_lines: String,
    },
    #[error("cannot wait for it: {0}")]
    Wait(io::Error),
    #[error("failed ({0}; its messages are above)")]
    Failed(ExitStatus),
    #[error(
        "ran out of memory: its processes held more than build-memory-limit = {0} MB together \
         ([harness] in scoring.toml) and it was killed; its messages are above"
    )]
    OutOfMemory(u64),
    #[error("cannot be contained: {0} (builds run in a sandbox: --build-sandbox, a secret key, or [harness] build-sandbox)")]
    Sandbox(String),
}

impl Builds {
    pub fn new(timeout: Duration) -> Builds {
        Builds {
            timeout,
            log: Vec::new(),
            refuse: false,
            contain: None,
            cache: None,
        }
    }

    /// The builds of a command run with `harness`'s settings: their timeout, and contained
    /// when `contain` (a secret key, `--build-sandbox`) or `build-sandbox` asks for it, in a
    /// sandbox made as `sandbox` and `cgroup` say.
    pub fn from_settings(
        harness: &crate::config::HarnessSettings,
        contain: bool,
        sandbox: Want,
        cgroup: Want,
    ) -> Builds {
        let mut builds = Builds::new(Duration::from_secs_f64(harness.build_timeout));
        if contain || harness.build_sandbox {
            builds.contain(
                sandbox,
                cgroup,
                &harness.sandbox_bind,
                harness.build_memory_limit,
            );
        }
        builds
    }

    /// Runs every later build in a sandbox (see the module doc), made as `sandbox` and
    /// `cgroup` say (as for the tests), showing `binds` read-only too (`sandbox-bind`), with
    /// `memory_mb` of memory for the build's whole tree.
    pub fn contain(&mut self, sandbox: Want, cgroup: Want, binds: &[PathBuf], memory_mb: u64) {
        self.contain = Some(Contain {
            sandbox,
            cgroup,
            binds: binds.to_vec(),
            memory: memory_mb << 20,
            isolation: None,
            described: None,
        });
    }

    /// Frees the sandbox of contained builds (their cgroups, their scratch folder) once the
    /// players are built; a later build makes it again.
    pub(crate) fn release_sandbox(&mut self) {
        if let Some(contain) = &mut self.contain {
            contain.isolation = None;
        }
    }

    /// Adds a line to the builds' log (what was done instead of a build).
    pub(crate) fn note(&mut self, text: &str) {
        self.log.extend_from_slice(text.as_bytes());
    }

    /// Whether builds run in a sandbox.
    pub fn contained(&self) -> bool {
        self.contain.is_some()
    }

    /// How builds are contained, for the log and run.toml.
    pub fn describe(&self) -> String {
        match &self.contain {
            None => "as the user, outside the sandbox".to_string(),
            Some(Contain {
                described: Some(how),
                ..
            }) => format!("contained ({how})"),
            Some(_) => "contained".to_string(),
        }
    }

    /// Runs one build command to its end: in the sandbox when builds are contained, else as
    /// the user in `job.cwd` with `job.env` added to the user's environment. Returns its
    /// standard output; with `merge`, its stdout is shown and logged like its stderr instead.
    pub(crate) fn run_job(&mut self, job: &BuildJob, merge: bool) -> Result<Vec<u8>, BuildError> {
        if self.contain.is_none() {
            let mut cmd = Command::new(&job.program);
            cmd.args(job.argv.iter().skip(1))
                .current_dir(&job.cwd)
                .envs(job.env.iter().map(|(k, v)| (k, v)));
            return self.run_inner(cmd, merge);
        }
        if self.refuse {
            return Err(BuildError::Refused);
        }
        let contain = self.contain.as_mut().expect("checked above");
        if contain.isolation.is_none() {
            let isolation = Isolation::prepare(contain.sandbox, contain.cgroup, &contain.binds)
                .map_err(|e| BuildError::Sandbox(e.to_string()))?;
            for note in &isolation.notes {
                eprintln!("builds: {note}");
                let _ = writeln!(self.log, "[note: {note}]");
            }
            contain.described = Some(isolation.describe());
            contain.isolation = Some(isolation);
        }
        let _ = writeln!(
            self.log,
            "$ {}   (in {}, contained)",
            job.argv.join(" "),
            job.cwd.display()
        );
        let from = self.log.len();
        let memory = contain.memory;
        let isolation = contain.isolation.as_ref().expect("made above");
        // A clean environment, as a player's: PATH, a UTF-8 locale, then the job's own.
        let mut job = job.clone();
        job.env = EnvRules::base().set(&job.env).resolve();
        let spec = isolation
            .build_spec(&job, memory)
            .map_err(|e| BuildError::Sandbox(e.to_string()))?;
        let launched = sandbox::launch(&spec).map_err(|e| {
            let _ = writeln!(self.log, "[cannot start it: {e}]\n");
            BuildError::Start(e)
        })?;
        self.wait_contained(launched, merge, memory, from)
    }

    /// Everything the builds of this run printed (empty when nothing was built).
    pub fn log(&self) -> &[u8] {
        &self.log
    }

    /// Appends the builds' output to `<run>/logs/build.log`, when there was a build.
    pub(crate) fn write_log(&self, run_dir: &Path) -> io::Result<()> {
        if self.log.is_empty() {
            return Ok(());
        }
        let dir = run_dir.join("logs");
        std::fs::create_dir_all(&dir)?;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("build.log"))?
            .write_all(&self.log)
    }

    /// Runs one build command to its end and returns its standard output (for cargo, its
    /// JSON messages). Standard input is closed; stderr is shown and logged.
    pub fn run(&mut self, cmd: Command) -> Result<Vec<u8>, BuildError> {
        self.run_inner(cmd, false)
    }

    fn run_inner(&mut self, mut cmd: Command, merge: bool) -> Result<Vec<u8>, BuildError> {
        if self.refuse {
            return Err(BuildError::Refused);
        }
        let _ = writeln!(self.log, "$ {}", shown(&cmd));
        let from = self.log.len();
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        os::configure_child(&mut cmd);
        let start = Instant::now();
        let mut child = cmd.spawn().map_err(|e| {
            let _ = writeln!(self.log, "[cannot start it: {e}]\n");
            BuildError::Start(e)
        })?;
        let pid = child.id() as i32;
        let stdout: OwnedFd = child.stdout.take().expect("piped").into();
        let stderr: OwnedFd = child.stderr.take().expect("piped").into();
        let mut read = Streams::of([Some(stdout), Some(stderr)]);
        let exited = os::pid_fd(pid);
        let deadline = start + self.timeout;
        let ending = loop {
            read.drain(&mut self.log, merge);
            if os::interrupted() {
                break Ending::Interrupted;
            }
            match child.try_wait() {
                // What it wrote before it ended was read above; a grandchild that still holds
                // a pipe is not waited for.
                Ok(Some(status)) => {
                    read.drain(&mut self.log, merge);
                    break Ending::Exited(status);
                }
                Ok(None) => {}
                Err(e) => break Ending::Lost(e),
            }
            let now = Instant::now();
            if now >= deadline {
                break Ending::TimedOut;
            }
            let (mut fds, tick) = Self::wait_set(&read.pipes, exited.as_ref());
            if let Err(e) = os::poll(&mut fds, Some((deadline - now).min(tick))) {
                break Ending::Lost(e);
            }
        };
        read.echo.finish();
        let took = start.elapsed().as_secs_f64();
        let status = match ending {
            Ending::Exited(status) => status,
            other => {
                // The whole group: cargo, the compilers and build scripts it started.
                os::kill_group(pid, os::SIGKILL);
                let _ = child.wait();
                return Err(self.stopped(other, took, from));
            }
        };
        let _ = writeln!(self.log, "[{status} after {took:.1} s]\n");
        if status.success() {
            Ok(read.out)
        } else {
            Err(BuildError::Failed(status))
        }
    }

    /// Waits for a contained build to end, showing and logging its output as it comes: the
    /// supervisor's report arrives once the build's command has ended and every process it
    /// left has been killed. Out of time or interrupted, the supervisor is told to end it.
    fn wait_contained(
        &mut self,
        launched: sandbox::Launched,
        merge: bool,
        memory: u64,
        from: usize,
    ) -> Result<Vec<u8>, BuildError> {
        let start = Instant::now();
        let sandbox::Launched {
            pid,
            stdin,
            stdout,
            stderr,
            control,
            report,
            net,
        } = launched;
        drop(stdin);
        let mut read = Streams::of([Some(stdout), Some(stderr)]);
        let _ = os::set_nonblocking(report.as_fd());
        let ending = self.follow(&mut read, &report, start + self.timeout, merge);
        // The end of the test for the supervisor: what is left of the build is killed.
        drop(control);
        if !matches!(ending, Ending::Reported) {
            await_report(&report, &mut read.text);
        }
        read.drain(&mut self.log, merge);
        read.echo.finish();
        let got: Option<sandbox::Report> = serde_json::from_slice(read.text.trim_ascii()).ok();
        if got.is_none() {
            sandbox::kill(pid);
        }
        sandbox::reap_later(pid);
        sandbox::release(net, got.as_ref());
        let took = start.elapsed().as_secs_f64();
        if !matches!(ending, Ending::Reported) {
            return Err(self.stopped(ending, took, from));
        }
        self.judge_report(got, took, memory).map(|()| read.out)
    }

    /// Follows a contained build until its supervisor reports, the harness is interrupted,
    /// the deadline passes or the report's pipe fails: its output echoed and logged as it
    /// comes.
    fn follow(
        &mut self,
        read: &mut Streams,
        report: &OwnedFd,
        deadline: Instant,
        merge: bool,
    ) -> Ending {
        loop {
            read.drain(&mut self.log, merge);
            if os::interrupted() {
                return Ending::Interrupted;
            }
            match read_report(report, &mut read.text) {
                Ok(true) => return Ending::Reported,
                Ok(false) => {}
                Err(e) => return Ending::Lost(e),
            }
            let now = Instant::now();
            if now >= deadline {
                return Ending::TimedOut;
            }
            let (mut fds, _) = Self::wait_set(&read.pipes, Some(report));
            if let Err(e) = os::poll(&mut fds, Some(deadline - now)) {
                return Ending::Lost(e);
            }
        }
    }

    /// What a contained build's report says: its start failed, it was killed for its
    /// memory, or it exited (logged, with how long it took), well or not.
    fn judge_report(
        &mut self,
        got: Option<sandbox::Report>,
        took: f64,
        memory: u64,
    ) -> Result<(), BuildError> {
        let Some(got) = got else {
            let _ = writeln!(self.log, "[the sandbox gave no report after {took:.1} s]\n");
            return Err(BuildError::Sandbox("the sandbox gave no report".into()));
        };
        if let Some(e) = got.start_error {
            let _ = writeln!(self.log, "[cannot start it: {e:?}]\n");
            return Err(match e {
                sandbox::StartError::Exec(e) => BuildError::Start(io::Error::other(e)),
                sandbox::StartError::Refused(e) | sandbox::StartError::Setup(e) => {
                    BuildError::Sandbox(e)
                }
            });
        }
        if !got.all_gone {
            let _ = writeln!(self.log, "[{}]", got.notes.join("; "));
        }
        // No exit of its own: it was killed with the rest (out of memory, most likely).
        let status = match got.exit {
            Some(os::Exit::Code(c)) => ExitStatus::from_raw((c & 0xff) << 8),
            Some(os::Exit::Signal(s)) => ExitStatus::from_raw(s & 0x7f),
            None => ExitStatus::from_raw(os::SIGKILL),
        };
        let _ = writeln!(self.log, "[{status} after {took:.1} s]\n");
        if got.oom_killed {
            return Err(BuildError::OutOfMemory(memory >> 20));
        }
        match status.success() {
            true => Ok(()),
            false => Err(BuildError::Failed(status)),
        }
    }

    /// What a build's loop waits on (its two pipes, an interrupt, its exit) and how long at most:
    /// without a pidfd, an exit with the pipes held elsewhere is seen within a tick.
    fn wait_set(pipes: &[Option<OwnedFd>; 2], exited: Option<&OwnedFd>) -> ([PollFd; 4], Duration) {
        let readable =
            |f: Option<&OwnedFd>| f.map_or(PollFd::unused(), |f| PollFd::readable(f.as_raw_fd()));
        let fds = [
            readable(pipes[0].as_ref()),
            readable(pipes[1].as_ref()),
            PollFd::readable(os::interrupt_fd()),
            readable(exited),
        ];
        let tick = if exited.is_some() {
            Duration::from_secs(1)
        } else {
            Duration::from_millis(50)
        };
        (fds, tick)
    }

    /// The error of a build that did not exit by itself (interrupted, lost, out of time),
    /// noted in the log; `from` is where its output starts in the log.
    fn stopped(&mut self, ending: Ending, took: f64, from: usize) -> BuildError {
        let last_lines = last_lines(&self.log[from..]);
        match ending {
            Ending::Interrupted => {
                let _ = writeln!(self.log, "\n[interrupted after {took:.1} s: killed]\n");
                BuildError::Interrupted
            }
            Ending::Lost(e) => {
                let _ = writeln!(self.log, "\n[lost after {took:.1} s: {e}]\n");
                BuildError::Wait(e)
            }
            _ => {
                let _ = writeln!(self.log, "\n[build-timeout after {took:.1} s: killed]\n");
                BuildError::TimedOut {
                    timeout: self.timeout,
                    last_lines,
                }
            }
        }
    }
}

/// Reads what the supervisor has written of its report into `text`; `Ok(true)` once it is
/// whole (the pipe's end).
fn read_report(fd: &OwnedFd, text: &mut Vec<u8>) -> io::Result<bool> {
    let mut buf = [0u8; 4096];
    loop {
        match os::read(fd.as_fd(), &mut buf)? {
            Some(0) => return Ok(true),
            Some(n) => text.extend_from_slice(&buf[..n]),
            None => return Ok(false),
        }
    }
}

/// What a build's loop reads: its two pipes (closed ones `None`), what it has printed on
/// stdout, its echo to the screen, and (a contained build's) the supervisor's report as far
/// as it came.
struct Streams {
    pipes: [Option<OwnedFd>; 2],
    out: Vec<u8>,
    echo: Echo,
    text: Vec<u8>,
}

impl Streams {
    /// The build's stdout and stderr, made non-blocking, before anything is read.
    fn of(pipes: [Option<OwnedFd>; 2]) -> Streams {
        for fd in pipes.iter().flatten() {
            // Cannot fail on a fresh pipe; were it to, reads would block, never misread.
            let _ = os::set_nonblocking(fd.as_fd());
        }
        Streams {
            pipes,
            out: Vec::new(),
            echo: Echo::default(),
            text: Vec::new(),
        }
    }

    /// Reads what the build has written so far: stdout into `out`, stderr to the screen and
    /// the `log`. A pipe at its end (or in error) is closed.
    /// With `merge`, stdout is shown and logged like stderr.
    fn drain(&mut self, log: &mut Vec<u8>, merge: bool) {
        let mut buf = [0u8; 8192];
        for (i, pipe) in self.pipes.iter_mut().enumerate() {
            let Some(fd) = pipe else { continue };
            loop {
                match os::read(fd.as_fd(), &mut buf) {
                    Ok(Some(0)) | Err(_) => {
                        *pipe = None;
                        break;
                    }
                    Ok(Some(n)) if i == 0 && !merge => self.out.extend_from_slice(&buf[..n]),
                    Ok(Some(n)) => {
                        self.echo.feed(&buf[..n]);
                        log.extend_from_slice(&buf[..n]);
                    }
                    Ok(None) => break,
                }
            }
        }
    }
}

/// After a contained build stopped otherwise than by its report: its report, waited for a
/// few seconds while the supervisor kills what is left.
fn await_report(report: &OwnedFd, text: &mut Vec<u8>) {
    let teardown = Instant::now() + Duration::from_secs(5);
    while !matches!(read_report(report, text), Ok(true) | Err(_)) && Instant::now() < teardown {
        let mut fds = [PollFd::readable(report.as_raw_fd())];
        let _ = os::poll(&mut fds, Some(Duration::from_millis(100)));
    }
}

enum Ending {
    Exited(ExitStatus),
    /// A contained build's supervisor has reported.
    Reported,
    Interrupted,
    TimedOut,
    Lost(io::Error),
}

/// A command as a shell would show it, with the folder it runs in.
fn shown(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().to_string();
    for arg in cmd.get_args() {
        s.push(' ');
        s.push_str(&arg.to_string_lossy());
    }
    if let Some(dir) = cmd.get_current_dir() {
        s.push_str(&format!("   (in {})", dir.display()));
    }
    s
}

/// The last lines a build wrote, indented.
fn last_lines(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    let lines: Vec<&str> = text.lines().collect();
    if lines.iter().all(|l| l.trim().is_empty()) {
        return "  (it wrote nothing)".to_string();
    }
    lines[lines.len().saturating_sub(LAST_LINES)..]
        .iter()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Shows a build's stderr on the harness's stderr line by line, leaving out cargo's status
/// lines (`   Compiling x`, `    Finished ...`), so the user sees warnings and errors as a
/// `--quiet` build would show them while the log keeps everything.
#[derive(Default)]
struct Echo {
    partial: Vec<u8>,
}

impl Echo {
    fn feed(&mut self, bytes: &[u8]) {
        self.partial.extend_from_slice(bytes);
        let Some(end) = self.partial.iter().rposition(|&b| b == b'\n') else {
            return;
        };
        let lines: Vec<u8> = self.partial.drain(..=end).collect();
        let mut err = io::stderr().lock();
        for line in lines.split_inclusive(|&b| b == b'\n') {
            if !is_status_line(line) {
                let _ = err.write_all(line);
            }
        }
    }

    fn finish(&mut self) {
        if !self.partial.is_empty() {
            self.partial.push(b'\n');
            self.feed(&[]);
        }
    }
}

/// Cargo's status lines: a capitalised verb right-aligned in 12 columns, then a space.
fn is_status_line(line: &[u8]) -> bool {
    if line.len() < 13 || line[12] != b' ' {
        return false;
    }
    let head = &line[..12];
    let word = head.trim_ascii_start();
    word.len() >= 2
        && word.len() < 12
        && word[0].is_ascii_uppercase()
        && word[1..].iter().all(u8::is_ascii_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_status_lines_are_told_from_messages() {
        for status in [
            "   Compiling slow-build v0.1.0 (/x)\n",
            "    Finished `release` profile [optimized] target(s) in 0.04s\n",
            "    Blocking waiting for file lock on build directory\n",
        ] {
            assert!(is_status_line(status.as_bytes()), "{status:?}");
        }
        for message in [
            "warning: unused variable: `x`\n",
            "error: could not compile `p` (bin \"p\") due to 1 previous error\n",
            "  --> src/main.rs:2:9\n",
            "2 |     let x = 1;\n",
            "  = note: `#[warn(unused_variables)]` on by default\n",
        ] {
            assert!(!is_status_line(message.as_bytes()), "{message:?}");
        }
    }

    #[test]
    fn a_build_is_logged_with_its_command_output_and_ending() {
        let mut builds = Builds::new(Duration::from_secs(60));
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo data; echo 'said this' >&2; exit 3"]);
        let err = builds.run(cmd).unwrap_err();
        assert!(matches!(err, BuildError::Failed(_)), "{err}");
        let log = String::from_utf8_lossy(builds.log()).to_string();
        assert!(log.starts_with("$ sh -c echo data;"), "{log}");
        assert!(log.contains("said this\n"), "{log}");
        assert!(log.contains("exit status: 3"), "{log}");
        assert!(!log.contains("data\n"), "stdout is the caller's: {log}");
        let mut ok = Command::new("sh");
        ok.args(["-c", "echo data"]);
        assert_eq!(builds.run(ok).unwrap(), b"data\n");
    }

    #[test]
    fn a_build_past_its_timeout_is_killed_with_its_group_and_its_last_lines() {
        let mut builds = Builds::new(Duration::from_secs(5));
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("grandchild");
        let mut cmd = Command::new("sh");
        // A grandchild in the same group, which must die with the build.
        cmd.arg("-c").arg(format!(
            "for i in $(seq 1 30); do echo line $i >&2; done; sleep 60 & echo $! > {}; wait",
            marker.display()
        ));
        let start = Instant::now();
        let err = builds.run(cmd).unwrap_err();
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "killed long before its sleep"
        );
        let text = err.to_string();
        assert!(text.contains("build-timeout = 5 s"), "{text}");
        assert!(
            text.contains("  line 30") && text.contains("  line 11"),
            "{text}"
        );
        assert!(!text.contains("line 10\n"), "only the last lines: {text}");
        let pid = std::fs::read_to_string(&marker).unwrap();
        let stat = format!("/proc/{}/stat", pid.trim());
        // Killed: gone, or a zombie until init reaps it.
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::fs::read_to_string(&stat).is_ok_and(|s| !s.contains(") Z ")) {
            assert!(Instant::now() < deadline, "the grandchild {pid} still runs");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
