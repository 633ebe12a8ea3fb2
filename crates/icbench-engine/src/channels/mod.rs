//! Channels: N independent link instances, each with its own session (its
//! own peer), measured over ONE common wall-clock window (issue 7).
//!
//! The reference 003 (rpmsg-xmit-p, shared/references) times each thread
//! over its own interval and adds the per-thread rates: a thread that starts
//! late or finishes early has a short interval and a high rate, and the sum
//! is a throughput no instant of the run ever saw. Here every channel opens
//! its session and runs its probe and warm-up, then waits at a gate; when all
//! are ready one common start T0 is read (`clock::now_ns`). In time mode each
//! channel stops at T1 = T0 + cell time and only messages COMPLETED in
//! [T0, T1] count; with a transfer size the window is [T0, the last
//! channel's last completion]. The total is Σ bytes / window and each
//! channel's throughput is its bytes over the same window, so a channel that
//! starts late carries less and cannot inflate the total.
//!
//! The peers are count-based (`ctrl::Op::Echo`, `Op::Sink`), so the
//! measured phase runs as chunks of about [`CHUNK_NS`] of messages each
//! (sized from the probe) until the stop rule holds; each message (ping-pong)
//! or credit (stream) is counted with its own completion time. The loop
//! bodies are `pattern.rs`'s, shared with single-link cells: every echo is
//! verified byte for byte, nothing allocates or formats inside.
//!
//! Placement: every channel thread is pinned to the host CPU and every peer
//! to the peer CPU, one core each side as 003 does; with more channels than
//! CPUs, channels take turns (a spin-waiting link is then bound by time
//! slices, docs/method.md). One channel failing fails the cell with a
//! reason naming it; the others stop at their next chunk and every session
//! is torn down, so the next cell starts afresh.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use icbench_link::{Link, LinkSpec};
use icbench_model::{CellData, CellOutcome, ChannelData, LatencyHistogram, LinkCounters, Pattern};

use crate::clock::now_ns;
use crate::pattern::{CellError, Echoer, PROBE_MESSAGES, Streamer, counts};
use crate::session::Session;
use crate::watchdog::Watchdog;
use crate::{CellSpec, EngineConfig, Fault};

/// About this much of messages per chunk of the measured phase: short
/// enough that the stop rule overshoots T1 by little, long enough that the
/// control message and (stream) draining the window cost little.
const CHUNK_NS: f64 = 1e6;

/// How often a channel waiting at the gate looks at it (and bumps its
/// watchdog's progress, so waiting for slower channels is not a stall).
const GATE_LOOK: Duration = Duration::from_millis(10);

/// The gate every channel waits at before the common start.
struct Gate {
    ready: AtomicU32,
    /// T0, ns on the monotonic clock; 0 until opened.
    t0: AtomicU64,
    /// Set when a channel failed or the run is stopping: nobody starts.
    quit: AtomicBool,
    lock: Mutex<()>,
    cv: Condvar,
}

impl Gate {
    fn new() -> Gate {
        Gate {
            ready: AtomicU32::new(0),
            t0: AtomicU64::new(0),
            quit: AtomicBool::new(false),
            lock: Mutex::new(()),
            cv: Condvar::new(),
        }
    }

    fn notify(&self) {
        let _g = self.lock.lock().expect("gate lock");
        self.cv.notify_all();
    }

    fn quit(&self) {
        self.quit.store(true, Ordering::SeqCst);
        self.notify();
    }

