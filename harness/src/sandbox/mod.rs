//! Containment of player programs: everything that touches the OS to start, limit, watch and
//! end a player lives here (with the pipe and wait primitives of `crate::os`).
//!
//! Every test runs under a supervisor process of the small `harness-sandbox` program built
//! with the harness, found beside it, or of the harness's own binary as `harness __sandbox`:
//! forked, as the harness's child, by the calling thread's fork server ([`forker`], itself
//! started with posix_spawn, so the multi-threaded harness never forks), or started with
//! posix_spawn where no server can be had. The
//! supervisor ([`supervisor`]) makes the test's cgroup ([`cgroup`]), then either starts the
//! test's init in fresh user, PID, mount, IPC, UTS and cgroup namespaces, in a network
//! namespace of its own for the test's time ([`net`]: borrowed from the run's pool), with a
//! private file system view ([`view`], [`init`]) — the namespace mode — or, where namespaces
//! cannot be had, becomes the init itself as a child subreaper — the process mode, where the
//! kernel's unprivileged controls contain the player instead: no capability and no_new_privs
//! (`init`), landlock (`landlock`) and a seccomp filter (`seccomp`: Unix sockets only, no
//! System V IPC). Either way the player starts in a new session without a terminal, with a
//! clean environment, only descriptors 0-2, a fresh and empty session keyring, never as root
//! ([`ids`]), its limits in force before its first instruction (memory, processes and one
//! worker's CPU where there is a cgroup), and every process of the test is killed and reaped
//! when the test ends. The harness talks to the player
//! over the pipes directly; it only tells the supervisor when the test is over (end of file
//! on the control pipe) and reads its [`spec::Report`].
//!
//! This module may start processes, make namespaces, mounts and cgroups; it never judges.

pub mod attribution;
pub mod beneath;
mod build;
pub mod cgroup;
mod folder_cap;
mod forker;
pub mod ids;
mod init;
mod landlock;
pub(crate) mod net;
mod off_path;
pub(crate) mod peer;
pub mod probe;
pub mod reach;
pub mod relay;
pub mod scratch;
mod seccomp;
pub mod spec;
pub mod supervisor;
mod sys;
mod tidy;
pub mod tool;
pub mod tool_view;
mod tree_cpu;
mod view;

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

pub use build::{rust_tool_chain, BuildJob, BUILD_LIMITS};
pub use spec::Mode;
pub use spec::{Bind, Report, Spec, StartError};

/// The argument that makes the harness binary a supervisor.
pub const SUPERVISOR_ARG: &str = "__sandbox";

static SUPERVISOR: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();

/// Names the harness binary that supervises tests, for programs that use this library
/// without being that binary (its own tests). The harness itself runs its own executable.
pub fn set_supervisor(path: &Path) {
    if let Ok(c) = sys::cstr(path) {
        let _ = SUPERVISOR.set(c);
    }
}

/// This build's identity (a hash of the crate's sources, from build.rs): what the
/// supervisor program beside the harness must answer to be used ([`supervisor_program`]).
pub const BUILD_ID: &str = env!("HARNESS_BUILD_ID");

/// The small program that supervises tests when it is found beside the harness binary.
pub const SUPERVISOR_PROGRAM: &str = "harness-sandbox";

/// The program started for every test and for the pool's namespaces ([`spawn_self`]): the
/// `harness-sandbox` beside the harness binary when it is of this very build, else the
/// harness binary itself. Starting the small one costs a test about a third of a millisecond
/// of CPU less (the loader's work on the harness's 38 MB: its libraries, 16,000 relocations).
fn supervisor_program() -> &'static std::ffi::CStr {
    static PROGRAM: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();
    PROGRAM.get_or_init(|| {
        let own = SUPERVISOR
            .get()
            .cloned()
            .unwrap_or_else(|| c"/proc/self/exe".to_owned());
        harness_exe()
            .ok()
            .and_then(|harness| same_build_beside(&harness))
            .and_then(|helper| sys::cstr(&helper).ok())
            .unwrap_or(own)
    })
}

