//! Student's t — its 0.975 quantile and its upper tail — right and in
//! bounded time for every degree of freedom a 64-bit count allows (#35).
//!
//! statrs 0.19.1 computes both through the regularized incomplete beta
//! function, whose continued fraction stops after 140 terms whether or not
//! it has converged; its inverse is a Newton loop with no bound. Measured
//! against mpmath (python3, `betainc` at 40 digits):
//!
//! | statrs 0.19.1, `StudentsT::new(0, 1, df)` | df | relative error |
//! |---|---|---|
//! | `inverse_cdf(0.975)` | 0.05 … 0.15 | ~1 (6·10⁷ for 1.7·10¹² at df 0.1) |
//! | | 0.2 / 0.25 | 5·10⁻⁹ / 2·10⁻¹² |
//! | | 0.3 … 1.8·10⁴ | ≤ 5·10⁻¹³ |
//! | | 3.2·10⁴ … 5.6·10⁵ | 10⁻⁷ … 5·10⁻⁶ |
//! | | 10⁶ / 3.2·10⁶ / 10⁷ | 6·10⁻⁵ / 3·10⁻³ / 0.07 |
//! | | ≥ 1.8·10⁷ | does not return (> 3 s, spins) |
//! | `sf(t)`, t ∈ [0.5, 40] | 1 … 10³ | ≤ 4·10⁻¹³ |
//! | | 10⁴ … 10⁸ | ≤ 4·10⁻⁸ (and 0 for p ≈ 10⁻³⁰⁰) |
//! | | 10¹⁰ / 10¹² / 10¹⁵ | 10⁻⁶ / 5·10⁻³ / 2 |
//!
//! So statrs is used where it is right — `inverse_cdf` for
//! 0.3 ≤ df < [`EXACT_MAX_DF`], `sf` for df < [`EXACT_MAX_DF`] — and
//! closed forms elsewhere, each checked against mpmath in the tests below
//! (every evaluation is a fixed number of operations):
//!
//! | what | where | form | checked error |
//! |---|---|---|---|
//! | t₀.₉₇₅ | df ≥ 10³ | A&S 26.7.5, terms to ν⁻⁴ | ≤ 4·10⁻¹⁶ at 10³, less above |
//! | t₀.₉₇₅ | 0 < df < 0.3 | tail series of I_x(ν/2, ½) to O(x) | ≤ 10⁻¹² |
//! | P(T > t) | df ≥ 10³ | Hill (1970), ACM Alg. 395 | ≤ 4·10⁻⁸ for t ≤ 35 (p ≥ 10⁻²⁰⁰), ≤ 10⁻¹³ for t ≤ 10, plus erfc's 10⁻¹⁰ |
//!
//! statrs 0.19.1's `erfc` (used here, in `binomial` away from the 2.5 %
//! point, and for the Mann–Whitney p) is off by up to 10⁻¹⁰ relative for
//! x ∈ [0.5, 26] against mpmath — well inside 10⁻⁶ — and underflows to a
//! denormal or 0 past x ≈ 26.5, where p < 10⁻³⁰⁰.
//!
//! df ≤ 0 or NaN has no t distribution: the quantile and the tail are NaN.
//! df = +∞ is the normal distribution.

use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::function::erf::erfc;
use statrs::function::gamma::ln_gamma;

/// Below this df statrs is used (where it was measured right); at and above
/// it the closed forms.
pub(crate) const EXACT_MAX_DF: f64 = 1000.0;

/// The standard normal's 0.975 quantile, z₀.₉₇₅ (mpmath, 40 digits:
/// 1.959963984540054235524594430520551527955).
pub(crate) const Z_975: f64 = 1.959_963_984_540_054;

/// The 0.975 quantile of Student's t with `df` degrees of freedom.
///
/// NaN for df NaN or ≤ 0; z₀.₉₇₅ for df = ∞; +∞ where the quantile is past
/// f64's range (df ≲ 0.007).
pub(crate) fn t_975(df: f64) -> f64 {
    if df.is_nan() || df <= 0.0 {
        f64::NAN
    } else if df >= EXACT_MAX_DF {
        t_975_large_df(df)
    } else if df < 0.3 {
        t_975_small_df(df)
    } else {
        StudentsT::new(0.0, 1.0, df).expect("df > 0 is a valid Student's t").inverse_cdf(0.975)
    }
}

/// Abramowitz & Stegun, *Handbook of Mathematical Functions* (1964), 26.7.5:
/// the quantile of t in powers of 1/ν about the normal quantile z,
///
/// ```text
/// t ≈ z + g₁/ν + g₂/ν² + g₃/ν³ + g₄/ν⁴
/// g₁ = (z³ + z)/4
/// g₂ = (5z⁵ + 16z³ + 3z)/96
/// g₃ = (3z⁷ + 19z⁵ + 17z³ − 15z)/384
/// g₄ = (79z⁹ + 776z⁷ + 1482z⁵ − 1920z³ − 945z)/92160
/// ```
///
/// At ν = 10³ the next term is below 10⁻¹⁵ of t; for ν = ∞ it is z.
fn t_975_large_df(nu: f64) -> f64 {
    let z = Z_975;
    let z2 = z * z;
    let g1 = (z2 + 1.0) * z / 4.0;
    let g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
    let g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
    let g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
    let u = 1.0 / nu;
    z + u * (g1 + u * (g2 + u * (g3 + u * g4)))
}

