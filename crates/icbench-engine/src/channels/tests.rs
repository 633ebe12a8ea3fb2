//! The channel path's tests: the common window's arithmetic, the meter,
//! and cells measured with peer threads (transfer, raw samples, adaptive
//! phases).

use super::loops::chunk_of;
use super::meter::{Meter, StopRule};
use super::*;
use crate::clock::now_ns;
use std::sync::atomic::AtomicBool;

fn chan(channel: u32, bytes: u64, start_offset_ns: u64, active_ns: u64) -> ChannelData {
    ChannelData { channel, messages: bytes / 64, bytes, start_offset_ns, active_ns, latency: None }
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
    let w = common_window_ns(true, Duration::from_millis(100), 1, &chans);
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
    let w = common_window_ns(false, Duration::from_millis(50), 1, &chans);
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
    crate::testing::thread_config(stop, Duration::from_millis(20))
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
        let cell =
            CellSpec { channels: 3, transfer_bytes: Some(6_400 + 1), ..CellSpec::new(pattern, 64) };
        let Some(CellOutcome::Measured(d)) = measure(&cfg, &spec, cell, None) else {
            panic!("{pattern}: not measured");
        };
        assert_eq!((d.channels, d.per_channel.len()), (Some(3), 3), "{pattern}");
        for c in &d.per_channel {
            assert_eq!((c.messages, c.bytes), (101, 101 * 64), "{pattern} channel {}", c.channel);
        }
        let end = d.per_channel.iter().map(|c| c.start_offset_ns + c.active_ns).max();
        assert_eq!(Some(d.elapsed_ns), end, "{pattern}");
        assert_eq!(d.bytes, 3 * 101 * 64);
        assert_eq!(d.latency.map(|h| h.len()), (pattern == Pattern::PingPong).then_some(303));
    }
}

/// Channel i's raw samples: its slice of the cell's, by the channels'
/// counted messages; they give exactly its histogram.
fn raw_of(d: &CellData) -> Vec<&[u64]> {
    let raw = d.raw_ns.as_deref().expect("raw samples kept");
    assert_eq!(raw.len() as u64, d.messages, "one raw sample per counted round trip");
    let mut rest = raw;
    let slices: Vec<&[u64]> = d
        .per_channel
        .iter()
        .map(|c| {
            let (mine, more) = rest.split_at(c.messages as usize);
            rest = more;
            let mut h = LatencyHistogram::new();
            mine.iter().for_each(|&v| h.record(v));
            let theirs = c.latency.as_ref().expect("a ping-pong channel's histogram");
            assert_eq!(h.to_blob(), theirs.to_blob(), "channel {}", c.channel);
            mine
        })
        .collect();
    assert!(rest.is_empty());
    slices
}

#[test]
fn raw_samples_are_each_channels_round_trips_in_channel_order() {
    static STOP: AtomicBool = AtomicBool::new(false);
    let mut cfg = thread_cfg(&STOP);
    cfg.budget.raw = true;
    let spec = LinkSpec::parse("unix").unwrap();
    // Transfer mode (every channel 101 messages) and time mode.
    for transfer_bytes in [Some(6_400 + 1), None] {
        let cell = CellSpec { channels: 3, transfer_bytes, ..CellSpec::new(Pattern::PingPong, 64) };
        let Some(CellOutcome::Measured(d)) = measure(&cfg, &spec, cell, None) else {
            panic!("{transfer_bytes:?}: not measured");
        };
        let slices = raw_of(&d);
        assert_eq!(slices.len(), 3);
        if transfer_bytes.is_some() {
            assert!(slices.iter().all(|s| s.len() == 101));
        }
        assert_eq!(d.adaptive, None);
    }
    // Stream has no round trips to keep, as on a single link.
    let cell = CellSpec { channels: 2, ..CellSpec::new(Pattern::Stream, 64) };
    let Some(CellOutcome::Measured(d)) = measure(&cfg, &spec, cell, None) else { panic!() };
    assert_eq!(d.raw_ns, None);
}

