//! A contest's `build` (problem.toml) runs in the harness's own copy of the tools folder,
//! never in the contest's folder: `<results>/.cache/tools/<id>-<key>/`, the key being a hash
//! of the tools' identity ([`super::identity`]), the build command and whether builds are
//! contained. The copy is made without `target/` and `.git/`, built, and published whole by a
//! rename; a later run of unchanged tools uses it as it is. Each build prunes the cache
//! ([`prune`]): a build unused for [`CACHE_DAYS`] days goes, and so do a problem's builds
//! beyond its [`CACHE_PER_PROBLEM`] most recently used (`<entry>.used` beside each entry
//! holds its problem's id; its time is the entry's last use). The problem's commands then run
//! from it ([`super::use_built`]). The build runs as a player's does ([`Builds::run_job`]):
//! as the user, or contained when builds are (a key, `--build-sandbox`, `build-sandbox`).
//!
//! Writes only in that cache; reads the contest's folder.

use std::io;
use std::path::{Path, PathBuf};

use sha2::Digest;

use super::config::Def;
use crate::build::Builds;
use crate::sandbox::BuildJob;

/// Folders of the contest's folder left out of the copy: version control, and build
/// products (the build starts from the sources, as the contest's README's own does).
const NOT_COPIED: [&str; 2] = ["target", ".git"];

/// The folder of the tools' cache: beside the players' build cache (`results/.cache/`);
/// absolute, as the tools' sandbox shows it at its own path.
fn cache_folder(builds: &Builds) -> PathBuf {
    let folder = match &builds.cache {
        Some(players) => players.with_file_name("tools"),
        None => PathBuf::from("results/.cache/tools"),
    };
    match folder.is_absolute() {
        true => folder,
        false => std::env::current_dir().unwrap_or_default().join(folder),
    }
}

/// Makes the cache folder `tools` and `.cache` above it passable by others whatever the
/// umask (the tools may run as the players' id of a root harness); under a root harness,
/// the results folder above them too (passable, not readable).
fn passable(tools: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let open = |dir: &Path| -> io::Result<()> {
        let mode = std::fs::metadata(dir)?.permissions().mode() & 0o7777;
        if mode & 0o011 != 0o011 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode | 0o011))?;
        }
        Ok(())
    };
    open(tools)?;
    let Some(cache) = tools.parent() else {
        return Ok(());
    };
    open(cache)?;
    match (cache.parent(), crate::sandbox::ids::player_ids()) {
        (Some(results), Some(_)) => open(results),
        _ => Ok(()),
    }
}

/// The cache entry of `def`'s tools built with `build`.
fn entry(def: &Def, build: &[String], builds: &Builds) -> PathBuf {
    let mut h = sha2::Sha256::new();
    h.update(b"tools build 1\0");
    h.update(if builds.contained() {
        &b"contained\0"[..]
    } else {
        &b"as user\0"[..]
    });
    for part in build {
        h.update(part.as_bytes());
        h.update(b"\0");
    }
    h.update(super::identity::identity(def).as_bytes());
    let key = crate::hash::hex16(&h.finalize());
    cache_folder(builds).join(format!("{}-{key}", def.id))
}

/// Days a build of a contest's tools stays in the cache without being used.
pub const CACHE_DAYS: u64 = 30;
/// Builds of one problem's tools kept in the cache: the most recently used.
pub const CACHE_PER_PROBLEM: usize = 2;

/// Records that `entry` was used now, by the problem `id`.
fn mark_used(entry: &Path, id: &str) {
    let mut used = entry.as_os_str().to_owned();
    used.push(".used");
    // Not kept: the entry counts as used at its own time, and may be pruned sooner.
    let _ = std::fs::write(PathBuf::from(used), id);
}

/// Removes from `cache` the builds unused for [`CACHE_DAYS`] days, those of a problem beyond
/// its [`CACHE_PER_PROBLEM`] most recently used, and what an interrupted build left (a
/// `.<id>-*` folder a day old). Returns how many builds went.
pub fn prune(cache: &Path, now: std::time::SystemTime) -> usize {
    let Ok(listing) = std::fs::read_dir(cache) else {
        return 0;
    };
    let day = std::time::Duration::from_secs(24 * 3600);
    let age = |t: std::time::SystemTime| now.duration_since(t).unwrap_or_default();
    let mut entries: Vec<(std::time::SystemTime, String, PathBuf)> = Vec::new();
    for entry in listing.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        let modified = entry.metadata().and_then(|m| m.modified()).unwrap_or(now);
        if name.starts_with('.') {
            if age(modified) > day {
                let _ = std::fs::remove_dir_all(&path);
            }
        } else if path.is_dir() {
            let used = path.with_file_name(format!("{name}.used"));
            let when = std::fs::metadata(&used)
                .and_then(|m| m.modified())
                .unwrap_or(modified);
            let id = name.rsplit_once('-').map_or(name.as_str(), |(id, _)| id);
            entries.push((when, id.to_string(), path));
        }
    }
    entries.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut kept: std::collections::BTreeMap<String, usize> = Default::default();
    let mut removed = 0;
    for (when, id, path) in entries {
        let n = kept.entry(id).or_default();
        *n += 1;
        if *n > CACHE_PER_PROBLEM || age(when) > day * CACHE_DAYS as u32 {
            // Renamed away first: a run copying nothing from it, as it is used in place.
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let gone = path.with_file_name(format!(".{name}-pruned-{}", std::process::id()));
            if std::fs::rename(&path, &gone).is_ok() {
                let _ = std::fs::remove_dir_all(&gone);
                let _ = std::fs::remove_file(path.with_file_name(format!("{name}.used")));
                removed += 1;
            }
        }
    }
    removed
}

