//! What isolation this machine offers: the start of a run tries the namespace mode for real
//! once ([`try_namespaces`]); `harness doctor` prints every check with how to enable what is
//! missing ([`checks`]).

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::spec::{Mode, Report};
use super::{sys, Isolation, TestLimits};

/// Starts `true` in the namespace mode, as a real test would be; the error says what failed.
pub(crate) fn try_namespaces(isolation: &Isolation) -> Result<(), String> {
    let program = ["/usr/bin/true", "/bin/true"]
        .into_iter()
        .map(std::path::Path::new)
        .find(|p| p.exists())
        .ok_or("no /usr/bin/true to start")?;
    let limits = TestLimits {
        memory: 64 << 20,
        disk: 1 << 20,
        procs: 8,
        core_dumps: false,
    };
    let mut spec = isolation.spec(
        program,
        vec!["true".into()],
        std::path::Path::new("/usr/bin"),
        vec![],
        None,
        &limits,
    );
    spec.mode = Mode::Namespaces;
    spec.shared_net = isolation.shared_net;
    let report = run_to_end(&spec, Duration::from_secs(10))?;
    if let Some(e) = report.start_error {
        return Err(match e {
            super::StartError::Setup(s)
            | super::StartError::Exec(s)
            | super::StartError::Refused(s) => s,
        });
    }
    match report.exit {
        Some(super::spec::Exit::Code(0)) => Ok(()),
        other => Err(format!("a test program ended with {other:?}")),
    }
}

/// Runs a spec with no input until its report arrives.
fn run_to_end(spec: &super::Spec, limit: Duration) -> Result<Report, String> {
    let launched = super::launch(spec).map_err(|e| format!("cannot start a supervisor: {e}"))?;
    drop(launched.stdin);
    let deadline = Instant::now() + limit;
    let mut text = Vec::new();
    let mut buf = [0u8; 4096];
    let fd = launched.report.as_raw_fd();
    crate::os::set_nonblocking(std::os::fd::AsFd::as_fd(&launched.report)).ok();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            super::kill(launched.pid);
            let _ = sys::wait(launched.pid, true);
            return Err("the sandbox did not answer in time".into());
        }
        sys::poll_read(&[fd], left.as_millis().max(1) as i32);
        match crate::os::read(std::os::fd::AsFd::as_fd(&launched.report), &mut buf) {
            Ok(Some(0)) | Err(_) => break,
            Ok(Some(n)) => text.extend_from_slice(&buf[..n]),
            Ok(None) => {}
        }
    }
    drop(launched.control);
    super::reap_later(launched.pid);
    let report: Report =
        serde_json::from_slice(&text).map_err(|e| format!("no report from the sandbox: {e}"))?;
    super::release(launched.net, Some(&report));
    Ok(report)
}

