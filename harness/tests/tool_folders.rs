//! A contest tool sees its folder as by hand (issue 38): a TopCoder tester that writes
//! `test/<seed>.in`, `test/<seed>.out` and a new folder beside itself, after the competitor
//! ran it once by hand (so `test/` is there already), gets the same scores as on a fresh
//! folder, in the namespace mode (as root: a copy per run; as an unprivileged user: an
//! overlay) and in process mode, and the tools folder is byte for byte what it was; and a
//! tester that dies while its player still runs is the tester's failure (its own words),
//! never the player's RE. The testers are `tests/fixtures/tool-shapes/` (see its README).

#[path = "support/containment.rs"]
mod containment;
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::tools::{by_seed, ToolsWorkspace};
use support::{expect_exit, scores};

/// Answers `2N`; then waits for more input and crashes at its end, as a player whose read
/// loop does not expect the end of its input.
const PLAYER: &str =
    "read n\necho $((n * 2))\nread more || { echo 'crashed at the end of input' >&2; exit 3; }\n";

struct Workspace {
    ws: ToolsWorkspace,
}

impl Workspace {
    /// Problem `files` (topcoder, `files-tester.sh`, its picture `picture.svg`) and
    /// problem `dying` (`dying-tester.sh`), each with player `<id>-double`.
    fn new() -> Workspace {
        let ws = ToolsWorkspace::new();
        for (id, tester) in [("files", "files-tester.sh"), ("dying", "dying-tester.sh")] {
            let pictures = if id == "files" {
                "pictures = [\"picture.svg\"]\n"
            } else {
                ""
            };
            let problem = format!(
                "shape = \"topcoder\"\nobjective = \"max\"\ntools = \"tools\"\njudge = [\"{tester}\", \"-exec\", \"{{player}}\", \"-seed\", \"{{seed}}\"]\n{pictures}judge-timeout = 30\n"
            );
            ws.fixture_tool(id, tester)
                .problem_toml(id, &problem)
                .player(&format!("{id}-double"), id, PLAYER);
        }
        Workspace { ws }
    }

    fn root(&self) -> &Path {
        self.ws.root()
    }

    fn tools(&self, id: &str) -> PathBuf {
        self.ws.tools(id)
    }

    /// The command of a run of `player` on `seeds` into `results/<name>`, with `more`.
    fn command(&self, player: &str, seeds: &str, name: &str, more: &[&str]) -> Command {
        let results = self.root().join("results").join(name);
        let mut cmd = self.ws.command(&[player], seeds, &results);
        cmd.args(more);
        cmd
    }

    fn run(&self, player: &str, seeds: &str, name: &str, more: &[&str]) -> (Output, PathBuf) {
        let out = self.command(player, seeds, name, more).output().unwrap();
        (out, self.root().join("results").join(name))
    }

    /// Runs the tester by hand in its own folder, as a competitor does first.
    fn by_hand(&self, seed: u64) {
        let player = self.root().join("players/files-double/main.sh");
        let out = Command::new("./files-tester.sh")
            .args(["-exec", &format!("sh {}", player.display()), "-seed"])
            .arg(seed.to_string())
            .current_dir(self.tools("files"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.contains(&format!("Score = {}.0", 2 * seed)), "{said}");
    }
}

/// Every entry of `dir` (relative path) with its type, mode and content.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (String, u32, Vec<u8>)> {
    use std::os::unix::fs::PermissionsExt;
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            let rel = entry.path().strip_prefix(dir).unwrap().to_path_buf();
            let mode = meta.permissions().mode();
            let (kind, bytes) = if meta.is_dir() {
                stack.push(entry.path());
                ("dir", Vec::new())
            } else if meta.file_type().is_symlink() {
                let to = std::fs::read_link(entry.path()).unwrap();
                ("link", to.display().to_string().into_bytes())
            } else {
                ("file", std::fs::read(entry.path()).unwrap())
            };
            all.insert(rel, (kind.to_string(), mode, bytes));
        }
    }
    all
}

/// (seed → (verdict, score)) of a run, and its picture of `seed`.
fn results_of(results: &Path, player: &str) -> BTreeMap<String, (String, String)> {
    by_seed(results, Some(player), |r| {
        (r["verdict"].clone(), r["score"].clone())
    })
}

