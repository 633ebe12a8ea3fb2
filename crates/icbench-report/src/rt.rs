//! The view of a realtime run (timer or wake-up cells): one row per CPU or
//! primitive with percentiles up to p99.99 and the maximum, a terminal
//! table, and JSON in the spirit of rt-tests' `--json` envelope
//! (`file_version`, `cmdline`, `sysinfo`, `thread.{i}` with a µs histogram
//! and `cycles`/`min`/`avg`/`max` in µs as cyclictest writes them) with
//! icbench's `schema_version` and the ns statistics added.

use std::collections::BTreeMap;
use std::io::Write;

use icbench_model::{
    CellOutcome, CellResult, JSON_SCHEMA_VERSION, LatencyHistogram, Pattern, RunMeta,
};
use icbench_stats::Summary;
use serde::Serialize;

use crate::format;
use crate::rthist::HistColumn;

/// A measured timer or wake-up cell.
#[derive(Debug, Clone, Serialize)]
pub struct RtRow {
    /// `timer` or `wakeup`.
    pub pattern: Pattern,
    /// `cpu 3` for a timer cell, the primitive for a wake-up cell.
    pub label: String,
    /// The cell's factors (cpu, sender_cpu, receiver_cpu, interval_us).
    pub factors: BTreeMap<String, String>,
    pub status: &'static str,
    pub reason: Option<String>,
    /// Lateness (timer) or one-way wake-up time (wakeup), ns.
    pub latency_ns: Option<Summary>,
    /// The 99.99th percentile, ns (same interpolation as `latency_ns`).
    pub p99_99_ns: Option<f64>,
    /// Samples in time order were kept (`--raw`).
    pub raw_samples: bool,
}

/// Everything shown about a realtime run.
#[derive(Debug, Clone, Serialize)]
pub struct RtView {
    pub schema_version: u32,
    pub run_id: i64,
    pub meta: RunMeta,
    pub rows: Vec<RtRow>,
}

/// Builds the rows of the timer and wake-up cells of a run (others are
/// left to [`crate::build`]).
pub fn build(run_id: i64, meta: &RunMeta, cells: &[CellResult]) -> RtView {
    let rows = cells.iter().filter(|c| Pattern::RT.contains(&c.key.pattern)).map(row).collect();
    RtView { schema_version: JSON_SCHEMA_VERSION, run_id, meta: meta.clone(), rows }
}

/// Does this run hold realtime cells?
pub fn is_rt(cells: &[CellResult]) -> bool {
    cells.iter().any(|c| Pattern::RT.contains(&c.key.pattern))
}

fn row(c: &CellResult) -> RtRow {
    let label = match (c.key.pattern, c.key.factor("cpu")) {
        (Pattern::Timer, Some(cpu)) => format!("cpu {cpu}"),
        _ => c.key.link.clone(),
    };
    let mut r = RtRow {
        pattern: c.key.pattern,
        label,
        factors: c.key.factors.clone(),
        status: c.outcome.status_str(),
        reason: None,
        latency_ns: None,
        p99_99_ns: None,
        raw_samples: false,
    };
    match &c.outcome {
        CellOutcome::Measured(d) => {
            if let Some(h) = &d.latency {
                r.latency_ns = Summary::from_histogram(h);
                r.p99_99_ns = hist_quantile(h, 0.9999);
            }
            r.raw_samples = d.raw_ns.is_some();
        }
        CellOutcome::Failed { reason } => r.reason = Some(reason.clone()),
        CellOutcome::NotApplicable { .. } => {}
    }
    r
}

/// Quantile `q` of a histogram, interpolated between order statistics
/// (Hyndman & Fan type 7) with each value standing for its HDR bucket's
/// midpoint — the method of `icbench_stats::Summary::from_histogram`, for a
/// percentile that Summary does not carry.
pub fn hist_quantile(h: &LatencyHistogram, q: f64) -> Option<f64> {
    let n = h.len();
    if n == 0 || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let inner = h.inner();
    let rank = (n - 1) as f64 * q;
    let lo = rank.floor() as u64;
    let frac = rank - lo as f64;
    let (mut at_lo, mut at_hi) = (None, None);
    let mut seen = 0u64;
    for it in inner.iter_recorded() {
        let mid = inner.median_equivalent(it.value_iterated_to()) as f64;
        let next = seen + it.count_at_value();
        if at_lo.is_none() && lo < next {
            at_lo = Some(mid);
        }
        if lo + 1 < next || (lo + 1 >= n && at_lo.is_some()) {
            at_hi = Some(mid);
            break;
        }
        seen = next;
    }
    let a = at_lo?;
    let b = at_hi.unwrap_or(a);
    Some(a + (b - a) * frac)
}

