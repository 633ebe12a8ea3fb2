//! The command line: clap definitions only. Values are checked and resolved
//! (specs parsed, CPUs checked against the machine) by the commands, so that
//! every bad value gets a message naming it and what is allowed.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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
                  `icbench show latest` prints a run again."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure links between two CPUs and store the run.
    Run(RunArgs),
    /// List the runs in the results database.
    Runs(DbArgs),
    /// Print a stored run again, from the database alone.
    Show(ShowArgs),
    /// Fit t(n) = a + b·n per link and pattern: fixed cost, bandwidth, n½.
    Model(ModelArgs),
    /// Compare runs (or links of one run): medians, ratio with CI, significance.
    Compare(CompareArgs),
    /// Write a run's cells as CSV, JSON or HdrHistogram percentile text.
    Export(ExportArgs),
    /// Store another tool's results as a run (seed logs, xmit-p, TI, cyclictest, CSV).
    Import(ImportArgs),
    /// Write a self-contained HTML report (SVG figures, no network) of runs.
    Report(ReportArgs),
    /// Measure only the floor: cache-line round trip and memcpy bandwidth.
    Floor(FloorArgs),
    /// List the link kinds and the spec to use for each.
    Links,
    /// (internal) The peer end of a local link, started by `icbench run`.
    #[command(name = "__peer", hide = true)]
    Peer(PeerArgs),
}

