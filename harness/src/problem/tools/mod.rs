//! Problems described by configuration alone and judged by a contest's own tools: AtCoder's
//! `tools/` (`gen`, `vis`, `tester`) and TopCoder's `tester.jar`. One [`ToolProblem`] per
//! `problem.toml` ([`config`]), registered beside the built-in problems in
//! [`super::all`], so that the runner, the reports, compare, tune and shards never know which
//! kind of problem they run.
//!
//! - [`config`]: `problem.toml`, its checks and discovery (`testcases/*/problem.toml`,
//!   `[harness] problems` in scoring.toml).
//! - [`inputs`]: each seed's input, made once per run by a contained `gen` (or read from the
//!   contest's ready files) and shared by every player; keyed seeds.
//! - [`judge`]: placeholders, the judge's working folder, reading the score, and
//!   [`judge::judge_outcome`] (what a judge's run means: OK, WA or ERR), which every shape
//!   uses.
//! - [`identity`]: the tools' hash (what defines them, not what they or a user leave there).
//! - [`batch`]: the batch shape's test (input on stdin, answer on stdout, then the judge).
//!
//! - [`scaffold`]: `harness new-problem`, a problem.toml written from a look at the tools.
//!
//! - [`relayed`]: the interactive and TopCoder shapes, where the tool starts the player: it
//!   is given the relay's command (`sandbox::relay`) and the game proxies between the relay
//!   and the player's channel.
//!
//! The tools run contained ([`crate::sandbox::tool`]) in the run's isolation, and are built
//! once per run, before any test ([`ToolProblem::prepare`]: `build` in problem.toml).

pub mod batch;
pub mod config;
pub mod identity;
pub mod inputs;
pub mod judge;
pub mod relayed;
pub mod scaffold;

use std::sync::{Arc, Mutex};

pub use config::{Def, Shape};

use super::{CaseError, CaseKey, Env, Game, Objective, Problem};
use crate::sandbox::{Isolation, Want};

/// The problems of the workspace's `problem.toml` files, read once at start-up.
static LOADED: Mutex<Vec<Arc<Def>>> = Mutex::new(Vec::new());

/// Makes `defs` the loaded problems (replacing those of an earlier load).
pub fn register(defs: Vec<Def>) {
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    *loaded = defs.into_iter().map(Arc::new).collect();
}

/// A fresh problem per loaded definition (its inputs are made anew: one per run).
pub(crate) fn loaded() -> Vec<Box<dyn Problem>> {
    LOADED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|def| Box::new(ToolProblem::new(def.clone())) as Box<dyn Problem>)
        .collect()
}

/// The definition of a loaded problem.
pub fn def(id: &str) -> Option<Arc<Def>> {
    LOADED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|d| d.id == id)
        .cloned()
}

/// One problem judged by its tools, with what one run of it makes (its inputs).
pub struct ToolProblem {
    pub def: Arc<Def>,
    inputs: inputs::Store,
    /// The run's isolation ([`Problem::attach`]), or outside a run (`harness gen`, a
    /// `--filter` on parameters while planning) one of the tools' own, made when first
    /// needed.
    isolation: Mutex<Option<Arc<Isolation>>>,
    /// The tools' hash, made once (a run joins it to each player's hash and writes it in
    /// run.toml: one reading of the folder for both, so they cannot differ).
    identity: std::sync::OnceLock<String>,
    /// The judges' (testers') folders, made ahead of the tests.
    folders: Arc<judge::JudgeFolders>,
}

impl ToolProblem {
    pub fn new(def: Arc<Def>) -> ToolProblem {
        ToolProblem {
            folders: Arc::new(match def.shape {
                Shape::Batch => batch::BatchGame::folders(&def),
                Shape::Interactive | Shape::Topcoder => relayed::RelayedGame::folders(&def),
            }),
            def,
            inputs: inputs::Store::default(),
            isolation: Mutex::new(None),
            identity: std::sync::OnceLock::new(),
        }
    }

    /// The isolation the tools run in: the run's, or one of their own.
    fn isolation(&self) -> Result<Arc<Isolation>, CaseError> {
        let mut held = self.isolation.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(iso) = &*held {
            return Ok(iso.clone());
        }
        let own = Isolation::prepare(Want::Auto, Want::Auto, &[])
            .map(Arc::new)
            .map_err(|e| CaseError::Tool(e.to_string()))?;
        *held = Some(own.clone());
        Ok(own)
    }
}

/// The environment every tool gets: PATH and a UTF-8 locale.
pub(crate) fn tool_env() -> Vec<(String, String)> {
    crate::runner::base_env(&[])
}

