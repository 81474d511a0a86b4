//! Finding and loading the workspace's `problem.toml` files at start-up: every one that
//! loads is a problem; one that does not (a typo, a missing tools folder, a second problem
//! of the same id) is kept as [`Broken`], so that only a command that uses that problem
//! stops (a usage error naming the file and the key, [`broken`]); any other says it in one
//! warning line ([`Broken::warning`]) and goes on.
//!
//! Reads the files ([`super::config::load`]) and holds what did not load; nothing else.

use std::path::PathBuf;
use std::sync::Mutex;

use super::config::{load, Def};

/// A `problem.toml` that did not load: the id its problem would have (its folder's name)
/// and why, naming the file and the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    pub id: String,
    pub message: String,
}

impl Broken {
    /// The one line a command that does not use the problem prints.
    pub fn warning(&self) -> String {
        // A TOML error spans lines (the line quoted, a caret): one line of its parts.
        let said: Vec<&str> = self
            .message
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !quoted(l))
            .collect();
        format!(
            "warning: problem {:?} left out: {}",
            self.id,
            said.join(" ")
        )
    }
}

/// Whether a line of a TOML error quotes the file: the line itself or the caret under it
/// (`2 | key = 1`, `  | ^^^`).
fn quoted(line: &str) -> bool {
    let gutter = line.split('|').next().unwrap_or("");
    line.contains('|') && gutter.trim().bytes().all(|b| b.is_ascii_digit())
}

/// Reads and checks every problem of `folders`; `builtin` are the ids already taken.
/// Returns the problems that loaded and those that did not: a folder without a
/// `problem.toml` (named in scoring.toml), a file with a mistake, and each problem of an
/// id that two folders give (neither is used).
pub fn discover(folders: &[PathBuf], builtin: &[&str]) -> (Vec<Def>, Vec<Broken>) {
    let mut defs: Vec<Def> = Vec::new();
    let mut broken: Vec<Broken> = Vec::new();
    for folder in folders {
        let file = folder.join("problem.toml");
        let id = folder
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        if !file.is_file() {
            broken.push(Broken {
                id,
                message: format!(
                    "[harness] problems: {} holds no problem.toml",
                    folder.display()
                ),
            });
            continue;
        }
        match load(&file, builtin) {
            Ok(def) if defs.iter().any(|d| d.id == def.id) => {
                defs.retain(|d| d.id != def.id);
                broken.push(Broken {
                    id: def.id.to_string(),
                    message: format!(
                        "{}: a second problem with the id {:?} (the folder's name)",
                        file.display(),
                        def.id
                    ),
                });
            }
            Ok(def) if broken.iter().any(|b| b.id == def.id) => broken.push(Broken {
                id: def.id.to_string(),
                message: format!(
                    "{}: a second problem with the id {:?} (the folder's name)",
                    file.display(),
                    def.id
                ),
            }),
            Ok(def) => defs.push(def),
            Err(message) => broken.push(Broken { id, message }),
        }
    }
    (defs, broken)
}

/// The problem.toml files of the workspace that did not load.
static BROKEN: Mutex<Vec<Broken>> = Mutex::new(Vec::new());

/// Makes `list` the problems that did not load (replacing those of an earlier load).
pub fn register_broken(list: Vec<Broken>) {
    *BROKEN.lock().unwrap_or_else(|e| e.into_inner()) = list;
}

/// Why the problem `id` did not load, when its problem.toml is one that did not.
pub fn broken(id: &str) -> Option<String> {
    BROKEN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|b| b.id == id)
        .map(|b| b.message.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "shape = \"batch\"\nobjective = \"max\"\ntools = \"tools\"\n\
        inputs = { dir = \"in\" }\njudge = [\"vis\", \"{input}\", \"{output}\"]\n";

    fn problem(root: &std::path::Path, id: &str, text: &str) -> PathBuf {
        let dir = root.join(id);
        std::fs::create_dir_all(dir.join("tools")).unwrap();
        std::fs::create_dir_all(dir.join("in")).unwrap();
        std::fs::write(dir.join("problem.toml"), text).unwrap();
        dir
    }

    #[test]
    fn a_broken_problem_toml_is_kept_apart_and_the_others_load() {
        let root = tempfile::tempdir().unwrap();
        let good = problem(root.path(), "good", GOOD);
        let bad = problem(root.path(), "bad", &GOOD.replace("objective", "objectiv"));
        let (defs, broken) = discover(&[bad, good], &[]);
        assert_eq!(defs.iter().map(|d| d.id).collect::<Vec<_>>(), ["good"]);
        assert_eq!(broken.len(), 1, "{broken:?}");
        assert_eq!(broken[0].id, "bad");
        assert!(broken[0].message.contains("objectiv"), "{broken:?}");
        let warning = broken[0].warning();
        assert_eq!(warning.lines().count(), 1, "{warning}");
        assert!(
            warning.contains("bad/problem.toml")
                && warning.contains("unknown field `objectiv`")
                && !warning.contains('|'),
            "{warning}"
        );
    }

    #[test]
    fn two_folders_of_one_id_leave_neither_in_use() {
        let root = tempfile::tempdir().unwrap();
        let first = problem(root.path(), "same", GOOD);
        let second = problem(&root.path().join("other"), "same", GOOD);
        let missing = root.path().join("nowhere");
        let (defs, broken) = discover(&[first, second, missing], &[]);
        assert!(defs.is_empty(), "{:?}", defs.len());
        assert_eq!(broken.len(), 2, "{broken:?}");
        assert!(broken[0].message.contains("a second problem"), "{broken:?}");
        assert!(broken[1].message.contains("holds no problem.toml"));
    }
}
