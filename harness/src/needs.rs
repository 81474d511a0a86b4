//! Which programs a command needs that this machine does not have, found before anything
//! runs: a player's run and build commands, and a contest's tools' build and judge.
//!
//! A command needs its program (an absolute path, or a bare name looked up on PATH with
//! [`crate::os::find_on_path`]), the interpreter of that program's `#!` line (`#!/usr/bin/env
//! python3` needs `python3` on PATH), and, for `sh -c SCRIPT`, the programs the script's
//! simple commands start (`mkdir -p target && exec c++ ...` needs `mkdir` and `c++`). The
//! script is read as a best guess: a word it cannot judge (a variable, a path made by an
//! earlier step) is not checked, so a missing program there still shows later, as the build's
//! own error. [`package`] names the Debian package that provides a missing program, for the
//! message. This module reads files and PATH; it runs nothing.

use std::path::{Path, PathBuf};

/// The programs `command` needs that are not here, in the order met, without repeats.
/// `program` is where the caller found `command[0]` by its own rules (a file of the player's
/// folder, of the tools folder, or on PATH), `None` when it found nothing there: a bare name
/// or an absolute path is then missing, while a relative path is not judged here (it is a
/// file the player or a build should make, and its absence is the caller's error).
pub(crate) fn missing(command: &[String], program: Option<&Path>) -> Vec<String> {
    let mut out = Vec::new();
    let Some(first) = command.first() else {
        return out;
    };
    match program {
        Some(file) => out.extend(interpreter_missing(file)),
        None if !first.contains('/') || Path::new(first).is_absolute() => out.push(first.clone()),
        None => {}
    }
    if let Some(script) = shell_script(command) {
        out.extend(script_missing(script));
    }
    let mut seen = Vec::new();
    out.retain(|p| {
        let new = !seen.contains(p);
        seen.push(p.clone());
        new
    });
    out
}

/// Where a bare name or an absolute path is on this machine (`None`: not there).
pub(crate) fn locate(program: &str) -> Option<PathBuf> {
    let path = Path::new(program);
    if path.is_absolute() {
        return path.is_file().then(|| path.to_path_buf());
    }
    crate::os::find_on_path(program)
}

/// The missing interpreter of `file`'s `#!` line, if it has one: its absolute path, or, for
/// `#!/usr/bin/env [-S] NAME`, NAME when it is not on PATH.
fn interpreter_missing(file: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(file)
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let interpreter = words.next()?;
    if locate(interpreter).is_none() {
        return Some(interpreter.to_string());
    }
    if Path::new(interpreter).file_name()? != "env" {
        return None;
    }
    // `env -S python3 -u`, `env PYTHONHASHSEED=0 python3`: the first other word.
    let name = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
    locate(name).is_none().then(|| name.to_string())
}

/// The script of `sh -c SCRIPT` (or bash, dash).
fn shell_script(command: &[String]) -> Option<&str> {
    let shell = Path::new(command.first()?).file_name()?.to_str()?;
    if !["sh", "bash", "dash"].contains(&shell) || command.get(1)? != "-c" {
        return None;
    }
    command.get(2).map(String::as_str)
}

/// The programs the simple commands of a shell script start that are not on PATH. Only
/// plain names are judged (letters, digits, `.`, `_`, `+`, `-`, with a letter): builtins,
/// keywords and the script's own functions (`name()`) are skipped, and so is any other
/// word (a path, a variable, a quote, a redirection: made by the script itself, or not
/// known before it runs). A name wrongly judged missing would keep a player out, so the
/// reading errs towards judging nothing.
fn script_missing(script: &str) -> Vec<String> {
    const SKIP: &[&str] = &[
        "exec", "command", "nohup", "time", "env", "then", "do", "else", "elif", "if", "while",
        "until", "!",
    ];
    const BUILTIN: &[&str] = &[
        "cd", "echo", "printf", "test", "[", "[[", "true", "false", "export", "set", "unset", ":",
        ".", "source", "exit", "return", "read", "shift", "local", "eval", "trap", "wait", "umask",
        "ulimit", "fi", "done", "esac", "case", "for", "in", "alias", "type", "pwd",
    ];
    // `name()` or `name ()`: a function of the script.
    let functions: Vec<&str> = script
        .match_indices("()")
        .filter_map(|(i, _)| script[..i].split_whitespace().next_back())
        .map(|w| w.trim_start_matches(['{', '(', ';', '&', '|']))
        .collect();
    let mut out = Vec::new();
    for simple in simple_commands(script) {
        let program = simple
            .split_whitespace()
            .find(|w| !SKIP.contains(w) && !is_assignment(w));
        let Some(program) = program else { continue };
        let plain = program
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'))
            && program.chars().any(|c| c.is_ascii_alphabetic())
            && !program.starts_with('-');
        if !plain || BUILTIN.contains(&program) || functions.contains(&program) {
            continue;
        }
        if crate::os::find_on_path(program).is_none() {
            out.push(program.to_string());
        }
    }
    out
}

