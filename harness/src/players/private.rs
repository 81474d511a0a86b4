//! Builds that never touch the user's folders: a `player.toml` player with a `build` command
//! is built in a copy of its folder private to the run (`<stage>/built/<i>/<name>/`), which
//! the run then plays from and watches; the user's `players/<name>/` is only read. A second
//! run of the same player at once builds in its own copy, so neither can rewrite what the
//! other plays.
//!
//! Finished builds are kept by the hash of what they were built from ([`source_key`]: the
//! command, the build command, every hashed file of the folder, and whether the build was
//! contained) under the run's build cache (`results/.cache/builds/<key>/`), each published
//! whole by a rename and never changed after; a later run of an unchanged player copies
//! its build from there instead of building again. Each run prunes the cache ([`prune`]): a
//! build unused for [`CACHE_DAYS`] days goes, and so do a player's builds beyond its
//! [`CACHE_PER_PLAYER`] most recently used (a `<key>.used` file beside each entry names its
//! player, and its time is the entry's last use).
//!
//! Also here: what a contained `cargo build` may see ([`cargo_job`]) and the checks of what
//! it made. This module copies files and names folders; builds run through
//! [`crate::build::Builds`].

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::fingerprint::hash_folder;
use super::{err, Player, PlayerError};
use crate::build::Builds;
use crate::copy::{copy_folder, open_to_players};
use crate::hash::Fnv;
use crate::sandbox::BuildJob;

/// Folders of a player's folder left out of its private copy: version control, caches, and
/// `target/` (the build starts from the sources alone, never from an earlier build's
/// outputs). `node_modules/` is kept: a player may need it to build or to run.
const NOT_COPIED: [&str; 6] = [
    "target",
    ".git",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
];

/// The key of a `player.toml` player's build in the cache: what it is built from and how.
pub(super) fn source_key(
    folder: &Path,
    command: &[String],
    build: &[String],
    contained: bool,
) -> String {
    let mut h = Fnv::new();
    h.field(b"build cache 1");
    h.field(if contained { b"contained" } else { b"as user" });
    for part in command {
        h.field(b"command");
        h.field(part.as_bytes());
    }
    for part in build {
        h.field(b"build");
        h.field(part.as_bytes());
    }
    hash_folder(&mut h, folder);
    h.hex()
}

/// Days a build stays in the cache without being used.
pub(super) const CACHE_DAYS: u64 = 30;
/// Builds of one player kept in the cache: the most recently used.
pub(super) const CACHE_PER_PLAYER: usize = 3;

/// Records that the cache entry `entry` was used now, by `player`: the file `<key>.used`
/// beside it holds the player's name, and its modification time is the entry's last use.
fn mark_used(entry: &Path, player: &str) -> io::Result<()> {
    let mut used = entry.as_os_str().to_owned();
    used.push(".used");
    std::fs::write(PathBuf::from(used), player)
}

/// One build in the cache: its key, the player that last used it (unknown for an entry of
/// an older harness) and when.
#[derive(Clone, Debug)]
struct Cached {
    key: String,
    player: Option<String>,
    used: std::time::SystemTime,
}

/// The keys of the builds to remove: unused for [`CACHE_DAYS`] days, or beyond the
/// [`CACHE_PER_PLAYER`] most recently used of their player.
fn doomed(mut cached: Vec<Cached>, now: std::time::SystemTime) -> Vec<String> {
    let max_age = std::time::Duration::from_secs(CACHE_DAYS * 24 * 3600);
    cached.sort_by(|a, b| b.used.cmp(&a.used).then_with(|| a.key.cmp(&b.key)));
    let mut kept: std::collections::BTreeMap<String, usize> = Default::default();
    let mut out = Vec::new();
    for c in cached {
        let old = now.duration_since(c.used).is_ok_and(|age| age > max_age);
        let crowded = c.player.as_ref().is_some_and(|p| {
            let n = kept.entry(p.clone()).or_default();
            *n += 1;
            *n > CACHE_PER_PLAYER
        });
        if old || crowded {
            out.push(c.key);
        }
    }
    out
}

