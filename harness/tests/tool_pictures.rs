//! The pictures of contest tools that draw apart from judging (issue 38): an interactive
//! problem's `vis` (AtCoder ships `vis` beside `tester`) run over the tester's output, whose
//! pictures are kept for every test and linked from report.html with the transcripts, and
//! whose failure never changes a verdict or a score; a TopCoder tester's `-save` picture
//! (`<seed>.png`) kept by its seed, even when running the tester by hand left one in the
//! tools folder, or a stale one in the folder it draws into (`vis/<seed>.png`), in every way
//! a tool's folder is shown (a copy, an overlay). The tools are the bash fixtures of
//! `tests/fixtures/tool-shapes/`.

#[path = "support/containment.rs"]
mod containment;
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use support::tools::{ToolsWorkspace, DOUBLE};
use support::{expect_exit, rows_of, scores};

/// Players: `sh main.sh`; the tester sends N and wants 2N.
const PLAYERS: [(&str, &str); 2] = [("double", DOUBLE), ("word", "read n\necho x\n")];

struct Workspace {
    ws: ToolsWorkspace,
}

impl Workspace {
    /// Problems `drawn` (interactive, `draw-vis.sh` its vis), `smudged` (the same with
    /// `broken-vis.sh`), `saved` (topcoder, its tester run with `-save`) and `foldered` (the
    /// same tester drawing into `vis/`), with players
    /// `<problem>-double` and `<problem>-word`.
    fn new() -> Workspace {
        let ws = ToolsWorkspace::new();
        let interactive = |vis: &str| {
            format!(
                "shape = \"interactive\"\nobjective = \"max\"\ntools = \"tools\"\n\
                 inputs = {{ dir = \"in\", name = \"{{seed}}.txt\" }}\n\
                 judge = [\"echo-tester.sh\", \"{{player...}}\"]\n\
                 vis = [\"{vis}\", \"{{input}}\", \"{{output}}\"]\npictures = [\"out.svg\"]\njudge-timeout = 30\n"
            )
        };
        let problems = [
            ("drawn", vec!["echo-tester.sh", "draw-vis.sh"], interactive("draw-vis.sh")),
            ("smudged", vec!["echo-tester.sh", "broken-vis.sh"], interactive("broken-vis.sh")),
            (
                "foldered",
                vec!["trace-tester.sh"],
                "shape = \"topcoder\"\nobjective = \"max\"\ntools = \"tools\"\n\
                 judge = [\"trace-tester.sh\", \"-exec\", \"{player}\", \"-seed\", \"{seed}\", \"-save-into\", \"vis\"]\n\
                 pictures = [\"vis/{seed}.png\"]\njudge-timeout = 30\n"
                    .to_string(),
            ),
            (
                "saved",
                vec!["trace-tester.sh"],
                "shape = \"topcoder\"\nobjective = \"max\"\ntools = \"tools\"\n\
                 judge = [\"trace-tester.sh\", \"-exec\", \"{player}\", \"-seed\", \"{seed}\", \"-save\"]\n\
                 pictures = [\"{seed}.png\"]\njudge-timeout = 30\n"
                    .to_string(),
            ),
        ];
        for (id, tools, problem) in problems {
            for tool in tools {
                ws.fixture_tool(id, tool);
            }
            ws.problem_toml(id, &problem).ready_inputs(id, 0..5);
            for (name, script) in PLAYERS {
                ws.player(&format!("{id}-{name}"), id, script);
            }
        }
        Workspace { ws }
    }

    fn root(&self) -> &Path {
        self.ws.root()
    }

    /// Runs `players` on `seeds` into `results`; returns the harness's output and that
    /// folder.
    fn run(&self, players: &[&str], seeds: &str) -> (Output, PathBuf) {
        let results = self.root().join("results");
        let out = self.ws.command(players, seeds, &results).output().unwrap();
        (out, results)
    }
}

