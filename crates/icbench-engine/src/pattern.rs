//! The host side of the patterns: ping-pong and stream (host → peer here,
//! peer → host in `stream_p2h.rs`). Each cell runs a
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
}

/// The median's 95 % CI half-width relative to the median, from the
/// histogram (order statistics); NaN with fewer than 6 samples.
pub(crate) fn median_ci_rel(h: &LatencyHistogram) -> f64 {
    match (icbench_stats::median_ci95_hist(h), icbench_stats::Summary::from_histogram(h)) {
        (Some(ci), Some(s)) if s.p50 > 0.0 => ci.relative_half_width(s.p50),
        _ => f64::NAN,
    }
}

/// A link's pace, ns per message, from a probe run as `groups` timed
/// phases of `per_group` messages: the median group's. A single hiccup in
/// one whole-probe sum (a preemption, a page fault) could make a cell
/// measure a thousandth of what its time allows: a 60 ms oneway cell once
/// counted 50 messages after a 16-message probe that had caught one, against
/// 103 281 in the other direction. `phase(count)` returns its elapsed ns.
pub(crate) fn probe_pace<E>(
    groups: usize,
    per_group: u32,
    mut phase: impl FnMut(u32) -> Result<u64, E>,
) -> Result<f64, E> {
    const MAX_GROUPS: usize = 8;
    let groups = groups.clamp(1, MAX_GROUPS);
    let mut ns = [0u64; MAX_GROUPS];
    for t in &mut ns[..groups] {
        *t = phase(per_group)?;
    }
    let ns = &mut ns[..groups];
    ns.sort_unstable();
    Ok(ns[groups / 2] as f64 / f64::from(per_group.max(1)))
}

/// The pace again after the warm-up, which is some hundred times longer
/// than the probe: the faster of the two. A probe that a cold start (fresh
/// ring pages, a first wake-up) slowed in every group would otherwise cut
/// the cell short: shm 64 B stream cells measured 0.1–0.3 ms of a 200 ms
/// cell time (2026-11-22). Hiccups only ever slow a phase, so the smaller
/// estimate is the better one.
pub(crate) fn refine_pace(probe_per_ns: f64, warm_ns: u64, warm: u32) -> f64 {
    if warm == 0 {
        return probe_per_ns;
    }
    probe_per_ns.min(warm_ns as f64 / f64::from(warm))
}

/// How a cell learns its link's pace before it measures: a probe of
/// `groups` timed phases of `per_group` messages ([`probe_pace`]), then a
/// warm-up of a fifth of the count the probe suggests, whose pace corrects
/// the probe's ([`refine_pace`]); the count is bounded by `min` and `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sizing {
    pub groups: usize,
    pub per_group: u32,
    pub min: u64,
    pub max: u64,
}

/// What [`Sizing::run`] learnt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Paced {
    /// Messages of the probe and the warm-up, discarded.
    pub warmup_messages: u64,
    /// Messages to measure to fill the cell time.
    pub measure: u32,
    /// The pace, ns a message.
    pub per_msg_ns: f64,
    /// The count was cut to the sizing's `max`: the cell time asked for
    /// more messages (issue #15: a 2 s shm cell once measured 0.8 s and
    /// said nothing). The cell reports it as `cut_at_messages`.
    pub capped: Option<u64>,
}

impl Sizing {
    /// Ping-pong and oneway: [`PROBE_MESSAGES`] in 4 groups, at least 50
    /// measured.
    pub(crate) const ONE_AT_A_TIME: Sizing =
        Sizing { groups: 4, per_group: PROBE_MESSAGES / 4, min: 50, max: 5_000_000 };

    /// Stream: 3 groups of two windows, at least four windows measured.
    pub(crate) fn stream(window: u32) -> Sizing {
        Sizing { groups: 3, per_group: window * 2, min: u64::from(window) * 4, max: 50_000_000 }
    }

    /// The probe and the warm-up, through `phase(count)`, which runs
    /// `count` messages and returns their time, ns.
    pub(crate) fn run<E>(
        self,
        budget: &Budget,
        mut phase: impl FnMut(u32) -> Result<u64, E>,
    ) -> Result<Paced, E> {
        let probe = probe_pace(self.groups, self.per_group, &mut phase)?;
        let (warm, _) = counts(probe, budget, self.min, self.max);
        let per_msg_ns = refine_pace(probe, phase(warm)?, warm);
        let (_, measure) = counts(per_msg_ns, budget, self.min, self.max);
        let probed = self.groups as u64 * u64::from(self.per_group);
        let wanted = budget.cell_time.as_nanos() as f64 / per_msg_ns.max(1.0);
        let capped =
            (u64::from(measure) == self.max && wanted > self.max as f64).then_some(self.max);
        Ok(Paced { warmup_messages: probed + u64::from(warm), measure, per_msg_ns, capped })
    }
}