#[derive(Debug, Args)]
pub struct DbArgs {
    /// Results database (SQLite); created if missing.
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,
    /// Print JSON instead of tables (with a schema_version).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Run number, or `latest`.
    #[arg(default_value = "latest")]
    pub run: String,
    /// Print every statistic of every cell (count, min, mean, stddev, p50,
    /// p90, p99, p99.9, max, 95 % CIs of mean and median, outliers).
    #[arg(long)]
    pub stats: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Run number, or `latest`.
    #[arg(default_value = "latest")]
    pub run: String,
    /// Only this link (as stored, e.g. `shm?wait=futex`); repeat for several.
    #[arg(long = "link", short = 'L', value_name = "SPEC")]
    pub links: Vec<String>,
    /// Only this pattern: pingpong, stream or bulk.
    #[arg(long, short = 'p', value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Also predict the time at this size (e.g. 8K).
    #[arg(long, value_name = "SIZE")]
    pub predict: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One line per cell with every statistic.
    Csv,
    /// The run's view, as `show --json` prints it.
    Json,
    /// Each latency histogram as HdrHistogram's percentile distribution (µs).
    Hgrm,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Run number, or `latest`.
    #[arg(default_value = "latest")]
    pub run: String,
    #[arg(long, short = 'f', value_enum)]
    pub format: ExportFormat,
    /// Write to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Results database (SQLite).
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The file to import.
    pub file: PathBuf,
    /// Its format: seed-tty, seed-netlink, seed-table, xmit-p, ti-histogram,
    /// cyclictest-json, cyclictest-hist or csv.
    #[arg(long, short = 'f', value_name = "FORMAT")]
    pub format: String,
    /// File the cells under this link name (each format has a default).
    #[arg(long, short = 'L', value_name = "NAME")]
    pub link: Option<String>,
    /// Message size the file does not record (xmit-p's -s, TI's -m), e.g. 496.
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Runs to report (numbers or `latest`); with several, a comparison
    /// section compares each with the first.
    #[arg(default_value = "latest", value_name = "RUN")]
    pub runs: Vec<String>,
    /// The HTML file to write.
    #[arg(long, short = 'o', default_value = "report.html", value_name = "FILE")]
    pub output: PathBuf,
    /// Also write each figure as its own SVG file into this directory.
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    /// Results database (SQLite).
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Runs to compare (numbers or `latest`); the first is the baseline.
    /// With one run, give two or more --link to compare links within it.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// With one run: a link to compare; the first is the baseline.
    #[arg(long = "link", short = 'L', value_name = "SPEC")]
    pub links: Vec<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PeerKind {
    /// A separate process: the icbench binary re-executed, pinned to its CPU.
    Process,
    /// A thread of this process, pinned to its CPU.
    Thread,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PatternArg {
    /// Round trip per message, echo checked byte for byte.
    Pingpong,
    /// A window of messages in flight; throughput.
    Stream,
}

#[derive(Debug, Args)]
pub struct CpuArgs {
    /// The two CPUs: host end first, peer second (e.g. `--cpus 0,1`).
    /// Default: the first two online CPUs this process may use.
    #[arg(long, value_name = "A,B")]
    pub cpus: Option<String>,
}

#[derive(Debug, Args)]
pub struct FloorArgs {
    #[command(flatten)]
    pub cpus: CpuArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// A link to measure; repeat for several. Default: every local link.
    /// Kinds: shm, pipe, unix, seqpacket, mq, tcp, netlink, pty
    /// (`icbench links` shows their parameters, e.g. `shm?wait=futex`).
    #[arg(long = "link", short = 'L', value_name = "SPEC")]
    pub links: Vec<String>,

    /// A pattern to run; repeat for several. Default: pingpong and stream.
    #[arg(long = "pattern", short = 'p', value_enum, value_name = "PATTERN")]
    pub patterns: Vec<PatternArg>,

    /// Message sizes: a list and/or log2 sweeps, binary units
    /// (e.g. `64,4K` or `1-64K`).
    #[arg(long, short = 's', default_value = "1-64K", value_name = "SIZES")]
    pub sizes: String,

    #[command(flatten)]
    pub cpus: CpuArgs,

    /// Where the peer end runs.
    #[arg(long, value_enum, default_value = "process")]
    pub peer: PeerKind,

    /// Run both ends under SCHED_FIFO at this priority (1-99).
    #[arg(long, value_name = "PRIO")]
    pub fifo: Option<u8>,

    /// Lock all memory (mlockall) so page faults cannot land in a measurement.
    #[arg(long)]
    pub mlock: bool,

    /// Longest wait for any reply before a cell fails (e.g. 5s, 500ms).
    #[arg(long, default_value = "5s", value_name = "DURATION")]
    pub timeout: String,

    /// Measuring time per cell, after a discarded warm-up.
    #[arg(long, default_value = "60ms", value_name = "DURATION")]
    pub cell_time: String,

    /// Messages in flight in the stream pattern.
    #[arg(long, default_value_t = 32, value_name = "N")]
    pub window: u32,

    /// Also keep every round-trip sample (not only the histogram).
    #[arg(long)]
    pub raw: bool,

    /// Adaptive repetitions: keep measuring each ping-pong cell until the
    /// 95 % CI half-width of its median is within this (e.g. 2%), or
    /// --ci-max-time ends; the output says which.
    #[arg(long, value_name = "PERCENT")]
    pub ci: Option<String>,

    /// Longest measuring time per ping-pong cell with --ci.
    #[arg(long, default_value = "2s", value_name = "DURATION")]
    pub ci_max_time: String,

    /// Skip measuring the floor (ratios are then not shown).
    #[arg(long)]
    pub no_floor: bool,

    /// Print the run as JSON instead of tables.
    #[arg(long)]
    pub json: bool,

    /// Results database (SQLite); created if missing.
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,

    /// (testing) Make the peer misbehave: die-after=N, hang-after=N or
    /// corrupt-after=N data messages.
    #[arg(long, hide = true, value_name = "FAULT")]
    pub peer_fault: Option<String>,
}

#[derive(Debug, Args)]
pub struct PeerArgs {
    #[arg(long)]
    pub handoff: String,
    #[arg(long)]
    pub cpu: u32,
    #[arg(long)]
    pub fifo: Option<u8>,
    #[arg(long)]
    pub fault: Option<String>,
}