/// Builds `def`'s tools with `build` in the cache, or finds them built there; returns the
/// built folder. With `--no-build` (`builds.refuse`), an earlier build or nothing.
pub fn build_in_cache(
    def: &Def,
    build: &[String],
    builds: &mut Builds,
) -> Result<Option<PathBuf>, String> {
    let entry = entry(def, build, builds);
    if entry.is_dir() {
        mark_used(&entry, def.id);
        builds.note(&format!(
            "{}: unchanged since an earlier build; the tools are built in {}\n",
            def.id,
            entry.display()
        ));
        return Ok(Some(entry));
    }
    if builds.refuse {
        return Ok(None);
    }
    let parent = entry.parent().expect("an entry is in the cache folder");
    let made = |e: io::Error| format!("{}: cannot make {}: {e}", def.id, parent.display());
    std::fs::create_dir_all(parent)
        .and_then(|()| passable(parent))
        .map_err(made)?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{}-", def.id))
        .tempdir_in(parent)
        .map_err(made)?;
    let copy = tmp.path().join("tools");
    crate::copy::copy_folder(&def.tools, &copy, &NOT_COPIED)
        .and_then(|()| crate::copy::open_to_players(tmp.path(), &copy))
        .map_err(|e| format!("{}: cannot copy {}: {e}", def.id, def.tools.display()))?;
    builds
        .run_job(&job(build, &copy, builds.contained()), true)
        .map_err(|e| {
            let tail = last_lines(builds.log(), 20);
            format!(
                "{}: the tools' build ({}) {e}\n{tail}",
                def.id,
                build.join(" ")
            )
        })?;
    // What the build made is read by the tools, which may run as another user.
    crate::copy::open_to_players(tmp.path(), &copy)
        .map_err(|e| format!("{}: {}: {e}", def.id, copy.display()))?;
    match std::fs::rename(&copy, &entry) {
        Ok(()) => {}
        // Another run published the same tools first: its build is as good.
        Err(_) if entry.is_dir() => {}
        Err(e) => return Err(format!("{}: cannot keep the build: {e}", def.id)),
    }
    mark_used(&entry, def.id);
    builds.note(&format!(
        "{}: the tools are built in {}\n",
        def.id,
        entry.display()
    ));
    let gone = prune(parent, std::time::SystemTime::now());
    if gone > 0 {
        builds.note(&format!(
            "pruned {gone} build(s) of contests' tools from {} (unused for {CACHE_DAYS} days, \
             or older than the {CACHE_PER_PROBLEM} most recently used of their problem)\n",
            parent.display()
        ));
    }
    Ok(Some(entry))
}

/// The build command as a job in `copy`: its program the copy's (named with a `/` or there)
/// or looked up on PATH; a Rust tool chain shown read-only when contained; the Cargo target
/// folder the copy's own whatever the user's environment sets (the contest's commands name
/// `target/release/vis`).
fn job(build: &[String], copy: &Path, contained: bool) -> BuildJob {
    let named = super::judge::program(copy, &build[0]);
    let program = match named.is_relative() && contained {
        true => crate::os::find_on_path(&named).unwrap_or(named),
        false => named,
    };
    let target = copy.join("target").display().to_string();
    let (readable, mut env) = match contained {
        true => crate::sandbox::rust_tool_chain(),
        false => Default::default(),
    };
    env.push(("CARGO_TARGET_DIR".into(), target.clone()));
    env.push(("CARGO_BUILD_TARGET_DIR".into(), target));
    BuildJob {
        program,
        argv: build.to_vec(),
        cwd: copy.to_path_buf(),
        env,
        readable,
        writable: vec![copy.to_path_buf()],
    }
}

/// The last `n` lines of a log.
pub(super) fn last_lines(log: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(log);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_keeps_a_problems_newest_builds_and_drops_the_unused() {
        let cache = tempfile::tempdir().unwrap();
        let now = std::time::SystemTime::now();
        let hour = std::time::Duration::from_secs(3600);
        let made = |name: &str, ago: std::time::Duration| {
            let entry = cache.path().join(name);
            std::fs::create_dir(&entry).unwrap();
            mark_used(&entry, "p");
            let used = cache.path().join(format!("{name}.used"));
            std::fs::File::options()
                .write(true)
                .open(used)
                .unwrap()
                .set_modified(now - ago)
                .unwrap();
        };
        made("p-0000000000000001", hour);
        made("p-0000000000000002", 2 * hour);
        made("p-0000000000000003", 3 * hour);
        made("q-0000000000000001", 31 * 24 * hour);
        made("r-0000000000000001", 3 * hour);
        assert_eq!(prune(cache.path(), now), 2);
        let mut left: Vec<String> = std::fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| !n.ends_with(".used"))
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "p-0000000000000001",
                "p-0000000000000002",
                "r-0000000000000001"
            ]
        );
    }
}
