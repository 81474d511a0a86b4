//! The harness: a TopCoder-style marathon tester and local judge.
//!
//! ```text
//! command line, scoring.toml ─► context ─► plan: RunPlan (checked, no process run yet)
//!        players (found, built) ─────────┘        │
//!                                                 ▼
//!   execute: runner ──(typed events)──► reporters: progress, comparison (history, best.csv),
//!            │                                      files (scores.csv, leaderboard, logs,
//!            │                                      transcripts), replays + report.html,
//!            │                                      table; all share one RunState in memory
//!            └─ per (player, case): problem::Game::play(session)
//!                 session: one player over pipes, started, contained and ended by sandbox
//!                 (a supervisor per test: namespaces or process mode, a cgroup, landlock;
//!                 pipes and waits in os)
//! ```
//!
//! Layers, bottom up; a module imports only modules named before it, so there is no
//! circle (`harness/tests/module_layers.rs` fails on one):
//!
//! 1. the machine and plain values: `os`, `fs_msg` (which file an I/O error was about),
//!    `hash` (the stable hashes of players, variants and tools), `exit`, `invocation` (how printed commands start
//!    the harness), `copy`, `seeds`, `verdict`, `error`, `secret`, `time_by`, `needs`
//!    (programs the machine lacks);
//! 2. containment: `sandbox` (with [`sandbox::spec::EnvRules`], the environment every
//!    contained program starts with);
//! 3. settings and builds: `config`, `rundir`, `build`;
//! 4. problems and players: `problem`, `rank` (relative scores, yardsticks), `transcript`,
//!    `players`, `testkit` (for the tests only);
//! 5. the command line: `cli`, `debug`, `context`;
//! 6. running tests: `session`, `runner`, `rerun`;
//! 7. what a run shows: `report`, `replay`, `compare`;
//! 8. whole runs: `shard`, `plan`, `execute`, `merge`, `bundle`, `tune`;
//! 9. the other commands: `new_problem`, `bench`, `play`;
//! 10. `app` on top.
//!
//! A player's failure is a [`verdict::Verdict`], never an `Err`; `Err` is for the harness's
//! own faults (exit 1), bad input from the user (exit 2) and interrupts (exit 130), each a
//! [`error::Error`].

pub mod app;
pub mod bench;
pub mod build;
pub mod bundle;
pub mod cli;
pub mod compare;
pub mod config;
pub mod context;
pub mod copy;
pub mod debug;
pub mod error;
pub mod execute;
pub mod exit;
pub mod fs_msg;
pub mod hash;
pub mod invocation;
pub mod merge;
pub mod needs;
pub mod new_problem;
pub mod os;
pub mod plan;
pub mod play;
pub mod players;
pub mod problem;
pub mod rank;
pub mod replay;
pub mod report;
pub mod rerun;
pub mod rundir;
pub mod runner;
pub mod sandbox;
pub mod secret;
pub mod seeds;
pub mod session;
pub mod shard;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
pub mod time_by;
pub mod transcript;
pub mod tune;
pub mod verdict;
