//! The arithmetic of trusting a counter, free of any clock or counter read:
//! converting ticks to ns, the rate from bracketed samples, the agreement of
//! the converted counter with CLOCK_MONOTONIC_RAW, and the verdict against
//! stated tolerances. Everything here is a pure function, tested on known
//! answers.

/// One counter read bracketed by two clock reads (ns of
/// CLOCK_MONOTONIC_RAW): the counter was read somewhere in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub before_ns: u64,
    pub ticks: u64,
    pub after_ns: u64,
}

impl Sample {
    /// The clock's best estimate of when the counter was read, ns.
    pub fn mid_ns(&self) -> f64 {
        self.before_ns as f64 + self.width_ns() as f64 / 2.0
    }

    /// How uncertain that estimate is: the bracket's width, ns.
    pub fn width_ns(&self) -> u64 {
        self.after_ns.saturating_sub(self.before_ns)
    }
}

/// The narrowest bracket of `tries` samples (a preempted try is wide).
pub fn narrowest(tries: impl IntoIterator<Item = Sample>) -> Option<Sample> {
    tries.into_iter().min_by_key(Sample::width_ns)
}

/// `ticks` at `hz` ticks per second, in ns.
pub fn ticks_to_ns(ticks: i128, hz: f64) -> f64 {
    ticks as f64 * 1e9 / hz
}

/// Ticks per second between two samples; `None` if the clock did not
/// advance or the counter went back.
pub fn hz_between(a: &Sample, b: &Sample) -> Option<f64> {
    let dt = b.mid_ns() - a.mid_ns();
    if dt <= 0.0 || b.ticks < a.ticks {
        return None;
    }
    Some((b.ticks - a.ticks) as f64 * 1e9 / dt)
}

/// The rate measured over two back-to-back windows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Over both windows, Hz.
    pub hz: f64,
    /// Over each window, Hz.
    pub window_hz: [f64; 2],
}

impl Calibration {
    /// How far the two windows' rates differ, relative to the whole, ppm.
    pub fn windows_ppm(&self) -> f64 {
        (self.window_hz[1] - self.window_hz[0]) / self.hz * 1e6
    }
}

/// The rate from three samples at the start, middle and end of the
/// calibration.
pub fn calibrate(s: [Sample; 3]) -> Result<Calibration, String> {
    let bad = || {
        format!(
            "the counter did not advance with the clock during calibration \
             (ticks {} → {} → {})",
            s[0].ticks, s[1].ticks, s[2].ticks
        )
    };
    let w0 = hz_between(&s[0], &s[1]).ok_or_else(bad)?;
    let w1 = hz_between(&s[1], &s[2]).ok_or_else(bad)?;
    let hz = hz_between(&s[0], &s[2]).ok_or_else(bad)?;
    if hz <= 0.0 || w0 <= 0.0 || w1 <= 0.0 {
        return Err(bad());
    }
    Ok(Calibration { hz, window_hz: [w0, w1] })
}

/// How the counter, converted to ns, followed CLOCK_MONOTONIC_RAW.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agreement {
    /// Largest |converted counter − clock| since the first sample, ns.
    pub max_abs_dev_ns: f64,
    /// Least-squares slope of that deviation against the clock, ppm.
    pub drift_ppm: f64,
    /// Clock time covered, ns.
    pub span_ns: f64,
    /// Samples used (after dropping wide brackets).
    pub used: usize,
    /// Successive samples whose counter read less than the one before.
    pub backwards: u64,
}

/// Compares `samples` (taken in order on one CPU) with the clock at `hz`.
/// Brackets wider than four times the median (and than 1 µs) are dropped
/// first: a read preempted between the clock and the counter says little
/// about either.
pub fn agreement(samples: &[Sample], hz: f64) -> Result<Agreement, String> {
    let backwards = samples.windows(2).filter(|w| w[1].ticks < w[0].ticks).count() as u64;
    let mut widths: Vec<u64> = samples.iter().map(Sample::width_ns).collect();
    widths.sort_unstable();
    let Some(&median) = widths.get(widths.len() / 2) else {
        return Err("no samples to compare".to_string());
    };
    let limit = median.saturating_mul(4).max(1_000);
    let kept: Vec<&Sample> = samples.iter().filter(|s| s.width_ns() <= limit).collect();
    if kept.len() < 3 {
        return Err(format!("only {} of {} samples were usable", kept.len(), samples.len()));
    }
    let first = kept[0];
    // (clock since first, converted counter − clock), ns.
    let points: Vec<(f64, f64)> = kept
        .iter()
        .map(|s| {
            let t = s.mid_ns() - first.mid_ns();
            let c = ticks_to_ns(i128::from(s.ticks) - i128::from(first.ticks), hz);
            (t, c - t)
        })
        .collect();
    let max_abs_dev_ns = points.iter().map(|p| p.1.abs()).fold(0.0, f64::max);
    let span_ns = points.last().map_or(0.0, |p| p.0);
    Ok(Agreement {
        max_abs_dev_ns,
        drift_ppm: slope(&points).map_or(f64::NAN, |b| b * 1e6),
        span_ns,
        used: kept.len(),
        backwards,
    })
}

