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

use std::io;
use std::path::{Path, PathBuf};

use super::spec::Cgroups;
use crate::fs_msg::io_err;

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
        let mut dirs = vec![memory.clone(), pids.clone()];
        // Best effort: without them a test's CPU is only its worker's pinning.
        let cpu = own_group(false, "cpu")
            .map(|g| g.join(tag))
            .filter(|dir| std::fs::create_dir(dir).is_ok());
        let cpuset = own_group(false, "cpuset")
            .map(|g| g.join(tag))
            .filter(|dir| {
                let made = std::fs::create_dir(dir).is_ok() && inherit_cpuset(dir).is_ok();
                if !made {
                    let _ = std::fs::remove_dir(dir);
                }
                made
            });
        dirs.extend(cpu.iter().chain(&cpuset).cloned());
        Ok(RunGroups {
            cgroups: Cgroups::V1 {
                memory,
                pids,
                cpu,
                cpuset,
                worker: false,
            },
            dirs,
        })
    }

    fn create_v2(tag: &str) -> Result<RunGroups, String> {
        let own = own_group(true, "").ok_or("no cgroup2 mounted")?;
        let available = std::fs::read_to_string(own.join("cgroup.controllers"))
            .map_err(|e| format!("{}: {e}", own.display()))?;
        let has = |c: &str| available.split_whitespace().any(|a| a == c);
        for needed in ["memory", "pids"] {
            if !has(needed) {
                return Err(format!(
                    "the {needed} controller is not delegated to {}",
                    own.display()
                ));
            }
        }
        let run = own.join(tag);
        std::fs::create_dir(&run).map_err(|e| format!("{}: {e}", run.display()))?;
        let enable = |dir: &Path, what: &str| write(&dir.join("cgroup.subtree_control"), what);
        // Controllers must be on in our own group's children (the run) and in the run's.
        let enabled = enable(&own, "+memory +pids").and_then(|_| enable(&run, "+memory +pids"));
        if let Err(e) = enabled {
            let _ = std::fs::remove_dir(&run);
            return Err(e.to_string());
        }
        let cpu_limits = has("cpu")
            && has("cpuset")
            && enable(&own, "+cpu +cpuset")
                .and_then(|_| enable(&run, "+cpu +cpuset"))
                .is_ok();
        Ok(RunGroups {
            cgroups: Cgroups::V2 {
                run: run.clone(),
                cpu_limits,
            },
            dirs: vec![run],
        })
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
        leave_worker();
        for dir in &self.dirs {
            if let Ok(entries) = std::fs::read_dir(dir) {
                for e in entries.flatten() {
                    if e.path().is_dir() {
                        if e.file_name().to_string_lossy().starts_with('w') {
                            send_home_own_threads(&e.path(), dir.parent().unwrap_or(dir));
                        }
                        let _ = std::fs::remove_dir(e.path());
                    }
                }
            }
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Moves every thread of this process still in the v1 folder `dir` to `home` (a thread
/// id in its `tasks` that is not ours, were there one, stays).
fn send_home_own_threads(dir: &Path, home: &Path) {
    let tasks = std::fs::read_to_string(dir.join("tasks")).unwrap_or_default();
    for tid in tasks.lines().map(str::trim).filter(|t| !t.is_empty()) {
        if Path::new("/proc/self/task").join(tid).exists() {
            let _ = write(&home.join("tasks"), tid);
        }
    }
}

/// A new v1 cpuset folder takes no CPU and no memory node: it gets its parent's.
fn inherit_cpuset(dir: &Path) -> io::Result<()> {
    inherit(dir, "cpuset.cpus")?;
    inherit(dir, "cpuset.mems")
}

/// A new v1 cpuset folder's CPUs: `cpus` (e.g. "1" or "0,1"; empty: its parent's), and its
/// parent's memory nodes (a new folder has none).
fn cpuset_v1(dir: &Path, cpus: &str) -> io::Result<()> {
    if cpus.is_empty() {
        return inherit_cpuset(dir);
    }
    write(&dir.join("cpuset.cpus"), cpus)?;
    inherit(dir, "cpuset.mems")
}

/// A v1 cpu folder's quota: one CPU's time per period.
fn one_cpu_v1(dir: &Path) -> io::Result<()> {
    if super::attribution::skips("quota") {
        return Ok(());
    }
    let period = std::fs::read_to_string(dir.join("cpu.cfs_period_us"))
        .ok()
        .and_then(|p| p.trim().parse::<u64>().ok())
        .unwrap_or(100_000);
    write(&dir.join("cpu.cfs_quota_us"), &period.to_string())
}

/// Copies the parent's `file` to the folder's.
fn inherit(dir: &Path, file: &str) -> io::Result<()> {
    let path = dir.parent().unwrap_or(dir).join(file);
    let value = std::fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
    write(&dir.join(file), value.trim())
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

/// The cpu and cpuset folders of one worker thread of a run (v1): made when the thread first
/// starts a contained program, entered by every program it starts and, while it plays a game
/// with its player, by the thread itself (cpu only: [`join_worker_cpu`]); removed when the
/// thread ends or the run's groups go. The thread is in the group only during games, so that
/// what it forks or spawns otherwise (the supervisors, helper threads, a later run's
/// workers) starts in the harness's own group, not in a worker's one CPU.
///
/// Why the thread joins its players' cpu group: the scheduler switches between two tasks of
/// one group for less than between tasks of two groups (each switch then updates every
/// level's accounting), and a game switches between the harness and its player twice a
/// round trip. A player in a cpu group of its own cost each round trip about a fifth of a raw
/// pipe round trip more (`harness bench`, 2026-11-27: 1.36x-1.39x of a raw round trip, and
/// 1.13x-1.19x with the thread in the group). The group still holds every process of every
/// test of the worker to one CPU's time on the worker's CPUs; tests of a worker run one
/// after another, and each test's processes are all gone before the next starts (its
/// memory and pids groups, which stay per test). cgroup v2 cannot put one thread of a
/// process in a group of its own, so v2 keeps a cpu group per test.
struct WorkerCpu {
    /// In the run's cpu folder.
    cpu: PathBuf,
    cpuset: Option<PathBuf>,
    /// The CPUs its cpuset was given (the thread's affinity then).
    cpus: String,
    /// The cpu folder the thread was in before, and is in when not [`Self::joined`].
    home: PathBuf,
    /// The thread is in [`Self::cpu`] now: from the start of a game with its player until
    /// the end of that test ([`join_worker_cpu`], [`leave_worker_cpu`]).
    joined: bool,
}

thread_local! {
    static WORKER: std::cell::RefCell<Option<WorkerCpu>> = const { std::cell::RefCell::new(None) };
}

impl WorkerCpu {
    fn make(run: &Path, run_cpuset: Option<&Path>) -> io::Result<WorkerCpu> {
        let tid = super::sys::gettid();
        let name = format!("w{tid}");
        let cpu = run.join(&name);
        std::fs::create_dir(&cpu).map_err(|e| io_err(&cpu, e))?;
        let mut made = WorkerCpu {
            cpu: cpu.clone(),
            cpuset: None,
            cpus: super::sys::affinity_list(),
            home: run.parent().unwrap_or(run).to_path_buf(),
            joined: false,
        };
        one_cpu_v1(&cpu)?;
        if let Some(run_cpuset) = run_cpuset.filter(|_| !super::attribution::skips("cpuset")) {
            let dir = run_cpuset.join(&name);
            std::fs::create_dir(&dir).map_err(|e| io_err(&dir, e))?;
            made.cpuset = Some(dir.clone());
            cpuset_v1(&dir, &made.cpus)?;
        }
        Ok(made)
    }

    /// Moves this thread into the worker's cpu folder (`in_group`) or back home. `tasks`,
    /// not `cgroup.procs`: this thread alone.
    fn enter(&mut self, in_group: bool) {
        if self.joined == in_group {
            return;
        }
        let to = if in_group { &self.cpu } else { &self.home };
        if write(&to.join("tasks"), &super::sys::gettid().to_string()).is_ok() {
            self.joined = in_group;
        }
    }

    /// Gives the cpuset the thread's CPUs, if they changed since.
    fn follow_affinity(&mut self) {
        let cpus = super::sys::affinity_list();
        if cpus != self.cpus && !cpus.is_empty() {
            if let Some(dir) = &self.cpuset {
                if write(&dir.join("cpuset.cpus"), &cpus).is_ok() {
                    self.cpus = cpus;
                }
            }
        }
    }
}

impl Drop for WorkerCpu {
    fn drop(&mut self) {
        self.enter(false);
        for dir in std::iter::once(&self.cpu).chain(&self.cpuset) {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// The cgroups a program started from this thread goes in: `run`'s, with this worker
/// thread's own cpu and cpuset folders (made on first use: see [`WorkerCpu`]) where `run`
/// is v1 with a cpu hierarchy; else `run` itself (each test makes its own).
pub(crate) fn for_this_worker(run: &Cgroups) -> Cgroups {
    let Cgroups::V1 {
        memory,
        pids,
        cpu: Some(run_cpu),
        cpuset,
        worker: false,
    } = run
    else {
        return run.clone();
    };
    if super::attribution::skips("cpu") || super::attribution::skips("cpugroup") {
        return run.clone();
    }
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        if w.as_ref()
            .is_some_and(|j| j.cpu.parent() != Some(run_cpu.as_path()))
        {
            // A thread that served an earlier run: leave its group first.
            *w = None;
        }
        if w.is_none() {
            *w = WorkerCpu::make(run_cpu, cpuset.as_deref()).ok();
        }
        match w.as_mut() {
            Some(j) => {
                j.follow_affinity();
                Cgroups::V1 {
                    memory: memory.clone(),
                    pids: pids.clone(),
                    cpu: Some(j.cpu.clone()),
                    cpuset: j.cpuset.clone().or_else(|| cpuset.clone()),
                    worker: true,
                }
            }
            None => run.clone(),
        }
    })
}

/// Moves this worker thread into the cpu folder of the players it starts ([`WorkerCpu`]),
/// for a game with a player it has started: after the player's launch, so that the test's
/// supervisor (forked by this thread) stays outside the group, and out of its player's reach
/// for CPU. Nothing where the thread has no folder (cgroup v2, no cpu hierarchy).
pub(crate) fn join_worker_cpu() {
    enter_worker_cpu(true);
}

/// [`WorkerCpu::enter`] for this thread's folder, if it has one.
fn enter_worker_cpu(in_group: bool) {
    let _ = WORKER.try_with(|w| {
        if let Some(j) = w.borrow_mut().as_mut() {
            j.enter(in_group);
        }
    });
}

/// Whether the player of `spec` goes in this thread's own worker cpu folder (the thread
/// then shares it during the game: [`join_worker_cpu`]); not a player of another containment
/// (a process-mode player of a run without cgroups, started by a thread that has a folder
/// from an earlier run), whose group the thread would only leave.
pub(crate) fn in_worker_cpu(spec: &super::Spec) -> bool {
    let Some(Cgroups::V1 {
        cpu: Some(cpu),
        worker: true,
        ..
    }) = &spec.cgroups
    else {
        return false;
    };
    WORKER
        .try_with(|w| w.borrow().as_ref().is_some_and(|j| j.cpu == *cpu))
        .unwrap_or(false)
}

/// Moves this worker thread back to the harness's cpu group (the end of a test): threads and
/// processes it starts from then on start outside the players' group.
pub(crate) fn leave_worker_cpu() {
    enter_worker_cpu(false);
}

/// Runs `f` with this thread out of its worker cpu folder, and puts it back after if it was
/// in: a thread that `f` starts (one of the harness's own, for work off the tests' path)
/// starts in the harness's group, not in a worker's one CPU beside its players.
pub(crate) fn outside_worker_cpu<T>(f: impl FnOnce() -> T) -> T {
    let joined = WORKER
        .try_with(|w| w.borrow().as_ref().is_some_and(|j| j.joined))
        .unwrap_or(false);
    if joined {
        leave_worker_cpu();
    }
    let out = f();
    if joined {
        join_worker_cpu();
    }
    out
}

/// Takes this thread out of its worker cpu folder and removes it, if it has one.
fn leave_worker() {
    let _ = WORKER.try_with(|w| w.borrow_mut().take());
}

/// One test's folders, made and removed by its supervisor.
pub(crate) struct TestGroup {
    dirs: Vec<PathBuf>,
    /// The worker's cpu and cpuset folders, entered but neither made nor removed.
    shared: Vec<PathBuf>,
    /// The memory and pids folders (one and the same in v2).
    mem: PathBuf,
    pids: PathBuf,
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
        let mut shared = Vec::new();
        let (mem, pids, cpu, cpuset, v2) = match cgroups {
            Cgroups::V1 {
                memory,
                pids,
                cpu,
                cpuset,
                worker: true,
            } => {
                shared.extend(cpu.iter().chain(cpuset).cloned());
                (memory.join(name), pids.join(name), None, None, false)
            }
            Cgroups::V1 {
                memory,
                pids,
                cpu,
                cpuset,
                worker: false,
            } => (
                memory.join(name),
                pids.join(name),
                cpu.as_ref().map(|d| d.join(name)),
                cpuset.as_ref().map(|d| d.join(name)),
                false,
            ),
            Cgroups::V2 { run, cpu_limits } => {
                let dir = run.join(name);
                let cpu = cpu_limits.then(|| dir.clone());
                (dir.clone(), dir, cpu.clone(), cpu, true)
            }
        };
        let (cpu, cpuset) = if super::attribution::skips("cpu") {
            (None, None)
        } else if super::attribution::skips("cpugroup") {
            (None, cpuset)
        } else if super::attribution::skips("cpuset") {
            (cpu, None)
        } else {
            (cpu, cpuset)
        };
        let mut made = TestGroup {
            dirs: Vec::new(),
            shared,
            mem: mem.clone(),
            pids: pids.clone(),
            v2,
        };
        for dir in [Some(&mem), Some(&pids), cpu.as_ref(), cpuset.as_ref()]
            .into_iter()
            .flatten()
        {
            if made.dirs.contains(dir) {
                continue;
            }
            std::fs::create_dir(dir).map_err(|e| io_err(dir, e))?;
            made.dirs.push(dir.clone());
        }
        if v2 {
            if memory > 0 {
                write(&mem.join("memory.max"), &memory.to_string())?;
                write(&mem.join("memory.swap.max"), "0")?;
            }
            if procs > 0 {
                write(&pids.join("pids.max"), &procs.to_string())?;
            }
            if let Some(dir) = &cpu {
                if !cpus.is_empty() {
                    write(&dir.join("cpuset.cpus"), cpus)?;
                }
                write(&dir.join("cpu.max"), "100000 100000")?;
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
            if let Some(dir) = &cpuset {
                cpuset_v1(dir, cpus)?;
            }
            if let Some(dir) = &cpu {
                one_cpu_v1(dir)?;
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
            .chain(&self.shared)
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
        std::fs::read_to_string(self.mem.join("cgroup.procs"))
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
        let (mem, pids) = (&self.mem, &self.pids);
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

    /// The CPU time of every process that was ever in the test's group, reaped by anyone or
    /// not (µs): cgroup v2's `cpu.stat`, in every v2 group; `None` in v1, where the test has
    /// no CPU counter of its own (the init samples its tree instead: `tree_cpu`).
    pub(crate) fn cpu_us(&self) -> Option<u64> {
        if !self.v2 {
            return None;
        }
        let stat = std::fs::read_to_string(self.mem.join("cpu.stat")).ok()?;
        stat.lines()
            .find_map(|l| l.strip_prefix("usage_usec ")?.trim().parse().ok())
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
