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
use crate::problem::CaseError;
use crate::sandbox::beneath::{self, Rules};
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

/// Most bytes an input may hold (gen's, or a ready file).
pub const INPUT_CAP: u64 = 256 << 20;

/// What the harness accepts of an input file gen left (a file of its own: one name).
const GEN_INPUT: Rules = Rules {
    cap: INPUT_CAP,
    one_name: true,
};

/// What the harness accepts of a ready input (a contest folder's file may have other names:
/// a copy made with `cp -l`).
const READY_INPUT: Rules = Rules {
    cap: INPUT_CAP,
    one_name: false,
};

/// One made input.
#[derive(Debug)]
pub struct Made {
    /// Its file, in the run's scratch space: a copy the harness made of what gen left (or of
    /// the ready file), never a link.
    pub path: PathBuf,
    /// The seed the tools were given for it.
    pub tool_seed: u64,
}

impl Made {
    /// The input's text, read from the harness's own copy (never through a link).
    pub fn text(&self) -> Result<String, CaseError> {
        let failed = |e: beneath::Refused| CaseError::Io {
            path: self.path.clone(),
            source: std::io::Error::other(e.to_string()),
        };
        let folder = self.path.parent().unwrap_or(Path::new("/"));
        let name = Path::new(self.path.file_name().unwrap_or_default());
        let bytes = beneath::read(folder, name, GEN_INPUT).map_err(failed)?;
        String::from_utf8(bytes).map_err(|e| CaseError::Io {
            path: self.path.clone(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })
    }
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
        // One file per (seed, key): a new file each, never one that exists.
        let keyed = secret.map(|s| format!("-{}", s.fingerprint()));
        let path = store.join(format!("{seed}{}.txt", keyed.unwrap_or_default()));
        match &def.inputs {
            Inputs::ByJudge => return Err(format!("{}: the judge makes its own tests", def.id)),
            Inputs::Ready { dir, name } => {
                if secret.is_some() {
                    return Err(format!(
                        "{}: ready inputs ({}) cannot be keyed: a secret run needs inputs made \
                         by gen",
                        def.id,
                        dir.display()
                    ));
                }
                let file = name
                    .replace("{seed:04}", &format!("{seed:04}"))
                    .replace("{seed}", &seed.to_string());
                // Beneath the ready folder, never through a link: a link of the contest
                // folder is not followed to whatever it names.
                beneath::copy(dir, Path::new(&file), READY_INPUT, &path)
                    .map_err(|e| format!("no input for seed {seed}: in {}: {e}", dir.display()))?;
            }
            Inputs::Gen { command, dir } => {
                self.generate(def, isolation, env, (seed, given), (command, dir), &path)?
            }
        }
        Ok(Made {
            path,
            tool_seed: given,
        })
    }

    /// Runs gen for `seed` (given to it as `given`) in a fresh folder and copies the
    /// `<dir>/0000.txt` it leaves to `path`.
    fn generate(
        &self,
        def: &Def,
        isolation: &Isolation,
        env: &[(String, String)],
        (seed, given): (u64, u64),
        (command, dir): (&[String], &str),
        path: &Path,
    ) -> Result<(), String> {
        let folders = self.gen_folders.get_or_init(|| {
            Arc::new(JudgeFolders::new(
                &def.tools,
                vec![dir.to_string(), SEEDS.to_string()],
                vec![SEEDS.to_string()],
                Vec::new(),
            ))
        });
        let ws = folders
            .take(isolation)
            .map_err(|e| format!("cannot make gen's folder: {e}"))?;
        let seeds = ws.work().join(SEEDS);
        judge::open_made(&seeds)
            .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{given}\n").as_bytes()))
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
        // What gen left, read beneath its folder and never through a link: a gen that leaves
        // a link (to `/proc/self/environ`, to a file of the harness's user) is refused.
        let kept = run.succeeded().then(|| {
            beneath::copy(
                &ws.work(),
                &Path::new(dir).join("0000.txt"),
                GEN_INPUT,
                path,
            )
        });
        match kept {
            Some(Ok(())) => {
                ws.dispose();
                Ok(())
            }
            Some(Err(refused)) if !refused.missing() => {
                let said = run.last_lines(judge::REASON_LINES).replace('\n', " | ");
                Err(format!(
                    "gen for seed {seed} left {refused} (gen said: {said})"
                ))
            }
            _ => Err(gen_failed(def, &run, seed, dir)),
        }
    }
}

/// Why gen made no input: how it ended (or that it wrote none) and its last lines.
fn gen_failed(def: &Def, run: &tool::ToolRun, seed: u64, dir: &str) -> String {
    let timeout = Duration::from_secs_f64(def.judge_timeout);
    let what = if run.succeeded() {
        format!("wrote no {dir}/0000.txt")
    } else {
        run.describe_end(timeout)
    };
    let said = run.last_lines(judge::REASON_LINES).replace('\n', " | ");
    // Where its working folder is a copy, its large files and build folders are links to
    // the tools folder, read-only: say so.
    let hint = if said.contains("Read-only file system") || said.contains("Permission denied") {
        " (in process mode and under a root harness, gen's working folder is a copy of the tools folder whose files over 1 MiB and target/, .git/, node_modules/ are read-only links to the originals)".to_string()
    } else {
        String::new()
    };
    format!("gen for seed {seed} {what}: {said}{hint}")
}

/// The containment limits of a tool (gen or judge) of `def`: its memory limit also holds its
/// files (its folder in the scratch space, its HOME and /tmp), which with a cgroup are memory
/// charged to it and without one are capped on their own (`sandbox::tool`).
pub fn tool_limits(def: &Def) -> TestLimits {
    TestLimits {
        memory: def.judge_memory << 20,
        disk: def.judge_memory << 20,
        procs: 512,
        core_dumps: false,
    }
}
