//! What the harness asks a sandbox for ([`Spec`], sent to the supervisor process as one JSON
//! line; its environment made by [`EnvRules`]) and what the supervisor answers when the test
//! is over ([`Report`]). Plain data: the two sides of the pipe share these types and nothing
//! else; only [`EnvRules::resolve`] reads the harness's own environment.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How a test is contained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Fresh user, PID, mount, network, IPC, UTS and cgroup namespaces; a private file
    /// system view.
    Namespaces,
    /// No namespaces: a new session, a clean environment, limits before exec and a child
    /// subreaper that finds and kills the whole process tree.
    Process,
}

/// Where a test's cgroups are made, when there are any.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cgroups {
    /// cgroup v1: the run's folders in the `memory` and `pids` hierarchies, and in the `cpu`
    /// and `cpuset` ones where they are mounted.
    V1 {
        memory: PathBuf,
        pids: PathBuf,
        #[serde(default)]
        cpu: Option<PathBuf>,
        #[serde(default)]
        cpuset: Option<PathBuf>,
        /// `cpu` and `cpuset` are not the run's folders but the worker's own
        /// ([`super::cgroup::for_this_worker`]): every test of the worker enters them, and
        /// the supervisor neither makes nor removes a folder of its own there.
        #[serde(default)]
        worker: bool,
    },
    /// cgroup v2: the run's folder (with `memory` and `pids` enabled for its children, and
    /// `cpu` and `cpuset` where they are delegated: `cpu_limits`).
    V2 {
        run: PathBuf,
        #[serde(default)]
        cpu_limits: bool,
    },
}

/// One read-only view of a host path inside the sandbox, at the same path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bind {
    pub path: PathBuf,
}

/// A contest tool's working folder as an overlay (namespaces only): the tools folder below,
/// the tool's own folder above, mounted at `upper`'s path ([`super::tool_view`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlay {
    pub lower: PathBuf,
    pub upper: PathBuf,
    /// The overlay's own work folder, beside `upper`.
    pub work: PathBuf,
}

/// Everything the supervisor needs to start one player.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Spec {
    pub mode: Mode,
    /// The program, as a path valid inside the sandbox (and on the host: views keep paths).
    pub program: PathBuf,
    /// argv, the program's name first.
    pub argv: Vec<String>,
    /// The player's whole environment.
    pub env: Vec<(String, String)>,
    /// Namespaces: the working directory inside the sandbox. Process mode: the host folder
    /// made for this test.
    pub cwd: PathBuf,
    /// Read-only views (the player's folder, its program); namespaces only.
    pub binds: Vec<Bind>,
    /// Writable views of host folders at their own paths, after the read-only ones: a build's
    /// private copy and output folder ([`super::build`]); namespaces only. Empty for a test.
    #[serde(default)]
    pub writable_binds: Vec<PathBuf>,
    /// A tool's working folder shown as an overlay of the tools folder, mounted after the
    /// writable binds (inside one of them).
    #[serde(default)]
    pub overlay: Option<Overlay>,
    /// An empty host folder to build the new root on (namespaces only).
    pub root: PathBuf,
    /// The run's prepared /etc (namespaces only).
    pub etc: PathBuf,
    /// Bytes of memory for the whole test (cgroup), 0 = none.
    pub memory: u64,
    /// Address-space limit per process when there is no cgroup (RLIMIT_AS), 0 = none.
    pub address_space: u64,
    /// Bytes of the test's writable space (tmpfs size; RLIMIT_FSIZE in process mode).
    pub disk: u64,
    /// Processes and threads of the test at once, 0 = none.
    pub procs: u64,
    pub cgroups: Option<Cgroups>,
    /// Process mode: the folders landlock lets the player read and execute, and write.
    pub landlock_read: Vec<PathBuf>,
    pub landlock_write: Vec<PathBuf>,
    /// Leave RLIMIT_CORE as the harness had it (`--core-dumps`).
    pub core_dumps: bool,
    /// Seconds of CPU each process of the test may use (RLIMIT_CPU), 0 = none: for a player
    /// the harness does not talk to (`relay = "direct"`), whose thinking clock it cannot
    /// run, its time limit; for any other, its time limit plus the grace period (its CPU
    /// time past those is TLE as well), a second more each.
    #[serde(default)]
    pub cpu_seconds: u64,
    /// The harness's own host uid and gid.
    pub outer_uid: u32,
    pub outer_gid: u32,
    /// The host uid and gid the player runs as when they are not the harness's own: under a
    /// root harness, never root ([`super::ids::player_ids`]), in every mode.
    #[serde(default)]
    pub player_ids: Option<(u32, u32)>,
    /// Namespaces: the supervisor gets a network namespace of the run's pool, with the user
    /// namespace that owns it, as descriptors 5 and 6, and joins them instead of making a
    /// network namespace for the test.
    #[serde(default)]
    pub shared_net: bool,
    /// Namespaces, with `shared_net`: the player's view kept in the borrowed namespace is
    /// handed over as descriptors 7 (its mount namespace) and 8 (its user namespace), and
    /// the test adds only its own parts to it ([`super::kept_view`]). Set by the launch.
    #[serde(default)]
    pub kept_view: bool,
    /// Namespaces, with `kept_view`: the test runs in the kept view's own init instead of one
    /// of its own ([`super::kept_init`]), reached through the socket handed over as
    /// descriptor 5 (instead of 5 to 8). Set by the launch.
    #[serde(default)]
    pub kept_init: bool,
    /// The program, set up and contained, waits for one byte on its stdin before its exec,
    /// and never runs if end of file comes first: a contest's judge made ready while the
    /// player runs ([`super::tool::Held`]).
    #[serde(default)]
    pub hold: bool,
    /// Process mode: the seccomp filter also refuses the calls that change a file's mode,
    /// owner or ACL by its path (a player's: [`super::seccomp`]); false for a build, whose
    /// linker sets its output's mode, and for a contest's tool.
    #[serde(default)]
    pub refuse_mode_changes: bool,
}