fn picture(results: &Path, seed: u64) -> String {
    let path = results.join(format!(
        "latest/pictures/files/files-double/{seed}/picture.svg"
    ));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What a run on seeds 1..3 must give: OK, `2 × seed`, the tester's picture kept.
fn expect_played(out: &Output, results: &Path, what: &str) {
    expect_exit(out, 0);
    let got = results_of(results, "files-double");
    let want: BTreeMap<String, (String, String)> = (1..=3)
        .map(|s: u64| (s.to_string(), ("OK".to_string(), (2 * s).to_string())))
        .collect();
    assert_eq!(got, want, "{what}");
    assert_eq!(picture(results, 2), "<svg><text>4</text></svg>\n", "{what}");
}

#[test]
fn a_tester_that_writes_beside_itself_plays_as_on_a_fresh_folder_leaving_it_unchanged() {
    let ws = Workspace::new();
    let tools = ws.tools("files");
    let (out, fresh) = ws.run("files-double", "1..3", "fresh", &[]);
    expect_played(&out, &fresh, "on a fresh folder");
    assert!(!tools.join("test").exists() && !tools.join("vis").exists());
    // The competitor runs it by hand first: test/ and vis/ are in the tools folder now.
    ws.by_hand(1);
    ws.by_hand(7);
    assert_eq!(
        std::fs::read_to_string(tools.join("test/7.out")).unwrap(),
        "14\n"
    );
    let before = snapshot(&tools);
    for (name, more) in [("again", &[][..]), ("process", &["--sandbox", "off"][..])] {
        let (out, results) = ws.run("files-double", "1..3", name, more);
        expect_played(&out, &results, name);
        assert_eq!(
            results_of(&results, "files-double"),
            results_of(&fresh, "files-double")
        );
        assert!(
            snapshot(&tools) == before,
            "{name}: the tools folder changed"
        );
    }
}

#[test]
fn a_tester_that_writes_beside_itself_plays_as_by_hand_unprivileged() {
    if !support::needs_root("starts the harness as another user (setpriv)") {
        return;
    }
    let ws = Workspace::new();
    ws.by_hand(1);
    let uid = containment::free_uid(62_900);
    // The competitor's own folder: theirs, as the tools folder by hand.
    ws.ws.give_to(uid);
    let tools = ws.tools("files");
    let before = snapshot(&tools);
    for (name, more) in [("overlay", &[][..]), ("process", &["--sandbox", "off"][..])] {
        let harness = containment::open_harness();
        let inner = ws.command("files-double", "1..3", name, more);
        let out = ws.ws.as_user(uid, &harness, &inner).output().unwrap();
        let results = ws.root().join("results").join(name);
        expect_played(&out, &results, name);
        assert!(
            snapshot(&tools) == before,
            "{name}: the tools folder changed"
        );
    }
}

#[test]
fn a_tester_that_dies_while_its_player_runs_is_its_own_failure_never_re() {
    let ws = Workspace::new();
    for more in [&[][..], &["--sandbox", "off"][..]] {
        let name = if more.is_empty() { "box" } else { "process" };
        let (out, results) = ws.run("dying-double", "1..2", name, more);
        let rows = scores(&results);
        assert_eq!(
            rows.len(),
            2,
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for row in rows {
            let reason = &row["reason"];
            // The tester ran: its own words are the reason.
            assert!(
                reason.contains("java.io.FileNotFoundException: test/")
                    && reason.contains("exit status 1"),
                "{name}: {row:?}"
            );
            assert!(!reason.contains("crashed at the end"), "{name}: {row:?}");
            let want = if row["seed"] == "2" {
                // After the answer: the tool's failure once the player has spoken.
                &["WA"][..]
            } else {
                // Before it: not the player's doing (its answer may cross the tool's end).
                &["ERR", "WA"][..]
            };
            assert!(want.contains(&row["verdict"].as_str()), "{name}: {row:?}");
        }
        // The player did crash once its input ended (exit 3): the case a tool's death turned
        // into RE.
        let said = support::stderr_log(&results, "dying", "dying-double", "2");
        assert!(
            said.contains("crashed at the end of input"),
            "{name}: {said}"
        );
    }
}
