//! `irq`: interrupt latency through a GPIO loopback (issue #21), the
//! software form of reference 004's oscilloscope measurement.
//!
//! An output line is wired to an input line on the same GPIO chip (a
//! jumper, or kernel/gpio_loop's emulated chip in the VM rig). Two pinned
//! threads:
//!
//! - the *driver* sleeps to absolute CLOCK_MONOTONIC deadlines (`-i`), reads
//!   the clock and toggles the output (one ioctl);
//! - the *measuring thread* waits in poll(2) on the input's line request,
//!   reads the clock as it returns, reads the edge event (its kernel
//!   timestamp, stamped in the line's hard interrupt handler by
//!   gpiolib-cdev), and with `respond` toggles the response output and
//!   reads the response input's edge event.
//!
//! Per edge that gives (a) set → edge stamp, (b) edge stamp → thread woken,
//! (c) edge stamp → response edge stamp ([`intervals`]); one cell each.
//! The driver makes edge n+1 only after the thread has finished edge n, so
//! one edge is in flight at a time and every event belongs to a known edge
//! (checked on the kernel's sequence numbers).
//!
//! Nothing in the timed loop allocates, formats or logs: histograms and raw
//! vectors are sized before the start; a fault's message is formatted once,
//! as the loop ends.

pub mod intervals;
pub mod lines;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use gpiocdev::Request;
use gpiocdev::line::Value;
use icbench_model::{CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, Pattern};

use self::intervals::{EdgeTimes, check_seqno, intervals, rising};
pub use self::lines::{LoopLines, Opened, open};
use super::{Ts, futex_wait_change, futex_wake, sleep_until};
use crate::cpu;

/// The cells' link column, one per interval, in the order (a), (b), (c).
pub const INTERVALS: [&str; 3] = ["set-to-edge", "edge-to-wake", "edge-to-response"];

/// Settings of a loopback measurement.
#[derive(Debug, Clone)]
pub struct IrqConfig {
    pub lines: LoopLines,
    /// The CPU of the thread that sets the output.
    pub driver_cpu: u32,
    /// The CPU of the thread woken by the edge (it also sets the response).
    pub waiter_cpu: u32,
    /// Between edges (`-i`).
    pub interval: Duration,
    /// Measured edges (`-l`, or `-D` ÷ interval).
    pub loops: u64,
    /// Edges before the measured ones, discarded.
    pub warmup: u64,
    /// SCHED_FIFO priority of both threads (`-p`).
    pub fifo: Option<u8>,
    pub raw: bool,
    /// Longest wait for one edge before the run stops with a fault.
    pub timeout: Duration,
    /// Set (by Ctrl-C) to stop early.
    pub stop: &'static AtomicBool,
}

/// What a loopback measurement produced.
#[derive(Debug, Clone)]
pub struct IrqRun {
    /// (a), (b) and, with a response pair, (c).
    pub cells: Vec<CellResult>,
    /// Why it stopped before `loops` edges, other than Ctrl-C: a missing
    /// edge (timeout), a stray one, a refused ioctl. One line.
    pub fault: Option<String>,
    pub interrupted: bool,
}

/// The key of interval `which` (an index into [`INTERVALS`]).
pub fn cell_key(cfg: &IrqConfig, event_clock: &str, which: usize) -> CellKey {
    let l = &cfg.lines;
    let mut k = CellKey::new(INTERVALS[which], Pattern::Irq, 0)
        .with("chip", l.chip.display())
        .with("out", l.out)
        .with("in", l.input)
        .with("driver_cpu", cfg.driver_cpu)
        .with("waiter_cpu", cfg.waiter_cpu)
        .with("interval_us", cfg.interval.as_micros())
        .with("event_clock", event_clock);
    if let Some((r, ri)) = l.respond {
        k = k.with("respond", r).with("respond_in", ri);
    }
    k
}

/// Between the two threads.
struct Shared {
    /// Edges the measuring thread has finished (or `u32::MAX` once it
    /// gave up); the driver waits on it (futex) before the next edge.
    done: AtomicU32,
    /// The driver's clock read before setting the output, ns.
    set_ns: AtomicU64,
    /// The driver stopped on an error of its own (its result says which).
    driver_failed: AtomicBool,
}

const GAVE_UP: u32 = u32::MAX;

