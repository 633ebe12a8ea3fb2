//! `icbench run`: a plan (from flags, from a plan file, or the stored plan of
//! a run to resume), measured cell by cell, each cell stored as it finishes.
//!
//! Stages: resolve ([`flags`], [`from_file`], [`resume`]: every bad value is
//! caught before anything is measured or stored), [`start`] (placement,
//! store, metadata, plan, floor), [`measure`] (the engine, cell group by
//! cell group, with a Ctrl-C handler, the budget and a progress bar),
//! [`finish`] (end status, tables or JSON).

#[cfg(test)]
mod arg_fuzz;
mod flags;
mod measure;
mod record;
mod settings;

use std::collections::HashSet;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use icbench_engine::cpu;
use icbench_link::LinkSpec;
use icbench_model::{Pattern, RunMeta, RunStatus};
use icbench_plan::{Plan, PlanCell};
use icbench_store::{RunId, RunSource, Store};

pub(crate) use flags::FromFlags;
use measure::{Measured, measure};
pub(crate) use settings::{Settings, peer_launch};

use crate::cli::RunArgs;
use crate::cmd::show::{open_existing, open_store, resolve_run};
use crate::error::bad;
use crate::meta::{self, Placement};

/// Set by SIGINT, SIGTERM or SIGHUP; the engine stops after (or inside)
/// the current cell.
pub(crate) static STOP: AtomicBool = AtomicBool::new(false);
/// The signal that set [`STOP`] (0: none yet).
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_stop_signal(sig: i32) {
    let _ = STOPPED_BY.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
}

/// Ctrl-C, `kill` (SIGTERM) and a closed terminal (SIGHUP) all end a run
/// the same way: the current cell is abandoned, every finished one is
/// kept and the run is marked interrupted (before, SIGTERM killed icbench
/// and left the run "running" for ever, issue #22).
pub(crate) fn install_sigint() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only touches atomics (async-signal-safe).
        // SA_RESETHAND: a second signal ends icbench at once.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_stop_signal as *const () as usize;
            sa.sa_flags = libc::SA_RESETHAND;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Back to the default action for the signals [`install_sigint`] caught:
/// once the run is stored, a signal ends icbench at once, as it ends `show`
/// or `report`, instead of setting a flag no stage after measuring looks at
/// (issue #35: SIGTERM from `timeout` did not end a run that had measured
/// and was stuck analysing). The shell then reports 128 + the signal, the
/// same status an interrupted run exits with.
pub(crate) fn restore_default_signals() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: resetting a disposition to SIG_DFL has no preconditions.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

/// The exit status of a run a signal stopped: 128 + the signal, as a
/// shell reports a process the signal killed (130 for Ctrl-C, 143 for
/// SIGTERM, 129 for SIGHUP).
pub(crate) fn interrupted_exit() -> ExitCode {
    let sig = match STOPPED_BY.load(Ordering::SeqCst) {
        0 => libc::SIGINT,
        s => s,
    };
    ExitCode::from(128 + sig as u8)
}

