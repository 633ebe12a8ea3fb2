//! `icbench run`: resolve the plan from the flags, measure the floor and
//! every cell, store each cell as it finishes, print the tables.
//!
//! Stages: [`resolve`] (every bad value is caught here, before anything is
//! measured or stored), [`start`] (placement, store, metadata, floor),
//! [`measure`] (the engine, with a Ctrl-C handler and a progress bar),
//! [`finish`] (end status, tables or JSON).

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use icbench_engine::{
    Budget, CellSpec, EngineConfig, Fault, LinkRun, Observer, PeerLaunch, Protocol, clock, cpu,
};
use icbench_link::LinkSpec;
use icbench_model::{CellKey, CellResult, Pattern, PeerMode, RunStatus, Sched};
use icbench_store::{RunId, Store};
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::{PatternArg, PeerKind, ProtocolArg, RunArgs};
use crate::cmd::{resolve_cpus, show::open_store};
use crate::error::bad;
use crate::meta::{self, Placement};
use crate::sizes;

/// Set by SIGINT; the engine stops after (or inside) the current cell.
pub(crate) static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: i32) {
    STOP.store(true, Ordering::SeqCst);
}

pub(crate) fn install_sigint() {
    // SAFETY: the handler only stores to an atomic (async-signal-safe).
    // SA_RESETHAND: a second Ctrl-C ends icbench at once.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigint as *const () as usize;
        sa.sa_flags = libc::SA_RESETHAND;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
    }
}

/// The run, as resolved from the flags.
struct Plan {
    links: Vec<LinkSpec>,
    cells: Vec<CellSpec>,
    host_cpu: u32,
    peer_cpu: u32,
    online: String,
    cfg: EngineConfig,
    /// Run notes the flags imply (peer program, emulation).
    notes: Vec<String>,
}

/// Seed 000's bulk matrix: block size × blocks (embedded-ipc-anchors §1).
const SEED_000_BULK: [(u64, u32); 11] = [
    (512, 1),
    (512, 2),
    (512, 4),
    (512, 8),
    (1024, 1),
    (1024, 2),
    (1024, 4),
    (1024, 5),
    (2048, 1),
    (2048, 2),
    (4096, 1),
];
/// Seed 001's sizes: 512 B … 32 KiB, one write each.
const SEED_001_SIZES: &str = "512-32K";

fn protocol_of(p: Option<ProtocolArg>) -> Option<Protocol> {
    p.map(|p| match p {
        ProtocolArg::Icb => Protocol::Icb,
        ProtocolArg::Dimtass => Protocol::Dimtass,
        ProtocolArg::Raw => Protocol::Raw,
    })
}

fn resolve_links(a: &RunArgs, protocol: Option<Protocol>) -> Result<Vec<LinkSpec>> {
    let links: Vec<LinkSpec> = if a.links.is_empty() {
        LinkSpec::defaults()
    } else {
        a.links
            .iter()
            .map(|s| LinkSpec::parse(s).map_err(|e| bad(format!("--link {s}: {e}"))))
            .collect::<Result<_>>()?
    };
    for l in &links {
        match (protocol, l.is_remote(), &a.peer_cmd) {
            (None, true, _) => {
                return Err(bad(format!(
                    "--link {l}: the peer of a remote link is the firmware on the device; \
                     say how to talk to it: --protocol icb, dimtass or raw"
                )));
            }
            (Some(p), false, None) => {
                return Err(bad(format!(
                    "--link {l} with --protocol {p}: icbench's own peer speaks only its local \
                     protocol; start a peer that speaks {p} with --peer-cmd, e.g. \
                     --peer-cmd 'firmware/build/icb-peer --path {{path}} --protocol {p}'"
                )));
            }
            _ => {}
        }
    }
    Ok(links)
}

