//! `icbench export`: a run's cells for other tools.
//!
//! - CSV: one line per cell with every statistic (the names of the JSON).
//! - HGRM: each latency histogram as HdrHistogram's
//!   `outputPercentileDistribution` prints it (Java `AbstractHistogram`,
//!   5 ticks per half distance, values scaled to µs), so the HdrHistogram
//!   plotter and `wrk2`-style tooling read it. One section per cell, headed
//!   by `#` comment lines naming the cell.

use std::io::Write;

use icbench_model::{CellOutcome, CellResult, LatencyHistogram};

use crate::view::RunView;

/// The CSV header, in column order. Columns are only ever added at the
/// end, so a script that reads them by position keeps working.
pub const CSV_COLUMNS: &[&str] = &[
    "run_id",
    "source",
    "link",
    "protocol",
    "pattern",
    "size_bytes",
    "channels",
    "blocks",
    "status",
    "reason",
    "from",
    "count",
    "min_ns",
    "mean_ns",
    "stddev_ns",
    "p50_ns",
    "p90_ns",
    "p99_ns",
    "p99_9_ns",
    "max_ns",
    "mean_ci95_lo_ns",
    "mean_ci95_hi_ns",
    "median_ci95_lo_ns",
    "median_ci95_hi_ns",
    "msgs_per_s",
    "bytes_per_s",
    "direction",
    // Multi-channel cells (`run -P N`): the common window the rates are
    // over, and how evenly the channels shared it.
    "window_ns",
    "jain_index",
    "channel_min_over_max",
    // What disturbed the cell (issue #15): the verdict, its causes, and the
    // counters that judge it, per end; empty where not kept or not offered.
    "disturbed",
    "disturbed_by",
    "span_ns",
    "steal_ns_host",
    "steal_ns_peer",
    "runq_wait_ns_host",
    "runq_wait_ns_peer",
    "involuntary_switches_host",
    "involuntary_switches_peer",
    "migrations_host",
    "migrations_peer",
    // The cell's factors beyond link and size (`k=v;k=v`, a plan's cpus,
    // wait …), so that two cells of one link and size are told apart.
    "factors",
    // Replicate blocks (issue #15): how many were measured and used, the
    // figure they give (`p50_ns` or `bytes_per_s`), its 95 % interval for a
    // repeat run, their spread and whether they disagree; empty for a cell
    // measured once.
    "rep_blocks",
    "rep_used",
    "rep_metric",
    "rep_center",
    "rep_repeat95_lo",
    "rep_repeat95_hi",
    "rep_spread",
    "rep_disagree",
    // Timing (issue #15 item 4): round trips per pair of clock reads when
    // batched, and the finest step the latencies can take, ns.
    "timed_batch",
    "resolution_ns",
    // Why a replicated cell has no repeat interval (issue #28: fewer than 3
    // usable blocks, or blocks too far apart); `rep_repeat95_lo`/`_hi` are
    // empty then.
    "rep_interval_note",
    // The state probe beside the blocks (issue #28): the line round trip
    // measured before the block (the median of the used blocks' for a cell
    // of several), how many probes, and a ping-pong's p50 over it.
    "state_line_rtt_ns",
    "state_probes",
    "p50_over_line",
    // The cell against its host's earlier runs (issue #28 item 3): how many,
    // and whether this run's figure lies within their limits.
    "history_runs",
    "history_within",
    // The wake-up trip of the probe (issue #28 item 1: the covariate of the
    // links whose waiting end sleeps; the median of the used blocks' for a
    // cell of several), and a replicated ping-pong's p50 over the wake-up
    // trip around each block (their geometric mean).
    "state_wake_rtt_ns",
    "p50_over_wake",
    // Whether the terminal marks the cell `!` (issue #29: the export says
    // what the terminal says): disturbed, blocks that disagree or too few
    // of them, a repeat run that may land too far, or outside its host's
    // history; empty for a cell not measured.
    "marked",
    // A replicated stream's payload per wake-up trip (its rate × the trip,
    // the geometric mean over the blocks): its figure conditioned on the
    // state, as `p50_over_wake` is a ping-pong's.
    "bytes_per_wake",
];

fn num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite()).map_or(String::new(), |x| format!("{x}"))
}

