//! A run's figures against its host's earlier runs (issue #28 item 3):
//! each replicated cell's figure is set in a control chart of the same
//! cell in the host's earlier runs (`icbench_stats::history`), the repeat
//! interval is taken from the runs themselves once there are two earlier
//! ones, and a figure outside its history is marked with that reason.
//!
//! The caller gives the earlier runs as views ([`RunView::with_history`]):
//! which runs count as the same host is its choice (`icbench show` and
//! `run` take the last [`HISTORY_RUNS`] finished runs measured on the same
//! host name, CPU model and CPU pair).

use std::collections::HashMap;

use crate::replicates::ReplicatesView;
pub use crate::replicates::{HistoryView, outside};
use crate::rows::{PingPongRow, StreamRow};
use crate::view::RunView;

/// Earlier runs a view is set against, at most.
pub const HISTORY_RUNS: usize = 10;

/// What names a cell across runs: pattern, link, protocol, channels,
/// size and the factors other than the block (`rep`); and, without the
/// size, what names its link's pool of cells.
fn key(
    pattern: &str,
    link: &str,
    protocol: &Option<String>,
    channels: Option<u32>,
    size: u64,
    factors: &std::collections::BTreeMap<String, String>,
) -> (String, String) {
    let f: Vec<String> =
        factors.iter().filter(|(k, _)| *k != "rep").map(|(k, v)| format!("{k}={v}")).collect();
    let pool = format!("{pattern}|{link}|{protocol:?}|{channels:?}|{}", f.join(","));
    (format!("{pool}|{size}"), pool)
}

fn pp_key(r: &PingPongRow) -> (String, String) {
    key("pingpong", &r.link, &r.protocol, r.channels, r.size_bytes, &r.factors)
}

fn st_key(r: &StreamRow) -> (String, String) {
    let mut f = r.factors.clone();
    f.insert("direction".into(), r.direction.clone());
    key("stream", &r.link, &r.protocol, r.channels, r.size_bytes, &f)
}

/// A row's figure: its blocks' centre, or a single block's own.
fn figure(reps: &Option<ReplicatesView>, own: Option<f64>) -> Option<f64> {
    reps.as_ref().map(|r| r.center).or(own).filter(|v| v.is_finite() && *v > 0.0)
}

fn pp_figure(r: &PingPongRow) -> Option<f64> {
    figure(&r.replicates, r.rtt_ns.as_ref().map(|s| s.summary.p50)).filter(|_| r.status == "ok")
}

fn st_figure(r: &StreamRow) -> Option<f64> {
    figure(&r.replicates, r.bytes_per_s).filter(|_| r.status == "ok")
}

/// Sets one replicated cell against its earlier figures, with its link's
/// run-to-run spread pooled over the link's cells where there is one.
fn apply(
    reps: &mut Option<ReplicatesView>,
    earlier: Option<&Vec<f64>>,
    pooled: Option<&icbench_stats::pooled::Pooled>,
) {
    let (Some(r), Some(earlier)) = (reps.as_mut(), earlier) else { return };
    let h = match pooled {
        Some(p) => icbench_stats::history::history95_pooled(earlier, r.center, p.sigma, p.df),
        None => icbench_stats::history::history95(earlier, r.center),
    };
    let Some(h) = h else { return };
    r.history = Some(HistoryView {
        runs: h.runs,
        center: h.center,
        lo: h.lo,
        hi: h.hi,
        within: h.within,
        pooled_df: pooled.map(|p| p.df),
        blocks_lo: r.lo,
        blocks_hi: r.hi,
    });
    // Where the next run lands, from the runs, and never narrower than the
    // blocks' own interval from the link's pooled spread: their hull. A
    // cell's own chart centres it on the runs' mean, so this run's figure
    // could lie outside it ("140 ns (102 ns … 134 ns)" on the VM,
    // 2026-11-27); the blocks' is centred on this run, so the hull always
    // brackets the figure printed with it. The blocks' interval alone, or
    // its absence with too few of them, stays in `blocks_lo/hi`.
    r.lo = Some(r.lo.map_or(h.next_lo, |lo| lo.min(h.next_lo)));
    r.hi = Some(r.hi.map_or(h.next_hi, |hi| hi.max(h.next_hi)));
    if let (Some(lo), Some(hi)) = (r.lo, r.hi) {
        r.rel_half_width = Some((hi / r.center - 1.0).max(1.0 - lo / r.center));
        r.wide = hi / r.center > crate::replicates::MAX_INTERVAL_FACTOR
            || r.center / lo > crate::replicates::MAX_INTERVAL_FACTOR;
    }
    r.too_few_blocks = false;
    r.interval_note = None;
}

