//! The tools' identity: a hash of what defines them, recorded in `run.toml` and joined to
//! every player's hash, so that a changed tool shows as a new build in `compare` and
//! `--resume` runs its tests again.
//!
//! What a user or the tools leave in the folder is not part of it: build products, inputs
//! made by `gen`, a visualizer's outputs, an answer saved by hand. Otherwise running `vis`
//! by hand once, or `cargo run --bin gen`, would make every earlier run look like another
//! tool's. So:
//!
//! - a Cargo package (AtCoder's `tools/`: `Cargo.toml` at its top) is its `Cargo.toml`,
//!   `Cargo.lock`, `build.rs`, `rust-toolchain(.toml)` and `src/`, and the files its
//!   commands name (a script, a jar);
//! - any other folder (a TopCoder tester, scripts) is every file but [`LEFT_OUT`], gen's
//!   `dir` and the `pictures`.
//!
//! `hash-ignore` in problem.toml leaves more out, and `!pattern` puts a file in. Ready
//! inputs (`inputs = { dir = ... }`) define the tests, so their files are hashed wherever
//! they are. Every key of `problem.toml` is part of it too (its keys as parsed: a comment or
//! the order of the keys is not), so an edited judge line, score pattern or limit is a new
//! build.

use std::path::{Path, PathBuf};

use super::config::{Def, Inputs};
use crate::hash::TreeSha;
use crate::sandbox::beneath::{self, Rules};

/// Folders never walked: build products and version control.
const NEVER: [&str; 3] = ["target", ".git", "node_modules"];

/// Left out of a folder that is not a Cargo package (besides gen's `dir` and the
/// `pictures`): what tools and users leave there.
pub const LEFT_OUT: [&str; 18] = [
    "problem.toml",
    "*.md",
    "in",
    "out",
    "build",
    "*.class",
    "__pycache__",
    "*.pyc",
    "*.svg",
    "*.png",
    "*.gif",
    "*.html",
    "*.log",
    "*.out",
    "*.err",
    "out.txt",
    "output.txt",
    "seeds.txt",
];

/// What defines a Cargo package, at its top.
const CARGO: [&str; 6] = [
    "Cargo.toml",
    "Cargo.lock",
    "build.rs",
    "rust-toolchain",
    "rust-toolchain.toml",
    "src",
];

/// The hash of a problem's tools (16 hex digits).
pub fn identity(def: &Def) -> String {
    let cargo = def.tools.join("Cargo.toml").is_file();
    let named = named_files(def);
    let mut ignored: Vec<&str> = Vec::new();
    if !cargo {
        ignored.extend(LEFT_OUT);
    }
    if let Inputs::Gen { dir, .. } = &def.inputs {
        ignored.push(dir);
    }
    // A picture named by the seed (`{seed}.png`) is one file a seed: all of them.
    let pictures: Vec<String> = def
        .pictures
        .iter()
        .map(|p| super::drawing::glob(p))
        .collect();
    ignored.extend(pictures.iter().map(String::as_str));
    let (keep, user): (Vec<&str>, Vec<&str>) = def
        .hash_ignore
        .iter()
        .map(String::as_str)
        .partition(|p| p.starts_with('!'));
    ignored.extend(user);
    let keep: Vec<&str> = keep.iter().map(|p| &p[1..]).collect();
    let included = |rel: &Path| {
        let base =
            !cargo || CARGO.iter().any(|c| matches(rel, c, true)) || named.iter().any(|n| n == rel);
        keep.iter().any(|p| matches(rel, p, false))
            || (base && !ignored.iter().any(|p| matches(rel, p, false)))
    };
    let mut h = TreeSha::new();
    // Every key of problem.toml (the judge's command, the score pattern, the limits): an
    // edit of `-debug` into the judge's line is another judge.
    h.update(b"problem.toml\0");
    h.update(def.keys.as_bytes());
    h.update(b"\0tools\0");
    hash_folder(&mut h, &def.tools, &included);
    if let Inputs::Ready { dir, .. } = &def.inputs {
        h.update(b"\0inputs\0");
        hash_folder(&mut h, dir, &|_| true);
    }
    h.hex16()
}

/// The files of the tools folder that its commands name (`tester.jar` in `java -jar
/// tester.jar`, a script), relative to it.
fn named_files(def: &Def) -> Vec<PathBuf> {
    let mut commands: Vec<&Vec<String>> = vec![&def.judge];
    commands.extend(&def.build);
    if let Inputs::Gen { command, .. } = &def.inputs {
        commands.push(command);
    }
    commands
        .into_iter()
        .flatten()
        .filter(|a| !a.contains('{') && !Path::new(a).is_absolute())
        .filter(|a| def.tools.join(a).is_file())
        .map(|a| Path::new(a).components().collect())
        .collect()
}

