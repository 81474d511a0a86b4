//! Habits of real contests' tools that the harness must read right (issue 27, tried on
//! AtCoder's and TopCoder's own tools): an interactive tester that copies the player's lines
//! to its stdout (the reason must come from its messages, not that transcript), a tester
//! that plays a "ground truth" game with a second start of the player (judged by its score,
//! a transcript section per start), one that starts the player more than `max-starts`
//! times (ERR naming the key), a TopCoder tester's Java stack
//! trace (the reason is its message; the whole trace is kept in the test's `judge.log`), a
//! player that writes on after the tester ended the game (not a protocol error: by hand the
//! tester never reads it), a gen edited to write outside its inputs folder (it plays, as by
//! hand, the tools folder unchanged), files left in the tools folder by running them by hand (not part of the
//! tools' hash), and a TopCoder tester that hangs after its error (ERR at `judge-timeout`,
//! quoting the error).
//! The tools are the bash testers of `tests/fixtures/tool-shapes/` (see its README).

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use support::tools::{ToolsWorkspace, DOUBLE};
use support::{expect_exit, rows_of, scores};

/// Players: `sh main.sh`.
const PLAYERS: [(&str, &str); 7] = [
    ("double", DOUBLE),
    // Takes 3 s to answer each game: 6 s in two starts, each within a 5 s limit.
    ("steady", "read n\nsleep 3\necho $((n * 2))\n"),
    // Answers the first game (N < 100) at once; in the ground truth game (N > 100) it
    // crashes, or thinks past the limit. A marker on stderr proves it got there.
    (
        "crash2",
        "read n\nif [ $n -gt 100 ]; then echo reached game 2 >&2; kill -SEGV $$; fi\necho $((n * 2))\n",
    ),
    (
        "slow2",
        "read n\nif [ $n -gt 100 ]; then echo reached game 2 >&2; sleep 9; fi\necho $((n * 2))\n",
    ),
    // A wrong answer that looks like a score line: it lands in the tester's stdout.
    ("liar", "read n\necho 'Score = 777 garbage'\n"),
    ("word", "read n\necho x\n"),
    // Answers, then says more once its input ends (the tester has ended the game by then).
    (
        "chatty",
        "read n\necho $((n * 2))\nwhile read x; do :; done\necho more\n",
    ),
];

struct Workspace {
    ws: ToolsWorkspace,
}

impl Workspace {
    /// Problems `echo` and `twice` (interactive, ready inputs `in/<seed>.txt` holding `20 +
    /// seed`) and `trace` (topcoder), each with its fixture tester, and the players of each.
    fn new() -> Workspace {
        let ws = ToolsWorkspace::new();
        // (problem, tester, its arguments before the player's, more of problem.toml)
        for (id, tester, args, more) in [
            ("echo", "echo-tester.sh", "", ""),
            ("twice", "twice-tester.sh", "", "max-starts = 1\n"),
            (
                "truth",
                "games-tester.sh",
                "\"2\", ",
                "[limits]\ntime-limit = 5\n",
            ),
            ("loop", "games-tester.sh", "\"4\", ", ""),
            ("trace", "trace-tester.sh", "", ""),
        ] {
            let problem = if id == "trace" {
                format!("shape = \"topcoder\"\nobjective = \"max\"\ntools = \"tools\"\njudge = [\"{tester}\", \"-exec\", \"{{player}}\", \"-seed\", \"{{seed}}\"]\njudge-timeout = 30\n")
            } else {
                format!("shape = \"interactive\"\nobjective = \"max\"\ntools = \"tools\"\ninputs = {{ dir = \"in\", name = \"{{seed}}.txt\" }}\njudge = [\"{tester}\", {args}\"{{player...}}\"]\njudge-timeout = 30\n{more}")
            };
            ws.fixture_tool(id, tester)
                .problem_toml(id, &problem)
                .ready_inputs(id, 0..5);
            for (name, script) in PLAYERS {
                ws.player(&format!("{id}-{name}"), id, script);
            }
        }
        Workspace { ws }
    }

    fn root(&self) -> &Path {
        self.ws.root()
    }

    /// Runs `players` on `seeds` into `results/<name>`; returns the harness's output and the
    /// results folder.
    fn run(&self, players: &[&str], seeds: &str, name: &str) -> (Output, PathBuf) {
        self.run_with(players, seeds, name, &[])
    }

    /// [`Workspace::run`] with more of the harness's arguments.
    fn run_with(
        &self,
        players: &[&str],
        seeds: &str,
        name: &str,
        more: &[&str],
    ) -> (Output, PathBuf) {
        let results = self.root().join("results").join(name);
        let mut cmd = self.ws.command(players, seeds, &results);
        (cmd.args(more).output().unwrap(), results)
    }
}

