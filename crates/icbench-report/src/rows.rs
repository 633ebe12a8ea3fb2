//! The rows of a run's view: one per cell, with the figures every output
//! shows (full statistics per cell, see [`CellStats`]), built from the
//! stored cells. Below everything that judges the rows (marks, targets,
//! summary, verdict, history) and the [`crate::view::RunView`] that holds
//! them, so that none of those needs the whole view (issue #29 item 1).

use icbench_model::{Adaptive, CellData, CellOutcome, CellResult, Direction, Pattern, RunMeta};
use icbench_stats::Fairness;
use serde::Serialize;
use std::collections::BTreeMap;

use crate::disturbed::{CutView, DisturbanceView};
use crate::stats::CellStats;

/// A ping-pong cell.
#[derive(Debug, Clone, Serialize)]
pub struct PingPongRow {
    pub link: String,
    /// Wire protocol (`icb`, `dimtass`, `raw`); absent for icbench's own peer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    pub size_bytes: u64,
    /// Channels measured at once (`None` = one).
    pub channels: Option<u32>,
    /// The cell's factors beyond link and size (a plan's cpus, wait, rep …).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub factors: BTreeMap<String, String>,
    /// `ok`, `failed` or `n/a`.
    pub status: &'static str,
    pub reason: Option<String>,
    /// For `n/a`: the link's largest message, bytes.
    pub max_bytes: Option<u64>,
    /// Round-trip statistics, ns (absent unless `ok` and per-message
    /// times exist: a goodput-only import has none).
    pub rtt_ns: Option<CellStats>,
    /// Round trips per second over the measured window.
    pub msgs_per_s: Option<f64>,
    /// Payload bytes per second, one direction.
    pub bytes_per_s: Option<f64>,
    /// p50 round trip ÷ the cache-line round trip of the same run.
    pub p50_over_floor: Option<f64>,
    /// Sends the link refused for want of a TX buffer and retried (rpmsg
    /// EAGAIN), in the measured window.
    pub tx_busy: Option<u64>,
    /// How adaptive repetitions (`--ci`) ended, when asked for.
    pub adaptive: Option<Adaptive>,
    /// A multi-channel cell (`icbench run -P N`): the common window and
    /// each channel; its `msgs_per_s` and `bytes_per_s` are totals over it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub common_window: Option<ChannelsView>,
    /// What disturbed the cell (issue #15), when its counters were kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disturbance: Option<DisturbanceView>,
    /// The measured phase stopped at the engine's message cap before the
    /// cell time was filled (issue #15): where, and how long it measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<CutView>,
    /// The cell's replicate blocks and the interval a repeat run's figure
    /// will land in (issue #15); absent for a cell measured once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicates: Option<crate::replicates::ReplicatesView>,
    /// Round trips per pair of clock reads, when the cell was timed in
    /// batches (issue #15 item 4): its latencies are batch means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed_batch: Option<u32>,
    /// The finest step its latencies can take, ns: the clock's step over
    /// the batch; absent when the run did not measure the clock's step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution_ns: Option<f64>,
    /// The machine's state before the block (its blocks), by the state
    /// probe (issue #28); absent when not probed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<StateView>,
}

/// The state probe of a block, or the median of a cell's used blocks'
/// probes, with the cell's figure as a ratio to it (issue #28 items 1–2:
/// on a machine whose CPUs move between placements, the ratio holds where
/// the absolute figure does not).
#[derive(Debug, Clone, Serialize)]
pub struct StateView {
    /// Median one-cache-line round trip between the cell's CPUs measured
    /// just before the block, ns (the median of the blocks' probes for a
    /// cell of several).
    pub line_rtt_ns: f64,
    /// Median cross-CPU wake-up round trip measured just before the block,
    /// ns (the median of the blocks' for a cell of several); absent when
    /// not probed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wake_rtt_ns: Option<f64>,
    /// Probes it is from.
    pub probes: u32,
    /// What the probes took, ns.
    pub cost_ns: u64,
    /// Ping-pong: the p50 round trip ÷ `line_rtt_ns`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_over_line: Option<f64>,
}

