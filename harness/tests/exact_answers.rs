//! What the exact-answer problems accept: ASCII answers, with the documented tolerance only
//! (data in `tests/data/exact/`), judged on each of the three problems; and, through real
//! player processes, output limits and an answer written without reading the input.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use harness::config::ProblemConfig;
use harness::players::Player;
use harness::problem::{by_id, CaseKey, Env};
use harness::runner::{base_env, run_one, Containment, Suite, TestResult};
use harness::sandbox::{Isolation, Want};
use harness::testkit::scripted;
use harness::verdict::{Verdict, REASON_BYTES};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/exact")
        .join(name)
}

fn testcases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases")
}

/// One fixed test of each exact-answer problem, with its right answer.
fn cases() -> Vec<(&'static str, CaseKey, String)> {
    [
        ("game-ending", "example-0"),
        ("russian-checkers", "example-0"),
        ("simplified-chess", "sample-0"),
    ]
    .into_iter()
    .map(|(id, name)| {
        let answer =
            std::fs::read_to_string(testcases().join(id).join(format!("{name}.ans"))).unwrap();
        (id, CaseKey::Fixed(name.to_string()), answer)
    })
    .collect()
}

/// Judges `answer` in memory on a fixed test.
fn judge(id: &str, key: &CaseKey, answer: &str) -> harness::verdict::Outcome {
    let env = Env {
        testcases: testcases(),
        config: ProblemConfig::default(),
        secret: None,
    };
    let mut game = by_id(id).unwrap().case(key, &env).unwrap();
    game.play(&mut scripted(&[answer]))
}

