//! A contest's own tool (a generator, a visualizer that scores, a tester), run contained like
//! a player: in the run's [`Isolation`] (the same namespaces, cgroup and limits), with no
//! network, a clean environment, a time limit of its own, and a file system that shows the
//! system folders, the tools folder read-only and one fresh writable folder for this run of
//! the tool, nothing else (no results, no other test, no player, no key: the key never
//! reaches a child's environment). Under a root harness it runs as the tools' own id
//! (`ids::TOOL_UID`), never a player's. The working folder in it shows the tools folder as by
//! hand, writable anywhere, the original unchanged ([`super::tool_view`]).
//!
//! The caller makes the folder with [`ToolDir::new`] and fills its `work/` (the tool's
//! working folder: the tools' entries, inputs, a player's output) with
//! [`ToolDir::show_tools`], runs [`run`], and reads what the tool left there. The tool's stdin comes from [`Stdin`]; its stdout goes to a file
//! or is only kept as a tail; both tails are returned for the score and the reason. Nothing
//! here judges: [`ToolRun`] says how the tool ended, and the problem decides what it means.
//! The harness's side of the tool's pipes while it runs is [`super::tool_pump`]'s.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::folder_cap::FolderCap;
pub(crate) use super::off_path::off_path_thread;
pub use super::off_path::{MadeAhead, OffPath, AHEAD, JANITOR};
use super::spec::{Bind, Exit, Mode, Report, Spec, StartError};
use super::tool_pump::{end_test, finish, Pump};
use super::tool_view;
use super::{Isolation, TestLimits};
use crate::os;

/// What the tool reads on its stdin.
#[derive(Clone, Debug)]
pub enum Stdin {
    /// Nothing: end of file at once.
    Null,
    /// These bytes (an input file's content), then end of file.
    Bytes(Vec<u8>),
}

/// One command to run contained.
#[derive(Clone, Debug)]
pub struct ToolCommand {
    /// The program as the host names it: a path, or a name looked up on PATH (`java`).
    pub program: PathBuf,
    /// The arguments after the program.
    pub args: Vec<String>,
    /// The tools folder, shown read-only (the program and its files live there).
    pub tools: PathBuf,
    /// More host paths shown read-only (a relay program, a player's command).
    pub read_only: Vec<PathBuf>,
    /// The whole environment but HOME and TMPDIR (added here).
    pub env: Vec<(String, String)>,
    pub stdin: Stdin,
    /// Where stdout is written (a file the caller names, usually in `work/`); `None`: stdout
    /// is only kept as a tail.
    pub stdout: Option<PathBuf>,
    /// Wall-clock time the tool may run.
    pub timeout: Duration,
    /// Memory, disk (its HOME and /tmp), processes.
    pub limits: TestLimits,
    /// Most stdout bytes written to `stdout` before the tool is stopped.
    pub max_output: u64,
}

/// How a tool's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolEnd {
    /// It ran and exited (or was killed by a signal of its own doing).
    Exited(Exit),
    /// It ran past its time limit and was killed.
    TimedOut,
    /// It wrote more than `max_output` bytes on stdout and was killed.
    OutputLimit,
    /// Its folder took more than this many bytes (watched without a cgroup: [`FolderCap`])
    /// and it was killed.
    DiskLimit(u64),
    /// It never ran: the program could not be executed, or the sandbox refused.
    NotStarted(String),
    /// The run was interrupted (Ctrl-C) while it ran.
    Interrupted,
}

/// What one run of a tool gave.
#[derive(Debug)]
pub struct ToolRun {
    pub end: ToolEnd,
    /// The last [`TAIL`] bytes of stdout and stderr (lossy UTF-8).
    pub stdout_tail: String,
    pub stderr_tail: String,
    /// The supervisor's report (memory, CPU), when it answered.
    pub report: Option<Report>,
    pub wall: Duration,
}

impl ToolRun {
    /// Whether the tool ran and exited with status 0.
    pub fn succeeded(&self) -> bool {
        self.end == ToolEnd::Exited(Exit::Code(0))
    }