/// The [`SUPERVISOR_PROGRAM`] beside `harness`, if there is one that answers this build's
/// identity to `__sandbox build` within 5 s (one that does not is left alone: an older build
/// would run older containment code).
pub(crate) fn same_build_beside(harness: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let helper = harness.with_file_name(SUPERVISOR_PROGRAM);
    if !helper.is_file() {
        return None;
    }
    let mut child = std::process::Command::new(&helper)
        .args([SUPERVISOR_ARG, "build"])
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let ended = loop {
        match child.try_wait() {
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(1))
            }
            Ok(Some(status)) => break status.success(),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break false;
            }
        }
    };
    let mut answer = String::new();
    let read = child.stdout.take()?.read_to_string(&mut answer);
    (ended && read.is_ok() && answer.trim() == BUILD_ID).then_some(helper)
}

/// The harness binary's path on the host (the supervisor's, see [`set_supervisor`]): what a
/// contest tool starts as its player's relay ([`relay`]).
pub(crate) fn harness_exe() -> std::io::Result<PathBuf> {
    match SUPERVISOR.get() {
        Some(c) => Ok(PathBuf::from(std::ffi::OsStr::from_bytes(c.to_bytes()))),
        None => std::env::current_exe(),
    }
}

/// What the user asked for (`--sandbox`, `--cgroup`, and their scoring.toml keys).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    serde::Deserialize,
    serde::Serialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Want {
    /// Use it where the machine offers it; say so once when it does not.
    #[default]
    Auto,
    /// Use it or stop with exit code 2 and the reason.
    Require,
    /// Do not use it.
    Off,
}

/// How the tests of one run are contained, decided once at its start.
#[derive(Debug)]
pub struct Isolation {
    pub mode: Mode,
    pub cgroups: Option<cgroup::RunGroups>,
    /// The empty folder new roots are built on (namespaces), and the run's scratch space.
    scratch: scratch::Locked,
    /// One line per thing the user should know (what is not contained, and why).
    pub notes: Vec<String>,
    outer: (u32, u32),
    /// Tests join a network namespace of the run's pool ([`net`]) instead of making one.
    shared_net: bool,
    /// More host folders shown read-only to every player (`[harness] sandbox-bind`).
    extra_binds: Vec<PathBuf>,
    /// Process mode: tests' folders made ahead of the tests (`runner`), removed with this.
    pub(crate) workdirs: std::sync::Arc<std::sync::Mutex<tool::MadeAhead<tempfile::TempDir>>>,
}

/// The start of a run cannot have what was required.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Unavailable(pub String);

impl Isolation {
    /// Decides the run's isolation: tries what `sandbox` and `cgroup` ask for, and records
    /// why anything asked for with `auto` could not be had.
    pub fn prepare(
        sandbox: Want,
        cgroup: Want,
        extra_binds: &[PathBuf],
    ) -> Result<Isolation, Unavailable> {
        // What runs killed before their end left: their scratch and inputs folders, and
        // their private folders (players' copies) in the system's temporary folder.
        scratch::remove_stale(scratch::base());
        if std::env::temp_dir() != scratch::base() {
            scratch::remove_stale(&std::env::temp_dir());
        }
        // Passable, not readable: a process-mode player or build of a root harness (the
        // player id) reaches its own folder in it.
        let scratch =
            scratch::locked_folder(scratch::base(), scratch::RUN_PREFIX, 0o711).map_err(|e| {
                Unavailable(format!(
                    "cannot make the run's scratch folder in {}: {e}",
                    scratch::base().display()
                ))
            })?;
        std::fs::create_dir(scratch.path().join("root"))
            .and_then(|()| view::prepare_etc(&scratch.path().join("etc")))
            .map_err(|e| Unavailable(format!("cannot make the run's scratch folder: {e}")))?;
        // SAFETY: plain getters.
        let outer = unsafe { (libc::geteuid(), libc::getegid()) };
        let mut isolation = Isolation {
            mode: Mode::Process,
            cgroups: None,
            scratch,
            notes: Vec::new(),
            outer,
            shared_net: false,
            extra_binds: Vec::new(),
            workdirs: Default::default(),
        };
        for path in extra_binds {
            let abs = std::fs::canonicalize(path)
                .map_err(|e| Unavailable(format!("sandbox-bind {}: {e}", path.display())))?;
            isolation.extra_binds.push(abs);
        }
        if cgroup == Want::Off {
            isolation.notes.push(
                "--cgroup off: memory is counted per process (RLIMIT_AS) and from resident memory only; shared memory, pipe buffers and kernel memory are not counted, processes are capped only inside the sandbox (RLIMIT_NPROC), and a test is held to its worker's CPU only by pinning, which its processes can leave".to_string(),
            );
        } else {
            let tag = format!("harness-{}-{}", std::process::id(), unique());
            match cgroup::RunGroups::create(&tag) {
                Ok(groups) => {
                    if !groups.limits_cpu() {
                        isolation.notes.push(format!(
                            "{} without cpu and cpuset: a test is held to its worker's CPU only by pinning, which its processes can leave",
                            groups.describe()
                        ));
                    }
                    isolation.cgroups = Some(groups);
                }
                Err(why) if cgroup == Want::Require => {
                    return Err(Unavailable(format!("--cgroup require: no cgroup can be had: {why}")))
                }
                Err(why) => isolation.notes.push(format!(
                    "no cgroup per test ({why}): memory is counted per process (RLIMIT_AS) and from resident memory only; shared memory, pipe buffers and kernel memory are not counted, and a test is held to its worker's CPU only by pinning, which its processes can leave (see `{} doctor`)",
                    crate::invocation::program()
                )),
            }
        }
        if sandbox != Want::Off {
            // The pool's first namespace; without one, each test makes its own (slower).
            isolation.shared_net = net::take().map(net::give_back).is_ok();
            let mut tried = probe::try_namespaces(&isolation);
            if tried.is_err() && isolation.shared_net {
                isolation.shared_net = false;
                tried = probe::try_namespaces(&isolation);
            }
            match tried {
                Ok(()) => isolation.mode = Mode::Namespaces,
                Err(why) if sandbox == Want::Require => {
                    return Err(Unavailable(format!(
                        "--sandbox require: no namespaces: {why}"
                    )))
                }
                Err(why) => isolation.notes.push(format!(
                    "no sandbox ({why}): {}; see `{} doctor`",
                    process_mode_note(outer.0 == 0),
                    crate::invocation::program()
                )),
            }
        } else {
            isolation.notes.push(format!(
                "--sandbox off: {}",
                process_mode_note(outer.0 == 0)
            ));
        }
        Ok(isolation)
    }

