//! `icbench floor`, and the floor at the head of every run: the cache-line
//! round trip and memcpy bandwidth (icbench-engine's floor module), plus the
//! pipe and unix links each measured against the bare loop of the same
//! system calls, interleaved under the same conditions (icbench-engine's
//! bare module; issue 2's ±5 % target).

use std::io::Write;
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
            clock_granule_ns: 0.0,
        },
        fault: None,
        stop,
        protocol: None,
        peer_cmd: None,
        state_probe: false,
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
    for m in Mechanism::FLOOR {
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
            _ => unreachable!("the floor compares pipe and unix"),
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
        crate::errln!("icbench: {n}");
    }
    let others = if a.bare { bare_others(&cfg, a.bare_blocks) } else { Vec::new() };
    if a.json {
        let bare: Vec<serde_json::Value> = others
            .iter()
            .map(|(m, got)| match got {
                Ok(c) => serde_json::json!({ "link": m.link_spec(), "comparison": c }),
                Err(e) => serde_json::json!({ "link": m.link_spec(), "error": e }),
            })
            .collect();
        let mut doc = serde_json::json!({
            "schema_version": icbench_model::JSON_SCHEMA_VERSION,
            "host_cpu": host, "peer_cpu": peer, "floor": f,
        });
        if a.bare {
            doc["bare"] = serde_json::Value::Array(bare);
        }
        writeln!(crate::term::stdout(), "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        let mut t = text(host, peer, &f);
        for (m, got) in &others {
            match got {
                Ok(c) => comparison(m.kind(), c).iter().for_each(|l| t += &format!("\n{l}")),
                Err(e) => t += &format!("\n{}", line(&format!("{} 64 B round trip", m.kind()), e)),
            }
        }
        writeln!(crate::term::stdout(), "{t}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Every local link but pipe and unix (which the floor compares) against
/// its bare loop, in the order of [`Mechanism::ALL`] (`--bare`).
fn bare_others(
    cfg: &EngineConfig,
    blocks: u32,
) -> Vec<(Mechanism, Result<BareComparison, String>)> {
    Mechanism::ALL
        .into_iter()
        .filter(|m| !Mechanism::FLOOR.contains(m))
        .map(|m| {
            let plan = BarePlan { blocks, ..BarePlan::for_mechanism(m) };
            (m, compare_with_bare(cfg, m, &plan))
        })
        .collect()
}

/// Where the values start, after the labels.
const LABEL: usize = 30;

/// `icbench floor`'s text: one line per figure, labels in one column.
fn text(host: u32, peer: u32, f: &Floor) -> String {
    use icbench_report::format;
    let not = || "not measured".to_string();
    let mut lines = vec![
        format!("floor between CPU {host} and CPU {peer}:"),
        line("cache-line round trip", &format::ns(f.cacheline_rtt_ns)),
        line(
            "two-line round trip",
            &f.two_line_rtt_ns
                .map_or_else(not, |v| format!("{} (one line per direction)", format::ns(v))),
        ),
        line(
            "64 B slot round trip",
            &f.slot64_rtt_ns.map_or_else(not, |v| {
                format!(
                    "{} (64 B and its sequence word, one slot answered in place)",
                    format::ns(v)
                )
            }),
        ),
        line(
            "memcpy bandwidth",
            &format!(
                "{} ({} blocks, one thread)",
                format::rate(f.memcpy_bytes_per_s, "B/s"),
                format::bytes(f.memcpy_block_bytes)
            ),
        ),
    ];
    for (name, c) in [("pipe", &f.syscall_pipe), ("unix", &f.syscall_unix)] {
        match c {
            Some(c) => lines.extend(comparison(name, c)),
            None => lines.push(line(&format!("{name} 64 B round trip"), &not())),
        }
    }
    lines.join("\n")
}

/// A label and its value, the value in the column after [`LABEL`],
/// wrapped to the text width in that column.
fn line(label: &str, value: &str) -> String {
    let width = icbench_report::table::text_width();
    format!("  {label:<w$}{}", icbench_report::format::hanging(value, LABEL, width), w = LABEL - 2)
}

/// Both medians, then the ratio with its interval and the verdict.
fn comparison(name: &str, c: &BareComparison) -> [String; 2] {
    use icbench_report::format;
    [
        line(
            &format!("{name} {} round trip", format::bytes(c.size_bytes)),
            &format!(
                "bare loop {}, icbench {} (p50; {} round trips a side, {} alternating blocks)",
                format::ns(c.bare_rtt_ns),
                format::ns(c.icbench_rtt_ns),
                c.samples,
                c.blocks
            ),
        ),
        line(
            "",
            &format!(
                "icbench ÷ bare {} (ci95 {} … {}): within ±5 %: {}",
                format::ratio_near_1(c.ratio),
                format::ratio_near_1(c.ratio_ci95_lo),
                format::ratio_near_1(c.ratio_ci95_hi),
                icbench_report::bare_verdict(c).as_str()
            ),
        ),
    ]
}

/// The engine's floor (cache-line, two-line and slot trips, memcpy), under
/// SCHED_OTHER as `icbench floor` measures it, even in a `--fifo` run: the
/// physical limit of the pair, one method for both commands. (The trips'
/// second thread is pinned before the host end spins, so they would also
/// complete under SCHED_FIFO.) The run's scheduling is restored
/// afterwards, for the bare comparisons and the cells.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_starts_in_one_column() {
        let c = BareComparison {
            size_bytes: 64,
            bare_rtt_ns: 37_400.0,
            icbench_rtt_ns: 37_700.0,
            ratio: 1.008,
            ratio_ci95_lo: 0.99,
            ratio_ci95_hi: 1.02,
            samples: 10_000,
            blocks: 50,
        };
        let f = Floor {
            cacheline_rtt_ns: 130.0,
            two_line_rtt_ns: Some(283.0),
            slot64_rtt_ns: None,
            memcpy_bytes_per_s: 8.07e9,
            memcpy_block_bytes: 65536,
            syscall_pipe_rtt_ns: Some(37_400.0),
            syscall_unix_rtt_ns: None,
            syscall_pipe: Some(c),
            syscall_unix: None,
        };
        let t = text(0, 1, &f);
        let lines: Vec<&str> = t.lines().skip(1).collect();
        // Six figures, each labelled, the comparison's verdict under its
        // figure; a long value wraps under its column.
        let labelled = lines.iter().filter(|l| l.chars().take(LABEL).any(|c| c != ' ')).count();
        assert_eq!(labelled, 6, "{t}");
        assert!(t.contains("\n                              icbench ÷ bare 1.008×"), "{t}");
        for l in &lines {
            let value = l.chars().nth(LABEL).unwrap_or(' ');
            let before = l.chars().nth(LABEL - 1).unwrap_or('x');
            assert!(value != ' ' && before == ' ', "value not in column {LABEL}:\n{t}");
        }
        let label = format!("  {:<w$}not measured", "64 B slot round trip", w = LABEL - 2);
        assert!(t.contains(&label), "{t}");
        assert!(t.contains("within ±5 %: yes"), "{t}");
    }
}
