//! `harness-sandbox`: a test's supervisor, started by the harness as `harness-sandbox
//! __sandbox` (see `harness::sandbox::supervisor`). It does what `harness __sandbox` does, but
//! as a much smaller program it costs less to start once per test.

use std::process::ExitCode;

fn main() -> ExitCode {
    if std::env::args_os().nth(1).as_deref() == Some(harness::sandbox::SUPERVISOR_ARG.as_ref()) {
        harness::sandbox::supervisor::main();
    }
    eprintln!("harness-sandbox is started by the harness for each test; run `harness` instead");
    ExitCode::from(harness::exit::USAGE)
}
