//! The input of each seed, made once per (problem, seed, key) in a run and shared by every
//! player: a contained `gen` run over a one-line seeds file in a fresh folder, or a ready
//! file of the contest's. Inputs live in the run's scratch space, which no player's sandbox
//! shows: a player only ever gets its own input, on stdin.
//!
//! With a secret key the seed handed to the tool is derived from the key ([`tool_seed`]), so
//! nobody can make a keyed run's inputs in advance.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::config::{Def, Inputs};
use super::judge::{self, JudgeFolders, Placeholders};
use crate::sandbox::scratch;
use crate::sandbox::tool::{self, Stdin, ToolCommand};
use crate::sandbox::{Isolation, TestLimits};
use crate::secret::Secret;

/// The seed a tool is given for the harness seed `seed`: the seed itself, or with a key the
/// first 63 bits of the keyed stream's seed (a non-negative `long` for a Java tester, a
/// `u64` for a Rust gen).
pub fn tool_seed(secret: Option<&Secret>, problem: &str, seed: u64) -> u64 {
    match secret {
        None => seed,
        Some(key) => {
            let bytes = key.stream_seed(problem, seed);
            u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")) >> 1
        }
    }
}

/// The seeds file gen is given, in its working folder.
const SEEDS: &str = "harness-seeds.txt";

/// One made input.
#[derive(Debug)]
pub struct Made {
    /// Its file, in the run's scratch space.
    pub path: PathBuf,
    /// The seed the tools were given for it.
    pub tool_seed: u64,
}

type Slot = Arc<OnceLock<Result<Arc<Made>, String>>>;

/// The inputs of one run of one problem.
#[derive(Debug, Default)]
pub struct Store {
    made: Mutex<HashMap<(u64, Option<String>), Slot>>,
    dir: OnceLock<Result<scratch::Locked, String>>,
    /// gen's working folders, made a little ahead of the tests that need them, as the judges'
    /// are ([`JudgeFolders`]): a fresh folder per seed, off the test's path.
    gen_folders: OnceLock<Arc<JudgeFolders>>,
}

impl Store {
    /// The input of `seed` (with `secret`): made now by the first test that needs it, then
    /// the same file for every other. A failure (gen cannot start, crashes, hangs, writes no
    /// file) is the harness's, with the tool's last lines.
    pub fn get(
        &self,
        def: &Def,
        isolation: &Isolation,
        env: &[(String, String)],
        seed: u64,
        secret: Option<&Secret>,
    ) -> Result<Arc<Made>, String> {
        let key = (seed, secret.map(|s| s.fingerprint().to_string()));
        let slot = {
            let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
            made.entry(key).or_default().clone()
        };
        slot.get_or_init(|| self.make(def, isolation, env, seed, secret).map(Arc::new))
            .clone()
    }

    /// The run's inputs folder: a temporary folder of the harness's, which no sandbox shows.
    fn folder(&self) -> Result<&Path, String> {
        self.dir
            .get_or_init(|| {
                scratch::locked_folder(scratch::base(), scratch::INPUTS_PREFIX, 0o700)
                    .map_err(|e| format!("cannot make the inputs folder: {e}"))
            })
            .as_ref()
            .map(|d| d.path())
            .map_err(Clone::clone)
    }

    fn make(
        &self,
        def: &Def,
        isolation: &Isolation,
        env: &[(String, String)],
        seed: u64,
        secret: Option<&Secret>,
    ) -> Result<Made, String> {
        let given = tool_seed(secret, def.id, seed);
        let store = self.folder()?;
        let path = store.join(format!("{seed}.txt"));
        match &def.inputs {
            Inputs::ByJudge => Err(format!("{}: the judge makes its own tests", def.id)),
            Inputs::Ready { dir, name } => {
                if secret.is_some() {
                    return Err(format!(
                        "{}: ready inputs ({}) cannot be keyed: a secret run needs inputs made \
                         by gen",
                        def.id,
                        dir.display()
                    ));
                }
                let file = dir.join(
                    name.replace("{seed:04}", &format!("{seed:04}"))
                        .replace("{seed}", &seed.to_string()),
                );
                std::fs::copy(&file, &path)
                    .map_err(|e| format!("no input for seed {seed}: {}: {e}", file.display()))?;
                Ok(Made {
                    path,
                    tool_seed: given,
                })
            }
            Inputs::Gen { command, dir } => {
                let folders = self.gen_folders.get_or_init(|| {
                    Arc::new(JudgeFolders::new(
                        &def.tools,
                        vec![dir.clone(), SEEDS.to_string()],
                        vec![SEEDS.to_string()],
                        Vec::new(),
                    ))
                });
                let ws = folders
                    .take(isolation)
                    .map_err(|e| format!("cannot make gen's folder: {e}"))?;
                let seeds = ws.work().join(SEEDS);
                judge::open_made(&seeds)
                    .and_then(|mut f| {
                        std::io::Write::write_all(&mut f, format!("{given}\n").as_bytes())
                    })
                    .map_err(|e| format!("cannot write the seeds file: {e}"))?;
                let values = Placeholders {
                    seed: Some(given),
                    seeds: Some(seeds),
                    ..Placeholders::default()
                };
                let args = values.apply(command);
                let cmd = ToolCommand {
                    program: judge::program(&def.tools, &args[0]),
                    args: args[1..].to_vec(),
                    tools: def.tools.clone(),
                    read_only: Vec::new(),
                    env: env.to_vec(),
                    stdin: Stdin::Null,
                    stdout: None,
                    timeout: Duration::from_secs_f64(def.judge_timeout),
                    limits: tool_limits(def),
                    max_output: 64 << 20,
                };
                let run = tool::run(isolation, &cmd, &ws);
                let made = ws.work().join(dir).join("0000.txt");
                if !run.succeeded() || !made.is_file() {
                    let timeout = Duration::from_secs_f64(def.judge_timeout);
                    let what = if run.succeeded() {
                        format!("wrote no {dir}/0000.txt")
                    } else {
                        run.describe_end(timeout)
                    };
                    let said = run.last_lines(judge::REASON_LINES).replace('\n', " | ");
                    // Where its working folder is a copy, its large files and build
                    // folders are links to the tools folder, read-only: say so.
                    let hint = if said.contains("Read-only file system")
                        || said.contains("Permission denied")
                    {
                        " (in process mode and under a root harness, gen's working folder is a copy of the tools folder whose files over 1 MiB and target/, .git/, node_modules/ are read-only links to the originals)".to_string()
                    } else {
                        String::new()
                    };
                    return Err(format!("gen for seed {seed} {what}: {said}{hint}"));
                }
                std::fs::rename(&made, &path)
                    .or_else(|_| std::fs::copy(&made, &path).map(drop))
                    .map_err(|e| format!("cannot keep the input of seed {seed}: {e}"))?;
                ws.dispose();
                Ok(Made {
                    path,
                    tool_seed: given,
                })
            }
        }
    }
}

/// The containment limits of a tool (gen or judge) of `def`.
pub fn tool_limits(def: &Def) -> TestLimits {
    TestLimits {
        memory: def.judge_memory << 20,
        disk: 1 << 30,
        procs: 512,
        core_dumps: false,
    }
}
