//! Sharded runs: one run's tests split over several machines (`--shard I/N --run-id ID`).
//!
//! The run's whole case list (every problem's fixed tests and seeds, in the order the run
//! would play them) is dealt round-robin: the k-th case (from 0) belongs to shard
//! `k mod N + 1`. Every machine computes the same list from the same arguments, so the
//! shards need not talk to each other. A shard plays its cases for every player and writes
//! only its own folder, `results/ID/shards/I-of-N/`: its `scores.csv`, logs, transcripts,
//! `run.toml`, and `shard.toml` (what the merge checks: the run id, the harness version,
//! each problem's settings, whole case list and players with their hashes, and whether the
//! shard finished). It never touches `results/latest`, `best.csv`, earlier runs or
//! `report.html`: `crate::merge` does those once for the whole run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::report::files::RunFiles;
use crate::runner::Suite;

pub use crate::cli::Shard;

/// Whether a run id can be a folder name under `results/`: it starts with a letter or a
/// digit, holds only ASCII letters, digits, `.`, `_` and `-`, and is not `latest`.
pub(crate) fn check_run_id(id: &str) -> Result<(), String> {
    let ok = id.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !id.contains("..")
        && id != "latest";
    match ok {
        true => Ok(()),
        false => Err(format!(
            "--run-id {id:?}: a run id starts with a letter or a digit and holds only letters, \
             digits, `.`, `_` and `-` (and is not `latest`); a time such as \
             $(date -u +%Y%m%d-%H%M%S) keeps runs in order"
        )),
    }
}

/// The folder of shard `shard` of run `id`.
pub(crate) fn shard_dir(results: &Path, id: &str, shard: Shard) -> PathBuf {
    results.join(id).join("shards").join(shard.folder())
}

/// `shard.toml`: what a shard was, for `harness merge` to check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Record {
    pub run_id: String,
    pub shard: usize,
    pub of: usize,
    pub harness_version: String,
    /// Every test of this shard ran (the run was neither interrupted nor short of disk).
    pub finished: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_fingerprint: Option<String>,
    pub problem: Vec<ProblemPlan>,
}

/// One problem of the whole run, as every shard must agree on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ProblemPlan {
    pub id: String,
    /// The problem's settings (limits, move cap, ...), as the run had them.
    pub settings: String,
    /// The run's whole case list, every shard's.
    pub cases: Vec<String>,
    /// Player name -> hash.
    pub players: BTreeMap<String, String>,
}

/// What `--shard` and `--run-id` ask of a run.
#[derive(Clone, Debug, Default)]
pub struct Sharding {
    pub shard: Option<Shard>,
    pub run_id: Option<String>,
    record: Option<Record>,
}

impl Sharding {
    /// Checks the options: a shard needs a run id (shards must agree on it); a resumed shard
    /// takes the id of the run resumed.
    pub fn new(
        shard: Option<Shard>,
        run_id: Option<&str>,
        resume: Option<&str>,
    ) -> Result<Sharding, Error> {
        let run_id = match (run_id, resume) {
            (Some(id), Some(resumed)) if id != resumed => {
                return Err(Error::Usage(format!(
                    "--run-id {id} with --resume {resumed}: give one of them"
                )))
            }
            (Some(id), _) => Some(id.to_string()),
            (None, Some(resumed)) if shard.is_some() => Some(resumed.to_string()),
            (None, _) => None,
        };
        if let Some(id) = &run_id {
            check_run_id(id).map_err(Error::Usage)?;
        }
        if let (Some(shard), None) = (shard, &run_id) {
            return Err(Error::Usage(format!(
                "--shard {shard} needs --run-id ID: every shard of a run is given the same id \
                 (e.g. the scheduler's job id or a time)"
            )));
        }
        Ok(Sharding {
            shard,
            run_id,
            record: None,
        })
    }

    pub(crate) fn is_shard(&self) -> bool {
        self.shard.is_some()
    }

    /// The run's folder when it is named (`--run-id`): the shard's own, or `results/ID`.
    pub fn dir(&self, results: &Path) -> Option<PathBuf> {
        let id = self.run_id.as_ref()?;
        Some(match self.shard {
            Some(shard) => shard_dir(results, id, shard),
            None => results.join(id),
        })
    }

    /// Creates the run's files: in `results/<start time>/`, or in the folder [`Sharding::dir`]
    /// names.
    pub(crate) fn create_files(
        &self,
        results: &Path,
        layout: crate::rundir::Layout,
        run_toml: &str,
    ) -> std::io::Result<RunFiles> {
        let mut files = match self.dir(results) {
            Some(dir) => RunFiles::create_in(&dir, layout, run_toml)?,
            None => RunFiles::create(results, "", layout, run_toml)?,
        };
        if self.is_shard() {
            // A shard's folder is its own: no `latest`; the merge names the run.
            files.links_latest = false;
            files.id = self.run_id.clone().unwrap_or_default();
        }
        Ok(files)
    }

