//! Replicate blocks shown as one cell (issue #15). A run measures each cell
//! in K blocks (`icbench run --replicates K`, a plan's `repetitions`),
//! stored as cells that differ only in their `rep` factor. Here they become
//! one row: the blocks' samples pooled for the figures, and the spread of
//! the blocks' own figures for the interval a repeat run will land in
//! (`icbench_stats::repeat_interval95`).
//!
//! A block the kernel's counters show disturbed is left out of the figures
//! when at least two undisturbed blocks remain (the run re-measures such
//! blocks); a cell whose blocks disagree by more than [`DISAGREE`] is
//! marked, since a repeat run could land anywhere in that range.

use std::collections::BTreeMap;

use icbench_model::{CellData, CellKey, CellOutcome, CellResult, Disturbance, Pattern};
use serde::Serialize;

/// Largest ÷ smallest block figure beyond which a cell's blocks disagree:
/// issue #15's reproducibility band (a figure within ±10 % of the median
/// run's), as a ratio.
pub const DISAGREE: f64 = 1.10;

/// The replicate blocks of a cell.
#[derive(Debug, Clone, Serialize)]
pub struct ReplicatesView {
    /// Blocks measured.
    pub blocks: usize,
    /// Blocks the figures are from (the undisturbed ones, when ≥ 2).
    pub used: usize,
    /// What each used block's figure is: `p50_ns` or `bytes_per_s`.
    pub metric: &'static str,
    /// Each used block's figure, in block order.
    pub values: Vec<f64>,
    /// Geometric mean of `values`, and the 95 % interval for a repeat run.
    pub center: f64,
    pub lo: f64,
    pub hi: f64,
    /// The interval's larger half-width relative to `center`.
    pub rel_half_width: f64,
    /// Largest ÷ smallest used block figure.
    pub spread: f64,
    /// `spread` > [`DISAGREE`].
    pub disagree: bool,
}

/// What a cell whose blocks disagree shows: their range.
pub fn disagreement(r: &ReplicatesView) -> String {
    let (lo, hi) = r.values.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
    let text = |v: f64| match r.metric {
        "bytes_per_s" => crate::format::rate(v, "B/s"),
        _ => crate::format::ns(v),
    };
    let what = if r.metric == "bytes_per_s" { "payload rate" } else { "p50" };
    format!(
        "its {} blocks disagree: {what} {} … {} ({:.2}×, beyond {DISAGREE}×)",
        r.used,
        text(lo),
        text(hi),
        r.spread
    )
}

/// The CI column of a replicated cell. The interval is symmetric in logs:
/// [center ÷ f, center × f]; up to f = 1.5 as ±(f − 1) (its upper side),
/// beyond as "×/÷ f" (a "±600 %" would suggest a lower end below zero).
pub fn ci_short(r: &ReplicatesView) -> String {
    ci_short_at(r, None)
}

/// [`ci_short`], never narrower than the timing's resolution (ns) allows
/// ([`crate::format::rel_at`]): blocks whose p50s sit on one step of the
/// clock agree to "±0.0 %" only because the clock cannot tell them apart.
pub fn ci_short_at(r: &ReplicatesView, resolution_ns: Option<f64>) -> String {
    let f = r.hi / r.center;
    match resolution_ns {
        Some(res) if r.metric == "p50_ns" && res > 1.0 && (f - 1.0) * r.center < res => {
            crate::format::rel_at(f - 1.0, r.center, Some(res))
        }
        _ if f < 1.5 => format!("±{:.1} %", (f - 1.0) * 100.0),
        _ => format!("×/÷ {f:.2}"),
    }
}

/// A cell as shown: its blocks merged, with their spread.
#[derive(Debug, Clone)]
pub struct Grouped {
    pub result: CellResult,
    pub replicates: Option<ReplicatesView>,
}

fn without_rep(key: &CellKey) -> CellKey {
    let mut k = key.clone();
    k.factors.remove("rep");
    k
}

