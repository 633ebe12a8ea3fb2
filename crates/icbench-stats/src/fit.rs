//! The linear cost model `t(n) = a + b·n`, fitted by ordinary least squares.
//!
//! `a` is the fixed cost of a message (y's unit, e.g. ns), `b` the cost per
//! unit of size (e.g. ns per byte); `1/b` is the asymptotic bandwidth and
//! `a/b` the half-performance size n½ (Hockney, R. W., "The
//! communication challenge for MPP", *Parallel Computing* 20(3), 1994).
//!
//! Formulas for one predictor (Montgomery, Peck & Vining, *Introduction to
//! Linear Regression Analysis*, 5th ed., 2012, §2.2–2.3; Draper & Smith,
//! *Applied Regression Analysis*, 3rd ed., 1998, ch. 1), with
//! `Sxx = Σ(x − x̄)²`, `Sxy = Σ(x − x̄)(y − ȳ)`, `SSE = Σ(y − a − b·x)²`,
//! `SST = Σ(y − ȳ)²`, `s² = SSE/(n − 2)`:
//!
//! ```text
//! b = Sxy / Sxx             se_b = s / √Sxx
//! a = ȳ − b·x̄               se_a = s·√(1/n + x̄²/Sxx)
//! R² = 1 − SSE/SST          CI95 = estimate ± t(0.975; n − 2)·se
//! ```
//!
//! Repeated x values (several repetitions at one size) are simply more
//! points. Note the R² formula: criterion's `Slope::r_squared` once
//! accumulated `ss_tot` wrongly (bheisler/criterion.rs PR #896); here it is
//! tested against independent computations.

use serde::{Deserialize, Serialize};

use crate::ci::t_975;
use crate::interval::Interval;

/// Why a line could not be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// Fewer than 3 points.
    #[error("a linear fit needs at least 3 points, got {n_points}")]
    TooFewPoints {
        /// How many points were given.
        n_points: usize,
    },
    /// Every point has the same x: the slope is undefined.
    #[error("a linear fit needs at least two different x values; all x equal {x}")]
    AllXEqual {
        /// The one x value.
        x: f64,
    },
    /// A coordinate is NaN or infinite.
    #[error("a linear fit needs finite points; point {index} is ({x}, {y})")]
    NonFinite {
        /// Index of the first bad point.
        index: usize,
        /// Its x.
        x: f64,
        /// Its y.
        y: f64,
    },
}

/// Test for curvature: the quadratic term `c` of `y = a' + b'·x + c·x²`
/// fitted to the same points, with its t statistic and two-sided p-value
/// (H0: c = 0, Student's t with `df = n − 3`). A small p-value means the
/// points bend away from a straight line.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Curvature {
    /// The x² coefficient, in y's unit per x's unit squared.
    pub quad_coef: f64,
    /// `quad_coef / se(quad_coef)`.
    pub t: f64,
    /// Degrees of freedom, `n_points − 3`.
    pub df: f64,
    /// Two-sided p-value, `2·P(T_df > |t|)`.
    pub p_two_sided: f64,
}

/// A plain verdict on a [`LinearFit`] (see [`LinearFit::fit_quality`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum FitQuality {
    /// The line describes the points.
    Good,
    /// The line misses some x by more than the limit; carries
    /// [`LinearFit::max_rel_error`].
    PoorRelError(f64),
    /// The line is close, but the points bend significantly.
    Curved,
}

/// An ordinary-least-squares fit of `y = a + b·x` (the module docs give the
/// formulas). With x in bytes and y in ns, `a` is in ns and `b` in ns per
/// byte.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LinearFit {
    /// Intercept, y's unit.
    pub a: f64,
    /// Slope, y's unit per x's unit.
    pub b: f64,
    /// Standard error of `a`.
    pub se_a: f64,
    /// Standard error of `b`.
    pub se_b: f64,
    /// `a ± t(0.975; n − 2)·se_a`.
    pub a_ci95: Interval,
    /// `b ± t(0.975; n − 2)·se_b`.
    pub b_ci95: Interval,
    /// Coefficient of determination, `1 − SSE/SST`; 1 when every y is equal.
    pub r_squared: f64,
    /// Largest `|predict(x) − ȳₓ| / |ȳₓ|` over the distinct x values, where
    /// ȳₓ is the mean of the y measured at x (so repetitions do not count as
    /// model error). Unitless; ∞ if some ȳₓ is 0 and the line misses it.
    pub max_rel_error: f64,
    /// Number of points fitted (repetitions included).
    pub n_points: u64,
    /// `s = √(SSE/(n − 2))`, the standard deviation of the residuals,
    /// y's unit.
    pub residual_stddev: f64,
    /// Quadratic-term test; `None` with fewer than 4 points or fewer than 3
    /// distinct x values.
    pub curvature: Option<Curvature>,
}

