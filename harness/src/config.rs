//! `scoring.toml`: per-problem defaults (limits, example seeds) and harness settings.
//!
//! Parsed once at start-up into plain values; command-line flags override them in `cli`.
//! Unknown keys are errors, so a typo never silently falls back to a default.

use std::collections::BTreeMap;
use std::path::Path;

use clap::ValueEnum;
use serde::Deserialize;

/// Whether a higher or a lower raw score is better (`objective = "max"` or `"min"` in
/// `scoring.toml`); each problem's judge decides its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
pub enum Objective {
    #[serde(rename = "max")]
    Maximize,
    #[serde(rename = "min")]
    Minimize,
}

/// What a problem's players are ranked by (`rank-by` in scoring.toml's `[problem.<id>]` or
/// problem.toml's `[limits]`, `--rank-by` on the command line): the leaderboard's order,
/// `compare`'s order and what `harness tune` optimises. Defined in docs/compare.md; the
/// arithmetic is in `rank::yardstick`.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Deserialize,
    serde::Serialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum RankBy {
    /// AtCoder's and TopCoder's relative score: per test YOURS/BEST (or BEST/YOURS when
    /// minimising), a failed test 0, averaged.
    #[default]
    Relative,
    /// pahcer's rank score: per test, 100 x (1 - (players better + half those tied) / players
    /// with a score), a failed test 0, averaged.
    Rank,
    /// pahcer's and psytester's log average: fewer failed tests first, then the mean of log10
    /// of the OK scores.
    Log,
    /// The raw mean score (a failed test counting 0 when maximising; when minimising, fewer
    /// failed tests first, then the mean of the OK tests).
    Raw,
}

impl RankBy {
    /// The setting's spelling (`relative`), for messages and headers: the one `--rank-by`
    /// and the config files read.
    pub fn name(self) -> String {
        self.to_possible_value()
            .expect("every RankBy is a --rank-by value")
            .get_name()
            .to_owned()
    }
}

/// Which tests of a run keep their transcript on disk: `--transcripts`, or `transcripts` in
/// scoring.toml's `[harness]`.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Deserialize,
    serde::Serialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Keep {
    /// No test (no replays either): the disk a million-seed run needs for its scores only.
    None,
    /// The tests whose verdict is not OK.
    Failed,
    /// Every test.
    #[default]
    All,
}

impl Keep {
    /// Whether a test that ended with `verdict` keeps its transcript.
    pub fn keeps(self, verdict: crate::verdict::Verdict) -> bool {
        match self {
            Keep::None => false,
            Keep::Failed => verdict != crate::verdict::Verdict::Ok,
            Keep::All => true,
        }
    }

    /// The setting's spelling (`failed`), for messages and `run.toml`: the one
    /// `--transcripts` and scoring.toml read.
    pub fn name(self) -> String {
        self.to_possible_value()
            .expect("every Keep is a --transcripts value")
            .get_name()
            .to_owned()
    }

    /// Reads the setting back from its spelling.
    pub fn parse(text: &str) -> Option<Keep> {
        <Keep as ValueEnum>::from_str(text, false).ok()
    }
}

/// The whole `scoring.toml`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Scoring {
    pub harness: HarnessSettings,
    /// `[problem.<id>]` tables.
    pub problem: BTreeMap<String, ProblemConfig>,
}

/// `[harness]`: settings of the harness itself.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct HarnessSettings {
    /// Pin each worker thread, and the player it starts, to one core. A round trip between
    /// processes on different cores of a virtual machine costs ~10x more than on one core.
    /// A multi-threaded player is then limited to that core.
    pub pin_cpus: bool,
    /// Where runs are written.
    pub results: String,
    /// The relative score of a player who is best on every test (TopCoder's 1,000,000).
    pub relative_scale: f64,
    /// Each test in its own namespaces: `auto` (where the machine allows), `require`, `off`.
    pub sandbox: crate::sandbox::Want,
    /// A cgroup per test (memory and process slots): `auto`, `require`, `off`.
    pub cgroup: crate::sandbox::Want,
    /// Variables of the user's environment passed to every player, by name.
    pub pass_env: Vec<String>,
    /// More host folders every sandboxed player sees, read-only (an interpreter's install).
    pub sandbox_bind: Vec<std::path::PathBuf>,
    /// Seconds a player's build (`cargo build`) may take before it is killed (exit 2).
    pub build_timeout: f64,
    /// Run every build in a sandbox (`crate::build`), as a run with a secret key or
    /// `--build-sandbox` does.
    pub build_sandbox: bool,
    /// Megabytes of memory a contained build may hold (its whole tree).
    pub build_memory_limit: u64,
    /// Which tests keep their transcript: `all`, `failed` (verdict not OK) or `none`.
    pub transcripts: Keep,
    /// More folders holding a `problem.toml` (a contest's checkout outside the workspace),
    /// relative to this file; `testcases/*/problem.toml` are found without being named.
    pub problems: Vec<std::path::PathBuf>,
    /// The clock every problem's time limit holds unless its own `time-by` says (`"think"`
    /// or `"cpu"`); `--time-by` outranks both.
    pub time_by: Option<crate::time_by::TimeBy>,
}