/// Ordinary least-squares slope of y on x; `None` if every x is equal.
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// The limits within which a counter is trusted. Generous, so that a
/// shared, noisy machine does not fail a sound counter, and still far
/// tighter than what a counter that changes rate with the CPU frequency or
/// stops in idle shows (thousands of ppm, microseconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Largest |converted counter − clock| over the check, ns.
    pub max_dev_ns: f64,
    /// Largest |drift| over the check, ppm.
    pub drift_ppm: f64,
    /// Largest difference between the two calibration windows' rates, ppm.
    pub windows_ppm: f64,
    /// Largest difference between the calibrated and the declared rate, ppm.
    pub declared_ppm: f64,
}

pub const TOLERANCE: Tolerance =
    Tolerance { max_dev_ns: 2_000.0, drift_ppm: 50.0, windows_ppm: 200.0, declared_ppm: 1_000.0 };

/// Everything measured about a counter, to be judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    pub cal: Calibration,
    pub declared_hz: Option<f64>,
    pub agreement: Agreement,
    /// Hand-overs between the two CPUs after which the receiving CPU read a
    /// smaller count than the one handed over, and reads on one CPU that
    /// were smaller than that CPU's previous read.
    pub across_backwards: u64,
    pub own_backwards: u64,
}

/// Whether the evidence is within `tol`: `Ok(why)` or `Err(first failure)`.
pub fn judge(e: &Evidence, tol: &Tolerance) -> Result<String, String> {
    let a = &e.agreement;
    if a.backwards + e.own_backwards > 0 {
        return Err(format!("went backwards on one CPU ({} times)", a.backwards + e.own_backwards));
    }
    if e.across_backwards > 0 {
        return Err(format!(
            "went backwards between the two CPUs ({} hand-overs): not one counter",
            e.across_backwards
        ));
    }
    if let Some(d) = e.declared_hz {
        let ppm = (e.cal.hz - d) / d * 1e6;
        if ppm.abs() > tol.declared_ppm {
            return Err(format!(
                "counts at {:.0} Hz, but declares {d:.0} Hz ({ppm:+.0} ppm, limit ±{:.0})",
                e.cal.hz, tol.declared_ppm
            ));
        }
    }
    let w = e.cal.windows_ppm();
    if w.abs() > tol.windows_ppm {
        return Err(format!(
            "its rate changed between the two calibration windows by {w:+.1} ppm \
             (limit ±{:.0})",
            tol.windows_ppm
        ));
    }
    // A NaN drift (no spread in time) fails too.
    if a.drift_ppm.is_nan() || a.drift_ppm.abs() > tol.drift_ppm {
        return Err(format!(
            "drifts {:+.2} ppm against CLOCK_MONOTONIC_RAW (limit ±{:.0})",
            a.drift_ppm, tol.drift_ppm
        ));
    }
    if a.max_abs_dev_ns > tol.max_dev_ns {
        return Err(format!(
            "strays up to {:.0} ns from CLOCK_MONOTONIC_RAW (limit {:.0} ns)",
            a.max_abs_dev_ns, tol.max_dev_ns
        ));
    }
    Ok(format!(
        "agrees with CLOCK_MONOTONIC_RAW within {:.0} ns over {:.0} ms (drift {:+.2} ppm, \
         limits {:.0} ns and ±{:.0} ppm); never went backwards",
        a.max_abs_dev_ns,
        a.span_ns / 1e6,
        a.drift_ppm,
        tol.max_dev_ns,
        tol.drift_ppm
    ))
}