/// Above this [`LinearFit::max_rel_error`], [`LinearFit::fit_quality`] says
/// [`FitQuality::PoorRelError`] (5 %).
pub const MAX_REL_ERROR_LIMIT: f64 = 0.05;

/// Below this curvature p-value, [`LinearFit::fit_quality`] says
/// [`FitQuality::Curved`].
pub const CURVATURE_ALPHA: f64 = 0.01;

/// Fits `y = a + b·x` to `points` = (x, y) by ordinary least squares.
///
/// Errors: fewer than 3 points ([`FitError::TooFewPoints`]; with 2 the line
/// is exact and no error can be estimated), all x equal
/// ([`FitError::AllXEqual`]), or a NaN/infinite coordinate
/// ([`FitError::NonFinite`]). O(n log n) (sorting for the per-x means).
pub fn fit_linear(points: &[(f64, f64)]) -> Result<LinearFit, FitError> {
    let n = points.len();
    if n < 3 {
        return Err(FitError::TooFewPoints { n_points: n });
    }
    if let Some((index, &(x, y))) =
        points.iter().enumerate().find(|(_, (x, y))| !x.is_finite() || !y.is_finite())
    {
        return Err(FitError::NonFinite { index, x, y });
    }
    let nf = n as f64;
    let x_mean = points.iter().map(|p| p.0).sum::<f64>() / nf;
    let y_mean = points.iter().map(|p| p.1).sum::<f64>() / nf;
    let sxx: f64 = points.iter().map(|p| (p.0 - x_mean).powi(2)).sum();
    if sxx == 0.0 {
        return Err(FitError::AllXEqual { x: points[0].0 });
    }
    let sxy: f64 = points.iter().map(|p| (p.0 - x_mean) * (p.1 - y_mean)).sum();
    let sst: f64 = points.iter().map(|p| (p.1 - y_mean).powi(2)).sum();
    let b = sxy / sxx;
    let a = y_mean - b * x_mean;
    let residuals: Vec<f64> = points.iter().map(|&(x, y)| y - (a + b * x)).collect();
    let sse: f64 = residuals.iter().map(|e| e * e).sum();

    let s = (sse / (nf - 2.0)).sqrt();
    let se_b = s / sxx.sqrt();
    let se_a = s * (1.0 / nf + x_mean * x_mean / sxx).sqrt();
    let t = t_975(nf - 2.0);
    let r_squared = if sst == 0.0 { 1.0 } else { 1.0 - sse / sst };

    Ok(LinearFit {
        a,
        b,
        se_a,
        se_b,
        a_ci95: Interval::new(a - t * se_a, a + t * se_a),
        b_ci95: Interval::new(b - t * se_b, b + t * se_b),
        r_squared,
        max_rel_error: max_rel_error(points, a, b),
        n_points: n as u64,
        residual_stddev: s,
        curvature: curvature(points, x_mean, &residuals, sse),
    })
}

/// Largest relative miss of the line at the per-x mean of y.
fn max_rel_error(points: &[(f64, f64)], a: f64, b: f64) -> f64 {
    let mut sorted = points.to_vec();
    sorted.sort_unstable_by(|p, q| p.0.total_cmp(&q.0));
    sorted
        .chunk_by(|p, q| p.0 == q.0)
        .map(|group| {
            let x = group[0].0;
            let y_mean = group.iter().map(|p| p.1).sum::<f64>() / group.len() as f64;
            let miss = (a + b * x - y_mean).abs();
            if miss == 0.0 { 0.0 } else { miss / y_mean.abs() }
        })
        .fold(0.0, f64::max)
}

