//! A test whose contest tool starts the player itself (interactive AtCoder testers, TopCoder
//! tester jars): the tool runs contained with the relay's command in place of the player
//! (`sandbox::relay`), and the game proxies between the relay and the player's [`Channel`],
//! so the player is the harness's as in any built-in problem: the same checks of every line,
//! limits, thinking clock, transcript, `--verbose` and verdicts. A tester that starts its
//! player more than once plays one game per start, up to `max-starts` ([`super::starts`]).
//!
//! With `relay = "direct"` ([`super::config::RelayMode::Direct`]) the player is instead
//! started, in its own sandbox, on the tool's own pipes ([`Channel::start_on`]) and the game
//! only waits for the tool's end: the tool's own speed per message, but no line passes here,
//! so there is no thinking clock (the time limit holds the player's CPU time, in the runner),
//! no line check and no transcript. Who is at fault then: `direct_outcome`.
//!
//! # Who is at fault
//!
//! - A fault of the player on the wire (time, a line too long or not text, too much output)
//!   ends the test with the player's verdict, whatever the tool says after.
//! - The tool ran and scored: that score. It reported an invalid answer (no score, an error
//!   score, or a failure once the player has spoken, a panic included): WA with the tool's
//!   last lines, never a rerun; a player that left or crashed first then gets RE or MLE from
//!   the runner as on a built-in problem. A tool that ended the game first (it died while
//!   the player was still in it) keeps its WA, whatever the player does once its input ends.
//! - The tool could not start, never started its player, failed before the player spoke, or
//!   ran past its own time: ERR (not the player's fault; `--resume` runs it again).
//!
//! # The clock
//!
//! As for a built-in judge: it starts when the tool's lines are handed to the player and
//! stops at the player's line. The time from the player's line to the tool's next message
//! is the tool's and is dropped (the next send restarts the clock) — unless the player's
//! time runs out in it, which cannot be told apart from a player computing its next line
//! unasked, and is the player's TLE. The time before the tool's first message (a JVM
//! starting) is never the player's: the game waits for that message on the tool's pipes
//! alone (so a protocol where the player speaks first is not supported: ERR).

use std::time::{Duration, Instant};

use std::sync::Arc;

use super::config::{Def, RelayMode, Shape};
use super::inputs::{self, Made};
use super::judge::{self, JudgeFolders, Placeholders};
use super::starts;
use std::os::fd::BorrowedFd;

use crate::problem::{CaseError, Channel, Game, Heard, Picture, Waited};
use crate::sandbox::relay::{Accepted, Link, Pipes, Relay, MAX_TOOL_LINE};
use crate::sandbox::tool::{self, Stdin, ToolCommand, ToolDir, ToolEnd, ToolRun};
use crate::sandbox::Isolation;
use crate::verdict::{Fault, Outcome, Verdict};

/// How the conversation through the relay ended.
#[derive(Debug)]
pub enum Talk {
    /// It ended without a fault of the player: the tool closed it, or the player ended its
    /// output (`left`: how, for the runner to tell a crash).
    Ended { moves: u64, left: Option<Fault> },
    /// The player committed a fault: its verdict, whatever the tool says.
    Fault { fault: Fault, moves: u64 },
    /// The tool never started its player (it ended first, or took longer than its time).
    NeverStarted(String),
    /// The harness could not set the relay up.
    Broken(String),
    /// The tool broke the proxy's rule (a message line past `relay::MAX_TOOL_LINE`): the
    /// tool's failure, not the player's.
    ToolFailed(String),
    /// `relay = "direct"`: the player talked to the tool on the tool's own pipes and the
    /// tool has ended. `running`: the player was still running when the tool ended; `left`:
    /// the player has ended since (how; `None`: it had to be stopped). How many lines
    /// passed, the harness never saw.
    Direct { running: bool, left: Option<Fault> },
}

/// Time a tool gets to take the player's last lines once the player has ended.
const FLUSH: Duration = Duration::from_secs(5);

/// `relay = "direct"`: time a player gets to end once its tool has ended (its input is
/// closed then), so that a crash that ended the game is told as one.
const LEAVING: Duration = Duration::from_secs(1);

