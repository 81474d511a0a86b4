//! Runs a [`RunPlan`]: prepares the containment, opens the run's folder (or reopens the run
//! being resumed), starts the runner, and feeds its events, as [`report::Event`]s, to the
//! reporters in order: progress, comparison, files, replays, table. Returns the exit code.
//!
//! The one place where a run's parts meet; the parts themselves (runner, reporters) do not
//! know about each other.

use std::io::Write;
use std::path::Path;
use std::sync::mpsc;

use crate::build::Builds;
use crate::compare::History;
use crate::error::{Error, Result};
use crate::exit;
use crate::plan::{RecordedArgs, RunPlan};
use crate::problem::CaseKey;
use crate::replay::Replays;
use crate::report::files::RunFiles;
use crate::report::json::Json;
use crate::report::progress::Progress;
use crate::report::table::Table;
use crate::report::{Event, Reporter, RunState, Summary};
use crate::rerun::Reruns;
use crate::rundir::{Layout, ScoreRow};
use crate::runner::{self, Containment, RunOptions, TestResult};

/// Runs the plan to its end (or to an interrupt); `history` compares it with earlier runs,
/// `builds` are the players' builds (their log is kept in the run's folder).
pub fn run(
    mut plan: RunPlan,
    history: History,
    builds: &Builds,
    scoring: &crate::config::Scoring,
) -> Result<u8> {
    let core_dumps = plan.request.args.core_dumps;
    let containment = Containment::prepare(plan.sandbox, plan.cgroup, &scoring.harness, core_dumps)
        .map_err(Error::Usage)?;
    plan.notes
        .extend(containment.isolation.notes.iter().cloned());
    unrunnable(&plan, &containment)?;
    attach(&mut plan, &containment);
    if plan
        .suites
        .iter()
        .any(|s| s.problem.judge_identity().is_some())
    {
        plan.notes.extend(containment.isolation.tools_note());
    }
    fit_to_machine(&mut plan);
    let (mut files, prior, resumed) =
        open_files(&mut plan, &containment, scoring, &builds.describe())?;
    files.transcripts = plan.transcripts;
    // A debugging run leaves `latest` where it was: the run before it.
    files.links_latest &= !plan.request.debug();
    if let Err(e) = builds.write_log(&files.dir) {
        eprintln!("warning: cannot keep the build log: {e}");
    }
    let mut state = initial_state(&plan, &files, prior, resumed);
    let mut reporters = reporters(&plan, &state, history, files);
    let mut first_error = None;
    let mut dispatch = |event: &Event<'_>, state: &mut RunState| {
        for reporter in reporters.iter_mut() {
            if let Err(e) = reporter.on_event(event, state) {
                // Results that cannot be kept: stop the run rather than lose more; the run
                // is not complete.
                state.complete = false;
                if first_error.is_none() {
                    first_error = Some(e);
                    crate::os::request_interrupt();
                }
            }
        }
    };
    dispatch(&Event::RunStarted, &mut state);
    state.complete = play(&plan, &containment, |event| match event {
        runner::Event::Started {
            problem,
            player,
            case,
        } => dispatch(
            &Event::TestStarted {
                problem,
                player: &player,
                case: &case,
            },
            &mut state,
        ),
        runner::Event::Finished(result) => {
            state.add(score_row(&result, param_names(&plan, result.problem)));
            dispatch(&Event::TestFinished(&result), &mut state);
        }
    });
    state.footer.extend(crate::rundir::rerun_note(&state.rows));
    for p in plan.suites.iter().flat_map(|s| &s.players) {
        if p.changed_during_run() {
            let (name, changed) = (&p.name, crate::players::CHANGED);
            let line = format!("{name}: {changed} (its later tests are ERR; run it again)");
            state.footer.push(line);
        }
    }
    dispatch(&Event::RunFinished, &mut state);
    Ok(finish(&plan, &state, &containment, first_error))
}

/// A usage error naming every player that cannot run in this sandbox at all (its program out
/// of the players' reach), before any test.
fn unrunnable(plan: &RunPlan, containment: &Containment) -> Result<()> {
    let mut said: Vec<String> = Vec::new();
    for player in plan.suites.iter().flat_map(|s| &s.players) {
        let why = containment
            .isolation
            .cannot_run(&player.program, player.on_path);
        if let Some(why) = why.map(|w| format!("player {}: {w}", player.name)) {
            if !said.contains(&why) {
                said.push(why);
            }
        }
    }
    match said.is_empty() {
        true => Ok(()),
        false => Err(Error::Usage(said.join("\n"))),
    }
}

