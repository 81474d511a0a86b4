//! What the exact-answer (SRM-style) problems share: a test is one input and its one right
//! answer; the player reads the input, writes its answer and exits; the judge compares.
//!
//! Fixed tests live in `testcases/<problem>/` as `<name>.in` / `<name>.ans` pairs; generated
//! tests come from a problem's seeded generator, answered by its reference solver. Also here:
//! the TopCoder encoding of parameters on stdin/stdout (an int or a String on a line of its
//! own; a String[] as its length, then one line per element).

use std::path::Path;

use rand_xoshiro::Xoshiro256PlusPlus;

use super::{CaseError, CaseKey, Channel, Env, Game, Problem};
use crate::verdict::Outcome;

/// One exact-answer test.
pub struct ExactCase {
    pub input: String,
    pub answer: String,
    pub params: Vec<String>,
}

impl Game for ExactCase {
    fn params(&self) -> Vec<String> {
        self.params.clone()
    }

    fn describe(&self) -> String {
        self.input.clone()
    }

    fn play(&mut self, player: &mut dyn Channel) -> Outcome {
        if let Err(fault) = player.send(&self.input) {
            return Outcome::fault(&fault, 0.0, 0);
        }
        match player.recv_to_end() {
            Ok(output) => match compare(&self.answer, output) {
                Ok(()) => Outcome::ok(1.0, 1),
                Err(why) => Outcome::wrong(0.0, 1, why),
            },
            Err(fault) => Outcome::fault(&fault, 0.0, 0),
        }
    }
}

/// Compares an answer line by line, ignoring trailing white space on each line and blank
/// lines at the end. The error shows the first difference.
pub fn compare(expected: &str, got: &str) -> Result<(), String> {
    let lines = |text: &str| -> Vec<String> {
        let mut v: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
        while v.last().is_some_and(|l| l.is_empty()) {
            v.pop();
        }
        v
    };
    let (want, have) = (lines(expected), lines(got));
    for (i, (w, h)) in want.iter().zip(&have).enumerate() {
        if w != h {
            return Err(format!("line {}: expected {w:?}, got {h:?}", i + 1));
        }
    }
    match want.len().cmp(&have.len()) {
        std::cmp::Ordering::Equal => Ok(()),
        std::cmp::Ordering::Greater if have.is_empty() => Err("no output".to_string()),
        std::cmp::Ordering::Greater => Err(format!(
            "output ends after {} lines; expected line {}: {:?}",
            have.len(),
            have.len() + 1,
            want[have.len()]
        )),
        std::cmp::Ordering::Less => Err(format!(
            "extra output after {} lines: line {}: {:?}",
            want.len(),
            want.len() + 1,
            have[want.len()]
        )),
    }
}

/// The names of the fixed tests in a folder: every `<name>.in` with a `<name>.ans`, sorted.
pub fn fixed_cases(dir: &Path) -> Result<Vec<CaseKey>, CaseError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CaseError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut names = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|source| CaseError::Io {
                path: dir.to_path_buf(),
                source,
            })?
            .path();
        if path.extension().is_some_and(|e| e == "in") {
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            if !path.with_extension("ans").exists() {
                return Err(CaseError::Malformed {
                    path,
                    line: 0,
                    message: format!("{name}.in has no {name}.ans beside it"),
                });
            }
            names.push(name);
        }
    }
    names.sort();
    Ok(names.into_iter().map(CaseKey::Fixed).collect())
}

/// Makes the test of a key for an exact-answer problem: a fixed test from its files, or a
/// generated input answered by the reference solver. `params` extracts the parameters from an
/// input (`None` when the input cannot be read, which for a fixed file is a malformed file).
pub fn case(
    id: &'static str,
    key: &CaseKey,
    env: &Env,
    generate: impl Fn(Xoshiro256PlusPlus) -> String,
    solve: impl Fn(&str) -> Result<String, String>,
    params: impl Fn(&str) -> Vec<String>,
) -> Result<Box<dyn Game>, CaseError> {
    let (input, answer) = match key {
        CaseKey::Seed(seed) => {
            let input = generate(env.stream(id, *seed));
            let answer = solve(&input).map_err(|message| CaseError::Malformed {
                path: format!("<generated {id} seed {seed}>").into(),
                line: 0,
                message,
            })?;
            (input, answer)
        }
        CaseKey::Fixed(name) => {
            let dir = env.problem_dir(id);
            let input_path = dir.join(format!("{name}.in"));
            if !input_path.exists() {
                return Err(CaseError::Unknown {
                    problem: id,
                    key: name.clone(),
                });
            }
            let input = CaseError::read(&input_path)?;
            let answer = CaseError::read(&dir.join(format!("{name}.ans")))?;
            (input, answer)
        }
    };
    let params = params(&input);
    Ok(Box::new(ExactCase {
        input,
        answer,
        params,
    }))
}

/// What an exact-answer problem supplies: its names, generator, reference solver and the
/// parameters of an input. [`Exact`] makes a [`Problem`] of it.
pub struct Spec {
    pub id: &'static str,
    pub title: &'static str,
    /// Names of the parameters `params_of` reads from an input (CSV columns).
    pub params: &'static [&'static str],
    /// The input drawn from a test's stream ([`Env::stream`]), in the problem's own format.
    pub generate: fn(Xoshiro256PlusPlus) -> String,
    /// The right answer to an input, or why the input is invalid.
    pub solve: fn(&str) -> Result<String, String>,
    pub params_of: fn(&str) -> Vec<String>,
}

