//! The relay's cost per message: a contest tool talking to a plain process through a pipe
//! (the raw ping-pong), through a plain forwarding process, through one that waits on both
//! sides at once as any proxy must (the floor of a proxy), through the relay and the
//! harness's proxy to a player, sandboxed and not, and with `relay = "direct"` (the player
//! on the tool's own pipes), sandboxed and not. The tool (this thread) shares the worker cpu
//! group of its player, as a run's tool does. Starts `harness __relay`, `harness forward`,
//! `harness forward-waiting` and `harness echo`, and makes a temporary folder for the
//! relay's socket.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use super::figures::per_move;
use super::peer::{echo_limits, own_command, player_spec, spawn};
use super::ping_pong::{raw_ping_pong, round_trips};
use crate::error::{Classify, Error};
use crate::problem::Channel;
use crate::runner::Containment;
use crate::sandbox::cgroup;
use crate::sandbox::relay::{end_signal, Accepted, EndWatch, Link, Pipes, Relay};
use crate::session::Session;

/// A contest tool talking to its player through the relay, as in a run of an interactive or
/// TopCoder-shaped problem: this thread is the tool (it starts `harness __relay SOCKET` on
/// pipes, as a tester starts its player, and does plain blocking round trips), another
/// thread proxies between the relay and the player's session (`harness echo` in
/// `containment`) with the games' own proxy (`problem::tools::relayed`), or (`direct`)
/// starts the player on the tool's own pipes and waits for its end, as `relay = "direct"`.
fn relay_ping_pong(n: u64, containment: &Containment, direct: bool) -> Result<Duration, Error> {
    let dir = tempfile::Builder::new()
        .prefix("harness-bench-")
        .tempdir()
        .fault()?;
    let relay = Relay::listen(dir.path(), false).fault()?;
    let argv = relay.argv();
    let (done, ended) = end_signal().fault()?;
    let exe = std::env::current_exe().fault()?;
    let (placed, place) = std::sync::mpsc::sync_channel(1);
    std::thread::scope(|scope| {
        let judge = scope.spawn(move || -> Result<(), Error> {
            if direct {
                judge_direct(relay, ended, containment, exe, placed)
            } else {
                judge_proxy(relay, ended, containment, exe, placed)
            }
        });
        // As in a run, the tool shares the cpu group of its worker and player (if any).
        let folder = place.recv_timeout(Duration::from_secs(30)).ok().flatten();
        let _in_group = folder.as_ref().and_then(cgroup::Guest::join);
        let t = tool(n, &argv);
        drop(done);
        let judged = judge.join().expect("bench judge thread");
        let t = t?;
        judged?;
        Ok(t)
    })
}

/// Where the judge's thread tells the tool's which worker cpu folder its player is in (none
/// without a cgroup): a run's tool is in it too.
type Placed = std::sync::mpsc::SyncSender<Option<cgroup::WorkerFolder>>;

/// The bench's tool is this process, which starts the relay.
fn me() -> Option<i32> {
    Some(std::process::id() as i32)
}

/// How long the tool's relay has to connect: 30 s from the judge's start.
fn connect_deadline() -> Instant {
    Instant::now() + Duration::from_secs(30)
}

/// The relay's pipes, once the tool's relay has connected (by `deadline`).
fn connected(relay: Relay, ended: &EndWatch, deadline: Instant) -> Result<Pipes, Error> {
    let Accepted::Pipes(pipes) = relay.accept(ended.fd(), deadline, &me).fault()? else {
        return Err(Error::Usage("bench: the relay did not connect".into()));
    };
    Ok(pipes)
}

/// `relay = "direct"`: the player starts on the tool's own pipes; the judge waits for its end.
fn judge_direct(
    relay: Relay,
    ended: EndWatch,
    containment: &Containment,
    exe: PathBuf,
    placed: Placed,
) -> Result<(), Error> {
    let deadline = connect_deadline();
    let (spec, _work) = player_spec(containment, &exe, &["echo"])?;
    let _ = placed.send(cgroup::worker_folder());
    let mut session = Session::pending(spec, echo_limits()).fault()?;
    let Pipes {
        control,
        from_tool,
        to_tool,
    } = connected(relay, &ended, deadline)?;
    let usage = |f: crate::verdict::Fault| Error::Usage(format!("bench: {f}"));
    session.start_on(from_tool, to_tool).map_err(usage)?;
    // The player ends when the tool closes its input; then the relay may go.
    let far = Instant::now() + Duration::from_secs(3600);
    session.wait_player(Some(ended.fd()), far).map_err(usage)?;
    drop(control);
    session.finish();
    Ok(())
}

/// The proxy: the harness between the relay and the player's session, as in a run.
fn judge_proxy(
    relay: Relay,
    ended: EndWatch,
    containment: &Containment,
    exe: PathBuf,
    placed: Placed,
) -> Result<(), Error> {
    let deadline = connect_deadline();
    let (mut session, _work) = spawn(containment, &exe, &["echo"], echo_limits())?;
    let _ = placed.send(cgroup::worker_folder());
    let pipes = connected(relay, &ended, deadline)?;
    let mut link = Link::new(pipes).fault()?;
    crate::problem::tools::relayed::proxy(&mut link, &mut session);
    session.finish();
    Ok(())
}

/// The tool: starts the relay (`argv`) on pipes and times `n` plain blocking round trips.
fn tool(n: u64, argv: &[String]) -> Result<Duration, Error> {
    let mut command = Command::new(&argv[0]);
    command.args(&argv[1..]);
    round_trips(command, n)
}

