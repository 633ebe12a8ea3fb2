//! `icbench timer`: cyclictest's measurement, with cyclictest's option
//! letters (-a -i -l -D -p -m -h -b), stored as one timer cell per CPU.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use icbench_engine::cpu::CpuList;
use icbench_engine::rt::timer::{TimerConfig, run_timer};

use crate::cli::TimerArgs;
use crate::cmd::rt;
use crate::cmd::run::{STOP, install_sigint};

pub fn timer(a: &TimerArgs) -> Result<ExitCode> {
    let c = rt::resolve(&a.rt, 10_000)?;
    let cpus = match &a.affinity {
        Some(s) => rt::parse_cpus("-a", s)?,
        None => CpuList::usable().cpus,
    };
    let cfg = TimerConfig {
        cpus: cpus.clone(),
        interval: c.interval,
        loops: c.loops,
        fifo: a.rt.priority,
        break_after: a.breaktrace.map(Duration::from_micros),
        raw: a.rt.raw,
        stop: &STOP,
    };
    let held = rt::prepare(&a.rt)?;
    let (store, id, mut meta, _claim) =
        rt::begin(&a.rt, cpus[0], *cpus.last().unwrap_or(&cpus[0]), "CLOCK_MONOTONIC")?;
    meta.notes.push(held.note());
    let expected = c.interval * u32::try_from(c.loops).unwrap_or(u32::MAX);
    crate::errln!(
        "icbench: run {id}: timer on CPUs {}, {} wake-ups every {} µs each (~{:.1} s)",
        cpus.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
        c.loops,
        c.interval.as_micros(),
        expected.as_secs_f64()
    );
    let load = rt::start_load(&c, &cpus, expected, &mut meta.notes)?;
    install_sigint();
    let run = run_timer(&cfg);
    rt::stop_load(load, &mut meta.notes);
    drop(held);
    if let Some(b) = run.break_hit {
        let line = format!(
            "break: CPU {} woke {} µs late at cycle {} (-b {} µs); every thread stopped",
            b.cpu,
            b.lateness_ns / 1000,
            b.cycle,
            a.breaktrace.unwrap_or(0)
        );
        crate::errln!("icbench: {line}");
        meta.notes.push(line);
    }
    rt::finish(&a.rt, store, id, meta, &run.cells, run.interrupted)
}