/// (verdict, score) of each (player, seed).
fn outcomes(rows: &[BTreeMap<String, String>]) -> BTreeMap<(String, String), (String, String)> {
    rows.iter()
        .map(|r| {
            let key = (r["player"].clone(), r["seed"].clone());
            (key, (r["verdict"].clone(), r["score"].clone()))
        })
        .collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The part of report.html from the heading `from` to the next heading.
fn section<'a>(report: &'a str, from: &str) -> &'a str {
    let start = report
        .find(from)
        .unwrap_or_else(|| panic!("no {from} in report.html"));
    let rest = &report[start + from.len()..];
    &rest[..rest.find("<h3>").unwrap_or(rest.len())]
}

#[test]
fn an_interactive_problems_vis_draws_every_test_and_the_report_links_it() {
    let ws = Workspace::new();
    let (out, results) = ws.run(&["drawn-double", "drawn-word"], "1..2");
    expect_exit(&out, 0);
    let rows = scores(&results);
    for seed in 1..=2u64 {
        let n = 20 + seed;
        let want = [
            (
                "drawn-double",
                ("OK", (2 * n).to_string()),
                (2 * n).to_string(),
            ),
            ("drawn-word", ("WA", "0".to_string()), "x".to_string()),
        ];
        for (player, (verdict, score), reply) in want {
            // The vis drew the test from its input and the tester's output file.
            let svg = results.join(format!("latest/pictures/drawn/{player}/{seed}/out.svg"));
            assert!(
                read(&svg).contains(&format!("<text>{n} {reply}</text>")),
                "{}",
                read(&svg)
            );
            // Its `Score = 1` is not the test's score: the tester's is.
            let row = rows_of(&rows, player)
                .into_iter()
                .find(|r| r["seed"] == seed.to_string())
                .unwrap();
            assert_eq!(
                (row["verdict"].as_str(), row["score"].as_str()),
                (verdict, score.as_str()),
                "{row:?}"
            );
        }
    }
    let report = read(&results.join("latest/report.html"));
    // A player that never failed is in the worst seeds only: its picture and transcript.
    let worst = section(&report, "<h3>Worst seeds</h3>");
    for file in [
        "pictures/drawn/drawn-double/1/out.svg",
        "transcripts/drawn/drawn-double/1.txt",
    ] {
        assert!(
            results.join("latest").join(file).is_file(),
            "{file} was not kept"
        );
        assert!(
            worst.contains(&format!("href=\"{file}\"")),
            "the worst seeds do not link {file}:\n{worst}"
        );
    }
    let failures = section(&report, "<h3>Failures (2)</h3>");
    for file in [
        "pictures/drawn/drawn-word/2/out.svg",
        "transcripts/drawn/drawn-word/2.txt",
        "pictures/drawn/drawn-word/2/judge.log",
    ] {
        assert!(
            failures.contains(&format!("href=\"{file}\"")),
            "the failures do not link {file}:\n{failures}"
        );
    }
}

#[test]
fn a_vis_that_fails_leaves_the_verdict_and_the_score_the_testers() {
    let ws = Workspace::new();
    let (out, results) = ws.run(&["smudged-double", "smudged-word"], "1");
    expect_exit(&out, 0);
    // The vis ran (its marker is in the test's vis.log) and failed.
    for player in ["smudged-double", "smudged-word"] {
        let log = read(&results.join(format!("latest/pictures/smudged/{player}/1/vis.log")));
        assert!(
            log.contains("broken-vis ran over output.txt") && log.contains("exit status 101"),
            "{log}"
        );
    }
    // Then the verdicts and scores are the tester's, as if there were no vis (its `Score = 0`
    // unread), and the half picture it left is kept as it is.
    let rows = scores(&results);
    let got = outcomes(&rows);
    let key = |p: &str| (p.to_string(), "1".to_string());
    assert_eq!(
        got[&key("smudged-double")],
        ("OK".to_string(), "42".to_string())
    );
    assert_eq!(got[&key("smudged-word")].0, "WA");
    let word = rows_of(&rows, "smudged-word")[0];
    assert!(
        word["reason"].contains("Wrong answer: expected 42"),
        "{word:?}"
    );
    let svg = read(&results.join("latest/pictures/smudged/smudged-double/1/out.svg"));
    assert!(svg.starts_with("<svg") && !svg.contains("</svg>"), "{svg}");
}

