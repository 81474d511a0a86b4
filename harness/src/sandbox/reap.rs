//! The end of a test, seen from the harness: its supervisor reaped (now or later, and every
//! one at the end of a run), what a supervisor that died without its report left killed
//! ([`end_unreported`]), and its network namespace given back to the pool ([`release`]).
//!
//! May signal and reap the supervisors the harness started, and kill the processes of a
//! test's own cgroup; it starts nothing.

use rustix::process::Pid;

use super::kept_test::KeptTest;
use super::spec::{self, Report};
use super::{net, sys, tool};

/// Ends a test's hold on its network namespace: back to the pool when the test's report says
/// every process of it is gone and nothing of it is left in the namespace (`net_left::left_empty`),
/// else dropped (the kernel frees it after the last one).
pub(crate) fn release(net: Option<net::NetNs>, report: Option<&Report>) {
    if let Some(ns) = net {
        if report.is_some_and(|r| r.all_gone) {
            net::give_back(ns);
        }
    }
}

/// The run's cgroups of each supervisor whose test may still be running (until it is reaped),
/// for [`end_unreported`].
static GROUPS: std::sync::Mutex<Vec<(i32, spec::Cgroups)>> = std::sync::Mutex::new(Vec::new());

/// Remembers the run's cgroups of the test whose supervisor is `pid`, until it is reaped.
pub(super) fn remember_groups(pid: i32, cgroups: &spec::Cgroups) {
    let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    // An entry of an earlier process that had this pid is stale.
    groups.retain(|(p, _)| *p != pid);
    groups.push((pid, cgroups.clone()));
}

/// Ends what is left of a test whose supervisor `pid` died without its report (killed from
/// outside, by the kernel's OOM killer or someone else): in process mode the player's
/// processes outlive it (the player itself gets SIGKILL from its parent's death, not what it
/// started), so every process still in the test's cgroup (`t<pid>`, the supervisor's name
/// for it) is killed, until none is left, and its folders are removed. In the namespace mode
/// the kernel has ended them already (the test's init dies with its supervisor, and with it
/// the PID namespace). Without a cgroup there is nothing to find them by.
fn end_unreported(pid: i32) {
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
    super::cgroup::kill_members(|| {
        std::fs::read_to_string(pids.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    });
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
    // Signal 0 only checks existence; a zombie child still exists.
    Pid::from_raw(pid).is_some_and(|p| rustix::process::test_kill_process(p).is_ok())
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

/// Ends what tests made ready for tests that will not come ([`super::held_ahead`]), then
/// reaps every pending supervisor, killing those still there after `within` (the end of a
/// run: nothing of it may be left).
pub(crate) fn reap_all(within: std::time::Duration) {
    super::held_ahead::end_all();
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

/// What runs a started test, for its end ([`Runner::end`]).
pub(crate) enum Runner {
    /// Its supervisor, the harness's child.
    Supervisor(i32),
    /// Its player's kept init, handed the test by the harness's thread.
    Kept(KeptTest),
}

impl Runner {
    /// The end of the test once the harness has read what came on its report pipe:
    /// `answered` whether the pipe was closed (its writer is done), `report` the report
    /// (`None`: none came in time). The report completed where the runner's part is the
    /// harness's (a kept init's test: its cgroup's counters); what did not answer killed, with
    /// what it left; a supervisor reaped now or later.
    pub(crate) fn end(self, answered: bool, report: &mut Option<Report>) {
        match self {
            Runner::Supervisor(pid) => {
                if !answered {
                    kill(pid);
                }
                if report.is_none() {
                    end_unreported(pid);
                }
                reap_later(pid);
            }
            Runner::Kept(test) => test.end(answered, report),
        }
    }
}

/// Kills a supervisor (its init follows it: parent-death signal and end of its stop pipe).
pub fn kill(pid: i32) {
    sys::kill(pid, libc::SIGKILL);
}
