//! The command line: clap definitions only. Values are checked and resolved
//! (specs parsed, CPUs checked against the machine) by the commands, so that
//! every bad value gets a message naming it and what is allowed.
//!
//! This file holds the program and its commands; the arguments live beside
//! the commands' concerns: [`run`] what measures links (and the plan and
//! doctor that prepare it), [`stored`] what reads and writes stored runs,
//! [`rt`] the realtime and on-chip measurements, [`remote`] remote cores.

mod remote;
mod rt;
mod run;
mod stored;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use remote::*;
pub use rt::*;
pub use run::*;
pub use stored::*;

#[derive(Debug, Parser)]
#[command(
    name = "icbench",
    version,
    about = "The common benchmark for inter-core communication",
    long_about = "icbench measures how two cores talk: round-trip latency and throughput of every \
                  local link between two CPUs of this Linux (shared memory, pipes, sockets, POSIX \
                  queues, netlink, a pty), with the physical floor measured in the same run. Every \
                  run is kept in an SQLite file (icbench.db) so it can be shown again.",
    after_help = "Start with `icbench run`; `icbench runs` lists what is stored and \
                  `icbench show latest` prints a run again.\n\n\
                  Exit status: 0 done; 1 a failure while working (the message says what to \
                  do), or a run in which no cell could be measured; 2 bad input (a value, a file, a run another process measures); \
                  128 + the signal for a run that Ctrl-C (130), SIGTERM (143) or SIGHUP (129) \
                  stopped, its finished cells kept (`icbench run --resume latest` goes on)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree
    /// for tests.
    #[arg(
        long,
        global = true,
        env = "ICBENCH_SYSFS_ROOT",
        default_value = "/sys",
        value_name = "DIR",
        help_heading = "Global options"
    )]
    pub sysfs_root: PathBuf,
    /// Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*).
    #[arg(
        long,
        global = true,
        env = "ICBENCH_DEV_ROOT",
        default_value = "/dev",
        value_name = "DIR",
        help_heading = "Global options"
    )]
    pub dev_root: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure links between two CPUs and store the run.
    Run(RunArgs),
    /// Check a plan file: expand it, show its cells, order and estimated
    /// duration, or name the line of what is wrong.
    #[command(subcommand)]
    Plan(PlanCommand),
    /// List the runs in the results database.
    Runs(RunsArgs),
    /// Label a stored run (as `run --label` does), or take its label away.
    Label(LabelArgs),
    /// Print a stored run again, from the database alone.
    Show(ShowArgs),
    /// Fit t(n) = a + b·n per link and pattern: fixed cost, bandwidth, n½.
    Model(ModelArgs),
    /// Compare runs (or links of one run): medians, ratio with CI, significance.
    Compare(CompareArgs),
    /// Which factors matter: main effects, interactions and the share of
    /// variation each explains, for latency and bandwidth (Jain 1991).
    Effects(EffectsArgs),
    /// Write a run's cells as CSV, JSON or HdrHistogram percentile text.
    Export(ExportArgs),
    /// Store another tool's results as a run (the STM32MP1 rpmsg test clients' logs, xmit-p, ADI's
    /// tables, TI, cyclictest, CSV).
    Import(ImportArgs),
    /// Write a self-contained HTML report (SVG figures, no network) of runs.
    Report(ReportArgs),
    /// Write runs into one file others can check and re-import: every
    /// block, the floor, the plan, provenance, and a SHA-256 of it all.
    Bundle(BundleArgs),
    /// Write a static site comparing boards from bundles: an index of
    /// boards × links × sizes with repeat intervals and verdicts, and a
    /// page per bundle; it opens from the file system.
    Site(SiteArgs),
    /// Measure only the floor: cache-line, two-line and 64 B slot round
    /// trips, memcpy bandwidth, and pipe and unix against bare loops.
    Floor(FloorArgs),
    /// List the link kinds, and the rpmsg devices and remote processors
    /// this machine offers, with the spec to use for each.
    Links,
    /// Timer wake-up latency, as cyclictest measures it (rt-tests options).
    Timer(TimerArgs),
    /// Cross-core wake-up latency through a blocking primitive.
    Wakeup(WakeupArgs),
    /// Interrupt latency through a GPIO loopback: an output line wired to
    /// an input line, timed by the kernel's edge timestamps (what an
    /// oscilloscope on both pins would measure, in software).
    Irq(IrqArgs),
    /// Two cores of one microcontroller measured on-chip, on a timer both
    /// read, driven through the initiator core's serial link.
    Chip(ChipArgs),
    /// Bind or unbind an rpmsg channel to the rpmsg_char driver (sysfs).
    #[command(subcommand)]
    Rpmsg(RpmsgCommand),
    /// Remote processors (remoteproc sysfs): list, status, start, stop, load.
    #[command(subcommand)]
    Remote(RemoteCommand),
    /// Check what on this machine affects measurements (governor, isolated
    /// CPUs, RT throttling, SCHED_FIFO and mlock, SMT, PREEMPT_RT, rpmsg),
    /// and what to change.
    Doctor(DoctorArgs),
    /// Copy every run of other icbench databases (a board's, a colleague's)
    /// into this one, each with where it came from; a run already here is
    /// not copied again.
    Merge(MergeArgs),
    /// Print the man page or a shell's completions, from these very
    /// definitions (the release tarball and the Yocto recipe install them).
    Generate(GenerateArgs),
    /// (internal) The peer end of a local link, started by `icbench run`.
    #[command(name = "__peer", hide = true)]
    Peer(PeerArgs),
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// man (roff, section 1), or completions for bash, zsh or fish.
    #[arg(value_enum)]
    pub what: Generated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Generated {
    Man,
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Args)]
pub struct DbArgs {
    /// Results database (SQLite); `run`, `import`, `timer` and `wakeup`
    /// create it, the other commands only read it.
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,
    /// Print JSON instead of tables (with a schema_version).
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every (sub)command's long help, with its path (`icbench run`).
    fn every_help(cmd: &mut clap::Command, path: &str, out: &mut Vec<(String, String)>) {
        let path = format!("{path} {}", cmd.get_name()).trim().to_string();
        out.push((path.clone(), cmd.render_long_help().to_string()));
        for sub in cmd.get_subcommands_mut() {
            every_help(sub, &path, out);
        }
    }

    /// Issue #29 item 6: help a stranger can read — no pointers into the
    /// project's own papers and issues ("seed 000", "reference 004",
    /// "issue #16"), which a user has never seen.
    #[test]
    fn no_help_speaks_of_the_projects_own_documents() {
        let mut helps = Vec::new();
        every_help(&mut Cli::command(), "", &mut helps);
        assert!(helps.len() > 20, "{} commands", helps.len());
        for (path, text) in &helps {
            let lower = text.to_lowercase();
            for (word, next) in
                [("seed ", "0123456789"), ("reference ", "0123456789"), ("issue ", "#")]
            {
                let found = lower.match_indices(word).any(|(i, _)| {
                    lower[i + word.len()..].chars().next().is_some_and(|c| next.contains(c))
                });
                assert!(!found, "`{path} --help` speaks of the project's own documents:\n{text}");
            }
        }
    }
}
