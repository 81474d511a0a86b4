//! The `harness` binary: parse the command line, run it, exit with its code. Everything else
//! is in the library (`harness::app`). Started as `harness __sandbox` it is a test's
//! supervisor instead (see `harness::sandbox`), and as `harness __relay SOCKET` a contest
//! tester's player relay (`harness::sandbox::relay`), before any thread or argument parsing.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    if std::env::args_os().nth(1).as_deref() == Some(harness::sandbox::SUPERVISOR_ARG.as_ref()) {
        harness::sandbox::supervisor::main();
    }
    if std::env::args_os().nth(1).as_deref() == Some(harness::sandbox::relay::RELAY_ARG.as_ref()) {
        harness::sandbox::relay::main();
    }
    // First, while this is the only thread: the key of secret seeds leaves the environment
    // and the command line the kernel shows (the harness starts itself again without them),
    // so no program the harness starts can inherit or read it.
    let (args, secret) = harness::secret::take_keys();
    let cli = harness::cli::Cli::parse_from(args);
    ExitCode::from(harness::app::main(cli, secret))
}