fn resolve_cells(a: &RunArgs, protocol: Option<Protocol>) -> Result<Vec<CellSpec>> {
    let patterns: Vec<Pattern> = if a.patterns.is_empty() {
        match protocol {
            Some(Protocol::Dimtass) => vec![Pattern::Bulk, Pattern::PingPong],
            Some(Protocol::Raw) => vec![Pattern::PingPong],
            _ if a.blocks.is_some() => vec![Pattern::Bulk],
            _ => Pattern::ALL.to_vec(),
        }
    } else {
        a.patterns
            .iter()
            .map(|p| match p {
                PatternArg::Pingpong => Pattern::PingPong,
                PatternArg::Stream => Pattern::Stream,
                PatternArg::Bulk => Pattern::Bulk,
            })
            .collect()
    };
    let pname = protocol.map_or("the local control protocol", Protocol::as_str);
    for &p in &patterns {
        if !icbench_engine::supports(protocol, p) {
            let offered: Vec<&str> = [Pattern::PingPong, Pattern::Stream, Pattern::Bulk]
                .into_iter()
                .filter(|&q| icbench_engine::supports(protocol, q))
                .map(Pattern::as_str)
                .collect();
            return Err(bad(format!(
                "--pattern {p}: not available with {pname}; it offers {}",
                offered.join(", ")
            )));
        }
    }
    let blocks = match &a.blocks {
        None => None,
        Some(_) if !patterns.contains(&Pattern::Bulk) => {
            return Err(bad("--blocks: only the bulk pattern has blocks (add -p bulk)"));
        }
        Some(b) => Some(
            b.split(',')
                .map(|v| v.trim().parse::<u32>().ok().filter(|&n| n > 0))
                .collect::<Option<Vec<u32>>>()
                .ok_or_else(|| {
                    bad(format!("--blocks '{b}': write positive whole numbers, e.g. 1,2,4,8"))
                })?,
        ),
    };
    let sizes_of = |default: &str| {
        let s = a.sizes.as_deref().unwrap_or(default);
        sizes::parse(s).map_err(|e| bad(format!("--sizes: {e}")))
    };
    let mut cells = Vec::new();
    for &p in &patterns {
        match p {
            Pattern::Bulk if blocks.is_none() && a.sizes.is_none() => {
                cells.extend(SEED_000_BULK.iter().map(|&(size_bytes, n)| CellSpec {
                    blocks: Some(n),
                    ..CellSpec::new(p, size_bytes)
                }));
            }
            Pattern::Bulk => {
                let bl = blocks.clone().unwrap_or_else(|| vec![1]);
                for s in sizes_of("1-64K")? {
                    cells.extend(
                        bl.iter().map(|&n| CellSpec { blocks: Some(n), ..CellSpec::new(p, s) }),
                    );
                }
            }
            _ => {
                let default =
                    if protocol == Some(Protocol::Dimtass) { SEED_001_SIZES } else { "1-64K" };
                cells.extend(sizes_of(default)?.into_iter().map(|s| CellSpec::new(p, s)));
            }
        }
    }
    let channels = resolve_channels(a, protocol, &patterns)?;
    for c in &mut cells {
        c.channels = channels;
    }
    Ok(cells)
}

/// `-P N`: 1 … 32 channels; more than one only where the channel path runs
/// (icbench's own peer, pingpong and stream).
fn resolve_channels(a: &RunArgs, protocol: Option<Protocol>, patterns: &[Pattern]) -> Result<u32> {
    let n = a.channels;
    if !(1..=32).contains(&n) {
        return Err(bad(format!("--channels {n}: give 1 to 32 channels")));
    }
    if n > 1 {
        if let Some(p) = protocol {
            return Err(bad(format!(
                "--channels {n}: several channels run only with icbench's own peer, not with \
                 --protocol {p}"
            )));
        }
        if let Some(p) = patterns.iter().find(|p| !matches!(p, Pattern::PingPong | Pattern::Stream))
        {
            return Err(bad(format!(
                "--channels {n}: several channels run pingpong and stream, not {p}"
            )));
        }
    }
    Ok(n)
}

