//! Replicate blocks grouped into one cell: their samples merged for the
//! figures, the disturbed ones left out, the state probe around each, and
//! the link's cells pooled for the spread.

use std::collections::BTreeMap;

use icbench_model::{CellData, CellKey, CellOutcome, CellResult, Disturbance, Pattern};

use super::*;

/// A cell as shown: its blocks merged, with their spread.
#[derive(Debug, Clone)]
pub struct Grouped {
    pub result: CellResult,
    pub replicates: Option<ReplicatesView>,
    /// The merged cell's counters judged with its link's own work left
    /// out ([`own_work`]); `None` for a cell without counters.
    pub disturbance: Option<crate::disturbed::DisturbanceView>,
}

pub(super) type OwnWork = icbench_stats::disturbance::OwnWork;

/// What a link's own work is reckoned per: the link and the pattern (a
/// pty's peer waits 19 % of a ping-pong block, 49 % of a stream block).
pub(super) fn own_key(k: &CellKey) -> String {
    format!("{}|{}", k.link, k.pattern)
}

/// Every link's own preemption in the run (`icbench_stats::disturbance::
/// own_work`), from all of its measured blocks.
pub fn own_work(cells: &[CellResult]) -> BTreeMap<String, OwnWork> {
    let keyed: Vec<(String, icbench_model::Disturbance)> = cells
        .iter()
        .filter_map(|c| match &c.outcome {
            CellOutcome::Measured(d) => Some((own_key(&c.key), d.disturbance?)),
            _ => None,
        })
        .collect();
    icbench_stats::disturbance::own_work(keyed.iter().map(|(k, d)| (k.as_str(), d)))
}

/// Each stored cell alone (`show --blocks`), judged with its link's own
/// work.
pub fn each(cells: &[CellResult]) -> Vec<Grouped> {
    let own = own_work(cells);
    cells.iter().map(|c| alone(c.clone(), &own)).collect()
}

pub(super) fn alone(result: CellResult, own: &BTreeMap<String, OwnWork>) -> Grouped {
    let o = own.get(&own_key(&result.key)).copied().unwrap_or_default();
    let disturbance = match &result.outcome {
        CellOutcome::Measured(d) => crate::disturbed::DisturbanceView::beyond(d, o),
        _ => None,
    };
    Grouped { result, replicates: None, disturbance }
}

pub(super) fn without_rep(key: &CellKey) -> CellKey {
    let mut k = key.clone();
    k.factors.remove("rep");
    k
}

pub(super) fn disturbed(d: &CellData, own: OwnWork) -> bool {
    d.disturbance.is_some_and(|x| !icbench_stats::disturbance::causes_beyond(&x, own).is_empty())
}

/// One figure per block: the p50 (ns) where there are latencies, else the
/// payload rate.
pub(super) fn figure(pattern: Pattern, d: &CellData) -> (&'static str, Option<f64>) {
    match (pattern, &d.latency) {
        (Pattern::Stream, _) | (_, None) => ("bytes_per_s", Some(d.bytes_per_s())),
        (_, Some(h)) => ("p50_ns", icbench_stats::Summary::from_histogram(h).map(|s| s.p50)),
    }
}

