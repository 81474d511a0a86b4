//! Which tests to compare and how to split them: `--filter K=1..3` and `--group-by H*W`.
//!
//! Both read a test's columns by name: its generator parameters (the `H`, `W`, `K` of
//! ChessPuzzle) and the other columns of `scores.csv` (`moves`, `think_ms`), so a player never
//! has to print anything. An expression is a column or a product of columns (`H*W`).

use std::collections::BTreeMap;
use std::fmt;

/// The columns of one test, by name (as in `scores.csv`).
pub type Columns = BTreeMap<String, String>;

/// A column, or the product of numeric columns (`H*W`).
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub text: String,
    factors: Vec<String>,
}

/// The value of an expression on one test.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
pub enum Value {
    Num(f64),
    Text(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(x) => write!(f, "{x}"),
            Value::Text(s) => f.write_str(s),
        }
    }
}

/// The value of a column of `problem`: a parameter whose name collides with a fixed column
/// is written `<problem>.<name>` in `scores.csv`, so that spelling wins.
pub fn column<'a>(columns: &'a Columns, problem: &str, name: &str) -> Option<&'a str> {
    columns
        .get(&format!("{problem}.{name}"))
        .or_else(|| columns.get(name))
        .map(String::as_str)
}

impl Expr {
    pub fn parse(text: &str) -> Result<Expr, String> {
        let factors: Vec<String> = text.split('*').map(|f| f.trim().to_string()).collect();
        if factors.iter().any(String::is_empty) {
            return Err(format!(
                "{text:?}: expected a column name or a product like H*W"
            ));
        }
        Ok(Expr {
            text: text.trim().to_string(),
            factors,
        })
    }

    /// Whether every column the expression needs exists among `names`.
    pub(crate) fn applies(&self, problem: &str, columns: &Columns) -> bool {
        self.factors
            .iter()
            .all(|f| column(columns, problem, f).is_some())
    }

    /// The value on one test; `None` when a column is missing or empty, or a product has a
    /// factor that is not a number.
    pub fn eval(&self, problem: &str, columns: &Columns) -> Option<Value> {
        if let [one] = self.factors.as_slice() {
            let v = column(columns, problem, one)?;
            if v.is_empty() {
                return None;
            }
            return Some(match v.parse::<f64>() {
                Ok(x) => Value::Num(x),
                Err(_) => Value::Text(v.to_string()),
            });
        }
        let mut product = 1.0;
        for f in &self.factors {
            product *= column(columns, problem, f)?.parse::<f64>().ok()?;
        }
        Some(Value::Num(product))
    }
}

/// `--filter NAME=VALUE`, `NAME=LO..HI` (inclusive) or `NAME=A,B,C`.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub expr: Expr,
    accepted: Vec<Accept>,
}

#[derive(Clone, Debug, PartialEq)]
enum Accept {
    Range(f64, f64),
    Text(String),
}

impl Filter {
    pub fn parse(text: &str) -> Result<Filter, String> {
        let (name, values) = text
            .split_once('=')
            .ok_or_else(|| format!("{text:?}: expected NAME=VALUE, NAME=LO..HI or NAME=A,B"))?;
        let expr = Expr::parse(name)?;
        let mut accepted = Vec::new();
        for part in values.split(',').map(str::trim) {
            if part.is_empty() {
                return Err(format!("{text:?}: empty value"));
            }
            if let Some((lo, hi)) = part.split_once("..") {
                let num = |s: &str| {
                    s.trim()
                        .parse::<f64>()
                        .map_err(|_| format!("{text:?}: {s:?} is not a number"))
                };
                let (lo, hi) = (num(lo)?, num(hi)?);
                if lo > hi {
                    return Err(format!("{text:?}: the range {part} is empty"));
                }
                accepted.push(Accept::Range(lo, hi));
            } else if let Ok(x) = part.parse::<f64>() {
                accepted.push(Accept::Range(x, x));
            } else {
                accepted.push(Accept::Text(part.to_string()));
            }
        }
        Ok(Filter { expr, accepted })
    }

    pub fn matches(&self, problem: &str, columns: &Columns) -> bool {
        let Some(value) = self.expr.eval(problem, columns) else {
            return false;
        };
        self.accepted.iter().any(|a| match (a, &value) {
            (Accept::Range(lo, hi), Value::Num(x)) => lo <= x && x <= hi,
            (Accept::Text(t), Value::Text(s)) => t == s,
            _ => false,
        })
    }
}

/// `--group-by EXPR` or `EXPR:B1,B2,..` (bands starting at each boundary).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupBy {
    pub expr: Expr,
    bounds: Option<Vec<f64>>,
}

/// More distinct values than this are split into [`AUTO_BANDS`] bands of about equal size.
pub(crate) const MAX_DISTINCT: usize = 8;
pub(crate) const AUTO_BANDS: usize = 4;

impl GroupBy {
    pub fn parse(text: &str) -> Result<GroupBy, String> {
        let (expr, bounds) =
            match text.split_once(':') {
                None => (text, None),
                Some((expr, list)) => {
                    let mut bounds = Vec::new();
                    for b in list.split(',') {
                        bounds.push(b.trim().parse::<f64>().map_err(|_| {
                            format!("{text:?}: band boundary {b:?} is not a number")
                        })?);
                    }
                    if bounds.windows(2).any(|w| w[0] >= w[1]) {
                        return Err(format!("{text:?}: band boundaries must increase"));
                    }
                    (expr, Some(bounds))
                }
            };
        Ok(GroupBy {
            expr: Expr::parse(expr)?,
            bounds,
        })
    }

