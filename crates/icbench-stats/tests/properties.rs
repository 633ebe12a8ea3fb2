//! Property tests over the public API (proptest). Each property states an
//! invariant that must hold for every input, not just the hand-picked ones
//! in the unit tests.

use icbench_model::LatencyHistogram;
use icbench_stats::*;
use proptest::prelude::*;

/// Finite samples spanning several orders of magnitude, negatives included.
fn samples(min_len: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1e9f64..1e9, min_len..200)
}

/// Latencies in ns as a histogram would hold them: integers in 1..=1e9,
/// log-uniform-ish so that both exact (< 2048 ns) and bucketed values occur.
fn latencies_ns(min_len: usize) -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(
        (0u32..30, 0u64..1024).prop_map(|(e, m)| ((1u64 << e) + m).max(1)),
        min_len..300,
    )
}

fn hist(values: &[u64]) -> LatencyHistogram {
    let mut h = LatencyHistogram::new();
    for &v in values {
        h.record(v);
    }
    h
}

fn within_rel(x: f64, want: f64, rel: f64) -> bool {
    (x - want).abs() <= rel * want.abs()
}

proptest! {
    #[test]
    fn percentiles_are_monotone_and_within_range(x in samples(1), q1 in 0.0f64..=1.0, q2 in 0.0f64..=1.0) {
        let (lo_q, hi_q) = if q1 <= q2 { (q1, q2) } else { (q2, q1) };
        let a = quantile(&x, lo_q).unwrap();
        let b = quantile(&x, hi_q).unwrap();
        let min = x.iter().copied().fold(f64::INFINITY, f64::min);
        let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(a <= b, "Q({lo_q}) = {a} > Q({hi_q}) = {b}");
        prop_assert!(min <= a && b <= max);
        prop_assert_eq!(quantile(&x, 0.0), Some(min));
        prop_assert_eq!(quantile(&x, 1.0), Some(max));
    }

    #[test]
    fn summary_is_ordered(x in samples(1)) {
        let s = Summary::from_samples(&x).unwrap();
        prop_assert_eq!(s.count, x.len() as u64);
        prop_assert!(s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p99);
        prop_assert!(s.p99 <= s.p99_9 && s.p99_9 <= s.max);
        let slack = 1e-12 * s.min.abs().max(s.max.abs());
        prop_assert!(s.min - slack <= s.mean && s.mean <= s.max + slack);
        prop_assert!(x.len() == 1 || s.stddev >= 0.0);
    }

    #[test]
    fn mean_ci_contains_the_mean(x in samples(2)) {
        let ci = mean_ci95(&x).unwrap();
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        prop_assert!(ci.lo <= ci.hi);
        prop_assert!(ci.contains(mean), "{ci:?} misses {mean}");
    }

    #[test]
    fn median_ci_contains_the_median(x in samples(6)) {
        let ci = median_ci95(&x).unwrap();
        let m = median(&x).unwrap();
        prop_assert!(ci.contains(m), "{ci:?} misses {m}");
    }

    #[test]
    fn histogram_median_ci_contains_the_sample_interval(v in latencies_ns(6)) {
        let x: Vec<f64> = v.iter().map(|&n| n as f64).collect();
        let from_samples = median_ci95(&x).unwrap();
        let from_hist = median_ci95_hist(&hist(&v)).unwrap();
        prop_assert!(from_hist.lo <= from_samples.lo && from_samples.hi <= from_hist.hi,
            "hist {from_hist:?} should contain samples {from_samples:?}");
        prop_assert!(within_rel(from_hist.lo, from_samples.lo, 1e-3));
        prop_assert!(within_rel(from_hist.hi, from_samples.hi, 1e-3));
        prop_assert!(from_hist.contains(Summary::from_histogram(&hist(&v)).unwrap().p50));
    }

    #[test]
    fn summary_from_histogram_agrees_with_samples(v in latencies_ns(1)) {
        let x: Vec<f64> = v.iter().map(|&n| n as f64).collect();
        let s = Summary::from_samples(&x).unwrap();
        let h = Summary::from_histogram(&hist(&v)).unwrap();
        prop_assert_eq!(h.count, s.count);
        // HDR with 3 significant digits: buckets at most 1/1024 of their
        // values wide, so every statistic of location is within 0.1 %.
        for (name, got, want) in [
            ("min", h.min, s.min), ("mean", h.mean, s.mean), ("p50", h.p50, s.p50),
            ("p90", h.p90, s.p90), ("p99", h.p99, s.p99), ("p99_9", h.p99_9, s.p99_9),
            ("max", h.max, s.max),
        ] {
            prop_assert!(within_rel(got, want, 1e-3), "{name}: hist {got} vs samples {want}");
        }
        // min and max bound every recorded value.
        prop_assert!(h.min <= s.min && s.max <= h.max);
        // The standard deviation moves by at most the rms quantisation
        // error (≤ √(n/(n−1))·max/2048), which is < 0.1 % of max.
        if v.len() >= 2 {
            prop_assert!((h.stddev - s.stddev).abs() <= 1e-3 * s.max, "{} vs {}", h.stddev, s.stddev);
        }
    }

    #[test]
    fn bootstrap_median_ci_is_reproducible_and_within_range(x in samples(1), seed in any::<u64>()) {
        let a = bootstrap_median_ci95(&x, 200, seed).unwrap();
        prop_assert_eq!(Some(a), bootstrap_median_ci95(&x, 200, seed));
        let min = x.iter().copied().fold(f64::INFINITY, f64::min);
        let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(min <= a.lo && a.lo <= a.hi && a.hi <= max);
    }

    #[test]
    fn tukey_fences_are_ordered_and_counts_agree(x in samples(1)) {
        let f = tukey_fences(&x).unwrap();
        prop_assert!(f.low_far <= f.low_mild && f.low_mild <= f.high_mild && f.high_mild <= f.high_far);
        let c = f.count(&x);
        let by_class = x.iter().filter(|&&v| f.classify(v) != OutlierClass::NotOutlier).count();
        prop_assert_eq!(c.total(), by_class as u64);
        // The middle half of the data is never an outlier.
        prop_assert_eq!(f.classify(median(&x).unwrap()), OutlierClass::NotOutlier);
    }

    #[test]
    fn mad_flags_match_scores(x in samples(1)) {
        let z = modified_z_scores(&x).unwrap();
        let m = mad_outliers(&x).unwrap();
        let want: Vec<usize> = (0..x.len()).filter(|&i| z[i].abs() > MAD_Z_THRESHOLD).collect();
        prop_assert_eq!(m.flagged, want);
    }

    #[test]
    fn perfect_lines_are_fitted_exactly(
        a in -1e6f64..1e6, b in 1e-3f64..1e3,
        xs in prop::collection::vec(0u32..1_000_000, 3..40),
    ) {
        let xs: Vec<f64> = xs.into_iter().map(f64::from).collect();
        prop_assume!(xs.iter().any(|&x| x != xs[0]));
        let pts: Vec<(f64, f64)> = xs.iter().map(|&x| (x, a + b * x)).collect();
        let f = fit_linear(&pts).unwrap();
        let scale = a.abs() + b * 1e6;
        prop_assert!((f.a - a).abs() <= 1e-9 * scale, "a {} vs {a}", f.a);
        prop_assert!(within_rel(f.b, b, 1e-9), "b {} vs {b}", f.b);
        prop_assert!((f.r_squared - 1.0).abs() <= 1e-9);
        prop_assert!(f.residual_stddev <= 1e-9 * scale);
        prop_assert!(f.a_ci95.contains(f.a) && f.b_ci95.contains(f.b));
    }

    #[test]
    fn shifting_y_shifts_only_a(
        pts in prop::collection::vec((0.0f64..1e4, 0.0f64..1e4), 3..40), c in -1e4f64..1e4,
    ) {
        let f = fit_linear(&pts);
        prop_assume!(f.is_ok());
        let f = f.unwrap();
        let g = fit_linear(&pts.iter().map(|&(x, y)| (x, y + c)).collect::<Vec<_>>()).unwrap();
        let tol = 1e-7 * (1e4 + c.abs() + f.a.abs() + f.b.abs() * 1e4);
        prop_assert!((g.a - (f.a + c)).abs() <= tol, "{} vs {}", g.a, f.a + c);
        prop_assert!((g.b - f.b).abs() <= tol / 1e3);
        prop_assert!((g.residual_stddev - f.residual_stddev).abs() <= tol);
    }

    #[test]
    fn mann_whitney_u_counts_pairs(
        a in prop::collection::vec(1u64..2000, 1..40), b in prop::collection::vec(1u64..2000, 1..40),
    ) {
        // Below 2048 ns each value has its own HDR bucket, so U must equal the
        // brute-force count of pairs (x > y) + ½·(ties).
        let want: f64 = a.iter().flat_map(|x| b.iter().map(move |y| {
            if x > y { 1.0 } else if x == y { 0.5 } else { 0.0 }
        })).sum();
        let r = mann_whitney_u_hist(&hist(&a), &hist(&b)).unwrap();
        prop_assert_eq!(r.u, want);
        let s = mann_whitney_u_hist(&hist(&b), &hist(&a)).unwrap();
        prop_assert_eq!(r.u + s.u, (a.len() * b.len()) as f64);
        prop_assert!((r.z + s.z).abs() < 1e-9);
        prop_assert!((0.0..=1.0).contains(&r.p_two_sided));
    }

    #[test]
    fn welch_t_is_antisymmetric(a in samples(2), b in samples(2)) {
        if let Some(r) = welch_t_test(&a, &b) {
            let s = welch_t_test(&b, &a).unwrap();
            prop_assert_eq!((r.t, r.df, r.p_two_sided), (-s.t, s.df, s.p_two_sided));
            prop_assert!((0.0..=1.0).contains(&r.p_two_sided));
            prop_assert!(r.df >= 1.0 - 1e-9 && r.df <= (a.len() + b.len() - 2) as f64 + 1e-9);
        }
    }

    #[test]
    fn ratio_ci_from_histograms_contains_the_ratio_of_medians(
        a in latencies_ns(6), b in latencies_ns(6),
    ) {
        let (ha, hb) = (hist(&a), hist(&b));
        let ci = ratio_of_medians_ci95_hist(&ha, &hb).unwrap();
        let ratio = Summary::from_histogram(&ha).unwrap().p50 / Summary::from_histogram(&hb).unwrap().p50;
        prop_assert!(ci.lo <= ratio * (1.0 + 1e-12) && ratio <= ci.hi * (1.0 + 1e-12), "{ci:?} misses {ratio}");
    }
}
