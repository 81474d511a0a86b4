//! Landlock for process mode: where no namespace can be had (Ubuntu's AppArmor restriction on
//! user namespaces, some containers), the kernel's own unprivileged access control still
//! narrows what a player can reach. Applied in the player's process just before its exec:
//! files readable only in the system folders, the folders of `PATH` (an interpreter's
//! install), the player's own folder and program, and writable only in the test's own folder;
//! no TCP (ABI 4); no signals to, and no abstract Unix sockets of, any process outside the
//! player's own tree (ABI 6); no ptrace of anything outside it (every ABI). Best effort: a
//! kernel without landlock (or an older ABI) gets what it offers, and `harness doctor` says
//! which. Through the `landlock` crate, which speaks each ABI's structures and leaves out
//! what the running kernel does not have. Touches nothing but the calling process.

use std::path::{Path, PathBuf};

use ::landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetError, Scope, ABI,
};

/// The newest ABI whose rights the rules name: every file-system right up to ABI 5 (ioctl on
/// devices), TCP bind and connect (ABI 4), abstract Unix sockets and signals scoped to the
/// player's tree (ABI 6). A kernel with an older ABI handles what it has of these (the
/// crate's best effort), one with a newer ABI no more than these.
const NEWEST: ABI = ABI::V6;

/// What a player may reach in process mode.
pub(crate) struct Rules {
    /// (path, rights) pairs; paths that do not exist are skipped.
    paths: Vec<(PathBuf, BitFlags<AccessFs>)>,
}

impl Rules {
    /// The rules of a test: read and execute in `read`, everything in `write`; the five
    /// harmless devices read and write.
    pub fn new(read: &[PathBuf], write: &[PathBuf]) -> Rules {
        let rx = AccessFs::Execute | AccessFs::ReadFile | AccessFs::ReadDir;
        let mut paths: Vec<(PathBuf, BitFlags<AccessFs>)> =
            read.iter().map(|p| (p.clone(), rx)).collect();
        paths.push((PathBuf::from("/dev"), AccessFs::ReadDir.into()));
        for dev in ["null", "zero", "full", "random", "urandom"] {
            paths.push((
                Path::new("/dev").join(dev),
                AccessFs::ReadFile | AccessFs::WriteFile,
            ));
        }
        paths.extend(
            write
                .iter()
                .map(|p| (p.clone(), AccessFs::from_all(NEWEST))),
        );
        Rules { paths }
    }

    /// Restricts the calling process (and what it execs) to the rules. Needs no_new_privs,
    /// which the caller has set already. Returns the ABI applied (0: the kernel has no
    /// landlock, and nothing is done).
    pub(crate) fn apply(&self) -> Result<i64, RulesetError> {
        let abi = super::probe::landlock_abi();
        if abi <= 0 {
            return Ok(0);
        }
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(NEWEST))?
            .handle_access(AccessNet::from_all(NEWEST))?
            .scope(Scope::from_all(NEWEST))?
            .create()?
            .no_new_privs(false);
        for (path, rights) in &self.paths {
            // A path that cannot be opened is left out (nothing under it can be reached).
            let Ok(fd) = PathFd::new(path) else {
                continue;
            };
            // A file takes only file rights.
            let rights = if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
                *rights
            } else {
                *rights & AccessFs::from_file(NEWEST)
            };
            ruleset = ruleset.add_rule(PathBeneath::new(fd, rights))?;
        }
        ruleset.restrict_self()?;
        Ok(abi)
    }
}
