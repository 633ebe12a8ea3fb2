//! The host side of the patterns: ping-pong and stream. Each cell runs a
//! short probe to learn the message time, a warm-up that is discarded, and
//! the measured phase, whose length follows from the cell's time budget.
//!
//! Inside the timed loops: no allocation, no formatting, no logging
//! (ARCHITECTURE rule 7). Buffers, the histogram and the raw-sample vector
//! are sized before the loop; the echo is compared after the second clock
//! read, so verification is not part of the round trip.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use icbench_link::{Link, LinkError};
use icbench_model::{CellData, LatencyHistogram};

use crate::clock::now_ns;
use crate::ctrl::{self, CREDIT_LEN, Op};
use crate::payload::{Payload, first_difference};

/// Receive buffers are at least this large, so links that must receive into
/// a buffer of their own message size (POSIX queues) never copy.
const RX_MIN: usize = 64 << 10;
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
}

/// The median's 95 % CI half-width relative to the median, from the
/// histogram (order statistics); NaN with fewer than 6 samples.
fn median_ci_rel(h: &LatencyHistogram) -> f64 {
    match (icbench_stats::median_ci95_hist(h), icbench_stats::Summary::from_histogram(h)) {
        (Some(ci), Some(s)) if s.p50 > 0.0 => ci.relative_half_width(s.p50),
        _ => f64::NAN,
    }
}

pub(crate) fn counts(per_msg_ns: f64, budget: &Budget, min: u64, max: u64) -> (u32, u32) {
    let per = per_msg_ns.max(1.0);
    let measure = (budget.cell_time.as_nanos() as f64 / per) as u64;
    let measure = measure.clamp(min, max);
    let warm = (measure / 5).clamp(min.min(16), 100_000);
    (warm as u32, measure as u32)
}

/// Ping-pong: `size`-byte messages echoed one at a time.
pub fn pingpong(
    link: &mut dyn Link,
    size: usize,
    budget: &Budget,
    progress: &AtomicU64,
) -> Result<CellData, CellError> {
    let payload = Payload::new(size);
    let mut tx = payload.buffer();
    let mut rx = vec![0u8; size.max(RX_MIN)];
    let zero_copy = link.caps().zero_copy;
    let mut phase =
        |link: &mut dyn Link,
         count: u32,
         mut rec: Option<(&mut LatencyHistogram, &mut Vec<u64>, bool)>| {
            link.send(&Op::Echo { size: size as u32, count }.encode())?;
            let mut sum = 0u64;
            for seq in 0..u64::from(count) {
                Payload::stamp(&mut tx, seq);
                let (t0, t1, same) = if zero_copy {
                    let t0 = now_ns();
                    link.send_with(size, &mut rx, &mut |b| b.copy_from_slice(&tx))?;
                    let mut t1 = 0;
                    let mut same = false;
                    link.recv_with(size, &mut rx, &mut |m| {
                        t1 = now_ns();
                        same = m == &tx[..];
                    })?;
                    (t0, t1, same)
                } else {
                    let t0 = now_ns();
                    link.send(&tx)?;
                    link.recv(&mut rx, size)?;
                    let t1 = now_ns();
                    (t0, t1, rx[..size] == tx[..])
                };
                progress.store(seq + 1, Ordering::Relaxed);
                if !same {
                    let offset =
                        if zero_copy { 0 } else { first_difference(&rx[..size], &tx).unwrap_or(0) };
                    return Err(CellError::Corrupt { seq, size, offset });
                }
                let rtt = t1.saturating_sub(t0);
                sum += rtt;
                if let Some((hist, raw, keep)) = rec.as_mut() {
                    hist.record(rtt);
                    if *keep {
                        raw.push(rtt);
                    }
                }
            }
            Ok::<u64, CellError>(sum)
        };
    let probe = phase(link, PROBE_MESSAGES, None)?;
    let (warm, measure) = counts(probe as f64 / f64::from(PROBE_MESSAGES), budget, 50, 5_000_000);
    phase(link, warm, None)?;
    let mut hist = LatencyHistogram::new();
    let mut raw = Vec::with_capacity(if budget.raw { measure as usize } else { 0 });
    let before = link.counters();
    let mut elapsed_ns = phase(link, measure, Some((&mut hist, &mut raw, budget.raw)))?;
    let mut messages = u64::from(measure);
    let mut adaptive = None;
    if let Some(target) = budget.ci_target {
        // Further phases of the same length, each appended to the same
        // histogram, until the median is pinned down or time is up. The
        // check runs between phases, never inside the timed loop.
        let mut phases = 1u32;
        let mut rel = median_ci_rel(&hist);
        let max_ns = budget.ci_max_time.as_nanos().min(u128::from(u64::MAX)) as u64;
        // NaN (no interval yet) keeps measuring.
        while (rel.is_nan() || rel > target) && elapsed_ns < max_ns {
            if budget.raw {
                raw.reserve(measure as usize);
            }
            elapsed_ns += phase(link, measure, Some((&mut hist, &mut raw, budget.raw)))?;
            messages += u64::from(measure);
            phases += 1;
            rel = median_ci_rel(&hist);
        }
        adaptive = Some(icbench_model::Adaptive {
            target_rel: target,
            achieved_rel: rel,
            phases,
            reached: rel <= target,
        });
    }
    let counters = link.counters().since(before);
    Ok(CellData {
        messages,
        bytes: messages * size as u64,
        elapsed_ns,
        warmup_messages: u64::from(PROBE_MESSAGES + warm),
        latency: Some(hist),
        raw_ns: budget.raw.then_some(raw),
        window: None,
        counters,
        channels: None,
        adaptive,
        per_channel: Vec::new(),
    })
}