fn disturbed(d: &CellData) -> bool {
    d.disturbance.is_some_and(|x| !icbench_stats::disturbance::causes(&x).is_empty())
}

/// One figure per block: the p50 (ns) where there are latencies, else the
/// payload rate.
fn figure(pattern: Pattern, d: &CellData) -> (&'static str, Option<f64>) {
    match (pattern, &d.latency) {
        (Pattern::Stream, _) | (_, None) => ("bytes_per_s", Some(d.bytes_per_s())),
        (_, Some(h)) => ("p50_ns", icbench_stats::Summary::from_histogram(h).map(|s| s.p50)),
    }
}

/// Sums two cells' counters (spans and counts add; a counter absent from
/// either is absent; frequencies keep their extremes).
fn add(a: Disturbance, b: Disturbance) -> Disturbance {
    let end = |x: icbench_model::EndDisturbance, y: icbench_model::EndDisturbance| {
        let s = |p: Option<u64>, q: Option<u64>| Some(p?.saturating_add(q?));
        icbench_model::EndDisturbance {
            cpu: x.cpu,
            steal_ns: s(x.steal_ns, y.steal_ns),
            interrupts: s(x.interrupts, y.interrupts),
            softirqs: s(x.softirqs, y.softirqs),
            voluntary_switches: s(x.voluntary_switches, y.voluntary_switches),
            involuntary_switches: s(x.involuntary_switches, y.involuntary_switches),
            migrations: s(x.migrations, y.migrations),
            runq_wait_ns: s(x.runq_wait_ns, y.runq_wait_ns),
            freq_khz_min: x.freq_khz_min.zip(y.freq_khz_min).map(|(p, q)| p.min(q)),
            freq_khz_max: x.freq_khz_max.zip(y.freq_khz_max).map(|(p, q)| p.max(q)),
        }
    };
    Disturbance {
        span_ns: a.span_ns.saturating_add(b.span_ns),
        host: end(a.host, b.host),
        peer: end(a.peer, b.peer),
    }
}

/// The used blocks' data as one cell: counts and times summed, histograms
/// and raw samples pooled in block order.
fn merge(used: &[&CellData]) -> CellData {
    let first = used[0];
    let mut m = CellData {
        messages: 0,
        bytes: 0,
        elapsed_ns: 0,
        warmup_messages: 0,
        latency: None,
        raw_ns: None,
        window: first.window,
        counters: Default::default(),
        channels: first.channels,
        adaptive: None,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: None,
        timed_batch: None,
    };
    for d in used {
        m.messages += d.messages;
        m.bytes += d.bytes;
        m.elapsed_ns += d.elapsed_ns;
        m.warmup_messages += d.warmup_messages;
        m.counters.tx_busy += d.counters.tx_busy;
        if let Some(h) = &d.latency {
            m.latency.get_or_insert_with(icbench_model::LatencyHistogram::new).merge(h);
        }
        if let Some(r) = &d.raw_ns {
            m.raw_ns.get_or_insert_with(Vec::new).extend_from_slice(r);
        }
        m.disturbance = match (m.disturbance, d.disturbance) {
            (None, x) => x,
            (Some(a), Some(b)) => Some(add(a, b)),
            (Some(_), None) => None,
        };
        m.cut_at_messages = m.cut_at_messages.or(d.cut_at_messages);
        add_channels(&mut m.per_channel, &d.per_channel);
    }
    // `--ci` ran in every block: its phases add up, the worst interval
    // reached stands, and the target counts as reached only if every
    // block reached it.
    if used.iter().all(|d| d.adaptive.is_some()) {
        let all: Vec<icbench_model::Adaptive> = used.iter().filter_map(|d| d.adaptive).collect();
        m.adaptive = Some(icbench_model::Adaptive {
            target_rel: all[0].target_rel,
            achieved_rel: all.iter().map(|a| a.achieved_rel).fold(f64::NAN, f64::max),
            phases: all.iter().map(|a| a.phases).sum(),
            reached: all.iter().all(|a| a.reached),
        });
    }
    m
}

