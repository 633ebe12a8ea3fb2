//! A cell (one point of an experiment) and what measuring it produced.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::hist::LatencyHistogram;
use crate::run::LinkCounters;

/// What is measured in a cell (ARCHITECTURE "pattern").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// One message out, the same bytes back; a sample is one round trip.
    PingPong,
    /// A window of messages in flight, the peer returning credits; the
    /// result is throughput over the measured window.
    Stream,
    /// `block × blocks` bytes sent as `blocks` writes, then one
    /// acknowledgement (seed 000's test); a sample is one whole transfer.
    Bulk,
    /// cyclictest's measurement: a thread sleeps to absolute deadlines and
    /// records how late it woke (lateness, ns). One cell per CPU.
    Timer,
    /// Cross-core wake-up through a blocking primitive: one-way time from
    /// the sender's clock read before the wake to the receiver's read on
    /// return, on the common clock (ns). One cell per primitive.
    Wakeup,
    /// One message at a time in one direction (the cell's `direction`
    /// factor): a sample is the receiver's clock read on arrival minus the
    /// sender's stamp in the message, on the common clock (ns).
    OneWay,
    /// Interrupt latency through a GPIO loopback (`icbench irq`): an
    /// output line wired to an input line; per edge, one interval on
    /// CLOCK_MONOTONIC (ns) between two of: the output set, the kernel's
    /// edge timestamp, the measuring thread woken, the response edge's
    /// timestamp. One cell per interval.
    Irq,
}

impl Pattern {
    /// The patterns `icbench run` measures by default (every protocol that
    /// has no matrix of its own).
    pub const ALL: [Pattern; 2] = [Pattern::PingPong, Pattern::Stream];

    /// The realtime patterns (`icbench timer`, `icbench wakeup`, `icbench irq`).
    pub const RT: [Pattern; 3] = [Pattern::Timer, Pattern::Wakeup, Pattern::Irq];

    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::PingPong => "pingpong",
            Pattern::Stream => "stream",
            Pattern::Bulk => "bulk",
            Pattern::Timer => "timer",
            Pattern::Wakeup => "wakeup",
            Pattern::OneWay => "oneway",
            Pattern::Irq => "irq",
        }
    }

    /// What a cell's latency histogram holds, as the store names it:
    /// `rtt` (round trip, or a whole bulk transfer until its ack),
    /// `lateness` (timer wake-up after its deadline) or `oneway` (sender's
    /// clock read to receiver's).
    pub fn metric(self) -> &'static str {
        match self {
            Pattern::PingPong | Pattern::Stream | Pattern::Bulk => "rtt",
            Pattern::Timer => "lateness",
            Pattern::Wakeup | Pattern::OneWay | Pattern::Irq => "oneway",
        }
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown pattern '{0}': use pingpong, stream, bulk, oneway, timer, wakeup or irq")]
pub struct PatternParseError(pub String);

impl std::str::FromStr for Pattern {
    type Err = PatternParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "pingpong" => Ok(Pattern::PingPong),
            "stream" => Ok(Pattern::Stream),
            "bulk" => Ok(Pattern::Bulk),
            "timer" => Ok(Pattern::Timer),
            "wakeup" => Ok(Pattern::Wakeup),
            "oneway" => Ok(Pattern::OneWay),
            "irq" => Ok(Pattern::Irq),
            other => Err(PatternParseError(other.to_string())),
        }
    }
}

/// Identifies a cell within a run.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    /// The link spec as the user wrote it, normalised (e.g. `shm?wait=spin`).
    pub link: String,
    pub pattern: Pattern,
    /// Payload bytes per message (bulk: per block).
    pub size_bytes: u64,
    /// The wire protocol spoken with the peer (`icb`, `dimtass`, `raw`);
    /// `None` for the local control protocol of icbench's own peer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Bulk: blocks per transfer (the transfer is `size_bytes × blocks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<u32>,
    /// Experiment factors beyond link × pattern × size, e.g. `cpu` for a
    /// timer cell, `sender_cpu` / `receiver_cpu` for a wake-up cell. Empty
    /// for the link patterns. Stored as the cell's `factors_json`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub factors: BTreeMap<String, String>,
}

