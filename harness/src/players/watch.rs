//! Keeping each player the same for the whole run: what it was when the run started (a
//! [`Snapshot`] of its watched files' sizes and times, never their contents), the run's
//! private folder its copies live in ([`Stage`]), and [`Player::check_unchanged`]. Reads
//! file metadata, copies a program into the run's private folder; runs nothing.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{err, Player, PlayerError};

/// The reason every test of a player gets once its files changed during the run.
pub(crate) const CHANGED: &str = "the player's files changed during the run";

impl Player {
    /// `Err` with the reason its test gets when the player is no longer what it was when the
    /// run started: a file of its `player.toml` folder (at any depth), its program or a file
    /// its command names changed, or the copy a Cargo or executable-file player runs from
    /// was altered. Cheap (file sizes and times, no contents); once a change is seen, every
    /// later call fails too, so the rest of the run is not a mix of two versions.
    pub(crate) fn check_unchanged(&self) -> Result<(), String> {
        let Some(snapshot) = &self.snapshot else {
            return Ok(());
        };
        if snapshot.changed.load(Ordering::SeqCst) || snapshot.stamp() != snapshot.stamp {
            snapshot.changed.store(true, Ordering::SeqCst);
            return Err(CHANGED.to_string());
        }
        Ok(())
    }

    /// Whether [`Player::check_unchanged`] saw a change during the run.
    pub(crate) fn changed_during_run(&self) -> bool {
        self.snapshot
            .as_ref()
            .is_some_and(|s| s.changed.load(Ordering::SeqCst))
    }
}

/// Names left out of a watched folder: version control and caches that tools write while a
/// player runs (Python's `__pycache__`), which are not the player's code.
const NOT_WATCHED: [&str; 2] = [".git", "__pycache__"];

/// What a player was when the run started: the stamp of its watched files.
#[derive(Debug)]
pub struct Snapshot {
    /// A folder watched as a whole, recursively (a `player.toml` player's).
    folder: Option<PathBuf>,
    /// Files watched one by one: the program, files named by the command, or the copy.
    files: Vec<PathBuf>,
    stamp: u64,
    changed: AtomicBool,
    /// The run-private folder of the copy the player runs from, removed when the last
    /// player of the run is dropped.
    _stage: Option<Arc<Stage>>,
}

impl Snapshot {
    fn new(folder: Option<PathBuf>, files: Vec<PathBuf>, stage: Option<Arc<Stage>>) -> Snapshot {
        let mut snapshot = Snapshot {
            folder,
            files,
            stamp: 0,
            changed: AtomicBool::new(false),
            _stage: stage,
        };
        snapshot.stamp = snapshot.stamp();
        snapshot
    }

    /// A `player.toml` player: its folder, its program and the files its arguments name;
    /// `stage` holds the folder when it is the run's private copy.
    pub(super) fn of_folder(player: &Player, stage: Option<&Arc<Stage>>) -> Snapshot {
        let mut files = vec![player.program.clone()];
        files.extend(
            player
                .args
                .iter()
                .map(PathBuf::from)
                // Files only: a folder named as an argument (a data folder, a place to write)
                // is not the player's code, and its times change as it is used.
                .filter(|p| p.is_absolute() && p.is_file()),
        );
        Snapshot::new(Some(player.cwd.clone()), files, stage.cloned())
    }

    /// Copies a player's program into the run's private folder, as
    /// `<stage>/players/<name>/<file>`, and points the player at the copy: a rebuild or a
    /// replaced file during the run changes nothing of the run. A copy, not a hard link: a
    /// link would share the file with an in-place rewrite.
    pub(super) fn copy(player: &mut Player, stage: &Arc<Stage>) -> Result<Snapshot, PlayerError> {
        let dir = stage.path().join("players").join(&player.name);
        let file = player
            .program
            .file_name()
            .map_or_else(|| player.name.clone().into(), |f| f.to_os_string());
        let copy = dir.join(file);
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::copy(&player.program, &copy))
            .and_then(|_| crate::copy::open_to_players(stage.path(), &copy))
            .map_err(|e| {
                err(
                    &player.source,
                    format!(
                        "cannot copy {} to {}: {e}",
                        player.program.display(),
                        copy.display()
                    ),
                )
            })?;
        player.program = copy.clone();
        Ok(Snapshot::new(None, vec![copy], Some(stage.clone())))
    }

    /// A hash of the identity, size, times and mode of every watched file.
    fn stamp(&self) -> u64 {
        use std::hash::Hasher;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        if let Some(folder) = &self.folder {
            stamp_tree(folder, &mut h);
        }
        for file in &self.files {
            h.write(file.as_os_str().as_encoded_bytes());
            stamp_file(file, &mut h);
        }
        h.finish()
    }
}

/// The run's private folder: copies of players' programs and the folders of built players.
pub(crate) type Stage = crate::sandbox::scratch::Locked;

/// The run's private folder, made at its first use.
pub(super) fn the_stage(stage: &mut Option<Arc<Stage>>) -> Result<&Arc<Stage>, PlayerError> {
    match stage {
        Some(stage) => Ok(stage),
        None => Ok(stage.insert(Arc::new(new_stage()?))),
    }
}