/// Hands each problem the run's isolation; where a problem's judge is a contest's tools, their
/// hash joins each player's (a changed tool shows like a changed player: `--resume` runs its
/// tests again, `compare` says "new build").
fn attach(plan: &mut RunPlan, containment: &Containment) {
    for suite in &mut plan.suites {
        suite.problem.attach(&containment.isolation);
        if let Some(tools) = suite.problem.judge_identity() {
            for player in &mut suite.players {
                player.hash = format!("{}+tools-{tools}", player.hash);
            }
        }
    }
}

/// The run's reporters, in the order they see each event: progress; the comparison (before
/// the files and the table, which keep and print the relative scores it sets); the files;
/// replays and report.html (or, for a shard, its shard.toml); the table; JSON lines.
fn reporters(
    plan: &RunPlan,
    state: &RunState,
    history: History,
    files: RunFiles,
) -> Vec<Box<dyn Reporter>> {
    let args = &plan.request.args;
    let sharding = &plan.request.sharding;
    let mut progress = Progress::new(state.to_play, args.verbose);
    progress.each = args.each;
    let mut reporters: Vec<Box<dyn Reporter>> = vec![Box::new(progress)];
    // A shard touches no shared file: best.csv, the comparison, replays and report.html are
    // the merge's.
    if !sharding.is_shard() {
        reporters.push(Box::new(history));
    }
    reporters.push(Box::new(files));
    if sharding.is_shard() {
        reporters.push(Box::new(sharding.clone()));
    } else {
        reporters.push(Box::new(Replays {
            envs: plan.envs(),
            keep: plan.transcripts,
        }));
    }
    reporters.push(Box::new(Table {
        wide: args.wide,
        to_stderr: args.json,
    }));
    if args.json {
        reporters.push(Box::new(Json {
            params: plan.problems(),
        }));
    }
    reporters
}

/// Caps each problem's process slots to what the machine can give every worker at once, and
/// notes limits the machine cannot honour for all workers together.
fn fit_to_machine(plan: &mut RunPlan) {
    let threads = plan.threads;
    for suite in &mut plan.suites {
        let notes = suite.fit_to_machine(threads);
        plan.notes.extend(notes);
    }
}

/// The run's folder: a new one, or the resumed run's with the rows it keeps (rows of players
/// whose program changed since, ERR rows and unreadable rows are run again). Marks the kept
/// tests done in the plan; returns the rows kept and whether the run is resumed.
fn open_files(
    plan: &mut RunPlan,
    containment: &Containment,
    scoring: &crate::config::Scoring,
    builds: &str,
) -> Result<(RunFiles, Vec<ScoreRow>, bool)> {
    let layout = Layout::new(&plan.problems());
    let Some(dir) = plan.request.resume.clone() else {
        let toml = run_toml(plan, containment, scoring, builds);
        // A results folder that cannot be made is the user's to fix (a file, no permission).
        let files = (plan.request.sharding)
            .create_files(&plan.request.results, layout, &toml)
            .map_err(|e| Error::usage(format!("cannot write results: {e}")))?;
        return Ok((files, Vec::new(), false));
    };
    let suites = &plan.suites;
    let current = |row: &ScoreRow| {
        suites.iter().any(|s| {
            s.problem.id() == row.problem
                && s.players
                    .iter()
                    .any(|p| p.name == row.player && p.hash == row.player_hash)
        })
    };
    let present = |row: &ScoreRow| {
        suites
            .iter()
            .any(|s| s.players.iter().any(|p| p.name == row.player))
    };
    // Rows of players that changed since the run began are not kept: say how many, per player.
    let changed = std::cell::RefCell::new(std::collections::BTreeMap::new());
    let reopened = RunFiles::reopen(&dir, layout, |row| {
        let same = current(row);
        if !same && present(row) {
            *changed.borrow_mut().entry(row.player.clone()).or_insert(0) += 1;
        }
        same && row.verdict != crate::verdict::Verdict::HarnessError
    })
    .map_err(|e| Error::usage(format!("--resume: {e}")))?;
    if let Some(tag) = &plan.request.args.tag {
        crate::rundir::set_field(&dir, "tag", tag)
            .map_err(|e| Error::usage(format!("--tag on --resume: cannot write {e}")))?;
    }
    if let Some(by) = plan.request.args.compare.rank_by {
        crate::rundir::set_rank_by(&dir, by)
            .map_err(|e| Error::usage(format!("--rank-by on --resume: cannot write {e}")))?;
    }
    for (player, tests) in changed.into_inner() {
        plan.notes.push(format!(
            "resuming: player {player} changed since the run began (new hash): its {tests} \
             finished tests run again"
        ));
    }
    for row in &reopened.kept {
        if let Some(suite) = plan
            .suites
            .iter_mut()
            .find(|s| s.problem.id() == row.problem)
        {
            suite
                .done
                .insert((CaseKey::parse(&row.seed), row.player.clone()));
        }
    }
    if !reopened.unreadable.is_empty() {
        plan.notes.push(format!(
            "resuming: {} unreadable row(s) of scores.csv left out (lines {:?}): their tests run again",
            reopened.unreadable.len(),
            reopened.unreadable
        ));
    }
    Ok((reopened.files, reopened.kept, true))
}

