//! The example contests' own tools (`testcases/tools-batch`, `tools-interactive`,
//! `tools-topcoder`) behave as their READMEs say, run by hand without the harness: each is
//! built, `gen` makes the same inputs for the same seeds (the shipped `tools/in/` included),
//! the tools score the shipped players as the test recomputes from the files, an invalid
//! answer gets its reason and the zero (or error) score, and the better player of each pair
//! is better. The harness's own tests of these problems compare their scores to these tools.
//!
//! The TopCoder-shaped tester needs a JDK (`java`, `javac`, `jar`): without one this test
//! fails, unless the `java` switch is on (`HARNESS_SKIP=java`), in which case it records
//! what it left out.

mod support;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn problem_dir(problem: &str) -> PathBuf {
    root().join("testcases").join(problem)
}

/// Runs `cmd` with `stdin` as its standard input; panics if it cannot start.
fn run(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let mut to = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // A program may end without reading all of it.
    let writer = std::thread::spawn(move || {
        let _ = to.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The number of the last `Score = X` line, as the harness reads it by default.
fn last_score(stream: &str) -> Option<f64> {
    stream
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("Score")?.trim_start();
            rest.strip_prefix('=')?.trim().parse::<f64>().ok()
        })
        .next_back()
}

/// Builds a Cargo `tools/` package into a target folder of this test's own (not the one in
/// the repository, which the harness's own runs use) once per test binary; returns the
/// folder of its release binaries.
fn build_tools(problem: &str) -> PathBuf {
    static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, bin)) = built.iter().find(|(p, _)| p == problem) {
        return bin.clone();
    }
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("contest-tools-{problem}"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(["build", "--release", "--locked", "--quiet", "--target-dir"])
        .arg(&target)
        .current_dir(problem_dir(problem).join("tools"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{problem}/tools does not build standalone:\n{}",
        text(&out.stderr)
    );
    let bin = target.join("release");
    built.push((problem.to_string(), bin.clone()));
    bin
}

/// The shipped inputs of seeds 0..99 are what `gen` makes of the shipped seeds.txt, with
/// `--dir D` and `--dir=D` alike and run twice; a seeds file's blank lines are skipped and
/// file N is its N-th seed; a bad line or a missing file is exit 1 with a message.
fn check_gen(problem: &str) {
    let bin = build_tools(problem);
    let tools = problem_dir(problem).join("tools");
    let seeds = std::fs::read_to_string(tools.join("seeds.txt")).unwrap();
    let listed: Vec<u64> = seeds.lines().map(|l| l.trim().parse().unwrap()).collect();
    assert_eq!(listed, (0..100).collect::<Vec<u64>>(), "seeds.txt is 0..99");
    let tmp = tempfile::tempdir().unwrap();
    for dir in ["--dir=first", "--dir second"] {
        let mut cmd = Command::new(bin.join("gen"));
        cmd.arg(tools.join("seeds.txt"))
            .args(dir.split(' '))
            .current_dir(tmp.path());
        let out = run(&mut cmd, b"");
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    for id in 0..100 {
        let name = format!("{id:04}.txt");
        let shipped = std::fs::read(tools.join("in").join(&name)).unwrap();
        for dir in ["first", "second"] {
            let made = std::fs::read(tmp.path().join(dir).join(&name)).unwrap();
            assert_eq!(
                made, shipped,
                "{problem}: {dir}/{name} differs from tools/in/{name}"
            );
        }
    }
    assert!(!tmp.path().join("first/0100.txt").exists());

    // Blank lines skipped; file N is the N-th seed listed, not the seed; `in` by default.
    std::fs::write(tmp.path().join("some.txt"), "5\n\n  7 \n").unwrap();
    let out = run(
        Command::new(bin.join("gen"))
            .arg("some.txt")
            .current_dir(tmp.path()),
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let made: Vec<Vec<u8>> = ["0000.txt", "0001.txt"]
        .iter()
        .map(|n| std::fs::read(tmp.path().join("in").join(n)).unwrap())
        .collect();
    assert_eq!(made[0], std::fs::read(tools.join("in/0005.txt")).unwrap());
    assert_eq!(made[1], std::fs::read(tools.join("in/0007.txt")).unwrap());
    assert!(!tmp.path().join("in/0002.txt").exists());

    std::fs::write(tmp.path().join("bad.txt"), "3\nseven\n").unwrap();
    for (file, says) in [
        ("bad.txt", "parse failed: seven"),
        ("none.txt", "no such file"),
    ] {
        let out = run(
            Command::new(bin.join("gen"))
                .args([file, "--dir", "bad"])
                .current_dir(tmp.path()),
            b"",
        );
        assert_eq!(out.status.code(), Some(1), "{problem}: gen {file}");
        assert!(text(&out.stderr).contains(says), "{}", text(&out.stderr));
    }
}

#[test]
fn batch_gen_makes_the_shipped_inputs_again() {
    check_gen("tools-batch");
}

#[test]
fn interactive_gen_makes_the_shipped_inputs_again() {
    check_gen("tools-interactive");
}

fn numbers(text: &str) -> Vec<i64> {
    text.split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect()
}

/// Coin Route's score, recomputed here from the files: the worth of the visited coins, or
/// None for a route longer than the budget.
fn coin_route_score(input: &str, output: &str) -> Option<i64> {
    let v = numbers(input);
    let (n, budget) = (v[0] as usize, v[1] as f64);
    let coin = |i: usize| (v[2 + 3 * i], v[3 + 3 * i], v[4 + 3 * i]);
    let o = numbers(output);
    let order: Vec<usize> = o[1..].iter().map(|&i| i as usize).collect();
    assert_eq!(order.len(), o[0] as usize);
    assert_eq!(order.iter().collect::<BTreeSet<_>>().len(), order.len());
    assert!(order.iter().all(|&i| i < n));
    let mut at = (500, 500);
    let mut length = 0.0;
    for stop in order
        .iter()
        .map(|&i| (coin(i).0, coin(i).1))
        .chain([(500, 500)])
    {
        length += (((stop.0 - at.0).pow(2) + (stop.1 - at.1).pow(2)) as f64).sqrt();
        at = stop;
    }
    (length <= budget + 1e-9).then(|| order.iter().map(|&i| coin(i).2).sum())
}

/// Runs vis on one input and output in a fresh folder; (exit status, stdout, stderr, the
/// folder, so the picture can be looked at).
fn vis(input: &Path, output: &str) -> (Option<i32>, String, String, tempfile::TempDir) {
    let bin = build_tools("tools-batch");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("out.txt"), output).unwrap();
    let out = run(
        Command::new(bin.join("vis"))
            .arg(input)
            .arg("out.txt")
            .current_dir(dir.path()),
        b"",
    );
    (out.status.code(), text(&out.stdout), text(&out.stderr), dir)
}

#[test]
fn batch_vis_scores_the_players_as_recomputed_and_the_better_one_is_better() {
    let tools = problem_dir("tools-batch").join("tools");
    let mut totals = Vec::new();
    for player in ["tools-batch-nearest", "tools-batch-insertion"] {
        let dir = root().join("players").join(player);
        let mut total = 0;
        for seed in 0..10 {
            let input = tools.join(format!("in/{seed:04}.txt"));
            let input_text = std::fs::read_to_string(&input).unwrap();
            let answer = run(
                Command::new("python3").arg("main.py").current_dir(&dir),
                input_text.as_bytes(),
            );
            assert!(
                answer.status.success(),
                "{player}: {}",
                text(&answer.stderr)
            );
            let answer = text(&answer.stdout);
            let (code, stdout, _, folder) = vis(&input, &answer);
            assert_eq!(code, Some(0));
            let score = last_score(&stdout).expect("a score line");
            let expected = coin_route_score(&input_text, &answer).expect("a valid route");
            assert_eq!(score, expected as f64, "{player} seed {seed}: {stdout}");
            assert!(score > 0.0, "{player} seed {seed} visits a coin");
            let picture = std::fs::read_to_string(folder.path().join("out.svg")).unwrap();
            assert!(picture.starts_with("<svg") && picture.contains("<polyline"));
            total += expected;
        }
        totals.push(total);
    }
    assert!(totals[1] > totals[0], "insertion beats nearest: {totals:?}");
}

#[test]
fn batch_vis_gives_an_invalid_answer_its_reason_and_score_zero() {
    let tools = problem_dir("tools-batch").join("tools");
    let input = tools.join("in/0000.txt");
    let input_text = std::fs::read_to_string(&input).unwrap();
    let n = numbers(&input_text)[0];
    let everything = format!(
        "{n}\n{}\n",
        (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(" ")
    );
    assert_eq!(coin_route_score(&input_text, &everything), None);
    let cases = [
        ("", "Unexpected EOF: expected K"),
        ("2\n0 0\n", "Duplicate coin: 0"),
        ("1\n999\n", "Out of range: coin 0 of the route = 999"),
        ("1\nx\n", "Parse error: coin 0 of the route is \"x\""),
        ("0\n5\n", "Extra output after the route: \"5\""),
        (everything.as_str(), "Route too long"),
    ];
    for (output, reason) in cases {
        let (code, stdout, _, _) = vis(&input, output);
        assert_eq!(code, Some(0), "{output:?}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.last(), Some(&"Score = 0"), "{output:?}: {stdout}");
        assert!(
            lines[..lines.len() - 1].iter().any(|l| l.contains(reason)),
            "{output:?}: {stdout}"
        );
    }
    // The fixture player that answers wrongly on purpose gets the same treatment.
    let wrong = root().join("harness/tests/fixtures/tool-players/tools-batch-wrong");
    let answer = run(
        Command::new("sh").arg("run.sh").current_dir(&wrong),
        input_text.as_bytes(),
    );
    let (_, stdout, _, _) = vis(&input, &text(&answer.stdout));
    assert!(stdout.contains("Duplicate coin: 0"), "{stdout}");
    assert_eq!(last_score(&stdout), Some(0.0));
    // The wrong number of arguments: usage on stderr, no score, exit 0 (as AtCoder's do).
    let out = run(
        &mut Command::new(build_tools("tools-batch").join("vis")),
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("Usage"));
    assert_eq!(last_score(&text(&out.stdout)), None);
}

/// Runs the tester with the player `player` (a command) on `input`.
fn tester(input: &[u8], player: &[&str], cwd: &Path) -> Output {
    let bin = build_tools("tools-interactive");
    run(
        Command::new(bin.join("tester"))
            .args(player)
            .current_dir(cwd),
        input,
    )
}

#[test]
fn interactive_tester_scores_the_players_as_recomputed_and_the_better_one_is_better() {
    let tools = problem_dir("tools-interactive").join("tools");
    let mut totals = Vec::new();
    for player in ["tools-interactive-scan", "tools-interactive-sieve"] {
        let dir = root().join("players").join(player);
        let mut total = 0.0;
        for seed in 0..10 {
            let input = std::fs::read_to_string(tools.join(format!("in/{seed:04}.txt"))).unwrap();
            let out = tester(input.as_bytes(), &["python3", "main.py"], &dir);
            let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
            assert!(out.status.success(), "{player} seed {seed}: {stderr}");
            // The transcript: the player's queries, then its answer naming every treasure.
            let lines: Vec<&str> = stdout.lines().collect();
            let queries = lines.iter().filter(|l| l.starts_with("? ")).count();
            assert_eq!(lines.len(), queries + 1, "{stdout}");
            let answer = numbers(lines[queries].strip_prefix("! ").expect("the answer last"));
            let v = numbers(&input);
            let named: BTreeSet<(i64, i64)> = answer.chunks(2).map(|p| (p[0], p[1])).collect();
            let buried: BTreeSet<(i64, i64)> = v[2..].chunks(2).map(|p| (p[0], p[1])).collect();
            assert_eq!(named, buried, "{player} seed {seed} finds every treasure");
            let score = last_score(&stderr).expect("a score line on stderr");
            assert_eq!(
                score,
                (queries + 1) as f64,
                "{player} seed {seed}: {stderr}"
            );
            assert!(stderr.contains(&format!("Queries = {queries}")));
            assert_eq!(last_score(&stdout), None, "the score is on stderr only");
            total += score;
        }
        totals.push(total);
    }
    assert!(
        totals[1] < totals[0],
        "sieve needs fewer queries: {totals:?}"
    );
}

#[test]
fn interactive_tester_gives_a_bad_reply_its_reason_and_score_zero() {
    let tools = problem_dir("tools-interactive").join("tools");
    let input = std::fs::read(tools.join("in/0000.txt")).unwrap();
    let (n, m) = (11, 1);
    assert_eq!(&numbers(&text(&input))[..2], &[n, m]);
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        ("read l; echo hello; exec sleep 1000", "Unknown line: hello"),
        (
            "read l; echo '? 11 0'; exec sleep 1000",
            "Out of range: the query's row = 11",
        ),
        (
            "read l; echo '? 1 1 1'; exec sleep 1000",
            "Illegal query: ? 1 1 1",
        ),
        (
            "read l; echo '! 1 1 2 2'; exec sleep 1000",
            "Illegal answer",
        ),
        ("read l; echo '! 3 3'; echo more", "Too many output"),
        ("read l", "Your program has terminated unexpectedly"),
        (
            "read l; i=0; while [ $i -le 121 ]; do echo '? 0 0'; read d; i=$((i+1)); done",
            "Too many queries (more than 121)",
        ),
    ];
    for (script, reason) in cases {
        let out = tester(&input, &["sh", "-c", script], tmp.path());
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{script}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.last(), Some(&"Score = 0"), "{script}: {stderr}");
        assert!(stderr.contains(reason), "{script}: {stderr}");
    }
    // A player that exits with a failure status: exit 1 and no score line at all.
    for player in [&["sh", "-c", "read l; exit 3"][..], &["sh", "run.sh"][..]] {
        let dir = if player[1] == "run.sh" {
            root().join("harness/tests/fixtures/tool-players/tools-interactive-crash")
        } else {
            tmp.path().to_path_buf()
        };
        let out = tester(&input, player, &dir);
        assert_eq!(out.status.code(), Some(1), "{player:?}");
        assert_eq!(last_score(&text(&out.stderr)), None, "{player:?}");
    }
    // The fixture that replies wrongly on purpose.
    let wrong = root().join("harness/tests/fixtures/tool-players/tools-interactive-wrong");
    let out = tester(&input, &["python3", "main.py"], &wrong);
    assert!(text(&out.stderr).contains("Out of range"));
    assert_eq!(last_score(&text(&out.stderr)), Some(0.0));
    // A command that cannot start: exit 1.
    let out = tester(&input, &["/nonexistent/player"], tmp.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("failed to execute the command"));
}

/// The TopCoder-shaped tester, built from Tester.java into a folder of this test's own; None
/// when there is no JDK and `HARNESS_SKIP` asks to skip it.
fn tester_jar() -> Option<PathBuf> {
    static JAR: OnceLock<Option<PathBuf>> = OnceLock::new();
    JAR.get_or_init(|| {
        // The `java` switch leaves the TopCoder-shaped tester out on purpose (recorded and
        // listed by scripts/test); a missing JDK otherwise fails the test.
        let jdk = [
            ("java", "default-jdk-headless"),
            ("javac", "default-jdk-headless"),
            ("jar", "default-jdk-headless"),
        ];
        if !support::needs("java", &jdk) {
            return None;
        }
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("contest-tools-topcoder");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("build")).unwrap();
        let source = problem_dir("tools-topcoder").join("Tester.java");
        for cmd in [
            Command::new("javac")
                .args(["-Xlint:all", "-Werror", "-d"])
                .arg(dir.join("build"))
                .arg(&source),
            Command::new("jar")
                .arg("cfe")
                .arg(dir.join("tester.jar"))
                .args(["Tester", "-C"])
                .arg(dir.join("build"))
                .arg("."),
        ] {
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "{cmd:?}:\n{}", text(&out.stderr));
        }
        Some(dir.join("tester.jar"))
    })
    .clone()
}

