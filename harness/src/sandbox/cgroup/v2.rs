//! cgroup v2: the run's folder in a delegated subtree (`memory` and `pids`; `cpu` and
//! `cpuset` where delegated), each test's limits in its folder, and what it used.
//!
//! Touches only the run's and its tests' folders below the harness's own v2 group.

use std::io;
use std::path::Path;

use super::super::spec::Cgroups;
use super::{field, own_group, write, Folders, Held, Limits, RunGroups, TestGroup};

/// Makes the run's v2 folder in the harness's own group, with `memory` and `pids` (both
/// needed) and `cpu` and `cpuset` where delegated, on in its children.
pub(super) fn create_run(tag: &str) -> Result<RunGroups, String> {
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

/// Puts one test's limits on its v2 folder (`group`, made from `folders`): the memory limit
/// and no swap, the process cap, and where it has a cpu folder the CPU list and one CPU's
/// time.
pub(super) fn limit(group: &TestGroup, folders: &Folders, limits: &Limits) -> io::Result<()> {
    let dir = group.mem();
    if limits.memory > 0 {
        dir.write("memory.max", &limits.memory.to_string())?;
        dir.write("memory.swap.max", "0")?;
    }
    if limits.procs > 0 {
        group
            .pids_dir()
            .write("pids.max", &limits.procs.to_string())?;
    }
    if folders.cpu.is_some() {
        if !limits.cpus.is_empty() {
            dir.write("cpuset.cpus", limits.cpus)?;
        }
        dir.write("cpu.max", "100000 100000")?;
    }
    Ok(())
}

/// (peak memory in bytes, killed for memory, limit hit) of a test's v2 folder.
pub(super) fn memory_stats(mem: &Held) -> (u64, bool, bool) {
    let events = mem.read("memory.events");
    let peak = mem.read("memory.peak").trim().parse::<u64>().unwrap_or(0);
    (
        peak,
        field(&events, "oom_kill ") > 0,
        field(&events, "max ") > 0 || field(&events, "oom ") > 0,
    )
}
