//! `harness bench`: what the harness costs per move, measured against a raw pipe ping-pong
//! between two Rust processes in the same run, and how a 100-seed suite scales from one
//! thread to two. Reports ratios, never absolute pass/fail times. Also the disk a run's
//! transcripts take, per move and per test, and the harness's own time per move in a short
//! and a long recorded game side by side ([`crate::problem::Problem::long_game`]): judging
//! and recording cost the same per move whatever the game's length.
//!
//! One file per measurement, each printing its own table; this one runs those the command
//! line asks for, in a fixed order. It may start players (through `session` and `runner`),
//! pin its own thread and write only in temporary folders.

#[cfg(feature = "attribution")]
mod attribution;
mod batch;
mod figures;
mod judges;
mod long_game;
mod peer;
mod ping_pong;
mod relay;
mod start;
mod suite;

use crate::cli::{BenchArgs, BenchPart};
use crate::context::Context;
use crate::error::{Classify, Error};
use crate::exit;
use crate::os;
use crate::sandbox::Want;

pub use peer::{echo, forward, forward_waiting};

pub fn main(args: &BenchArgs) -> Result<u8, Error> {
    os::install_interrupt_handler().fault()?;
    let wants = |part: BenchPart| args.only.is_empty() || args.only.contains(&part);
    let n = args.round_trips.max(1);
    // Judge and peer on one core, as in a run.
    let all_cpus = os::allowed_cpus();
    let pinned = os::pin_current_thread(all_cpus[0]);
    let open = peer::containment(Want::Off, Want::Off)?;
    let sandboxed = peer::containment(Want::Auto, Want::Auto)?;
    if wants(BenchPart::PingPong) {
        println!(
            "ping-pong, {n} round trips, {}:",
            if pinned {
                "pinned to one CPU"
            } else {
                "unpinned"
            }
        );
        ping_pong::ping_pongs(n, &open, &sandboxed)?;
    }
    if wants(BenchPart::Relay) {
        relay::relay_ping_pongs(n, &open, &sandboxed)?;
    }
    if wants(BenchPart::Start) {
        start::spawns(&open, &sandboxed)?;
        #[cfg(feature = "attribution")]
        attribution::attribute(n, &open, &sandboxed)?;
    }
    // The suites below spread over every CPU again (the runner pins its own workers).
    os::set_affinity(&all_cpus);
    let context = Context::load(&args.common)?;
    if wants(BenchPart::Judges) {
        crate::tune::bench_line();
        judges::judges(&context.testcases);
    }
    if wants(BenchPart::Batch) {
        batch::tool_batch_cost(&context, &open, &sandboxed)?;
    }
    if wants(BenchPart::Suite) {
        suite::suite_throughput(args, &context, &open, &sandboxed)?;
    }
    Ok(exit::OK)
}
