//! How the commands the harness prints for the user to run (`replay: ... replay RUN --seed
//! 3`, `to finish this run, ... --resume ID`) start the harness: as the user can type them,
//! whether or not `harness` is on PATH.
//!
//! `harness` when that name on PATH is this very program (installed with `cargo install
//! --path harness`, or a bundle's folder on PATH); otherwise the path of the running program:
//! relative to the current folder when it is inside it (`./target/release/harness` after
//! `cargo run --release -p harness --`, which the commands then need not rebuild), absolute
//! otherwise; quoted for a POSIX shell when it has to be. Reads the program's path and PATH,
//! nothing else.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The program of the printed commands (see the module doc), worked out once.
pub fn program() -> &'static str {
    static PROGRAM: OnceLock<String> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let exe = std::env::current_exe().ok();
        let cwd = std::env::current_dir().ok();
        let path = std::env::var_os("PATH");
        shown(exe.as_deref(), cwd.as_deref(), path.as_deref())
    })
}

/// [`program`] for this program path, current folder and PATH.
fn shown(exe: Option<&Path>, cwd: Option<&Path>, path: Option<&std::ffi::OsStr>) -> String {
    let Some(exe) = exe.and_then(|e| std::fs::canonicalize(e).ok()) else {
        return "harness".to_string();
    };
    let on_path = path
        .into_iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("harness"))
        .find(|p| p.is_file());
    if on_path.and_then(|p| std::fs::canonicalize(p).ok()) == Some(exe.clone()) {
        return "harness".to_string();
    }
    // From `/`, the absolute path is the shorter.
    let relative: Option<PathBuf> = cwd
        .and_then(|c| std::fs::canonicalize(c).ok())
        .filter(|c| c.parent().is_some())
        .and_then(|c| exe.strip_prefix(&c).ok().map(|r| Path::new(".").join(r)));
    quote(&relative.unwrap_or(exe).to_string_lossy())
}

/// `text` as one word of a POSIX shell: as it is when it has nothing the shell would read,
/// else in single quotes.
fn quote(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn the_program_is_harness_only_when_path_finds_this_very_binary() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let exe = root.join("target/release/harness");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        std::fs::write(&exe, "").unwrap();
        let other = root.join("bin/harness");
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, "").unwrap();
        let path = |dirs: &[&Path]| Some(std::env::join_paths(dirs).unwrap());
        let show = |cwd: &Path, p: Option<OsString>| shown(Some(&exe), Some(cwd), p.as_deref());
        // Not on PATH: the path, from the current folder when inside it.
        assert_eq!(
            show(&root, path(&[Path::new("/nonexistent")])),
            "./target/release/harness"
        );
        assert_eq!(show(Path::new("/"), None), exe.display().to_string());
        // Another `harness` on PATH is not this one.
        assert_eq!(
            show(&root, path(&[&root.join("bin")])),
            "./target/release/harness"
        );
        // This one on PATH, also through a link.
        assert_eq!(
            show(&root, path(&[&root.join("target/release")])),
            "harness"
        );
        std::fs::remove_file(&other).unwrap();
        std::os::unix::fs::symlink(&exe, &other).unwrap();
        assert_eq!(show(Path::new("/"), path(&[&root.join("bin")])), "harness");
    }

    #[test]
    fn a_path_the_shell_would_split_is_quoted() {
        assert_eq!(
            quote("./target/release/harness"),
            "./target/release/harness"
        );
        assert_eq!(quote("/home/a b/harness"), "'/home/a b/harness'");
        assert_eq!(quote("/tmp/it's/harness"), r"'/tmp/it'\''s/harness'");
    }
}
