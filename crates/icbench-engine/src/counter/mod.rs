//! The CPU's own fast counter — the TSC on x86_64, CNTVCT_EL0 on aarch64 —
//! and whether it can be trusted as a clock on this machine (issue 9).
//!
//! icbench times with CLOCK_MONOTONIC_RAW ([`crate::clock`]). A raw counter
//! read skips the vDSO's scaling, but a raw count means nothing until it is
//! shown to be a clock: [`probe`] calibrates its rate against MONOTONIC_RAW
//! over two 50 ms windows, then checks that the counter converted to ns
//! follows MONOTONIC_RAW over another 50 ms (largest deviation, drift in
//! ppm), that it never goes back on one CPU nor between the run's two CPUs
//! (the hand-over check of [`crate::rt::clockcheck`]), and what the kernel
//! says of it (CPU flags, current clocksource). Within the stated
//! [`calib::TOLERANCE`] it is trusted; otherwise the first failed check is
//! the recorded reason. The result goes into the run's metadata; the timed
//! loops do not use the counter (docs/method.md, "The fast counter").

mod arch;
pub mod calib;

use std::time::Duration;

use icbench_model::FastCounter;

pub use arch::{Counter, find};
use calib::{Evidence, Sample};

use crate::{clock, cpu, rt::clockcheck};

/// Length of each calibration window.
const WINDOW: Duration = Duration::from_millis(50);
/// Samples of the agreement check, and the pause between them (≈ 50 ms).
const CHECK_SAMPLES: usize = 100;
const CHECK_PAUSE: Duration = Duration::from_micros(500);
/// Tries per sample; the narrowest bracket is kept.
const TRIES: usize = 16;
/// Hand-overs between the two CPUs, and the bound on that check.
const HANDOVERS: u64 = 2_000;
const HANDOVER_TIMEOUT: Duration = Duration::from_secs(10);

/// One counter read between two clock reads: the narrowest of [`TRIES`].
fn sample(read: &impl Fn() -> u64, now: &impl Fn() -> u64) -> Sample {
    calib::narrowest((0..TRIES).map(|_| {
        let before_ns = now();
        let ticks = read();
        let after_ns = now();
        Sample { before_ns, ticks, after_ns }
    }))
    .expect("TRIES > 0")
}

/// Cost of one read, ns: the median over 15 batches of the mean time of
/// 1000 back-to-back reads (a counter ticking every 40 ns, as ARM's often
/// do, would show back-to-back gaps of 0 or 1 tick).
pub fn read_cost_ns(read: impl Fn() -> u64, now: impl Fn() -> u64) -> f64 {
    const BATCH: u64 = 1_000;
    let mut means: Vec<f64> = (0..15)
        .map(|_| {
            let t0 = now();
            for _ in 0..BATCH {
                std::hint::black_box(read());
            }
            now().saturating_sub(t0) as f64 / BATCH as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    means[means.len() / 2]
}

/// What measuring the counter gave, before it is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub evidence: Evidence,
    pub read_ns: f64,
}

/// Calibrates `read` against the clock on the calling thread, checks the
/// agreement, then bounces it between `host_cpu` and `peer_cpu`.
pub fn measure(
    read: fn() -> u64,
    declared_hz: Option<f64>,
    host_cpu: u32,
    peer_cpu: u32,
) -> Result<Measured, String> {
    let now = clock::now_ns;
    let s0 = sample(&read, &now);
    std::thread::sleep(WINDOW);
    let s1 = sample(&read, &now);
    std::thread::sleep(WINDOW);
    let s2 = sample(&read, &now);
    let cal = calib::calibrate([s0, s1, s2])?;
    let mut check = Vec::with_capacity(CHECK_SAMPLES);
    for _ in 0..CHECK_SAMPLES {
        check.push(sample(&read, &now));
        std::thread::sleep(CHECK_PAUSE);
    }
    let agreement = calib::agreement(&check, cal.hz)?;
    let read_ns = read_cost_ns(read, now);
    let h =
        clockcheck::check_common_reading(host_cpu, peer_cpu, HANDOVERS, HANDOVER_TIMEOUT, read)?;
    Ok(Measured {
        evidence: Evidence {
            cal,
            declared_hz,
            agreement,
            across_backwards: h.backwards,
            own_backwards: h.own_backwards,
        },
        read_ns,
    })
}

/// The record of a machine without a usable counter.
fn unavailable(reason: String) -> FastCounter {
    FastCounter {
        counter: None,
        hz: None,
        declared_hz: None,
        read_ns: None,
        trusted: false,
        reason,
        max_deviation_ns: None,
        drift_ppm: None,
    }
}

/// Finds this architecture's counter and examines it with the run's CPU
/// pair, on a thread pinned to `host_cpu`; reads the kernel's view from
/// /proc/cpuinfo and the current clocksource. Takes about 0.2 s.
pub fn probe(host_cpu: u32, peer_cpu: u32) -> FastCounter {
    let c = match arch::find() {
        Ok(c) => c,
        Err(reason) => return unavailable(reason),
    };
    let measured = std::thread::spawn(move || {
        cpu::pin_current_thread(host_cpu).map_err(|e| e.to_string())?;
        measure(c.read, c.declared_hz, host_cpu, peer_cpu)
    })
    .join()
    .unwrap_or_else(|_| Err("the counter check panicked".to_string()));
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let source =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .ok();
    let signals = calib::kernel_signals(c.name, &cpuinfo, source.as_deref().map(str::trim));
    record(&c, measured, signals)
}

/// The record of counter `c` from what was measured and the kernel's view.
pub fn record(
    c: &Counter,
    measured: Result<Measured, String>,
    signals: Result<(), String>,
) -> FastCounter {
    let m = match measured {
        Ok(m) => m,
        Err(why) => {
            return FastCounter {
                counter: Some(c.name.to_string()),
                declared_hz: c.declared_hz,
                reason: format!("not trusted: {why}"),
                ..unavailable(String::new())
            };
        }
    };
    let verdict = signals.and_then(|()| calib::judge(&m.evidence, &calib::TOLERANCE));
    let (trusted, reason) = match verdict {
        Ok(why) => (true, why),
        Err(why) => (false, format!("not trusted: {why}")),
    };
    let a = &m.evidence.agreement;
    FastCounter {
        counter: Some(c.name.to_string()),
        hz: Some(m.evidence.cal.hz),
        declared_hz: c.declared_hz,
        read_ns: Some(m.read_ns),
        trusted,
        reason,
        max_deviation_ns: Some(a.max_abs_dev_ns),
        drift_ppm: a.drift_ppm.is_finite().then_some(a.drift_ppm),
    }
}

#[cfg(test)]
mod tests;