pub(crate) fn counts(per_msg_ns: f64, budget: &Budget, min: u64, max: u64) -> (u32, u32) {
    let per = per_msg_ns.max(1.0);
    let measure = (budget.cell_time.as_nanos() as f64 / per) as u64;
    let measure = measure.clamp(min, max);
    let warm = (measure / 5).clamp(min.min(16), 100_000);
    (warm as u32, measure as u32)
}

/// The ping-pong loop: `size`-byte messages echoed one at a time, each
/// verified byte for byte. One body serves single-link cells and each
/// channel of a multi-channel cell (`channels.rs`); what is kept of each
/// round trip is up to the caller's `each(t0, t1)`, called after the echo is
/// verified with the clock reads before the send and after the reply.
pub(crate) struct Echoer {
    size: usize,
    tx: Vec<u8>,
    rx: Vec<u8>,
    zero_copy: bool,
    /// Echoes completed in all phases, for the watchdog's progress counter.
    done: u64,
}

impl Echoer {
    pub(crate) fn new(link: &dyn Link, size: usize) -> Echoer {
        Echoer {
            size,
            tx: Payload::new(size).buffer(),
            rx: vec![0u8; size.max(RX_MIN)],
            zero_copy: link.caps().zero_copy,
            done: 0,
        }
    }

    /// One phase: asks the peer to echo `count` messages, then sends and
    /// checks each. No allocation inside.
    #[inline]
    pub(crate) fn phase(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
        each: &mut impl FnMut(u64, u64),
    ) -> Result<(), CellError> {
        let size = self.size;
        let (tx, rx) = (&mut self.tx, &mut self.rx);
        link.send(&Op::Echo { size: size as u32, count }.encode())?;
        for seq in 0..u64::from(count) {
            Payload::stamp(tx, seq);
            let (t0, t1, same) = if self.zero_copy {
                let t0 = now_ns();
                link.send_with(size, rx, &mut |b| b.copy_from_slice(tx))?;
                let mut t1 = 0;
                let mut same = false;
                link.recv_with(size, rx, &mut |m| {
                    t1 = now_ns();
                    same = m == &tx[..];
                })?;
                (t0, t1, same)
            } else {
                let t0 = now_ns();
                link.send(tx)?;
                link.recv(rx, size)?;
                let t1 = now_ns();
                (t0, t1, rx[..size] == tx[..])
            };
            self.done += 1;
            progress.store(self.done, Ordering::Relaxed);
            if !same {
                let offset =
                    if self.zero_copy { 0 } else { first_difference(&rx[..size], tx).unwrap_or(0) };
                return Err(CellError::Corrupt { seq, size, offset });
            }
            each(t0, t1);
        }
        Ok(())
    }

    /// A phase whose round trips are only summed (probe, warm-up), ns.
    pub(crate) fn timed(
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

/// Ping-pong: `size`-byte messages echoed one at a time.
pub fn pingpong(
    link: &mut dyn Link,
    size: usize,
    budget: &Budget,
    progress: &AtomicU64,
) -> Result<CellData, CellError> {
    let mut echo = Echoer::new(link, size);
    // Each round trip into the histogram, and into `raw` with --raw.
    let phase = |echo: &mut Echoer,
                 link: &mut dyn Link,
                 count: u32,
                 hist: &mut LatencyHistogram,
                 raw: &mut Vec<u64>| {
        let mut sum = 0u64;
        echo.phase(link, count, progress, &mut |t0, t1| {
            let rtt = t1.saturating_sub(t0);
            sum += rtt;
            hist.record(rtt);
            if budget.raw {
                raw.push(rtt);
            }
        })?;
        Ok::<u64, CellError>(sum)
    };
    let paced = Sizing::ONE_AT_A_TIME.run(budget, |n| echo.timed(link, n, progress))?;
    let measure = paced.measure;
    let mut hist = LatencyHistogram::new();
    let mut raw = Vec::with_capacity(if budget.raw { measure as usize } else { 0 });
    let before = link.counters();
    let mut elapsed_ns = phase(&mut echo, link, measure, &mut hist, &mut raw)?;
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
            elapsed_ns += phase(&mut echo, link, measure, &mut hist, &mut raw)?;
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
        warmup_messages: paced.warmup_messages,
        latency: Some(hist),
        raw_ns: budget.raw.then_some(raw),
        window: None,
        counters,
        channels: None,
        adaptive,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: if adaptive.is_none() { paced.capped } else { None },
    })
}

