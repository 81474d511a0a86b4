//! What a contest tool's working folder shows: the tools folder as the competitor has it by
//! hand, writable anywhere (a TopCoder tester writes `test/<seed>.in` beside itself, a gen
//! `in/`, a visualizer `out.svg`), while the tools folder itself never changes and no test
//! sees what another test's tool wrote.
//!
//! Two ways, chosen per run ([`kind`]):
//!
//! - [`Kind::Overlay`] (the namespace mode of an unprivileged harness on Linux 5.11 or
//!   later): the working folder is the upper folder of an overlay whose lower folder is the
//!   tools folder, mounted in the tool's own mount namespace at the working folder's path
//!   ([`mount`]). Nothing is copied: a file the tool changes is copied up by the kernel. The
//!   harness sees, on the host, only what the tool wrote (and what it wrote there itself
//!   before: its input, the answer); a name the tool must find absent (a stale picture, gen's
//!   folder left by a hand run) is hidden by a whiteout made with the folder. Where the
//!   kernel refuses the mount (a scratch space on a file system an overlay cannot write),
//!   the working folder gets symbolic links to the tools' entries instead ([`link_tools`]:
//!   new names only, as a read-only tools folder allows).
//! - [`Kind::Copy`] (process mode, which has no mount namespace, and a root harness, whose
//!   tool runs as another user than the tools' owner): the working folder is a copy made per
//!   run of the tool ([`copy_tools`]): real folders, and every file of up to
//!   [`COPY_MOST_BYTES`] copied (a reflink where the file system has them), within
//!   [`COPY_BUDGET_BYTES`] and [`COPY_BUDGET_ENTRIES`] for the whole copy; a larger file,
//!   what is past the budget, the build folders of [`LINKED_FOLDERS`] (Cargo's `target/`,
//!   with the program in it) and for a judge gen's inputs folder (AtCoder ships 100 inputs
//!   in `in/`) are symbolic links to the originals: readable, not writable.
//!
//! This module touches only the tool's own folder (made by `ToolDir`) and reads the tools
//! folder; the mount runs in the tool's sandbox init, before its view's pivot.

use std::io;
use std::path::Path;

use super::spec::{Mode, Overlay};
use super::sys;

/// How a run's tools are shown in a tool's working folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Overlay,
    Copy,
}

/// The name, in a tool's folder, of the overlay's own work folder (beside `work/`).
pub const OVERLAY_WORK: &str = "overlay";

/// Files larger than this are linked, not copied ([`Kind::Copy`]).
pub const COPY_MOST_BYTES: u64 = 1 << 20;
/// Bytes copied at most for one working folder; the rest is linked.
pub const COPY_BUDGET_BYTES: u64 = 64 << 20;
/// Entries made at most for one working folder; the rest is linked.
pub const COPY_BUDGET_ENTRIES: usize = 4096;
/// Folders linked whole, never copied: build output and version control.
pub const LINKED_FOLDERS: [&str; 3] = ["target", ".git", "node_modules"];

/// The way the tools of a run in `mode` are shown.
pub fn kind(mode: Mode) -> Kind {
    let unprivileged = super::ids::player_ids().is_none();
    if mode == Mode::Namespaces && unprivileged && overlay_in_user_namespaces() {
        Kind::Overlay
    } else {
        Kind::Copy
    }
}

/// Whether the kernel mounts an overlay in a user namespace (Linux 5.11).
fn overlay_in_user_namespaces() -> bool {
    static ANSWER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ANSWER.get_or_init(|| {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let mut parts = release
            .trim()
            .split(|c: char| !c.is_ascii_digit())
            .map(|p| p.parse::<u32>().unwrap_or(0));
        let version = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        version >= (5, 11)
    })
}

/// What a working folder shows of the tools folder: the top-level names left out (what the
/// tool writes for the harness), the empty files the harness writes before the tool runs,
/// and the top-level folders a copy links whole instead (gen's inputs, for a judge).
#[derive(Clone, Copy, Debug, Default)]
pub struct Shown<'a> {
    pub hidden: &'a [&'a str],
    pub files: &'a [&'a str],
    pub linked: &'a [&'a str],
}