    /// What a contest's tools (gen, a judge, a tester) are not held to in this run, when
    /// there is no cgroup: for the start of a run with a problem of tools.
    pub fn tools_note(&self) -> Option<String> {
        if self.cgroups.is_some() {
            return None;
        }
        let procs = match self.mode {
            Mode::Namespaces => "their processes capped inside the sandbox (RLIMIT_NPROC)",
            Mode::Process => "their processes not capped",
        };
        Some(format!(
            "contest tools without a cgroup: judge-memory holds each process's address space (RLIMIT_AS), not shared memory, pipe buffers or kernel memory; their files are held to it by a watch of their folder every {} ms (what a tool writes faster passes it by that much) and a cap on each file (RLIMIT_FSIZE); {procs}",
            folder_cap::INTERVAL.as_millis()
        ))
    }

    /// How the run was contained, for run.toml and the summary.
    pub fn describe(&self) -> String {
        let abi = probe::landlock_abi();
        let mode = match self.mode {
            Mode::Namespaces => "namespaces".to_string(),
            Mode::Process if abi > 0 => format!("process + landlock ABI {abi}"),
            Mode::Process => "process".to_string(),
        };
        match &self.cgroups {
            Some(g) => format!("{mode} + {}", g.describe()),
            None => format!("{mode}, no cgroup"),
        }
    }

    /// The run's scratch folder (program copies may live here).
    pub fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    /// The program a player runs as the sandbox sees it. A program found by name on PATH
    /// outside the system folders (a pyenv shim, ~/.local/bin) would not run there: the same
    /// name is looked up again among the PATH entries the sandbox shows, or, in process mode
    /// under a root harness, among those the player's id may reach ([`reach`]: a shim under
    /// `/root` gives `/usr/bin/python3`). Elsewhere, as is.
    pub(crate) fn visible_program(&self, program: &Path, on_path: bool) -> PathBuf {
        if let (Mode::Process, true, Some(ids)) = (self.mode, on_path, ids::player_ids()) {
            if reach::may_run(program, ids) {
                return program.to_path_buf();
            }
            return program
                .file_name()
                .and_then(|name| reach::on_path_for(name, ids))
                .unwrap_or_else(|| program.to_path_buf());
        }
        if self.mode != Mode::Namespaces || !on_path || self.visible(program) {
            return program.to_path_buf();
        }
        let Some(name) = program.file_name() else {
            return program.to_path_buf();
        };
        std::env::var_os("PATH")
            .and_then(|paths| {
                std::env::split_paths(&paths)
                    .filter(|dir| self.visible(dir))
                    .map(|dir| dir.join(name))
                    .find(|p| p.is_file())
            })
            .unwrap_or_else(|| program.to_path_buf())
    }

