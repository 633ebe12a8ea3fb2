//! Replicate blocks shown as one cell (issue #15). A run measures each cell
//! in K blocks (`icbench run --replicates K`, a plan's `repetitions`),
//! stored as cells that differ only in their `rep` factor. Here they become
//! one row: the blocks' samples pooled for the figures, and the spread of
//! the blocks' own figures for the interval a repeat run will land in
//! (`icbench_stats::repeat_interval95`).
//!
//! A block the kernel's counters show disturbed — beyond its link's own
//! work (`icbench_stats::disturbance::own_work`, issue #28 item 4) — is left
//! out of the figures when at least two undisturbed blocks remain (the run
//! re-measures such blocks).
//!
//! The cells of one link pool their blocks' spread (issue #28,
//! `icbench_stats::pooled`): with a pool, a cell's interval is from the
//! link's σ and its blocks disagree when they spread more than the link's
//! other cells; without one (a link of one or two sizes) a cell's blocks
//! disagree beyond [`DISAGREE`] and give their own interval.
//!
//! No impossible intervals (issue #28 item 5): a cell with fewer than
//! [`MIN_INTERVAL_BLOCKS`] usable blocks has no repeat interval — with two,
//! t₀.₉₇₅,₁ = 12.7 made "457 MB/s (8.59 kB/s … 17466 GB/s)" — and is marked
//! "too few agreeing blocks"; an interval wider than ×/÷
//! [`MAX_INTERVAL_FACTOR`] (only blocks that disagree give one) is not
//! shown either. Every renderer prints the view's `interval_note` instead.

use std::collections::BTreeMap;

use icbench_model::{CellData, CellKey, CellOutcome, CellResult, Disturbance, Pattern};
use serde::Serialize;

mod chart;
pub use chart::HistoryView;

/// Largest ÷ smallest block figure beyond which a cell's blocks disagree:
/// issue #15's reproducibility band (a figure within ±10 % of the median
/// run's), as a ratio.
pub const DISAGREE: f64 = 1.10;

/// Fewest usable blocks a repeat interval is given from. With K blocks the
/// interval's half-width is t₀.₉₇₅,K−1 · s · √(2/K) on the logs: with two,
/// t is 12.7 and the interval is [c ÷ r⁹, c × r⁹] for blocks r× apart —
/// ×/÷ 2.4 for blocks that agree to [`DISAGREE`], 2·10⁴× for blocks 3× apart —
/// so it says nothing; with three, t is 4.30 and blocks within
/// [`DISAGREE`] give at most ×/÷ 1.21 (docs/method.md, "Replicate blocks").
pub const MIN_INTERVAL_BLOCKS: usize = 3;

/// Widest repeat interval shown, as its factor hi ÷ center. Blocks within
/// [`DISAGREE`] of each other give at most ×/÷ 1.21 (three blocks; fewer
/// with more), so only a cell whose blocks disagree — already marked, its
/// range listed — comes near it: three blocks at least 1.41× apart. Past
/// it the interval's ends are figures no run reads (118 GB/s for a ring
/// beside a 7.6 GB/s memcpy; a 3-block stream cell 4.48× apart).
pub const MAX_INTERVAL_FACTOR: f64 = 2.0;

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
    /// Geometric mean of `values`.
    pub center: f64,
    /// The 95 % interval for a repeat run's figure; `null` when the cell
    /// has none (`interval_note` says why).
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// The interval's larger half-width relative to `center` (`null`
    /// without an interval).
    pub rel_half_width: Option<f64>,
    /// Largest ÷ smallest used block figure.
    pub spread: f64,
    /// `spread` > [`DISAGREE`].
    pub disagree: bool,
    /// Fewer than [`MIN_INTERVAL_BLOCKS`] used blocks: no interval, and the
    /// cell is marked.
    pub too_few_blocks: bool,
    /// Where a repeat run lands is wider than ×/÷ [`MAX_INTERVAL_FACTOR`]
    /// (the link's pooled blocks or the host's runs spread that much): no
    /// figure of it repeats, so the cell is marked even when its own blocks
    /// happen to agree. On the VM a futex-waiting shm stream's blocks spread
    /// ×/÷ 2.3 and its unmarked cells moved 0.5–2.3× from run to run
    /// (2026-11-28, issue #28).
    pub wide: bool,
    /// Why there is no interval, as every renderer prints it in its place
    /// ("too few agreeing blocks: 2 of 3 usable", "no interval: blocks
    /// 4.48× apart"); `null` when there is one.
    pub interval_note: Option<String>,
    /// The used blocks against the state probe beside each (issue #28
    /// item 2); absent unless at least two were probed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states: Option<StatesView>,
    /// The cell against its host's earlier runs (issue #28 item 3); with
    /// it, `lo` and `hi` are where the next run lands from the runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryView>,
    /// The link's block-to-block spread in this run, pooled over its
    /// cells (`icbench_stats::pooled`): with it, the interval is from the
    /// pooled σ and `disagree` means "spreads more than the link's other
    /// cells", not "more than [`DISAGREE`]".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pooled: Option<PooledView>,
}

