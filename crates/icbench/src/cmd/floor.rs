//! `icbench floor`, and the floor at the head of every run: the cache-line
//! round trip and memcpy bandwidth (icbench-engine's floor module), plus the
//! pipe and unix links each measured against the bare loop of the same
//! system calls, interleaved under the same conditions (icbench-engine's
//! bare module; issue 2's ±5 % target).

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Result;
use icbench_engine::bare::{BarePlan, compare_with_bare};
use icbench_engine::{Budget, EngineConfig, PeerLaunch, cpu, floor};
use icbench_link::reference::Mechanism;
use icbench_model::{BareComparison, Floor, PeerMode};

use crate::cli::{FloorArgs, PeerKind};
use crate::cmd::resolve_cpus;
use crate::error::bad;

/// `icbench floor` has no Ctrl-C handling of its own.
static NEVER: AtomicBool = AtomicBool::new(false);

/// The engine's settings for the comparisons: the pair, the peer, its
/// scheduling; the cell budget is unused (the blocks are fixed).
pub(crate) fn engine(
    host_cpu: u32,
    peer_cpu: u32,
    peer: PeerLaunch,
    fifo: Option<u8>,
    timeout: Duration,
    stop: &'static AtomicBool,
) -> EngineConfig {
    EngineConfig {
        host_cpu,
        peer_cpu,
        peer,
        fifo,
        timeout,
        budget: Budget {
            cell_time: Duration::ZERO,
            raw: false,
            window: 1,
            ci_target: None,
            ci_max_time: Duration::ZERO,
            channel_stagger: Duration::ZERO,
        },
        fault: None,
        stop,
        protocol: None,
        peer_cmd: None,
    }
}

/// Measures the floor between `cfg`'s two CPUs, then each link against its
/// bare loop. The calling thread is left pinned to the host CPU. `None`
/// when the peer CPU never answered; the notes say what could not be
/// measured.
pub(crate) fn measure(cfg: &EngineConfig) -> Result<(Option<Floor>, Vec<String>)> {
    let Some(mut f) = trips(cfg)? else {
        return Ok((None, Vec::new()));
    };
    let mut notes = Vec::new();
    for m in Mechanism::ALL {
        let got = match compare_with_bare(cfg, m, &BarePlan::default()) {
            Ok(c) => Some(c),
            Err(e) => {
                notes.push(format!("floor: {e}"));
                None
            }
        };
        let bare = got.map(|c| c.bare_rtt_ns);
        match m {
            Mechanism::Pipe => (f.syscall_pipe, f.syscall_pipe_rtt_ns) = (got, bare),
            Mechanism::Unix => (f.syscall_unix, f.syscall_unix_rtt_ns) = (got, bare),
        }
    }
    Ok((Some(f), notes))
}

pub fn floor(a: &FloorArgs) -> Result<ExitCode> {
    let (host, peer, _) = resolve_cpus(&a.cpus)?;
    cpu::pin_current_thread(host).map_err(|e| bad(e.to_string()))?;
    let mode = match a.peer {
        PeerKind::Process => PeerMode::Process,
        PeerKind::Thread => PeerMode::Thread,
    };
    let launch = crate::cmd::run::peer_launch(mode)?;
    let cfg = engine(host, peer, launch, None, Duration::from_secs(5), &NEVER);
    let (f, notes) = measure(&cfg)?;
    let f = f.ok_or_else(|| {
        anyhow::anyhow!("CPU {peer} never answered the cache-line ping-pong: is it busy?")
    })?;
    for n in &notes {
        eprintln!("icbench: {n}");
    }
    if a.json {
        let doc = serde_json::json!({
            "schema_version": icbench_model::JSON_SCHEMA_VERSION,
            "host_cpu": host, "peer_cpu": peer, "floor": f,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print_text(host, peer, &f);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_text(host: u32, peer: u32, f: &Floor) {
    use icbench_report::format;
    println!("floor between CPU {host} and CPU {peer}:");
    println!("  cache-line round trip    {}", format::ns(f.cacheline_rtt_ns));
    println!(
        "  two-line round trip      {} (one line per direction)",
        f.two_line_rtt_ns.map_or("not measured".into(), format::ns)
    );
    println!(
        "  64 B slot round trip     {} (64 B and its sequence word, one slot answered in place)",
        f.slot64_rtt_ns.map_or("not measured".into(), format::ns)
    );
    println!(
        "  memcpy bandwidth         {} ({} blocks, one thread)",
        format::rate(f.memcpy_bytes_per_s, "B/s"),
        format::bytes(f.memcpy_block_bytes)
    );
    for (name, c) in [("pipe", &f.syscall_pipe), ("unix", &f.syscall_unix)] {
        match c {
            Some(c) => println!("{}", comparison(name, c)),
            None => println!("  {name} 64 B round trip    not measured"),
        }
    }
}

/// Both medians, then the ratio with its interval and the verdict.
fn comparison(name: &str, c: &BareComparison) -> String {
    use icbench_report::format;
    format!(
        "  {name} {} round trip    bare loop {}, icbench {} (p50; {} round trips a side, \
         {} alternating blocks)\n                           icbench ÷ bare {} (ci95 {} … {}): \
         within ±5 %: {}",
        format::bytes(c.size_bytes),
        format::ns(c.bare_rtt_ns),
        format::ns(c.icbench_rtt_ns),
        c.samples,
        c.blocks,
        format::ratio_near_1(c.ratio),
        format::ratio_near_1(c.ratio_ci95_lo),
        format::ratio_near_1(c.ratio_ci95_hi),
        icbench_report::bare_verdict(c).as_str()
    )
}

/// The engine's floor (cache-line, two-line and slot trips, memcpy), under
/// SCHED_OTHER as `icbench floor` measures it even in a `--fifo` run. The
/// trips' second thread starts on the host CPU and must run there to move
/// to the peer CPU; under SCHED_FIFO the host end, spinning at the same
/// priority, would never let it (sched(7)), and the floor would be lost
/// after its whole budget. The run's scheduling is restored afterwards, for
/// the bare comparisons and the cells.
fn trips(cfg: &EngineConfig) -> Result<Option<Floor>> {
    let fifo = cpu::current_fifo_priority();
    if fifo.is_some() {
        cpu::set_other().map_err(|e| anyhow::anyhow!("floor: {e}"))?;
    }
    let f = floor::measure(cfg.host_cpu, cfg.peer_cpu).map_err(|e| bad(e.to_string()));
    if let Some(p) = fifo {
        cpu::set_fifo(p).map_err(|e| bad(format!("--fifo: {e}")))?;
    }
    f
}
