//! The bench's players: `harness echo` (the peer of every ping-pong, answering each line with
//! `0 0`), the two forwarders between a tool and an echo that the relay's proxy is measured
//! against (`harness forward`, `harness forward-waiting`), the containments the bench runs
//! its players in, and their start as a run starts a player (a spec, and in process mode a
//! host folder made ahead). May start processes and make temporary folders.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::error::{Classify, Error};
use crate::exit;
use crate::runner::{self, Containment};
use crate::sandbox::Want;
use crate::session::{Limits, Session};

/// The peer of the ping-pong: answers every line with `0 0`.
pub fn echo() -> Result<u8, Error> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        if line.is_err() {
            break;
        }
        if out.write_all(b"0 0\n").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
    Ok(exit::OK)
}

/// A plain forwarder between a contest tool and its player (`harness forward`): starts
/// `harness echo` on pipes, then passes each line of its own input to it and its answer back,
/// with blocking reads and writes, no clock, no check and no record. A message through it
/// crosses two pipes and wakes two processes, as through the harness's proxy; it hears only
/// the side whose turn it is, which a proxy cannot ([`forward_waiting`]).
pub fn forward() -> Result<u8, Error> {
    let (mut child, mut to_peer, from_peer) = echo_on_pipes()?;
    let mut from_peer = std::io::BufReader::new(from_peer);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    let mut line = String::new();
    loop {
        line.clear();
        if !matches!(input.read_line(&mut line), Ok(n) if n > 0) {
            break;
        }
        if to_peer.write_all(line.as_bytes()).is_err() {
            break;
        }
        line.clear();
        if !matches!(from_peer.read_line(&mut line), Ok(n) if n > 0) {
            break;
        }
        if out
            .write_all(line.as_bytes())
            .and_then(|_| out.flush())
            .is_err()
        {
            break;
        }
    }
    drop(to_peer);
    let _ = child.wait();
    Ok(exit::OK)
}

/// The floor of any proxy that must hear both sides at once (`harness forward-waiting`): as
/// [`forward`], but each read waits first for either side to be readable (one `epoll_wait`
/// on the tool's pipe and the peer's, as the harness's proxy must wait, so that a tool that
/// speaks out of turn or ends is heard while the player thinks). Bytes pass as they come: no
/// line, no clock, no check and no record.
pub fn forward_waiting() -> Result<u8, Error> {
    use std::io::Read;
    use std::os::fd::{AsFd, AsRawFd};
    let (mut child, to_peer, mut from_peer) = echo_on_pipes()?;
    // Unbuffered: what the wait says is readable is in the pipe, not in a buffer of ours.
    let mut from_tool = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned().fault()?);
    let mut waiter = crate::os::Waiter::new().fault()?;
    let read = crate::os::Interest::Read;
    waiter.add(from_tool.as_raw_fd(), 0, read).fault()?;
    waiter.add(from_peer.as_raw_fd(), 1, read).fault()?;
    let mut to_peer = Some(to_peer);
    let mut out = std::io::stdout().lock();
    let mut buf = [0u8; 4096];
    let pass = |to: &mut dyn Write, bytes: &[u8]| to.write_all(bytes).and_then(|_| to.flush());
    while let Ok(ready) = waiter.wait(None) {
        if ready & 1 != 0 {
            match (from_tool.read(&mut buf), to_peer.as_mut()) {
                (Ok(n), Some(to)) if n > 0 => {
                    if pass(to, &buf[..n]).is_err() {
                        break;
                    }
                }
                _ => {
                    // The tool's end: the peer's input ends, its last answers still pass.
                    waiter.remove(from_tool.as_raw_fd());
                    to_peer = None;
                }
            }
        }
        if ready & 2 != 0 {
            match from_peer.read(&mut buf) {
                Ok(n) if n > 0 && pass(&mut out, &buf[..n]).is_ok() => {}
                _ => break,
            }
        }
    }
    waiter.remove(from_peer.as_raw_fd());
    drop(to_peer);
    let _ = child.wait();
    Ok(exit::OK)
}

/// `harness echo` started on pipes: the child, its input and its output.
fn echo_on_pipes() -> Result<
    (
        std::process::Child,
        std::process::ChildStdin,
        std::process::ChildStdout,
    ),
    Error,
> {
    let mut child = echo_command()?
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .fault()?;
    let to_peer = child.stdin.take().expect("piped");
    let from_peer = child.stdout.take().expect("piped");
    Ok((child, to_peer, from_peer))
}

/// `harness echo`, from this very binary.
pub(super) fn echo_command() -> Result<Command, Error> {
    own_command("echo")
}

/// This very binary with the (hidden) subcommand `sub`: `echo`, `forward`,
/// `forward-waiting`.
pub(super) fn own_command(sub: &str) -> Result<Command, Error> {
    let exe = std::env::current_exe().fault()?;
    let mut cmd = Command::new(exe);
    cmd.arg(sub);
    Ok(cmd)
}

/// The limits of an echo player in a ping-pong: no clock worth the name, nothing to stop it.
pub(super) fn echo_limits() -> Limits {
    Limits {
        think: Duration::from_secs(3600),
        cpu: None,
        memory: 0,
        max_line: 1 << 16,
        max_output: u64::MAX,
        max_stderr: 1 << 20,
        grace: Duration::from_secs(1),
    }
}

/// A containment for the bench's own players: the user's PATH and locale, no extra variables.
pub(super) fn containment(sandbox: Want, cgroup: Want) -> Result<Containment, Error> {
    let own = crate::config::HarnessSettings::default();
    Containment::prepare(sandbox, cgroup, &own, false).map_err(Error::Usage)
}

/// Starts `program args` as a player of `containment` (in process mode, in a host folder of
/// its own, as a run gives it: [`runner::done_with_workdir`] at its end).
pub(super) fn spawn(
    containment: &Containment,
    program: &Path,
    args: &[&str],
    limits: Limits,
) -> Result<(Session, Option<Workdir>), Error> {
    let (spec, work) = player_spec(containment, program, args)?;
    Ok((Session::spawn(&spec, limits).fault()?, work))
}

/// The spec of `program args` as a player of `containment`, and its host folder in process
/// mode.
pub(super) fn player_spec(
    containment: &Containment,
    program: &Path,
    args: &[&str],
) -> Result<(crate::sandbox::Spec, Option<Workdir>), Error> {
    let work = match containment.isolation.mode {
        crate::sandbox::Mode::Namespaces => None,
        // Made ahead, as a run makes them.
        crate::sandbox::Mode::Process => {
            Some(runner::process_workdir_ahead(&containment.isolation).fault()?)
        }
    };
    let mut argv = vec![program.display().to_string()];
    argv.extend(args.iter().map(|a| a.to_string()));
    let dir = program.parent().unwrap_or(Path::new("/"));
    let spec = containment.isolation.spec(
        program,
        argv,
        dir,
        containment.base_env.clone(),
        work.as_ref().map(|w| w.path()),
        &crate::sandbox::TestLimits {
            memory: 0,
            disk: 16 << 20,
            procs: 64,
            core_dumps: false,
        },
    );
    // As a run does: its stamp once the spec has made it the player's.
    let work = work.map(|w| {
        let began = runner::WorkdirStamp::of(w.path());
        (w, began)
    });
    Ok((spec, work))
}

/// A process-mode test's host folder and how it was when its test began.
pub(super) type Workdir = (tempfile::TempDir, runner::WorkdirStamp);