/// A link's pooled block spread, as a cell's view carries it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PooledView {
    /// One block's standard deviation, relative (e^σ − 1 of the logs).
    pub sigma_rel: f64,
    /// Its degrees of freedom.
    pub df: usize,
    /// The link's cells it is from.
    pub cells: usize,
    /// The link's cells left out of it: their blocks spread more.
    pub left_out: usize,
}

/// A cell's blocks against the machine's states, as the state probe beside
/// each block found them (`icbench_stats::state`).
#[derive(Debug, Clone, Serialize)]
pub struct StatesView {
    /// Distinct states among the used blocks, found from the probe alone.
    pub n_states: usize,
    /// Each state, fastest line first: its blocks' figures.
    pub per_state: Vec<StateFigure>,
    /// Ping-pong: the p50 ÷ the line trip probed before its block, the
    /// geometric mean over the probed blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_over_line: Option<f64>,
    /// Largest ÷ smallest of those ratios.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio_spread: Option<f64>,
    /// The probe explains the blocks' spread: the figures disagree, and
    /// their ratios to the probe agree (or spread half as much on logs).
    pub explains: bool,
    /// The blocks against the wake-up trip around each (issue #28 item 1);
    /// absent unless at least two used blocks have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wake: Option<WakeView>,
}

/// A cell's blocks against the cross-CPU wake-up trip around each: the
/// geometric mean of the wake-up probe taken before the block and the one
/// taken before the next block measured on the same CPUs (the block lies
/// between them). The covariate of the links whose waiting end sleeps:
/// on the 2-vCPU VM their blocks moved with it, not with the line.
#[derive(Debug, Clone, Serialize)]
pub struct WakeView {
    /// Each used block's wake-up trip around it, ns (`null`: none).
    pub wake_rtt_ns: Vec<Option<f64>>,
    /// Ping-pong: the p50 ÷ the wake-up trip, the geometric mean over the
    /// blocks that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_over_wake: Option<f64>,
    /// Stream: the payload moved in one wake-up trip (the rate × the trip),
    /// the geometric mean over the blocks that have one — the stream's
    /// figure conditioned on the state as `p50_over_wake` is a ping-pong's
    /// (issue #28 item 2: on the VM the sleeping links' streams followed the
    /// wake-up trip as their ping-pongs did, docs/results.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_per_wake: Option<f64>,
    /// Largest ÷ smallest of the blocks' figures (as times) ÷ their wake-up
    /// trips.
    pub ratio_spread: f64,
    /// The wake-up trip explains the blocks' spread, as the line does in
    /// [`StatesView::explains`].
    pub explains: bool,
}

impl WakeView {
    /// From the used blocks' figures and the wake-up trips around them
    /// (NaN where none), in block order; `None` with fewer than two.
    fn of(metric: &str, values: &[f64], wakes: &[f64]) -> Option<WakeView> {
        let rate = metric == "bytes_per_s";
        let times: Vec<f64> = values.iter().map(|&v| if rate { 1.0 / v } else { v }).collect();
        let fit = icbench_stats::state::fit_states(&times, wakes, DISAGREE)?;
        let ratio = fit.ratio?;
        Some(WakeView {
            wake_rtt_ns: wakes.iter().map(|&w| Some(w).filter(|w| w.is_finite())).collect(),
            p50_over_wake: Some(ratio.center).filter(|_| !rate),
            // (1 / rate) ÷ wake, s per byte per ns: its inverse × 1e-9.
            bytes_per_wake: Some(1e-9 / ratio.center).filter(|_| rate),
            ratio_spread: ratio.spread,
            explains: fit.explains,
        })
    }
}

/// The blocks of one state.
#[derive(Debug, Clone, Serialize)]
pub struct StateFigure {
    pub blocks: usize,
    /// The median of their probes' line trips, ns.
    pub line_rtt_ns: f64,
    /// The geometric mean of their figures (the cell's metric).
    pub figure: f64,
}