    /// How it ended, in words (`exit status 1`, `timed out after 60 s`).
    pub fn describe_end(&self, timeout: Duration) -> String {
        match &self.end {
            ToolEnd::Exited(exit) => exit.to_string(),
            ToolEnd::TimedOut => format!("timed out after {} s", timeout.as_secs_f64()),
            ToolEnd::OutputLimit => "wrote too much on stdout".to_string(),
            ToolEnd::DiskLimit(cap) => format!(
                "filled its folder past {} MB (its memory limit, which holds its files with no cgroup too) and was stopped",
                cap >> 20
            ),
            ToolEnd::NotStarted(why) => format!("could not start: {why}"),
            ToolEnd::Interrupted => "interrupted".to_string(),
        }
    }

    /// The last `lines` non-empty lines of stderr then stdout, for a reason or a message.
    pub fn last_lines(&self, lines: usize) -> String {
        let mut all: Vec<&str> = self
            .stderr_tail
            .lines()
            .chain(self.stdout_tail.lines())
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect();
        let cut = all.len().saturating_sub(lines);
        all.drain(..cut);
        all.join("\n")
    }
}

/// Bytes of stdout and stderr kept for the caller.
pub const TAIL: usize = 64 * 1024;

/// The host folder of one run of a tool: `work/` (its working folder, writable), and in
/// process mode `home/` and `tmp/` (its HOME and TMPDIR, made when its sandbox is set up;
/// the namespace mode's view has its own). Removed when dropped, whatever modes were left
/// in it ([`super::tidy::remove_all`]).
#[derive(Debug)]
pub struct ToolDir {
    dir: tempfile::TempDir,
    /// The tool's supervisor once launched: its processes (a relay) descend from it.
    supervisor: std::sync::OnceLock<i32>,
    /// The overlay its working folder is shown as, when it is one.
    overlay: Option<super::spec::Overlay>,
}

impl Drop for ToolDir {
    fn drop(&mut self) {
        // Folders a player or the overlay's kernel work folder left without rights are made
        // the owner's again first.
        super::tidy::remove_all(self.dir.path());
    }
}

impl ToolDir {
    /// A fresh folder under `parent` (the run's scratch space, never the results).
    pub fn new(parent: &Path) -> std::io::Result<ToolDir> {
        let dir = tempfile::Builder::new()
            .prefix("tool-")
            .tempdir_in(parent)?;
        std::fs::create_dir(dir.path().join("work"))?;
        Ok(ToolDir {
            dir,
            supervisor: std::sync::OnceLock::new(),
            overlay: None,
        })
    }

    /// Fills the working folder with what the tool sees of `tools` ([`tool_view::fill`]).
    pub fn show_tools(
        &mut self,
        kind: tool_view::Kind,
        tools: &Path,
        shown: tool_view::Shown<'_>,
    ) -> std::io::Result<()> {
        self.overlay = tool_view::fill(kind, self.dir.path(), &self.work(), tools, shown)?;
        Ok(())
    }

    /// The pid of the supervisor of the tool run in this folder, once it is launched.
    pub fn supervisor(&self) -> Option<i32> {
        self.supervisor.get().copied()
    }

    /// The tool's working folder.
    pub fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// The whole folder (shown writable to the tool).
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Removes the folder on a thread of its own ([`JANITOR`]): the tool's sandbox showed it
    /// with a mount of its own, and removing a folder that was a mount point in another
    /// (ending) mount namespace waits for the kernel to detach it (~10 ms), which a test need
    /// not wait for.
    pub fn dispose(self) {
        JANITOR.run_bounded(Box::new(move || drop(self)));
    }
}

/// Removes a process-mode test's host folder (`harness-test-*` in /tmp) on [`JANITOR`], off
/// the test's path: on a disk mounted with `discard` (this project's CI machines) removing
/// its few folders took 0.3 to 4 ms, more as the disk got busier.
pub fn remove_later(dir: tempfile::TempDir) {
    JANITOR.run_bounded(Box::new(move || {
        super::tidy::remove_all(dir.path());
        drop(dir)
    }));
}