    fn quitting(&self, stop: &AtomicBool) -> bool {
        self.quit.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed)
    }

    /// A channel is ready; waits for T0. `None`: quit instead.
    fn arrive(&self, progress: &AtomicU64, stop: &AtomicBool) -> Option<u64> {
        self.ready.fetch_add(1, Ordering::SeqCst);
        self.notify();
        let mut g = self.lock.lock().expect("gate lock");
        loop {
            if self.quitting(stop) {
                return None;
            }
            match self.t0.load(Ordering::SeqCst) {
                0 => {}
                t0 => return Some(t0),
            }
            g = self.cv.wait_timeout(g, GATE_LOOK).expect("gate lock").0;
            progress.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The coordinator: waits until all `n` are ready, then opens the gate
    /// at T0 = now. `false`: a channel quit first.
    fn open_when_ready(&self, n: u32, stop: &AtomicBool) -> bool {
        let mut g = self.lock.lock().expect("gate lock");
        while self.ready.load(Ordering::SeqCst) < n {
            if self.quitting(stop) {
                return false;
            }
            g = self.cv.wait_timeout(g, GATE_LOOK).expect("gate lock").0;
        }
        self.t0.store(now_ns(), Ordering::SeqCst);
        self.cv.notify_all();
        true
    }
}

/// When a channel's measured phase ends.
#[derive(Debug, Clone, Copy)]
enum StopRule {
    /// At T1 (ns, monotonic): messages completed after it do not count.
    At(u64),
    /// After this many messages; all count.
    Messages(u64),
}

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
    if !matches!((cfg.protocol, cell.pattern), (None, Pattern::PingPong | Pattern::Stream)) {
        return Some(CellOutcome::Failed {
            reason: format!(
                "{n} channels: only pingpong and stream with icbench's own peer run on several \
                 channels, not {} with this protocol",
                cell.pattern
            ),
        });
    }
    let ctx = Ctx { cfg, spec, cell, gate: Gate::new(), fault: fault.map(|f| (n - 1, f)) };
    let results: Vec<Result<(ChannelData, LinkCounters), Stop>> = std::thread::scope(|sc| {
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
        if handles.iter().any(Result::is_err) {
            ctx.gate.quit();
        } else {
            ctx.gate.open_when_ready(n, cfg.stop);
        }
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or_else(|_| Err(Stop::Failed("panicked".into()))),
                Err(e) => Err(Stop::Failed(format!("cannot start its thread: {e}"))),
            })
            .collect()
    });
    conclude(cfg, cell, n, results)
}

/// The cell's outcome from its channels' results.
fn conclude(
    cfg: &EngineConfig,
    cell: CellSpec,
    n: u32,
    results: Vec<Result<(ChannelData, LinkCounters), Stop>>,
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
    for r in results {
        match r {
            Ok((c, k)) => {
                counters.tx_busy += k.tx_busy;
                chans.push(c);
            }
            // Quit without a failure elsewhere cannot happen; say so.
            Err(_) => {
                return Some(CellOutcome::Failed {
                    reason: format!("{n} channels: a channel stopped without a reason"),
                });
            }
        }
    }
    let window_ns = common_window_ns(cell.transfer_bytes.is_none(), cfg.budget.cell_time, &chans);
    let window = (cell.pattern == Pattern::Stream).then_some(cfg.budget.window.max(2));
    Some(CellOutcome::Measured(aggregate(window_ns, window, counters, chans)))
}

/// The common window: the cell time in time mode (every channel stopped
/// counting at T1 = T0 + cell time); with a transfer size, T0 to the last
/// channel's last completion.
fn common_window_ns(timed: bool, cell_time: Duration, chans: &[ChannelData]) -> u64 {
    if timed {
        return cell_time.as_nanos().min(u128::from(u64::MAX)) as u64;
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
    }
}

/// One channel, on its own thread: placement, session, then [`drive`]
/// under a watchdog; the session is closed whatever happens.
fn channel(ctx: &Ctx<'_>, i: u32) -> Result<(ChannelData, LinkCounters), Stop> {
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
    let result = drive(ctx, i, s.host.as_mut(), wd.progress());
    let fired = wd.finish();
    match result {
        Ok(Some(data)) => {
            let counters = s.host.counters().since(before);
            s.abort.clear();
            s.close(true);
            Ok((data, counters))
        }
        Ok(None) => {
            s.abort.clear();
            s.close(false);
            Err(if cfg.stop.load(Ordering::SeqCst) { Stop::Interrupted } else { Stop::Quit })
        }
        Err(e) => Err(crate::failure(cfg, s, fired, &e).map_or(Stop::Interrupted, Stop::Failed)),
    }
}