/// `--ci`: phases of one cell time each over all channels, until the
/// pooled median is pinned down or `--ci-max-time` is spent; the window
/// is the phases' sum and every counted round trip is kept.
#[test]
fn adaptive_phases_add_common_windows_until_the_target_or_the_time_budget() {
    static STOP: AtomicBool = AtomicBool::new(false);
    let mut cfg = thread_cfg(&STOP);
    cfg.budget.raw = true;
    cfg.budget.ci_max_time = cfg.budget.cell_time * 3;
    let spec = LinkSpec::parse("unix").unwrap();
    let cell = CellSpec { channels: 2, ..CellSpec::new(Pattern::PingPong, 64) };
    // A target no interval meets: the time budget ends it, at 3 phases.
    cfg.budget.ci_target = Some(-1.0);
    let Some(CellOutcome::Measured(d)) = measure(&cfg, &spec, cell, None) else { panic!() };
    let a = d.adaptive.expect("adaptive");
    assert_eq!((a.phases, a.reached, a.target_rel), (3, false, -1.0));
    assert_eq!(d.elapsed_ns, 3 * nanos(cfg.budget.cell_time), "three common windows");
    raw_of(&d);
    assert_eq!(d.latency.as_ref().map(|h| h.len()), Some(d.messages));
    for c in &d.per_channel {
        assert!(c.start_offset_ns + c.active_ns <= d.elapsed_ns, "{c:?}");
    }
    // A target any interval meets: it stops as soon as there is one —
    // after the first phase, or the second when a loaded machine (CI9)
    // gave the first fewer than the 6 round trips an interval needs;
    // never at the time budget's 3.
    cfg.budget.ci_target = Some(1.0);
    let Some(CellOutcome::Measured(d)) = measure(&cfg, &spec, cell, None) else { panic!() };
    let a = d.adaptive.expect("adaptive");
    assert!(a.reached && a.phases < 3, "{a:?}");
    assert_eq!(d.elapsed_ns, u64::from(a.phases) * nanos(cfg.budget.cell_time));
    // A transfer cell stops when its bytes are moved: no phases.
    cfg.budget.ci_target = Some(-1.0);
    let cell = CellSpec { transfer_bytes: Some(640), ..cell };
    let Some(CellOutcome::Measured(d)) = measure(&cfg, &spec, cell, None) else { panic!() };
    assert_eq!((d.adaptive, d.messages), (None, 20));
}

#[test]
fn only_icb_of_the_wire_protocols_runs_on_channels() {
    static STOP: AtomicBool = AtomicBool::new(false);
    let spec = LinkSpec::parse("unix").unwrap();
    let cell = CellSpec { channels: 2, ..CellSpec::new(Pattern::PingPong, 64) };
    for p in [crate::Protocol::Raw, crate::Protocol::Dimtass] {
        let cfg = EngineConfig { protocol: Some(p), ..thread_cfg(&STOP) };
        let Some(CellOutcome::Failed { reason }) = measure(&cfg, &spec, cell, None) else {
            panic!("{p}: measured");
        };
        assert_eq!(
            reason,
            format!(
                "2 channels: pingpong and stream run on several channels, with icbench's own \
                 peer or protocol icb; not pingpong with protocol {p}"
            )
        );
    }
    // icb runs, but not on a device every channel would share: refused
    // before anything is opened.
    let cfg = EngineConfig { protocol: Some(crate::Protocol::Icb), ..thread_cfg(&STOP) };
    let tty = LinkSpec::parse("tty:/dev/null").unwrap();
    let Some(CellOutcome::Failed { reason }) = measure(&cfg, &tty, cell, None) else { panic!() };
    assert_eq!(
        reason,
        "2 channels: each needs its own instance of tty:/dev/null, but every open reaches the \
         same device and its one peer"
    );
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

/// A window in which no channel completed a message is no measurement:
/// the cell fails and says what to raise, rather than reporting 0 B/s.
#[test]
fn a_window_with_no_completion_fails_the_cell_by_name() {
    static STOP: AtomicBool = AtomicBool::new(false);
    let cfg = thread_cfg(&STOP);
    let idle = |channel| {
        Ok(Measured {
            data: chan(channel, 0, 0, 0),
            counters: LinkCounters::default(),
            raw_ns: None,
            window: None,
        })
    };
    let cell = CellSpec { channels: 2, ..CellSpec::new(Pattern::PingPong, 64) };
    let got = conclude(&cfg, cell, 2, vec![idle(0), idle(1)], None);
    let Some(CellOutcome::Failed { reason }) = got else { panic!("{got:?}") };
    assert_eq!(
        reason,
        "2 channels: no message completed inside the common window of 20 ms; raise --cell-time"
    );
    // One channel that completed anything makes it a measurement.
    let one = Ok(Measured {
        data: chan(1, 64, 0, 1_000),
        counters: LinkCounters::default(),
        raw_ns: None,
        window: None,
    });
    let got = conclude(&cfg, cell, 2, vec![idle(0), one], None);
    assert!(matches!(got, Some(CellOutcome::Measured(ref d)) if d.bytes == 64), "{got:?}");
}
