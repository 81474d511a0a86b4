//! A test's cgroup folder held open by its supervisor (as a path only): the test's files are
//! opened from the folder rather than walked to from the file system's root each time (a
//! test's v1 memory folder is seven or eight folders deep, and a test writes and reads about
//! ten of its files), and read in one go rather than sized first (a cgroup file has no size
//! to ask for).
//!
//! Touches only the folder it holds.

use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{Access, AtFlags, Mode, OFlags};

use super::io_err;

/// A cgroup folder, held open.
pub(crate) struct Held {
    path: PathBuf,
    fd: OwnedFd,
}

impl Held {
    /// Holds the folder at `path`.
    pub(super) fn open(path: &Path) -> io::Result<Held> {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd =
            rustix::fs::open(path, flags, Mode::empty()).map_err(|e| io_err(path, e.into()))?;
        Ok(Held {
            path: path.to_path_buf(),
            fd,
        })
    }

    /// Where the folder is.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The folder's file `name`, opened with `flags` (close-on-exec).
    pub(super) fn file(&self, name: &str, flags: OFlags) -> io::Result<OwnedFd> {
        rustix::fs::openat(&self.fd, name, flags | OFlags::CLOEXEC, Mode::empty())
            .map_err(|e| io_err(&self.path.join(name), e.into()))
    }

    /// Writes `text` to the file `name` in one write (as a cgroup file takes a value).
    pub(super) fn write(&self, name: &str, text: &str) -> io::Result<()> {
        let fd = self.file(name, OFlags::WRONLY)?;
        match rustix::io::write(&fd, text.as_bytes()) {
            Ok(n) if n == text.len() => Ok(()),
            Ok(_) => Err(io_err(
                &self.path.join(name),
                io::ErrorKind::WriteZero.into(),
            )),
            Err(e) => Err(io_err(&self.path.join(name), e.into())),
        }
    }

    /// The text of the file `name`; empty if it cannot be read.
    pub(super) fn read(&self, name: &str) -> String {
        self.file(name, OFlags::RDONLY)
            .and_then(|fd| super::super::sys::read_to_end(&fd))
            .unwrap_or_default()
    }

    /// Whether the folder has a file `name` (a controller's optional file).
    pub(super) fn has(&self, name: &str) -> bool {
        rustix::fs::accessat(&self.fd, name, Access::EXISTS, AtFlags::empty()).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_folder_writes_reads_and_tells_its_files_apart() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("value"), "").unwrap();
        let held = Held::open(dir.path()).unwrap();
        held.write("value", "1073741824").unwrap();
        assert_eq!(held.read("value"), "1073741824");
        // Longer than one read's buffer: read whole.
        let long = "x".repeat(10_000);
        held.write("value", &long).unwrap();
        assert_eq!(held.read("value"), long);
        assert!(held.has("value"));
        assert!(!held.has("missing"));
        assert_eq!(held.read("missing"), "");
        let err = held.write("missing", "1").unwrap_err();
        assert!(err.to_string().contains("missing"), "{err}");
    }
}
