//! A cell's latency distribution as the report's figures draw it: the
//! percentile curve (HDR style, to p99.99), the CDF and log-spaced bins.
//! All three are read from the HDR histogram every measured cell keeps
//! ([`LatencyHistogram::quantile_ns`] and its recorded buckets), so that
//! they agree with `icbench export -f hgrm`; the SVG code only places the
//! points.

use icbench_model::LatencyHistogram;

/// The percentiles a percentile curve always has a point at (and marks).
pub const MARKED_PERCENTILES: [f64; 5] = [0.5, 0.9, 0.99, 0.999, 0.9999];

/// The deepest percentile drawn: p99.99.
pub const DEEPEST: f64 = 0.9999;

/// Steps per decade of 1 / (1 − p) on the percentile curve.
const STEPS_PER_DECADE: u32 = 25;

/// Points of the CDF.
const CDF_POINTS: u32 = 200;

/// `(p, ns)` from p = 0 to p99.99, evenly spaced in log 1 / (1 − p) (the
/// HDR percentile plot's axis), with the [`MARKED_PERCENTILES`] among
/// them. A curve stops where its samples run out: a percentile p needs
/// 1 / (1 − p) ≤ n samples to be more than the maximum again (1,000
/// samples reach p99.9, not p99.99). Empty for an empty histogram.
pub fn percentile_curve(h: &LatencyHistogram) -> Vec<(f64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    let n = h.len() as f64;
    let decades = (1.0 / (1.0 - DEEPEST)).log10();
    let steps = (decades * f64::from(STEPS_PER_DECADE)).round() as u32;
    let mut ps: Vec<f64> = (0..=steps)
        .map(|k| 1.0 - 10f64.powf(-f64::from(k) / f64::from(STEPS_PER_DECADE)))
        .chain(MARKED_PERCENTILES)
        .collect();
    ps.sort_by(f64::total_cmp);
    ps.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
    ps.retain(|p| 1.0 / (1.0 - p) <= n * (1.0 + 1e-9));
    let values = h.quantiles_ns(&ps);
    ps.into_iter().zip(values).map(|(p, v)| (p, v as f64)).collect()
}

/// The indices of a percentile curve's points at the
/// [`MARKED_PERCENTILES`] (those it reaches).
pub fn marked_indices(curve: &[(f64, f64)]) -> Vec<usize> {
    curve
        .iter()
        .enumerate()
        .filter(|(_, (p, _))| MARKED_PERCENTILES.iter().any(|m| (m - p).abs() < 1e-12))
        .map(|(i, _)| i)
        .collect()
}

/// `(ns, F)`: the fraction F of samples at or below each value, at F = 0,
/// 0.5 %, 1 % … 100 %, with the value strictly increasing (of several
/// fractions at one value, the largest). Empty for an empty histogram.
pub fn cdf(h: &LatencyHistogram) -> Vec<(f64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    let fs: Vec<f64> = (0..=CDF_POINTS).map(|k| f64::from(k) / f64::from(CDF_POINTS)).collect();
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (f, v) in fs.iter().copied().zip(h.quantiles_ns(&fs)) {
        let v = v as f64;
        match out.last_mut() {
            Some(last) if last.0 >= v => last.1 = f,
            _ => out.push((v, f)),
        }
    }
    out
}

/// The indices of a CDF's points nearest to F = 10 %, 50 %, 90 % and 99 %,
/// for its markers.
pub fn cdf_marks(points: &[(f64, f64)]) -> Vec<usize> {
    let mut out: Vec<usize> = [0.1, 0.5, 0.9, 0.99]
        .iter()
        .filter_map(|f| points.iter().position(|p| p.1 >= *f))
        .collect();
    out.dedup();
    out
}

/// Log-spaced bins of a histogram's recorded values, ns:
/// `(low, high, count)`.
pub fn bins(hist: &LatencyHistogram, n: usize) -> Vec<(f64, f64, u64)> {
    let inner = hist.inner();
    if hist.is_empty() || n == 0 {
        return Vec::new();
    }
    let lo = (inner.lowest_equivalent(inner.min()) as f64).max(1.0);
    let hi = (inner.highest_equivalent(inner.max()) as f64 + 1.0).max(lo * 1.01);
    let edges: Vec<f64> = (0..=n).map(|i| lo * (hi / lo).powf(i as f64 / n as f64)).collect();
    let mut counts = vec![0u64; n];
    for it in inner.iter_recorded() {
        let v = inner.median_equivalent(it.value_iterated_to()) as f64;
        let k = edges.partition_point(|&e| e <= v).saturating_sub(1).min(n - 1);
        counts[k] += it.count_at_value();
    }
    (0..n).map(|i| (edges[i], edges[i + 1], counts[i])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10,000 values 1 … 10,000 ns (exact below 2,048 ns, 0.1 % above).
    fn uniform() -> LatencyHistogram {
        let mut h = LatencyHistogram::new();
        (1..=10_000).for_each(|v| h.record(v));
        h
    }

    #[test]
    fn the_percentile_curve_reaches_p99_99_with_enough_samples() {
        let c = percentile_curve(&uniform());
        assert_eq!(c.first().unwrap().0, 0.0);
        assert!((c.last().unwrap().0 - DEEPEST).abs() < 1e-12);
        assert!(c.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
        let at = |p: f64| c.iter().find(|x| (x.0 - p).abs() < 1e-12).unwrap().1;
        assert!((at(0.5) - 5000.0).abs() <= 5.0, "{}", at(0.5));
        assert!((at(0.99) - 9900.0).abs() <= 10.0, "{}", at(0.99));
        let m = marked_indices(&c);
        assert_eq!(m.len(), 5);
        assert!((c[m[2]].0 - 0.99).abs() < 1e-12);
    }

    #[test]
    fn a_curve_stops_where_its_samples_run_out() {
        let mut h = LatencyHistogram::new();
        (1..=1000).for_each(|v| h.record(v));
        let c = percentile_curve(&h);
        assert!((c.last().unwrap().0 - 0.999).abs() < 1e-12, "{:?}", c.last());
        assert_eq!(marked_indices(&c).len(), 4);
        assert!(percentile_curve(&LatencyHistogram::new()).is_empty());
    }

    #[test]
    fn the_cdf_climbs_from_0_to_1_over_strictly_increasing_values() {
        let c = cdf(&uniform());
        assert_eq!(c.last().unwrap().1, 1.0);
        assert!(c.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        let half = c.iter().find(|p| p.1 == 0.5).unwrap().0;
        assert!((half - 5000.0).abs() <= 5.0, "{half}");
        // One value: a single point at F = 1.
        let mut h = LatencyHistogram::new();
        (0..50).for_each(|_| h.record(300));
        assert_eq!(cdf(&h), [(300.0, 1.0)]);
        assert_eq!(cdf_marks(&cdf(&uniform())).len(), 4);
    }

    #[test]
    fn bins_hold_every_sample() {
        let b = bins(&uniform(), 48);
        assert_eq!(b.len(), 48);
        assert_eq!(b.iter().map(|x| x.2).sum::<u64>(), 10_000);
        assert!(b.windows(2).all(|w| (w[0].1 - w[1].0).abs() < 1e-9));
    }
}
