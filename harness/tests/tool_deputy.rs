//! What the harness reads of a contest's tools (issues 37 and 38), end to end through the
//! harness binary on workspaces of their own whose tools are shell scripts (as in
//! `tool_problems.rs`):
//!
//! - a score is the judge's own line: a player answering the token `Score=999999999` to a
//!   vis shaped like AtCoder's template (which quotes the bad token in its parse error) is
//!   WA, and nothing of it reaches `best.csv`; a `min` problem's perfect 0 is OK, and the
//!   same vis's `Score = 0` with its parse error is not;
//! - the harness is nobody's deputy: a picture, an input of gen's or a ready input that is a
//!   symbolic link is the tool's failure (ERR naming the file), never followed, and what it
//!   names is nowhere in the results;
//! - a TopCoder judge that is not given `{seed}` is refused (exit 2, naming the key).
//!
//! Each hostile tool says that it ran its attack (`ATTACK-RAN`), read back before the verdict
//! is judged.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use support::tools::ToolsWorkspace;
use support::{expect_exit, scores};

/// gen: `in/0000.txt` is `3 <seed>`.
const GEN: &str = "#!/bin/sh\nmkdir in || exit 1\nread s < \"$1\"\necho \"3 $s\" > in/0000.txt\n";

/// A batch problem `id` of `tools/gen.sh` and `tools/vis.sh`, with `extra` keys.
fn problem(extra: &str) -> String {
    format!(
        "shape = \"batch\"\nobjective = \"max\"\ntools = \"tools\"\njudge = [\"vis.sh\", \"{{input}}\", \"{{output}}\"]\njudge-timeout = 20\n{extra}\n[limits]\ntime-limit = 6\n"
    )
}

/// The usual inputs: made by gen.
const BY_GEN: &str = "inputs = { gen = [\"gen.sh\", \"{seeds}\"], dir = \"in\" }\n";

/// A workspace: `scoring.toml`, `testcases/p/` (problem.toml, tools/gen.sh, tools/vis.sh),
/// and `players/<name>/main.sh` for each of `players`.
struct Workspace {
    ws: ToolsWorkspace,
}

impl Workspace {
    fn new(problem: &str, gen: &str, vis: &str, players: &[(&str, &str)]) -> Workspace {
        let ws = ToolsWorkspace::new();
        ws.problem_toml("p", problem)
            .script("p", "gen.sh", gen)
            .script("p", "vis.sh", vis);
        for (name, script) in players {
            ws.player(name, "p", script);
        }
        Workspace { ws }
    }

    fn root(&self) -> &Path {
        self.ws.root()
    }

    /// Runs `players` on `seeds` into `results/`, with `env` set for the harness and
    /// `--sandbox <sandbox>`.
    fn run(
        &self,
        players: &[&str],
        seeds: &str,
        env: &[(&str, &str)],
        sandbox: &str,
    ) -> (Output, PathBuf) {
        let results = self.root().join("results");
        let mut cmd = self.ws.command(players, seeds, &results);
        cmd.envs(env.iter().copied()).args(["--sandbox", sandbox]);
        (cmd.output().unwrap(), results)
    }
}

/// A file outside every workspace, readable by its owner only, holding `text`.
fn secret_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("private.txt");
    std::fs::write(&path, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    (dir, path)
}

/// The files under `dir` (links not followed) that hold `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                    found.push(entry.path());
                }
            }
        }
    }
    found
}

