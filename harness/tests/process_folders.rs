//! Process mode's host folder of a test (`harness-test-*`: its working folder, HOME and
//! TMPDIR): a folder its test left exactly as it was given goes to a later test of the run
//! (no new inodes on a busy disk); one its player touched in any way (a file or a folder
//! left, a file made and removed again, a mode changed through a descriptor) is removed, never handed on; and no
//! test ever sees what an earlier one left. Each player writes what it was given (its
//! folder's path and the entries of the four folders) on its stderr, which the run keeps:
//! the proof that it ran, checked before anything is judged.

#[path = "support/isolation.rs"]
mod isolation;
mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// What every player logs first: its folder's path, then each folder's entries.
const LOOK: &str = r#"{
  echo "test $(date +%s%N) $PWD"
  for d in "$PWD" "$HOME" "$TMPDIR" "$PWD/.."; do
    echo "entries $(ls -A "$d" 2>/dev/null | tr '\n' ' ')"
  done
} >&2
"#;

/// The players and what each does after looking (nothing, or leaves its folder changed).
const PLAYERS: [(&str, &str); 5] = [
    ("clean", ""),
    ("leaves-a-file", "echo left > \"$PWD/left-file\"\n"),
    ("leaves-a-folder", "mkdir \"$TMPDIR/left-folder\"\n"),
    (
        "makes-and-removes",
        "echo x > \"$HOME/gone\" && rm \"$HOME/gone\"\n",
    ),
    // Through a descriptor: a player's filter refuses chmod by path.
    (
        "changes-a-mode",
        "perl -e 'open(my $d, \"<\", $ENV{TMPDIR}) or die \"open: $!\"; chmod(0700, $d) or die \"fchmod: $!\"' && echo 'CHANGED mode' >&2\n",
    ),
];

/// One test as a player logged it.
#[derive(Debug)]
struct Seen {
    player: String,
    /// When it looked (ns), and its working folder.
    at: u128,
    pwd: String,
    /// The entries of its working folder, HOME, TMPDIR and the folder above, in one line each.
    entries: Vec<String>,
}

#[test]
fn a_folder_goes_to_a_later_test_only_as_it_was_given() {
    let dir = tempfile::tempdir().unwrap();
    let open = |p: &Path, mode: u32| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    open(dir.path(), 0o755);
    let mut folders = Vec::new();
    for (name, after) in PLAYERS {
        let folder = dir.path().join(name);
        support::sh_player(&folder, "chesspuzzle", &format!("{LOOK}{after}"));
        open(&folder, 0o755);
        folders.push(folder);
    }
    let results = dir.path().join("results");
    let mut cmd = support::harness();
    cmd.args([
        "--problem",
        "chesspuzzle",
        "--seeds",
        "1..8",
        "--threads",
        "1",
    ])
    .args(["--sandbox", "off", "--cgroup", "off", "--results"])
    .arg(&results)
    .arg("--players")
    .args(&folders);
    let out = isolation::output_within(&mut cmd, Duration::from_secs(300));
    assert!(
        out.status.code().is_some_and(|c| c == 0 || c == 1),
        "harness: {out:?}"
    );

    // Every test, in the order they ran (one thread: one after another).
    let mut order: Vec<Seen> = Vec::new();
    for (name, _) in PLAYERS {
        let log: String = (1..=8)
            .map(|seed| support::stderr_log(&results, "chesspuzzle", name, &seed.to_string()))
            .collect();
        let tests: Vec<&str> = log.split("test ").filter(|t| !t.is_empty()).collect();
        assert_eq!(tests.len(), 8, "{name} ran {} tests:\n{log}", tests.len());
        if name == "changes-a-mode" {
            // Its change is its proof: a folder it did not change would be given on.
            let changed = log.matches("CHANGED mode").count();
            assert_eq!(
                changed, 8,
                "{name} changed its mode {changed} times:\n{log}"
            );
        }
        for test in tests {
            let mut lines = test.lines();
            let (at, pwd) = lines.next().unwrap().split_once(' ').unwrap();
            let entries: Vec<String> = lines
                .filter(|l| l.starts_with("entries"))
                .map(|l| l.trim_start_matches("entries").trim().to_string())
                .collect();
            assert_eq!(entries.len(), 4, "{name}: {test}");
            order.push(Seen {
                player: name.to_string(),
                at: at.parse().unwrap(),
                pwd: pwd.to_string(),
                entries,
            });
        }
    }
    order.sort_by_key(|s| s.at);
    // Every test was given an untouched folder: nothing in its working folder, HOME and
    // TMPDIR, and nothing but those three in the folder above (which a root harness's player
    // may not list).
    for seen in &order {
        assert!(
            seen.entries[..3].iter().all(String::is_empty)
                && ["", "home tmp work"].contains(&seen.entries[3].as_str()),
            "a test was given a folder with something in it: {seen:?}"
        );
    }
    // A folder's uses, in order: only its last may be by a player that changed it.
    let mut uses: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for seen in &order {
        uses.entry(&seen.pwd).or_default().push(&seen.player);
    }
    for (pwd, players) in &uses {
        let (last, before) = players.split_last().unwrap();
        assert!(
            before.iter().all(|p| *p == "clean"),
            "{pwd} was given on after a player changed it: {players:?} (last: {last})"
        );
    }
    let reused = uses.values().filter(|p| p.len() > 1).count();
    assert!(
        reused > 0,
        "no folder was given to a second test although the clean player leaves them as they were: {uses:?}"
    );
}
