//! The `problem.toml` that `harness new-problem` writes for what it found ([`render`]), and
//! the names in it: the problem's id, paths relative to its folder. Text only: nothing here
//! reads or writes a file.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use super::{Found, FoundInputs};
use crate::config::Objective;
use crate::problem::tools::config::{self, Shape};

/// A problem id from a folder's name: lower case, letters, digits, `-` and `_`.
pub fn id_from(name: &str) -> String {
    let id: String = name
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    id.trim_matches('-').to_string()
}

/// `to` as a path relative to the folder `from` (both absolute), or `to` itself when the
/// relative path would climb out of the workspace (`from` is `<workspace>/testcases/<id>`:
/// more than two `..`), so a config pointing at a contest checkout elsewhere reads as that
/// checkout's own path and survives a move of the workspace.
pub fn relative(from: &Path, to: &Path) -> PathBuf {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if a.len() - common > 2 {
        return to.to_path_buf();
    }
    let mut rel = PathBuf::new();
    for _ in common..a.len() {
        rel.push("..");
    }
    for c in &b[common..] {
        rel.push(c);
    }
    if rel.as_os_str().is_empty() {
        rel.push(".");
    }
    rel
}

/// A TOML string.
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn array(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| quoted(s)).collect();
    format!("[{}]", inner.join(", "))
}

/// The `problem.toml` of `found`, to be written in the folder `dir` (absolute).
pub fn render(found: &Found, dir: &Path, objective: Option<Objective>) -> String {
    let mut t = String::new();
    let tools = relative(dir, &found.tools);
    let _ = writeln!(
        t,
        "# Written by `harness new-problem` from {} ({} shape). Check the lines marked CHECK;\n\
         # every key is described in docs/adding-a-problem.md.",
        found.tools.display(),
        found.shape.name()
    );
    let _ = writeln!(t, "title = {}", quoted(&found.name));
    let _ = writeln!(t, "shape = {}", quoted(found.shape.name()));
    match objective {
        Some(Objective::Maximize) => t.push_str("objective = \"max\"\n"),
        Some(Objective::Minimize) => t.push_str("objective = \"min\"\n"),
        None => t.push_str(
            "objective = \"max\"  # CHECK: \"max\" if a higher score is better, \"min\" if lower (the statement says; new-problem cannot tell)\n",
        ),
    }
    let _ = writeln!(t, "tools = {}", quoted(&tools.display().to_string()));
    if let Some(build) = &found.build {
        let _ = writeln!(t, "build = {}", array(build));
    }
    match &found.inputs {
        FoundInputs::Gen { stdin: false } => {
            t.push_str("inputs = { gen = [\"target/release/gen\", \"{seeds}\"], dir = \"in\" }\n")
        }
        FoundInputs::Gen { stdin: true } => t.push_str(
            "# gen reads the seeds on its stdin (`gen < seeds.txt`)\n\
             inputs = { gen = [\"sh\", \"-c\", \"exec target/release/gen < \\\"$1\\\"\", \"gen\", \"{seeds}\"], dir = \"in\" }\n",
        ),
        FoundInputs::Ready(ready) => {
            let _ = writeln!(
                t,
                "inputs = {{ dir = {}, name = \"{{seed:04}}.txt\" }}  # the shipped inputs (no gen)",
                quoted(&relative(dir, ready).display().to_string())
            );
        }
        FoundInputs::ByJudge => {}
    }
    let _ = writeln!(t, "judge = {}", array(&found.judge));
    let _ = writeln!(
        t,
        "score = '{}'  # the judge's score line: a whole line of its own",
        config::DEFAULT_SCORE
    );
    if let Some(vis) = &found.vis {
        let _ = writeln!(
            t,
            "# vis draws the tester's output (its pictures only: the tester's score stands)\nvis = {}",
            array(vis)
        );
    }
    if !found.pictures.is_empty() {
        let _ = writeln!(t, "pictures = {}", array(&found.pictures));
    }
    match &found.first_line {
        Some(line) => {
            let _ = writeln!(
                t,
                "# params = [\"N\", ...]  # names of the first tokens of an input's first line (in/0000.txt: {line}), for the CSV and compare's groups"
            );
        }
        None if found.shape == Shape::Topcoder => t.push_str(
            "# params = [\"N\"]  # names of the `N = 5` lines the tester prints, for the CSV and compare's groups\n",
        ),
        None => {}
    }
    let (limit, examples) = match found.shape {
        Shape::Topcoder => (10, "1..10"),
        _ => (2, "0..9"),
    };
    let _ = writeln!(t, "\n[limits]");
    let _ = writeln!(
        t,
        "time-limit = {limit}  # CHECK: the statement's time limit, in seconds"
    );
    let _ = writeln!(t, "examples = \"{examples}\"");
    t
}