/// An exact-answer problem: fixed tests from `testcases/<id>/` and generated ones, each
/// answered once by a player that then exits.
pub struct Exact(pub Spec);

impl Problem for Exact {
    fn id(&self) -> &'static str {
        self.0.id
    }

    fn title(&self) -> &'static str {
        self.0.title
    }

    fn answers_at_exit(&self) -> bool {
        true
    }

    fn param_names(&self) -> &'static [&'static str] {
        self.0.params
    }

    fn fixed_cases(&self, env: &Env) -> Result<Vec<CaseKey>, CaseError> {
        fixed_cases(&env.problem_dir(self.0.id))
    }

    fn case(&self, key: &CaseKey, env: &Env) -> Result<Box<dyn Game>, CaseError> {
        case(
            self.0.id,
            key,
            env,
            self.0.generate,
            self.0.solve,
            self.0.params_of,
        )
    }

    fn solve(&self, input: &str) -> Option<Result<String, String>> {
        Some((self.0.solve)(input))
    }
}

/// Writes values in the TopCoder encoding.
#[derive(Default)]
pub struct TcWriter(pub String);

impl TcWriter {
    pub fn int(&mut self, v: i64) -> &mut Self {
        self.0.push_str(&format!("{v}\n"));
        self
    }

    pub fn string(&mut self, s: &str) -> &mut Self {
        self.0.push_str(s);
        self.0.push('\n');
        self
    }

    pub fn strings<S: AsRef<str>>(&mut self, items: &[S]) -> &mut Self {
        self.int(items.len() as i64);
        for s in items {
            self.string(s.as_ref());
        }
        self
    }

    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.0)
    }
}

/// Reads values in the TopCoder encoding, with messages that say what was expected.
pub struct TcReader<'a> {
    lines: std::str::Lines<'a>,
    line_no: usize,
}

impl<'a> TcReader<'a> {
    pub fn new(text: &'a str) -> Self {
        TcReader {
            lines: text.lines(),
            line_no: 0,
        }
    }

    pub fn string(&mut self) -> Result<&'a str, String> {
        self.line_no += 1;
        self.lines
            .next()
            .map(str::trim_end)
            .ok_or_else(|| format!("line {}: expected a line, found the end", self.line_no))
    }

    pub fn int(&mut self) -> Result<i64, String> {
        let line = self.string()?;
        line.trim()
            .parse()
            .map_err(|_| format!("line {}: expected an integer, got {line:?}", self.line_no))
    }

    pub fn strings(&mut self, max: usize) -> Result<Vec<&'a str>, String> {
        let n = self.int()?;
        if n < 0 || n as usize > max {
            return Err(format!(
                "line {}: array length {n} is outside 0..={max}",
                self.line_no
            ));
        }
        (0..n).map(|_| self.string()).collect()
    }

    /// Fails when anything but blank lines is left.
    pub fn end(&mut self) -> Result<(), String> {
        for line in self.lines.by_ref() {
            self.line_no += 1;
            if !line.trim().is_empty() {
                return Err(format!("line {}: unexpected {line:?}", self.line_no));
            }
        }
        Ok(())
    }
}

/// A fixed case where a solver's answer differs from the shipped one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub name: String,
    /// What differs (from [`compare`]), or why the solver rejected the input.
    pub why: String,
}

/// Runs a solver over every fixed case in a folder and lists the cases it gets wrong; an empty
/// list means it agrees with all of them. Used by the agreement tests and the benchmarks.
pub fn check_fixed(
    dir: &Path,
    solve: impl Fn(&str) -> Result<String, String>,
) -> Result<Vec<Mismatch>, CaseError> {
    let mut mismatches = Vec::new();
    for key in fixed_cases(dir)? {
        let CaseKey::Fixed(name) = key else {
            continue;
        };
        let input = CaseError::read(&dir.join(format!("{name}.in")))?;
        let answer = CaseError::read(&dir.join(format!("{name}.ans")))?;
        let verdict = solve(&input).and_then(|got| compare(&answer, &got));
        if let Err(why) = verdict {
            mismatches.push(Mismatch { name, why });
        }
    }
    Ok(mismatches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_ignores_trailing_space_and_blank_tail() {
        assert_eq!(compare("a\nb\n", "a  \nb\n\n\n"), Ok(()));
    }

    #[test]
    fn compare_names_first_difference() {
        assert_eq!(
            compare("2\na\nb\n", "2\na\nc\n"),
            Err("line 3: expected \"b\", got \"c\"".to_string())
        );
        assert!(compare("1\n", "").unwrap_err().contains("no output"));
        assert!(compare("1\nx\n", "1\n")
            .unwrap_err()
            .contains("ends after 1 lines"));
        assert!(compare("1\n", "1\nzz\n")
            .unwrap_err()
            .contains("extra output"));
    }

    #[test]
    fn topcoder_encoding_round_trips() {
        let text = TcWriter::default()
            .int(3)
            .strings(&["a1", "b2"])
            .string("WHITE")
            .finish();
        assert_eq!(text, "3\n2\na1\nb2\nWHITE\n");
        let mut r = TcReader::new(&text);
        assert_eq!(r.int(), Ok(3));
        assert_eq!(r.strings(8), Ok(vec!["a1", "b2"]));
        assert_eq!(r.string(), Ok("WHITE"));
        assert_eq!(r.end(), Ok(()));
        assert!(TcReader::new("x\n").int().unwrap_err().contains("line 1"));
    }
}
