//! 95 % confidence intervals for the mean and the median.
//!
//! - Mean: Student's t interval, `mean ± t(0.975; n−1)·s/√n`. It assumes the
//!   sample mean is close to normal, which latency data (skewed, heavy upper
//!   tail) meet only for large n; prefer the median intervals for latencies.
//! - Median, distribution-free: the order-statistic interval
//!   `[x(k), x(n−k+1)]`, where k is the largest rank with
//!   `P(Bin(n, ½) ≤ k − 1) ≤ 0.025`, so the coverage is at least 95 % for
//!   any continuous distribution (Conover, *Practical Nonparametric
//!   Statistics*, 3rd ed., 1999, §3.2; Hollander, Wolfe & Chicken,
//!   *Nonparametric Statistical Methods*, 3rd ed., 2014, §3.6).
//! - Median, bootstrap: the percentile bootstrap (Efron & Tibshirani, *An
//!   Introduction to the Bootstrap*, 1993, ch. 13) with a recorded seed; see
//!   [`BOOTSTRAP_GENERATOR`](crate::BOOTSTRAP_GENERATOR).

use icbench_model::LatencyHistogram;

use crate::histview::HistView;
use crate::interval::Interval;
use crate::quantile::{sorted_finite, type7};
use crate::resample::{Resampler, median_in_place};

pub(crate) use crate::tdist::t_975;

/// 95 % confidence interval for the mean, by Student's t:
/// `mean ± t(0.975; n − 1)·stddev/√n`, in the samples' unit.
///
/// `None` if there are fewer than 2 samples or any is NaN or infinite.
/// O(n).
pub fn mean_ci95(samples: &[f64]) -> Option<Interval> {
    let n = samples.len();
    if n < 2 || !samples.iter().all(|x| x.is_finite()) {
        return None;
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = t_975((n - 1) as f64) * (var / n as f64).sqrt();
    if !(mean.is_finite() && half.is_finite()) {
        return None; // the sums overflowed (values near f64::MAX)
    }
    Some(Interval::new(mean - half, mean + half))
}

/// 95 % confidence interval for the mean from a [`Summary`](crate::Summary)
/// (count, mean, stddev), by Student's t: `mean ± t(0.975; n − 1)·stddev/√n`.
/// This is how the mean of a histogram gets its interval, where the raw
/// samples are gone. `None` for fewer than 2 values or a non-finite mean or
/// stddev.
pub fn mean_ci95_summary(s: &crate::Summary) -> Option<Interval> {
    if s.count < 2 || !s.mean.is_finite() || !s.stddev.is_finite() {
        return None;
    }
    let half = t_975((s.count - 1) as f64) * s.stddev / (s.count as f64).sqrt();
    Some(Interval::new(s.mean - half, s.mean + half))
}

/// The 1-based ranks `(k, n − k + 1)` of the distribution-free 95 %
/// confidence interval for the median of `n` values: k is the largest rank
/// with `P(Bin(n, ½) ≤ k − 1) ≤ 0.025`, so `[x(k), x(n−k+1)]` covers the
/// median with probability `1 − 2·P(Bin(n, ½) ≤ k − 1) ≥ 0.95`.
///
/// `None` for n < 6: even `[min, max]` covers with less than 95 % there
/// (1 − 2/2⁵ = 93.75 % at n = 5). Examples: n = 10 → (2, 9); n = 20 →
/// (6, 15); n = 100 → (40, 61). O(log n) evaluations of the binomial CDF
/// (at most 64), each of bounded time and right for every n (`binomial`).
pub fn median_ci95_ranks(n: u64) -> Option<(u64, u64)> {
    if n < 6 {
        return None;
    }
    let ok = |k: u64| crate::binomial::half_cdf_at_most_0025(n, k - 1);
    // ok(1) holds for n >= 6 (2^-n <= 1/64); ok is monotone (true then false).
    let (mut lo, mut hi) = (1u64, n.div_ceil(2) + 1);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) { lo = mid } else { hi = mid }
    }
    Some((lo, n - lo + 1))
}

/// Distribution-free 95 % confidence interval for the median of raw
/// samples: `[x(k), x(n−k+1)]` with the ranks of [`median_ci95_ranks`].
///
/// `None` if there are fewer than 6 samples or any is non-finite.
/// O(n log n) (sorts a copy).
pub fn median_ci95(samples: &[f64]) -> Option<Interval> {
    let (k, k_hi) = median_ci95_ranks(samples.len() as u64)?;
    let sorted = sorted_finite(samples)?;
    Some(Interval::new(sorted[(k - 1) as usize], sorted[(k_hi - 1) as usize]))
}

