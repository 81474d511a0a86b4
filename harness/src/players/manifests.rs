//! What a path given as a player is, read from its manifest: a `player.toml` folder, a Cargo
//! package (`[package.metadata.harness]`), a bundle's `bundle.toml` ([`super::bundled`]) or an
//! executable file; and how a command's program is found. Reads manifests and looks at
//! files; builds nothing and runs nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{bundled, err, params, Player, PlayerError};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "kebab-case")]
struct PlayerToml {
    /// Default: the folder's name (so a copied folder is a new player).
    name: Option<String>,
    problem: String,
    command: Vec<String>,
    /// Variables set in the player's environment.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// The user's variables passed through, by name.
    #[serde(default)]
    pass_env: Vec<String>,
    /// A command run once before the run (a compiler), in the run's private copy of the
    /// folder; contained when builds are ([`crate::build`]).
    build: Option<Vec<String>>,
    /// Declared parameters ([`crate::players::params`]): their defaults reach the player.
    params: Option<toml::Table>,
}

#[derive(Deserialize)]
struct CargoToml {
    package: Option<CargoPackage>,
}

#[derive(Deserialize)]
struct CargoPackage {
    name: String,
    #[serde(default)]
    metadata: Option<CargoMetadata>,
}

#[derive(Deserialize)]
struct CargoMetadata {
    harness: Option<HarnessMetadata>,
}

#[derive(Deserialize)]
struct HarnessMetadata {
    problem: String,
    /// Declared parameters ([`crate::players::params`]): their defaults reach the player.
    params: Option<toml::Table>,
}

/// What a player is, as its path said: how it is built, hashed and watched.
pub(super) enum Kind {
    Cargo {
        manifest: PathBuf,
        /// The manifest of its workspace's root (itself when it is its own workspace),
        /// found before the build.
        workspace: PathBuf,
    },
    /// A `player.toml` folder, with its command and build command as written there.
    Folder {
        command: Vec<String>,
        build: Option<Vec<String>>,
    },
    /// An executable file.
    File,
    /// A player of a bundle (`crate::bundle`): its hash was recorded when it was built.
    Bundled { hash: String },
}

/// What `path` is as a player (see the module doc), not yet built.
pub(super) fn describe(
    path: &Path,
    only: Option<&str>,
    known_problems: &[&str],
) -> Result<(Player, Kind), PlayerError> {
    let meta = std::fs::metadata(path).map_err(|e| err(path, format!("cannot read it: {e}")))?;
    let abs = std::fs::canonicalize(path).map_err(|e| err(path, e.to_string()))?;
    if meta.is_dir() {
        if let Some(found) = describe_bundled(path, &abs) {
            return found;
        }
        let player_toml = abs.join("player.toml");
        let cargo_toml = abs.join("Cargo.toml");
        if player_toml.exists() {
            return describe_player_toml(path, &abs, &player_toml);
        }
        if cargo_toml.exists() {
            return describe_cargo(path, &abs, cargo_toml, known_problems);
        }
        return Err(err(
            path,
            "is a folder with neither Cargo.toml nor player.toml: to make it a player, add a \
             player.toml (problem and command; see docs/players.md)",
        ));
    }
    check_executable(&abs).map_err(|m| err(path, m))?;
    let problem = only.ok_or_else(|| {
        err(
            path,
            "is an executable file: say which problem it plays with --problem",
        )
    })?;
    let name = abs
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "player".to_string());
    Ok((
        Player {
            name,
            problem: problem.to_string(),
            program: abs.clone(),
            args: Vec::new(),
            cwd: abs.parent().unwrap_or(Path::new("/")).to_path_buf(),
            source: path.to_path_buf(),
            hash: String::new(),
            env: Vec::new(),
            pass_env: Vec::new(),
            on_path: false,
            snapshot: None,
        },
        Kind::File,
    ))
}

/// A folder player described by its `player.toml`.
fn describe_player_toml(
    path: &Path,
    abs: &Path,
    player_toml: &Path,
) -> Result<(Player, Kind), PlayerError> {
    let text = std::fs::read_to_string(player_toml).map_err(|e| err(player_toml, e.to_string()))?;
    let spec: PlayerToml = toml::from_str(&text).map_err(|e| err(player_toml, e.to_string()))?;
    let Some(program_name) = spec.command.first().cloned() else {
        return Err(err(player_toml, "`command` is empty"));
    };
    if spec.build.as_ref().is_some_and(|b| b.is_empty()) {
        return Err(err(
            player_toml,
            "`build` is empty (leave it out, or name a command)",
        ));
    }
    // With a build step, the program may not exist yet: it is found after the build. A
    // program this machine lacks is not found at all: `discover_with` says so.
    let lacking = resolve_program(abs, &program_name).is_none()
        && crate::needs::missing(&spec.command, None).contains(&program_name);
    let (program, args) = match &spec.build {
        Some(_) => (PathBuf::new(), Vec::new()),
        None if lacking => (PathBuf::new(), Vec::new()),
        None => resolve_command(abs, &spec.command, player_toml)?,
    };
    let mut env: Vec<(String, String)> = spec
        .pass_env
        .iter()
        .filter_map(|name| std::env::var(name).ok().map(|v| (name.clone(), v)))
        .collect();
    let params = spec.params.unwrap_or_default();
    let params = params::parse(&params, player_toml, "params")?;
    env.extend(params::default_env(&params));
    env.extend(spec.env);
    Ok((
        Player {
            name: spec.name.unwrap_or_else(|| folder_name(abs)),
            problem: spec.problem,
            program,
            args,
            cwd: abs.to_path_buf(),
            source: path.to_path_buf(),
            hash: String::new(),
            env,
            pass_env: spec.pass_env,
            on_path: !program_name.contains('/'),
            snapshot: None,
        },
        Kind::Folder {
            command: spec.command,
            build: spec.build,
        },
    ))
}

