//! Runs the tests of a run in parallel and reports each as an event.
//!
//! Jobs are (problem, case, player) triples spread over a rayon pool of `threads` workers;
//! each worker runs one game at a time and, by default, is pinned to one CPU before it starts
//! any player, so a judge thread and its player share a core. A player's failure is a verdict
//! in a [`TestResult`]; nothing here prints or writes files, and nothing aborts the run but
//! an interrupt (after which unfinished tests are simply not reported). A test's final
//! verdict, with what its process's end tells, is [`refine`]'s (runner/refine.rs).

use std::path::Path;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::os;
use crate::players::Player;
use crate::problem::{CaseKey, Env, Problem};
use crate::sandbox::spec::{EnvRule, EnvRules};
use crate::sandbox::{Isolation, Mode, StartError, TestLimits};
use crate::session::{Limits, Session, StderrTail};
use crate::verdict::{Fault, Outcome, Verdict, REASON_BYTES};

mod refine;
use refine::refine;

/// One problem of a run: its cases and the players that play it.
pub struct Suite {
    pub problem: Box<dyn Problem>,
    pub env: Env,
    pub cases: Vec<CaseKey>,
    pub players: Vec<Player>,
    /// (case, player name) pairs already finished (a resumed run): not run again.
    pub done: std::collections::HashSet<(CaseKey, String)>,
}

impl Suite {
    /// Caps the suite's process slots to what the machine can give `threads` tests at once;
    /// returns notes on limits the machine cannot honour for all of them together.
    pub(crate) fn fit_to_machine(&mut self, threads: usize) -> Vec<String> {
        let id = self.problem.id();
        let c = &mut self.env.config;
        let (cap, note) = crate::sandbox::probe::process_cap(threads, c.max_procs);
        c.max_procs = cap;
        let memory =
            crate::sandbox::probe::capacity_note(threads, c.memory_limit << 20, c.max_disk << 20);
        note.into_iter()
            .chain(memory)
            .map(|n| format!("{id}: {n}"))
            .collect()
    }

    /// The limits a session enforces for this problem.
    pub fn limits(&self) -> Limits {
        let c = &self.env.config;
        let limit = Duration::from_secs_f64(c.time_limit);
        let by_cpu = c.time_by() == crate::time_by::TimeBy::Cpu;
        Limits {
            think: crate::time_by::wall_limit(limit, c.time_by()),
            cpu: by_cpu.then_some(limit),
            memory: c.memory_limit << 20,
            // The protocol's own bound on a line, when it has one, is also a limit.
            max_line: self
                .problem
                .max_line()
                .map_or(c.max_line, |m| m.min(c.max_line)),
            max_output: c.max_output,
            max_stderr: c.max_stderr,
            grace: Duration::from_secs_f64(c.grace),
        }
    }
}

/// How every test of a run is contained: the run's isolation, the environment every player
/// gets, and the debugging switches.
pub struct Containment {
    pub isolation: std::sync::Arc<Isolation>,
    /// PATH, LANG, LC_ALL and `[harness] pass-env` variables (HOME, TMPDIR and the player's
    /// own are added per test).
    pub base_env: Vec<(String, String)>,
    pub core_dumps: bool,
}

impl Containment {
    /// The containment of a run (or a tuning) on this machine: the isolation `sandbox` and
    /// `cgroup` ask for (with the extra read-only `binds`), the `pass_env` variables of the
    /// user's environment. A requirement the machine cannot meet is the error.
    pub fn prepare(
        sandbox: crate::sandbox::Want,
        cgroup: crate::sandbox::Want,
        harness: &crate::config::HarnessSettings,
        core_dumps: bool,
    ) -> Result<Containment, String> {
        Ok(Containment {
            isolation: Isolation::prepare(sandbox, cgroup, &harness.sandbox_bind)
                .map(std::sync::Arc::new)
                .map_err(|e| e.to_string())?,
            base_env: base_env(&harness.pass_env),
            core_dumps,
        })
    }

    /// The environment of a player: the base, the player's folder, then its own variables.
    fn env(&self, player: &Player) -> Vec<(String, String)> {
        EnvRules::over(self.base_env.clone())
            .rule(EnvRule::Add {
                name: "HARNESS_PLAYER_DIR".into(),
                value: player.cwd.display().to_string(),
            })
            .set(&player.env)
            .resolve()
    }
}

/// The environment of a player before its own variables ([`EnvRules::base`]) and the `pass`
/// variables of the user's environment.
pub fn base_env(pass: &[String]) -> Vec<(String, String)> {
    EnvRules::base().keep(pass).resolve()
}

