//! Runs and cells for the store's tests: one of every outcome kind, with
//! every optional field set somewhere.

#![allow(dead_code)]

use icbench_model::{
    Adaptive, CellData, CellKey, CellOutcome, CellResult, ChannelData, Disturbance, EndDisturbance,
    FastCounter, LatencyHistogram, LinkCounters, Pattern, PeerMode, RunMeta, RunStatus, Sched,
};

/// `icbench_model::hist::MAX_TRACKABLE_NS` (100 s), which the model does not
/// re-export.
pub const MAX_TRACKABLE_NS: u64 = 100_000_000_000;

pub fn meta() -> RunMeta {
    RunMeta {
        cpu_model: "ARMv7 Processor rev 5 (v7l)".into(),
        online_cpus: "0-1".into(),
        host_cpu: 0,
        peer_cpu: 1,
        peer_mode: PeerMode::Thread,
        sched: Sched::Fifo { priority: 80 },
        mlock: true,
        kernel_release: "6.1.0-stm32mp".into(),
        governor: Some("performance".into()),
        hostname: "stm32mp1".into(),
        icbench_version: "0.1.0".into(),
        git_commit: Some("b2ef05b".into()),
        command_line: vec![
            "icbench".into(),
            "run".into(),
            "--link".into(),
            "shm?wait=futex".into(),
        ],
        started_unix_ns: 1_763_780_000_123_456_789,
        ended_unix_ns: None,
        clock: "CLOCK_MONOTONIC_RAW".into(),
        clock_overhead_ns: 21.25,
        clock_granule_ns: 10.0,
        status: RunStatus::Running,
        floor: None,
        floor_tail: None,
        fast_counter: Some(FastCounter {
            counter: Some("cntvct_el0".into()),
            hz: Some(24_000_001.5),
            declared_hz: Some(24e6),
            read_ns: Some(9.5),
            trusted: true,
            reason: "agrees with CLOCK_MONOTONIC_RAW within 42 ns".into(),
            max_deviation_ns: Some(41.7),
            drift_ppm: Some(-0.25),
        }),
        notes: vec!["SCHED_FIFO not permitted".into(), "ünïcode \"quoted\"".into()],
        // Stored as given (issue #18): a note a file name or HTML could not carry.
        label: Some("base-line".into()),
        user_note: Some("before <the> \"change\"".into()),
    }
}

/// A deterministic spread of latencies (xorshift), some above the trackable range.
pub fn latencies(n: usize) -> Vec<u64> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match i % 500 {
                0 => MAX_TRACKABLE_NS + 7, // clamped
                1 => 0,                    // recorded as 1
                _ => 800 + x % 50_000,
            }
        })
        .collect()
}

pub fn hist_of(values: &[u64]) -> LatencyHistogram {
    let mut h = LatencyHistogram::new();
    for &v in values {
        h.record(v);
    }
    h
}

pub fn key(link: &str, pattern: Pattern, size_bytes: u64) -> CellKey {
    CellKey::new(link, pattern, size_bytes)
}

pub fn measured_pingpong() -> CellResult {
    let raw = latencies(5_000);
    CellResult {
        key: key("shm?wait=futex", Pattern::PingPong, 64),
        outcome: CellOutcome::Measured(CellData {
            messages: raw.len() as u64,
            bytes: raw.len() as u64 * 64,
            elapsed_ns: 987_654_321,
            warmup_messages: 100,
            latency: Some(hist_of(&raw)),
            raw_ns: Some(raw),
            window: None,
            counters: LinkCounters::default(),
            channels: None,
            adaptive: None,
            per_channel: Vec::new(),
            // Every counter, with values past 2^32 where a counter can be.
            disturbance: Some(Disturbance {
                span_ns: 987_700_000,
                host: EndDisturbance {
                    cpu: 3,
                    steal_ns: Some(10_000_000),
                    interrupts: Some(5_000_000_000),
                    softirqs: Some(77),
                    voluntary_switches: Some(0),
                    involuntary_switches: Some(2),
                    migrations: Some(0),
                    runq_wait_ns: Some(1_234_567),
                    freq_khz_min: Some(1_200_000),
                    freq_khz_max: Some(2_600_000),
                },
                peer: EndDisturbance { cpu: 5, interrupts: Some(9), ..EndDisturbance::default() },
            }),
            cut_at_messages: Some(5_000_000),
            timed_batch: Some(8),
            state: Some(icbench_model::StateProbe {
                line_rtt_ns: 241.5,
                wake_rtt_ns: Some(41_250.0),
                cost_ns: 812_345,
                probes: 1,
            }),
        }),
    }
}