fn one<'a>(rows: &'a [BTreeMap<String, String>], player: &str) -> &'a BTreeMap<String, String> {
    let mine = rows_of(rows, player);
    assert_eq!(mine.len(), 1, "{rows:#?}");
    mine[0]
}

/// The `judge.log` kept for a test.
fn judge_log(results: &Path, problem: &str, player: &str, seed: u64) -> String {
    let path = results.join(format!(
        "latest/pictures/{problem}/{player}/{seed}/judge.log"
    ));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn an_interactive_testers_reason_is_its_messages_not_the_players_transcript() {
    let ws = Workspace::new();
    let (out, results) = ws.run(&["echo-double", "echo-liar"], "1", "echo");
    expect_exit(&out, 0);
    let rows = scores(&results);
    let ok = one(&rows, "echo-double");
    assert_eq!((ok["verdict"].as_str(), ok["score"].as_str()), ("OK", "42"));
    let wa = one(&rows, "echo-liar");
    assert_eq!(wa["verdict"], "WA", "{wa:?}");
    assert!(
        wa["reason"].contains("Wrong answer: expected 42"),
        "{}",
        wa["reason"]
    );
    // The player's own line went to the tester's stdout, the output file: not a reason.
    assert!(!wa["reason"].contains("777"), "{}", wa["reason"]);
    // The whole of what the tester printed is kept with the test.
    let log = judge_log(&results, "echo", "echo-liar", 1);
    assert!(log.contains("Score = 777 garbage") && log.contains("Wrong answer"));
}

#[test]
fn a_tester_that_starts_its_player_a_second_time_under_one_start_is_err_naming_max_starts() {
    let ws = Workspace::new();
    let (out, results) = ws.run(&["twice-double"], "2", "twice");
    // The tester tried its second game: it says so when that start fails.
    let log = judge_log(&results, "twice", "twice-double", 2);
    assert!(
        log.contains("game 2:"),
        "the second start was never tried: {log}"
    );
    // ERR: exit status 1.
    expect_exit(&out, 1);
    let rows = scores(&results);
    let row = one(&rows, "twice-double");
    assert_eq!(row["verdict"], "ERR", "{row:?}");
    let reason = &row["reason"];
    assert!(
        reason.contains("started its player a second time"),
        "{reason}"
    );
    assert!(reason.contains("`max-starts = 1`"), "{reason}");
    assert!(reason.contains("twice/problem.toml"), "{reason}");
    // The first game is told, for whoever changes the tester.
    assert!(reason.contains("Score = 44"), "{reason}");
}

#[test]
fn a_tester_that_plays_a_ground_truth_game_starts_the_player_twice_and_is_judged_by_its_score() {
    let ws = Workspace::new();
    for (name, mode) in [("truth", "auto"), ("truth-process", "off")] {
        let players = ["truth-double", "truth-word"];
        let (out, results) = ws.run_with(&players, "2,3", name, &["--sandbox", mode]);
        ground_truth_games_are_judged(&out, &results);
    }
}

/// What [`a_tester_that_plays_a_ground_truth_game_starts_the_player_twice_and_is_judged_by_its_score`]
/// expects of a run.
fn ground_truth_games_are_judged(out: &Output, results: &Path) {
    expect_exit(out, 0);
    let rows = scores(results);
    for seed in [2u64, 3] {
        let row = rows
            .iter()
            .find(|r| r["player"] == "truth-double" && r["seed"] == seed.to_string())
            .unwrap_or_else(|| panic!("no row of seed {seed}: {rows:#?}"));
        // By hand: N = 20 + seed; game 1 answers 2N, the ground truth game 2(N + 100); the
        // tester's score is their sum.
        let n = 20 + seed;
        let want = (2 * n + 2 * (n + 100)).to_string();
        assert_eq!(
            (row["verdict"].as_str(), row["score"].as_str()),
            ("OK", want.as_str())
        );
        // One section per start of the player, each with its own game.
        let path = results.join(format!("latest/transcripts/truth/truth-double/{seed}.txt"));
        let text = std::fs::read_to_string(&path).unwrap();
        let want = format!(
            "# start 1 of the player\n> {n}\n< {}\n# start 2 of the player\n> {}\n< {}\n",
            2 * n,
            n + 100,
            2 * (n + 100)
        );
        assert_eq!(text, want);
    }
    // A wrong answer in either game is the tool's judgement: WA with its words.
    let wrong = rows_of(&rows, "truth-word");
    assert_eq!(wrong.len(), 2, "{rows:#?}");
    for row in wrong {
        assert_eq!(row["verdict"], "WA", "{row:?}");
        assert!(row["reason"].contains("game 1: not a number"), "{row:?}");
    }
}

#[test]
fn a_tester_that_starts_its_player_past_max_starts_is_err_naming_it() {
    let ws = Workspace::new();
    let (out, results) = ws.run(&["loop-double"], "1", "loop");
    // The tester got its three games and tried a fourth.
    let log = judge_log(&results, "loop", "loop-double", 1);
    assert!(
        log.contains("game 4:"),
        "the fourth start was never tried: {log}"
    );
    expect_exit(&out, 1);
    let rows = scores(&results);
    let row = one(&rows, "loop-double");
    assert_eq!(row["verdict"], "ERR", "{row:?}");
    let reason = &row["reason"];
    assert!(reason.contains("more than 3 times"), "{reason}");
    assert!(reason.contains("`max-starts = 3`"), "{reason}");
    assert!(reason.contains("loop/problem.toml"), "{reason}");
    // A transcript of the three games the harness played.
    let path = results.join("latest/transcripts/loop/loop-double/1.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        text.contains("# start 3 of the player\n> 221\n< 442\n"),
        "{text}"
    );
    assert!(!text.contains("# start 4"), "{text}");
}

#[test]
fn a_topcoder_testers_stack_trace_is_cut_to_its_message_and_kept_whole() {
    let ws = Workspace::new();
    let (out, results) = ws.run(&["trace-double", "trace-word"], "3", "trace");
    expect_exit(&out, 0);
    let rows = scores(&results);
    let ok = one(&rows, "trace-double");
    assert_eq!((ok["verdict"].as_str(), ok["score"].as_str()), ("OK", "6"));
    let wa = one(&rows, "trace-word");
    assert_eq!(wa["verdict"], "WA", "{wa:?}");
    let reason = &wa["reason"];
    assert!(
        reason.contains("UNEXPECTED ERROR!")
            && reason.contains("java.lang.NumberFormatException: For input string")
            && reason.contains("Score = -1.0"),
        "{reason}"
    );
    assert!(
        !reason.contains("parseInt") && !reason.contains("more"),
        "{reason}"
    );
    let log = judge_log(&results, "trace", "trace-word", 3);
    assert!(
        log.contains("at FixtureTester.readAnswer(FixtureTester.java:41)"),
        "{log}"
    );
}

/// A TopCoder tester run without `-novis` where no display is (MM119's jar by hand) prints
/// `java.awt.HeadlessException` and `Score = -1.0`, then waits for ever on the player it
/// started: ERR once its time is out (`judge-timeout` and the player's time limit per start:
/// the reason says the seconds it ran), and the reason quotes the error, which says what to
/// change (`-novis`), not only that the tool ran out of time.
#[test]
fn a_topcoder_tester_that_hangs_after_its_error_is_err_quoting_the_error() {
    let ws = Workspace::new();
    let judge = r#"["headless-tester.sh", "-exec", "{player}", "-seed", "{seed}"]"#;
    // The tester's time: judge-timeout and, per start, the player's time limit (10 s here).
    let times = "judge-timeout = 5\nmax-starts = 1\n[limits]\ntime-limit = 5\n";
    let problem = format!(
        "shape = \"topcoder\"\nobjective = \"max\"\ntools = \"tools\"\njudge = {judge}\n{times}"
    );
    ws.ws
        .fixture_tool("headless", "headless-tester.sh")
        .problem_toml("headless", &problem)
        .player("headless-double", "headless", DOUBLE);
    let (out, results) = ws.run(&["headless-double"], "3", "headless");
    expect_exit(&out, 1);
    let rows = scores(&results);
    let row = one(&rows, "headless-double");
    assert_eq!(row["verdict"], "ERR", "{row:?}");
    let reason = &row["reason"];
    assert!(
        reason.starts_with("the judge timed out after 10 s (judge-timeout in ")
            && reason.contains("plus the player's time limit per start"),
        "{reason}"
    );
    assert!(
        reason.contains("java.awt.HeadlessException") && reason.contains("No X11 DISPLAY"),
        "the tester's own words: {reason}"
    );
    assert!(
        !reason.contains("checkHeadless"),
        "no stack frame: {reason}"
    );
    let log = judge_log(&results, "headless", "headless-double", 3);
    assert!(log.contains("GraphicsEnvironment.checkHeadless"), "{log}");
}

#[test]
fn what_a_player_says_after_the_tester_ended_the_game_is_not_judged() {
    let ws = Workspace::new();
    let (out, results) = ws.run(&["trace-chatty"], "4", "chatty");
    expect_exit(&out, 0);
    let rows = scores(&results);
    let row = one(&rows, "trace-chatty");
    // By hand the tester destroys the player and never reads the line: OK, not PE.
    assert_eq!(
        (row["verdict"].as_str(), row["score"].as_str()),
        ("OK", "8"),
        "{row:?}"
    );
}

#[test]
fn a_gen_that_writes_outside_its_inputs_folder_plays_and_leaves_the_tools_folder_unchanged() {
    let ws = Workspace::new();
    // A contestant's gen that writes answers beside the inputs, into the tools folder.
    let p = ws.root().join("testcases/edited");
    std::fs::create_dir_all(p.join("tools/ans")).unwrap();
    ws.ws
        .script(
            "edited",
            "gen.sh",
            "#!/bin/sh\nset -e\nmkdir in\necho 21 > in/0000.txt\necho 42 > ans/0000.txt\n",
        )
        .fixture_tool("edited", "echo-tester.sh")
        .problem_toml(
            "edited",
            "shape = \"interactive\"\nobjective = \"max\"\ntools = \"tools\"\ninputs = { gen = [\"gen.sh\", \"{seeds}\"], dir = \"in\" }\njudge = [\"echo-tester.sh\", \"{player...}\"]\n",
        )
        .player("edited-double", "edited", PLAYERS[0].1);
    let (out, results) = ws.run(&["edited-double"], "0", "edited");
    // As by hand: gen writes its answers beside the inputs, in its own working folder.
    expect_exit(&out, 0);
    let rows = scores(&results);
    let row = one(&rows, "edited-double");
    assert_eq!(
        (row["verdict"].as_str(), row["score"].as_str()),
        ("OK", "42"),
        "{row:?}"
    );
    let left: Vec<_> = std::fs::read_dir(p.join("tools/ans")).unwrap().collect();
    assert!(left.is_empty(), "gen wrote into the tools folder: {left:?}");
}

/// The `tools-hash` of a run.
fn tools_hash(results: &Path) -> String {
    let text = std::fs::read_to_string(results.join("latest/run.toml")).unwrap();
    text.lines()
        .find(|l| l.starts_with("tools-hash"))
        .unwrap_or_else(|| panic!("no tools-hash in run.toml:\n{text}"))
        .to_string()
}

#[test]
fn files_left_in_the_tools_folder_by_hand_keep_the_tools_hash() {
    let ws = Workspace::new();
    let (out, first) = ws.run(&["echo-double"], "0", "first");
    expect_exit(&out, 0);
    // What running the tools by hand leaves: an answer, a picture, gen's and vis's folders.
    let tools = ws.root().join("testcases/echo/tools");
    for rel in [
        "out.txt",
        "out.svg",
        "vis.html",
        "in/0000.txt",
        "out/0000.txt",
    ] {
        let path = tools.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "by hand\n").unwrap();
    }
    let (out, second) = ws.run(&["echo-double"], "0", "second");
    expect_exit(&out, 0);
    assert_eq!(tools_hash(&first), tools_hash(&second));
    // A changed tester is a changed tool.
    let tester = tools.join("echo-tester.sh");
    let text = std::fs::read_to_string(&tester).unwrap();
    std::fs::write(&tester, format!("{text}# changed\n")).unwrap();
    let (out, third) = ws.run(&["echo-double"], "0", "third");
    expect_exit(&out, 0);
    assert_ne!(tools_hash(&first), tools_hash(&third));
}

