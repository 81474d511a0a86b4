//! Where a run's scratch space goes: its scratch folder (the tools' working folders, the
//! judges' folders, the view's `/etc`) and the inputs its `gen` makes; never a player's test
//! folder (process mode's stay in the system's temporary folder: on a tmpfs, a player without
//! a cgroup could hold memory with files). A fast suite makes and removes these folders by the
//! hundred per second, and a new inode on a disk file system under such churn is slow: on
//! ext4, the allocator looks for an inode not freed in the last seconds (`find_inode_bit`,
//! `recently_deleted`), 0.2 to 1 ms a file on this project's machine, against microseconds on
//! a tmpfs. A whole run of 1,000 one-line batch tests took up to half the time with its
//! scratch space on a tmpfs.
//!
//! So, unless the user named a folder (`TMPDIR`), the first of `/tmp`, `$XDG_RUNTIME_DIR` and
//! `/dev/shm` that is a tmpfs this user may write and run programs from (a tool's own files),
//! that a root harness's other ids may pass, with at least [`MIN_FREE`] bytes free (a
//! container's 64 MB `/dev/shm` is not enough), else `/tmp` as before. A world-writable folder
//! must be sticky, as these are, so that nobody else can rename what the harness makes there.
//!
//! A run's folders there (and its private folder of players' copies, in the system's temporary
//! folder) are locked ([`Locked`]: a `.lock` file in each, held with `flock` for the run's
//! life), so that the next run can tell the folders of a run that was killed
//! (`SIGKILL`, out of memory) from those of a run still going, and removes them
//! ([`remove_stale`]): on a tmpfs they would hold memory until the machine restarts.
//!
//! This module reads the environment, asks the kernel about file systems, and makes and removes
//! only the harness's own folders in the chosen one.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// Free bytes a tmpfs needs to hold a run's scratch space.
pub const MIN_FREE: u64 = 1 << 30;

/// The lock file in each of a run's folders ([`Locked`]).
const LOCK: &str = ".lock";

/// A lock file younger than this is never taken for a dead run's: between the making of a
/// folder's lock file and its `flock` there is a moment when nobody holds it.
const STALE_AFTER: Duration = Duration::from_secs(60);

/// The prefixes of a run's locked folders ([`locked_folder`]).
pub const RUN_PREFIX: &str = "harness-run-";
pub const INPUTS_PREFIX: &str = "harness-inputs-";

/// A folder of the run's (in the scratch base; the players' copies in the system's temporary
/// folder), removed when dropped; its `.lock` is held with `flock` until then, by this
/// process only (the descriptor is close-on-exec).
#[derive(Debug)]
pub struct Locked {
    // Declared first, so dropped first: the folder is gone before its lock is let go.
    dir: tempfile::TempDir,
    _lock: std::fs::File,
}

impl Locked {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Makes a locked folder named `prefix` and a random tail in `parent`, with `mode`.
pub fn locked_folder(parent: &Path, prefix: &str, mode: u32) -> std::io::Result<Locked> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(mode))
        .tempdir_in(parent)?;
    // Made under the user's umask: `mode` whatever it is (a 077 would keep players out).
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode))?;
    let mut lock = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.path().join(LOCK))?;
    lock_exclusive(&lock)?;
    std::io::Write::write_all(&mut lock, lock_text().as_bytes())?;
    Ok(Locked { dir, _lock: lock })
}

/// `flock(LOCK_EX)` on `file`, waiting while another open file holds it.
fn lock_exclusive(file: &std::fs::File) -> std::io::Result<()> {
    loop {
        match file.lock() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            done => return done,
        }
    }
}

