//! The arguments of the realtime measurements (`timer`, `wakeup`, `irq`)
//! and of `chip`, two cores of one microcontroller measured on-chip.

use std::path::PathBuf;

use clap::Args;

use super::DbArgs;

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
    /// A name for the run, at most 200 characters (`runs --label`,
    /// `compare --baseline`).
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