/// Sums two cells' counters (spans and counts add; a counter absent from
/// either is absent; frequencies keep their extremes).
pub(super) fn add(a: Disturbance, b: Disturbance) -> Disturbance {
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
pub(super) fn merge(used: &[&CellData]) -> CellData {
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
        state: None,
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
    m.state = merged_state(used);
    m
}

/// The state of blocks shown as one: the median of their probes' line
/// trips and of their wake-up trips (the upper median of an even count),
/// their total cost; `None` unless every block was probed.
pub(super) fn merged_state(used: &[&CellData]) -> Option<icbench_model::StateProbe> {
    let mut probes: Vec<icbench_model::StateProbe> =
        used.iter().map(|d| d.state).collect::<Option<_>>()?;
    let mut wakes: Vec<f64> = probes.iter().filter_map(|p| p.wake_rtt_ns).collect();
    wakes.sort_by(f64::total_cmp);
    probes.sort_by(|a, b| a.line_rtt_ns.total_cmp(&b.line_rtt_ns));
    Some(icbench_model::StateProbe {
        line_rtt_ns: probes.get(probes.len() / 2)?.line_rtt_ns,
        wake_rtt_ns: wakes.get(wakes.len() / 2).copied(),
        cost_ns: probes.iter().map(|p| p.cost_ns).fold(0, u64::saturating_add),
        probes: probes.iter().map(|p| p.probes).sum(),
    })
}

/// Adds a block's channels to the merged ones, as `--ci` adds phases
/// (docs/method.md, "Channels"): each channel's messages, bytes and active
/// span summed, its start offset the first block's, histograms pooled; the
/// common window is the sum of the blocks' windows (`elapsed_ns`).
pub(super) fn add_channels(
    into: &mut Vec<icbench_model::ChannelData>,
    block: &[icbench_model::ChannelData],
) {
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

/// The wake-up trip around each stored block, in `cells`' order (the
/// run's): the geometric mean of its own probe's and that of the next
/// block measured on the same CPUs (the same `cpus` factor), or its own
/// alone for the last; NaN for a block without one.
pub(super) fn wake_around(cells: &[CellResult]) -> Vec<f64> {
    let wake = |c: &CellResult| match &c.outcome {
        CellOutcome::Measured(d) => {
            d.state.and_then(|s| s.wake_rtt_ns).filter(|w| w.is_finite() && *w > 0.0)
        }
        _ => None,
    };
    let mut out = vec![f64::NAN; cells.len()];
    let mut next: BTreeMap<Option<&String>, f64> = BTreeMap::new();
    for (i, c) in cells.iter().enumerate().rev() {
        let cpus = c.key.factors.get("cpus");
        if let Some(w) = wake(c) {
            out[i] = next.get(&cpus).map_or(w, |n| (w * n).sqrt());
            next.insert(cpus, w);
        }
    }
    out
}

pub(super) fn merge_group(key: CellKey, blocks: &[Block], own: OwnWork) -> Grouped {
    let wake_of: Vec<f64> = blocks.iter().map(|b| b.1).collect();
    let blocks: Vec<&CellResult> = blocks.iter().map(|b| b.0).collect();
    let blocks = blocks.as_slice();
    let k = blocks.len();
    if let Some((i, reason)) = blocks.iter().enumerate().find_map(|(i, c)| match &c.outcome {
        CellOutcome::Failed { reason } => Some((i, reason)),
        _ => None,
    }) {
        let reason = format!("block {} of {k}: {reason}", i + 1);
        return Grouped {
            result: CellResult { key, outcome: CellOutcome::Failed { reason } },
            replicates: None,
            disturbance: None,
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
            disturbance: None,
        };
    }
    // Each measured block with the wake-up trip around it.
    let measured_wake: Vec<(&CellData, f64)> = blocks
        .iter()
        .zip(&wake_of)
        .filter_map(|(c, &w)| match &c.outcome {
            CellOutcome::Measured(d) => Some((d, w)),
            _ => None,
        })
        .collect();
    let quiet: Vec<(&CellData, f64)> =
        measured_wake.iter().copied().filter(|(d, _)| !disturbed(d, own)).collect();
    let used_wake = if quiet.len() >= 2 { quiet } else { measured_wake };
    let used: Vec<&CellData> = used_wake.iter().map(|u| u.0).collect();
    // Each block's figure once (a p50 walks the block's histogram).
    let figures: Vec<(&'static str, Option<f64>)> =
        used.iter().map(|d| figure(key.pattern, d)).collect();
    let metric = figures.last().map_or("p50_ns", |f| f.0);
    let values: Vec<f64> = figures.iter().filter_map(|f| f.1).collect();
    let lines: Vec<f64> = used
        .iter()
        .zip(&figures)
        .filter(|(_, f)| f.1.is_some())
        .map(|(d, _)| d.state.map_or(f64::NAN, |p| p.line_rtt_ns))
        .collect();
    let wakes: Vec<f64> =
        used_wake.iter().zip(&figures).filter(|(_, f)| f.1.is_some()).map(|(u, _)| u.1).collect();
    let states = StatesView::of(metric, &values, &lines, &wakes);
    let replicates = ReplicatesView::of(measured.len(), used.len(), metric, values)
        .map(|r| ReplicatesView { states, ..r });
    let merged = merge(&used);
    let disturbance = crate::disturbed::DisturbanceView::beyond(&merged, own);
    Grouped {
        result: CellResult { key, outcome: CellOutcome::Measured(merged) },
        replicates,
        disturbance,
    }
}

/// Rows sort by link, pattern, other factors, size, then protocol and
/// blocks.
pub(super) type SortKey = (String, Pattern, Vec<(String, String)>, u64, String);

/// A stored block with the wake-up trip around it ([`wake_around`]).
pub(super) type Block<'a> = (&'a CellResult, f64);

/// The cells of a run as shown: cells that differ only in `rep` merged
/// into one, ordered by link, pattern, direction, size and other factors;
/// a run without replicates as stored, in its order.
pub fn group(cells: &[CellResult]) -> Vec<Grouped> {
    if !cells.iter().any(|c| c.key.factors.contains_key("rep")) {
        return each(cells);
    }
    let own = own_work(cells);
    let around = wake_around(cells);
    let mut groups: BTreeMap<SortKey, (CellKey, Vec<Block>)> = BTreeMap::new();
    for (c, &wake) in cells.iter().zip(&around) {
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
        groups.entry(sort).or_insert_with(|| (key, Vec::new())).1.push((c, wake));
    }
    let mut out: Vec<Grouped> = groups
        .into_values()
        .map(|(key, blocks)| {
            let o = own.get(&own_key(&key)).copied().unwrap_or_default();
            merge_group(key, &blocks, o)
        })
        .collect();
    pool_by_link(&mut out);
    out
}

/// What cells share a pool: the same link, pattern, protocol, channels
/// and factors (direction among them), every size.
pub(super) fn pool_key(k: &CellKey) -> String {
    let f: Vec<String> = k.factors.iter().map(|(a, b)| format!("{a}={b}")).collect();
    format!("{}|{}|{:?}|{:?}|{}", k.link, k.pattern, k.protocol, k.blocks, f.join(","))
}

/// Pools each link's block spread over its cells (issue #28,
/// `icbench_stats::pooled`) and sets every replicated cell's interval and
/// disagreement from it. A cell whose used blocks are disturbed (fewer
/// than two quiet ones) shows its blocks but adds nothing to the pool.
pub(super) fn pool_by_link(cells: &mut [Grouped]) {
    let mut pools: BTreeMap<String, Vec<Vec<f64>>> = BTreeMap::new();
    for g in cells.iter() {
        let (Some(r), Some(d)) = (&g.replicates, &g.disturbance) else { continue };
        if !d.disturbed {
            pools.entry(pool_key(&g.result.key)).or_default().push(r.values.clone());
        }
    }
    let pooled: BTreeMap<String, icbench_stats::pooled::Pooled> = pools
        .into_iter()
        .filter_map(|(k, v)| Some((k, icbench_stats::pooled::Pooled::of(&v)?)))
        .collect();
    for g in cells.iter_mut() {
        if let (Some(r), Some(p)) = (g.replicates.as_mut(), pooled.get(&pool_key(&g.result.key))) {
            r.with_pool(p);
        }
    }
}
