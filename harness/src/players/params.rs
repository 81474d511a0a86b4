//! A player's declared parameters: what `harness tune` may change, and how a value reaches
//! the player (as `PARAM_<NAME>` in its environment).
//!
//! Declared in `player.toml` under `[params]`, or in a Cargo player's
//! `[package.metadata.harness.params]`, one inline table per parameter:
//! `name = { kind = "int" | "float" | "log-float" | "choice", range = [low, high] | choices =
//! [...], default = ... }`. Parsing is strict: a mistake is an error naming the file and the
//! key. Pure: reads nothing but the table it is given, except [`declared`], which reads a
//! player's manifest.

use std::path::Path;

use crate::players::{Player, PlayerError};

/// One declared parameter.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Param {
    pub name: String,
    pub kind: Kind,
    pub default: Value,
}

/// What values a parameter takes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    /// Integers `low..=high`.
    Int { low: i64, high: i64 },
    /// Reals in `[low, high]`, sampled uniformly.
    Float { low: f64, high: f64 },
    /// Reals in `[low, high]` (`low > 0`), sampled uniformly in their logarithm.
    LogFloat { low: f64, high: f64 },
    /// One of these words.
    Choice(Vec<String>),
}

/// A value of a parameter (a choice by its index).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    Int(i64),
    Float(f64),
    Choice(usize),
}

/// Significant digits kept of a sampled real: what is passed, printed and read back on
/// `--resume` is then one and the same number.
const DIGITS: i32 = 4;

impl Param {
    /// The variable that carries the value to the player: `PARAM_` and the name in upper
    /// case, `-` as `_` (`stretch-base` is `PARAM_STRETCH_BASE`).
    pub fn var(&self) -> String {
        var_name(&self.name)
    }

    /// A value as the player reads it.
    pub fn show(&self, value: Value) -> String {
        match (value, &self.kind) {
            (Value::Int(v), _) => v.to_string(),
            (Value::Float(v), _) => v.to_string(),
            (Value::Choice(i), Kind::Choice(words)) => words[i].clone(),
            (Value::Choice(i), _) => i.to_string(),
        }
    }

    /// Reads back a value written by [`Param::show`]; `None` when it is not one of this
    /// parameter's values.
    pub fn parse(&self, text: &str) -> Option<Value> {
        let value = match &self.kind {
            Kind::Int { .. } => Value::Int(text.parse().ok()?),
            Kind::Float { .. } | Kind::LogFloat { .. } => Value::Float(text.parse().ok()?),
            Kind::Choice(words) => Value::Choice(words.iter().position(|w| w == text)?),
        };
        self.contains(value).then_some(value)
    }

    /// Whether a value is within the declared range.
    pub fn contains(&self, value: Value) -> bool {
        match (&self.kind, value) {
            (Kind::Int { low, high }, Value::Int(v)) => (*low..=*high).contains(&v),
            (Kind::Float { low, high } | Kind::LogFloat { low, high }, Value::Float(v)) => {
                (*low..=*high).contains(&v)
            }
            (Kind::Choice(words), Value::Choice(i)) => i < words.len(),
            _ => false,
        }
    }

    /// The value at `x` of the sampler's coordinate (see [`Param::coordinate`]), rounded as
    /// passed to the player and kept within the range.
    pub(crate) fn at_coordinate(&self, x: f64) -> Value {
        match &self.kind {
            Kind::Int { low, high } => Value::Int((x.round() as i64).clamp(*low, *high)),
            Kind::Float { low, high } => Value::Float(round_digits(x).clamp(*low, *high)),
            Kind::LogFloat { low, high } => Value::Float(round_digits(x.exp()).clamp(*low, *high)),
            Kind::Choice(words) => Value::Choice((x.max(0.0) as usize).min(words.len() - 1)),
        }
    }

    /// The sampler's coordinate of a value: the value itself, its logarithm for a
    /// log-scale parameter, the index of a choice.
    pub(crate) fn coordinate(&self, value: Value) -> f64 {
        match (value, &self.kind) {
            (Value::Float(v), Kind::LogFloat { .. }) => v.ln(),
            (Value::Float(v), _) => v,
            (Value::Int(v), _) => v as f64,
            (Value::Choice(i), _) => i as f64,
        }
    }

