//! What `icbench timer` and `icbench wakeup` share: checking the rt-tests
//! style options, scheduling and memory locking, the load around the
//! measurement, the store, and the outputs (table or rt-tests-style JSON,
//! and the histogram text for `--histfile`).

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use icbench_engine::cpu::{self, CpuList};
use icbench_engine::rt::load::{LoadKind, LoadPlan, LoadTool, RunningLoad};
use icbench_engine::rt::pmqos;
use icbench_model::{CellOutcome, CellResult, PeerMode, RunMeta, RunStatus, Sched};
use icbench_report::rt::SysInfo;
use icbench_report::rthist::{self, HistColumn};
use icbench_store::{RunId, Store};

use crate::cli::RtCommon;
use crate::cmd::show::open_store;
use crate::error::bad;
use crate::meta::{self, Placement};
use crate::sizes;

/// The checked common options.
pub(crate) struct Common {
    pub interval: Duration,
    pub loops: u64,
    pub load: Option<(Vec<LoadKind>, Option<Vec<u32>>, LoadTool)>,
}

/// Checks the options both commands share. `default_loops` applies when
/// neither -l nor -D is given.
pub(crate) fn resolve(a: &RtCommon, default_loops: u64) -> Result<Common> {
    if a.interval == 0 || a.interval > 10_000_000 {
        return Err(bad(format!(
            "-i {}: the interval is in µs, from 1 to 10000000 (10 s)",
            a.interval
        )));
    }
    if let Some(p) = a.priority.filter(|p| !(1..=99).contains(p)) {
        return Err(bad(format!("-p {p}: SCHED_FIFO priorities run from 1 to 99")));
    }
    if a.histogram == 0 || a.histogram > 1_000_000 {
        return Err(bad(format!(
            "--histogram {}: the histogram range is in µs, from 1 to 1000000",
            a.histogram
        )));
    }
    let interval = Duration::from_micros(a.interval);
    let loops = match (&a.loops, &a.duration) {
        (Some(0), _) => {
            return Err(bad("-l 0: icbench needs an end: give a number of loops above 0 or -D"));
        }
        (Some(l), _) => *l,
        (None, Some(d)) => {
            let d = sizes::duration(d).map_err(|e| bad(format!("-D: {e}")))?;
            (d.as_nanos() / interval.as_nanos()).max(1) as u64
        }
        (None, None) => default_loops,
    };
    if loops >= u64::from(u32::MAX) {
        return Err(bad(format!("-l {loops}: at most {} loops", u32::MAX - 1)));
    }
    let load = match &a.load {
        None => None,
        Some(list) => {
            let kinds = list
                .split(',')
                .map(|k| {
                    LoadKind::parse(k.trim()).ok_or_else(|| {
                        bad(format!("--load {k}: use cpu, memory, ipc, io or net (comma list)"))
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let cpus = a.load_cpus.as_deref().map(|s| parse_cpus("--load-cpus", s)).transpose()?;
            let tool = match a.load_with.as_str() {
                "auto" => LoadTool::Auto,
                "stress-ng" => LoadTool::StressNg,
                "builtin" => LoadTool::Builtin,
                other => {
                    return Err(bad(format!(
                        "--load-with {other}: use auto, stress-ng or builtin"
                    )));
                }
            };
            Some((kinds, cpus, tool))
        }
    };
    if a.load.is_none() && a.load_cpus.is_some() {
        return Err(bad("--load-cpus needs --load KINDS"));
    }
    Ok(Common { interval, loops, load })
}

/// Parses a CPU list (`0-3,6`) and checks each CPU is usable.
pub(crate) fn parse_cpus(flag: &str, s: &str) -> Result<Vec<u32>> {
    let list = CpuList::parse(s)
        .filter(|l| !l.cpus.is_empty())
        .ok_or_else(|| bad(format!("{flag} '{s}': write CPUs as a list, e.g. 0-3,6")))?;
    let usable = CpuList::usable();
    if let Some(c) = list.cpus.iter().find(|&&c| usable.check(c).is_err()) {
        // Not CpuError's text: its advice is run's --cpus A,B.
        return Err(bad(format!(
            "{flag} {s}: CPU {c} is not online (online: {usable}); give CPUs from that list"
        )));
    }
    let mut cpus = list.cpus;
    cpus.dedup();
    Ok(cpus)
}

/// What stays in force while the measurement runs: the PM QoS request of
/// `--dma-latency`, dropped with this.
pub(crate) struct Prepared {
    dma: Option<pmqos::DmaLatency>,
}

impl Prepared {
    /// The run note saying how idle states were treated, so that figures
    /// compared with cyclictest's say why they may differ (issue #15 item 11).
    pub fn note(&self) -> String {
        match &self.dma {
            Some(d) => format!(
                "{} held at {} µs while measuring (--dma-latency; cyclictest holds 0 by default)",
                pmqos::DEVICE,
                d.us
            ),
            None => format!(
                "{} not held: the figures include the exit latency of the CPUs' idle states; \
                 cyclictest holds it at 0 by default (--dma-latency 0 measures as it does)",
                pmqos::DEVICE
            ),
        }
    }
}

/// Applies -m, checks -p is permitted (in a scratch thread, so this
/// thread's policy is untouched) and takes the `--dma-latency` request,
/// before anything is measured.
pub(crate) fn prepare(a: &RtCommon) -> Result<Prepared> {
    if a.mlockall {
        cpu::lock_memory().map_err(|e| bad(format!("-m: {e}")))?;
    }
    if let Some(p) = a.priority {
        std::thread::spawn(move || cpu::set_fifo(p))
            .join()
            .map_err(|_| anyhow::anyhow!("checking SCHED_FIFO: thread panicked"))?
            .map_err(|e| bad(format!("-p: {e}")))?;
    }
    let dma = a
        .dma_latency
        .map(pmqos::hold)
        .transpose()
        .map_err(|e| bad(format!("--dma-latency: {e}")))?;
    Ok(Prepared { dma })
}

/// Opens the store, records the start of the run and claims it for this
/// process ([`crate::claim::run`]).
pub(crate) fn begin(
    a: &RtCommon,
    host_cpu: u32,
    peer_cpu: u32,
    clock: &str,
) -> Result<(Store, RunId, RunMeta, Option<crate::claim::Claim>)> {
    let mut store = open_store(&a.db)?;
    let placement = Placement {
        host_cpu,
        peer_cpu,
        online: CpuList::usable().text,
        peer_mode: PeerMode::Thread,
        sched: a.priority.map_or(Sched::Other, |priority| Sched::Fifo { priority }),
        mlock: a.mlockall,
    };
    let overhead = icbench_engine::clock::read_overhead_ns(10_000);
    let m = meta::gather(&placement, clock, overhead, icbench_engine::clock::granule_ns());
    let id = store.begin_run(&m)?;
    let claim = crate::claim::run(&a.db, id)?;
    Ok((store, id, m, claim))
}

/// Starts the load, if any, bounded to the measurement's expected length
/// plus a minute.
pub(crate) fn start_load(
    c: &Common,
    measured_cpus: &[u32],
    expected: Duration,
    notes: &mut Vec<String>,
) -> Result<Option<RunningLoad>> {
    let Some((kinds, cpus, tool)) = &c.load else { return Ok(None) };
    let plan = LoadPlan {
        kinds: kinds.clone(),
        cpus: cpus.clone().unwrap_or_else(|| measured_cpus.to_vec()),
        tool: *tool,
        bound: expected + Duration::from_secs(60),
        tmp_dir: std::env::temp_dir(),
    };
    let load = RunningLoad::start(&plan).map_err(|e| bad(format!("--load: {e}")))?;
    crate::errln!("icbench: load: {}", load.description);
    notes.push(format!("load: {}", load.description));
    // Let the load reach its steady state before measuring.
    std::thread::sleep(Duration::from_millis(500));
    Ok(Some(load))
}

pub(crate) fn stop_load(load: Option<RunningLoad>, notes: &mut Vec<String>) {
    if let Some(l) = load {
        let r = l.stop();
        let how = match (r.work_units, r.exit) {
            (Some(n), _) => format!("{n} units of work"),
            (None, Some(exit)) => format!("stress-ng {exit}"),
            (None, None) => "ended".to_string(),
        };
        notes.push(format!("load stopped after the measurement ({how})"));
    }
}

/// Stores the cells, finishes the run and prints it.
pub(crate) fn finish(
    a: &RtCommon,
    mut store: Store,
    id: RunId,
    mut meta: RunMeta,
    cells: &[CellResult],
    interrupted: bool,
) -> Result<std::process::ExitCode> {
    for c in cells {
        store.insert_cell(id, c)?;
    }
    let status = if interrupted { RunStatus::Interrupted } else { RunStatus::Finished };
    meta.status = status;
    meta.ended_unix_ns = Some(meta::now_unix_ns());
    store.finish_run(id, status, meta.ended_unix_ns.unwrap_or(0), None, &meta.notes)?;
    // Stored: a signal now ends the rendering at once (issue #35).
    crate::cmd::run::restore_default_signals();
    let stored = store.load_run(id)?;
    if let Some(path) = &a.histfile {
        write_histfile(path, &stored.cells, a.histogram as usize)?;
    }
    let mut out = crate::term::stdout();
    print(&mut out, id.0, &stored.meta, &stored.cells, a.json, a.histogram as usize)?;
    if !a.json {
        writeln!(
            out,
            "\nstored as run {id} in {}; `icbench show {id}` prints it again",
            a.db.display()
        )?;
    }
    if interrupted {
        crate::errln!("icbench: interrupted: run {id} keeps what was measured");
        return Ok(crate::cmd::run::interrupted_exit());
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// Prints a realtime run: the table, or rt-tests-style JSON.
pub(crate) fn print(
    out: &mut dyn Write,
    run_id: i64,
    meta: &RunMeta,
    cells: &[CellResult],
    json: bool,
    buckets_us: usize,
) -> Result<()> {
    let view = icbench_report::rt::build(run_id, meta, cells);
    if json {
        icbench_report::rt::json(&view, cells, &sysinfo(meta), buckets_us, 0, out)?;
    } else {
        icbench_report::rt::table(&view, out)?;
        let width = icbench_report::table::text_width();
        for n in &meta.notes {
            writeln!(out, "note: {}", icbench_report::format::hanging(n, 6, width))?;
        }
    }
    Ok(())
}

fn write_histfile(path: &Path, cells: &[CellResult], buckets: usize) -> Result<()> {
    let cols: Vec<HistColumn> = cells
        .iter()
        .filter_map(|c| match &c.outcome {
            CellOutcome::Measured(d) => HistColumn::from_cell(d, buckets),
            _ => None,
        })
        .collect();
    let text = rthist::render(&cols);
    if path == Path::new("-") {
        crate::term::stdout().write_all(text.as_bytes())?;
    } else {
        std::fs::write(path, text)
            .with_context(|| format!("writing the histogram to {}", path.display()))?;
    }
    Ok(())
}

/// rt-tests' `sysinfo`, from the run's record and this kernel's uname.
fn sysinfo(meta: &RunMeta) -> SysInfo {
    let u = rustix::system::uname();
    let realtime = std::fs::read_to_string("/sys/kernel/realtime")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    SysInfo {
        sysname: u.sysname().to_string_lossy().into_owned(),
        nodename: meta.hostname.clone(),
        release: meta.kernel_release.clone(),
        version: u.version().to_string_lossy().into_owned(),
        machine: u.machine().to_string_lossy().into_owned(),
        realtime,
    }
}
