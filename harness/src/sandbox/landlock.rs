//! Landlock for process mode: where no namespace can be had (Ubuntu's AppArmor restriction on
//! user namespaces, some containers), the kernel's own unprivileged access control still
//! narrows what a player can reach. Applied in the player's process just before its exec:
//! files readable only in the system folders, the folders of `PATH` (an interpreter's
//! install), the player's own folder and program, and writable only in the test's own folder;
//! no TCP (ABI 4); no signals to, and no abstract Unix sockets of, any process outside the
//! player's own tree (ABI 6); no ptrace of anything outside it (every ABI). Best effort: a
//! kernel without landlock (or an older ABI) gets what it offers, and `harness doctor` says
//! which.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

const EXECUTE: u64 = 1 << 0;
const WRITE_FILE: u64 = 1 << 1;
const READ_FILE: u64 = 1 << 2;
const READ_DIR: u64 = 1 << 3;
/// Every file-system right of ABI 1 (execute .. make symlink).
const FS_V1: u64 = (1 << 13) - 1;
const REFER: u64 = 1 << 13;
const TRUNCATE: u64 = 1 << 14;
const IOCTL_DEV: u64 = 1 << 15;
const BIND_TCP: u64 = 1 << 0;
const CONNECT_TCP: u64 = 1 << 1;
const SCOPE_ABSTRACT_UNIX: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneath {
    allowed_access: u64,
    parent_fd: i32,
}

/// What a player may reach in process mode, prepared before the fork.
pub(crate) struct Rules {
    /// (path, rights) pairs; paths that do not exist are skipped.
    paths: Vec<(PathBuf, u64)>,
}

impl Rules {
    /// The rules of a test: read and execute in `read`, everything in `write`; the five
    /// harmless devices read and write.
    pub fn new(read: &[PathBuf], write: &[PathBuf]) -> Rules {
        let rx = EXECUTE | READ_FILE | READ_DIR;
        let mut paths: Vec<(PathBuf, u64)> = read.iter().map(|p| (p.clone(), rx)).collect();
        paths.push((PathBuf::from("/dev"), READ_DIR));
        for dev in ["null", "zero", "full", "random", "urandom"] {
            paths.push((Path::new("/dev").join(dev), READ_FILE | WRITE_FILE));
        }
        paths.extend(write.iter().map(|p| (p.clone(), u64::MAX)));
        Rules { paths }
    }

    /// Restricts the calling process (and what it execs) to the rules. Needs no_new_privs.
    /// Returns the ABI applied (0: the kernel has no landlock).
    pub(crate) fn apply(&self) -> Result<i64, std::io::Error> {
        let abi = super::probe::landlock_abi();
        if abi <= 0 {
            return Ok(0);
        }
        let mut fs = FS_V1;
        if abi >= 2 {
            fs |= REFER;
        }
        if abi >= 3 {
            fs |= TRUNCATE;
        }
        if abi >= 5 {
            fs |= IOCTL_DEV;
        }
        let attr = RulesetAttr {
            handled_access_fs: fs,
            handled_access_net: if abi >= 4 { BIND_TCP | CONNECT_TCP } else { 0 },
            scoped: if abi >= 6 {
                SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL
            } else {
                0
            },
        };
        let size = match abi {
            1..=3 => 8,
            4 | 5 => 16,
            _ => std::mem::size_of::<RulesetAttr>(),
        };
        // SAFETY: a pointer to a live attribute struct of at least `size` bytes.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &attr as *const RulesetAttr,
                size,
                0u32,
            )
        };
        let ruleset = super::sys::check(fd, "landlock_create_ruleset")?;
        // SAFETY: a fresh descriptor we own.
        let ruleset = unsafe { OwnedFd::from_raw_fd(ruleset as i32) };
        for (path, rights) in &self.paths {
            add_rule(&ruleset, path, *rights, fs)?;
        }
        // SAFETY: plain syscall on our ruleset.
        let ret =
            unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) };
        super::sys::check(ret, "landlock_restrict_self")?;
        Ok(abi)
    }
}

/// Allows `rights` (within the handled `fs` rights) under `path`; a path that cannot be
/// opened is left out (nothing under it can be reached anyway).
fn add_rule(
    ruleset: &OwnedFd,
    path: &std::path::Path,
    rights: u64,
    fs: u64,
) -> std::io::Result<()> {
    let Ok(c) = super::sys::cstr(path) else {
        return Ok(());
    };
    // SAFETY: O_PATH open of a C string; the descriptor is closed below.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return Ok(());
    }
    // SAFETY: fresh descriptor.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let is_dir = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
    // A file takes only file rights.
    let mask = if is_dir {
        fs
    } else {
        fs & (EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV)
    };
    let rule = PathBeneath {
        allowed_access: rights & mask,
        parent_fd: fd.as_raw_fd(),
    };
    // SAFETY: pointer to a live packed rule.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            RULE_PATH_BENEATH,
            &rule as *const PathBeneath,
            0u32,
        )
    };
    super::sys::check(ret, &format!("landlock_add_rule {}", path.display()))?;
    Ok(())
}
