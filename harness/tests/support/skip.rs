//! Tests that need an outside program (headless Chromium, a Slurm cluster, GNU parallel over
//! ssh, a JDK) or root: each names a switch that leaves it out on purpose, and only then.
//!
//! `HARNESS_SKIP=browser,slurm` (commas or spaces; `scripts/test --skip KEY` sets it; the old
//! `HARNESS_SKIP_BROWSER=1` still means `browser`) leaves out the tests of those switches: such
//! a test records why (a line appended to the file `HARNESS_SKIP_LOG` names, which
//! `scripts/test` lists at the end of its run), says so on the real stderr, and returns. A test
//! whose program is missing while its switch is off fails, naming the package and the switch:
//! nothing is left out silently. The switches are those of `scripts/test --help`.

use std::io::Write;
use std::path::Path;

/// The variable naming the switches that are on.
pub const SKIP: &str = "HARNESS_SKIP";
/// The file a left-out test appends its line to (set by `scripts/test`).
pub const SKIP_LOG: &str = "HARNESS_SKIP_LOG";

/// Whether `HARNESS_SKIP` (or the old `HARNESS_SKIP_BROWSER=1`) turns `switch` on.
pub fn switched_off(switch: &str) -> bool {
    let listed = std::env::var(SKIP).is_ok_and(|v| {
        v.split(|c: char| c == ',' || c.is_whitespace())
            .any(|k| k == switch)
    });
    let old_browser =
        switch == "browser" && std::env::var_os("HARNESS_SKIP_BROWSER").is_some_and(|v| v == "1");
    listed || old_browser
}

/// The running test: libtest names each test's thread after it; the test binary otherwise.
fn test_name() -> String {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().to_string()))
        .map(|s| {
            s.rsplit_once('-')
                .map_or(s.clone(), |(name, _)| name.to_string())
        })
        .unwrap_or_default();
    match std::thread::current().name() {
        Some(name) if name != "main" => format!("{binary}::{name}"),
        _ => binary,
    }
}

/// Records that the running test is left out by `switch` (it needed `what`): a line in the
/// skip log, and a line on the real stderr (the runner captures `eprintln!` of passing tests).
pub fn record_skip(switch: &str, what: &str) {
    let line = format!("{switch}\t{}\t{what}", test_name());
    if let Some(log) = std::env::var_os(SKIP_LOG) {
        // One write of one short line with O_APPEND: lines of tests running at once stay whole.
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()));
        if let Err(e) = written {
            panic!(
                "cannot record the skip in {SKIP_LOG}={}: {e}",
                Path::new(&log).display()
            );
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "\n*** LEFT OUT on purpose ({SKIP}={switch}): {} (needs {what}) ***\n",
        test_name()
    );
}

/// Fails the running test: `what` is missing and `switch` is off. `install` says how to get it.
pub fn missing(switch: &str, what: &str, install: &str) -> ! {
    panic!(
        "{what} not found: {install} (scripts/test installs it when run as root); to leave \
         this test out on purpose: {SKIP}={switch} (scripts/test --skip {switch})"
    )
}

/// Whether `program` is on PATH, or is a path that exists.
pub fn on_path(program: &str) -> bool {
    Path::new(program).is_file()
        || std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// Whether the running test goes on: `false` (recorded) when `switch` is off; panics when one
/// of `programs` (name on PATH or path, Debian package) is missing; `true` otherwise.
pub fn needs(switch: &str, programs: &[(&str, &str)]) -> bool {
    let names: Vec<&str> = programs.iter().map(|(p, _)| *p).collect();
    if switched_off(switch) {
        record_skip(switch, &names.join(", "));
        return false;
    }
    for (program, package) in programs {
        if !on_path(program) {
            missing(
                switch,
                program,
                &format!("install Debian's {package} (apt-get install {package})"),
            );
        }
    }
    true
}

/// Whether the running test goes on as root (switch `root`): `false` (recorded) when the
/// switch is on; panics when not root; `true` as root. `why` says what needs root.
pub fn needs_root(why: &str) -> bool {
    if switched_off("root") {
        record_skip("root", &format!("root: {why}"));
        return false;
    }
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        missing(
            "root",
            &format!("root ({why})"),
            "run the tests as root (sudo -E scripts/test)",
        );
    }
    true
}
