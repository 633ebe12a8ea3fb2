//! A cell's figure against its host's earlier runs (issue #28 item 3).
//!
//! The blocks of one run cannot show how much a figure moves from run to
//! run when the machine's state lasts longer than a block: on the 2-vCPU VM
//! the within-run interval of the cells icbench did not mark contained the
//! next run's figure for 21 of 149 (shared/research/noise-notes.md). The
//! earlier runs of the same host can. This is a control chart on the logs
//! of the runs' figures (each run's geometric mean of its blocks):
//!
//! - **Limits.** From the k ≥ 2 earlier runs' log figures, mean m and
//!   sample standard deviation s: the 95 % prediction interval for one
//!   more run is `m ± t(0.975; k−1)·s·√(1 + 1/k)` (Hahn & Meeker,
//!   *Statistical Intervals*, 1991, §4.7, the normal prediction interval).
//!   A run whose figure lies outside is **outside its history**.
//! - **Where the next run lands.** With this run counted too (k + 1 runs),
//!   the same prediction interval for the run after it: the repeat
//!   interval that takes the run-to-run variation from the runs themselves
//!   rather than from one run's blocks.

use crate::tdist::t_975;

/// A figure against its host's earlier runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct History {
    /// Earlier runs with the figure.
    pub runs: usize,
    /// Their geometric mean.
    pub center: f64,
    /// The 95 % prediction interval for one more run, from them alone:
    /// its lower end …
    pub lo: f64,
    /// … and its upper end.
    pub hi: f64,
    /// This run's figure lies within [`lo`, `hi`].
    ///
    /// [`lo`]: History::lo
    /// [`hi`]: History::hi
    pub within: bool,
    /// Where the next run's figure lands, from the earlier runs and this
    /// one (k + 1 runs): its lower end …
    pub next_lo: f64,
    /// … and its upper end.
    pub next_hi: f64,
}

/// The prediction interval for one more value of logs `l` (≥ 2 of them),
/// on the log scale: (mean, half-width).
fn predict(l: &[f64]) -> (f64, f64) {
    let k = l.len() as f64;
    let m = l.iter().sum::<f64>() / k;
    let s = (l.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (k - 1.0)).sqrt();
    (m, t_975(k - 1.0) * s * (1.0 + 1.0 / k).sqrt())
}

/// `this` run's figure against the figures of the host's `earlier` runs
/// (each > 0, any order); `None` with fewer than two earlier runs or a
/// figure that is not finite and positive.
pub fn history95(earlier: &[f64], this: f64) -> Option<History> {
    let ok = |v: f64| v.is_finite() && v > 0.0;
    if !ok(this) {
        return None;
    }
    let logs: Vec<f64> = earlier.iter().copied().filter(|&v| ok(v)).map(f64::ln).collect();
    if logs.len() < 2 {
        return None;
    }
    let (m, half) = predict(&logs);
    let mut all = logs.clone();
    all.push(this.ln());
    let (next_m, next_half) = predict(&all);
    Some(History {
        runs: logs.len(),
        center: m.exp(),
        lo: (m - half).exp(),
        hi: (m + half).exp(),
        // On the log scale, where the interval was formed (exp(ln x) need
        // not give x back to the last bit).
        within: (this.ln() - m).abs() <= half,
        next_lo: (next_m - next_half).exp(),
        next_hi: (next_m + next_half).exp(),
    })
}

