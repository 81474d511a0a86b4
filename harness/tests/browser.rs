//! Replays as a person sees them: headless Chromium opens a replay page at its last move and
//! the score it shows must be the one in scores.csv; the page must fetch nothing.
//!
//! Without Chromium the tests fail (`scripts/test` installs Debian's `chromium`; `CHROMIUM`
//! names another binary), unless the switch `browser` leaves them out on purpose
//! (`HARNESS_SKIP=browser`, or the old `HARNESS_SKIP_BROWSER=1`): then each records why
//! (`support::skip`) and passes.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        let p = PathBuf::from(p);
        assert!(p.is_file(), "CHROMIUM={}: no such file", p.display());
        return Some(p);
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// Opens `url` headless, lets its script run, and returns the DOM it ends with.
fn dump_dom(browser: &Path, url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // No name resolves: nothing outside this machine could load even if asked.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(url)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium failed on {url}");
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The text of the element with this id in a dumped DOM.
fn text_of(dom: &str, id: &str) -> String {
    let start = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let open = start + dom[start..].find('>').unwrap() + 1;
    let close = open + dom[open..].find('<').unwrap();
    dom[open..close].to_string()
}

/// The browser to test with; `None` when the switch `browser` leaves the test out (recorded).
/// Fails without one.
fn browser() -> Option<PathBuf> {
    if support::skip::switched_off("browser") {
        support::skip::record_skip("browser", "headless chromium");
        return None;
    }
    Some(chromium().unwrap_or_else(|| {
        support::skip::missing(
            "browser",
            "chromium (or chromium-browser, google-chrome) on PATH",
            "install Debian's chromium (apt-get install chromium), or name a browser with \
             CHROMIUM=/path/to/browser",
        )
    }))
}

#[test]
fn chromium_shows_the_final_score_of_scores_csv_and_loads_nothing() {
    let Some(browser) = browser() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(root())
        .args([
            "--players",
            "players/linez-python",
            "players/chesspuzzle-python",
        ])
        .args(["--seeds", "1..2", "--threads", "2", "--results"])
        .arg(tmp.path())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let run = std::fs::canonicalize(tmp.path().join("latest")).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(root())
        .arg("replay")
        .arg(&run)
        .args(["--worst", "2"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let mut reader = csv::Reader::from_path(run.join("scores.csv")).unwrap();
    let mut checked = 0;
    for row in reader.records() {
        let row = row.unwrap();
        let (problem, player, seed, score, moves) = (&row[0], &row[1], &row[2], &row[3], &row[5]);
        let page = run.join(format!("replays/{problem}-{player}-{seed}.html"));
        let dom = dump_dom(&browser, &format!("file://{}#step=last", page.display()));
        let shown: f64 = text_of(&dom, "score").parse().expect("a number");
        assert_eq!(shown, score.parse::<f64>().unwrap(), "{}", page.display());
        assert_eq!(text_of(&dom, "move"), moves, "{}", page.display());
        assert!(dom.contains("<svg"), "the board is drawn");
        assert_eq!(
            text_of(&dom, "resources"),
            "0",
            "{} fetched something",
            page.display()
        );
        checked += 1;
    }
    assert_eq!(checked, 4);
    // The report opens too, with its charts.
    let dom = dump_dom(
        &browser,
        &format!("file://{}", run.join("report.html").display()),
    );
    assert!(dom.matches("<svg").count() >= 4);
}

/// Runs a shell-script player (`answers`: the command that prints its clicks) on ChessPuzzle
/// seed 3 with results under `tmp`; returns the replay page of its test.
fn chesspuzzle_replay(tmp: &Path, name: &str, answers: &str) -> PathBuf {
    let player = tmp.join(format!("{name}.sh"));
    std::fs::write(&player, format!("#!/bin/sh\n{answers}\ncat > /dev/null\n")).unwrap();
    std::fs::set_permissions(&player, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(root())
        .args(["--problem", "chesspuzzle", "--seeds", "3", "--players"])
        .arg(&player)
        .arg("--results")
        .arg(tmp.join("results"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let run = std::fs::canonicalize(tmp.join("results/latest")).unwrap();
    run.join(format!("replays/chesspuzzle-{name}-3.html"))
}

#[test]
fn chromium_draws_the_replay_of_a_game_whose_move_is_hostile_markup() {
    let Some(browser) = browser() else {
        return;
    };
    // One legal click, then `<!--<script>`: refused (WA), so its replay is written at once.
    let tmp = tempfile::tempdir().unwrap();
    let page = chesspuzzle_replay(tmp.path(), "markup", "printf '0 0\\n<!--<script>\\n'");
    let dom = dump_dom(&browser, &format!("file://{}#step=last", page.display()));
    // The page's script ran to its end: the board, the last move and the refusal are shown.
    assert_eq!(text_of(&dom, "move"), "1", "{dom}");
    assert_eq!(text_of(&dom, "score"), "0");
    assert!(dom.contains("<svg"), "the board is drawn");
    assert!(
        text_of(&dom, "error").contains("&lt;!--&lt;script&gt;"),
        "the refused move is shown as text: {}",
        text_of(&dom, "error")
    );
    assert_eq!(text_of(&dom, "resources"), "0");
}

#[test]
fn chromium_shows_the_cells_that_were_allowed_at_a_refused_click() {
    let Some(browser) = browser() else {
        return;
    };
    // Clicks (0, 0), then (0, 0) again: never allowed (the same cell), so refused (WA).
    let tmp = tempfile::tempdir().unwrap();
    let page = chesspuzzle_replay(tmp.path(), "twice", "printf '0 0\\n0 0\\n'");
    // Green outlines: the cells allowed after the first click, at that step and at the refusal.
    let green = |step: &str| {
        let dom = dump_dom(&browser, &format!("file://{}#step={step}", page.display()));
        dom.matches("stroke=\"#009E73\"").count()
    };
    let after_first = green("1");
    assert!(after_first > 0, "the first click allows some cells");
    assert_eq!(green("last"), after_first);
}

/// The `data-cells` of the board drawn in a dumped DOM (Linez: 81 digits).
fn cells_of(dom: &str) -> String {
    let start = dom.find("data-cells=\"").expect("a Linez board") + "data-cells=\"".len();
    dom[start..start + 81].to_string()
}

#[test]
fn chromium_steps_through_a_20000_move_linez_game_computed_in_the_page() {
    use harness::problem::linez::{Linez, LONG_GAME_FILE};
    use harness::problem::{CaseKey, Env, Problem};
    let Some(browser) = browser() else {
        return;
    };
    // The recorded long game, played again through a real run by a player that replays its
    // moves (the judge checks every one), to the move cap set at its length.
    let tmp = tempfile::tempdir().unwrap();
    let player = tmp.path().join("long");
    std::fs::create_dir(&player).unwrap();
    std::fs::write(
        player.join("player.toml"),
        "problem = \"linez\"\ncommand = [\"python3\", \"main.py\"]\n",
    )
    .unwrap();
    std::fs::copy(
        root().join("harness/tests/fixtures/linez-replay/main.py"),
        player.join("main.py"),
    )
    .unwrap();
    let recorded = root().join("testcases/linez").join(LONG_GAME_FILE);
    std::fs::copy(&recorded, player.join("moves.txt")).unwrap();
    let config = tmp.path().join("scoring.toml");
    std::fs::write(&config, "[problem.linez]\nmove-cap = 20000\n").unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(root())
        .args(["--problem", "linez", "--seeds", "1", "--players"])
        .arg(&player)
        .arg("--config")
        .arg(&config)
        .arg("--testcases")
        .arg(root().join("testcases"))
        .arg("--results")
        .arg(tmp.path().join("results"))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let run = std::fs::canonicalize(tmp.path().join("results/latest")).unwrap();
    let mut reader = csv::Reader::from_path(run.join("scores.csv")).unwrap();
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!((&row[4], &row[5]), ("OK", "20000"), "{row:?}");
    let page = run.join("replays/linez-long-1.html");
    let size = std::fs::metadata(&page).unwrap().len();
    assert!(size < 5_000_000, "the page is {size} bytes");

    // The frames the page computes from the moves and the judge's landings are the judge's
    // own boards and scores (frames.rs plays the judge one move at a time).
    let env = Env {
        testcases: root().join("testcases"),
        config: Default::default(),
        secret: None,
    };
    let (key, moves) = Linez.long_game(&env).unwrap().unwrap();
    assert_eq!(key, CaseKey::Seed(1));
    let reference = Linez.views().unwrap().frames(&key, &env, &moves).unwrap();
    assert_eq!(reference.len(), 20_001);
    let mut ready = Vec::new();
    for step in [0, 1, 2, 777, 5_000, 12_345, 19_999, 20_000] {
        let dom = dump_dom(&browser, &format!("file://{}#step={step}", page.display()));
        let frame = &reference[step];
        assert_eq!(text_of(&dom, "move"), step.to_string());
        let shown: f64 = text_of(&dom, "score").parse().expect("a number");
        assert_eq!(shown, frame["score"].as_f64().unwrap(), "step {step}");
        let cells: String = frame["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.to_string())
            .collect();
        assert_eq!(cells_of(&dom), cells, "step {step}");
        assert_eq!(text_of(&dom, "resources"), "0");
        ready.push(text_of(&dom, "ready-ms").parse::<u64>().unwrap());
    }
    // The last frame shows the judge's score of the run.
    let dom = dump_dom(&browser, &format!("file://{}#step=last", page.display()));
    assert_eq!(
        text_of(&dom, "score").parse::<f64>().unwrap(),
        row[3].parse::<f64>().unwrap()
    );
    // Opening it (computing 20,000 frames and drawing one) is quick; a loaded machine is
    // given room.
    let slowest = *ready.iter().max().unwrap();
    let _ = writeln!(
        std::io::stderr(),
        "20,000-move replay page: {size} bytes, opened in {ready:?} ms"
    );
    assert!(slowest < 5_000, "opened in {slowest} ms");
}