/// The rows of a data file, comments and blank lines left out.
fn rows(name: &str) -> Vec<String> {
    std::fs::read_to_string(data(name))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn no_unicode_space_or_other_non_ascii_character_is_ever_accepted() {
    let chars: Vec<char> = rows("characters.txt")
        .iter()
        .map(|row| {
            let hex = row.split_whitespace().next().unwrap();
            let code = u32::from_str_radix(hex.strip_prefix("U+").unwrap(), 16).unwrap();
            char::from_u32(code).unwrap()
        })
        .collect();
    assert!(chars.len() >= 30, "the data file was read");
    assert!(chars.contains(&'\u{3000}') && chars.contains(&'\u{2028}'));
    for (id, key, answer) in cases() {
        // The right answer itself is accepted.
        assert_eq!(judge(id, &key, &answer).verdict, Verdict::Ok, "{id}");
        let body = answer.trim_end_matches('\n');
        for &c in &chars {
            let placed = [
                ("appended to the last line", format!("{body}{c}\n")),
                ("after the last newline", format!("{answer}{c}")),
                ("before the first line", format!("{c}{answer}")),
                ("as a last line", format!("{answer}{c}\n")),
            ];
            for (place, text) in placed {
                let outcome = judge(id, &key, &text);
                let what = format!("{id}: U+{:04X} {place}", c as u32);
                assert_ne!(outcome.verdict, Verdict::Ok, "{what}");
                assert_eq!(outcome.score, 0.0, "{what}");
                // The reason names the character (or control byte) and its line.
                let named = if c.is_ascii() {
                    format!("{:#04x}", c as u32)
                } else {
                    format!("U+{:04X}", c as u32)
                };
                assert!(
                    outcome.reason.contains(&named) && outcome.reason.contains("line "),
                    "{what}: {}",
                    outcome.reason
                );
            }
        }
    }
}

#[test]
fn the_documented_ascii_tolerance_is_ok_and_nothing_more() {
    let forms = rows("ascii-forms.txt");
    assert!(forms.len() >= 15, "the data file was read");
    for (id, key, answer) in cases() {
        let lines: Vec<&str> = answer.lines().collect();
        for row in &forms {
            let (verdict, rest) = row.split_once(' ').unwrap();
            let fields: Vec<String> = serde_json::Deserializer::from_str(rest)
                .into_iter::<String>()
                .collect::<Result<_, _>>()
                .unwrap();
            let [join, before, after] = &fields[..] else {
                panic!("bad row {row:?}");
            };
            let text = format!("{before}{}{after}", lines.join(join));
            let outcome = judge(id, &key, &text);
            assert_eq!(
                outcome.verdict.code(),
                verdict,
                "{id}: {text:?}: {outcome:?}"
            );
        }
    }
}

const TIME_LIMIT: f64 = 5.0;

fn script_player(dir: &Path, body: &str) -> Player {
    let path = dir.join("player.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    player(&path)
}

fn player(program: &Path) -> Player {
    Player {
        name: "p".to_string(),
        problem: "game-ending".to_string(),
        program: program.to_path_buf(),
        args: Vec::new(),
        cwd: program.parent().unwrap().to_path_buf(),
        source: program.to_path_buf(),
        hash: String::new(),
        env: Vec::new(),
        pass_env: Vec::new(),
        on_path: false,
        snapshot: None,
    }
}

/// The default containment of a run (the sandbox where the machine offers it).
fn containment() -> Containment {
    harness::sandbox::set_supervisor(Path::new(env!("CARGO_BIN_EXE_harness")));
    Containment {
        isolation: Isolation::prepare(Want::Auto, Want::Auto, &[])
            .expect("isolation")
            .into(),
        base_env: base_env(&[]),
        core_dumps: false,
    }
}

/// Plays one GameEnding test with a real process, under the default output limits.
fn run(player: &Player, testcases: PathBuf, case: &str) -> (TestResult, Duration) {
    let suite = Suite {
        problem: by_id("game-ending").unwrap(),
        env: Env {
            testcases,
            config: ProblemConfig {
                time_limit: TIME_LIMIT,
                grace: 0.5,
                memory_limit: 256,
                ..ProblemConfig::default()
            },
            secret: None,
        },
        cases: Vec::new(),
        players: Vec::new(),
        done: Default::default(),
    };
    let start = Instant::now();
    let result = run_one(&suite, &containment(), &CaseKey::Fixed(case.into()), player)
        .expect("not interrupted");
    (result, start.elapsed())
}

#[test]
fn a_real_player_padding_its_answer_with_unicode_or_raw_bytes_is_never_ok() {
    let dir = tempfile::tempdir().unwrap();
    // example-0's answer is "First player wins".
    for (bytes, verdict) in [
        ("First player wins\\n", Verdict::Ok),
        ("First player wins \\r\\n\\n", Verdict::Ok),
        ("First player wins\\343\\200\\200\\n", Verdict::WrongAnswer),
        (
            "First player wins\\n\\342\\200\\250\\n",
            Verdict::WrongAnswer,
        ),
        ("\\302\\240First player wins\\n", Verdict::WrongAnswer),
        ("First player wins\\200\\n", Verdict::ProtocolError),
        ("First player wins\\n\\377", Verdict::ProtocolError),
    ] {
        let p = script_player(dir.path(), &format!("cat > /dev/null\nprintf '{bytes}'"));
        let (r, _) = run(&p, testcases(), "example-0");
        assert_eq!(r.outcome.verdict, verdict, "{bytes}: {:?}", r.outcome);
    }
}

#[test]
fn a_one_line_60_mb_answer_is_cut_off_at_max_line_and_never_quoted_whole() {
    let dir = tempfile::tempdir().unwrap();
    let p = script_player(
        dir.path(),
        "cat > /dev/null\nhead -c 60000000 /dev/zero | tr '\\000' x",
    );
    let (r, elapsed) = run(&p, testcases(), "example-0");
    assert_eq!(r.outcome.verdict, Verdict::ProtocolError, "{:?}", r.outcome);
    assert_eq!(r.outcome.reason, "line longer than 65536 bytes");
    assert!(
        r.transcript.len() < 1000,
        "{} bytes kept",
        r.transcript.len()
    );
    assert!(elapsed < Duration::from_secs_f64(TIME_LIMIT), "{elapsed:?}");
}

#[test]
fn a_huge_answer_of_short_lines_gets_a_short_reason_and_a_bounded_transcript() {
    let dir = tempfile::tempdir().unwrap();
    // 20 MB of lines padded with zero-width spaces, under the output limit.
    let p = script_player(
        dir.path(),
        "cat > /dev/null\nyes 'First player wins\u{200b}\u{200b}\u{200b}' | head -c 19980000",
    );
    let (r, _) = run(&p, testcases(), "example-0");
    assert_eq!(r.outcome.verdict, Verdict::WrongAnswer, "{:?}", r.outcome);
    assert!(r.outcome.reason.contains("U+200B"), "{}", r.outcome.reason);
    assert!(r.outcome.reason.len() <= REASON_BYTES + 40);
    assert!(
        r.transcript.len() < 80 << 10,
        "{} bytes kept",
        r.transcript.len()
    );
    assert!(r.transcript.contains("more bytes of this message not kept"));
}

#[test]
fn an_answer_written_without_reading_the_input_is_judged() {
    let fixture = data("answers-without-reading.sh");
    // A small input: the harness may write it before or after the player closes its input.
    let (r, _) = run(&player(&fixture), testcases(), "example-0");
    assert_eq!(r.outcome.verdict, Verdict::Ok, "{:?}", r.outcome);
    assert_eq!(r.outcome.score, 1.0);
    // An input larger than a pipe holds: the harness is still writing it when the player
    // closes its input, so the write fails for sure (a broken pipe).
    let big = tempfile::tempdir().unwrap();
    let folder = big.path().join("game-ending");
    std::fs::create_dir(&folder).unwrap();
    let mut input = "3\n1\nb2\n".to_string();
    input.push_str(&"\n".repeat(1 << 20));
    std::fs::write(folder.join("big.in"), input).unwrap();
    std::fs::write(folder.join("big.ans"), "First player wins\n").unwrap();
    let (r, _) = run(&player(&fixture), big.path().to_path_buf(), "big");
    assert_eq!(r.outcome.verdict, Verdict::Ok, "{:?}", r.outcome);
    assert_eq!(r.outcome.score, 1.0);
}
