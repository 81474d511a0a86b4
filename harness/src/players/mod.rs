//! Finding and building players from the paths given on the command line.
//!
//! A path is one player and may be: a Cargo package (a folder with `Cargo.toml`, problem from
//! `[package.metadata.harness] problem = "..."`), built once in release mode before the run;
//! a folder with a `player.toml` (`name`, `problem`, `command`, relative to that folder), for
//! any language, with an optional `build` command run before the run in a copy of the folder
//! private to the run ([`private`]); or an executable file (its problem from `--problem`).
//! This module reads manifests, runs `cargo build` and `build` commands (through
//! [`crate::build`], contained or not) and keeps each player the same for the whole run:
//! Cargo and executable-file players run from a copy of their program taken when the run
//! starts, a built `player.toml` player from its private copy, all in a run-private folder
//! removed when the run ends; that copy, or the folder of a `player.toml` player without a
//! build, is watched ([`Player::check_unchanged`]). It never runs a player.
//!
//! A player's name becomes folder names under `results/` and cells of CSV files, so it must
//! pass [`check_name`]. Its hash ([`hash_player`]) covers everything that decides what runs.
//! What is left out (not a player, a player of another problem than `--problem`, or, in a
//! run of several, a player needing a program this machine lacks: [`crate::needs`]) and the
//! notes that say so are in `skipped`.

pub mod bundled;
pub mod params;
mod private;
mod skipped;
pub mod variant;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Deserialize;

use crate::build::Builds;

use skipped::not_a_player;
pub(crate) use skipped::skip_notes;
pub use skipped::Skipped;

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
    /// What it was when the run started, shared by the clones of one player (`None`: not
    /// watched, for a player made by hand in a test).
    pub snapshot: Option<Arc<Snapshot>>,
}

/// A problem with the players: the message names the offending path.
/// An empty `path` is a problem of the players together (none can run here).
#[derive(Debug, thiserror::Error)]
#[error("{}{message}", if path.is_empty() { String::new() } else { format!("player {path}: ") })]
pub struct PlayerError {
    pub path: String,
    pub message: String,
}

/// Whether a name is safe as a folder name and as a spreadsheet cell: it starts with an ASCII
/// letter or digit and holds only ASCII letters, digits, `.`, `_` and `-`, and no `..`.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    let first_ok = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric());
    let all_ok = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if first_ok && all_ok && !name.contains("..") {
        return Ok(());
    }
    Err(format!(
        "name {} is not allowed: a player name starts with a letter or a digit and holds only \
         letters, digits, `.`, `_` and `-`, without `..`",
        crate::verdict::quote(name)
    ))
}