pub fn measured_stream() -> CellResult {
    CellResult {
        key: key("pipe", Pattern::Stream, 4096),
        outcome: CellOutcome::Measured(CellData {
            messages: 1_000_000,
            bytes: 4_096_000_000,
            elapsed_ns: 2_500_000_000,
            warmup_messages: 0,
            latency: None,
            raw_ns: None,
            window: Some(16),
            counters: LinkCounters { tx_busy: 42 },
            channels: None,
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        }),
    }
}

/// An imported bulk cell: one sample, a channel count and blocks.
pub fn imported_bulk() -> CellResult {
    CellResult {
        key: CellKey { blocks: Some(8), ..key("tty:/dev/ttyRPMSG0", Pattern::Bulk, 512) },
        outcome: CellOutcome::Measured(CellData {
            messages: 1,
            bytes: 4096,
            elapsed_ns: 56_251_848,
            warmup_messages: 0,
            latency: Some(hist_of(&[56_251_848])),
            raw_ns: Some(vec![56_251_848]),
            window: None,
            counters: Default::default(),
            channels: Some(8),
            adaptive: Some(Adaptive {
                target_rel: 0.01,
                achieved_rel: f64::NAN,
                phases: 9,
                reached: false,
            }),
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        }),
    }
}

/// A measured multi-channel cell (`icbench run -P 3`): the aggregate over
/// the common window, and each channel with its own histogram but one.
pub fn measured_channels() -> CellResult {
    let chan =
        |channel: u32, messages: u64, start_offset_ns: u64, hist: Option<&[u64]>| ChannelData {
            channel,
            messages,
            bytes: messages * 64,
            start_offset_ns,
            active_ns: 50_000_000 - start_offset_ns,
            latency: hist.map(hist_of),
        };
    let per_channel = vec![
        chan(0, 3, 1_200, Some(&[900, 1_000, 1_100])),
        chan(1, 2, 10_000_000, Some(&[2_000, 2_100])),
        chan(2, 0, 49_000_000, None),
    ];
    let mut merged = LatencyHistogram::new();
    for c in &per_channel {
        if let Some(h) = &c.latency {
            merged.merge(h);
        }
    }
    CellResult {
        key: key("unix", Pattern::PingPong, 64).with("channels", 3),
        outcome: CellOutcome::Measured(CellData {
            messages: 5,
            bytes: 320,
            elapsed_ns: 50_000_000,
            warmup_messages: 60,
            latency: Some(merged),
            raw_ns: None,
            window: None,
            counters: Default::default(),
            channels: Some(3),
            adaptive: None,
            per_channel,
            // CPU counters only (N threads each side); absent stays absent.
            disturbance: Some(Disturbance {
                span_ns: 50_100_000,
                host: EndDisturbance { cpu: 0, steal_ns: Some(0), ..EndDisturbance::default() },
                peer: EndDisturbance { cpu: 1, steal_ns: None, ..EndDisturbance::default() },
            }),
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        }),
    }
}

/// A bulk cell of a remote peer: protocol and blocks are kept.
pub fn measured_bulk() -> CellResult {
    let raw = latencies(100);
    CellResult {
        key: CellKey {
            protocol: Some("dimtass".into()),
            blocks: Some(5),
            ..key("serial:/dev/pts/9?baud=115200", Pattern::Bulk, 1024)
        },
        outcome: CellOutcome::Measured(CellData {
            messages: 100,
            bytes: 100 * 5 * 1024,
            elapsed_ns: 1_000_000,
            warmup_messages: 10,
            latency: Some(hist_of(&raw)),
            raw_ns: None,
            window: None,
            counters: Default::default(),
            channels: None,
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        }),
    }
}

/// Present but empty must stay distinct from absent.
pub fn measured_empty() -> CellResult {
    CellResult {
        key: key("unix", Pattern::PingPong, 1),
        outcome: CellOutcome::Measured(CellData {
            messages: 0,
            bytes: 0,
            elapsed_ns: 0,
            warmup_messages: 0,
            latency: Some(LatencyHistogram::new()),
            raw_ns: Some(Vec::new()),
            window: Some(0),
            counters: LinkCounters::default(),
            channels: None,
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        }),
    }
}

pub fn failed() -> CellResult {
    CellResult {
        key: key("tty:/dev/ttyRPMSG0", Pattern::PingPong, 256),
        outcome: CellOutcome::Failed {
            reason: "timeout after 2 s waiting for reply 17 (peer died?) 'quoted' ✓".into(),
        },
    }
}

