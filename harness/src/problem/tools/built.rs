//! A contest's `build` (problem.toml) runs in the harness's own copy of the tools folder,
//! never in the contest's folder: `<results>/.cache/tools/<id>-<key>/`, the key being a hash
//! of the tools' identity ([`super::identity`]), the build command and whether builds are
//! contained. The copy is made without `target/` and `.git/`, built, and published whole by a
//! rename; a later run of unchanged tools uses it as it is. The problem's commands then run
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
    let key: String = h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    cache_folder(builds).join(format!("{}-{key}", def.id))
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
    std::fs::create_dir_all(parent).map_err(made)?;
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
    builds.note(&format!(
        "{}: the tools are built in {}\n",
        def.id,
        entry.display()
    ));
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
