//! One channel's loops: probe and warm-up alone, the gate, then chunks of
//! messages until the stop rule holds, each message counted by its
//! completion time ([`Meter`]). On the link runs icbench's own peer's loop
//! (`pattern.rs`: `Echoer`, `Streamer`) or the icb protocol's
//! (`remote::icb`: `Echoes`, `Sink`), the bodies single-link cells run:
//! every echo is verified byte for byte (icb stream: every frame's CRC by
//! the peer, every ACK's byte count), and nothing allocates, formats or
//! logs inside a chunk.

use std::sync::atomic::AtomicU64;

use icbench_link::Link;
use icbench_model::{ChannelData, LatencyHistogram, LinkCounters, Pattern};

use super::gate::Entry;
use super::meter::{Meter, StopRule};
use super::{CHUNK_NS, Ctx, Measured, RAW_RESERVE_MAX, nanos};
use crate::CellSpec;
use crate::pattern::{Budget, CellError, Echoer, Sizing, Streamer};
use crate::remote::{self, icb, icb::Icb};

/// Round trips on a channel's link.
enum Trips<'a> {
    /// icbench's own peer: `Echo{size, count}` per chunk, then the echoes.
    Own(Echoer),
    /// An icb responder: one ECHO per message (fragmented above a frame).
    Icb(icb::Echoes<'a>),
}

impl Trips<'_> {
    /// The probe, warm-up and count a single-link cell of the kind uses.
    fn sizing(&self) -> Sizing {
        match self {
            Trips::Own(_) => Sizing::ONE_AT_A_TIME,
            Trips::Icb(_) => remote::SAMPLED,
        }
    }

    /// `count` round trips, each verified; `each(t0, t1)` gets the clock
    /// reads before the send and after the reply.
    #[inline]
    fn phase(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
        each: &mut impl FnMut(u64, u64),
    ) -> Result<(), CellError> {
        match self {
            Trips::Own(e) => e.phase(link, count, progress, each),
            Trips::Icb(e) => {
                for _ in 0..count {
                    let (t0, t1) = e.one(link, progress)?;
                    each(t0, t1);
                }
                Ok(())
            }
        }
    }

    /// A phase whose round trips are only summed (probe, warm-up), ns.
    fn timed(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
    ) -> Result<u64, CellError> {
        let mut sum = 0u64;
        self.phase(link, count, progress, &mut |t0, t1| sum += t1.saturating_sub(t0))?;
        Ok(sum)
    }
}

/// A stream with credits on a channel's link.
enum Flow<'a> {
    /// icbench's own peer: `Sink`, a credit every `window / 2` messages.
    Own(Streamer),
    /// An icb responder: DATA within its credits, an ACK ending each chunk.
    Icb(icb::Sink<'a>),
}

impl Flow<'_> {
    fn sizing(&self) -> Sizing {
        match self {
            Flow::Own(s) => Sizing::stream(s.window()),
            Flow::Icb(_) => icb::SINK_SIZING,
        }
    }

    /// Messages in flight at most.
    fn window(&self) -> u32 {
        match self {
            Flow::Own(s) => s.window(),
            Flow::Icb(s) => s.window(),
        }
    }

    /// `count` messages; `each(acked, t)` as acknowledgements arrive: the
    /// messages of this phase acknowledged so far, and when. Returns the
    /// clock reads before the first send and at the last acknowledgement.
    #[inline]
    fn phase(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
        each: &mut impl FnMut(u64, u64),
    ) -> Result<(u64, u64), CellError> {
        match self {
            Flow::Own(s) => s.phase(link, count, progress, &mut |a, t| each(u64::from(a), t)),
            Flow::Icb(s) => s.phase(link, count, progress, each),
        }
    }

    /// A phase timed as a whole, ns.
    fn timed(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
    ) -> Result<u64, CellError> {
        let (t0, t1) = self.phase(link, count, progress, &mut |_, _| {})?;
        Ok(t1.saturating_sub(t0))
    }
}

/// Probe, warm-up, the gate, then the measured chunks, with icbench's own
/// peer or (`icb`: the session's handshaken conversation) an icb
/// responder. `Ok(None)`: the gate or another channel said quit.
pub(super) fn drive(
    ctx: &Ctx<'_>,
    i: u32,
    link: &mut dyn Link,
    icb: Option<&mut Icb>,
    progress: &AtomicU64,
) -> Result<Option<Measured>, CellError> {
    let size = ctx.cell.size_bytes as usize;
    match (ctx.cell.pattern, icb) {
        (Pattern::PingPong, None) => {
            let echo = Echoer::new(link, size);
            pingpong(ctx, i, link, Trips::Own(echo), progress)
        }
        (Pattern::PingPong, Some(icb)) => {
            pingpong(ctx, i, link, Trips::Icb(icb.echoes(size)?), progress)
        }
        (Pattern::Stream, None) => {
            let st = Streamer::new(size, ctx.cfg.budget.window);
            stream(ctx, i, link, Flow::Own(st), progress)
        }
        (Pattern::Stream, Some(icb)) => stream(ctx, i, link, Flow::Icb(icb.sink(size)?), progress),
        (p, _) => Err(CellError::Unsupported(format!("pattern {p} does not run on channels"))),
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
    mut trips: Trips<'_>,
    progress: &AtomicU64,
) -> Result<Option<Measured>, CellError> {
    let (cell, budget, stop) = (ctx.cell, &ctx.cfg.budget, ctx.cfg.stop);
    let size = cell.size_bytes;
    let per = trips.sizing().run(budget, |n| trips.timed(link, n, progress))?.per_msg_ns;
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
        let mut m = Meter::start(t0, i, budget.channel_stagger, stop_rule(cell, budget, t0), size);
        let mut hist = LatencyHistogram::new();
        while let Some(n) = m.next_chunk(chunk, || ctx.gate.quitting(stop)) {
            if let Some(raw) = &mut raw {
                raw.reserve(n as usize);
            }
            let end = m.end;
            trips.phase(link, n, progress, &mut |a, b| {
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
    Ok(kept.map(|data| Measured {
        data,
        counters: LinkCounters::default(),
        raw_ns: raw,
        window: None,
    }))
}

/// Stream on one channel: probe and warm-up, then one measured phase, each
/// credit counted by its arrival time.
fn stream(
    ctx: &Ctx<'_>,
    i: u32,
    link: &mut dyn Link,
    mut flow: Flow<'_>,
    progress: &AtomicU64,
) -> Result<Option<Measured>, CellError> {
    let (cell, budget, stop) = (ctx.cell, &ctx.cfg.budget, ctx.cfg.stop);
    let size = cell.size_bytes;
    let w = flow.window();
    let per = flow.sizing().run(budget, |n| flow.timed(link, n, progress))?.per_msg_ns;
    let chunk = chunk_of(per, w * 8);
    let Entry::Start(t0) = ctx.gate.arrive(1, progress, stop) else { return Ok(None) };
    let mut m = Meter::start(t0, i, budget.channel_stagger, stop_rule(cell, budget, t0), size);
    while let Some(n) = m.next_chunk(chunk, || ctx.gate.quitting(stop)) {
        let (end, base) = (m.end, m.base);
        let (first, _) = flow.phase(link, n, progress, &mut |acked, t| {
            if t <= end {
                m.count_to(base + acked, t);
            }
        })?;
        m.first_send(first);
        m.base += u64::from(n);
    }
    Ok(m.finish(None).map(|data| Measured {
        data,
        counters: LinkCounters::default(),
        raw_ns: None,
        window: Some(w),
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