impl StatesView {
    /// From the used blocks' figures and their probes' line trips (NaN
    /// for a block without one), in block order. A rate is turned into a
    /// time per byte to be set against the line trip, so that "explains"
    /// means the same for both metrics.
    fn of(metric: &str, values: &[f64], lines: &[f64], wakes: &[f64]) -> Option<StatesView> {
        let rate = metric == "bytes_per_s";
        let times: Vec<f64> = values.iter().map(|&v| if rate { 1.0 / v } else { v }).collect();
        let fit = icbench_stats::state::fit_states(&times, lines, DISAGREE)?;
        let mut per_state = Vec::new();
        for s in 0..fit.n_states {
            let idx: Vec<usize> = (0..values.len()).filter(|&i| fit.states[i] == Some(s)).collect();
            let mut ls: Vec<f64> = idx.iter().map(|&i| lines[i]).collect();
            ls.sort_by(f64::total_cmp);
            let logs: f64 = idx.iter().map(|&i| values[i].ln()).sum::<f64>() / idx.len() as f64;
            per_state.push(StateFigure {
                blocks: idx.len(),
                line_rtt_ns: ls[ls.len() / 2],
                figure: logs.exp(),
            });
        }
        let ratio = fit.ratio.filter(|_| !rate);
        Some(StatesView {
            n_states: fit.n_states,
            per_state,
            p50_over_line: ratio.as_ref().map(|r| r.center),
            ratio_spread: ratio.as_ref().map(|r| r.spread),
            explains: fit.explains,
            wake: WakeView::of(metric, values, wakes),
        })
    }
}

impl ReplicatesView {
    /// The view of a cell's used blocks' figures (`values`, > 0); `None`
    /// with fewer than two.
    pub fn of(blocks: usize, used: usize, metric: &'static str, values: Vec<f64>) -> Option<Self> {
        let r = icbench_stats::repeat_interval95(&values)?;
        let too_few_blocks = r.blocks < MIN_INTERVAL_BLOCKS;
        let factor = r.hi / r.center;
        let interval_note = if too_few_blocks {
            Some(format!("too few agreeing blocks: {used} of {blocks} usable"))
        } else if factor.is_nan() || factor > MAX_INTERVAL_FACTOR {
            Some(format!("no interval: blocks {:.2}× apart", r.spread))
        } else {
            None
        };
        let shown = interval_note.is_none();
        Some(ReplicatesView {
            blocks,
            used,
            metric,
            values,
            center: r.center,
            lo: Some(r.lo).filter(|_| shown),
            hi: Some(r.hi).filter(|_| shown),
            rel_half_width: Some(r.relative_half_width()).filter(|_| shown),
            spread: r.spread,
            disagree: r.spread > DISAGREE,
            too_few_blocks,
            wide: !too_few_blocks && !shown,
            interval_note,
            states: None,
            history: None,
            pooled: None,
        })
    }

    /// Takes its interval and its disagreement from the link's pooled
    /// spread `p` (issue #28): two blocks are enough for an interval then,
    /// and the blocks disagree only when they spread more than the link's.
    fn with_pool(&mut self, p: &icbench_stats::pooled::Pooled) {
        let Some(ri) = p.repeat_interval(&self.values) else { return };
        self.pooled = Some(PooledView {
            sigma_rel: p.sigma.exp() - 1.0,
            df: p.df,
            cells: p.cells,
            left_out: p.left_out,
        });
        self.disagree = !p.consistent(&self.values);
        self.too_few_blocks = false;
        let factor = ri.hi / ri.center;
        self.interval_note = (factor.is_nan() || factor > MAX_INTERVAL_FACTOR)
            .then(|| format!("no interval: this link's blocks spread ×/÷ {:.2}", p.sigma.exp()));
        let shown = self.interval_note.is_none();
        self.wide = !shown;
        self.lo = Some(ri.lo).filter(|_| shown);
        self.hi = Some(ri.hi).filter(|_| shown);
        self.rel_half_width = Some(ri.relative_half_width()).filter(|_| shown);
    }

    /// The repeat interval, when the cell has one.
    pub fn interval(&self) -> Option<(f64, f64)> {
        self.lo.zip(self.hi)
    }

    /// Marked (`!`): its blocks disagree, too few of them are usable for
    /// an interval, a repeat run may land too far ([`Self::wide`]), or its
    /// figure lies outside its host's history.
    pub fn marked(&self) -> bool {
        self.disagree || self.too_few_blocks || self.wide || self.outside_history()
    }

