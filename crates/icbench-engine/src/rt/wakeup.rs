//! `wakeup`: one-way wake-up latency through a blocking primitive, sender
//! on one CPU, receiver on another (or the same, on request).
//!
//! The receiver blocks in the primitive. The sender reads
//! CLOCK_MONOTONIC_RAW (`t0`) and wakes it; the receiver reads the same
//! clock as soon as the primitive returns (`t1`): the sample is `t1 − t0`. Both ends are threads of one process, so they read one
//! clock — checked by [`clockcheck`](super::clockcheck) before the cell.
//! The receiver then sleeps the interval (CLOCK_MONOTONIC, absolute
//! deadlines) and acknowledges through a futex word, outside the timed
//! interval; the sender waits for that before its next wake: one wake-up in
//! flight, paced by the receiver, as pmqtest's receiver sleeps `-i` and then
//! sends its sync message.
//!
//! pmqtest, ptsematest, sigwaittest and svsematest pin both ends of a pair
//! to one CPU (research notes §1.3); here the ends are on the CPUs given,
//! so the figure is a cross-core wake-up (IPI, remote wake, idle exit).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use icbench_model::{CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, Pattern};

use super::prim::{self, QUIT};
use super::{Ts, futex_wait_change, futex_wake, sleep_until};
use crate::{clock, cpu};

/// The primitives `wakeup` knows, in the order they are measured.
pub const PRIMITIVES: [&str; 6] = ["futex", "eventfd", "pipe", "mq", "unix", "signal"];

/// Settings of a wake-up cell.
#[derive(Debug, Clone)]
pub struct WakeupConfig {
    pub sender_cpu: u32,
    pub receiver_cpu: u32,
    /// Time between wake-ups (the sender's pacing).
    pub interval: Duration,
    /// Measured wake-ups.
    pub loops: u64,
    /// Wake-ups before the measured ones, discarded.
    pub warmup: u64,
    /// SCHED_FIFO priority of both ends.
    pub fifo: Option<u8>,
    /// Keep every sample in time order.
    pub raw: bool,
    /// Longest wait for the receiver's acknowledgement.
    pub timeout: Duration,
    pub stop: &'static AtomicBool,
}

/// The key of the wake-up cell of `primitive`.
pub fn cell_key(primitive: &str, cfg: &WakeupConfig) -> CellKey {
    CellKey::new(primitive, Pattern::Wakeup, 8)
        .with("sender_cpu", cfg.sender_cpu)
        .with("receiver_cpu", cfg.receiver_cpu)
        .with("interval_us", cfg.interval.as_micros())
}

/// Measures one primitive. Returns `None` when stopped by the stop flag.
pub fn run_wakeup(primitive: &str, cfg: &WakeupConfig) -> Option<CellResult> {
    let key = cell_key(primitive, cfg);
    let outcome = match measure(primitive, cfg) {
        Ok(Some(d)) => CellOutcome::Measured(d),
        Ok(None) => return None,
        Err(reason) => CellOutcome::Failed { reason },
    };
    Some(CellResult { key, outcome })
}

/// The receiver's acknowledgement and the sender's give-up flag.
struct Loop {
    ack: AtomicU32,
    ready: AtomicU32,
    give_up: AtomicBool,
}

fn place(cpu: u32, fifo: Option<u8>) -> Result<(), String> {
    cpu::pin_current_thread(cpu).map_err(|e| e.to_string())?;
    fifo.map_or(Ok(()), cpu::set_fifo).map_err(|e| e.to_string())
}

fn measure(primitive: &str, cfg: &WakeupConfig) -> Result<Option<CellData>, String> {
    let (mut waker, mut waiter) = prim::open(primitive)?;
    let lp = Arc::new(Loop {
        ack: AtomicU32::new(0),
        ready: AtomicU32::new(0),
        give_up: AtomicBool::new(false),
    });
    let total = cfg.warmup + cfg.loops;
    let (rcfg, rlp) = (cfg.clone(), lp.clone());
    let receiver = std::thread::Builder::new()
        .name("icb-wake-rx".into())
        .spawn(move || receive(waiter.as_mut(), &rcfg, &rlp))
        .map_err(|e| format!("cannot start the receiver: {e}"))?;
    let sent = send(waker.as_mut(), cfg, &lp, total);
    // Always end the receiver: QUIT wakes it wherever it waits.
    if sent.is_err() {
        lp.give_up.store(true, Ordering::SeqCst);
    }
    let _ = waker.wake(QUIT);
    let received = receiver.join().map_err(|_| "receiver thread panicked".to_string())?;
    let sent = sent?;
    let (hist, raw, elapsed_ns) = received?;
    if !sent {
        return Ok(None);
    }
    Ok(Some(CellData {
        messages: cfg.loops,
        bytes: 8 * cfg.loops,
        elapsed_ns,
        warmup_messages: cfg.warmup,
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
    }))
}

