//! Where a run's scratch space goes: its scratch folder (the tools' working folders, the
//! judges' folders, the view's `/etc`), the inputs its `gen` makes, and process mode's test
//! folders. A fast suite makes and removes these folders by the hundred per second, and a
//! new inode on a disk file system under such churn is slow: on ext4, the allocator looks for
//! an inode not freed in the last seconds (`find_inode_bit`, `recently_deleted`), 0.2 to 1 ms
//! a file on this project's machine, against microseconds on a tmpfs. A whole run of 1,000
//! one-line batch tests took half the time with its scratch space on a tmpfs.
//!
//! So, unless the user named a folder (`TMPDIR`), the first of `/tmp`, `$XDG_RUNTIME_DIR` and
//! `/dev/shm` that is a tmpfs this user may write and run programs from (a player's copy, a
//! process-mode player's own files), with at least [`MIN_FREE`] bytes free (a container's
//! 64 MB `/dev/shm` is not enough), else `/tmp` as before. A world-writable folder must be
//! sticky, as these are, so that nobody else can rename what the harness makes there.
//!
//! This module only reads the environment and asks the kernel about file systems; it makes
//! nothing.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Free bytes a tmpfs needs to hold a run's scratch space.
pub const MIN_FREE: u64 = 1 << 30;

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
            &probe,
        )
    })
}

/// The choice described in the module's docs, with `probe` asking about each candidate.
pub(crate) fn choose(
    tmpdir: Option<OsString>,
    runtime_dir: Option<OsString>,
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
    };
    const EXT4: Place = Place {
        tmpfs: false,
        ..TMPFS
    };

    fn pick(tmpdir: Option<&str>, runtime: Option<&str>, places: &[(&str, Place)]) -> Base {
        let probe = |dir: &Path| {
            places
                .iter()
                .find(|(p, _)| Path::new(p) == dir)
                .map(|(_, place)| *place)
        };
        choose(tmpdir.map(Into::into), runtime.map(Into::into), &probe)
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

    /// The real machine's answer is one of the candidates, and a folder that exists.
    #[test]
    fn this_machine_has_a_base() {
        let base = chosen();
        assert!(base.path.is_dir(), "{base:?}");
    }
}