/// Removes the folders that runs killed before their end left in `base`: this user's folders
/// named like a run's ([`RUN_PREFIX`], [`INPUTS_PREFIX`]) whose lock file is older than
/// [`STALE_AFTER`] and held by nobody. Returns how many were removed. Never follows a symbolic
/// link; a folder without a lock file (another program's, or an older harness's) is left.
pub fn remove_stale(base: &Path) -> usize {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let me = rustix::process::geteuid().as_raw();
    let Ok(entries) = std::fs::read_dir(base) else {
        return 0;
    };
    let ours = lock_text();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with(RUN_PREFIX) && !name.starts_with(INPUTS_PREFIX) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != me {
            continue;
        }
        // One open of the lock file (never through a link) for its age, its text and its lock.
        let Ok(mut lock) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(crate::os::NO_FOLLOW)
            .open(path.join(LOCK))
        else {
            continue;
        };
        let old = lock.metadata().is_ok_and(|m| {
            m.is_file()
                && m.modified()
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age >= STALE_AFTER)
        });
        if !old {
            continue;
        }
        // Only this machine's runs: on a shared file system whose locks are not shared
        // (NFS mounted `nolock`), another machine's live run holds no lock seen here.
        let mut text = String::new();
        if std::io::Read::read_to_string(&mut lock, &mut text).is_err() || text != ours {
            continue;
        }
        // Held (a run still going): EWOULDBLOCK.
        if lock.try_lock().is_err() {
            continue;
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// What a lock file says: the machine it was made on (its host name), so that only this
/// machine's runs are ever taken for dead ones.
fn lock_text() -> String {
    // The node name of uname, which is what gethostname returns.
    let uname = rustix::system::uname();
    let host = uname.nodename().to_string_lossy();
    format!("harness run on host {host}\n")
}

/// What the kernel says of a candidate folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub tmpfs: bool,
    /// Bytes an unprivileged user may still write there.
    pub free: u64,
    /// Not mounted `noexec`.
    pub exec: bool,
    /// This user may make entries in it.
    pub writable: bool,
    /// Others may write it too, and it is not sticky.
    pub open_to_others: bool,
    /// Others may pass it (`o+x`): a root harness's players and tools run as another id.
    pub passable: bool,
}

/// The chosen folder and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    pub path: PathBuf,
    pub why: String,
}

/// The folder a run's scratch space goes in, chosen once per process.
pub fn base() -> &'static Path {
    &chosen().path
}

/// [`base`] with the reason for it (`harness doctor`).
pub fn chosen() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(|| {
        choose(
            std::env::var_os("TMPDIR"),
            std::env::var_os("XDG_RUNTIME_DIR"),
            rustix::process::geteuid().is_root(),
            &probe,
        )
    })
}

