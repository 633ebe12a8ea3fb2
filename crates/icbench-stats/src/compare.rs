//! Comparing two sets of measurements: did a change make things faster?
//!
//! - [`welch_t_test`]: Welch's unequal-variance t test on the means (Welch,
//!   B. L., "The generalization of 'Student's' problem when several different
//!   population variances are involved", *Biometrika* 34, 1947;
//!   Satterthwaite's degrees of freedom).
//! - [`mann_whitney_u_hist`]: the Mann–Whitney U (Wilcoxon rank-sum) test
//!   on two latency histograms, normal approximation with tie correction and
//!   continuity correction (Hollander, Wolfe & Chicken, *Nonparametric
//!   Statistical Methods*, 3rd ed., 2014, §4.1; the same as R's
//!   `wilcox.test(exact = FALSE, correct = TRUE)` and SciPy's
//!   `mannwhitneyu(method="asymptotic")`).
//! - [`ratio_of_medians_ci95`] (bootstrap on raw samples) and
//!   [`ratio_of_medians_ci95_hist`] (an approximation from histograms).
//! - [`within_band`]: is a ratio shown to lie in a band (e.g. ±5 %)? The
//!   confidence-interval inclusion rule of equivalence testing (Schuirmann,
//!   "A comparison of the two one-sided tests procedure …", *J.
//!   Pharmacokinetics and Biopharmaceutics* 15, 1987; a 95 % CI inside the
//!   band is the stricter form of TOST at α = 0.025 each side).

use std::collections::BTreeMap;

use icbench_model::LatencyHistogram;
use serde::{Deserialize, Serialize};
use statrs::function::erf::erfc;

use crate::ci::{median_ci95_hist, percentile_interval};
use crate::histview::HistView;
use crate::interval::Interval;
use crate::quantile::type7;
use crate::resample::{Resampler, median_in_place};

/// Φ⁻¹(0.975), the two-sided 95 % normal quantile.
const Z_975: f64 = 1.959_963_984_540_054;

/// What a confidence interval shows about a band of acceptable values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BandVerdict {
    /// The whole interval lies inside the band: shown to be within it.
    Inside,
    /// The whole interval lies outside the band: shown not to be within it.
    Outside,
    /// The interval crosses an edge of the band (or is wider than the
    /// band, or not finite): the data cannot tell. Never decide from the
    /// point estimate alone.
    NotShown,
}

/// Whether `ci` shows the quantity within `[band.lo, band.hi]`: inside only
/// if `band.lo ≤ ci.lo` and `ci.hi ≤ band.hi`, outside only if the two do not
/// overlap at all, else not shown.
pub fn within_band(ci: Interval, band: Interval) -> BandVerdict {
    if !(ci.lo.is_finite() && ci.hi.is_finite()) {
        return BandVerdict::NotShown;
    }
    if band.lo <= ci.lo && ci.hi <= band.hi {
        BandVerdict::Inside
    } else if ci.hi < band.lo || ci.lo > band.hi {
        BandVerdict::Outside
    } else {
        BandVerdict::NotShown
    }
}

/// Result of a two-sample t test (H0: equal means).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TTest {
    /// `(mean_a − mean_b) / √(s_a²/n_a + s_b²/n_b)`; positive when `a` has
    /// the larger mean.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom (not an integer in general).
    pub df: f64,
    /// Two-sided p-value, `2·P(T_df > |t|)`.
    pub p_two_sided: f64,
}

/// Welch's t test of H0 "a and b have equal means", without assuming equal
/// variances:
///
/// ```text
/// t  = (ā − b̄) / √(vₐ + v_b),   vₐ = sₐ²/nₐ, v_b = s_b²/n_b
/// df = (vₐ + v_b)² / (vₐ²/(nₐ − 1) + v_b²/(n_b − 1))
/// ```
///
/// `None` if either side has fewer than 2 values or a non-finite one, or
/// both variances are 0 (t is undefined). O(nₐ + n_b).
pub fn welch_t_test(a: &[f64], b: &[f64]) -> Option<TTest> {
    let (ma, va, na) = mean_var(a)?;
    let (mb, vb, nb) = mean_var(b)?;
    let (sa, sb) = (va / na, vb / nb);
    if sa + sb == 0.0 {
        return None;
    }
    let t = (ma - mb) / (sa + sb).sqrt();
    let df = (sa + sb).powi(2) / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    if df.is_nan() || df <= 0.0 {
        return None;
    }
    let p_two_sided = crate::tdist::t_p_two_sided(t, df);
    Some(TTest { t, df, p_two_sided })
}