/// How the run is spread over the machine.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    pub threads: usize,
    pub pin_cpus: bool,
}

/// The result of one test.
#[derive(Debug)]
pub struct TestResult {
    pub problem: &'static str,
    pub player: String,
    pub case: CaseKey,
    pub params: Vec<String>,
    pub outcome: Outcome,
    pub think: Duration,
    pub wall: Duration,
    pub cpu: Duration,
    /// The test's peak memory (the cgroup's peak, or the largest peak RSS of its processes).
    pub max_memory_kb: u64,
    pub stderr: StderrTail,
    /// The hash of the player's program (tells versions of a player apart across runs).
    pub player_hash: String,
    /// Something worth a look although the verdict stands (time close to the limit, an
    /// overloaded machine); empty when nothing is.
    pub warning: String,
    /// Every message of the test, both ways ([`crate::transcript`] format).
    pub transcript: String,
    /// The pictures the judge drew of the test (a contest visualizer's files).
    pub pictures: Vec<crate::problem::Picture>,
}

impl TestResult {
    /// The result of a test not played yet: score 0, nothing measured.
    pub fn new(problem: &'static str, player: &Player, case: &CaseKey) -> TestResult {
        TestResult {
            problem,
            player: player.name.clone(),
            case: case.clone(),
            params: Vec::new(),
            outcome: Outcome::ok(0.0, 0),
            think: Duration::ZERO,
            wall: Duration::ZERO,
            cpu: Duration::ZERO,
            max_memory_kb: 0,
            stderr: StderrTail::default(),
            player_hash: player.hash.clone(),
            warning: String::new(),
            transcript: String::new(),
            pictures: Vec::new(),
        }
    }
}

/// What the runner reports, in order of happening.
#[derive(Debug)]
pub enum Event {
    /// A test is about to start.
    Started {
        problem: &'static str,
        player: String,
        case: CaseKey,
    },
    /// A test finished (every verdict, including failures).
    Finished(Box<TestResult>),
}

/// Runs every (case, player) pair of every suite. Returns false when the run was interrupted
/// (some tests were not run).
pub fn run(
    suites: &[Suite],
    containment: &Containment,
    options: RunOptions,
    events: &Sender<Event>,
) -> bool {
    let jobs: Vec<(usize, usize, usize)> = suites
        .iter()
        .enumerate()
        .flat_map(|(s, suite)| {
            (0..suite.cases.len())
                .flat_map(move |c| (0..suite.players.len()).map(move |p| (s, c, p)))
        })
        .filter(|&(s, c, p)| {
            let suite = &suites[s];
            !suite
                .done
                .contains(&(suite.cases[c].clone(), suite.players[p].name.clone()))
        })
        .collect();
    let cpus = os::allowed_cpus();
    let pin = options.pin_cpus;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.max(1))
        .thread_name(|i| format!("harness-worker-{i}"))
        .start_handler(move |i| {
            // A worker runs tests one after another: a test may make ready for the next
            // (its judge's sandbox), and the run's end (`reap_all`) ends what is left.
            crate::sandbox::held_ahead::enable_here();
            if pin {
                os::pin_current_thread(cpus[i % cpus.len()]);
            }
        })
        .build()
        .expect("thread pool");
    pool.install(|| {
        jobs.par_iter().with_max_len(1).for_each(|&(s, c, p)| {
            if os::interrupted() {
                return;
            }
            let suite = &suites[s];
            let (case, player) = (&suite.cases[c], &suite.players[p]);
            let _ = events.send(Event::Started {
                problem: suite.problem.id(),
                player: player.name.clone(),
                case: case.clone(),
            });
            if let Some(result) = run_one(suite, containment, case, player) {
                let _ = events.send(Event::Finished(Box::new(result)));
            }
        });
    });
    // Supervisors still tidying up after their tests (their players are all gone).
    crate::sandbox::reap_all(Duration::from_secs(5));
    !os::interrupted()
}

/// Plays one test; `None` when the run was interrupted during it. A test whose player the
/// machine refused to start (out of processes or memory) is played once more after a pause,
/// then left `ERR`: never the player's fault.
pub fn run_one(
    suite: &Suite,
    containment: &Containment,
    case: &CaseKey,
    player: &Player,
) -> Option<TestResult> {
    let (result, refused) = attempt(suite, containment, case, player)?;
    if !refused {
        return Some(result);
    }
    std::thread::sleep(Duration::from_millis(200));
    attempt(suite, containment, case, player).map(|(result, _)| result)
}