impl Default for HarnessSettings {
    fn default() -> Self {
        HarnessSettings {
            pin_cpus: true,
            results: "results".to_string(),
            relative_scale: 1_000_000.0,
            sandbox: crate::sandbox::Want::Auto,
            cgroup: crate::sandbox::Want::Auto,
            pass_env: Vec::new(),
            sandbox_bind: Vec::new(),
            build_timeout: 600.0,
            build_sandbox: false,
            build_memory_limit: 4096,
            transcripts: Keep::All,
            problems: Vec::new(),
            time_by: None,
        }
    }
}

/// `[problem.<id>]`: limits and defaults of one problem.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct ProblemConfig {
    /// Seconds of the player's own thinking time per test, summed over the game (or of its
    /// CPU time, with `time-by = "cpu"`).
    pub time_limit: f64,
    /// The clock the time limit holds: `"think"` (thinking time) or `"cpu"` (CPU time);
    /// `None` when no layer said (see [`ProblemConfig::time_by`]).
    pub time_by: Option<crate::time_by::TimeBy>,
    /// Address-space limit of the player in MB (0 = none).
    pub memory_limit: u64,
    /// Seconds a player may take to exit after its input is closed before it is killed.
    pub grace: f64,
    /// The seeds `--seeds examples` means (a seed spec such as `1..10`).
    pub examples: String,
    /// Longest line a player may write, in bytes.
    pub max_line: usize,
    /// Most bytes a player may write to stdout in one test.
    pub max_output: u64,
    /// Most bytes of a player's stderr kept per test (the tail is kept).
    pub max_stderr: u64,
    /// MB of the test's writable space (working folder, HOME, /tmp, /dev/shm), counted
    /// together; in process mode, the largest file a player may write.
    pub max_disk: u64,
    /// Processes and threads of one test at once.
    pub max_procs: u64,
    /// The most moves a game may last (problems with unbounded games); 0 = no cap.
    pub move_cap: u64,
    /// Whether higher (`"max"`) or lower (`"min"`) raw scores are better. The problem's
    /// judge is the source of truth (it computes the score); this key states it where users
    /// read, and a value that contradicts the judge is an error rather than an override.
    pub objective: Option<Objective>,
    /// What players are ranked by: `relative` (the default), `rank`, `log` or `raw`.
    pub rank_by: RankBy,
}

impl Default for ProblemConfig {
    fn default() -> Self {
        ProblemConfig {
            time_limit: 20.0,
            time_by: None,
            memory_limit: 1024,
            grace: 1.0,
            examples: "1..10".to_string(),
            max_line: 1 << 16,
            max_output: 64 << 20,
            max_stderr: 1 << 20,
            max_disk: 256,
            max_procs: 256,
            move_cap: 0,
            objective: None,
            rank_by: RankBy::Relative,
        }
    }
}

impl ProblemConfig {
    /// The clock the time limit holds: the first layer that says, of `--time-by` (set by
    /// the run's plan), the problem's own `time-by` (scoring.toml's `[problem.<id>]`,
    /// problem.toml's `[limits]`) and `[harness] time-by` ([`Scoring::problem`] fills it in);
    /// thinking time when none does.
    pub fn time_by(&self) -> crate::time_by::TimeBy {
        self.time_by.unwrap_or_default()
    }
}

/// `scoring.toml` could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

