//! The pictures of a test whose tools draw them apart from judging it.
//!
//! - An interactive AtCoder problem ships `vis` beside `tester`: the tester scores the game and
//!   writes its output file, and `vis <input> <output>` draws that file (`out.svg`). With
//!   the `vis` key, [`draw`] runs it contained, in the tester's own folder once the tester
//!   has ended, for its pictures only: its score is never read (the tester's stands), and a
//!   vis that fails changes nothing of the verdict (its output is kept as `vis.log`).
//! - A TopCoder tester run with `-save` writes `<seed>.png` into its working folder:
//!   `pictures` may name a file by the seed (`{seed}`, `{seed:04}`: the seed handed to the
//!   tool), read with the others by [`super::judge::left_pictures`].
//!
//! This module reads and writes only the test's tool folder (a fresh one per test) and runs
//! the vis through [`crate::sandbox::tool`].

use std::time::Duration;

use super::config::{braced, check_command, Def, Shape};
use super::inputs;
use super::judge::{self, Placeholders};
use crate::problem::Picture;
use crate::sandbox::tool::{self, Stdin, ToolCommand, ToolDir, ToolEnd, ToolRun};
use crate::sandbox::Isolation;

/// The name under which a test keeps the output of a vis that failed.
pub const VIS_LOG: &str = "vis.log";

/// The placeholders a picture's name may hold.
const SEEDS: [&str; 2] = ["{seed}", "{seed:04}"];

/// Checks the `vis` key (interactive only; a command over `{output}`) and the placeholders of
/// the `pictures` names; returns the vis.
pub(super) fn check(
    shape: Shape,
    vis: Option<Vec<String>>,
    pictures: &[String],
    at: &dyn Fn(&str, String) -> String,
) -> Result<Option<Vec<String>>, String> {
    for p in pictures {
        if let Some(word) = braced(p).find(|w| !SEEDS.contains(w)) {
            let why = format!("{p:?}: {word} is not a placeholder of a picture's name (known: {{seed}} {{seed:04}})");
            return Err(at("pictures", why));
        }
    }
    let Some(vis) = vis else {
        return Ok(None);
    };
    match shape {
        Shape::Interactive => {}
        Shape::Batch => {
            let why = "a batch judge is the vis already: its pictures are kept (leave vis out)";
            return Err(at("vis", why.into()));
        }
        Shape::Topcoder => {
            let why = "a topcoder tester draws its own pictures: name them in pictures (`{seed}.png` for a tester's -save), leave vis out";
            return Err(at("vis", why.into()));
        }
    }
    check_command("vis", &vis, at)?;
    let has = |p: &str| vis.iter().any(|a| a.contains(p));
    if !has("{output}") {
        let why = "vis draws the tester's output: give it {output} (`vis {input} {output}`)";
        return Err(at("vis", why.into()));
    }
    if let Some(word) = ["{player}", "{player...}", "{seeds}"]
        .into_iter()
        .find(|p| has(p))
    {
        return Err(at(
            "vis",
            format!("{word}: vis is given the test's files only ({{input}} {{output}} {{seed}})"),
        ));
    }
    Ok(Some(vis))
}

/// A picture's folder in the tool's working folder (`""` for the folder itself) and its
/// file's name, under which it is kept: `vis/{seed}.png` is (`vis`, `{seed}.png`).
pub fn folder_and_file(picture: &str) -> (&str, &str) {
    picture.rsplit_once('/').unwrap_or(("", picture))
}

/// A picture's name with the seed put in.
pub fn named(pattern: &str, seed: u64) -> String {
    pattern
        .replace("{seed:04}", &format!("{seed:04}"))
        .replace("{seed}", &seed.to_string())
}

/// A picture's name as a glob of the files it names for any seed (`{seed}.png`: `*.png`).
pub fn glob(pattern: &str) -> String {
    SEEDS
        .iter()
        .fold(pattern.to_string(), |p, w| p.replace(w, "*"))
}

/// Whether `name` (an entry of the tools folder) is a file the picture `pattern` names for
/// some seed: such an entry is a picture left by running the tools by hand, not shown to a
/// tool, which writes its own there.
pub fn may_name(pattern: &str, name: &str) -> bool {
    let Some((word, at)) = SEEDS
        .iter()
        .filter_map(|w| pattern.find(w).map(|at| (*w, at)))
        .min_by_key(|(_, at)| *at)
    else {
        return pattern == name;
    };
    let (head, tail) = (&pattern[..at], &pattern[at + word.len()..]);
    let Some(middle) = name
        .strip_prefix(head)
        .and_then(|rest| rest.strip_suffix(tail))
    else {
        return false;
    };
    !middle.is_empty() && middle.bytes().all(|b| b.is_ascii_digit())
}