/// Fills `dir`'s working folder `work` with what the tool must see of `tools` in `kind`, as
/// `shown` says. Returns the overlay to mount, if any.
pub fn fill(
    kind: Kind,
    dir: &Path,
    work: &Path,
    tools: &Path,
    shown: Shown<'_>,
) -> io::Result<Option<Overlay>> {
    let Shown {
        hidden,
        files,
        linked,
    } = shown;
    for name in files {
        make_file(&work.join(name))?;
    }
    let hidden: Vec<&str> = hidden
        .iter()
        .copied()
        .filter(|h| !files.contains(h))
        .collect();
    match kind {
        Kind::Overlay => {
            let upper_work = dir.join(OVERLAY_WORK);
            std::fs::create_dir(&upper_work)?;
            for name in &hidden {
                hide_in_upper(work, tools, Path::new(name))?;
            }
            Ok(Some(Overlay {
                lower: tools.to_path_buf(),
                upper: work.to_path_buf(),
                work: upper_work,
            }))
        }
        Kind::Copy => {
            copy_tools(tools, work, &hidden, files, linked)?;
            Ok(None)
        }
    }
}

/// Hides the tools' entry `rel` (`in`, `vis/4.png`) in an overlay whose upper folder is
/// `work`: a whiteout at its path, under folders made in `work` with the modes of the tools'
/// own (an upper folder of the same name merges with the lower one: the tool still sees the
/// rest of `vis/`). Nothing when the tools have no such entry or `work` has one already.
fn hide_in_upper(work: &Path, tools: &Path, rel: &Path) -> io::Result<()> {
    let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    if exists(&work.join(rel)) || !exists(&tools.join(rel)) {
        return Ok(());
    }
    let mut at = std::path::PathBuf::new();
    for part in rel.parent().into_iter().flat_map(Path::iter) {
        at.push(part);
        let lower = std::fs::symlink_metadata(tools.join(&at))?;
        if !lower.is_dir() {
            // A link on the way: nothing of the tools' is shown through it to hide.
            return Ok(());
        }
        if !exists(&work.join(&at)) {
            std::fs::create_dir(work.join(&at))?;
            std::fs::set_permissions(work.join(&at), lower.permissions())?;
        }
    }
    whiteout(&work.join(rel))
}

/// An empty file the tool may read, whatever the umask (under a root harness the folder is
/// handed to the tool's id when its sandbox is set up, which may come first).
fn make_file(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(path)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o644))
}

/// An overlay's whiteout at `path`: the character device 0/0, which any user may make
/// (Linux 5.8, three versions before overlays in user namespaces).
fn whiteout(path: &Path) -> io::Result<()> {
    use rustix::fs::{FileType, Mode, CWD};
    // A path holding a NUL byte is refused as everywhere in the sandbox.
    sys::cstr(path)?;
    let dev = rustix::fs::makedev(0, 0);
    rustix::fs::mknodat(CWD, path, FileType::CharacterDevice, Mode::empty(), dev)
        .map_err(|e| sys::named(e, "mknod (an overlay's whiteout)"))
}

/// What [`copy_tools`] may still make.
struct Budget {
    bytes: u64,
    entries: usize,
}

/// Copies `tools` into `work` ([`Kind::Copy`]), leaving out the top-level names in `hidden`
/// and `files` (made by the harness), linking those in `linked`.
pub fn copy_tools(
    tools: &Path,
    work: &Path,
    hidden: &[&str],
    files: &[&str],
    linked: &[&str],
) -> io::Result<()> {
    let mut budget = Budget {
        bytes: COPY_BUDGET_BYTES,
        entries: COPY_BUDGET_ENTRIES,
    };
    let left_out: Vec<&Path> = hidden.iter().chain(files).map(Path::new).collect();
    for entry in std::fs::read_dir(tools)?.flatten() {
        let name = entry.file_name();
        if left_out.iter().any(|n| *n == Path::new(&name)) {
            continue;
        }
        if linked.iter().any(|l| Path::new(l) == Path::new(&name)) {
            std::os::unix::fs::symlink(entry.path(), work.join(&name))?;
            continue;
        }
        let inner = within(&left_out, &name);
        copy_entry(
            &entry.path(),
            &work.join(&name),
            (true, &inner),
            &mut budget,
        )?;
    }
    Ok(())
}

/// The paths of `left_out` inside its entry `name`, relative to it (`vis/4.png` in `vis`:
/// `4.png`).
fn within<'a>(left_out: &[&'a Path], name: &std::ffi::OsStr) -> Vec<&'a Path> {
    left_out
        .iter()
        .filter_map(|p| p.strip_prefix(name).ok())
        .filter(|p| !p.as_os_str().is_empty())
        .collect()
}

