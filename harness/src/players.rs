//! Finding and building players from the paths given on the command line.
//!
//! A path is one player and may be: a Cargo package (a folder with `Cargo.toml`, problem from
//! `[package.metadata.harness] problem = "..."`), built once in release mode before the run;
//! a folder with a `player.toml` (`name`, `problem`, `command`, relative to that folder), for
//! any language; or an executable file (its problem from `--problem`). This module reads
//! manifests and runs `cargo build`; it never runs a player.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

/// A player ready to run.
#[derive(Clone, Debug)]
pub struct Player {
    pub name: String,
    pub problem: String,
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Its own folder (tests run in a fresh working directory; this is passed to the player
    /// as `HARNESS_PLAYER_DIR`).
    pub cwd: PathBuf,
    /// The path it was given as.
    pub source: PathBuf,
    /// A hash of what it runs (binary, or the files of its folder), to tell versions apart.
    pub hash: String,
    /// Variables added to its environment (player.toml `env`, and `pass-env` values).
    pub env: Vec<(String, String)>,
    /// Names of the user's variables it asked for (recorded in run.toml, never the values).
    pub pass_env: Vec<String>,
    /// Its program was found by name on PATH (`python3`), not given as a path.
    pub on_path: bool,
}

/// A player that will not take part in this run, and why.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub name: String,
    pub reason: String,
}

/// A problem with the players: the message names the offending path.
#[derive(Debug, thiserror::Error)]
#[error("player {path}: {message}")]
pub struct PlayerError {
    pub path: String,
    pub message: String,
}