/// For small ν the quantile is huge and x = ν/(ν + t²) tiny, where
/// `P(T > t) = ½·I_x(a, ½) = ½·x^a·(1 − x)^½/(a·B(a, ½))·(1 + (a + ½)/(a + 1)·x + O(x²))`,
/// a = ν/2 (A&S 26.5.4 and 26.7.1; the series of ₂F₁(a + ½, 1; a + 1; x)).
/// `½·I = 0.025` is solved for x by fixed point from the leading term
/// (`ln x = (ln 0.05 + ln a + ln B(a, ½))/a`), and t = √(ν(1 − x)/x). Below
/// ν = 0.3 x is under 10⁻⁸, so the dropped O(x²) is below 10⁻¹⁶.
fn t_975_small_df(nu: f64) -> f64 {
    let a = nu / 2.0;
    let ln_b = ln_gamma(a) + ln_gamma(0.5) - ln_gamma(a + 0.5);
    let lead = 0.05f64.ln() + a.ln() + ln_b;
    let mut ln_x = lead / a;
    for _ in 0..2 {
        let x = ln_x.exp();
        ln_x = (lead - 0.5 * (-x).ln_1p() - ((a + 0.5) / (a + 1.0) * x).ln_1p()) / a;
    }
    let x = ln_x.exp();
    // √(ν(1 − x)/x), in logs: x underflows for ν ≲ 0.007, where t is past f64.
    ((nu * (-x).ln_1p().exp()).ln() / 2.0 - ln_x / 2.0).exp()
}

/// `P(T > t)` for Student's t with `df` degrees of freedom.
///
/// NaN for df NaN or ≤ 0 or t NaN; the normal tail for df = ∞.
pub(crate) fn t_sf(t: f64, df: f64) -> f64 {
    if df.is_nan() || df <= 0.0 || t.is_nan() {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 0.0 } else { 1.0 };
    }
    if df < EXACT_MAX_DF {
        return StudentsT::new(0.0, 1.0, df).expect("df > 0 is a valid Student's t").sf(t);
    }
    if t < 0.0 {
        return 1.0 - t_sf_hill(-t, df);
    }
    t_sf_hill(t, df)
}

/// Two-sided p of a t statistic, `min(2·P(T > |t|), 1)`.
pub(crate) fn t_p_two_sided(t: f64, df: f64) -> f64 {
    (2.0 * t_sf(t.abs(), df)).min(1.0)
}

