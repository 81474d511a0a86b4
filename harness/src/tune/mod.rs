//! `harness tune`: finds better values of a player's declared parameters.
//!
//! ```text
//! player.toml / Cargo.toml [params] ─► params ─┐
//! --seeds (tuning) ────────────────────────────┼─► search: trials on the run's threads,
//!                                              │     tpe samples, the pruner stops bad ones;
//!                                              │     each (values, seed) is one test through
//!                                              │     runner::run_one (sandbox, limits, verdicts)
//! --holdout (validation) ──► best vs defaults ─┴─► compare::stats ─► files, page, screen
//! ```
//!
//! This module owns the command: it reads the settings, finds and builds the player like a
//! run does, sets up containment like a run does, and drives the pieces. It writes only
//! under `results/tune-<id>/` ([`files`]).

mod bench;
mod command;
pub(crate) mod files;
pub(crate) mod page;
pub(crate) use crate::players::params;
pub(crate) mod search;
pub(crate) mod tpe;
mod validate;
pub(crate) mod yardstick;

pub(crate) use bench::bench_line;
pub(crate) use command::main;
pub(crate) use validate::{summary_lines, Summary};
