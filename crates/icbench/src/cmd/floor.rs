//! `icbench floor`, and the floor at the head of every run: the cache-line
//! round trip and memcpy bandwidth (icbench-engine's floor module), plus the
//! bare system-call loops the pipe and unix links are compared with.

use std::process::ExitCode;

use anyhow::Result;
use icbench_engine::{clock, cpu, floor};
use icbench_link::reference::{Mechanism, round_trips};
use icbench_model::Floor;

use crate::cli::FloorArgs;
use crate::cmd::resolve_cpus;
use crate::error::bad;

const BARE_WARMUP: usize = 1000;
const BARE_ROUNDS: usize = 10_000;

fn bare_median(m: Mechanism, peer_cpu: u32) -> Option<f64> {
    let mut v = round_trips(m, 64, BARE_WARMUP, BARE_ROUNDS, peer_cpu, clock::now_ns).ok()?;
    v.sort_unstable();
    v.get(v.len() / 2).map(|&x| x as f64)
}

/// Measures the floor between the two CPUs. The calling thread is left
/// pinned to `host_cpu`. `None` when the peer CPU never answered.
pub(crate) fn measure(host_cpu: u32, peer_cpu: u32) -> Result<Option<Floor>> {
    let Some(mut f) = floor::measure(host_cpu, peer_cpu).map_err(|e| bad(e.to_string()))? else {
        return Ok(None);
    };
    f.syscall_pipe_rtt_ns = bare_median(Mechanism::Pipe, peer_cpu);
    f.syscall_unix_rtt_ns = bare_median(Mechanism::Unix, peer_cpu);
    Ok(Some(f))
}

pub fn floor(a: &FloorArgs) -> Result<ExitCode> {
    let (host, peer, _) = resolve_cpus(&a.cpus)?;
    cpu::pin_current_thread(host).map_err(|e| bad(e.to_string()))?;
    let f = measure(host, peer)?.ok_or_else(|| {
        anyhow::anyhow!("CPU {peer} never answered the cache-line ping-pong: is it busy?")
    })?;
    if a.json {
        let doc = serde_json::json!({
            "schema_version": icbench_model::JSON_SCHEMA_VERSION,
            "host_cpu": host, "peer_cpu": peer, "floor": f,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        use icbench_report::format;
        println!("floor between CPU {host} and CPU {peer}:");
        println!("  cache-line round trip    {}", format::ns(f.cacheline_rtt_ns));
        println!(
            "  two-line round trip      {} (one line per direction)",
            f.two_line_rtt_ns.map_or("not measured".into(), format::ns)
        );
        println!(
            "  memcpy bandwidth         {} ({} blocks, one thread)",
            format::rate(f.memcpy_bytes_per_s, "B/s"),
            format::bytes(f.memcpy_block_bytes)
        );
        let bare = |v: Option<f64>| v.map_or("not measured".into(), format::ns);
        println!("  bare pipe loop, 64 B RTT {}", bare(f.syscall_pipe_rtt_ns));
        println!("  bare unix loop, 64 B RTT {}", bare(f.syscall_unix_rtt_ns));
    }
    Ok(ExitCode::SUCCESS)
}