/// The state a run starts with: the rows of a resumed run counted, the notes to show.
fn initial_state(
    plan: &RunPlan,
    files: &RunFiles,
    prior: Vec<ScoreRow>,
    resumed: bool,
) -> RunState {
    let planned = plan.planned();
    let (kept, finished) = (prior.len() as u64, prior.len() as u64);
    let summary = Summary::new(&plan.rosters(), planned);
    let mut state = RunState::new(&files.id, &files.dir, summary, planned - finished);
    prior.into_iter().for_each(|row| state.add(row));
    if resumed && kept > 0 {
        state.notes.push(format!(
            "resuming {}: {finished} of {planned} tests already done",
            files.id
        ));
    }
    state.notes.extend(plan.notes.iter().cloned());
    state.notes.extend(marks(plan, files));
    state
}

/// What sets this run apart from the others, said at its start and its end: a keyed run
/// (its tests are not the seeds' usual tests), a debugging run (outside the history).
fn marks(plan: &RunPlan, files: &RunFiles) -> Vec<String> {
    let mut marks = Vec::new();
    if let Some(secret) = &plan.request.args.secret.secret {
        marks.push(format!(
            "KEYED run (secret key {}): its tests are not the usual tests of these seeds; it \
             is compared only with runs of the same key and stays out of best.csv",
            secret.fingerprint()
        ));
    }
    if plan.request.debug() {
        marks.push(format!(
            "debugging run (--verbose): kept in {} but not linked as latest, not compared \
             with earlier runs, not in best.csv",
            files.dir.display()
        ));
    }
    marks
}

/// Plays the plan on the runner's thread pool, handing each event to `on_event` on this
/// thread; then plays again, alone, the TLEs an overloaded machine may have caused
/// ([`crate::rerun`]). Returns whether every test ran.
fn play(
    plan: &RunPlan,
    containment: &Containment,
    mut on_event: impl FnMut(runner::Event),
) -> bool {
    let (tx, rx) = mpsc::channel();
    let options = RunOptions {
        threads: plan.threads,
        pin_cpus: plan.pin_cpus,
    };
    let suites = &plan.suites;
    let mut reruns = Reruns::default();
    let complete = std::thread::scope(|scope| {
        // The runner owns the only sender: the loop below ends when the runner is done.
        let runner = scope.spawn(move || runner::run(suites, containment, options, &tx));
        for event in rx.iter() {
            match event {
                runner::Event::Finished(result) => {
                    if let Some(result) = reruns.hold(result, suites) {
                        on_event(runner::Event::Finished(result));
                    }
                }
                started => on_event(started),
            }
        }
        runner.join().expect("runner thread")
    });
    // An interrupted run leaves its held tests unreported: `--resume` plays them again.
    complete && reruns.play(suites, containment, on_event)
}

/// The parameter names of a problem of the plan.
fn param_names(plan: &RunPlan, problem: &str) -> &'static [&'static str] {
    plan.suites
        .iter()
        .find(|s| s.problem.id() == problem)
        .map_or(&[], |s| s.problem.param_names())
}

/// The `scores.csv` row of a finished test; `names` are its problem's parameter names.
pub fn score_row(r: &TestResult, names: &[&str]) -> ScoreRow {
    ScoreRow {
        problem: r.problem.to_string(),
        player: r.player.clone(),
        seed: r.case.to_string(),
        score: r.outcome.score,
        verdict: r.outcome.verdict,
        moves: r.outcome.moves,
        think_ms: r.think.as_millis() as u64,
        cpu_ms: r.cpu.as_millis() as u64,
        wall_ms: r.wall.as_millis() as u64,
        max_memory_kb: r.max_memory_kb,
        warning: r.warning.clone(),
        player_hash: r.player_hash.clone(),
        harness_version: env!("CARGO_PKG_VERSION").to_string(),
        params: names
            .iter()
            .map(|n| crate::rundir::param_column(r.problem, n))
            .zip(r.params.iter().cloned())
            .collect(),
        reason: r.outcome.reason.clone(),
    }
}