/// The environment a contained program starts with, as policy (as isolate keeps its
/// environment rules): rules applied in order over a start, each one keeping a variable of
/// the harness's own environment or setting one. [`EnvRules::resolve`] makes the variables
/// of a [`Spec`]; a player's, a build's and a contest tool's all start from
/// [`EnvRules::base`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvRules {
    /// The variables the rules apply over, in order.
    start: Vec<(String, String)>,
    rules: Vec<EnvRule>,
}

/// One rule of [`EnvRules`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvRule {
    /// The harness's own value of `name`, replacing one of that name before; `otherwise`
    /// when the harness has none (and when neither, nothing).
    Keep {
        name: String,
        otherwise: Option<String>,
    },
    /// This value, replacing one of that name before.
    Set { name: String, value: String },
    /// This value after those before, even one of its name (which stays, first).
    Add { name: String, value: String },
}

/// PATH when the harness has none.
const PLAIN_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

impl EnvRules {
    /// Where every contained program's environment starts: the harness's PATH (so `python3`
    /// and `java` are found; a plain one when it has none) and a UTF-8 locale.
    pub fn base() -> EnvRules {
        EnvRules::over(Vec::new())
            .rule(EnvRule::Keep {
                name: "PATH".into(),
                otherwise: Some(PLAIN_PATH.into()),
            })
            .rule(EnvRule::Add {
                name: "LANG".into(),
                value: "C.UTF-8".into(),
            })
            .rule(EnvRule::Add {
                name: "LC_ALL".into(),
                value: "C.UTF-8".into(),
            })
    }

    /// Rules applied over `start`, variables already made (a run's base, resolved once).
    pub fn over(start: Vec<(String, String)>) -> EnvRules {
        EnvRules {
            start,
            rules: Vec::new(),
        }
    }

    /// And one rule more, applied after the others.
    pub fn rule(mut self, rule: EnvRule) -> EnvRules {
        self.rules.push(rule);
        self
    }

    /// And the harness's own `names` (`[harness] pass-env`), those it has.
    pub fn keep(self, names: &[String]) -> EnvRules {
        names.iter().fold(self, |rules, name| {
            rules.rule(EnvRule::Keep {
                name: name.clone(),
                otherwise: None,
            })
        })
    }

    /// And `vars`, in order, each replacing one of its name before.
    pub fn set(self, vars: &[(String, String)]) -> EnvRules {
        vars.iter().fold(self, |rules, (name, value)| {
            rules.rule(EnvRule::Set {
                name: name.clone(),
                value: value.clone(),
            })
        })
    }

