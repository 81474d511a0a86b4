//! A player's hash: what decides what it runs, so that versions of a player are told apart
//! in results and `--resume` (FNV-1a over length-prefixed fields, [`crate::hash::Fnv`]), and
//! that description in words for `run.toml`. Reads the player's files; changes nothing.

use std::path::{Path, PathBuf};

use super::manifests::Kind;
use super::{bundled, Player};
use crate::hash::Fnv;

/// Folders of a `player.toml` player that its hash leaves out: build outputs and caches,
/// which change without the player changing.
pub(crate) const UNHASHED_FOLDERS: [&str; 7] = [
    "target",
    "__pycache__",
    ".git",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
];
/// Files of a `player.toml` player that its hash leaves out, by extension (Python's caches).
pub(crate) const UNHASHED_EXTENSIONS: [&str; 2] = ["pyc", "pyo"];

/// The files under a player's folder that its hash covers, as paths relative to it, sorted:
/// every file at any depth but those of [`UNHASHED_FOLDERS`] and [`UNHASHED_EXTENSIONS`].
/// Symbolic links are listed, not followed into folders.
pub(crate) fn hashed_files(folder: &Path) -> Vec<PathBuf> {
    let hashed = |rel: &Path| {
        !rel.extension()
            .is_some_and(|e| UNHASHED_EXTENSIONS.iter().any(|x| e == *x))
    };
    crate::hash::files_under(folder, &UNHASHED_FOLDERS, &hashed)
}

/// The hash of what a player runs. A `player.toml` player: its command as written, every
/// file of [`hashed_files`] (path and bytes; a symbolic link's target and, for a file, its
/// bytes), and the program's bytes when the command names it by a path. A Cargo player: the
/// files of its package folder the same way, its workspace's `Cargo.lock` and `[profile]`
/// settings. An executable player: the bytes of its program.
pub(super) fn hash_player(player: &Player, kind: &Kind) -> String {
    let mut h = Fnv::new();
    match kind {
        Kind::Folder { command, build } => {
            h.field(b"command");
            for part in command {
                h.field(part.as_bytes());
            }
            for part in build.iter().flatten() {
                h.field(b"build");
                h.field(part.as_bytes());
            }
            hash_folder(&mut h, &player.cwd);
            if command.first().is_some_and(|p| p.contains('/')) {
                h.field(b"program");
                h.file(&player.program);
            }
        }
        // What defines the program, not its bytes: those vary with the packages built
        // together (feature unification), so one source would get several hashes.
        Kind::Cargo { workspace, .. } => {
            h.field(b"cargo package");
            hash_folder(&mut h, &player.cwd);
            let root = workspace.parent().unwrap_or(Path::new(""));
            if root != player.cwd {
                h.field(b"Cargo.lock");
                h.file(&root.join("Cargo.lock"));
                h.field(b"profile");
                h.field(profiles(workspace).as_bytes());
            }
        }
        Kind::File => h.file(&player.program),
        Kind::Bundled { hash } => return hash.clone(),
    }
    h.hex()
}

/// Every file of [`hashed_files`] under `folder` (path and bytes; a link's target).
pub(super) fn hash_folder(h: &mut Fnv, folder: &Path) {
    for rel in hashed_files(folder) {
        let path = folder.join(&rel);
        h.field(rel.as_os_str().as_encoded_bytes());
        if let Ok(target) = std::fs::read_link(&path) {
            h.field(target.as_os_str().as_encoded_bytes());
        }
        if path.is_file() {
            h.file(&path);
        }
    }
}

/// The `[profile]` tables of a workspace's root manifest, as text (empty when none).
fn profiles(manifest: &Path) -> String {
    std::fs::read_to_string(manifest)
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .and_then(|table| table.get("profile").map(|p| p.to_string()))
        .unwrap_or_default()
}

