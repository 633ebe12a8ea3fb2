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

use serde::Serialize;

mod chart;
mod group;
mod words;
pub use chart::HistoryView;
#[cfg(test)]
use group::*;
pub use group::{Grouped, each, group, own_work};
pub use words::*;

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

#[cfg(test)]
mod tests;