/// Stream: up to `window` messages in flight, the peer returning a credit
/// every `window / 2` messages; throughput over the whole phase.
pub fn stream(
    link: &mut dyn Link,
    size: usize,
    budget: &Budget,
    progress: &AtomicU64,
) -> Result<CellData, CellError> {
    let payload = Payload::new(size);
    let mut tx = payload.buffer();
    let mut credit = [0u8; RX_MIN];
    let window = budget.window.max(2);
    // At most two credits are ever unread, so a link whose reverse direction
    // holds two messages cannot deadlock (the peer blocked sending a credit
    // while the host is blocked sending data).
    let credit_every = window / 2;
    let mut phase = |link: &mut dyn Link, count: u32| -> Result<u64, CellError> {
        link.send(&Op::Sink { size: size as u32, count, credit_every }.encode())?;
        let (mut sent, mut acked) = (0u32, 0u32);
        let t0 = now_ns();
        while acked < count {
            while sent < count && sent - acked < window {
                Payload::stamp(&mut tx, u64::from(sent));
                link.send(&tx)?;
                sent += 1;
            }
            link.recv(&mut credit, CREDIT_LEN)?;
            let (received, bad) = ctrl::decode_credit(&credit);
            if bad > 0 {
                return Err(CellError::PeerSawCorruption { bad, count: received });
            }
            acked = received;
            progress.fetch_add(1, Ordering::Relaxed);
        }
        Ok(now_ns() - t0)
    };
    let probe_count = window * 2;
    let probe = phase(link, probe_count)?;
    let (warm, measure) =
        counts(probe as f64 / f64::from(probe_count), budget, u64::from(window) * 4, 50_000_000);
    phase(link, warm)?;
    let before = link.counters();
    let elapsed_ns = phase(link, measure)?;
    let counters = link.counters().since(before);
    Ok(CellData {
        messages: u64::from(measure),
        bytes: u64::from(measure) * size as u64,
        elapsed_ns,
        warmup_messages: u64::from(probe_count + warm),
        latency: None,
        raw_ns: None,
        window: Some(window),
        counters,
        channels: None,
        adaptive: None,
        per_channel: Vec::new(),
    })
}
