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
    let cmd = Cli::command();
    let mut out = Vec::new();
    let shell = match what {
        Generated::Man => {
            man(cmd, &mut out)?;
            return Ok(out);
        }
        Generated::Bash => Shell::Bash,
        Generated::Zsh => Shell::Zsh,
        Generated::Fish => Shell::Fish,
    };
    let mut cmd = without_hidden(cmd);
    clap_complete::generate(shell, &mut cmd, "icbench", &mut out);
    Ok(out)
}

/// The command as completions offer it: clap_complete lists hidden
/// subcommands too (bash offered the internal `__peer`, issue #29), so they
/// are left out of a copy with the program's name and version, the same
/// arguments and the public subcommands.
fn without_hidden(cmd: clap::Command) -> clap::Command {
    let public: Vec<clap::Command> =
        cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned().collect();
    clap::Command::new("icbench")
        .version(env!("CARGO_PKG_VERSION"))
        .args(cmd.get_arguments().cloned())
        .subcommands(public)
}

/// The one man page, icbench(1). clap_mangen's own subcommand section
/// points at a page per subcommand, icbench-run(1) and so on, which are not
/// shipped (issue #29); this one lists each subcommand with what it does
/// and where its options are, so the page refers to nothing missing.
fn man(cmd: clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    use roff::{Roff, bold, roman};
    let subs: Vec<(String, String)> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| {
            let about = s.get_about().or_else(|| s.get_long_about());
            (s.get_name().to_string(), about.map(|a| a.to_string()).unwrap_or_default())
        })
        .collect();
    let page = clap_mangen::Man::new(cmd);
    page.render_title(out)?;
    page.render_name_section(out)?;
    page.render_synopsis_section(out)?;
    page.render_description_section(out)?;
    page.render_options_section(out)?;
    let mut r = Roff::new();
    r.control("SH", ["COMMANDS"]);
    r.text([roman("Each command's options: "), bold("icbench COMMAND --help"), roman(".")]);
    for (name, about) in subs {
        r.control("TP", []);
        r.text([bold(format!("icbench {name}"))]);
        r.text([roman(about)]);
    }
    r.to_writer(out)?;
    page.render_version_section(out)
}

pub fn generate(a: &GenerateArgs) -> Result<ExitCode> {
    std::io::stdout().lock().write_all(&render(a.what)?)?;
    Ok(ExitCode::SUCCESS)
}