/// What a player's hash covers, in words (for `run.toml`).
pub(crate) fn hash_covers(player: &Player) -> String {
    if let Some(Ok(m)) = bundled::read(&player.cwd) {
        return format!(
            "recorded by `harness build` from {}: {}",
            m.source, m.hash_covers
        );
    }
    if player.source.join("Cargo.toml").is_file() && !player.source.join("player.toml").is_file() {
        format!(
            "every file under {} but {}/ and *.{}, and its workspace's Cargo.lock and \
             [profile] settings (not the binary, whose bytes vary with what is built with it)",
            player.cwd.display(),
            UNHASHED_FOLDERS.join("/, "),
            UNHASHED_EXTENSIONS.join(", *.")
        )
    } else if player.source.join("player.toml").is_file() {
        // A build step's player is hashed as built, in the run's private copy of its folder.
        let folder = std::fs::canonicalize(&player.source).unwrap_or_else(|_| player.cwd.clone());
        let built = match folder == player.cwd {
            true => "",
            false => " (as its build left it in the run's copy)",
        };
        format!(
            "the command, every file under {}{built} but {}/ and *.{}, and the program when \
             the command names it by a path",
            folder.display(),
            UNHASHED_FOLDERS.join("/, "),
            UNHASHED_EXTENSIONS.join(", *.")
        )
    } else {
        format!("the bytes of {}", player.program.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small player folder `p/` beside a workspace `ws/`, with what its hash leaves out.
    fn fixture(root: &Path) -> PathBuf {
        let folder = root.join("p");
        let write = |rel: &str, text: &str| {
            let path = folder.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "player.toml",
            "name = \"p\"\nproblem = \"game-ending\"\ncommand = [\"./run.sh\", \"x\"]\n",
        );
        write("run.sh", "#!/bin/sh\necho hi\n");
        write("lib/deep/helper.py", "x = 1\n");
        write("lib/__pycache__/helper.pyc", "cache");
        write("target/out", "built");
        write("a.pyc", "cache");
        std::os::unix::fs::symlink("run.sh", folder.join("link")).unwrap();
        write("../ws/Cargo.lock", "# lock\n");
        write(
            "../ws/Cargo.toml",
            "[workspace]\n[profile.release]\nopt-level = 3\n",
        );
        folder
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Hashes stored in run folders and build caches, computed before the hash code moved to
    /// `crate::hash` and this file: they must never change.
    #[test]
    fn stored_hashes_stay_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let folder = fixture(dir.path());
        let player = Player {
            name: "p".into(),
            problem: "game-ending".into(),
            program: folder.join("run.sh"),
            args: Vec::new(),
            cwd: folder.clone(),
            source: folder.clone(),
            hash: String::new(),
            env: Vec::new(),
            pass_env: Vec::new(),
            on_path: false,
            snapshot: None,
        };
        let listed = ["lib/deep/helper.py", "link", "player.toml", "run.sh"].map(PathBuf::from);
        assert_eq!(hashed_files(&folder), listed);
        let command = strings(&["./run.sh", "x"]);
        let cases = [
            (
                Kind::Folder {
                    command: command.clone(),
                    build: None,
                },
                "e376ea6cfa9ca60d",
            ),
            (
                Kind::Folder {
                    command: strings(&["python3", "run.sh"]),
                    build: Some(strings(&["make", "all"])),
                },
                "c2d3296c5e3c96f2",
            ),
            (
                Kind::Cargo {
                    manifest: folder.join("Cargo.toml"),
                    workspace: dir.path().join("ws/Cargo.toml"),
                },
                "99115af8431cc201",
            ),
            (
                Kind::Cargo {
                    manifest: folder.join("Cargo.toml"),
                    workspace: folder.join("Cargo.toml"),
                },
                "217888e44c9b01f1",
            ),
            (Kind::File, "e1759305583aa3a1"),
        ];
        for (kind, hash) in cases {
            assert_eq!(hash_player(&player, &kind), hash);
        }
        let make = strings(&["make"]);
        let key =
            |contained| super::super::private::source_key(&folder, &command, &make, contained);
        assert_eq!(key(true), "755748e9c2418d8f");
        assert_eq!(key(false), "2e2a04741107ff67");
    }
}
