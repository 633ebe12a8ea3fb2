//! A closed interval `[lo, hi]`, the shape of every confidence interval here.

use serde::{Deserialize, Serialize};

/// A closed interval `[lo, hi]` with `lo <= hi`, in the unit of the
/// statistic it bounds (ns for a latency, a pure number for a ratio).
///
/// Used for every 95 % confidence interval in this crate; store and report
/// code name its ends `ci95_lo` / `ci95_hi`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower end (`ci95_lo` for a confidence interval).
    pub lo: f64,
    /// Upper end (`ci95_hi` for a confidence interval).
    pub hi: f64,
}

impl Interval {
    /// The interval `[lo, hi]`.
    ///
    /// # Panics
    ///
    /// In debug builds, if `lo > hi` (a bug in the caller). NaN ends, which
    /// only arise from overflowing input, are let through.
    pub fn new(lo: f64, hi: f64) -> Interval {
        debug_assert!(
            lo <= hi || lo.is_nan() || hi.is_nan(),
            "interval ends out of order: [{lo}, {hi}]"
        );
        Interval { lo, hi }
    }

    /// Half the width, `(hi − lo) / 2`, in the interval's unit.
    pub fn half_width(&self) -> f64 {
        (self.hi - self.lo) / 2.0
    }

    /// [`half_width`](Self::half_width) divided by `|center|`: a unitless
    /// precision, e.g. 0.01 for "± 1 % of the mean". Infinite when `center`
    /// is 0.
    pub fn relative_half_width(&self, center: f64) -> f64 {
        self.half_width() / center.abs()
    }

    /// Whether `lo <= x <= hi`.
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_width_and_relative_half_width() {
        let i = Interval::new(98.0, 102.0);
        assert_eq!(i.half_width(), 2.0);
        assert_eq!(i.relative_half_width(100.0), 0.02);
        assert_eq!(i.relative_half_width(-100.0), 0.02);
        assert!(i.relative_half_width(0.0).is_infinite());
        assert!(i.contains(98.0) && i.contains(102.0) && i.contains(100.0));
        assert!(!i.contains(97.9) && !i.contains(102.1));
    }
}