impl Problem for ToolProblem {
    fn id(&self) -> &'static str {
        self.def.id
    }

    fn title(&self) -> &'static str {
        self.def.title
    }

    fn objective(&self) -> Objective {
        self.def.objective
    }

    /// Every shape: the player's end is no news (a tester waits for it), and a crash or a
    /// failing exit turns the tool's WA into RE, as for an exact-answer problem.
    fn answers_at_exit(&self) -> bool {
        true
    }

    /// The tool ended the game and judged what it read; what the player writes later is
    /// what the tool ignores (or kills the player for) by hand.
    fn late_output_is_a_fault(&self) -> bool {
        false
    }

    fn param_names(&self) -> &'static [&'static str] {
        self.def.params
    }

    fn case(&self, key: &CaseKey, env: &Env) -> Result<Box<dyn Game>, CaseError> {
        let CaseKey::Seed(seed) = key else {
            return Err(CaseError::Unknown {
                problem: self.def.id,
                key: key.to_string(),
            });
        };
        let isolation = self.isolation()?;
        // The input of a batch or interactive test (gen's, or a ready file), made once per
        // (seed, key) for every player; a TopCoder tester makes its own from the seed.
        let input = || {
            self.inputs
                .get(
                    &self.def,
                    &isolation,
                    &tool_env(),
                    *seed,
                    env.secret.as_ref(),
                )
                .map_err(CaseError::Tool)
        };
        match self.def.shape {
            Shape::Batch => {
                let made = input()?;
                let game =
                    batch::BatchGame::new(self.def.clone(), isolation, made, self.folders.clone())?;
                Ok(Box::new(game))
            }
            Shape::Interactive => {
                let made = input()?;
                let tool_seed = made.tool_seed;
                let game = relayed::RelayedGame::new(
                    self.def.clone(),
                    isolation,
                    self.folders.clone(),
                    Some(made),
                    tool_seed,
                    env.config.time_limit,
                )?;
                Ok(Box::new(game))
            }
            Shape::Topcoder => {
                let tool_seed = inputs::tool_seed(env.secret.as_ref(), self.def.id, *seed);
                let game = relayed::RelayedGame::new(
                    self.def.clone(),
                    isolation,
                    self.folders.clone(),
                    None,
                    tool_seed,
                    env.config.time_limit,
                )?;
                Ok(Box::new(game))
            }
        }
    }

    fn missing_programs(&self, with_build: bool) -> Vec<String> {
        let def = &self.def;
        let mut commands: Vec<&Vec<String>> = Vec::new();
        if with_build {
            commands.extend(&def.build);
        }
        if let config::Inputs::Gen { command, .. } = &def.inputs {
            commands.push(command);
        }
        commands.push(&def.judge);
        let mut missing: Vec<String> = Vec::new();
        for command in commands {
            // A program of the tools folder may be made by the build: judged only if there.
            let program = judge::program(&def.tools, &command[0]);
            let found = match program.is_relative() {
                true => crate::needs::locate(&command[0]),
                false => program.is_file().then_some(program),
            };
            for name in crate::needs::missing(command, found.as_deref()) {
                if !missing.contains(&name) {
                    missing.push(name);
                }
            }
        }
        missing
    }

    fn prepare(&self, builds: &mut crate::build::Builds) -> Result<(), String> {
        // Said before a build that could only fail (`harness gen` on a machine without a JDK).
        let missing = self.missing_programs(!builds.refuse);
        if !missing.is_empty() {
            return Err(format!(
                "{}: the tools need {}",
                self.def.id,
                crate::needs::describe(&missing)
            ));
        }
        let Some(build) = &self.def.build else {
            return Ok(());
        };
        if builds.refuse {
            // --no-build: the tools are used as they are.
            return Ok(());
        }
        let mut cmd = std::process::Command::new(judge::program(&self.def.tools, &build[0]));
        // A contest's commands name what its build makes by the path its README gives
        // (`target/release/vis`): a target folder set in the user's environment would put it
        // elsewhere (and share it between contests whose packages are all named `tools`).
        cmd.args(&build[1..])
            .current_dir(&self.def.tools)
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET_DIR");
        builds.run(cmd).map(drop).map_err(|e| {
            let tail = last_lines(builds.log(), 20);
            format!(
                "{}: the tools' build ({}) {e}\n{tail}",
                self.def.id,
                build.join(" ")
            )
        })
    }

    fn attach(&self, isolation: &Arc<Isolation>) {
        *self.isolation.lock().unwrap_or_else(|e| e.into_inner()) = Some(isolation.clone());
    }

    fn direct_player(&self) -> bool {
        self.def.shape != Shape::Batch && self.def.relay == config::RelayMode::Direct
    }

    fn tests_made_by_tools(&self) -> bool {
        true
    }

    fn judge_identity(&self) -> Option<String> {
        Some(
            self.identity
                .get_or_init(|| identity::identity(&self.def))
                .clone(),
        )
    }
}

/// The last `n` lines of a log.
fn last_lines(log: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(log);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
