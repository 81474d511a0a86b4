//! The cpu and cpuset folders of each worker thread of a run, in cgroup v1 ([`WorkerCpu`]):
//! made when the thread first starts a contained program, shared by every test the worker
//! runs, and joined by the thread itself during its games.
//!
//! Touches only this run's cgroup v1 cpu and cpuset folders of the calling thread.

use std::io;
use std::path::{Path, PathBuf};

use super::super::spec::Cgroups;
use super::super::{attribution, sys, Spec};
use super::{io_err, v1, write};

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
    /// The thread is in [`Self::cpu`] now: from the second message of a game with its player
    /// until the end of that test ([`join_worker_cpu`], [`leave_worker_cpu`]).
    joined: bool,
}

thread_local! {
    static WORKER: std::cell::RefCell<Option<WorkerCpu>> = const { std::cell::RefCell::new(None) };
}

impl WorkerCpu {
    fn make(run: &Path, run_cpuset: Option<&Path>) -> io::Result<WorkerCpu> {
        let tid = sys::gettid();
        let name = format!("w{tid}");
        let cpu = run.join(&name);
        std::fs::create_dir(&cpu).map_err(|e| io_err(&cpu, e))?;
        let mut made = WorkerCpu {
            cpu: cpu.clone(),
            cpuset: None,
            cpus: sys::affinity_list(),
            home: run.parent().unwrap_or(run).to_path_buf(),
            joined: false,
        };
        v1::one_cpu(&cpu)?;
        if let Some(run_cpuset) = run_cpuset.filter(|_| !attribution::skips("cpuset")) {
            let dir = run_cpuset.join(&name);
            std::fs::create_dir(&dir).map_err(|e| io_err(&dir, e))?;
            made.cpuset = Some(dir.clone());
            v1::cpuset(&dir, &made.cpus)?;
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
        if move_this_thread(to).is_ok() {
            self.joined = in_group;
        }
    }

    /// Gives the cpuset the thread's CPUs, if they changed since.
    fn follow_affinity(&mut self) {
        let cpus = sys::affinity_list();
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
    if attribution::skips("cpu") || attribution::skips("cpugroup") {
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
/// for a game with a player it has started: once the game is a conversation (the session's
/// second message), so that the test's supervisor (forked by this thread) stays outside the
/// group, out of its player's reach for CPU, and a test with one message each way (a batch
/// test) never moves the thread. Nothing where the thread has no folder (cgroup v2, no cpu
/// hierarchy).
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
pub(crate) fn in_worker_cpu(spec: &Spec) -> bool {
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

/// Moves the calling thread (`tasks`, not `cgroup.procs`: this thread alone) into the cpu
/// folder `to`. "0", the caller, not its thread id: the kernel then moves it without its
/// system-wide lock on forks, execs and exits (see [`TestGroup::entrances`]), twice a test.
///
/// [`TestGroup::entrances`]: super::TestGroup::entrances
fn move_this_thread(to: &Path) -> io::Result<()> {
    write(&to.join("tasks"), "0")
}

/// A worker thread's cpu folder and the harness's own one it leaves it for.
#[derive(Debug, Clone)]
pub(crate) struct WorkerFolder {
    cpu: PathBuf,
    home: PathBuf,
}

/// This thread's worker cpu folder, if it has one ([`for_this_worker`] made it).
pub(crate) fn worker_folder() -> Option<WorkerFolder> {
    WORKER
        .try_with(|w| {
            w.borrow().as_ref().map(|j| WorkerFolder {
                cpu: j.cpu.clone(),
                home: j.home.clone(),
            })
        })
        .ok()
        .flatten()
}

/// The calling thread in another thread's worker cpu folder, where a contest's tool of
/// that worker's tests runs (`harness bench` puts its stand-in for a tool there, so that
/// the relay's figures switch between tasks as a run's do); back in the harness's own cpu
/// folder when dropped.
pub(crate) struct Guest {
    home: PathBuf,
}

impl Guest {
    /// Moves the calling thread into `folder`; `None` when the kernel refuses.
    pub(crate) fn join(folder: &WorkerFolder) -> Option<Guest> {
        move_this_thread(&folder.cpu).ok()?;
        Some(Guest {
            home: folder.home.clone(),
        })
    }
}

impl Drop for Guest {
    fn drop(&mut self) {
        let _ = move_this_thread(&self.home);
    }
}

/// Takes this thread out of its worker cpu folder and removes it, if it has one.
pub(super) fn leave_worker() {
    let _ = WORKER.try_with(|w| w.borrow_mut().take());
}