    /// Why a player whose program is `program` cannot run here at all, said once before the
    /// run rather than as an ERR per test: in process mode under a root harness, a program
    /// the players' id may not reach, with none of its name on PATH that it may.
    pub fn cannot_run(&self, program: &Path, on_path: bool) -> Option<String> {
        let ids = ids::player_ids().filter(|_| self.mode == Mode::Process)?;
        let found = self.visible_program(program, on_path);
        if reach::may_run(&found, ids) {
            return None;
        }
        let name = program.file_name().unwrap_or_default().to_string_lossy();
        let elsewhere = match on_path {
            true => format!(", and no {name} on PATH is open to it"),
            false => String::new(),
        };
        Some(format!(
            "uid {} (the players of a root harness in process mode) may not run {}: a folder \
             above it is closed to other users{elsewhere}. Install the program in a system \
             folder (such as /usr/bin or /usr/local/bin), or let players run in namespaces \
             (leave out --sandbox off)",
            ids.0,
            found.display()
        ))
    }

    fn visible(&self, path: &Path) -> bool {
        view::visible_without_bind(path) || self.extra_binds.iter().any(|b| path.starts_with(b))
    }

    /// A spec for one test: `program` and `argv` as the player's command, `player_dir` its
    /// folder (shown read-only), `env` its whole environment but HOME and TMPDIR (added
    /// here), `work` a fresh host folder for process mode (unused with namespaces).
    #[allow(clippy::too_many_arguments)]
    pub fn spec(
        &self,
        program: &Path,
        argv: Vec<String>,
        player_dir: &Path,
        mut env: Vec<(String, String)>,
        work: Option<&Path>,
        limits: &TestLimits,
    ) -> Spec {
        let (cwd, home, tmp) = match (self.mode, work) {
            (Mode::Process, Some(w)) => (w.join("work"), w.join("home"), w.join("tmp")),
            _ => (
                PathBuf::from(view::WORK),
                PathBuf::from(view::HOME),
                PathBuf::from("/tmp"),
            ),
        };
        env.push(("HOME".into(), home.display().to_string()));
        env.push(("TMPDIR".into(), tmp.display().to_string()));
        let mut binds: Vec<Bind> = self
            .extra_binds
            .iter()
            .map(|path| Bind { path: path.clone() })
            .collect();
        binds.push(Bind {
            path: player_dir.to_path_buf(),
        });
        if !program.starts_with(player_dir) {
            binds.push(Bind {
                path: program.to_path_buf(),
            });
        }
        if let (Mode::Process, Some(ids), Some(w)) = (self.mode, ids::player_ids(), work) {
            // The player's own folders are its id's; the harness's stays root's.
            open_workdir(w, ids);
        }
        let (landlock_read, landlock_write) = match (self.mode, work) {
            (Mode::Process, Some(w)) => self.landlock_paths(program, player_dir, w),
            _ => (Vec::new(), Vec::new()),
        };
        Spec {
            landlock_read,
            landlock_write,
            refuse_mode_changes: true,
            ..self.contained(program.to_path_buf(), argv, env, cwd, binds, limits)
        }
    }

    /// A spec of everything the run decides for every contained program (its isolation
    /// mode, scratch roots, cgroups and how memory is bounded without them, the unprivileged
    /// id of a root harness, the pooled network) around one program's command, working
    /// folder and read-only binds; no landlock paths and no writable binds (the caller adds
    /// its own).
    pub(crate) fn contained(
        &self,
        program: PathBuf,
        argv: Vec<String>,
        env: Vec<(String, String)>,
        cwd: PathBuf,
        binds: Vec<Bind>,
        limits: &TestLimits,
    ) -> Spec {
        Spec {
            mode: self.mode,
            landlock_read: Vec::new(),
            landlock_write: Vec::new(),
            program,
            argv,
            env,
            cwd,
            binds,
            writable_binds: Vec::new(),
            overlay: None,
            root: self.scratch.path().join("root"),
            etc: self.scratch.path().join("etc"),
            memory: if self.cgroups.is_some() {
                limits.memory
            } else {
                0
            },
            address_space: if self.cgroups.is_some() {
                0
            } else {
                limits.memory
            },
            disk: limits.disk,
            procs: limits.procs,
            cgroups: self
                .cgroups
                .as_ref()
                .map(|g| cgroup::for_this_worker(&g.cgroups)),
            core_dumps: limits.core_dumps,
            cpu_seconds: 0,
            outer_uid: self.outer.0,
            outer_gid: self.outer.1,
            player_ids: ids::player_ids(),
            shared_net: self.shared_net && self.mode == Mode::Namespaces,
            hold: false,
            refuse_mode_changes: false,
        }
    }

