//! Contained builds: a player's build step (its `build` command, or `cargo build`) run by
//! the same supervisor as a test, so it gets what a test gets — fresh namespaces, no network
//! (a namespace of its own, loopback only), a memory and process limit, a clean
//! environment, and every process of it killed when its command ends (no daemon outlives a
//! build). It sees the system folders, the run's `/etc`, the folders the tool chain needs
//! read-only ([`BuildJob::readable`]), and writes only its own folders
//! ([`BuildJob::writable`]: the run's private copy of the player, a Cargo output folder) and
//! a size-capped scratch space (HOME, /tmp).
//!
//! This module only makes the spec; [`crate::build`] starts it and waits for it. In process
//! mode (no namespaces) landlock keeps its writes to the same folders.

use std::path::PathBuf;

use super::spec::{Bind, Mode, Spec};
use super::{Isolation, TestLimits};

/// One build command, as the sandbox runs it.
#[derive(Clone, Debug, Default)]
pub struct BuildJob {
    /// An absolute path (it is not looked up on PATH inside).
    pub program: PathBuf,
    /// argv, the program's name first.
    pub argv: Vec<String>,
    /// Where it runs: one of [`BuildJob::writable`] or [`BuildJob::readable`].
    pub cwd: PathBuf,
    /// Its environment but HOME and TMPDIR (added here).
    pub env: Vec<(String, String)>,
    /// Host folders or files shown read-only at their own paths (the tool chain).
    pub readable: Vec<PathBuf>,
    /// Host folders shown writable at their own paths (they must exist).
    pub writable: Vec<PathBuf>,
}

/// What a build may use besides its memory (set by `[harness] build-memory-limit`): the
/// scratch space of HOME and /tmp (a compiler's temporary files), and processes and threads
/// at once (cargo's jobs, each rustc's threads).
pub const BUILD_LIMITS: TestLimits = TestLimits {
    memory: 0,
    disk: 2 << 30,
    procs: 1024,
    core_dumps: false,
};

impl Isolation {
    /// The spec of a contained build with `memory` bytes of memory (0: none).
    pub(crate) fn build_spec(&self, job: &BuildJob, memory: u64) -> std::io::Result<Spec> {
        let limits = TestLimits {
            memory,
            ..BUILD_LIMITS
        };
        // Process mode: HOME and TMPDIR in a fresh folder of the run's scratch space.
        let work = match self.mode {
            Mode::Process => {
                let dir = self
                    .scratch
                    .path()
                    .join(format!("build-{}", super::unique()));
                for sub in ["work", "home", "tmp"] {
                    std::fs::create_dir_all(dir.join(sub))?;
                }
                Some(dir)
            }
            Mode::Namespaces => None,
        };
        // A program found on PATH outside what the build sees (a pyenv shim) is looked up
        // again among the PATH entries it sees, as a player's is.
        let named = job.argv.first().is_some_and(|a| !a.contains('/'));
        let shown = job.readable.iter().any(|r| job.program.starts_with(r));
        let program = match named && !shown {
            true => self.visible_program(&job.program, true),
            false => job.program.clone(),
        };
        let mut spec = self.spec(
            &program,
            job.argv.clone(),
            &job.cwd,
            job.env.clone(),
            work.as_deref(),
            &limits,
        );
        spec.cwd = job.cwd.clone();
        // A build sets its outputs' modes (a linker's `chmod`): not a player's filter.
        spec.refuse_mode_changes = false;
        spec.binds = self
            .extra_binds
            .iter()
            .chain(&job.readable)
            .map(|path| Bind { path: path.clone() })
            .collect();
        if !self.visible(&program) && !job.readable.iter().any(|r| program.starts_with(r)) {
            spec.binds.push(Bind {
                path: program.clone(),
            });
        }
        if let (Mode::Process, Some(ids)) = (self.mode, spec.player_ids) {
            // The build runs as the player id (never root): what it writes must be its own.
            // These folders are the harness's (the run's private copy, the contained builds'
            // target), never the user's. (The namespace mode's view gives them at its bind.)
            for dir in &job.writable {
                give_to(dir, ids)?;
            }
        }
        spec.writable_binds = job.writable.clone();
        if let Some(work) = &work {
            spec.landlock_read.extend(job.readable.iter().cloned());
            spec.landlock_read.extend(job.writable.iter().cloned());
            spec.landlock_write = job.writable.clone();
            spec.landlock_write.push(work.clone());
        }
        Ok(spec)
    }
}

/// What a contained Rust build needs of the user's tool chain: the folders to show
/// read-only (of `CARGO_HOME` only `bin/`, `registry/`, `git/` and its settings, not the
/// registry credentials; `RUSTUP_HOME`) and the variables that find them (with
/// `RUSTUP_TOOLCHAIN`, `RUSTFLAGS`, `CARGO_BUILD_JOBS` when set).
pub fn rust_tool_chain() -> (Vec<PathBuf>, Vec<(String, String)>) {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".cargo")));
    let rustup_home = std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".rustup")));
    let mut readable = Vec::new();
    let mut env = Vec::new();
    if let Some(cargo_home) = &cargo_home {
        for part in ["bin", "registry", "git", "config.toml", "config"] {
            let path = cargo_home.join(part);
            if path.exists() {
                readable.push(path);
            }
        }
        env.push(("CARGO_HOME".into(), cargo_home.display().to_string()));
    }
    if let Some(rustup_home) = rustup_home.filter(|p| p.is_dir()) {
        env.push(("RUSTUP_HOME".into(), rustup_home.display().to_string()));
        readable.push(rustup_home);
    }
    for name in ["RUSTUP_TOOLCHAIN", "RUSTFLAGS", "CARGO_BUILD_JOBS"] {
        if let Some(value) = std::env::var_os(name) {
            env.push((name.into(), value.to_string_lossy().to_string()));
        }
    }
    (readable, env)
}

/// Makes `path` and everything under it owned by `ids` (without following links); entries
/// already theirs are left as they are, so a folder given once costs a walk, not a write.
pub(super) fn give_to(path: &std::path::Path, (uid, gid): (u32, u32)) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path)?;
    if meta.uid() != uid || meta.gid() != gid {
        std::os::unix::fs::lchown(path, Some(uid), Some(gid))?;
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(path)? {
            give_to(&entry?.path(), (uid, gid))?;
        }
    }
    Ok(())
}