fn ns(t: Ts) -> u64 {
    (t.sec as u64).wrapping_mul(1_000_000_000).wrapping_add(t.nsec as u64)
}

fn now_ns() -> u64 {
    ns(Ts::now(libc::CLOCK_MONOTONIC))
}

fn value(rising: bool) -> Value {
    if rising { Value::Active } else { Value::Inactive }
}

/// Runs the measurement on opened lines; returns when every edge is
/// measured, on a fault, or on the stop flag.
pub fn run_irq(cfg: &IrqConfig, lines: Opened) -> IrqRun {
    let Opened { out, input, respond, event_clock, .. } = lines;
    let shared = Arc::new(Shared {
        done: AtomicU32::new(0),
        set_ns: AtomicU64::new(0),
        driver_failed: AtomicBool::new(false),
    });
    let total = cfg.loops + cfg.warmup;
    let waiter = {
        let (cfg, shared) = (cfg.clone(), shared.clone());
        std::thread::Builder::new()
            .name("icb-irq-wait".into())
            .spawn(move || measure_thread(&cfg, &input, respond.as_ref(), &shared))
    };
    let driver = {
        let (cfg, shared) = (cfg.clone(), shared.clone());
        std::thread::Builder::new()
            .name("icb-irq-drive".into())
            .spawn(move || driver_thread(&cfg, total, &out, &shared))
    };
    let driven = match driver {
        Ok(h) => h.join().unwrap_or_else(|_| Err("the driving thread panicked".into())),
        Err(e) => {
            shared.driver_failed.store(true, Ordering::SeqCst);
            Err(format!("cannot start a thread: {e}"))
        }
    };
    let measured = match waiter {
        Ok(h) => h.join().unwrap_or_else(|_| Measured::failed("the measuring thread panicked")),
        Err(e) => Measured::failed(&format!("cannot start a thread: {e}")),
    };
    let fault = measured.fault.clone().or(driven.err());
    let n_cells = if cfg.lines.respond.is_some() { 3 } else { 2 };
    let cells = (0..n_cells)
        .map(|i| {
            let outcome = match &measured.hists {
                Some(h) if !h[i].is_empty() => CellOutcome::Measured(cell_data(
                    h[i].clone(),
                    measured.raw.as_ref().map(|r| r[i].clone()),
                    measured.elapsed_ns,
                )),
                _ => CellOutcome::Failed {
                    reason: fault.clone().unwrap_or_else(|| "stopped before the first edge".into()),
                },
            };
            CellResult { key: cell_key(cfg, event_clock, i), outcome }
        })
        .collect();
    IrqRun { cells, fault, interrupted: cfg.stop.load(Ordering::SeqCst) }
}

fn cell_data(h: LatencyHistogram, raw: Option<Vec<u64>>, elapsed_ns: u64) -> CellData {
    CellData {
        messages: h.len(),
        bytes: 0,
        elapsed_ns,
        warmup_messages: 0,
        latency: Some(h),
        raw_ns: raw,
        window: None,
        counters: Default::default(),
        channels: None,
        adaptive: None,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: None,
        timed_batch: None,
        state: None,
    }
}

/// Sets the output for edge after edge, each once the measuring thread
/// has finished the one before.
fn driver_thread(cfg: &IrqConfig, total: u64, out: &Request, sh: &Shared) -> Result<(), String> {
    let r = drive(cfg, total, out, sh);
    if r.is_err() {
        sh.driver_failed.store(true, Ordering::SeqCst);
    }
    r
}

fn drive(cfg: &IrqConfig, total: u64, out: &Request, sh: &Shared) -> Result<(), String> {
    cpu::pin_current_thread(cfg.driver_cpu)
        .and_then(|()| cfg.fifo.map_or(Ok(()), cpu::set_fifo))
        .map_err(|e| e.to_string())?;
    let interval_ns = cfg.interval.as_nanos() as u64;
    let clock = libc::CLOCK_MONOTONIC;
    let mut next = Ts::now(clock).add_ns(interval_ns);
    for n in 0..total {
        sleep_until(clock, next);
        // the previous edge must be measured before this one is made
        loop {
            let d = sh.done.load(Ordering::Acquire);
            if d == GAVE_UP {
                return Ok(());
            }
            if u64::from(d) >= n {
                break;
            }
            // no bound of its own: the measuring thread always ends (it
            // reports a missing edge after --timeout) and then gives up
            let _ = futex_wait_change(&sh.done, d, Duration::from_secs(1));
            if cfg.stop.load(Ordering::Relaxed) {
                return Ok(());
            }
        }
        if cfg.stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        sh.set_ns.store(now_ns(), Ordering::SeqCst);
        if let Err(e) = out.set_lone_value(value(rising(n))) {
            return Err(format!("setting --out {} failed at edge {n}: {e}", cfg.lines.out));
        }
        let now = Ts::now(clock);
        next = next.add_ns(interval_ns);
        while next <= now {
            next = next.add_ns(interval_ns);
        }
    }
    Ok(())
}

