//! Starting and ending one test: a plain spawn and wait of `true`, the supervisor alone in
//! process mode, the sandbox, and the sandbox with a cgroup. Starts `/usr/bin/true` as a
//! player, many times.

use std::path::Path;
use std::time::{Duration, Instant};

use super::figures::{median, ms};
use super::peer::{containment, spawn};
use crate::error::{Classify, Error};
use crate::runner::{self, Containment};
use crate::sandbox::Want;
use crate::session::Limits;

/// Tests started for one median.
pub(super) const SPAWNS: usize = 41;

/// Median time of starting and ending `true` as a player, over `n` tests.
pub(super) fn spawn_cost(containment: &Containment, n: usize) -> Result<Duration, Error> {
    let program = Path::new("/usr/bin/true");
    let limits = Limits {
        think: Duration::from_secs(60),
        cpu: None,
        memory: 256 << 20,
        max_line: 1 << 16,
        max_output: 1 << 20,
        max_stderr: 1 << 20,
        grace: Duration::from_secs(5),
    };
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let (session, work) = spawn(containment, program, &[], limits)?;
        let ending = session.finish();
        if let Some(work) = work {
            runner::done_with_workdir(&containment.isolation, work, ending.report.as_ref());
        }
        times.push(start.elapsed());
        if ending
            .report
            .is_none_or(|r| r.start_error.is_some() || r.exit.is_none())
        {
            return Err(Error::Usage(
                "bench: `true` did not run in the sandbox".into(),
            ));
        }
    }
    Ok(median(times))
}

/// Median time of a plain spawn and wait of `true` (no sandbox, no supervisor).
fn plain_spawn_cost(n: usize) -> Result<Duration, Error> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        std::process::Command::new("/usr/bin/true")
            .status()
            .fault()?;
        times.push(start.elapsed());
    }
    Ok(median(times))
}

/// Starting and ending a test: plain spawn, supervisor alone, sandbox, sandbox + cgroup.
pub(super) fn spawns(open: &Containment, sandboxed: &Containment) -> Result<(), Error> {
    let no_cgroup = containment(Want::Auto, Want::Off)?;
    let mut spawn = [Duration::MAX; 4];
    for _ in 0..3 {
        for (slot, t) in [
            plain_spawn_cost(SPAWNS)?,
            spawn_cost(open, SPAWNS)?,
            spawn_cost(&no_cgroup, SPAWNS)?,
            spawn_cost(sandboxed, SPAWNS)?,
        ]
        .into_iter()
        .enumerate()
        {
            spawn[slot] = spawn[slot].min(t);
        }
    }
    for line in table(&spawn, &no_cgroup.isolation.describe()) {
        println!("{line}");
    }
    Ok(())
}

/// The table's lines: plain, process mode, sandbox (described by `sandbox`), with a cgroup.
fn table(spawn: &[Duration; 4], sandbox: &str) -> Vec<String> {
    vec![
        format!("\nstarting and ending one test (median of {SPAWNS}, best of 3):"),
        format!(
            "  plain spawn + wait of true          {:7.3} ms",
            ms(spawn[0])
        ),
        format!(
            "  supervisor, process mode            {:7.3} ms   +{:.3} ms",
            ms(spawn[1]),
            ms(spawn[1]) - ms(spawn[0])
        ),
        format!(
            "  sandbox ({sandbox:<26}) {:7.3} ms   +{:.3} ms over plain (target <= +2 ms)",
            ms(spawn[2]),
            ms(spawn[2]) - ms(spawn[0])
        ),
        format!(
            "  sandbox + cgroup                    {:7.3} ms   {:+.3} ms over the sandbox (target <= 1 ms); {:+.3} ms over plain",
            ms(spawn[3]),
            ms(spawn[3]) - ms(spawn[2]),
            ms(spawn[3]) - ms(spawn[0])
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_each_start_over_the_one_before() {
        let spawn = [1000, 1400, 2800, 3300].map(Duration::from_micros);
        assert_eq!(
            table(&spawn, "namespaces"),
            [
                "\nstarting and ending one test (median of 41, best of 3):",
                "  plain spawn + wait of true            1.000 ms",
                "  supervisor, process mode              1.400 ms   +0.400 ms",
                "  sandbox (namespaces                )   2.800 ms   +1.800 ms over plain (target <= +2 ms)",
                "  sandbox + cgroup                      3.300 ms   +0.500 ms over the sandbox (target <= 1 ms); +2.300 ms over plain",
            ]
        );
    }
}
