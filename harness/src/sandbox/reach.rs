//! What a player of a root harness can reach on the host: it runs as [`super::ids::PLAYER_UID`]
//! (process mode), never as the user who started the harness, so a program or a folder under
//! `/root` (a pyenv shim, a player kept in a 0700 folder) is out of its reach although the
//! harness itself sees it. Judged from the modes and owners of every folder on the way (the
//! harness cannot ask the kernel as another user without becoming it).
//!
//! Reads file metadata only.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Read, write, execute (search, for a folder): the bits of a mode for others.
const READ: u32 = 0o4;
const EXEC: u32 = 0o1;

/// Whether `ids` (uid, gid) have all of `want` ([`READ`], [`EXEC`], as others' bits) on the
/// file of `meta`.
fn allowed(meta: &std::fs::Metadata, (uid, gid): (u32, u32), want: u32) -> bool {
    let mode = meta.mode();
    let bits = if meta.uid() == uid {
        mode >> 6
    } else if meta.gid() == gid {
        mode >> 3
    } else {
        mode
    };
    bits & want == want
}

/// Whether `ids` may pass every folder above `path` (as given, and where its links lead)
/// and have `want` on `path` itself.
fn reaches(path: &Path, ids: (u32, u32), want: u32) -> bool {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    [path, real.as_path()].iter().all(|p| {
        let passable = p
            .ancestors()
            .skip(1)
            .all(|dir| std::fs::metadata(dir).is_ok_and(|m| allowed(&m, ids, EXEC)));
        passable && std::fs::metadata(p).is_ok_and(|m| allowed(&m, ids, want))
    })
}

/// Whether `ids` may run the program `path` (a script must be readable too).
pub fn may_run(path: &Path, ids: (u32, u32)) -> bool {
    reaches(path, ids, EXEC) && reaches(path, ids, READ)
}

/// Whether `ids` may enter the folder `dir` and read every file and folder under it.
pub fn may_read_tree(dir: &Path, ids: (u32, u32)) -> bool {
    if !reaches(dir, ids, READ | EXEC) {
        return false;
    }
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            return false;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            if meta.is_dir() {
                if !allowed(&meta, ids, READ | EXEC) {
                    return false;
                }
                todo.push(entry.path());
            } else if !allowed(&meta, ids, READ) {
                return false;
            }
        }
    }
    true
}

/// The program `name` as `ids` would find it on PATH: the first entry holding a file of
/// that name they may run.
pub fn on_path_for(name: &std::ffi::OsStr, ids: (u32, u32)) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file() && may_run(p, ids))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    const OTHER: (u32, u32) = (super::super::ids::PLAYER_UID, super::super::ids::PLAYER_GID);

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_closed_folder_on_the_way_keeps_another_user_out() {
        let root = tempfile::tempdir().unwrap();
        chmod(root.path(), 0o755);
        let dir = root.path().join("closed");
        std::fs::create_dir(&dir).unwrap();
        let program = dir.join("run");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        chmod(&program, 0o755);
        chmod(&dir, 0o755);
        assert!(may_run(&program, OTHER));
        assert!(may_read_tree(&dir, OTHER));
        chmod(&dir, 0o700);
        assert!(!may_run(&program, OTHER));
        assert!(!may_read_tree(&dir, OTHER));
        chmod(&dir, 0o711);
        assert!(may_run(&program, OTHER), "passable is enough to run");
        assert!(!may_read_tree(&dir, OTHER), "but not to list");
        chmod(&dir, 0o755);
        chmod(&program, 0o700);
        assert!(!may_run(&program, OTHER));
        assert!(!may_read_tree(&dir, OTHER));
    }
}
