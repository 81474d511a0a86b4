//! Copies the harness makes of other people's folders (a player's private copy, a contest's
//! tools in the harness's cache), and the modes they get whatever the user's umask, so that a
//! player or a tool running as another user can read them. Touches only the copies.

use std::io;
use std::path::{Path, PathBuf};

/// Copies the folder `from` to `to` (made here): files with their mode and modification
/// time (so that `make` judges the copy as it would the original), symbolic links as
/// links (never followed), folders but those named in `leave_out` at any depth. Anything
/// else (a FIFO, a socket, a device a build left) is not copied.
pub fn copy_folder(from: &Path, to: &Path, leave_out: &[&str]) -> io::Result<()> {
    std::fs::create_dir_all(to)?;
    let mut todo = vec![PathBuf::new()];
    while let Some(rel) = todo.pop() {
        for entry in std::fs::read_dir(from.join(&rel))? {
            let entry = entry?;
            let name = entry.file_name();
            let (src, dst) = (entry.path(), to.join(&rel).join(&name));
            let kind = entry.file_type()?;
            if kind.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(&src)?, &dst)?;
            } else if kind.is_dir() {
                if leave_out.iter().any(|f| name == *f) {
                    continue;
                }
                std::fs::create_dir(&dst)?;
                todo.push(rel.join(&name));
            } else if kind.is_file() {
                std::fs::copy(&src, &dst)?;
                let modified = entry.metadata()?.modified()?;
                std::fs::File::options()
                    .write(true)
                    .open(&dst)?
                    .set_modified(modified)?;
            }
        }
    }
    Ok(())
}

/// Sets the modes of a copy the harness made at `copy` in the run's private folder `stage`,
/// whatever the user's umask: the folders between them passable (0711), the copy's folders
/// 0755 and its files readable by all (executable by all where their owner may run them),
/// as a umask of 022 would have made them. A player or a build that runs as another user
/// (process mode under root, a namespace's unprivileged id) must enter and read it.
pub fn open_to_players(stage: &Path, copy: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let set = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    };
    if let Ok(between) = copy.strip_prefix(stage) {
        let mut at = stage.to_path_buf();
        for part in between.parent().into_iter().flat_map(Path::components) {
            at.push(part);
            set(&at, 0o711)?;
        }
    }
    let mut todo = vec![copy.to_path_buf()];
    while let Some(path) = todo.pop() {
        let meta = std::fs::symlink_metadata(&path)?;
        let mode = meta.permissions().mode() & 0o7777;
        if meta.is_dir() {
            set(&path, mode | 0o755)?;
            for entry in std::fs::read_dir(&path)? {
                todo.push(entry?.path());
            }
        } else if meta.is_file() {
            let run = if mode & 0o100 != 0 { 0o111 } else { 0 };
            set(&path, mode | 0o444 | run)?;
        }
    }
    Ok(())
}