impl Scoring {
    /// Reads and checks a `scoring.toml`. Errors name the file, and the line and column.
    pub fn load(path: &Path, known_problems: &[(&str, Objective)]) -> Result<Scoring, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Scoring::parse(&text, &path.display().to_string(), known_problems)
    }

    /// Parses the text of a `scoring.toml`; `path` is only used in messages.
    pub fn parse(
        text: &str,
        path: &str,
        known_problems: &[(&str, Objective)],
    ) -> Result<Scoring, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_string(),
            message,
        };
        let scoring: Scoring = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        for (id, cfg) in &scoring.problem {
            let Some(&(_, judged)) = known_problems.iter().find(|(known, _)| known == id) else {
                let names: Vec<&str> = known_problems.iter().map(|(known, _)| *known).collect();
                return Err(invalid(format!(
                    "unknown problem [problem.{id}] (known: {})",
                    names.join(", ")
                )));
            };
            if !(cfg.time_limit > 0.0 && cfg.time_limit.is_finite()) {
                return Err(invalid(format!(
                    "[problem.{id}] time-limit must be a positive number of seconds"
                )));
            }
            if let Some(said) = cfg.objective {
                if said != judged {
                    let truth = match judged {
                        Objective::Maximize => "maximised",
                        Objective::Minimize => "minimised",
                    };
                    return Err(invalid(format!(
                        "[problem.{id}] objective = {:?}, but {id} scores are {truth} (its judge decides)",
                        objective_name(said)
                    )));
                }
            }
            if cfg.max_disk == 0 || cfg.max_procs == 0 {
                return Err(invalid(format!(
                    "[problem.{id}] max-disk and max-procs must be at least 1"
                )));
            }
            if !(cfg.grace >= 0.0 && cfg.grace.is_finite()) {
                return Err(invalid(format!(
                    "[problem.{id}] grace must be a non-negative number of seconds"
                )));
            }
        }
        let scale = scoring.harness.relative_scale;
        if !(scale > 0.0 && scale.is_finite()) {
            return Err(invalid(format!(
                "[harness] relative-scale = {scale}: must be a positive number"
            )));
        }
        let build = scoring.harness.build_timeout;
        if !(build > 0.0 && build.is_finite()) {
            return Err(invalid(format!(
                "[harness] build-timeout = {build}: must be a positive number of seconds"
            )));
        }
        if scoring.harness.build_memory_limit == 0 {
            return Err(invalid(
                "[harness] build-memory-limit = 0: must be a positive number of megabytes"
                    .to_string(),
            ));
        }
        Ok(scoring)
    }

    /// The settings of one problem (defaults when the file has no table for it), its clock
    /// from `[harness] time-by` when the problem's own settings do not say.
    pub fn problem(&self, id: &str) -> ProblemConfig {
        let mut config = self.problem.get(id).cloned().unwrap_or_default();
        config.time_by = config.time_by.or(self.harness.time_by);
        config
    }
}