/// Runs the tool in `dir` (`command` makes its command from the relay's argv) with a relay to
/// `player`, and proxies until both have ended, or (`direct`) starts the player on the
/// tool's own pipes and waits until the tool has ended. Returns the conversation and the
/// tool's run (`None` when the relay could not be set up).
pub fn play(
    isolation: &Isolation,
    dir: &ToolDir,
    command: impl FnOnce(&[String]) -> ToolCommand,
    player: &mut dyn Channel,
    direct: bool,
    max_starts: u32,
) -> (Talk, Option<ToolRun>) {
    let own_pid_ns = isolation.mode == crate::sandbox::spec::Mode::Namespaces;
    let relay = match Relay::listen(dir.path(), own_pid_ns) {
        Ok(r) => r,
        Err(e) => return (Talk::Broken(format!("cannot set up the relay: {e}")), None),
    };
    let mut cmd = command(&relay.argv());
    cmd.read_only.push(relay.exe().to_path_buf());
    let (done, ended) = match crate::sandbox::relay::end_signal() {
        Ok(pair) => pair,
        Err(e) => return (Talk::Broken(format!("cannot set up the relay: {e}")), None),
    };
    let timeout = cmd.timeout;
    // The tool's run ends by this at the latest (it starts just after): a direct player
    // still running then has kept it waiting.
    let tool_deadline = Instant::now() + timeout;
    std::thread::scope(|scope| {
        let cmd = &cmd;
        let tool = scope.spawn(move || {
            let run = tool::run(isolation, cmd, dir);
            drop(done);
            run
        });
        // Before the tool's own end by its time, so that a tool that never starts its player
        // is told as such, whichever thread the machine runs first.
        // Only the tool's own processes may connect: a player that found the socket is
        // ignored (`sandbox::peer`).
        let owner = || dir.supervisor();
        let talk = if direct {
            match relay.accept(ended.fd(), tool_deadline, &owner) {
                Ok(Accepted::Pipes(pipes)) => {
                    talk_directly(pipes, ended.fd(), tool_deadline, player)
                }
                Ok(other) => starts::not_started(other, timeout),
                Err(e) => Talk::Broken(format!("the relay failed: {e}")),
            }
        } else {
            let ended = ended.fd();
            starts::games(
                relay,
                ended,
                tool_deadline,
                timeout,
                &owner,
                max_starts,
                player,
            )
        };
        let run = tool.join().expect("the tool's thread");
        (talk, Some(run))
    })
}

/// `relay = "direct"`: starts the player on the tool's own pipes (nothing of the harness's
/// between them) and waits until the tool has ended (`ended` readable), its own time
/// (`deadline`) bounding it. Whether the player was still running at that deadline tells a
/// player that kept the tool waiting. Once the tool has ended, the player (its input
/// closed) gets [`LEAVING`] to end, so that a crash that ended the game counts as the
/// player's; then the relay is let go (the tool sees its player exit).
fn talk_directly(
    pipes: Pipes,
    ended: BorrowedFd<'_>,
    deadline: Instant,
    player: &mut dyn Channel,
) -> Talk {
    let Pipes {
        control,
        from_tool,
        to_tool,
    } = pipes;
    if let Err(fault) = player.start_on(from_tool, to_tool) {
        return Talk::Broken(fault.to_string());
    }
    // The tool's run ends by its deadline; a little more, in case its teardown is slow.
    let far = deadline + FLUSH;
    let running = match player.wait_player(Some(ended), far) {
        Ok(Waited::PlayerEnded) => Instant::now() >= deadline,
        Ok(Waited::Other | Waited::TimedOut) => true,
        Err(fault) => return Talk::Fault { fault, moves: 0 },
    };
    let left = match player.wait_player(None, Instant::now() + LEAVING) {
        Ok(Waited::PlayerEnded) => Some(Fault::Eof),
        Ok(_) => None,
        Err(fault) => return Talk::Fault { fault, moves: 0 },
    };
    // The relay exits: the tool sees its player end (the tool's thread is joined next).
    drop(control);
    Talk::Direct { running, left }
}

/// Waits for the tool's first message (a JVM starting, a tester reading its input): that
/// time is never the player's. `None` once it has come; the end of the conversation when
/// it never does.
pub(super) fn first_message(link: &Link, deadline: Instant) -> Option<Talk> {
    match link.wait(deadline) {
        Ok(true) => None,
        Ok(false) if crate::os::interrupted() => Some(Talk::Fault {
            fault: Fault::Interrupted,
            moves: 0,
        }),
        Ok(false) => Some(Talk::NeverStarted(
            "the tool sent the player nothing within its time".into(),
        )),
        Err(e) => Some(Talk::Broken(format!("the relay failed: {e}"))),
    }
}