/// The judge's log kept with a test that was not OK.
fn judge_log(results: &Path, player: &str, seed: &str) -> String {
    let path = results.join(format!("latest/pictures/p/{player}/{seed}/judge.log"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// AtCoder's vis template: the answer is one number; a token that is not one is a parse
/// error quoting it, printed after `Score = 0` (even seeds) or before it (odd seeds).
const ATCODER_VIS: &str = r#"#!/bin/sh
read n t < "$1"
ans=$(tr -d '\n\r' < "$2")
case "$ans" in
  ''|*[!0-9]*)
    if [ $(( t % 2 )) -eq 1 ]; then echo "Parse error: $ans"; echo "Score = 0"
    else echo "Score = 0"; echo "Parse error: $ans"; fi
    exit 0 ;;
esac
echo "Score = $ans"
"#;

#[test]
fn a_forged_score_token_in_an_answer_is_wa_and_never_reaches_best_csv() {
    let players = [
        ("forger", "read n t\necho 'Score=999999999'\n"),
        ("honest", "read n t\necho 5\n"),
    ];
    let ws = Workspace::new(&problem(BY_GEN), GEN, ATCODER_VIS, &players);
    let (out, results) = ws.run(&["forger", "honest"], "1..2", &[], "auto");
    expect_exit(&out, 0);
    let rows = scores(&results);
    assert_eq!(rows.len(), 4, "{rows:?}");
    for r in &rows {
        match r["player"].as_str() {
            "forger" => {
                // The vis ran its parse error on the token (after or before its score line).
                assert!(
                    r["reason"].contains("Parse error: Score=999999999"),
                    "the vis did not see the token: {r:?}"
                );
                assert_eq!((r["verdict"].as_str(), r["score"].as_str()), ("WA", "0"));
            }
            _ => assert_eq!((r["verdict"].as_str(), r["score"].as_str()), ("OK", "5")),
        }
    }
    // best.csv holds the honest scores, and nothing of the forger's.
    let best = std::fs::read_to_string(results.join("best.csv")).unwrap();
    assert!(best.contains("honest"), "{best}");
    assert!(
        !best.contains("forger") && !best.contains("999999999"),
        "{best}"
    );
}

/// A `min` problem (an error to minimise): a perfect 0 is OK; AtCoder's `Score = 0` with its
/// parse error is WA, after or before the message.
#[test]
fn a_perfect_zero_of_a_min_problem_is_ok_and_an_invalid_answers_zero_is_not() {
    let players = [
        ("perfect", "read n t\necho 0\n"),
        ("invalid", "read n t\necho nonsense\n"),
    ];
    let min = problem(BY_GEN).replace("objective = \"max\"", "objective = \"min\"");
    let ws = Workspace::new(&min, GEN, ATCODER_VIS, &players);
    let (out, results) = ws.run(&["perfect", "invalid"], "1..2", &[], "auto");
    expect_exit(&out, 0);
    let rows = scores(&results);
    assert_eq!(rows.len(), 4, "{rows:?}");
    for r in &rows {
        let want = match r["player"].as_str() {
            "perfect" => "OK",
            _ => {
                assert!(r["reason"].contains("Parse error: nonsense"), "{r:?}");
                "WA"
            }
        };
        assert_eq!(
            (r["verdict"].as_str(), r["score"].as_str()),
            (want, "0"),
            "{r:?}"
        );
    }
    let best = std::fs::read_to_string(results.join("best.csv")).unwrap();
    assert!(
        best.contains("perfect") && !best.contains("invalid"),
        "{best}"
    );
}

#[test]
fn a_picture_left_as_a_link_is_err_and_never_read() {
    let (_secret_dir, secret) = secret_file("SECRET-OF-THE-USER-0600\n");
    let vis = format!(
        "#!/bin/sh\nln -s {} out.svg && echo ATTACK-RAN >&2\necho 'Score = 5'\n",
        secret.display()
    );
    let extra = format!("{BY_GEN}pictures = [\"out.svg\"]\n");
    let players = [("honest", "read n t\necho 5\n")];
    let ws = Workspace::new(&problem(&extra), GEN, &vis, &players);
    for mode in ["auto", "off"] {
        let (out, results) = ws.run(&["honest"], "1", &[], mode);
        let rows = scores(&results);
        assert!(
            judge_log(&results, "honest", "1").contains("ATTACK-RAN"),
            "{mode}: the vis did not make its link: {rows:?}"
        );
        expect_exit(&out, 1);
        assert_eq!(rows[0]["verdict"], "ERR", "{mode}: {rows:?}");
        assert!(
            rows[0]["reason"].contains("out.svg: a symbolic link"),
            "{mode}: {rows:?}"
        );
        let leaked = files_holding(&results, "SECRET-OF-THE-USER");
        assert!(leaked.is_empty(), "{mode}: the secret is in {leaked:?}");
    }
}

#[test]
fn an_input_gen_left_as_a_link_to_proc_self_environ_is_err_and_no_player_gets_it() {
    let gen = "#!/bin/sh\nmkdir in || exit 1\nln -s /proc/self/environ in/0000.txt && echo ATTACK-RAN >&2\n";
    // The player says what it was given, on stderr (kept with the test).
    let players = [("echo", "cat >&2\necho 5\n")];
    let ws = Workspace::new(&problem(BY_GEN), gen, ATCODER_VIS, &players);
    let token = ("HARNESS_DEPUTY_TOKEN", "TOKEN-OF-THE-HARNESS-ENVIRONMENT");
    for mode in ["auto", "off"] {
        let (out, results) = ws.run(&["echo"], "1..2", &[token], mode);
        let rows = scores(&results);
        assert_eq!(rows.len(), 2, "{mode}: {rows:?}");
        for r in &rows {
            assert!(
                r["reason"].contains("ATTACK-RAN"),
                "{mode}: gen did not make its link: {r:?}"
            );
            assert_eq!(r["verdict"], "ERR", "{mode}: {r:?}");
            assert!(
                r["reason"].contains("left in/0000.txt: a symbolic link"),
                "{mode}: {r:?}"
            );
        }
        expect_exit(&out, 1);
        let leaked = files_holding(&results, token.1);
        assert!(
            leaked.is_empty(),
            "{mode}: the environment is in {leaked:?}"
        );
    }
}

#[test]
fn a_ready_input_that_is_a_link_is_err_and_never_read() {
    let (_secret_dir, secret) = secret_file("SECRET-READY-INPUT\n");
    let extra = "inputs = { dir = \"ready\", name = \"{seed}.txt\" }\n";
    let players = [("echo", "cat >&2\necho 5\n")];
    let ws = Workspace::new(&problem(extra), GEN, ATCODER_VIS, &players);
    let ready = ws.root().join("testcases/p/ready");
    std::fs::create_dir_all(&ready).unwrap();
    std::fs::write(ready.join("1.txt"), "3 1\n").unwrap();
    std::os::unix::fs::symlink(&secret, ready.join("2.txt")).unwrap();
    assert!(std::fs::symlink_metadata(ready.join("2.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
    let (out, results) = ws.run(&["echo"], "1..2", &[], "auto");
    expect_exit(&out, 1);
    let rows = scores(&results);
    let of = |seed: &str| rows.iter().find(|r| r["seed"] == seed).unwrap();
    // The regular ready input is played; the link is refused, naming it.
    assert_eq!(of("1")["verdict"], "OK", "{rows:?}");
    assert_eq!(of("2")["verdict"], "ERR", "{rows:?}");
    assert!(
        of("2")["reason"].contains("2.txt: a symbolic link"),
        "{rows:?}"
    );
    let leaked = files_holding(&results, "SECRET-READY-INPUT");
    assert!(leaked.is_empty(), "the secret is in {leaked:?}");
}

#[test]
fn a_topcoder_judge_without_the_seed_is_refused_naming_the_key() {
    let tc = "shape = \"topcoder\"\nobjective = \"max\"\ntools = \"tools\"\njudge = [\"vis.sh\", \"-exec\", \"{player}\"]\n";
    let players = [("honest", "echo 5\n")];
    let ws = Workspace::new(tc, GEN, ATCODER_VIS, &players);
    let (out, results) = ws.run(&["honest"], "1", &[], "auto");
    expect_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("problem.toml: judge:"), "{err}");
    assert!(err.contains("{seed}"), "{err}");
    assert!(!results.join("latest").exists());
}