    /// The interval of the sampler's coordinate: an integer owns the half-unit around it, so
    /// the ends are as likely as the rest.
    pub(crate) fn bounds(&self) -> (f64, f64) {
        match &self.kind {
            Kind::Int { low, high } => (*low as f64 - 0.5, *high as f64 + 0.5),
            Kind::Float { low, high } => (*low, *high),
            Kind::LogFloat { low, high } => (low.ln(), high.ln()),
            Kind::Choice(words) => (0.0, words.len() as f64),
        }
    }
}

/// How close to an end of its range (a share of the range's width, in the sampler's
/// coordinate) a real value counts as at the edge.
const EDGE: f64 = 0.02;

impl Param {
    /// Whether a value sits at an end of the declared range: an integer at `low` or `high`,
    /// a real within [`EDGE`] of the width from one (in its logarithm for a log-scale one).
    /// The best value there may lie beyond the range. A choice has no ends.
    pub(crate) fn at_edge(&self, value: Value) -> bool {
        match (&self.kind, value) {
            (Kind::Int { low, high }, Value::Int(v)) => v == *low || v == *high,
            (Kind::Float { .. } | Kind::LogFloat { .. }, Value::Float(_)) => {
                let (lo, hi) = self.bounds();
                let x = self.coordinate(value);
                let near = EDGE * (hi - lo);
                x - lo <= near || hi - x <= near
            }
            _ => false,
        }
    }

    /// The declared range, as written: `[0, 5]` (none for a choice).
    fn range(&self) -> Option<String> {
        match &self.kind {
            Kind::Int { low, high } => Some(format!("[{low}, {high}]")),
            Kind::Float { low, high } | Kind::LogFloat { low, high } => {
                Some(format!("[{low}, {high}]"))
            }
            Kind::Choice(_) => None,
        }
    }
}

/// A line per value of `values` at the edge of its parameter's range, for the tuner's screen,
/// `best.toml` and page: `w-keep = 4.954 in [0, 5]: at the edge of its range; widen it`.
pub(crate) fn edge_notes(params: &[Param], values: &[Value]) -> Vec<String> {
    params
        .iter()
        .zip(values)
        .filter(|(p, v)| p.at_edge(**v))
        .filter_map(|(p, v)| {
            Some(format!(
                "{} = {} in {}: at the edge of its range; widen it (the best may lie beyond)",
                p.name,
                p.show(*v),
                p.range()?
            ))
        })
        .collect()
}

/// `PARAM_` and a parameter's name in upper case, `-` as `_`.
pub(crate) fn var_name(name: &str) -> String {
    format!("PARAM_{}", name.to_ascii_uppercase().replace('-', "_"))
}

/// `x` rounded to [`DIGITS`] significant digits.
pub(crate) fn round_digits(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(DIGITS - 1 - x.abs().log10().floor() as i32);
    let rounded = (x * scale).round() / scale;
    // Through text: the shortest decimal of the rounded number is what the player reads.
    rounded.to_string().parse().unwrap_or(rounded)
}

/// The parameters declared in `table` (the `params` table of `file`, whose key is
/// `prefix`, e.g. `params` or `package.metadata.harness.params`). Errors name the file and
/// the key.
pub(crate) fn parse(
    table: &toml::Table,
    file: &Path,
    prefix: &str,
) -> Result<Vec<Param>, PlayerError> {
    let mut params: Vec<Param> = Vec::new();
    for (name, spec) in table {
        let key = format!("{prefix}.{name}");
        let fail = |message: String| PlayerError {
            path: file.display().to_string(),
            message: format!("{key}: {message}"),
        };
        let ok_name = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !ok_name {
            return Err(fail(
                "a parameter name starts with a letter and holds only letters, digits, `-` and \
                 `_`"
                .into(),
            ));
        }
        if let Some(other) = params.iter().find(|p| p.var() == var_name(name)) {
            return Err(fail(format!(
                "{} and {} would both be {}",
                other.name,
                name,
                var_name(name)
            )));
        }
        let param = parse_one(name, spec).map_err(fail)?;
        params.push(param);
    }
    Ok(params)
}

