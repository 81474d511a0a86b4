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
//! The key comes from `--secret KEY` or the `HARNESS_SECRET` variable. Removing a variable
//! does not change what the kernel shows of a process (`/proc/<pid>/environ` and `cmdline`
//! keep the block the process was started with), so `main` first calls [`take_keys`]: when a
//! key was given, the harness starts itself again at once, in place (same pid), without the
//! variable and without `--secret KEY` on its command line, the key handed over in an
//! anonymous in-memory file whose descriptor number is in `HARNESS_SECRET_FD`; the new
//! process reads and closes it, and puts `--secret KEY` back into the arguments it parses.
//! Nothing a player can read of the harness in /proc then holds the key, whatever user the
//! player runs as; a harness holding a key is also made undumpable, so that a player of the
//! same user cannot read its memory. Besides these variables this module touches nothing but
//! a run's `run.toml`, to read the fingerprint recorded there.

use std::ffi::OsString;
use std::fmt;
use std::os::unix::ffi::OsStringExt;
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

/// The variable that names the descriptor of the keys handed over by [`take_keys`].
const FD_ENV: &str = "HARNESS_SECRET_FD";

/// The keys a command line and environment gave: `HARNESS_SECRET`'s value, and the value of
/// `--secret` with the index of its first argument and whether it was one `--secret=KEY`.
#[derive(Debug, Default, PartialEq, Eq)]
struct Given {
    env: Option<OsString>,
    arg: Option<(usize, bool, OsString)>,
}

impl Given {
    /// Finds `--secret KEY` or `--secret=KEY` in `args` (up to a `--`); returns the
    /// arguments without it.
    fn split(args: Vec<OsString>, env: Option<OsString>) -> (Vec<OsString>, Given) {
        let mut given = Given { env, arg: None };
        let mut rest = Vec::with_capacity(args.len());
        let mut iter = args.into_iter().enumerate().peekable();
        while let Some((i, arg)) = iter.next() {
            if arg == "--" {
                rest.push(arg);
                rest.extend(iter.map(|(_, a)| a));
                break;
            }
            if given.arg.is_none() && arg == "--secret" {
                if let Some((_, value)) = iter.next() {
                    given.arg = Some((i, false, value));
                    continue;
                }
            } else if given.arg.is_none() {
                if let Some(value) = arg.as_encoded_bytes().strip_prefix(b"--secret=") {
                    let value = OsString::from_vec(value.to_vec());
                    given.arg = Some((i, true, value));
                    continue;
                }
            }
            rest.push(arg);
        }
        (rest, given)
    }

    /// `args` with `--secret KEY` back where it was.
    fn join(&self, mut args: Vec<OsString>) -> Vec<OsString> {
        if let Some((i, joined, value)) = &self.arg {
            let at = (*i).min(args.len());
            if *joined {
                let mut one = OsString::from("--secret=");
                one.push(value);
                args.insert(at, one);
            } else {
                args.insert(at, value.clone());
                args.insert(at, "--secret".into());
            }
        }
        args
    }

    /// The payload of the hand-over: per key a tag byte, then (for the argument) its index
    /// as u32 and whether it was joined, then its length as u32 and its bytes.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut put = |tag: u8, head: &[u8], value: &OsString| {
            out.push(tag);
            out.extend_from_slice(head);
            let bytes = value.as_encoded_bytes();
            out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(bytes);
        };
        if let Some(env) = &self.env {
            put(b'e', &[], env);
        }
        if let Some((i, joined, value)) = &self.arg {
            let mut head = (*i as u32).to_le_bytes().to_vec();
            head.push(u8::from(*joined));
            put(b'a', &head, value);
        }
        out
    }

    fn decode(mut bytes: &[u8]) -> Option<Given> {
        fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
            let (head, rest) = (bytes.len() >= n).then(|| bytes.split_at(n))?;
            *bytes = rest;
            Some(head)
        }
        let u32_of = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize;
        let mut given = Given::default();
        while let Some(tag) = take(&mut bytes, 1) {
            let head = match tag[0] {
                b'e' => None,
                b'a' => Some((u32_of(take(&mut bytes, 4)?), take(&mut bytes, 1)?[0] != 0)),
                _ => return None,
            };
            let len = u32_of(take(&mut bytes, 4)?);
            let value = OsString::from_vec(take(&mut bytes, len)?.to_vec());
            match head {
                None => given.env = Some(value),
                Some((i, joined)) => given.arg = Some((i, joined, value)),
            }
        }
        Some(given)
    }
}