/// What the kernel says about the counter: for the TSC, the CPU flags
/// `constant_tsc` (rate independent of the core's frequency) and
/// `nonstop_tsc` (keeps counting in deep C-states) on every CPU, and the
/// TSC as the current clocksource (the kernel demotes a TSC its clocksource
/// watchdog caught misbehaving: Documentation/admin-guide/kernel-parameters
/// `tsc=`); for CNTVCT, the architected timer as the clocksource.
pub fn kernel_signals(
    counter: &str,
    cpuinfo: &str,
    clocksource: Option<&str>,
) -> Result<(), String> {
    let wanted_source = match counter {
        "tsc" => {
            let flag_lines: Vec<&str> = cpuinfo
                .lines()
                .filter(|l| l.split(':').next().is_some_and(|k| k.trim() == "flags"))
                .collect();
            if flag_lines.is_empty() {
                return Err("/proc/cpuinfo lists no CPU flags".to_string());
            }
            for flag in ["constant_tsc", "nonstop_tsc"] {
                if !flag_lines.iter().all(|l| l.split_whitespace().any(|f| f == flag)) {
                    return Err(format!("the CPU flag {flag} is missing in /proc/cpuinfo"));
                }
            }
            "tsc"
        }
        "cntvct_el0" | "cntvct" => "arch_sys_counter",
        other => return Err(format!("no kernel signals known for counter {other}")),
    };
    match clocksource {
        Some(s) if s == wanted_source => Ok(()),
        Some(s) => Err(format!(
            "the kernel's clocksource is {s}, not {wanted_source}: the kernel does not \
             keep time with this counter"
        )),
        None => Err("the kernel's current clocksource cannot be read".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample at `t` ns with a zero-width bracket.
    fn at(t: u64, ticks: u64) -> Sample {
        Sample { before_ns: t, ticks, after_ns: t }
    }

    #[test]
    fn ticks_convert_to_ns_at_known_rates() {
        assert_eq!(ticks_to_ns(3_000_000_000, 3e9), 1e9);
        assert_eq!(ticks_to_ns(25, 25e6), 1_000.0);
        assert_eq!(ticks_to_ns(-24, 24e6), -1_000.0);
        // 2.1 GHz: 21 ticks are 10 ns.
        assert!((ticks_to_ns(21, 2.1e9) - 10.0).abs() < 1e-9);
    }

    #[test]
    fn a_bracket_is_read_at_its_middle_and_the_narrowest_is_kept() {
        let s = Sample { before_ns: 100, ticks: 7, after_ns: 140 };
        assert_eq!((s.mid_ns(), s.width_ns()), (120.0, 40));
        let n = narrowest([s, Sample { before_ns: 0, ticks: 1, after_ns: 10 }, s]).unwrap();
        assert_eq!(n.ticks, 1);
        assert_eq!(narrowest([]), None);
    }

    #[test]
    fn calibration_finds_the_rate_and_each_window() {
        // 2 GHz for 50 ms, then 2.0002 GHz (+100 ppm) for 50 ms.
        let c = calibrate([
            at(1_000, 5),
            at(50_001_000, 5 + 100_000_000),
            at(100_001_000, 5 + 100_000_000 + 100_010_000),
        ])
        .unwrap();
        assert_eq!(c.window_hz, [2e9, 2.0002e9]);
        assert!((c.hz - 2.0001e9).abs() < 1.0, "{}", c.hz);
        assert!((c.windows_ppm() - 100.0).abs() < 0.01, "{}", c.windows_ppm());
    }

    #[test]
    fn calibration_refuses_a_counter_that_stood_still_or_went_back() {
        assert!(calibrate([at(0, 10), at(50, 10), at(100, 10)]).is_err());
        assert!(calibrate([at(0, 10), at(50, 9), at(100, 20)]).is_err());
        assert!(calibrate([at(0, 10), at(0, 20), at(0, 30)]).is_err());
    }

    /// Samples every 0.5 ms for 50 ms of a counter at `hz` that runs
    /// `ppm` fast, with `jitter` ns of bracket on every fifth sample.
    fn run(hz: f64, ppm: f64, jitter: u64) -> Vec<Sample> {
        (0..=100u64)
            .map(|i| {
                let t = 1_000_000 + i * 500_000;
                let ticks = ((t - 1_000_000) as f64 * (1.0 + ppm * 1e-6) * hz / 1e9) as u64;
                let w = if i % 5 == 0 { jitter } else { 0 };
                Sample { before_ns: t - w / 2, ticks: ticks + 1000, after_ns: t + w / 2 }
            })
            .collect()
    }

    #[test]
    fn a_counter_at_the_calibrated_rate_agrees_with_no_drift() {
        let a = agreement(&run(3e9, 0.0, 20), 3e9).unwrap();
        assert!(a.max_abs_dev_ns < 1.0, "{a:?}");
        assert!(a.drift_ppm.abs() < 0.01, "{a:?}");
        assert_eq!((a.used, a.backwards), (101, 0));
        assert_eq!(a.span_ns, 50e6);
    }

    #[test]
    fn a_synthetic_drift_is_measured_in_ppm() {
        // 40 ppm fast over 50 ms: 2 µs ahead at the end.
        let a = agreement(&run(24e6, 40.0, 0), 24e6).unwrap();
        assert!((a.drift_ppm - 40.0).abs() < 0.5, "{a:?}");
        assert!((a.max_abs_dev_ns - 2_000.0).abs() < 50.0, "{a:?}");
        let a = agreement(&run(2e9, -250.0, 0), 2e9).unwrap();
        assert!((a.drift_ppm + 250.0).abs() < 0.5, "{a:?}");
    }

    #[test]
    fn a_wrong_rate_shows_as_drift() {
        // A 1 GHz counter taken for 1.001 GHz runs 999 ppm slow.
        let a = agreement(&run(1e9, 0.0, 0), 1.001e9).unwrap();
        assert!((a.drift_ppm + 999.0).abs() < 1.0, "{a:?}");
    }

    #[test]
    fn wide_brackets_are_dropped_and_back_steps_counted() {
        let mut s = run(1e9, 0.0, 10);
        // One preempted sample, 1 ms wide and 1 ms off.
        s[50].after_ns += 2_000_000;
        let a = agreement(&s, 1e9).unwrap();
        assert_eq!(a.used, 100);
        assert!(a.max_abs_dev_ns < 10.0, "{a:?}");
        s[70].ticks = s[69].ticks - 1;
        assert_eq!(agreement(&s, 1e9).unwrap().backwards, 1);
        assert!(agreement(&s[..2], 1e9).is_err());
        assert!(agreement(&[], 1e9).is_err());
    }

    fn evidence(drift_ppm: f64, max_abs_dev_ns: f64) -> Evidence {
        Evidence {
            cal: Calibration { hz: 24e6, window_hz: [24e6, 24e6] },
            declared_hz: Some(24e6),
            agreement: Agreement {
                max_abs_dev_ns,
                drift_ppm,
                span_ns: 50e6,
                used: 100,
                backwards: 0,
            },
            across_backwards: 0,
            own_backwards: 0,
        }
    }

    #[test]
    fn judged_within_and_beyond_each_tolerance() {
        let t = &TOLERANCE;
        let ok = judge(&evidence(0.3, 120.0), t).unwrap();
        assert!(ok.contains("within 120 ns over 50 ms"), "{ok}");
        assert!(judge(&evidence(60.0, 120.0), t).unwrap_err().contains("drifts +60.00 ppm"));
        assert!(judge(&evidence(f64::NAN, 1.0), t).unwrap_err().contains("drifts"));
        assert!(judge(&evidence(1.0, 2_500.0), t).unwrap_err().contains("strays up to 2500 ns"));
        let mut e = evidence(0.0, 0.0);
        e.across_backwards = 3;
        assert!(judge(&e, t).unwrap_err().contains("between the two CPUs (3"));
        let mut e = evidence(0.0, 0.0);
        e.own_backwards = 1;
        assert!(judge(&e, t).unwrap_err().contains("one CPU"));
        // Firmware that declares 25 MHz for a 24 MHz counter.
        let mut e = evidence(0.0, 0.0);
        e.declared_hz = Some(25e6);
        assert!(judge(&e, t).unwrap_err().contains("declares 25000000 Hz"));
        let mut e = evidence(0.0, 0.0);
        e.cal.window_hz = [24e6, 24.01e6];
        assert!(judge(&e, t).unwrap_err().contains("between the two calibration windows"));
    }

    const FLAGS: &str = "flags\t\t: fpu tsc constant_tsc rep_good nonstop_tsc cpuid\n";

    #[test]
    fn kernel_signals_for_the_tsc() {
        let two = format!("processor: 0\n{FLAGS}processor: 1\n{FLAGS}");
        assert_eq!(kernel_signals("tsc", &two, Some("tsc")), Ok(()));
        let e = kernel_signals("tsc", &two, Some("hpet")).unwrap_err();
        assert!(e.contains("clocksource is hpet, not tsc"), "{e}");
        let half = format!("{FLAGS}flags\t: fpu tsc constant_tsc\n");
        let e = kernel_signals("tsc", &half, Some("tsc")).unwrap_err();
        assert!(e.contains("nonstop_tsc is missing"), "{e}");
        assert!(kernel_signals("tsc", "", Some("tsc")).unwrap_err().contains("no CPU flags"));
        assert!(kernel_signals("tsc", FLAGS, None).is_err());
    }

    #[test]
    fn kernel_signals_for_cntvct() {
        assert_eq!(kernel_signals("cntvct_el0", "", Some("arch_sys_counter")), Ok(()));
        assert!(kernel_signals("cntvct_el0", FLAGS, Some("tsc")).is_err());
        assert_eq!(kernel_signals("cntvct", "", Some("arch_sys_counter")), Ok(()));
        assert!(kernel_signals("cntvct", "", Some("jiffies")).is_err());
        assert!(kernel_signals("pmccntr", "", Some("x")).is_err());
    }
}