#[test]
fn a_topcoder_testers_saved_picture_is_kept_by_its_seed() {
    let ws = Workspace::new();
    // Running the tester by hand left a picture of seed 4 in the tools folder (read-only to
    // the tester): the run's tester writes its own.
    let stale = ws.root().join("testcases/saved/tools/4.png");
    std::fs::write(&stale, "left by hand\n").unwrap();
    let (out, results) = ws.run(&["saved-double", "saved-word"], "3..4");
    expect_exit(&out, 0);
    for (seed, player, reply) in [
        (3, "saved-double", "6"),
        (4, "saved-double", "8"),
        (3, "saved-word", "x"),
    ] {
        let png = results.join(format!("latest/pictures/saved/{player}/{seed}/{seed}.png"));
        assert_eq!(read(&png), format!("PNG seed {seed} reply {reply}\n"));
    }
    assert_eq!(read(&stale), "left by hand\n");
    let report = read(&results.join("latest/report.html"));
    let worst = section(&report, "<h3>Worst seeds</h3>");
    assert!(
        worst.contains("href=\"pictures/saved/saved-double/3/3.png\""),
        "{worst}"
    );
}

#[test]
fn a_picture_drawn_into_a_folder_is_kept_and_a_stale_one_there_never_shown() {
    let ws = Workspace::new();
    // A hand run left seed 4's picture in `vis/`, beside a file of the tester's own.
    let vis = ws.root().join("testcases/foldered/tools/vis");
    std::fs::create_dir_all(&vis).unwrap();
    std::fs::write(vis.join("4.png"), "left by hand\n").unwrap();
    std::fs::write(vis.join("palette.txt"), "the tester's own\n").unwrap();
    let players = ["foldered-double", "foldered-word"];
    let mut runs = vec![("box", vec![]), ("process", vec!["--sandbox", "off"])];
    let uid = support::needs_root("starts the harness as another user (setpriv): the overlay")
        .then(|| containment::free_uid(62_950));
    if let Some(uid) = uid {
        // The competitor's own folder: theirs, as by hand; their harness shows the tools
        // through an overlay.
        ws.ws.give_to(uid);
        runs.push(("overlay", vec![]));
    }
    for (name, more) in runs {
        let results = ws.root().join(name);
        let mut cmd = ws.ws.command(&players, "3..4", &results);
        cmd.args(&more);
        if name == "overlay" {
            let harness = containment::open_harness();
            cmd = ws.ws.as_user(uid.unwrap(), &harness, &cmd);
        }
        expect_exit(&cmd.output().unwrap(), 0);
        for (seed, player, reply) in [
            (3, "foldered-double", "6"),
            (4, "foldered-double", "8"),
            (4, "foldered-word", "x"),
        ] {
            let png = results.join(format!(
                "latest/pictures/foldered/{player}/{seed}/{seed}.png"
            ));
            assert_eq!(
                read(&png),
                format!("PNG seed {seed} reply {reply} stale no palette yes\n"),
                "{name}"
            );
        }
        let report = read(&results.join("latest/report.html"));
        assert!(
            report.contains("href=\"pictures/foldered/foldered-double/3/3.png\""),
            "{name}"
        );
        assert_eq!(read(&vis.join("4.png")), "left by hand\n", "{name}");
        assert_eq!(std::fs::read_dir(&vis).unwrap().count(), 2, "{name}");
    }
}