/// Proxies until the conversation ends: the tool's complete lines to the player, the
/// player's lines to the tool. Called once the tool has sent something. The tool's pipe is
/// read only when the wait said so: a message costs the game one wait, one read and one
/// write each way.
pub(crate) fn proxy(link: &mut Link, player: &mut dyn Channel) -> Talk {
    let mut moves = 0;
    let mut tool_spoke = true;
    loop {
        if tool_spoke {
            link.receive();
            tool_spoke = false;
        }
        link.flush();
        if let Some(lines) = link.take_lines() {
            if let Err(fault) = player.send(lines) {
                return match fault {
                    // The player stopped reading (it has ended): the tool judges what it got.
                    Fault::Gone(_) => player_left(link, moves, fault),
                    fault => Talk::Fault { fault, moves },
                };
            }
            continue;
        }
        if link.too_long() {
            return Talk::ToolFailed(format!(
                "sent its player a line of more than {} MB without a newline (the relay's limit)",
                MAX_TOOL_LINE >> 20
            ));
        }
        if link.read_closed() {
            if link.peer_gone() {
                // The tool ended (or ended the relay): the game is over.
                return Talk::Ended { moves, left: None };
            }
            // The tool closed the player's input and waits for the rest of its output.
            return match player.recv_to_end() {
                Ok(rest) => {
                    for line in rest.lines() {
                        moves += 1;
                        link.queue(line);
                    }
                    link.close_write(Instant::now() + FLUSH);
                    Talk::Ended { moves, left: None }
                }
                Err(fault) => Talk::Fault { fault, moves },
            };
        }
        // The link's descriptor is readable when the tool spoke or has room for what waits.
        match player.recv_or(link.fd(), false) {
            Ok(Heard::Line(line)) => {
                moves += 1;
                link.queue(line);
            }
            Ok(Heard::Other) => tool_spoke = true,
            Err(Fault::Eof) => return player_left(link, moves, Fault::Eof),
            Err(fault) => return Talk::Fault { fault, moves },
        }
    }
}

/// The player ended its side: the tool gets what is in flight, then the end of its output.
fn player_left(link: &mut Link, moves: u64, how: Fault) -> Talk {
    link.close_write(Instant::now() + FLUSH);
    Talk::Ended {
        moves,
        left: Some(how),
    }
}

/// The outcome of a relayed test: the player's fault first, then the tool's judgement
/// ([`judge::judge_outcome`], shared with the batch shape), with ERR for a tool that failed
/// before the player said anything.
pub fn outcome(def: &Def, talk: Talk, run: Option<&ToolRun>) -> Outcome {
    let timeout = Duration::from_secs_f64(def.judge_timeout);
    let (moves, left) = match talk {
        Talk::Fault { fault, moves } => return Outcome::fault(&fault, 0.0, moves),
        Talk::Broken(why) => {
            // A tool that died at once takes its relay with it: its words say why.
            let tail = match run {
                Some(r) if !r.succeeded() && r.end != ToolEnd::Interrupted => {
                    format!("; the tool ended first{}", tool_words(def, r, timeout))
                }
                _ => String::new(),
            };
            return Outcome::failed(Verdict::HarnessError, format!("{why}{tail}"));
        }
        Talk::ToolFailed(why) => {
            let tool = def.judge.first().map_or("", String::as_str);
            let tail = run.map(|r| tool_words(def, r, timeout)).unwrap_or_default();
            let why = format!("the tool `{tool}` {why}{tail}");
            return Outcome::failed(Verdict::HarnessError, why);
        }
        Talk::NeverStarted(why) => {
            let tail = run.map(|r| tool_words(def, r, timeout)).unwrap_or_default();
            return Outcome::failed(Verdict::HarnessError, format!("{why}{tail}"));
        }
        Talk::Ended { moves, left } => (moves, left),
        Talk::Direct { running, left } => return direct_outcome(def, running, left, run),
    };
    let Some(run) = run else {
        return Outcome::failed(Verdict::HarnessError, "the tool did not run");
    };
    let Some(mut outcome) = judge::judge_outcome(def, run, moves) else {
        return Outcome::fault(&Fault::Interrupted, 0.0, moves);
    };
    if outcome.verdict == Verdict::WrongAnswer {
        if moves == 0 && left.is_none() {
            // The tool failed before the player said anything: not the player's doing.
            let why = "the tool failed before the player answered";
            return Outcome::failed(
                Verdict::HarnessError,
                format!("{why}{}", tool_words(def, run, timeout)),
            );
        }
        // A player that left first: the runner tells a crash (RE, MLE) from a clean exit.
        // A tool that ended the game first (it died, or judged and exited): its WA stands,
        // however the player ends once its input is closed.
        outcome.ended_by_tool = left.is_none();
        outcome.fault = left;
    }
    outcome
}