/// Adds a block's channels to the merged ones, as `--ci` adds phases
/// (docs/method.md, "Channels"): each channel's messages, bytes and active
/// span summed, its start offset the first block's, histograms pooled; the
/// common window is the sum of the blocks' windows (`elapsed_ns`).
fn add_channels(into: &mut Vec<icbench_model::ChannelData>, block: &[icbench_model::ChannelData]) {
    for c in block {
        match into.iter_mut().find(|m| m.channel == c.channel) {
            None => into.push(c.clone()),
            Some(m) => {
                m.messages += c.messages;
                m.bytes += c.bytes;
                m.active_ns += c.active_ns;
                match (&mut m.latency, &c.latency) {
                    (Some(a), Some(b)) => a.merge(b),
                    (a @ None, Some(b)) => *a = Some(b.clone()),
                    _ => {}
                }
            }
        }
    }
}

fn merge_group(key: CellKey, blocks: &[&CellResult]) -> Grouped {
    let k = blocks.len();
    if let Some((i, reason)) = blocks.iter().enumerate().find_map(|(i, c)| match &c.outcome {
        CellOutcome::Failed { reason } => Some((i, reason)),
        _ => None,
    }) {
        let reason = format!("block {} of {k}: {reason}", i + 1);
        return Grouped {
            result: CellResult { key, outcome: CellOutcome::Failed { reason } },
            replicates: None,
        };
    }
    let measured: Vec<&CellData> = blocks
        .iter()
        .filter_map(|c| match &c.outcome {
            CellOutcome::Measured(d) => Some(d),
            _ => None,
        })
        .collect();
    if measured.is_empty() {
        return Grouped {
            result: CellResult { key, outcome: blocks[0].outcome.clone() },
            replicates: None,
        };
    }
    let quiet: Vec<&CellData> = measured.iter().copied().filter(|d| !disturbed(d)).collect();
    let used = if quiet.len() >= 2 { quiet } else { measured.clone() };
    let mut metric = "p50_ns";
    let values: Vec<f64> = used
        .iter()
        .filter_map(|d| {
            let (m, v) = figure(key.pattern, d);
            metric = m;
            v
        })
        .collect();
    let replicates = icbench_stats::repeat_interval95(&values).map(|r| ReplicatesView {
        blocks: measured.len(),
        used: used.len(),
        metric,
        values: values.clone(),
        center: r.center,
        lo: r.lo,
        hi: r.hi,
        rel_half_width: r.relative_half_width(),
        spread: r.spread,
        disagree: r.spread > DISAGREE,
    });
    Grouped { result: CellResult { key, outcome: CellOutcome::Measured(merge(&used)) }, replicates }
}

/// Rows sort by link, pattern, other factors, size, then protocol and
/// blocks.
type SortKey = (String, Pattern, Vec<(String, String)>, u64, String);

