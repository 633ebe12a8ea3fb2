//! Channels: N independent link instances, each with its own session (its
//! own peer), measured over ONE common wall-clock window (issue 7).
//!
//! The reference 003 (rpmsg-xmit-p, shared/references) times each thread
//! over its own interval and adds the per-thread rates: a thread that starts
//! late or finishes early has a short interval and a high rate, and the sum
//! is a throughput no instant of the run ever saw. Here every channel opens
//! its session and runs its probe and warm-up, then waits at a gate
//! ([`gate`]); when all are ready one common start T0 is read
//! (`clock::now_ns`). In time mode each channel stops at T1 = T0 + cell
//! time and only messages COMPLETED in [T0, T1] count; with a transfer size
//! the window is [T0, the last channel's last completion]. The total is
//! Σ bytes / window and each channel's throughput is its bytes over the same
//! window, so a channel that starts late carries less and cannot inflate the
//! total.
//!
//! The peer is icbench's own or, with the icb protocol, a responder per
//! channel (a `--peer-cmd` program, an rpmsg-ctrl endpoint's firmware),
//! handshaken in `Session::open`. Own peers are count-based
//! (`ctrl::Op::Echo`, `Op::Sink`), so the measured phase runs as chunks of
//! about [`CHUNK_NS`] of messages each (sized from the probe) until the stop
//! rule holds (`loops.rs`); each message (ping-pong) or credit (stream) is
//! counted with its own completion time (`meter.rs`). The loop bodies are
//! the single-link ones (`pattern.rs`, `remote/icb.rs`): every echo is
//! verified byte for byte, nothing allocates or formats inside.
//!
//! Ping-pong cells honour the run's `--raw` and `--ci` as single links do.
//! `--raw`: every counted round trip is kept, each channel's in order, and
//! the cell's raw samples are channel 0's, then channel 1's … (channel i's
//! are as many as its counted messages), the same values as the merged
//! histogram. `--ci` (timed cells): after each phase every channel stops at
//! the gate and the coordinator looks at the pooled histogram; until the
//! median's 95 % CI is narrow enough or `--ci-max-time` is spent, another
//! common window of the cell time opens. The cell's window is then the sum
//! of the phases' windows. A cell with a transfer size stops when its bytes
//! are moved, so `--ci` cannot apply (the run refuses the combination).
//!
//! Placement: every channel thread is pinned to the host CPU and every peer
//! to the peer CPU, one core each side as 003 does; with more channels than
//! CPUs, channels take turns (a spin-waiting link is then bound by time
//! slices, docs/method.md). One channel failing fails the cell with a
//! reason naming it; the others stop at their next chunk and every session
//! is torn down, so the next cell starts afresh.

mod gate;
mod loops;
mod meter;

use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Duration;

use icbench_link::LinkSpec;
use icbench_model::{
    Adaptive, CellData, CellOutcome, ChannelData, Direction, LatencyHistogram, LinkCounters,
    Pattern,
};

use crate::pattern::median_ci_rel;
use crate::session::Session;
use crate::watchdog::Watchdog;
use crate::{CellSpec, EngineConfig, Fault, Protocol};
use gate::Gate;

/// About this much of messages per chunk of the measured phase: short
/// enough that the stop rule overshoots T1 by little, long enough that the
/// control message and (stream) draining the window cost little.
const CHUNK_NS: f64 = 1e6;

/// At most this many raw samples (40 MB) are reserved per channel before a
/// phase, the most a single-link ping-pong phase measures; a channel that
/// keeps more makes room between chunks (a copy inside the window, never
/// inside the timed loop).
const RAW_RESERVE_MAX: u64 = 5_000_000;

/// How a channel ended without data.
#[derive(Debug)]
enum Stop {
    /// The channel failed: the reason (without the channel's name).
    Failed(String),
    /// The link cannot carry the size: its largest transfer.
    TooLarge(u64),
    /// Ctrl-C.
    Interrupted,
    /// Another channel failed first; this one stopped cleanly.
    Quit,
}