/// What the measuring thread kept.
struct Measured {
    hists: Option<[LatencyHistogram; 3]>,
    raw: Option<[Vec<u64>; 3]>,
    elapsed_ns: u64,
    fault: Option<String>,
}

impl Measured {
    fn failed(reason: &str) -> Measured {
        Measured { hists: None, raw: None, elapsed_ns: 0, fault: Some(reason.to_string()) }
    }
}

/// How waiting for one edge ended.
enum Wait {
    Edge(gpiocdev::line::EdgeEvent, u64),
    Stopped,
    Fault(String),
}

/// Waits for the next edge on `req`, in slices of at most 100 ms so that
/// the driver's end is seen; gives up after `timeout`.
fn wait_edge(req: &Request, what: &str, cfg: &IrqConfig, sh: &Shared) -> Wait {
    let slice = Duration::from_millis(100).min(cfg.timeout);
    let start = now_ns();
    loop {
        match req.wait_edge_event(slice) {
            Ok(true) => {
                let woken = now_ns();
                return match req.read_edge_event() {
                    Ok(ev) => Wait::Edge(ev, woken),
                    Err(e) => Wait::Fault(format!("reading the edge event of {what}: {e}")),
                };
            }
            Ok(false) => {}
            Err(e) => return Wait::Fault(format!("waiting for an edge on {what}: {e}")),
        }
        if cfg.stop.load(Ordering::Relaxed) {
            return Wait::Stopped;
        }
        if sh.driver_failed.load(Ordering::SeqCst) {
            // the driver stopped (a failed ioctl); its error is the fault
            return Wait::Stopped;
        }
        if now_ns() - start >= cfg.timeout.as_nanos() as u64 {
            return Wait::Fault(timeout_message(what, cfg));
        }
    }
}

/// The one line for an edge that never came.
pub fn timeout_message(what: &str, cfg: &IrqConfig) -> String {
    let (from, to) = if what.starts_with("--respond-in") {
        cfg.lines.respond.map_or((0, 0), |(r, ri)| (r, ri))
    } else {
        (cfg.lines.out, cfg.lines.input)
    };
    format!(
        "no edge on {what} within {} ms of setting line {from}: check the wire from line {from} \
         to line {to} on {} (or raise --timeout)",
        cfg.timeout.as_millis(),
        cfg.lines.chip.display()
    )
}