/// The command line to parse and `HARNESS_SECRET`'s value, with the key kept out of what the
/// kernel shows of this process (see the module doc): when a key is given on the command line
/// or in the environment, this process is replaced by the harness started again without it,
/// and the new process gets it back here. Must run before any thread is started (it changes
/// the environment and may replace the process), which is why `main` calls it first.
pub fn take_keys() -> (Vec<OsString>, Option<OsString>) {
    let args: Vec<OsString> = std::env::args_os().collect();
    if let Some(fd) = std::env::var_os(FD_ENV) {
        std::env::remove_var(FD_ENV);
        let given = fd
            .to_str()
            .and_then(|n| n.parse().ok())
            .and_then(|fd| crate::os::take_payload(fd).ok())
            .and_then(|bytes| Given::decode(&bytes));
        if let Some(given) = given {
            crate::os::forbid_inspection();
            let args = given.join(args);
            remember(&args);
            return (args, given.env);
        }
    }
    let env = std::env::var_os(ENV);
    if env.is_some() {
        std::env::remove_var(ENV);
    }
    let (rest, given) = Given::split(args.clone(), env);
    if given == Given::default() {
        return (args, None);
    }
    let e = crate::os::reexec_with_payload(&rest, FD_ENV, &given.encode());
    // Still here: the key stays in what /proc shows of this process.
    eprintln!(
        "warning: cannot start the harness again without the secret key in its command line and environment ({e}): a player that can read this process's /proc files may find it"
    );
    crate::os::forbid_inspection();
    remember(&args);
    (args, given.env)
}

/// The key of an environment value (`HARNESS_SECRET`); `None` when the variable was not set.
pub(crate) fn from_env_value(value: Option<OsString>) -> Result<Option<Secret>, String> {
    value
        .map(|v| Secret::new(v.into_encoded_bytes()).map_err(|e| format!("{ENV}: {e}")))
        .transpose()
}

/// The command line as given (before [`take_keys`] took the key out of what the kernel
/// shows), for [`redacted_command`].
static GIVEN_ARGS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();

/// The harness's command line as the user gave it, with the value of `--secret` replaced by
/// `***` (for `run.toml`).
pub(crate) fn redacted_command() -> Vec<String> {
    match GIVEN_ARGS.get() {
        Some(args) => redact_args(args.iter().cloned()),
        None => redact_args(std::env::args()),
    }
}

fn remember(args: &[OsString]) {
    let _ = GIVEN_ARGS.set(
        args.iter()
            .map(|a| a.to_string_lossy().to_string())
            .collect(),
    );
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
    fn a_key_is_split_from_the_arguments_handed_over_and_put_back_where_it_was() {
        let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        for (args, without) in [
            (
                os(&["harness", "run", "--secret", "k 1", "--seeds", "1"]),
                os(&["harness", "run", "--seeds", "1"]),
            ),
            (
                os(&["harness", "--secret=k2", "--x"]),
                os(&["harness", "--x"]),
            ),
            (
                os(&["harness", "--", "--secret", "k3"]),
                os(&["harness", "--", "--secret", "k3"]),
            ),
        ] {
            let (rest, given) = Given::split(args.clone(), Some("env key".into()));
            assert_eq!(rest, without);
            let back = Given::decode(&given.encode()).expect("decodes");
            assert_eq!(back, given);
            assert_eq!(back.join(rest), args);
            assert_eq!(back.env.as_deref(), Some("env key".as_ref()));
        }
        let (rest, given) = Given::split(os(&["harness", "--seeds", "1"]), None);
        assert_eq!((rest.len(), given), (3, Given::default()));
        assert_eq!(Given::decode(b"x"), None);
        assert_eq!(Given::decode(b"e\x05\0\0\0ab"), None);
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
