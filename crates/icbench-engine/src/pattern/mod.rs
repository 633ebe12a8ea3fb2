//! The host side of the patterns: ping-pong and stream (host → peer here,
//! peer → host in `stream_p2h.rs`). Each cell runs a
//! short probe to learn the message time, a warm-up that is discarded, and
//! the measured phase, whose length follows from the cell's time budget.
//!
//! Inside the timed loops: no allocation, no formatting, no logging
//! (ARCHITECTURE rule 7). Buffers, the histogram and the raw-sample vector
//! are sized before the loop; the echo is compared after the second clock
//! read, so verification is not part of the round trip.
//!
//! Split by stage: `sizing` (probe, warm-up, counts), `pingpong` (the
//! echo loop, one round trip or a batch per pair of clock reads), `stream`
//! (the credit loop).

mod pingpong;
mod sizing;
pub use sizing::MAX_STREAM_WINDOW;
mod stream;

pub(crate) use pingpong::Echoer;
pub use pingpong::pingpong;
pub(crate) use sizing::Sizing;
pub(crate) use stream::Streamer;
pub use stream::stream;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use icbench_link::{Link, LinkError};
use icbench_model::{CellData, Direction, LatencyHistogram};

use crate::clock::now_ns;
use crate::ctrl::{self, CREDIT_LEN, Op};
use crate::payload::{Payload, first_difference};
use crate::stream_p2h::Drainer;

/// Receive buffers are at least this large, so links that must receive into
/// a buffer of their own message size (POSIX queues) never copy.
pub(crate) const RX_MIN: usize = 64 << 10;
/// Messages of a ping-pong or oneway probe.
const PROBE_MESSAGES: u32 = 16;

/// Why a cell's measurement stopped.
#[derive(Debug, thiserror::Error)]
pub enum CellError {
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error(
        "corrupted echo: message {seq} of {size} B differs from what was sent at byte {offset}"
    )]
    Corrupt { seq: u64, size: usize, offset: usize },
    /// A oneway message arrived damaged (the receiver checked every byte
    /// but the clock stamp).
    #[error(
        "corrupted message: {direction} message {seq} of {size} B arrived differing from what \
         was sent at byte {offset}"
    )]
    CorruptOneWay { direction: &'static str, seq: u64, size: usize, offset: usize },
    /// The receiver of a oneway message read an earlier time than the
    /// sender's stamp: the two CPUs do not share one clock.
    #[error(
        "the clock went backwards: in {backwards} of {messages} messages {direction} the \
         receiver read an earlier time than the sender's stamp (by up to {worst_ns} ns); \
         one-way times between these CPUs cannot be trusted"
    )]
    ClockWentBack { direction: &'static str, backwards: u64, messages: u64, worst_ns: u64 },
    /// A message the peer streamed to the host (stream peer → host)
    /// arrived damaged; the host checked every byte.
    #[error(
        "corrupted message: peer → host stream message {seq} of {size} B differs from the \
         expected payload at byte {offset}"
    )]
    CorruptStream { seq: u64, size: usize, offset: usize },
    #[error("the peer received {bad} of {count} messages corrupted")]
    PeerSawCorruption { bad: u32, count: u32 },
    #[error("pattern '{0}' is not measured over a link: use `icbench timer` or `icbench wakeup`")]
    NotALinkPattern(icbench_model::Pattern),
    /// The peer broke the wire protocol: garbage, a bad CRC, a wrong count,
    /// an unexpected frame. The text names what arrived.
    #[error("{0}")]
    Wire(String),
    /// A wait was cut short (by the watchdog) while waiting for `waiting`.
    #[error("aborted while {waiting}")]
    Stalled { waiting: String },
    /// The peer or the link cannot do what the cell asks.
    #[error("{0}")]
    Unsupported(String),
}

/// What a pattern needs from the cell's settings.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub cell_time: Duration,
    pub raw: bool,
    pub window: u32,
    /// Adaptive repetitions (`icbench run --ci`): keep adding measured
    /// phases to a ping-pong cell until the 95 % CI half-width of the
    /// median, relative to the median, is at most this (0.02 = 2 %) ...
    pub ci_target: Option<f64>,
    /// ... or until the cell has measured this long in all.
    pub ci_max_time: Duration,
    /// (testing) Channel i of a multi-channel cell starts i × this after
    /// the common start, to show that late starters do not inflate the
    /// total (`--channel-stagger`). Zero otherwise.
    pub channel_stagger: Duration,
    /// The clock's granule measured at the head of the run
    /// ([`crate::clock::granule_ns`]); a ping-pong cell whose round trip is
    /// under [`RESOLVE`] granules is timed in batches ([`batch_for`]). 0 (or
    /// NaN) times every round trip on its own.
    pub clock_granule_ns: f64,
}

/// Granules a timed sample spans at least ([`icbench_model::RESOLVE_STEPS`]).
pub const RESOLVE: f64 = icbench_model::RESOLVE_STEPS;
/// The most round trips one pair of clock reads spans.
pub const MAX_BATCH: u32 = 1_024;

/// Round trips per pair of clock reads for a link whose round trip takes
/// `per_trip_ns`, on a clock of `granule_ns`: enough that a batch spans
/// [`RESOLVE`] granules, so its mean is resolved to 1 %; 1 when a single
/// round trip already is.
pub fn batch_for(per_trip_ns: f64, granule_ns: f64) -> u32 {
    if !(granule_ns > 0.0 && per_trip_ns > 0.0) {
        return 1;
    }
    let want = (RESOLVE * granule_ns / per_trip_ns).ceil();
    if want >= f64::from(MAX_BATCH) { MAX_BATCH } else { (want as u32).max(1) }
}

/// The median's 95 % CI half-width relative to the median, from the
/// histogram (order statistics); NaN with fewer than 6 samples.
pub(crate) fn median_ci_rel(h: &LatencyHistogram) -> f64 {
    let Some(b) = icbench_stats::Buckets::new(h) else { return f64::NAN };
    match (b.median_ci95(), b.summary()) {
        (Some(ci), s) if s.p50 > 0.0 => ci.relative_half_width(s.p50),
        _ => f64::NAN,
    }
}