/// Mean, sample variance and n (as f64); `None` for n < 2 or non-finite.
fn mean_var(x: &[f64]) -> Option<(f64, f64, f64)> {
    if x.len() < 2 || !x.iter().all(|v| v.is_finite()) {
        return None;
    }
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
    Some((m, v, n))
}

/// Result of a Mann–Whitney U test (H0: a value of `a` is as likely to be
/// above a value of `b` as below it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U for sample `a`: the number of pairs (x from a, y from b) with
    /// x > y, ties counting ½. Ranges over `0 ..= nₐ·n_b`; `u / (nₐ·n_b)`
    /// estimates P(a > b).
    pub u: f64,
    /// Normal approximation `(U − nₐn_b/2 ∓ ½) / σ_U`, with continuity
    /// correction ½ toward 0; positive when `a` tends to be larger.
    pub z: f64,
    /// `2·(1 − Φ(|z|))`.
    pub p_two_sided: f64,
}

/// Mann–Whitney U test between two latency histograms, computed from their
/// buckets (each recorded value with its count), so it costs
/// O(buckets · log buckets) however many values were recorded.
///
/// Values in the same HDR bucket count as **tied** (they are the same value
/// at the histogram's 0.1 % resolution); ties get mid-ranks and the variance
/// is tie-corrected:
///
/// ```text
/// U  = Rₐ − nₐ(nₐ + 1)/2
/// σ² = nₐn_b/12 · ((N + 1) − Σ(t³ − t)/(N(N − 1))),  N = nₐ + n_b
/// ```
///
/// with Rₐ the sum of a's ranks and t the size of each group of ties.
/// When every value is tied (σ = 0) the result is `z = 0`, `p = 1`.
/// `None` if either histogram is empty. The normal approximation is good for
/// nₐ, n_b ≳ 10.
pub fn mann_whitney_u_hist(a: &LatencyHistogram, b: &LatencyHistogram) -> Option<MannWhitney> {
    let (va, vb) = (HistView::new(a)?, HistView::new(b)?);
    // Bucket (identified by its highest equivalent value) → (count in a, count in b).
    let mut merged: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for bk in &va.buckets {
        merged.entry(bk.high_ns).or_default().0 += bk.count;
    }
    for bk in &vb.buckets {
        merged.entry(bk.high_ns).or_default().1 += bk.count;
    }
    let (na, nb) = (va.len() as f64, vb.len() as f64);
    let n = na + nb;
    let (mut below, mut rank_sum_a, mut tie_sum) = (0.0f64, 0.0f64, 0.0f64);
    for &(ca, cb) in merged.values() {
        let t = (ca + cb) as f64;
        let mid_rank = below + (t + 1.0) / 2.0;
        rank_sum_a += ca as f64 * mid_rank;
        tie_sum += t * t * t - t;
        below += t;
    }
    let u = rank_sum_a - na * (na + 1.0) / 2.0;
    let mean_u = na * nb / 2.0;
    let var_u = na * nb / 12.0 * ((n + 1.0) - tie_sum / (n * (n - 1.0)));
    if var_u <= 0.0 || n < 2.0 {
        return Some(MannWhitney { u, z: 0.0, p_two_sided: 1.0 });
    }
    let d = u - mean_u;
    let z = (d.abs() - 0.5).max(0.0).copysign(d) / var_u.sqrt();
    let p_two_sided = erfc(z.abs() / std::f64::consts::SQRT_2).min(1.0);
    Some(MannWhitney { u, z, p_two_sided })
}

