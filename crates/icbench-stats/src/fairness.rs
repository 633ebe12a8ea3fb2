//! Fairness between channels measured over one common window: how evenly N
//! independent links shared what the machine could carry.
//!
//! Jain's fairness index (R. Jain, D. Chiu, W. Hawe, "A Quantitative Measure
//! of Fairness and Discrimination for Resource Allocation in Shared Computer
//! Systems", DEC-TR-301, 1984) is `(Σx)² / (n · Σx²)`: 1 when every channel
//! got the same, `1/n` when one channel got everything. It is independent of
//! scale and of the unit, so throughputs over the same window and the bytes
//! behind them give the same index. Alongside it, `min / max` names the worst
//! gap directly.

use serde::{Deserialize, Serialize};

/// How evenly a quantity (per-channel throughput) was shared.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fairness {
    /// Channels counted.
    pub n: usize,
    /// Jain's index `(Σx)² / (n·Σx²)`, in `[1/n, 1]`.
    pub jain: f64,
    /// Smallest value, in the unit given.
    pub min: f64,
    /// Largest value, in the unit given.
    pub max: f64,
    /// `min / max`, in `[0, 1]`.
    pub min_over_max: f64,
}

/// Jain's index and min/max of `xs` (e.g. per-channel bytes/s over the
/// common window). `None` for an empty slice, a non-finite or negative value,
/// or all zeros (nothing was shared, so fairness is undefined).
pub fn fairness(xs: &[f64]) -> Option<Fairness> {
    if xs.is_empty() || xs.iter().any(|x| !x.is_finite() || *x < 0.0) {
        return None;
    }
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    if sum_sq == 0.0 {
        return None;
    }
    let n = xs.len();
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(Fairness { n, jain: sum * sum / (n as f64 * sum_sq), min, max, min_over_max: min / max })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_shares_are_perfectly_fair() {
        let f = fairness(&[5.0, 5.0, 5.0, 5.0]).unwrap();
        assert_eq!((f.n, f.jain, f.min_over_max), (4, 1.0, 1.0));
    }

    #[test]
    fn one_channel_taking_everything_gives_one_over_n() {
        let f = fairness(&[0.0, 0.0, 0.0, 8.0]).unwrap();
        assert_eq!(f.jain, 0.25);
        assert_eq!((f.min, f.max, f.min_over_max), (0.0, 8.0, 0.0));
    }

    #[test]
    fn known_answer_for_an_uneven_split() {
        // (1+2+3)² / (3 · (1+4+9)) = 36/42 = 6/7.
        let f = fairness(&[1.0, 2.0, 3.0]).unwrap();
        assert!((f.jain - 6.0 / 7.0).abs() < 1e-15, "{}", f.jain);
        assert!((f.min_over_max - 1.0 / 3.0).abs() < 1e-15);
        // Scale-free: the same shares in other units give the same index.
        let g = fairness(&[1e6, 2e6, 3e6]).unwrap();
        assert!((g.jain - f.jain).abs() < 1e-15);
    }

    #[test]
    fn nothing_to_share_or_bad_input_is_none() {
        assert!(fairness(&[]).is_none());
        assert!(fairness(&[0.0, 0.0]).is_none());
        assert!(fairness(&[1.0, f64::NAN]).is_none());
        assert!(fairness(&[1.0, -1.0]).is_none());
    }
}
