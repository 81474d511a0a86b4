//! From the paths given to the players of the run, as named steps: each path is sorted (not
//! a player, of another problem, lacking a program, or kept under a unique name), the kept
//! ones are built ([`super::building`]), variants take their names and settings, and every
//! player is fixed for the run: watched ([`super::watch`]) and hashed
//! ([`super::fingerprint`]). Runs builds through [`Builds`]; never runs a player.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::building::{build_cargo_players, build_folder_players};
use super::fingerprint::hash_player;
use super::manifests::{describe, resolve_command, resolve_program, Kind};
use super::skipped::{not_a_player, skip_notes, Skipped};
use super::variant::Variant;
use super::watch::{the_stage, Snapshot, Stage};
use super::{check_name, err, private, Player, PlayerError};
use crate::build::Builds;

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
/// `--players`, then renamed and given its settings ([`crate::players::variant`]).
pub(crate) fn discover_with(
    paths: &[PathBuf],
    variants: &[Variant],
    only: Option<&str>,
    known_problems: &[&str],
    builds: &mut Builds,
) -> Result<(Vec<Player>, Vec<Skipped>), PlayerError> {
    let mut sorted = Sorted::new(variants, only, paths.len() + variants.len() > 1);
    let plain = paths.iter().map(|p| (p, None));
    let varied = variants.iter().enumerate().map(|(i, v)| (&v.path, Some(i)));
    for (path, variant) in plain.chain(varied) {
        sorted.sort(path, variant, known_problems, builds.refuse)?;
    }
    sorted.some_can_run()?;
    let Sorted {
        mut found,
        variant_of,
        skipped,
        ..
    } = sorted;
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

/// The paths sorted so far: the players kept and the paths skipped.
struct Sorted<'a> {
    variants: &'a [Variant],
    only: Option<&'a str>,
    /// The players kept, in order (plain ones first, then variants).
    found: Vec<(Player, Kind)>,
    /// Which entries of `found` are variants (by index into `variants`).
    variant_of: Vec<Option<usize>>,
    skipped: Vec<Skipped>,
    /// Given one player, a program it needs and the machine lacks is an error (it was asked
    /// for); given several (`players/*`), that player is left out with a note.
    several: bool,
    /// What each problem's tools lack, looked up once.
    tools_missing: BTreeMap<String, Vec<String>>,
}

impl<'a> Sorted<'a> {
    fn new(variants: &'a [Variant], only: Option<&'a str>, several: bool) -> Sorted<'a> {
        Sorted {
            variants,
            only,
            found: Vec::new(),
            variant_of: Vec::new(),
            skipped: Vec::new(),
            several,
            tools_missing: BTreeMap::new(),
        }
    }

    /// Sorts one path (`variant`: the index of the `--variant` it was given by): skipped
    /// with a note, kept, or an error.
    fn sort(
        &mut self,
        path: &Path,
        variant: Option<usize>,
        known_problems: &[&str],
        refuse: bool,
    ) -> Result<(), PlayerError> {
        // `players/*` also matches an old `players/results/` and stray files: skipped, said.
        if let Some(reason) = not_a_player(path) {
            self.skipped.push(Skipped {
                name: path.display().to_string(),
                reason,
                plays: None,
                needs: false,
            });
            return Ok(());
        }
        let (player, kind) = describe(path, self.only, known_problems)?;
        check_player(path, &player, known_problems)?;
        let shown = variant.map_or(player.name.clone(), |i| self.variants[i].name.clone());
        if self.of_another_problem(&player, &shown) || self.lacking(path, &player, &kind, refuse)? {
            return Ok(());
        }
        self.check_unique(path, &shown)?;
        self.variant_of.push(variant);
        self.found.push((player, kind));
        Ok(())
    }

    /// Whether `player` plays another problem than `--problem` (then skipped, said).
    fn of_another_problem(&mut self, player: &Player, shown: &str) -> bool {
        let Some(only) = self.only.filter(|only| player.problem != *only) else {
            return false;
        };
        self.skipped.push(Skipped {
            reason: format!("plays {}, not {only}", player.problem),
            name: shown.to_string(),
            plays: Some(player.problem.clone()),
            needs: false,
        });
        true
    }

    /// Whether `player` needs a program this machine lacks: an error given alone, else
    /// skipped with a note.
    fn lacking(
        &mut self,
        path: &Path,
        player: &Player,
        kind: &Kind,
        refuse: bool,
    ) -> Result<bool, PlayerError> {
        let Some(reason) = lacks(player, kind, refuse, &mut self.tools_missing) else {
            return Ok(false);
        };
        if !self.several {
            return Err(err(path, reason));
        }
        self.skipped.push(Skipped {
            name: path.display().to_string(),
            reason,
            plays: None,
            needs: true,
        });
        Ok(true)
    }

    /// No player kept so far is shown under the name `shown` (a variant's name, or a plain
    /// player's own).
    fn check_unique(&self, path: &Path, shown: &str) -> Result<(), PlayerError> {
        let name_of = |p: &Player, v: &Option<usize>| {
            v.map_or(p.name.clone(), |i| self.variants[i].name.clone())
        };
        let clash = self
            .found
            .iter()
            .zip(&self.variant_of)
            .find(|((p, _), v)| name_of(p, v) == shown);
        let Some(((other, _), v)) = clash else {
            return Ok(());
        };
        let other = match v {
            Some(i) => format!("--variant {}", self.variants[*i].name),
            None => other.source.display().to_string(),
        };
        Err(err(
            path,
            format!("two players are named {shown:?} (the other is {other}); names must be unique"),
        ))
    }

    /// An error when nothing was kept and something was left out for a program this
    /// machine lacks: none of the players given can run here.
    fn some_can_run(&self) -> Result<(), PlayerError> {
        if !self.found.is_empty() || !self.skipped.iter().any(|s| s.needs) {
            return Ok(());
        }
        let notes = skip_notes(&self.skipped, self.only).join("\n");
        Err(PlayerError {
            path: String::new(),
            message: format!(
                "no player given can run on this machine, nothing was run:\n{notes}\n\
                 install what is named above, or give players that run here"
            ),
        })
    }
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
    variants: &[Variant],
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

/// The file a player's name comes from: its `player.toml` or `Cargo.toml`, or the
/// executable itself.
fn name_file(path: &Path, player: &Player) -> PathBuf {
    ["player.toml", "Cargo.toml"]
        .iter()
        .map(|f| player.cwd.join(f))
        .find(|f| path.is_dir() && f.is_file())
        .unwrap_or_else(|| path.to_path_buf())
}