/// The sandbox spec of a tool: the run's isolation, the tools folder and `read_only` shown
/// read-only, `dir` writable, the working folder `dir/work`.
fn spec(isolation: &Isolation, cmd: &ToolCommand, dir: &ToolDir) -> Spec {
    let on_path = cmd.program.components().count() == 1 && !cmd.program.is_absolute();
    let program = if on_path {
        let found = os::find_on_path(&cmd.program).unwrap_or_else(|| cmd.program.clone());
        isolation.visible_program(&found, true)
    } else {
        cmd.program.clone()
    };
    let mut argv = vec![program.display().to_string()];
    argv.extend(cmd.args.iter().cloned());
    let mut env = cmd.env.clone();
    let (home, tmp) = match isolation.mode {
        Mode::Namespaces => (PathBuf::from(super::view::HOME), PathBuf::from("/tmp")),
        // Made by `own_folders`.
        Mode::Process => (dir.path().join("home"), dir.path().join("tmp")),
    };
    env.retain(|(k, _)| k != "HOME" && k != "TMPDIR");
    env.push(("HOME".into(), home.display().to_string()));
    env.push(("TMPDIR".into(), tmp.display().to_string()));
    let mut binds: Vec<Bind> = isolation
        .extra_binds
        .iter()
        .chain([&cmd.tools, &program])
        .chain(&cmd.read_only)
        .map(|path| Bind { path: path.clone() })
        .collect();
    binds.dedup();
    let (landlock_read, landlock_write) = match isolation.mode {
        Mode::Process => {
            let (mut read, _) = isolation.landlock_paths(&program, &cmd.tools, dir.path());
            read.push(cmd.tools.clone());
            read.extend(cmd.read_only.iter().cloned());
            (read, vec![dir.path().to_path_buf()])
        }
        Mode::Namespaces => (Vec::new(), Vec::new()),
    };
    if let (Mode::Process, Some(ids)) = (isolation.mode, super::ids::tool_ids()) {
        // Process mode under a root harness: the tool writes its own folder only (the
        // namespace mode's view gives it at its bind).
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711));
        let _ = super::build::give_to(dir.path(), ids);
    }
    let contained = isolation.contained(program, argv, env, dir.work(), binds, &cmd.limits);
    Spec {
        landlock_read,
        landlock_write,
        writable_binds: vec![dir.path().to_path_buf()],
        overlay: dir.overlay.clone(),
        // A contest's tool is other people's code too: under a root harness it runs as an
        // unprivileged id, never host root, and not the players' (in either mode a player
        // of any run, a process-mode one included, can neither change its folder nor
        // connect to its relay's socket nor signal it).
        player_ids: super::ids::tool_ids().or(contained.player_ids),
        ..contained
    }
}

/// In process mode, the tool's HOME and TMPDIR (`home/` and `tmp/` in `dir`, given to the
/// player's id under a root harness, as `dir` is); nothing in the namespace mode, whose view
/// has its own. Needed only once the tool runs: a held tool's are made after its launch,
/// beside its sandbox's setup, unless they were made with its folder (as a judge's folder
/// made ahead has them).
pub fn own_folders(mode: Mode, dir: &ToolDir) {
    if mode != Mode::Process {
        return;
    }
    for name in ["home", "tmp"] {
        let path = dir.path().join(name);
        // A failure shows when the tool cannot use them.
        let made = match std::fs::create_dir(&path) {
            Ok(()) => true,
            Err(e) => e.kind() == std::io::ErrorKind::AlreadyExists,
        };
        if let (true, Some(ids)) = (made, super::ids::tool_ids()) {
            let _ = super::build::give_to(&path, ids);
        }
    }
}

/// Runs `cmd` contained in `dir` (made by [`ToolDir::new`]) and waits for it, at most its
/// timeout (then every process of it is killed). Never fails: a tool that cannot be started
/// ends [`ToolEnd::NotStarted`].
pub fn run(isolation: &Isolation, cmd: &ToolCommand, dir: &ToolDir) -> ToolRun {
    let begin = Instant::now();
    own_folders(isolation.mode, dir);
    match start(isolation, cmd, dir, false) {
        Ok(pump) => finish(pump, begin, cmd.timeout),
        Err(not_started) => (*not_started).since(begin),
    }
}