/// Probe, warm-up, the gate, then the measured chunks. `Ok(None)`: the
/// gate or another channel said quit.
fn drive(
    ctx: &Ctx<'_>,
    i: u32,
    link: &mut dyn Link,
    progress: &AtomicU64,
) -> Result<Option<ChannelData>, CellError> {
    let (cell, budget) = (ctx.cell, &ctx.cfg.budget);
    let size = cell.size_bytes as usize;
    let total = cell.transfer_bytes.map(|t| t.div_ceil(cell.size_bytes.max(1)));
    match cell.pattern {
        Pattern::PingPong => {
            let mut echo = Echoer::new(link, size);
            let probe = echo.timed(link, PROBE_MESSAGES, progress)?;
            let per = probe as f64 / f64::from(PROBE_MESSAGES);
            let (warm, _) = counts(per, budget, 50, 5_000_000);
            echo.timed(link, warm, progress)?;
            let chunk = chunk_of(per, 1);
            let Some(t0) = ctx.gate.arrive(progress, ctx.cfg.stop) else { return Ok(None) };
            let rule = total.map_or(StopRule::At(t0 + nanos(budget.cell_time)), StopRule::Messages);
            let mut m = Meter::start(t0, i, budget.channel_stagger, rule, size as u64);
            let mut hist = LatencyHistogram::new();
            while let Some(n) = m.next_chunk(chunk, || ctx.gate.quitting(ctx.cfg.stop)) {
                let end = m.end;
                echo.phase(link, n, progress, &mut |a, b| {
                    m.first_send(a);
                    if b <= end {
                        hist.record(b.saturating_sub(a));
                        m.count_to(m.base + 1, b);
                    }
                    m.base += 1;
                })?;
            }
            Ok(m.finish(Some(hist)))
        }
        Pattern::Stream => {
            let mut st = Streamer::new(size, budget.window);
            let w = st.window();
            let probe = st.timed(link, w * 2, progress)?;
            let per = probe as f64 / f64::from(w * 2);
            let (warm, _) = counts(per, budget, u64::from(w) * 4, 50_000_000);
            st.timed(link, warm, progress)?;
            let chunk = chunk_of(per, w * 8);
            let Some(t0) = ctx.gate.arrive(progress, ctx.cfg.stop) else { return Ok(None) };
            let rule = total.map_or(StopRule::At(t0 + nanos(budget.cell_time)), StopRule::Messages);
            let mut m = Meter::start(t0, i, budget.channel_stagger, rule, size as u64);
            while let Some(n) = m.next_chunk(chunk, || ctx.gate.quitting(ctx.cfg.stop)) {
                let (end, base) = (m.end, m.base);
                let (first, _) = st.phase(link, n, progress, &mut |acked, t| {
                    if t <= end {
                        m.count_to(base + u64::from(acked), t);
                    }
                })?;
                m.first_send(first);
                m.base += u64::from(n);
            }
            Ok(m.finish(None))
        }
        p => Err(CellError::Unsupported(format!("pattern {p} does not run on channels"))),
    }
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u128::from(u64::MAX)) as u64
}

/// Messages per chunk: about [`CHUNK_NS`] at the probe's pace, at least `min`.
fn chunk_of(per_msg_ns: f64, min: u32) -> u32 {
    const MAX: u32 = 1 << 20;
    ((CHUNK_NS / per_msg_ns.max(1.0)) as u32).clamp(min.clamp(1, MAX), MAX)
}

/// One channel's count over the common window.
struct Meter {
    t0: u64,
    channel: u32,
    rule: StopRule,
    size: u64,
    /// Completions after this do not count (T1, or never).
    end: u64,
    /// Messages sent in the measured phase so far.
    base: u64,
    /// Messages counted, and the time of the last counted completion.
    counted: u64,
    last: u64,
    first: Option<u64>,
    /// When the channel started, relative to T0 (its first send, or its
    /// start time if it never sent).
    start_offset_ns: u64,
}

impl Meter {
    /// Waits out this channel's stagger (tests), then starts counting.
    fn start(t0: u64, channel: u32, stagger: Duration, rule: StopRule, size: u64) -> Meter {
        let start = t0 + nanos(stagger) * u64::from(channel);
        loop {
            let now = now_ns();
            if now >= start {
                break;
            }
            std::thread::sleep(Duration::from_nanos(start - now));
        }
        let end = match rule {
            StopRule::At(t1) => t1,
            StopRule::Messages(_) => u64::MAX,
        };
        Meter {
            t0,
            channel,
            rule,
            size,
            end,
            base: 0,
            counted: 0,
            last: 0,
            first: None,
            start_offset_ns: now_ns() - t0,
        }
    }

