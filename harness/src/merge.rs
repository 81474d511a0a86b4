//! `harness merge DIR...`: the shards of a run (`crate::shard`) made into one run.
//!
//! First every check, before anything is written: each folder is a finished shard of the
//! same run (run id, shard count, harness version, secret key, and per problem the settings,
//! the whole case list and the players with their hashes); every shard 1..N is there once;
//! every (player, test) pair of the plan has exactly one row. Then the run is written as a
//! single machine would have: `results/<ID>/` with `scores.csv` (the shards' rows, sorted
//! the same way), `leaderboard.csv`, `run.toml`, transcripts and logs (hard links to the
//! shards' files where the file system allows, else copies), the worst games' replays and
//! `report.html`; then `best.csv`, the comparison with the previous run and `results/latest`.
//! The shards' folders are read, never changed.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::cli::{CompareFlags, MergeArgs};
use crate::context::{find_problem, Context};
use crate::error::Error;
use crate::exit;
use crate::replay::Replays;
use crate::report::files::RunFiles;
use crate::report::table::Table;
use crate::report::{Event, Reporter, RunState, Summary};
use crate::rundir::{self, BadRows, Layout, ScoreRow};
use crate::shard::{self, Record};

/// A shard as read for the merge.
struct ShardIn {
    dir: PathBuf,
    record: Record,
}

impl ShardIn {
    fn name(&self) -> String {
        format!(
            "shard {}/{} ({})",
            self.record.shard,
            self.record.of,
            self.dir.display()
        )
    }
}

/// At most this many (player, test) pairs are named in a message.
const NAMED: usize = 10;

fn name_pairs(pairs: &[(String, String, String)]) -> String {
    let mut text: Vec<String> = pairs
        .iter()
        .take(NAMED)
        .map(|(problem, player, case)| format!("{problem} {player} {case}"))
        .collect();
    if pairs.len() > NAMED {
        text.push(format!("and {} more", pairs.len() - NAMED));
    }
    text.join(", ")
}

/// Checks that the shards belong together, are all there and finished. Returns them in
/// shard order.
fn check_shards(dirs: &[PathBuf]) -> Result<Vec<ShardIn>, Error> {
    let mut shards = Vec::new();
    for dir in dirs {
        let record = shard::read(dir).map_err(Error::Usage)?;
        shards.push(ShardIn {
            dir: dir.clone(),
            record,
        });
    }
    shards.sort_by_key(|s| s.record.shard);
    for s in &shards[1..] {
        check_same_run(&shards[0], s)?;
    }
    let r0 = &shards[0].record;
    if r0.harness_version != env!("CARGO_PKG_VERSION") {
        return Err(Error::Usage(format!(
            "the shards ran harness {}; this is {}: merge with the version that ran them",
            r0.harness_version,
            env!("CARGO_PKG_VERSION")
        )));
    }
    for pair in shards.windows(2) {
        if pair[0].record.shard == pair[1].record.shard {
            return Err(Error::Usage(format!(
                "shard {}/{} of run {} is given twice: {} and {}",
                pair[0].record.shard,
                r0.of,
                r0.run_id,
                pair[0].dir.display(),
                pair[1].dir.display()
            )));
        }
    }
    let present: HashSet<usize> = shards.iter().map(|s| s.record.shard).collect();
    let missing: Vec<String> = (1..=r0.of)
        .filter(|i| !present.contains(i))
        .map(|i| format!("{i}/{}", r0.of))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Usage(format!(
            "run {}: shard {} missing (give every shard's folder: results/{}/shards/I-of-{})",
            r0.run_id,
            missing.join(", "),
            r0.run_id,
            r0.of
        )));
    }
    if let Some(s) = shards.iter().find(|s| !s.record.finished) {
        return Err(Error::Usage(format!(
            "{} is partial (interrupted, or still running): finish it with `harness --resume \
             {} --shard {}/{}` where it ran, then merge",
            s.name(),
            r0.run_id,
            s.record.shard,
            r0.of
        )));
    }
    Ok(shards)
}

