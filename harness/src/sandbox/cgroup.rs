//! A cgroup per test: memory (everything the test makes the machine hold, swap included) and
//! process slots, counted for the test's whole process tree and removed when the test ends.
//!
//! cgroup v1 (`memory` and `pids` hierarchies where the harness may make folders, as on a
//! root account) or v2 (a delegated subtree with `memory` and `pids`). The harness makes one
//! folder per run ([`RunGroups`]); the supervisor of each test makes, reads and removes the
//! test's own folder ([`TestGroup`]), which only the player's processes enter (see
//! [`TestGroup::entrances`]).

use std::io;
use std::path::{Path, PathBuf};

use super::spec::Cgroups;

/// The mount point and the harness's own group of one hierarchy.
fn own_group(v2: bool, controller: &str) -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mounts.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let mut r = right.split(' ');
        let fstype = r.next()?;
        let opts = r.nth(1)?;
        let point = left.split(' ').nth(4)?;
        let ok = if v2 {
            fstype == "cgroup2"
        } else {
            fstype == "cgroup" && opts.split(',').any(|o| o == controller)
        };
        ok.then(|| PathBuf::from(point))
    })?;
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = groups.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let ok = if v2 {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        ok.then_some(path)
    })?;
    Some(mount.join(path.trim_start_matches('/')))
}

