//! What a tool leaves, read safely: the harness is nobody's deputy. A contest's tool (gen,
//! vis, a tester) and a contest folder (its ready inputs) may leave a symbolic link where a
//! file should be, to a file the tool could not read itself (root's, the user's 0600 files,
//! `/proc/self/environ` of whoever follows it), or a fifo that would hang a read. Whatever
//! the harness reads of what they leave is opened here, beneath its own folder, without
//! following any link on the way (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`;
//! where the kernel has no `openat2`, one `openat` with `O_NOFOLLOW` per step), must be a
//! regular file (opened without blocking, so a fifo is refused, never waited on), may be
//! asked to have no other name (a hard link to someone else's file), and is capped in size.
//! A refusal names the file and why ([`Refused`]): it is the tool's failure, never read.
//!
//! This module only opens and reads files; it never writes, follows a link or judges.

use std::ffi::OsStr;
use std::fmt;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// What a caller accepts of a file.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// Most bytes the file may hold.
    pub cap: u64,
    /// Whether a file with other names (a hard link) is refused: what a tool writes has one
    /// name, and a hard link may be another's file that the tool could not read.
    pub one_name: bool,
}

/// Why a file was not read.
#[derive(Debug)]
pub enum Why {
    /// There is no such file.
    Missing,
    /// It, or a folder on its way, is a symbolic link.
    Link,
    /// Not a regular file (a folder, a fifo, a socket, a device).
    Special(&'static str),
    /// A file with this many names (hard links).
    OtherNames(u64),
    /// It holds more than the cap.
    TooBig {
        cap: u64,
    },
    /// The path leaves the folder (absolute, `..`, empty).
    Outside,
    Io(std::io::Error),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Missing => write!(f, "no such file"),
            Why::Link => write!(
                f,
                "a symbolic link (or a folder on its way is one): never followed, not read"
            ),
            Why::Special(kind) => write!(f, "{kind}, not a regular file: not read"),
            Why::OtherNames(n) => write!(
                f,
                "a file with {n} names (a hard link to another file): not read"
            ),
            Why::TooBig { cap } => write!(f, "more than {cap} bytes: not read"),
            Why::Outside => write!(f, "not a path inside its folder"),
            Why::Io(e) => write!(f, "{e}"),
        }
    }
}

/// A file that was not read: its path as the caller named it (relative to its folder) and
/// why.
#[derive(Debug)]
pub struct Refused {
    pub file: PathBuf,
    pub why: Why,
}

impl Refused {
    /// Whether the file is simply not there (a tool that drew no picture).
    pub fn missing(&self) -> bool {
        matches!(self.why, Why::Missing)
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.why)
    }
}

/// Opens `rel` beneath `folder` for reading as [`Rules`] says: a regular file, reached
/// without a link, within the cap (checked again by the reader: a file may grow). Returns it
/// and its size.
pub fn open(folder: &Path, rel: &Path, rules: Rules) -> Result<(File, u64), Refused> {
    let refused = |why| Refused {
        file: rel.to_path_buf(),
        why,
    };
    let fd = open_fd(folder, rel, true).map_err(refused)?;
    let size = checked(&fd, rules).map_err(refused)?;
    Ok((File::from(fd), size))
}

/// The bytes of `rel` beneath `folder` ([`open`]).
pub fn read(folder: &Path, rel: &Path, rules: Rules) -> Result<Vec<u8>, Refused> {
    let (file, size) = open(folder, rel, rules)?;
    let mut bytes = Vec::with_capacity(size as usize);
    capped(file, rules.cap, &mut bytes).map_err(|why| Refused {
        file: rel.to_path_buf(),
        why,
    })?;
    Ok(bytes)
}

/// Copies `rel` beneath `folder` ([`open`]) into `to`, a new file (never one that exists,
/// never through a link).
pub fn copy(folder: &Path, rel: &Path, rules: Rules, to: &Path) -> Result<(), Refused> {
    let (file, _) = open(folder, rel, rules)?;
    let refused = |why| Refused {
        file: rel.to_path_buf(),
        why,
    };
    let out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)
        .map_err(|e| refused(Why::Io(e)))?;
    let mut out = std::io::BufWriter::new(out);
    capped(file, rules.cap, &mut out).map_err(refused)?;
    out.flush().map_err(|e| refused(Why::Io(e)))
}

