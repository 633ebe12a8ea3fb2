//! One channel's loops: probe and warm-up alone, the gate, then chunks of
//! messages until the stop rule holds, each message counted by its
//! completion time ([`Meter`]). The loop bodies are the single-link ones
//! (`pattern.rs`: `Echoer`, `Streamer`): every echo is verified byte for
//! byte, and nothing allocates, formats or logs inside a chunk.

use std::sync::atomic::AtomicU64;

use icbench_link::Link;
use icbench_model::{ChannelData, LatencyHistogram, LinkCounters, Pattern};

use super::gate::Entry;
use super::meter::{Meter, StopRule};
use super::{CHUNK_NS, Ctx, Measured, RAW_RESERVE_MAX, nanos};
use crate::CellSpec;
use crate::pattern::{Budget, CellError, Echoer, Sizing, Streamer};

/// Probe, warm-up, the gate, then the measured chunks. `Ok(None)`: the
/// gate or another channel said quit.
pub(super) fn drive(
    ctx: &Ctx<'_>,
    i: u32,
    link: &mut dyn Link,
    progress: &AtomicU64,
) -> Result<Option<Measured>, CellError> {
    match ctx.cell.pattern {
        Pattern::PingPong => pingpong(ctx, i, link, progress),
        Pattern::Stream => stream(ctx, i, link, progress),
        p => Err(CellError::Unsupported(format!("pattern {p} does not run on channels"))),
    }
}

/// The stop rule of a phase that starts at `t0`: T1 = T0 + cell time, or
/// the cell's transfer in whole messages.
fn stop_rule(cell: CellSpec, budget: &Budget, t0: u64) -> StopRule {
    match cell.transfer_bytes {
        Some(t) => StopRule::Messages(t.div_ceil(cell.size_bytes.max(1))),
        None => StopRule::At(t0 + nanos(budget.cell_time)),
    }
}

/// Raw samples to make room for before a phase: the transfer's messages,
/// or what the cell time holds at the probe's pace (channels sharing a CPU
/// go slower, so this is generous), at most [`RAW_RESERVE_MAX`].
fn raw_room(cell: CellSpec, budget: &Budget, per_msg_ns: f64) -> usize {
    let n = match cell.transfer_bytes {
        Some(t) => t.div_ceil(cell.size_bytes.max(1)),
        None => (nanos(budget.cell_time) as f64 / per_msg_ns.max(1.0)) as u64 + 1,
    };
    n.min(RAW_RESERVE_MAX) as usize
}

/// Ping-pong on one channel: probe and warm-up, then a measured phase each
/// time the gate opens (once, or per adaptive phase), each round trip
/// counted by its completion time.
fn pingpong(
    ctx: &Ctx<'_>,
    i: u32,
    link: &mut dyn Link,
    progress: &AtomicU64,
) -> Result<Option<Measured>, CellError> {
    let (cell, budget, stop) = (ctx.cell, &ctx.cfg.budget, ctx.cfg.stop);
    let size = cell.size_bytes as usize;
    let mut echo = Echoer::new(link, size);
    let per = Sizing::ONE_AT_A_TIME.run(budget, |n| echo.timed(link, n, progress))?.per_msg_ns;
    let chunk = chunk_of(per, 1);
    let mut raw = budget.raw.then(Vec::new);
    let mut kept: Option<ChannelData> = None;
    for phase in 1u32.. {
        if let Some(raw) = &mut raw {
            raw.reserve(raw_room(cell, budget, per));
        }
        let t0 = match ctx.gate.arrive(phase, progress, stop) {
            Entry::Start(t0) => t0,
            Entry::Done => break,
            Entry::Quit => return Ok(None),
        };
        let mut m =
            Meter::start(t0, i, budget.channel_stagger, stop_rule(cell, budget, t0), size as u64);
        let mut hist = LatencyHistogram::new();
        while let Some(n) = m.next_chunk(chunk, || ctx.gate.quitting(stop)) {
            if let Some(raw) = &mut raw {
                raw.reserve(n as usize);
            }
            let end = m.end;
            echo.phase(link, n, progress, &mut |a, b| {
                m.first_send(a);
                if b <= end {
                    let rtt = b.saturating_sub(a);
                    hist.record(rtt);
                    if let Some(raw) = &mut raw {
                        raw.push(rtt);
                    }
                    m.count_to(m.base + 1, b);
                }
                m.base += 1;
            })?;
        }
        let Some(data) = m.finish(Some(hist)) else { return Ok(None) };
        if ctx.ci_target.is_none() {
            kept = Some(data);
            break;
        }
        if let Some(h) = &data.latency {
            ctx.pooled.lock().expect("pooled histogram").merge(h);
        }
        kept = Some(match kept {
            None => data,
            Some(acc) => add_phase(acc, data),
        });
    }
    Ok(kept.map(|data| Measured { data, counters: LinkCounters::default(), raw_ns: raw }))
}

/// Stream on one channel: probe and warm-up, then one measured phase, each
/// credit counted by its arrival time.
fn stream(
    ctx: &Ctx<'_>,
    i: u32,
    link: &mut dyn Link,
    progress: &AtomicU64,
) -> Result<Option<Measured>, CellError> {
    let (cell, budget, stop) = (ctx.cell, &ctx.cfg.budget, ctx.cfg.stop);
    let size = cell.size_bytes as usize;
    let mut st = Streamer::new(size, budget.window);
    let w = st.window();
    let per = Sizing::stream(w).run(budget, |n| st.timed(link, n, progress))?.per_msg_ns;
    let chunk = chunk_of(per, w * 8);
    let Entry::Start(t0) = ctx.gate.arrive(1, progress, stop) else { return Ok(None) };
    let mut m =
        Meter::start(t0, i, budget.channel_stagger, stop_rule(cell, budget, t0), size as u64);
    while let Some(n) = m.next_chunk(chunk, || ctx.gate.quitting(stop)) {
        let (end, base) = (m.end, m.base);
        let (first, _) = st.phase(link, n, progress, &mut |acked, t| {
            if t <= end {
                m.count_to(base + u64::from(acked), t);
            }
        })?;
        m.first_send(first);
        m.base += u64::from(n);
    }
    Ok(m.finish(None).map(|data| Measured {
        data,
        counters: LinkCounters::default(),
        raw_ns: None,
    }))
}

/// A channel's data over one more phase: messages, bytes and active spans
/// added, the first phase's start offset, the histograms merged.
fn add_phase(mut acc: ChannelData, next: ChannelData) -> ChannelData {
    acc.messages += next.messages;
    acc.bytes += next.bytes;
    acc.active_ns += next.active_ns;
    acc.latency = match (acc.latency, next.latency) {
        (Some(mut a), Some(b)) => {
            a.merge(&b);
            Some(a)
        }
        (a, b) => a.or(b),
    };
    acc
}

/// Messages per chunk: about [`CHUNK_NS`] at the probe's pace, at least `min`.
pub(super) fn chunk_of(per_msg_ns: f64, min: u32) -> u32 {
    const MAX: u32 = 1 << 20;
    ((CHUNK_NS / per_msg_ns.max(1.0)) as u32).clamp(min.clamp(1, MAX), MAX)
}