    /// The folder `--resume ID` finishes: a shard's, with `--shard`. A sharded run resumed
    /// without `--shard` is refused with the shards it has.
    pub(crate) fn resume_dir(&self, results: &Path, id: &str) -> Result<PathBuf, Error> {
        if let Some(shard) = self.shard {
            return Ok(shard_dir(results, id, shard));
        }
        let shards = results.join(id).join("shards");
        if !results.join(id).join("run.toml").exists() && shards.is_dir() {
            let mut names: Vec<String> = std::fs::read_dir(&shards)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().replace("-of-", "/"))
                .collect();
            names.sort();
            return Err(Error::Usage(format!(
                "--resume {id}: a sharded run (shards {}): resume a shard with --resume {id} \
                 --shard I/N, then `{} merge`",
                names.join(", "),
                crate::invocation::program()
            )));
        }
        Ok(results.join(id))
    }

    /// Keeps only this shard's cases in `suites` (the whole list is dealt round-robin over
    /// the problems in order) and notes the whole plan for `shard.toml`.
    pub fn select(&mut self, suites: &mut [Suite], secret: Option<&crate::secret::Secret>) {
        let Some(shard) = self.shard else {
            return;
        };
        let mut k = 0;
        let mut problems = Vec::new();
        for suite in suites.iter_mut() {
            problems.push(ProblemPlan {
                id: suite.problem.id().to_string(),
                settings: format!("{:?}", suite.env.config),
                cases: suite.cases.iter().map(|c| c.to_string()).collect(),
                players: suite
                    .players
                    .iter()
                    .map(|p| (p.name.clone(), p.hash.clone()))
                    .collect(),
            });
            suite.cases.retain(|_| {
                k += 1;
                shard.owns(k - 1)
            });
        }
        self.record = Some(Record {
            run_id: self.run_id.clone().unwrap_or_default(),
            shard: shard.index,
            of: shard.count,
            harness_version: env!("CARGO_PKG_VERSION").to_string(),
            finished: false,
            secret_fingerprint: secret.map(|s| s.fingerprint().to_string()),
            problem: problems,
        });
    }

    /// Writes `shard.toml` into the shard's folder (`finished` says whether every test ran).
    pub fn write(&mut self, dir: &Path, finished: bool) -> std::io::Result<()> {
        let Some(record) = &mut self.record else {
            return Ok(());
        };
        record.finished = finished;
        let text = toml::to_string(record).map_err(std::io::Error::other)?;
        crate::rundir::write_atomic(&dir.join("shard.toml"), text.as_bytes())
    }

    /// The command that finishes an interrupted shard, after `harness --resume ID`.
    pub(crate) fn resume_flags(&self) -> String {
        self.shard
            .map(|s| format!(" --shard {s}"))
            .unwrap_or_default()
    }
}

/// A shard keeps its `shard.toml` up to date: written when the run starts (unfinished), and
/// again when it ends (finished when every test ran and every result was kept).
impl crate::report::Reporter for Sharding {
    fn on_event(
        &mut self,
        event: &crate::report::Event<'_>,
        state: &mut crate::report::RunState,
    ) -> Result<(), String> {
        use crate::report::Event;
        let finished = match event {
            Event::RunStarted => false,
            Event::RunFinished => state.complete,
            _ => return Ok(()),
        };
        self.write(&state.dir, finished).map_err(|e| e.to_string())
    }
}

/// Reads a shard folder's `shard.toml`.
pub fn read(dir: &Path) -> Result<Record, String> {
    let path = dir.join("shard.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: not a shard's folder ({}: {e})",
            dir.display(),
            path.display()
        )
    })?;
    toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_read_and_checked() {
        assert_eq!(Shard::parse("2/8"), Ok(Shard { index: 2, count: 8 }));
        for bad in ["0/3", "4/3", "1", "a/b", "1/0", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_case_has_exactly_one_shard_and_shards_are_even() {
        for count in 1..6 {
            let shards: Vec<Shard> = (1..=count).map(|index| Shard { index, count }).collect();
            let mut sizes = vec![0; count];
            for k in 0..23 {
                let owners: Vec<usize> = shards
                    .iter()
                    .filter(|s| s.owns(k))
                    .map(|s| s.index)
                    .collect();
                assert_eq!(owners.len(), 1, "case {k} of {count} shards: {owners:?}");
                sizes[owners[0] - 1] += 1;
            }
            let (min, max) = (sizes.iter().min(), sizes.iter().max());
            assert!(max.unwrap() - min.unwrap() <= 1, "{sizes:?}");
        }
    }

    #[test]
    fn run_ids_are_folder_names() {
        assert!(check_run_id("20260101-120000").is_ok());
        assert!(check_run_id("job.42_a").is_ok());
        for bad in ["", "latest", "../x", "a/b", ".hidden", "a..b", "-x"] {
            assert!(check_run_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_shard_needs_a_run_id_and_resuming_gives_it() {
        let shard = Some(Shard { index: 1, count: 2 });
        assert!(Sharding::new(shard, None, None).is_err());
        let s = Sharding::new(shard, None, Some("r1")).unwrap();
        assert_eq!(s.run_id.as_deref(), Some("r1"));
        assert!(Sharding::new(shard, Some("r2"), Some("r1")).is_err());
        assert_eq!(
            s.dir(Path::new("res")),
            Some(PathBuf::from("res/r1/shards/1-of-2"))
        );
    }
}
