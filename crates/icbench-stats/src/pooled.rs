//! A link's block-to-block dispersion, pooled over its cells (issue #28).
//!
//! Three blocks are too few to say how far apart a cell's blocks will be
//! in the next run: on the 2-vCPU VM, cells whose three blocks happened to
//! agree had intervals of ±3 % that missed the next run's figure 35–60 %
//! of the time, and marking every cell whose blocks were more than 1.10×
//! apart marked 78–100 % of a default run (docs/results.md, 2026-11-27).
//! The cells of one link (same pattern, direction and settings, every
//! size) measured in one run share the machine's and the link's
//! variation, so the spread of their blocks is estimated once for all of
//! them — the pooled within-group variance of a one-way layout (Montgomery,
//! *Design and Analysis of Experiments*, 8th ed., §3.3: the error mean
//! square, Σᵢ Σⱼ (yᵢⱼ − ȳᵢ)² ÷ Σᵢ (nᵢ − 1)) on the logs of the block
//! figures, with Σ (nᵢ − 1) degrees of freedom instead of two.
//!
//! With it, each cell's **repeat interval** is exp(m ± t₀.₉₇₅,df · σ ·
//! √(2/K)) for its K blocks' log mean m — the interval
//! [`crate::repeat_interval95`] gives, with the pooled σ and its df — and a
//! cell **disagrees** only when its own blocks spread more than the link's
//! do: its Σ (yⱼ − m)² ÷ (K − 1) over σ² past the 99 % point of
//! F(K − 1, df). A cell whose blocks disagree that way does not count
//! towards σ (one pass: σ from every cell, those cells out, σ again), so
//! one wild cell does not widen the others' intervals.

use statrs::distribution::{ContinuousCDF, FisherSnedecor};

use crate::replicates::RepeatInterval;
use crate::tdist::t_975;

/// Fewest pooled degrees of freedom a link's σ is used with; below it each
/// cell keeps its own blocks' interval (t₀.₉₇₅,₆ = 2.45; with 2, 4.30).
pub const MIN_POOLED_DF: usize = 6;

/// The level a cell's own spread is judged at against its link's.
pub const DISAGREE_P: f64 = 0.01;

/// The blocks' dispersion of one link, pooled over its cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pooled {
    /// The pooled standard deviation of a block's log figure.
    pub sigma: f64,
    /// Its degrees of freedom, Σ (Kᵢ − 1) over the cells it is from.
    pub df: usize,
    /// Cells it is from.
    pub cells: usize,
    /// Cells left out because their blocks spread more than the rest's.
    pub left_out: usize,
}

fn logs(values: &[f64]) -> Vec<f64> {
    values.iter().filter(|v| v.is_finite() && **v > 0.0).map(|v| v.ln()).collect()
}

/// Σ (l − mean)² of logs, and their count.
fn sum_sq(l: &[f64]) -> (f64, usize) {
    let m = l.iter().sum::<f64>() / l.len() as f64;
    (l.iter().map(|x| (x - m).powi(2)).sum(), l.len())
}

fn pool<'a>(cells: impl Iterator<Item = &'a Vec<f64>>) -> (f64, usize, usize) {
    let (mut ss, mut df, mut n) = (0.0, 0, 0);
    for l in cells.filter(|l| l.len() >= 2) {
        let (s, k) = sum_sq(l);
        ss += s;
        df += k - 1;
        n += 1;
    }
    (ss, df, n)
}

impl Pooled {
    /// The pooled dispersion of `cells` (each one cell's block figures,
    /// each positive); cells with fewer than two usable figures add
    /// nothing. `None` below [`MIN_POOLED_DF`] degrees of freedom.
    pub fn of(cells: &[Vec<f64>]) -> Option<Pooled> {
        let l: Vec<Vec<f64>> = cells.iter().map(|c| logs(c)).collect();
        let (ss, df, n) = pool(l.iter());
        if df < MIN_POOLED_DF {
            return None;
        }
        let first = Pooled { sigma: (ss / df as f64).sqrt(), df, cells: n, left_out: 0 };
        let kept: Vec<&Vec<f64>> = l.iter().filter(|c| first.consistent_logs(c)).collect();
        let (ss, df, n2) = pool(kept.into_iter());
        if df < MIN_POOLED_DF || ss <= 0.0 {
            return Some(first);
        }
        Some(Pooled { sigma: (ss / df as f64).sqrt(), df, cells: n2, left_out: n - n2 })
    }

    /// The interval a repeat run's figure (its K blocks' geometric mean)
    /// lands in, from this cell's `values` and the pooled σ; `None` with
    /// fewer than one usable value.
    pub fn repeat_interval(&self, values: &[f64]) -> Option<RepeatInterval> {
        let l = logs(values);
        if l.is_empty() {
            return None;
        }
        let k = l.len() as f64;
        let m = l.iter().sum::<f64>() / k;
        let half = t_975(self.df as f64) * self.sigma * (2.0 / k).sqrt();
        let (min, max) =
            l.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        Some(RepeatInterval {
            blocks: l.len(),
            center: m.exp(),
            lo: (m - half).exp(),
            hi: (m + half).exp(),
            spread: (max - min).exp(),
        })
    }

