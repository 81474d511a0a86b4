//! What the exact-answer (SRM-style) problems share: a test is one input and its one right
//! answer; the player reads the input, writes its answer and exits; the judge compares.
//!
//! Each problem is one file here (rules, reference solver, generator, and its [`Spec`]).
//! Fixed tests live in `testcases/<problem>/` as `<name>.in` / `<name>.ans` pairs; generated
//! tests come from a problem's seeded generator, answered by its reference solver. Also here:
//! the TopCoder encoding of parameters on stdin/stdout (an int or a String on a line of its
//! own; a String[] as its length, then one line per element).
//!
//! Answers are compared as the statements define them, ASCII lines (see [`compare`]): the
//! only tolerance is spaces and tabs at the end of a line, `\r\n` line ends and empty lines
//! at the end. No Unicode trimming: any other byte makes the answer wrong.

pub mod game_ending;
pub mod russian_checkers;
pub mod simplified_chess;

use std::path::Path;

use rand_xoshiro::Xoshiro256PlusPlus;

use super::{CaseError, CaseKey, Channel, Env, Game, Problem};
use crate::verdict::{quote, Fault, Outcome};

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
        match player.send(&self.input) {
            // A player may answer without reading (all of) its input: its closed input is
            // no fault, and what it writes is judged.
            Ok(()) | Err(Fault::Gone(_)) => {}
            Err(fault) => return Outcome::fault(&fault, 0.0, 0),
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

/// Compares a player's answer with the expected one, as the statements define answers:
/// lines of printable ASCII. Tolerated, and nothing else: spaces and tabs at the end of a
/// line, `\r\n` line ends, a missing last newline, and empty lines at the end. Any other byte
/// (a Unicode space such as U+3000, a lone `\r`, a control character) makes the answer wrong,
/// and the reason names it and where it is; otherwise the reason shows the first difference.
/// Reasons quote the player's text cut short ([`quote`]).
pub fn compare(expected: &str, got: &str) -> Result<(), String> {
    if let Some(why) = stray_byte(got) {
        return Err(why);
    }
    let (want, have) = (answer_lines(expected), answer_lines(got));
    for (i, (w, h)) in want.iter().zip(&have).enumerate() {
        if w != h {
            return Err(format!(
                "line {}: expected {}, got {}",
                i + 1,
                quote(w),
                quote(h)
            ));
        }
    }
    match want.len().cmp(&have.len()) {
        std::cmp::Ordering::Equal => Ok(()),
        std::cmp::Ordering::Greater if have.is_empty() => Err("no output".to_string()),
        std::cmp::Ordering::Greater => Err(format!(
            "output ends after {} lines; expected line {}: {}",
            have.len(),
            have.len() + 1,
            quote(want[have.len()])
        )),
        std::cmp::Ordering::Less => Err(format!(
            "extra output after {} lines: line {}: {}",
            want.len(),
            want.len() + 1,
            quote(have[want.len()])
        )),
    }
}

/// The lines of an answer with what [`compare`] tolerates taken away: the `\r` of `\r\n`,
/// spaces and tabs at the end of each line, and empty lines at the end.
fn answer_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text
        .split('\n')
        .map(|l| {
            l.strip_suffix('\r')
                .unwrap_or(l)
                .trim_end_matches([' ', '\t'])
        })
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// The first byte of an answer that is neither printable ASCII, a tab, a line feed, nor the
/// `\r` of a `\r\n`: what it is and where (line and byte, both from 1).
fn stray_byte(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let at = bytes.iter().enumerate().position(|(i, &b)| {
        !(matches!(b, b' '..=b'~' | b'\t' | b'\n')
            || b == b'\r' && bytes.get(i + 1) == Some(&b'\n'))
    })?;
    let line_start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let what = match bytes[at] {
        b'\r' => "a carriage return (0x0d) that does not end the line".to_string(),
        b if b.is_ascii() => format!("the control character {b:#04x}"),
        _ => {
            // Every byte before is ASCII, so a character starts here.
            let c = text[at..].chars().next().expect("a character starts here");
            let utf8: Vec<String> = text[at..at + c.len_utf8()]
                .bytes()
                .map(|b| format!("{b:02x}"))
                .collect();
            let kind = if c.is_whitespace() {
                "Unicode white space"
            } else {
                "not ASCII"
            };
            format!("U+{:04X} ({kind}; bytes {})", c as u32, utf8.join(" "))
        }
    };
    Some(format!(
        "line {line}, byte {}: {what}; answers are ASCII",
        at - line_start + 1
    ))
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

    fn pass_fail(&self) -> bool {
        true
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
        assert_eq!(compare("a\nb\n", "a\t \r\nb \r\n \r\n"), Ok(()));
        assert_eq!(compare("a\nb\n", "a\nb"), Ok(()));
    }

    #[test]
    fn compare_names_a_stray_byte_and_where_it_is() {
        assert_eq!(
            compare("ab\ncd\n", "ab\ncd\u{3000}\n"),
            Err(
                "line 2, byte 3: U+3000 (Unicode white space; bytes e3 80 80); answers are ASCII"
                    .to_string()
            )
        );
        let lone_cr = compare("ab\n", "a\rb\n").unwrap_err();
        assert!(
            lone_cr.starts_with("line 1, byte 2: a carriage return"),
            "{lone_cr}"
        );
        let cr_at_end = compare("ab\n", "ab\r").unwrap_err();
        assert!(cr_at_end.contains("carriage return"), "{cr_at_end}");
        let vt = compare("ab\n", "ab\n\u{b}").unwrap_err();
        assert!(
            vt.starts_with("line 2, byte 1: the control character 0x0b"),
            "{vt}"
        );
    }

    #[test]
    fn compare_quotes_a_huge_line_cut_short() {
        let huge = "x".repeat(10 << 20);
        let why = compare("ab\n", &huge).unwrap_err();
        assert!(why.len() < 400, "{why}");
        assert!(why.contains("10485760 bytes in all"), "{why}");
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
