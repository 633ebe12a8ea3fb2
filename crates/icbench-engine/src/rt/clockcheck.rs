//! Is the clock one clock across two CPUs? A one-way time is a difference
//! of two readings taken on two CPUs, so before trusting it icbench checks
//! that the clock never goes backwards between them: a value read on one
//! CPU is handed to the other, which reads the clock and must not see less,
//! and hands its reading back, many times (after the TSC checks of
//! core-to-core-latency and the kernel's tsc_sync). CLOCK_MONOTONIC_RAW is
//! meant to be monotonic system-wide; a machine with unsynchronised
//! counters fails here instead of producing negative latencies.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::{clock, cpu};

/// What the check saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockCheck {
    /// Hand-overs each way.
    pub rounds: u64,
    /// Hand-overs after which the receiving CPU read an earlier time than
    /// the one handed to it.
    pub backwards: u64,
    /// The largest such step back, ns.
    pub worst_backwards_ns: u64,
}

impl ClockCheck {
    pub fn ok(&self) -> bool {
        self.backwards == 0
    }
}

/// Bounces clock readings `rounds` times between CPUs `a` and `b`
/// (busy-waiting on one shared word; `timeout` bounds the whole check).
pub fn check_common_clock(
    a: u32,
    b: u32,
    rounds: u64,
    timeout: Duration,
) -> Result<ClockCheck, String> {
    let h = check_common_reading(a, b, rounds, timeout, clock::now_ns)?;
    Ok(ClockCheck {
        rounds: h.rounds,
        backwards: h.backwards,
        worst_backwards_ns: h.worst_backwards,
    })
}

/// What bouncing any reading between two CPUs saw, in the reading's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handover {
    /// Hand-overs each way.
    pub rounds: u64,
    /// Hand-overs after which the receiving CPU read less than it was handed.
    pub backwards: u64,
    /// The largest such step back.
    pub worst_backwards: u64,
    /// Reads smaller than the same CPU's previous read.
    pub own_backwards: u64,
}

/// The check of [`check_common_clock`] for any reading (the clock, or the
/// CPU's counter: [`crate::counter`]).
pub fn check_common_reading(
    a: u32,
    b: u32,
    rounds: u64,
    timeout: Duration,
    read: fn() -> u64,
) -> Result<Handover, String> {
    if a == b {
        // One CPU reads one counter: monotonic by definition of the clock.
        return Ok(Handover { rounds: 0, backwards: 0, worst_backwards: 0, own_backwards: 0 });
    }
    // Even values: a's turn is over and b may read (odd = b handed back).
    // The word holds the reading; the turn is a separate flag so that a
    // reading can take any value.
    struct Ball {
        value: AtomicU64,
        turn: AtomicU64,
        give_up: AtomicBool,
    }
    let ball = Arc::new(Ball {
        value: AtomicU64::new(0),
        turn: AtomicU64::new(0),
        give_up: AtomicBool::new(false),
    });
    let deadline = clock::now_ns() + timeout.as_nanos() as u64;
    let side = |me: u32, first: bool, ball: Arc<Ball>| {
        move || -> Result<(u64, u64, u64), String> {
            let (mut back, mut worst, mut own, mut last) = (0u64, 0u64, 0u64, 0u64);
            for r in 0..rounds {
                // Turn 2r: a sends; 2r+1: b answers.
                let my_turn = 2 * r + u64::from(!first);
                while ball.turn.load(Ordering::Acquire) != my_turn {
                    if ball.give_up.load(Ordering::Relaxed) {
                        return Err("the other CPU gave up".to_string());
                    }
                    if clock::now_ns() > deadline {
                        ball.give_up.store(true, Ordering::Relaxed);
                        return Err(format!(
                            "CPU {me} waited longer than {} s for the other CPU",
                            timeout.as_secs_f64()
                        ));
                    }
                    std::hint::spin_loop();
                }
                let seen = ball.value.load(Ordering::Acquire);
                let now = read();
                if my_turn > 0 && now < seen {
                    back += 1;
                    worst = worst.max(seen - now);
                }
                if r > 0 && now < last {
                    own += 1;
                }
                last = now;
                ball.value.store(now, Ordering::Release);
                ball.turn.store(my_turn + 1, Ordering::Release);
            }
            Ok((back, worst, own))
        }
    };
    // Each side returns once pinned: under SCHED_FIFO, a starts spinning
    // on its CPU, and b, created there, must have moved away first.
    let spawn = |me: u32, first: bool| {
        cpu::spawn_pinned("icbench-clockcheck", me, side(me, first, ball.clone()))
            .map_err(|e| format!("cannot start the clock check thread: {e}"))
    };
    let hb = spawn(b, false)?;
    let ha = spawn(a, true).inspect_err(|_| ball.give_up.store(true, Ordering::Relaxed))?;
    let joined = |h: std::thread::JoinHandle<Result<Result<_, String>, cpu::CpuError>>| {
        h.join()
            .map_err(|_| "clock check thread panicked".to_string())?
            .map_err(|e| e.to_string())?
    };
    let (ba, wa, oa) = joined(ha)?;
    let (bb, wb, ob) = joined(hb)?;
    Ok(Handover { rounds, backwards: ba + bb, worst_backwards: wa.max(wb), own_backwards: oa + ob })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::CpuList;

    #[test]
    fn the_clock_never_goes_back_between_two_cpus() {
        let cpus = CpuList::usable().cpus;
        if cpus.len() < 2 {
            eprintln!("skipped: one CPU only");
            return;
        }
        let c = check_common_clock(cpus[0], cpus[1], 2_000, Duration::from_secs(60)).unwrap();
        assert_eq!(c.rounds, 2_000);
        assert!(c.ok(), "{c:?}");
    }

    #[test]
    fn a_reading_that_goes_back_on_the_other_cpu_is_caught() {
        let cpus = CpuList::usable().cpus;
        if cpus.len() < 2 {
            eprintln!("skipped: one CPU only");
            return;
        }
        // A "counter" read alternately as the clock and the clock + 1 s:
        // the reads alternate between the CPUs, so one CPU always sees the
        // +1 s and the other steps back from it at each of its hand-overs,
        // while each CPU alone still climbs.
        fn skewed() -> u64 {
            static FLIP: AtomicU64 = AtomicU64::new(0);
            let odd = FLIP.fetch_add(1, Ordering::Relaxed) % 2;
            clock::now_ns() + odd * 1_000_000_000
        }
        let h =
            check_common_reading(cpus[0], cpus[1], 100, Duration::from_secs(60), skewed).unwrap();
        assert_eq!(h.rounds, 100);
        assert!(h.backwards >= 90, "{h:?}");
        assert!(h.worst_backwards >= 900_000_000, "{h:?}");
        assert_eq!(h.own_backwards, 0, "{h:?}");
        let h = check_common_reading(cpus[0], cpus[1], 100, Duration::from_secs(60), clock::now_ns)
            .unwrap();
        assert_eq!((h.backwards, h.own_backwards), (0, 0), "{h:?}");
    }

    #[test]
    fn one_cpu_is_trivially_one_clock() {
        let c = check_common_clock(0, 0, 10, Duration::from_secs(1)).unwrap();
        assert!(c.ok());
    }
}
