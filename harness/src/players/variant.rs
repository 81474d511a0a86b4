//! Player variants: one program run under another name with extra environment variables or
//! arguments, given on the command line (`--variant NAME=PATH env:KEY=VALUE arg:VALUE`), so
//! two settings of the same program play side by side without editing any file.
//!
//! Parsing and applying only: [`crate::players::discover_with`] finds and builds the program
//! at PATH as for `--players`, then [`Variant::apply`] renames it, adds the settings and gives
//! it its own hash. Nothing here touches files or processes.

use crate::players::Player;

/// One `--variant`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub name: String,
    /// The player it varies, as `--players` takes it.
    pub path: std::path::PathBuf,
    /// Variables set in its environment, after its `player.toml`'s own (they win).
    pub env: Vec<(String, String)>,
    /// Arguments added after its command's own.
    pub args: Vec<String>,
}

impl Variant {
    /// Reads every `--variant`'s values (clap gives them as one list): each value that is
    /// neither `env:` nor `arg:` starts a new variant, `NAME=PATH`, whose PATH must exist.
    pub(crate) fn parse_all(values: &[String]) -> Result<Vec<Variant>, String> {
        let setting = |v: &String| v.starts_with("env:") || v.starts_with("arg:");
        let mut groups: Vec<&[String]> = Vec::new();
        let mut start = 0;
        for i in 1..=values.len() {
            if i == values.len() || !setting(&values[i]) {
                groups.push(&values[start..i]);
                start = i;
            }
        }
        let variants = groups
            .into_iter()
            .map(Variant::parse)
            .collect::<Result<Vec<_>, _>>()?;
        // `DEPTH=3` meant as a setting reads as a new variant: say how settings are written.
        if let Some(v) = variants.iter().find(|v| !v.path.exists()) {
            return Err(format!(
                "--variant {}={}: no player at {:?} (each NAME=PATH starts a variant; its \
                 settings are written env:KEY=VALUE and arg:VALUE)",
                v.name,
                v.path.display(),
                v.path.display().to_string()
            ));
        }
        Ok(variants)
    }

    /// Reads one `--variant`'s values: `NAME=PATH`, then any number of `env:KEY=VALUE` and
    /// `arg:VALUE`. Errors quote the offending value.
    pub fn parse(values: &[String]) -> Result<Variant, String> {
        let usage = "expected --variant NAME=PATH [env:KEY=VALUE | arg:VALUE]...";
        let Some((first, settings)) = values.split_first() else {
            return Err(format!("--variant: nothing given ({usage})"));
        };
        let Some((name, path)) = first
            .split_once('=')
            .filter(|(n, p)| !n.is_empty() && !p.is_empty())
        else {
            return Err(format!(
                "--variant {first:?}: the first value is NAME=PATH ({usage})"
            ));
        };
        crate::players::check_name(name)
            .map_err(|e| format!("--variant {first:?}: name {name:?}: {e}"))?;
        let mut variant = Variant {
            name: name.to_string(),
            path: path.into(),
            env: Vec::new(),
            args: Vec::new(),
        };
        for s in settings {
            if let Some(pair) = s.strip_prefix("env:") {
                let key = pair.split_once('=').map(|(k, _)| k).unwrap_or_default();
                let ok = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !ok {
                    return Err(format!(
                        "--variant {name}: {s:?}: expected env:KEY=VALUE with KEY made of \
                         letters, digits and _"
                    ));
                }
                let value = &pair[key.len() + 1..];
                variant.env.retain(|(k, _)| k != key);
                variant.env.push((key.to_string(), value.to_string()));
            } else if let Some(arg) = s.strip_prefix("arg:") {
                variant.args.push(arg.to_string());
            } else {
                return Err(format!(
                    "--variant {name}: {s:?} is neither env:KEY=VALUE nor arg:VALUE ({usage})"
                ));
            }
        }
        Ok(variant)
    }

    /// Makes the found (and built) player at `path` this variant: its name and settings.
    pub(crate) fn apply(&self, player: &mut Player) {
        player.name = self.name.clone();
        player.env.extend(self.env.iter().cloned());
        player.args.extend(self.args.iter().cloned());
    }

