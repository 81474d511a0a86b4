//! The `harness` binary: parse the command line, run it, exit with its code. Everything else
//! is in the library (`harness::app`).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // First, while this is the only thread: the key of secret seeds leaves the environment,
    // so no program the harness starts can inherit it.
    let secret = harness::secret::take_from_env();
    let cli = harness::cli::Cli::parse();
    ExitCode::from(harness::app::main(cli, secret))
}