impl RunView {
    /// This run set against `earlier` runs of its host: each replicated
    /// ping-pong and stream cell found in at least two of them gets its
    /// [`HistoryView`], its repeat interval from the runs, and a mark when
    /// it lies outside; targets, verdict and summary follow.
    pub fn with_history(mut self, earlier: &[RunView]) -> RunView {
        let mut past: HashMap<String, (String, Vec<f64>)> = HashMap::new();
        for v in earlier {
            for r in &v.pingpong {
                if let Some(f) = pp_figure(r) {
                    let (cell, pool) = pp_key(r);
                    past.entry(cell).or_insert_with(|| (pool, Vec::new())).1.push(f);
                }
            }
            for r in &v.stream {
                if let Some(f) = st_figure(r) {
                    let (cell, pool) = st_key(r);
                    past.entry(cell).or_insert_with(|| (pool, Vec::new())).1.push(f);
                }
            }
        }
        // Each link's run-to-run spread, pooled over its cells' earlier runs
        // (`icbench_stats::pooled`, as the blocks' spread within a run).
        let mut by_pool: HashMap<&str, Vec<Vec<f64>>> = HashMap::new();
        for (pool, figures) in past.values() {
            by_pool.entry(pool.as_str()).or_default().push(figures.clone());
        }
        let pools: HashMap<&str, icbench_stats::pooled::Pooled> = by_pool
            .into_iter()
            .filter_map(|(k, v)| Some((k, icbench_stats::pooled::Pooled::of(&v)?)))
            .collect();
        let look = |(cell, pool): (String, String)| {
            (past.get(&cell).map(|p| &p.1), pools.get(pool.as_str()))
        };
        for r in &mut self.pingpong {
            let (earlier, pooled) = look(pp_key(r));
            apply(&mut r.replicates, earlier, pooled);
        }
        for r in &mut self.stream {
            let (earlier, pooled) = look(st_key(r));
            apply(&mut r.replicates, earlier, pooled);
        }
        self.rejudged()
    }
}

#[cfg(test)]
mod tests {
    use icbench_model::{CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, Pattern};

    use crate::view::RunView;

    /// A run of shm 64 B ping-pong in three quiet blocks at these p50s.
    fn run(p50s: [u64; 3]) -> RunView {
        runs_of(&[(64, p50s)])
    }

    /// A run of shm ping-pong cells, each (size, three blocks' p50s).
    fn runs_of(sizes: &[(u64, [u64; 3])]) -> RunView {
        let cells: Vec<CellResult> = sizes
            .iter()
            .flat_map(|&(size, p50s)| p50s.into_iter().enumerate().map(move |b| (size, b)))
            .map(|(size, (rep, rtt))| {
                let mut h = LatencyHistogram::new();
                for _ in 0..100 {
                    h.record(rtt);
                }
                CellResult {
                    key: CellKey::new("shm", Pattern::PingPong, size).with("rep", rep as u32),
                    outcome: CellOutcome::Measured(CellData {
                        messages: 100,
                        bytes: 6400,
                        elapsed_ns: 100 * rtt,
                        warmup_messages: 0,
                        latency: Some(h),
                        raw_ns: None,
                        window: None,
                        counters: Default::default(),
                        channels: None,
                        adaptive: None,
                        per_channel: Vec::new(),
                        disturbance: None,
                        cut_at_messages: None,
                        timed_batch: None,
                        state: None,
                    }),
                }
            })
            .collect();
        crate::view::build(1, &crate::testing::meta(), &cells)
    }