/// Once a relayed test's tester has ended (`run`, `None` when it never ran): runs the
/// problem's vis in the tester's folder `dir` over the input and the tester's output file
/// (`input`, `output`: their names in its working folder), so that the pictures it draws are
/// there for the game to keep ([`super::judge::left_pictures`] reads them, safely), and
/// returns, when the vis failed, its output as [`VIS_LOG`]. Nothing here touches the outcome.
pub fn draw(
    def: &Def,
    isolation: &Isolation,
    dir: &ToolDir,
    seed: u64,
    run: Option<&ToolRun>,
) -> Vec<Picture> {
    let mut pictures = Vec::new();
    let tester_ran =
        run.is_some_and(|r| !matches!(r.end, ToolEnd::NotStarted(_) | ToolEnd::Interrupted));
    if let (Some(vis), true) = (&def.vis, tester_ran && !crate::os::interrupted()) {
        let ran = run_vis(def, isolation, dir, vis, seed);
        let timeout = Duration::from_secs_f64(def.judge_timeout);
        if !ran.succeeded() && ran.end != ToolEnd::Interrupted {
            pictures.push(vis_log(&ran, &ran.describe_end(timeout)));
        }
    }
    pictures
}

/// Runs `vis` contained in `dir`, as the judge is run: the tools shown, its own time and
/// memory.
fn run_vis(def: &Def, isolation: &Isolation, dir: &ToolDir, vis: &[String], seed: u64) -> ToolRun {
    let work = dir.work();
    let values = Placeholders {
        input: Some(work.join(super::relayed::INPUT)),
        output: Some(work.join(super::relayed::OUTPUT)),
        seed: Some(seed),
        ..Placeholders::default()
    };
    let args = values.apply(vis);
    let cmd = ToolCommand {
        program: judge::program(&def.tools, &args[0]),
        args: args[1..].to_vec(),
        tools: def.tools.clone(),
        read_only: Vec::new(),
        env: super::tool_env(),
        stdin: Stdin::Null,
        stdout: None,
        timeout: Duration::from_secs_f64(def.judge_timeout),
        limits: inputs::tool_limits(def),
        max_output: 64 << 20,
    };
    tool::run(isolation, &cmd, dir)
}

/// The output of a vis that failed (the kept tails of both streams), as a judge's is kept.
fn vis_log(run: &ToolRun, how: &str) -> Picture {
    let mut text = format!(
        "[harness: the vis ended: {how}; its pictures only, the verdict is the tester's]\n"
    );
    for (name, tail) in [("stdout", &run.stdout_tail), ("stderr", &run.stderr_tail)] {
        text.push_str(&format!(
            "--- {name} (its last {} KiB at most)\n",
            tool::TAIL / 1024
        ));
        text.push_str(tail);
        if !tail.is_empty() && !tail.ends_with('\n') {
            text.push('\n');
        }
    }
    Picture {
        name: VIS_LOG.to_string(),
        bytes: text.into_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pictures_name_holds_the_seed() {
        assert_eq!(named("{seed}.png", 7), "7.png");
        assert_eq!(named("vis-{seed:04}.svg", 7), "vis-0007.svg");
        assert_eq!(glob("vis-{seed:04}-{seed}.svg"), "vis-*-*.svg");
        assert!(may_name("{seed}.png", "12.png"));
        assert!(may_name("vis-{seed:04}.svg", "vis-0012.svg"));
        assert!(!may_name("{seed}.png", "x.png"));
        assert!(!may_name("{seed}.png", ".png"));
        assert!(may_name("out.svg", "out.svg"));
        assert!(!may_name("out.svg", "out.svgz"));
    }

    #[test]
    fn vis_is_for_the_interactive_shape_and_draws_the_output() {
        let at = |key: &str, m: String| format!("problem.toml: {key}: {m}");
        let vis = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let good = vis(&["target/release/vis", "{input}", "{output}"]);
        assert!(check(Shape::Interactive, good.clone(), &[], &at).is_ok());
        for (shape, v, want) in [
            (Shape::Batch, good.clone(), "vis: a batch judge"),
            (Shape::Topcoder, good.clone(), "vis: a topcoder tester"),
            (
                Shape::Interactive,
                vis(&["vis", "{input}"]),
                "give it {output}",
            ),
            (
                Shape::Interactive,
                vis(&["vis", "{output}", "{player...}"]),
                "{player...}: vis",
            ),
            (
                Shape::Interactive,
                vis(&["vis", "{out}"]),
                "unknown placeholder {out}",
            ),
        ] {
            let err = check(shape, v, &[], &at).unwrap_err();
            assert!(err.contains(want), "{want:?} not in {err}");
        }
        let err = check(Shape::Topcoder, None, &["{seeds}.png".into()], &at).unwrap_err();
        assert!(err.contains("pictures") && err.contains("{seeds}"), "{err}");
        assert!(check(Shape::Topcoder, None, &["{seed}.png".into()], &at).is_ok());
    }
}