/// The cells of a run as shown: cells that differ only in `rep` merged
/// into one, ordered by link, pattern, direction, size and other factors;
/// a run without replicates as stored, in its order.
pub fn group(cells: &[CellResult]) -> Vec<Grouped> {
    if !cells.iter().any(|c| c.key.factors.contains_key("rep")) {
        return cells.iter().map(|c| Grouped { result: c.clone(), replicates: None }).collect();
    }
    let mut groups: BTreeMap<SortKey, (CellKey, Vec<&CellResult>)> = BTreeMap::new();
    for c in cells {
        let key = without_rep(&c.key);
        let others: Vec<(String, String)> =
            key.factors.iter().map(|(a, b)| (a.clone(), b.clone())).collect();
        let sort = (
            key.link.clone(),
            key.pattern,
            others,
            key.size_bytes,
            format!("{:?}{:?}", key.protocol, key.blocks),
        );
        groups.entry(sort).or_insert_with(|| (key, Vec::new())).1.push(c);
    }
    groups.into_values().map(|(key, blocks)| merge_group(key, &blocks)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use icbench_model::LatencyHistogram;

    fn block(rep: u32, rtt_ns: u64, disturbed: bool) -> CellResult {
        let mut h = LatencyHistogram::new();
        for _ in 0..100 {
            h.record(rtt_ns);
        }
        let mut d = icbench_model::Disturbance { span_ns: 100_000_000, ..Default::default() };
        d.host.runq_wait_ns = Some(if disturbed { 50_000_000 } else { 0 });
        CellResult {
            key: CellKey::new("shm", Pattern::PingPong, 64).with("rep", rep),
            outcome: CellOutcome::Measured(CellData {
                messages: 100,
                bytes: 6400,
                elapsed_ns: 100 * rtt_ns,
                warmup_messages: 10,
                latency: Some(h),
                raw_ns: None,
                window: None,
                counters: Default::default(),
                channels: None,
                adaptive: None,
                per_channel: Vec::new(),
                disturbance: Some(d),
                cut_at_messages: None,
                timed_batch: None,
            }),
        }
    }

    fn side(label: &str) -> crate::compare::Side {
        crate::compare::Side {
            label: label.into(),
            run_id: 1,
            source: "measured".into(),
            hostname: "h".into(),
            cpu_model: "c".into(),
            link: None,
            board: None,
        }
    }

    #[test]
    fn compare_decides_on_the_blocks_and_not_on_marked_cells() {
        use crate::compare::{Input, build};
        let a = [block(0, 100, false), block(1, 102, false), block(2, 101, false)];
        let b = [block(0, 120, false), block(1, 121, false), block(2, 119, false)];
        let inputs = [
            Input { side: side("a"), cells: a.iter().collect() },
            Input { side: side("b"), cells: b.iter().collect() },
        ];
        let v = build(&inputs, false);
        assert_eq!(v.rows.len(), 1, "one row per cell, not per block: {:?}", v.rows);
        let r = &v.rows[0];
        assert!(r.ratio_ci_method.as_deref().unwrap().starts_with("between replicate blocks"));
        assert_eq!(r.significant, Some(true), "{r:?}");
        assert!((r.ratio - 1.19).abs() < 0.01, "{r:?}");
        // Blocks 1.3× apart on one side: marked, so nothing is decided.
        let c = [block(0, 100, false), block(1, 130, false), block(2, 101, false)];
        let inputs = [
            Input { side: side("c"), cells: c.iter().collect() },
            Input { side: side("b"), cells: b.iter().collect() },
        ];
        let r = &build(&inputs, false).rows[0];
        assert_eq!(r.significant, None, "{r:?}");
        assert!(r.note.as_deref().unwrap().contains("blocks disagree"));
    }

    #[test]
    fn blocks_become_one_cell_with_their_spread() {
        let g = group(&[block(0, 100, false), block(1, 110, false), block(2, 121, false)]);
        assert_eq!(g.len(), 1);
        assert!(g[0].result.key.factors.is_empty(), "rep is gone: {:?}", g[0].result.key);
        let r = g[0].replicates.as_ref().unwrap();
        assert_eq!((r.blocks, r.used, r.metric), (3, 3, "p50_ns"));
        assert!((r.center - 110.0).abs() < 0.5, "{r:?}");
        assert!(r.disagree, "1.21× apart: {r:?}");
        let CellOutcome::Measured(d) = &g[0].result.outcome else { panic!() };
        assert_eq!((d.messages, d.latency.as_ref().unwrap().len()), (300, 300));
    }

    #[test]
    fn a_disturbed_block_is_left_out_when_two_quiet_ones_remain() {
        let g = group(&[block(0, 100, false), block(1, 900, true), block(2, 104, false)]);
        let r = g[0].replicates.as_ref().unwrap();
        assert_eq!((r.blocks, r.used), (3, 2));
        assert!(!r.disagree, "{r:?}");
        let CellOutcome::Measured(d) = &g[0].result.outcome else { panic!() };
        assert_eq!(d.messages, 200);
        // With only one quiet block, every block counts.
        let g = group(&[block(0, 100, false), block(1, 900, true)]);
        assert_eq!(g[0].replicates.as_ref().unwrap().used, 2);
    }

    #[test]
    fn a_failed_block_fails_the_cell_naming_it_and_runs_without_reps_stay_as_stored() {
        let mut b = block(1, 100, false);
        b.outcome = CellOutcome::Failed { reason: "timeout".into() };
        let g = group(&[block(0, 100, false), b]);
        assert!(
            matches!(&g[0].result.outcome, CellOutcome::Failed { reason } if reason == "block 2 of 2: timeout")
        );
        let plain = block(0, 100, false);
        let mut plain_key = plain.clone();
        plain_key.key.factors.clear();
        let g = group(&[plain_key.clone()]);
        assert_eq!(g[0].result.key, plain_key.key);
        assert!(g[0].replicates.is_none());
    }
}

/// Share of flagged cells above which a run is not fit for quoting.
pub const UNFIT_SHARE: f64 = 0.5;
/// Share of flagged cells up to which a run counts as reproducible.
pub const REPRODUCIBLE_SHARE: f64 = 0.1;

/// The run's last word on its own figures (issue #15): whether they can be
/// quoted, and if not, what was measured that says so.
#[derive(Debug, Clone, Serialize)]
pub struct RunVerdict {
    /// `reproducible`, `partly reproducible`, `not fit for quoting`, or
    /// `not judged` (a run without replicate blocks and counters).
    pub verdict: &'static str,
    /// Measured cells (ping-pong, stream, oneway, bulk).
    pub cells: usize,
    /// Of them, marked disturbed.
    pub disturbed: usize,
    /// Of them, with blocks that disagree.
    pub disagree: usize,
    /// Marked either way.
    pub flagged: usize,
    /// The floor moved past its bound between head and tail.
    pub unstable: bool,
    /// The verdict in one line, with the counts.
    pub text: String,
}

impl RunVerdict {
    /// From the rows of a run (marks) and its floor drift.
    pub fn of(view: &crate::RunView) -> RunVerdict {
        let (mut cells, mut disturbed, mut disagree, mut flagged, mut judged) = (0, 0, 0, 0, 0);
        for m in crate::disturbed::rows(view).iter().filter(|m| m.ok) {
            cells += 1;
            let dist = m.disturbance.as_ref().is_some_and(|v| v.disturbed);
            let dis = m.replicates.as_ref().is_some_and(|r| r.disagree);
            judged += usize::from(m.disturbance.is_some() || m.replicates.is_some());
            disturbed += usize::from(dist);
            disagree += usize::from(dis);
            flagged += usize::from(dist || dis);
        }
        let unstable = view.floor_drift.as_ref().is_some_and(|d| d.unstable);
        let share = if cells == 0 { 0.0 } else { flagged as f64 / cells as f64 };
        let counts = format!(
            "{flagged} of {cells} cells marked ({disturbed} disturbed, {disagree} with blocks \
             that disagree)"
        );
        let (verdict, text) = if judged == 0 || view.is_imported() {
            (
                "not judged",
                "verdict: not judged (no replicate blocks or disturbance counters)".into(),
            )
        } else if unstable || share > UNFIT_SHARE {
            let why = if unstable { "the machine changed under the run (floor); " } else { "" };
            ("not fit for quoting", format!("verdict: NOT FIT FOR QUOTING: {why}{counts}"))
        } else if share > REPRODUCIBLE_SHARE {
            (
                "partly reproducible",
                format!("verdict: partly reproducible: {counts}; quote only unmarked cells"),
            )
        } else {
            ("reproducible", format!("verdict: reproducible: {counts}"))
        };
        RunVerdict { verdict, cells, disturbed, disagree, flagged, unstable, text }
    }
}