/// The terminal table of a realtime run.
pub fn table(view: &RtView, out: &mut dyn Write) -> std::io::Result<()> {
    crate::terminal::fitted(out, |o| table_text(view, o))
}

fn table_text(view: &RtView, out: &mut dyn Write) -> std::io::Result<()> {
    use comfy_table::CellAlignment;
    let mut t = crate::terminal::table(&[
        "pattern", "where", "samples", "min", "p50", "p90", "p99", "p99.9", "p99.99", "max", "mean",
    ]);
    for r in &view.rows {
        let place = match r.pattern {
            Pattern::Wakeup => format!(
                "{} ({} → {})",
                r.label,
                r.factors.get("sender_cpu").map_or("?", String::as_str),
                r.factors.get("receiver_cpu").map_or("?", String::as_str)
            ),
            Pattern::Irq => {
                let f = |k: &str| r.factors.get(k).map_or("?", String::as_str);
                match r.label.as_str() {
                    "edge-to-response" => {
                        format!("{} ({} → {})", r.label, f("respond"), f("respond_in"))
                    }
                    _ => format!("{} ({} → {})", r.label, f("out"), f("in")),
                }
            }
            _ => r.label.clone(),
        };
        let mut cells = vec![r.pattern.to_string(), place];
        match (&r.latency_ns, &r.reason) {
            (Some(s), _) => {
                cells.push(s.count.to_string());
                cells.push(format::ns(s.min));
                // A percentile q is shown from 1 ÷ (1 − q) samples on (issue
                // #29: p99.99 of 500 wake-ups is the maximum by another
                // name): "–" below.
                let tail = |v: Option<f64>, q: f64| match v {
                    Some(v) if s.count as f64 >= (1.0 / (1.0 - q)).round() => format::ns(v),
                    _ => "–".into(),
                };
                for (v, q) in [(s.p50, 0.5), (s.p90, 0.9), (s.p99, 0.99), (s.p99_9, 0.999)] {
                    cells.push(tail(Some(v), q));
                }
                cells.push(tail(r.p99_99_ns, 0.9999));
                cells.push(format::ns(s.max));
                cells.push(format::ns(s.mean));
            }
            (None, reason) => {
                cells.push(format!("{}: {}", r.status, reason.as_deref().unwrap_or("no samples")))
            }
        }
        t.add_row(cells);
    }
    for i in 2..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(out, "{}", crate::terminal::draw(&t))?;
    let what = |p: Pattern| match p {
        Pattern::Timer => "timer: lateness of each wake-up after its CLOCK_MONOTONIC deadline",
        Pattern::Irq => {
            "irq: per edge, on CLOCK_MONOTONIC (GPIO line numbers in brackets):\n  \
             set-to-edge       output set (clock read before the ioctl) → the input's \
             edge timestamp (the interrupt's arrival)\n  \
             edge-to-wake      edge timestamp → the measuring thread back from poll\n  \
             edge-to-response  edge timestamp → the response edge's timestamp (interrupt \
             to pin set)"
        }
        _ => "wakeup: one-way time, sender's clock read before the wake → receiver's on return",
    };
    let mut kinds: Vec<Pattern> = view.rows.iter().map(|r| r.pattern).collect();
    kinds.dedup();
    for p in kinds {
        writeln!(out, "{}", what(p))?;
    }
    Ok(())
}

/// The system as rt-tests' JSON `sysinfo` describes it.
#[derive(Debug, Clone, Serialize)]
pub struct SysInfo {
    pub sysname: String,
    pub nodename: String,
    pub release: String,
    pub version: String,
    pub machine: String,
    /// `/sys/kernel/realtime` (1 on a PREEMPT_RT kernel).
    pub realtime: u8,
}