    /// What landlock lets a player read and write in process mode: the system folders, each
    /// PATH folder with the one above it (an interpreter's install: pyenv's shims run its
    /// libexec/ and versions/), the extra binds and the program; the test's work folder and,
    /// as it always was in process mode, the player's own folder, writable.
    fn landlock_paths(
        &self,
        program: &Path,
        player_dir: &Path,
        work: &Path,
    ) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let mut read: Vec<PathBuf> = view::SYSTEM.iter().map(PathBuf::from).collect();
        read.extend(["/etc", "/proc", "/sys"].map(PathBuf::from));
        for dir in std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .unwrap_or_default()
        {
            // Never "/" (the parent of /bin), which would open everything.
            let parent = dir.parent().filter(|p| p.parent().is_some());
            read.extend(parent.map(Path::to_path_buf));
            read.push(dir);
        }
        read.extend(self.extra_binds.iter().cloned());
        read.push(program.to_path_buf());
        (read, vec![work.to_path_buf(), player_dir.to_path_buf()])
    }
}

impl Drop for Isolation {
    /// Supervisors still tidying up after their tests go first: their cgroup folders must be
    /// empty before the run's can be removed (the fields drop after this).
    fn drop(&mut self) {
        reap_all(std::time::Duration::from_secs(5));
        // Nothing of the run is made in its scratch space once that is being removed, and
        // what its tests left to remove is removed before the harness exits.
        tool::AHEAD.settle(std::time::Duration::from_secs(5));
        tool::JANITOR.settle(std::time::Duration::from_secs(5));
    }
}

/// The containment limits of one test.
#[derive(Clone, Copy, Debug)]
pub struct TestLimits {
    /// Bytes (0 = none).
    pub memory: u64,
    pub disk: u64,
    pub procs: u64,
    pub core_dumps: bool,
}

/// Gives a process-mode test's `work`, `home` and `tmp` folders to the player's `ids`; their
/// parent (the harness's, mode 0700) becomes passable, not readable. A failure shows when the
/// player cannot enter its folder (an ERR naming it).
fn open_workdir(work: &Path, (uid, gid): (u32, u32)) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(work, std::fs::Permissions::from_mode(0o711));
    for sub in ["work", "home", "tmp"] {
        let _ = std::os::unix::fs::chown(work.join(sub), Some(uid), Some(gid));
    }
}