fn measure_thread(
    cfg: &IrqConfig,
    input: &Request,
    respond: Option<&(Request, Request)>,
    sh: &Shared,
) -> Measured {
    let setup = cpu::pin_current_thread(cfg.waiter_cpu)
        .and_then(|()| cfg.fifo.map_or(Ok(()), cpu::set_fifo))
        .map_err(|e| e.to_string());
    if let Err(e) = setup {
        sh.done.store(GAVE_UP, Ordering::SeqCst);
        futex_wake(&sh.done);
        return Measured::failed(&e);
    }
    let mut hists = [LatencyHistogram::new(), LatencyHistogram::new(), LatencyHistogram::new()];
    let mut raw: [Vec<u64>; 3] = Default::default();
    if cfg.raw {
        let per = cfg.loops as usize;
        raw[0].reserve_exact(per);
        raw[1].reserve_exact(per);
        if respond.is_some() {
            raw[2].reserve_exact(per);
        }
    }
    let total = cfg.loops + cfg.warmup;
    let in_name = format!("--in {}", cfg.lines.input);
    let resp_name = cfg.lines.respond.map(|(_, ri)| format!("--respond-in {ri}"));
    let resp_out_name = cfg.lines.respond.map(|(r, _)| format!("--respond {r}"));
    let mut first_ns = 0u64;
    let mut last_ns = 0u64;
    let mut fault = None;
    for n in 0..total {
        let (ev, woken_ns) = match wait_edge(input, &in_name, cfg, sh) {
            Wait::Edge(ev, w) => (ev, w),
            Wait::Stopped => break,
            Wait::Fault(f) => {
                fault = Some(f);
                break;
            }
        };
        let set_ns = sh.set_ns.load(Ordering::SeqCst);
        if let Err(e) = check_seqno(&in_name, n, ev.line_seqno) {
            fault = Some(e);
            break;
        }
        let mut response_ns = None;
        if let Some((r_out, r_in)) = respond {
            if let Err(e) = r_out.set_lone_value(value(rising(n))) {
                fault = Some(format!(
                    "setting {} failed at edge {n}: {e}",
                    resp_out_name.as_deref().unwrap_or("")
                ));
                break;
            }
            let name = resp_name.as_deref().unwrap_or("");
            match wait_edge(r_in, name, cfg, sh) {
                Wait::Edge(rev, _) => {
                    if let Err(e) = check_seqno(name, n, rev.line_seqno) {
                        fault = Some(e);
                        break;
                    }
                    response_ns = Some(rev.timestamp_ns);
                }
                Wait::Stopped => break,
                Wait::Fault(f) => {
                    fault = Some(f);
                    break;
                }
            }
        }
        let t = EdgeTimes { set_ns, edge_ns: ev.timestamp_ns, woken_ns, response_ns };
        match intervals(&t) {
            Ok(i) if n >= cfg.warmup => {
                if first_ns == 0 {
                    first_ns = set_ns;
                }
                last_ns = woken_ns;
                let vals = [i.set_to_edge, i.edge_to_wake, i.edge_to_response.unwrap_or(0)];
                let k = if respond.is_some() { 3 } else { 2 };
                for j in 0..k {
                    hists[j].record(vals[j]);
                    if cfg.raw {
                        raw[j].push(vals[j]);
                    }
                }
            }
            Ok(_) => {}
            Err(e) => {
                fault = Some(format!("edge {n}: {e}"));
                break;
            }
        }
        sh.done.store((n + 1) as u32, Ordering::Release);
        futex_wake(&sh.done);
    }
    sh.done.store(GAVE_UP, Ordering::SeqCst);
    futex_wake(&sh.done);
    Measured {
        hists: Some(hists),
        raw: cfg.raw.then_some(raw),
        elapsed_ns: last_ns.saturating_sub(first_ns),
        fault,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static NO_STOP: AtomicBool = AtomicBool::new(false);

    fn cfg(respond: Option<(u32, u32)>) -> IrqConfig {
        IrqConfig {
            lines: LoopLines { chip: "/dev/gpiochip3".into(), out: 0, input: 1, respond },
            driver_cpu: 0,
            waiter_cpu: 1,
            interval: Duration::from_micros(500),
            loops: 10,
            warmup: 2,
            fifo: None,
            raw: false,
            timeout: Duration::from_millis(1500),
            stop: &NO_STOP,
        }
    }

    #[test]
    fn keys_carry_the_lines_the_cpus_and_the_event_clock() {
        let k = cell_key(&cfg(Some((2, 3))), "CLOCK_MONOTONIC", 2);
        assert_eq!(k.link, "edge-to-response");
        assert_eq!(k.pattern, Pattern::Irq);
        for (f, v) in [
            ("chip", "/dev/gpiochip3"),
            ("out", "0"),
            ("in", "1"),
            ("respond", "2"),
            ("respond_in", "3"),
            ("waiter_cpu", "1"),
            ("interval_us", "500"),
            ("event_clock", "CLOCK_MONOTONIC"),
        ] {
            assert_eq!(k.factor(f), Some(v), "{f}");
        }
        assert_eq!(cell_key(&cfg(None), "HTE", 0).factor("respond"), None);
    }

    #[test]
    fn a_missing_edge_names_the_wire_to_check() {
        let m = timeout_message("--in 1", &cfg(Some((2, 3))));
        assert_eq!(
            m,
            "no edge on --in 1 within 1500 ms of setting line 0: check the wire from line 0 to \
             line 1 on /dev/gpiochip3 (or raise --timeout)"
        );
        let m = timeout_message("--respond-in 3", &cfg(Some((2, 3))));
        assert!(m.contains("from line 2 to line 3"), "{m}");
    }
}