/// One line of `harness doctor`.
pub struct Check {
    pub what: &'static str,
    pub ok: bool,
    pub detail: String,
    /// How to get it, when it is missing.
    pub fix: &'static str,
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// The landlock ABI version the kernel offers (0: none).
pub(crate) fn landlock_abi() -> i64 {
    // SAFETY: landlock_create_ruleset with a null attribute and the VERSION flag only asks;
    // no memory is read or written. rustix has no landlock calls.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    ret.max(0)
}

/// Every check `harness doctor` prints.
pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    let max_userns = read("/proc/sys/user/max_user_namespaces").unwrap_or_default();
    let clone_ok = read("/proc/sys/kernel/unprivileged_userns_clone");
    let apparmor = read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
    out.push(Check {
        what: "user namespaces",
        ok: max_userns != "0" && clone_ok.as_deref() != Some("0") && apparmor.as_deref() != Some("1"),
        detail: format!(
            "max_user_namespaces = {max_userns}{}{}",
            clone_ok.map(|v| format!(", unprivileged_userns_clone = {v}")).unwrap_or_default(),
            apparmor
                .map(|v| format!(", apparmor_restrict_unprivileged_userns = {v}"))
                .unwrap_or_default()
        ),
        fix: "sysctl user.max_user_namespaces=15000; on Ubuntu 24.04+ sysctl kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor profile allowing userns for the harness); in Docker, run with --security-opt seccomp=unconfined or use --sandbox off",
    });
    for (what, path) in [
        ("PID namespaces", "/proc/self/ns/pid"),
        ("network namespaces", "/proc/self/ns/net"),
        ("mount namespaces", "/proc/self/ns/mnt"),
        ("cgroup namespaces", "/proc/self/ns/cgroup"),
    ] {
        out.push(Check {
            what,
            ok: std::path::Path::new(path).exists(),
            detail: path.to_string(),
            fix: "a kernel built with CONFIG_*_NS (every mainstream distribution's is)",
        });
    }
    let pool = super::net::take().map(super::net::give_back);
    out.push(Check {
        what: "network namespaces, pooled",
        ok: pool.is_ok(),
        detail: match pool {
            Ok(()) => "tests borrow a network namespace (loopback only) of a pool made once per run, one test at a time each".into(),
            Err(e) => format!("{e}: each test makes its own (a sandboxed test costs about 0.5 ms more)"),
        },
        fix: "the same as user namespaces",
    });
    let abi = landlock_abi();
    out.push(Check {
        what: "landlock",
        ok: abi > 0,
        detail: format!("ABI {abi} (used in process mode: files, TCP, signals and abstract sockets outside the player's own)"),
        fix: "boot with lsm=...,landlock (kernel 5.13+)",
    });
    out.push(Check {
        what: "seccomp filter",
        ok: super::seccomp::supported(),
        detail: if super::seccomp::supported() {
            "used in process mode: Unix sockets only, no System V IPC, POSIX message queues or keyrings, a player no chmod, chown or ACL by path".into()
        } else {
            "no filter for this architecture: process-mode players reach the network and System V IPC".into()
        },
        fix: "an x86_64 or aarch64 build of the harness",
    });
    let pidfd = crate::os::pid_fd(std::process::id() as i32).is_some();
    out.push(Check {
        what: "pidfd",
        ok: pidfd,
        detail: if pidfd {
            "pidfd_open works".into()
        } else {
            "pidfd_open failed".into()
        },
        fix: "Linux 5.3 or later",
    });
    let tiocsti = read("/proc/sys/dev/tty/legacy_tiocsti");
    out.push(Check {
        what: "terminal injection (TIOCSTI)",
        ok: true,
        detail: format!(
            "legacy_tiocsti = {}: players never have a controlling terminal, so it cannot reach yours",
            tiocsti.unwrap_or_else(|| "absent".into())
        ),
        fix: "",
    });
    out
}

/// `MemAvailable` of /proc/meminfo, in bytes.
fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Warns when `threads` tests at once, each with `memory` and `disk` bytes, may not fit in the
/// memory the machine has free (the sandbox's writable space is memory too).
pub(crate) fn capacity_note(threads: usize, memory: u64, disk: u64) -> Option<String> {
    let free = mem_available()?;
    let need = (memory.saturating_add(disk)).saturating_mul(threads as u64);
    (need > free).then(|| {
        format!(
            "{threads} tests at once may hold {} MB (memory limit + max-disk each) but the machine has {} MB free: lower --threads, or the limits, or expect the machine to swap or kill",
            need >> 20,
            free >> 20
        )
    })
}

/// Tasks (processes and threads) of this user now, from /proc.
fn user_tasks(uid: u32) -> u64 {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("status")).ok())
        .filter(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|ids| ids.split_whitespace().next()?.parse::<u32>().ok())
                == Some(uid)
        })
        .map(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|n| n.trim().parse::<u64>().ok())
                .unwrap_or(1)
        })
        .sum()
}

/// The process cap per test that keeps `threads` tests at once under the user's own process
/// limit (`RLIMIT_NPROC`, which a test's processes count against in every mode), with room
/// for the harness and the user's other processes; and a note when it had to lower `wanted`.
pub(crate) fn process_cap(threads: usize, wanted: u64) -> (u64, Option<String>) {
    let uid = rustix::process::geteuid();
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nproc).current;
    // Root is not held to RLIMIT_NPROC; an unlimited limit (`None`) needs no share.
    let Some(limit) = limit.filter(|_| !uid.is_root()) else {
        return (wanted, None);
    };
    let uid = uid.as_raw();
    let used = user_tasks(uid);
    // Room for the harness's own threads, its supervisors and a few more.
    let spare = limit.saturating_sub(used + 16 + 3 * threads as u64);
    let share = (spare / threads.max(1) as u64).max(1);
    if share >= wanted {
        return (wanted, None);
    }
    (
        share,
        Some(format!(
            "max-procs lowered from {wanted} to {share} per test: {threads} tests at once must fit under your process limit ({limit}, {used} in use)"
        )),
    )
}
