//! `icbench generate`: the man page and the shell completions, rendered
//! from the clap definitions themselves (clap_mangen, clap_complete), so
//! they cannot drift from the program. The copies in `contrib/completions`
//! and `contrib/man` are what packaging installs; a test keeps them equal
//! to this output.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, GenerateArgs, Generated};

/// What `generate` prints for `what`.
pub fn render(what: Generated) -> Result<Vec<u8>> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    let shell = match what {
        Generated::Man => {
            clap_mangen::Man::new(cmd).render(&mut out)?;
            return Ok(out);
        }
        Generated::Bash => Shell::Bash,
        Generated::Zsh => Shell::Zsh,
        Generated::Fish => Shell::Fish,
    };
    clap_complete::generate(shell, &mut cmd, "icbench", &mut out);
    Ok(out)
}

pub fn generate(a: &GenerateArgs) -> Result<ExitCode> {
    std::io::stdout().lock().write_all(&render(a.what)?)?;
    Ok(ExitCode::SUCCESS)
}
