use super::render::ratio;
use super::*;
use icbench_model::{LatencyHistogram, LinkCounters, Pattern};

fn data(p50: u64, channels: Option<u32>, hist: bool) -> CellData {
    let mut h = LatencyHistogram::new();
    h.record_n(p50, 10);
    CellData {
        messages: 10,
        bytes: 2_000,
        elapsed_ns: 1_000_000,
        warmup_messages: 0,
        latency: hist.then_some(h),
        raw_ns: None,
        window: None,
        counters: LinkCounters::default(),
        channels,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: None,
        timed_batch: None,
        state: None,
        adaptive: None,
    }
}

#[test]
fn the_factors_of_a_cell_leave_rep_out() {
    let mut key = CellKey::new("shm?wait=spin", Pattern::Bulk, 512).with("rep", 7);
    key.blocks = Some(4);
    key.protocol = Some("icb".into());
    let f = factors(&key.clone().with("cpus", "0,1"), Some(&data(100, Some(8), true)));
    let want: BTreeMap<String, String> = [
        ("blocks", "4"),
        ("channels", "8"),
        ("cpus", "0,1"),
        ("link", "shm?wait=spin"),
        ("pattern", "bulk"),
        ("protocol", "icb"),
        ("size", "512"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(f, want);
    // A plan's "channels" factor wins over the cell's count; no data, no channels.
    let k2 = CellKey::new("pipe", Pattern::Stream, 64).with("channels", "4");
    assert_eq!(factors(&k2, Some(&data(1, None, true)))["channels"], "4");
    assert!(!factors(&CellKey::new("pipe", Pattern::Stream, 64), None).contains_key("channels"));
    // A plan's declared link wins over the spec with its wait applied.
    let k3 = CellKey::new("shm?wait=spin", Pattern::PingPong, 64).with("link", "shm");
    assert_eq!(factors(&k3, None)["link"], "shm");
}

#[test]
fn responses_and_exclusions_are_counted_and_rendered() {
    let cell = |link: &str, size: u64, p50: u64, hist: bool| CellResult {
        key: CellKey::new(link, Pattern::PingPong, size),
        outcome: CellOutcome::Measured(data(p50, None, hist)),
    };
    let failed = CellResult {
        key: CellKey::new("pipe", Pattern::PingPong, 1),
        outcome: CellOutcome::Failed { reason: "x".into() },
    };
    let cells = [
        cell("pipe", 64, 100, true),
        cell("pipe", 1024, 400, true),
        cell("unix", 64, 200, true),
        cell("unix", 1024, 800, false),
        failed,
    ];
    let refs: Vec<&CellResult> = cells.iter().collect();
    let metrics = [Metric::Latency, Metric::Bandwidth];
    let v = build(3, "measured", &refs, &metrics, Scale::Log, BTreeMap::new());
    assert_eq!((v.cells_total, v.cells_failed, v.cells_not_applicable), (5, 1, 0));
    let lat = &v.metrics[0];
    assert_eq!((lat.cells, lat.cells_without), (3, 1));
    assert!(!lat.effects.design.balanced);
    assert_eq!(v.metrics[1].cells, 4);
    assert!(!v.varies_nothing());
    let mut out = Vec::new();
    render(&v, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    for want in [
        "run 3 (measured)",
        "left out: 1 failed, 0 n/a",
        "1 without a latency histogram",
        "UNBALANCED (1 of 4 combinations missing)",
        "missing: link=unix size=1 KiB",
        "1 KiB",
        "── bandwidth (payload, one way: a stream cell's in its direction), B/s ──",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
}

#[test]
fn ratios_far_from_one_keep_their_digits() {
    assert_eq!(ratio(1.5), "1.50×");
    assert_eq!(ratio(0.0012), "1.20e-3×");
    assert_eq!(ratio(2.5e6), "2.50e6×");
}