/// One try at a test: its result, and whether the machine refused to start the player.
fn attempt(
    suite: &Suite,
    containment: &Containment,
    case: &CaseKey,
    player: &Player,
) -> Option<(TestResult, bool)> {
    let begin = Instant::now();
    let mut result = TestResult::new(suite.problem.id(), player, case);
    let mut game = match suite.problem.case(case, &suite.env) {
        Ok(game) => game,
        // A test made by a contest's gen that an interrupt stopped is not finished.
        Err(_) if os::interrupted() => return None,
        Err(e) => {
            result.outcome = Outcome::failed(Verdict::HarnessError, e.to_string());
            return Some((result, false));
        }
    };
    result.params = game.params();
    let limits = suite.limits();
    if !unchanged(player, &mut result) {
        return Some((result, false));
    }
    let session = match start(suite, containment, player, limits) {
        Ok(started) => started,
        Err((verdict, reason)) => {
            result.outcome = Outcome::failed(verdict, reason);
            return Some((result, false));
        }
    };
    game.player_starting();
    let workdir = session.1;
    let mut session = session.0;
    let mut recorder =
        crate::transcript::Recorder::for_problem(suite.problem.as_ref(), &mut session);
    let outcome = if crate::debug::watching() {
        game.play(&mut crate::debug::Tee::new(&mut recorder))
    } else {
        game.play(&mut recorder)
    };
    result.transcript = recorder.text;
    result.pictures = game.pictures();
    // A judge that makes the test itself (a TopCoder tester) knows its parameters only now.
    result.params = game.params();
    let ending = session.finish();
    if crate::debug::watching() {
        crate::debug::stderr_end();
    }
    if let Some(workdir) = workdir {
        done_with_workdir(&containment.isolation, workdir, ending.report.as_ref());
    }
    if outcome.fault == Some(Fault::Interrupted) || os::interrupted() {
        return None;
    }
    result.think = ending.think;
    result.wall = begin.elapsed();
    if let Some(r) = &ending.report {
        result.cpu = Duration::from_micros(r.cpu_us);
        result.max_memory_kb = r.max_memory_kb;
        if let Some(e) = &r.start_error {
            result.outcome = start_failure(e, &player.program);
            result.stderr = ending.stderr;
            return Some((result, matches!(e, StartError::Refused(_))));
        }
    }
    result.outcome = refine(outcome, &ending, &limits, suite.problem.as_ref());
    result.outcome.reason = crate::verdict::clip(&result.outcome.reason, REASON_BYTES);
    result.stderr = ending.stderr;
    let unflushed = unflushed(&result.outcome);
    result.warning = warning(result.think, result.cpu, limits.think, unflushed);
    if let Some(cpu_limit) = limits.cpu {
        let keeps_score = suite.problem.keeps_score_on_fault();
        let (outcome, warning) = (&mut result.outcome, &mut result.warning);
        crate::time_by::judge_cpu(outcome, warning, result.cpu, cpu_limit, keeps_score);
    }
    unchanged(player, &mut result);
    Some((result, false))
}