/// Hashes the files under `root` that `included` takes (given their path relative to
/// `root`): each one's path and bytes (a link's target). [`NEVER`] folders are not walked.
fn hash_folder(h: &mut TreeSha, root: &Path, included: &dyn Fn(&Path) -> bool) {
    let files = crate::hash::files_under(root, &NEVER, included);
    // Never a wait on a fifo or a read of a device a folder holds: its kind instead.
    let any = Rules {
        cap: u64::MAX,
        one_name: false,
    };
    let read =
        |rel: &Path| beneath::read(root, rel, any).map_err(|refused| refused.why.to_string());
    h.files(root, &files, &read);
}

/// Whether `pattern` matches `rel` (a file's path in the tools folder): a pattern without `/`
/// matches any one of its folders or its name (`*.class`, `out`), or with `top` only the
/// first component; one with `/` matches the path from the top (`data/cache`, `tmp/*.txt`).
/// A folder that matches matches all it holds.
fn matches(rel: &Path, pattern: &str, top: bool) -> bool {
    let pattern = pattern.trim_end_matches('/');
    let parts: Vec<&str> = rel
        .components()
        .map(|c| c.as_os_str().to_str().unwrap_or(""))
        .collect();
    if pattern.is_empty() {
        return false;
    }
    if !pattern.contains('/') {
        if top {
            return parts.first().is_some_and(|first| glob(pattern, first));
        }
        return parts.iter().any(|part| glob(pattern, part));
    }
    let wanted: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    wanted.len() <= parts.len() && wanted.iter().zip(&parts).all(|(w, p)| glob(w, p))
}

