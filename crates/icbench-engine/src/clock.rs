//! The clock every interval is measured with: CLOCK_MONOTONIC_RAW, read
//! through the vDSO, as whole nanoseconds from full `timespec` arithmetic.
//!
//! MONOTONIC_RAW is not slewed by NTP, so an interval is not stretched or
//! shrunk while it is measured (clock_gettime(2)). Its read cost and its
//! granule — the step its readings move in, which `clock_getres` does not
//! tell (it says 1 ns where a VM's readings sat on a 10 ns grid, issue #15
//! item 4) — are measured and stored with every run (ARCHITECTURE rule 7).

use rustix::time::{ClockId, clock_gettime};

/// Name of the clock, as recorded with a run.
pub const CLOCK_NAME: &str = "CLOCK_MONOTONIC_RAW";

/// Current time on the measuring clock, ns since an arbitrary origin.
#[inline(always)]
pub fn now_ns() -> u64 {
    let ts = clock_gettime(ClockId::MonotonicRaw);
    (ts.tv_sec as u64).wrapping_mul(1_000_000_000).wrapping_add(ts.tv_nsec as u64)
}

/// Median cost of one clock read, ns: the median gap between back-to-back
/// reads over `pairs` pairs.
pub fn read_overhead_ns(pairs: usize) -> f64 {
    let mut gaps: Vec<u64> = (0..pairs.max(1))
        .map(|_| {
            let a = now_ns();
            let b = now_ns();
            b.saturating_sub(a)
        })
        .collect();
    gaps.sort_unstable();
    gaps[gaps.len() / 2] as f64
}

/// Pairs of reads [`granule_ns`] takes, with 0 … [`MAX_SPIN`] − 1 spins
/// between the two reads of a pair, so that the gaps cover many multiples
/// of the granule (back-to-back gaps alone — 20, 21, 30, 31 ns — would fit
/// a 10 ns grid and a 20 ns one alike). About 3 ms.
const GRANULE_PAIRS: usize = 6_000;
const MAX_SPIN: usize = 1_024;

/// The clock's granule, ns: the largest step that the gaps between its
/// readings are whole multiples of ([`granule_of`]); 1 when none is
/// coarser than a few ns.
pub fn granule_ns() -> f64 {
    let gaps: Vec<u64> = (0..GRANULE_PAIRS)
        .map(|i| {
            let a = now_ns();
            for k in 0..i % MAX_SPIN {
                std::hint::black_box(k);
            }
            now_ns().saturating_sub(a)
        })
        .collect();
    granule_of(&gaps)
}

/// Share of gaps that must sit on a candidate grid for it to be the
/// granule: the rest are a preemption or an interrupt inside a pair.
const ON_GRID: f64 = 0.98;
/// How far (ns) a gap may be from the grid: the ±1 ns of converting ticks
/// to whole ns (the 10 ns VM read 20, 21, 30, 31).
const GRID_SLACK_NS: f64 = 1.0;
/// Below this a grid is indistinguishable from 1 ns: every whole number is
/// within [`GRID_SLACK_NS`] of a multiple of 3.
const FINEST_GRID_NS: f64 = 4.0;

/// The granule of a clock from gaps between its readings: the largest
/// real g ≥ [`FINEST_GRID_NS`], no larger than the smallest non-zero gap
/// (+ the slack), such that [`ON_GRID`] of the gaps lie within
/// [`GRID_SLACK_NS`] of a multiple of g; else 1. The search steps down by
/// 0.05 % so that a 24 MHz counter's 41.67 ns is found to 0.1 %. Pure:
/// known-answer tests below.
pub fn granule_of(gaps: &[u64]) -> f64 {
    let mut distinct = std::collections::BTreeMap::<u64, usize>::new();
    for &g in gaps {
        *distinct.entry(g).or_default() += 1;
    }
    let Some(&smallest) = distinct.keys().find(|&&g| g > 0) else { return 1.0 };
    // A candidate fails as soon as more gaps are off it than allowed.
    let allowed_off = gaps.len() - (ON_GRID * gaps.len() as f64).ceil() as usize;
    let on_grid = |grid: f64| {
        let mut off = 0;
        for (&gap, &n) in &distinct {
            let gap = gap as f64;
            if (gap - (gap / grid).round() * grid).abs() > GRID_SLACK_NS {
                off += n;
                if off > allowed_off {
                    return false;
                }
            }
        }
        true
    };
    let mut grid = smallest as f64 + GRID_SLACK_NS;
    while grid >= FINEST_GRID_NS {
        if on_grid(grid) {
            return grid;
        }
        grid *= 1.0 - 0.0005;
    }
    1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gaps of a clock whose readings are `tick` ns apart (truncated to
    /// whole ns, as the kernel converts), for pairs `cost + spin` ns long.
    fn gaps_on(tick: f64, cost: f64, pairs: usize) -> Vec<u64> {
        let read = |t: f64| ((t / tick).floor() * tick).floor() as u64;
        (0..pairs)
            .map(|i| {
                // Start anywhere on the tick, end cost + a spin later.
                let start = 1e6 + (i as f64 * 7.31) % tick;
                let end = start + cost + (i % 1024) as f64 * 0.9;
                read(end) - read(start)
            })
            .collect()
    }

    #[test]
    fn a_10_ns_grid_is_found_although_back_to_back_reads_are_20_or_30_apart() {
        let gaps = gaps_on(10.0, 20.0, 6000);
        assert!(gaps.iter().take(5).all(|&g| (20..=31).contains(&g)), "{:?}", &gaps[..5]);
        let g = granule_of(&gaps);
        assert!((g - 10.0).abs() < 0.05, "{g}");
    }

    #[test]
    fn a_24_mhz_counter_reads_41_67_ns() {
        let g = granule_of(&gaps_on(1e9 / 24e6, 40.0, 6000));
        assert!((g / 41.6667 - 1.0).abs() < 0.002, "{g}");
    }

    #[test]
    fn a_clock_coarser_than_its_read_cost_counts_its_zero_gaps_on_the_grid() {
        let g = granule_of(&gaps_on(1000.0, 20.0, 6000));
        assert!((g / 1000.0 - 1.0).abs() < 0.002, "{g}");
    }

    #[test]
    fn a_one_ns_clock_and_two_percent_of_outliers_read_1_and_10() {
        let fine: Vec<u64> = (0..6000u64).map(|i| 16 + (i * 37) % 1000).collect();
        assert_eq!(granule_of(&fine), 1.0);
        let mut noisy = gaps_on(10.0, 20.0, 6000);
        for (i, g) in noisy.iter_mut().enumerate().filter(|(i, _)| i % 60 == 0) {
            *g = 12_345 + i as u64 * 7; // 1.7 % preempted pairs, off the grid
        }
        assert!((granule_of(&noisy) - 10.0).abs() < 0.05);
        assert_eq!(granule_of(&[]), 1.0);
        assert_eq!(granule_of(&[0, 0, 0]), 1.0);
    }

    #[test]
    fn this_machines_granule_is_between_1_ns_and_a_millisecond() {
        let g = granule_ns();
        assert!((1.0..1e6).contains(&g), "{g}");
    }

    #[test]
    fn the_clock_never_goes_back_and_advances_over_a_sleep() {
        let mut last = now_ns();
        for _ in 0..10_000 {
            let t = now_ns();
            assert!(t >= last);
            last = t;
        }
        let a = now_ns();
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert!(now_ns() - a >= 5_000_000);
    }

    #[test]
    fn read_overhead_is_positive_and_below_a_millisecond() {
        let o = read_overhead_ns(1000);
        assert!(o < 1e6, "{o}");
    }
}