/// The outcome of a `relay = "direct"` test. The harness saw no line of the game, so it
/// cannot tell who failed first: a tool that fails once the player is started is the
/// player's WA (never ERR), and a tool that runs past its time while the player is still
/// running is the player's TLE. The player's CPU time against the limit, a crash (RE) and
/// memory (MLE) are the runner's, as for any player.
fn direct_outcome(def: &Def, running: bool, left: Option<Fault>, run: Option<&ToolRun>) -> Outcome {
    let Some(run) = run else {
        return Outcome::failed(Verdict::HarnessError, "the tool did not run");
    };
    if matches!(run.end, ToolEnd::TimedOut) && running {
        let timeout = Duration::from_secs_f64(def.judge_timeout);
        let why = format!(
            "the tool {} with the player still running (relay = \"direct\": the harness cannot tell whose turn it was; a player that waits or never flushes ends so)",
            run.describe_end(timeout)
        );
        return Outcome::failed(Verdict::TimeLimit, why);
    }
    let Some(mut outcome) = judge::judge_outcome(def, run, 0) else {
        return Outcome::fault(&Fault::Interrupted, 0.0, 0);
    };
    if outcome.verdict == Verdict::WrongAnswer {
        // A player that left first: the runner tells a crash (RE, MLE) from a clean exit.
        outcome.fault = left;
    }
    outcome
}

/// How a tool ended and its last lines, for a reason (`: exit status 1: thread 'main'...`).
fn tool_words(def: &Def, run: &ToolRun, timeout: Duration) -> String {
    let end = run.describe_end(timeout);
    if judge::messages(def, run).is_empty() {
        format!(" ({end})")
    } else {
        format!(" ({end}): {}", judge::reason_lines(def, run, 3))
    }
}

/// File names in the tester's working folder: its stdin (interactive) and its stdout.
pub(super) const INPUT: &str = "input.txt";
pub(super) const OUTPUT: &str = "output.txt";

/// One test of an interactive or TopCoder-shaped problem.
pub struct RelayedGame {
    def: Arc<Def>,
    isolation: Arc<Isolation>,
    /// The testers' folders, made ahead of the tests.
    folders: Arc<JudgeFolders>,
    /// The input made by `gen` (interactive); TopCoder testers make their own from the seed.
    made: Option<Arc<Made>>,
    tool_seed: u64,
    /// The player's thinking time (s): the tester runs during it, on top of its own time.
    think: f64,
    input: String,
    /// What the tester printed of the test (`N = 5` lines, TopCoder), for the parameters.
    printed: String,
    pictures: Vec<Picture>,
}

impl RelayedGame {
    pub fn new(
        def: Arc<Def>,
        isolation: Arc<Isolation>,
        folders: Arc<JudgeFolders>,
        made: Option<Arc<Made>>,
        tool_seed: u64,
        think: f64,
    ) -> Result<RelayedGame, CaseError> {
        let input = match &made {
            Some(m) => m.text()?,
            None => String::new(),
        };
        Ok(RelayedGame {
            def,
            isolation,
            folders,
            made,
            tool_seed,
            think,
            input,
            printed: String::new(),
            pictures: Vec::new(),
        })
    }

    /// The testers' folders of a problem's run: the tools shown but for the names a tester
    /// writes (its input, its output file, its pictures), the input's and the output's files
    /// made where the harness writes them (interactive).
    pub fn folders(def: &Def) -> JudgeFolders {
        let mut outputs = vec![INPUT.to_string(), OUTPUT.to_string()];
        outputs.extend(def.pictures.iter().cloned());
        let files = match def.shape {
            Shape::Interactive => vec![INPUT.to_string(), OUTPUT.to_string()],
            _ => Vec::new(),
        };
        JudgeFolders::new(&def.tools, outputs, files, judge::linked_in_copies(def))
    }

    /// The tester's command with the relay in place of the player.
    /// Seconds the tester may run: it runs while the player thinks, so its own time
    /// (`judge-timeout`) on top of the player's, in each start of the player it may make.
    fn tool_time(&self) -> f64 {
        self.def.judge_timeout + self.think * f64::from(self.def.max_starts)
    }

