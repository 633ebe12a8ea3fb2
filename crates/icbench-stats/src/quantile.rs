//! Percentiles of raw samples: linear interpolation between order
//! statistics, type 7 of Hyndman, R. J. & Fan, Y. (1996), "Sample Quantiles
//! in Statistical Packages", *The American Statistician* 50(4), 361–365.
//! It is the default of R's `quantile()`, NumPy's `percentile()` and
//! Excel's `PERCENTILE.INC`.

/// Returns a sorted copy of `samples`, or `None` if it is empty or holds a
/// NaN or an infinity. O(n log n).
pub(crate) fn sorted_finite(samples: &[f64]) -> Option<Vec<f64>> {
    if samples.is_empty() || !samples.iter().all(|x| x.is_finite()) {
        return None;
    }
    let mut v = samples.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    Some(v)
}

/// The `q`-quantile (0 ≤ q ≤ 1) of already **sorted** samples, by linear
/// interpolation (Hyndman & Fan type 7):
///
/// ```text
/// h = (n − 1)·q,  j = ⌊h⌋,  Q(q) = x[j] + (h − j)·(x[j+1] − x[j])
/// ```
///
/// with `x` indexed from 0, so `Q(0)` is the minimum, `Q(1)` the maximum and
/// `Q(0.5)` the usual median. Example: for `[1, 2, 3, 4]`, `Q(0.9)` =
/// `x[2] + 0.7·(x[3] − x[2])` = 3.7.
///
/// Returns `None` if `sorted` is empty or `q` is outside `[0, 1]` (or NaN).
/// The result is monotone in `q` and lies within `[x[0], x[n−1]]`. The order
/// of `sorted` is not checked (a debug assertion aside). O(1).
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    debug_assert!(sorted.is_sorted_by(|a, b| a <= b), "quantile_sorted needs sorted input");
    Some(type7(sorted.len() as u64, q, |i| sorted[i as usize]))
}

/// The `q`-quantile of unsorted `samples` (type 7, see
/// [`quantile_sorted`]). `None` if `samples` is empty, holds a non-finite
/// value, or `q` is outside `[0, 1]`. Sorts a copy: O(n log n).
pub fn quantile(samples: &[f64], q: f64) -> Option<f64> {
    quantile_sorted(&sorted_finite(samples)?, q)
}

/// The median (type 7, i.e. the mean of the two middle values when n is
/// even). `None` if `samples` is empty or holds a non-finite value.
/// O(n log n).
pub fn median(samples: &[f64]) -> Option<f64> {
    quantile(samples, 0.5)
}

/// Type-7 quantile of `n` ordered values given by `order_stat(i)` (0-based).
/// Used for both raw samples and histogram buckets. Needs `n >= 1` and
/// `0 <= q <= 1`.
pub(crate) fn type7(n: u64, q: f64, order_stat: impl Fn(u64) -> f64) -> f64 {
    debug_assert!(n >= 1 && (0.0..=1.0).contains(&q));
    let h = (n - 1) as f64 * q;
    let j = (h.floor() as u64).min(n - 1);
    let lo = order_stat(j);
    if j + 1 >= n {
        return lo;
    }
    let hi = order_stat(j + 1);
    // Rounding is monotone, so this stays monotone in q; the clamp keeps it
    // from stepping one ulp past x[j+1].
    (lo + (h - j as f64) * (hi - lo)).clamp(lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values computed by hand from the type-7 formula and checked
    // with python3: statistics.quantiles(data, n=100, method="inclusive")
    // (which is type 7) — e.g. for [1,2,3,4] the 90th cut point is 3.7.
    #[test]
    fn type7_known_answers() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile_sorted(&x, 0.0), Some(1.0));
        assert_eq!(quantile_sorted(&x, 1.0), Some(4.0));
        assert_eq!(quantile_sorted(&x, 0.5), Some(2.5));
        assert!((quantile_sorted(&x, 0.9).unwrap() - 3.7).abs() < 1e-12);
        assert!((quantile_sorted(&x, 0.25).unwrap() - 1.75).abs() < 1e-12);

        // Unsorted input, n = 10: h = 9·0.99 = 8.91 → x[8] + 0.91·(x[9] − x[8])
        // = 90 + 0.91·910 = 918.1 (python3: statistics.quantiles(
        // [10,20,...,90,1000], n=100, method="inclusive")[98] == 918.1).
        let y = [1000.0, 10.0, 90.0, 20.0, 80.0, 30.0, 70.0, 40.0, 60.0, 50.0];
        assert!((quantile(&y, 0.99).unwrap() - 918.1).abs() < 1e-9);
        assert_eq!(median(&y), Some(55.0));
        // h = 9·0.9 = 8.1 → 90 + 0.1·910 = 181
        assert!((quantile(&y, 0.9).unwrap() - 181.0).abs() < 1e-9);
    }

    #[test]
    fn single_value_and_bad_input() {
        assert_eq!(quantile(&[7.0], 0.3), Some(7.0));
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[1.0, f64::NAN], 0.5), None);
        assert_eq!(quantile(&[1.0, f64::INFINITY], 0.5), None);
        assert_eq!(quantile(&[1.0, 2.0], 1.5), None);
        assert_eq!(quantile(&[1.0, 2.0], -0.1), None);
        assert_eq!(quantile(&[1.0, 2.0], f64::NAN), None);
    }
}