/// Prunes the build cache at `cache` (see the module doc); also removes what an interrupted
/// publication left (a `.<key>-*` folder a day old). Returns the keys removed. An entry is
/// renamed away before it is deleted, so a run copying it at that moment fails to copy and
/// builds instead ([`build_in_copy`]).
pub(super) fn prune(cache: &Path, now: std::time::SystemTime) -> io::Result<Vec<String>> {
    let Ok(listing) = std::fs::read_dir(cache) else {
        return Ok(Vec::new());
    };
    let day = std::time::Duration::from_secs(24 * 3600);
    let mut cached = Vec::new();
    for entry in listing.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let path = entry.path();
        let modified = entry.metadata().and_then(|m| m.modified()).unwrap_or(now);
        if name.starts_with('.') {
            if now.duration_since(modified).is_ok_and(|age| age > day) {
                let _ = std::fs::remove_dir_all(&path);
            }
            continue;
        }
        if let Some(key) = name.strip_suffix(".used") {
            if !cache.join(key).is_dir() {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        }
        if !path.is_dir() {
            continue;
        }
        let used_file = cache.join(format!("{name}.used"));
        let (player, used) = match std::fs::metadata(&used_file).and_then(|m| m.modified()) {
            Ok(time) => (std::fs::read_to_string(&used_file).ok(), time),
            Err(_) => (None, modified),
        };
        cached.push(Cached {
            key: name,
            player,
            used,
        });
    }
    let doomed = doomed(cached, now);
    for key in &doomed {
        let gone = cache.join(format!(".{key}-pruned-{}", std::process::id()));
        std::fs::rename(cache.join(key), &gone)?;
        let _ = std::fs::remove_file(cache.join(format!("{key}.used")));
        std::fs::remove_dir_all(&gone)?;
    }
    Ok(doomed)
}

/// Builds a `player.toml` player in a copy of its folder private to the run, or copies an
/// earlier build of the same sources from the cache; points the player at the copy (its
/// folder, the run's working files) and returns the copy.
pub(super) fn build_in_copy(
    player: &mut Player,
    build: &[String],
    command: &[String],
    index: usize,
    stage: &Arc<super::watch::Stage>,
    builds: &mut Builds,
) -> Result<PathBuf, PlayerError> {
    let player_toml = player.cwd.join("player.toml");
    let copy = stage
        .path()
        .join("built")
        .join(index.to_string())
        .join(&player.name);
    let fail = |what: &Path, e: io::Error| err(&player_toml, format!("{}: {e}", what.display()));
    let key = source_key(&player.cwd, command, build, builds.contained());
    let cached = builds.cache.as_ref().map(|c| c.join(&key));
    if let Some(entry) = cached.as_ref().filter(|e| e.is_dir()) {
        // Marked first: a run pruning the cache now keeps what was just used.
        let _ = mark_used(entry, &player.name);
        match copy_folder(entry, &copy, &[]).and_then(|()| open_to_players(stage.path(), &copy)) {
            Ok(()) => {
                builds.note(&format!(
                    "{}: unchanged since an earlier build, copied from {}\n",
                    player.name,
                    entry.display()
                ));
                return Ok(copy);
            }
            // Pruned by another run while being copied: built again.
            Err(e) => {
                builds.note(&format!(
                    "{}: cannot copy the earlier build {} ({e}): building\n",
                    player.name,
                    entry.display()
                ));
                let _ = std::fs::remove_dir_all(&copy);
            }
        }
    }
    copy_folder(&player.cwd, &copy, &NOT_COPIED)
        .and_then(|()| open_to_players(stage.path(), &copy))
        .map_err(|e| fail(&player.cwd, e))?;
    let (program, _) = build.split_first().expect("checked when read");
    let job = BuildJob {
        // A program named by a path is the folder's own (the copy's).
        program: match (program.contains('/'), builds.contained()) {
            (true, _) => copy.join(program),
            // Looked up on PATH here: the sandbox starts a path.
            (false, true) => {
                super::manifests::resolve_program(&copy, program).unwrap_or_else(|| program.into())
            }
            (false, false) => program.into(),
        },
        argv: build.to_vec(),
        cwd: copy.clone(),
        env: vec![("HARNESS_PLAYER_DIR".into(), copy.display().to_string())],
        readable: Vec::new(),
        writable: vec![copy.clone()],
    };
    builds.run_job(&job, true).map_err(|e| {
        err(
            &player_toml,
            format!("build command `{}` {e}", build.join(" ")),
        )
    })?;
    if let Some(entry) = &cached {
        publish(&copy, entry).map_err(|e| fail(entry, e))?;
        let _ = mark_used(entry, &player.name);
    }
    Ok(copy)
}

/// Whether the players of a root harness (another id than the user's) can read `player`'s
/// folder as it is; always for an ordinary user's harness (its players run as that user).
pub(super) fn readable_by_players(player: &Player) -> bool {
    match crate::sandbox::ids::player_ids() {
        Some(ids) => crate::sandbox::reach::may_read_tree(&player.cwd, ids),
        None => true,
    }
}

