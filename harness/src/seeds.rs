//! Seed specifications: `1..100` (inclusive), `7`, `1,5,9..12`, and `examples` (the problem's
//! example seeds from `scoring.toml`).

/// One item of a seed specification, before `examples` is resolved per problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeedItem {
    Range(u64, u64),
    Examples,
}

/// A parsed `--seeds` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedSpec(pub Vec<SeedItem>);

/// The most seeds one run may name (a typo such as `1..10000000000` is caught).
pub(crate) const MAX_SEEDS: u64 = 1_000_000;

impl SeedSpec {
    /// Parses a spec; the error says which part is wrong and how to write it.
    pub fn parse(text: &str) -> Result<SeedSpec, String> {
        let mut items = Vec::new();
        let mut total: u64 = 0;
        for part in text.split(',').map(str::trim) {
            if part.is_empty() {
                return Err(format!(
                    "empty item in seed list {text:?} (write e.g. 1..100 or 1,5,9..12)"
                ));
            }
            if part == "examples" {
                items.push(SeedItem::Examples);
                continue;
            }
            // `1-10` (psytester's and pahcer's ranges) is not a seed: say how to write it.
            if let Some((a, b)) = part.split_once('-') {
                let (a, b) = (a.trim(), b.trim());
                if a.parse::<u64>().is_ok() && b.parse::<u64>().is_ok() {
                    return Err(format!(
                        "{part:?} in {text:?} is not a seed range (did you mean {a}..{b}?)"
                    ));
                }
            }
            let number = |t: &str| -> Result<u64, String> {
                t.trim().parse::<u64>().map_err(|_| {
                    format!("{t:?} in {text:?} is not a seed (seeds are whole numbers 0..2^64)")
                })
            };
            let (lo, hi) = match part.split_once("..") {
                Some((a, b)) => {
                    let b = b.strip_prefix('=').unwrap_or(b);
                    (number(a)?, number(b)?)
                }
                None => {
                    let v = number(part)?;
                    (v, v)
                }
            };
            if lo > hi {
                return Err(format!(
                    "seed range {part:?} is empty: its start is above its end (did you mean {hi}..{lo}?)"
                ));
            }
            total = total.saturating_add(hi - lo + 1);
            if total > MAX_SEEDS {
                return Err(format!("{text:?} names more than {MAX_SEEDS} seeds"));
            }
            items.push(SeedItem::Range(lo, hi));
        }
        Ok(SeedSpec(items))
    }

    /// The seeds, in order of first mention, without repeats. `examples` is expanded with the
    /// given example spec (which may not itself mention `examples`).
    pub(crate) fn resolve(&self, examples: &str) -> Result<Vec<u64>, String> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for item in &self.0 {
            match item {
                SeedItem::Range(lo, hi) => {
                    for s in *lo..=*hi {
                        if seen.insert(s) {
                            out.push(s);
                        }
                    }
                }
                SeedItem::Examples => {
                    let spec = SeedSpec::parse(examples)
                        .map_err(|e| format!("example seeds in scoring.toml: {e}"))?;
                    if spec.0.contains(&SeedItem::Examples) {
                        return Err("example seeds in scoring.toml cannot say `examples`".into());
                    }
                    for s in spec.resolve("")? {
                        if seen.insert(s) {
                            out.push(s);
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeds(text: &str) -> Result<Vec<u64>, String> {
        SeedSpec::parse(text)?.resolve("1..3")
    }

    #[test]
    fn ranges_are_inclusive_and_lists_combine() {
        assert_eq!(seeds("1..5").unwrap(), vec![1, 2, 3, 4, 5]);
        assert_eq!(seeds("7").unwrap(), vec![7]);
        assert_eq!(seeds("1,5,9..12").unwrap(), vec![1, 5, 9, 10, 11, 12]);
        assert_eq!(seeds("3..=4").unwrap(), vec![3, 4]);
        assert_eq!(seeds("2, 2, 1..2").unwrap(), vec![2, 1]);
        assert_eq!(seeds("examples,10").unwrap(), vec![1, 2, 3, 10]);
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        assert!(seeds("5..1").unwrap_err().contains("\"5..1\" is empty"));
        assert!(seeds("x").unwrap_err().contains("\"x\""));
        assert!(seeds("1,,2").unwrap_err().contains("empty item"));
        assert!(seeds("-3").unwrap_err().contains("not a seed"));
        // psytester's and pahcer's range syntax.
        let dash = seeds("1-10").unwrap_err();
        assert!(dash.contains("did you mean 1..10?"), "{dash}");
        assert!(seeds("4,7 - 9").unwrap_err().contains("did you mean 7..9?"));
        assert!(seeds("0..99999999999").unwrap_err().contains("more than"));
    }
}
