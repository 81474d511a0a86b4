//! The workspace of a test about contest tools, built in a temporary folder: `scoring.toml`,
//! problems `testcases/<id>/` (their `problem.toml` and a `tools` folder of small scripts or
//! of the bash fixtures of `tests/fixtures/tool-shapes/`), shell players `players/<name>/`,
//! and the harness binary's command run on them. The fixtures every such test shares (a gen
//! of one input a seed, a player answering twice its number) are here too. Reading a run's
//! results is [`super::scores`] and [`by_seed`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::write_exec;

/// gen: one input per non-empty line of its seeds file, `in/<index:04>.txt` holding
/// `seed % 1000 + 1` (`mkdir in` fails when it exists, like AtCoder's create_dir).
pub const SEEDS_GEN: &str = r#"#!/bin/sh
mkdir in || exit 1
i=0
while read s; do
  [ -z "$s" ] && continue
  echo $(( s % 1000 + 1 )) > in/$(printf %04d $i).txt
  i=$((i+1))
done < "$1"
"#;

/// A player (`sh main.sh`) that reads N and answers 2N.
pub const DOUBLE: &str = "read n\necho $((n * 2))\n";

/// A temporary workspace of contest-tool problems (removed when dropped).
pub struct ToolsWorkspace {
    dir: tempfile::TempDir,
}

impl ToolsWorkspace {
    /// An empty workspace (only `scoring.toml`) in the system's temporary folder.
    pub fn new() -> ToolsWorkspace {
        ToolsWorkspace::with_dir(tempfile::tempdir().unwrap())
    }

    /// An empty workspace in a folder of `parent` whose name starts with `prefix`.
    pub fn new_in(parent: &Path, prefix: &str) -> ToolsWorkspace {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir_in(parent)
            .unwrap();
        ToolsWorkspace::with_dir(dir)
    }

    fn with_dir(dir: tempfile::TempDir) -> ToolsWorkspace {
        std::fs::write(dir.path().join("scoring.toml"), "").unwrap();
        ToolsWorkspace { dir }
    }

    /// The workspace's folder.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `testcases/<id>`.
    pub fn problem(&self, id: &str) -> PathBuf {
        self.root().join("testcases").join(id)
    }

    /// `testcases/<id>/tools`.
    pub fn tools(&self, id: &str) -> PathBuf {
        self.problem(id).join("tools")
    }

    /// Problem `id`: its `problem.toml` is `text` (the tools come with [`Self::script`],
    /// [`Self::fixture_tool`] and [`Self::tool_file`]).
    pub fn problem_toml(&self, id: &str, text: &str) -> &Self {
        std::fs::create_dir_all(self.problem(id)).unwrap();
        std::fs::write(self.problem(id).join("problem.toml"), text).unwrap();
        self
    }

    /// An executable `tools/<name>` of problem `id` holding `body`.
    pub fn script(&self, id: &str, name: &str, body: &str) -> &Self {
        write_exec(&self.tools(id).join(name), body);
        self
    }

    /// The fixture `tests/fixtures/tool-shapes/<name>` copied, executable, as
    /// `tools/<name>` of problem `id`.
    pub fn fixture_tool(&self, id: &str, name: &str) -> &Self {
        let fixture = super::root()
            .join("harness/tests/fixtures/tool-shapes")
            .join(name);
        let dest = self.tools(id).join(name);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(fixture, &dest).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    /// A plain file `tools/<rel>` of problem `id` holding `text` (its folder made first).
    pub fn tool_file(&self, id: &str, rel: &str, text: &str) -> &Self {
        let path = self.tools(id).join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    /// Ready inputs of problem `id`: `in/<seed>.txt` holding `20 + seed`, for each of `seeds`.
    pub fn ready_inputs(&self, id: &str, seeds: std::ops::Range<u64>) -> &Self {
        let dir = self.problem(id).join("in");
        std::fs::create_dir_all(&dir).unwrap();
        for seed in seeds {
            std::fs::write(dir.join(format!("{seed}.txt")), format!("{}\n", 20 + seed)).unwrap();
        }
        self
    }

    /// Player `players/<name>` of `problem`, run as `sh main.sh`, `main.sh` being `script`.
    pub fn player(&self, name: &str, problem: &str, script: &str) -> &Self {
        super::sh_player(&self.root().join("players").join(name), problem, script);
        self
    }

    /// Player `players/<name>` of `problem` running the executable `exe` (a compiled
    /// fixture, copied into the player's folder) with `args`; returns its folder.
    pub fn exe_player(&self, name: &str, problem: &str, exe: &Path, args: &[&str]) -> PathBuf {
        let dir = self.root().join("players").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let file = exe.file_name().unwrap().to_str().unwrap();
        std::fs::copy(exe, dir.join(file)).unwrap();
        let mut command = vec![format!("./{file}")];
        command.extend(args.iter().map(|a| a.to_string()));
        std::fs::write(
            dir.join("player.toml"),
            format!("problem = \"{problem}\"\ncommand = {command:?}\n"),
        )
        .unwrap();
        dir
    }

    /// The harness binary, started in the workspace with no standard input and no
    /// `HARNESS_SECRET` of the test's environment.
    pub fn harness(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
        cmd.current_dir(self.root())
            .stdin(Stdio::null())
            .env_remove("HARNESS_SECRET");
        cmd
    }

    /// [`ToolsWorkspace::harness`] running `players/<p>` for each of `players` on `seeds`
    /// into `results`.
    pub fn command(&self, players: &[&str], seeds: &str, results: &Path) -> Command {
        let mut cmd = self.harness();
        cmd.arg("--players")
            .args(players.iter().map(|p| format!("players/{p}")))
            .args(["--seeds", seeds, "--results"])
            .arg(results);
        cmd
    }

    /// `command` run by user `uid` (no supplementary group) through `setpriv`, as the
    /// harness binary `program` (one that user may run): its arguments, its folder and its
    /// environment, with `HOME` the workspace.
    pub fn as_user(&self, uid: u32, program: &Path, command: &Command) -> Command {
        let mut cmd = Command::new("setpriv");
        cmd.arg(format!("--reuid={uid}"))
            .arg(format!("--regid={uid}"))
            .arg("--clear-groups")
            .arg(program)
            .args(command.get_args())
            .current_dir(self.root())
            .env("HOME", self.root())
            .stdin(Stdio::null());
        for (key, value) in command.get_envs() {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        cmd
    }

    /// Gives the workspace, and everything in it, to user `uid` (`chown -R`), as a
    /// competitor's own folder is theirs.
    pub fn give_to(&self, uid: u32) {
        let chown = Command::new("chown")
            .arg("-R")
            .arg(format!("{uid}:{uid}"))
            .arg(self.root())
            .status()
            .unwrap();
        assert!(chown.success());
    }
}

/// What `pick` takes of each row of the latest run in `results` (of `player`'s rows only
/// when given), by seed.
pub fn by_seed<T>(
    results: &Path,
    player: Option<&str>,
    pick: impl Fn(&BTreeMap<String, String>) -> T,
) -> BTreeMap<String, T> {
    super::scores(results)
        .iter()
        .filter(|r| player.is_none_or(|p| r["player"] == p))
        .map(|r| (r["seed"].clone(), pick(r)))
        .collect()
}
