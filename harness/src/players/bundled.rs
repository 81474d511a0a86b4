//! `bundle.toml`: what makes a folder a player of a bundle made by `harness build`
//! ([`crate::bundle`]), read when players are found and written by the bundle command.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The file that makes a folder a bundled player.
pub(crate) const MANIFEST: &str = "bundle.toml";

/// `bundle.toml`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    pub problem: String,
    /// The player's hash in a run from its source.
    pub hash: String,
    pub hash_covers: String,
    /// Where it was built from.
    pub source: String,
    pub harness_version: String,
    /// Its command: a program relative to the bundle's folder (with a `/`) or found on PATH.
    pub command: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub pass_env: Vec<String>,
}

/// The manifest of a bundled player's folder; `None` when the folder is not one.
pub fn read(dir: &Path) -> Option<Result<Manifest, String>> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).ok()?;
    Some(toml::from_str(&text).map_err(|e| e.to_string()))
}
