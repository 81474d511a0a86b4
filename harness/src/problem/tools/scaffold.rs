//! `harness new-problem <tools>`: a contest's tools looked at ([`inspect`]) and turned into a
//! `testcases/<id>/problem.toml` and a starter player ([`render`], [`main`]), so that a
//! competitor goes from a contest's download to a leaderboard without reading the keys of
//! problem.toml first.
//!
//! What it recognises (the shapes of [`super::config::Shape`]):
//!
//! - a Cargo package (`Cargo.toml`, or a folder holding `tools/Cargo.toml`) with
//!   `src/bin/tester.rs` whose usage names a `<command>` (or with no vis): interactive (`tester {player...}`, or `tester {input} {player...}`
//!   when its usage line names an input first, as AHC003's); with `src/bin/vis.rs` and no
//!   tester: batch; an interactive tester's `src/bin/vis.rs` beside it is its `vis` (drawing
//!   the tester's output). Inputs: gen over a seeds file when there is `src/bin/gen.rs` (on its
//!   stdin when the source reads the seeds from stdin and never looks at its arguments, as
//!   AHC001's), else the ready `in/0000.txt`... Pictures: `vis.html` / `out.svg` when the
//!   judge's (or its vis's) source writes one;
//! - a `.jar` (a file, or the one jar of a folder, `tester.jar` first): topcoder;
//!   A `tester.jar` is preferred to a tester's source beside it (the official judge).
//! - a tester's Java source (a file, or a folder's `*Tester.java` / `*Vis.java`): topcoder,
//!   built into `tester.jar` with a fixed date (the same bytes every build, so the same
//!   tools' hash), with `--add-exports` for the JDK internals it imports (TopCoder's
//!   framework imports `sun.java2d`).
//!
//! What it cannot know it says: the objective (`--objective`, else `max` with a `CHECK`
//! comment and a warning), the time limit and the parameters' names (comments).

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use super::config::{self, Shape};
use crate::cli::NewProblemArgs;
use crate::config::Objective;
use crate::context::Context;
use crate::error::Error;
use crate::exit;
use crate::problem;
use crate::sandbox::beneath::{self, Rules};

/// How a problem's inputs are made, as found.
#[derive(Clone, Debug, PartialEq)]
pub enum FoundInputs {
    /// `gen <seeds file>`; `stdin`: the seeds are read on its stdin instead.
    Gen { stdin: bool },
    /// Ready files `<dir>/0000.txt`...
    Ready(PathBuf),
    /// The judge makes the test (topcoder).
    ByJudge,
}

/// What [`inspect`] found in a contest's tools.
#[derive(Clone, Debug)]
pub struct Found {
    pub shape: Shape,
    /// The tools folder (absolute).
    pub tools: PathBuf,
    pub build: Option<Vec<String>>,
    pub inputs: FoundInputs,
    pub judge: Vec<String>,
    /// Interactive: the vis shipped beside the tester, drawing its output.
    pub vis: Option<Vec<String>>,
    pub pictures: Vec<String>,
    /// The first line of a ready or shipped input (for the `params` comment).
    pub first_line: Option<String>,
    /// A name for the problem: the contest's folder.
    pub name: String,
}

