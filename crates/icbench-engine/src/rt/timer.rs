//! `timer`: cyclictest's measurement (rt-tests, src/cyclictest/cyclictest.c).
//!
//! One thread per chosen CPU, pinned, sleeps with
//! `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next)` and on return
//! reads the same clock: the sample is `now − next`, the lateness of the
//! wake-up, computed on the whole `timespec` in ns. `next` then advances by
//! the interval; deadlines already passed are skipped, as cyclictest does,
//! so one long stall counts once. The deadline and the reading are on
//! CLOCK_MONOTONIC, the clock the timer runs on (icbench's other patterns
//! read MONOTONIC_RAW, which is not slewed; mixing the two here would add
//! the NTP slew to every sample).
//!
//! The timed loop only sleeps, reads the clock, records into a pre-sized
//! HDR histogram (and a pre-sized raw vector with `raw`) and compares with
//! the break threshold (`-b`): no allocation, formatting or logging.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use icbench_model::{CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, Pattern};

use super::{Ts, sleep_until};
use crate::cpu;

/// The link column of a timer cell (there is no link: the timer is the
/// kernel's).
pub const TIMER_LINK: &str = "timer";

/// Settings of a timer measurement (cyclictest's option letters in brackets).
#[derive(Debug, Clone)]
pub struct TimerConfig {
    /// One measuring thread per CPU (`-a`).
    pub cpus: Vec<u32>,
    /// Wake-up interval (`-i`, µs in the CLI).
    pub interval: Duration,
    /// Wake-ups per thread (`-l`, or `-D` ÷ interval).
    pub loops: u64,
    /// SCHED_FIFO priority of the measuring threads (`-p`).
    pub fifo: Option<u8>,
    /// Stop every thread when one wake-up is later than this (`-b`).
    pub break_after: Option<Duration>,
    /// Keep every sample in time order.
    pub raw: bool,
    /// Set (by Ctrl-C) to stop early.
    pub stop: &'static AtomicBool,
}

/// The wake-up that exceeded the break threshold (`-b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakHit {
    pub cpu: u32,
    /// 0-based index of the wake-up in its thread.
    pub cycle: u64,
    pub lateness_ns: u64,
}

/// What a timer measurement produced: one cell per CPU, in the order of
/// [`TimerConfig::cpus`].
#[derive(Debug, Clone)]
pub struct TimerRun {
    pub cells: Vec<CellResult>,
    pub break_hit: Option<BreakHit>,
    /// Stopped by the stop flag before every thread finished its loops.
    pub interrupted: bool,
}

/// Shared between the measuring threads: the first break, packed.
struct Shared {
    broke: AtomicBool,
    /// cpu, cycle and lateness of the first break, written once.
    hit: std::sync::Mutex<Option<BreakHit>>,
    done: AtomicU64,
}

/// The key of the timer cell of `cpu`.
pub fn cell_key(cpu: u32, interval: Duration) -> CellKey {
    CellKey::new(TIMER_LINK, Pattern::Timer, 0)
        .with("cpu", cpu)
        .with("interval_us", interval.as_micros())
}

/// Runs the timer measurement on every CPU of `cfg` at once and returns
/// when every thread has finished (or the stop flag or a break ended them).
pub fn run_timer(cfg: &TimerConfig) -> TimerRun {
    let shared = Arc::new(Shared {
        broke: AtomicBool::new(false),
        hit: std::sync::Mutex::new(None),
        done: AtomicU64::new(0),
    });
    let start = Arc::new(Barrier::new(cfg.cpus.len()));
    let handles: Vec<_> = cfg
        .cpus
        .iter()
        .map(|&cpu| {
            let (cfg, shared, start) = (cfg.clone(), shared.clone(), start.clone());
            std::thread::Builder::new()
                .name(format!("icb-timer{cpu}"))
                .spawn(move || measure_thread(&cfg, cpu, &shared, &start))
        })
        .collect();
    let mut cells = Vec::new();
    for (h, &cpu) in handles.into_iter().zip(&cfg.cpus) {
        let outcome = match h {
            Ok(h) => h.join().unwrap_or_else(|_| Err("measuring thread panicked".to_string())),
            Err(e) => Err(format!("cannot start a thread: {e}")),
        };
        let outcome = match outcome {
            Ok(d) => CellOutcome::Measured(d),
            Err(reason) => CellOutcome::Failed { reason },
        };
        cells.push(CellResult { key: cell_key(cpu, cfg.interval), outcome });
    }
    let break_hit = *shared.hit.lock().unwrap_or_else(|e| e.into_inner());
    let interrupted = cfg.stop.load(Ordering::SeqCst);
    TimerRun { cells, break_hit, interrupted }
}