/// Percentile-bootstrap 95 % confidence interval for
/// `median(a) / median(b)` (unitless): each of `resamples` rounds resamples
/// `a` and `b` independently with replacement and takes the ratio of their
/// medians; the interval is the 2.5 % and 97.5 % type-7 quantiles of those
/// ratios. A ratio below 1 means `a` is faster (for latencies).
///
/// Deterministic for a given `seed` (record it, with
/// [`BOOTSTRAP_GENERATOR`](crate::BOOTSTRAP_GENERATOR)). `None` if either
/// side is empty or holds a non-finite value, `resamples` is 0, or a
/// resampled median of `b` and `a` are both 0 (ratio undefined).
/// O(resamples · (nₐ + n_b)).
pub fn ratio_of_medians_ci95(
    a: &[f64],
    b: &[f64],
    resamples: usize,
    seed: u64,
) -> Option<Interval> {
    let finite = |x: &[f64]| !x.is_empty() && x.iter().all(|v| v.is_finite());
    if resamples == 0 || !finite(a) || !finite(b) {
        return None;
    }
    let mut rs = Resampler::new(seed);
    let (mut buf_a, mut buf_b) = (Vec::with_capacity(a.len()), Vec::with_capacity(b.len()));
    let ratios = (0..resamples)
        .map(|_| {
            rs.resample_into(a, &mut buf_a);
            rs.resample_into(b, &mut buf_b);
            median_in_place(&mut buf_a) / median_in_place(&mut buf_b)
        })
        .collect();
    percentile_interval(ratios)
}

/// Approximate 95 % confidence interval for `median(a) / median(b)` from
/// two latency histograms (unitless), without resampling:
///
/// 1. each median m is the type-7 median of the histogram (as in
///    [`Summary::from_histogram`](crate::Summary::from_histogram)), and its
///    distribution-free interval `[lo, hi]` is [`median_ci95_hist`];
/// 2. the standard error of ln m is taken as `(ln hi − ln lo) / (2·1.96)`;
/// 3. the interval is `exp(ln(mₐ/m_b) ± 1.96·√(seₐ² + se_b²))`.
///
/// This is a delta-method style approximation on the log scale; it is
/// slightly conservative, because the order-statistic intervals cover at
/// least 95 % and include whole HDR buckets. `None` if either histogram
/// holds fewer than 6 values. O(buckets).
pub fn ratio_of_medians_ci95_hist(a: &LatencyHistogram, b: &LatencyHistogram) -> Option<Interval> {
    let (ln_ma, se_a) = log_median_and_se(a)?;
    let (ln_mb, se_b) = log_median_and_se(b)?;
    let ln_ratio = ln_ma - ln_mb;
    let half = Z_975 * (se_a * se_a + se_b * se_b).sqrt();
    Some(Interval::new((ln_ratio - half).exp(), (ln_ratio + half).exp()))
}