/// What process mode holds and what it leaves open (compared with the namespace mode), for
/// the start-of-run note. `root`: the harness runs as root (players get [`ids::PLAYER_UID`]).
fn process_mode_note(root: bool) -> String {
    let abi = probe::landlock_abi();
    let who = if root {
        format!("as uid {} (not root)", ids::PLAYER_UID)
    } else {
        "as your user".to_string()
    };
    let mut held = vec![format!(
        "players run in process mode {who} with no capabilities and no_new_privs"
    )];
    if seccomp::supported() {
        held.push(
            "a seccomp filter allows Unix sockets only (no TCP, UDP or other network), no System V IPC, POSIX message queues or keyrings, and no change of a file's mode, owner or ACL by its path".into(),
        );
    }
    if abi > 0 {
        held.push(format!(
            "landlock (ABI {abi}) keeps their files to the system, PATH and their own folders{}",
            if abi >= 6 {
                " and their signals and abstract sockets to their own processes"
            } else {
                ""
            }
        ));
    }
    let mut open = vec!["see every process of the machine in /proc and the host's name and mounts"];
    if !root {
        open.push("read your other processes' /proc files");
    }
    if !seccomp::supported() {
        open.push("use the network");
    }
    if abi == 0 {
        open.push("read and write wherever your user may");
    }
    open.push(if root {
        "connect by path to Unix sockets open to all users"
    } else {
        "connect by path to your session's Unix sockets (D-Bus, ssh-agent, X11)"
    });
    format!(
        "{}; unlike the namespace mode, they can {}",
        held.join("; "),
        open.join(", ")
    )
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// A started test: the supervisor's pid, the player's pipes, and the supervisor's pipes.
pub(crate) struct Launched {
    pub pid: i32,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    /// Closing it ends the test.
    pub control: OwnedFd,
    /// The report arrives here (one JSON line) once every process of the test is gone.
    pub report: OwnedFd,
    /// The network namespace the test borrowed, for [`release`].
    pub net: Option<net::NetNs>,
}

/// Ends a test's hold on its network namespace: back to the pool when the test's report says
/// every process of it is gone and nothing of it is left in the namespace (`net::left_empty`),
/// else dropped (the kernel frees it after the last one).
pub(crate) fn release(net: Option<net::NetNs>, report: Option<&Report>) {
    if let Some(ns) = net {
        if report.is_some_and(|r| r.all_gone) {
            net::give_back(ns);
        }
    }
}

/// A descriptor numbered `min` or more (so the dup2s of a spawn cannot clobber a source).
fn high(fd: RawFd, min: RawFd) -> std::io::Result<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor we own.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, min) };
    if new < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fresh descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

/// Starts a supervisor for `spec` and hands it the spec.
pub(crate) fn launch(spec: &Spec) -> std::io::Result<Launched> {
    let (in_r, in_w) = sys::pipe()?;
    let (out_r, out_w) = sys::pipe()?;
    let started = launch_on(spec, in_r, out_w)?;
    Ok(Launched {
        pid: started.pid,
        stdin: in_w,
        stdout: out_r,
        stderr: started.stderr,
        control: started.control,
        report: started.report,
        net: started.net,
    })
}

/// A test started on another program's pipes ([`launch_on`]): a [`Launched`] without the
/// player's stdin and stdout, which the harness does not hold.
pub(crate) struct OnPipes {
    pub pid: i32,
    pub stderr: OwnedFd,
    pub control: OwnedFd,
    pub report: OwnedFd,
    pub net: Option<net::NetNs>,
}

/// Starts a supervisor for `spec` whose player reads `stdin` and writes `stdout`: another
/// program's pipe ends (a contest tester's, handed over by its relay), so that the player
/// talks to that program with nothing of the harness's in between. The harness keeps no
/// copy of them: the other program sees the player's end of output as soon as it comes.
pub(crate) fn launch_on(spec: &Spec, in_r: OwnedFd, out_w: OwnedFd) -> std::io::Result<OnPipes> {
    if tool::off_path_thread() {
        // What it starts would run only on CPU time nothing else wants, and could never
        // leave that.
        return Err(std::io::Error::other(
            "a test started from one of the harness's threads off the tests' path (a harness bug)",
        ));
    }
    let (err_r, err_w) = sys::pipe()?;
    let (ctl_r, ctl_w) = sys::pipe()?;
    let (rep_r, rep_w) = sys::pipe()?;
    let net = if spec.shared_net {
        Some(net::take()?)
    } else {
        None
    };
    let mut line = serde_json::to_vec(spec).map_err(std::io::Error::other)?;
    line.push(b'\n');
    // The spec goes into the control pipe before the supervisor is started, whenever it fits
    // in the pipe (a few KB: it does, but for a pipe the kernel cut to one page), so that
    // the supervisor reads it at once instead of waiting for this thread to be scheduled
    // again after the spawn. Otherwise it is written after, as a reader is there.
    let mut control = std::fs::File::from(ctl_w);
    let ahead = sys::pipe_capacity(control.as_raw_fd()).is_some_and(|c| line.len() <= c);
    if ahead {
        // Never blocks: it fits in the empty pipe.
        control.write_all(&line)?;
    }
    let child_ends = [in_r, out_w, err_w, ctl_r, rep_w];
    let mut fds: Vec<RawFd> = child_ends.iter().map(|fd| fd.as_raw_fd()).collect();
    // Descriptors 5 and 6: the pool's user and network namespaces.
    fds.extend(net.iter().flat_map(|ns| ns.fds()));
    let pid = match forker::start(&fds) {
        Some(started) => started?,
        None => spawn_self(&fds, &[c"harness", c"__sandbox"])?,
    };
    drop(child_ends);
    if let Some(cgroups) = &spec.cgroups {
        let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
        // An entry of an earlier process that had this pid is stale.
        groups.retain(|(p, _)| *p != pid);
        groups.push((pid, cgroups.clone()));
    }
    if !ahead {
        if let Err(e) = control.write_all(&line) {
            sys::kill(pid, libc::SIGKILL);
            let _ = sys::wait(pid, true);
            return Err(e);
        }
    }
    Ok(OnPipes {
        pid,
        stderr: err_r,
        control: control.into(),
        report: rep_r,
        net,
    })
}