    /// Its figure lies outside its host's earlier runs.
    pub fn outside_history(&self) -> bool {
        self.history.as_ref().is_some_and(|h| !h.within)
    }

    /// What the interval's place says when there is none.
    pub fn note(&self) -> &str {
        self.interval_note.as_deref().unwrap_or("no interval")
    }
}

/// What a cell with too few usable blocks shows in the list of marked
/// cells: how many, why the others are not, and the range when they also
/// disagree.
pub fn too_few(r: &ReplicatesView) -> String {
    let why = if r.used < r.blocks {
        "the others disturbed".to_string()
    } else {
        format!("--replicates {MIN_INTERVAL_BLOCKS} or more gives one")
    };
    let mut s = format!(
        "too few agreeing blocks for a repeat interval: {} of {} usable ({why}; an interval \
         needs {MIN_INTERVAL_BLOCKS})",
        r.used, r.blocks
    );
    if r.disagree {
        s += "; ";
        s += &disagreement(r);
    }
    s
}

/// What a [`ReplicatesView::wide`] cell shows in the list of marked cells.
pub fn too_wide(r: &ReplicatesView) -> String {
    let spread = match (&r.history, &r.pooled) {
        (Some(h), _) => format!("this host's {} earlier runs and this one's blocks", h.runs),
        (None, Some(p)) => format!("this link's blocks spread ±{:.0} % each", p.sigma_rel * 100.0),
        (None, None) => format!("its blocks are {:.2}× apart", r.spread),
    };
    let at = match r.interval() {
        Some((_, hi)) => format!("×/÷ {:.2}", hi / r.center),
        None => format!("beyond ×/÷ {MAX_INTERVAL_FACTOR}"),
    };
    format!("a repeat run may land {at} of it ({spread}): no figure to quote")
}

/// What a cell outside its host's history says in the list of marked
/// cells.
pub fn outside(r: &ReplicatesView, h: &HistoryView) -> String {
    let text = |v: f64| match r.metric {
        "bytes_per_s" => crate::format::rate(v, "B/s"),
        _ => crate::format::ns(v),
    };
    format!(
        "outside its host's history: {} against {} … {} from {} earlier runs",
        text(r.center),
        text(h.lo),
        text(h.hi),
        h.runs
    )
}

/// What a cell whose blocks disagree shows: their range.
pub fn disagreement(r: &ReplicatesView) -> String {
    let (lo, hi) = r.values.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
    let text = |v: f64| match r.metric {
        "bytes_per_s" => crate::format::rate(v, "B/s"),
        _ => crate::format::ns(v),
    };
    let what = if r.metric == "bytes_per_s" { "payload rate" } else { "p50" };
    let beyond = match &r.pooled {
        Some(p) => {
            format!("more than this link's blocks spread, ±{:.1} % each", p.sigma_rel * 100.0)
        }
        None => format!("beyond {DISAGREE}×"),
    };
    let mut s = format!(
        "its {} blocks disagree: {what} {} … {} ({:.2}×, {beyond})",
        r.used,
        text(lo),
        text(hi),
        r.spread
    );
    if let Some(st) = r.states.as_ref().filter(|st| st.n_states > 1) {
        let each: Vec<String> = st
            .per_state
            .iter()
            .map(|f| {
                let b = if f.blocks == 1 { "block" } else { "blocks" };
                format!(
                    "{} in {} {b} at line {}",
                    text(f.figure),
                    f.blocks,
                    crate::format::ns(f.line_rtt_ns)
                )
            })
            .collect();
        s.push_str(&format!("; the state probe found {} states: {}", st.n_states, each.join(", ")));
        if st.explains
            && let (Some(ratio), Some(spread)) = (st.p50_over_line, st.ratio_spread)
        {
            s.push_str(&format!(
                " (p50 ÷ line {} in every block, within {spread:.2}×)",
                crate::format::ratio(ratio)
            ));
        }
    }
    if let Some(w) = r.states.as_ref().and_then(|st| st.wake.as_ref()).filter(|w| w.explains) {
        let ratio = w
            .p50_over_wake
            .map_or(String::new(), |v| format!(", p50 ÷ wake-up {}", crate::format::ratio(v)));
        s.push_str(&format!(
            "; the wake-up trip around each block follows them (their ratios within {:.2}×{ratio})",
            w.ratio_spread
        ));
    }
    s
}

/// The CI column of a replicated cell, always in per cent of the figure
/// (issue #29 item 5: the column mixed "×/÷ 1.66" and "±3.2 %"). The
/// interval is symmetric in logs: [center ÷ f, center × f]; up to f = 1.5
/// as ±(f − 1) (its upper side), beyond with both sides, "+66 % −40 %"
/// (a "±100 %" would suggest a lower end at zero).
pub fn ci_short(r: &ReplicatesView) -> String {
    ci_short_at(r, None)
}