fn log_median_and_se(h: &LatencyHistogram) -> Option<(f64, f64)> {
    let ci = median_ci95_hist(h)?;
    let view = HistView::new(h)?;
    let median = type7(view.len(), 0.5, |i| view.bucket_at_rank(i).mid_ns as f64);
    Some((median.ln(), (ci.hi.ln() - ci.lo.ln()) / (2.0 * Z_975)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: &[u64]) -> LatencyHistogram {
        let mut h = LatencyHistogram::new();
        for &v in values {
            h.record(v);
        }
        h
    }

    #[test]
    fn welch_textbook_examples() {
        // Wikipedia, "Welch's t-test", examples 1 and 2 (published to 2–3
        // digits: t = −2.46, df = 24.9, p = 0.021; t = −1.57, df = 9.9,
        // p = 0.149). Full-precision values from python3 (statistics module
        // for means/variances, mpmath.betainc for p = I_{df/(df+t²)}(df/2, ½)).
        let a1 = [
            27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7,
            21.4,
        ];
        let a2 = [
            27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5,
            24.4,
        ];
        let r = welch_t_test(&a1, &a2).unwrap();
        assert!((r.t - -2.455356398286006).abs() < 1e-9, "{r:?}");
        assert!((r.df - 24.98852929023142).abs() < 1e-9, "{r:?}");
        assert!((r.p_two_sided - 0.021378001462866985).abs() < 1e-7, "{r:?}");

        let b1 = [17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8];
        let b2 = [
            21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8, 20.7, 21.7, 21.5, 22.5,
            23.6, 21.5, 22.5, 23.5, 21.5, 21.8,
        ];
        let r = welch_t_test(&b1, &b2).unwrap();
        assert!((r.t - -1.5654335235985073).abs() < 1e-9, "{r:?}");
        assert!((r.df - 9.904741248650831).abs() < 1e-9, "{r:?}");
        assert!((r.p_two_sided - 0.1488416966053275).abs() < 1e-7, "{r:?}");

        // Swapping the samples flips t only.
        let s = welch_t_test(&b2, &b1).unwrap();
        assert_eq!((s.t, s.df, s.p_two_sided), (-r.t, r.df, r.p_two_sided));
    }

    #[test]
    fn welch_degenerate_inputs() {
        assert_eq!(welch_t_test(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(welch_t_test(&[1.0, 1.0], &[2.0, 2.0]), None);
        assert_eq!(welch_t_test(&[1.0, f64::NAN], &[2.0, 3.0]), None);
    }

    #[test]
    fn mann_whitney_small_example_with_ties() {
        // a = {10, 20, 20, 30}, b = {20, 40, 50}. By hand: pairs with a > b:
        // (30, 20) = 1, ties (20, 20) twice = 2·½, so U = 2. Ranks: 10→1,
        // the three 20s → 3, 30→5, 40→6, 50→7; Rₐ = 12, U = 12 − 10 = 2.
        // Ties: one group of 3, Σ(t³ − t) = 24; σ² = 12/12·(8 − 24/42)
        // = 7.428571; z = −(6 − 2 − ½)/σ = −1.2841489249843498;
        // p = erfc(|z|/√2) = 0.19908985214820457 (python3, math.erfc).
        let r = mann_whitney_u_hist(&hist(&[10, 20, 20, 30]), &hist(&[20, 40, 50])).unwrap();
        assert_eq!(r.u, 2.0);
        assert!((r.z - -1.2841489249843498).abs() < 1e-12, "{r:?}");
        assert!((r.p_two_sided - 0.19908985214820457).abs() < 1e-9, "{r:?}");
    }

    #[test]
    fn mann_whitney_without_ties_and_symmetry() {
        // a = 110..180 step 10 (8), b = {100, 105, 115, 125, 190..230 step 10}
        // (9). Brute-force pair count (python3): U = 29; σ = √(8·9·18/12)
        // = 10.392304845413264; z = −(36 − 29 − ½)/σ = −0.6254627916220946;
        // p = 0.5316673617377637.
        let a = hist(&[110, 120, 130, 140, 150, 160, 170, 180]);
        let b = hist(&[100, 105, 115, 125, 190, 200, 210, 220, 230]);
        let r = mann_whitney_u_hist(&a, &b).unwrap();
        assert_eq!(r.u, 29.0);
        assert!((r.z - -0.6254627916220946).abs() < 1e-12, "{r:?}");
        assert!((r.p_two_sided - 0.5316673617377637).abs() < 1e-9, "{r:?}");
        // U_a + U_b = nₐ·n_b, and z flips sign.
        let s = mann_whitney_u_hist(&b, &a).unwrap();
        assert_eq!(s.u, 72.0 - 29.0);
        assert!((s.z + r.z).abs() < 1e-12);
    }

    #[test]
    fn mann_whitney_all_tied_and_empty() {
        let r = mann_whitney_u_hist(&hist(&[50, 50]), &hist(&[50])).unwrap();
        assert_eq!(r, MannWhitney { u: 1.0, z: 0.0, p_two_sided: 1.0 });
        assert_eq!(mann_whitney_u_hist(&LatencyHistogram::new(), &hist(&[1])), None);
    }

    #[test]
    fn mann_whitney_separates_shifted_distributions() {
        let a: Vec<u64> = (0..200).map(|i| 1000 + i).collect();
        let b: Vec<u64> = (0..200).map(|i| 1100 + i).collect();
        let r = mann_whitney_u_hist(&hist(&a), &hist(&b)).unwrap();
        // U by hand: a's value 1000+i beats b's 1100+j when i > j + 100, ties
        // when i = j + 100: Σ_{i=100}^{199} (i − 100) + ½·100 = 4950 + 50.
        assert_eq!(r.u, 5000.0);
        assert!(r.z < -8.0 && r.p_two_sided < 1e-15, "{r:?}");
    }

    #[test]
    fn ratio_of_medians_bootstrap() {
        let b: Vec<f64> = (0..101).map(|i| 1000.0 + f64::from(i)).collect();
        let a: Vec<f64> = b.iter().map(|x| 2.0 * x).collect();
        let ci = ratio_of_medians_ci95(&a, &b, 2000, 11).unwrap();
        assert!(ci.contains(2.0), "{ci:?}");
        assert!(ci.lo > 1.9 && ci.hi < 2.1, "{ci:?}");
        assert_eq!(ratio_of_medians_ci95(&a, &b, 2000, 11), Some(ci));
        assert_eq!(ratio_of_medians_ci95(&a, &[], 10, 1), None);
        assert_eq!(ratio_of_medians_ci95(&a, &b, 0, 1), None);
    }

    #[test]
    fn ratio_of_medians_from_histograms_known_answer() {
        // Both: 100, 200, ..., 2000 ns (exact buckets below 2048 ns).
        // Median 1050, order-statistic CI [600, 1500] (ranks 6 and 15), so
        // se(ln m) = ln(2.5)/(2·1.96) on each side and the interval is
        // exp(±1.96·√2·ln(2.5)/(2·1.96)) = 2.5^(∓1/√2).
        let v: Vec<u64> = (1..=20).map(|i| i * 100).collect();
        let ci = ratio_of_medians_ci95_hist(&hist(&v), &hist(&v)).unwrap();
        let e = 2.5f64.powf(std::f64::consts::FRAC_1_SQRT_2);
        assert!((ci.lo - 1.0 / e).abs() < 1e-12 && (ci.hi - e).abs() < 1e-12, "{ci:?}");

        // Doubling every value of a doubles the ratio and its interval, up to
        // HDR resolution (above 2048 ns buckets are 2 ns wide: within 0.1 %).
        let v2: Vec<u64> = v.iter().map(|x| 2 * x).collect();
        let ci2 = ratio_of_medians_ci95_hist(&hist(&v2), &hist(&v)).unwrap();
        let close = |x: f64, want: f64| (x - want).abs() / want < 1e-3;
        assert!(close(ci2.lo, 2.0 / e) && close(ci2.hi, 2.0 * e), "{ci2:?}");
        assert_eq!(ratio_of_medians_ci95_hist(&hist(&[1, 2, 3]), &hist(&v)), None);
    }

    #[test]
    fn a_band_is_shown_only_by_an_interval_wholly_inside_it() {
        let band = Interval::new(0.95, 1.05);
        let v = |lo, hi| within_band(Interval::new(lo, hi), band);
        assert_eq!(v(0.97, 1.02), BandVerdict::Inside);
        assert_eq!(v(0.95, 1.05), BandVerdict::Inside, "the edges belong to the band");
        // A point estimate of 1.00 inside the band, but a CI too wide to tell.
        assert_eq!(v(0.90, 1.10), BandVerdict::NotShown);
        // Narrow, but across an edge.
        assert_eq!(v(1.04, 1.06), BandVerdict::NotShown);
        assert_eq!(v(0.94, 0.96), BandVerdict::NotShown);
        assert_eq!(v(0.80, 0.90), BandVerdict::Outside);
        assert_eq!(v(1.10, 1.20), BandVerdict::Outside);
        assert_eq!(v(f64::NAN, 1.0), BandVerdict::NotShown);
    }
}
