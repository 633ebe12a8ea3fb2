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

/// The CSV header, in column order.
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
];

fn num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite()).map_or(String::new(), |x| format!("{x}"))
}

/// Every cell of the view as CSV.
pub fn csv(view: &RunView, out: &mut dyn Write) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(CSV_COLUMNS)?;
    let id = view.run_id.to_string();
    let mut row = |link: &str,
                   protocol: &Option<String>,
                   pattern: &str,
                   size: u64,
                   channels: Option<u32>,
                   blocks: Option<u32>,
                   status: &str,
                   reason: &Option<String>,
                   s: Option<&crate::CellStats>,
                   msgs: Option<f64>,
                   bps: Option<f64>,
                   direction: &str,
                   cw: Option<&crate::ChannelsView>,
                   d: Option<&crate::DisturbanceView>|
     -> Result<(), csv::Error> {
        let m = s.map(|s| s.summary);
        let mut rec = vec![
            id.clone(),
            view.source.clone(),
            link.to_string(),
            protocol.clone().unwrap_or_default(),
            pattern.to_string(),
            size.to_string(),
            channels.map_or(String::new(), |c| c.to_string()),
            blocks.map_or(String::new(), |b| b.to_string()),
            status.to_string(),
            reason.clone().unwrap_or_default(),
            s.map_or(String::new(), |s| s.from.to_string()),
            m.map_or(String::new(), |m| m.count.to_string()),
        ];
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
            msgs,
            bps,
        ] {
            rec.push(num(v));
        }
        rec.push(direction.to_string());
        let fair = cw.and_then(|c| c.fairness);
        rec.push(cw.map_or(String::new(), |c| c.window_ns.to_string()));
        rec.push(num(fair.map(|f| f.jain)));
        rec.push(num(fair.map(|f| f.min_over_max)));
        rec.push(d.map_or(String::new(), |d| d.disturbed.to_string()));
        rec.push(d.map_or(String::new(), |d| d.causes.join("; ")));
        let int = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
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
        w.write_record(&rec)
    };
    for r in &view.pingpong {
        row(
            &r.link,
            &r.protocol,
            "pingpong",
            r.size_bytes,
            r.channels,
            None,
            r.status,
            &r.reason,
            r.rtt_ns.as_ref(),
            r.msgs_per_s,
            r.bytes_per_s,
            "",
            r.common_window.as_ref(),
            r.disturbance.as_ref(),
        )?;
    }
    for r in &view.stream {
        row(
            &r.link,
            &r.protocol,
            "stream",
            r.size_bytes,
            r.channels,
            None,
            r.status,
            &r.reason,
            None,
            r.msgs_per_s,
            r.bytes_per_s,
            &r.direction,
            r.common_window.as_ref(),
            r.disturbance.as_ref(),
        )?;
    }
    for r in &view.bulk {
        row(
            &r.link,
            &r.protocol,
            "bulk",
            r.block_bytes,
            None,
            Some(r.blocks),
            r.status,
            &r.reason,
            r.transfer_ns.as_ref(),
            None,
            r.bytes_per_s,
            "",
            None,
            r.disturbance.as_ref(),
        )?;
    }
    for r in &view.timer {
        row(
            &r.link,
            &None,
            "timer",
            0,
            None,
            None,
            r.status,
            &r.reason,
            r.latency_ns.as_ref(),
            None,
            None,
            "",
            None,
            None,
        )?;
    }
    for r in &view.oneway {
        row(
            &r.link,
            &None,
            "oneway",
            r.size_bytes,
            None,
            None,
            r.status,
            &r.reason,
            r.oneway_ns.as_ref(),
            r.msgs_per_s,
            None,
            &r.direction,
            None,
            r.disturbance.as_ref(),
        )?;
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