    /// Splits values into labelled groups, in order. Each input gets the index of its group
    /// (`None` where the value is missing). A few distinct values are a group each; more are
    /// cut into bands (at the given boundaries, or at quartiles), labelled by the least and
    /// greatest value in each.
    pub fn split(&self, values: &[Option<Value>]) -> (Vec<String>, Vec<Option<usize>>) {
        let mut nums: Vec<f64> = values
            .iter()
            .filter_map(|v| match v {
                Some(Value::Num(x)) => Some(*x),
                _ => None,
            })
            .collect();
        nums.sort_by(f64::total_cmp);
        nums.dedup();
        let all_numeric = values.iter().all(|v| !matches!(v, Some(Value::Text(_))));
        let bounds = match &self.bounds {
            Some(b) => Some(b.clone()),
            None if all_numeric && nums.len() > MAX_DISTINCT => {
                // Quartiles of the distinct values keep each band about as wide in values.
                let mut all: Vec<f64> = values
                    .iter()
                    .filter_map(|v| match v {
                        Some(Value::Num(x)) => Some(*x),
                        _ => None,
                    })
                    .collect();
                all.sort_by(f64::total_cmp);
                let mut b: Vec<f64> = (1..AUTO_BANDS)
                    .map(|i| all[i * all.len() / AUTO_BANDS])
                    .collect();
                b.dedup();
                Some(b)
            }
            None => None,
        };
        // Key of each value: a band index, or the value itself.
        let key = |v: &Value| -> Value {
            match (&bounds, v) {
                (Some(b), Value::Num(x)) => {
                    Value::Num(b.iter().filter(|&&t| t <= *x).count() as f64)
                }
                _ => v.clone(),
            }
        };
        let mut keys: Vec<Value> = values.iter().flatten().map(key).collect();
        keys.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        keys.dedup();
        let index: Vec<Option<usize>> = values
            .iter()
            .map(|v| {
                v.as_ref()
                    .and_then(|v| keys.iter().position(|k| *k == key(v)))
            })
            .collect();
        let labels = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                if bounds.is_none() {
                    return k.to_string();
                }
                let members: Vec<f64> = values
                    .iter()
                    .zip(&index)
                    .filter(|(_, g)| **g == Some(i))
                    .filter_map(|(v, _)| match v {
                        Some(Value::Num(x)) => Some(*x),
                        _ => None,
                    })
                    .collect();
                let lo = members.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = members.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                if lo == hi {
                    format!("{lo}")
                } else {
                    format!("{lo}..{hi}")
                }
            })
            .collect();
        (labels, index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(pairs: &[(&str, &str)]) -> Columns {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn expressions_read_columns_and_products() {
        let c = cols(&[
            ("H", "6"),
            ("W", "7"),
            ("K", "2"),
            ("game-ending.moves", "9"),
        ]);
        let hw = Expr::parse("H*W").unwrap();
        assert_eq!(hw.eval("chesspuzzle", &c), Some(Value::Num(42.0)));
        assert!(hw.applies("chesspuzzle", &c));
        assert!(!Expr::parse("Z").unwrap().applies("chesspuzzle", &c));
        // A parameter spelled with its problem's prefix in scores.csv.
        let moves = Expr::parse("moves").unwrap();
        assert_eq!(moves.eval("game-ending", &c), Some(Value::Num(9.0)));
        assert!(Expr::parse("H*").is_err());
    }

    #[test]
    fn filters_take_values_ranges_and_lists() {
        let c = cols(&[("K", "2"), ("kind", "mate")]);
        let yes = |f: &str| Filter::parse(f).unwrap().matches("p", &c);
        assert!(yes("K=1..3") && yes("K=2") && yes("K=5,2") && yes("kind=mate"));
        assert!(!yes("K=3..4") && !yes("kind=draw") && !yes("missing=1"));
        assert!(Filter::parse("K").unwrap_err().contains("NAME=VALUE"));
        assert!(Filter::parse("K=3..1").unwrap_err().contains("empty"));
        assert!(Filter::parse("K=a..b")
            .unwrap_err()
            .contains("not a number"));
    }

    #[test]
    fn few_values_are_groups_and_many_are_bands() {
        let nums = |xs: &[f64]| -> Vec<Option<Value>> {
            xs.iter().map(|&x| Some(Value::Num(x))).collect()
        };
        let g = GroupBy::parse("K").unwrap();
        let (labels, index) = g.split(&nums(&[3.0, 1.0, 3.0]));
        assert_eq!(labels, ["1", "3"]);
        assert_eq!(index, [Some(1), Some(0), Some(1)]);
        let many: Vec<f64> = (1..=20).map(f64::from).collect();
        let (labels, _) = g.split(&nums(&many));
        assert_eq!(labels, ["1..5", "6..10", "11..15", "16..20"]);
        let (labels, index) = GroupBy::parse("K:10")
            .unwrap()
            .split(&nums(&[1.0, 12.0, 9.0]));
        assert_eq!(labels, ["1..9", "12"]);
        assert_eq!(index, [Some(0), Some(1), Some(0)]);
        assert!(GroupBy::parse("K:5,3").is_err());
        let (labels, index) = g.split(&[None, Some(Value::Text("x".into()))]);
        assert_eq!(
            (labels, index),
            (vec!["x".to_string()], vec![None, Some(0)])
        );
    }
}