impl StateView {
    fn of(d: &icbench_model::CellData, p50_ns: Option<f64>) -> Option<StateView> {
        let p = d.state?;
        Some(StateView {
            line_rtt_ns: p.line_rtt_ns,
            wake_rtt_ns: p.wake_rtt_ns,
            probes: p.probes,
            cost_ns: p.cost_ns,
            p50_over_line: p50_ns.filter(|_| p.line_rtt_ns > 0.0).map(|v| v / p.line_rtt_ns),
        })
    }
}

/// The channels of a multi-channel cell, all counted over one common
/// window (docs/method.md, "Channels").
#[derive(Debug, Clone, Serialize)]
pub struct ChannelsView {
    pub channels: u32,
    /// The common window every channel was counted over, ns.
    pub window_ns: u64,
    /// Σ over the channels.
    pub messages: u64,
    /// Σ over the channels, payload bytes host → peer.
    pub bytes: u64,
    /// Σ bytes / window_ns: the total throughput over the common window.
    pub total_bytes_per_s: f64,
    /// Jain's index and min/max of the per-channel bytes_per_s (None when
    /// no channel moved anything).
    pub fairness: Option<Fairness>,
    pub per_channel: Vec<ChannelRow>,
}

/// One channel of a multi-channel cell.
#[derive(Debug, Clone, Serialize)]
pub struct ChannelRow {
    pub channel: u32,
    pub messages: u64,
    pub bytes: u64,
    /// bytes / the common window.
    pub bytes_per_s: f64,
    /// messages / the common window.
    pub msgs_per_s: f64,
    /// From the common start T0 to the channel's first send, ns.
    pub start_offset_ns: u64,
    /// The channel's own span, first send to last counted completion, ns.
    pub active_ns: u64,
    /// Round-trip p50 and p99 (pingpong), ns.
    pub rtt_p50_ns: Option<f64>,
    pub rtt_p99_ns: Option<f64>,
}

/// The channels view of a measured cell, if it has per-channel data.
pub fn channels_view(d: &CellData) -> Option<ChannelsView> {
    if d.per_channel.is_empty() {
        return None;
    }
    let w = d.elapsed_ns;
    let per_channel: Vec<ChannelRow> = d
        .per_channel
        .iter()
        .map(|c| {
            let q = |p: f64| c.latency.as_ref().map(|h| h.quantile_ns(p) as f64);
            ChannelRow {
                channel: c.channel,
                messages: c.messages,
                bytes: c.bytes,
                bytes_per_s: c.bytes_per_s(w),
                msgs_per_s: if w == 0 { 0.0 } else { c.messages as f64 * 1e9 / w as f64 },
                start_offset_ns: c.start_offset_ns,
                active_ns: c.active_ns,
                rtt_p50_ns: q(0.5),
                rtt_p99_ns: q(0.99),
            }
        })
        .collect();
    let rates: Vec<f64> = per_channel.iter().map(|c| c.bytes_per_s).collect();
    Some(ChannelsView {
        channels: d.channels.unwrap_or(per_channel.len() as u32),
        window_ns: w,
        messages: d.messages,
        bytes: d.bytes,
        total_bytes_per_s: d.bytes_per_s(),
        fairness: icbench_stats::fairness(&rates),
        per_channel,
    })
}

/// A oneway cell: one-way latency in one direction, on the common clock.
#[derive(Debug, Clone, Serialize)]
pub struct OneWayRow {
    pub link: String,
    pub size_bytes: u64,
    /// `h2p` (host → peer) or `p2h` (peer → host): the cell's `direction`
    /// factor.
    pub direction: String,
    /// Every factor of the cell, `direction` included.
    pub factors: BTreeMap<String, String>,
    /// `ok`, `failed` or `n/a`.
    pub status: &'static str,
    pub reason: Option<String>,
    pub max_bytes: Option<u64>,
    /// One-way statistics, ns: receiver's clock read − sender's stamp.
    pub oneway_ns: Option<CellStats>,
    /// Messages per second over the measured window (each paced by a
    /// return leg, so this is not a throughput).
    pub msgs_per_s: Option<f64>,
    /// What disturbed the cell (issue #15), when its counters were kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disturbance: Option<DisturbanceView>,
    /// The measured phase stopped at the engine's message cap before the
    /// cell time was filled (issue #15): where, and how long it measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<CutView>,
    /// The cell's replicate blocks and the interval a repeat run's figure
    /// will land in (issue #15); absent for a cell measured once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicates: Option<crate::replicates::ReplicatesView>,
}

