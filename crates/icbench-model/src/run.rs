//! A run and what is recorded with it: the machine, the CPU pair, the clock,
//! the floor, and how the run ended.

use serde::{Deserialize, Serialize};

/// What a link can carry, declared by the link itself so that nothing outside
/// the link code has to ask which link it is (ARCHITECTURE rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkCaps {
    /// Largest message the link carries in one piece, in bytes.
    pub max_msg_bytes: usize,
    /// `true` when a read returns exactly one message as it was written
    /// (seqpacket, mq, netlink, rpmsg); `false` for byte streams (pipe,
    /// unix stream, tcp, pty, tty), where the protocol frames messages.
    pub message_boundaries: bool,
    /// The sender can build the message in place in the link's memory.
    pub zero_copy: bool,
    /// Both ends read the same clock, so one-way times are meaningful.
    pub shared_clock: bool,
}

/// What a link counted while it carried a cell's messages: events that cost
/// time without being an error, reported next to the figures so that a
/// throughput is never quietly shaped by them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkCounters {
    /// Sends the kernel refused for want of a free TX buffer (EAGAIN, or
    /// ENOMEM from rpmsg_tty), each retried after waiting for room. The
    /// virtio rpmsg bus has no flow control: this is how a full ring shows.
    pub tx_busy: u64,
}

impl LinkCounters {
    /// What was counted between `earlier` and `self`.
    pub fn since(self, earlier: LinkCounters) -> LinkCounters {
        LinkCounters { tx_busy: self.tx_busy.saturating_sub(earlier.tx_busy) }
    }
}

/// Whether the peer ran as a separate process or as a thread of icbench.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PeerMode {
    Process,
    Thread,
}

impl PeerMode {
    pub fn as_str(self) -> &'static str {
        match self {
            PeerMode::Process => "process",
            PeerMode::Thread => "thread",
        }
    }
}

/// The scheduling policy both ends ran under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "lowercase")]
pub enum Sched {
    /// SCHED_OTHER, the default time-sharing policy.
    Other,
    /// SCHED_FIFO at the given priority (1..=99).
    Fifo { priority: u8 },
}

impl std::fmt::Display for Sched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sched::Other => f.write_str("SCHED_OTHER"),
            Sched::Fifo { priority } => write!(f, "SCHED_FIFO {priority}"),
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Still measuring, or killed without a chance to say otherwise.
    Running,
    /// Every planned cell was attempted.
    Finished,
    /// Stopped early (Ctrl-C); every finished cell is kept.
    Interrupted,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Finished => "finished",
            RunStatus::Interrupted => "interrupted",
        }
    }

    pub fn parse(s: &str) -> Option<RunStatus> {
        match s {
            "running" => Some(RunStatus::Running),
            "finished" => Some(RunStatus::Finished),
            "interrupted" => Some(RunStatus::Interrupted),
            _ => None,
        }
    }
}

/// The physical limit between the two CPUs, measured in the same run
/// (ARCHITECTURE "floor"; method after nviennot/core-to-core-latency).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Floor {
    /// Median round trip of one cache line bounced between the two CPUs, ns.
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub cacheline_rtt_ns: f64,
    /// Median round trip with one line per direction, ns: the least a
    /// two-way channel with separate directions can cost.
    pub two_line_rtt_ns: Option<f64>,
    /// Median round trip of a 64 B message and its sequence word in one
    /// slot shared by both directions, answered in place, ns: the least we
    /// know how to pay for 64 B each way (icbench-engine's floor,
    /// `Trip::Slot64`). `None` in runs stored before it was measured.
    #[serde(default)]
    pub slot64_rtt_ns: Option<f64>,
    /// Single-thread memcpy bandwidth on the host CPU, bytes per second.
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub memcpy_bytes_per_s: f64,
    /// Size of each memcpy in the bandwidth measurement, bytes.
    pub memcpy_block_bytes: u64,
    /// Median round trip of a bare write/read loop over two pipes, 64 B, ns:
    /// what the `pipe` link would cost with nothing of icbench's around it.
    pub syscall_pipe_rtt_ns: Option<f64>,
    /// The same over a unix stream socket pair, ns.
    pub syscall_unix_rtt_ns: Option<f64>,
    /// The `pipe` link against its bare loop, measured interleaved under
    /// the same conditions (icbench-engine's `bare` module); the bare
    /// median is `syscall_pipe_rtt_ns`.
    #[serde(default)]
    pub syscall_pipe: Option<BareComparison>,
    /// The same for the `unix` link and `syscall_unix_rtt_ns`.
    #[serde(default)]
    pub syscall_unix: Option<BareComparison>,
}