/// Starts the supervisor's program ([`supervisor_program`]) with `argv`,
/// `fds` as its descriptors 0, 1, 2..., default signals and an empty environment.
fn spawn_self(fds: &[RawFd], argv: &[&std::ffi::CStr]) -> std::io::Result<i32> {
    // Every source above the targets first, so that no dup2 clobbers a later source.
    let sources = fds
        .iter()
        .map(|&fd| high(fd, fds.len() as RawFd))
        .collect::<std::io::Result<Vec<_>>>()?;
    let exe = supervisor_program();
    let mut args: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    args.push(std::ptr::null());
    let skip = attribution::env();
    let envp: [*const libc::c_char; 2] = [
        skip.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
        std::ptr::null(),
    ];
    let mut pid: libc::pid_t = 0;
    // SAFETY: the file actions and attributes are initialised, used and destroyed here; the
    // argument and environment arrays are null-terminated and outlive the call.
    unsafe {
        let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        let mut attr: libc::posix_spawnattr_t = std::mem::zeroed();
        libc::posix_spawn_file_actions_init(&mut actions);
        libc::posix_spawnattr_init(&mut attr);
        for (target, fd) in sources.iter().enumerate() {
            libc::posix_spawn_file_actions_adddup2(&mut actions, fd.as_raw_fd(), target as RawFd);
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        let mut defaults: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut defaults);
        for sig in [libc::SIGPIPE, libc::SIGINT, libc::SIGTERM, libc::SIGCHLD] {
            libc::sigaddset(&mut defaults, sig);
        }
        libc::posix_spawnattr_setsigmask(&mut attr, &empty);
        libc::posix_spawnattr_setsigdefault(&mut attr, &defaults);
        libc::posix_spawnattr_setflags(
            &mut attr,
            (libc::POSIX_SPAWN_SETSIGMASK | libc::POSIX_SPAWN_SETSIGDEF) as libc::c_short,
        );
        let ret = libc::posix_spawn(
            &mut pid,
            exe.as_ptr(),
            &actions,
            &attr,
            args.as_ptr() as *const *mut libc::c_char,
            envp.as_ptr() as *const *mut libc::c_char,
        );
        libc::posix_spawn_file_actions_destroy(&mut actions);
        libc::posix_spawnattr_destroy(&mut attr);
        if ret != 0 {
            return Err(std::io::Error::from_raw_os_error(ret));
        }
    }
    Ok(pid)
}

/// The run's cgroups of each supervisor whose test may still be running (until it is reaped),
/// for [`end_unreported`].
static GROUPS: std::sync::Mutex<Vec<(i32, spec::Cgroups)>> = std::sync::Mutex::new(Vec::new());