fn resolve(a: &RunArgs) -> Result<Plan> {
    let protocol = protocol_of(a.protocol);
    if a.peer_cmd.is_some() && protocol.is_none() {
        return Err(bad(
            "--peer-cmd: a peer program speaks a wire protocol; say which with --protocol icb, \
             dimtass or raw",
        ));
    }
    let peer_cmd = match a.peer_cmd.as_deref().map(str::split_whitespace) {
        None => None,
        Some(words) => {
            let argv: Vec<String> = words.map(str::to_string).collect();
            if argv.is_empty() {
                return Err(bad("--peer-cmd '': give the program to start, e.g. \
                                --peer-cmd 'firmware/build/icb-peer --path {path}'"));
            }
            Some(argv)
        }
    };
    let links = resolve_links(a, protocol)?;
    let cells = resolve_cells(a, protocol)?;
    let (host_cpu, peer_cpu, usable) = resolve_cpus(&a.cpus)?;
    if let Some(p) = a.fifo.filter(|p| !(1..=99).contains(p)) {
        return Err(bad(format!("--fifo {p}: SCHED_FIFO priorities run from 1 to 99")));
    }
    if a.window < 2 {
        return Err(bad(format!(
            "--window {}: the stream window holds at least 2 messages",
            a.window
        )));
    }
    let timeout = sizes::duration(&a.timeout).map_err(|e| bad(format!("--timeout: {e}")))?;
    let cell_time = sizes::duration(&a.cell_time).map_err(|e| bad(format!("--cell-time: {e}")))?;
    let fault = a
        .peer_fault
        .as_deref()
        .map(Fault::parse)
        .transpose()
        .map_err(|e| bad(format!("--peer-fault: {e}")))?;
    let peer = match a.peer {
        PeerKind::Thread => PeerLaunch::Thread,
        PeerKind::Process => peer_process()?,
    };
    let cfg = EngineConfig {
        host_cpu,
        peer_cpu,
        peer,
        fifo: a.fifo,
        timeout,
        budget: Budget {
            cell_time,
            raw: a.raw,
            window: a.window,
            ci_target: a.ci.as_deref().map(parse_ci).transpose()?,
            ci_max_time: sizes::duration(&a.ci_max_time)
                .map_err(|e| bad(format!("--ci-max-time: {e}")))?,
            channel_stagger: a
                .channel_stagger
                .as_deref()
                .map(sizes::duration)
                .transpose()
                .map_err(|e| bad(format!("--channel-stagger: {e}")))?
                .unwrap_or_default(),
        },
        fault,
        stop: &STOP,
        protocol,
        peer_cmd,
    };
    let mut notes = Vec::new();
    if let Some(p) = protocol {
        let who = match &a.peer_cmd {
            Some(c) => format!("the program `{c}`"),
            None => "the firmware answering on the device".to_string(),
        };
        notes.push(format!("protocol {p}: the peer is {who}, not icbench's own peer"));
    }
    if a.emulated {
        notes.push(
            "the peer runs under emulation: its timings mean nothing; this run checks framing, \
             fragmentation, integrity and the handshake"
                .to_string(),
        );
    }
    Ok(Plan { links, cells, host_cpu, peer_cpu, online: usable.text, cfg, notes })
}

/// `--ci 2%` (or `--ci 2`: a bare number is percent too) → 0.02.
fn parse_ci(s: &str) -> Result<f64> {
    let t = s.trim().trim_end_matches('%').trim();
    match t.parse::<f64>() {
        Ok(p) if p > 0.0 && p < 100.0 => Ok(p / 100.0),
        _ => Err(bad(format!(
            "--ci {s}: give the target half-width of the median's 95 % CI in percent, \
             above 0 and below 100 (e.g. --ci 2%)"
        ))),
    }
}

/// Places this thread, opens the store and records the run's start.
fn start(a: &RunArgs, plan: &Plan) -> Result<(Store, RunId, icbench_model::RunMeta)> {
    cpu::pin_current_thread(plan.host_cpu).map_err(|e| bad(e.to_string()))?;
    if let Some(p) = a.fifo {
        cpu::set_fifo(p).map_err(|e| bad(format!("--fifo: {e}")))?;
    }
    if a.mlock {
        cpu::lock_memory().map_err(|e| bad(format!("--mlock: {e}")))?;
    }
    let mut store = open_store(&a.db)?;
    let placement = Placement {
        host_cpu: plan.host_cpu,
        peer_cpu: plan.peer_cpu,
        online: plan.online.clone(),
        peer_mode: match a.peer {
            PeerKind::Process => PeerMode::Process,
            PeerKind::Thread => PeerMode::Thread,
        },
        sched: a.fifo.map_or(Sched::Other, |priority| Sched::Fifo { priority }),
        mlock: a.mlock,
    };
    let mut meta = meta::gather(&placement, clock::CLOCK_NAME, clock::read_overhead_ns(10_000));
    meta.notes.extend(plan.notes.iter().cloned());
    // What each link reaches (for rpmsg: the remote core's firmware and state).
    for spec in &plan.links {
        meta.notes.extend(icbench_link::notes(spec));
    }
    let id = store.begin_run(&meta)?;
    let total = plan.links.len() * plan.cells.len();
    eprintln!(
        "icbench: run {id}: {} links × {} cells = {total} cells, host CPU {} ↔ peer CPU {} ({} peer); storing in {}",
        plan.links.len(),
        plan.cells.len(),
        plan.host_cpu,
        plan.peer_cpu,
        placement.peer_mode.as_str(),
        a.db.display()
    );
    if !a.no_floor {
        eprintln!("icbench: measuring the floor between the two CPUs …");
        match crate::cmd::floor::measure(plan.host_cpu, plan.peer_cpu)? {
            Some(f) => {
                store.set_floor(id, &f)?;
                meta.floor = Some(f);
            }
            None => meta
                .notes
                .push(format!("CPU {} never answered the floor measurement", plan.peer_cpu)),
        }
    }
    Ok((store, id, meta))
}