    /// The variant's hash from its program's: covers the program's hash and the settings, so
    /// it differs from the plain program's and stays the same from run to run while neither
    /// changes (not the name: a renamed variant is the same program). FNV-1a over
    /// length-prefixed fields ([`crate::hash::Fnv`]), 16 hex digits like every player hash.
    pub fn hash(&self, base: &str) -> String {
        let mut h = crate::hash::Fnv::new();
        h.field(b"variant");
        h.field(base.as_bytes());
        let mut env = self.env.clone();
        env.sort();
        for (k, v) in &env {
            h.field(b"env");
            h.field(k.as_bytes());
            h.field(v.as_bytes());
        }
        for a in &self.args {
            h.field(b"arg");
            h.field(a.as_bytes());
        }
        h.hex()
    }
}

/// `--variant` values as `run.toml` records them for `--resume`: each PATH made absolute, so
/// a resumed run finds it from any folder.
pub fn absolute(values: &[String]) -> Vec<String> {
    values
        .iter()
        .map(|value| {
            let setting = value.starts_with("env:") || value.starts_with("arg:");
            match value.split_once('=') {
                Some((name, path)) if !setting => match std::fs::canonicalize(path) {
                    Ok(abs) => format!("{name}={}", abs.display()),
                    Err(_) => value.clone(),
                },
                _ => value.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(values: &[&str]) -> Result<Variant, String> {
        Variant::parse(&values.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn settings_are_env_or_arg_and_anything_else_is_named() {
        let v = parse(&[
            "deep=players/linez-greedy",
            "env:DEPTH=3",
            "arg:--beam=4",
            "env:EMPTY=",
            "env:DEPTH=4",
            "arg:x=y",
        ])
        .unwrap();
        assert_eq!(v.name, "deep");
        assert_eq!(v.path, std::path::Path::new("players/linez-greedy"));
        assert_eq!(
            v.env,
            [
                ("EMPTY".into(), String::new()),
                ("DEPTH".into(), "4".into())
            ]
        );
        assert_eq!(v.args, ["--beam=4", "x=y"]);
        let all: Vec<String> = ["a=src", "env:X=1", "b=src", "c=.", "arg:2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let all = Variant::parse_all(&all).unwrap();
        let names: Vec<&str> = all.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(
            (all[0].env.len(), all[1].env.len(), all[2].args.len()),
            (1, 0, 1)
        );
        for (bad, needle) in [
            (&["players/x"][..], "NAME=PATH"),
            (&["=players/x"][..], "NAME=PATH"),
            (&["a b=players/x"][..], "name \"a b\""),
            (
                &["a=p", "DEPTH3"][..],
                "neither env:KEY=VALUE nor arg:VALUE",
            ),
            (&["a=p", "env:1X=3"][..], "KEY made of"),
            (&["a=p", "env:NOEQUALS"][..], "KEY made of"),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(needle), "{bad:?}: {e}");
        }
    }

    #[test]
    fn the_hash_covers_the_settings_not_their_env_order() {
        let v = |s: &[&str]| parse(s).unwrap().hash("0123456789abcdef");
        let base = v(&["a=p", "env:X=1", "env:Y=2"]);
        assert_eq!(base, v(&["other-name=p", "env:Y=2", "env:X=1"]));
        assert_ne!(base, v(&["a=p", "env:X=1", "env:Y=3"]));
        assert_ne!(base, v(&["a=p", "env:X=1", "env:Y=2", "arg:Y=2"]));
        assert_ne!(v(&["a=p", "arg:1", "arg:2"]), v(&["a=p", "arg:2", "arg:1"]));
        assert_ne!(base, "0123456789abcdef");
        assert_ne!(
            base,
            parse(&["a=p", "env:X=1", "env:Y=2"])
                .unwrap()
                .hash("fedcba9876543210")
        );
        // Stable from run to run and build to build: a fixed value.
        assert_eq!(base, "498c48528003f661"); // FNV-1a, checked with a Python one-liner
        assert_eq!(v(&["a=p"]), v(&["b=q"]));
        assert_eq!(base.len(), 16);
    }

    /// Hashes stored in run folders, computed before the hash moved to `crate::hash`: they
    /// must never change.
    #[test]
    fn stored_variant_hashes_stay_the_same() {
        let v = Variant {
            name: "v".into(),
            path: "p".into(),
            env: vec![("B".into(), "2".into()), ("A".into(), "1".into())],
            args: vec!["--x".into(), "y".into()],
        };
        assert_eq!(v.hash("0123456789abcdef"), "339e43900054e56a");
        let plain = Variant {
            env: Vec::new(),
            args: Vec::new(),
            ..v
        };
        assert_eq!(plain.hash(""), "c162bc9414dd9283");
    }
}
