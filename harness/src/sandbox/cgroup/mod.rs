//! A cgroup per test: memory (everything the test makes the machine hold, swap included),
//! process slots and CPU, counted for the test's whole process tree and removed when the test
//! ends.
//!
//! cgroup v1 (`memory` and `pids` hierarchies where the harness may make folders, as on a
//! root account; `cpu` and `cpuset` too where they are mounted) or v2 (a delegated subtree
//! with `memory` and `pids`; `cpu` and `cpuset` where delegated). The harness makes one folder
//! per run ([`RunGroups`]); the supervisor of each test makes, reads and removes the test's
//! own folder ([`TestGroup`]), which only the player's processes enter (see
//! [`TestGroup::entrances`]).
//!
//! CPU: a test gets the CPUs its worker is pinned to (the supervisor's affinity, inherited from
//! the worker) as its cpuset, and at most one CPU's time per period. The player cannot leave
//! or widen either: `sched_setaffinity` outside the cpuset fails, and every process it makes
//! (each `setsid`, whose scheduler autogroup counts only outside a cpu cgroup) shares the
//! test's one share of CPU with the rest of the test.
//!
//! v1 and v2 each have a file ([`v1`], [`v2`]); a worker thread's own v1 cpu and cpuset
//! folders have theirs ([`worker`]). This file holds what both share: the run's and each
//! test's folders, and the way in.
//!
//! Touches only the cgroup folders of the harness's own groups.

mod held;
mod v1;
mod v2;
mod worker;

use std::io;
use std::path::{Path, PathBuf};

use rustix::io::Errno;
use rustix::process::Pid;

use super::attribution;
use super::spec::{Cgroups, Report};
pub(super) use crate::fs_msg::io_err;
use held::Held;

pub(crate) use worker::{
    for_this_worker, in_worker_cpu, join_worker_cpu, leave_worker_cpu, outside_worker_cpu,
    worker_folder, Guest, WorkerFolder,
};

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

fn write(path: &Path, text: &str) -> io::Result<()> {
    std::fs::write(path, text).map_err(|e| io_err(path, e))
}

