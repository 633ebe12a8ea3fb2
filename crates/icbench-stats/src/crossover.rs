//! Where two cost curves cross: the size from which one link beats another
//! (issue #17: "the crossover size where indirect wins"). Two answers, kept
//! apart because they can disagree:
//!
//! - **measured**: between two adjacent sizes measured on both links where
//!   the order of their figures flips, with an estimate interpolated on
//!   log size against log ratio (costs over sizes in powers of 2…8 are
//!   closer to straight there than on linear axes);
//! - **model**: where the two fitted lines t = a + b·n meet,
//!   n* = (a₁ − a₂) ÷ (b₂ − b₁) — only as good as both fits, and with
//!   intercepts whose CIs span zero it says nothing.

use crate::LinearFit;

/// A flip of order between two adjacent sizes measured on both series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing {
    /// The larger size at which the first series is still the lower (or
    /// the second, see `first_lower_below`).
    pub lo: f64,
    /// The next measured size, where the order has flipped.
    pub hi: f64,
    /// The crossing on log size against log ratio, between `lo` and `hi`.
    pub estimate: f64,
    /// Whether the first series is the lower one below the crossing.
    pub first_lower_below: bool,
    /// first ÷ second at `lo` and at `hi` (geometric means of repeats): how
    /// far apart they are on either side, for judging the flip against the
    /// figures' own uncertainty.
    pub ratios: (f64, f64),
}

/// Every flip of order between `first` and `second` (points `(size, y)`)
/// over the sizes both measured, smallest size first. Points at a size
/// measured more than once are averaged on the log scale first. Sizes and
/// figures must be positive; others are ignored.
pub fn measured_crossings(first: &[(f64, f64)], second: &[(f64, f64)]) -> Vec<Crossing> {
    let a = log_means(first);
    let b = log_means(second);
    // ln(y_first / y_second) at each common size
    let r: Vec<(f64, f64)> = a
        .iter()
        .filter_map(|&(x, ya)| b.iter().find(|(xb, _)| *xb == x).map(|&(_, yb)| (x, ya - yb)))
        .collect();
    r.windows(2)
        .filter(|w| w[0].1 != 0.0 && w[1].1 != 0.0 && (w[0].1 < 0.0) != (w[1].1 < 0.0))
        .map(|w| {
            let ((x0, r0), (x1, r1)) = (w[0], w[1]);
            let (l0, l1) = (x0.ln(), x1.ln());
            let estimate = (l0 + (l1 - l0) * r0 / (r0 - r1)).exp();
            Crossing {
                lo: x0,
                hi: x1,
                estimate,
                first_lower_below: r0 < 0.0,
                ratios: (r0.exp(), r1.exp()),
            }
        })
        .collect()
}

/// `(size, mean of ln y)` per distinct positive size, sizes ascending.
fn log_means(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut p: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| x.is_finite() && y.is_finite() && *x > 0.0 && *y > 0.0)
        .copied()
        .collect();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64, u32)> = Vec::new();
    for (x, y) in p {
        match out.last_mut() {
            Some(last) if last.0 == x => {
                last.1 += y.ln();
                last.2 += 1;
            }
            _ => out.push((x, y.ln(), 1)),
        }
    }
    out.into_iter().map(|(x, s, n)| (x, s / n as f64)).collect()
}

/// Where the fitted lines meet, n* = (a₁ − a₂) ÷ (b₂ − b₁), when that is a
/// positive size; `None` for parallel lines or a crossing at n ≤ 0.
pub fn model_crossover(first: &LinearFit, second: &LinearFit) -> Option<f64> {
    let db = second.b - first.b;
    if db == 0.0 || !db.is_finite() {
        return None;
    }
    let n = (first.a - second.a) / db;
    (n.is_finite() && n > 0.0).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit_linear;

    #[test]
    fn two_lines_cross_where_their_costs_are_equal() {
        // t₁ = 100 + 1·n (cheap start, dear bytes), t₂ = 300 + 0.5·n: equal
        // at n = 400.
        let sizes = [64.0, 256.0, 1024.0, 4096.0];
        let one: Vec<(f64, f64)> = sizes.iter().map(|&n| (n, 100.0 + n)).collect();
        let two: Vec<(f64, f64)> = sizes.iter().map(|&n| (n, 300.0 + 0.5 * n)).collect();
        let (f1, f2) = (fit_linear(&one).unwrap(), fit_linear(&two).unwrap());
        let n = model_crossover(&f1, &f2).unwrap();
        assert!((n - 400.0).abs() < 1e-9, "{n}");
        let c = measured_crossings(&one, &two);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].lo, c[0].hi, c[0].first_lower_below), (256.0, 1024.0, true));
        assert!((c[0].ratios.0 - 356.0 / 428.0).abs() < 1e-12);
        assert!((c[0].ratios.1 - 1124.0 / 812.0).abs() < 1e-12);
        // log ratio at 256: ln(356/428); at 1024: ln(1124/812): the log-log
        // estimate lies between the two sizes, near the true 400.
        let r0 = (356.0f64 / 428.0).ln();
        let r1 = (1124.0f64 / 812.0).ln();
        let want = (256f64.ln() + (1024f64.ln() - 256f64.ln()) * r0 / (r0 - r1)).exp();
        assert!((c[0].estimate - want).abs() < 1e-9 && (300.0..500.0).contains(&want), "{want}");
    }

    #[test]
    fn no_flip_no_crossing_and_lines_that_meet_below_zero_give_none() {
        // t₁ = 5 + 10·n, t₂ = 10 + 30·n: the second is dearer everywhere;
        // the lines meet at n = −0.25
        let one = [(1.0, 15.0), (2.0, 25.0), (4.0, 45.0)];
        let two = [(1.0, 40.0), (2.0, 70.0), (4.0, 130.0)];
        assert!(measured_crossings(&one, &two).is_empty());
        let (f1, f2) = (fit_linear(&one).unwrap(), fit_linear(&two).unwrap());
        assert_eq!(model_crossover(&f1, &f2), None);
        assert_eq!(model_crossover(&f1, &f1), None); // parallel
    }

    #[test]
    fn only_common_sizes_count_and_repeats_are_averaged() {
        // `second` lacks 2; at 1 the first is lower, at 4 higher.
        let one = [(1.0, 1.0), (2.0, 5.0), (4.0, 9.0), (4.0, 11.0)];
        let two = [(1.0, 2.0), (4.0, 5.0), (8.0, 1.0)];
        let c = measured_crossings(&one, &two);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].lo, c[0].hi, c[0].first_lower_below), (1.0, 4.0, true));
        // several flips: each one reported, in size order
        let wavy = [(1.0, 1.0), (2.0, 3.0), (4.0, 1.0)];
        let flat = [(1.0, 2.0), (2.0, 2.0), (4.0, 2.0)];
        let c = measured_crossings(&wavy, &flat);
        assert_eq!(c.iter().map(|c| c.lo).collect::<Vec<_>>(), [1.0, 2.0]);
        assert_eq!(c.iter().map(|c| c.first_lower_below).collect::<Vec<_>>(), [true, false]);
    }
}