/// Copies at most `cap` bytes of `file` into `to`; more is [`Why::TooBig`].
fn capped(file: File, cap: u64, to: &mut impl Write) -> Result<(), Why> {
    let copied = std::io::copy(&mut file.take(cap.saturating_add(1)), to).map_err(Why::Io)?;
    if copied > cap {
        return Err(Why::TooBig { cap });
    }
    Ok(())
}

/// The size of the open file, once it is known to be what `rules` accept.
fn checked(fd: &OwnedFd, rules: Rules) -> Result<u64, Why> {
    let st = rustix::fs::fstat(fd).map_err(io)?;
    let kind = match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => None,
        FileType::Directory => Some("a folder"),
        FileType::Fifo => Some("a fifo"),
        FileType::Socket => Some("a socket"),
        FileType::CharacterDevice | FileType::BlockDevice => Some("a device"),
        FileType::Symlink => Some("a symbolic link"),
        FileType::Unknown => Some("an unknown kind of file"),
    };
    if let Some(kind) = kind {
        return Err(Why::Special(kind));
    }
    let names = st.st_nlink as u64;
    if rules.one_name && names > 1 {
        return Err(Why::OtherNames(names));
    }
    let size = st.st_size as u64;
    if size > rules.cap {
        return Err(Why::TooBig { cap: rules.cap });
    }
    Ok(size)
}

/// Flags of the file's own open: read only, no terminal, no wait on a fifo, no link.
fn file_flags() -> OFlags {
    OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::NOFOLLOW
}

/// Opens `rel` beneath `folder` (itself opened as named: the caller's folder), with
/// `openat2` when `try_openat2` and the kernel has it, else one step at a time.
fn open_fd(folder: &Path, rel: &Path, try_openat2: bool) -> Result<OwnedFd, Why> {
    let parts = parts(rel)?;
    let dir = rustix::fs::open(
        folder,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(io)?;
    if try_openat2 {
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(&dir, rel, file_flags(), Mode::empty(), resolve) {
            Ok(fd) => return Ok(fd),
            // No openat2 here (a kernel before 5.6, or a seccomp profile that refuses it).
            Err(Errno::NOSYS | Errno::PERM) => {}
            Err(Errno::LOOP) => return Err(Why::Link),
            Err(Errno::XDEV) => return Err(Why::Outside),
            Err(Errno::NOENT) => return Err(Why::Missing),
            Err(e) => return Err(io(e)),
        }
    }
    step_by_step(dir, &parts)
}

/// The fallback without `openat2`: each folder on the way opened with `O_NOFOLLOW` from the
/// one before, then the file.
fn step_by_step(mut dir: OwnedFd, parts: &[&OsStr]) -> Result<OwnedFd, Why> {
    let folder_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let flags = if last { file_flags() } else { folder_flags };
        dir = match rustix::fs::openat(&dir, *part, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Err(Why::Missing),
            Err(e) => {
                // O_NOFOLLOW on a link: ELOOP (or ENOTDIR for a folder on the way, on some
                // kernels); ask what is there rather than trust the code.
                let st = rustix::fs::statat(&dir, *part, rustix::fs::AtFlags::SYMLINK_NOFOLLOW);
                return Err(match st {
                    Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Symlink => Why::Link,
                    _ => io(e),
                });
            }
        };
    }
    Ok(dir)
}

/// The components of a path inside a folder: plain names only.
fn parts(rel: &Path) -> Result<Vec<&OsStr>, Why> {
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(name) => parts.push(name),
            Component::CurDir => {}
            _ => return Err(Why::Outside),
        }
    }
    if parts.is_empty() {
        return Err(Why::Outside);
    }
    Ok(parts)
}