/// The simple commands of a script: its text cut at `;`, `&&`, `||`, `|`, `&`, newlines,
/// parentheses, braces and backquotes outside quotes (an `&` of a redirection, `>&2` or
/// `&>`, is no cut).
fn simple_commands(script: &str) -> Vec<String> {
    let chars: Vec<char> = script.chars().collect();
    let (mut commands, mut current) = (Vec::new(), String::new());
    let mut quote = None;
    for (i, &c) in chars.iter().enumerate() {
        let cut = match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                false
            }
            (Some(_), _) => false,
            (None, '\'' | '"') => {
                quote = Some(c);
                false
            }
            (None, '&') => {
                let redirect = i > 0 && matches!(chars[i - 1], '>' | '<');
                !redirect && chars.get(i + 1) != Some(&'>')
            }
            (None, ';' | '|' | '\n' | '(' | ')' | '{' | '}' | '`') => true,
            (None, _) => false,
        };
        if cut {
            commands.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    commands.push(current);
    commands
}

/// `NAME=value`, a variable set for one command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The Debian package that provides `program` (a name or a path), for the programs the
/// shipped players and contests use and a few common others.
pub(crate) fn package(program: &str) -> Option<&'static str> {
    let name = Path::new(program).file_name()?.to_str()?;
    let package = match name {
        "python" => "python-is-python3",
        "c++" | "g++" => "g++",
        "cc" | "gcc" => "gcc",
        "clang" | "clang++" => "clang",
        "java" | "javac" | "jar" => "default-jdk-headless",
        "make" => "make",
        "node" | "nodejs" => "nodejs",
        "pypy3" => "pypy3",
        "ruby" => "ruby",
        "go" => "golang-go",
        "kotlinc" => "kotlin",
        "ghc" => "ghc",
        n if n == "python3" || n.starts_with("python3.") => "python3",
        _ => return None,
    };
    Some(package)
}

/// What a user reads about missing programs: `python3 not found (apt-get install python3)`;
/// programs no package is known for are only named.
pub(crate) fn describe(missing: &[String]) -> String {
    let mut packages: Vec<&str> = missing.iter().filter_map(|p| package(p)).collect();
    packages.dedup();
    let mut seen = Vec::new();
    packages.retain(|p| {
        let new = !seen.contains(p);
        seen.push(p);
        new
    });
    let names = missing.join(", ");
    match packages.is_empty() {
        true => format!("{names} not found"),
        false => format!("{names} not found (apt-get install {})", packages.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_script_needs_the_programs_of_its_simple_commands_but_not_builtins_or_paths() {
        let script = "mkdir -p build && CC=1 exec no-such-compiler-x -O2 main.cpp; cd t || \
                      ./configure | no-such-tool-y $X > out; echo done";
        let command = vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        let sh = locate("sh").expect("sh on PATH");
        assert_eq!(
            missing(&command, Some(&sh)),
            ["no-such-compiler-x", "no-such-tool-y"]
        );
    }

    #[test]
    fn quotes_and_redirections_are_not_commands() {
        let script = "echo 'no-such-a; no-such-b' >&2; echo \"x && no-such-c\" 2>&1 | \
                      no-such-d &> log & no-such-e";
        let command = vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        assert_eq!(missing(&command, None)[1..], ["no-such-d", "no-such-e"]);
        let script = "step() { no-such-f; }; step; helper () { :; }; helper 2>/dev/null";
        let command = vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        assert_eq!(missing(&command, None)[1..], ["no-such-f"]);
    }

    #[test]
    fn a_program_is_missing_by_name_or_absolute_path_but_a_relative_one_is_the_callers() {
        assert_eq!(
            missing(&words("no-such-python9 main.py"), None),
            ["no-such-python9"]
        );
        assert_eq!(
            missing(&words("/no/such/python9 main.py"), None),
            ["/no/such/python9"]
        );
        assert!(missing(&words("target/main"), None).is_empty());
    }

    #[test]
    fn a_shebang_needs_its_interpreter_or_the_program_env_starts() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("#!/no/such/python9\nprint(1)\n", Some("/no/such/python9")),
            (
                "#!/usr/bin/env no-such-python9 -u\n",
                Some("no-such-python9"),
            ),
            (
                "#!/usr/bin/env -S A=1 no-such-python9 -u\n",
                Some("no-such-python9"),
            ),
            ("#!/bin/sh\necho hi\n", None),
            ("#!/usr/bin/env sh\n", None),
            ("no shebang\n", None),
        ];
        for (i, (text, want)) in cases.iter().enumerate() {
            let file = dir.path().join(format!("p{i}"));
            std::fs::write(&file, text).unwrap();
            let got = missing(&[file.display().to_string()], Some(&file));
            let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn the_message_names_the_programs_and_the_packages_once() {
        let m = |p: &[&str]| describe(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            m(&["javac", "jar", "java"]),
            "javac, jar, java not found (apt-get install default-jdk-headless)"
        );
        assert_eq!(
            m(&["/usr/bin/python3", "c++"]),
            "/usr/bin/python3, c++ not found (apt-get install python3 g++)"
        );
        assert_eq!(m(&["frob"]), "frob not found");
    }
}