    /// The next chunk's message count, or `None` when the stop rule holds
    /// (or `quit` says another channel failed).
    fn next_chunk(&self, chunk: u32, quit: impl Fn() -> bool) -> Option<u32> {
        if quit() {
            return None;
        }
        match self.rule {
            StopRule::At(t1) => (now_ns() < t1).then_some(chunk),
            StopRule::Messages(total) => {
                let left = total - self.base;
                (left > 0).then(|| left.min(u64::from(chunk)) as u32)
            }
        }
    }

    #[inline]
    fn first_send(&mut self, t: u64) {
        if self.first.is_none() {
            self.first = Some(t);
        }
    }

    #[inline]
    fn count_to(&mut self, counted: u64, t: u64) {
        self.counted = counted;
        self.last = t;
    }

    /// The channel's data; `None` if it stopped because another quit
    /// before its stop rule held.
    fn finish(self, latency: Option<LatencyHistogram>) -> Option<ChannelData> {
        let complete = match self.rule {
            StopRule::At(t1) => now_ns() >= t1,
            StopRule::Messages(total) => self.base >= total,
        };
        if !complete {
            return None;
        }
        let start_offset_ns = self.first.map_or(self.start_offset_ns, |f| f - self.t0);
        Some(ChannelData {
            channel: self.channel,
            messages: self.counted,
            bytes: self.counted * self.size,
            start_offset_ns,
            active_ns: self.first.map_or(0, |f| self.last.saturating_sub(f)),
            latency: latency.filter(|h| !h.is_empty()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chan(channel: u32, bytes: u64, start_offset_ns: u64, active_ns: u64) -> ChannelData {
        ChannelData {
            channel,
            messages: bytes / 64,
            bytes,
            start_offset_ns,
            active_ns,
            latency: None,
        }
    }

    /// 003's way: each channel's bytes over its own active span, summed.
    fn sum_of_own_rates(chans: &[ChannelData]) -> f64 {
        chans.iter().map(|c| c.bytes as f64 * 1e9 / c.active_ns as f64).sum()
    }

    #[test]
    fn a_late_channel_does_not_inflate_the_total() {
        // A 100 ms window. Channel 0 runs all of it; channel 1 starts 50 ms
        // late and, alone on the CPU at the end, moves as much in half the
        // time. The machine moved 128 000 B in 100 ms: 1.28 MB/s.
        let chans = vec![chan(0, 64_000, 0, 100_000_000), chan(1, 64_000, 50_000_000, 50_000_000)];
        let w = common_window_ns(true, Duration::from_millis(100), &chans);
        assert_eq!(w, 100_000_000);
        let d = aggregate(w, None, LinkCounters::default(), chans.clone());
        assert_eq!((d.messages, d.bytes, d.elapsed_ns, d.channels), (2000, 128_000, w, Some(2)));
        assert_eq!(d.bytes_per_s(), 1_280_000.0);
        // 003 would report 0.64 MB/s + 1.28 MB/s = 1.92 MB/s.
        assert_eq!(sum_of_own_rates(&chans), 1_920_000.0);
        // Per channel, over the same window: equal shares.
        let rates: Vec<f64> = d.per_channel.iter().map(|c| c.bytes_per_s(w)).collect();
        assert_eq!(rates, vec![640_000.0, 640_000.0]);
        assert_eq!(icbench_stats::fairness(&rates).unwrap().jain, 1.0);
    }

    #[test]
    fn a_transfer_window_runs_to_the_last_channels_end() {
        // Each moved 1 MB; channel 2 started 3 ms late and ended last, at
        // 3 + 9 = 12 ms after T0.
        let chans = vec![
            chan(0, 1_000_000, 0, 8_000_000),
            chan(1, 1_000_000, 1_000, 10_000_000),
            chan(2, 1_000_000, 3_000_000, 9_000_000),
        ];
        let w = common_window_ns(false, Duration::from_millis(50), &chans);
        assert_eq!(w, 12_000_000);
        let d = aggregate(w, Some(32), LinkCounters { tx_busy: 3 }, chans);
        assert_eq!(d.bytes_per_s(), 3_000_000.0 * 1e9 / 12e6);
        assert_eq!((d.window, d.counters.tx_busy), (Some(32), 3));
    }

    #[test]
    fn the_merged_histogram_holds_every_channels_round_trips() {
        let mut a = LatencyHistogram::new();
        a.record(1_000);
        a.record(2_000);
        let mut b = LatencyHistogram::new();
        b.record(50_000);
        let chans = vec![
            ChannelData { latency: Some(a), ..chan(0, 128, 0, 10) },
            ChannelData { latency: Some(b), ..chan(1, 64, 0, 10) },
        ];
        let d = aggregate(10, None, LinkCounters::default(), chans);
        let h = d.latency.unwrap();
        assert_eq!((h.len(), h.min_ns()), (3, 1_000));
        assert!(h.max_ns() >= 50_000);
    }

    #[test]
    fn meter_counts_only_completions_inside_the_window() {
        let t0 = now_ns();
        let mut m = Meter::start(t0, 0, Duration::ZERO, StopRule::Messages(10), 64);
        assert_eq!(m.next_chunk(4, || false), Some(4));
        m.end = t0 + 100;
        for (k, t) in [(1, t0 + 10), (2, t0 + 50), (3, t0 + 100), (4, t0 + 150)] {
            m.first_send(t0 + 5);
            if t <= m.end {
                m.count_to(k, t);
            }
        }
        m.base = 10;
        assert_eq!(m.next_chunk(4, || false), None);
        let c = m.finish(None).unwrap();
        assert_eq!((c.messages, c.bytes, c.start_offset_ns, c.active_ns), (3, 192, 5, 95));
    }

    fn thread_cfg(stop: &'static AtomicBool) -> EngineConfig {
        let (host_cpu, peer_cpu) = crate::cpu::CpuList::usable().default_pair().unwrap_or((0, 0));
        EngineConfig {
            host_cpu,
            peer_cpu,
            peer: crate::PeerLaunch::Thread,
            fifo: None,
            timeout: Duration::from_secs(5),
            budget: crate::Budget {
                cell_time: Duration::from_millis(20),
                raw: false,
                window: 8,
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

    /// Transfer mode, with peer threads: every channel moves exactly its
    /// share (rounded up to whole messages) and the window runs to the last
    /// channel's end.
    #[test]
    fn a_transfer_cell_moves_every_byte_on_every_channel() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let cfg = thread_cfg(&STOP);
        let spec = LinkSpec::parse("unix").unwrap();
        for pattern in [Pattern::PingPong, Pattern::Stream] {
            let cell = CellSpec {
                channels: 3,
                transfer_bytes: Some(6_400 + 1),
                ..CellSpec::new(pattern, 64)
            };
            let Some(CellOutcome::Measured(d)) = measure(&cfg, &spec, cell, None) else {
                panic!("{pattern}: not measured");
            };
            assert_eq!((d.channels, d.per_channel.len()), (Some(3), 3), "{pattern}");
            for c in &d.per_channel {
                assert_eq!(
                    (c.messages, c.bytes),
                    (101, 101 * 64),
                    "{pattern} channel {}",
                    c.channel
                );
            }
            let end = d.per_channel.iter().map(|c| c.start_offset_ns + c.active_ns).max();
            assert_eq!(Some(d.elapsed_ns), end, "{pattern}");
            assert_eq!(d.bytes, 3 * 101 * 64);
            assert_eq!(d.latency.map(|h| h.len()), (pattern == Pattern::PingPong).then_some(303));
        }
    }

    #[test]
    fn other_protocols_do_not_run_on_channels() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let cfg = EngineConfig { protocol: Some(crate::Protocol::Raw), ..thread_cfg(&STOP) };
        let spec = LinkSpec::parse("unix").unwrap();
        let cell = CellSpec { channels: 2, ..CellSpec::new(Pattern::PingPong, 64) };
        let Some(CellOutcome::Failed { reason }) = measure(&cfg, &spec, cell, None) else {
            panic!("measured");
        };
        assert!(reason.contains("only pingpong and stream with icbench's own peer"), "{reason}");
    }

    #[test]
    fn chunks_follow_the_probe_with_a_floor() {
        assert_eq!(chunk_of(1_000.0, 1), 1_000);
        assert_eq!(chunk_of(10e6, 1), 1);
        assert_eq!(chunk_of(2_000.0, 256), 500);
        assert_eq!(chunk_of(20_000.0, 256), 256);
        assert_eq!(chunk_of(0.0, 1), 1_000_000);
        assert_eq!(chunk_of(1.0, 2 << 20), 1 << 20);
    }
}
