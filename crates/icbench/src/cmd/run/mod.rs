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
mod record;
mod settings;

use std::collections::HashSet;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use icbench_engine::{LinkRun, cpu};
use icbench_link::LinkSpec;
use icbench_model::{CellOutcome, CellResult, Pattern, RunMeta, RunStatus};
use icbench_plan::{Plan, PlanCell};
use icbench_store::{RunId, RunSource, Store};

pub(crate) use flags::FromFlags;
use record::Recorder;
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
/// Claims run `id` for this process ([`crate::claim`]). A database whose
/// lock file cannot be made is measured all the same, saying what is lost;
/// a run another process holds is refused, naming it.
fn claim_run(db: &std::path::Path, id: RunId) -> Result<Option<crate::claim::Claim>> {
    use crate::claim::{Refused, claim};
    match claim(db, id.0) {
        Ok(c) => Ok(Some(c)),
        Err(Refused::Held(Some(pid))) => Err(bad(format!(
            "run {id} is being measured by process {pid}: wait for it, or stop it (kill {pid}) \
             and then resume"
        ))),
        Err(Refused::Held(None)) => Err(bad(format!(
            "run {id} is being measured by another process (its lock file {}.lock is gone, so \
             it cannot be named): wait for it, or stop it, and then resume",
            db.display()
        ))),
        Err(Refused::Io(e)) => {
            crate::errln!(
                "icbench: warning: cannot lock {}.lock ({e}): nothing stops a second `--resume {id}` \
                 from measuring this run at the same time",
                db.display()
            );
            Ok(None)
        }
    }
}

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
    let claim = claim_run(&a.db, id)?;
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

/// Places this thread for a group of cells: its host CPU and scheduling.
fn place_cell(settings: &Settings, cell: &PlanCell) -> Result<(), String> {
    let (host, _) = settings.cpus_of(cell);
    cpu::pin_current_thread(host).map_err(|e| e.to_string())?;
    match settings.fifo_of(cell) {
        Some(p) => cpu::set_fifo(p).map_err(|e| e.to_string()),
        None => cpu::set_other().map_err(|e| e.to_string()),
    }
}

/// Consecutive cells that can share one session (same link, placement and
/// scheduling).
fn groups(cells: &[PlanCell]) -> Vec<&[PlanCell]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=cells.len() {
        if i == cells.len() || !cells[i - 1].shares_session(&cells[i]) {
            out.push(&cells[start..i]);
            start = i;
        }
    }
    out
}

/// How measuring ended: the status, why a budget stopped it, and the notes
/// the engine reported on the way.
type Measured = Result<(RunStatus, Option<String>, Vec<String>)>;