/// The quadratic-term t test, computed with the x² predictor made
/// orthogonal to 1 and x (Gram–Schmidt): with `z = x − x̄` and
/// `w = z² − mean(z²) − (Σz·z²/Σz²)·z`, the x² coefficient of the quadratic
/// fit is `c = Σw·y / Σw²` and its residual sum of squares is
/// `SSE − (Σw·y)²/Σw²`.
fn curvature(points: &[(f64, f64)], x_mean: f64, residuals: &[f64], sse: f64) -> Option<Curvature> {
    let n = points.len();
    let mut xs: Vec<f64> = points.iter().map(|p| p.0).collect();
    xs.sort_unstable_by(f64::total_cmp);
    xs.dedup();
    if n < 4 || xs.len() < 3 {
        return None;
    }
    let df = (n - 3) as f64;
    let z: Vec<f64> = points.iter().map(|p| p.0 - x_mean).collect();
    let z2_mean = z.iter().map(|z| z * z).sum::<f64>() / n as f64;
    let szz: f64 = z.iter().map(|z| z * z).sum();
    let sz_z2: f64 = z.iter().map(|z| z * z * z).sum();
    let w: Vec<f64> = z.iter().map(|z| z * z - z2_mean - sz_z2 / szz * z).collect();
    let sww: f64 = w.iter().map(|w| w * w).sum();
    // Σw·y = Σw·e: w is orthogonal to 1 and x, and y − e lies in their span.
    let swe: f64 = w.iter().zip(residuals).map(|(w, e)| w * e).sum();
    let quad_coef = swe / sww;

    // Residuals at rounding level (an exact line given in floating point):
    // there is nothing to test.
    let sst_scale: f64 = points.iter().map(|p| p.1 * p.1).sum();
    if sse <= sst_scale * 1e-24 {
        return Some(Curvature { quad_coef: 0.0, t: 0.0, df, p_two_sided: 1.0 });
    }
    let sse_quad = (sse - swe * swe / sww).max(0.0);
    let se = (sse_quad / df).sqrt() / sww.sqrt();
    let t = quad_coef / se; // ±∞ when the points lie exactly on a parabola
    let p_two_sided = crate::tdist::t_p_two_sided(t, df);
    Some(Curvature { quad_coef, t, df, p_two_sided })
}

impl LinearFit {
    /// `a + b·x`, y's unit.
    pub fn predict(&self, x: f64) -> f64 {
        self.a + self.b * x
    }

    /// `1/b`: x units per y unit, e.g. bytes per ns when x is bytes and y
    /// is ns (multiply by 1e9 for bytes per second). ∞ when `b` is 0 and
    /// negative when `b` is (the model then describes no bandwidth).
    pub fn bandwidth_per_unit(&self) -> f64 {
        1.0 / self.b
    }

    /// The half-performance size `n½ = a/b`, x's unit: the size at which
    /// the fixed cost equals the size-dependent cost, i.e. at which half the
    /// asymptotic bandwidth is reached.
    pub fn n_half(&self) -> f64 {
        self.a / self.b
    }

    /// [`fit_quality_with`](Self::fit_quality_with) with the default limits
    /// [`MAX_REL_ERROR_LIMIT`] (5 %) and [`CURVATURE_ALPHA`] (0.01).
    pub fn fit_quality(&self) -> FitQuality {
        self.fit_quality_with(MAX_REL_ERROR_LIMIT, CURVATURE_ALPHA)
    }

