//! Secret seeds: a key mixed into the random stream of every generated test, so that programs
//! whose authors have the generator (this harness) can be judged on tests they cannot
//! reproduce.
//!
//! Without a key the stream of seed `S` is `Xoshiro256PlusPlus::seed_from_u64(S)`, exactly as
//! before keys existed. With a key `K`, the stream of seed `S` of problem `P` is
//! `Xoshiro256PlusPlus::from_seed(HMAC-SHA256(K, "harness-seed-v1/P/S"))` (`S` in decimal): one
//! stream per (problem, seed), and without `K` nothing about it can be computed. A run records
//! only the key's fingerprint, the first 16 bytes of `HMAC-SHA256(K, "harness-fingerprint-v1")`
//! in hex, which tells keys apart without revealing them (a short or guessable key can still be
//! guessed from it, hence the warning for keys under [`SHORT_KEY`] bytes).
//!
//! The key comes from `--secret KEY` or the `HARNESS_SECRET` variable, which `main` reads and
//! removes from the process environment before anything else runs, so that no child ever
//! inherits it. Besides that variable this module touches nothing but a run's `run.toml`, to
//! read the fingerprint recorded there.

use std::ffi::OsString;
use std::fmt;
use std::path::Path;

use hmac::{Hmac, KeyInit, Mac};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use sha2::Sha256;

/// The environment variable that holds the key when `--secret` is not given.
pub(crate) const ENV: &str = "HARNESS_SECRET";

/// Keys shorter than this (in bytes) get a warning: the fingerprint in `run.toml` lets anyone
/// who reads it test guesses.
pub(crate) const SHORT_KEY: usize = 16;

/// The key of secret seeds. Its `Debug` shows only the fingerprint.
#[derive(Clone)]
pub struct Secret {
    key: Vec<u8>,
    fingerprint: String,
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret({})", self.fingerprint)
    }
}

fn hmac(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(message);
    mac.finalize().into_bytes().into()
}

impl Secret {
    /// A key from its bytes; an empty key is refused (an unset shell variable would otherwise
    /// turn a secret run into a reproducible one).
    pub fn new(key: impl Into<Vec<u8>>) -> Result<Secret, String> {
        let key = key.into();
        if key.is_empty() {
            return Err("the key is empty".into());
        }
        let fingerprint = hmac(&key, b"harness-fingerprint-v1")[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(Secret { key, fingerprint })
    }

    /// For clap: `--secret KEY`.
    pub(crate) fn parse(text: &str) -> Result<Secret, String> {
        Secret::new(text.as_bytes())
    }

    /// What `run.toml` records: 32 hex digits that identify the key without revealing it.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Whether the key is short enough to be guessed from its fingerprint.
    pub(crate) fn is_short(&self) -> bool {
        self.key.len() < SHORT_KEY
    }

    /// The 32 seed bytes of the stream of `seed` of `problem`.
    pub fn stream_seed(&self, problem: &str, seed: u64) -> [u8; 32] {
        hmac(
            &self.key,
            format!("harness-seed-v1/{problem}/{seed}").as_bytes(),
        )
    }
}

/// The random stream of the generated test `seed` of `problem`: from the seed alone without a
/// key (as it always was), keyed otherwise.
pub fn stream(secret: Option<&Secret>, problem: &str, seed: u64) -> Xoshiro256PlusPlus {
    match secret {
        None => Xoshiro256PlusPlus::seed_from_u64(seed),
        Some(secret) => Xoshiro256PlusPlus::from_seed(secret.stream_seed(problem, seed)),
    }
}

/// Reads `HARNESS_SECRET` and removes it from this process's environment, so that no program
/// the harness starts can inherit it. Must run before any thread is started (it changes the
/// process environment), which is why `main` calls it first.
pub fn take_from_env() -> Option<OsString> {
    let value = std::env::var_os(ENV);
    if value.is_some() {
        std::env::remove_var(ENV);
    }
    value
}

/// The key of an environment value (`HARNESS_SECRET`); `None` when the variable was not set.
pub(crate) fn from_env_value(value: Option<OsString>) -> Result<Option<Secret>, String> {
    value
        .map(|v| Secret::new(v.into_encoded_bytes()).map_err(|e| format!("{ENV}: {e}")))
        .transpose()
}

/// A command line with the value of `--secret` replaced by `***` (for `run.toml`).
pub(crate) fn redact_args(args: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut hide_next = false;
    for arg in args {
        if hide_next {
            out.push("***".to_string());
            hide_next = false;
        } else if arg == "--secret" {
            out.push(arg);
            hide_next = true;
        } else if arg.starts_with("--secret=") {
            out.push("--secret=***".to_string());
        } else {
            out.push(arg);
        }
    }
    out
}

/// The fingerprint recorded in a run folder's `run.toml` (`secret-fingerprint` under
/// `[args]`); `None` for a run made without a key, or with no readable `run.toml`.
pub(crate) fn recorded(run: &Path) -> Option<String> {
    let text = std::fs::read_to_string(run.join("run.toml")).ok()?;
    let table: toml::Table = text.parse().ok()?;
    table
        .get("args")?
        .get("secret-fingerprint")?
        .as_str()
        .map(String::from)
}

/// Checks that the key given now is the key a run was made with (`recorded` is its
/// fingerprint). The error says what to do; `what` names the command (`--resume 2026...`).
pub(crate) fn check(
    recorded: Option<&str>,
    given: Option<&Secret>,
    what: &str,
) -> Result<(), String> {
    match (recorded, given) {
        (None, None) => Ok(()),
        (Some(f), Some(s)) if f == s.fingerprint() => Ok(()),
        (Some(f), None) => Err(format!(
            "{what}: the run was made with a secret key (fingerprint {f}); give the same key \
             with --secret KEY or {ENV}"
        )),
        (Some(f), Some(s)) => Err(format!(
            "{what}: the key given (fingerprint {}) is not the run's key (fingerprint {f})",
            s.fingerprint()
        )),
        (None, Some(s)) => Err(format!(
            "{what}: the run was made without a secret key, but one was given (fingerprint {}); \
             drop --secret and unset {ENV}",
            s.fingerprint()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_hides_both_spellings_and_nothing_else() {
        let args = [
            "harness",
            "--secret",
            "k1",
            "--seeds",
            "1..3",
            "--secret=k2",
            "--x",
        ];
        let redacted = redact_args(args.iter().map(|s| s.to_string()));
        assert_eq!(
            redacted,
            [
                "harness",
                "--secret",
                "***",
                "--seeds",
                "1..3",
                "--secret=***",
                "--x"
            ]
        );
    }

    #[test]
    fn an_empty_key_is_refused_and_debug_shows_no_key() {
        assert!(Secret::new("").is_err());
        let s = Secret::new("hunter2-but-longer").unwrap();
        let debug = format!("{s:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
        assert!(debug.contains(s.fingerprint()), "{debug}");
    }

    #[test]
    fn streams_differ_by_key_problem_and_seed() {
        let (a, b) = (Secret::new("key a").unwrap(), Secret::new("key b").unwrap());
        let seeds = [
            a.stream_seed("linez", 1),
            a.stream_seed("linez", 2),
            a.stream_seed("chesspuzzle", 1),
            b.stream_seed("linez", 1),
        ];
        for i in 0..seeds.len() {
            for j in i + 1..seeds.len() {
                assert_ne!(seeds[i], seeds[j], "{i} {j}");
            }
        }
        assert_eq!(a.stream_seed("linez", 1), a.stream_seed("linez", 1));
    }
}