fn int(v: Option<impl ToString>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

/// One CSV line: what a row of any pattern gives.
#[derive(Default)]
struct Line<'a> {
    link: &'a str,
    protocol: Option<&'a str>,
    pattern: &'a str,
    size: u64,
    channels: Option<u32>,
    blocks: Option<u32>,
    status: &'a str,
    reason: Option<&'a str>,
    stats: Option<&'a crate::CellStats>,
    msgs_per_s: Option<f64>,
    bytes_per_s: Option<f64>,
    direction: &'a str,
    window: Option<&'a crate::ChannelsView>,
    disturbance: Option<&'a crate::DisturbanceView>,
    factors: Option<&'a std::collections::BTreeMap<String, String>>,
    replicates: Option<&'a crate::replicates::ReplicatesView>,
    timed_batch: Option<u32>,
    resolution_ns: Option<f64>,
    state: Option<&'a crate::view::StateView>,
}

impl Line<'_> {
    fn record(&self, run_id: &str, source: &str) -> Vec<String> {
        let m = self.stats.map(|s| s.summary);
        let mut rec = vec![
            run_id.to_string(),
            source.to_string(),
            self.link.to_string(),
            self.protocol.unwrap_or_default().to_string(),
            self.pattern.to_string(),
            self.size.to_string(),
            int(self.channels),
            int(self.blocks),
            self.status.to_string(),
            self.reason.unwrap_or_default().to_string(),
            self.stats.map_or(String::new(), |s| s.from.to_string()),
            int(m.map(|m| m.count)),
        ];
        let s = self.stats;
        for v in [
            m.map(|m| m.min),
            m.map(|m| m.mean),
            m.map(|m| m.stddev),
            m.map(|m| m.p50),
            m.map(|m| m.p90),
            m.map(|m| m.p99),
            m.map(|m| m.p99_9),
            m.map(|m| m.max),
            s.and_then(|s| s.mean_ci95_lo),
            s.and_then(|s| s.mean_ci95_hi),
            s.and_then(|s| s.median_ci95_lo),
            s.and_then(|s| s.median_ci95_hi),
            self.msgs_per_s,
            self.bytes_per_s,
        ] {
            rec.push(num(v));
        }
        rec.push(self.direction.to_string());
        let fair = self.window.and_then(|c| c.fairness);
        rec.push(int(self.window.map(|c| c.window_ns)));
        rec.push(num(fair.map(|f| f.jain)));
        rec.push(num(fair.map(|f| f.min_over_max)));
        let d = self.disturbance;
        rec.push(int(d.map(|d| d.disturbed)));
        rec.push(d.map_or(String::new(), |d| d.causes.join("; ")));
        let (h, p) = (d.map(|d| d.counters.host), d.map(|d| d.counters.peer));
        rec.push(int(d.map(|d| d.counters.span_ns)));
        for f in [
            |e: icbench_model::EndDisturbance| e.steal_ns,
            |e: icbench_model::EndDisturbance| e.runq_wait_ns,
            |e: icbench_model::EndDisturbance| e.involuntary_switches,
            |e: icbench_model::EndDisturbance| e.migrations,
        ] {
            rec.push(int(h.and_then(f)));
            rec.push(int(p.and_then(f)));
        }
        let factors = self
            .factors
            .map(|f| f.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(";"));
        rec.push(factors.unwrap_or_default());
        let r = self.replicates;
        rec.push(int(r.map(|r| r.blocks)));
        rec.push(int(r.map(|r| r.used)));
        rec.push(r.map_or(String::new(), |r| r.metric.to_string()));
        for v in
            [r.map(|r| r.center), r.and_then(|r| r.lo), r.and_then(|r| r.hi), r.map(|r| r.spread)]
        {
            rec.push(num(v));
        }
        rec.push(int(r.map(|r| r.disagree)));
        rec.push(int(self.timed_batch));
        rec.push(num(self.resolution_ns));
        rec.push(r.and_then(|r| r.interval_note.clone()).unwrap_or_default());
        let st = self.state;
        rec.push(num(st.map(|s| s.line_rtt_ns)));
        rec.push(int(st.map(|s| s.probes)));
        rec.push(num(st.and_then(|s| s.p50_over_line)));
        let h = r.and_then(|r| r.history.as_ref());
        rec.push(int(h.map(|h| h.runs)));
        rec.push(int(h.map(|h| h.within)));
        rec.push(num(st.and_then(|s| s.wake_rtt_ns)));
        rec.push(num(r
            .and_then(|r| r.states.as_ref())
            .and_then(|s| s.wake.as_ref()?.p50_over_wake)));
        let marked = crate::marks::is_marked(d, r);
        rec.push(int((self.status == "ok").then_some(u8::from(marked))));
        rec.push(num(r
            .and_then(|r| r.states.as_ref())
            .and_then(|s| s.wake.as_ref()?.bytes_per_wake)));
        rec
    }
}