/// Checks that shard `s` belongs with the `first`: the same run, shard count, harness
/// version, key, and per problem the same settings, case list, players and hashes.
fn check_same_run(first: &ShardIn, s: &ShardIn) -> Result<(), Error> {
    let r0 = &first.record;
    let r = &s.record;
    let differs = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
        Error::Usage(format!(
            "{} does not belong with {}: its {what} is {b:?}, not {a:?}",
            s.name(),
            first.name()
        ))
    };
    if r.run_id != r0.run_id {
        return Err(differs("run id", &r0.run_id, &r.run_id));
    }
    if r.of != r0.of {
        return Err(differs("shard count", &r0.of, &r.of));
    }
    if r.harness_version != r0.harness_version {
        return Err(differs(
            "harness version",
            &r0.harness_version,
            &r.harness_version,
        ));
    }
    if r.secret_fingerprint != r0.secret_fingerprint {
        return Err(differs(
            "secret key (fingerprint)",
            &r0.secret_fingerprint,
            &r.secret_fingerprint,
        ));
    }
    let ids = |r: &Record| r.problem.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
    if ids(r) != ids(r0) {
        return Err(differs("problems", &ids(r0), &ids(r)));
    }
    for (p, p0) in r.problem.iter().zip(&r0.problem) {
        if p.settings != p0.settings {
            return Err(differs(
                &format!("{} scoring settings", p.id),
                &p0.settings,
                &p.settings,
            ));
        }
        if p.cases != p0.cases {
            return Err(differs(
                &format!("{} test list (seeds, fixed tests, filters)", p.id),
                &format!("{} tests", p0.cases.len()),
                &format!("{} tests", p.cases.len()),
            ));
        }
        if p.players != p0.players {
            return Err(differs(
                &format!("{} players and hashes", p.id),
                &p0.players,
                &p.players,
            ));
        }
    }
    Ok(())
}

/// The `[args]` limits a shard's run was given (they override scoring.toml): its time limit,
/// memory limit and the clock its time limit holds.
fn recorded_limits(dir: &Path) -> (Option<f64>, Option<u64>, Option<crate::time_by::TimeBy>) {
    let table: Option<toml::Table> = std::fs::read_to_string(dir.join("run.toml"))
        .ok()
        .and_then(|t| t.parse().ok());
    let args = table.as_ref().and_then(|t| t.get("args"));
    let time = args
        .and_then(|a| a.get("time-limit"))
        .and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)));
    let memory = args
        .and_then(|a| a.get("memory-limit"))
        .and_then(|v| v.as_integer())
        .map(|m| m as u64);
    let time_by = args
        .and_then(|a| a.get("time-by"))
        .and_then(|v| v.clone().try_into().ok());
    (time, memory, time_by)
}

/// The rows of every shard, checked against the plan: no pair twice, none outside the plan,
/// none missing.
fn read_rows(shards: &[ShardIn]) -> Result<Vec<ScoreRow>, String> {
    let plan = &shards[0].record.problem;
    let mut expected: HashMap<(&str, &str), HashSet<&str>> = HashMap::new();
    for p in plan {
        let cases: HashSet<&str> = p.cases.iter().map(String::as_str).collect();
        for player in p.players.keys() {
            expected.insert((p.id.as_str(), player.as_str()), cases.clone());
        }
    }
    let mut columns: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    let mut seen: HashMap<(String, String, String), usize> = HashMap::new();
    let (mut duplicates, mut unplanned) = (Vec::new(), Vec::new());
    for s in shards {
        let scores = rundir::read(&s.dir, BadRows::Fail)?;
        match &columns {
            None => columns = Some(scores.param_columns.clone()),
            Some(c) if *c != scores.param_columns => {
                return Err(format!(
                    "{}: its columns differ from {}'s",
                    scores.path.display(),
                    shards[0].name()
                ))
            }
            Some(_) => {}
        }
        for record in scores.rows {
            let key = (
                record.problem.clone(),
                record.player.clone(),
                record.seed.clone(),
            );
            let planned = expected
                .get(&(key.0.as_str(), key.1.as_str()))
                .is_some_and(|cases| cases.contains(key.2.as_str()));
            if !planned {
                unplanned.push(key);
                continue;
            }
            if let Some(other) = seen.insert(key.clone(), s.record.shard) {
                duplicates.push((
                    key.0,
                    key.1,
                    format!("{} (shards {other} and {})", key.2, s.record.shard),
                ));
                continue;
            }
            rows.push(record);
        }
    }
    if !duplicates.is_empty() {
        return Err(format!(
            "{} (player, test) pair(s) have more than one row: {}",
            duplicates.len(),
            name_pairs(&duplicates)
        ));
    }
    if !unplanned.is_empty() {
        return Err(format!(
            "{} row(s) are not (player, test) pairs of the run's plan: {}",
            unplanned.len(),
            name_pairs(&unplanned)
        ));
    }
    missing_pairs(plan, &seen)?;
    Ok(rows)
}

