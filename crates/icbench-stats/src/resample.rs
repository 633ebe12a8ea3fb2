//! The random stream behind every bootstrap, fixed so that a recorded seed
//! reproduces a result on any machine and with any later build.
//!
//! rand's `StdRng` does not promise the same stream across rand versions,
//! and rand's range sampling may change between versions too. So the stream
//! is pinned here: the `u64` seed is expanded by SplitMix64 (Steele, Lea &
//! Flood 2014) into the 128-bit state of PCG-64-MCG (`rand_pcg::Pcg64Mcg`,
//! O'Neill 2014, whose output the rand_pcg crate keeps value-stable), and
//! indices are drawn by Lemire's unbiased multiply-and-reject method
//! (Lemire 2019, "Fast Random Integer Generation in an Interval").

use rand::Rng;
use rand_pcg::Pcg64Mcg;

/// Names the bootstrap random stream; store it next to a bootstrap's seed.
/// It changes whenever the stream for a given seed would change.
pub const BOOTSTRAP_GENERATOR: &str = "pcg64mcg(splitmix64 seed)+lemire-u64/v1";

/// A generator for one bootstrap (or one plan's order: `icbench-plan`
/// shuffles with it), determined by `seed` alone.
#[derive(Debug)]
pub struct Resampler {
    rng: Pcg64Mcg,
}

impl Resampler {
    /// The stream for `seed`.
    pub fn new(seed: u64) -> Resampler {
        let mut sm = seed;
        let hi = splitmix64(&mut sm);
        let lo = splitmix64(&mut sm);
        // Not Pcg64Mcg::seed_from_u64: rand_core does not promise that
        // expansion stays the same. Pcg64Mcg::new forces the low bit to 1.
        Resampler { rng: Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo)) }
    }

    /// A uniform index in `0..n`. Needs `n >= 1`.
    pub fn index_below(&mut self, n: usize) -> usize {
        debug_assert!(n >= 1);
        let n = n as u64;
        // Lemire: take the high word of x·n; reject the few x whose low word
        // falls in the biased zone.
        let mut m = u128::from(self.rng.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.rng.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as usize
    }

    /// Fills `out` with a resample of `src` (drawn with replacement).
    pub(crate) fn resample_into(&mut self, src: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.extend((0..src.len()).map(|_| src[self.index_below(src.len())]));
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Median of `v` in place (reorders it), type 7. Needs a non-empty, finite
/// slice. O(n).
pub(crate) fn median_in_place(v: &mut [f64]) -> f64 {
    let n = v.len();
    debug_assert!(n >= 1);
    let (_, &mut upper, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        upper
    } else {
        // The lower middle is the largest of the values left of n/2.
        let lower = v[..n / 2].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        lower + (upper - lower) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_values() {
        // First outputs of SplitMix64 seeded with 1234567, from the
        // reference C code (Vigna, prng.di.unimi.it/splitmix64.c); the same
        // values are in the rand_xoshiro test suite.
        let mut s = 1234567u64;
        let want = [
            6457827717110365317u64,
            3203168211198807973,
            9817491932198370423,
            4593380528125082431,
            16408922859458223821,
        ];
        for w in want {
            assert_eq!(splitmix64(&mut s), w);
        }
    }

    #[test]
    fn stream_is_pinned() {
        // Golden values from an independent python3 implementation of
        // SplitMix64 → PCG-64-MCG (XSL-RR, multiplier
        // 0x2360ED051FC65DA44385DF649FCCF645) → Lemire. If this fails, the
        // stream behind BOOTSTRAP_GENERATOR changed: bump its version.
        let mut r = Resampler::new(0);
        let first: Vec<usize> = (0..10).map(|_| r.index_below(1000)).collect();
        assert_eq!(first, [596, 353, 784, 379, 89, 5, 327, 29, 861, 359]);
        let mut r = Resampler::new(42);
        let first: Vec<usize> = (0..10).map(|_| r.index_below(1000)).collect();
        assert_eq!(first, [514, 13, 570, 704, 379, 666, 983, 886, 795, 165]);
    }

    #[test]
    fn same_seed_same_stream_and_indices_in_range() {
        let mut a = Resampler::new(42);
        let mut b = Resampler::new(42);
        let mut c = Resampler::new(43);
        let xs: Vec<usize> = (0..100).map(|_| a.index_below(7)).collect();
        let ys: Vec<usize> = (0..100).map(|_| b.index_below(7)).collect();
        let zs: Vec<usize> = (0..100).map(|_| c.index_below(7)).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        assert!(xs.iter().all(|&i| i < 7));
        // Every index shows up in 100 draws from 7 (fails with p ≈ 7·(6/7)^100 ≈ 1e-6
        // for a fair generator; this stream is fixed, so it is deterministic).
        for k in 0..7 {
            assert!(xs.contains(&k));
        }
    }

    #[test]
    fn median_in_place_matches_type7() {
        assert_eq!(median_in_place(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median_in_place(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median_in_place(&mut [5.0]), 5.0);
    }
}
