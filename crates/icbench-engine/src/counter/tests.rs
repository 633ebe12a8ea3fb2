//! The probe on this machine's counter (trusted, or a reason), and on
//! synthetic counters built from the clock, whose right answers are known.

use std::sync::OnceLock;

use super::*;
use crate::cpu::CpuList;

fn pair() -> (u32, u32) {
    let cpus = CpuList::usable().cpus;
    (cpus[0], *cpus.get(1).unwrap_or(&cpus[0]))
}

#[test]
fn this_machines_counter_is_trusted_within_tolerance_or_a_reason_is_recorded() {
    let (a, b) = pair();
    let f = probe(a, b);
    eprintln!("fast counter on CPUs {a},{b}: {f:?}");
    assert!(!f.reason.is_empty());
    if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        assert!(f.counter.is_some(), "{f:?}");
    }
    if cfg!(target_arch = "arm") {
        // Readable where the kernel set PL0VCTEN (the rig's armv7 guest);
        // otherwise the probe process's signal is the reason.
        match f.counter.as_deref() {
            Some(name) => assert_eq!(name, "cntvct", "{f:?}"),
            None => assert!(f.reason.contains("CNTVCT"), "{}", f.reason),
        }
    }
    if cfg!(target_arch = "aarch64") {
        assert_eq!(f.counter.as_deref(), Some("cntvct_el0"));
        assert!(f.declared_hz.is_some_and(|hz| hz > 0.0), "CNTFRQ_EL0 read: {f:?}");
    }
    if f.counter.is_none() {
        assert!(!f.trusted);
        assert_eq!((f.hz, f.read_ns, f.max_deviation_ns), (None, None, None));
        return;
    }
    if f.trusted {
        let t = &calib::TOLERANCE;
        assert!(f.reason.starts_with("agrees with CLOCK_MONOTONIC_RAW"), "{}", f.reason);
        assert!(f.hz.is_some_and(|hz| hz.is_finite() && hz > 0.0), "{f:?}");
        assert!(f.read_ns.is_some_and(|ns| ns.is_finite() && ns >= 0.0), "{f:?}");
        assert!(f.max_deviation_ns.is_some_and(|d| d <= t.max_dev_ns), "{f:?}");
        assert!(f.drift_ppm.is_some_and(|d| d.abs() <= t.drift_ppm), "{f:?}");
    } else {
        assert!(f.reason.starts_with("not trusted: "), "{}", f.reason);
    }
}

/// A 3 GHz "counter": the clock × 3.
fn three_ghz() -> u64 {
    clock::now_ns() * 3
}

#[test]
fn a_counter_that_is_the_clock_scaled_is_calibrated_and_trusted() {
    let (a, b) = pair();
    let c = Counter { name: "tsc", read: three_ghz, declared_hz: Some(3e9) };
    let m = measure(c.read, c.declared_hz, a, b).unwrap();
    // The rate is exact up to the brackets' width over 100 ms.
    assert!((m.evidence.cal.hz / 3e9 - 1.0).abs() < 0.01, "{m:?}");
    assert_eq!(m.evidence.agreement.backwards, 0);
    assert_eq!((m.evidence.across_backwards, m.evidence.own_backwards), (0, 0));
    let f = record(&c, Ok(m), Ok(()));
    assert!(f.trusted, "{f:?}");
    assert_eq!(f.counter.as_deref(), Some("tsc"));
    // With the kernel's word against it, the same counter is not trusted.
    let f = record(&c, Ok(m), Err("the CPU flag nonstop_tsc is missing".into()));
    assert!(!f.trusted);
    assert_eq!(f.reason, "not trusted: the CPU flag nonstop_tsc is missing");
    assert_eq!(f.hz, Some(m.evidence.cal.hz), "the measurement is kept");
}

/// The clock until 100 ms after its first read, then 1000 ppm fast: a
/// counter whose rate changes after the calibration (as a TSC without
/// constant_tsc does when the core's frequency moves).
fn speeds_up() -> u64 {
    static START: OnceLock<u64> = OnceLock::new();
    let now = clock::now_ns();
    let switch = *START.get_or_init(|| now) + 100_000_000;
    now + now.saturating_sub(switch) / 1_000
}

#[test]
fn a_counter_that_changes_rate_is_not_trusted() {
    let (a, b) = pair();
    let c = Counter { name: "tsc", read: speeds_up, declared_hz: None };
    let m = measure(c.read, None, a, b).unwrap();
    let f = record(&c, Ok(m), Ok(()));
    assert!(!f.trusted, "{f:?}");
    // Sleeps never end early, so the change falls after the first window:
    // it shows in the second window, the check's drift, or both.
    assert!(f.reason.contains("calibration windows") || f.reason.contains("drifts"), "{f:?}");
}

#[test]
fn a_failed_measurement_is_recorded_with_its_reason() {
    let c = Counter { name: "cntvct_el0", read: three_ghz, declared_hz: Some(24e6) };
    let f = record(&c, Err("CPU 7 waited longer than 10 s for the other CPU".into()), Ok(()));
    assert!(!f.trusted);
    assert_eq!(f.reason, "not trusted: CPU 7 waited longer than 10 s for the other CPU");
    assert_eq!((f.counter.as_deref(), f.declared_hz, f.hz), (Some("cntvct_el0"), Some(24e6), None));
}

#[test]
fn read_cost_is_the_median_batch_mean() {
    // A clock that advances 5 ns per read, read by nothing else.
    use std::cell::Cell;
    let t = Cell::new(0u64);
    let cost = read_cost_ns(
        || {
            t.set(t.get() + 5);
            0
        },
        || t.get(),
    );
    assert_eq!(cost, 5.0);
}