/// A timer (wake-up latency) cell.
#[derive(Debug, Clone, Serialize)]
pub struct TimerRow {
    /// What was measured (e.g. `cyclictest thread 0 (CPU 2)`).
    pub link: String,
    pub status: &'static str,
    pub reason: Option<String>,
    /// Wake-up latency, ns.
    pub latency_ns: Option<CellStats>,
}

/// A stream cell.
#[derive(Debug, Clone, Serialize)]
pub struct StreamRow {
    pub link: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    pub size_bytes: u64,
    /// Which way the messages, and `bytes_per_s`, went: `h2p` (host →
    /// peer) or `p2h` (peer → host), the cell's `direction` factor. A
    /// stream cell without the factor is `h2p`: the default, and every
    /// stream cell measured before peer → host existed.
    pub direction: String,
    /// The cell's factors beyond link and size (a plan's cpus, wait, rep …).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub factors: BTreeMap<String, String>,
    pub status: &'static str,
    pub reason: Option<String>,
    pub max_bytes: Option<u64>,
    pub messages: Option<u64>,
    pub window: Option<u32>,
    pub msgs_per_s: Option<f64>,
    /// Payload bytes per second in `direction`.
    pub bytes_per_s: Option<f64>,
    /// Throughput ÷ the single-thread memcpy bandwidth of the same run.
    pub over_memcpy: Option<f64>,
    /// Sends the link refused for want of a TX buffer and retried (rpmsg
    /// EAGAIN), in the measured window.
    pub tx_busy: Option<u64>,
    /// Channels measured at once (`None` = one).
    pub channels: Option<u32>,
    /// A multi-channel cell: the common window and each channel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub common_window: Option<ChannelsView>,
    /// What disturbed the cell (issue #15), when its counters were kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disturbance: Option<DisturbanceView>,
    /// The measured phase stopped at the engine's message cap before the
    /// cell time was filled (issue #15): where, and how long it measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<CutView>,
    /// The cell's replicate blocks and the interval a repeat run's figure
    /// will land in (issue #15); absent for a cell measured once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicates: Option<crate::replicates::ReplicatesView>,
    /// The machine's state before the block (its blocks), by the state
    /// probe (issue #28); absent when not probed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<StateView>,
}

/// A bulk cell: `blocks` writes of `block_bytes`, then one acknowledgement;
/// one sample per whole transfer. Measured on a remote link or imported.
#[derive(Debug, Clone, Serialize)]
pub struct BulkRow {
    pub link: String,
    /// Wire protocol (`icb`, `dimtass`, `raw`); absent for imported cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Block size, bytes.
    pub block_bytes: u64,
    /// Blocks per transfer (from the cell key; 1 if unset).
    pub blocks: u32,
    /// `block_bytes × blocks`: the bytes of one transfer.
    pub total_bytes: u64,
    /// Factors beyond link and size (an on-chip cell's `direction`,
    /// `region`, `notify`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub factors: BTreeMap<String, String>,
    /// `ok`, `failed` or `n/a`.
    pub status: &'static str,
    pub reason: Option<String>,
    /// For `n/a`: the link's largest transfer, bytes.
    pub max_bytes: Option<u64>,
    /// Time of one whole transfer, first write to the acknowledgement, ns.
    pub transfer_ns: Option<CellStats>,
    /// Transfers per second over the measured window.
    pub transfers_per_s: Option<f64>,
    /// Payload bytes per second, host → peer, over the measured window.
    pub bytes_per_s: Option<f64>,
    /// Writes the link refused for want of a buffer and retried (a full
    /// rpmsg TX ring: what stopped reference 000 past 5-6 KB).
    pub tx_busy: Option<u64>,
    /// What disturbed the cell (issue #15), when its counters were kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disturbance: Option<DisturbanceView>,
    /// The measured phase stopped at the engine's message cap before the
    /// cell time was filled (issue #15): where, and how long it measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<CutView>,
    /// The cell's replicate blocks and the interval a repeat run's figure
    /// will land in (issue #15); absent for a cell measured once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicates: Option<crate::replicates::ReplicatesView>,
}

pub(crate) fn common(c: &CellResult) -> (&'static str, Option<String>, Option<u64>) {
    match &c.outcome {
        CellOutcome::Measured(_) => ("ok", None, None),
        CellOutcome::Failed { reason } => ("failed", Some(reason.clone()), None),
        CellOutcome::NotApplicable { max_bytes } => ("n/a", None, Some(*max_bytes)),
    }
}