/// Looks at `source` (a tools folder, a contest folder holding `tools/`, a jar or a tester's
/// Java source) and says what problem it makes. An error names the path and what was
/// looked for.
pub fn inspect(source: &Path) -> Result<Found, String> {
    let source = std::fs::canonicalize(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let ext = source.extension().and_then(|e| e.to_str()).unwrap_or("");
    if source.is_file() {
        let dir = source.parent().unwrap_or(Path::new("/")).to_path_buf();
        let file = file_name(&source);
        return match ext {
            "jar" => Ok(topcoder(dir, &file, None)),
            // The contest's own tester.jar beside its source is the official judge: used as
            // it is, never rebuilt (a build from the source is not byte for byte the same).
            "java" if dir.join("tester.jar").is_file() => Ok(topcoder(dir, "tester.jar", None)),
            "java" => Ok(topcoder(dir, "tester.jar", Some(&file))),
            _ => Err(format!(
                "{}: not a tester (a .jar, a tester's .java, or a contest's tools folder)",
                source.display()
            )),
        };
    }
    let cargo = if source.join("Cargo.toml").is_file() {
        Some(source.clone())
    } else if source.join("tools/Cargo.toml").is_file() {
        Some(source.join("tools"))
    } else {
        None
    };
    if let Some(tools) = cargo {
        return atcoder(tools);
    }
    if ["vis.rs", "tester.rs", "gen.rs"]
        .iter()
        .any(|b| source.join("src/bin").join(b).is_file())
    {
        return Err(format!(
            "{}: src/bin/ holds a contest's tools but there is no Cargo.toml beside it (the \
             tools are a Cargo package: copy the contest's Cargo.toml and Cargo.lock too)",
            source.display()
        ));
    }
    let mut jars = files_with(&source, |n| n.ends_with(".jar"));
    if let Some(i) = jars.iter().position(|j| j == "tester.jar") {
        jars = vec![jars.swap_remove(i)];
    }
    let javas = files_with(&source, |n| {
        n.ends_with("Tester.java") || n.ends_with("Vis.java")
    });
    match (jars.as_slice(), javas.as_slice()) {
        ([jar], _) => Ok(topcoder(source, jar, None)),
        ([], [java]) => Ok(topcoder(source, "tester.jar", Some(java))),
        ([], []) => Err(format!(
            "{}: no contest tools found: expected a Cargo package with src/bin/vis.rs or \
             src/bin/tester.rs (AtCoder's tools/), a tester .jar, or a *Tester.java / *Vis.java",
            source.display()
        )),
        _ => Err(format!(
            "{}: more than one tester ({}): name the one to use",
            source.display(),
            jars.iter()
                .chain(&javas)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
}

/// The names of the files in `dir` that `take` accepts, sorted.
fn files_with(dir: &Path, take: impl Fn(&str) -> bool) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| file_name(&e.path()))
        .filter(|n| take(n))
        .collect();
    names.sort();
    names
}

/// The name a folder's problem gets: its own, or its parent's when it is called `tools`.
fn name_of(dir: &Path) -> String {
    let own = file_name(dir);
    if own == "tools" || own.is_empty() {
        dir.parent().map(file_name).unwrap_or(own)
    } else {
        own
    }
}

fn topcoder(dir: PathBuf, jar: &str, java: Option<&str>) -> Found {
    let build = java.map(|java| {
        let class = java.trim_end_matches(".java");
        let exports: String = desktop_internals(&dir)
            .iter()
            .map(|p| format!("--add-exports java.desktop/{p}=ALL-UNNAMED "))
            .collect();
        vec![
            "sh".to_string(),
            "-c".to_string(),
            format!(
                "mkdir -p build && javac {exports}-d build {java} && jar --create --date=2000-01-01T00:00:02Z --file {jar} --main-class {class} -C build ."
            ),
        ]
    });
    let judge = [
        "java", "-jar", jar, "-exec", "{player}", "-seed", "{seed}", "-novis", "-no",
    ]
    .map(String::from)
    .to_vec();
    Found {
        shape: Shape::Topcoder,
        name: name_of(&dir),
        tools: dir,
        build,
        inputs: FoundInputs::ByJudge,
        judge,
        vis: None,
        pictures: Vec::new(),
        first_line: None,
    }
}

/// The JDK-internal packages of `java.desktop` (`sun.java2d`, `sun.awt...`) that the Java
/// sources under `dir` import: TopCoder's tester framework imports `sun.java2d`, which javac
/// refuses without `--add-exports`.
fn desktop_internals(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            // A link to a folder is not walked (it may be `/`).
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if stack.len() < 64 {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "java") {
                continue;
            }
            let text = text_of(&d, Path::new(&entry.file_name()));
            for line in text.lines() {
                let Some(rest) = line.trim().strip_prefix("import ") else {
                    continue;
                };
                let name = rest.trim_start_matches("static ").trim_end_matches(';');
                if !(name.starts_with("sun.java2d") || name.starts_with("sun.awt")) {
                    continue;
                }
                // The package: the name without its class (or `*`).
                let package = name.rsplit_once('.').map_or(name, |(p, _)| p).to_string();
                if !found.contains(&package) {
                    found.push(package);
                }
            }
        }
    }
    found.sort();
    found
}

