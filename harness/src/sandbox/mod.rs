//! Containment of player programs: everything that touches the OS to start, limit, watch and
//! end a player lives here (with the pipe and wait primitives of `crate::os`).
//!
//! Every test but a player's test its kept init runs (below) is supervised by a process of
//! the small `harness-sandbox` program built
//! with the harness, found beside it, or of the harness's own binary as `harness __sandbox`:
//! forked, as the harness's child, by the calling thread's fork server ([`forker`], itself
//! started with posix_spawn, so the multi-threaded harness never forks), or started with
//! posix_spawn where no server can be had. The
//! supervisor ([`supervisor`]) makes the test's cgroup ([`cgroup`]), then either starts the
//! test's init in fresh user, PID, mount, IPC, UTS and cgroup namespaces, in a network
//! namespace of its own for the test's time ([`net`]: borrowed from the run's pool), with a
//! private file system view ([`view`], [`init`]; its read-only parts made once per player and
//! kept from test to test: [`kept_view`], and the init too, which then runs each test of
//! that player: [`kept_init`], handed to it by the harness's own thread, with no supervisor:
//! [`kept_test`]) — the namespace mode — or, where namespaces
//! cannot be had, becomes the init itself as a child subreaper — the process mode, where the
//! kernel's unprivileged controls contain the player instead: no capability and no_new_privs
//! (`init`), landlock (`landlock`) and a seccomp filter (`seccomp`: Unix sockets only, no
//! System V IPC). Either way the player's process shares its starter's memory until its exec
//! (no copy of it: [`spawn_shared`]) and starts in a new session without a terminal, with a
//! clean environment, only descriptors 0-2, a fresh and empty session keyring, never as root
//! ([`ids`]), its limits in force before its first instruction (memory, processes and one
//! worker's CPU where there is a cgroup), and every process of the test is killed and reaped
//! when the test ends. The harness talks to the player
//! over the pipes directly; it only tells the supervisor when the test is over (end of file
//! on the control pipe) and reads its [`spec::Report`].
//!
//! The run's containment is decided once, at its start ([`isolation`]); each test's
//! supervisor is started ([`launch`]) and, once the test is over, reaped ([`reap`]); what a
//! test made ready for the next test of its thread (a batch judge's sandbox) waits in
//! [`held_ahead`], ended with the run. This
//! file only names the rooms and what they offer to the rest of the harness.
//!
//! This module may start processes, make namespaces, mounts and cgroups; it never judges.

pub mod attribution;
pub mod beneath;
mod build;
pub mod cgroup;
mod folder_cap;
mod forker;
pub mod held_ahead;
pub mod ids;
mod init;
mod isolation;
mod kept_init;
mod kept_test;
mod kept_view;
mod landlock;
mod launch;
pub(crate) mod net;
mod net_left;
mod off_path;
pub(crate) mod peer;
pub mod probe;
pub mod reach;
mod reap;
pub mod relay;
pub mod scratch;
mod seccomp;
mod spawn_shared;
pub mod spec;
pub mod supervisor;
mod sys;
mod tidy;
pub mod tool;
mod tool_pump;
pub mod tool_view;
mod tree_cpu;
mod view;

pub use build::{rust_tool_chain, BuildJob, BUILD_LIMITS};
pub use isolation::{Isolation, TestLimits, Unavailable, Want};
pub(crate) use launch::{harness_exe, launch, launch_on, launch_player, Launched, OnPipes};
pub use launch::{set_supervisor, BUILD_ID, SUPERVISOR_ARG, SUPERVISOR_PROGRAM};
pub use reap::kill;
pub(crate) use reap::{reap_all, reap_later, release, settle, Runner};
pub use spec::Mode;
pub use spec::{Bind, Report, Spec, StartError};

// For the files beside these that start supervisors themselves (the fork server, the
// network pool) and name their runs' folders.
use isolation::unique;
use launch::{high, spawn_self};
