//! `harness build --out DIR`: a relocatable bundle of built players that runs with
//! `--players DIR/* --no-build` under the same names and hashes, and with the same scores,
//! as a run from the sources; `--no-build` refuses a player that needs a build.

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use support::{expect_exit, harness};

/// A Cargo player, a `player.toml` player with a build command (C++) and one without.
const PLAYERS: [&str; 3] = [
    "players/chesspuzzle-random",
    "players/chesspuzzle-cpp",
    "players/chesspuzzle-python",
];

/// (player, seed) -> (score, verdict, moves, hash) of a results folder's latest run.
fn outcomes(results: &Path) -> BTreeMap<(String, String), [String; 4]> {
    support::scores(results)
        .into_iter()
        .map(|r| {
            (
                (r["player"].clone(), r["seed"].clone()),
                [
                    r["score"].clone(),
                    r["verdict"].clone(),
                    r["moves"].clone(),
                    r["player_hash"].clone(),
                ],
            )
        })
        .collect()
}

#[test]
fn a_moved_bundle_runs_without_building_with_the_sources_names_hashes_and_scores() {
    let tmp = tempfile::tempdir().unwrap();
    let built = tmp.path().join("built");
    let out = harness()
        .args(["build", "--out"])
        .arg(&built)
        .arg("--players")
        .args(PLAYERS)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    // Relocatable: moved elsewhere before it runs.
    let bundle = tmp.path().join("elsewhere/bundle");
    std::fs::create_dir_all(bundle.parent().unwrap()).unwrap();
    std::fs::rename(&built, &bundle).unwrap();
    let mut folders: Vec<String> = std::fs::read_dir(&bundle)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| !n.starts_with('.'))
        .collect();
    folders.sort();
    assert_eq!(
        folders,
        [
            "chesspuzzle-cpp",
            "chesspuzzle-python",
            "chesspuzzle-random"
        ]
    );

    let from_bundle = tmp.path().join("from-bundle");
    let out = harness()
        .arg("--players")
        .args(folders.iter().map(|f| bundle.join(f)))
        .args(["--no-build", "--seeds", "1..6", "--results"])
        .arg(&from_bundle)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let from_source = tmp.path().join("from-source");
    let out = harness()
        .arg("--players")
        .args(PLAYERS)
        .args(["--seeds", "1..6", "--results"])
        .arg(&from_source)
        .output()
        .unwrap();
    expect_exit(&out, 0);
    let (a, b) = (outcomes(&from_bundle), outcomes(&from_source));
    assert_eq!(a.len(), 18);
    assert_eq!(a, b, "bundle vs source: names, scores or hashes differ");
}

#[test]
fn no_build_refuses_players_that_need_a_build_naming_them() {
    for player in ["players/chesspuzzle-random", "players/chesspuzzle-cpp"] {
        let tmp = tempfile::tempdir().unwrap();
        let out = harness()
            .args([
                "--players",
                player,
                "--no-build",
                "--seeds",
                "1",
                "--results",
            ])
            .arg(tmp.path())
            .output()
            .unwrap();
        expect_exit(&out, 2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(player) && err.contains("--no-build"),
            "{player}: {err}"
        );
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
