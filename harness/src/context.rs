//! What every command starts from: `scoring.toml`, the workspace folder it is in, and the
//! `testcases/` and `results/` folders under it; and the problem registry looked up by id.
//!
//! The bottom layer of the commands: `app` and every subcommand (bench, compare, play,
//! replay, tune...) depend on it, it depends on none of them. It reads `scoring.toml` and
//! nothing else.

use std::path::{Path, PathBuf};

use crate::cli::Common;
use crate::config::Scoring;
use crate::error::{Error, Result};
use crate::problem::{self, tools, Env, Problem};
use crate::secret::Secret;

/// The settings and folders of one command.
#[derive(Clone, Debug)]
pub struct Context {
    pub scoring: Scoring,
    /// The folder `scoring.toml` is in (the workspace root).
    pub root: PathBuf,
    /// Where the fixed tests are (`--testcases`, or `<root>/testcases`).
    pub testcases: PathBuf,
}

impl Context {
    /// Loads `scoring.toml` as `--config` names it. Given no `--config` and run from a folder
    /// inside the workspace (such as `players/`), the nearest `scoring.toml` above is the
    /// workspace's, with its `testcases/` and `results/` (never `players/results/`); with no
    /// file anywhere, the built-in defaults from the current folder.
    pub fn load(common: &Common) -> Result<Context> {
        let given = &common.config;
        let mut root = given
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let file = if given.exists() || given != Path::new("scoring.toml") {
            Some(given.clone())
        } else if let Some(found) = config_above() {
            eprintln!("note: using {}", found.display());
            root = found.parent().unwrap_or(Path::new(".")).to_path_buf();
            Some(found)
        } else {
            None
        };
        let testcases = common
            .testcases
            .clone()
            .unwrap_or_else(|| root.join("testcases"));
        // The problems of problem.toml files first: scoring.toml may name them.
        let text = file.as_ref().and_then(|f| std::fs::read_to_string(f).ok());
        let (named, tables) = tools::config::named_in_scoring(text.as_deref().unwrap_or(""));
        let builtin: Vec<&str> = problem::builtin().iter().map(|p| p.id()).collect();
        let folders = tools::config::folders(&testcases, &root, &named);
        let (defs, broken) = tools::discover(&folders, &builtin);
        for b in &broken {
            eprintln!("{}", b.warning());
        }
        tools::register(defs.clone());
        let mut known: Vec<(&str, _)> = problem::objectives();
        // scoring.toml may hold the settings of a problem whose problem.toml did not load.
        for b in &broken {
            known.push((b.id.as_str(), said_objective(tables.get(&b.id))));
        }
        let mut scoring = match &file {
            Some(f) => Scoring::load(f, &known).map_err(|e| Error::usage(e.to_string()))?,
            None => Scoring::default(),
        };
        tools::discover::register_broken(broken);
        for def in &defs {
            let merged = tools::config::merged_limits(def, tables.get(def.id))
                .map_err(|e| Error::usage(format!("{}: {e}", def.file.display())))?;
            scoring.problem.insert(def.id.to_string(), merged);
        }
        Ok(Context {
            scoring,
            root,
            testcases,
        })
    }

    /// The results folder: `given` (`--results`), or scoring.toml's, under the root.
    pub fn results(&self, given: Option<&Path>) -> PathBuf {
        given
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.root.join(&self.scoring.harness.results))
    }

    /// What a problem's tests are made from: its settings from scoring.toml, the test data
    /// folder and the key of secret seeds.
    pub fn env(&self, problem: &str, secret: Option<&Secret>) -> Env {
        Env {
            testcases: self.testcases.clone(),
            config: self.scoring.problem(problem),
            secret: secret.cloned(),
        }
    }
}

/// The nearest `scoring.toml` in a folder above the current one.
fn config_above() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .skip(1)
        .map(|dir| dir.join("scoring.toml"))
        .find(|path| path.is_file())
}

/// The objective a `[problem.<id>]` table of scoring.toml states (else the default).
fn said_objective(table: Option<&toml::Table>) -> crate::config::Objective {
    let said = table
        .and_then(|t| t.get("objective"))
        .and_then(|o| o.as_str());
    match said {
        Some("min") => crate::config::Objective::Minimize,
        _ => crate::config::Objective::Maximize,
    }
}

/// The problem with this id, or a usage error: why its problem.toml did not load, or the
/// known ids.
pub(crate) fn find_problem(id: &str) -> Result<Box<dyn Problem>> {
    if let Some(why) = tools::broken(id) {
        return Err(Error::usage(why));
    }
    problem::by_id(id).ok_or_else(|| {
        Error::usage(format!(
            "unknown problem {id:?} (known: {})",
            problem::ids().join(", ")
        ))
    })
}