/// One parameter's inline table; the error is the message after the key.
fn parse_one(name: &str, spec: &toml::Value) -> Result<Param, String> {
    let Some(spec) = spec.as_table() else {
        return Err(
            "expected a table such as { kind = \"int\", range = [1, 10], default = 5 }".into(),
        );
    };
    for key in spec.keys() {
        if !["kind", "range", "choices", "default"].contains(&key.as_str()) {
            return Err(format!(
                "unknown key `{key}` (expected kind, range or choices, default)"
            ));
        }
    }
    let kind_word = spec
        .get("kind")
        .ok_or("`kind` is missing (int, float, log-float or choice)")?
        .as_str()
        .ok_or("`kind` must be a string: int, float, log-float or choice")?;
    let number = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
    let range = || -> Result<(f64, f64), String> {
        let pair = spec
            .get("range")
            .ok_or("`range` is missing: give [low, high]")?
            .as_array()
            .filter(|a| a.len() == 2)
            .ok_or("`range` must be [low, high]")?;
        let (Some(low), Some(high)) = (number(&pair[0]), number(&pair[1])) else {
            return Err("`range` must hold two numbers".into());
        };
        if !(low.is_finite() && high.is_finite() && low < high) {
            return Err(format!("`range` [{low}, {high}]: low must be below high"));
        }
        Ok((low, high))
    };
    let default = spec.get("default").ok_or("`default` is missing")?;
    if kind_word != "choice" && spec.contains_key("choices") {
        return Err(format!(
            "`choices` is only for kind = \"choice\", not {kind_word:?}"
        ));
    }
    let (kind, value) = match kind_word {
        "int" => int_param(spec, default)?,
        "float" | "log-float" => float_param(kind_word, range()?, default)?,
        "choice" => choice_param(spec, default)?,
        other => {
            return Err(format!(
                "unknown kind {other:?} (expected int, float, log-float or choice)"
            ))
        }
    };
    let param = Param {
        name: name.to_string(),
        kind,
        default: value,
    };
    if !param.contains(value) {
        return Err(format!(
            "`default` {} is outside the range",
            param.show(value)
        ));
    }
    Ok(param)
}

/// An `int` parameter: `range` of two integers, an integer `default`.
fn int_param(spec: &toml::Table, default: &toml::Value) -> Result<(Kind, Value), String> {
    let pair = spec
        .get("range")
        .and_then(|r| r.as_array())
        .filter(|a| a.len() == 2 && a.iter().all(|v| v.is_integer()))
        .ok_or("`range` must be [low, high] of two integers")?;
    let (low, high) = (
        pair[0].as_integer().unwrap_or(0),
        pair[1].as_integer().unwrap_or(0),
    );
    if low >= high {
        return Err(format!("`range` [{low}, {high}]: low must be below high"));
    }
    let v = default.as_integer().ok_or("`default` must be an integer")?;
    Ok((Kind::Int { low, high }, Value::Int(v)))
}

/// A `float` or `log-float` parameter over `(low, high)`, with a numeric `default`.
fn float_param(
    kind_word: &str,
    (low, high): (f64, f64),
    default: &toml::Value,
) -> Result<(Kind, Value), String> {
    let number = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
    if kind_word == "log-float" && low <= 0.0 {
        return Err(format!(
            "`range` [{low}, {high}]: a log-float range must be above 0"
        ));
    }
    let v = number(default).ok_or("`default` must be a number")?;
    let kind = if kind_word == "float" {
        Kind::Float { low, high }
    } else {
        Kind::LogFloat { low, high }
    };
    Ok((kind, Value::Float(v)))
}

/// A `choice` parameter: two or more distinct words, the `default` one of them.
fn choice_param(spec: &toml::Table, default: &toml::Value) -> Result<(Kind, Value), String> {
    if spec.contains_key("range") {
        return Err("a choice has `choices`, not `range`".into());
    }
    let words: Vec<String> = spec
        .get("choices")
        .ok_or("`choices` is missing: give a list of words")?
        .as_array()
        .ok_or("`choices` must be a list of words")?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect::<Option<_>>()
        .ok_or("`choices` must be a list of words")?;
    if words.len() < 2 {
        return Err("`choices` needs at least two words".into());
    }
    if let Some(w) = words
        .iter()
        .find(|w| words.iter().filter(|o| o == w).count() > 1)
    {
        return Err(format!("`choices` lists {w:?} twice"));
    }
    let word = default
        .as_str()
        .ok_or("`default` must be one of the choices")?;
    let i = words
        .iter()
        .position(|w| w == word)
        .ok_or_else(|| format!("`default` {word:?} is not one of the choices"))?;
    Ok((Kind::Choice(words), Value::Choice(i)))
}