fn folder_name(abs: &Path) -> String {
    abs.file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default()
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

enum Kind {
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

/// Finds the players of `paths`. Players of another problem than `only` are skipped.
/// Cargo packages are built (in release mode) with `builds` before this returns, and every
/// player is fixed for the run (see the module doc).
pub fn discover(
    paths: &[PathBuf],
    only: Option<&str>,
    known_problems: &[&str],
    builds: &mut Builds,
) -> Result<(Vec<Player>, Vec<Skipped>), PlayerError> {
    discover_with(paths, &[], only, known_problems, builds)
}

/// [`discover`], and the `--variant`s: each variant's program is found and built as for
/// `--players`, then renamed and given its settings ([`crate::variant`]).
pub(crate) fn discover_with(
    paths: &[PathBuf],
    variants: &[variant::Variant],
    only: Option<&str>,
    known_problems: &[&str],
    builds: &mut Builds,
) -> Result<(Vec<Player>, Vec<Skipped>), PlayerError> {
    let mut found: Vec<(Player, Kind)> = Vec::new();
    let mut skipped = Vec::new();
    // Which entries of `found` are variants (by index into `variants`), after the plain ones.
    let mut variant_of: Vec<Option<usize>> = Vec::new();
    let plain = paths.iter().map(|p| (p, None));
    let varied = variants.iter().enumerate().map(|(i, v)| (&v.path, Some(i)));
    // Given one player, a program it needs and the machine lacks is an error (it was asked
    // for); given several (`players/*`), that player is left out with a note.
    let several = paths.len() + variants.len() > 1;
    let mut tools_missing: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, variant) in plain.chain(varied) {
        // `players/*` also matches an old `players/results/` and stray files: skipped, said.
        if let Some(reason) = not_a_player(path) {
            skipped.push(Skipped {
                name: path.display().to_string(),
                reason,
                plays: None,
                needs: false,
            });
            continue;
        }
        let (player, kind) = describe(path, only, known_problems)?;
        check_player(path, &player, known_problems)?;
        let shown = variant.map_or(player.name.clone(), |i| variants[i].name.clone());
        if let Some(only) = only {
            if player.problem != only {
                skipped.push(Skipped {
                    reason: format!("plays {}, not {only}", player.problem),
                    name: shown,
                    plays: Some(player.problem.clone()),
                    needs: false,
                });
                continue;
            }
        }
        if let Some(reason) = lacks(&player, &kind, builds.refuse, &mut tools_missing) {
            if !several {
                return Err(err(path, reason));
            }
            skipped.push(Skipped {
                name: path.display().to_string(),
                reason,
                plays: None,
                needs: true,
            });
            continue;
        }
        let clash = found
            .iter()
            .zip(&variant_of)
            .find(|((p, _), v)| v.map_or(p.name.clone(), |i| variants[i].name.clone()) == shown);
        if let Some(((other, _), v)) = clash {
            let other = match v {
                Some(i) => format!("--variant {}", variants[*i].name),
                None => other.source.display().to_string(),
            };
            return Err(err(
                path,
                format!(
                    "two players are named {shown:?} (the other is {other}); names must be unique"
                ),
            ));
        }
        if variant.is_some() {
            variant_of.push(variant);
            found.push((player, kind));
            continue;
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
        variant_of.push(None);
        found.push((player, kind));
    }
    if found.is_empty() && skipped.iter().any(|s| s.needs) {
        let notes = skip_notes(&skipped, only).join("\n");
        return Err(PlayerError {
            path: String::new(),
            message: format!(
                "no player given can run on this machine, nothing was run:\n{notes}\n\
                 install what is named above, or give players that run here"
            ),
        });
    }
    // The run's private folder: copies of programs, and the folders of built players.
    let mut stage = None;
    build_cargo_players(&mut found, builds)?;
    build_folder_players(&mut found, builds, &mut stage)?;
    builds.release_sandbox();
    // Built under the program's own name; from here on a variant is its own player.
    for ((player, _), v) in found.iter_mut().zip(&variant_of) {
        if let Some(i) = v {
            variants[*i].apply(player);
        }
    }
    let players = fix_for_the_run(found, &variant_of, variants, &mut stage)?;
    Ok((players, skipped))
}

/// Why `player` cannot run on this machine: a program its command, its `#!` line or its
/// build (unless `refuse`d: `--no-build`) needs, or one its problem's tools need, is not
/// here ([`crate::needs`]). `tools` keeps what each problem's tools lack, looked up once.
fn lacks(
    player: &Player,
    kind: &Kind,
    refuse: bool,
    tools: &mut BTreeMap<String, Vec<String>>,
) -> Option<String> {
    let problem = &player.problem;
    let of_tools = tools.entry(problem.clone()).or_insert_with(|| {
        crate::problem::by_id(problem).map_or_else(Vec::new, |p| p.missing_programs(!refuse))
    });
    if !of_tools.is_empty() {
        return Some(format!(
            "the tools of {problem}: {}",
            crate::needs::describe(of_tools)
        ));
    }
    let command_needs = |command: &[String]| {
        let found = command
            .first()
            .and_then(|c| resolve_program(&player.cwd, c));
        crate::needs::missing(command, found.as_deref())
    };
    let missing = match kind {
        Kind::Folder { command, build } => {
            let mut missing = command_needs(command);
            if let Some(build) = build.as_deref().filter(|_| !refuse) {
                for program in command_needs(build) {
                    if !missing.contains(&program) {
                        missing.push(program);
                    }
                }
            }
            missing
        }
        Kind::File | Kind::Bundled { .. } => {
            let program = player.program.display().to_string();
            crate::needs::missing(&[program], Some(&player.program))
        }
        Kind::Cargo { .. } => Vec::new(),
    };
    (!missing.is_empty()).then(|| crate::needs::describe(&missing))
}

/// A player's name is a plain file name and its problem is known.
fn check_player(path: &Path, player: &Player, known_problems: &[&str]) -> Result<(), PlayerError> {
    check_name(&player.name).map_err(|m| err(&name_file(path, player), m))?;
    if !known_problems.contains(&player.problem.as_str()) {
        // A problem whose problem.toml did not load: what is wrong with it.
        let why = crate::problem::tools::broken(&player.problem).unwrap_or_else(|| {
            format!(
                "unknown problem {:?} (known: {})",
                player.problem,
                known_problems.join(", ")
            )
        });
        return Err(err(path, why));
    }
    Ok(())
}

/// Fixes every player for the run (see the module doc): a snapshot of its folder, or a copy
/// of its program, and its hash (a variant's includes its settings).
fn fix_for_the_run(
    found: Vec<(Player, Kind)>,
    variant_of: &[Option<usize>],
    variants: &[variant::Variant],
    stage: &mut Option<Arc<Stage>>,
) -> Result<Vec<Player>, PlayerError> {
    let mut players = Vec::new();
    for (index, ((mut player, kind), v)) in found.into_iter().zip(variant_of).enumerate() {
        let snapshot = match &kind {
            // Built in the run's private folder (`private`): that copy is what is watched.
            Kind::Folder { build: Some(_), .. } => {
                Snapshot::of_folder(&player, Some(the_stage(stage)?))
            }
            // A folder the players' id of a root harness cannot read (a 0700 folder, one
            // under /root): the player plays from a copy in the run's private folder.
            Kind::Folder {
                command,
                build: None,
            } if !private::readable_by_players(&player) => {
                let player_toml = player.cwd.join("player.toml");
                player.cwd = private::copy_for_players(&player, index, the_stage(stage)?)?;
                (player.program, player.args) =
                    resolve_command(&player.cwd, command, &player_toml)?;
                Snapshot::of_folder(&player, Some(the_stage(stage)?))
            }
            Kind::Folder { .. } | Kind::Bundled { .. } => Snapshot::of_folder(&player, None),
            Kind::Cargo { .. } | Kind::File => Snapshot::copy(&mut player, the_stage(stage)?)?,
        };
        player.snapshot = Some(Arc::new(snapshot));
        player.hash = hash_player(&player, &kind);
        if let Some(i) = v {
            player.hash = variants[*i].hash(&player.hash);
        }
        players.push(player);
    }
    Ok(players)
}

/// The run's private folder, made at its first use.
fn the_stage(stage: &mut Option<Arc<Stage>>) -> Result<&Arc<Stage>, PlayerError> {
    match stage {
        Some(stage) => Ok(stage),
        None => Ok(stage.insert(Arc::new(new_stage()?))),
    }
}

fn describe(
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

/// The file a player's name comes from: its `player.toml` or `Cargo.toml`, or the
/// executable itself.
fn name_file(path: &Path, player: &Player) -> PathBuf {
    ["player.toml", "Cargo.toml"]
        .iter()
        .map(|f| player.cwd.join(f))
        .find(|f| path.is_dir() && f.is_file())
        .unwrap_or_else(|| path.to_path_buf())
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
    crate::os::find_on_path(program)
}

/// The program of a `player.toml` command and its arguments. Players run in a fresh folder
/// per test: arguments naming files of the player's folder (`main.py`) are made absolute.
fn resolve_command(
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

/// Builds every `player.toml` player that has a `build` command in a copy of its folder
/// private to the run ([`private::build_in_copy`]), then finds its program there.
fn build_folder_players(
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
fn build_cargo_players(
    found: &mut [(Player, Kind)],
    builds: &mut Builds,
) -> Result<(), PlayerError> {
    // Group packages by their workspace root so that each workspace is built once.
    let mut groups: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    for (i, (player, kind)) in found.iter_mut().enumerate() {
        if let Kind::Cargo {
            manifest,
            workspace,
        } = kind
        {
            if builds.refuse {
                let why = crate::build::BuildError::Refused;
                return Err(err(&player.source, format!("a Cargo package: cargo {why}")));
            }
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
            *workspace = root.clone();
            groups.entry(root).or_default().push(i);
        }
    }
    for (root, members) in groups {
        let first = found[members[0]].0.source.clone();
        let names: Vec<&str> = members.iter().map(|&i| found[i].0.name.as_str()).collect();
        let folder = root.parent().unwrap_or(Path::new("/"));
        let contained = builds.contained();
        // Contained: the sources are read-only and there is no network, so the lock file
        // and the dependencies must be there already.
        let mut job = match contained {
            true => {
                if !folder.join("Cargo.lock").is_file() {
                    return Err(err(
                        &first,
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
                    .map_err(|e| err(&first, format!("{}: {e}", target.display())))?;
                private::cargo_job(folder, &target)
            }
            false => crate::sandbox::BuildJob {
                cwd: std::env::current_dir().unwrap_or_else(|_| folder.to_path_buf()),
                ..Default::default()
            },
        };
        let program = std::env::var_os("CARGO").map_or_else(
            || resolve_program(folder, "cargo").unwrap_or_else(|| "cargo".into()),
            PathBuf::from,
        );
        job.program = program;
        // Not --quiet: the log keeps cargo's status lines (which crate a hung build was at);
        // the screen shows only warnings and errors.
        job.argv = ["cargo", "build", "--release"].map(String::from).to_vec();
        if contained {
            job.argv.push("--offline".into());
        }
        job.argv.extend(
            [
                "--message-format",
                "json-render-diagnostics",
                "--manifest-path",
            ]
            .map(String::from),
        );
        job.argv.push(root.display().to_string());
        for &i in &members {
            job.argv.extend(["-p".to_string(), found[i].0.name.clone()]);
        }
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
        for &i in &members {
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
    }
    Ok(())
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

/// FNV-1a, 64 bits: a stable hash with no dependency, to tell versions of a player apart.
struct Fnv(u64);

impl Fnv {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x100000001b3);
        }
    }

    /// A length-prefixed field, so that fields cannot run into each other.
    fn field(&mut self, bytes: &[u8]) {
        self.feed(&(bytes.len() as u64).to_le_bytes());
        self.feed(bytes);
    }

    /// The bytes of a file, streamed; a file that cannot be read is hashed as such.
    fn file(&mut self, path: &Path) {
        use std::io::Read;
        let Ok(mut file) = std::fs::File::open(path) else {
            return self.field(b"<unreadable>");
        };
        let mut buf = vec![0; 1 << 16];
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => self.feed(&buf[..n]),
                Err(_) => return self.field(b"<unreadable>"),
            }
        }
        self.field(b"<end>");
    }
}

/// The files under a player's folder that its hash covers, as paths relative to it, sorted:
/// every file at any depth but those of [`UNHASHED_FOLDERS`] and [`UNHASHED_EXTENSIONS`].
/// Symbolic links are listed, not followed into folders.
pub(crate) fn hashed_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(rel) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(folder.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let path = rel.join(&name);
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir {
                if !UNHASHED_FOLDERS.iter().any(|f| name == *f) {
                    todo.push(path);
                }
            } else if !path
                .extension()
                .is_some_and(|e| UNHASHED_EXTENSIONS.iter().any(|x| e == *x))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The hash of what a player runs. A `player.toml` player: its command as written, every
/// file of [`hashed_files`] (path and bytes; a symbolic link's target and, for a file, its
/// bytes), and the program's bytes when the command names it by a path. A Cargo player: the
/// files of its package folder the same way, its workspace's `Cargo.lock` and `[profile]`
/// settings. An executable player: the bytes of its program.
fn hash_player(player: &Player, kind: &Kind) -> String {
    let mut h = Fnv(0xcbf29ce484222325);
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
    format!("{:016x}", h.0)
}

/// Every file of [`hashed_files`] under `folder` (path and bytes; a link's target).
fn hash_folder(h: &mut Fnv, folder: &Path) {
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
    fn of_folder(player: &Player, stage: Option<&Arc<Stage>>) -> Snapshot {
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
    fn copy(player: &mut Player, stage: &Arc<Stage>) -> Result<Snapshot, PlayerError> {
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