fn io_err(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> io::Result<()> {
    std::fs::write(path, text).map_err(|e| io_err(path, e))
}

/// The run's cgroup folders; removed (with any test folder left) when dropped.
#[derive(Debug)]
pub struct RunGroups {
    pub cgroups: Cgroups,
    dirs: Vec<PathBuf>,
}

impl RunGroups {
    /// Makes the run's folders: v1 where the `memory` and `pids` hierarchies let us, else a
    /// delegated v2 subtree. The error says why neither could be had.
    pub fn create(tag: &str) -> Result<RunGroups, String> {
        Self::remove_stale();
        let v1 = Self::create_v1(tag);
        match v1 {
            Ok(groups) => Ok(groups),
            Err(why_v1) => Self::create_v2(tag)
                .map_err(|why_v2| format!("cgroup v1: {why_v1}; cgroup v2: {why_v2}")),
        }
    }

    /// Removes the folders of earlier runs whose harness is gone (killed before it could
    /// tidy up): `harness-<pid>-<n>` beside ours, with no process left in them.
    fn remove_stale() {
        let parents = [
            own_group(false, "memory"),
            own_group(false, "pids"),
            own_group(true, ""),
        ];
        for parent in parents.into_iter().flatten() {
            let Ok(entries) = std::fs::read_dir(&parent) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().to_string();
                let Some(pid) = name
                    .strip_prefix("harness-")
                    .and_then(|rest| rest.split('-').next())
                    .and_then(|pid| pid.parse::<i32>().ok())
                else {
                    continue;
                };
                // SAFETY: signal 0 only asks whether the process exists.
                if unsafe { libc::kill(pid, 0) } == 0
                    || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
                {
                    continue;
                }
                let dir = entry.path();
                if let Ok(tests) = std::fs::read_dir(&dir) {
                    for test in tests.flatten().filter(|t| t.path().is_dir()) {
                        let _ = std::fs::remove_dir(test.path());
                    }
                }
                let _ = std::fs::remove_dir(&dir);
            }
        }
    }

    fn create_v1(tag: &str) -> Result<RunGroups, String> {
        let memory = own_group(false, "memory").ok_or("no memory hierarchy mounted")?;
        let pids = own_group(false, "pids").ok_or("no pids hierarchy mounted")?;
        let memory = memory.join(tag);
        let pids = pids.join(tag);
        std::fs::create_dir(&memory).map_err(|e| format!("{}: {e}", memory.display()))?;
        if let Err(e) = std::fs::create_dir(&pids) {
            let _ = std::fs::remove_dir(&memory);
            return Err(format!("{}: {e}", pids.display()));
        }
        Ok(RunGroups {
            cgroups: Cgroups::V1 {
                memory: memory.clone(),
                pids: pids.clone(),
            },
            dirs: vec![memory, pids],
        })
    }

    fn create_v2(tag: &str) -> Result<RunGroups, String> {
        let own = own_group(true, "").ok_or("no cgroup2 mounted")?;
        let available = std::fs::read_to_string(own.join("cgroup.controllers"))
            .map_err(|e| format!("{}: {e}", own.display()))?;
        for needed in ["memory", "pids"] {
            if !available.split_whitespace().any(|c| c == needed) {
                return Err(format!(
                    "the {needed} controller is not delegated to {}",
                    own.display()
                ));
            }
        }
        let run = own.join(tag);
        std::fs::create_dir(&run).map_err(|e| format!("{}: {e}", run.display()))?;
        let enable = |dir: &Path| write(&dir.join("cgroup.subtree_control"), "+memory +pids");
        // Controllers must be on in our own group's children (the run) and in the run's.
        let enabled = enable(&own).and_then(|_| enable(&run));
        if let Err(e) = enabled {
            let _ = std::fs::remove_dir(&run);
            return Err(e.to_string());
        }
        Ok(RunGroups {
            cgroups: Cgroups::V2 { run: run.clone() },
            dirs: vec![run],
        })
    }

    /// What kind, for notes and run.toml.
    pub fn describe(&self) -> &'static str {
        match &self.cgroups {
            Cgroups::V1 { .. } => "cgroup v1",
            Cgroups::V2 { .. } => "cgroup v2",
        }
    }

    /// Where the run's folders are.
    pub(crate) fn location(&self) -> String {
        self.dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Drop for RunGroups {
    fn drop(&mut self) {
        for dir in &self.dirs {
            if let Ok(entries) = std::fs::read_dir(dir) {
                for e in entries.flatten() {
                    if e.path().is_dir() {
                        let _ = std::fs::remove_dir(e.path());
                    }
                }
            }
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Moves the calling process into a test's groups through [`TestGroup::entrances`].
pub(crate) fn enter(entrances: &[std::os::fd::OwnedFd]) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    for fd in entrances {
        // SAFETY: a write of a local buffer to a descriptor the caller owns.
        let n = unsafe { libc::write(fd.as_raw_fd(), b"0".as_ptr().cast(), 1) };
        if n != 1 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(
                e.kind(),
                format!("cannot join the test's cgroup: {e}"),
            ));
        }
    }
    Ok(())
}

/// One test's folders, made and removed by its supervisor.
pub(crate) struct TestGroup {
    dirs: Vec<PathBuf>,
    v2: bool,
}

impl TestGroup {
    /// Makes the test's folders with their limits (`memory` bytes, 0 = none; `procs`
    /// processes, 0 = none).
    pub fn create(cgroups: &Cgroups, name: &str, memory: u64, procs: u64) -> io::Result<TestGroup> {
        let (dirs, v2) = match cgroups {
            Cgroups::V1 { memory, pids } => (vec![memory.join(name), pids.join(name)], false),
            Cgroups::V2 { run } => (vec![run.join(name)], true),
        };
        let mut made = TestGroup {
            dirs: Vec::new(),
            v2,
        };
        for dir in &dirs {
            std::fs::create_dir(dir).map_err(|e| io_err(dir, e))?;
            made.dirs.push(dir.clone());
        }
        let mem = &made.dirs[0];
        let pids = made.dirs.last().expect("a folder");
        if v2 {
            if memory > 0 {
                write(&mem.join("memory.max"), &memory.to_string())?;
                write(&mem.join("memory.swap.max"), "0")?;
            }
            if procs > 0 {
                write(&pids.join("pids.max"), &procs.to_string())?;
            }
        } else {
            if memory > 0 {
                write(&mem.join("memory.limit_in_bytes"), &memory.to_string())?;
                // Swap counted: the same limit on memory + swap (where swap accounting is on),
                // else keep the group out of swap.
                let memsw = mem.join("memory.memsw.limit_in_bytes");
                if memsw.exists() {
                    write(&memsw, &memory.to_string())?;
                } else {
                    let _ = write(&mem.join("memory.swappiness"), "0");
                }
            }
            if procs > 0 {
                write(&pids.join("pids.max"), &procs.to_string())?;
            }
        }
        Ok(made)
    }

    /// The test's `cgroup.procs` files, opened for writing by the supervisor (with its
    /// rights), to be handed to the player's process: writing "0" to each moves it into the
    /// test's groups before its exec ([`enter`]), and its children follow. The supervisor and
    /// the test's init stay outside: the kernel's OOM killer, choosing in the test's memory
    /// group, can only ever choose a process of the player, and the process cap counts the
    /// player's processes alone.
    pub fn entrances(&self) -> io::Result<Vec<std::os::fd::OwnedFd>> {
        self.dirs
            .iter()
            .map(|dir| {
                let path = dir.join("cgroup.procs");
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map(Into::into)
                    .map_err(|e| io_err(&path, e))
            })
            .collect()
    }

    /// Processes in the test's memory group.
    pub fn pids(&self) -> Vec<libc::pid_t> {
        std::fs::read_to_string(self.dirs[0].join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// (peak memory in KiB, killed for memory, limit hit, pids limit hit).
    pub(crate) fn stats(&self) -> (u64, bool, bool, bool) {
        let read =
            |dir: &Path, file: &str| std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        let field = |text: &str, key: &str| -> u64 {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.trim().parse().ok())
                .unwrap_or(0)
        };
        let mem = &self.dirs[0];
        let pids = self.dirs.last().expect("a folder");
        let pids_hit = field(&read(pids, "pids.events"), "max ") > 0;
        if self.v2 {
            let events = read(mem, "memory.events");
            let peak = read(mem, "memory.peak").trim().parse::<u64>().unwrap_or(0);
            (
                peak / 1024,
                field(&events, "oom_kill ") > 0,
                field(&events, "max ") > 0 || field(&events, "oom ") > 0,
                pids_hit,
            )
        } else {
            let peak = read(mem, "memory.max_usage_in_bytes")
                .trim()
                .parse::<u64>()
                .unwrap_or(0);
            let oom = field(&read(mem, "memory.oom_control"), "oom_kill ") > 0;
            let failed = read(mem, "memory.failcnt")
                .trim()
                .parse::<u64>()
                .unwrap_or(0)
                > 0;
            (peak / 1024, oom, failed, pids_hit)
        }
    }

    /// Removes the folders (call once no process is left in them).
    pub fn remove(self) -> Vec<String> {
        let mut notes = Vec::new();
        for dir in &self.dirs {
            // A folder can stay busy for a moment after its last process was reaped.
            let mut tries = 0;
            while let Err(e) = std::fs::remove_dir(dir) {
                tries += 1;
                if tries > 50 {
                    notes.push(format!("cannot remove {}: {e}", dir.display()));
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
        notes
    }
}
