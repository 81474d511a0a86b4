//! The `harness` binary: parse the command line, run it, exit with its code. Everything else
//! is in the library (`harness::app`).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = harness::cli::Cli::parse();
    ExitCode::from(harness::app::main(cli))
}