/// Copies `player`'s folder (without version control and caches) into the run's private
/// folder, `<stage>/open/<index>/<name>/`, readable by the players' id; returns the copy.
pub(super) fn copy_for_players(
    player: &Player,
    index: usize,
    stage: &Arc<super::watch::Stage>,
) -> Result<PathBuf, PlayerError> {
    let copy = stage
        .path()
        .join("open")
        .join(index.to_string())
        .join(&player.name);
    copy_folder(&player.cwd, &copy, &NOT_COPIED[1..])
        .and_then(|()| open_to_players(stage.path(), &copy))
        .map_err(|e| {
            err(
                &player.cwd.join("player.toml"),
                format!("cannot copy the folder to {}: {e}", copy.display()),
            )
        })?;
    Ok(copy)
}

/// Puts a finished build into the cache under `entry`, whole or not at all: copied beside
/// it, then renamed. When another run published the same key first, its entry is kept.
fn publish(built: &Path, entry: &Path) -> io::Result<()> {
    let parent = entry.parent().expect("an entry is in the cache folder");
    std::fs::create_dir_all(parent)?;
    let name = entry.file_name().unwrap_or_default().to_string_lossy();
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}-"))
        .tempdir_in(parent)?;
    let part = tmp.path().join("build");
    copy_folder(built, &part, &[])?;
    match std::fs::rename(&part, entry) {
        Ok(()) => Ok(()),
        Err(_) if entry.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// What a contained `cargo build` of the workspace at `root` needs besides its command: the
/// workspace read-only, the tool chain (CARGO_HOME's programs, registry cache and settings,
/// RUSTUP_HOME) read-only, and its own output folder `target` writable. Cargo's
/// credentials are not shown.
pub(super) fn cargo_job(root: &Path, target: &Path) -> BuildJob {
    let (mut readable, mut env) = crate::sandbox::rust_tool_chain();
    readable.insert(0, root.to_path_buf());
    env.insert(
        0,
        ("CARGO_TARGET_DIR".to_string(), target.display().to_string()),
    );
    BuildJob {
        cwd: root.to_path_buf(),
        env,
        readable,
        writable: vec![target.to_path_buf()],
        ..BuildJob::default()
    }
}

/// Where a workspace's contained builds write: `harness-sandbox/` in its target folder (the
/// user's `CARGO_TARGET_DIR`, else `<root>/target`), apart from the user's own builds, so
/// that a contained build can never change what the user's `cargo build` made.
pub(super) fn contained_target(root: &Path) -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| match t.is_absolute() {
            true => t,
            false => std::env::current_dir().unwrap_or_default().join(t),
        })
        .unwrap_or_else(|| root.join("target"));
    base.join("harness-sandbox")
}