    fn command(&self, dir: &ToolDir, relay: &[String]) -> ToolCommand {
        let work = dir.work();
        let values = Placeholders {
            input: self.made.as_ref().map(|_| work.join(INPUT)),
            output: Some(work.join(OUTPUT)),
            seed: Some(self.tool_seed),
            player: relay.to_vec(),
            ..Placeholders::default()
        };
        let args = values.apply(&self.def.judge);
        // Interactive: the input on stdin and stdout into the output file (`tester < in > out`).
        let interactive = self.def.shape == Shape::Interactive;
        ToolCommand {
            program: judge::program(&self.def.tools, &args[0]),
            args: args[1..].to_vec(),
            tools: self.def.tools.clone(),
            read_only: Vec::new(),
            env: super::tool_env(),
            stdin: if interactive {
                Stdin::Bytes(self.input.clone().into_bytes())
            } else {
                Stdin::Null
            },
            stdout: interactive.then(|| work.join(OUTPUT)),
            timeout: Duration::from_secs_f64(self.tool_time()),
            limits: inputs::tool_limits(&self.def),
            max_output: 64 << 20,
        }
    }
}

impl Game for RelayedGame {
    fn params(&self) -> Vec<String> {
        match self.def.shape {
            // TopCoder: the tester prints the test's parameters (`N = 5`) once it has run.
            Shape::Topcoder => self
                .def
                .params
                .iter()
                .map(|name| printed_param(&self.printed, name).unwrap_or_default())
                .collect(),
            _ => self.def.params_of_input(&self.input),
        }
    }

    fn describe(&self) -> String {
        match &self.made {
            Some(_) => self.input.clone(),
            None => format!(
                "(made by the tester from seed {}: {})\n",
                self.tool_seed,
                self.def.judge.join(" ")
            ),
        }
    }

    fn play(&mut self, player: &mut dyn Channel) -> Outcome {
        let dir = match self.folders.take(&self.isolation) {
            Ok(d) => d,
            Err(e) => {
                let why = format!("cannot make the tester's folder: {e}");
                return Outcome::failed(Verdict::HarnessError, why);
            }
        };
        if self.made.is_some() {
            let written = judge::open_made(&dir.work().join(INPUT))
                .and_then(|mut f| std::io::Write::write_all(&mut f, self.input.as_bytes()));
            if let Err(e) = written {
                let why = format!("cannot write the tester's input: {e}");
                return Outcome::failed(Verdict::HarnessError, why);
            }
        }
        let (talk, run) = play(
            &self.isolation,
            &dir,
            |relay| self.command(&dir, relay),
            player,
            self.def.relay == RelayMode::Direct,
            self.def.max_starts,
        );
        let drawn = super::drawing::draw(
            &self.def,
            &self.isolation,
            &dir,
            self.tool_seed,
            run.as_ref(),
        );
        self.pictures.extend(drawn);
        if let Some(run) = &run {
            self.printed = run.stdout_tail.clone();
        }
        let left = judge::left_pictures(&self.def, &dir.work(), self.tool_seed);
        let again = crate::sandbox::relay::started_again(dir.path());
        let closed = crate::sandbox::relay::folder_closed(dir.path());
        // Off the test's path: the folder was a mount point of the tool's sandbox.
        dir.dispose();
        // A fault on the wire stands, whatever the tool did after (a start past the cap).
        let wire_fault = matches!(talk, Talk::Fault { .. });
        // Judged with the time the tester had, so a reason says how long it ran.
        let timed = Def {
            judge_timeout: self.tool_time(),
            ..Def::clone(&self.def)
        };
        let mut outcome = outcome(&timed, talk, run.as_ref());
        if again && !wire_fault {
            outcome = super::starts::past_the_cap(&self.def, &outcome);
        }
        if !matches!(outcome.fault, Some(Fault::Interrupted)) {
            outcome = judge::with_pictures(outcome, left, &mut self.pictures);
        }
        if closed && outcome.verdict == Verdict::HarnessError {
            outcome.reason.push_str(
                " (the tool's folder was made unreachable during the test, by a program of the harness's own user: process mode as an ordinary user keeps players from it only with its seccomp filter, on x86_64 and aarch64; use the sandbox, or run as root)",
            );
        }
        if let Some(run) = &run {
            judge::keep_log(&timed, &outcome, run, &mut self.pictures);
        }
        outcome
    }

    fn pictures(&mut self) -> Vec<Picture> {
        std::mem::take(&mut self.pictures)
    }
}

/// The value of a `NAME = value` line a tester printed (the last one).
fn printed_param(text: &str, name: &str) -> Option<String> {
    text.lines().rev().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == name).then(|| value.trim().to_string())
    })
}