/// What the channels of one cell share.
struct Ctx<'a> {
    cfg: &'a EngineConfig,
    spec: &'a LinkSpec,
    cell: CellSpec,
    gate: Gate,
    /// The channel whose peer gets the test fault.
    fault: Option<(u32, Fault)>,
    /// Adaptive repetitions (`--ci`) of a timed ping-pong cell: the target
    /// half-width of the median's 95 % CI, relative; `None`: one phase.
    ci_target: Option<f64>,
    /// Every channel's counted round trips so far (adaptive cells only),
    /// for the coordinator's decision between phases.
    pooled: Mutex<LatencyHistogram>,
}

/// What one channel measured.
struct Measured {
    data: ChannelData,
    counters: LinkCounters,
    /// Every counted round trip in order (ping-pong with `--raw`), ns.
    raw_ns: Option<Vec<u64>>,
    /// Stream: messages in flight at most (the icb peer's credit).
    window: Option<u32>,
}

/// Measures a cell on `cell.channels` links at once. `None` when
/// interrupted. `fault` (tests) goes to the last channel's peer, so that a
/// reason naming it shows it was not simply channel 0.
pub(crate) fn measure(
    cfg: &EngineConfig,
    spec: &LinkSpec,
    cell: CellSpec,
    fault: Option<Fault>,
) -> Option<CellOutcome> {
    let n = cell.channels.max(1);
    if !matches!(
        (cfg.protocol, cell.pattern),
        (None | Some(Protocol::Icb), Pattern::PingPong | Pattern::Stream)
    ) {
        let with = cfg.protocol.map_or("icbench's own peer".into(), |p| format!("protocol {p}"));
        return Some(CellOutcome::Failed {
            reason: format!(
                "{n} channels: pingpong and stream run on several channels, with icbench's own \
                 peer or protocol icb; not {} with {with}",
                cell.pattern
            ),
        });
    }
    if let Some(why) = spec.single_instance().filter(|_| n > 1) {
        return Some(CellOutcome::Failed {
            reason: format!("{n} channels: each needs its own instance of {spec}, but {why}"),
        });
    }
    if cell.pattern == Pattern::Stream && cell.direction == Some(Direction::P2H) {
        return Some(CellOutcome::Failed {
            reason: format!(
                "{n} channel(s): the stream peer → host runs on one link timed by the cell time; \
                 several channels and transfer sizes run host → peer only"
            ),
        });
    }
    let ci_target = cfg
        .budget
        .ci_target
        .filter(|_| cell.pattern == Pattern::PingPong && cell.transfer_bytes.is_none());
    let ctx = Ctx {
        cfg,
        spec,
        cell,
        gate: Gate::new(),
        fault: fault.map(|f| (n - 1, f)),
        ci_target,
        pooled: Mutex::new(LatencyHistogram::new()),
    };
    let (results, adaptive) = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let ctx = &ctx;
                std::thread::Builder::new().name(format!("icbench-ch{i}")).spawn_scoped(
                    sc,
                    move || {
                        let r = channel(ctx, i);
                        if r.is_err() {
                            ctx.gate.quit();
                        }
                        r
                    },
                )
            })
            .collect();
        let adaptive = if handles.iter().any(Result::is_err) {
            ctx.gate.quit();
            None
        } else {
            coordinate(&ctx, n)
        };
        let results: Vec<Result<Measured, Stop>> = handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or_else(|_| Err(Stop::Failed("panicked".into()))),
                Err(e) => Err(Stop::Failed(format!("cannot start its thread: {e}"))),
            })
            .collect();
        (results, adaptive)
    });
    conclude(cfg, cell, n, results, adaptive)
}