/// Distribution-free 95 % confidence interval for the median of a latency
/// histogram, ns: the same ranks as [`median_ci95`], read off the
/// histogram's cumulative counts. The low end is the *lowest* value of the
/// bucket holding rank k and the high end the *highest* value of the bucket
/// holding rank n − k + 1, so the interval contains the interval the raw
/// samples would have given.
///
/// `None` if the histogram holds fewer than 6 values. O(number of buckets).
pub fn median_ci95_hist(hist: &LatencyHistogram) -> Option<Interval> {
    median_ci95_view(&HistView::new(hist)?)
}

/// [`median_ci95_hist`] of the buckets already read.
pub(crate) fn median_ci95_view(view: &HistView) -> Option<Interval> {
    let (k, k_hi) = median_ci95_ranks(view.len())?;
    Some(Interval::new(
        view.bucket_at_rank(k - 1).low_ns as f64,
        view.bucket_at_rank(k_hi - 1).high_ns as f64,
    ))
}

/// Percentile-bootstrap 95 % confidence interval for the median: draws
/// `resamples` resamples of `samples` with replacement, takes each one's
/// median, and returns the type-7 2.5 % and 97.5 % quantiles of those
/// medians. In the samples' unit.
///
/// Deterministic for a given `seed` (record it, together with
/// [`BOOTSTRAP_GENERATOR`](crate::BOOTSTRAP_GENERATOR)). 1 000–10 000
/// resamples are usual. `None` if `samples` is empty or holds a non-finite
/// value, or `resamples` is 0.
///
/// O(resamples · n) time, O(resamples + n) memory.
pub fn bootstrap_median_ci95(samples: &[f64], resamples: usize, seed: u64) -> Option<Interval> {
    if resamples == 0 || samples.is_empty() || !samples.iter().all(|x| x.is_finite()) {
        return None;
    }
    let mut rs = Resampler::new(seed);
    let mut buf = Vec::with_capacity(samples.len());
    let medians: Vec<f64> = (0..resamples)
        .map(|_| {
            rs.resample_into(samples, &mut buf);
            median_in_place(&mut buf)
        })
        .collect();
    percentile_interval(medians)
}

