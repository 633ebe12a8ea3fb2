//! The clock every interval is measured with: CLOCK_MONOTONIC_RAW, read
//! through the vDSO, as whole nanoseconds from full `timespec` arithmetic.
//!
//! MONOTONIC_RAW is not slewed by NTP, so an interval is not stretched or
//! shrunk while it is measured (clock_gettime(2)). Its read cost is measured
//! and stored with every run (ARCHITECTURE rule 7).

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

#[cfg(test)]
mod tests {
    use super::*;

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
