//! What `harness new-problem` finds in a contest's tools ([`inspect`]): the shape, the
//! build, how inputs are made, the judge and its pictures. It only reads: each file beneath
//! the contest's folder, never through a link ([`crate::sandbox::beneath`]).

use std::path::{Path, PathBuf};

use crate::problem::tools::config::Shape;
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
