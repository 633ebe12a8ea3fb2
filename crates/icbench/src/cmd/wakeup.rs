//! `icbench wakeup`: one-way wake-up latency through each chosen blocking
//! primitive, sender on one CPU and receiver on another (or the same),
//! stored as one wake-up cell per primitive. The common clock is checked
//! across the two CPUs first.

use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::Result;
use icbench_engine::cpu::CpuList;
use icbench_engine::rt::clockcheck::check_common_clock;
use icbench_engine::rt::wakeup::{PRIMITIVES, WakeupConfig, run_wakeup};

use crate::cli::WakeupArgs;
use crate::cmd::rt;
use crate::cmd::run::{STOP, install_sigint};
use crate::error::bad;
use crate::sizes;

/// Two CPUs from `--cpus A,B` (the first two usable ones by default);
/// `order` says which comes first, for the error.
pub(crate) fn resolve_pair(s: Option<&str>, order: &str) -> Result<(u32, u32)> {
    let usable = CpuList::usable();
    let (a, b) = match s {
        None => usable.default_pair().map_err(|e| bad(e.to_string()))?,
        Some(s) => {
            let parse = |v: &str| v.trim().parse::<u32>().ok();
            match s.split_once(',').map(|(a, b)| (parse(a), parse(b))) {
                Some((Some(a), Some(b))) => (a, b),
                _ => {
                    return Err(bad(format!(
                        "--cpus '{s}': write two CPU numbers, {order}: --cpus 0,1"
                    )));
                }
            }
        }
    };
    for c in [a, b] {
        usable.check(c).map_err(|e| bad(format!("--cpus: {e}")))?;
    }
    Ok((a, b))
}

pub fn wakeup(a: &WakeupArgs) -> Result<ExitCode> {
    let c = rt::resolve(&a.rt, 1_000)?;
    let primitives: Vec<String> = match &a.primitives {
        None => PRIMITIVES.iter().map(|p| p.to_string()).collect(),
        Some(list) => list
            .split(',')
            .map(|p| {
                let p = p.trim();
                if PRIMITIVES.contains(&p) {
                    Ok(p.to_string())
                } else {
                    Err(bad(format!("-P {p}: use {} (comma list)", PRIMITIVES.join(", "))))
                }
            })
            .collect::<Result<_>>()?,
    };
    let (tx, rx) = resolve_pair(a.cpus.as_deref(), "sender first")?;
    let timeout = sizes::duration(&a.timeout).map_err(|e| bad(format!("--timeout: {e}")))?;
    if timeout < icbench_engine::MIN_TIMEOUT {
        return Err(bad(format!(
            "--timeout {}: below the shortest the watchdog honours, 100ms",
            a.timeout
        )));
    }
    let cfg = WakeupConfig {
        sender_cpu: tx,
        receiver_cpu: rx,
        interval: c.interval,
        loops: c.loops,
        warmup: a.warmup,
        fifo: a.rt.priority,
        raw: a.rt.raw,
        timeout: timeout.max(c.interval * 2),
        stop: &STOP,
    };
    let held = rt::prepare(&a.rt)?;
    let (store, id, mut meta, _claim) =
        rt::begin(&a.rt, tx, rx, icbench_engine::clock::CLOCK_NAME)?;
    meta.notes.push(held.note());
    let check = check_common_clock(tx, rx, 10_000, timeout).map_err(anyhow::Error::msg)?;
    if !check.ok() {
        anyhow::bail!(
            "the clock went backwards {} times between CPUs {tx} and {rx} (by up to {} ns): \
             one-way times between them cannot be trusted",
            check.backwards,
            check.worst_backwards_ns
        );
    }
    meta.notes.push(if tx == rx {
        format!("same CPU ({tx}): one clock by construction")
    } else {
        format!(
            "common clock checked: {} hand-overs between CPUs {tx} and {rx}, never backwards",
            check.rounds
        )
    });
    let per = c.interval * u32::try_from(c.loops + a.warmup).unwrap_or(u32::MAX);
    let expected = per * primitives.len() as u32;
    crate::errln!(
        "icbench: run {id}: wake-up CPU {tx} → CPU {rx} through {}, {} each every {} µs (~{:.1} s)",
        primitives.join(", "),
        c.loops,
        c.interval.as_micros(),
        expected.as_secs_f64()
    );
    let mut cpus = vec![tx, rx];
    cpus.dedup();
    let load = rt::start_load(&c, &cpus, expected, &mut meta.notes)?;
    install_sigint();
    let mut cells = Vec::new();
    for p in &primitives {
        match run_wakeup(p, &cfg) {
            Some(cell) => cells.push(cell),
            None => break,
        }
    }
    rt::stop_load(load, &mut meta.notes);
    drop(held);
    rt::finish(&a.rt, store, id, meta, &cells, STOP.load(Ordering::SeqCst))
}