#[test]
fn each_start_has_its_own_clock_and_a_fault_in_a_later_start_is_the_players_verdict() {
    let ws = Workspace::new();
    let players = ["truth-steady", "truth-crash2", "truth-slow2"];
    let (out, results) = ws.run(&players, "1", "truth-faults");
    expect_exit(&out, 0);
    let rows = scores(&results);
    // 3 s a game, twice, under a 5 s limit: the limit holds each start on its own.
    let steady = one(&rows, "truth-steady");
    assert_eq!(steady["verdict"], "OK", "{steady:?}");
    assert_eq!(steady["score"], (42 + 242).to_string(), "{steady:?}");
    let think: f64 = steady["think_ms"].parse().unwrap();
    assert!(
        (2900.0..5000.0).contains(&think),
        "think_ms of one start: {think}"
    );
    for (player, verdict) in [("truth-crash2", "RE"), ("truth-slow2", "TLE")] {
        let stderr = results.join(format!("latest/logs/truth/{player}/1.stderr"));
        let text = std::fs::read_to_string(&stderr).unwrap_or_default();
        assert!(text.contains("reached game 2"), "{player}: {text:?}");
        assert!(
            text.contains("[harness: start 2 of the player]"),
            "{text:?}"
        );
        let row = one(&rows, player);
        assert_eq!(row["verdict"], verdict, "{row:?}");
    }
}
