//! A contest tool's folder held to a size without a cgroup ([`FolderCap`]).
//!
//! With a cgroup, a tool's files in the run's scratch space (a memory file system, normally
//! `/dev/shm`) are memory charged to its group, and its memory limit holds them. Without one,
//! each file is capped (`RLIMIT_FSIZE`, set by the init) but not their number: the harness
//! then adds up the space the tool's folder takes (allocated blocks, every file under it, no
//! link followed) every [`INTERVAL`] while the tool runs, and stops the tool once it is over
//! the cap. What a tool writes between two looks can pass the cap by that much (a memory
//! file system takes about a gigabyte a second). The folder stays the host's, so what the tool
//! leaves (pictures, inputs, a tester's output) is read from it as always.
//!
//! Reads the folder's metadata only; never writes, signals or waits.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often a capped folder is measured while its tool runs.
pub(crate) const INTERVAL: Duration = Duration::from_millis(50);

/// Most entries one measure walks: a tool that makes more files than this in its folder is
/// over any sensible cap (each takes an inode and a block of memory) and is stopped.
const MOST_ENTRIES: u64 = 1_000_000;

/// A folder, its cap in bytes and when to measure it next.
#[derive(Debug)]
pub(crate) struct FolderCap {
    dir: PathBuf,
    pub cap: u64,
    next: Instant,
}

impl FolderCap {
    pub fn new(dir: &Path, cap: u64) -> FolderCap {
        FolderCap {
            dir: dir.to_path_buf(),
            cap,
            next: Instant::now() + INTERVAL,
        }
    }

    /// When the folder is next to be measured: a wait must end by then.
    pub fn due(&self) -> Instant {
        self.next
    }

    /// Measures the folder if it is time: whether it is over the cap.
    pub fn over(&mut self) -> bool {
        let now = Instant::now();
        if now < self.next {
            return false;
        }
        self.next = now + INTERVAL;
        self.measure() > self.cap
    }

    /// The space the folder takes now (bytes; past the cap, the walk stops).
    pub fn measure(&self) -> u64 {
        let mut walk = Walk {
            bytes: 0,
            entries: 0,
            stop_above: self.cap,
        };
        walk.add(&self.dir);
        walk.bytes
    }
}

struct Walk {
    bytes: u64,
    entries: u64,
    stop_above: u64,
}

impl Walk {
    /// Adds the space of `dir`'s entries, folders within included (never through a link).
    fn add(&mut self, dir: &Path) {
        use std::os::unix::fs::MetadataExt;
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            if self.bytes > self.stop_above {
                return;
            }
            self.entries += 1;
            if self.entries > MOST_ENTRIES {
                self.bytes = u64::MAX;
                return;
            }
            // Not followed: a link is its own small entry.
            let Ok(meta) = entry.metadata() else { continue };
            self.bytes = self.bytes.saturating_add(meta.blocks() * 512);
            if meta.is_dir() {
                self.add(&entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_measured_by_the_space_its_files_take_in_every_subfolder() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("one"), vec![1u8; 3 << 20]).unwrap();
        std::fs::write(dir.path().join("two"), vec![2u8; 2 << 20]).unwrap();
        // A sparse file takes no space for its length.
        let sparse = std::fs::File::create(dir.path().join("sparse")).unwrap();
        sparse.set_len(1 << 30).unwrap();
        // A link to a big folder elsewhere is not followed.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("big"), vec![3u8; 8 << 20]).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let cap = FolderCap::new(dir.path(), 6 << 20);
        let bytes = cap.measure();
        assert!(
            (5 << 20..6 << 20).contains(&bytes),
            "5 MB of files and a few folders: {bytes} bytes"
        );
        let mut small = FolderCap::new(dir.path(), 4 << 20);
        assert!(!small.over(), "not measured before its first interval");
        std::thread::sleep(INTERVAL);
        assert!(small.over(), "5 MB over a 4 MB cap");
    }
}