/// [`ci_short`], never narrower than the timing's resolution (ns) allows
/// ([`crate::format::rel_at`]): blocks whose p50s sit on one step of the
/// clock agree to "±0.0 %" only because the clock cannot tell them apart.
pub fn ci_short_at(r: &ReplicatesView, resolution_ns: Option<f64>) -> String {
    let Some((_, hi)) = r.interval() else { return r.note().to_string() };
    let f = hi / r.center;
    match resolution_ns {
        Some(res) if r.metric == "p50_ns" && res > 1.0 && (f - 1.0) * r.center < res => {
            crate::format::rel_at(f - 1.0, r.center, Some(res))
        }
        _ if f < 1.5 => format!("±{:.1} %", (f - 1.0) * 100.0),
        _ => format!("+{:.0} % −{:.0} %", (f - 1.0) * 100.0, (1.0 - 1.0 / f) * 100.0),
    }
}

/// A cell as shown: its blocks merged, with their spread.
#[derive(Debug, Clone)]
pub struct Grouped {
    pub result: CellResult,
    pub replicates: Option<ReplicatesView>,
    /// The merged cell's counters judged with its link's own work left
    /// out ([`own_work`]); `None` for a cell without counters.
    pub disturbance: Option<crate::disturbed::DisturbanceView>,
}

type OwnWork = icbench_stats::disturbance::OwnWork;

/// What a link's own work is reckoned per: the link and the pattern (a
/// pty's peer waits 19 % of a ping-pong block, 49 % of a stream block).
fn own_key(k: &CellKey) -> String {
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

fn alone(result: CellResult, own: &BTreeMap<String, OwnWork>) -> Grouped {
    let o = own.get(&own_key(&result.key)).copied().unwrap_or_default();
    let disturbance = match &result.outcome {
        CellOutcome::Measured(d) => crate::disturbed::DisturbanceView::beyond(d, o),
        _ => None,
    };
    Grouped { result, replicates: None, disturbance }
}

fn without_rep(key: &CellKey) -> CellKey {
    let mut k = key.clone();
    k.factors.remove("rep");
    k
}

fn disturbed(d: &CellData, own: OwnWork) -> bool {
    d.disturbance.is_some_and(|x| !icbench_stats::disturbance::causes_beyond(&x, own).is_empty())
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
fn merged_state(used: &[&CellData]) -> Option<icbench_model::StateProbe> {
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

/// The wake-up trip around each stored block, in `cells`' order (the
/// run's): the geometric mean of its own probe's and that of the next
/// block measured on the same CPUs (the same `cpus` factor), or its own
/// alone for the last; NaN for a block without one.
fn wake_around(cells: &[CellResult]) -> Vec<f64> {
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

fn merge_group(key: CellKey, blocks: &[Block], own: OwnWork) -> Grouped {
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
    let mut metric = "p50_ns";
    let values: Vec<f64> = used
        .iter()
        .filter_map(|d| {
            let (m, v) = figure(key.pattern, d);
            metric = m;
            v
        })
        .collect();
    let lines: Vec<f64> = used
        .iter()
        .filter(|d| figure(key.pattern, d).1.is_some())
        .map(|d| d.state.map_or(f64::NAN, |p| p.line_rtt_ns))
        .collect();
    let wakes: Vec<f64> =
        used_wake.iter().filter(|(d, _)| figure(key.pattern, d).1.is_some()).map(|u| u.1).collect();
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
type SortKey = (String, Pattern, Vec<(String, String)>, u64, String);

/// A stored block with the wake-up trip around it ([`wake_around`]).
type Block<'a> = (&'a CellResult, f64);

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
fn pool_key(k: &CellKey) -> String {
    let f: Vec<String> = k.factors.iter().map(|(a, b)| format!("{a}={b}")).collect();
    format!("{}|{}|{:?}|{:?}|{}", k.link, k.pattern, k.protocol, k.blocks, f.join(","))
}

/// Pools each link's block spread over its cells (issue #28,
/// `icbench_stats::pooled`) and sets every replicated cell's interval and
/// disagreement from it. A cell whose used blocks are disturbed (fewer
/// than two quiet ones) shows its blocks but adds nothing to the pool.
fn pool_by_link(cells: &mut [Grouped]) {
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

#[cfg(test)]
mod tests;
