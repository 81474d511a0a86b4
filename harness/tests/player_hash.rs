//! A player's hash covers the whole player: any file at any depth of a `player.toml` folder
//! (but build outputs and caches), its command, and an executable's bytes; and it stays the
//! same when nothing changed.

use std::path::{Path, PathBuf};

use harness::players::discover;

fn hash(path: &Path) -> String {
    let (players, _) = discover(
        &[path.to_path_buf()],
        Some("linez"),
        &["linez"],
        &mut builds(),
    )
    .unwrap();
    players[0].hash.clone()
}

fn write(path: PathBuf, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn folder_player(dir: &Path) -> PathBuf {
    let folder = dir.join("player");
    write(
        folder.join("player.toml"),
        "name = \"p\"\nproblem = \"linez\"\ncommand = [\"python3\", \"main.py\"]\n",
    );
    write(folder.join("main.py"), "import lib.helper\n");
    write(folder.join("lib/helper.py"), "X = 1\n");
    write(folder.join("lib/deep/er/data.txt"), "weights\n");
    folder
}

#[test]
fn a_change_in_any_subfolder_changes_the_hash_and_nothing_else_does() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = folder_player(tmp.path());
    let first = hash(&folder);
    assert_eq!(first.len(), 16);
    assert_eq!(hash(&folder), first, "touching nothing keeps it");

    // Build outputs and caches are left out.
    write(folder.join("__pycache__/main.cpython-311.pyc"), "cache");
    write(
        folder.join("lib/__pycache__/helper.cpython-311.pyc"),
        "cache",
    );
    write(folder.join("lib/stray.pyc"), "cache");
    write(folder.join("target/release/out"), "build");
    write(folder.join(".git/HEAD"), "ref: refs/heads/main\n");
    write(folder.join("node_modules/x/index.js"), "");
    assert_eq!(
        hash(&folder),
        first,
        "caches and build outputs are not the player"
    );

    // Rewriting a file with the same bytes keeps it (the hash is of contents).
    write(folder.join("lib/helper.py"), "X = 1\n");
    assert_eq!(hash(&folder), first);

    for (file, text) in [
        ("lib/helper.py", "X = 2\n"),
        ("lib/deep/er/data.txt", "weights2\n"),
        ("lib/new.py", ""),
    ] {
        let path = folder.join(file);
        let before = std::fs::read_to_string(&path).ok();
        write(path.clone(), text);
        assert_ne!(hash(&folder), first, "{file} changed");
        match before {
            Some(old) => write(path, &old),
            None => std::fs::remove_file(path).unwrap(),
        }
        assert_eq!(hash(&folder), first, "{file} back as it was");
    }
    // A file moved to another folder is another player.
    std::fs::rename(folder.join("lib/helper.py"), folder.join("helper.py")).unwrap();
    assert_ne!(hash(&folder), first, "a file moved");
}

#[test]
fn the_command_and_an_executable_bytes_are_covered() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = folder_player(tmp.path());
    let first = hash(&folder);
    write(
        folder.join("player.toml"),
        "name = \"p\"\nproblem = \"linez\"\ncommand = [\"python3\", \"-O\", \"main.py\"]\n",
    );
    assert_ne!(hash(&folder), first, "another command");

    // A program named by a path is hashed even inside an unhashed folder.
    write(folder.join("target/release/p"), "#!/bin/sh\necho 1\n");
    std::fs::set_permissions(
        folder.join("target/release/p"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    write(
        folder.join("player.toml"),
        "name = \"p\"\nproblem = \"linez\"\ncommand = [\"target/release/p\"]\n",
    );
    let built = hash(&folder);
    write(folder.join("target/release/p"), "#!/bin/sh\necho 2\n");
    assert_ne!(hash(&folder), built, "the program was rebuilt");

    let exe = tmp.path().join("exe.sh");
    write(exe.clone(), "#!/bin/sh\necho 1\n");
    std::fs::set_permissions(&exe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let first = hash(&exe);
    assert_eq!(hash(&exe), first);
    write(exe.clone(), "#!/bin/sh\necho 2\n");
    assert_ne!(hash(&exe), first, "an executable's bytes");
}

#[test]
fn run_toml_says_what_each_hash_covers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(&root)
        .args(["--players", "players/chesspuzzle-python", "--seeds", "1"])
        .arg("--results")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(tmp.path().join("latest/run.toml")).unwrap();
    let run: toml::Value = toml::from_str(&text).unwrap();
    let player = &run["problem"]["chesspuzzle"]["players"]["chesspuzzle-python"];
    let covers = player["hash-covers"].as_str().unwrap();
    assert!(
        covers.contains("every file under") && covers.contains("__pycache__/"),
        "{covers}"
    );
    assert_eq!(player["hash"].as_str().unwrap().len(), 16);
}

/// Builds as a run makes them (no Cargo player is built here).
fn builds() -> harness::build::Builds {
    harness::build::Builds::new(std::time::Duration::from_secs(600))
}

/// A Cargo player's hash is that of what defines it (its package's files, its workspace's
/// lock and profiles), not of its binary, whose bytes vary with the packages built with it.
#[test]
fn a_cargo_players_hash_follows_its_sources_not_its_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("cargo-player");
    write(
        folder.join("Cargo.toml"),
        "[package]\nname = \"cargo-player\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [package.metadata.harness]\nproblem = \"linez\"\n\n[workspace]\n",
    );
    write(folder.join("src/main.rs"), "fn main() {}\n");
    let first = hash(&folder);
    assert_eq!(hash(&folder), first, "nothing changed");

    // Other bytes in the binary (as another set of packages built together gives), with no
    // change of its sources: cargo sees it fresh and keeps it, the hash stays.
    let binary = folder.join("target/release/cargo-player");
    let mut bytes = std::fs::read(&binary).unwrap();
    bytes.extend_from_slice(b"different bytes");
    std::fs::write(&binary, bytes).unwrap();
    assert_eq!(
        hash(&folder),
        first,
        "the binary's bytes are not the player"
    );

    write(folder.join("src/main.rs"), "fn main() { println!(); }\n");
    let changed = hash(&folder);
    assert_ne!(changed, first, "a source change is a new version");
    let manifest = std::fs::read_to_string(folder.join("Cargo.toml")).unwrap();
    write(
        folder.join("Cargo.toml"),
        &format!("{manifest}\n[profile.release]\nopt-level = 1\n"),
    );
    assert_ne!(hash(&folder), changed, "a profile change is a new version");
}