/// Ends what is left of a test whose supervisor `pid` died without its report (killed from
/// outside, by the kernel's OOM killer or someone else): in process mode the player's
/// processes outlive it (the player itself gets SIGKILL from its parent's death, not what it
/// started), so every process still in the test's cgroup (`t<pid>`, the supervisor's name
/// for it) is killed, until none is left, and its folders are removed. In the namespace mode
/// the kernel has ended them already (the test's init dies with its supervisor, and with it
/// the PID namespace). Without a cgroup there is nothing to find them by.
pub(crate) fn end_unreported(pid: i32) {
    let Some(cgroups) = groups_of(pid) else {
        return;
    };
    let name = format!("t{pid}");
    let (pids, dirs) = match &cgroups {
        spec::Cgroups::V1 {
            memory,
            pids,
            cpu,
            cpuset,
            worker,
        } => (
            pids.join(&name),
            [Some(memory), Some(pids)]
                .into_iter()
                .chain(if *worker {
                    [None, None]
                } else {
                    [cpu.as_ref(), cpuset.as_ref()]
                })
                .flatten()
                .map(|d| d.join(&name))
                .collect::<Vec<_>>(),
        ),
        spec::Cgroups::V2 { run, .. } => (run.join(&name), vec![run.join(&name)]),
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        let procs = std::fs::read_to_string(pids.join("cgroup.procs")).unwrap_or_default();
        let left: Vec<i32> = procs
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        if left.is_empty() || std::time::Instant::now() >= deadline {
            break;
        }
        for p in left {
            sys::kill(p, libc::SIGKILL);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    for dir in dirs {
        let _ = std::fs::remove_dir(dir);
    }
}

/// The run's cgroups of supervisor `pid` (forgotten once it is reaped: [`reap_exited`]).
fn groups_of(pid: i32) -> Option<spec::Cgroups> {
    let groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    groups
        .iter()
        .find(|(p, _)| *p == pid)
        .map(|(_, g)| g.clone())
}

/// Supervisors that were still tidying up when their test ended.
static PENDING: std::sync::Mutex<Vec<i32>> = std::sync::Mutex::new(Vec::new());

/// Reaps a supervisor whose test is over: now if it has exited, else at a later call (every
/// test's end reaps what has exited since) or at [`reap_all`].
pub(crate) fn reap_later(pid: i32) {
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    pending.push(pid);
    reap_exited(&mut pending);
}

/// Reaps the pending supervisors that have exited; keeps the others.
fn reap_exited(pending: &mut Vec<i32>) {
    pending.retain(|&p| sys::wait(p, false).ok().flatten().is_none() && still_child(p));
    let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    if !groups.is_empty() {
        // A supervisor reaped here, or before its test ended, has no test left to end.
        groups.retain(|(p, _)| pending.contains(p) || still_child(*p));
    }
}

/// Whether `pid` is still our child to reap (not reaped by anyone else).
fn still_child(pid: i32) -> bool {
    // SAFETY: signal 0 only checks existence; a zombie child still exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

/// Waits, at most `within` each, until nothing of the tests run so far works in the
/// background: their supervisors have tidied up and exited, and the harness's own threads
/// off the tests' path ([`tool::AHEAD`], [`tool::JANITOR`]) are idle. For `harness bench`, so
/// that each test it times starts on a quiet machine.
pub(crate) fn settle(within: std::time::Duration) {
    reap_all(within);
    tool::AHEAD.settle(within);
    tool::JANITOR.settle(within);
}

/// Reaps every pending supervisor, killing those still there after `within` (the end of a
/// run: nothing of it may be left).
pub(crate) fn reap_all(within: std::time::Duration) {
    let deadline = std::time::Instant::now() + within;
    loop {
        let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        reap_exited(&mut pending);
        if pending.is_empty() {
            return;
        }
        if std::time::Instant::now() >= deadline {
            for &p in pending.iter() {
                sys::kill(p, libc::SIGKILL);
            }
            for &p in pending.iter() {
                let _ = sys::wait(p, true);
            }
            pending.clear();
            return;
        }
        drop(pending);
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Kills a supervisor (its init follows it: parent-death signal and end of its stop pipe).
pub fn kill(pid: i32) {
    sys::kill(pid, libc::SIGKILL);
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    /// Writes an executable shell script.
    fn script(path: &Path, body: &str) {
        std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn the_supervisor_program_beside_the_harness_is_used_only_from_the_same_build() {
        let dir = tempfile::tempdir().unwrap();
        let harness = dir.path().join("harness");
        std::fs::write(&harness, b"").unwrap();
        let helper = dir.path().join(super::SUPERVISOR_PROGRAM);
        // None there: the harness supervises its tests itself.
        assert_eq!(super::same_build_beside(&harness), None);
        // Another build's (a `cargo run` rebuilt the harness alone), or one that fails.
        script(&helper, "echo 0123456789abcdef");
        assert_eq!(super::same_build_beside(&harness), None);
        script(&helper, &format!("echo {}; exit 1", super::BUILD_ID));
        assert_eq!(super::same_build_beside(&harness), None);
        // This build's, asked the way the harness asks.
        script(
            &helper,
            &format!(
                "[ \"$1 $2\" = \"{} build\" ] && echo {}",
                super::SUPERVISOR_ARG,
                super::BUILD_ID
            ),
        );
        assert_eq!(super::same_build_beside(&harness), Some(helper));
    }
}