/// Every cell of the view as CSV.
pub fn csv(view: &RunView, out: &mut dyn Write) -> Result<(), csv::Error> {
    let mut lines = Vec::new();
    for r in &view.pingpong {
        lines.push(Line {
            link: &r.link,
            protocol: r.protocol.as_deref(),
            pattern: "pingpong",
            size: r.size_bytes,
            channels: r.channels,
            status: r.status,
            reason: r.reason.as_deref(),
            stats: r.rtt_ns.as_ref(),
            msgs_per_s: r.msgs_per_s,
            bytes_per_s: r.bytes_per_s,
            window: r.common_window.as_ref(),
            disturbance: r.disturbance.as_ref(),
            factors: Some(&r.factors),
            replicates: r.replicates.as_ref(),
            timed_batch: r.timed_batch,
            resolution_ns: r.resolution_ns,
            state: r.state.as_ref(),
            ..Line::default()
        });
    }
    for r in &view.stream {
        lines.push(Line {
            link: &r.link,
            protocol: r.protocol.as_deref(),
            pattern: "stream",
            size: r.size_bytes,
            channels: r.channels,
            status: r.status,
            reason: r.reason.as_deref(),
            msgs_per_s: r.msgs_per_s,
            bytes_per_s: r.bytes_per_s,
            direction: &r.direction,
            window: r.common_window.as_ref(),
            disturbance: r.disturbance.as_ref(),
            factors: Some(&r.factors),
            replicates: r.replicates.as_ref(),
            state: r.state.as_ref(),
            ..Line::default()
        });
    }
    for r in &view.bulk {
        lines.push(Line {
            link: &r.link,
            protocol: r.protocol.as_deref(),
            pattern: "bulk",
            size: r.block_bytes,
            blocks: Some(r.blocks),
            status: r.status,
            reason: r.reason.as_deref(),
            stats: r.transfer_ns.as_ref(),
            bytes_per_s: r.bytes_per_s,
            disturbance: r.disturbance.as_ref(),
            replicates: r.replicates.as_ref(),
            ..Line::default()
        });
    }
    for (rows, pattern) in [(&view.timer, "timer"), (&view.irq, "irq")] {
        for r in rows {
            lines.push(Line {
                link: &r.link,
                pattern,
                status: r.status,
                reason: r.reason.as_deref(),
                stats: r.latency_ns.as_ref(),
                ..Line::default()
            });
        }
    }
    for r in &view.oneway {
        lines.push(Line {
            link: &r.link,
            pattern: "oneway",
            size: r.size_bytes,
            status: r.status,
            reason: r.reason.as_deref(),
            stats: r.oneway_ns.as_ref(),
            msgs_per_s: r.msgs_per_s,
            direction: &r.direction,
            disturbance: r.disturbance.as_ref(),
            factors: Some(&r.factors),
            replicates: r.replicates.as_ref(),
            ..Line::default()
        });
    }
    let mut w = csv::Writer::from_writer(out);
    w.write_record(CSV_COLUMNS)?;
    let id = view.run_id.to_string();
    for l in &lines {
        w.write_record(l.record(&id, &view.source))?;
    }
    w.flush()?;
    Ok(())
}

/// HdrHistogram's sub-bucket count for 3 significant digits:
/// 2^⌈log2(2·10³)⌉.
const SUB_BUCKETS: u32 = 2048;
/// Values are printed in µs (HdrHistogram's output value unit scaling ratio).
const SCALE_NS_PER_US: f64 = 1000.0;