/// Measures `todo` (cells of `plan`, in order) into run `run`.
#[allow(clippy::too_many_arguments)]
fn measure(
    store: &mut Store,
    run: RunId,
    plan: &Plan,
    settings: &Settings,
    todo: &[PlanCell],
    fault: Option<icbench_engine::Fault>,
    a: &RunArgs,
    done: usize,
) -> Measured {
    let (json_stream, no_remeasure) = (a.json_stream, a.no_remeasure);
    install_sigint();
    let cell_time = Duration::from_nanos(plan.cell_time_ns);
    let deadline = plan.budget_ns.map(|b| Instant::now() + Duration::from_nanos(b));
    let peer = settings::peer_launch(settings.peer)?;
    let mut rec = Recorder::new(store, run, plan.cells.len(), done, json_stream);
    let mut faulted = HashSet::new();
    // Kept across the groups: each CPU pair's clock is checked once a run.
    let mut clocks = icbench_engine::ClockChecks::new();
    let mut status = (RunStatus::Finished, None);
    // A budget is looked at between cells: with one, every cell is its own
    // group (its own session), so that a spent budget stops the run at the
    // next cell whatever the plan's grouping (before, a one-link plan ran
    // whole: issue #22).
    let mut round: Vec<PlanCell> = todo.to_vec();
    let mut remeasured = false;
    // The re-measure round may take a quarter of the planned blocks' time
    // (REMEASURE_SHARE): on a machine that disturbs most blocks it would
    // otherwise add a third to the run (2026-11-26: 222-289 of 900 blocks,
    // 51-62 s default runs), and the default run is to stay within a minute.
    let planned_start = Instant::now();
    // (until when the re-measure round may run, the planned blocks' time)
    let mut remeasure_until: Option<(Instant, Duration)> = None;
    'rounds: loop {
        let grouped: Vec<&[PlanCell]> =
            if deadline.is_some() { round.chunks(1).collect() } else { groups(&round) };
        let mut measured_in_round = 0;
        for (i, group) in grouped.into_iter().enumerate() {
            if STOP.load(Ordering::SeqCst) {
                status.0 = RunStatus::Interrupted;
                break;
            }
            // The round's first group always runs: on a loaded machine the
            // time between setting the limit and this check can exceed it
            // (CI, 2026-11-28: a hogged 2-block run re-measured nothing).
            if let Some((until, planned)) = remeasure_until
                && measured_in_round > 0
                && Instant::now() >= until
            {
                let left = round.len() - measured_in_round;
                icbench_engine::Observer::run_note(
                    &mut rec,
                    &format!(
                        "{left} of {} disturbed blocks not measured again: the round may take a \
                         quarter of the planned blocks' {:.1} s, and that was spent",
                        round.len(),
                        planned.as_secs_f64()
                    ),
                );
                break 'rounds;
            }
            measured_in_round += group.len();
            // The first cell always runs, so every invocation makes progress
            // however small the budget (and `--resume` always gets further).
            if (i > 0 || remeasured) && deadline.is_some_and(|d| Instant::now() >= d) {
                let spent = icbench_plan::estimate::human(Duration::from_nanos(
                    plan.budget_ns.unwrap_or(0),
                ));
                status = (
                    RunStatus::Interrupted,
                    Some(format!(
                        "the plan's budget of {spent} was spent: {} blocks measured, {} left; \
                     `icbench run --resume {run}` measures them",
                        rec.stored,
                        (todo.len() + rec.extra).saturating_sub(rec.stored)
                    )),
                );
                break 'rounds;
            }
            let c0 = &group[0];
            let spec = LinkSpec::parse(&c0.link).map_err(|e| {
                anyhow::anyhow!("the plan's link '{}' no longer parses: {e}", c0.link)
            })?;
            rec.expect(group);
            let specs: Vec<_> = group.iter().map(settings::cell_spec).collect();
            if let Err(reason) = place_cell(settings, c0) {
                // Every cell of the group fails with the reason; the run goes on.
                let cfg = settings.engine(c0, cell_time, peer.clone(), None);
                for c in &specs {
                    let key = c.key(&cfg, &spec);
                    icbench_engine::Observer::cell_started(&mut rec, &key);
                    let outcome =
                        CellOutcome::Failed { reason: format!("placing the host: {reason}") };
                    icbench_engine::Observer::cell_finished(&mut rec, &CellResult { key, outcome });
                }
                continue;
            }
            let f = if faulted.insert(c0.link.clone()) { fault } else { None };
            let cfg = settings.engine(c0, cell_time, peer.clone(), f);
            if icbench_engine::run_link(&cfg, &spec, &specs, &mut clocks, &mut rec)
                == LinkRun::Interrupted
            {
                status.0 = RunStatus::Interrupted;
                break 'rounds;
            }
            if rec.error.is_some() {
                break 'rounds;
            }
        }
        // Once, after every planned cell: each block the kernel's counters
        // showed disturbed is measured again, in a new random order (issue #15;
        // at most one extra block per planned block, so at most K per cell).
        if remeasured || no_remeasure || plan.repetitions < 2 || STOP.load(Ordering::SeqCst) {
            break;
        }
        round = remeasure(plan, &rec.to_measure_again());
        if round.is_empty() {
            break;
        }
        remeasured = true;
        let planned = planned_start.elapsed();
        remeasure_until = Some((Instant::now() + planned / REMEASURE_SHARE, planned));
        rec.add_cells(round.len());
        icbench_engine::Observer::run_note(
            &mut rec,
            &format!(
                "{} disturbed blocks measured again after the planned ones (the view uses the \
             undisturbed blocks of a cell when at least two remain)",
                round.len()
            ),
        );
    }
    let probes = rec.probes;
    let (mut notes, error) = rec.finish();
    if probes.0 > 0 {
        let spent = planned_start.elapsed().as_nanos().max(1) as f64;
        notes.push(format!(
            "state probe (a one-cache-line and a wake-up round trip) before each of {} sessions: {:.0} ms in \
             all, {:.1} % of the measuring; `show --blocks` lists each block's probe",
            probes.0,
            probes.1 as f64 / 1e6,
            probes.1 as f64 / spent * 100.0
        ));
    }
    if let Some(e) = error {
        return Err(
            e.context("storing a cell; the run stopped, and every cell stored before it is kept")
        );
    }
    Ok((status.0, status.1, notes))
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

/// The re-measure round's time is at most the planned blocks' time divided
/// by this (docs/method.md, "Replicates").
const REMEASURE_SHARE: u32 = 4;

/// The blocks to measure again: one new block per disturbed block, with
/// the next `rep` of its cell and a plan index past the plan's (a resumed
/// run measures the plan, not these), in a random order from the plan's
/// seed.
fn remeasure(plan: &Plan, disturbed: &[PlanCell]) -> Vec<PlanCell> {
    let mut next_rep: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(disturbed.len());
    for c in disturbed {
        let mut t = c.clone();
        t.index = 0;
        t.rep = 0;
        t.factors.remove("rep");
        let key = serde_json::to_string(&t).unwrap_or_default();
        let r = next_rep.entry(key).or_insert(plan.repetitions);
        let mut extra = c.clone();
        extra.rep = *r;
        extra.factors.insert("rep".into(), r.to_string());
        *r += 1;
        out.push(extra);
    }
    icbench_plan::order::shuffle(&mut out, plan.seed ^ 0x5eed_0f2e_4ea5);
    for (i, c) in out.iter_mut().enumerate() {
        c.index = (plan.cells.len() + i) as u32;
    }
    out
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
            "--resume {id}: run {id} has no stored plan (it was made before icbench kept plans); \
             start a new run"
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
    let _claim = claim_run(&a.db, id).map_err(|e| bad(format!("--resume {id}: {e:#}")))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(link: &str, channels: u32) -> PlanCell {
        PlanCell { channels, ..PlanCell::new(link, Pattern::PingPong, 64) }
    }

    #[test]
    fn consecutive_cells_of_one_link_share_a_session() {
        let cells =
            [cell("pipe", 1), cell("pipe", 1), cell("unix", 1), cell("unix", 4), cell("pipe", 1)];
        let sizes: Vec<usize> = groups(&cells).iter().map(|g| g.len()).collect();
        assert_eq!(sizes, [2, 1, 1, 1]);
        assert!(groups(&[]).is_empty());
    }
}
