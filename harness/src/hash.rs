//! The harness's stable hashes, in one place: FNV-1a over length-prefixed fields (the
//! 16-hex-digit hash of a player, of a variant and of a player's build in the cache) and
//! SHA-256 over a folder's files (a contest's tools, [`crate::problem::tools`]), with the
//! walk that lists a folder's files in a fixed order.
//!
//! A leaf: it imports nothing from the crate, reads files and folders only, and never
//! decides what is hashed (callers give the fields, the folders to skip and how to read a
//! file). Every hash here is stored in run folders and caches, so the bytes it feeds must
//! never change: the tests pin known values.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::Digest;

/// FNV-1a, 64 bits: a stable hash with no dependency, to tell versions of a player apart.
#[derive(Clone, Debug)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

impl Fnv {
    /// The FNV-1a offset basis.
    pub fn new() -> Fnv {
        Fnv(0xcbf29ce484222325)
    }

    /// Bytes as they are, with nothing to mark where they end.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x100000001b3);
        }
    }

    /// A length-prefixed field, so that fields cannot run into each other.
    pub fn field(&mut self, bytes: &[u8]) {
        self.feed(&(bytes.len() as u64).to_le_bytes());
        self.feed(bytes);
    }

    /// The bytes of a file, streamed; a file that cannot be read is hashed as such.
    pub fn file(&mut self, path: &Path) {
        let Ok(mut file) = std::fs::File::open(path) else {
            return self.field(b"<unreadable>");
        };
        let mut buf = vec![0; 1 << 16];
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => self.feed(&buf[..n]),
                Err(_) => return self.field(b"<unreadable>"),
            }
        }
        self.field(b"<end>");
    }

    /// The hash as 16 hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// The files under `root` at any depth, as paths relative to it, sorted, that `keep` takes
/// (given that relative path). Folders named in `skip` are not entered, at any depth;
/// symbolic links are listed, never followed into folders. A folder that cannot be read
/// lists nothing; an entry whose type cannot be read (it went while being listed) counts
/// as a file.
pub fn files_under(root: &Path, skip: &[&str], keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(rel) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let path = rel.join(&name);
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if !skip.iter().any(|s| name == *s) {
                    todo.push(path);
                }
            } else if keep(&path) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// SHA-256 over fields and folders' files, shortened to 16 hex digits.
#[derive(Clone, Default)]
pub struct TreeSha(sha2::Sha256);

impl TreeSha {
    pub fn new() -> TreeSha {
        TreeSha::default()
    }

    /// Bytes as they are (a caller's separators included).
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// Each of `files` (relative to `root`, in the order given): its path, a NUL, then a
    /// link's target, or its length (8 bytes, little-endian) and bytes as `read` gives them
    /// from the relative path, or the reason `read` refused; then a NUL.
    pub fn files(
        &mut self,
        root: &Path,
        files: &[PathBuf],
        read: &dyn Fn(&Path) -> Result<Vec<u8>, String>,
    ) {
        for rel in files {
            self.update(rel.as_os_str().as_encoded_bytes());
            self.update(&[0]);
            if let Ok(target) = std::fs::read_link(root.join(rel)) {
                self.update(target.as_os_str().as_encoded_bytes());
            } else {
                match read(rel) {
                    Ok(bytes) => {
                        self.update(&(bytes.len() as u64).to_le_bytes());
                        self.update(&bytes);
                    }
                    Err(why) => self.update(why.as_bytes()),
                }
            }
            self.update(&[0]);
        }
    }

    /// The first 8 bytes of the digest as 16 hex digits.
    pub fn hex16(self) -> String {
        hex16(&self.0.finalize())
    }
}

/// The first 8 bytes of a digest as 16 hex digits.
pub fn hex16(digest: &[u8]) -> String {
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn fnv_is_fnv_1a_64_with_length_prefixed_fields() {
        assert_eq!(Fnv::new().hex(), "cbf29ce484222325");
        // The published FNV-1a 64-bit value of "a".
        let mut h = Fnv::new();
        h.feed(b"a");
        assert_eq!(h.hex(), "af63dc4c8601ec8c");
        // A field is its length (8 bytes, little-endian), then its bytes.
        let mut field = Fnv::new();
        field.field(b"a");
        let mut by_hand = Fnv::new();
        by_hand.feed(&1u64.to_le_bytes());
        by_hand.feed(b"a");
        assert_eq!(field.hex(), by_hand.hex());
        assert_ne!(field.hex(), h.hex());
    }

    #[test]
    fn a_file_is_its_bytes_then_an_end_and_a_missing_one_is_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "f", "abc");
        let mut file = Fnv::new();
        file.file(&dir.path().join("f"));
        let mut by_hand = Fnv::new();
        by_hand.feed(b"abc");
        by_hand.field(b"<end>");
        assert_eq!(file.hex(), by_hand.hex());
        let mut missing = Fnv::new();
        missing.file(&dir.path().join("none"));
        let mut unreadable = Fnv::new();
        unreadable.field(b"<unreadable>");
        assert_eq!(missing.hex(), unreadable.hex());
    }

    #[test]
    fn files_under_lists_sorted_relative_paths_skipping_folders_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        for rel in [
            "b/x",
            "a/deep/y.py",
            "a/deep/y.pyc",
            "target/z",
            "a/target/z",
            "c",
        ] {
            write(r, rel, "");
        }
        std::os::unix::fs::symlink("b", r.join("link")).unwrap();
        let keep = |rel: &Path| rel.extension().is_none_or(|e| e != "pyc");
        let files = files_under(r, &["target"], &keep);
        let want = ["a/deep/y.py", "b/x", "c", "link"].map(PathBuf::from);
        assert_eq!(files, want);
    }

    #[test]
    fn a_tree_sha_feeds_paths_links_lengths_and_refusals() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "a", "one");
        std::os::unix::fs::symlink("a", r.join("l")).unwrap();
        let files = files_under(r, &[], &|_| true);
        let read = |rel: &Path| match rel == Path::new("a") {
            true => std::fs::read(r.join(rel)).map_err(|e| e.to_string()),
            false => Err("refused".to_string()),
        };
        let mut tree = TreeSha::new();
        tree.update(b"top\0");
        tree.files(r, &files, &read);
        let mut by_hand = sha2::Sha256::new();
        by_hand.update(b"top\0a\0");
        by_hand.update(3u64.to_le_bytes());
        by_hand.update(b"one\0l\0a\0");
        assert_eq!(tree.hex16(), hex16(&by_hand.finalize()));
        // SHA-256 of nothing, shortened.
        assert_eq!(TreeSha::new().hex16(), "e3b0c44298fc1c14");
    }
}
