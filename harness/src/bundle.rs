//! `harness build --out DIR`: every player built once into a relocatable bundle, one folder
//! per player, that other machines run with `--players DIR/* --no-build`.
//!
//! A player's folder `DIR/<name>/` holds its program and `bundle.toml` (name, problem, the
//! hash and what it covers, the command relative to the folder, its variables): a Cargo or
//! executable-file player's program is copied to `bin/`; a `player.toml` player's folder is
//! copied whole, build outputs included (version-control and cache folders left out), and
//! its command kept, paths made relative. The hash is the one the source run gives (it is
//! recorded, not recomputed: the bundle has no Cargo sources), so a bundle's results compare
//! and merge with a source run's. [`crate::players`] reads `bundle.toml` ([`crate::players::bundled::read`]); this
//! module writes bundles and runs builds only through `players::discover`; the builds' log
//! is `DIR/.build.log` (hidden, so `DIR/*` names the players only).

use std::path::{Path, PathBuf};

use crate::cli::BuildArgs;
use crate::error::Error;
use crate::exit;
use crate::players::bundled::{Manifest, MANIFEST};
use crate::players::{self, Player};

/// Folders of a `player.toml` player's folder left out of its bundle.
const LEFT_OUT: [&str; 6] = [
    ".git",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "node_modules",
];

/// `harness build`.
pub fn main(args: &BuildArgs) -> Result<u8, Error> {
    crate::os::install_interrupt_handler()
        .map_err(|e| Error::fault(format!("cannot install the interrupt handler: {e}")))?;
    let scoring = crate::context::Context::load(&args.common)?.scoring;
    if let Some(id) = &args.problem {
        crate::context::find_problem(id)?;
    }
    let h = &scoring.harness;
    let mut builds =
        crate::build::Builds::from_settings(h, args.build_sandbox, h.sandbox, h.cgroup);
    let ids = crate::problem::ids();
    let (found, skipped) =
        players::discover(&args.players, args.problem.as_deref(), &ids, &mut builds).map_err(
            |e| match crate::os::interrupted() {
                true => Error::Interrupted(e.to_string()),
                false => Error::usage(e.to_string()),
            },
        )?;
    for note in players::skip_notes(&skipped, args.problem.as_deref()) {
        eprintln!("{note}");
    }
    let out = &args.out;
    std::fs::create_dir_all(out).map_err(|e| Error::usage(format!("{}: {e}", out.display())))?;
    for player in &found {
        let dir = write_player(out, player)
            .map_err(|e| Error::fault(format!("cannot bundle player {}: {e}", player.name)))?;
        println!("{}  {}  {}", player.name, player.hash, dir.display());
    }
    if !builds.log().is_empty() {
        let log = out.join(".build.log");
        std::fs::write(&log, builds.log())
            .map_err(|e| Error::fault(format!("{}: {e}", log.display())))?;
    }
    println!(
        "bundled {} player(s) into {}: run them with --players {}/* --no-build",
        found.len(),
        out.display(),
        out.display()
    );
    Ok(exit::OK)
}

/// Writes one player's folder of the bundle (to a temporary name, then renamed over any
/// older one); returns it.
fn write_player(out: &Path, player: &Player) -> Result<PathBuf, String> {
    let dir = out.join(&player.name);
    let tmp = out.join(format!(".{}.tmp", player.name));
    let io = |what: &Path, e: std::io::Error| format!("{}: {e}", what.display());
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| io(&tmp, e))?;
    }
    std::fs::create_dir_all(&tmp).map_err(|e| io(&tmp, e))?;
    let folder_player = player.source.is_dir()
        && (player.cwd.join("player.toml").is_file() || player.cwd.join(MANIFEST).is_file());
    let command = if folder_player {
        copy_tree(&player.cwd, &tmp)?;
        let program = match relative(&player.program, &player.cwd) {
            _ if player.on_path => file_name(&player.program),
            Some(rel) => rel,
            None => copy_program(&player.program, &tmp)?,
        };
        let args = player.args.iter().map(|a| {
            relative(Path::new(a), &player.cwd)
                .filter(|_| Path::new(a).is_absolute())
                .unwrap_or_else(|| a.clone())
        });
        std::iter::once(program).chain(args).collect()
    } else {
        vec![copy_program(&player.program, &tmp)?]
    };
    let manifest = Manifest {
        name: player.name.clone(),
        problem: player.problem.clone(),
        hash: player.hash.clone(),
        hash_covers: players::hash_covers(player),
        source: std::fs::canonicalize(&player.source)
            .unwrap_or_else(|_| player.source.clone())
            .display()
            .to_string(),
        harness_version: env!("CARGO_PKG_VERSION").to_string(),
        command,
        env: player
            .env
            .iter()
            .filter(|(k, _)| !player.pass_env.contains(k))
            .cloned()
            .collect(),
        pass_env: player.pass_env.clone(),
    };
    let text = toml::to_string(&manifest).map_err(|e| e.to_string())?;
    let path = tmp.join(MANIFEST);
    std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| io(&dir, e))?;
    }
    std::fs::rename(&tmp, &dir).map_err(|e| io(&dir, e))?;
    Ok(dir)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default()
}

/// `path` relative to `base`, with a `/` in it (so a command finds it in the folder, not on
/// PATH); `None` when it is not under `base`.
fn relative(path: &Path, base: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?.to_string_lossy().to_string();
    Some(match rel.contains('/') {
        true => rel,
        false => format!("./{rel}"),
    })
}

/// Copies a program into `<dir>/bin/`; returns the command word that names it.
fn copy_program(program: &Path, dir: &Path) -> Result<String, String> {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    let name = file_name(program);
    std::fs::copy(program, bin.join(&name))
        .map_err(|e| format!("cannot copy {}: {e}", program.display()))?;
    Ok(format!("bin/{name}"))
}

/// Copies a folder (files, links as links, modes), leaving out [`LEFT_OUT`] folders.
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    let entries = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", from.display()))?;
        let name = entry.file_name();
        let (src, dst) = (entry.path(), to.join(&name));
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", src.display()))?;
        let fail = |e: std::io::Error| format!("{}: {e}", src.display());
        if kind.is_symlink() {
            let target = std::fs::read_link(&src).map_err(fail)?;
            std::os::unix::fs::symlink(target, &dst).map_err(fail)?;
        } else if kind.is_dir() {
            if LEFT_OUT.iter().any(|f| name == *f) {
                continue;
            }
            std::fs::create_dir(&dst).map_err(fail)?;
            copy_tree(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(fail)?;
        }
    }
    Ok(())
}