    /// [`FitQuality::PoorRelError`] if `max_rel_error > max_rel_error_limit`
    /// (checked first: it is what a reader of the model feels), else
    /// [`FitQuality::Curved`] if the curvature p-value is below
    /// `curvature_alpha`, else [`FitQuality::Good`].
    pub fn fit_quality_with(&self, max_rel_error_limit: f64, curvature_alpha: f64) -> FitQuality {
        if self.max_rel_error > max_rel_error_limit {
            FitQuality::PoorRelError(self.max_rel_error)
        } else if self.curvature.is_some_and(|c| c.p_two_sided < curvature_alpha) {
            FitQuality::Curved
        } else {
            FitQuality::Good
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(x: f64, want: f64, tol: f64) -> bool {
        (x - want).abs() <= tol * want.abs().max(1e-300)
    }

    #[test]
    fn perfect_line_is_exact() {
        let pts: Vec<(f64, f64)> =
            (1..=10).map(|i| (f64::from(i), 3.0 + 2.0 * f64::from(i))).collect();
        let f = fit_linear(&pts).unwrap();
        assert_eq!((f.a, f.b), (3.0, 2.0));
        assert_eq!(f.r_squared, 1.0);
        assert_eq!(f.max_rel_error, 0.0);
        assert_eq!((f.se_a, f.se_b, f.residual_stddev), (0.0, 0.0, 0.0));
        assert_eq!(f.a_ci95, Interval::new(3.0, 3.0));
        assert_eq!(f.b_ci95, Interval::new(2.0, 2.0));
        assert_eq!(f.n_points, 10);
        assert_eq!(f.curvature.unwrap().p_two_sided, 1.0);
        assert_eq!(f.fit_quality(), FitQuality::Good);
        assert_eq!(f.predict(100.0), 203.0);
        assert_eq!(f.bandwidth_per_unit(), 0.5);
        assert_eq!(f.n_half(), 1.5);
    }

    #[test]
    fn noisy_line_known_answer() {
        // x = 1..6, y = [2.1, 3.9, 6.2, 7.8, 10.1, 12.2]. Expected values from
        // python3 with exact fractions (Fraction(str(y))) and the textbook
        // formulas; a, b cross-checked with statistics.linear_regression and
        // R² with statistics.correlation(x, y)**2 = 0.9982106661074999.
        // t(0.975; 4) = 2.7764451051977987 (mpmath).
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let y = [2.1, 3.9, 6.2, 7.8, 10.1, 12.2];
        let pts: Vec<(f64, f64)> = x.into_iter().zip(y).collect();
        let f = fit_linear(&pts).unwrap();
        assert!(close(f.a, -0.02, 1e-9), "{f:?}");
        assert!(close(f.b, 2.02, 1e-12), "{f:?}");
        assert!(close(f.se_a, 0.16653327995729061, 1e-9), "{f:?}");
        assert!(close(f.se_b, 0.042761798705987904, 1e-9), "{f:?}");
        assert!(close(f.r_squared, 0.9982106661074999, 1e-12), "{f:?}");
        assert!(close(f.residual_stddev, 0.17888543819998318, 1e-9), "{f:?}");
        let t = 2.7764451051977987;
        assert!(close(f.b_ci95.lo, 2.02 - t * 0.042761798705987904, 1e-9));
        assert!(close(f.b_ci95.hi, 2.02 + t * 0.042761798705987904, 1e-9));
        assert!(close(f.a_ci95.half_width(), t * 0.16653327995729061, 1e-9));
        // Worst point: x = 1, line gives 2.0 against 2.1 → 0.1/2.1.
        assert!(close(f.max_rel_error, 0.1 / 2.1, 1e-9), "{f:?}");
        // Quadratic term, from the 3×3 normal equations solved exactly in
        // python3 (a different method from the code's Gram–Schmidt):
        // c = 0.026785714285714284, t = 0.8910279680247973, df = 3,
        // p = 0.4385575292581313 (mpmath.betainc).
        let c = f.curvature.unwrap();
        assert!(close(c.quad_coef, 0.026785714285714284, 1e-9), "{c:?}");
        assert!(close(c.t, 0.8910279680247973, 1e-9), "{c:?}");
        assert_eq!(c.df, 3.0);
        assert!(close(c.p_two_sided, 0.4385575292581313, 1e-7), "{c:?}");
        assert_eq!(f.fit_quality(), FitQuality::Good);
    }

    #[test]
    fn shifting_y_moves_only_a() {
        let pts = [(1.0, 2.1), (2.0, 3.9), (3.0, 6.2), (4.0, 7.8), (5.0, 10.1), (6.0, 12.2)];
        let f = fit_linear(&pts).unwrap();
        let shifted: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| (x, y + 1000.0)).collect();
        let g = fit_linear(&shifted).unwrap();
        assert!(close(g.a, f.a + 1000.0, 1e-12));
        assert!(close(g.b, f.b, 1e-9));
        assert!(close(g.se_a, f.se_a, 1e-6) && close(g.se_b, f.se_b, 1e-6));
        assert!(close(g.r_squared, f.r_squared, 1e-9));
    }

    #[test]
    fn scaling_x_scales_b() {
        let pts = [(1.0, 2.1), (2.0, 3.9), (3.0, 6.2), (4.0, 7.8), (5.0, 10.1), (6.0, 12.2)];
        let f = fit_linear(&pts).unwrap();
        let scaled: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| (x * 1024.0, y)).collect();
        let g = fit_linear(&scaled).unwrap();
        assert!(close(g.b, f.b / 1024.0, 1e-12));
        assert!(close(g.se_b, f.se_b / 1024.0, 1e-9));
        assert!(close(g.a, f.a, 1e-9));
        assert!(close(g.n_half(), f.n_half() * 1024.0, 1e-9));
        assert!(close(g.bandwidth_per_unit(), f.bandwidth_per_unit() * 1024.0, 1e-12));
        assert!(close(g.r_squared, f.r_squared, 1e-12));
    }