/// The run's private folder (under the system's temporary folder, outside the workspace),
/// locked for the run's life so that a later run can remove it if this one is killed
/// ([`crate::sandbox::scratch::remove_stale`]).
fn new_stage() -> Result<Stage, PlayerError> {
    // Passable, not readable: a process-mode player of a root harness runs as another user,
    // and must reach its program's copy.
    crate::sandbox::scratch::locked_folder(
        &std::env::temp_dir(),
        crate::sandbox::scratch::RUN_PREFIX,
        0o711,
    )
        .map_err(|e| {
            // Not one player's problem: an empty path.
            err(
                Path::new(""),
                format!(
                    "cannot create the run's private folder in {} (the system's temporary folder: set TMPDIR to a folder you may write): {e}",
                    std::env::temp_dir().display()
                ),
            )
        })
}

fn stamp_tree(dir: &Path, h: &mut impl std::hash::Hasher) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        h.write_u8(0xff);
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if NOT_WATCHED.iter().any(|n| name == *n) {
            continue;
        }
        h.write(name.as_encoded_bytes());
        let path = entry.path();
        // A folder counts by its entries, not its times (which change when a cache is
        // written in it). A link is stamped through (its target's), never walked (no loops).
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            h.write_u8(b'/');
            stamp_tree(&path, h);
        } else {
            stamp_file(&path, h);
        }
    }
}

/// A file's identity, size, times and mode (through links: a link's target counts).
fn stamp_file(path: &Path, h: &mut impl std::hash::Hasher) {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => {
            for v in [
                m.dev(),
                m.ino(),
                m.size(),
                m.mode() as u64,
                m.mtime() as u64,
                m.mtime_nsec() as u64,
                m.ctime() as u64,
                m.ctime_nsec() as u64,
            ] {
                h.write_u64(v);
            }
        }
        Err(_) => h.write_u8(0xfe),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::Builds;
    use crate::players::discover;
    use std::time::Duration;

    fn discover_one(path: &Path) -> Player {
        let mut builds = Builds::new(Duration::from_secs(60));
        let (mut found, _) = discover(
            &[path.to_path_buf()],
            Some("game-ending"),
            &["game-ending"],
            &mut builds,
        )
        .unwrap();
        found.pop().unwrap()
    }

    #[test]
    fn an_executable_file_runs_from_a_private_copy_removed_with_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let original = dir.path().join("p.sh");
        std::fs::write(&original, "#!/bin/sh\necho one\n").unwrap();
        std::fs::set_permissions(
            &original,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let player = discover_one(&original);
        let copy = player.program.clone();
        assert_ne!(copy, original);
        assert!(copy.starts_with(std::env::temp_dir()), "{copy:?}");
        assert!(copy.ends_with("players/p/p.sh"), "{copy:?}");
        assert_eq!(std::fs::read(&copy).unwrap(), b"#!/bin/sh\necho one\n");
        assert_eq!(player.cwd, dir.path().canonicalize().unwrap());
        // The original may change: the run keeps its copy.
        std::fs::write(&original, "#!/bin/sh\necho two\n").unwrap();
        assert_eq!(player.check_unchanged(), Ok(()));
        assert_eq!(std::fs::read(&copy).unwrap(), b"#!/bin/sh\necho one\n");
        // The copy itself is the run's: a change to it is seen.
        let clone = player.clone();
        std::fs::write(&copy, "#!/bin/sh\necho three\n").unwrap();
        assert_eq!(player.check_unchanged(), Err(CHANGED.to_string()));
        assert!(clone.changed_during_run());
        let stage = copy.ancestors().nth(3).unwrap().to_path_buf();
        assert!(stage
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("harness-run-"));
        drop(player);
        assert!(stage.exists(), "a clone still uses it");
        drop(clone);
        assert!(!stage.exists(), "removed with the last player of the run");
    }

    #[test]
    fn a_player_toml_folder_is_watched_at_any_depth_but_not_its_caches() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path();
        std::fs::write(
            folder.join("player.toml"),
            "name = \"p\"\nproblem = \"game-ending\"\ncommand = [\"sh\", \"run.sh\"]\n",
        )
        .unwrap();
        std::fs::write(folder.join("run.sh"), "echo hi\n").unwrap();
        std::fs::create_dir_all(folder.join("lib/deep")).unwrap();
        std::fs::write(folder.join("lib/deep/helper.py"), "x = 1\n").unwrap();
        let player = discover_one(folder);
        assert_eq!(player.check_unchanged(), Ok(()));
        // What tools write beside the code while it runs is not the player's code.
        std::fs::create_dir_all(folder.join("lib/__pycache__")).unwrap();
        std::fs::write(folder.join("lib/__pycache__/helper.pyc"), "cache").unwrap();
        std::fs::create_dir_all(folder.join(".git")).unwrap();
        std::fs::write(folder.join(".git/index"), "index").unwrap();
        assert_eq!(player.check_unchanged(), Ok(()));
        assert!(!player.changed_during_run());
        // A change deep in the folder is seen.
        std::fs::write(folder.join("lib/deep/helper.py"), "x = 2\n").unwrap();
        assert_eq!(player.check_unchanged(), Err(CHANGED.to_string()));
        assert!(player.changed_during_run());
    }

    #[test]
    fn a_new_file_in_a_watched_folder_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("player.toml"),
            "name = \"p\"\nproblem = \"game-ending\"\ncommand = [\"sh\", \"run.sh\"]\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("run.sh"), "echo hi\n").unwrap();
        let player = discover_one(dir.path());
        assert_eq!(player.check_unchanged(), Ok(()));
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/extra.sh"), "").unwrap();
        assert_eq!(player.check_unchanged(), Err(CHANGED.to_string()));
    }
}
