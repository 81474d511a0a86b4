//! Shared helpers of the integration tests: compiling the hostile C fixture players of
//! `tests/fixtures/hostile/`, running the harness binary, reading `scores.csv` and logs,
//! finding processes a run left behind, and re-counting recorded games with their Python
//! scripts, the named switches that leave out a test needing an outside program
//! ([`skip`]), and the workspaces of contest-tool problems ([`tools`]). Included with
//! `mod support;` by the test files that need it; each test file uses only part of it.
#![allow(dead_code)]

pub mod in_process;
pub mod skip;
pub mod tools;
#[allow(unused_imports)]
pub use skip::{needs, needs_root};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The harness binary, started in the workspace root with no standard input.
pub fn harness() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
    cmd.current_dir(root()).stdin(Stdio::null());
    cmd
}

static COMPILE: Mutex<()> = Mutex::new(());

/// Compiles `tests/fixtures/hostile/<name>.c` (once per version of it and of the headers
/// beside it) with the system C compiler and returns the executable, `<dir>/<name>`, in a
/// folder of its own so it can be given to `--players` as an executable file (with
/// `--problem`). Panics with the compiler's message when it fails: a fixture that does not
/// build is a broken test.
pub fn compile_c(name: &str) -> PathBuf {
    let _guard = COMPILE.lock().unwrap_or_else(|e| e.into_inner());
    let src = root().join(format!("harness/tests/fixtures/hostile/{name}.c"));
    let text = std::fs::read(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    // The headers beside it count too: a fixture built from a stale header is a wrong test.
    let mut headers: Vec<PathBuf> = std::fs::read_dir(src.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "h"))
        .collect();
    headers.sort();
    let mut bytes = text.clone();
    for header in headers {
        bytes.extend(std::fs::read(header).unwrap());
    }
    let hash = bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    });
    // A fixture may ask for more compiler flags with a line `/* cflags: -static */`.
    let flags: Vec<String> = String::from_utf8_lossy(&text)
        .lines()
        .find_map(|l| l.trim().strip_prefix("/* cflags:"))
        .map(|rest| {
            rest.trim_end_matches("*/")
                .split_whitespace()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{name}-{hash:016x}"));
    let exe = dir.join(name);
    if exe.exists() {
        return exe;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let tmp = dir.join(format!("{name}.tmp"));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(&cc)
        .args(["-O1", "-Wall"])
        .args(&flags)
        .arg("-o")
        .arg(&tmp)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?} (install gcc): {e}"));
    assert!(
        out.status.success(),
        "{name}.c does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&tmp, &exe).unwrap();
    exe
}

/// Copies an executable into a fresh folder of `parent` under another name (so one fixture
/// can play as several players, and leftovers can be told apart by folder).
pub fn copy_as(exe: &Path, parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let dst = dir.join(name);
    std::fs::copy(exe, &dst).unwrap();
    dst
}

/// Writes an executable file (its folder made first).
pub fn write_exec(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A player folder `folder` of `problem` run as `sh main.sh`, `main.sh` being `script`.
pub fn sh_player(folder: &Path, problem: &str, script: &str) {
    std::fs::create_dir_all(folder).unwrap();
    std::fs::write(
        folder.join("player.toml"),
        format!("problem = \"{problem}\"\ncommand = [\"sh\", \"main.sh\"]\n"),
    )
    .unwrap();
    std::fs::write(folder.join("main.sh"), script).unwrap();
}

/// `scores.csv` of a results folder's latest run, one map from column to value per row.
pub fn scores(results: &Path) -> Vec<BTreeMap<String, String>> {
    let path = results.join("latest/scores.csv");
    let mut reader =
        csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .zip(r.unwrap().iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// The rows of one player.
pub fn rows_of<'a>(
    rows: &'a [BTreeMap<String, String>],
    player: &str,
) -> Vec<&'a BTreeMap<String, String>> {
    rows.iter().filter(|r| r["player"] == player).collect()
}

/// The kept stderr of one test of the latest run ("" when the player wrote none).
pub fn stderr_log(results: &Path, problem: &str, player: &str, case: &str) -> String {
    let path = results.join(format!("latest/logs/{problem}/{player}/{case}.stderr"));
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Panics with the harness's output unless it exited with `code`.
pub fn expect_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "harness exit status\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Live processes (not zombies) whose command line or executable mentions `needle` (a
/// fixture's unique folder): what a run left running.
pub fn processes_mentioning(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().to_string();
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        if state.starts_with('Z') || stat.is_empty() {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let exe = std::fs::read_link(entry.path().join("exe")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(needle) || exe.to_string_lossy().contains(needle) {
            found.push(format!("{pid}: {cmdline}"));
        }
    }
    found
}

/// Runs `count.py` of `dir` on copies of its transcripts and compares what it writes with the
/// `.expected` files of `dir`.
pub fn recount(dir: &Path) {
    let copy = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "transcript") {
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            std::fs::copy(&path, copy.path().join(&name)).unwrap();
            names.push(name);
        }
    }
    names.sort();
    assert!(!names.is_empty());
    let out = std::process::Command::new("python3")
        .arg(dir.join("count.py"))
        .args(&names)
        .current_dir(copy.path())
        .output()
        .expect("python3 runs (see the README's requirements)");
    assert!(
        out.status.success(),
        "count.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in names {
        let expected = name.replace(".transcript", ".expected");
        assert_eq!(
            std::fs::read_to_string(copy.path().join(&expected)).unwrap(),
            std::fs::read_to_string(dir.join(&expected)).unwrap(),
            "{expected}"
        );
    }
}

/// The cgroup folders of the run of harness `pid` still there (`harness-<pid>-<n>`, with
/// the folders of its tests and workers inside), in any hierarchy under /sys/fs/cgroup.
#[allow(dead_code)]
pub fn cgroup_folders_of(pid: u32) -> Vec<PathBuf> {
    let prefix = format!("harness-{pid}-");
    let mut found = Vec::new();
    let mut dirs = vec![PathBuf::from("/sys/fs/cgroup")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if !e.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                found.push(path);
            } else if path.components().count() < 8 {
                // The run's folders are in the harness's own group: a few levels down.
                dirs.push(path);
            }
        }
    }
    found
}

/// The folder a run's build of the contest's tools of problem `id` is in (the harness's
/// cache; never the contest's own folder), as the run's `logs/build.log` names it.
pub fn built_tools(results: &Path, id: &str) -> PathBuf {
    let log = std::fs::read_to_string(results.join("latest/logs/build.log")).unwrap_or_default();
    let line = log
        .lines()
        .rfind(|l| l.starts_with(&format!("{id}: ")) && l.contains(" the tools are built in "))
        .unwrap_or_else(|| panic!("no line of {id}'s built tools in the build log:\n{log}"));
    PathBuf::from(line.rsplit(" built in ").next().unwrap())
}

/// Every entry under `dir` (relative path) with a checksum of its content (`dir/` for a
/// folder): what a test compares to say a folder was left exactly as it was.
pub fn checksums(dir: &Path) -> BTreeMap<PathBuf, u64> {
    use std::hash::{Hash, Hasher};
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().to_path_buf();
            let mut h = std::collections::hash_map::DefaultHasher::new();
            if path.is_dir() && !path.is_symlink() {
                todo.push(path);
                out.insert(rel, 0);
            } else {
                std::fs::read(&path).unwrap_or_default().hash(&mut h);
                out.insert(rel, h.finish());
            }
        }
    }
    out
}