    #[test]
    fn repeated_x_and_max_rel_error_uses_per_x_means() {
        // Two repetitions per x, ±1 around 10 + x: the line is exact at the
        // per-x means, so max_rel_error is 0 although no point lies on it.
        let pts = [(1.0, 10.0), (1.0, 12.0), (2.0, 11.0), (2.0, 13.0), (3.0, 12.0), (3.0, 14.0)];
        let f = fit_linear(&pts).unwrap();
        assert!(close(f.a, 10.0, 1e-12) && close(f.b, 1.0, 1e-12), "{f:?}");
        assert!(f.max_rel_error < 1e-15, "{f:?}");
        // SSE = 6·1² → s = √(6/4).
        assert!(close(f.residual_stddev, 1.5f64.sqrt(), 1e-12));
    }

    #[test]
    fn curvature_is_detected() {
        // y = 1000 + x + 0.0002·x² ± 0.5, x = 0, 100, …, 1000, twice each.
        // The line misses by at most 3 % (python3: statistics.linear_regression
        // gives a = 970, b = 1.2; worst per-x miss 0.03), so the verdict is
        // Curved, not PoorRelError.
        let pts: Vec<(f64, f64)> = (0..=10)
            .flat_map(|i| {
                let x = f64::from(i) * 100.0;
                let y = 1000.0 + x + 0.0002 * x * x;
                [(x, y + 0.5), (x, y - 0.5)]
            })
            .collect();
        let f = fit_linear(&pts).unwrap();
        assert!(close(f.a, 970.0, 1e-9) && close(f.b, 1.2, 1e-9), "{f:?}");
        assert!(close(f.max_rel_error, 0.03, 1e-9), "{f:?}");
        let c = f.curvature.unwrap();
        assert!(close(c.quad_coef, 0.0002, 1e-9), "{c:?}");
        assert!(c.p_two_sided < 1e-10, "{c:?}");
        assert_eq!(f.fit_quality(), FitQuality::Curved);
        assert_eq!(f.fit_quality_with(0.01, 0.01), FitQuality::PoorRelError(f.max_rel_error));
    }

    #[test]
    fn errors() {
        assert_eq!(
            fit_linear(&[(1.0, 1.0), (2.0, 2.0)]),
            Err(FitError::TooFewPoints { n_points: 2 })
        );
        assert_eq!(
            fit_linear(&[(4.0, 1.0), (4.0, 2.0), (4.0, 3.0)]),
            Err(FitError::AllXEqual { x: 4.0 })
        );
        assert!(matches!(
            fit_linear(&[(1.0, 1.0), (2.0, f64::NAN), (3.0, 3.0)]),
            Err(FitError::NonFinite { index: 1, .. })
        ));
        // Three points, two distinct x: a fit, but no curvature test.
        let f = fit_linear(&[(1.0, 1.0), (1.0, 3.0), (2.0, 4.0)]).unwrap();
        assert!(f.curvature.is_none());
    }
}