fn err(path: &Path, message: impl Into<String>) -> PlayerError {
    PlayerError {
        path: path.display().to_string(),
        message: message.into(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "kebab-case")]
struct PlayerToml {
    name: String,
    problem: String,
    command: Vec<String>,
    /// Variables set in the player's environment.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// The user's variables passed through, by name.
    #[serde(default)]
    pass_env: Vec<String>,
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
}

enum Kind {
    Cargo { manifest: PathBuf },
    Ready,
}

/// Finds the players of `paths`. Players of another problem than `only` are skipped.
/// Cargo packages are built (in release mode) before this returns.
pub fn discover(
    paths: &[PathBuf],
    only: Option<&str>,
    known_problems: &[&str],
) -> Result<(Vec<Player>, Vec<Skipped>), PlayerError> {
    let mut found: Vec<(Player, Kind)> = Vec::new();
    let mut skipped = Vec::new();
    for path in paths {
        let (player, kind) = describe(path, only, known_problems)?;
        if !known_problems.contains(&player.problem.as_str()) {
            return Err(err(
                path,
                format!(
                    "unknown problem {:?} (known: {})",
                    player.problem,
                    known_problems.join(", ")
                ),
            ));
        }
        if let Some(only) = only {
            if player.problem != only {
                skipped.push(Skipped {
                    reason: format!("plays {}, not {only}", player.problem),
                    name: player.name,
                });
                continue;
            }
        }
        if let Some((other, _)) = found.iter().find(|(p, _)| p.name == player.name) {
            return Err(err(
                path,
                format!(
                    "two players are named {:?} (the other is {}); names must be unique",
                    player.name,
                    other.source.display()
                ),
            ));
        }
        found.push((player, kind));
    }
    build_cargo_players(&mut found)?;
    let mut players = Vec::new();
    for (mut player, _) in found {
        player.hash = hash_player(&player);
        players.push(player);
    }
    Ok((players, skipped))
}

fn describe(
    path: &Path,
    only: Option<&str>,
    known_problems: &[&str],
) -> Result<(Player, Kind), PlayerError> {
    let meta = std::fs::metadata(path).map_err(|e| err(path, format!("cannot read it: {e}")))?;
    let abs = std::fs::canonicalize(path).map_err(|e| err(path, e.to_string()))?;
    if meta.is_dir() {
        let player_toml = abs.join("player.toml");
        let cargo_toml = abs.join("Cargo.toml");
        if player_toml.exists() {
            let text = std::fs::read_to_string(&player_toml)
                .map_err(|e| err(&player_toml, e.to_string()))?;
            let spec: PlayerToml =
                toml::from_str(&text).map_err(|e| err(&player_toml, e.to_string()))?;
            let Some((program, args)) = spec.command.split_first() else {
                return Err(err(&player_toml, "`command` is empty"));
            };
            let program_name = program.clone();
            let program = resolve_program(&abs, program)
                .ok_or_else(|| err(&player_toml, format!("command {program:?} not found")))?;
            check_executable(&program).map_err(|m| err(&player_toml, m))?;
            // Players run in a fresh folder per test: arguments naming files of the
            // player's folder (`main.py`) are made absolute.
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
            let mut env: Vec<(String, String)> = spec
                .pass_env
                .iter()
                .filter_map(|name| std::env::var(name).ok().map(|v| (name.clone(), v)))
                .collect();
            env.extend(spec.env);
            return Ok((
                Player {
                    name: spec.name,
                    problem: spec.problem,
                    program,
                    args,
                    cwd: abs.clone(),
                    source: path.to_path_buf(),
                    hash: String::new(),
                    env,
                    pass_env: spec.pass_env,
                    on_path: !program_name.contains('/'),
                },
                Kind::Ready,
            ));
        }
        if cargo_toml.exists() {
            let text = std::fs::read_to_string(&cargo_toml)
                .map_err(|e| err(&cargo_toml, e.to_string()))?;
            let manifest: CargoToml =
                toml::from_str(&text).map_err(|e| err(&cargo_toml, e.to_string()))?;
            let Some(package) = manifest.package else {
                return Err(err(
                    &cargo_toml,
                    "has no [package] (a workspace is not a player)",
                ));
            };
            let problem = package
                .metadata
                .and_then(|m| m.harness)
                .map(|h| h.problem)
                .ok_or_else(|| {
                    err(
                        &cargo_toml,
                        format!(
                            "says no problem: add [package.metadata.harness] problem = \"...\" (one of {})",
                            known_problems.join(", ")
                        ),
                    )
                })?;
            return Ok((
                Player {
                    name: package.name,
                    problem,
                    program: PathBuf::new(),
                    args: Vec::new(),
                    cwd: abs.clone(),
                    source: path.to_path_buf(),
                    hash: String::new(),
                    env: Vec::new(),
                    pass_env: Vec::new(),
                    on_path: false,
                },
                Kind::Cargo {
                    manifest: cargo_toml,
                },
            ));
        }
        return Err(err(
            path,
            "is a folder with neither Cargo.toml nor player.toml",
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
        },
        Kind::Ready,
    ))
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
fn resolve_program(folder: &Path, program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let p = folder.join(program);
        return p.exists().then_some(p);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Builds every Cargo player in release mode, one `cargo build` per workspace, and fills in
/// the path of its binary.
fn build_cargo_players(found: &mut [(Player, Kind)]) -> Result<(), PlayerError> {
    // Group packages by their workspace root so that each workspace is built once.
    let mut groups: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    for (i, (player, kind)) in found.iter().enumerate() {
        if let Kind::Cargo { manifest } = kind {
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
            let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            groups.entry(root).or_default().push(i);
        }
    }
    for (root, members) in groups {
        let mut cmd = cargo();
        cmd.args([
            "build",
            "--release",
            "--quiet",
            "--message-format",
            "json-render-diagnostics",
        ])
        .arg("--manifest-path")
        .arg(&root);
        for &i in &members {
            cmd.args(["-p", &found[i].0.name]);
        }
        let first = &found[members[0]].0.source;
        let out = cmd
            .stderr(std::process::Stdio::inherit())
            .output()
            .map_err(|e| err(first, format!("cannot run cargo: {e}")))?;
        let names: Vec<&str> = members.iter().map(|&i| found[i].0.name.as_str()).collect();
        if !out.status.success() {
            return Err(err(
                first,
                format!("cargo build failed for {} (see above)", names.join(", ")),
            ));
        }
        let mut binaries: BTreeMap<String, PathBuf> = BTreeMap::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
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
        for &i in &members {
            let player = &mut found[i].0;
            player.program = binaries.get(&player.name).cloned().ok_or_else(|| {
                err(
                    &player.source,
                    format!("cargo built no binary named {:?}", player.name),
                )
            })?;
        }
    }
    Ok(())
}

/// FNV-1a over the player's program file, or over the files of its folder for a
/// `player.toml` player (scripts).
fn hash_player(player: &Player) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
    };
    if player.source.join("player.toml").exists() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&player.cwd)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        for f in files.iter().filter(|f| f.is_file()) {
            feed(f.file_name().unwrap_or_default().as_encoded_bytes());
            feed(&std::fs::read(f).unwrap_or_default());
        }
    } else {
        feed(&std::fs::read(&player.program).unwrap_or_default());
    }
    format!("{h:016x}")
}