/// The coordinator: opens the first phase when every channel is ready.
/// With adaptive repetitions it then decides after each phase, with every
/// channel stopped at the gate, as the single-link ping-pong does
/// (`pattern::pingpong`): another phase of the same length while the
/// pooled median's 95 % CI is wider than the target (or not computable yet)
/// and the phases so far are shorter than `--ci-max-time`; else it closes
/// the gate. Returns how that ended; `None`: one phase, or a channel quit.
fn coordinate(ctx: &Ctx<'_>, n: u32) -> Option<Adaptive> {
    let stop = ctx.cfg.stop;
    if !ctx.gate.wait_for_all(n, stop) {
        return None;
    }
    ctx.gate.open();
    let target = ctx.ci_target?;
    let (cell_ns, max_ns) = (nanos(ctx.cfg.budget.cell_time), nanos(ctx.cfg.budget.ci_max_time));
    let mut phases = 1u32;
    loop {
        if !ctx.gate.wait_for_all(n, stop) {
            return None;
        }
        let rel = median_ci_rel(&ctx.pooled.lock().expect("pooled histogram"));
        if (rel.is_nan() || rel > target) && u64::from(phases).saturating_mul(cell_ns) < max_ns {
            ctx.gate.open();
            phases += 1;
        } else {
            ctx.gate.close();
            return Some(Adaptive {
                target_rel: target,
                achieved_rel: rel,
                phases,
                reached: rel <= target,
            });
        }
    }
}

/// The cell's outcome from its channels' results.
fn conclude(
    cfg: &EngineConfig,
    cell: CellSpec,
    n: u32,
    results: Vec<Result<Measured, Stop>>,
    adaptive: Option<Adaptive>,
) -> Option<CellOutcome> {
    if cfg.stop.load(Ordering::SeqCst)
        || results.iter().any(|r| matches!(r, Err(Stop::Interrupted)))
    {
        return None;
    }
    for (i, r) in results.iter().enumerate() {
        if let Err(Stop::Failed(reason)) = r {
            return Some(CellOutcome::Failed { reason: format!("channel {i} of {n}: {reason}") });
        }
    }
    if let Some(max) = results.iter().find_map(|r| match r {
        Err(Stop::TooLarge(m)) => Some(*m),
        _ => None,
    }) {
        return Some(CellOutcome::NotApplicable { max_bytes: max });
    }
    let mut chans = Vec::with_capacity(results.len());
    let mut counters = LinkCounters::default();
    let mut raw: Option<Vec<u64>> = None;
    let mut window = None;
    for r in results {
        match r {
            Ok(m) => {
                counters.tx_busy += m.counters.tx_busy;
                window = window.or(m.window);
                // In channel order: channel 0's samples first.
                match (&mut raw, m.raw_ns) {
                    (Some(all), Some(r)) => all.extend(r),
                    (None, r) => raw = r,
                    (Some(_), None) => {}
                }
                chans.push(m.data);
            }
            // Quit without a failure elsewhere cannot happen; say so.
            Err(_) => {
                return Some(CellOutcome::Failed {
                    reason: format!("{n} channels: a channel stopped without a reason"),
                });
            }
        }
    }
    let phases = adaptive.map_or(1, |a| a.phases);
    let window_ns =
        common_window_ns(cell.transfer_bytes.is_none(), cfg.budget.cell_time, phases, &chans);
    if chans.iter().all(|c| c.messages == 0) {
        // Nothing to measure: a rate of 0 and an empty histogram would read
        // as a result (seen under qemu-user at load 7 with 20 ms cells).
        return Some(CellOutcome::Failed {
            reason: format!(
                "{n} channels: no message completed inside the common window of {} ms; \
                 raise --cell-time",
                window_ns / 1_000_000
            ),
        });
    }
    // A channel that never ran sits at the end of its phase's T1, which
    // can lie a little past the nominal window (cell time × phases) that
    // the cell reports: keep it inside, so start + active ≤ window.
    for c in &mut chans {
        c.start_offset_ns = c.start_offset_ns.min(window_ns.saturating_sub(c.active_ns));
    }
    let mut d = aggregate(window_ns, window, counters, chans);
    d.raw_ns = raw;
    d.adaptive = adaptive;
    Some(CellOutcome::Measured(d))
}