/// The `scoring.toml` spelling of an objective.
pub(crate) fn objective_name(o: Objective) -> &'static str {
    match o {
        Objective::Maximize => "max",
        Objective::Minimize => "min",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_error_names_line_and_column() {
        let err = Scoring::parse(
            "[problem.chesspuzzle]\ntime-limit = \"soon\"\n",
            "scoring.toml",
            &[("chesspuzzle", Objective::Maximize)],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("scoring.toml"), "{err}");
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("column"), "{err}");
    }

    #[test]
    fn unknown_key_and_unknown_problem_are_errors() {
        let err = Scoring::parse(
            "[problem.chesspuzzle]\ntime-limt = 3\n",
            "s",
            &[("chesspuzzle", Objective::Maximize)],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("time-limt"), "{err}");
        let err = Scoring::parse(
            "[problem.chess]\n",
            "s",
            &[("chesspuzzle", Objective::Maximize)],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("unknown problem [problem.chess]"), "{err}");
    }

    #[test]
    fn missing_keys_take_defaults() {
        let s = Scoring::parse(
            "[problem.chesspuzzle]\nmemory-limit = 64\n",
            "s",
            &[("chesspuzzle", Objective::Maximize)],
        )
        .unwrap();
        let cfg = s.problem("chesspuzzle");
        assert_eq!(cfg.memory_limit, 64);
        assert_eq!(cfg.time_limit, 20.0);
        assert_eq!(cfg.time_by(), crate::time_by::TimeBy::Think);
    }

    #[test]
    fn time_by_is_think_or_cpu() {
        let known = [("chesspuzzle", Objective::Maximize)];
        let s = Scoring::parse("[problem.chesspuzzle]\ntime-by = \"cpu\"\n", "s", &known);
        let cfg = s.unwrap().problem("chesspuzzle");
        assert_eq!(cfg.time_by(), crate::time_by::TimeBy::Cpu);
        let err = Scoring::parse("[problem.chesspuzzle]\ntime-by = \"wall\"\n", "s", &known)
            .unwrap_err()
            .to_string();
        assert!(err.contains("wall") && err.contains("line 2"), "{err}");
    }

    #[test]
    fn the_harness_time_by_holds_where_a_problem_does_not_say() {
        use crate::time_by::TimeBy::{Cpu, Think};
        let known = [
            ("chesspuzzle", Objective::Maximize),
            ("linez", Objective::Maximize),
        ];
        let text = "[harness]\ntime-by = \"cpu\"\n[problem.linez]\ntime-by = \"think\"\n";
        let s = Scoring::parse(text, "s", &known).unwrap();
        assert_eq!(s.harness.time_by, Some(Cpu));
        // No table, or a table without time-by: [harness]'s; the problem's own outranks it.
        assert_eq!(s.problem("chesspuzzle").time_by(), Cpu);
        assert_eq!(s.problem("linez").time_by(), Think);
        // Neither says: thinking time.
        let plain = Scoring::parse("[problem.linez]\nmemory-limit = 9\n", "s", &known).unwrap();
        assert_eq!(plain.problem("linez").time_by, None);
        assert_eq!(plain.problem("linez").time_by(), Think);
        let err = Scoring::parse("[harness]\ntime-by = \"wall\"\n", "s", &known)
            .unwrap_err()
            .to_string();
        assert!(err.contains("wall") && err.contains("line 2"), "{err}");
    }

    #[test]
    fn objective_must_agree_with_the_judge_and_scale_must_be_positive() {
        let ok = Scoring::parse(
            "[harness]\nrelative-scale = 100\n[problem.linez]\nobjective = \"max\"\n",
            "s",
            &[("linez", Objective::Maximize)],
        )
        .unwrap();
        assert_eq!(ok.problem("linez").objective, Some(Objective::Maximize));
        assert_eq!(ok.harness.relative_scale, 100.0);
        assert_eq!(Scoring::default().harness.relative_scale, 1e6);
        let err = Scoring::parse(
            "[problem.linez]\nobjective = \"min\"\n",
            "s",
            &[("linez", Objective::Maximize)],
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("objective = \"min\"") && err.contains("maximised"),
            "{err}"
        );
        let err = Scoring::parse(
            "[problem.linez]\nobjective = \"up\"\n",
            "s",
            &[("linez", Objective::Maximize)],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("up"), "{err}");
        let err = Scoring::parse("[harness]\nrelative-scale = 0\n", "s", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("relative-scale"), "{err}");
    }

    #[test]
    fn rank_by_defaults_to_relative_and_names_each_yardstick() {
        assert_eq!(
            Scoring::default().problem("linez").rank_by,
            RankBy::Relative
        );
        for (text, want) in [
            ("relative", RankBy::Relative),
            ("rank", RankBy::Rank),
            ("log", RankBy::Log),
            ("raw", RankBy::Raw),
        ] {
            let s = Scoring::parse(
                &format!("[problem.linez]\nrank-by = \"{text}\"\n"),
                "s",
                &[("linez", Objective::Maximize)],
            )
            .unwrap();
            assert_eq!(s.problem("linez").rank_by, want);
            assert_eq!(want.name(), text);
        }
        let err = Scoring::parse(
            "[problem.linez]\nrank-by = \"median\"\n",
            "s",
            &[("linez", Objective::Maximize)],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("median") && err.contains("rank-by"), "{err}");
    }

    /// Every variant's spelling, after checking that `--flag` (clap) and the config files
    /// (serde, through TOML) both read it back as that variant.
    fn spellings<T>(name: fn(T) -> String) -> Vec<String>
    where
        T: ValueEnum + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug + Copy,
    {
        let spell = |&v: &T| {
            let text = name(v);
            assert_eq!(T::from_str(&text, false), Ok(v), "{text}");
            let read: T = toml::Value::String(text.clone()).try_into().unwrap();
            assert_eq!(read, v, "{text}");
            text
        };
        T::value_variants().iter().map(spell).collect()
    }

    #[test]
    fn every_rank_by_spelling_reads_back_as_itself() {
        let names = spellings(RankBy::name);
        assert_eq!(names, ["relative", "rank", "log", "raw"]);
    }

    #[test]
    fn every_keep_spelling_reads_back_as_itself() {
        let names = spellings(Keep::name);
        assert_eq!(names, ["none", "failed", "all"]);
        for keep in Keep::value_variants() {
            assert_eq!(
                Keep::parse(&keep.name()),
                Some(*keep),
                "run.toml's spelling"
            );
        }
        assert_eq!(Keep::parse("All"), None);
    }

    #[test]
    fn build_timeout_defaults_to_ten_minutes_and_must_be_positive() {
        assert_eq!(Scoring::default().harness.build_timeout, 600.0);
        let ok = Scoring::parse("[harness]\nbuild-timeout = 2.5\n", "s", &[]).unwrap();
        assert_eq!(ok.harness.build_timeout, 2.5);
        let err = Scoring::parse("[harness]\nbuild-timeout = 0\n", "s", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("build-timeout = 0"), "{err}");
    }
}