/// The stream loop: up to `window` messages in flight, the peer checking
/// each and returning a credit every `window / 2`. One body serves
/// single-link cells and each channel of a multi-channel cell; the caller's
/// `each(acked, t)` sees every credit with the messages acknowledged so far
/// in the phase and the clock read when it arrived.
pub(crate) struct Streamer {
    size: usize,
    tx: Vec<u8>,
    credit: Vec<u8>,
    window: u32,
    credit_every: u32,
}

impl Streamer {
    pub(crate) fn new(size: usize, window: u32) -> Streamer {
        let window = window.max(2);
        // At most two credits are ever unread, so a link whose reverse
        // direction holds two messages cannot deadlock (the peer blocked
        // sending a credit while the host is blocked sending data).
        Streamer {
            size,
            tx: Payload::new(size).buffer(),
            credit: vec![0u8; RX_MIN],
            window,
            credit_every: window / 2,
        }
    }

    pub(crate) fn window(&self) -> u32 {
        self.window
    }

    /// One phase of `count` messages; returns the clock reads before the
    /// first send and after the last credit. No allocation inside.
    #[inline]
    pub(crate) fn phase(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
        each: &mut impl FnMut(u32, u64),
    ) -> Result<(u64, u64), CellError> {
        let (size, window) = (self.size, self.window);
        link.send(
            &Op::Sink { size: size as u32, count, credit_every: self.credit_every }.encode(),
        )?;
        let (mut sent, mut acked) = (0u32, 0u32);
        let t0 = now_ns();
        let mut t = t0;
        while acked < count {
            while sent < count && sent - acked < window {
                Payload::stamp(&mut self.tx, u64::from(sent));
                link.send(&self.tx)?;
                sent += 1;
            }
            link.recv(&mut self.credit, CREDIT_LEN)?;
            t = now_ns();
            let (received, bad) = ctrl::decode_credit(&self.credit);
            if bad > 0 {
                return Err(CellError::PeerSawCorruption { bad, count: received });
            }
            acked = received;
            progress.fetch_add(1, Ordering::Relaxed);
            each(acked, t);
        }
        Ok((t0, t))
    }

    /// A phase timed as a whole, first send to last credit, ns.
    pub(crate) fn timed(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
    ) -> Result<u64, CellError> {
        let (t0, t1) = self.phase(link, count, progress, &mut |_, _| {})?;
        Ok(t1 - t0)
    }
}

/// Stream: up to `window` messages in flight in `direction`, the receiver
/// checking every one and returning a credit every `window / 2` messages;
/// throughput over the whole phase. Host → peer: the host sends, the peer
/// checks and credits (timed from the first send to the last credit). Peer →
/// host: the peer sends, the host checks and credits (`stream_p2h.rs`; timed
/// from before the host asks for the messages to the last one checked).
pub fn stream(
    link: &mut dyn Link,
    size: usize,
    direction: Direction,
    budget: &Budget,
    progress: &AtomicU64,
) -> Result<CellData, CellError> {
    match direction {
        Direction::H2P => {
            let mut st = Streamer::new(size, budget.window);
            let window = st.window();
            let mut phase = |link: &mut dyn Link, count: u32| st.timed(link, count, progress);
            stream_phases(link, size, window, budget, &mut phase)
        }
        Direction::P2H => {
            let mut d = Drainer::new(size, budget.window);
            let window = d.window();
            let mut phase = |link: &mut dyn Link, count: u32| d.timed(link, count, progress);
            stream_phases(link, size, window, budget, &mut phase)
        }
    }
}