/// [`history95`] with the run-to-run spread pooled over a link's cells
/// (`crate::pooled::Pooled` over each cell's earlier runs' figures): σ on
/// `df` degrees of freedom in place of each cell's own s on k − 1. A
/// control chart per cell has 1–9 degrees of freedom (t₀.₉₇₅ = 12.7 …
/// 2.26); a link's 17 cells over three runs give 34. The limits are
/// m ± t(df)·σ·√(1 + 1/k); where the next run lands is this run's figure
/// ± t(df)·σ·√2 (the next run against this one, one run's figure each),
/// so it brackets the figure and needs no mean over a step. `None` as for
/// [`history95`].
pub fn history95_pooled(earlier: &[f64], this: f64, sigma: f64, df: usize) -> Option<History> {
    let ok = |v: f64| v.is_finite() && v > 0.0;
    if !ok(this) || !sigma.is_finite() || df == 0 {
        return None;
    }
    let logs: Vec<f64> = earlier.iter().copied().filter(|&v| ok(v)).map(f64::ln).collect();
    if logs.len() < 2 {
        return None;
    }
    let k = logs.len() as f64;
    let m = logs.iter().sum::<f64>() / k;
    let t = t_975(df as f64);
    let half = t * sigma * (1.0 + 1.0 / k).sqrt();
    let next = t * sigma * std::f64::consts::SQRT_2;
    Some(History {
        runs: logs.len(),
        center: m.exp(),
        lo: (m - half).exp(),
        hi: (m + half).exp(),
        within: (this.ln() - m).abs() <= half,
        next_lo: (this.ln() - next).exp(),
        next_hi: (this.ln() + next).exp(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs()
    }

    #[test]
    fn a_steady_host_puts_the_run_within_and_widens_nothing_much() {
        // Logs of 100, 110, 121: m = ln 110, s = ln 1.1; t(2) = 4.302653;
        // half = 4.302653 · 0.0953102 · √(4/3) = 0.473534.
        let h = history95(&[100.0, 110.0, 121.0], 112.0).unwrap();
        assert_eq!(h.runs, 3);
        assert!(close(h.center, 110.0), "{h:?}");
        let half = 4.302_652_729_749_464 * 1.1f64.ln() * (4.0f64 / 3.0).sqrt();
        assert!(close(h.lo, 110.0 * (-half).exp()) && close(h.hi, 110.0 * half.exp()), "{h:?}");
        assert!(h.within);
        // Four runs now: the next run's interval is narrower (t(3) = 3.18).
        assert!(h.next_hi / h.next_lo < h.hi / h.lo, "{h:?}");
    }

    #[test]
    fn a_step_in_the_host_puts_the_run_outside() {
        // Three runs near 250 ns, then the slow placement (790 ns).
        let h = history95(&[248.0, 253.0, 250.0], 790.0).unwrap();
        assert!(!h.within, "{h:?}");
        assert!(h.hi < 300.0, "{h:?}");
        // Counted in, the step widens where the next run lands to hold both.
        assert!(h.next_lo < 250.0 && h.next_hi > 790.0, "{h:?}");
    }

    /// Known answers: σ = ln 1.1 on 34 df (t₀.₉₇₅,₃₄ = 2.032245), earlier
    /// 100 and 121 (m = ln 110, k = 2): limits 110 ×/÷ e^(2.032245 · ln 1.1
    /// · √1.5) = ×/÷ 1.26773; the next run from 112 ×/÷ e^(2.032245 · ln 1.1
    /// · √2) = ×/÷ 1.31511; a step to 250 is outside.
    #[test]
    fn a_pooled_history_has_the_links_degrees_of_freedom() {
        let s = 1.1f64.ln();
        let h = history95_pooled(&[100.0, 121.0], 112.0, s, 34).unwrap();
        let lim = (2.032_244_509 * s * 1.5f64.sqrt()).exp();
        let nxt = (2.032_244_509 * s * 2.0f64.sqrt()).exp();
        assert!((lim - 1.267_73).abs() < 1e-5 && (nxt - 1.315_11).abs() < 1e-5, "{lim} {nxt}");
        assert!(close(h.center, 110.0) && close(h.hi, 110.0 * lim) && close(h.lo, 110.0 / lim));
        assert!(h.within && close(h.next_hi, 112.0 * nxt) && close(h.next_lo, 112.0 / nxt));
        assert!(!history95_pooled(&[100.0, 121.0], 250.0, s, 34).unwrap().within);
        assert!(history95_pooled(&[100.0], 112.0, s, 34).is_none());
        assert!(history95_pooled(&[100.0, 121.0], 112.0, s, 0).is_none());
    }

    #[test]
    fn fewer_than_two_earlier_runs_or_bad_figures_give_none() {
        assert!(history95(&[250.0], 251.0).is_none());
        assert!(history95(&[250.0, f64::NAN, 0.0], 251.0).is_none());
        assert!(history95(&[250.0, 252.0], f64::INFINITY).is_none());
        // Two identical runs: a zero-width chart, the run is within only
        // if it is the same figure.
        let h = history95(&[250.0, 250.0], 250.0).unwrap();
        assert!(h.within && close(h.lo, 250.0) && close(h.hi, 250.0));
    }
}
