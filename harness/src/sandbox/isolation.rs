//! How the tests of one run are contained ([`Isolation`]), decided once at its start from
//! what the user asked for ([`Want`]) and what the machine offers: the namespace or the
//! process mode, the run's cgroups, its scratch folder; and each test's [`Spec`] made from
//! it. The notes it keeps say what is not contained, and why.
//!
//! May make the run's scratch folder and cgroups, and start trial tests ([`probe`]); it
//! starts no player.

use std::path::{Path, PathBuf};

use rustix::process::{getegid, geteuid};

use super::spec::{Bind, Mode, Spec};
use super::{cgroup, folder_cap, ids, net, probe, reach, reap, scratch, seccomp, tool, view};

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
    pub(super) scratch: scratch::Locked,
    /// One line per thing the user should know (what is not contained, and why).
    pub notes: Vec<String>,
    outer: (u32, u32),
    /// Tests join a network namespace of the run's pool ([`net`]) instead of making one.
    pub(super) shared_net: bool,
    /// More host folders shown read-only to every player (`[harness] sandbox-bind`).
    pub(super) extra_binds: Vec<PathBuf>,
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
        remove_stale_scratch();
        let scratch = run_scratch()?;
        let mut isolation = Isolation {
            mode: Mode::Process,
            cgroups: None,
            scratch,
            notes: Vec::new(),
            outer: (geteuid().as_raw(), getegid().as_raw()),
            shared_net: false,
            extra_binds: Vec::new(),
            workdirs: Default::default(),
        };
        isolation.add_binds(extra_binds)?;
        isolation.choose_cgroups(cgroup)?;
        isolation.choose_sandbox(sandbox)?;
        Ok(isolation)
    }

    /// The `[harness] sandbox-bind` folders, as absolute paths.
    fn add_binds(&mut self, extra_binds: &[PathBuf]) -> Result<(), Unavailable> {
        for path in extra_binds {
            let abs = std::fs::canonicalize(path)
                .map_err(|e| Unavailable(format!("sandbox-bind {}: {e}", path.display())))?;
            self.extra_binds.push(abs);
        }
        Ok(())
    }

    /// The run's cgroups, as `cgroup` asks; a note on what is not held without them.
    fn choose_cgroups(&mut self, cgroup: Want) -> Result<(), Unavailable> {
        if cgroup == Want::Off {
            self.notes.push(
                "--cgroup off: memory is counted per process (RLIMIT_AS) and from resident memory only; shared memory, pipe buffers and kernel memory are not counted, processes are capped only inside the sandbox (RLIMIT_NPROC), and a test is held to its worker's CPU only by pinning, which its processes can leave".to_string(),
            );
            return Ok(());
        }
        let tag = format!("harness-{}-{}", std::process::id(), unique());
        match cgroup::RunGroups::create(&tag) {
            Ok(groups) => {
                if !groups.limits_cpu() {
                    self.notes.push(format!(
                        "{} without cpu and cpuset: a test is held to its worker's CPU only by pinning, which its processes can leave",
                        groups.describe()
                    ));
                }
                self.cgroups = Some(groups);
            }
            Err(why) if cgroup == Want::Require => {
                return Err(Unavailable(format!("--cgroup require: no cgroup can be had: {why}")))
            }
            Err(why) => self.notes.push(format!(
                "no cgroup per test ({why}): memory is counted per process (RLIMIT_AS) and from resident memory only; shared memory, pipe buffers and kernel memory are not counted, and a test is held to its worker's CPU only by pinning, which its processes can leave (see `{} doctor`)",
                crate::invocation::program()
            )),
        }
        Ok(())
    }

    /// The namespace mode where `sandbox` asks for it and a trial test runs in it (with the
    /// pool's network namespace if it can be had); else the process mode and a note on it.
    fn choose_sandbox(&mut self, sandbox: Want) -> Result<(), Unavailable> {
        let root = self.outer.0 == 0;
        if sandbox == Want::Off {
            self.notes
                .push(format!("--sandbox off: {}", process_mode_note(root)));
            return Ok(());
        }
        // The pool's first namespace; without one, each test makes its own (slower).
        self.shared_net = net::take().map(net::give_back).is_ok();
        let mut tried = probe::try_namespaces(self);
        if let (Err(why), true) = (&tried, self.shared_net) {
            let why = why.clone();
            self.shared_net = false;
            tried = probe::try_namespaces(self);
            if tried.is_ok() {
                self.notes.push(format!(
                    "each test makes its own network namespace (a test in the run's pooled one failed: {why}): a sandboxed test costs more CPU"
                ));
            }
        }
        match tried {
            Ok(()) => {
                self.mode = Mode::Namespaces;
                if let Some(why) = super::kept_view::why_not_kept() {
                    self.notes.push(format!(
                        "each test builds its player's whole view (none could be kept from test to test: {why}): a sandboxed test costs more CPU"
                    ));
                }
            }
            Err(why) if sandbox == Want::Require => {
                return Err(Unavailable(format!(
                    "--sandbox require: no namespaces: {why}"
                )))
            }
            Err(why) => self.notes.push(format!(
                "no sandbox ({why}): {}; see `{} doctor`",
                process_mode_note(root),
                crate::invocation::program()
            )),
        }
        Ok(())
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

    pub(super) fn visible(&self, path: &Path) -> bool {
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
            kept_view: false,
            kept_init: false,
            refuse_mode_changes: false,
        }
    }

    /// What landlock lets a player read and write in process mode: the system folders, each
    /// PATH folder with the one above it (an interpreter's install: pyenv's shims run its
    /// libexec/ and versions/), the extra binds and the program; the test's work folder and,
    /// as it always was in process mode, the player's own folder, writable.
    pub(super) fn landlock_paths(
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
        reap::reap_all(std::time::Duration::from_secs(5));
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

/// Removes what runs killed before their end left: their scratch and inputs folders, and
/// their private folders (players' copies) in the system's temporary folder.
fn remove_stale_scratch() {
    scratch::remove_stale(scratch::base());
    if std::env::temp_dir() != scratch::base() {
        scratch::remove_stale(&std::env::temp_dir());
    }
}

/// Makes the run's scratch folder with its empty `root/` and its `etc/`. Passable, not
/// readable: a process-mode player or build of a root harness (the player id) reaches its
/// own folder in it.
fn run_scratch() -> Result<scratch::Locked, Unavailable> {
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
    Ok(scratch)
}

pub(super) fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}