pub(crate) fn pingpong_row(c: &CellResult, meta: &RunMeta) -> PingPongRow {
    let (status, reason, max_bytes) = common(c);
    let mut row = PingPongRow {
        link: c.key.link.clone(),
        protocol: c.key.protocol.clone(),
        size_bytes: c.key.size_bytes,
        channels: None,
        factors: c.key.factors.clone(),
        status,
        reason,
        max_bytes,
        rtt_ns: None,
        msgs_per_s: None,
        bytes_per_s: None,
        p50_over_floor: None,
        tx_busy: None,
        adaptive: None,
        common_window: None,
        disturbance: None,
        cut: None,
        replicates: None,
        timed_batch: None,
        resolution_ns: None,
        state: None,
    };
    if let CellOutcome::Measured(d) = &c.outcome {
        row.disturbance = DisturbanceView::of(d);
        row.cut = CutView::of(d);
        row.timed_batch = d.timed_batch;
        row.resolution_ns = meta
            .clock_granule_ns
            .is_finite()
            .then(|| meta.clock_granule_ns / f64::from(d.timed_batch.unwrap_or(1)));
        row.common_window = channels_view(d);
        row.rtt_ns = CellStats::of(d);
        row.channels = d.channels;
        row.adaptive = d.adaptive;
        row.msgs_per_s = Some(d.msgs_per_s());
        row.bytes_per_s = Some(d.bytes_per_s());
        row.tx_busy = Some(d.counters.tx_busy);
        row.state = StateView::of(d, row.rtt_ns.as_ref().map(|s| s.summary.p50));
        row.p50_over_floor = match (&row.rtt_ns, &meta.floor) {
            (Some(s), Some(f)) if f.cacheline_rtt_ns > 0.0 => {
                Some(s.summary.p50 / f.cacheline_rtt_ns)
            }
            _ => None,
        };
    }
    row
}

pub(crate) fn timer_row(c: &CellResult) -> TimerRow {
    let (status, reason, _) = common(c);
    let latency_ns = match &c.outcome {
        CellOutcome::Measured(d) => CellStats::of(d),
        _ => None,
    };
    // A measured timer cell's factors (its CPU) tell the cells of a run apart;
    // an irq interval is told by its lines, as `icbench irq` prints it.
    let f = |k: &str| c.key.factor(k).unwrap_or("?");
    let link = if c.key.pattern == Pattern::Irq && c.key.factor("chip").is_some() {
        let (from, to) = match c.key.link.as_str() {
            "edge-to-response" => (f("respond"), f("respond_in")),
            _ => (f("out"), f("in")),
        };
        format!("{} ({} {from} → {to})", c.key.link, f("chip"))
    } else if c.key.factors.is_empty() {
        c.key.link.clone()
    } else {
        let f: Vec<String> = c.key.factors.iter().map(|(k, v)| format!("{k} {v}")).collect();
        format!("{} ({})", c.key.link, f.join(", "))
    };
    TimerRow { link, status, reason, latency_ns }
}

pub(crate) fn stream_row(c: &CellResult, meta: &RunMeta) -> StreamRow {
    let (status, reason, max_bytes) = common(c);
    let mut row = StreamRow {
        link: c.key.link.clone(),
        protocol: c.key.protocol.clone(),
        size_bytes: c.key.size_bytes,
        direction: c.key.factor(Direction::FACTOR).unwrap_or(Direction::H2P.as_str()).to_string(),
        factors: c.key.factors.clone(),
        status,
        reason,
        max_bytes,
        messages: None,
        window: None,
        msgs_per_s: None,
        bytes_per_s: None,
        over_memcpy: None,
        tx_busy: None,
        channels: None,
        common_window: None,
        disturbance: None,
        cut: None,
        replicates: None,
        state: None,
    };
    if let CellOutcome::Measured(d) = &c.outcome {
        row.disturbance = DisturbanceView::of(d);
        row.cut = CutView::of(d);
        row.state = StateView::of(d, None);
        row.channels = d.channels;
        row.common_window = channels_view(d);
        row.messages = Some(d.messages);
        row.window = d.window;
        row.tx_busy = Some(d.counters.tx_busy);
        row.msgs_per_s = Some(d.msgs_per_s());
        row.bytes_per_s = Some(d.bytes_per_s());
        row.over_memcpy = meta
            .floor
            .filter(|f| f.memcpy_bytes_per_s > 0.0)
            .map(|f| d.bytes_per_s() / f.memcpy_bytes_per_s);
    }
    row
}