/// A stream cell's probe, warm-up and measured phase, in either direction:
/// `phase(link, count)` runs `count` messages and returns their time, ns.
fn stream_phases(
    link: &mut dyn Link,
    size: usize,
    window: u32,
    budget: &Budget,
    phase: &mut dyn FnMut(&mut dyn Link, u32) -> Result<u64, CellError>,
) -> Result<CellData, CellError> {
    let paced = Sizing::stream(window).run(budget, |n| phase(link, n))?;
    let measure = paced.measure;
    let before = link.counters();
    let elapsed_ns = phase(link, measure)?;
    let counters = link.counters().since(before);
    Ok(CellData {
        messages: u64::from(measure),
        bytes: u64::from(measure) * size as u64,
        elapsed_ns,
        warmup_messages: paced.warmup_messages,
        latency: None,
        raw_ns: None,
        window: Some(window),
        counters,
        channels: None,
        adaptive: None,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: paced.capped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_hiccup_in_the_probe_does_not_set_the_pace() {
        // Four groups of 4 messages: 1 ms caught by the first, 16 ns a group
        // otherwise. The whole-probe mean would say 62.5 µs a message.
        let mut times = [1_000_000u64, 16, 16, 16].into_iter();
        let per = probe_pace::<()>(4, 4, |n| {
            assert_eq!(n, 4);
            Ok(times.next().unwrap())
        });
        assert_eq!(per, Ok(4.0));
        // Sorted 10, 20, 30: the middle one.
        let mut times = [30u64, 10, 20].into_iter();
        assert_eq!(probe_pace::<()>(3, 10, |_| Ok(times.next().unwrap())), Ok(2.0));
        // A failing phase fails the probe.
        assert_eq!(probe_pace(4, 4, |_| Err("peer closed")), Err("peer closed"));
    }

    #[test]
    fn the_warm_up_corrects_a_probe_slowed_throughout() {
        // A cold probe said 1.5 µs a message; 20 000 warm-up messages took
        // 1 ms: 50 ns a message.
        assert_eq!(refine_pace(1_500.0, 1_000_000, 20_000), 50.0);
        // A warm-up slower than the probe changes nothing.
        assert_eq!(refine_pace(50.0, 2_000_000, 20_000), 50.0);
        assert_eq!(refine_pace(50.0, 0, 0), 50.0);
    }

    #[test]
    fn sizing_probes_warms_and_sizes_from_the_faster_pace() {
        // A cold probe: 1.5 µs a message in every group; the warm-up runs
        // at 50 ns a message. 10 ms cells.
        let budget = crate::testing::budget(Duration::from_millis(10));
        let mut calls = Vec::new();
        let paced = Sizing::ONE_AT_A_TIME
            .run::<()>(&budget, |n| {
                calls.push(n);
                Ok(u64::from(n) * if calls.len() <= 4 { 1_500 } else { 50 })
            })
            .unwrap();
        // 10 ms at 1.5 µs: 6 666 to measure, a fifth of it as warm-up.
        assert_eq!(calls, [4, 4, 4, 4, 1_333]);
        assert_eq!(paced.per_msg_ns, 50.0);
        assert_eq!(paced.measure, 200_000);
        assert_eq!(paced.warmup_messages, 16 + 1_333);
        // The cell time was filled: nothing cut.
        assert_eq!(paced.capped, None);
        let s = Sizing::stream(32);
        assert_eq!((s.groups, s.per_group, s.min), (3, 64, 128));
    }

    #[test]
    fn a_count_cut_to_the_cap_says_so() {
        // 2 s at 50 ns a message would be 40 000 000 round trips; the cap
        // is 5 000 000 (0.25 s of measuring).
        let budget = crate::testing::budget(Duration::from_secs(2));
        let paced = Sizing::ONE_AT_A_TIME.run::<()>(&budget, |n| Ok(u64::from(n) * 50)).unwrap();
        assert_eq!((paced.measure, paced.capped), (5_000_000, Some(5_000_000)));
        // Exactly at the cap is not a cut.
        let exact = crate::testing::budget(Duration::from_millis(250));
        let paced = Sizing::ONE_AT_A_TIME.run::<()>(&exact, |n| Ok(u64::from(n) * 50)).unwrap();
        assert_eq!((paced.measure, paced.capped), (5_000_000, None));
    }

    #[test]
    fn counts_follow_the_pace_within_their_bounds() {
        let budget = crate::testing::budget(Duration::from_millis(10));
        // 10 ms at 1 µs a message: 10 000 measured, a fifth as warm-up.
        assert_eq!(counts(1_000.0, &budget, 50, 5_000_000), (2_000, 10_000));
        // A pace slower than the cell: the minimum, and as much warm-up.
        assert_eq!(counts(1e9, &budget, 50, 5_000_000), (16, 50));
    }
}