/// The choice described in the module's docs, with `probe` asking about each candidate; for a
/// root harness (`root`), whose players and tools run as other ids, only a folder others may
/// pass (not `/run/user/0`, mode 0700).
pub(crate) fn choose(
    tmpdir: Option<OsString>,
    runtime_dir: Option<OsString>,
    root: bool,
    probe: &dyn Fn(&Path) -> Option<Place>,
) -> Base {
    if let Some(dir) = tmpdir.filter(|d| !d.is_empty()) {
        return Base {
            path: PathBuf::from(dir),
            why: "TMPDIR".to_string(),
        };
    }
    let mut candidates = vec![PathBuf::from("/tmp")];
    candidates.extend(
        runtime_dir
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .filter(|d| d.is_absolute()),
    );
    candidates.push(PathBuf::from("/dev/shm"));
    let mut passed_over = Vec::new();
    for dir in candidates {
        match probe(&dir) {
            Some(p) if root && !p.passable => {
                passed_over.push(format!("{}: closed to other ids", dir.display()))
            }
            Some(p) if p.tmpfs && p.writable && p.exec && !p.open_to_others => {
                if p.free >= MIN_FREE {
                    return Base {
                        why: format!("a tmpfs, {} free", gib(p.free)),
                        path: dir,
                    };
                }
                passed_over.push(format!("{}: {} free", dir.display(), gib(p.free)));
            }
            Some(p) if !p.tmpfs => passed_over.push(format!("{}: not a tmpfs", dir.display())),
            Some(p) if !p.exec => passed_over.push(format!("{}: noexec", dir.display())),
            Some(_) => passed_over.push(format!("{}: not writable here", dir.display())),
            None => {}
        }
    }
    Base {
        path: PathBuf::from("/tmp"),
        why: format!(
            "no tmpfs with {} free that this user may write ({})",
            gib(MIN_FREE),
            passed_over.join("; ")
        ),
    }
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// Asks the kernel about `dir`: `None` when it is not there.
fn probe(dir: &Path) -> Option<Place> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(dir).ok().filter(|m| m.is_dir())?;
    let (fs_type, free) = super::sys::file_system(dir).ok()?;
    let flags = super::sys::mount_flags(dir).ok()?;
    let mode = meta.permissions().mode();
    Some(Place {
        tmpfs: fs_type == libc::TMPFS_MAGIC as u64,
        free,
        exec: flags & libc::MS_NOEXEC == 0,
        writable: super::sys::may_write(dir),
        open_to_others: mode & 0o002 != 0 && mode & 0o1000 == 0,
        passable: mode & 0o001 != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TMPFS: Place = Place {
        tmpfs: true,
        free: 8 << 30,
        exec: true,
        writable: true,
        open_to_others: false,
        passable: true,
    };
    const EXT4: Place = Place {
        tmpfs: false,
        ..TMPFS
    };

    fn pick(tmpdir: Option<&str>, runtime: Option<&str>, places: &[(&str, Place)]) -> Base {
        pick_as(false, tmpdir, runtime, places)
    }

    fn pick_as(
        root: bool,
        tmpdir: Option<&str>,
        runtime: Option<&str>,
        places: &[(&str, Place)],
    ) -> Base {
        let probe = |dir: &Path| {
            places
                .iter()
                .find(|(p, _)| Path::new(p) == dir)
                .map(|(_, place)| *place)
        };
        choose(
            tmpdir.map(Into::into),
            runtime.map(Into::into),
            root,
            &probe,
        )
    }

    #[test]
    fn a_folder_the_user_names_is_taken_as_it_is() {
        let base = pick(Some("/scratch/me"), None, &[("/dev/shm", TMPFS)]);
        assert_eq!(base.path, Path::new("/scratch/me"));
        // An empty TMPDIR names nothing.
        let base = pick(Some(""), None, &[("/tmp", EXT4), ("/dev/shm", TMPFS)]);
        assert_eq!(base.path, Path::new("/dev/shm"));
    }

    #[test]
    fn a_tmpfs_tmp_comes_first_then_the_runtime_folder_then_dev_shm() {
        let all = [
            ("/tmp", TMPFS),
            ("/run/user/1000", TMPFS),
            ("/dev/shm", TMPFS),
        ];
        assert_eq!(
            pick(None, Some("/run/user/1000"), &all).path,
            Path::new("/tmp")
        );
        let ext4_tmp = [all[1], all[2], ("/tmp", EXT4)];
        assert_eq!(
            pick(None, Some("/run/user/1000"), &ext4_tmp).path,
            Path::new("/run/user/1000")
        );
        assert_eq!(pick(None, None, &ext4_tmp).path, Path::new("/dev/shm"));
        // A root harness's players run as another id: not in root's own runtime folder.
        let closed = [
            ("/tmp", EXT4),
            (
                "/run/user/0",
                Place {
                    passable: false,
                    ..TMPFS
                },
            ),
            ("/dev/shm", TMPFS),
        ];
        assert_eq!(
            pick_as(true, None, Some("/run/user/0"), &closed).path,
            Path::new("/dev/shm")
        );
        assert_eq!(
            pick_as(false, None, Some("/run/user/0"), &closed).path,
            Path::new("/run/user/0")
        );
        // A relative runtime folder is no place.
        assert_eq!(
            pick(None, Some("run"), &ext4_tmp).path,
            Path::new("/dev/shm")
        );
    }

    #[test]
    fn a_tmpfs_too_small_noexec_unwritable_or_open_to_others_is_passed_over() {
        for bad in [
            Place {
                free: 64 << 20,
                ..TMPFS
            },
            Place {
                exec: false,
                ..TMPFS
            },
            Place {
                writable: false,
                ..TMPFS
            },
            Place {
                open_to_others: true,
                ..TMPFS
            },
        ] {
            let base = pick(None, None, &[("/tmp", EXT4), ("/dev/shm", bad)]);
            assert_eq!(base.path, Path::new("/tmp"), "{bad:?}");
            assert!(base.why.contains("/dev/shm"), "{}", base.why);
        }
        // Nothing but /tmp, not a tmpfs: /tmp, as it always was.
        assert_eq!(pick(None, None, &[("/tmp", EXT4)]).path, Path::new("/tmp"));
    }

    /// Sets a file's modification time `ago` in the past.
    fn age(path: &Path, ago: Duration) {
        let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        file.set_modified(std::time::SystemTime::now() - ago)
            .unwrap();
    }

    #[test]
    fn only_the_folders_of_dead_runs_are_removed() {
        let base = tempfile::tempdir().unwrap();
        let old = Duration::from_secs(3600);
        // A dead run's folders: its lock file old and held by nobody.
        let dead = base.path().join(format!("{RUN_PREFIX}dead"));
        std::fs::create_dir_all(dead.join("tool-1/work")).unwrap();
        std::fs::write(dead.join("tool-1/work/input.txt"), "1 2 3").unwrap();
        std::fs::write(dead.join(LOCK), lock_text()).unwrap();
        age(&dead.join(LOCK), old);
        let dead_inputs = base.path().join(format!("{INPUTS_PREFIX}dead"));
        std::fs::create_dir(&dead_inputs).unwrap();
        std::fs::write(dead_inputs.join(LOCK), lock_text()).unwrap();
        age(&dead_inputs.join(LOCK), old);
        // A live run's folder, however old its lock file.
        let live = locked_folder(base.path(), RUN_PREFIX, 0o711).unwrap();
        age(&live.path().join(LOCK), old);
        // A lock file just made and not yet held.
        let young = base.path().join(format!("{RUN_PREFIX}young"));
        std::fs::create_dir(&young).unwrap();
        std::fs::write(young.join(LOCK), lock_text()).unwrap();
        // Another machine's run, on a shared file system whose locks are not shared.
        let elsewhere = base.path().join(format!("{RUN_PREFIX}elsewhere"));
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::write(elsewhere.join(LOCK), "harness run on host another-node\n").unwrap();
        age(&elsewhere.join(LOCK), old);
        // A folder without a lock file (an older harness's), another program's folder, and a
        // link to a dead run's folder.
        let unlocked = base.path().join(format!("{RUN_PREFIX}older"));
        std::fs::create_dir(&unlocked).unwrap();
        let other = base.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join(LOCK), lock_text()).unwrap();
        age(&other.join(LOCK), old);
        let target = tempfile::tempdir().unwrap();
        let behind = target.path().join("behind");
        std::fs::create_dir(&behind).unwrap();
        std::fs::write(behind.join(LOCK), lock_text()).unwrap();
        age(&behind.join(LOCK), old);
        let link = base.path().join(format!("{RUN_PREFIX}link"));
        std::os::unix::fs::symlink(&behind, &link).unwrap();

        assert_eq!(remove_stale(base.path()), 2);
        assert!(!dead.exists() && !dead_inputs.exists());
        for kept in [
            live.path(),
            &young,
            &elsewhere,
            &unlocked,
            &other,
            &link,
            &behind,
        ] {
            assert!(kept.exists(), "{} was removed", kept.display());
        }
        // Once its run has ended (the folder dropped), nothing of it is left to remove.
        let path = live.path().to_path_buf();
        drop(live);
        assert!(!path.exists());
        assert_eq!(remove_stale(base.path()), 0);
    }

    /// The real machine's answer is one of the candidates, and a folder that exists.
    #[test]
    fn this_machine_has_a_base() {
        let base = chosen();
        assert!(base.path.is_dir(), "{base:?}");
    }
}
