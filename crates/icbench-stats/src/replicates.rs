//! Where a repeat run's figure will land, from the replicate blocks of one
//! run (issue #15). A run measures each cell in K blocks spread over the
//! run in random order; the spread of the blocks' figures (p50 or
//! throughput) is the variation a figure has from one stretch of the
//! machine's time to another — the variation that decides whether the
//! next run reproduces it. The within-block CI of a median (order
//! statistics over autocorrelated samples) does not see it: two default
//! runs once differed 4× with "±0.00 %" printed.
//!
//! Method: on the logs of the K block figures (latencies and rates differ
//! by factors), mean m and sample standard deviation s; a repeat run's
//! figure is the mean of its own K blocks, so the difference of the two
//! has standard error s·√(2/K), and the 95 % interval for the repeat run
//! is exp(m ± t₀.₉₇₅,K−1 · s · √(2/K)) — a prediction interval, wider than
//! the CI of this run's mean by √2. Student's t with K − 1 degrees of
//! freedom: with 3 blocks, t = 4.30.

use crate::ci::t_975;

/// The blocks' figures and the interval for a repeat run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RepeatInterval {
    /// Blocks the interval is from.
    pub blocks: usize,
    /// Geometric mean of the blocks' figures.
    pub center: f64,
    /// 95 % interval for the figure of a repeat run with as many blocks.
    pub lo: f64,
    /// Upper end of it.
    pub hi: f64,
    /// Largest ÷ smallest block figure.
    pub spread: f64,
}

impl RepeatInterval {
    /// The interval's larger half-width relative to the center (0.05 = ±5 %).
    pub fn relative_half_width(&self) -> f64 {
        (self.hi / self.center - 1.0).max(1.0 - self.lo / self.center)
    }
}

/// The repeat interval of `values` (one figure per block, > 0); `None`
/// with fewer than two usable values.
pub fn repeat_interval95(values: &[f64]) -> Option<RepeatInterval> {
    let logs: Vec<f64> =
        values.iter().filter(|v| v.is_finite() && **v > 0.0).map(|v| v.ln()).collect();
    let k = logs.len();
    if k < 2 {
        return None;
    }
    let m = logs.iter().sum::<f64>() / k as f64;
    let s = (logs.iter().map(|l| (l - m).powi(2)).sum::<f64>() / (k - 1) as f64).sqrt();
    let half = t_975((k - 1) as f64) * s * (2.0 / k as f64).sqrt();
    let (min, max) =
        logs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &l| (a.min(l), b.max(l)));
    Some(RepeatInterval {
        blocks: k,
        center: m.exp(),
        lo: (m - half).exp(),
        hi: (m + half).exp(),
        spread: (max - min).exp(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn three_blocks_ten_percent_apart() {
        // logs 4.605, 4.700, 4.796: m = ln 110, s = ln 1.1; t(2) = 4.3027;
        // half = 4.3027 · 0.09531 · √(2/3) = 0.33484.
        let r = repeat_interval95(&[100.0, 110.0, 121.0]).unwrap();
        assert_eq!(r.blocks, 3);
        assert!(close(r.center, 110.0), "{r:?}");
        assert!(close(r.lo, 78.700_228_171_370_9), "{r:?}");
        assert!(close(r.hi, 153.747_965_935_398_33), "{r:?}");
        assert!(close(r.spread, 1.21), "{r:?}");
        assert!(close(r.relative_half_width(), 153.747_965_935_398_33 / 110.0 - 1.0));
    }

    #[test]
    fn two_blocks_use_t_with_one_degree_of_freedom() {
        let r = repeat_interval95(&[50.0, 52.0]).unwrap();
        assert!(close(r.center, 50.990_195_135_927_85), "{r:?}");
        assert!(close(r.lo, 35.846_618_364_557_2), "{r:?}");
        assert!(close(r.hi, 72.531_248_934_032_83), "{r:?}");
    }

    #[test]
    fn identical_blocks_give_a_point_and_too_few_give_none() {
        let r = repeat_interval95(&[1000.0; 3]).unwrap();
        assert!(close(r.center, 1000.0) && r.lo == r.center && r.hi == r.center, "{r:?}");
        assert_eq!(r.spread, 1.0);
        assert_eq!(repeat_interval95(&[1000.0]), None);
        assert_eq!(repeat_interval95(&[]), None);
        // Unusable values are left out, not propagated.
        assert_eq!(repeat_interval95(&[f64::NAN, 0.0, 5.0]), None);
    }
}

/// Two runs' replicate blocks of one cell compared (issue #15): the ratio
/// of their geometric means (`b` over `a`), its 95 % CI and Welch's test,
/// all on the logs of the block figures, so the variance that decides is
/// the one between blocks — what a repeat run would also see — and not the
/// one between samples of a block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockComparison {
    /// exp(mean log b − mean log a).
    pub ratio: f64,
    /// 95 % CI of the ratio (Welch–Satterthwaite df, Student's t): low end.
    pub lo: f64,
    /// High end.
    pub hi: f64,
    /// Welch's two-sided p-value.
    pub p: f64,
}

/// Compares blocks `b` with blocks `a`; `None` unless each side has at
/// least two positive figures and they are not all equal.
pub fn compare_blocks(a: &[f64], b: &[f64]) -> Option<BlockComparison> {
    let logs = |v: &[f64]| -> Vec<f64> {
        v.iter().filter(|x| x.is_finite() && **x > 0.0).map(|x| x.ln()).collect()
    };
    let (la, lb) = (logs(a), logs(b));
    if la.len() < 2 || lb.len() < 2 {
        return None;
    }
    let t = crate::welch_t_test(&lb, &la)?;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let d = mean(&lb) - mean(&la);
    // t = d / se, so se = d / t (t is 0 only when d is: then the CI is
    // empty of information and the ratio exactly 1).
    let se = if t.t != 0.0 { d / t.t } else { 0.0 };
    let half = t_975(t.df) * se.abs();
    Some(BlockComparison {
        ratio: d.exp(),
        lo: (d - half).exp(),
        hi: (d + half).exp(),
        p: t.p_two_sided,
    })
}

#[cfg(test)]
mod compare_tests {
    use super::*;

    #[test]
    fn blocks_twenty_percent_apart_differ_and_overlapping_ones_do_not() {
        // logs: means differ by ln 1.2020004; se 0.0244354, df 3.99851.
        let c = compare_blocks(&[100.0, 104.0, 98.0], &[120.0, 118.0, 125.0]).unwrap();
        assert!((c.ratio - 1.202_000_413_652_716_5).abs() < 1e-12, "{c:?}");
        let half = t_975(3.998_509_171_693_797_7) * 0.024_435_386_149_222_62;
        assert!((c.lo - (c.ratio.ln() - half).exp()).abs() < 1e-9, "{c:?}");
        assert!((c.hi - (c.ratio.ln() + half).exp()).abs() < 1e-9, "{c:?}");
        // t = 7.53 on ~4 df: p between 0.001 and 0.01.
        assert!(c.p > 0.001 && c.p < 0.01, "{c:?}");
        let c = compare_blocks(&[100.0, 130.0, 90.0], &[110.0, 95.0, 125.0]).unwrap();
        assert!(c.p > 0.05 && c.lo < 1.0 && c.hi > 1.0, "{c:?}");
        assert_eq!(compare_blocks(&[100.0], &[1.0, 2.0]), None);
    }
}