/// The sender: paces, stamps, wakes, waits for the acknowledgement.
/// Returns `false` when stopped by the stop flag.
fn send(
    waker: &mut dyn prim::Waker,
    cfg: &WakeupConfig,
    lp: &Loop,
    total: u64,
) -> Result<bool, String> {
    place(cfg.sender_cpu, cfg.fifo)?;
    if futex_wait_change(&lp.ready, 0, cfg.timeout).is_none() {
        return Err(format!("the receiver was not ready within {} s", cfg.timeout.as_secs_f64()));
    }
    if lp.ready.load(Ordering::Acquire) != 1 {
        return Err("the receiver could not start".to_string());
    }
    let same_cpu = cfg.sender_cpu == cfg.receiver_cpu;
    for seq in 0..total {
        if cfg.stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let t0 = clock::now_ns();
        waker.wake(t0)?;
        let want = (seq + 1) as u32;
        if same_cpu {
            // On one CPU the receiver runs only once the sender gives the
            // CPU up, so that path is part of the sample (as in pmqtest,
            // whose sender blocks in mq_receive at once): give it up
            // straight away rather than through a timed futex wait.
            std::thread::yield_now();
        }
        let mut seen = lp.ack.load(Ordering::Acquire);
        while seen != want {
            if seen == u32::MAX {
                return Err("the receiver failed".to_string());
            }
            match futex_wait_change(&lp.ack, seen, cfg.timeout) {
                Some(v) => seen = v,
                None => {
                    return Err(format!(
                        "wake-up {seq} was not received within {} s",
                        cfg.timeout.as_secs_f64()
                    ));
                }
            }
        }
    }
    Ok(true)
}

type Received = (LatencyHistogram, Vec<u64>, u64);

/// The receiver; on failure it tells the sender at once (ack = u32::MAX).
fn receive(
    waiter: &mut dyn prim::Waiter,
    cfg: &WakeupConfig,
    lp: &Loop,
) -> Result<Received, String> {
    let r = receive_loop(waiter, cfg, lp);
    if r.is_err() {
        lp.ack.store(u32::MAX, Ordering::Release);
        futex_wake(&lp.ack);
    }
    r
}

/// Blocks, stamps, records, acknowledges.
fn receive_loop(
    waiter: &mut dyn prim::Waiter,
    cfg: &WakeupConfig,
    lp: &Loop,
) -> Result<Received, String> {
    let fail = |e: String| {
        lp.ready.store(2, Ordering::Release);
        futex_wake(&lp.ready);
        e
    };
    place(cfg.receiver_cpu, cfg.fifo).map_err(fail)?;
    waiter.prepare().map_err(fail)?;
    let mut hist = LatencyHistogram::new();
    let mut raw: Vec<u64> = Vec::new();
    if cfg.raw {
        raw.reserve_exact(cfg.loops as usize);
    }
    lp.ready.store(1, Ordering::Release);
    futex_wake(&lp.ready);
    let mut seq = 0u64;
    let (mut first, mut last) = (0u64, 0u64);
    let mono = libc::CLOCK_MONOTONIC;
    let interval_ns = cfg.interval.as_nanos() as u64;
    let mut next = Ts::now(mono);
    loop {
        let t0 = waiter.wait(&lp.give_up)?;
        let t1 = clock::now_ns();
        if t0 == QUIT {
            break;
        }
        if t1 < t0 {
            return Err(format!(
                "the receiver's clock read {} ns before the sender's (wake-up {seq}): \
                 the two CPUs do not share one clock",
                t0 - t1
            ));
        }
        if seq >= cfg.warmup {
            if seq == cfg.warmup {
                first = t0;
            }
            last = t1;
            hist.record(t1 - t0);
            if cfg.raw {
                raw.push(t1 - t0);
            }
        }
        seq += 1;
        // Pace here, as pmqtest's receiver does: sleep the interval, then
        // let the sender go. The sender stamps as soon as it runs, on a CPU
        // that is awake, and the receiver is back in its wait long before.
        next = next.add_ns(interval_ns);
        sleep_until(mono, next);
        lp.ack.store(seq as u32, Ordering::Release);
        futex_wake(&lp.ack);
    }
    Ok((hist, raw, last.saturating_sub(first)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::CpuList;

    static NO_STOP: AtomicBool = AtomicBool::new(false);

    fn cfg(same_cpu: bool) -> WakeupConfig {
        let cpus = CpuList::usable().cpus;
        let rx = if same_cpu { cpus[0] } else { *cpus.get(1).unwrap_or(&cpus[0]) };
        WakeupConfig {
            sender_cpu: cpus[0],
            receiver_cpu: rx,
            interval: Duration::from_micros(100),
            loops: 200,
            warmup: 10,
            fifo: None,
            raw: true,
            timeout: Duration::from_secs(30),
            stop: &NO_STOP,
        }
    }

    fn check(primitive: &str, c: &WakeupConfig) {
        let cell = run_wakeup(primitive, c).expect("not stopped");
        assert_eq!(cell.key.link, primitive);
        assert_eq!(cell.key.pattern, Pattern::Wakeup);
        let CellOutcome::Measured(d) = &cell.outcome else {
            panic!("{primitive}: {:?}", cell.outcome)
        };
        assert_eq!(d.messages, c.loops, "{primitive}");
        let raw = d.raw_ns.as_ref().unwrap();
        assert_eq!(raw.len() as u64, c.loops, "{primitive}");
        assert!(raw.iter().all(|&v| v > 0), "{primitive}: a wake-up takes time");
        assert_eq!(d.latency.as_ref().unwrap().len(), c.loops, "{primitive}");
    }

    #[test]
    fn every_primitive_wakes_across_cpus() {
        let c = cfg(false);
        for p in PRIMITIVES {
            check(p, &c);
        }
    }

    #[test]
    fn every_primitive_wakes_on_one_cpu() {
        let c = cfg(true);
        for p in PRIMITIVES {
            check(p, &c);
        }
    }

    #[test]
    fn an_unknown_primitive_fails_the_cell_with_a_reason() {
        let cell = run_wakeup("carrier-pigeon", &cfg(false)).unwrap();
        let CellOutcome::Failed { reason } = cell.outcome else { panic!() };
        assert!(reason.contains("carrier-pigeon"), "{reason}");
    }
}
