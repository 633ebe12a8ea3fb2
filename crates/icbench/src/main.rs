//! icbench: the common benchmark for inter-core communication.
//!
//! `main` only parses, dispatches and turns an error into one line and an
//! exit code: 2 for bad input (the user can fix the command line), 1 for a
//! failure while working, 128 + the signal for a run a signal stopped (130
//! Ctrl-C, 143 SIGTERM, 129 SIGHUP), its finished cells kept.

mod claim;
mod cli;
mod cmd;
mod doctor;
mod error;
mod files;
mod meta;
mod say;
mod term;
use icbench_plan::units as sizes;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cmd::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            let code = error::exit_code(&e);
            // Exit code 0 here is a closed stdout (`icbench … | head`): no message.
            if code != 0 {
                crate::errln!("icbench: error: {}", error::one_line(&e));
            }
            ExitCode::from(code)
        }
    }
}
