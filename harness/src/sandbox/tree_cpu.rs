//! The CPU time of a test's process tree where no per-test counter holds it: a sampler the
//! test's init runs while the test runs ([`TreeCpu`]).
//!
//! The kernel adds a process's CPU time to its parent's only when the parent reaps it
//! (`wait`): a player that ignores `SIGCHLD` (or sets `SA_NOCLDWAIT`) has its children
//! reaped by the kernel, and their time reaches nobody's `RUSAGE_CHILDREN`. A cgroup v2
//! group counts it (`cpu.stat`'s `usage_usec`, in every v2 group); a v1 test has no CPU
//! counter of its own (its `cpu` group, where it has one, is its worker's), nor has a test
//! without a cgroup. There the init reads `/proc/<pid>/stat` (user + system time of the
//! process, all its threads) of every live process of the test every [`INTERVAL`], keeping
//! each process's last reading: the sum is a lower bound of the tree's time that misses, of
//! each process reaped by the kernel, only what it spent after its last reading (at most one
//! interval's worth each). The init reports the larger of it and what `wait` gave it.
//!
//! Reads `/proc` only; never signals or waits.

use std::collections::HashMap;
use std::time::Duration;

/// How often a test's live processes are read: a test that runs for less is never
/// sampled (a normal player's time comes whole from `wait`); one read costs the init a
/// `/proc` file per process.
pub(crate) const INTERVAL: Duration = Duration::from_millis(50);

/// The last CPU time read of every process of the test seen so far.
#[derive(Debug, Default)]
pub(crate) struct TreeCpu {
    /// By (pid, start time in clock ticks since boot): a pid used again is another process.
    last_ticks: HashMap<(libc::pid_t, u64), u64>,
}

impl TreeCpu {
    /// Reads the CPU time of each of `pids` (a process gone keeps its last reading).
    pub fn sample(&mut self, pids: &[libc::pid_t]) {
        for &pid in pids {
            if let Some((ticks, start)) = stat_fields(pid, own_ticks) {
                let last = self.last_ticks.entry((pid, start)).or_default();
                *last = (*last).max(ticks);
            }
        }
    }

    /// The CPU time of every process read so far, at its last reading (µs).
    pub fn total_us(&self) -> u64 {
        ticks_to_us(self.last_ticks.values().sum())
    }
}

/// A process's own user + system time (its threads', live and ended; not its children's)
/// and its start time, both in clock ticks, from the fields of `/proc/<pid>/stat` after
/// "pid (comm)" ([`stat_fields`]).
fn own_ticks(mut fields: std::str::SplitWhitespace<'_>) -> Option<(u64, u64)> {
    // From the state (field 3) on: utime and stime are fields 14 and 15, starttime 22.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    let start: u64 = fields.nth(6)?.parse().ok()?;
    Some((utime + stime, start))
}

/// The CPU time (µs) of these processes, each one's own and that of the children it reaped,
/// from `/proc/<pid>/stat`; a process gone counts nothing.
pub(crate) fn cpu_us_of(pids: &[libc::pid_t]) -> u64 {
    let ticks = pids
        .iter()
        .filter_map(|&pid| {
            // utime, stime, cutime, cstime: fields 14-17, the 12th to 15th from the state on.
            stat_fields(pid, |fields| {
                Some(
                    fields
                        .skip(11)
                        .take(4)
                        .map(|v| v.parse::<u64>().unwrap_or(0))
                        .sum::<u64>(),
                )
            })
        })
        .sum();
    ticks_to_us(ticks)
}

/// Clock ticks (`_SC_CLK_TCK`) in microseconds.
pub(crate) fn ticks_to_us(ticks: u64) -> u64 {
    let per_s = rustix::param::clock_ticks_per_second().max(1);
    ticks * 1_000_000 / per_s
}

/// `read` of the fields of `/proc/<pid>/stat` after "pid (comm)", the state first (comm may
/// hold spaces and parentheses); `None` when the process is gone.
pub(crate) fn stat_fields<T>(
    pid: libc::pid_t,
    read: impl FnOnce(std::str::SplitWhitespace<'_>) -> Option<T>,
) -> Option<T> {
    let stat = super::sys::read_text(format!("/proc/{pid}/stat")).ok()?;
    fields_of(&stat).and_then(read)
}

/// The fields of a `/proc/<pid>/stat` line after "pid (comm)".
fn fields_of(stat: &str) -> Option<std::str::SplitWhitespace<'_>> {
    Some(stat.rsplit_once(')')?.1.split_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_time_and_start_are_read_past_a_command_name_with_spaces_and_parentheses() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
        // utime stime cutime cstime priority nice threads itrealvalue starttime ...
        let line = "42 (a (b) c) R 1 42 42 0 -1 4194560 10 0 0 0 70 30 500 600 20 0 1 0 12345 0";
        assert_eq!(fields_of(line).and_then(own_ticks), Some((100, 12345)));
        assert_eq!(fields_of("42 (x) R 1 2").and_then(own_ticks), None);
    }

    /// A process that ends and is reaped keeps its last reading; the children's fields of
    /// its parent (cutime, cstime) are never added, so nothing counts twice.
    #[test]
    fn a_process_read_while_it_ran_keeps_its_time_after_its_end() {
        use std::process::{Command, Stdio};
        // About 0.2 s of CPU time in the shell itself, then a pause to be read in.
        let busy = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 2";
        let mut child = Command::new("sh")
            .args(["-c", busy])
            .stdin(Stdio::null())
            .spawn()
            .expect("spawn sh");
        let pid = child.id() as libc::pid_t;
        let mut tree = TreeCpu::default();
        let began = std::time::Instant::now();
        // Until the busy loop is over (its time stops growing), read at the sampler's pace.
        let mut last = u64::MAX;
        while (tree.total_us() < 50_000 || tree.total_us() != last)
            && began.elapsed() < Duration::from_secs(60)
        {
            last = tree.total_us();
            std::thread::sleep(Duration::from_millis(300));
            tree.sample(&[pid]);
        }
        let _ = child.kill();
        let _ = child.wait();
        tree.sample(&[pid]);
        assert!(
            tree.total_us() >= 50_000,
            "read {} µs of a shell that counted to 300000",
            tree.total_us()
        );
        assert_eq!(
            tree.total_us(),
            last,
            "a reaped process keeps its last reading"
        );
    }
}