/// Every (player, test) pair of the plan has a row (`seen`), or the error names those that
/// have none.
fn missing_pairs(
    plan: &[shard::ProblemPlan],
    seen: &HashMap<(String, String, String), usize>,
) -> Result<(), String> {
    let mut missing = Vec::new();
    for p in plan {
        for player in p.players.keys() {
            for case in &p.cases {
                let key = (p.id.clone(), player.clone(), case.clone());
                if !seen.contains_key(&key) {
                    missing.push(key);
                }
            }
        }
    }
    if !missing.is_empty() {
        return Err(format!(
            "{} (player, test) pair(s) have no row in any shard: {}",
            missing.len(),
            name_pairs(&missing)
        ));
    }
    Ok(())
}

/// `run.toml` of the merged run: the first shard's, with the merge's command, the shards it
/// was made from and, when they differ, each shard's isolation.
fn merged_run_toml(shards: &[ShardIn]) -> String {
    let read = |s: &ShardIn| -> toml::Table {
        std::fs::read_to_string(s.dir.join("run.toml"))
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or_default()
    };
    let mut table = read(&shards[0]);
    table.insert(
        "command".into(),
        crate::secret::redacted_command().join(" ").into(),
    );
    let isolations: Vec<toml::Value> = shards
        .iter()
        .map(|s| read(s).get("isolation").cloned().unwrap_or("".into()))
        .collect();
    if isolations.iter().any(|i| *i != isolations[0]) {
        table.insert("shard-isolation".into(), isolations.into());
    }
    let threads: i64 = shards
        .iter()
        .filter_map(|s| read(s).get("threads").and_then(|t| t.as_integer()))
        .sum();
    table.insert("threads".into(), threads.into());
    let from: Vec<toml::Value> = shards
        .iter()
        .map(|s| {
            std::fs::canonicalize(&s.dir)
                .unwrap_or_else(|_| s.dir.clone())
                .display()
                .to_string()
                .into()
        })
        .collect();
    table.insert("merged-from".into(), from.into());
    toml::to_string(&table).unwrap_or_default()
}

/// Links (or, across file systems, copies) every file under `from` to the same place under
/// `to`; files already there are kept.
fn link_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    std::fs::create_dir_all(to)?;
    for entry in entries {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type()?.is_dir() {
            link_tree(&src, &dst)?;
        } else {
            match std::fs::hard_link(&src, &dst) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(_) => {
                    std::fs::copy(&src, &dst)?;
                }
            }
        }
    }
    Ok(())
}