impl CellKey {
    /// A cell of the local control protocol, without blocks or factors.
    pub fn new(link: impl Into<String>, pattern: Pattern, size_bytes: u64) -> CellKey {
        CellKey {
            link: link.into(),
            pattern,
            size_bytes,
            protocol: None,
            blocks: None,
            factors: BTreeMap::new(),
        }
    }

    /// Adds a factor.
    pub fn with(mut self, name: &str, value: impl std::fmt::Display) -> CellKey {
        self.factors.insert(name.to_string(), value.to_string());
        self
    }

    /// A factor's value, if set.
    pub fn factor(&self, name: &str) -> Option<&str> {
        self.factors.get(name).map(String::as_str)
    }

    /// Bytes one sample moves host → peer: a message, or a whole bulk transfer.
    pub fn transfer_bytes(&self) -> u64 {
        self.size_bytes * u64::from(self.blocks.unwrap_or(1))
    }
}

/// The data of a measured cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellData {
    /// Messages in the measured window (warm-up excluded).
    pub messages: u64,
    /// Payload bytes carried in the measured window: host → peer, or for a
    /// stream cell the way of its `direction` factor.
    pub bytes: u64,
    /// Length of the measured window, ns (first send to last reply).
    pub elapsed_ns: u64,
    /// Messages sent and discarded before measuring.
    pub warmup_messages: u64,
    /// Round-trip time of each message (pingpong), ns.
    pub latency: Option<LatencyHistogram>,
    /// Every sample in order, ns, when `--raw` was given.
    pub raw_ns: Option<Vec<u64>>,
    /// Messages allowed in flight (stream).
    pub window: Option<u32>,
    /// What the link counted during the measured window.
    pub counters: LinkCounters,
    /// Channels (endpoints) measured at once, each with its own peer
    /// (`icbench run -P N`, or imported multi-channel results); `None`
    /// means one link measured alone.
    pub channels: Option<u32>,
    /// How adaptive repetitions (`icbench run --ci`) ended, when asked for.
    pub adaptive: Option<Adaptive>,
    /// Each channel of a multi-channel cell, by channel index. The cell's
    /// `messages` and `bytes` are their sums, `elapsed_ns` is the common
    /// window they were all counted over, and `latency` their merged
    /// histogram. Empty for a single link and for imported cells.
    pub per_channel: Vec<ChannelData>,
    /// What the operating system counted on the two CPUs and threads while
    /// the cell ran; `None` for imported cells and cells measured before
    /// icbench kept it (schema 10).
    pub disturbance: Option<crate::Disturbance>,
    /// The measured phase stopped at this many messages, the engine's cap
    /// (a bound on memory and on `--raw`'s samples), before the cell time
    /// was filled; `None` when the cell time set the count.
    pub cut_at_messages: Option<u64>,
    /// Round trips per pair of clock reads when a ping-pong cell was timed
    /// in batches because one round trip spans too few of the clock's
    /// granules (issue #15 item 4): its latencies are the batches' mean
    /// round trips. `None`: each round trip timed on its own.
    pub timed_batch: Option<u32>,
    /// The machine's state just before the block, as the state probe
    /// measured it between the same two CPUs (issue #28); `None` for
    /// imported cells, remote peers and cells measured before schema 15.
    pub state: Option<StateProbe>,
}

/// A short probe of the machine's state between the cell's two CPUs, taken
/// before its session opened (issue #28; shared/research/noise-notes.md,
/// "The state probe": on a VM whose vCPUs move between placements, the
/// one-cache-line round trip measured just before a shm block tracks that
/// block's figure, 0.994–1.000 correlation). Cells measured on one session
/// share the probe taken when it opened.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StateProbe {
    /// Median one-cache-line round trip, ns (the floor's trip, fewer samples).
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub line_rtt_ns: f64,
    /// Median cross-CPU wake-up round trip, ns: one byte each way over a
    /// Unix socket pair to a thread asleep in `read` on the peer CPU — the
    /// covariate of the links whose waiting end sleeps (issue #28 item 1:
    /// on the 2-vCPU VM a pipe block's p50 moved ±13 % from one 20 ms
    /// block to the next while the line trip did not, and followed this
    /// probe). `None`: not probed (schema before 16, or the peer CPU did
    /// not answer).
    pub wake_rtt_ns: Option<f64>,
    /// What the probe took, ns: its cost to the run.
    pub cost_ns: u64,
    /// Probes `line_rtt_ns` is the median of: 1 for a block; a cell's
    /// blocks shown as one carry the median of theirs and their total cost.
    pub probes: u32,
}

