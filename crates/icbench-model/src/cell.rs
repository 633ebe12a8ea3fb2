//! A cell (one point of an experiment) and what measuring it produced.

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
}

impl Pattern {
    pub const ALL: [Pattern; 2] = [Pattern::PingPong, Pattern::Stream];

    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::PingPong => "pingpong",
            Pattern::Stream => "stream",
        }
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown pattern '{0}': use pingpong or stream")]
pub struct PatternParseError(pub String);

impl std::str::FromStr for Pattern {
    type Err = PatternParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "pingpong" => Ok(Pattern::PingPong),
            "stream" => Ok(Pattern::Stream),
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
    /// Payload bytes per message.
    pub size_bytes: u64,
}

/// The data of a measured cell.
#[derive(Debug, Clone)]
pub struct CellData {
    /// Messages in the measured window (warm-up excluded).
    pub messages: u64,
    /// Payload bytes carried host → peer in the measured window.
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
#[derive(Debug, Clone)]
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
#[derive(Debug, Clone)]
pub struct CellResult {
    pub key: CellKey,
    pub outcome: CellOutcome,
}