/// `harness merge`.
pub fn main(args: &MergeArgs) -> Result<u8, Error> {
    let shards = check_shards(&args.dirs)?;
    let record = shards[0].record.clone();
    let what = format!("merge of run {}", record.run_id);
    crate::secret::check(
        record.secret_fingerprint.as_deref(),
        args.secret.secret.as_ref(),
        &what,
    )
    .map_err(Error::Usage)?;
    let context = Context::load(&args.common)?;
    let results = context.results(args.results.as_deref());
    let (envs, problems) = problems_of(&shards, &context, args)?;
    let rows = read_rows(&shards).map_err(Error::Usage)?;
    let dir = results.join(&record.run_id);
    let write_err = |e: std::io::Error| Error::fault(format!("cannot write the merged run: {e}"));
    let files = RunFiles::create_in(&dir, Layout::new(&problems), &merged_run_toml(&shards))
        .map_err(|e| Error::usage(format!("cannot write the merged run: {e}")))?;
    link_shard_files(&shards, &dir).map_err(write_err)?;
    let rosters: Vec<(String, Vec<String>)> = record
        .problem
        .iter()
        .map(|p| (p.id.clone(), p.players.keys().cloned().collect()))
        .collect();
    let mut state = RunState::new(
        &files.id,
        &dir,
        Summary::new(&rosters, rows.len() as u64),
        0,
    );
    rows.into_iter().for_each(|row| state.add(row));
    state.complete = true;
    state.footer.extend(crate::rundir::rerun_note(&state.rows));
    // The same reporters as the end of a run on one machine: comparison (relative scores,
    // best.csv), files (sorted scores.csv, leaderboard, latest), replays and report, table.
    let history = crate::compare::History::new(
        &CompareFlags::default(),
        &context.scoring,
        &results,
        args.secret.secret.as_ref(),
        // A shard is never a debugging run (`--verbose` plays one test, not a share of many).
        false,
        false,
    )?;
    let mut reporters: Vec<Box<dyn Reporter>> = vec![
        Box::new(history),
        Box::new(files),
        Box::new(Replays {
            envs,
            keep: crate::rundir::kept(&shards[0].dir),
        }),
        Box::new(Table {
            wide: false,
            to_stderr: false,
        }),
    ];
    for reporter in reporters.iter_mut() {
        reporter
            .on_event(&Event::RunFinished, &mut state)
            .map_err(|e| Error::fault(format!("cannot write the merged run: {e}")))?;
    }
    println!("merged {} shards: {}", shards.len(), dir.display());
    if state.summary.harness_errors() > 0 {
        return Ok(exit::HARNESS_ERROR);
    }
    Ok(exit::OK)
}

/// Each problem of the run with what its tests are made from (the settings the shards ran
/// with, which must be this scoring.toml's), and with its parameter names.
#[allow(clippy::type_complexity)]
fn problems_of(
    shards: &[ShardIn],
    context: &Context,
    args: &MergeArgs,
) -> Result<
    (
        Vec<(String, crate::problem::Env)>,
        Vec<(String, Vec<String>)>,
    ),
    Error,
> {
    // Replays rebuild games: they need the settings the shards ran with.
    let (time_limit, memory_limit, time_by) = recorded_limits(&shards[0].dir);
    let mut envs = Vec::new();
    let mut problems = Vec::new();
    for p in &shards[0].record.problem {
        let problem = find_problem(&p.id)?;
        let mut env = context.env(&p.id, args.secret.secret.as_ref());
        let config = &mut env.config;
        config.time_limit = time_limit.unwrap_or(config.time_limit);
        config.memory_limit = memory_limit.unwrap_or(config.memory_limit);
        config.time_by = time_by.or(config.time_by);
        if format!("{config:?}") != p.settings {
            return Err(Error::usage(format!(
                "{}: the shards ran with other settings than this scoring.toml ({}) gives: \
                 {} (shards) vs {config:?}; merge with the shards' scoring.toml (--config)",
                p.id,
                args.common.config.display(),
                p.settings
            )));
        }
        envs.push((p.id.clone(), env));
        let params = problem.param_names().iter().map(|n| n.to_string());
        problems.push((p.id.clone(), params.collect()));
    }
    Ok((envs, problems))
}

/// The shards' transcripts and logs, linked into the merged run, and one build log.
fn link_shard_files(shards: &[ShardIn], dir: &Path) -> std::io::Result<()> {
    let mut build_log = Vec::new();
    for s in shards {
        for sub in ["transcripts", "logs"] {
            link_tree(&s.dir.join(sub), &dir.join(sub))?;
        }
        if let Ok(log) = std::fs::read(s.dir.join("logs").join("build.log")) {
            build_log.extend(format!("# {}\n", s.name()).bytes());
            build_log.extend(log);
        }
    }
    if !build_log.is_empty() {
        let path = dir.join("logs").join("build.log");
        let _ = std::fs::remove_file(&path);
        std::fs::write(&path, build_log)?;
    }
    Ok(())
}