/// Stores each finished cell at once and keeps the progress bar moving.
struct Recorder<'a> {
    store: &'a mut Store,
    run: RunId,
    bar: ProgressBar,
    error: Option<anyhow::Error>,
}

impl Observer for Recorder<'_> {
    fn cell_started(&mut self, key: &CellKey) {
        self.bar.set_message(format!("{} {} {} B", key.link, key.pattern, key.size_bytes));
    }

    fn cell_finished(&mut self, result: &CellResult) {
        self.bar.inc(1);
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.store.insert_cell(self.run, result) {
            self.error = Some(e.into());
            STOP.store(true, Ordering::SeqCst);
        }
    }
}

fn measure(plan: &Plan, store: &mut Store, run: RunId) -> Result<RunStatus> {
    install_sigint();
    let bar = ProgressBar::new((plan.links.len() * plan.cells.len()) as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} cells, {elapsed} elapsed, ETA {eta}  {msg}",
        )
        .expect("static template"),
    );
    let mut rec = Recorder { store, run, bar, error: None };
    let mut status = RunStatus::Finished;
    for spec in &plan.links {
        if icbench_engine::run_link(&plan.cfg, spec, &plan.cells, &mut rec) == LinkRun::Interrupted
        {
            status = RunStatus::Interrupted;
            break;
        }
    }
    rec.bar.finish_and_clear();
    if let Some(e) = rec.error {
        return Err(
            e.context("storing a cell; the run stopped, and every cell stored before it is kept")
        );
    }
    Ok(status)
}

pub fn run(a: RunArgs) -> Result<ExitCode> {
    let plan = resolve(&a)?;
    let (mut store, id, mut meta) = start(&a, &plan)?;
    let measured = measure(&plan, &mut store, id);
    let status = match &measured {
        Ok(s) => *s,
        Err(_) => RunStatus::Interrupted,
    };
    meta.status = status;
    meta.ended_unix_ns = Some(meta::now_unix_ns());
    store.finish_run(id, status, meta.ended_unix_ns.unwrap_or(0), None, &meta.notes)?;
    measured?;
    let stored = store.load_run(id)?;
    let view = icbench_report::build(id.0, &stored.meta, &stored.cells);
    let mut out = std::io::stdout().lock();
    if a.json {
        icbench_report::json::run(&view, &mut out)?;
    } else {
        icbench_report::table::run(&view, &mut out)?;
        writeln!(
            out,
            "\nstored as run {id} in {}; `icbench show {id}` prints it again",
            a.db.display()
        )?;
    }
    if status == RunStatus::Interrupted {
        eprintln!(
            "icbench: interrupted: run {id} keeps every finished cell and is marked interrupted"
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// The peer process: this binary re-executed as `icbench __peer`. Under an
/// emulator (qemu-user without a binfmt_misc registration, as
/// `scripts/qemu-run` runs the ARM builds) the kernel cannot exec the binary
/// itself, so when `ICBENCH_EXEC_WRAPPER` names a program, the peer is
/// started through it: `WRAPPER icbench __peer …`.
fn peer_process() -> Result<PeerLaunch> {
    let exe = std::env::current_exe().context("finding the icbench binary to start the peer")?;
    let peer = "__peer".to_string();
    Ok(match std::env::var_os("ICBENCH_EXEC_WRAPPER").filter(|w| !w.is_empty()) {
        None => PeerLaunch::Process { exe, args: vec![peer] },
        Some(wrapper) => PeerLaunch::Process {
            exe: wrapper.into(),
            args: vec![exe.to_string_lossy().into_owned(), peer],
        },
    })
}