    /// The cell's blocks spread no more than the link's: F = s² ÷ σ² not
    /// past the [`DISAGREE_P`] upper point of F(K − 1, df). One block, or
    /// a link without spread, is consistent.
    pub fn consistent(&self, values: &[f64]) -> bool {
        self.consistent_logs(&logs(values))
    }

    fn consistent_logs(&self, l: &[f64]) -> bool {
        if l.len() < 2 || self.sigma <= 0.0 {
            return true;
        }
        let (ss, k) = sum_sq(l);
        let f = ss / (k - 1) as f64 / self.sigma.powi(2);
        FisherSnedecor::new((k - 1) as f64, self.df as f64)
            .map(|d| d.sf(f) >= DISAGREE_P)
            .unwrap_or(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    /// Known answer: four cells of three blocks at ×/÷ 1.1 around their
    /// centres (logs m − ln 1.1, m, m + ln 1.1): each adds 2·(ln 1.1)² on
    /// 2 df, so σ = ln 1.1 exactly, df = 8, and a cell's interval is
    /// exp(m ± t₀.₉₇₅,₈ · ln 1.1 · √(2/3)), t₀.₉₇₅,₈ = 2.306004135.
    #[test]
    fn cells_at_ten_percent_pool_to_ln_1_1_on_8_df() {
        let cell = |c: f64| vec![c / 1.1, c, c * 1.1];
        let cells = vec![cell(100.0), cell(5000.0), cell(2.0e9), cell(30.0)];
        let p = Pooled::of(&cells).unwrap();
        assert_eq!((p.df, p.cells, p.left_out), (8, 4, 0));
        assert!(close(p.sigma, 1.1f64.ln(), 1e-12), "{p:?}");
        let r = p.repeat_interval(&cells[0]).unwrap();
        let half = 2.306_004_135 * 1.1f64.ln() * (2.0f64 / 3.0).sqrt();
        assert!(close(r.center, 100.0, 1e-12), "{r:?}");
        assert!(close(r.hi, 100.0 * half.exp(), 1e-8), "{r:?}");
        assert!(close(r.lo, 100.0 / half.exp(), 1e-8), "{r:?}");
        assert!(close(r.spread, 1.21, 1e-12), "{r:?}");
        // Two blocks of a cell still get an interval, from the pool:
        // √(2/2) = 1 in place of √(2/3).
        let r2 = p.repeat_interval(&[100.0, 110.0]).unwrap();
        let half2 = 2.306_004_135 * 1.1f64.ln();
        assert!(close(r2.hi / r2.center, half2.exp(), 1e-8), "{r2:?}");
    }

    #[test]
    fn too_few_degrees_of_freedom_give_no_pool() {
        // Three cells of two blocks and one of one: 3 df.
        let cells = vec![vec![1.0, 1.1], vec![2.0, 2.2], vec![3.0, 3.3], vec![4.0]];
        assert_eq!(Pooled::of(&cells), None);
        assert_eq!(Pooled::of(&[]), None);
    }

    /// A cell whose blocks are 2× apart in a link whose blocks agree to
    /// ±1 % disagrees, is left out of σ, and σ is the others' alone.
    #[test]
    fn a_wild_cell_disagrees_and_does_not_widen_the_others() {
        let cell = |c: f64| vec![c / 1.01, c, c * 1.01];
        let mut cells: Vec<Vec<f64>> = (1..=10).map(|i| cell(100.0 * i as f64)).collect();
        cells.push(vec![100.0, 200.0, 150.0]);
        let p = Pooled::of(&cells).unwrap();
        assert_eq!((p.cells, p.left_out, p.df), (10, 1, 20), "{p:?}");
        assert!(close(p.sigma, 1.01f64.ln(), 1e-12), "{p:?}");
        assert!(!p.consistent(&cells[10]));
        assert!(p.consistent(&cells[3]));
        // A cell at 1.5 σ a block is within F(2, 20)'s 99 % point (5.85).
        let s = 1.01f64.ln() * 1.5;
        assert!(p.consistent(&[100.0 * (-s).exp(), 100.0, 100.0 * s.exp()]));
        // At 3 σ (F = 9) it is not.
        let s = 1.01f64.ln() * 3.0;
        assert!(!p.consistent(&[100.0 * (-s).exp(), 100.0, 100.0 * s.exp()]));
    }

    #[test]
    fn one_block_and_bad_values_are_consistent_and_skipped() {
        let p = Pooled { sigma: 0.1, df: 10, cells: 5, left_out: 0 };
        assert!(p.consistent(&[5.0]));
        assert!(p.consistent(&[f64::NAN, 5.0, 0.0]));
        let r = p.repeat_interval(&[f64::NAN, 5.0]).unwrap();
        assert_eq!(r.blocks, 1);
        assert!(close(r.center, 5.0, 1e-12), "{r:?}");
        assert_eq!(p.repeat_interval(&[0.0]), None);
    }
}