/// The common window: the cell time times the phases in time mode (every
/// channel stopped counting at T1 = T0 + cell time of each phase); with a
/// transfer size, T0 to the last channel's last completion.
fn common_window_ns(timed: bool, cell_time: Duration, phases: u32, chans: &[ChannelData]) -> u64 {
    if timed {
        return nanos(cell_time).saturating_mul(u64::from(phases));
    }
    chans.iter().map(|c| c.start_offset_ns + c.active_ns).max().unwrap_or(0)
}

/// The aggregate cell over one common window: messages and bytes summed,
/// `elapsed_ns` = the window (so the cell's bytes/s is Σ bytes / window,
/// never Σ bytes_i / active_i), latency = the channels' merged histograms.
fn aggregate(
    window_ns: u64,
    window: Option<u32>,
    counters: LinkCounters,
    chans: Vec<ChannelData>,
) -> CellData {
    let mut latency: Option<LatencyHistogram> = None;
    for h in chans.iter().filter_map(|c| c.latency.as_ref()) {
        latency.get_or_insert_with(LatencyHistogram::new).merge(h);
    }
    CellData {
        messages: chans.iter().map(|c| c.messages).sum(),
        bytes: chans.iter().map(|c| c.bytes).sum(),
        elapsed_ns: window_ns,
        // Not counted per channel; each had its own probe and warm-up.
        warmup_messages: 0,
        latency,
        raw_ns: None,
        window,
        counters,
        channels: Some(chans.len() as u32),
        adaptive: None,
        per_channel: chans,
        disturbance: None,
        cut_at_messages: None,
        timed_batch: None,
        state: None,
    }
}

/// One channel, on its own thread: placement, session, then [`drive`]
/// under a watchdog; the session is closed whatever happens.
fn channel(ctx: &Ctx<'_>, i: u32) -> Result<Measured, Stop> {
    let cfg = ctx.cfg;
    crate::cpu::pin_current_thread(cfg.host_cpu).map_err(|e| Stop::Failed(e.to_string()))?;
    if let Some(p) = cfg.fifo {
        crate::cpu::set_fifo(p).map_err(|e| Stop::Failed(e.to_string()))?;
    }
    let fault = ctx.fault.filter(|&(ch, _)| ch == i).map(|(_, f)| f);
    let mut s = Session::open(cfg, ctx.spec, fault).map_err(Stop::Failed)?;
    let max = crate::max_transfer(cfg.protocol, s.host.caps().max_msg_bytes);
    if ctx.cell.size_bytes > max {
        s.close(true);
        return Err(Stop::TooLarge(max));
    }
    if let Err(e) = s.host.set_pipelined(ctx.cell.pattern == Pattern::Stream) {
        s.close(false);
        return Err(Stop::Failed(e.to_string()));
    }
    let wd = Watchdog::start(cfg.timeout, s.abort.clone(), s.pidfd(), s.host.health(), cfg.stop);
    let before = s.host.counters();
    let result = loops::drive(ctx, i, s.host.as_mut(), s.icb.as_mut(), wd.progress());
    let fired = wd.finish();
    match result {
        Ok(Some(mut m)) => {
            m.counters = s.host.counters().since(before);
            s.abort.clear();
            s.close(true);
            Ok(m)
        }
        Ok(None) => {
            s.abort.clear();
            s.close(false);
            Err(if cfg.stop.load(Ordering::SeqCst) { Stop::Interrupted } else { Stop::Quit })
        }
        Err(e) => Err(crate::failure(cfg, s, fired, &e).map_or(Stop::Interrupted, Stop::Failed)),
    }
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u128::from(u64::MAX)) as u64
}

#[cfg(test)]
mod tests;
