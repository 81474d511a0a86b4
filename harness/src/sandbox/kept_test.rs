//! A test handed to its player's kept init ([`super::kept_init`]) by the harness's own thread,
//! with no supervisor process: the thread makes the test's cgroup, sends the kept init the
//! request a supervisor would ([`super::kept_init::Request`]), and at the test's end reads the
//! group's counters into the init's report and leaves its removal to a thread off the tests'
//! path. A test then costs no fork and exit of a supervisor, and no fork server's work.
//!
//! What a supervisor did for such a test and who does it now:
//! - the cgroup: made here ([`start`]), read and removed at the end ([`KeptTest::end`]);
//! - the stop pipe: the harness's control pipe is the kept init's stop pipe itself (its end
//!   of file ends the test);
//! - the report: the kept init's report pipe is the harness's;
//! - a test whose init does not report in time, or ends without a report: its kept init is
//!   ended (its helper killed: the init, and every process of its PID namespace, die with
//!   it), what is left in the test's cgroup is killed, and the report says the test failed
//!   and why, as a supervisor's does.
//!
//! Where the test cannot be handed over so (its cgroup cannot be made, the kept init is gone),
//! [`start`] says so and the test is started under a supervisor as any other.
//!
//! May make and remove the test's cgroup, send to a kept init and kill its helper.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use super::cgroup::TestGroup;
use super::off_path::JANITOR;
use super::spec::{Report, Spec};
use super::{kept_init, sys};

/// A test its kept init runs: what its end needs.
pub(crate) struct KeptTest {
    group: Option<TestGroup>,
    /// The kept init's helper (the harness's child; the init dies with it).
    helper: libc::pid_t,
}

/// What the harness holds of a test handed to a kept init: the test, its control pipe (the
/// init's stop pipe: closing it ends the test), and the report pipe.
pub(super) struct Handed {
    pub test: KeptTest,
    pub control: OwnedFd,
    pub report: OwnedFd,
}

/// Hands the test of `spec` to the kept init at the other end of `socket` (whose helper is
/// `helper`), its player reading `stdin` and writing `stdout` and `stderr`. An error: it could
/// not be (nothing of it is left); the caller starts it under a supervisor instead.
pub(super) fn start(
    socket: RawFd,
    helper: libc::pid_t,
    spec: &Spec,
    player: [&OwnedFd; 3],
) -> io::Result<Handed> {
    let group = match &spec.cgroups {
        None => None,
        Some(cgroups) => {
            let name = format!("k{}-{}", std::process::id(), next_number());
            // The worker's pinning: the test's cpuset.
            let cpus = sys::affinity_list();
            Some(TestGroup::create(
                cgroups,
                &name,
                spec.memory,
                spec.procs,
                &cpus,
            )?)
        }
    };
    let sent = send(socket, spec, player, group.as_ref());
    match sent {
        Ok((control, report)) => Ok(Handed {
            test: KeptTest { group, helper },
            control,
            report,
        }),
        Err(e) => {
            if let Some(group) = group {
                group.remove();
            }
            Err(e)
        }
    }
}

/// A number no other test of this harness has had: its cgroup's name.
fn next_number() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Sends the kept init the request: the spec and the worker's CPUs, with the player's pipes,
/// the stop pipe's and the report pipe's ends, and the group's entrances. Returns the
/// harness's ends of the stop and report pipes.
fn send(
    socket: RawFd,
    spec: &Spec,
    player: [&OwnedFd; 3],
    group: Option<&TestGroup>,
) -> io::Result<(OwnedFd, OwnedFd)> {
    let entrances = match group {
        Some(g) => g.entrances()?,
        None => Vec::new(),
    };
    let entrances: Vec<RawFd> = entrances.iter().map(|e| e.as_raw_fd()).collect();
    let player = player.map(|fd| fd.as_raw_fd());
    kept_init::hand(socket, spec, player, &entrances).map_err(|(_, e)| e)
}

impl KeptTest {
    /// The end of the test, once the harness has read what came on its report pipe:
    /// `answered` whether the pipe was closed, `report` the init's report if it came whole.
    /// With a report, the group's counters are added to it, as a supervisor adds them; without
    /// one the kept init is ended and what is left in the group killed, and the report says
    /// why the test failed, as a supervisor's would. The group is removed off the tests' path.
    pub(crate) fn end(self, answered: bool, report: &mut Option<Report>) {
        let failure = match (answered, &mut *report) {
            (true, Some(report)) => {
                if let Some(group) = &self.group {
                    group.add_to(report);
                }
                None
            }
            (true, None) => Some("the player's kept init ended without a report"),
            (false, _) => Some("the player's kept init did not end the test in time"),
        };
        if let Some(failure) = failure {
            sys::kill(self.helper, libc::SIGKILL);
            if let Some(group) = &self.group {
                super::cgroup::kill_members(|| group.pids());
            }
            *report = Some(Report {
                failure: Some(failure.into()),
                ..Report::default()
            });
        }
        if let Some(group) = self.group {
            JANITOR.run_bounded(Box::new(move || {
                group.remove();
            }));
        }
    }
}