    /// Issue #28 item 3's known answers: a host history with a step. Three
    /// steady runs near 250 ns; a fourth in the slow state (790 ns) agrees
    /// with itself (its blocks within 1 %) yet lies outside its history,
    /// and is marked for it; a fourth back at 251 ns is within, unmarked,
    /// and its repeat interval is the runs' own.
    #[test]
    fn a_step_in_the_hosts_history_marks_the_run_and_a_steady_run_is_within() {
        let earlier = [run([248, 249, 250]), run([253, 252, 254]), run([250, 251, 250])];
        let slow = run([789, 790, 792]).with_history(&earlier);
        let r = slow.pingpong[0].replicates.as_ref().unwrap();
        let h = r.history.as_ref().unwrap();
        assert_eq!(h.runs, 3);
        assert!(!h.within && r.marked() && !r.disagree, "{r:?}");
        // The interval of its own blocks was narrow and is kept beside.
        assert!(h.blocks_hi.unwrap() < 800.0 && h.blocks_lo.unwrap() > 780.0, "{h:?}");
        let verdict = slow.verdict.as_ref().unwrap();
        assert_eq!((verdict.outside_history, verdict.flagged), (1, 1), "{verdict:?}");
        let notes = crate::marks::footnotes(slow.rows());
        assert!(
            notes.iter().any(|n| n.contains("outside its host's history: 790 ns")),
            "{notes:?}"
        );

        let steady = run([251, 250, 252]).with_history(&earlier);
        let r = steady.pingpong[0].replicates.as_ref().unwrap();
        assert!(r.history.as_ref().unwrap().within && !r.marked(), "{r:?}");
        // Where the next run lands: the four runs' prediction interval.
        let (lo, hi) = r.interval().unwrap();
        assert!(lo < 250.0 && hi > 252.0 && hi < 265.0, "{lo} … {hi}");
        // With one earlier run there is no history to speak of.
        let alone = run([789, 790, 792]).with_history(&earlier[..1]);
        assert!(alone.pingpong[0].replicates.as_ref().unwrap().history.is_none());
    }

    /// A host whose runs of a cell spread past ×/÷ 2 (250, 790, 400 ns)
    /// gives an interval too wide to quote: the cell is marked "wide" even
    /// though this run's blocks agree and lie within the runs' limits.
    #[test]
    fn runs_that_spread_past_twofold_mark_the_cell_wide() {
        let earlier = [run([248, 249, 250]), run([789, 790, 792]), run([400, 401, 399])];
        let now = run([450, 451, 452]).with_history(&earlier);
        let r = now.pingpong[0].replicates.as_ref().unwrap();
        assert!(r.history.as_ref().unwrap().within && !r.disagree, "{r:?}");
        assert!(r.wide && r.marked(), "{r:?}");
        assert_eq!(now.verdict.as_ref().unwrap().wide, 1);
        let notes = crate::marks::footnotes(now.rows());
        assert!(notes.iter().any(|n| n.contains("this host's 3 earlier runs")), "{notes:?}");
    }

    /// Issue #28: eight cells of a link, each 5 % apart between two earlier
    /// runs, pool to σ = ln 1.05 / √2 per run on 8 df (each cell's two
    /// logs about their mean), and a third run's interval is its own figure
    /// ± t₀.₉₇₅,₈ · σ · √2 (2.306 · ln 1.05 = ±11.9 %), beside the blocks'.
    #[test]
    fn a_links_cells_pool_their_run_to_run_spread() {
        let sizes: Vec<u64> = (0..8).map(|i| 1u64 << i).collect();
        let at = |f: f64| -> RunView {
            let cells: Vec<(u64, [u64; 3])> = sizes
                .iter()
                .map(|&s| {
                    let c = ((1000 + 10 * s) as f64 * f).round() as u64;
                    (s, [c, c, c])
                })
                .collect();
            runs_of(&cells)
        };
        let earlier = [at(1.0), at(1.05)];
        let now = at(1.02).with_history(&earlier);
        let r = now.pingpong[3].replicates.as_ref().unwrap();
        let h = r.history.as_ref().unwrap();
        assert_eq!((h.runs, h.pooled_df, h.within), (2, Some(8), true), "{h:?}");
        let (lo, hi) = r.interval().unwrap();
        let half = (2.306_004_135 * 1.05f64.ln()).exp();
        assert!((hi / r.center - half).abs() < 2e-3, "{hi} {} {half}", r.center);
        assert!((r.center / lo - half).abs() < 2e-3, "{lo} {}", r.center);
    }
}