pub fn not_applicable() -> CellResult {
    CellResult {
        key: key("rpmsg:/dev/rpmsg0", Pattern::PingPong, 1024),
        outcome: CellOutcome::NotApplicable { max_bytes: 496 },
    }
}

pub fn all_cells() -> Vec<CellResult> {
    vec![
        measured_pingpong(),
        measured_stream(),
        measured_bulk(),
        measured_empty(),
        failed(),
        not_applicable(),
        imported_bulk(),
        measured_channels(),
    ]
}

pub const QUANTILES: [f64; 9] = [0.0, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0];

pub fn assert_hist_eq(got: &LatencyHistogram, want: &LatencyHistogram, ctx: &str) {
    assert_eq!(got.inner(), want.inner(), "{ctx}: histogram buckets");
    assert_eq!(got.clamped(), want.clamped(), "{ctx}: clamped");
    assert_eq!(got.len(), want.len(), "{ctx}: len");
    for q in QUANTILES {
        assert_eq!(got.quantile_ns(q), want.quantile_ns(q), "{ctx}: quantile {q}");
    }
}

pub fn assert_cell_eq(got: &CellResult, want: &CellResult) {
    let ctx = format!("{:?}", want.key);
    assert_eq!(got.key, want.key);
    match (&got.outcome, &want.outcome) {
        (CellOutcome::Measured(g), CellOutcome::Measured(w)) => {
            assert_eq!(g.messages, w.messages, "{ctx}: messages");
            assert_eq!(g.bytes, w.bytes, "{ctx}: bytes");
            assert_eq!(g.elapsed_ns, w.elapsed_ns, "{ctx}: elapsed_ns");
            assert_eq!(g.warmup_messages, w.warmup_messages, "{ctx}: warmup_messages");
            assert_eq!(g.window, w.window, "{ctx}: window");
            assert_eq!(g.counters, w.counters, "{ctx}: counters");
            assert_eq!(g.raw_ns, w.raw_ns, "{ctx}: raw_ns");
            assert_eq!(g.channels, w.channels, "{ctx}: channels");
            assert_eq!(g.disturbance, w.disturbance, "{ctx}: disturbance");
            assert_eq!(g.cut_at_messages, w.cut_at_messages, "{ctx}: cut_at_messages");
            assert_eq!(g.timed_batch, w.timed_batch, "{ctx}: timed_batch");
            assert_eq!(g.state, w.state, "{ctx}: state probe");
            assert_eq!(g.per_channel.len(), w.per_channel.len(), "{ctx}: per_channel");
            for (gc, wc) in g.per_channel.iter().zip(&w.per_channel) {
                let shape = |c: &ChannelData| {
                    (c.channel, c.messages, c.bytes, c.start_offset_ns, c.active_ns)
                };
                assert_eq!(shape(gc), shape(wc), "{ctx}: channel {}", wc.channel);
                match (&gc.latency, &wc.latency) {
                    (Some(gh), Some(wh)) => assert_hist_eq(gh, wh, &ctx),
                    (None, None) => {}
                    _ => panic!("{ctx}: channel {} latency presence differs", wc.channel),
                }
            }
            match (g.adaptive, w.adaptive) {
                (Some(ga), Some(wa)) => {
                    assert_eq!(
                        (ga.target_rel, ga.phases, ga.reached),
                        (wa.target_rel, wa.phases, wa.reached),
                        "{ctx}: adaptive"
                    );
                    assert!(
                        ga.achieved_rel == wa.achieved_rel
                            || (ga.achieved_rel.is_nan() && wa.achieved_rel.is_nan()),
                        "{ctx}: achieved_rel"
                    );
                }
                (None, None) => {}
                (g, w) => panic!("{ctx}: adaptive {g:?} vs {w:?}"),
            }
            match (&g.latency, &w.latency) {
                (Some(gh), Some(wh)) => assert_hist_eq(gh, wh, &ctx),
                (None, None) => {}
                (g, w) => panic!("{ctx}: latency present {} vs {}", g.is_some(), w.is_some()),
            }
        }
        (CellOutcome::Failed { reason: g }, CellOutcome::Failed { reason: w }) => assert_eq!(g, w),
        (
            CellOutcome::NotApplicable { max_bytes: g },
            CellOutcome::NotApplicable { max_bytes: w },
        ) => {
            assert_eq!(g, w)
        }
        (g, w) => panic!("{ctx}: outcome {} vs {}", g.status_str(), w.status_str()),
    }
}

pub fn assert_cells_eq(got: &[CellResult], want: &[CellResult]) {
    assert_eq!(got.len(), want.len(), "cell count");
    for (g, w) in got.iter().zip(want) {
        assert_cell_eq(g, w);
    }
}