/// The floor at the tail of a run: the cache-line round trip and the
/// memcpy bandwidth, measured as at the head.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FloorTail {
    /// Median round trip of one cache line between the two CPUs, ns.
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub cacheline_rtt_ns: f64,
    /// Single-thread memcpy bandwidth on the host CPU, bytes per second.
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub memcpy_bytes_per_s: f64,
}

/// A link's ping-pong against the bare write/read loop of the same system
/// calls, the two measured in alternating blocks with their peers started
/// and pinned alike, so that drift of the machine hits both equally.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BareComparison {
    /// Message size, bytes.
    pub size_bytes: u64,
    /// Median round trip of the bare loop, ns.
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub bare_rtt_ns: f64,
    /// Median round trip of icbench's ping-pong over the link, ns.
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub icbench_rtt_ns: f64,
    /// `icbench_rtt_ns / bare_rtt_ns` (unitless; above 1: icbench is slower).
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub ratio: f64,
    /// 95 % confidence interval of the ratio: the hull of the percentile
    /// bootstrap of the pooled samples and a paired t interval over the
    /// blocks (icbench-engine `bare::compare`).
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub ratio_ci95_lo: f64,
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub ratio_ci95_hi: f64,
    /// Round trips measured on each side (equal).
    pub samples: u64,
    /// Blocks on each side; the sides alternate block by block.
    pub blocks: u32,
}

/// Everything recorded about a run besides its cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    pub cpu_model: String,
    /// Online CPUs as the kernel lists them (e.g. "0-1").
    pub online_cpus: String,
    /// CPU the host end (the measuring side) was pinned to.
    pub host_cpu: u32,
    /// CPU the peer was pinned to.
    pub peer_cpu: u32,
    pub peer_mode: PeerMode,
    pub sched: Sched,
    pub mlock: bool,
    pub kernel_release: String,
    /// cpufreq governor of the host CPU, when readable.
    pub governor: Option<String>,
    pub hostname: String,
    pub icbench_version: String,
    pub git_commit: Option<String>,
    /// The command line, one element per argument.
    pub command_line: Vec<String>,
    /// Wall-clock start and end, Unix time in ns (CLOCK_REALTIME: for the
    /// record only, never for measuring).
    pub started_unix_ns: i64,
    pub ended_unix_ns: Option<i64>,
    /// The clock every interval was measured with.
    pub clock: String,
    /// Median cost of one read of that clock, ns.
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub clock_overhead_ns: f64,
    /// The step its readings move in, ns ([`clock_gettime`'s resolution
    /// as seen], issue #15 item 4); NaN when not measured (imports, runs
    /// stored before schema 11).
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub clock_granule_ns: f64,
    pub status: RunStatus,
    pub floor: Option<Floor>,
    /// The floor's cheap part measured again when the last cell had
    /// finished (issue #15): compared with `floor`, it shows whether the
    /// machine changed under the run. `None`: not measured (no floor, an
    /// interrupted run, runs before schema 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_tail: Option<FloorTail>,
    /// The CPU's own fast counter and how it compared with `clock`; `None`
    /// when it was not examined (runs stored before schema 0007, imports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_counter: Option<FastCounter>,
    /// Free-form notes the engine attaches (e.g. "SCHED_FIFO not permitted").
    pub notes: Vec<String>,
    /// The user's name for the run (`run --label`): what `compare
    /// --baseline` and `runs --label` find it by (issue #18).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The user's own note on the run (`run --note`), shown with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_note: Option<String>,
}

/// The CPU's free-running counter (x86 TSC, arm64 CNTVCT_EL0), read
/// directly instead of through `clock_gettime`, and whether it can stand in
/// for the run's clock: its rate calibrated against CLOCK_MONOTONIC_RAW,
/// then checked against it (docs/method.md, "The fast counter"). Recorded
/// with a run; the timed loops use the run's clock regardless.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FastCounter {
    /// The counter read ("tsc", "cntvct_el0"); `None`: none is readable
    /// from user space here, and `reason` says why.
    pub counter: Option<String>,
    /// Ticks per second, calibrated against CLOCK_MONOTONIC_RAW, Hz.
    pub hz: Option<f64>,
    /// Ticks per second the hardware declares (arm64 CNTFRQ_EL0), Hz.
    pub declared_hz: Option<f64>,
    /// Cost of one read, ns (mean over batches of back-to-back reads).
    pub read_ns: Option<f64>,
    /// Whether the counter passed every check.
    pub trusted: bool,
    /// Why it is trusted, or the first check it failed.
    pub reason: String,
    /// Largest |counter converted to ns − CLOCK_MONOTONIC_RAW| over the
    /// check, ns.
    pub max_deviation_ns: Option<f64>,
    /// Rate of the counter (converted to ns) against CLOCK_MONOTONIC_RAW
    /// over the check, parts per million (+: the counter runs fast).
    pub drift_ppm: Option<f64>,
}