fn java_tester(jar: &Path, args: &[&str], cwd: &Path) -> Output {
    run(
        Command::new("java")
            .arg("-jar")
            .arg(jar)
            .args(args)
            .current_dir(cwd),
        b"",
    )
}

#[test]
fn topcoder_tester_scores_the_players_as_recomputed_and_the_better_one_is_better() {
    let Some(jar) = tester_jar() else { return };
    let inorder = root().join("players/tools-topcoder-inorder");
    let mut by_seed = Vec::new();
    let saved = tempfile::tempdir().unwrap();
    for seed in ["1", "2", "7"] {
        let args = [
            "-exec",
            "python3 main.py",
            "-seed",
            seed,
            "-novis",
            "-debug",
            "-saveSolInput",
            saved.path().to_str().unwrap(),
        ];
        let out = java_tester(&jar, &args, &inorder);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
        // The same seed, the same test and score.
        let saved_input = saved.path().join(format!("{seed}.in"));
        let input = std::fs::read_to_string(&saved_input).unwrap();
        assert_eq!(text(&java_tester(&jar, &args, &inorder).stdout), stdout);
        assert_eq!(std::fs::read_to_string(&saved_input).unwrap(), input);
        // The test the player was sent: N, C, N lines `w v`; -debug says N and C.
        let v = numbers(&input);
        let (n, capacity) = (v[0] as usize, v[1]);
        let items: Vec<(i64, i64)> = v[2..].chunks(2).map(|p| (p[0], p[1])).collect();
        assert_eq!(items.len(), n);
        assert!(
            stdout.contains(&format!("N = {n}\nC = {capacity}\n")),
            "{stdout}"
        );
        // The player's answer to that test, run by hand, scored here.
        let answer = run(
            Command::new("python3").arg("main.py").current_dir(&inorder),
            input.as_bytes(),
        );
        let chosen = numbers(&text(&answer.stdout));
        assert_eq!(chosen[0] as usize, chosen.len() - 1);
        let weight: i64 = chosen[1..].iter().map(|&i| items[i as usize].0).sum();
        let worth: i64 = chosen[1..].iter().map(|&i| items[i as usize].1).sum();
        assert!(weight <= capacity);
        let score_line = format!("Score = {worth}.0");
        assert_eq!(stdout.lines().last(), Some(score_line.as_str()), "{stdout}");
        by_seed.push(n);
    }
    assert_eq!(
        &by_seed[..2],
        &[10, 100],
        "seeds 1 and 2: the smallest and largest tests"
    );

    // Seeds 1..10 in one run: `Seed = S, Score = X` lines and a summary; the C++ player wins.
    let ratio = root().join("players/tools-topcoder-ratio");
    let build = Command::new("sh")
        .args([
            "-c",
            "mkdir -p target && exec c++ -O2 -std=c++17 -o target/main main.cpp",
        ])
        .current_dir(&ratio)
        .output()
        .unwrap();
    assert!(build.status.success(), "{}", text(&build.stderr));
    let mut totals = Vec::new();
    for (dir, exec) in [(&inorder, "python3 main.py"), (&ratio, "target/main")] {
        let out = java_tester(&jar, &["-exec", exec, "-seed", "1,10", "-novis"], dir);
        let stdout = text(&out.stdout);
        let scores: Vec<f64> = (1..=10)
            .map(|s| {
                let prefix = format!("Seed = {s}, Score = ");
                let line = stdout.lines().find(|l| l.starts_with(&prefix)).unwrap();
                line[prefix.len()..].parse().unwrap()
            })
            .collect();
        assert!(scores.iter().all(|&s| s > 0.0), "{stdout}");
        assert!(stdout.contains("Executed Cases: 10") && stdout.contains("Failed Cases: 0"));
        totals.push(scores.iter().sum::<f64>());
    }
    assert!(totals[1] > totals[0], "ratio beats in order: {totals:?}");
}

