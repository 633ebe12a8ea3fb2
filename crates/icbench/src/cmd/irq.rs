//! `icbench irq`: interrupt latency through a GPIO loopback (issue #21),
//! with `timer`'s options and outputs, stored as one irq cell per interval.
//! A fault during the measurement (an edge that never came, a stray one)
//! keeps what was measured, stores and prints it, and exits 1 with the
//! fault on one line.

use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::Result;
use icbench_engine::rt::irq::{self, IrqConfig, LoopLines};

use crate::cli::IrqArgs;
use crate::cmd::rt;
use crate::cmd::run::{STOP, install_sigint};
use crate::cmd::wakeup::resolve_pair;
use crate::error::bad;
use crate::sizes;

pub fn irq(a: &IrqArgs) -> Result<ExitCode> {
    let c = rt::resolve(&a.rt, 1_000)?;
    let (driver_cpu, waiter_cpu) = resolve_pair(a.cpus.as_deref(), "driving CPU first")?;
    let timeout = sizes::duration(&a.timeout).map_err(|e| bad(format!("--timeout: {e}")))?;
    if timeout < icbench_engine::MIN_TIMEOUT {
        return Err(bad(format!(
            "--timeout {}: below the shortest the watchdog honours, 100ms",
            a.timeout
        )));
    }
    if c.loops + a.warmup >= u64::from(u32::MAX) {
        return Err(bad(format!("-l plus --warmup: at most {} edges", u32::MAX - 1)));
    }
    let lines = LoopLines {
        chip: a.chip.clone(),
        out: a.out,
        input: a.input,
        respond: a.respond.zip(a.respond_in),
    };
    // every refusal (chip, range, busy, no edges, same line) before the run
    let opened = irq::open(&lines, a.hte).map_err(bad)?;
    let cfg = IrqConfig {
        lines,
        driver_cpu,
        waiter_cpu,
        interval: c.interval,
        loops: c.loops,
        warmup: a.warmup,
        fifo: a.rt.priority,
        raw: a.rt.raw,
        timeout,
        stop: &STOP,
    };
    let held = rt::prepare(&a.rt)?;
    let (store, id, mut meta, _claim) =
        rt::begin(&a.rt, driver_cpu, waiter_cpu, "CLOCK_MONOTONIC")?;
    meta.notes.push(held.note());
    meta.notes.push(format!(
        "GPIO loopback on {} ({}): line {} → line {}{}; edges stamped by the kernel on {}",
        cfg.lines.chip.display(),
        opened.label,
        cfg.lines.out,
        cfg.lines.input,
        cfg.lines
            .respond
            .map_or(String::new(), |(r, ri)| format!(", response line {r} → line {ri}")),
        opened.event_clock
    ));
    let expected = c.interval * u32::try_from(c.loops + a.warmup).unwrap_or(u32::MAX);
    crate::errln!(
        "icbench: run {id}: irq on {} line {} → {}{}, driving CPU {driver_cpu}, measuring CPU \
         {waiter_cpu}, {} edges every {} µs (~{:.1} s); edge timestamps: {}",
        cfg.lines.chip.display(),
        cfg.lines.out,
        cfg.lines.input,
        cfg.lines.respond.map_or(String::new(), |(r, ri)| format!(", response {r} → {ri}")),
        c.loops,
        c.interval.as_micros(),
        expected.as_secs_f64(),
        opened.event_clock
    );
    let mut cpus = vec![driver_cpu, waiter_cpu];
    cpus.dedup();
    let load = rt::start_load(&c, &cpus, expected, &mut meta.notes)?;
    install_sigint();
    let run = irq::run_irq(&cfg, opened);
    rt::stop_load(load, &mut meta.notes);
    drop(held);
    if let Some(f) = &run.fault {
        meta.notes.push(format!("stopped early: {f}"));
    }
    let code = rt::finish(&a.rt, store, id, meta, &run.cells, STOP.load(Ordering::SeqCst))?;
    match run.fault {
        Some(f) if !run.interrupted => {
            crate::errln!("icbench: error: {f} (run {id} keeps what was measured)");
            Ok(ExitCode::FAILURE)
        }
        _ => Ok(code),
    }
}