/// The variables of a set of values, in declaration order.
pub(crate) fn env(params: &[Param], values: &[Value]) -> Vec<(String, String)> {
    params
        .iter()
        .zip(values)
        .map(|(p, v)| (p.var(), p.show(*v)))
        .collect()
}

/// The variables of the defaults: what every run passes a player that declares parameters.
pub(crate) fn default_env(params: &[Param]) -> Vec<(String, String)> {
    env(params, &defaults(params))
}

/// The defaults of the parameters.
pub(crate) fn defaults(params: &[Param]) -> Vec<Value> {
    params.iter().map(|p| p.default).collect()
}

/// The parameters a found player declares (in its `player.toml`, or its `Cargo.toml`),
/// none for an executable file.
pub(crate) fn declared(player: &Player) -> Result<Vec<Param>, PlayerError> {
    let folder = &player.cwd;
    let player_toml = folder.join("player.toml");
    let cargo_toml = folder.join("Cargo.toml");
    let read = |file: &Path| -> Result<toml::Table, PlayerError> {
        let text = std::fs::read_to_string(file).map_err(|e| PlayerError {
            path: file.display().to_string(),
            message: e.to_string(),
        })?;
        text.parse::<toml::Table>().map_err(|e| PlayerError {
            path: file.display().to_string(),
            message: e.to_string(),
        })
    };
    let is_folder = player.source.is_dir();
    if is_folder && player_toml.is_file() {
        return from_manifest(&read(&player_toml)?, &player_toml, &["params"]);
    }
    if is_folder && cargo_toml.is_file() {
        let path = ["package", "metadata", "harness", "params"];
        return from_manifest(&read(&cargo_toml)?, &cargo_toml, &path);
    }
    Ok(Vec::new())
}