/// The number after `key` on its line of `text` (a cgroup's key-value file); 0 if none.
fn field(text: &str, key: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.trim().parse().ok())
        .unwrap_or(0)
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
        let v1 = v1::create_run(tag);
        match v1 {
            Ok(groups) => Ok(groups),
            Err(why_v1) => v2::create_run(tag)
                .map_err(|why_v2| format!("cgroup v1: {why_v1}; cgroup v2: {why_v2}")),
        }
    }

    /// Removes the folders of earlier runs whose harness is gone (killed before it could
    /// tidy up): `harness-<pid>-<n>` beside ours, with no process left in them.
    fn remove_stale() {
        let parents = [
            own_group(false, "memory"),
            own_group(false, "pids"),
            own_group(false, "cpu"),
            own_group(false, "cpuset"),
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
                // Signal 0 only asks whether the process exists: a folder stays unless its
                // harness is known to be gone.
                if !Pid::from_raw(pid).is_some_and(gone) {
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

    /// What kind, for notes and run.toml.
    pub fn describe(&self) -> String {
        let cpu = match &self.cgroups {
            Cgroups::V1 { cpu, cpuset, .. } => match (cpu.is_some(), cpuset.is_some()) {
                (true, true) => " (memory, pids, cpu, cpuset)",
                (true, false) => " (memory, pids, cpu)",
                (false, true) => " (memory, pids, cpuset)",
                (false, false) => " (memory, pids)",
            },
            Cgroups::V2 { cpu_limits, .. } if *cpu_limits => " (memory, pids, cpu, cpuset)",
            Cgroups::V2 { .. } => " (memory, pids)",
        };
        let kind = match &self.cgroups {
            Cgroups::V1 { .. } => "cgroup v1",
            Cgroups::V2 { .. } => "cgroup v2",
        };
        format!("{kind}{cpu}")
    }

    /// Whether a test's CPU is held to its worker's share by the cgroup.
    pub fn limits_cpu(&self) -> bool {
        match &self.cgroups {
            Cgroups::V1 { cpu, cpuset, .. } => cpu.is_some() && cpuset.is_some(),
            Cgroups::V2 { cpu_limits, .. } => *cpu_limits,
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
        // This thread may be in a worker's cpu folder of the run. Other threads of the
        // harness may still be in theirs: a worker's helper thread (it starts in its
        // creator's groups), or a worker that ends only with the process (whose own exit
        // would leave its folder empty but in place): they go back to the harness's group.
        worker::leave_worker();
        for dir in &self.dirs {
            if let Ok(entries) = std::fs::read_dir(dir) {
                for e in entries.flatten() {
                    if e.path().is_dir() {
                        if e.file_name().to_string_lossy().starts_with('w') {
                            v1::send_home_own_threads(&e.path(), dir.parent().unwrap_or(dir));
                        }
                        let _ = std::fs::remove_dir(e.path());
                    }
                }
            }
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Whether process `pid` no longer exists (signal 0 finds none).
fn gone(pid: Pid) -> bool {
    rustix::process::test_kill_process(pid) == Err(Errno::SRCH)
}

/// Moves the calling process into a test's groups through [`TestGroup::entrances`].
pub(crate) fn enter(entrances: &[std::os::fd::OwnedFd]) -> io::Result<()> {
    for fd in entrances {
        let written = rustix::io::write(fd, b"0").map_err(io::Error::from);
        let e = match written {
            Ok(1) => continue,
            Ok(_) => io::Error::from(io::ErrorKind::WriteZero),
            Err(e) => e,
        };
        return Err(io::Error::new(
            e.kind(),
            format!("cannot join the test's cgroup: {e}"),
        ));
    }
    Ok(())
}

/// Where one test's folders go, none of them made yet.
struct Folders {
    /// The memory and pids folders (one and the same in v2).
    mem: PathBuf,
    pids: PathBuf,
    /// The test's own cpu and cpuset folders (one and the same as `mem` in v2), if any.
    cpu: Option<PathBuf>,
    cpuset: Option<PathBuf>,
    /// The worker's cpu and cpuset folders, entered but neither made nor removed.
    shared: Vec<PathBuf>,
    v2: bool,
}

impl Folders {
    /// The folders named `name` of a test in the run's (or the worker's) `cgroups`.
    fn of(cgroups: &Cgroups, name: &str) -> Folders {
        match cgroups {
            Cgroups::V1 {
                memory,
                pids,
                cpu,
                cpuset,
                worker: true,
            } => Folders {
                mem: memory.join(name),
                pids: pids.join(name),
                cpu: None,
                cpuset: None,
                shared: cpu.iter().chain(cpuset).cloned().collect(),
                v2: false,
            },
            Cgroups::V1 {
                memory,
                pids,
                cpu,
                cpuset,
                worker: false,
            } => Folders {
                mem: memory.join(name),
                pids: pids.join(name),
                cpu: cpu.as_ref().map(|d| d.join(name)),
                cpuset: cpuset.as_ref().map(|d| d.join(name)),
                shared: Vec::new(),
                v2: false,
            },
            Cgroups::V2 { run, cpu_limits } => {
                let dir = run.join(name);
                let cpu = cpu_limits.then(|| dir.clone());
                Folders {
                    mem: dir.clone(),
                    pids: dir,
                    cpu: cpu.clone(),
                    cpuset: cpu,
                    shared: Vec::new(),
                    v2: true,
                }
            }
        }
    }

    /// Without the cpu or cpuset folders the attribution switch leaves out (`harness bench`).
    fn skipping_attributed(mut self) -> Folders {
        if attribution::skips("cpu") {
            (self.cpu, self.cpuset) = (None, None);
        } else if attribution::skips("cpugroup") {
            self.cpu = None;
        } else if attribution::skips("cpuset") {
            self.cpuset = None;
        }
        self
    }
}

/// One test's limits on its folders: `memory` bytes (0 = none), `procs` processes (0 =
/// none), `cpus` the CPU list it may run on (e.g. "1" or "0,1"; empty: its parent's).
struct Limits<'a> {
    memory: u64,
    procs: u64,
    cpus: &'a str,
}

/// Kills every process that `members` lists (a test's group's `cgroup.procs`, read anew each
/// time), until it lists none or for at most two seconds: what a test whose supervisor or
/// kept init gave no report left in its group.
pub(crate) fn kill_members(members: impl Fn() -> Vec<libc::pid_t>) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        let left = members();
        if left.is_empty() || std::time::Instant::now() >= deadline {
            return;
        }
        for pid in left {
            super::sys::kill(pid, libc::SIGKILL);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// One test's folders, made and removed by its supervisor, held open while it lasts.
pub(crate) struct TestGroup {
    /// The folders made for the test (memory and pids, in v2 one and the same, and its own
    /// cpu and cpuset ones where it has them).
    dirs: Vec<Held>,
    /// The worker's cpu and cpuset folders, entered but neither made nor removed.
    shared: Vec<PathBuf>,
    /// Which of `dirs` are the memory and pids folders.
    mem: usize,
    pids: usize,
    v2: bool,
}

impl TestGroup {
    /// Makes the test's folders with their limits (`memory` bytes, 0 = none; `procs`
    /// processes, 0 = none; `cpus` the CPU list the test may run on, e.g. "1" or "0,1",
    /// with one CPU's time at most).
    pub fn create(
        cgroups: &Cgroups,
        name: &str,
        memory: u64,
        procs: u64,
        cpus: &str,
    ) -> io::Result<TestGroup> {
        let folders = Folders::of(cgroups, name).skipping_attributed();
        let made = TestGroup::make(&folders)?;
        let limits = Limits {
            memory,
            procs,
            cpus,
        };
        if folders.v2 {
            v2::limit(&made, &folders, &limits)?;
        } else {
            v1::limit(&made, &folders, &limits)?;
        }
        Ok(made)
    }

    /// Makes the folders of `folders` (each once: in v2 they are one), each held open. What
    /// was made before a failure is removed again.
    fn make(folders: &Folders) -> io::Result<TestGroup> {
        let mut made = TestGroup {
            dirs: Vec::new(),
            shared: folders.shared.clone(),
            mem: 0,
            pids: 0,
            v2: folders.v2,
        };
        let all = [
            Some(&folders.mem),
            Some(&folders.pids),
            folders.cpu.as_ref(),
            folders.cpuset.as_ref(),
        ];
        for dir in all.into_iter().flatten() {
            if made.dirs.iter().any(|d| d.path() == dir) {
                continue;
            }
            let held = std::fs::create_dir(dir)
                .map_err(|e| io_err(dir, e))
                .and_then(|()| Held::open(dir));
            match held {
                Ok(held) => made.dirs.push(held),
                Err(e) => {
                    let _ = std::fs::remove_dir(dir);
                    made.remove();
                    return Err(e);
                }
            }
        }
        let index = |dir: &Path| made.dirs.iter().position(|d| d.path() == dir).unwrap_or(0);
        (made.mem, made.pids) = (index(&folders.mem), index(&folders.pids));
        Ok(made)
    }

    /// The test's memory folder (in v2 its only one).
    fn mem(&self) -> &Held {
        &self.dirs[self.mem]
    }

    /// The test's pids folder (in v2 its only one).
    fn pids_dir(&self) -> &Held {
        &self.dirs[self.pids]
    }

    /// The test's entrance files, opened for writing by the supervisor (with its rights), to
    /// be handed to the player's process: writing "0" to each moves it into the test's groups
    /// before its exec ([`enter`]), and its children follow. The supervisor and the test's
    /// init stay outside: the kernel's OOM killer, choosing in the test's memory group, can
    /// only ever choose a process of the player, and the process cap counts the player's
    /// processes alone.
    ///
    /// In v1 the entrance is `tasks`, not `cgroup.procs`: the player's process is one thread
    /// then (just forked), so moving the thread moves the process, and the kernel moves the
    /// calling thread ("0" to `tasks`) without its system-wide lock on every fork, exec and
    /// exit, which a whole process's move takes (and which waits for an RCU grace period
    /// when it was idle): at N threads each test's moves would hold up the other tests'
    /// starts and ends. v2's domain groups take processes only (`cgroup.procs`).
    pub fn entrances(&self) -> io::Result<Vec<std::os::fd::OwnedFd>> {
        let file = if self.v2 { "cgroup.procs" } else { "tasks" };
        let own = self
            .dirs
            .iter()
            .map(|dir| dir.file(file, rustix::fs::OFlags::WRONLY));
        let shared = self.shared.iter().map(|dir| {
            let path = dir.join(file);
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .map(Into::into)
                .map_err(|e| io_err(&path, e))
        });
        own.chain(shared).collect()
    }

    /// Processes in the test's memory group.
    pub fn pids(&self) -> Vec<libc::pid_t> {
        self.mem()
            .read("cgroup.procs")
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// (peak memory in KiB, killed for memory, limit hit, pids limit hit).
    fn stats(&self) -> (u64, bool, bool, bool) {
        let pids_hit = field(&self.pids_dir().read("pids.events"), "max ") > 0;
        let (peak, oom, failed) = if self.v2 {
            v2::memory_stats(self.mem())
        } else {
            v1::memory_stats(self.mem())
        };
        (peak / 1024, oom, failed, pids_hit)
    }

    /// The test's memory, process and CPU counters into `report` (its init's, which has its
    /// exit and its CPU time as the init saw them).
    pub(crate) fn add_to(&self, report: &mut Report) {
        let (peak_kb, oom, hit, procs_hit) = self.stats();
        report.max_memory_kb = peak_kb;
        report.oom_killed = oom;
        report.memory_limit_hit = hit;
        report.procs_limit_hit = procs_hit;
        // Counts what the kernel reaped too (children of a process that ignores SIGCHLD).
        report.cpu_us = report.cpu_us.max(self.cpu_us().unwrap_or(0));
    }

    /// The CPU time of every process that was ever in the test's group, reaped by anyone or
    /// not (µs): cgroup v2's `cpu.stat`, in every v2 group; `None` in v1, where the test has
    /// no CPU counter of its own (the init samples its tree instead: `tree_cpu`).
    pub(crate) fn cpu_us(&self) -> Option<u64> {
        if !self.v2 {
            return None;
        }
        let stat = self.mem().read("cpu.stat");
        stat.lines()
            .find_map(|l| l.strip_prefix("usage_usec ")?.trim().parse().ok())
    }

    /// Removes the folders (call once no process is left in them).
    pub fn remove(self) -> Vec<String> {
        let mut notes = Vec::new();
        for held in &self.dirs {
            let dir = held.path();
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
