//! `harness new-problem <tools>`: a contest's tools looked at ([`inspect`]) and turned into a
//! `testcases/<id>/problem.toml` and a starter player ([`render`], [`main`]), so that a
//! competitor goes from a contest's download to a leaderboard without reading the keys of
//! problem.toml first. A command of its own above `problem` (it writes what
//! [`crate::problem::tools`] reads and checks): it reads the tools' files beneath their
//! folder and writes only the new problem's folder and its starter player.
//!
//! What it recognises (the shapes of [`crate::problem::tools::config::Shape`]):
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

mod inspect;
mod render;

use std::path::{Path, PathBuf};

use crate::cli::NewProblemArgs;
use crate::config::Objective;
use crate::context::Context;
use crate::error::Error;
use crate::exit;
use crate::problem;
use crate::problem::tools::config::{self, Def, Shape};

pub use inspect::{inspect, Found, FoundInputs};
pub use render::{id_from, relative, render};

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
    note_official_tester(args, &found);
    let builtin: Vec<&str> = problem::builtin().iter().map(|p| p.id()).collect();
    let id = checked_id(args, &found, &builtin)?;
    let objective = args.objective.as_deref().map(|o| match o {
        "min" => Objective::Minimize,
        _ => Objective::Maximize,
    });
    let (file, def) = write_config(args, &context, &found, &id, objective, &builtin)?;
    let player = write_starter(&context, &id, def.shape)?;
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

/// A tester's Java source named, with the official `tester.jar` beside it: the jar is used.
fn note_official_tester(args: &NewProblemArgs, found: &Found) {
    let named_java = args.tools.extension().is_some_and(|e| e == "java");
    if named_java && found.build.is_none() {
        eprintln!(
            "note: {} is the contest's official tester beside {}: it is used as it is (the \
             source is not built)",
            found.tools.join("tester.jar").display(),
            args.tools.display()
        );
    }
}

/// The new problem's id: `--id`, else from the contest's name; letters, digits, - and _,
/// and no built-in problem's.
fn checked_id(
    args: &NewProblemArgs,
    found: &Found,
    builtin: &[&str],
) -> crate::error::Result<String> {
    let id = match &args.id {
        Some(id) => id.clone(),
        None => id_from(&found.name),
    };
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
    Ok(id)
}

/// A file error of new-problem's, naming the file: bad input, exit 2.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |e: std::io::Error| Error::usage(format!("{}: {e}", path.display()))
}

/// Writes `testcases/<id>/problem.toml` (not over one there without `--force`) and reads it
/// back as every problem.toml is read: a mistake here is new-problem's, said at once.
fn write_config(
    args: &NewProblemArgs,
    context: &Context,
    found: &Found,
    id: &str,
    objective: Option<Objective>,
    builtin: &[&str],
) -> crate::error::Result<(PathBuf, Def)> {
    let dir = context.testcases.join(id);
    let file = dir.join("problem.toml");
    if file.exists() && !args.force {
        return Err(Error::usage(format!(
            "{} exists: --force to write it again, or --id to name another problem",
            file.display()
        )));
    }
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let dir = std::fs::canonicalize(&dir).map_err(io(&dir))?;
    std::fs::write(&file, render(found, &dir, objective)).map_err(io(&file))?;
    let def = config::load(&file, builtin).map_err(Error::Usage)?;
    println!(
        "wrote {} ({} shape, tools {})",
        file.display(),
        def.shape.name(),
        def.tools.display()
    );
    Ok((file, def))
}

/// Writes `players/<id>-starter/` unless it exists; its folder.
fn write_starter(context: &Context, id: &str, shape: Shape) -> crate::error::Result<PathBuf> {
    let player = context.root.join("players").join(format!("{id}-starter"));
    if player.exists() {
        println!("kept {} (it exists)", player.display());
        return Ok(player);
    }
    std::fs::create_dir_all(&player).map_err(io(&player))?;
    std::fs::write(
        player.join("player.toml"),
        format!("problem = \"{id}\"\ncommand = [\"python3\", \"main.py\"]\n"),
    )
    .map_err(io(&player))?;
    std::fs::write(player.join("main.py"), starter(shape)).map_err(io(&player))?;
    println!(
        "wrote {} (a starter: it answers nothing yet)",
        player.display()
    );
    Ok(player)
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
                let def = config::parse(&text, &dir.join("problem.toml"), &[])
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