/// One histogram in HdrHistogram's percentile distribution format.
pub fn hgrm_one(h: &LatencyHistogram, out: &mut dyn Write) -> std::io::Result<()> {
    let inner = h.inner();
    let prec = usize::from(inner.sigfig());
    writeln!(
        out,
        "{:>12} {:>14} {:>10} {:>14}\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    )?;
    let mut total = 0u64;
    for it in inner.iter_quantiles(5) {
        total += it.count_since_last_iteration();
        let v = inner.highest_equivalent(it.value_iterated_to()) as f64 / SCALE_NS_PER_US;
        let q = it.quantile_iterated_to();
        if q < 1.0 {
            writeln!(out, "{v:12.prec$} {q:2.12} {total:10} {:14.2}", 1.0 / (1.0 - q))?;
        } else {
            writeln!(out, "{v:12.prec$} {q:2.12} {total:10}")?;
        }
    }
    let mean = inner.mean() / SCALE_NS_PER_US;
    let sd = inner.stdev() / SCALE_NS_PER_US;
    let max = inner.highest_equivalent(inner.max()) as f64 / SCALE_NS_PER_US;
    writeln!(out, "#[Mean    = {mean:12.prec$}, StdDeviation   = {sd:12.prec$}]")?;
    writeln!(out, "#[Max     = {max:12.prec$}, Total count    = {:12}]", inner.len())?;
    writeln!(out, "#[Buckets = {:12}, SubBuckets     = {:12}]", inner.buckets(), SUB_BUCKETS)
}

/// Every latency histogram of a run, one section per cell.
pub fn hgrm(
    run_id: i64,
    source: &str,
    cells: &[CellResult],
    out: &mut dyn Write,
) -> std::io::Result<usize> {
    let mut n = 0;
    for c in cells {
        let CellOutcome::Measured(d) = &c.outcome else { continue };
        let Some(h) = d.latency.as_ref().filter(|h| !h.is_empty()) else { continue };
        if n > 0 {
            writeln!(out)?;
        }
        // Factors (a oneway cell's direction, a timer cell's CPU) tell
        // cells of the same link, pattern and size apart.
        let factors: String = c.key.factors.iter().map(|(k, v)| format!(" · {k} {v}")).collect();
        writeln!(
            out,
            "# icbench run {run_id} ({source}) · link {} · pattern {} · size {} B{factors} · values in µs",
            c.key.link, c.key.pattern, c.key.size_bytes
        )?;
        hgrm_one(h, out)?;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #15: a replicated cell's CSV line carries its blocks, the
    /// repeat interval and the factors; a cell measured once leaves them
    /// empty. Every line has as many fields as the header.
    #[test]
    fn csv_lines_carry_replicates_factors_and_timing() {
        use icbench_model::{CellData, CellKey, LinkCounters, Pattern};
        let cell = |rep: Option<&str>, p50: u64| {
            let mut h = LatencyHistogram::new();
            (0..100).for_each(|_| h.record(p50));
            let mut key = CellKey::new("pipe", Pattern::PingPong, 64);
            if let Some(r) = rep {
                key.factors.insert("rep".into(), r.into());
            }
            CellResult {
                key,
                outcome: CellOutcome::Measured(CellData {
                    messages: 100,
                    bytes: 6400,
                    elapsed_ns: 100 * p50,
                    warmup_messages: 0,
                    latency: Some(h),
                    raw_ns: None,
                    window: None,
                    counters: LinkCounters::default(),
                    channels: None,
                    adaptive: None,
                    per_channel: Vec::new(),
                    disturbance: None,
                    cut_at_messages: None,
                    timed_batch: None,
                    state: None,
                }),
            }
        };
        let meta = crate::testing::meta();
        // The blocks carry the state probe's line trip (issue #28).
        let probed = |rep: &str, p50: u64, line: f64| {
            let mut c = cell(Some(rep), p50);
            if let CellOutcome::Measured(d) = &mut c.outcome {
                d.state = Some(icbench_model::StateProbe {
                    line_rtt_ns: line,
                    wake_rtt_ns: Some(line * 100.0),
                    cost_ns: 5,
                    probes: 1,
                });
            }
            c
        };
        let blocks =
            [probed("0", 10_000, 210.0), probed("1", 10_200, 200.0), probed("2", 9_900, 190.0)];
        let mut once = cell(None, 5_000);
        once.key.size_bytes = 1;
        let cells: Vec<CellResult> = blocks.into_iter().chain([once]).collect();
        let view = crate::view::build(7, &meta, &cells);
        let mut out = Vec::new();
        csv(&view, &mut out).unwrap();
        let mut r = csv::Reader::from_reader(out.as_slice());
        let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(header, CSV_COLUMNS);
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 2);
        let rep = rows.iter().find(|l| &l[col("size_bytes")] == "64").unwrap();
        assert_eq!((&rep[col("rep_blocks")], &rep[col("rep_used")]), ("3", "3"));
        assert_eq!((&rep[col("rep_metric")], &rep[col("rep_disagree")]), ("p50_ns", "false"));
        let (lo, hi): (f64, f64) = (
            rep[col("rep_repeat95_lo")].parse().unwrap(),
            rep[col("rep_repeat95_hi")].parse().unwrap(),
        );
        assert!(lo < 10_000.0 && 10_000.0 < hi, "{lo} … {hi}");
        assert_eq!(&rep[col("resolution_ns")], "1");
        assert_eq!(&rep[col("timed_batch")], "");
        assert_eq!((&rep[col("state_line_rtt_ns")], &rep[col("state_probes")]), ("200", "3"));
        let ratio: f64 = rep[col("p50_over_line")].parse().unwrap();
        let p50: f64 = rep[col("p50_ns")].parse().unwrap();
        assert!((ratio - p50 / 200.0).abs() < 1e-9, "{ratio}");
        // The wake-up trips 21, 20 and 19 µs: their median, and each
        // block's p50 over the trip around it (its own probe's and the
        // next block's; the last block's own alone).
        assert_eq!(&rep[col("state_wake_rtt_ns")], "20000");
        let around = [(21_000.0f64 * 20_000.0).sqrt(), (20_000.0f64 * 19_000.0).sqrt(), 19_000.0];
        let p50s = [10_000.0f64, 10_200.0, 9_900.0];
        let want = (p50s.iter().zip(around).map(|(p, w)| (p / w).ln()).sum::<f64>() / 3.0).exp();
        let got: f64 = rep[col("p50_over_wake")].parse().unwrap();
        // The blocks' p50s as the histogram holds them: within its 0.1 %.
        assert!((got / want - 1.0).abs() < 2e-3, "{got} ≠ {want}");
        assert_eq!(&rep[col("history_runs")], "", "no earlier runs were given");
        let single = rows.iter().find(|l| &l[col("size_bytes")] == "1").unwrap();
        assert_eq!((&single[col("rep_blocks")], &single[col("factors")]), ("", ""));
        assert_eq!(&single[col("state_line_rtt_ns")], "");
        // Marked as the terminal marks it: these blocks agree; a third
        // block 1.5× off makes the cell's blocks disagree, and it is `1`.
        assert_eq!((&rep[col("marked")], &single[col("marked")]), ("0", "0"));
        let wild =
            [probed("0", 10_000, 210.0), probed("1", 15_000, 200.0), probed("2", 9_900, 190.0)];
        let view = crate::view::build(8, &meta, &wild);
        let mut out = Vec::new();
        csv(&view, &mut out).unwrap();
        let mut r = csv::Reader::from_reader(out.as_slice());
        let row = r.records().next().unwrap().unwrap();
        assert_eq!((&row[col("rep_disagree")], &row[col("marked")]), ("true", "1"));
    }

    #[test]
    fn hgrm_has_hdrhistograms_shape() {
        let mut h = LatencyHistogram::new();
        for v in 1..=1000u64 {
            h.record(v * 1000); // 1 … 1000 µs
        }
        let mut out = Vec::new();
        hgrm_one(&h, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "       Value     Percentile TotalCount 1/(1-Percentile)");
        assert_eq!(lines[1], "");
        // First line: the smallest value at quantile 0.
        assert!(
            lines[2].starts_with("       1.000 0.000000000000          1           1.00"),
            "{}",
            lines[2]
        );
        // The last data line is quantile 1 with every value counted and no 1/(1-p).
        let last = lines[lines.len() - 4];
        assert!(last.contains(" 1.000000000000       1000"), "{last}");
        assert!(
            lines[lines.len() - 3].starts_with("#[Mean    =      500.5"),
            "{}",
            lines[lines.len() - 3]
        );
        assert!(lines[lines.len() - 2].contains("Total count    =         1000]"));
        assert!(lines[lines.len() - 1].contains("SubBuckets     =         2048]"));
    }
}