fn io(e: Errno) -> Why {
    Why::Io(e.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    const RULES: Rules = Rules {
        cap: 1 << 20,
        one_name: true,
    };

    /// Opens `rel` both ways (openat2, and the fallback) and asserts both agree.
    fn both(folder: &Path, rel: &str, rules: Rules) -> Result<Vec<u8>, String> {
        let mut seen = Vec::new();
        for try_openat2 in [true, false] {
            let got = open_fd(folder, Path::new(rel), try_openat2)
                .and_then(|fd| {
                    checked(&fd, rules)?;
                    let mut bytes = Vec::new();
                    capped(File::from(fd), rules.cap, &mut bytes)?;
                    Ok(bytes)
                })
                .map_err(|why| {
                    Refused {
                        file: rel.into(),
                        why,
                    }
                    .to_string()
                });
            seen.push(got);
        }
        assert_eq!(seen[0], seen[1], "openat2 and the fallback differ on {rel}");
        seen.pop().unwrap()
    }

    #[test]
    fn links_special_files_and_big_files_are_refused_naming_the_file() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("work");
        std::fs::create_dir_all(folder.join("in")).unwrap();
        let outside = root.path().join("secret.txt");
        std::fs::write(&outside, "SECRET\n").unwrap();
        std::fs::write(folder.join("in/0000.txt"), "5 3\n").unwrap();
        symlink(&outside, folder.join("out.svg")).unwrap();
        symlink("/proc/self/environ", folder.join("environ.txt")).unwrap();
        symlink(root.path(), folder.join("up")).unwrap();
        std::fs::create_dir(folder.join("real")).unwrap();
        std::fs::write(folder.join("real/x.txt"), "x").unwrap();
        symlink(folder.join("real"), folder.join("linked")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            folder.join("fifo"),
            FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        std::fs::write(folder.join("big.txt"), vec![b'x'; 100]).unwrap();
        std::fs::hard_link(&outside, folder.join("hard.txt")).unwrap();

        assert_eq!(both(&folder, "in/0000.txt", RULES).unwrap(), b"5 3\n");
        let refused = |rel: &str, rules: Rules, why: &str| {
            let err = both(&folder, rel, rules).unwrap_err();
            assert!(err.starts_with(&format!("{rel}: ")), "{err}");
            assert!(err.contains(why), "{rel}: {err}");
            assert!(!err.contains("SECRET"), "{err}");
        };
        refused("out.svg", RULES, "symbolic link");
        refused("environ.txt", RULES, "symbolic link");
        // A link in a folder on the way, to a folder inside or outside.
        refused("linked/x.txt", RULES, "symbolic link");
        refused("up/secret.txt", RULES, "symbolic link");
        refused("fifo", RULES, "a fifo, not a regular file");
        refused("in", RULES, "a folder");
        let small = Rules { cap: 99, ..RULES };
        refused("big.txt", small, "more than 99 bytes");
        refused("hard.txt", RULES, "2 names");
        refused("../secret.txt", RULES, "not a path inside");
        refused("/etc/passwd", RULES, "not a path inside");
        refused("none.txt", RULES, "no such file");
        // The same file with other names allowed (a contest folder's ready input).
        let any = Rules {
            one_name: false,
            ..RULES
        };
        assert_eq!(both(&folder, "hard.txt", any).unwrap(), b"SECRET\n");
        assert_eq!(
            both(&folder, "big.txt", Rules { cap: 100, ..RULES })
                .unwrap()
                .len(),
            100
        );
    }

    #[test]
    fn copy_makes_a_new_file_and_never_writes_through_a_link() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("made.txt"), "1 2\n").unwrap();
        let to = root.path().join("kept.txt");
        copy(root.path(), Path::new("made.txt"), RULES, &to).unwrap();
        assert_eq!(std::fs::read_to_string(&to).unwrap(), "1 2\n");
        // `to` exists: never overwritten.
        assert!(copy(root.path(), Path::new("made.txt"), RULES, &to).is_err());
        let err = read(root.path(), Path::new("none"), RULES).unwrap_err();
        assert!(err.missing(), "{err}");
    }
}