/// G. W. Hill, "Algorithm 395: Student's t-distribution", *Comm. ACM*
/// 13(10), 1970, 617–619: the normalising transformation
/// `z² = (ν − ½)·ln(1 + t²/ν)` with Hill's correction in powers of
/// 1/(48(ν − ½)²), then the normal tail. t ≥ 0, ν ≥ [`EXACT_MAX_DF`].
fn t_sf_hill(t: f64, nu: f64) -> f64 {
    let a = nu - 0.5;
    let b = 48.0 * a * a;
    let y = a * (t * t / nu).ln_1p();
    let z = (((((-0.4 * y - 3.3) * y - 24.0) * y - 85.5) / (0.8 * y * y + 100.0 + b) + y + 3.0)
        / b
        + 1.0)
        * y.sqrt();
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        if a == b { 0.0 } else { ((a - b) / b).abs() }
    }

    /// mpmath (python3, 40 digits): the root of ½·I_{ν/(ν+t²)}(ν/2, ½) =
    /// 0.025 (`betainc(..., regularized=True)` and `findroot`; for ν < 0.25
    /// bisection on ln t).
    const T_975: [(f64, f64); 24] = [
        (0.05, 1.195_833_758_547_536_8e25),
        (0.1, 1_682_362_288_745.025_5),
        (0.2, 768_848.479_701_228_6),
        (0.25, 43_640.149_267_980_47),
        (0.5, 164.557_673_480_488_53),
        (1.0, 12.706_204_736_174_705),
        (2.0, 4.302_652_729_749_464),
        (3.0, 3.182_446_305_283_709_6),
        (10.0, 2.228_138_851_986_275),
        (24.9, 2.059_958_032_459_834_7),
        (30.0, 2.042_272_456_301_238),
        (100.0, 1.983_971_518_523_552_3),
        (999.0, 1.962_341_461_133_45),
        (1000.0, 1.962_339_080_826_408_5),
        (1001.0, 1.962_336_705_280_88),
        (1e4, 1.960_201_239_890_626_3),
        (1e5, 1.959_987_707_534_609_6),
        (1e6, 1.959_966_356_814_107),
        (1e7, 1.959_964_221_767_205_5),
        (3e7, 1.959_964_063_615_765),
        (1e8, 1.959_964_008_262_766_8),
        (1e12, 1.959_963_984_542_426_5),
        (1e15, 1.959_963_984_540_056_6),
        (f64::INFINITY, Z_975),
    ];

    #[test]
    fn t_975_known_answers_for_every_df() {
        for (df, want) in T_975 {
            let got = t_975(df);
            assert!(rel(got, want) < 1e-12, "df {df}: {got} vs {want}");
        }
        // u64::MAX samples, and the largest f64.
        assert_eq!(t_975(u64::MAX as f64), Z_975);
        assert_eq!(t_975(f64::MAX), Z_975);
        // Past f64's range, not a wrong finite figure.
        assert_eq!(t_975(1e-3), f64::INFINITY);
        for bad in [0.0, -1.0, f64::NAN, f64::NEG_INFINITY] {
            assert!(t_975(bad).is_nan(), "df {bad}");
        }
    }

    #[test]
    fn t_975_is_continuous_and_decreasing_across_the_seams() {
        for seam in [0.3, EXACT_MAX_DF] {
            let (below, at) = (t_975(seam * (1.0 - 1e-12)), t_975(seam));
            // statrs is within 5·10⁻¹³ of the truth below the seam; so is the order.
            assert!(rel(below, at) < 1e-11 && below >= at * (1.0 - 1e-12), "{seam}: {below} {at}");
        }
        let mut prev = f64::INFINITY;
        for k in 0..=64 {
            let t = t_975(2f64.powi(k));
            assert!(t <= prev, "2^{k}: {t} > {prev}");
            prev = t;
        }
    }

    /// `P(T > t)` by mpmath (`betainc`, 40 digits).
    const T_SF: [(f64, [f64; 4]); 10] = [
        (
            1.0,
            [
                0.352_416_382_349_566_7,
                0.150_171_445_888_016_57,
                0.062_832_958_189_001_18,
                0.010_606_402_405_535_423,
            ],
        ),
        (
            2.5,
            [
                0.328_848_959_934_857_34,
                0.081_473_782_236_407,
                0.011_725_594_985_430_924,
                1.455_323_545_786_977e-4,
            ],
        ),
        (
            10.0,
            [
                0.313_946_802_871_486_47,
                0.039_218_120_123_849_856,
                2.686_668_013_782_263e-4,
                1.980_896_171_015_662e-11,
            ],
        ),
        (
            100.0,
            [
                0.309_086_782_915_443_3,
                0.026_389_450_683_114_833,
                1.225_086_706_751_900_2e-6,
                4.190_166_279_344_146e-52,
            ],
        ),
        (
            999.0,
            [
                0.308_592_595_465_144_7,
                0.025_136_731_366_905_023,
                3.384_180_947_900_548_6e-7,
                8.364_136_065_585_923e-142,
            ],
        ),
        (
            1000.0,
            [
                0.308_592_540_416_937_4,
                0.025_136_592_477_874_36,
                3.383_628_182_324_315e-7,
                7.687_343_722_021_741e-142,
            ],
        ),
        (
            1e5,
            [
                0.308_538_088_827_209,
                0.024_999_281_597_150_82,
                2.871_350_839_320_836_4e-7,
                3.689_268_436_111_117e-197,
            ],
        ),
        (
            1e8,
            [
                0.308_537_539_276_089,
                0.024_997_896_534_664_054,
                2.866_520_550_633_643e-7,
                4.916_682_142_941_633e-198,
            ],
        ),
        (
            1e12,
            [
                0.308_537_538_726_041_9,
                0.024_997_895_148_359_08,
                2.866_515_719_275_123e-7,
                4.906_714_922_964_663e-198,
            ],
        ),
        (
            18_446_744_073_709_551_615.0,
            [
                0.308_537_538_725_986_9,
                0.024_997_895_148_220_436,
                2.866_515_718_791_939e-7,
                4.906_713_927_148_241e-198,
            ],
        ),
    ];

    #[test]
    fn t_sf_known_answers_for_every_df() {
        for (df, wants) in T_SF {
            for (t, want) in [0.5, 1.96, 5.0, 30.0].into_iter().zip(wants) {
                let got = t_sf(t, df);
                let tol = 1e-7;
                assert!(rel(got, want) < tol, "df {df}, t {t}: {got} vs {want}");
                let (lo, want_lo) = (t_sf(-t, df), 1.0 - want);
                assert!(rel(lo, want_lo) < 1e-9, "df {df}, t −{t}: {lo} vs {want_lo}");
            }
        }
        assert_eq!(t_sf(0.0, 1e9), 0.5);
        assert_eq!(t_sf(f64::INFINITY, 1e9), 0.0);
        assert_eq!(t_sf(f64::NEG_INFINITY, 1e9), 1.0);
        assert!(
            t_sf(f64::NAN, 1e9).is_nan() && t_sf(1.0, 0.0).is_nan() && t_sf(1.0, f64::NAN).is_nan()
        );
        assert_eq!(t_p_two_sided(0.0, 5.0), 1.0);
        assert!(rel(t_p_two_sided(-1.96, 1e8), 2.0 * 0.024_997_896_534_664_054) < 1e-9);
    }
}