/// The text of `rel` in `folder`, read as the harness reads any file of a contest folder:
/// beneath it, never through a link, a regular file of at most 16 MiB
/// ([`crate::sandbox::beneath`]); empty when it is not that. What new-problem reads ends in
/// the problem.toml it writes (an input's first line): a link to another file is never
/// followed to it.
fn text_of(folder: &Path, rel: &Path) -> String {
    let rules = Rules {
        cap: 16 << 20,
        one_name: false,
    };
    beneath::read(folder, rel, rules)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

/// The text of a Rust source with its `//` comment lines left out.
fn code_of(path: &Path) -> String {
    let (folder, name) = (path.parent().unwrap_or(Path::new(".")), path.file_name());
    text_of(folder, Path::new(name.unwrap_or_default()))
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn atcoder(tools: PathBuf) -> Result<Found, String> {
    let bin = tools.join("src/bin");
    let (tester, vis, gen) = (
        bin.join("tester.rs"),
        bin.join("vis.rs"),
        bin.join("gen.rs"),
    );
    // An interactive tester takes the player's command (`Usage: tester <command> [<args>...]`);
    // a `tester.rs` that does not (a contestant's own runner) is not the judge when there is
    // a vis.
    let tester_code = code_of(&tester);
    let interactive = tester.is_file() && (tester_code.contains("<command>") || !vis.is_file());
    let (shape, judge_source, judge) = if interactive {
        let code = tester_code;
        // AHC003's tester: `tester <input> <command> [<args>...]`.
        let judge: Vec<&str> = if code.contains("<input>") {
            vec!["target/release/tester", "{input}", "{player...}"]
        } else {
            vec!["target/release/tester", "{player...}"]
        };
        (Shape::Interactive, code, judge)
    } else if vis.is_file() {
        (
            Shape::Batch,
            code_of(&vis),
            vec!["target/release/vis", "{input}", "{output}"],
        )
    } else {
        return Err(format!(
            "{}: a Cargo package without src/bin/vis.rs or src/bin/tester.rs: which program \
             judges an answer?",
            tools.display()
        ));
    };
    let shipped = tools.join("in");
    let inputs = if gen.is_file() {
        let code = code_of(&gen);
        FoundInputs::Gen {
            stdin: code.contains("stdin") && !code.contains("args"),
        }
    } else if shipped.join("0000.txt").is_file() {
        FoundInputs::Ready(shipped.clone())
    } else {
        return Err(format!(
            "{}: no src/bin/gen.rs and no in/0000.txt: where do the inputs come from?",
            tools.display()
        ));
    };
    // AtCoder's interactive tools ship vis beside tester: it draws the tester's output.
    let vis_command = (shape == Shape::Interactive && vis.is_file()).then(|| {
        ["target/release/vis", "{input}", "{output}"]
            .map(String::from)
            .to_vec()
    });
    let vis_source = match &vis_command {
        Some(_) => code_of(&vis),
        None => String::new(),
    };
    let pictures = ["vis.html", "out.svg"]
        .into_iter()
        .filter(|p| {
            let quoted = format!("\"{p}\"");
            judge_source.contains(&quoted) || vis_source.contains(&quoted)
        })
        .map(String::from)
        .collect();
    let first_line = Some(text_of(&tools, Path::new("in/0000.txt")))
        .filter(|t| !t.is_empty())
        .and_then(|t| t.lines().next().map(|l| l.trim().to_string()));
    Ok(Found {
        shape,
        name: name_of(&tools),
        tools,
        build: Some(
            ["cargo", "build", "--release", "--quiet"]
                .map(String::from)
                .to_vec(),
        ),
        inputs,
        judge: judge.into_iter().map(String::from).collect(),
        vis: vis_command,
        pictures,
        first_line,
    })
}

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

/// The starter player's `main.py` for a shape: it reads what comes first and answers
/// nothing, so the first run shows the whole way from the tools to a leaderboard (with WA).
pub fn starter(shape: Shape) -> &'static str {
    match shape {
        Shape::Batch => {
            "# A starter: reads the input, prints no answer. Write the solution here.\n\
             import sys\n\n\
             tokens = sys.stdin.read().split()\n\
             # print(the answer, in the statement's output format)\n"
        }
        Shape::Interactive | Shape::Topcoder => {
            "# A starter: reads the first line the tester sends and stops. Write the solution\n\
             # here: read what the statement says, print each answer with flush=True.\n\
             import sys\n\n\
             first = sys.stdin.readline()\n"
        }
    }
}

/// `harness new-problem`: looks at a contest's tools, writes `testcases/<id>/problem.toml`
/// (checked as any problem.toml is) and `players/<id>-starter/`, and prints the next command.
pub fn main(args: &NewProblemArgs) -> crate::error::Result<u8> {
    let context = Context::load(&args.common)?;
    let found = inspect(&args.tools).map_err(Error::Usage)?;
    let named_java = args.tools.extension().is_some_and(|e| e == "java");
    if named_java && found.build.is_none() {
        eprintln!(
            "note: {} is the contest's official tester beside {}: it is used as it is (the \
             source is not built)",
            found.tools.join("tester.jar").display(),
            args.tools.display()
        );
    }
    let id = match &args.id {
        Some(id) => id.clone(),
        None => id_from(&found.name),
    };
    let builtin: Vec<&str> = problem::builtin().iter().map(|p| p.id()).collect();
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(Error::usage(format!(
            "--id {id:?}: a problem id is letters, digits, - and _"
        )));
    }
    if builtin.contains(&id.as_str()) {
        return Err(Error::usage(format!(
            "--id {id}: a built-in problem has that id; choose another"
        )));
    }
    let dir = context.testcases.join(&id);
    let file = dir.join("problem.toml");
    if file.exists() && !args.force {
        return Err(Error::usage(format!(
            "{} exists: --force to write it again, or --id to name another problem",
            file.display()
        )));
    }
    let io = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| Error::usage(format!("{}: {e}", path.display()))
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let dir = std::fs::canonicalize(&dir).map_err(io(&dir))?;
    let objective = args.objective.as_deref().map(|o| match o {
        "min" => crate::config::Objective::Minimize,
        _ => crate::config::Objective::Maximize,
    });
    std::fs::write(&file, render(&found, &dir, objective)).map_err(io(&file))?;
    // Checked as every problem.toml is: a mistake here is new-problem's, said at once.
    let def = config::load(&file, &builtin).map_err(Error::Usage)?;
    println!(
        "wrote {} ({} shape, tools {})",
        file.display(),
        def.shape.name(),
        def.tools.display()
    );
    let player = context.root.join("players").join(format!("{id}-starter"));
    if player.exists() {
        println!("kept {} (it exists)", player.display());
    } else {
        std::fs::create_dir_all(&player).map_err(io(&player))?;
        std::fs::write(
            player.join("player.toml"),
            format!("problem = \"{id}\"\ncommand = [\"python3\", \"main.py\"]\n"),
        )
        .map_err(io(&player))?;
        std::fs::write(player.join("main.py"), starter(def.shape)).map_err(io(&player))?;
        println!(
            "wrote {} (a starter: it answers nothing yet)",
            player.display()
        );
    }
    if objective.is_none() {
        eprintln!(
            "warning: objective = \"max\" written as a guess: if a lower score is better, make it \"min\" in {} (or run again with --objective min --force)",
            file.display()
        );
    }
    let examples = match def.shape {
        Shape::Topcoder => "1..10",
        _ => "0..9",
    };
    let shown = player.strip_prefix(&context.root).unwrap_or(&player);
    println!(
        "next: harness --players {} --seeds {examples}",
        shown.display()
    );
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_between_folders() {
        let p = Path::new;
        assert_eq!(
            relative(p("/w/testcases/a"), p("/w/testcases/a/tools")),
            p("tools")
        );
        assert_eq!(
            relative(p("/w/testcases/a"), p("/w/ahc/tools")),
            p("../../ahc/tools")
        );
        assert_eq!(
            relative(p("/w/testcases/a"), p("/c/ahc/tools")),
            p("/c/ahc/tools")
        );
        assert_eq!(relative(p("/w/t/a"), p("/w/t/a")), p("."));
    }

    #[test]
    fn a_tester_importing_jdk_internals_is_built_with_their_exports() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        std::fs::create_dir_all(dir.join("com/topcoder/marathon")).unwrap();
        std::fs::write(
            dir.join("GameTester.java"),
            "import com.topcoder.marathon.*;\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("com/topcoder/marathon/Cached.java"),
            "package com.topcoder.marathon;\nimport sun.java2d.SunGraphics2D;\n",
        )
        .unwrap();
        let found = inspect(dir).unwrap();
        assert_eq!(found.shape, Shape::Topcoder);
        let build = found.build.unwrap().join(" ");
        assert!(
            build.contains(
                "javac --add-exports java.desktop/sun.java2d=ALL-UNNAMED -d build GameTester.java"
            ),
            "{build}"
        );
    }

    #[test]
    fn tools_without_their_cargo_toml_are_named_as_such() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("src/bin")).unwrap();
        std::fs::write(root.path().join("src/bin/vis.rs"), "fn main() {}\n").unwrap();
        let e = inspect(root.path()).unwrap_err();
        assert!(e.contains("no Cargo.toml"), "{e}");
    }

    #[test]
    fn a_link_in_the_contest_folder_is_never_read_into_the_config() {
        let root = tempfile::tempdir().unwrap();
        let tools = root.path().join("tools");
        std::fs::create_dir_all(tools.join("src/bin")).unwrap();
        std::fs::create_dir_all(tools.join("in")).unwrap();
        std::fs::write(tools.join("Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(tools.join("src/bin/vis.rs"), "fn main() {}\n").unwrap();
        let secret = root.path().join("secret.txt");
        std::fs::write(&secret, "SECRET-LINE\n").unwrap();
        std::os::unix::fs::symlink(&secret, tools.join("in/0000.txt")).unwrap();
        // The link is there (is_file follows it): the inputs are the ready ones...
        let found = inspect(&tools).unwrap();
        assert!(matches!(found.inputs, FoundInputs::Ready(_)));
        // ... but what it names is never read into the config.
        assert_eq!(found.first_line, None);
        let text = render(&found, root.path(), None);
        assert!(!text.contains("SECRET-LINE"), "{text}");
    }

    #[test]
    fn ids_come_from_folder_names() {
        assert_eq!(id_from("AHC 042"), "ahc-042");
        assert_eq!(id_from("MM_89"), "mm_89");
    }

    #[test]
    fn a_written_config_parses_for_every_shape() {
        let root = tempfile::tempdir().unwrap();
        let tools = root.path().join("contest/tools");
        std::fs::create_dir_all(tools.join("in")).unwrap();
        std::fs::write(tools.join("in/0000.txt"), "5 3\n").unwrap();
        let dir = root.path().join("ws/testcases/x");
        std::fs::create_dir_all(&dir).unwrap();
        let cases = [
            (
                Shape::Batch,
                FoundInputs::Gen { stdin: true },
                vec!["vis", "{input}", "{output}"],
            ),
            (
                Shape::Interactive,
                FoundInputs::Ready(tools.join("in")),
                vec!["tester", "{input}", "{player...}"],
            ),
            (
                Shape::Topcoder,
                FoundInputs::ByJudge,
                vec![
                    "java", "-jar", "t.jar", "-exec", "{player}", "-seed", "{seed}",
                ],
            ),
        ];
        for (shape, inputs, judge) in cases {
            let found = Found {
                shape,
                tools: tools.clone(),
                build: None,
                inputs,
                judge: judge.into_iter().map(String::from).collect(),
                vis: (shape == Shape::Interactive)
                    .then(|| ["vis", "{input}", "{output}"].map(String::from).to_vec()),
                pictures: vec!["vis.html".into()],
                first_line: Some("5 3".into()),
                name: "contest".into(),
            };
            for objective in [None, Some(Objective::Minimize)] {
                let text = render(&found, &dir, objective);
                let def = super::super::config::parse(&text, &dir.join("problem.toml"), &[])
                    .unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!(def.shape, shape);
                assert_eq!(def.score.as_str(), config::DEFAULT_SCORE, "{text}");
                assert_eq!(def.tools, std::fs::canonicalize(&tools).unwrap());
                assert_eq!(def.objective == Objective::Minimize, objective.is_some());
                assert_eq!(
                    text.contains("CHECK: \"max\""),
                    objective.is_none(),
                    "{text}"
                );
            }
        }
    }
}