pub(crate) fn oneway_row(c: &CellResult) -> OneWayRow {
    let (status, reason, max_bytes) = common(c);
    let mut row = OneWayRow {
        link: c.key.link.clone(),
        size_bytes: c.key.size_bytes,
        direction: c.key.factor(Direction::FACTOR).unwrap_or("–").to_string(),
        factors: c.key.factors.clone(),
        status,
        reason,
        max_bytes,
        oneway_ns: None,
        msgs_per_s: None,
        disturbance: None,
        cut: None,
        replicates: None,
    };
    if let CellOutcome::Measured(d) = &c.outcome {
        row.disturbance = DisturbanceView::of(d);
        row.cut = CutView::of(d);
        row.oneway_ns = CellStats::of(d);
        row.msgs_per_s = Some(d.msgs_per_s());
    }
    row
}

pub(crate) fn bulk_row(c: &CellResult) -> BulkRow {
    let (status, reason, max_bytes) = common(c);
    let mut row = BulkRow {
        link: c.key.link.clone(),
        protocol: c.key.protocol.clone(),
        block_bytes: c.key.size_bytes,
        blocks: c.key.blocks.unwrap_or(1),
        total_bytes: c.key.transfer_bytes(),
        factors: c.key.factors.clone(),
        status,
        reason,
        max_bytes,
        transfer_ns: None,
        transfers_per_s: None,
        bytes_per_s: None,
        tx_busy: None,
        disturbance: None,
        cut: None,
        replicates: None,
    };
    if let CellOutcome::Measured(d) = &c.outcome {
        row.disturbance = DisturbanceView::of(d);
        row.cut = CutView::of(d);
        row.transfer_ns = CellStats::of(d);
        row.transfers_per_s = Some(d.msgs_per_s());
        row.bytes_per_s = Some(d.bytes_per_s());
        row.tx_busy = Some(d.counters.tx_busy);
    }
    row
}

/// The measured-pattern rows of a run, borrowed: what the marks, the
/// verdict and the renderers' notes walk ([`crate::view::RunView::rows`]).
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    pub pingpong: &'a [PingPongRow],
    pub stream: &'a [StreamRow],
    pub oneway: &'a [OneWayRow],
    pub bulk: &'a [BulkRow],
}

#[cfg(test)]
mod channel_tests {
    use icbench_model::{ChannelData, LinkCounters};

    use super::*;

    #[test]
    fn a_channel_cell_shows_its_window_total_and_fairness() {
        let chan = |channel, bytes, start_offset_ns, active_ns| ChannelData {
            channel,
            messages: bytes / 64,
            bytes,
            start_offset_ns,
            active_ns,
            latency: None,
        };
        let d = CellData {
            messages: 3_000,
            bytes: 192_000,
            elapsed_ns: 100_000_000,
            warmup_messages: 0,
            latency: None,
            raw_ns: None,
            window: Some(32),
            counters: LinkCounters::default(),
            channels: Some(2),
            adaptive: None,
            per_channel: vec![
                chan(0, 128_000, 0, 99_000_000),
                chan(1, 64_000, 50_000_000, 49_000_000),
            ],
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        };
        let v = channels_view(&d).unwrap();
        assert_eq!((v.channels, v.window_ns, v.bytes), (2, 100_000_000, 192_000));
        assert_eq!(v.total_bytes_per_s, 1_920_000.0);
        let rates: Vec<f64> = v.per_channel.iter().map(|c| c.bytes_per_s).collect();
        assert_eq!(rates, vec![1_280_000.0, 640_000.0]);
        // (1.28 + 0.64)² / (2 · (1.28² + 0.64²)) = 0.9
        let f = v.fairness.unwrap();
        assert!((f.jain - 0.9).abs() < 1e-12, "{}", f.jain);
        assert_eq!(f.min_over_max, 0.5);
        assert!(channels_view(&CellData { per_channel: Vec::new(), ..d }).is_none());
    }
}
