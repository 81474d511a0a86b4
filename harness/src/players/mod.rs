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
//! pass [`check_name`]. Its hash (`fingerprint.rs`) covers everything that decides what runs.
//! What is left out (not a player, a player of another problem than `--problem`, or, in a
//! run of several, a player needing a program this machine lacks: [`crate::needs`]) and the
//! notes that say so are in `skipped`.
//!
//! One job a file: `discover.rs` (the paths in, the players of the run out, as named steps),
//! `manifests.rs` (what a path is: `player.toml`, `Cargo.toml`, `bundle.toml` or a program),
//! `building.rs` (`cargo build` and `build` commands), `fingerprint.rs` (a player's hash,
//! over [`crate::hash`]) and `watch.rs` (what a player was when the run started, and whether
//! it still is). Here: the [`Player`] they make, its error and its name's rule.

mod building;
pub mod bundled;
mod discover;
mod fingerprint;
mod manifests;
pub mod params;
mod private;
mod skipped;
pub mod variant;
mod watch;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use discover::discover;
pub(crate) use discover::discover_with;
pub(crate) use fingerprint::hash_covers;
pub(crate) use skipped::skip_notes;
pub use skipped::Skipped;
pub use watch::Snapshot;
pub(crate) use watch::CHANGED;

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

fn err(path: &Path, message: impl Into<String>) -> PlayerError {
    PlayerError {
        path: path.display().to_string(),
        message: message.into(),
    }
}