/// Clock steps a timed sample spans at least, so that one step is at most
/// 1 % of it: below, a ping-pong cell is timed in batches (issue #15 item 4).
pub const RESOLVE_STEPS: f64 = 100.0;

/// One channel of a multi-channel cell. Every channel is counted over the
/// cell's common window `[T0, T1]`, so its throughput is `bytes` over the
/// cell's `elapsed_ns`, not over its own `active_ns` (docs/method.md,
/// "Channels").
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChannelData {
    /// 0 … N−1.
    pub channel: u32,
    /// Messages completed inside the common window.
    pub messages: u64,
    /// Payload bytes of those messages, host → peer.
    pub bytes: u64,
    /// From the common start T0 to this channel's first send, ns.
    pub start_offset_ns: u64,
    /// This channel's own active span: first send to its last counted
    /// completion, ns (what a per-thread timer would have measured).
    pub active_ns: u64,
    /// Round-trip time of each counted message (pingpong), ns.
    pub latency: Option<LatencyHistogram>,
}

impl ChannelData {
    /// Payload bytes per second over the common window `window_ns`.
    pub fn bytes_per_s(&self, window_ns: u64) -> f64 {
        if window_ns == 0 {
            return 0.0;
        }
        self.bytes as f64 * 1e9 / window_ns as f64
    }
}

/// The outcome of adaptive repetitions: the engine kept adding measured
/// phases to a ping-pong cell until the 95 % confidence interval of the
/// median was narrow enough, or the cell's time budget ran out.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Adaptive {
    /// Required half-width of the median's 95 % CI, relative to the median
    /// (0.02 for `--ci 2%`).
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub target_rel: f64,
    /// The half-width reached, relative to the median; NaN if no interval
    /// could be computed (fewer than 6 samples).
    #[serde(deserialize_with = "crate::nan::f64_or_nan")]
    pub achieved_rel: f64,
    /// Measured phases run (1 = the first phase was already enough).
    pub phases: u32,
    /// `true` if `achieved_rel <= target_rel`; `false` if the time budget
    /// ended first.
    pub reached: bool,
}

impl CellData {
    /// Messages per second over the measured window.
    pub fn msgs_per_s(&self) -> f64 {
        if self.elapsed_ns == 0 {
            return 0.0;
        }
        self.messages as f64 * 1e9 / self.elapsed_ns as f64
    }

    /// Payload bytes per second (one direction) over the measured window.
    pub fn bytes_per_s(&self) -> f64 {
        if self.elapsed_ns == 0 {
            return 0.0;
        }
        self.bytes as f64 * 1e9 / self.elapsed_ns as f64
    }
}

/// How a cell ended.
#[derive(Debug, Clone, Serialize, Deserialize)]
// One outcome per cell, made once and moved rarely: boxing the measured
// data would only add a hop at every use.
#[allow(clippy::large_enum_variant)]
pub enum CellOutcome {
    Measured(CellData),
    /// The cell could not be completed; the reason names what happened
    /// (timeout, peer died, corrupted echo …).
    Failed {
        reason: String,
    },
    /// The link cannot carry this size.
    NotApplicable {
        max_bytes: u64,
    },
}

impl CellOutcome {
    pub fn status_str(&self) -> &'static str {
        match self {
            CellOutcome::Measured(_) => "ok",
            CellOutcome::Failed { .. } => "failed",
            CellOutcome::NotApplicable { .. } => "n/a",
        }
    }
}

/// A cell and its outcome, as stored and shown.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellResult {
    pub key: CellKey,
    pub outcome: CellOutcome,
}
