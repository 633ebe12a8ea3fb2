//! The host side of the wire protocols spoken to a remote peer — firmware
//! on another core or MCU, or the host build of `firmware/` (icb-peer) —
//! over any link that can receive messages of a length the bytes announce
//! ([`icbench_link::Link::recv_some`]).
//!
//! - [`icb`]: icbench's frames v1 (docs/protocol.md §1): the HELLO → CAPS
//!   handshake, ECHO for ping-pong (fragmented when a message is larger than
//!   a frame), DATA with credits for stream, DATA × blocks then one ACK for
//!   bulk.
//! - [`dimtass`]: the seed-000/001 format (§3): a 6-byte header over the
//!   first bytes of the buffer, the 2-byte count as the only reply.
//! - [`raw`]: byte-exact echo (§4), for stock echo firmware.
//! - [`buffers`]: raw's stream, one way, on a link whose remote fills and
//!   checks shared buffers (`sdb:`): only descriptors on the link.
//!
//! The sampling loop ([`sampled`]) is shared: a probe, a discarded warm-up
//! and the measured phase, as the local patterns do (`pattern.rs`). Inside
//! the timed part nothing allocates, formats or logs; every buffer is sized
//! before the first sample.

pub(crate) mod buffers;
pub(crate) mod dimtass;
pub(crate) mod icb;
pub(crate) mod raw;

use std::sync::atomic::{AtomicU64, Ordering};

use icbench_link::Link;
use icbench_model::{CellData, LatencyHistogram};

use crate::pattern::{Budget, CellError, Sizing};

/// Samples taken to learn how long one takes.
const PROBE_SAMPLES: u32 = 8;
/// The fewest measured samples: remote links can be slow (a UART, an
/// emulator), so fewer than the local patterns' 50, but enough for a p99.
const MIN_SAMPLES: u64 = 20;

/// The probe, warm-up and count of [`sampled`] (and of a ping-pong channel
/// in the icb protocol): 4 groups of 2, at least [`MIN_SAMPLES`].
pub(crate) const SAMPLED: Sizing =
    Sizing { groups: 4, per_group: PROBE_SAMPLES / 4, min: MIN_SAMPLES, max: 5_000_000 };

/// Runs `one(seq)` — one timed exchange returning its duration in ns, its
/// result already verified — through probe, warm-up and measurement.
/// `bytes_per_sample` is the payload one sample carries host → peer.
pub(crate) fn sampled(
    link: &mut dyn Link,
    budget: &Budget,
    progress: &AtomicU64,
    bytes_per_sample: u64,
    mut one: impl FnMut(&mut dyn Link, u64) -> Result<u64, CellError>,
) -> Result<CellData, CellError> {
    let mut seq = 0u64;
    let mut run =
        |link: &mut dyn Link, n: u32, rec: Option<(&mut LatencyHistogram, &mut Vec<u64>)>| {
            let mut sum = 0u64;
            let mut rec = rec;
            for _ in 0..n {
                let ns = one(link, seq)?;
                seq += 1;
                progress.fetch_add(1, Ordering::Relaxed);
                sum += ns;
                if let Some((hist, raw)) = rec.as_mut() {
                    hist.record(ns);
                    if raw.capacity() > raw.len() {
                        raw.push(ns);
                    }
                }
            }
            Ok::<u64, CellError>(sum)
        };
    let paced = SAMPLED.run(budget, |n| run(link, n, None))?;
    let measure = paced.measure;
    let mut hist = LatencyHistogram::new();
    let mut raw = Vec::with_capacity(if budget.raw { measure as usize } else { 0 });
    let before = link.counters();
    let elapsed_ns = run(link, measure, Some((&mut hist, &mut raw)))?;
    let counters = link.counters().since(before);
    Ok(CellData {
        messages: u64::from(measure),
        bytes: u64::from(measure) * bytes_per_sample,
        elapsed_ns,
        warmup_messages: paced.warmup_messages,
        latency: Some(hist),
        raw_ns: budget.raw.then_some(raw),
        window: None,
        counters,
        channels: None,
        adaptive: None,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: paced.capped,
        timed_batch: None,
        state: None,
    })
}
