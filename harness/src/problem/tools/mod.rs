//! Problems described by configuration alone and judged by a contest's own tools: AtCoder's
//! `tools/` (`gen`, `vis`, `tester`) and TopCoder's `tester.jar`. One [`ToolProblem`] per
//! `problem.toml` ([`config`]), registered beside the built-in problems in
//! [`super::all`], so that the runner, the reports, compare, tune and shards never know which
//! kind of problem they run.
//!
//! - [`config`]: `problem.toml`, its checks and discovery (`testcases/*/problem.toml`,
//!   `[harness] problems` in scoring.toml).
//! - [`discover`]: loading them at start-up; a file that does not load stops only the
//!   commands that use its problem.
//! - [`inputs`]: each seed's input, made once per run by a contained `gen` (or read from the
//!   contest's ready files) and shared by every player; keyed seeds.
//! - [`judge`]: placeholders, the judge's working folder, reading the score, and
//!   [`judge::judge_outcome`] (what a judge's run means: OK, WA or ERR), which every shape
//!   uses.
//! - [`identity`]: the tools' hash (what defines them, not what they or a user leave there).
//! - [`batch`]: the batch shape's test (input on stdin, answer on stdout, then the judge).
//!
//! - [`drawing`]: the pictures drawn apart from the judging: an interactive problem's `vis`
//!   run over the tester's output, a picture named by the seed (a TopCoder tester's `-save`).
//!
//! - [`relayed`]: the interactive and TopCoder shapes, where the tool starts the player: it
//!   is given the relay's command (`sandbox::relay`) and the game proxies between the relay
//!   and the player's channel.
//!
//! - [`built`]: the contest's `build`, run in the harness's own copy of the tools (never in
//!   the contest's folder), kept in a cache by the tools' identity.
//!
//! The tools run contained ([`crate::sandbox::tool`]) in the run's isolation, and are built
//! before any test, or found built in the cache ([`ToolProblem::prepare`]: `build` in
//! problem.toml).

pub mod batch;
pub mod built;
pub mod config;
pub mod discover;
pub mod drawing;
pub mod identity;
pub mod inputs;
pub mod judge;
pub mod relayed;
mod starts;

use std::sync::{Arc, Mutex};

pub use config::{Def, Shape};
pub use discover::{broken, discover, Broken};

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

/// Makes the loaded problem `id` run its commands from `tools` (its built copy): every
/// problem made after this ([`loaded`]) uses it.
fn use_built(id: &str, tools: std::path::PathBuf) {
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    for def in loaded.iter_mut().filter(|d| d.id == id) {
        let mut built = Def::clone(def);
        built.tools = tools.clone();
        *def = Arc::new(built);
    }
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
    crate::sandbox::spec::EnvRules::base().resolve()
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
                    think(&env.config),
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
                    think(&env.config),
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
        // Built in the harness's cache, never in the contest's folder; with --no-build an
        // earlier build there, or the tools as they are.
        if let Some(tools) = built::build_in_cache(&self.def, build, builds)? {
            use_built(self.def.id, tools);
        }
        Ok(())
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

/// The thinking time a relayed tester lets its player take (its own time comes on top): the
/// time limit, or the wall clock's guard when the limit holds CPU time (`time-by = "cpu"`).
fn think(config: &crate::config::ProblemConfig) -> f64 {
    let limit = std::time::Duration::from_secs_f64(config.time_limit);
    crate::time_by::wall_limit(limit, config.time_by()).as_secs_f64()
}
