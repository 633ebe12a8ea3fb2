//! The realtime patterns: timer wake-up latency (cyclictest's measurement)
//! and cross-core wake-up latency through a blocking primitive (what
//! pmqtest, sigwaittest and friends measure, but across CPUs), and the
//! bounded load generators to run beside them.
//!
//! Each measuring thread is pinned, optionally SCHED_FIFO, and owns a
//! pre-sized histogram and raw-sample vector: nothing in a timed loop
//! allocates, formats or logs (ARCHITECTURE rule 7). Results come back as
//! [`CellResult`](icbench_model::CellResult)s; nothing here prints.

pub mod clockcheck;
pub mod irq;
pub mod load;
pub mod pmqos;
pub mod timer;
pub mod wakeup;

mod prim;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// A CLOCK_MONOTONIC instant as a `timespec`, with the arithmetic the timer
/// needs done on the whole value (seconds and nanoseconds), never on
/// `tv_nsec` alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ts {
    pub sec: i64,
    pub nsec: i64,
}

const NS_PER_S: i64 = 1_000_000_000;

impl Ts {
    /// Now on `clock` (`libc::CLOCK_MONOTONIC` for the timer).
    #[inline]
    pub fn now(clock: libc::clockid_t) -> Ts {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: valid pointer; the clock ids used here always exist on Linux.
        unsafe { libc::clock_gettime(clock, &mut ts) };
        // i64 here; libc's fields are 32 bits wide on 32-bit targets (armv7),
        // so the conversion is not useless everywhere.
        #[allow(clippy::useless_conversion)]
        let ts = Ts { sec: i64::from(ts.tv_sec), nsec: i64::from(ts.tv_nsec) };
        ts
    }

    /// `self + ns`, normalised so that 0 ≤ nsec < 10⁹.
    #[inline]
    pub fn add_ns(self, ns: u64) -> Ts {
        let total = self.nsec as i128 + ns as i128;
        Ts {
            sec: self.sec + (total / NS_PER_S as i128) as i64,
            nsec: (total % NS_PER_S as i128) as i64,
        }
    }

    /// `self − earlier` in ns (negative when `self` is earlier).
    #[inline]
    pub fn diff_ns(self, earlier: Ts) -> i64 {
        (self.sec - earlier.sec) * NS_PER_S + (self.nsec - earlier.nsec)
    }

    fn as_timespec(self) -> libc::timespec {
        // Narrowing on 32-bit targets: a monotonic clock is far from 2038,
        // and nsec is always below 10⁹. The field's own type, not
        // `libc::time_t`, which the libc crate deprecates on musl.
        libc::timespec { tv_sec: self.sec as _, tv_nsec: self.nsec as libc::c_long }
    }
}

/// Sleeps on `clock` until the absolute time `deadline`
/// (clock_nanosleep(2) with TIMER_ABSTIME), resuming after a signal.
#[inline]
pub fn sleep_until(clock: libc::clockid_t, deadline: Ts) {
    let ts = deadline.as_timespec();
    loop {
        // SAFETY: valid timespec; a null remainder is allowed with ABSTIME.
        let r =
            unsafe { libc::clock_nanosleep(clock, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
        if r != libc::EINTR {
            return;
        }
    }
}

/// Waits until `word` differs from `seen` or `timeout` passes; returns the
/// new value, or `None` on timeout. A futex wait (futex(2)) re-armed after
/// spurious returns; private to this process.
pub(crate) fn futex_wait_change(word: &AtomicU32, seen: u32, timeout: Duration) -> Option<u32> {
    let end = crate::clock::now_ns() + timeout.as_nanos() as u64;
    loop {
        let v = word.load(Ordering::Acquire);
        if v != seen {
            return Some(v);
        }
        let now = crate::clock::now_ns();
        if now >= end {
            return None;
        }
        let left = Duration::from_nanos((end - now).min(100_000_000));
        let ts = rustix::time::Timespec {
            tv_sec: left.as_secs() as _,
            tv_nsec: left.subsec_nanos() as _,
        };
        let _ = rustix::thread::futex::wait(
            word,
            rustix::thread::futex::Flags::PRIVATE,
            seen,
            Some(&ts),
        );
    }
}

/// Wakes one waiter on `word`.
#[inline]
pub(crate) fn futex_wake(word: &AtomicU32) {
    let _ = rustix::thread::futex::wake(word, rustix::thread::futex::Flags::PRIVATE, 1);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timespec_arithmetic_carries_across_seconds() {
        let t = Ts { sec: 5, nsec: 999_999_900 };
        let u = t.add_ns(250);
        assert_eq!(u, Ts { sec: 6, nsec: 150 });
        assert_eq!(u.diff_ns(t), 250);
        assert_eq!(t.diff_ns(u), -250);
        assert_eq!(t.add_ns(3_000_000_000), Ts { sec: 8, nsec: 999_999_900 });
    }
}
