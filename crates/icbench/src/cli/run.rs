//! The arguments of what measures links between two CPUs: `run`, the
//! plan it may follow, `floor`, `doctor` and the peer process `run` starts.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

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

    /// A name for the run, stored with it (at most 200 characters):
    /// `compare --baseline NAME` and `runs --label NAME` find it by this.
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// A note of your own, stored and shown with the run (at most 4,096
    /// characters).
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
    /// `-L`'s help names every link kind `icbench links` lists.
    #[test]
    fn the_link_help_names_every_kind() {
        let help = super::link_help();
        for k in icbench_link::KINDS {
            assert!(help.contains(k.name), "-L's help lacks {}: {help}", k.name);
        }
    }
}