/// A program a contained build says it made, checked before the harness copies it: a plain
/// file inside the build's own output folder (not a link to a file of the host's).
pub(super) fn check_built(program: &Path, target: &Path) -> Result<PathBuf, String> {
    let real = std::fs::canonicalize(program).map_err(|e| format!("{}: {e}", program.display()))?;
    let inside = std::fs::canonicalize(target)
        .map(|t| real.starts_with(t))
        .unwrap_or(false);
    let plain = std::fs::symlink_metadata(&real).is_ok_and(|m| m.is_file());
    if !inside || !plain {
        return Err(format!(
            "the build's program {} is not a file of its output folder {}",
            program.display(),
            target.display()
        ));
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: PathBuf, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_private_copy_keeps_sources_times_modes_and_links_but_no_build_outputs_or_fifos() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("player");
        write(from.join("main.cpp"), "int main() {}\n");
        write(from.join("lib/deep/util.h"), "// util\n");
        write(from.join("target/main"), "stale build");
        write(from.join(".git/HEAD"), "ref\n");
        write(from.join("lib/__pycache__/x.pyc"), "cache");
        write(from.join("node_modules/m/index.js"), "module");
        std::os::unix::fs::symlink("/etc/hostname", from.join("link")).unwrap();
        let mode = rustix::fs::Mode::from_raw_mode(0o644);
        rustix::fs::mkfifoat(rustix::fs::CWD, from.join("pipe"), mode).unwrap();
        let script = from.join("build.sh");
        write(script.clone(), "true\n");
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
        std::fs::File::options()
            .write(true)
            .open(from.join("main.cpp"))
            .unwrap()
            .set_modified(old)
            .unwrap();

        let to = dir.path().join("copy");
        copy_folder(&from, &to, &NOT_COPIED).unwrap();
        assert_eq!(
            std::fs::read(to.join("main.cpp")).unwrap(),
            b"int main() {}\n"
        );
        assert!(to.join("lib/deep/util.h").is_file());
        assert!(
            to.join("node_modules/m/index.js").is_file(),
            "a player may need it"
        );
        for gone in ["target", ".git", "lib/__pycache__", "pipe"] {
            assert!(!to.join(gone).exists(), "{gone} was copied");
        }
        assert_eq!(
            std::fs::read_link(to.join("link")).unwrap(),
            Path::new("/etc/hostname"),
            "a link stays a link"
        );
        let meta = std::fs::metadata(to.join("main.cpp")).unwrap();
        assert_eq!(
            meta.modified().unwrap(),
            old,
            "times kept (make judges the copy)"
        );
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(to.join("build.sh"))
                .unwrap()
                .permissions(),
        );
        assert_eq!(mode & 0o777, 0o755);
    }

    #[test]
    fn the_build_key_follows_sources_commands_and_containment_not_build_outputs() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path();
        write(folder.join("main.cpp"), "int main() {}\n");
        let command = ["target/main".to_string()];
        let build = ["make".to_string()];
        let key =
            |build: &[String], contained: bool| source_key(folder, &command, build, contained);
        let first = key(&build, false);
        write(folder.join("target/main"), "built");
        assert_eq!(key(&build, false), first, "build outputs are not sources");
        assert_ne!(key(&build, true), first, "a contained build is kept apart");
        assert_ne!(key(&["make".into(), "-j2".into()], false), first);
        write(folder.join("main.cpp"), "int main() { return 1; }\n");
        assert_ne!(key(&build, false), first, "a source changed");
    }

    #[test]
    fn a_built_program_must_be_a_plain_file_of_the_builds_own_folder() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("harness-sandbox");
        write(target.join("release/p"), "binary");
        assert!(check_built(&target.join("release/p"), &target).is_ok());
        std::os::unix::fs::symlink("/etc/hostname", target.join("release/q")).unwrap();
        let err = check_built(&target.join("release/q"), &target).unwrap_err();
        assert!(err.contains("is not a file of its output folder"), "{err}");
        std::os::unix::fs::symlink(dir.path(), target.join("up")).unwrap();
        write(dir.path().join("outside"), "x");
        assert!(check_built(&target.join("up/outside"), &target).is_err());
    }

    #[test]
    fn a_build_is_published_whole_and_a_second_publisher_keeps_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let built = dir.path().join("built");
        write(built.join("target/main"), "one");
        let entry = dir.path().join("cache/0123456789abcdef");
        publish(&built, &entry).unwrap();
        assert_eq!(std::fs::read(entry.join("target/main")).unwrap(), b"one");
        write(built.join("target/main"), "two");
        publish(&built, &entry).unwrap();
        assert_eq!(std::fs::read(entry.join("target/main")).unwrap(), b"one");
        let names: Vec<_> = std::fs::read_dir(dir.path().join("cache"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["0123456789abcdef"], "no half-written entry left");
    }

    #[test]
    fn pruning_keeps_the_newest_builds_of_each_player_used_in_the_last_days() {
        use std::time::{Duration, SystemTime};
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("builds");
        let now = SystemTime::now();
        let day = Duration::from_secs(24 * 3600);
        let at = |path: &Path, ago: Duration| {
            std::fs::File::open(path)
                .unwrap()
                .set_modified(now - ago)
                .unwrap();
        };
        // (key, player, days since its last use)
        let entries: [(&str, Option<&str>, u64); 7] = [
            ("a1", Some("cpp"), 0),
            ("a2", Some("cpp"), 1),
            ("a3", Some("cpp"), 2),
            ("a4", Some("cpp"), 3),
            ("b1", Some("rust"), 5),
            ("b2", Some("rust"), CACHE_DAYS + 1),
            ("c1", None, CACHE_DAYS + 2),
        ];
        for (key, player, days) in entries {
            let entry = cache.join(key);
            write(entry.join("target/main"), key);
            match player {
                Some(p) => {
                    mark_used(&entry, p).unwrap();
                    at(&cache.join(format!("{key}.used")), day * days as u32);
                }
                None => at(&entry, day * days as u32),
            }
        }
        // What an interrupted publication left, two days ago; and one being written now.
        std::fs::create_dir_all(cache.join(".a9-xyz/build")).unwrap();
        at(&cache.join(".a9-xyz"), day * 2);
        std::fs::create_dir_all(cache.join(".a8-now/build")).unwrap();
        let mut removed = prune(&cache, now).unwrap();
        removed.sort();
        assert_eq!(removed, ["a4", "b2", "c1"]);
        let mut left: Vec<String> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [".a8-now", "a1", "a1.used", "a2", "a2.used", "a3", "a3.used", "b1", "b1.used"]
        );
        // Pruning again removes nothing more.
        assert!(prune(&cache, now).unwrap().is_empty());
    }
}
