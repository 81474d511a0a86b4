use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = harness::cli::Cli::parse();
    ExitCode::from(harness::app::main(cli))
}