/// A tool set up in its sandbox (namespaces, view, cgroup, limits, ids: everything but its
/// exec) that waits for [`Held::go`]. A test makes its judge ready so while the player runs,
/// and waits after the player's answer only for the judge's exec and run. Dropped without
/// its go, the tool never runs and its sandbox is ended.
pub struct Held {
    started: Option<Result<Pump, Box<ToolRun>>>,
    timeout: Duration,
}

/// Sets `cmd` up contained in `dir`, held before its exec until [`Held::go`]. The files the
/// tool reads may be put into `dir`'s `work/` until then (the sandbox shows that folder as it
/// is on the host).
pub fn hold(isolation: &Isolation, cmd: &ToolCommand, dir: &ToolDir) -> Held {
    let started = start(isolation, cmd, dir, true);
    own_folders(isolation.mode, dir);
    Held {
        started: Some(started),
        timeout: cmd.timeout,
    }
}

impl Held {
    /// Lets the tool run and waits for it, as [`run`] does; its time limit counts from now.
    pub fn go(self) -> ToolRun {
        self.go_then(|| ())
    }

    /// [`Held::go`], doing `meanwhile` once the tool has its go, before waiting for it: the
    /// tool's output waits in its pipes, and its time limit still counts from its go.
    pub fn go_then(mut self, meanwhile: impl FnOnce()) -> ToolRun {
        let begin = Instant::now();
        match self.started.take() {
            Some(Ok(mut pump)) => {
                // The go byte: the pipe is empty, so this write is whole.
                pump.feed();
                meanwhile();
                finish(pump, begin, self.timeout)
            }
            Some(Err(not_started)) => {
                meanwhile();
                (*not_started).since(begin)
            }
            None => unreachable!("a held tool goes once"),
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(Ok(pump)) = self.started.take() {
            pump.abandon();
        }
    }
}

impl ToolRun {
    /// A tool that never ran, its wall time counted from `begin`.
    fn since(mut self, begin: Instant) -> ToolRun {
        self.wall = begin.elapsed();
        self
    }
}

/// Starts the tool's sandbox and the harness's side of its pipes; `hold`: the tool waits for
/// a go byte (the first byte the pump writes on its stdin) before its exec.
fn start(
    isolation: &Isolation,
    cmd: &ToolCommand,
    dir: &ToolDir,
    hold: bool,
) -> Result<Pump, Box<ToolRun>> {
    let not_started = |why: String, report: Option<Report>| {
        Box::new(ToolRun {
            end: ToolEnd::NotStarted(why),
            stdout_tail: String::new(),
            stderr_tail: String::new(),
            report,
            wall: Duration::ZERO,
        })
    };
    let spec = Spec {
        hold,
        ..spec(isolation, cmd, dir)
    };
    let mut tries = 0;
    let launched = loop {
        tries += 1;
        match super::launch(&spec) {
            Ok(l) => {
                let _ = dir.supervisor.set(l.pid);
                break l;
            }
            Err(e) if StartError::is_refusal(&e) && tries < 2 => {
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => return Err(not_started(format!("sandbox: {e}"), None)),
        }
    };
    // Without a cgroup, nothing else holds what the tool leaves in its folder.
    let disk = (spec.cgroups.is_none() && cmd.limits.disk > 0)
        .then(|| FolderCap::new(dir.path(), cmd.limits.disk));
    Pump::new(launched, cmd, hold, disk).map_err(|(launched, e)| {
        let report = end_test(
            launched.pid,
            Some(launched.control),
            Some(launched.report),
            launched.net,
        );
        not_started(format!("cannot watch the tool: {e}"), report)
    })
}

/// The files a tool left in its working folder (names relative to it), sorted.
pub fn left_behind(work: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![work.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                if let Ok(rel) = entry.path().strip_prefix(work) {
                    found.push(rel.to_path_buf());
                }
            }
        }
    }
    found.sort();
    found
}
