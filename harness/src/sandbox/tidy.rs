//! Removing a folder a contained program had, whatever modes it left in it: a player or a
//! tool of the harness's own user (process mode as an ordinary user) may `chmod 000` a folder
//! of its own or one it found, which `remove_dir_all` then cannot list. The owner's rights on
//! every folder in it are given back first, never through a symbolic link (a link a program
//! left must not lead the harness to change the mode of anything outside).
//!
//! Touches only the folder it is given and what is under it.

use std::os::fd::AsRawFd;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Removes `path` and everything under it; a folder whose mode was changed is made the
/// owner's again (`rwx`) first. Best effort: what cannot be removed stays.
pub fn remove_all(path: &Path) {
    match std::fs::remove_dir_all(path) {
        Ok(()) => return,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(_) => {}
    }
    reopen(path);
    let _ = std::fs::remove_dir_all(path);
}

/// Gives the owner `rwx` on the folder `path` and every folder under it; symbolic links and
/// other files are left as they are.
fn reopen(path: &Path) {
    // O_PATH with O_NOFOLLOW and O_DIRECTORY opens a folder itself, never what a link
    // points to, and needs no right on it; its /proc/self/fd entry names that very folder.
    let Ok(dir) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_NOFOLLOW | libc::O_DIRECTORY)
        .open(path)
    else {
        return;
    };
    let handle = format!("/proc/self/fd/{}", dir.as_raw_fd());
    let Ok(meta) = std::fs::metadata(&handle) else {
        return;
    };
    if meta.permissions().mode() & 0o700 != 0o700 {
        let mode = meta.permissions().mode() | 0o700;
        let _ = std::fs::set_permissions(&handle, std::fs::Permissions::from_mode(mode));
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            reopen(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_left_mode_000_are_removed_and_a_link_out_is_not_followed() {
        let outside = tempfile::tempdir().expect("a folder");
        let kept = outside.path().join("kept");
        std::fs::create_dir(&kept).expect("mkdir");
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o500)).expect("chmod");
        let dir = tempfile::tempdir().expect("a folder");
        let gone = dir.path().join("a/b");
        std::fs::create_dir_all(&gone).expect("mkdir");
        std::fs::write(gone.join("file"), "x").expect("write");
        std::os::unix::fs::symlink(&kept, dir.path().join("a/link")).expect("symlink");
        for folder in [gone.as_path(), &dir.path().join("a")] {
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o000))
                .expect("chmod");
        }
        let root = dir.path().to_path_buf();
        // As root `remove_dir_all` needs none of this: the folders are given back by hand.
        reopen(&root);
        for folder in [gone.as_path(), &dir.path().join("a")] {
            let mode = std::fs::metadata(folder)
                .expect("a folder")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700, "{}", folder.display());
        }
        for folder in [gone.as_path(), &dir.path().join("a")] {
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o000))
                .expect("chmod");
        }
        remove_all(&root);
        assert!(!root.exists(), "left {}", root.display());
        let mode = std::fs::metadata(&kept).expect("kept").permissions().mode();
        assert_eq!(mode & 0o777, 0o500, "the link's target was changed");
    }
}
