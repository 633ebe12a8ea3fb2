//! The one-line description of a set of measurements.

use icbench_model::LatencyHistogram;
use serde::{Deserialize, Serialize};

use crate::histview::HistView;
use crate::quantile::{sorted_finite, type7};

/// Count, extremes, mean, sample standard deviation and the usual
/// percentiles of a set of values, all in the values' unit (ns when the
/// input is ns).
///
/// Percentiles use linear interpolation between order statistics
/// (Hyndman & Fan type 7, see [`quantile_sorted`](crate::quantile_sorted)),
/// for raw samples and histograms alike.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of values.
    pub count: u64,
    /// Smallest value.
    pub min: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (divisor n − 1). NaN when `count == 1`,
    /// where it is undefined.
    pub stddev: f64,
    /// 50th percentile (the median).
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p99_9: f64,
    /// Largest value.
    pub max: f64,
}

impl Summary {
    /// Summary of raw samples. `None` if `samples` is empty or holds a NaN or
    /// an infinity. The mean and standard deviation are computed in two
    /// passes (mean first, then squared deviations from it), which avoids the
    /// cancellation of the one-pass Σx² formula. O(n log n) (one sort of a
    /// copy).
    pub fn from_samples(samples: &[f64]) -> Option<Summary> {
        let sorted = sorted_finite(samples)?;
        let n = sorted.len() as u64;
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let ss: f64 = sorted.iter().map(|x| (x - mean).powi(2)).sum();
        let q = |q: f64| type7(n, q, |i| sorted[i as usize]);
        Some(Summary {
            count: n,
            min: sorted[0],
            mean,
            stddev: sample_stddev(ss, n),
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            p99_9: q(0.999),
            max: sorted[sorted.len() - 1],
        })
    }

    /// Summary of a latency histogram, ns. `None` if it is empty.
    ///
    /// Each value stands for its HDR bucket: `min` is the lowest value of the
    /// lowest bucket and `max` the highest value of the highest bucket (so
    /// they bound every recorded value), while the mean, the standard
    /// deviation and the percentiles use each bucket's midpoint. Percentiles
    /// interpolate between order statistics exactly as
    /// [`from_samples`](Self::from_samples) does, so the two agree within
    /// the histogram's precision (0.1 % for 3 significant digits). This is
    /// finer than [`LatencyHistogram::quantile_ns`], which returns the
    /// highest value of the bucket at the quantile's rank, and may differ
    /// from it by up to one bucket width.
    ///
    /// O(number of recorded buckets).
    pub fn from_histogram(hist: &LatencyHistogram) -> Option<Summary> {
        HistView::new(hist).map(|view| Summary::from_view(&view))
    }

    /// [`from_histogram`](Self::from_histogram) of the buckets already read.
    pub(crate) fn from_view(view: &HistView) -> Summary {
        let n = view.len();
        let mean =
            view.buckets.iter().map(|b| b.mid_ns as f64 * b.count as f64).sum::<f64>() / n as f64;
        let ss: f64 =
            view.buckets.iter().map(|b| b.count as f64 * (b.mid_ns as f64 - mean).powi(2)).sum();
        let min = view.buckets[0].low_ns as f64;
        let max = view.buckets[view.buckets.len() - 1].high_ns as f64;
        let q = |q: f64| type7(n, q, |i| view.bucket_at_rank(i).mid_ns as f64);
        Summary {
            count: n,
            min,
            mean,
            stddev: sample_stddev(ss, n),
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            p99_9: q(0.999),
            max,
        }
    }
}

/// √(ss / (n − 1)), NaN for n = 1.
fn sample_stddev(sum_sq_dev: f64, n: u64) -> f64 {
    if n < 2 { f64::NAN } else { (sum_sq_dev / (n - 1) as f64).sqrt() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answer_from_samples() {
        // Expected values from python3:
        //   import statistics as s
        //   x = [2, 4, 4, 4, 5, 5, 7, 9]
        //   s.mean(x) == 5.0; s.stdev(x) == 2.138089935299395
        //   q = s.quantiles(x, n=1000, method="inclusive")
        //   q[499] == 4.5; q[899] == 7.6; q[989] == 8.86; q[998] == 8.986
        let x = [9.0, 2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0];
        let s = Summary::from_samples(&x).unwrap();
        assert_eq!(s.count, 8);
        assert_eq!(s.min, 2.0);
        assert_eq!(s.max, 9.0);
        assert_eq!(s.mean, 5.0);
        assert!((s.stddev - 2.138089935299395).abs() < 1e-12);
        assert_eq!(s.p50, 4.5);
        assert!((s.p90 - 7.6).abs() < 1e-12);
        assert!((s.p99 - 8.86).abs() < 1e-12);
        assert!((s.p99_9 - 8.986).abs() < 1e-12);
    }

    #[test]
    fn empty_single_and_non_finite() {
        assert_eq!(Summary::from_samples(&[]), None);
        assert_eq!(Summary::from_samples(&[1.0, f64::NAN]), None);
        let one = Summary::from_samples(&[3.0]).unwrap();
        assert_eq!((one.count, one.min, one.mean, one.p99_9, one.max), (1, 3.0, 3.0, 3.0, 3.0));
        assert!(one.stddev.is_nan());
        assert_eq!(Summary::from_histogram(&LatencyHistogram::new()), None);
    }

    #[test]
    fn histogram_of_small_integers_is_exact() {
        // Below 2048 ns every HDR bucket (3 significant digits) is one ns
        // wide, so the histogram summary equals the sample summary exactly.
        let x = [100.0, 200.0, 300.0, 400.0, 500.0, 1000.0, 1500.0, 2000.0];
        let mut h = LatencyHistogram::new();
        for v in x {
            h.record(v as u64);
        }
        let from_h = Summary::from_histogram(&h).unwrap();
        let from_s = Summary::from_samples(&x).unwrap();
        assert_eq!(from_h.count, from_s.count);
        for (a, b) in [
            (from_h.min, from_s.min),
            (from_h.max, from_s.max),
            (from_h.p50, from_s.p50),
            (from_h.p90, from_s.p90),
            (from_h.p99, from_s.p99),
            (from_h.p99_9, from_s.p99_9),
        ] {
            assert_eq!(a, b);
        }
        assert!((from_h.mean - from_s.mean).abs() < 1e-9);
        assert!((from_h.stddev - from_s.stddev).abs() < 1e-9);
    }

    #[test]
    fn histogram_bounds_cover_bucketed_values() {
        // 1_000_001 ns lies in [1024·2^9, 2048·2^9), where buckets are 2^9 = 512 ns wide:
        // min/max are the bucket's edges, the percentiles its midpoint.
        let mut h = LatencyHistogram::new();
        h.record(1_000_001);
        let s = Summary::from_histogram(&h).unwrap();
        assert!(s.min <= 1_000_001.0 && 1_000_001.0 <= s.max);
        assert!((s.p50 - 1_000_001.0).abs() / 1_000_001.0 < 0.001);
        assert!(s.max - s.min < 0.001 * 1_000_001.0);
    }
}
