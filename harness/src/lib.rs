//! The harness: a TopCoder-style marathon tester and local judge.
//!
//! ```text
//! scoring.toml ─► config ─┐
//! --players ─► players ───┼─► runner ──(events)──► report: progress bar, table, CSV
//! --seeds ───► seeds ─────┘     │
//!                               └─ per (player, case): problem::Game::play(session)
//!                                   session: one player over pipes, started, contained and
//!                                   ended by sandbox (a supervisor per test: namespaces or
//!                                   process mode, a cgroup, landlock; pipes and waits in os)
//! ```
//!
//! A player's failure is a [`verdict::Verdict`], never an `Err`; `Err` is for the harness's
//! own faults and for bad input from the user (exit code 2).

pub mod app;
pub mod bench;
pub mod build;
pub mod cli;
pub mod compare;
pub mod config;
pub mod exit;
pub mod os;
pub mod play;
pub mod players;
pub mod problem;
pub mod replay;
pub mod report;
pub mod runner;
pub mod sandbox;
pub mod secret;
pub mod seeds;
pub mod session;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
pub mod transcript;
pub mod tune;
pub mod verdict;
