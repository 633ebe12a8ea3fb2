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
pub struct MergeArgs {
    /// The databases (or `icbench bundle` files) to merge in; they are
    /// only read.
    #[arg(required = true, value_name = "OTHER.db")]
    pub others: Vec<PathBuf>,
    /// The board (or lab place) the databases come from, recorded with each
    /// run (default: each file's name, or its directory's for icbench.db;
    /// two files that would be one board are refused).
    #[arg(long, value_name = "NAME")]
    pub board: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
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

#[derive(Debug, Subcommand)]
pub enum PlanCommand {
    /// Validate a plan file (docs/plans.md) and print what it measures.
    Check(PlanCheckArgs),
}

#[derive(Debug, Args)]
pub struct PlanCheckArgs {
    /// The plan file (TOML).
    pub file: PathBuf,
    /// Measuring time per cell when the plan gives no cell_time.
    #[arg(long, default_value = "60ms", value_name = "DURATION")]
    pub cell_time: String,
    /// Print the expanded plan as JSON.
    #[arg(long)]
    pub json: bool,
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

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Only the runs with this label (`run --label`).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
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
    /// Every cell's table (ping-pong, stream, bulk, channels, oneway, CPU
    /// pairs) above the summary; the default prints the summary alone.
    #[arg(long, conflicts_with_all = ["stats", "targets"])]
    pub cells: bool,
    /// The run's targets: each ratio against the floor measured in the same
    /// run, what is required, and whether the run shows it met.
    #[arg(long, conflicts_with_all = ["stats", "blocks"])]
    pub targets: bool,
    /// One row per measured block instead of per cell: a cell's replicate
    /// blocks (`run --replicates`, a plan's repetitions) each with its own
    /// figures and `rep` factor, in the order they were stored.
    #[arg(long)]
    pub blocks: bool,
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
    /// Also say where each pair of links of one pattern cross: between
    /// which measured sizes their order flips, and where their lines meet.
    #[arg(long)]
    pub crossover: bool,
    /// Only the cells with this factor level, e.g. `transfer=10000000` (an
    /// imported ADI table's transfer size) or `wait=futex`; repeat for
    /// several (all must hold).
    #[arg(long = "where", value_name = "FACTOR=LEVEL")]
    pub where_: Vec<String>,
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
    /// The run as `show` prints it, its tables in GitHub markdown, for
    /// pasting into issues and reviews.
    Md,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Run number, or `latest`.
    #[arg(default_value = "latest")]
    pub run: String,
    /// What to write: csv (one line per cell, every statistic), json (as
    /// `show --json`), hgrm (each latency histogram's percentiles, µs) or
    /// md (as `show` prints it, tables in GitHub markdown).
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
    /// Its format: seed-tty or seed-netlink (a log of dimtass's STM32MP1
    /// rpmsg tty or netlink test client), seed-table (the tables of their
    /// posts), xmit-p, adi-table (ADI's benchmark page as published),
    /// ti-histogram, cyclictest-json, cyclictest-hist, csv, or bundle (an
    /// `icbench bundle` file: its runs stored as they were).
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
pub struct BundleArgs {
    /// Runs to bundle (numbers or `latest`).
    #[arg(default_value = "latest", value_name = "RUN")]
    pub runs: Vec<String>,
    /// The bundle file to write (JSON; docs/bundle.schema.json).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct SiteArgs {
    /// The bundles (`icbench bundle` files, e.g. results/*.json).
    #[arg(required = true, value_name = "BUNDLE")]
    pub bundles: Vec<PathBuf>,
    /// The directory to write the site into (made if missing).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: PathBuf,
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
pub struct LabelArgs {
    /// The run (a number or `latest`).
    #[arg(value_name = "RUN")]
    pub run: String,
    /// Its new label; `compare --baseline NAME` and `runs --label NAME`
    /// find it by this.
    #[arg(value_name = "NAME", required_unless_present = "remove")]
    pub name: Option<String>,
    /// Take the run's label away instead.
    #[arg(long, conflicts_with = "name")]
    pub remove: bool,
    /// Results database (SQLite).
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Runs to compare (numbers or `latest`); the first is the baseline.
    /// With one run, give two or more --link to compare links within it.
    #[arg(required_unless_present = "baseline", value_name = "RUN")]
    pub runs: Vec<String>,
    /// Compare against the latest run labelled NAME (`run --label NAME`):
    /// it becomes the baseline, before the runs given (default: `latest`).
    #[arg(long, value_name = "NAME", conflicts_with = "links")]
    pub baseline: Option<String>,
    /// With one run: a link to compare; the first is the baseline.
    #[arg(long = "link", short = 'L', value_name = "SPEC")]
    pub links: Vec<String>,
    /// Exit 1 when any cell is shown slower than its baseline by more than
    /// this (e.g. 10%), naming each: a regression gate for CI.
    #[arg(long, value_name = "PCT")]
    pub fail_if_slower: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EffectsMetric {
    /// The cells' p50 latency (ns).
    Latency,
    /// The cells' payload bytes per second.
    Bandwidth,
    /// Both, one after the other.
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EffectsScale {
    /// Analyse ln(response): geometric means, effects as ratios (×).
    Log,
    /// Analyse the response itself: effects as differences in its unit.
    Linear,
}

#[derive(Debug, Args)]
#[command(after_help = "Factors are link, pattern, size, protocol, blocks, channels and every \
                        factor of a plan; cells differing only in `rep` are replicates. \
                        Example: icbench effects 7 --metric latency --where pattern=pingpong")]
pub struct EffectsArgs {
    /// Run number, or `latest`. Several runs are analysed as one design
    /// with what sets them apart as a factor: `board` when they come from
    /// different boards (`icbench merge --board`), else `run`.
    #[arg(default_value = "latest", value_name = "RUN")]
    pub runs: Vec<String>,
    /// The response to analyse.
    #[arg(long, value_enum, default_value = "both")]
    pub metric: EffectsMetric,
    /// The scale: log (relative effects, the default: latencies and rates
    /// differ by factors, not by fixed amounts) or linear.
    #[arg(long, value_enum, default_value = "log")]
    pub scale: EffectsScale,
    /// Only cells whose FACTOR has this level (repeat: the same factor means
    /// either level, different factors both), e.g. `--where pattern=pingpong`.
    #[arg(long = "where", value_name = "FACTOR=LEVEL")]
    pub filters: Vec<String>,
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
    /// A window of messages in flight, every one checked by the receiver;
    /// throughput. Host → peer, or peer → host with --direction.
    Stream,
    /// block × blocks bytes (see --blocks), then one acknowledgement; time per
    /// transfer (the STM32MP1 rpmsg tty test client's test). Protocols icb
    /// and dimtass.
    Bulk,
    /// One-way latency on the common clock, one cell per direction (see
    /// --direction); messages of at least 16 B. Local peer only.
    Oneway,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DirectionArg {
    /// Host end sends, peer receives.
    H2p,
    /// Peer sends, host end receives.
    P2h,
    /// Each direction in a cell of its own.
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// icbench's frames v1 (docs/protocol.md §1): HELLO/CAPS handshake, ECHO
    /// for pingpong (fragmented above the peer's frame size), DATA with
    /// credits for stream, DATA × blocks + ACK for bulk; CRC on every frame.
    Icb,
    /// The format of dimtass's STM32MP1 rpmsg test clients (tty and
    /// netlink): a {0xABCD, length, crc16} header over the first 6 bytes,
    /// the data, and a 2-byte count as the only reply. Patterns bulk
    /// (default matrix: the tty client's block × blocks) and pingpong (the
    /// netlink client's sizes 512 B … 32 KiB, one write each).
    Dimtass,
    /// Byte-exact echo, for stock OpenAMP / TI / ADI echo firmware. Pattern
    /// pingpong.
    Raw,
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
    /// How the peers of the pipe and unix comparisons run: a separate
    /// process (icbench re-executed, the default) or a thread.
    #[arg(long, value_enum, default_value = "process")]
    pub peer: PeerKind,
    /// Also measure seqpacket, tcp, pty, mq, netlink and shm each against
    /// the bare loop of the same calls (or ring), as pipe and unix are:
    /// icbench's own overhead on every local link (about 10 s more).
    #[arg(long)]
    pub bare: bool,
    /// Alternating blocks a side for --bare's comparisons (200 round trips
    /// each, 2000 for shm); fewer is quicker and less certain.
    #[arg(long, value_name = "N", default_value_t = 50, env = "ICBENCH_BARE_BLOCKS",
          value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub bare_blocks: u32,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  icbench run                                   every local link, 1 B … 64 KiB, pingpong and stream
  icbench run -L shm -L 'shm?wait=futex' -s 64,4K --cpus 0,1
  icbench run -L pipe -p pingpong --fifo 50 --mlock --json > run.json
  icbench run -L shm -p oneway -s 64            one-way latency, host → peer and peer → host
  icbench run --plan plans/002-factors.toml --dry-run
  icbench run --resume latest                   go on after Ctrl-C or a spent budget
Sizes take binary units (64, 4K, 1M; sweeps 1-64K); durations us, ms, s, min or h (500ms; a bare
number is seconds).")]
pub struct RunArgs {
    // Its help lists every kind from the table `icbench links` prints.
    #[arg(long = "link", short = 'L', value_name = "SPEC", help = link_help())]
    pub links: Vec<String>,

    /// A pattern to run; repeat for several. Default: pingpong and stream
    /// (dimtass: bulk and pingpong; raw: pingpong, and stream where the
    /// remote fills and checks buffers, sdb:).
    #[arg(long = "pattern", short = 'p', value_enum, value_name = "PATTERN")]
    pub patterns: Vec<PatternArg>,

    /// Oneway and stream: which way the messages travel, one cell per
    /// direction. Default: oneway both, stream h2p. Stream p2h needs
    /// icbench's own peer (no --protocol), or --protocol raw on sdb:, and
    /// one channel.
    #[arg(long, value_enum, value_name = "DIR")]
    pub direction: Option<DirectionArg>,

    /// Message sizes (bulk: block sizes): a list and/or log2 sweeps, binary
    /// units (e.g. `64,4K` or `1-64K`). Default 1-64K; dimtass pingpong
    /// 512-32K.
    #[arg(long, short = 's', value_name = "SIZES")]
    pub sizes: Option<String>,

    /// Bulk: blocks per transfer, a list of counts crossed with --sizes
    /// (`1,2,4,8`) and/or block × blocks pairs, each a cell (`512×8,1K×4`;
    /// `x` for `×`). Without it and without --sizes, bulk runs the STM32MP1
    /// rpmsg tty test client's matrix: 512×1, 512×2, 512×4, 512×8, 1024×1,
    /// 1024×2, 1024×4, 1024×5, 2048×1, 2048×2, 4096×1.
    #[arg(long, value_name = "N|SIZE×N,…")]
    pub blocks: Option<String>,

    /// The wire protocol spoken to the peer. Default: icbench's own local
    /// peer with its control protocol (local links only). Remote links
    /// (tty:, serial:) need one.
    #[arg(long, value_enum, value_name = "PROTOCOL")]
    pub protocol: Option<ProtocolArg>,

    /// Start this program as the peer (split on spaces; `{path}` becomes
    /// the device the link offers, e.g. the pty's slave), e.g.
    /// `--peer-cmd 'firmware/build/icb-peer --path {path}'`. Needs --protocol.
    #[arg(long, value_name = "CMD")]
    pub peer_cmd: Option<String>,

    /// The peer runs under emulation (QEMU): the run is labelled so, its
    /// timings mean nothing; it checks framing, fragmentation, integrity and
    /// the handshake.
    #[arg(long)]
    pub emulated: bool,

    #[command(flatten)]
    pub cpus: CpuArgs,

    /// Where the peer end runs.
    #[arg(long, value_enum, default_value = "process")]
    pub peer: PeerKind,

    /// Run both ends under SCHED_FIFO at this priority (1-99). With a
    /// spinning link (shm) both measured CPUs are held while a cell runs:
    /// on a two-CPU machine every other program (and icbench's own storing)
    /// gets only what RT throttling leaves, 5 % of each second by default,
    /// until the cell ends. icbench's watchdog ranks itself above the run.
    #[arg(long, value_name = "PRIO")]
    pub fifo: Option<u8>,

    /// Lock all memory (mlockall) so page faults cannot land in a measurement.
    #[arg(long)]
    pub mlock: bool,

    /// Longest wait for any reply before a cell fails (e.g. 5s, 500ms).
    #[arg(long, default_value = "5s", value_name = "DURATION")]
    pub timeout: String,

    /// Measuring time per cell and block, after a discarded warm-up.
    #[arg(long, default_value = "20ms", value_name = "DURATION")]
    pub cell_time: String,

    /// Measure each cell in this many blocks, interleaved with every other
    /// cell's in a random order (its seed stored with the run); the CI is
    /// then where a repeat run's figure will land, from the spread of the
    /// blocks. 1: one block per cell in listed order, the CI within it.
    /// A resumed run keeps its own.
    #[arg(long, env = "ICBENCH_REPLICATES", default_value_t = 3, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub replicates: u32,

    /// Measure each planned block once, even one the kernel's counters show
    /// disturbed (by default such a block is measured once more at the end
    /// of the run).
    #[arg(long, env = "ICBENCH_NO_REMEASURE", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_remeasure: bool,

    /// Messages in flight in the stream pattern (2 to 65536).
    #[arg(long, default_value_t = 32, value_name = "N")]
    pub window: u32,

    /// Channels: N independent links (1-32), each with its own peer,
    /// started together and measured over one common window; the total is
    /// Σ bytes / that window, with per-channel rates and Jain's fairness
    /// index. Pingpong and stream, with icbench's own peer or --protocol icb
    /// (a peer per channel: --peer-cmd, or an rpmsg-ctrl endpoint each).
    #[arg(long, short = 'P', default_value_t = 1, value_name = "N")]
    pub channels: u32,

    /// (testing) Start channel i this much × i after the common start.
    #[arg(long, hide = true, value_name = "DURATION")]
    pub channel_stagger: Option<String>,

    /// Also keep every round-trip sample (not only the histogram); with
    /// -P N, every channel's, channel 0's first.
    #[arg(long)]
    pub raw: bool,

    /// Adaptive repetitions: keep measuring each ping-pong cell until the
    /// 95 % CI half-width of its median is within this (e.g. 2%), or
    /// --ci-max-time ends; the output says which. With -P N each phase is
    /// another common window of all channels.
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

    /// Print every cell's table above the summary (the default prints the
    /// summary, the footnotes and the verdict; `icbench show N --cells`
    /// prints the tables later).
    #[arg(long, conflicts_with_all = ["json", "json_stream"])]
    pub cells: bool,

    /// Results database (SQLite); created if missing.
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,

    /// Measure the cells of a plan file (TOML: factors and levels,
    /// repetitions, order, budgets; see docs/plans.md and plans/). The
    /// other flags still set placement, peer and limits.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["links", "patterns", "sizes", "blocks", "protocol", "peer_cmd"])]
    pub plan: Option<PathBuf>,

    /// Print the cells the run would measure, in order, with an estimated
    /// duration; measure nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// A name for the run, stored with it: `compare --baseline NAME` and
    /// `runs --label NAME` find it by this.
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// A note of your own, stored and shown with the run.
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,

    /// Continue an interrupted run (Ctrl-C, kill -9, power loss, an
    /// exhausted budget): measure its stored plan's remaining cells with its
    /// stored settings, into the same run. RUN is a number or `latest`.
    #[arg(long, value_name = "RUN", conflicts_with_all = ["label", "note", "plan", "links", "patterns", "sizes", "blocks", "dry_run", "protocol", "peer_cmd", "cpus", "peer", "fifo", "mlock", "cell_time", "window", "raw", "ci", "timeout", "channels"])]
    pub resume: Option<String>,

    /// Print one JSON object per finished cell on standard output as the
    /// run goes (and a last one when it ends), instead of the tables.
    #[arg(long, conflicts_with = "json")]
    pub json_stream: bool,

    /// (testing) Make the first peer of each link misbehave: die-after=N,
    /// hang-after=N, corrupt-after=N data messages; for icb-peer also
    /// garbage-after=N, truncate-after=N, crc-after=N replies.
    #[arg(long, hide = true, value_name = "FAULT")]
    pub peer_fault: Option<String>,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub cpus: CpuArgs,
    /// Print JSON instead of text (with a schema_version).
    #[arg(long)]
    pub json: bool,
    /// Read sys/, proc/ and dev/ under DIR instead of /sys, /proc and /dev
    /// (e.g. a tree copied from a board). SCHED_FIFO and mlock are still
    /// tried on this process.
    #[arg(long, default_value = "/", value_name = "DIR")]
    pub root: PathBuf,
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
    /// Run the bare echo loop of SIZE-byte messages (the reference the
    /// pipe and unix links are compared with) instead of the control
    /// protocol.
    #[arg(long, value_name = "SIZE", conflicts_with = "fault")]
    pub bare: Option<usize>,
}

/// What `icbench timer` and `icbench wakeup` share: load, output, store.
#[derive(Debug, Args)]
pub struct RtCommon {
    /// SCHED_FIFO priority of the measuring threads (1-99); default SCHED_OTHER.
    #[arg(short = 'p', long = "priority", value_name = "PRIO")]
    pub priority: Option<u8>,
    /// Wake-up interval in µs (rt-tests' -i).
    #[arg(short = 'i', long, default_value_t = 1000, value_name = "US")]
    pub interval: u64,
    /// Measured wake-ups per thread (rt-tests' -l). Default: 10000 for
    /// timer, 1000 per primitive for wakeup, 1000 edges for irq, unless
    /// -D is given.
    #[arg(short = 'l', long, value_name = "LOOPS")]
    pub loops: Option<u64>,
    /// Measure for this long instead (e.g. 10s, 2m; a bare number is seconds).
    #[arg(short = 'D', long, value_name = "TIME", conflicts_with = "loops")]
    pub duration: Option<String>,
    /// Lock all memory (mlockall).
    #[arg(short = 'm', long = "mlockall")]
    pub mlockall: bool,
    /// Hold /dev/cpu_dma_latency at US µs while measuring, as cyclictest
    /// holds it at 0 by default: CPUs stay out of idle states slower to
    /// leave. Without it the figures include those exits.
    #[arg(long, value_name = "US")]
    pub dma_latency: Option<u32>,
    /// Histogram range in µs (1 µs buckets) for --histfile and --json
    /// (cyclictest's -h; here -h is help).
    #[arg(long = "histogram", default_value_t = 1000, value_name = "US")]
    pub histogram: u64,
    /// Write the histogram in rt-tests' text format to PATH (`-` for stdout).
    #[arg(long, value_name = "PATH")]
    pub histfile: Option<PathBuf>,
    /// Load during the measurement: cpu, memory, ipc, io, net (comma list).
    #[arg(long, value_name = "KINDS")]
    pub load: Option<String>,
    /// CPUs the load runs on (e.g. 0-1). Default: the measured CPUs.
    #[arg(long, value_name = "CPUS")]
    pub load_cpus: Option<String>,
    /// Who generates the load: auto (stress-ng when installed), stress-ng, builtin.
    #[arg(long, default_value = "auto", value_name = "TOOL")]
    pub load_with: String,
    /// Also keep every sample, in time order.
    #[arg(long)]
    pub raw: bool,
    /// Print rt-tests-style JSON (with schema_version) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Results database (SQLite); created if missing.
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,
}

#[derive(Debug, Args)]
pub struct TimerArgs {
    /// CPUs to measure on, one thread each (e.g. 0-3,6). Default: every usable CPU.
    #[arg(short = 'a', long = "affinity", value_name = "CPUS")]
    pub affinity: Option<String>,
    /// Stop every thread when a wake-up is later than this many µs.
    #[arg(short = 'b', long = "breaktrace", value_name = "US")]
    pub breaktrace: Option<u64>,
    #[command(flatten)]
    pub rt: RtCommon,
}

#[derive(Debug, Args)]
pub struct WakeupArgs {
    /// Primitives (comma list): futex, eventfd, pipe, mq, unix, signal. Default: all.
    #[arg(short = 'P', long = "primitive", value_name = "LIST")]
    pub primitives: Option<String>,
    /// Sender CPU, receiver CPU (e.g. 0,1; the same CPU twice measures a
    /// same-CPU wake-up). Default: the first two usable CPUs.
    #[arg(long, value_name = "A,B")]
    pub cpus: Option<String>,
    /// Wake-ups before the measured ones, discarded.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub warmup: u64,
    /// Longest wait for one wake-up to arrive before the cell fails.
    #[arg(long, default_value = "5s", value_name = "DURATION")]
    pub timeout: String,
    #[command(flatten)]
    pub rt: RtCommon,
}

#[derive(Debug, Args)]
pub struct IrqArgs {
    /// The GPIO chip both lines are on (e.g. /dev/gpiochip0; gpiodetect lists them).
    #[arg(long, value_name = "PATH")]
    pub chip: PathBuf,
    /// The output line icbench toggles (offset on the chip, as gpioinfo numbers it).
    #[arg(long, value_name = "LINE")]
    pub out: u32,
    /// The input line wired to --out, with edge detection.
    #[arg(long = "in", value_name = "LINE")]
    pub input: u32,
    /// A second output, set by the woken thread on each edge (the response).
    #[arg(long, value_name = "LINE", requires = "respond_in")]
    pub respond: Option<u32>,
    /// The input wired to --respond: its edge's timestamp ends interval (c).
    #[arg(long, value_name = "LINE", requires = "respond")]
    pub respond_in: Option<u32>,
    /// Driving CPU, measuring CPU (e.g. 0,1; the same CPU twice is allowed).
    /// Default: the first two usable CPUs.
    #[arg(long, value_name = "A,B")]
    pub cpus: Option<String>,
    /// Edges before the measured ones, discarded.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub warmup: u64,
    /// Longest wait for one edge before the run stops (the wire is missing?).
    #[arg(long, default_value = "1s", value_name = "DURATION")]
    pub timeout: String,
    /// Ask for edge timestamps from the line's hardware timestamp engine
    /// (HTE) instead of CLOCK_MONOTONIC; refused where the line has none.
    #[arg(long)]
    pub hte: bool,
    #[command(flatten)]
    pub rt: RtCommon,
}

#[derive(Debug, Args)]
pub struct ChipArgs {
    /// The link to the initiator core: serial:/dev/ttyACM0?baud=115200,
    /// tty:/dev/ttyRPMSG0, or pty with --peer-cmd (the host build).
    #[arg(short = 'L', long = "link", value_name = "SPEC")]
    pub link: String,
    /// A program to start as the initiator, e.g. 'firmware/build/icb-peer
    /// --onchip 0,1 --path {path}' (the two-thread host build).
    #[arg(long, value_name = "CMD")]
    pub peer_cmd: Option<String>,
    /// Patterns (comma list): pingpong, oneway, stream, bulk.
    #[arg(short = 'p', long = "pattern", default_value = "pingpong,oneway", value_name = "LIST")]
    pub patterns: String,
    /// Message sizes (bulk: block sizes), e.g. 4,64,1K or 4-4K.
    #[arg(short = 's', long = "sizes", default_value = "4,64,256,1K,4K", value_name = "LIST")]
    pub sizes: String,
    /// Directions (comma list): i2a (initiator → agent), a2i (agent →
    /// initiator); for pingpong, the core that starts.
    #[arg(long, default_value = "i2a,a2i", value_name = "LIST")]
    pub direction: String,
    /// Shared-memory regions by the chip's names (comma list). Default:
    /// every region the firmware offers.
    #[arg(long, value_name = "LIST")]
    pub region: Option<String>,
    /// How the receiving core learns of a message: poll, doorbell, event.
    #[arg(long, default_value = "poll", value_name = "LIST")]
    pub notify: String,
    /// Measured repetitions per cell (stream: messages).
    #[arg(long, default_value_t = 1024, value_name = "N")]
    pub count: u32,
    /// Repetitions before the measured ones, discarded.
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub warmup: u32,
    /// Stream: messages in flight.
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub window: u32,
    /// Bulk: blocks per transfer.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub blocks: u32,
    /// Longest wait for the other core (on the chip) and for the chip.
    #[arg(long, default_value = "5s", value_name = "DURATION")]
    pub timeout: String,
    /// A name for the run (`runs --label`, `compare --baseline`).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// Firmware images to measure (comma list of files): each is put on
    /// the chip by --flash-cmd before its cells, and is the `image` factor.
    #[arg(long, value_name = "LIST")]
    pub image: Option<String>,
    /// The command that puts an image on the chip, `{image}` where its path
    /// goes (no shell), e.g. 'openocd -f board.cfg -c program {image} verify
    /// reset exit'. At most 300 s each.
    #[arg(long, value_name = "CMD")]
    pub flash_cmd: Option<String>,
    /// Keep every sample too, in the order taken (`export`), not only the
    /// chip's histogram; the firmware must have room for them.
    #[arg(long)]
    pub raw: bool,
    /// Print every cell's table above the summary (as `show N --cells`).
    #[arg(long)]
    pub cells: bool,
    /// An experiment in a file (plans/002-onchip.toml): its factors,
    /// repetitions and random order replace the flags above.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Subcommand)]
pub enum RpmsgCommand {
    /// Bind CHANNEL (a name under /sys/bus/rpmsg/devices) to the driver,
    /// as ADI's rpmsg-bind-chardev does: driver_override, then bind.
    Bind(RpmsgBindArgs),
    /// Unbind CHANNEL from its driver and clear its driver_override.
    Unbind(RpmsgBindArgs),
}

#[derive(Debug, Args)]
pub struct RpmsgBindArgs {
    /// The channel, e.g. virtio0.rpmsg-raw.-1.30 (`icbench links` lists them).
    pub channel: String,
    /// The rpmsg driver.
    #[arg(long, default_value = "rpmsg_chrdev")]
    pub driver: String,
}

#[derive(Debug, Subcommand)]
pub enum RemoteCommand {
    /// Every remote processor with its name, state and firmware.
    List,
    /// One remote processor's state and firmware.
    Status(RprocArg),
    /// Start it (echo start > state).
    Start(RprocArg),
    /// Stop it (echo stop > state).
    Stop(RprocArg),
    /// Set the firmware the next start loads (a file under /lib/firmware);
    /// the core must be offline.
    Load(LoadArgs),
}

#[derive(Debug, Args)]
pub struct RprocArg {
    /// remoteprocN, N, or its name; may be left out when there is only one.
    #[arg(long, short = 'r', value_name = "RPROC")]
    pub rproc: Option<String>,
}

#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Firmware file name, relative to the firmware search path.
    pub firmware: String,
    #[command(flatten)]
    pub which: RprocArg,
}

/// `-L`'s help, from the link kinds' table (`icbench_link::KINDS`), so
/// that it names every kind `icbench links` does (issue #29: iceoryx2 and
/// the netlink bridge were missing).
fn link_help() -> String {
    let spec = |k: &icbench_link::KindInfo| {
        if k.path.is_empty() { k.name.to_string() } else { format!("{}:PATH", k.name) }
    };
    let kinds = |default: bool| -> Vec<String> {
        icbench_link::KINDS.iter().filter(|k| k.default == default).map(spec).collect()
    };
    format!(
        "A link to measure; repeat for several. Default: every local link ({}). Other kinds: {} \
         (`icbench links` shows each kind's parameters, e.g. `shm?wait=futex`).",
        kinds(true).join(", "),
        kinds(false).join(", ")
    )
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

    /// `-L`'s help names every link kind `icbench links` lists.
    #[test]
    fn the_link_help_names_every_kind() {
        let help = super::link_help();
        for k in icbench_link::KINDS {
            assert!(help.contains(k.name), "-L's help lacks {}: {help}", k.name);
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