#[test]
fn topcoder_tester_gives_a_bad_answer_its_reason_and_the_error_score() {
    let Some(jar) = tester_jar() else { return };
    let fixtures = root().join("harness/tests/fixtures/tool-players");
    let tmp = tempfile::tempdir().unwrap();
    let cases: [(&Path, &str, &str); 5] = [
        (
            &fixtures.join("tools-topcoder-wrong"),
            "sh run.sh",
            "ERROR! Chosen item 0 is 1000000",
        ),
        (
            &fixtures.join("tools-topcoder-crash"),
            "sh run.sh",
            "ERROR! Solution process terminated before outputting the expected data.",
        ),
        (
            &fixtures.join("tools-topcoder-flood"),
            "sh run.sh",
            "[flood] is not an integer",
        ),
        // Split on whitespace: `echo` with the argument 1, which says K = 1 and ends.
        (tmp.path(), "echo 1", "terminated before outputting"),
        (tmp.path(), "sh -c exit", "terminated before outputting"),
    ];
    for (dir, exec, reason) in cases {
        let out = java_tester(&jar, &["-exec", exec, "-seed", "4", "-novis"], dir);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{exec}: {stdout}");
        assert!(stdout.contains(reason), "{exec}: {stdout}");
        assert_eq!(
            stdout.lines().last(),
            Some("Score = -1.0"),
            "{exec}: {stdout}"
        );
    }
    // The player's stderr is copied into the tester's output, where it can fake a score
    // line, unless -no: a harness must keep it out or read only the last score line.
    std::fs::write(
        tmp.path().join("liar.sh"),
        "echo 'Score = 999' >&2\nread n\necho 0\n",
    )
    .unwrap();
    let with = text(&java_tester(&jar, &["-exec", "sh liar.sh", "-novis"], tmp.path()).stdout);
    assert!(with.lines().any(|l| l == "Score = 999"), "{with}");
    assert_eq!(last_score(&with), Some(0.0));
    let without =
        text(&java_tester(&jar, &["-exec", "sh liar.sh", "-novis", "-no"], tmp.path()).stdout);
    assert_eq!(without.trim(), "Score = 0.0");
    // A thinking-time limit: TIMEOUT and the error score.
    let slow = java_tester(
        &jar,
        &["-exec", "sleep 1000", "-novis", "-timeLimit", "500"],
        tmp.path(),
    );
    let slow = text(&slow.stdout);
    assert!(
        slow.contains("TIMEOUT! Time limit of 500 ms exceeded."),
        "{slow}"
    );
    assert_eq!(last_score(&slow), Some(-1.0));
    // No -exec, a value without a key, a command that cannot start: exit 255.
    for args in [
        &["-seed", "1"][..],
        &["-exec", "x", "3"][..],
        &["-exec", "/nonexistent/player", "-novis"][..],
    ] {
        let out = java_tester(&jar, args, tmp.path());
        assert_eq!(out.status.code(), Some(255), "{args:?}");
        assert_eq!(last_score(&text(&out.stdout)), None, "{args:?}");
    }
}