/// A Cargo package player (`[package.metadata.harness] problem`); built later.
fn describe_cargo(
    path: &Path,
    abs: &Path,
    cargo_toml: PathBuf,
    known_problems: &[&str],
) -> Result<(Player, Kind), PlayerError> {
    let text = std::fs::read_to_string(&cargo_toml).map_err(|e| err(&cargo_toml, e.to_string()))?;
    let manifest: CargoToml = toml::from_str(&text).map_err(|e| err(&cargo_toml, e.to_string()))?;
    let Some(package) = manifest.package else {
        return Err(err(
            &cargo_toml,
            "has no [package] (a workspace is not a player)",
        ));
    };
    let harness = package.metadata.and_then(|m| m.harness);
    let params = harness.as_ref().and_then(|h| h.params.clone());
    let params = params::parse(
        &params.unwrap_or_default(),
        &cargo_toml,
        "package.metadata.harness.params",
    )?;
    let problem = harness.map(|h| h.problem).ok_or_else(|| {
        err(
            &cargo_toml,
            format!(
                "says no problem: add [package.metadata.harness] problem = \"...\" (one of {})",
                known_problems.join(", ")
            ),
        )
    })?;
    Ok((
        Player {
            name: package.name,
            problem,
            program: PathBuf::new(),
            args: Vec::new(),
            cwd: abs.to_path_buf(),
            source: path.to_path_buf(),
            hash: String::new(),
            env: params::default_env(&params),
            pass_env: Vec::new(),
            on_path: false,
            snapshot: None,
        },
        Kind::Cargo {
            manifest: cargo_toml,
            workspace: PathBuf::new(),
        },
    ))
}

/// A player of a bundle (a folder with `bundle.toml`, made by `harness build`).
fn describe_bundled(path: &Path, abs: &Path) -> Option<Result<(Player, Kind), PlayerError>> {
    let manifest_path = abs.join(bundled::MANIFEST);
    let found = bundled::read(abs)?.map_err(|e| err(&manifest_path, e));
    Some(found.and_then(|m| {
        let (program, args) = resolve_command(abs, &m.command, &manifest_path)?;
        let mut env: Vec<(String, String)> = m
            .pass_env
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|v| (name.clone(), v)))
            .collect();
        env.extend(m.env);
        let player = Player {
            name: m.name,
            problem: m.problem,
            program,
            args,
            cwd: abs.to_path_buf(),
            source: path.to_path_buf(),
            hash: String::new(),
            env,
            pass_env: m.pass_env,
            on_path: !m.command[0].contains('/'),
            snapshot: None,
        };
        Ok((player, Kind::Bundled { hash: m.hash }))
    }))
}

fn check_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a file", path.display()));
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Err(format!(
            "{} is not executable (chmod +x it)",
            path.display()
        ));
    }
    Ok(())
}

/// A command's program: a path (relative to the player's folder) when it has a slash, else
/// looked up on PATH.
pub(super) fn resolve_program(folder: &Path, program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let p = folder.join(program);
        return p.exists().then_some(p);
    }
    crate::os::find_on_path(program)
}

/// The program of a `player.toml` command and its arguments. Players run in a fresh folder
/// per test: arguments naming files of the player's folder (`main.py`) are made absolute.
pub(super) fn resolve_command(
    abs: &Path,
    command: &[String],
    player_toml: &Path,
) -> Result<(PathBuf, Vec<String>), PlayerError> {
    let Some((program, args)) = command.split_first() else {
        return Err(err(player_toml, "`command` is empty"));
    };
    let program = resolve_program(abs, program)
        .ok_or_else(|| err(player_toml, format!("command {program:?} not found")))?;
    check_executable(&program).map_err(|m| err(player_toml, m))?;
    let args = args
        .iter()
        .map(|a| {
            let p = abs.join(a);
            if !a.starts_with('-') && p.exists() {
                p.display().to_string()
            } else {
                a.clone()
            }
        })
        .collect();
    Ok((program, args))
}

fn folder_name(abs: &Path) -> String {
    abs.file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default()
}
