//! The statistics every measured cell shows: count, min, mean, stddev, p50,
//! p90, p99, p99_9, max, the 95 % confidence intervals of the mean and the
//! median, and Tukey outlier counts (flagged, never removed).
//!
//! They come from the raw samples when the cell kept them (`--raw`, or an
//! import that had every value), else from the HDR histogram, and say which
//! (`from`). A one-shot value (a seed log line) has count 1 and no interval:
//! the note says so rather than inventing one.

use icbench_model::{CellData, LatencyHistogram};
use icbench_stats::{
    OutlierCounts, Summary, mean_ci95, mean_ci95_summary, median_ci95, tukey_fences,
};
use serde::Serialize;

/// Where a cell's statistics were computed from.
pub const FROM_RAW: &str = "raw samples";
/// See [`FROM_RAW`].
pub const FROM_HISTOGRAM: &str = "histogram";

/// How the median's interval is computed (distribution-free, no seed).
pub const MEDIAN_CI_METHOD: &str = "order statistics (binomial ranks)";
/// How the mean's interval is computed.
pub const MEAN_CI_METHOD: &str = "Student t";
/// How outliers are flagged.
pub const OUTLIER_METHOD: &str = "Tukey fences (1.5 and 3 IQR)";

/// Statistics of one cell's samples, in ns.
#[derive(Debug, Clone, Serialize)]
pub struct CellStats {
    /// `raw samples` or `histogram`.
    pub from: &'static str,
    #[serde(flatten)]
    pub summary: Summary,
    pub mean_ci95_lo: Option<f64>,
    pub mean_ci95_hi: Option<f64>,
    pub median_ci95_lo: Option<f64>,
    pub median_ci95_hi: Option<f64>,
    /// Tukey-fence outlier counts; `None` with fewer than 4 values.
    pub outliers: Option<OutlierCounts>,
    /// Why an interval or the outlier counts are missing, in words.
    pub note: Option<String>,
}

impl CellStats {
    /// Statistics of a measured cell: raw samples when present, else the
    /// histogram. `None` when the cell holds no latency values at all.
    pub fn of(d: &CellData) -> Option<CellStats> {
        match (&d.raw_ns, &d.latency) {
            (Some(raw), _) if !raw.is_empty() => CellStats::from_raw(raw),
            (_, Some(h)) => CellStats::from_histogram(h),
            _ => None,
        }
    }

    pub fn from_raw(raw: &[u64]) -> Option<CellStats> {
        let x: Vec<f64> = raw.iter().map(|&v| v as f64).collect();
        let summary = Summary::from_samples(&x)?;
        let median = median_ci95(&x);
        let mean = mean_ci95(&x);
        let outliers = (x.len() >= 4).then(|| tukey_fences(&x).map(|f| f.count(&x))).flatten();
        Some(CellStats::assemble(FROM_RAW, summary, mean, median, outliers))
    }

    pub fn from_histogram(h: &LatencyHistogram) -> Option<CellStats> {
        // One walk over the histogram's counts for all of them.
        let buckets = icbench_stats::Buckets::new(h)?;
        let summary = buckets.summary();
        let mean = mean_ci95_summary(&summary);
        let median = buckets.median_ci95();
        let outliers =
            (summary.count >= 4).then(|| buckets.count_outliers(&buckets.tukey_fences()));
        Some(CellStats::assemble(FROM_HISTOGRAM, summary, mean, median, outliers))
    }

    fn assemble(
        from: &'static str,
        summary: Summary,
        mean: Option<icbench_stats::Interval>,
        median: Option<icbench_stats::Interval>,
        outliers: Option<OutlierCounts>,
    ) -> CellStats {
        let note = match summary.count {
            1 => Some("one sample: no spread, no confidence interval, no outliers".to_string()),
            2 => Some(
                "2 samples: too few for a 95 % interval of the mean (needs 3) or of the median \
                 (needs 6)"
                    .to_string(),
            ),
            n if n < 6 => {
                Some(format!("{n} samples: too few for a 95 % interval of the median (needs 6)"))
            }
            _ => None,
        };
        // Two samples give t₀.₉₇₅,₁ = 12.7: "−756 ns … 3.06 µs" for 1.0 and
        // 1.3 µs (issue #30 item 12). None then; and a time is never below
        // zero, so neither is the interval's low end.
        let mean = mean.filter(|_| summary.count >= 3);
        CellStats {
            from,
            summary,
            mean_ci95_lo: mean.map(|i| i.lo.max(0.0)),
            mean_ci95_hi: mean.map(|i| i.hi),
            median_ci95_lo: median.map(|i| i.lo),
            median_ci95_hi: median.map(|i| i.hi),
            outliers,
            note,
        }
    }

    /// Half-width of the median's interval relative to the median.
    pub fn median_ci95_rel(&self) -> Option<f64> {
        match (self.median_ci95_lo, self.median_ci95_hi) {
            (Some(lo), Some(hi)) if self.summary.p50 != 0.0 => {
                Some((hi - lo) / 2.0 / self.summary.p50.abs())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_samples_win_over_the_histogram_and_say_so() {
        let raw: Vec<u64> = (1..=20).map(|i| i * 100).collect();
        let mut h = LatencyHistogram::new();
        raw.iter().for_each(|&v| h.record(v));
        let d = CellData {
            messages: 20,
            bytes: 20,
            elapsed_ns: 1,
            warmup_messages: 0,
            latency: Some(h.clone()),
            raw_ns: Some(raw),
            window: None,
            channels: None,
            counters: Default::default(),
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        };
        let s = CellStats::of(&d).unwrap();
        assert_eq!(s.from, FROM_RAW);
        assert_eq!(s.summary.count, 20);
        // n = 20: ranks 6 and 15 (see icbench-stats).
        assert_eq!((s.median_ci95_lo, s.median_ci95_hi), (Some(600.0), Some(1500.0)));
        assert_eq!(s.note, None);
        let from_h = CellStats::from_histogram(&h).unwrap();
        assert_eq!(from_h.from, FROM_HISTOGRAM);
        // Below 2048 ns the histogram is exact: the same answers.
        assert_eq!(from_h.median_ci95_lo, s.median_ci95_lo);
        assert_eq!(from_h.summary.p99, s.summary.p99);
        let (a, b) = (from_h.mean_ci95_lo.unwrap(), s.mean_ci95_lo.unwrap());
        assert!((a - b).abs() < 1e-9);
    }

    #[test]
    fn one_sample_has_no_interval_and_says_so() {
        let s = CellStats::from_raw(&[11_970_765]).unwrap();
        assert_eq!(s.summary.count, 1);
        assert_eq!((s.mean_ci95_lo, s.median_ci95_lo, s.outliers), (None, None, None));
        assert!(s.note.unwrap().contains("one sample"));
        assert!(CellStats::from_raw(&[]).is_none());
    }

    /// Issue #30 item 12: two samples gave a mean interval of −756 ns …
    /// 3.06 µs; three far apart would still reach below zero.
    #[test]
    fn a_mean_interval_needs_three_samples_and_never_goes_below_zero() {
        let two = CellStats::from_raw(&[1000, 1300]).unwrap();
        assert_eq!((two.mean_ci95_lo, two.mean_ci95_hi), (None, None));
        assert!(two.note.unwrap().contains("interval of the mean (needs 3)"));
        let three = CellStats::from_raw(&[10, 20, 3000]).unwrap();
        assert_eq!(three.mean_ci95_lo, Some(0.0));
        assert!(three.mean_ci95_hi.unwrap() > 3000.0);
    }
}