/// More and shorter rounds than the other ping-pongs: three ways, and a best round of each
/// is what survives a loaded machine.
const ROUNDS: u64 = 9;

/// The best round of each way, in microseconds per message.
struct Messages {
    base: f64,
    forwarded: f64,
    /// Through `harness forward-waiting`: the floor of a proxy.
    waited: f64,
    relayed: f64,
    relayed_open: f64,
    direct: f64,
    direct_open: f64,
}

/// The relay's cost per message: a tool talking to a plain process through a pipe (the raw
/// ping-pong), through a plain forwarding process and through one that waits on both sides
/// at once (the floor of any proxy: it must hear a tool that speaks out of turn), the same tool
/// talking through the relay to a sandboxed player, as in a run of an interactive or
/// TopCoder-shaped problem, and the same with `relay = "direct"` (the sandboxed player on
/// the tool's own pipes); the proxy and the direct way also without the sandbox and cgroup
/// (`open`: what of their cost is the sandbox's). Alternated in rounds, best of each.
pub(super) fn relay_ping_pongs(
    n: u64,
    open: &Containment,
    sandboxed: &Containment,
) -> Result<(), Error> {
    let per_round = (n / ROUNDS).max(1);
    let mut m = Messages {
        base: f64::MAX,
        forwarded: f64::MAX,
        waited: f64::MAX,
        relayed: f64::MAX,
        relayed_open: f64::MAX,
        direct: f64::MAX,
        direct_open: f64::MAX,
    };
    for _ in 0..ROUNDS {
        m.base = m.base.min(per_move(raw_ping_pong(per_round)?, per_round));
        // `harness forward`: a plain process between the tool and `harness echo`.
        let t = round_trips(own_command("forward")?, per_round)?;
        m.forwarded = m.forwarded.min(per_move(t, per_round));
        let t = round_trips(own_command("forward-waiting")?, per_round)?;
        m.waited = m.waited.min(per_move(t, per_round));
        let t = relay_ping_pong(per_round, sandboxed, false)?;
        m.relayed = m.relayed.min(per_move(t, per_round));
        let t = relay_ping_pong(per_round, open, false)?;
        m.relayed_open = m.relayed_open.min(per_move(t, per_round));
        let t = relay_ping_pong(per_round, sandboxed, true)?;
        m.direct = m.direct.min(per_move(t, per_round));
        let t = relay_ping_pong(per_round, open, true)?;
        m.direct_open = m.direct_open.min(per_move(t, per_round));
    }
    for line in table(&m, per_round, &open.isolation.describe()) {
        println!("{line}");
    }
    Ok(())
}

/// The table's lines; `open` describes the containment without sandbox nor cgroup.
fn table(m: &Messages, per_round: u64, open: &str) -> Vec<String> {
    let base = m.base;
    let plain = m.forwarded;
    let floor = m.waited;
    vec![
        format!("\na contest tool talking to its player ({per_round} round trips a round, best of {ROUNDS}):"),
        format!("  tool <-> plain process, one pipe                 {base:8.2} us/message   1.00x (baseline)"),
        format!(
            "  tool <-> plain forwarder <-> plain process       {plain:8.2} us/message   {:.2}x   (two pipes, blocking reads, no clock)",
            plain / base
        ),
        format!(
            "  tool <-> waiting forwarder <-> plain process     {floor:8.2} us/message   {:.2}x   (the same waiting on both pipes at once: the floor of any proxy)",
            floor / base
        ),
        format!(
            "  tool <-> harness (proxy) <-> sandboxed player    {:8.2} us/message   {:.2}x   (target <= 2.5x); {:.2}x the waiting forwarder",
            m.relayed,
            m.relayed / base,
            m.relayed / floor
        ),
        format!(
            "  the same, no sandbox nor cgroup ({open})  {:8.2} us/message   {:.2}x; {:.2}x the waiting forwarder",
            m.relayed_open,
            m.relayed_open / base,
            m.relayed_open / floor
        ),
        format!(
            "  tool <-> sandboxed player (relay = \"direct\")    {:8.2} us/message   {:.2}x   (target <= 1.25x)",
            m.direct,
            m.direct / base
        ),
        format!(
            "  the same, no sandbox nor cgroup ({open})  {:8.2} us/message   {:.2}x",
            m.direct_open,
            m.direct_open / base
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_each_way_over_the_plain_pipe_and_the_proxy_over_the_waiting_forwarder() {
        let m = Messages {
            base: 10.0,
            forwarded: 25.0,
            waited: 28.0,
            relayed: 32.3,
            relayed_open: 30.0,
            direct: 11.9,
            direct_open: 11.0,
        };
        assert_eq!(
            table(&m, 1111, "process"),
            [
                "\na contest tool talking to its player (1111 round trips a round, best of 9):",
                "  tool <-> plain process, one pipe                    10.00 us/message   1.00x (baseline)",
                "  tool <-> plain forwarder <-> plain process          25.00 us/message   2.50x   (two pipes, blocking reads, no clock)",
                "  tool <-> waiting forwarder <-> plain process        28.00 us/message   2.80x   (the same waiting on both pipes at once: the floor of any proxy)",
                "  tool <-> harness (proxy) <-> sandboxed player       32.30 us/message   3.23x   (target <= 2.5x); 1.15x the waiting forwarder",
                "  the same, no sandbox nor cgroup (process)     30.00 us/message   3.00x; 1.07x the waiting forwarder",
                "  tool <-> sandboxed player (relay = \"direct\")       11.90 us/message   1.19x   (target <= 1.25x)",
                "  the same, no sandbox nor cgroup (process)     11.00 us/message   1.10x",
            ]
        );
    }
}
