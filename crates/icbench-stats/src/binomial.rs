//! `P(Bin(n, ½) ≤ k) ≤ 0.025`, the test behind the median's ranks, right
//! and in bounded time for every n a 64-bit count allows (#35).
//!
//! statrs 0.19.1's `Binomial::cdf` goes through the regularized incomplete
//! beta function, whose continued fraction stops after 140 terms converged
//! or not. At the 2.5 % point (k = ⌊n/2 − 1.96·√n/2⌋) against exact sums
//! (mpmath, 40 digits) and, above 10⁸, the expansion below:
//!
//! | n | statrs' relative error |
//! |---|---|
//! | 10 … 10³ | ≤ 3·10⁻¹³ |
//! | 10⁴ / 10⁵ / 10⁶ | 10⁻¹¹ / 2·10⁻¹⁰ / 6·10⁻¹⁰ |
//! | 10⁷ / 10⁸ / 10⁹ / 10¹⁰ | 2·10⁻⁸ / 3·10⁻⁸ / 4·10⁻⁶ / 2·10⁻⁵ |
//! | 10¹² / 10¹³ / 10¹⁴ / 10¹⁵ | 7·10⁻⁴ / 0.02 / 0.2 / 9 |
//! | 10¹⁶ … 2⁶² | 3·10⁸ … ∞ (not a probability) |
//!
//! Each evaluation returns (in microseconds): the fault is the value, not
//! the time. Below [`EXACT_MAX_N`] statrs is used; from it on the Edgeworth
//! expansion of a lattice distribution with the continuity correction
//! (Feller, *An Introduction to Probability Theory and Its Applications*,
//! vol. II, 2nd ed., 1971, ch. XVI; Bin(n, ½) has no skew, excess kurtosis
//! −2/n, span 1, variance n/4): with x = (k + ½ − n/2)/(√n/2),
//!
//! ```text
//! P(Bin(n, ½) ≤ k) = Φ(x) + φ(x)·((x³ − 3x)/12 + x/6)/n + O(n⁻²)
//! ```
//!
//! (the kurtosis term and Sheppard's), which against exact sums is off by
//! 1.6·10⁻¹²/1.6·10⁻¹⁴/1.6·10⁻¹⁶ at n = 10⁵/10⁶/10⁷ (so ~1.6·10⁻⁴/n²).
//! x − ½ is formed in integers, so it is exact at any n. Near the 2.5 %
//! point Φ(x) − 0.025 is the integral of φ from −z₀.₉₇₅ by its power series,
//! since statrs' `erfc` is off by up to 10⁻¹⁰ relative (see
//! [`tdist`](crate::tdist)), which at n ≈ 10¹⁹ is a tenth of one rank's
//! step. Checked: the ranks of [`median_ci95_ranks`](crate::median_ci95_ranks)
//! equal the exact ranks (mpmath sums) for n = 10⁵ ± 1, 123 457, 10⁶, 10⁷,
//! 10⁸, and mpmath's 60-digit ranks from the expansion for n = 10⁹ … 2⁶⁴ − 1.

use statrs::distribution::{Binomial, DiscreteCDF};
use statrs::function::erf::erfc;

use crate::tdist::Z_975;

/// Below this n statrs' binomial CDF is used (≤ 2·10⁻¹⁰ off there).
pub(crate) const EXACT_MAX_N: u64 = 100_000;

/// φ(−z₀.₉₇₅) (mpmath).
const PHI_AT_Z: f64 = 0.058_445_069_805_035_38;

/// Whether `P(Bin(n, ½) ≤ k) ≤ 0.025` (k < n).
pub(crate) fn half_cdf_at_most_0025(n: u64, k: u64) -> bool {
    if n < EXACT_MAX_N {
        let bin = Binomial::new(0.5, n).expect("p = 0.5 is a valid binomial");
        return bin.cdf(k) <= 0.025;
    }
    half_cdf_minus_0025(n, k) <= 0.0
}

/// `P(Bin(n, ½) ≤ k) − 0.025` by the Edgeworth expansion (n ≥ 10⁵).
fn half_cdf_minus_0025(n: u64, k: u64) -> f64 {
    let nf = n as f64;
    // 2k + 1 − n is exact in i128, and well inside f64's integers near the
    // 2.5 % point (|·| ≈ 1.96·√n ≤ 8.5·10⁹).
    let x = (2 * i128::from(k) + 1 - i128::from(n)) as f64 / nf.sqrt();
    let phi = (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let correction = phi * ((x * x * x - 3.0 * x) / 12.0 + x / 6.0) / nf;
    let h = x + Z_975;
    let normal = if h.abs() <= 0.5 {
        series_from_z(h)
    } else {
        0.5 * erfc(-x / std::f64::consts::SQRT_2) - 0.025
    };
    normal + correction
}

/// Φ(−z + h) − 0.025 for |h| ≤ ½. Φ(−z) is 0.025 to 1.1·10⁻¹⁷ (mpmath), and
/// `∫₀ʰ φ(−z + t) dt = φ(−z)·∫₀ʰ e^{zt − t²/2} dt` with `e^{zt − t²/2} = Σ cⱼtʲ`,
/// c₀ = 1, c₁ = z, (j + 1)·c_{j+1} = z·cⱼ − c_{j−1} (it solves g′ = (z − t)·g).
/// 40 terms: the 40th is below 10⁻²⁰ at |h| = ½.
fn series_from_z(h: f64) -> f64 {
    let (mut c_prev, mut c) = (0.0, 1.0);
    let (mut hp, mut sum) = (h, 0.0);
    for j in 0..40 {
        sum += c * hp / f64::from(j + 1);
        let next = (Z_975 * c - c_prev) / f64::from(j + 1);
        (c_prev, c) = (c, next);
        hp *= h;
    }
    PHI_AT_Z * sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expansion_matches_exact_sums() {
        // mpmath: Σ_{i ≤ k} C(n, i)/2ⁿ, 50 digits.
        for (n, k, want) in [
            (100_000u64, 49_690u64, 0.025_147_028_677_331_814),
            (1_000_000, 499_020, 0.025_056_366_266_393_12),
            (10_000_000, 4_996_901, 0.025_017_566_287_555_064),
            (100_000_000, 49_990_200, 0.025_003_739_544_160_02),
        ] {
            let got = half_cdf_minus_0025(n, k) + 0.025;
            assert!(((got - want) / want).abs() < 1e-10, "n {n}: {got} vs {want}");
        }
    }

    #[test]
    fn the_series_matches_mpmath_and_erfc() {
        // mpmath, 40 digits: Φ(−z + h) − 0.025.
        for (h, want) in [
            (-0.5, -0.018_052_452_055_283_63),
            (-0.01, -5.787_508_242_470_338e-4),
            (1e-9, 5.844_508_073_847_852e-11),
            (0.5, 0.047_149_986_215_880_146),
        ] {
            let got = series_from_z(h);
            // Φ(−z) − 0.025 = 1.1·10⁻¹⁷ is the floor.
            assert!((got - want).abs() < 2e-17 + want.abs() * 1e-14, "h {h}: {got} vs {want}");
            let via_erfc = 0.5 * erfc((Z_975 - h) / std::f64::consts::SQRT_2) - 0.025;
            assert!((got - via_erfc).abs() < 1e-11, "h {h}: {got} vs erfc {via_erfc}");
        }
    }
}