/// Starts the player of a test in its sandbox. A machine that refuses (out of processes or
/// memory) gets one more try after a pause; then the test is ERR, never the player's fault.
#[allow(clippy::type_complexity)]
fn start(
    suite: &Suite,
    containment: &Containment,
    player: &Player,
    limits: Limits,
) -> Result<(Session, Option<(tempfile::TempDir, WorkdirStamp)>), (Verdict, String)> {
    let isolation = &containment.isolation;
    let c = &suite.env.config;
    let test_limits = TestLimits {
        memory: limits.memory,
        disk: c.max_disk << 20,
        procs: c.max_procs,
        core_dumps: containment.core_dumps,
    };
    let program = isolation.visible_program(&player.program, player.on_path);
    let mut argv = vec![program.display().to_string()];
    argv.extend(player.args.iter().cloned());
    let mut tries = 0;
    loop {
        tries += 1;
        // Process mode: a fresh host folder per test, removed when the test ends.
        let workdir = match isolation.mode {
            Mode::Namespaces => None,
            Mode::Process => Some(process_workdir_ahead(&containment.isolation).map_err(|e| {
                (
                    Verdict::HarnessError,
                    format!("cannot create a working directory: {e}"),
                )
            })?),
        };
        let mut spec = isolation.spec(
            &program,
            argv.clone(),
            &player.cwd,
            containment.env(player),
            workdir.as_ref().map(|w| w.path()),
            &test_limits,
        );
        // A player on the harness's pipes is TLE past this CPU time ([`cpu_over_limit`]):
        // each of its processes is killed a second after (RLIMIT_CPU), so that one starving
        // the judge of the CPU they share cannot keep the game going. (A direct player's
        // limit is its own: `Session::pending`.)
        spec.cpu_seconds = (limits.think + limits.grace).as_secs_f64().ceil() as u64 + 1;
        // As the test is given it (after `spec` made it its player's).
        let workdir = workdir.map(|w| {
            let began = WorkdirStamp::of(w.path());
            (w, began)
        });
        if suite.problem.direct_player() {
            // The game starts it, on the judge's own pipes, once the judge asks for it.
            return Session::pending(spec, limits)
                .map(|session| (session, workdir))
                .map_err(|e| {
                    let why = format!("cannot wait on a player: {e}");
                    (Verdict::HarnessError, why)
                });
        }
        let refused = match Session::spawn(&spec, limits) {
            Ok(session) => return Ok((session, workdir)),
            Err(e) => e,
        };
        let retry = StartError::is_refusal(&refused);
        if !retry || tries > 1 {
            return Err((
                Verdict::HarnessError,
                format!("cannot start {}: {refused}", player.program.display()),
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// What a process-mode test's host folder looked like when its test began: the folder and
/// its `work`, `home` and `tmp` (inode, mode, owner, modification and change times).
pub(crate) struct WorkdirStamp(Vec<FolderStamp>);

/// A folder's inode, mode, owner and group, modification and change times (s, ns).
type FolderStamp = (u64, u32, u32, u32, i64, i64, i64, i64);

impl WorkdirStamp {
    const SUBS: [&'static str; 3] = ["home", "tmp", "work"];

    pub(crate) fn of(dir: &Path) -> WorkdirStamp {
        use std::os::unix::fs::MetadataExt;
        let paths = std::iter::once(dir.to_path_buf()).chain(Self::SUBS.map(|s| dir.join(s)));
        WorkdirStamp(
            paths
                .map(|p| match std::fs::symlink_metadata(&p) {
                    Ok(m) => (
                        m.ino(),
                        m.mode(),
                        m.uid(),
                        m.gid(),
                        m.mtime(),
                        m.mtime_nsec(),
                        m.ctime(),
                        m.ctime_nsec(),
                    ),
                    // Never equal to a folder's: a missing one is not as it was.
                    Err(_) => (0, 0, 0, 0, -1, -1, -1, -1),
                })
                .collect(),
        )
    }

    /// Whether `dir` is as it was given: the same three folders and nothing else in it,
    /// nothing in them, and not one of the four changed (a file made and removed again
    /// changes its folder's times; a mode, an owner, an extended attribute, its change time).
    pub(crate) fn unchanged(&self, dir: &Path) -> bool {
        let names = |d: &Path| -> Option<Vec<std::ffi::OsString>> {
            let mut names = std::fs::read_dir(d)
                .ok()?
                .map(|e| e.map(|e| e.file_name()))
                .collect::<std::io::Result<Vec<_>>>()
                .ok()?;
            names.sort();
            Some(names)
        };
        let subs: Vec<std::ffi::OsString> = Self::SUBS.iter().map(|s| s.into()).collect();
        names(dir).is_some_and(|n| n == subs)
            && Self::SUBS
                .iter()
                .all(|s| names(&dir.join(s)).is_some_and(|n| n.is_empty()))
            && WorkdirStamp::of(dir).0 == self.0
    }
}

/// Most process-mode folders a run keeps for later tests ([`done_with_workdir`]).
const KEPT_WORKDIRS: usize = 16;

/// The end of a process-mode test's folder, once its test's report is in. A folder its test
/// left as it was given ([`WorkdirStamp::unchanged`]), with nothing of the test alive
/// (`report.all_gone`), goes to a later test of the run instead of being removed and made
/// again: on a disk with many files made and removed (ext4 then scans for an inode not
/// recently freed), the four new folders of each test came to take milliseconds, and two
/// workers making them at once were no faster than one. A later test cannot tell it from a
/// new folder, but by its inode numbers and times. Any other folder is removed, off the
/// test's path.
pub(crate) fn done_with_workdir(
    isolation: &std::sync::Arc<Isolation>,
    (dir, began): (tempfile::TempDir, WorkdirStamp),
    report: Option<&crate::sandbox::Report>,
) {
    if report.is_some_and(|r| r.all_gone) && began.unchanged(dir.path()) {
        let mut stock = isolation.workdirs.lock().unwrap_or_else(|e| e.into_inner());
        if stock.ready.len() < KEPT_WORKDIRS {
            stock.ready.push(dir);
            return;
        }
    }
    crate::sandbox::tool::remove_later(dir);
}

/// A process-mode test's host folder ([`process_workdir`]), made a little ahead of the test
/// on a thread of the harness's ([`crate::sandbox::tool::AHEAD`]): its four new inodes in
/// /tmp take 0.1 to 1 ms each on some machines, before the player's launch. Each folder is
/// used by one test at a time, and by a later one only as it was made ([`done_with_workdir`]);
/// those left at the end of the run go with its isolation.
pub(crate) fn process_workdir_ahead(
    isolation: &std::sync::Arc<Isolation>,
) -> std::io::Result<tempfile::TempDir> {
    /// Folders ready or being made at once: one per worker is enough to keep ahead.
    const AHEAD: usize = 2;
    let (ready, order) = isolation
        .workdirs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take(AHEAD);
    if order {
        // The folders, not the isolation: its end is never left to this thread.
        let workdirs = isolation.workdirs.clone();
        crate::sandbox::tool::AHEAD.run(Box::new(move || {
            let made = process_workdir().ok();
            workdirs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .made(made);
        }));
    }
    match ready {
        Some(dir) => Ok(dir),
        None => process_workdir(),
    }
}

/// A process-mode test's host folder: `work` (its working directory), `home` and `tmp`. In the
/// system's temporary folder, never in the run's scratch space, which may be a tmpfs
/// ([`crate::sandbox::scratch`]): there a process-mode player without a cgroup could hold
/// the machine's memory with files, which `max-disk` caps only one by one.
pub(crate) fn process_workdir() -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new().prefix("harness-test-").tempdir()?;
    for sub in ["work", "home", "tmp"] {
        std::fs::create_dir(dir.path().join(sub))?;
    }
    Ok(dir)
}

/// The verdict of a player that never ran: its own fault when its program cannot be
/// executed, the machine's (ERR) otherwise.
fn start_failure(error: &StartError, program: &std::path::Path) -> Outcome {
    let (verdict, reason) = match error {
        StartError::Exec(e) => (
            Verdict::RuntimeError,
            format!("cannot start {}: {e}", program.display()),
        ),
        StartError::Refused(e) => (
            Verdict::HarnessError,
            format!("the machine refused to start the player: {e}"),
        ),
        StartError::Setup(e) => (Verdict::HarnessError, format!("sandbox: {e}")),
    };
    Outcome {
        verdict,
        reason,
        ..Outcome::ok(0.0, 0)
    }
}

/// One program per run: a test is ERR when its player's files are not what they were when
/// the run started, checked before the player starts and again after the test (a change
/// while it ran leaves unknown which version played).
fn unchanged(player: &Player, result: &mut TestResult) -> bool {
    let Err(reason) = player.check_unchanged() else {
        return true;
    };
    result.outcome = Outcome {
        verdict: Verdict::HarnessError,
        reason,
        ..Outcome::ok(0.0, 0)
    };
    false
}

/// A test that used more than this share of its thinking time is flagged.
const NEAR_LIMIT: f64 = 0.8;

/// Flags a test whose thinking time came close to the limit, or was far above the CPU time
/// the player used (the machine is overloaded: too many threads, or another load), unless
/// the player was likely waiting on output it never flushed (`unflushed`: its own doing, not
/// the machine's).
fn warning(think: Duration, cpu: Duration, limit: Duration, unflushed: bool) -> String {
    let mut notes = Vec::new();
    let used = think.as_secs_f64() / limit.as_secs_f64();
    if used > NEAR_LIMIT {
        notes.push(format!("used {:.0}% of the time limit", used * 100.0));
    }
    if overloaded(think, cpu, unflushed) {
        notes.push(format!(
            "thinking time {:.1}x the CPU time: overloaded machine (try fewer --threads) or a player that waits",
            think.as_secs_f64() / cpu.as_secs_f64().max(1e-3)
        ));
    }
    notes.join("; ")
}

/// Whether a test's thinking time was far above the CPU time its player used, which the
/// player's own doing (`unflushed`) does not explain: the machine was overloaded, or the
/// player waits. The condition of the warning, and of a TLE's rerun ([`crate::rerun`]).
pub(crate) fn overloaded(think: Duration, cpu: Duration, unflushed: bool) -> bool {
    !unflushed && think >= Duration::from_millis(500) && think > cpu * 3
}

/// Whether a TLE's player was likely waiting on output it never flushed (its own doing).
pub(crate) fn unflushed(outcome: &Outcome) -> bool {
    matches!(&outcome.fault, Some(Fault::TimeLimit(o)) if o.unflushed())
}