/// The lines under the leaderboard, and the exit code.
fn finish(
    plan: &RunPlan,
    state: &RunState,
    containment: &Containment,
    write_error: Option<String>,
) -> u8 {
    // With --json, stdout holds only JSON lines: what people read goes to stderr.
    let (mut out, _) = Table::out(plan.request.args.json);
    for note in &plan.left_out {
        let _ = writeln!(out, "{note}");
    }
    let _ = writeln!(out, "isolation: {}", containment.isolation.describe());
    if let Some(secret) = &plan.request.args.secret.secret {
        let f = secret.fingerprint();
        let _ = writeln!(
            out,
            "KEYED run: secret key {f} (only that key reproduces its tests)"
        );
    }
    if plan.request.debug() {
        let _ = writeln!(out, "debugging run: not linked as latest");
    }
    let _ = writeln!(out, "results: {}", state.dir.display());
    let report = state.dir.join("report.html");
    if report.is_file() {
        let what = "(worst seeds and failures, with their replays)";
        let _ = writeln!(out, "report: {} {what}", report.display());
    }
    let _ = out.flush();
    if let Some(e) = write_error {
        eprintln!("error: cannot write results: {e}");
        return exit::HARNESS_ERROR;
    }
    if !state.complete {
        let mut resume = format!(
            "{} --resume {}{}",
            crate::invocation::program(),
            state.id,
            plan.request.sharding.resume_flags()
        );
        if plan.request.args.results.is_some() {
            let results: &Path = &plan.request.results;
            resume.push_str(&format!(" --results {}", results.display()));
        }
        let _ = writeln!(out, "interrupted: to finish this run, {resume}");
        return exit::INTERRUPTED;
    }
    if state.summary.harness_errors() > 0 {
        return exit::HARNESS_ERROR;
    }
    exit::OK
}

/// What was run, kept beside the results so a run can be understood, compared and resumed.
/// `builds` says how the players were built ([`Builds::describe`]).
fn run_toml(
    plan: &RunPlan,
    containment: &Containment,
    scoring: &crate::config::Scoring,
    builds: &str,
) -> String {
    let mut s = format!(
        "harness-version = {:?}\ncommand = {:?}\nthreads = {}\nisolation = {:?}\nbuilds = {builds:?}\npass-env = {:?}\ntranscripts = {:?}\n",
        env!("CARGO_PKG_VERSION"),
        crate::secret::redacted_command().join(" "),
        plan.threads,
        containment.isolation.describe(),
        scoring.harness.pass_env,
        plan.transcripts.name(),
    );
    if let Some(tag) = &plan.request.args.tag {
        s.push_str(&format!("tag = {}\n", toml::Value::from(tag.as_str())));
    }
    if plan.request.debug() {
        s.push_str("debug = true\n");
    }
    if !plan.lacking.is_empty() {
        // Players left out for a program this machine lacks: they have no rows, and a reader
        // of the run (report.html) says why.
        s.push_str("left-out = [\n");
        for p in &plan.lacking {
            s.push_str(&format!(
                "  {{ player = {}, reason = {} }},\n",
                toml::Value::from(p.name.as_str()),
                toml::Value::from(p.reason.as_str())
            ));
        }
        s.push_str("]\n");
    }
    s.push_str("\n[args]\n");
    s.push_str(&toml::to_string(&RecordedArgs::of(&plan.request.args)).unwrap_or_default());
    for suite in &plan.suites {
        let (id, c) = (suite.problem.id(), &suite.env.config);
        s.push_str(&format!(
            "\n[problem.{id}]\ntime-limit = {}\ntime-by = {:?}\nrank-by = {:?}\nmemory-limit = {}\nmove-cap = {}\ncases = {}\n",
            c.time_limit,
            c.time_by().name(),
            plan.request.args.compare.rank_by.unwrap_or(c.rank_by).name(),
            c.memory_limit,
            c.move_cap,
            suite.cases.len()
        ));
        if let Some(tools) = suite.problem.judge_identity() {
            s.push_str(&format!("tools-hash = {tools:?}\n"));
        }
        for p in &suite.players {
            let own: Vec<&str> = p
                .env
                .iter()
                .filter(|(k, _)| !p.pass_env.contains(k))
                .map(|(k, _)| k.as_str())
                .collect();
            s.push_str(&format!(
                "[problem.{id}.players.{:?}]\nsource = {:?}\nhash = {:?}\nhash-covers = {:?}\npass-env = {:?}\nenv = {:?}\n",
                p.name,
                p.source.display().to_string(),
                p.hash,
                variant_covers(&plan.request, p),
                p.pass_env,
                own,
            ));
        }
    }
    s
}

/// What a player's hash covers, with a variant's settings (`--variant`).
fn variant_covers(request: &crate::plan::Request, p: &crate::players::Player) -> String {
    let covers = crate::players::hash_covers(p);
    match request.variants.iter().find(|v| v.name == p.name) {
        Some(_) => format!("{covers}; and its --variant settings (env, args)"),
        None => covers,
    }
}