/// The type-7 2.5 % and 97.5 % quantiles of bootstrap replicates.
pub(crate) fn percentile_interval(mut reps: Vec<f64>) -> Option<Interval> {
    if reps.is_empty() || reps.iter().any(|x| x.is_nan()) {
        return None;
    }
    reps.sort_unstable_by(f64::total_cmp);
    let n = reps.len() as u64;
    let q = |q: f64| type7(n, q, |i| reps[i as usize]);
    Some(Interval::new(q(0.025), q(0.975)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        // mpmath (python3): root of 1 − ½·I_{v/(v+t²)}(v/2, ½) = 0.975.
        for (df, want) in [
            (1.0, 12.706204736174693),
            (2.0, 4.302652729749462),
            (7.0, 2.364624251592785),
            (24.9, 2.059958032459835),
        ] {
            assert!((t_975(df) - want).abs() < 1e-9, "df {df}: {} vs {want}", t_975(df));
        }
    }

    #[test]
    fn mean_ci95_known_answer() {
        // x = [2,4,4,4,5,5,7,9]: mean 5, s = 2.138089935299395,
        // t(0.975; 7) = 2.364624251592785 (mpmath), half = t·s/√8
        // = 1.78748791823621 (python3).
        let ci = mean_ci95(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert!((ci.lo - 3.21251208176379).abs() < 1e-9);
        assert!((ci.hi - 6.78748791823621).abs() < 1e-9);
        assert_eq!(mean_ci95(&[1.0]), None);
        assert_eq!(mean_ci95(&[1.0, f64::NAN]), None);
        assert_eq!(mean_ci95(&[3.0, 3.0, 3.0]), Some(Interval::new(3.0, 3.0)));
    }

    #[test]
    fn mean_ci95_from_a_summary_equals_the_sample_interval() {
        let x = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        let s = crate::Summary::from_samples(&x).unwrap();
        let a = mean_ci95_summary(&s).unwrap();
        let b = mean_ci95(&x).unwrap();
        assert!((a.lo - b.lo).abs() < 1e-12 && (a.hi - b.hi).abs() < 1e-12);
        let one = crate::Summary::from_samples(&[3.0]).unwrap();
        assert_eq!(mean_ci95_summary(&one), None);
    }

    #[test]
    fn mean_ci95_of_a_huge_count_is_the_normal_interval() {
        // #35: statrs never returned for count − 1 ≥ 1.8·10⁷ and was 7 % off at 10⁷.
        let mut s = crate::Summary::from_samples(&[1.0, 3.0]).unwrap();
        s.stddev = 1e6;
        for count in [10_000_001, 1 << 27, 1 << 62, u64::MAX] {
            s.count = count;
            let ci = mean_ci95_summary(&s).unwrap();
            let z = 1.959_963_984_540_054 * 1e6 / (count as f64).sqrt();
            assert!(((ci.hi - s.mean) / z - 1.0).abs() < 3e-7, "{count}: {ci:?}");
        }
    }

    #[test]
    fn median_ranks_known_answers() {
        // Exact binomial sums in python3 (fractions + math.comb): largest k
        // with Σ_{i<k} C(n,i)/2^n ≤ 0.025.
        assert_eq!(median_ci95_ranks(5), None);
        assert_eq!(median_ci95_ranks(6), Some((1, 6)));
        assert_eq!(median_ci95_ranks(8), Some((1, 8)));
        assert_eq!(median_ci95_ranks(10), Some((2, 9)));
        assert_eq!(median_ci95_ranks(20), Some((6, 15)));
        assert_eq!(median_ci95_ranks(100), Some((40, 61)));
        assert_eq!(median_ci95_ranks(1000), Some((469, 532)));
        // #35: exact sums (mpmath) up to 10⁸, then mpmath's 60-digit
        // Edgeworth expansion; statrs' own CDF is off by 0.2 at 10¹⁴ and
        // not a probability from 10¹⁶ on.
        for (n, k) in [
            (99_999u64, 49_690u64),
            (100_000, 49_690),
            (100_001, 49_691),
            (123_457, 61_384),
            (1_000_000, 499_020),
            (10_000_000, 4_996_901),
            (100_000_000, 49_990_200),
            (1_000_000_000, 499_969_010),
            (1_000_000_000_000, 499_999_020_018),
            (1_000_000_000_000_000, 499_999_969_010_248),
            (1_000_000_000_000_000_000, 499_999_999_020_018_008),
            (1 << 62, 2_305_843_007_109_198_648),
            (u64::MAX, 9_223_372_032_645_785_200),
        ] {
            assert_eq!(median_ci95_ranks(n), Some((k, n - k + 1)), "n {n}");
        }
    }

    #[test]
    fn median_ci95_from_samples_and_histogram() {
        let x: Vec<f64> = (1..=20).rev().map(|i| f64::from(i) * 100.0).collect();
        assert_eq!(median_ci95(&x), Some(Interval::new(600.0, 1500.0)));
        let mut h = LatencyHistogram::new();
        for v in &x {
            h.record(*v as u64);
        }
        // Below 2048 ns the buckets are 1 ns wide: the same interval.
        assert_eq!(median_ci95_hist(&h), Some(Interval::new(600.0, 1500.0)));
        assert_eq!(median_ci95(&x[..5]), None);
    }

    #[test]
    fn bootstrap_is_reproducible_and_sensible() {
        let x: Vec<f64> = (0..200).map(|i| 1000.0 + f64::from(i % 37) * 3.0).collect();
        let a = bootstrap_median_ci95(&x, 2000, 7).unwrap();
        let b = bootstrap_median_ci95(&x, 2000, 7).unwrap();
        assert_eq!(a, b);
        let m = crate::median(&x).unwrap();
        assert!(a.contains(m), "{a:?} should contain {m}");
        // Every bootstrap median lies within the data's range.
        assert!(a.lo >= 1000.0 && a.hi <= 1000.0 + 36.0 * 3.0);
        // A constant sample has a degenerate interval.
        assert_eq!(bootstrap_median_ci95(&[5.0; 10], 100, 1), Some(Interval::new(5.0, 5.0)));
        assert_eq!(bootstrap_median_ci95(&[], 100, 1), None);
        assert_eq!(bootstrap_median_ci95(&x, 0, 1), None);
    }
}
