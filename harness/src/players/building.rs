//! Building players before the run: one `cargo build --release` per Cargo workspace (its
//! binaries found in cargo's messages), and each `player.toml` `build` command in the run's
//! private copy of its folder ([`super::private`]). Runs builds through [`Builds`],
//! contained or not; never runs a player.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use super::manifests::{resolve_command, resolve_program, Kind};
use super::watch::{the_stage, Stage};
use super::{err, private, Player, PlayerError};
use crate::build::Builds;
use crate::sandbox::BuildJob;

/// Builds every `player.toml` player that has a `build` command in a copy of its folder
/// private to the run ([`private::build_in_copy`]), then finds its program there.
pub(super) fn build_folder_players(
    found: &mut [(Player, Kind)],
    builds: &mut Builds,
    stage: &mut Option<Arc<Stage>>,
) -> Result<(), PlayerError> {
    for (index, (player, kind)) in found.iter_mut().enumerate() {
        let Kind::Folder {
            command,
            build: Some(build),
        } = kind
        else {
            continue;
        };
        let player_toml = player.cwd.join("player.toml");
        let copy =
            private::build_in_copy(player, build, command, index, the_stage(stage)?, builds)?;
        player.cwd = copy;
        (player.program, player.args) = resolve_command(&player.cwd, command, &player_toml)?;
    }
    // After the builds: what this run used is the newest, and kept.
    if let Some(cache) = builds.cache.clone() {
        match private::prune(&cache, std::time::SystemTime::now()) {
            Ok(gone) if gone.is_empty() => {}
            Ok(gone) => builds.note(&format!(
                "pruned {} build(s) from {} (unused for {} days, or older than the {} most \
                 recently used of their player)\n",
                gone.len(),
                cache.display(),
                private::CACHE_DAYS,
                private::CACHE_PER_PLAYER
            )),
            Err(e) => builds.note(&format!("cannot prune {}: {e}\n", cache.display())),
        }
    }
    Ok(())
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Builds every Cargo player in release mode, one `cargo build` per workspace, and fills in
/// the path of its binary.
pub(super) fn build_cargo_players(
    found: &mut [(Player, Kind)],
    builds: &mut Builds,
) -> Result<(), PlayerError> {
    for (root, members) in workspaces(found, builds.refuse)? {
        build_workspace(found, builds, &root, &members)?;
    }
    Ok(())
}

/// The Cargo players of `found` by the manifest of their workspace's root (each recorded in
/// its [`Kind::Cargo`]), so that each workspace is built once.
fn workspaces(
    found: &mut [(Player, Kind)],
    refuse: bool,
) -> Result<BTreeMap<PathBuf, Vec<usize>>, PlayerError> {
    let mut groups: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    for (i, (player, kind)) in found.iter_mut().enumerate() {
        let Kind::Cargo {
            manifest,
            workspace,
        } = kind
        else {
            continue;
        };
        if refuse {
            let why = crate::build::BuildError::Refused;
            return Err(err(&player.source, format!("a Cargo package: cargo {why}")));
        }
        let root = locate_workspace(player, manifest)?;
        *workspace = root.clone();
        groups.entry(root).or_default().push(i);
    }
    Ok(groups)
}

/// The manifest of the workspace's root of the package at `manifest` (`cargo
/// locate-project --workspace`).
fn locate_workspace(player: &Player, manifest: &Path) -> Result<PathBuf, PlayerError> {
    let out = cargo()
        .args(["locate-project", "--workspace", "--message-format", "plain"])
        .arg("--manifest-path")
        .arg(manifest)
        .output()
        .map_err(|e| err(&player.source, format!("cannot run cargo: {e}")))?;
    if !out.status.success() {
        return Err(err(
            &player.source,
            format!(
                "cargo cannot read its manifest:\n{}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// One `cargo build` of the workspace whose root manifest is `root`, for the players of
/// `found` at `members`; each gets the path of its binary (checked, when contained).
fn build_workspace(
    found: &mut [(Player, Kind)],
    builds: &mut Builds,
    root: &Path,
    members: &[usize],
) -> Result<(), PlayerError> {
    let first = found[members[0]].0.source.clone();
    let names: Vec<String> = members.iter().map(|&i| found[i].0.name.clone()).collect();
    let folder = root.parent().unwrap_or(Path::new("/"));
    let contained = builds.contained();
    let mut job = cargo_job(&first, root, contained)?;
    job.program = std::env::var_os("CARGO").map_or_else(
        || resolve_program(folder, "cargo").unwrap_or_else(|| "cargo".into()),
        PathBuf::from,
    );
    job.argv = cargo_argv(root, contained, &names);
    let logged = builds.log().len();
    let stdout = builds.run_job(&job, false).map_err(|e| {
        let said = String::from_utf8_lossy(&builds.log()[logged..]);
        let hint = match contained && said.contains("offline") {
            true => format!(
                "\n(a contained build has no network: fetch its dependencies once, \
                 outside, with `cargo fetch --manifest-path {}`)",
                root.display()
            ),
            false => String::new(),
        };
        err(
            &first,
            format!("cargo build of {} {e}{hint}", names.join(", ")),
        )
    })?;
    let binaries = built_binaries(&stdout);
    for &i in members {
        let player = &mut found[i].0;
        let built = binaries.get(&player.name).cloned().ok_or_else(|| {
            err(
                &player.source,
                format!("cargo built no binary named {:?}", player.name),
            )
        })?;
        player.program = match contained {
            true => private::check_built(&built, &job.writable[0])
                .map_err(|m| err(&player.source, m))?,
            false => built,
        };
    }
    Ok(())
}

/// Where and how the `cargo build` of the workspace at `root` runs (its program and
/// arguments not yet set). Contained: the sources are read-only and there is no network, so
/// the lock file and the dependencies must be there already, and the build writes only its
/// own target folder ([`private::cargo_job`]).
fn cargo_job(first: &Path, root: &Path, contained: bool) -> Result<BuildJob, PlayerError> {
    let folder = root.parent().unwrap_or(Path::new("/"));
    if !contained {
        return Ok(BuildJob {
            cwd: std::env::current_dir().unwrap_or_else(|_| folder.to_path_buf()),
            ..Default::default()
        });
    }
    if !folder.join("Cargo.lock").is_file() {
        return Err(err(
            first,
            format!(
                "its workspace has no Cargo.lock, and a contained build cannot \
                 write one: make it once, outside, with `cargo fetch \
                 --manifest-path {}` (which also downloads its dependencies)",
                root.display()
            ),
        ));
    }
    let target = private::contained_target(folder);
    std::fs::create_dir_all(&target)
        .map_err(|e| err(first, format!("{}: {e}", target.display())))?;
    Ok(private::cargo_job(folder, &target))
}

/// The arguments of the `cargo build` of the workspace at `root` for the packages `names`.
fn cargo_argv(root: &Path, contained: bool, names: &[String]) -> Vec<String> {
    // Not --quiet: the log keeps cargo's status lines (which crate a hung build was at);
    // the screen shows only warnings and errors.
    let mut argv = ["cargo", "build", "--release"].map(String::from).to_vec();
    if contained {
        argv.push("--offline".into());
    }
    argv.extend(
        [
            "--message-format",
            "json-render-diagnostics",
            "--manifest-path",
        ]
        .map(String::from),
    );
    argv.push(root.display().to_string());
    for name in names {
        argv.extend(["-p".to_string(), name.clone()]);
    }
    argv
}

/// The binaries a `cargo build --message-format json...` says it built, by target name
/// (with `_` and with `-`).
fn built_binaries(stdout: &[u8]) -> BTreeMap<String, PathBuf> {
    let mut binaries: BTreeMap<String, PathBuf> = BTreeMap::new();
    for line in String::from_utf8_lossy(stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let (Some(exe), Some(target)) =
            (msg["executable"].as_str(), msg["target"]["name"].as_str())
        else {
            continue;
        };
        binaries.insert(target.replace('_', "-"), PathBuf::from(exe));
        binaries.insert(target.to_string(), PathBuf::from(exe));
    }
    binaries
}