/// `*` (any run of characters) and `?` (one character) within one path component.
fn glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[char], t: &[char]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some('*') => (0..=t.len()).any(|i| go(&p[1..], &t[i..])),
            Some('?') => !t.is_empty() && go(&p[1..], &t[1..]),
            Some(c) => t.first() == Some(c) && go(&p[1..], &t[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    go(&p, &t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A problem `p` whose tools are `p/<tools>`, with `extra` keys.
    fn def(root: &Path, tools: &str, shape: &str, extra: &str) -> Def {
        std::fs::create_dir_all(root.join("p").join(tools)).unwrap();
        let text =
            format!("shape = \"{shape}\"\nobjective = \"max\"\ntools = \"{tools}\"\n{extra}");
        super::super::config::parse(&text, &root.join("p/problem.toml"), &[]).unwrap()
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join("p").join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Writes each file in turn and asserts the hash changes with each (`changes`) or never.
    fn each_write(root: &Path, d: &Def, rels: &[&str], changes: bool) {
        let mut last = identity(d);
        for rel in rels {
            write(root, rel, &format!("{rel} changed\n"));
            let now = identity(d);
            assert_eq!(
                now != last,
                changes,
                "{rel}: changes the hash: {}",
                now != last
            );
            last = now;
        }
    }

    const AT_CODER: &str = "inputs = { gen = [\"target/release/gen\", \"{seeds}\"], dir = \"made\" }\njudge = [\"target/release/vis\", \"{input}\", \"{output}\"]\npictures = [\"picture.png\"]\n";

    #[test]
    fn a_cargo_package_is_its_sources_not_what_is_left_beside_them() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(r, "tools/Cargo.toml", "[package]\n");
        write(r, "tools/src/bin/vis.rs", "fn main() {}\n");
        let extra = format!("{AT_CODER}hash-ignore = [\"src/scratch.rs\", \"!notes/rules.txt\"]\n");
        let d = def(r, "tools", "batch", &extra);
        // Running the tools by hand: gen's inputs, vis's pictures and answers, a build.
        let by_hand = [
            "tools/in/0000.txt",
            "tools/made/0000.txt",
            "tools/out/0000.txt",
            "tools/out.txt",
            "tools/out.svg",
            "tools/vis.html",
            "tools/picture.png",
            "tools/seeds.txt",
            "tools/target/release/vis",
            "tools/src/scratch.rs",
            "tools/README.md",
        ];
        each_write(r, &d, &by_hand, false);
        let defining = [
            "tools/src/bin/vis.rs",
            "tools/src/lib.rs",
            "tools/Cargo.lock",
            "tools/Cargo.toml",
            "tools/rust-toolchain.toml",
            "tools/notes/rules.txt",
        ];
        each_write(r, &d, &defining, true);
    }

    #[test]
    fn a_tester_folder_is_every_file_but_outputs() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(r, "Tester.java", "class Tester {}\n");
        let judge = "judge = [\"java\", \"-jar\", \"tester.jar\", \"-exec\", \"{player}\", \"-seed\", \"{seed}\"]\npictures = [\"{seed}-saved.txt\"]\n";
        let d = def(r, ".", "topcoder", judge);
        let by_hand = [
            "build/Tester.class",
            "Tester.class",
            "out/1.out",
            "1.err",
            "run.log",
            "vis.png",
            "7-saved.txt",
            "__pycache__/x.pyc",
            "target/x",
            "README.md",
            "problem.toml",
        ];
        each_write(r, &d, &by_hand, false);
        each_write(
            r,
            &d,
            &["tester.jar", "Tester.java", "lib/Helper.java"],
            true,
        );
    }

    #[test]
    fn every_key_of_problem_toml_is_part_of_the_identity() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(r, "tester.jar", "jar\n");
        let tc = "judge = [\"java\", \"-jar\", \"tester.jar\", \"-exec\", \"{player}\", \"-seed\", \"{seed}\"]\n";
        let base = identity(&def(r, ".", "topcoder", tc));
        // A comment is not a key: the same problem.
        let commented = format!("# a note\n{tc}");
        assert_eq!(identity(&def(r, ".", "topcoder", &commented)), base);
        let edits = [
            tc.replace("\"-seed\"", "\"-debug\", \"-seed\""),
            format!("{tc}score = 'Points: (\\d+)'\n"),
            format!("{tc}judge-timeout = 30\n"),
            format!("{tc}title = \"another\"\n"),
            format!("{tc}[limits]\ntime-limit = 3\n"),
        ];
        for edit in edits {
            assert_ne!(identity(&def(r, ".", "topcoder", &edit)), base, "{edit}");
        }
    }

    #[test]
    fn ready_inputs_are_part_of_the_problem() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(r, "tools/Cargo.toml", "[package]\n");
        write(r, "ready/0000.txt", "5\n");
        let d = def(
            r,
            "tools",
            "batch",
            "inputs = { dir = \"ready\" }\njudge = [\"vis\", \"{input}\", \"{output}\"]\n",
        );
        each_write(r, &d, &["ready/0000.txt", "ready/0001.txt"], true);
    }

    #[test]
    fn patterns_match_components_or_paths_from_the_top() {
        let p = Path::new;
        assert!(matches(p("a/b/X.class"), "*.class", false));
        assert!(matches(p("target/release/vis"), "target", false));
        assert!(!matches(p("src/target.rs"), "target", false));
        assert!(matches(p("data/cache/x"), "data/cache/", false));
        assert!(!matches(p("src/data/cache/x"), "data/cache", false));
        assert!(matches(p("src/bin/vis.rs"), "src", true));
        assert!(!matches(p("x/src/vis.rs"), "src", true));
        assert!(matches(p("tmp/a.txt"), "tmp/*.txt", false));
        assert!(!matches(p("tmp/a.rs"), "tmp/*.txt", false));
    }

    /// Hashes stored in run folders, computed before the hash code moved to `crate::hash`:
    /// they must never change.
    #[test]
    fn stored_identities_stay_the_same() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(r, "tools/Cargo.toml", "[package]\n");
        write(r, "tools/src/bin/vis.rs", "fn main() {}\n");
        write(r, "tools/src/lib.rs", "");
        write(r, "tools/notes/rules.txt", "rules\n");
        write(r, "tools/out.txt", "x\n");
        std::os::unix::fs::symlink("vis.rs", r.join("p/tools/src/bin/link.rs")).unwrap();
        let extra = format!("{AT_CODER}hash-ignore = [\"src/scratch.rs\", \"!notes/rules.txt\"]\n");
        assert_eq!(
            identity(&def(r, "tools", "batch", &extra)),
            "12995066a4ffa7c7"
        );
        write(r, "Tester.java", "class Tester {}\n");
        write(r, "tester.jar", "jar\n");
        write(r, "lib/Helper.java", "class Helper {}\n");
        write(r, "Tester.class", "x");
        write(r, "ready/0000.txt", "5\n");
        let tc = "judge = [\"java\", \"-jar\", \"tester.jar\", \"-exec\", \"{player}\", \"-seed\", \"{seed}\"]\n";
        assert_eq!(identity(&def(r, ".", "topcoder", tc)), "211ab49a19238ed3");
        let ready = "inputs = { dir = \"ready\" }\njudge = [\"vis\", \"{input}\", \"{output}\"]\n";
        assert_eq!(
            identity(&def(r, "tools", "batch", ready)),
            "1a964797a426d027"
        );
        // A fifo is hashed as the reason it was not read.
        let fifo = r.join("p/pipe");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
        )
        .unwrap();
        assert_eq!(identity(&def(r, ".", "topcoder", tc)), "fa08c850da21b801");
    }
}