/// Copies one entry of the tools folder (a folder recursively, but the paths in it that
/// `at.1` leaves out), or links it; `at.0`: the entry is at the top of the tools folder.
fn copy_entry(from: &Path, to: &Path, at: (bool, &[&Path]), budget: &mut Budget) -> io::Result<()> {
    let (top, left_out) = at;
    let meta = std::fs::symlink_metadata(from)?;
    let link = || std::os::unix::fs::symlink(from, to);
    if budget.entries == 0 {
        return link();
    }
    budget.entries -= 1;
    let kind = meta.file_type();
    if kind.is_symlink() {
        // Relative links keep pointing into the copy; absolute ones where they pointed.
        return std::os::unix::fs::symlink(std::fs::read_link(from)?, to);
    }
    if kind.is_dir() {
        let name = from.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if top && LINKED_FOLDERS.contains(&name) {
            return link();
        }
        std::fs::create_dir(to)?;
        for entry in std::fs::read_dir(from)?.flatten() {
            let name = entry.file_name();
            if left_out.iter().any(|n| *n == Path::new(&name)) {
                continue;
            }
            let inner = within(left_out, &name);
            copy_entry(&entry.path(), &to.join(&name), (false, &inner), budget)?;
        }
        // Its mode last: a folder the competitor made read-only is read-only by hand too.
        return std::fs::set_permissions(to, meta.permissions());
    }
    if !kind.is_file() {
        // A pipe or a socket left by a hand run is nothing a tool reads.
        return Ok(());
    }
    if meta.len() > COPY_MOST_BYTES || meta.len() > budget.bytes {
        return link();
    }
    budget.bytes -= meta.len();
    // std's copy clones (a reflink) where the file system can, and keeps the mode.
    std::fs::copy(from, to).map(drop)
}

/// Makes in `folder` a symbolic link to each entry of `tools` but those named in `hidden`
/// (or already there); returns their names. The working folder of a tool whose overlay could
/// not be mounted, and the judge folders' shared links.
pub fn link_tools(
    folder: &Path,
    tools: &Path,
    hidden: &[&str],
) -> io::Result<Vec<std::ffi::OsString>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(tools)?.flatten() {
        let name = entry.file_name();
        if hidden.iter().any(|o| Path::new(o).starts_with(&name)) {
            continue;
        }
        let at = folder.join(&name);
        if std::fs::symlink_metadata(&at).is_ok() {
            continue;
        }
        std::os::unix::fs::symlink(entry.path(), at)?;
        names.push(name);
    }
    Ok(names)
}