    /// The variables: the start, then each rule in order.
    pub fn resolve(&self) -> Vec<(String, String)> {
        let mut env = self.start.clone();
        for rule in &self.rules {
            match rule {
                EnvRule::Keep { name, otherwise } => {
                    let own = std::env::var(name).ok().or_else(|| otherwise.clone());
                    if let Some(value) = own {
                        env.retain(|(k, _)| k != name);
                        env.push((name.clone(), value));
                    }
                }
                EnvRule::Set { name, value } => {
                    env.retain(|(k, _)| k != name);
                    env.push((name.clone(), value.clone()));
                }
                EnvRule::Add { name, value } => env.push((name.clone(), value.clone())),
            }
        }
        env
    }
}

/// How the player process ended (the same as a reaped process's).
pub use crate::os::Exit;

/// Why the player never ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StartError {
    /// The machine refused (EAGAIN, ENOMEM: out of processes or memory): not the player's
    /// fault; retried, then ERR.
    Refused(String),
    /// exec failed (no such file, not executable, bad format): the player's fault.
    Exec(String),
    /// The sandbox could not be set up: the harness's fault.
    Setup(String),
}

impl StartError {
    /// Whether a failure means the machine refused (out of processes or memory).
    pub(crate) fn is_refusal(e: &std::io::Error) -> bool {
        matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::ENOMEM))
    }

    /// A failure of the harness's own set-up: refused by the machine, or the sandbox's fault.
    pub(crate) fn of_setup(e: &std::io::Error, what: &str) -> StartError {
        if StartError::is_refusal(e) {
            StartError::Refused(format!("{what}: {e}"))
        } else {
            StartError::Setup(format!("{what}: {e}"))
        }
    }
}

/// The supervisor's answer, written once the test's processes are all gone.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    /// The player's own exit (None: it was killed with the test, or never started).
    pub exit: Option<Exit>,
    pub start_error: Option<StartError>,
    /// CPU time of every process of the test (user + system), microseconds: what the init
    /// reaped, or the test's cgroup v2 counter, or its sampled tree where that shows more
    /// (processes reaped by the kernel: `tree_cpu`).
    pub cpu_us: u64,
    /// Peak memory of the test in KiB: the cgroup's peak where there is one, else the
    /// largest peak RSS of the test's processes.
    pub max_memory_kb: u64,
    /// The memory cgroup's limit was hit and the kernel killed a process for it.
    pub oom_killed: bool,
    /// The memory cgroup refused memory at least once (allocations failed or were reclaimed).
    pub memory_limit_hit: bool,
    /// The pids cgroup refused a fork.
    pub procs_limit_hit: bool,
    /// Every process of the test is known to be gone (its init reaped them all in time).
    #[serde(default)]
    pub all_gone: bool,
    /// The sandbox itself failed during the test (the test's init ended without a report):
    /// the harness's fault, never the player's verdict. Why, in words.
    #[serde(default)]
    pub failure: Option<String>,
    /// Harness-side notes (a cgroup that could not be removed...), for the log.
    pub notes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    #[test]
    fn the_base_is_path_then_a_utf8_locale_then_the_kept_variables_the_harness_has() {
        let path = std::env::var("PATH").unwrap_or_else(|_| PLAIN_PATH.into());
        let kept = ["HARNESS_SPEC_TEST_UNSET".to_string(), "PATH".to_string()];
        let env = EnvRules::base().keep(&kept).resolve();
        // PATH kept again replaces the first: it moves to the end.
        assert_eq!(
            env,
            [
                pair("LANG", "C.UTF-8"),
                pair("LC_ALL", "C.UTF-8"),
                pair("PATH", &path)
            ]
        );
    }

    #[test]
    fn set_replaces_a_variable_of_its_name_and_add_does_not() {
        let start = vec![pair("A", "1"), pair("B", "2")];
        let env = EnvRules::over(start)
            .rule(EnvRule::Add {
                name: "B".into(),
                value: "3".into(),
            })
            .set(&[pair("A", "4"), pair("C", "5")])
            .resolve();
        assert_eq!(
            env,
            [
                pair("B", "2"),
                pair("B", "3"),
                pair("A", "4"),
                pair("C", "5")
            ]
        );
    }
}
