//! What each part of the containment costs, for `harness bench` in a build with the
//! `attribution` feature (`cargo build --release -p harness --features attribution`): the
//! bench leaves out one part at a time ([`PARTS`]) and times the start and end of a test, and
//! the session's round trip, without it. A normal build has no switch at all: [`skips`] is a
//! constant `false` there, and nothing of this reaches a run.
//!
//! The harness names the part to leave out ([`set`]); the supervisor it starts gets the name
//! in its (otherwise empty) environment, and the test's init inherits it. The player's own
//! environment is the spec's, as always.

/// The parts that can be left out, with what they are.
pub const PARTS: [(&str, &str); 9] = [
    ("view", "the player's view (mounts, /proc, pivot)"),
    ("cpu", "the test's cpu and cpuset groups"),
    ("quota", "the cpu group's quota"),
    ("cpuset", "the cpuset group"),
    ("cpugroup", "the cpu group"),
    ("proc", "read-only /proc knobs and /proc masks"),
    ("dev", "read-only /dev and its device binds"),
    ("keyring", "a fresh session keyring"),
    ("seccomp", "process mode's seccomp filter"),
];

const VAR: &str = "HARNESS_ATTRIBUTION_SKIP";

#[cfg(feature = "attribution")]
static SKIP: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// Leaves out `part` (one of [`PARTS`], or "" for nothing) in the tests started from now on.
#[cfg(feature = "attribution")]
pub fn set(part: &str) {
    *SKIP.lock().unwrap_or_else(|e| e.into_inner()) = part.to_string();
}

/// The supervisor's environment: the part to leave out, if any.
#[cfg(feature = "attribution")]
pub(crate) fn env() -> Option<std::ffi::CString> {
    let part = SKIP.lock().unwrap_or_else(|e| e.into_inner()).clone();
    (!part.is_empty())
        .then(|| std::ffi::CString::new(format!("{VAR}={part}")).ok())
        .flatten()
}

#[cfg(not(feature = "attribution"))]
pub(crate) fn env() -> Option<std::ffi::CString> {
    None
}

/// In the supervisor and the init: whether `part` is left out in this test.
#[cfg(feature = "attribution")]
pub(crate) fn skips(part: &str) -> bool {
    std::env::var(VAR).is_ok_and(|v| v == part)
}

#[cfg(not(feature = "attribution"))]
#[inline(always)]
pub(crate) fn skips(_part: &str) -> bool {
    let _ = VAR;
    false
}