/// Mounts `overlay` at `target` (the working folder's path in the view being built), in the
/// tool's sandbox init before the pivot (host paths still resolve). Where the kernel refuses
/// it, the working folder gets links to the tools' entries instead (the whiteouts made for
/// the hidden names are removed first: they would show as device files).
pub(crate) fn mount(overlay: &Overlay, target: &Path) -> io::Result<()> {
    let options = format!(
        "lowerdir={},upperdir={},workdir={}",
        escape(&overlay.lower),
        escape(&overlay.upper),
        escape(&overlay.work)
    );
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    let source = Some(Path::new("overlay"));
    // `userxattr` (the overlay's own marks as user.* attributes) is what a user namespace
    // allows; without it for a kernel that does not know the option.
    let mounted = sys::mount(
        source,
        target,
        Some("overlay"),
        flags,
        Some(&format!("{options},userxattr")),
    )
    .or_else(|_| sys::mount(source, target, Some("overlay"), flags, Some(&options)));
    if mounted.is_ok() {
        return Ok(());
    }
    // Without the overlay a whiteout (or a folder made to hold one) hides its whole
    // top-level entry, as the links allow.
    let mut hidden = Vec::new();
    for entry in std::fs::read_dir(target)?.flatten() {
        if only_whiteouts(&entry.path())? {
            hidden.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    let hidden: Vec<&str> = hidden.iter().map(String::as_str).collect();
    link_tools(target, &overlay.lower, &hidden).map(drop)
}

/// Removes `path` when it is a whiteout or a folder holding only folders and whiteouts (what
/// [`hide_in_upper`] makes); says whether it did.
fn only_whiteouts(path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::symlink_metadata(path)?.file_type();
    if kind.is_char_device() {
        std::fs::remove_file(path)?;
        return Ok(true);
    }
    if !kind.is_dir() {
        return Ok(false);
    }
    let mut all = true;
    for entry in std::fs::read_dir(path)?.flatten() {
        all &= only_whiteouts(&entry.path())?;
    }
    if all {
        std::fs::remove_dir(path)?;
    }
    Ok(all)
}

/// A path in an overlay's options: its separators (`,` between options, `:` between lower
/// folders) and backslashes escaped.
fn escape(path: &Path) -> String {
    let mut out = String::new();
    for c in path.display().to_string().chars() {
        if matches!(c, '\\' | ',' | ':') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_writable_and_links_what_is_large_or_built() {
        let tools = tempfile::tempdir().unwrap();
        let t = tools.path();
        std::fs::create_dir_all(t.join("test")).unwrap();
        std::fs::write(t.join("test/1.in"), "by hand\n").unwrap();
        std::fs::create_dir_all(t.join("target/release")).unwrap();
        std::fs::write(t.join("target/release/vis"), "program").unwrap();
        std::fs::write(t.join("big.bin"), vec![0u8; COPY_MOST_BYTES as usize + 1]).unwrap();
        std::fs::write(t.join("out.svg"), "stale").unwrap();
        std::os::unix::fs::symlink("test/1.in", t.join("last.in")).unwrap();
        let work = tempfile::tempdir().unwrap();
        let w = work.path();
        std::fs::create_dir(t.join("in")).unwrap();
        std::fs::write(t.join("in/0000.txt"), "shipped").unwrap();
        let shown = Shown {
            hidden: &["out.svg", "input.txt"],
            files: &["input.txt"],
            linked: &["in"],
        };
        fill(Kind::Copy, w, w, t, shown).unwrap();
        // A copy: writing it leaves the original as it was.
        std::fs::write(w.join("test/1.in"), "the tool's\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(t.join("test/1.in")).unwrap(),
            "by hand\n"
        );
        std::fs::write(w.join("test/2.in"), "new\n").unwrap();
        assert!(!t.join("test/2.in").exists());
        // Linked: the build folder, gen's inputs and a large file; a relative link stays so.
        assert_eq!(std::fs::read_link(w.join("in")).unwrap(), t.join("in"));
        assert_eq!(
            std::fs::read_link(w.join("target")).unwrap(),
            t.join("target")
        );
        assert_eq!(
            std::fs::read_link(w.join("big.bin")).unwrap(),
            t.join("big.bin")
        );
        assert_eq!(
            std::fs::read_link(w.join("last.in")).unwrap(),
            Path::new("test/1.in")
        );
        // Hidden and made.
        assert!(std::fs::symlink_metadata(w.join("out.svg")).is_err());
        assert_eq!(std::fs::read(w.join("input.txt")).unwrap(), b"");
    }

    #[test]
    fn a_hidden_path_in_a_folder_leaves_out_that_file_only() {
        let tools = tempfile::tempdir().unwrap();
        let t = tools.path();
        std::fs::create_dir_all(t.join("vis")).unwrap();
        std::fs::write(t.join("vis/4.png"), "left by hand").unwrap();
        std::fs::write(t.join("vis/palette.txt"), "the tool's own").unwrap();
        let shown = Shown {
            hidden: &["vis/4.png"],
            ..Shown::default()
        };
        // A copy leaves out the file, not its folder.
        let work = tempfile::tempdir().unwrap();
        let w = work.path();
        fill(Kind::Copy, w, w, t, shown).unwrap();
        assert!(std::fs::symlink_metadata(w.join("vis/4.png")).is_err());
        assert_eq!(
            std::fs::read_to_string(w.join("vis/palette.txt")).unwrap(),
            "the tool's own"
        );
        // An overlay's upper folder gets the folder and a whiteout of the file only; without
        // the mount, the whole top-level entry is hidden (links cannot hide less).
        let dir = tempfile::tempdir().unwrap();
        let upper = dir.path().join("work");
        std::fs::create_dir(&upper).unwrap();
        fill(Kind::Overlay, dir.path(), &upper, t, shown).unwrap();
        use std::os::unix::fs::FileTypeExt;
        let made = std::fs::symlink_metadata(upper.join("vis/4.png")).unwrap();
        assert!(made.file_type().is_char_device());
        assert!(std::fs::symlink_metadata(upper.join("vis/palette.txt")).is_err());
        assert!(only_whiteouts(&upper.join("vis")).unwrap());
        assert!(std::fs::symlink_metadata(upper.join("vis")).is_err());
    }

    #[test]
    fn option_separators_in_a_path_are_escaped() {
        assert_eq!(escape(Path::new("/a,b:c\\d")), "/a\\,b\\:c\\\\d");
    }
}