/// rt-tests-style JSON of a realtime run: the envelope of rt-tests'
/// `rt_write_json` (with `cmdline` and `rt_test_version` spelled without
/// rt-tests' stray colon), cyclictest's per-thread body in µs, and
/// icbench's ns figures under `icbench` in each thread.
pub fn json(
    view: &RtView,
    cells: &[CellResult],
    sysinfo: &SysInfo,
    buckets_us: usize,
    return_code: i32,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let time = |ns: Option<i64>| {
        ns.and_then(|n| jiff::Timestamp::from_nanosecond(i128::from(n)).ok())
            .map(|t| t.strftime("%a, %d %b %Y %H:%M:%S %z").to_string())
    };
    let rt_cells: Vec<&CellResult> =
        cells.iter().filter(|c| Pattern::RT.contains(&c.key.pattern)).collect();
    let mut threads = serde_json::Map::new();
    for (i, (c, r)) in rt_cells.iter().zip(&view.rows).enumerate() {
        let mut t = serde_json::Map::new();
        if let CellOutcome::Measured(d) = &c.outcome
            && let Some(col) = HistColumn::from_cell(d, buckets_us)
        {
            let hist: serde_json::Map<String, serde_json::Value> = col
                .counts
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(b, n)| (b.to_string(), (*n).into()))
                .collect();
            t.insert("histogram".into(), hist.into());
            t.insert("cycles".into(), d.messages.into());
            t.insert("min".into(), col.min_us.into());
            t.insert("max".into(), col.max_us.into());
            let avg_us = r.latency_ns.map_or(0.0, |s| s.mean / 1000.0);
            t.insert("avg".into(), avg_us.into());
            t.insert("overflows".into(), col.overflows.into());
        }
        for (k, v) in &r.factors {
            t.insert(k.clone(), v.parse::<u64>().map_or_else(|_| v.clone().into(), Into::into));
        }
        t.insert("node".into(), 0.into());
        t.insert("icbench".into(), serde_json::to_value(r)?);
        threads.insert(i.to_string(), t.into());
    }
    let pattern = view.rows.first().map_or("timer", |r| r.pattern.as_str());
    let doc = serde_json::json!({
        "file_version": 1,
        "schema_version": view.schema_version,
        "cmdline": view.meta.command_line.join(" "),
        "rt_test_version": serde_json::Value::Null,
        "icbench_version": view.meta.icbench_version,
        "start_time": time(Some(view.meta.started_unix_ns)),
        "end_time": time(view.meta.ended_unix_ns),
        "return_code": return_code,
        "sysinfo": sysinfo,
        "run_id": view.run_id,
        "pattern": pattern,
        "clock": if pattern == "timer" { "CLOCK_MONOTONIC" } else { view.meta.clock.as_str() },
        "num_threads": view.rows.len(),
        "resolution_in_ns": 0,
        "histogram_buckets_us": buckets_us,
        "notes": view.meta.notes,
        "thread": threads,
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p99_99_interpolates_like_the_summary() {
        let mut h = LatencyHistogram::new();
        for v in 1..=10_000u64 {
            h.record(v);
        }
        let s = Summary::from_histogram(&h).unwrap();
        // Same method: the median from both paths agrees.
        assert_eq!(hist_quantile(&h, 0.5).unwrap(), s.p50);
        assert_eq!(hist_quantile(&h, 0.999).unwrap(), s.p99_9);
        let p = hist_quantile(&h, 0.9999).unwrap();
        assert!((9_990.0..=10_000.0).contains(&p), "{p}");
        assert_eq!(hist_quantile(&h, 1.0).unwrap(), s.max.min(hist_quantile(&h, 1.0).unwrap()));
    }

    /// Issue #29: 500 wake-ups show p50 … p99 and no p99.9 or p99.99 —
    /// those need 1,000 and 10,000 samples.
    #[test]
    fn a_tail_percentile_needs_the_samples_to_have_one() {
        use icbench_model::{CellKey, Pattern};
        let mut key = CellKey::new("timer", Pattern::Timer, 0);
        key.factors.insert("cpu".into(), "0".into());
        // 499 wake-ups around 1 µs and one long one: 500 samples.
        let cells = [crate::html::tests::measured(key, 1000, 499)];
        let view = build(1, &crate::testing::meta(), &cells);
        let mut out = Vec::new();
        table(&view, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let row = text.lines().find(|l| l.contains("cpu 0")).unwrap();
        let cells: Vec<&str> = row.split('┆').map(str::trim).collect();
        // pattern, where, samples, min, p50, p90, p99, p99.9, p99.99, max, mean
        assert_eq!(cells[2], "500", "{text}");
        assert_ne!(cells[6], "–", "{text}");
        assert_eq!((cells[7], cells[8]), ("–", "–"), "{text}");
    }

    #[test]
    fn one_value_is_every_quantile() {
        let mut h = LatencyHistogram::new();
        h.record(1234);
        assert_eq!(hist_quantile(&h, 0.0), hist_quantile(&h, 1.0));
        assert!(hist_quantile(&LatencyHistogram::new(), 0.5).is_none());
    }
}