fn measure_thread(
    cfg: &TimerConfig,
    cpu: u32,
    shared: &Shared,
    start: &Barrier,
) -> Result<CellData, String> {
    // Set up before the barrier, so that every thread can fail on its own
    // and the others still start together.
    let setup = cpu::pin_current_thread(cpu)
        .and_then(|()| cfg.fifo.map_or(Ok(()), cpu::set_fifo))
        .map_err(|e| e.to_string());
    let mut hist = LatencyHistogram::new();
    let mut raw: Vec<u64> = Vec::new();
    if cfg.raw {
        raw.reserve_exact(cfg.loops as usize);
    }
    start.wait();
    setup?;
    let interval_ns = cfg.interval.as_nanos() as u64;
    let break_ns = cfg.break_after.map(|d| d.as_nanos() as u64);
    let clock = libc::CLOCK_MONOTONIC;
    let began = Ts::now(clock);
    let mut next = began.add_ns(interval_ns);
    let mut last_wake = began;
    let mut n = 0u64;
    while n < cfg.loops {
        sleep_until(clock, next);
        let now = Ts::now(clock);
        let late = now.diff_ns(next);
        if late < 0 {
            return Err(format!(
                "CLOCK_MONOTONIC woke {} ns before the deadline on CPU {cpu} (cycle {n}): \
                 the clock or the timer is broken",
                -late
            ));
        }
        let late = late as u64;
        hist.record(late);
        if cfg.raw {
            raw.push(late);
        }
        last_wake = now;
        if break_ns.is_some_and(|b| late > b) {
            let mut hit = shared.hit.lock().unwrap_or_else(|e| e.into_inner());
            if hit.is_none() {
                *hit = Some(BreakHit { cpu, cycle: n, lateness_ns: late });
            }
            shared.broke.store(true, Ordering::SeqCst);
            n += 1;
            break;
        }
        n += 1;
        next = next.add_ns(interval_ns);
        while next <= now {
            next = next.add_ns(interval_ns);
        }
        // Checked after a sample, so that every thread records at least
        // one wake-up even when another breaks or Ctrl-C comes at once.
        if cfg.stop.load(Ordering::Relaxed) || shared.broke.load(Ordering::Relaxed) {
            break;
        }
    }
    shared.done.fetch_add(1, Ordering::Relaxed);
    if n == 0 {
        return Err("stopped before the first wake-up".to_string());
    }
    Ok(CellData {
        messages: n,
        bytes: 0,
        elapsed_ns: last_wake.diff_ns(began).max(0) as u64,
        warmup_messages: 0,
        latency: Some(hist),
        raw_ns: cfg.raw.then_some(raw),
        window: None,
        counters: Default::default(),
        channels: None,
        adaptive: None,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: None,
        timed_batch: None,
        state: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::CpuList;

    static NO_STOP: AtomicBool = AtomicBool::new(false);

    fn cfg(loops: u64) -> TimerConfig {
        TimerConfig {
            cpus: CpuList::usable().cpus.into_iter().take(2).collect(),
            interval: Duration::from_micros(200),
            loops,
            fifo: None,
            break_after: None,
            raw: true,
            stop: &NO_STOP,
        }
    }

    #[test]
    fn every_cpu_gets_exactly_loops_samples_and_lateness_is_never_negative() {
        let c = cfg(300);
        let run = run_timer(&c);
        assert_eq!(run.cells.len(), c.cpus.len());
        assert!(run.break_hit.is_none());
        for (cell, cpu) in run.cells.iter().zip(&c.cpus) {
            assert_eq!(cell.key.pattern, Pattern::Timer);
            assert_eq!(cell.key.factor("cpu"), Some(cpu.to_string().as_str()));
            let CellOutcome::Measured(d) = &cell.outcome else { panic!("{:?}", cell.outcome) };
            assert_eq!(d.messages, 300);
            let h = d.latency.as_ref().unwrap();
            assert_eq!(h.len(), 300);
            let raw = d.raw_ns.as_ref().unwrap();
            assert_eq!(raw.len(), 300);
            // A wake-up is never early; the raw samples are the histogram's.
            assert!(raw.iter().all(|&v| v < 100_000_000_000));
            let max = *raw.iter().max().unwrap();
            assert!(h.inner().equivalent(max, h.max_ns()), "{max} vs {}", h.max_ns());
        }
    }

    #[test]
    fn a_break_threshold_of_zero_stops_every_thread_at_the_first_late_wake() {
        let mut c = cfg(100_000);
        c.break_after = Some(Duration::ZERO);
        let run = run_timer(&c);
        let hit = run.break_hit.expect("every wake-up is at least 1 ns late");
        assert!(hit.lateness_ns > 0);
        for cell in &run.cells {
            let CellOutcome::Measured(d) = &cell.outcome else { panic!("{:?}", cell.outcome) };
            assert!(d.messages >= 1 && d.messages < 100_000, "the break stopped the loop");
        }
    }
}