/// The parameters under the table at `path` of a manifest (none when it has no such table).
pub(crate) fn from_manifest(
    manifest: &toml::Table,
    file: &Path,
    path: &[&str],
) -> Result<Vec<Param>, PlayerError> {
    let mut table = manifest;
    for (i, key) in path.iter().enumerate() {
        match table.get(*key) {
            None => return Ok(Vec::new()),
            Some(toml::Value::Table(t)) => table = t,
            Some(_) => {
                return Err(PlayerError {
                    path: file.display().to_string(),
                    message: format!("{}: expected a table", path[..=i].join(".")),
                })
            }
        }
    }
    parse(table, file, &path.join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_best_value_at_an_end_of_its_range_is_noted() {
        let table: toml::Table =
            "w-keep = { kind = \"float\", range = [0.0, 5.0], default = 1.0 }\n\
             depth = { kind = \"int\", range = [1, 9], default = 3 }\n\
             scale = { kind = \"log-float\", range = [1.0, 1000.0], default = 10.0 }\n\
             mode = { kind = \"choice\", choices = [\"a\", \"b\"], default = \"a\" }"
                .parse()
                .unwrap();
        let params = parse(&table, Path::new("t"), "params").unwrap();
        // Values given by name, in the order the parameters were read.
        let notes = |values: &[(&str, Value)]| {
            let values: Vec<Value> = params
                .iter()
                .map(|p| {
                    values
                        .iter()
                        .find(|(n, _)| *n == p.name)
                        .map_or(p.default, |v| v.1)
                })
                .collect();
            edge_notes(&params, &values)
        };
        let inside = [
            ("w-keep", Value::Float(2.5)),
            ("depth", Value::Int(5)),
            ("scale", Value::Float(30.0)),
            ("mode", Value::Choice(1)),
        ];
        assert!(notes(&inside).is_empty(), "{:?}", notes(&inside));
        let edges = [
            ("w-keep", Value::Float(4.954)),
            ("depth", Value::Int(1)),
            ("scale", Value::Float(1.1)),
            ("mode", Value::Choice(0)),
        ];
        let mut found = notes(&edges);
        found.sort();
        let beyond = "at the edge of its range; widen it (the best may lie beyond)";
        assert_eq!(
            found,
            [
                format!("depth = 1 in [1, 9]: {beyond}"),
                format!("scale = 1.1 in [1, 1000]: {beyond}"),
                format!("w-keep = 4.954 in [0, 5]: {beyond}"),
            ]
        );
        // An integer one step inside its range is not at the edge; a real 3% inside is not.
        let near = [("w-keep", Value::Float(4.85)), ("depth", Value::Int(2))];
        assert!(notes(&near).is_empty(), "{:?}", notes(&near));
    }

    fn one(spec: &str) -> Result<Param, String> {
        let table: toml::Table = format!("x = {spec}").parse().unwrap();
        parse(&table, Path::new("p.toml"), "params")
            .map(|mut v| v.remove(0))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn each_kind_parses_and_shows_its_values() {
        let p = one(r#"{ kind = "int", range = [1, 9], default = 3 }"#).unwrap();
        assert_eq!(p.kind, Kind::Int { low: 1, high: 9 });
        assert_eq!((p.var(), p.show(p.default)), ("PARAM_X".into(), "3".into()));
        let p = one(r#"{ kind = "log-float", range = [1, 1000], default = 10 }"#).unwrap();
        assert_eq!(p.default, Value::Float(10.0));
        assert!((p.coordinate(p.default) - 10f64.ln()).abs() < 1e-12);
        assert_eq!(p.at_coordinate(10f64.ln()), Value::Float(10.0));
        let p = one(r#"{ kind = "choice", choices = ["a", "b"], default = "b" }"#).unwrap();
        assert_eq!(p.default, Value::Choice(1));
        assert_eq!(p.show(p.default), "b");
        assert_eq!(p.parse("a"), Some(Value::Choice(0)));
        assert_eq!(p.parse("c"), None);
        let p = one(r#"{ kind = "float", range = [-1.5, 2], default = 0 }"#).unwrap();
        assert_eq!(p.parse("0.25"), Some(Value::Float(0.25)));
        assert_eq!(p.parse("3"), None, "outside the range");
    }

    #[test]
    fn sampled_reals_keep_four_digits_and_read_back_exactly() {
        assert_eq!(round_digits(12.345678), 12.35);
        assert_eq!(round_digits(0.000123456), 0.0001235);
        let p = one(r#"{ kind = "float", range = [0, 100], default = 1 }"#).unwrap();
        let v = p.at_coordinate(31.41592);
        assert_eq!(p.parse(&p.show(v)), Some(v));
    }

    #[test]
    fn mistakes_name_the_key_and_say_what_is_wrong() {
        for (spec, expected) in [
            (
                r#"{ kind = "int", range = [1, 9] }"#,
                "`default` is missing",
            ),
            (
                r#"{ kind = "int", range = [9, 1], default = 3 }"#,
                "low must be below high",
            ),
            (
                r#"{ kind = "int", range = [1, 9], default = 30 }"#,
                "outside the range",
            ),
            (
                r#"{ kind = "int", range = [1.5, 9], default = 3 }"#,
                "two integers",
            ),
            (
                r#"{ kind = "real", range = [1, 9], default = 3 }"#,
                "unknown kind \"real\"",
            ),
            (
                r#"{ kind = "log-float", range = [0, 9], default = 3 }"#,
                "above 0",
            ),
            (
                r#"{ kind = "float", range = [1, 9], default = 3, step = 1 }"#,
                "unknown key `step`",
            ),
            (
                r#"{ kind = "choice", choices = ["a"], default = "a" }"#,
                "at least two",
            ),
            (
                r#"{ kind = "choice", choices = ["a", "b"], default = "c" }"#,
                "not one of",
            ),
            ("3", "expected a table"),
        ] {
            let e = one(spec).unwrap_err();
            assert!(e.starts_with("player p.toml: params.x: "), "{e}");
            assert!(e.contains(expected), "{spec}: {e}");
        }
        let table: toml::Table = "a-b = { kind = \"int\", range = [1, 2], default = 1 }\n\
                                  a_b = { kind = \"int\", range = [1, 2], default = 1 }"
            .parse()
            .unwrap();
        let e = parse(&table, Path::new("p.toml"), "params").unwrap_err();
        assert!(e.to_string().contains("both be PARAM_A_B"), "{e}");
    }
}