pub fn run(a: RunArgs) -> Result<ExitCode> {
    meta::check_text("--label", a.label.as_deref(), meta::MAX_LABEL)?;
    meta::check_text("--note", a.note.as_deref(), meta::MAX_NOTE)?;
    if let Some(which) = &a.resume {
        return resume(&a, which);
    }
    let FromFlags { plan, settings, fault, notes, seeded } = match &a.plan {
        Some(path) => from_file(&a, path)?,
        None => flags::resolve(&a)?,
    };
    if a.dry_run {
        let mut out = crate::term::stdout();
        crate::cmd::plan::print(&plan, &settings.source, seeded, a.json, &mut out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (mut store, id, mut meta, _claim) = start(&a, &settings, &plan, notes)?;
    let measured = measure(&mut store, id, &plan, &settings, &plan.cells, fault, &a, 0);
    finish(&a, store, id, &mut meta, measured)
}

/// A run from a plan file: the file's cells, the flags' settings.
pub(crate) fn from_file(a: &RunArgs, path: &std::path::Path) -> Result<FromFlags> {
    let flags::FlagSettings { settings, fault, notes, cell_time_ns } =
        flags::settings(a, path.display().to_string())?;
    if let Some(p) = &settings.protocol {
        return Err(bad(format!(
            "--plan with --protocol {p}: a plan measures local links with icbench's own peer; \
             drop --protocol"
        )));
    }
    let ctx = icbench_plan::Context {
        online: cpu::CpuList::usable().cpus,
        default_cell_time: Duration::from_nanos(cell_time_ns),
        seed_if_absent: fresh_seed(),
    };
    let (plan, seeded) = crate::cmd::plan::load(path, &ctx)?;
    // Adaptive phases extend a timed cell; a transfer cell ends with its bytes.
    let transfer =
        plan.cells.iter().filter(|c| c.pattern == Pattern::PingPong).find_map(|c| c.transfer_bytes);
    if let (Some(_), Some(t)) = (settings.ci_target, transfer) {
        return Err(bad(format!(
            "--ci with --plan {}: its pingpong cells with a transfer size (transfer = {t} B) stop \
             when their bytes are moved, so --ci cannot add phases to them; drop --ci or the \
             plan's transfer factor",
            path.display()
        )));
    }
    Ok(FromFlags { plan, settings, fault, notes, seeded })
}

/// A seed for a plan that names none (recorded with the run, so any value
/// will do as long as runs differ).
pub(crate) fn fresh_seed() -> u64 {
    let t = meta::now_unix_ns() as u64;
    // SplitMix64's finaliser spreads the clock's low bits over the word.
    let mut z = t ^ (u64::from(std::process::id()) << 32);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) >> 1 // below 2^63: TOML and SQLite integers are signed
}

/// Places this thread, opens the store, records the run's start, its plan
/// and its floor.
fn start(
    a: &RunArgs,
    settings: &Settings,
    plan: &Plan,
    notes: Vec<String>,
) -> Result<(Store, RunId, RunMeta, Option<crate::claim::Claim>)> {
    // From here on Ctrl-C marks the run interrupted (the floor's few
    // seconds included: `measure` sees the request before its first cell)
    // instead of leaving it 'running' for good.
    install_sigint();
    place_host(settings)?;
    let mut store = open_store(&a.db)?;
    let placement = Placement {
        host_cpu: settings.host_cpu,
        peer_cpu: settings.peer_cpu,
        online: settings.online.clone(),
        peer_mode: settings.peer,
        sched: settings.sched(),
        mlock: settings.mlock,
    };
    let mut meta = meta::gather(
        &placement,
        icbench_engine::clock::CLOCK_NAME,
        icbench_engine::clock::read_overhead_ns(10_000),
        settings.clock_granule_ns,
    );
    meta.label = a.label.clone();
    meta.user_note = a.note.clone();
    meta.notes.extend(notes);
    meta.notes.extend(unprivileged_note(rustix::process::geteuid().as_raw(), settings));
    // Named once here; in each cell such a counter is absent, never 0.
    let missing = icbench_engine::disturb::missing(settings.host_cpu, settings.peer_cpu);
    if !missing.is_empty() {
        meta.notes.push(format!(
            "disturbance counters this machine does not offer (absent from every cell): {}",
            missing.join(", ")
        ));
    }
    if settings.source != "flags" {
        meta.notes.push(plan_note(plan, &settings.source));
    } else if plan.repetitions > 1 {
        meta.notes.push(format!(
            "each cell in {} blocks, every block of every cell in one random order (seed {}, {})",
            plan.repetitions,
            plan.seed,
            icbench_plan::order::ORDER_GENERATOR
        ));
    }
    // What each link reaches (for rpmsg: the remote core's firmware and state).
    let mut seen = HashSet::new();
    for l in plan.cells.iter().map(|c| c.link.as_str()).filter(|l| seen.insert(*l)) {
        if let Ok(spec) = LinkSpec::parse(l) {
            meta.notes.extend(icbench_link::notes(&spec));
        }
    }
    let id = store.begin_run(&meta)?;
    let claim = crate::claim::run(&a.db, id)?;
    store.set_plan(id, &serde_json::to_string(plan)?, &serde_json::to_string(settings)?)?;
    // Issue #29 item 5: a cell is a row, a block one measurement of it.
    let cells = plan.cells.iter().filter(|c| c.rep == 0).count();
    let blocks = match plan.cells.len() {
        n if n == cells => String::new(),
        n => format!(" in {n} blocks"),
    };
    crate::say::say(&format!(
        "run {id}: {cells} cells{blocks} ({}), host CPU {} ↔ peer CPU {} ({} peer); storing in {}",
        if settings.source == "flags" {
            "from the flags".to_string()
        } else {
            settings.source.clone()
        },
        settings.host_cpu,
        settings.peer_cpu,
        settings.peer.as_str(),
        a.db.display()
    ));
    if !settings.no_floor {
        crate::errln!("icbench: measuring the floor between the two CPUs …");
        let cfg = settings.floor_engine(settings::peer_launch(settings.peer)?);
        let (floor, floor_notes) = crate::cmd::floor::measure(&cfg)?;
        meta.notes.extend(floor_notes);
        match floor {
            Some(f) => {
                store.set_floor(id, &f)?;
                meta.floor = Some(f);
            }
            None => meta
                .notes
                .push(format!("CPU {} never answered the floor measurement", settings.peer_cpu)),
        }
    }
    Ok((store, id, meta, claim))
}

fn plan_note(plan: &Plan, source: &str) -> String {
    format!(
        "plan {source}{}: {} cells, order {} (seed {}, {}), {} repetition(s); varied: {}",
        plan.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default(),
        plan.cells.len(),
        if plan.order == icbench_plan::Order::Random { "random" } else { "listed" },
        plan.seed,
        icbench_plan::order::ORDER_GENERATOR,
        plan.repetitions,
        if plan.varied.is_empty() { "nothing".to_string() } else { plan.varied.join(", ") }
    )
}

/// Pins this thread to the host CPU, applies the run's scheduling and
/// memory locking; refusals are the user's to fix (exit 2).
/// What a run as an ordinary user goes without, said once in the run's
/// notes (issue #22: only `doctor` said what root would add).
fn unprivileged_note(euid: u32, settings: &Settings) -> Option<String> {
    if euid == 0 {
        return None;
    }
    let sched = if settings.fifo.is_some() {
        "SCHED_FIFO was permitted"
    } else {
        "SCHED_OTHER (--fifo needs root or CAP_SYS_NICE)"
    };
    Some(format!(
        "not root (uid {euid}): {sched}; other users' processes and interrupts may share the \
         measured CPUs unless isolated; `icbench doctor` lists what root would add"
    ))
}

fn place_host(settings: &Settings) -> Result<()> {
    cpu::pin_current_thread(settings.host_cpu).map_err(|e| bad(e.to_string()))?;
    if let Some(p) = settings.fifo {
        cpu::set_fifo(p).map_err(|e| bad(format!("--fifo: {e}")))?;
    }
    if settings.mlock {
        cpu::lock_memory().map_err(|e| bad(format!("--mlock: {e}")))?;
    }
    Ok(())
}

/// The floor's cheap part again after the last cell, under SCHED_OTHER as
/// at the head: whether the machine changed under the run (issue #15).
fn floor_tail(store: &mut Store, id: RunId, meta: &mut RunMeta) -> Result<()> {
    crate::errln!("icbench: measuring the floor again at the tail …");
    let fifo = cpu::current_fifo_priority();
    if fifo.is_some() {
        cpu::set_other().map_err(|e| anyhow::anyhow!("floor at the tail: {e}"))?;
    }
    let tail = icbench_engine::floor::tail(meta.host_cpu, meta.peer_cpu);
    if let Some(p) = fifo {
        cpu::set_fifo(p).map_err(|e| bad(format!("--fifo: {e}")))?;
    }
    match tail {
        Ok(Some(t)) => {
            store.set_floor_tail(id, &t)?;
            meta.floor_tail = Some(t);
        }
        Ok(None) => meta.notes.push(format!(
            "CPU {} never answered the floor measurement at the tail",
            meta.peer_cpu
        )),
        Err(e) => meta.notes.push(format!("floor at the tail: {e}")),
    }
    Ok(())
}

/// Records how the run ended and prints it.
fn finish(
    a: &RunArgs,
    mut store: Store,
    id: RunId,
    meta: &mut RunMeta,
    measured: Measured,
) -> Result<ExitCode> {
    let (status, note) = match &measured {
        Ok((s, n, notes)) => {
            meta.notes.extend(notes.iter().cloned());
            (*s, n.clone())
        }
        Err(_) => (RunStatus::Interrupted, None),
    };
    if status == RunStatus::Finished && meta.floor.is_some() {
        floor_tail(&mut store, id, meta)?;
    }
    meta.status = status;
    meta.ended_unix_ns = Some(meta::now_unix_ns());
    meta.notes.extend(note.clone());
    store.finish_run(id, status, meta.ended_unix_ns.unwrap_or(0), None, &meta.notes)?;
    restore_default_signals();
    measured?;
    let stored = store.load_run(id)?;
    let view = icbench_report::build(id.0, &stored.meta, &stored.cells)
        .with_history(&crate::cmd::show::host_history(&store, &stored)?);
    store.set_verdict(id, view.verdict.as_ref().map_or("not judged", |v| v.verdict))?;
    if store.check_file()? {
        crate::say::say(&format!(
            "{} was removed while the run was measured; it is written back with every run it \
             held",
            a.db.display()
        ));
    }
    let mut out = crate::term::stdout();
    if a.json_stream {
        let end = serde_json::json!({
            "event": "end", "run": id.0, "status": status.as_str(), "cells": stored.cells.len(),
        });
        // A reader that closed its end has been told of in a note already.
        if let Err(e) = writeln!(out, "{end}").and_then(|()| out.flush())
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            return Err(e.into());
        }
    } else {
        if a.json {
            icbench_report::json::run(&view, &mut out)?;
        } else {
            icbench_report::table::run(&view, &mut out, crate::cmd::show::detail(a.cells))?;
            let stored = format!(
                "stored as run {id} in {}; `icbench show {id}` prints it again",
                a.db.display()
            );
            let width = icbench_report::table::text_width();
            writeln!(out, "\n{}", icbench_report::format::wrap(&stored, width).join("\n"))?;
        }
    }
    if let Some(n) = note {
        crate::say::say(&format!("stopped: {n}"));
    }
    if status == RunStatus::Interrupted {
        crate::say::say(&format!(
            "interrupted: run {id} keeps every finished cell and is marked interrupted; \
             `icbench run --resume {id}` measures the rest"
        ));
        return Ok(interrupted_exit());
    }
    if nothing_measured(&stored.cells) {
        crate::say::say(&format!(
            "nothing was measured: every one of run {id}'s {} blocks failed or does not apply \
             here (the reasons are in the table; `icbench doctor` checks the machine)",
            stored.cells.len()
        ));
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// A finished run in which no cell was measured is a failure (issue #30
/// item 9: a peer program that does not exist, a bridge unit nothing
/// serves, an impossible window — each failed every cell and exited 0).
fn nothing_measured(cells: &[icbench_model::CellResult]) -> bool {
    !cells.iter().any(|c| matches!(c.outcome, icbench_model::CellOutcome::Measured(_)))
}

/// `icbench run --resume RUN`: the stored plan's cells that are not stored
/// yet, with the stored settings, into the same run.
fn resume(a: &RunArgs, which: &str) -> Result<ExitCode> {
    let mut store = open_existing(&a.db).map_err(|e| bad(format!("--resume: {e:#}")))?;
    let id = resolve_run(&store, &a.db, which).map_err(|e| bad(format!("--resume: {e:#}")))?;
    let stored = store.load_run(id).map_err(|e| bad(format!("--resume: {e}")))?;
    if stored.source != RunSource::Measured {
        return Err(bad(format!("--resume {id}: run {id} was imported, not measured")));
    }
    if stored.meta.status == RunStatus::Finished {
        return Err(bad(format!("--resume {id}: run {id} finished; nothing is left to measure")));
    }
    let Some((plan_json, settings_json, _)) = store.plan(id)? else {
        return Err(bad(format!(
            "--resume {id}: run {id} has no stored plan (`icbench chip`, `timer`, `wakeup` and \
             `irq` keep none, nor did icbench before it kept plans): start a new run"
        )));
    };
    let corrupt = |what: &str, e: serde_json::Error| {
        anyhow::anyhow!("run {id}'s stored {what} cannot be read ({e}); start a new run")
    };
    let plan: Plan = serde_json::from_str(&plan_json).map_err(|e| corrupt("plan", e))?;
    let settings: Settings =
        serde_json::from_str(&settings_json).map_err(|e| corrupt("settings", e))?;
    let usable = cpu::CpuList::usable();
    for c in [settings.host_cpu, settings.peer_cpu] {
        usable.check(c).map_err(|e| bad(format!("--resume {id}: {e}")))?;
    }
    // Before anything is read as done: a second --resume of a run being
    // measured would measure the same cells again (issue #22).
    let _claim = crate::claim::run(&a.db, id).map_err(|e| bad(format!("--resume {id}: {e:#}")))?;
    let done: HashSet<u32> = store.plan_indexes_done(id)?.into_iter().collect();
    let todo: Vec<PlanCell> =
        plan.cells.iter().filter(|c| !done.contains(&c.index)).cloned().collect();
    place_host(&settings)?;
    let note = format!(
        "resumed at {}: {} of {} blocks were stored, {} left",
        icbench_report::format::unix_ns(meta::now_unix_ns()),
        done.len(),
        plan.cells.len(),
        todo.len()
    );
    store.reopen_run(id, &note).context("marking the run as running again")?;
    crate::say::say(&format!("run {id}: {note}"));
    let mut meta = store.load_run(id)?.meta;
    let measured = measure(&mut store, id, &plan, &settings, &todo, None, a, done.len());
    finish(a, store, id, &mut meta, measured)
}
