//! cgroup v1: the run's `memory` and `pids` folders (and `cpu` and `cpuset` where they are
//! mounted), in hierarchies where the harness may make folders (as on a root account); each
//! test's limits in them, and what it used.
//!
//! Touches only the run's and its tests' folders in the v1 hierarchies.

use std::io;
use std::path::Path;

use super::super::attribution;
use super::super::spec::Cgroups;
use super::{field, io_err, own_group, write, Folders, Held, Limits, RunGroups, TestGroup};

/// Makes the run's v1 folders: `memory` and `pids` (both needed), `cpu` and `cpuset` where
/// they are mounted and let us.
pub(super) fn create_run(tag: &str) -> Result<RunGroups, String> {
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

/// Moves every thread of this process still in the v1 folder `dir` to `home` (a thread
/// id in its `tasks` that is not ours, were there one, stays).
pub(super) fn send_home_own_threads(dir: &Path, home: &Path) {
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
pub(super) fn cpuset(dir: &Path, cpus: &str) -> io::Result<()> {
    if cpus.is_empty() {
        return inherit_cpuset(dir);
    }
    write(&dir.join("cpuset.cpus"), cpus)?;
    inherit(dir, "cpuset.mems")
}

/// A v1 cpu folder's quota: one CPU's time per period.
pub(super) fn one_cpu(dir: &Path) -> io::Result<()> {
    if attribution::skips("quota") {
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

/// Puts one test's limits on its v1 folders (`group`, made from `folders`): the memory limit
/// on memory and memory + swap, the process cap, the CPU list and one CPU's time.
pub(super) fn limit(group: &TestGroup, folders: &Folders, limits: &Limits) -> io::Result<()> {
    if limits.memory > 0 {
        let mem = group.mem();
        mem.write("memory.limit_in_bytes", &limits.memory.to_string())?;
        // Swap counted: the same limit on memory + swap (where swap accounting is on),
        // else keep the group out of swap.
        if mem.has("memory.memsw.limit_in_bytes") {
            mem.write("memory.memsw.limit_in_bytes", &limits.memory.to_string())?;
        } else {
            let _ = mem.write("memory.swappiness", "0");
        }
    }
    if limits.procs > 0 {
        group
            .pids_dir()
            .write("pids.max", &limits.procs.to_string())?;
    }
    if let Some(dir) = &folders.cpuset {
        cpuset(dir, limits.cpus)?;
    }
    if let Some(dir) = &folders.cpu {
        one_cpu(dir)?;
    }
    Ok(())
}

/// (peak memory in bytes, killed for memory, limit hit) of a test's v1 memory folder.
pub(super) fn memory_stats(mem: &Held) -> (u64, bool, bool) {
    let peak = mem
        .read("memory.max_usage_in_bytes")
        .trim()
        .parse::<u64>()
        .unwrap_or(0);
    let oom = field(&mem.read("memory.oom_control"), "oom_kill ") > 0;
    let failed = mem
        .read("memory.failcnt")
        .trim()
        .parse::<u64>()
        .unwrap_or(0)
        > 0;
    (peak, oom, failed)
}
