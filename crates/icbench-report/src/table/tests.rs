use super::*;
use crate::pairs::PairValue;

#[test]
fn factors_tell_cells_apart_in_the_link_column() {
    let f = std::collections::BTreeMap::from([
        ("cpus".to_string(), "1,0".to_string()),
        ("link".to_string(), "shm".to_string()),
        ("rep".to_string(), "2".to_string()),
    ]);
    assert_eq!(with_factors("shm?wait=spin".into(), &f), "shm?wait=spin [cpus=1,0 rep=2]");
    assert_eq!(with_factors("pipe".into(), &Default::default()), "pipe");
}

#[test]
fn a_cpu_pair_matrix_prints_rows_of_hosts_and_columns_of_peers() {
    let pv =
        |v: Option<f64>, cells, not_measured| Some(PairValue { value: v, cells, not_measured });
    let m = CpuPairMatrix {
        link: "pipe".into(),
        protocol: None,
        pattern: icbench_model::Pattern::PingPong,
        size_bytes: 64,
        blocks: None,
        factors: Default::default(),
        metric: "rtt_p50_ns".into(),
        unit: "ns",
        cpus: vec![0, 1, 2],
        matrix: vec![
            vec![None, pv(Some(812.0), 3, 0), pv(Some(1500.0), 3, 0)],
            vec![pv(Some(900.0), 2, 0), None, pv(None, 0, 3)],
            vec![None, pv(Some(2e6), 1, 0), None],
        ],
    };
    let mut out = Vec::new();
    cpu_pairs(std::slice::from_ref(&m), &mut out, Style::Terminal).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(
            "pingpong pipe 64 B: p50 round trip per CPU pair (rows: host CPU, columns: peer \
             CPU); median over up to 3 repeated cells"
        ),
        "{text}"
    );
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.contains("CPU "))
        .skip(1)
        .map(|l| l.split(['│', '┆']).map(str::trim).filter(|c| !c.is_empty()).collect())
        .collect();
    assert_eq!(rows[0], ["host \\ peer", "CPU 0", "CPU 1", "CPU 2"]);
    assert_eq!(rows[1], ["CPU 0", "n/a", "812 ns", "1.50 µs"]);
    assert_eq!(rows[2], ["CPU 1", "900 ns", "n/a", "failed"]);
    assert_eq!(rows[3], ["CPU 2", "–", "2.00 ms", "n/a"]);
    assert!(text.contains("3 cell(s) of these pairs failed"), "{text}");
}

fn row(busy: u64) -> StreamRow {
    StreamRow {
        link: "rpmsg:/dev/rpmsg0".into(),
        protocol: None,
        size_bytes: 496,
        direction: "h2p".into(),
        factors: Default::default(),
        status: "ok",
        reason: None,
        max_bytes: None,
        messages: Some(1000),
        window: Some(32),
        msgs_per_s: Some(1e4),
        bytes_per_s: Some(4.96e6),
        over_memcpy: None,
        tx_busy: Some(busy),
        channels: None,
        common_window: None,
        disturbance: None,
        cut: None,
        replicates: None,
        state: None,
    }
}

#[test]
fn the_tx_busy_column_appears_only_when_something_was_refused() {
    let quiet = stream_table(&[row(0)]).to_string();
    assert!(!quiet.contains(TX_BUSY), "{quiet}");
    let busy = stream_table(&[row(0), row(17)]).to_string();
    assert!(busy.contains(TX_BUSY), "{busy}");
    assert!(
        busy.lines().any(|l| l.trim_end().trim_end_matches('│').trim_end().ends_with("17")),
        "{busy}"
    );
}

#[test]
fn a_bulk_transfer_shows_the_writes_refused_on_a_full_ring() {
    let mut h = icbench_model::LatencyHistogram::new();
    h.record_n(5_000_000, 20);
    let data = icbench_model::CellData {
        messages: 20,
        bytes: 20 * 8192,
        elapsed_ns: 100_000_000,
        warmup_messages: 0,
        latency: Some(h),
        raw_ns: None,
        window: None,
        counters: Default::default(),
        channels: None,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: None,
        timed_batch: None,
        state: None,
        adaptive: None,
    };
    let bulk = |busy: u64| BulkRow {
        link: "tty:/dev/ttyRPMSG0".into(),
        protocol: Some("dimtass".into()),
        block_bytes: 512,
        blocks: 16,
        total_bytes: 8192,
        factors: Default::default(),
        status: "ok",
        reason: None,
        max_bytes: None,
        transfer_ns: crate::stats::CellStats::of(&data),
        transfers_per_s: Some(10.0),
        bytes_per_s: Some(81920.0),
        tx_busy: Some(busy),
        disturbance: None,
        cut: None,
        replicates: None,
    };
    let quiet = bulk_table(&[bulk(0)]).to_string();
    assert!(!quiet.contains(TX_BUSY), "{quiet}");
    let busy = bulk_table(&[bulk(0), bulk(23)]).to_string();
    assert!(busy.contains(TX_BUSY), "{busy}");
    assert!(
        busy.lines().any(|l| l.trim_end().trim_end_matches('│').trim_end().ends_with("23")),
        "{busy}"
    );
}

#[test]
fn the_fast_counter_line_says_what_was_found_and_the_verdict() {
    let tsc = icbench_model::FastCounter {
        counter: Some("tsc".into()),
        hz: Some(2.6e9),
        declared_hz: None,
        read_ns: Some(9.84),
        trusted: true,
        reason: "agrees".into(),
        max_deviation_ns: Some(1.7),
        drift_ppm: Some(-0.004),
    };
    assert_eq!(
        fast_counter(&tsc),
        "fast counter tsc at 2.60 GHz, one read costs 9.84 ns · trusted: within 1.70 ns of \
         the clock, drift -0.00 ppm (not used for timing)"
    );
    let arm = icbench_model::FastCounter {
        counter: Some("cntvct_el0".into()),
        hz: Some(62.5e6),
        declared_hz: Some(62.5e6),
        trusted: false,
        reason: "not trusted: the kernel's clocksource is tsc".into(),
        max_deviation_ns: None,
        drift_ppm: None,
        ..tsc.clone()
    };
    assert_eq!(
        fast_counter(&arm),
        "fast counter cntvct_el0 at 62.5 MHz (declares 62.5 MHz), one read costs 9.84 ns · \
         NOT trusted — the kernel's clocksource is tsc (not used for timing)"
    );
    let none = icbench_model::FastCounter {
        counter: None,
        reason: "not available on 32-bit ARM".into(),
        ..arm
    };
    assert_eq!(fast_counter(&none), "fast counter: not available on 32-bit ARM");
}

/// Issue #15 item 4: on a clock that steps by 10 ns, a cell timed one round
/// trip at a time prints its figures to 10 ns and no "±0.00 %"; a cell timed
/// in batches of 8 resolves 1.25 ns and is listed as batched.
#[test]
fn figures_follow_the_clock_step_and_batched_cells_are_named() {
    use icbench_model::{
        CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, LinkCounters, Pattern,
        RunMeta,
    };
    let cell = |size: u64, rtts: &[u64], batch: Option<u32>| {
        let mut h = LatencyHistogram::new();
        rtts.iter().for_each(|&ns| h.record(ns));
        let messages = rtts.len() as u64 * u64::from(batch.unwrap_or(1));
        CellResult {
            key: CellKey::new("shm", Pattern::PingPong, size),
            outcome: CellOutcome::Measured(CellData {
                messages,
                bytes: messages * size,
                elapsed_ns: messages * 121,
                warmup_messages: 0,
                latency: Some(h),
                raw_ns: None,
                window: None,
                counters: LinkCounters::default(),
                channels: None,
                adaptive: None,
                per_channel: Vec::new(),
                disturbance: None,
                cut_at_messages: None,
                timed_batch: batch,
                state: None,
            }),
        }
    };
    let on_grid: Vec<u64> = (0..1000).map(|i| if i % 3 == 0 { 130 } else { 120 }).collect();
    let means: Vec<u64> = (0..1000).map(|i| 121 + i % 2).collect();
    let meta =
        RunMeta { clock_overhead_ns: 20.0, clock_granule_ns: 10.0, ..crate::testing::meta() };
    let view = crate::view::build(1, &meta, &[cell(1, &on_grid, None), cell(2, &means, Some(8))]);
    let mut out = Vec::new();
    run(&view, &mut out, Detail::Cells).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("one read costs 20.0 ns, readings step by 10.0 ns"), "{text}");
    let row = |size: &str| {
        text.lines().find(|l| l.contains("shm") && l.contains(size)).unwrap().to_string()
    };
    let one = row("1 B");
    assert!(one.contains("120 ns") && one.contains("±8.33 % (clock)"), "{one}");
    assert!(!one.contains("±0.00"), "{one}");
    let batched = row("2 B");
    assert!(batched.contains("121 ns") || batched.contains("122 ns"), "{batched}");
    assert!(
        text.contains(
            "pingpong shm 2 B: 8 round trips per pair of clock reads (resolution 1.25 ns)"
        ),
        "{text}"
    );
    assert!(!text.contains("pingpong shm 1 B: "), "{text}");
}

/// Issue #18: on a terminal of 60 columns every line fits; where no width
/// is known (piped), each row stays on one line, whole.
#[test]
fn tables_fit_a_known_width_and_stay_whole_without_one() {
    let header = ["link", "size", "p50 RTT", "a rather long column heading", "payload B/s"];
    let row = ["shm?wait=futex&slots=64", "64 KiB", "1.23 µs", "±0.63 % over blocks", "8.1 GB/s"];
    let mut t = super::table(&header);
    t.add_row(row.to_vec());
    let whole = t.to_string();
    assert!(whole.lines().any(|l| l.contains("shm?wait=futex&slots=64") && l.contains("8.1 GB/s")));
    t.set_width(60);
    let narrow = t.to_string();
    assert!(narrow.lines().all(|l| l.chars().count() <= 60), "{narrow}");
    assert!(narrow.lines().count() > whole.lines().count(), "cells wrapped: {narrow}");
}

/// Thirty ping-pong cells of `link` (1–30 B) at `rtt_ns`; from the
/// `waited_from`th on, both threads waited for their CPU for half of each
/// cell (disturbed, unless that is all the link's cells: its own work).
fn thirty_cells(link: &str, rtt_ns: u64, waited_from: u64) -> Vec<icbench_model::CellResult> {
    use icbench_model::{
        CellData, CellKey, CellOutcome, CellResult, Disturbance, EndDisturbance, LatencyHistogram,
        LinkCounters, Pattern,
    };
    (0..30u64)
        .map(|i| {
            let wait = if i >= waited_from { 500_000_000 } else { 0 };
            let end = |cpu| EndDisturbance { cpu, runq_wait_ns: Some(wait), ..Default::default() };
            let mut h = LatencyHistogram::new();
            h.record(rtt_ns);
            CellResult {
                key: CellKey::new(link, Pattern::PingPong, 1 + i),
                outcome: CellOutcome::Measured(CellData {
                    messages: 1,
                    bytes: 1,
                    elapsed_ns: 1000,
                    warmup_messages: 0,
                    latency: Some(h),
                    raw_ns: None,
                    window: None,
                    counters: LinkCounters::default(),
                    channels: None,
                    adaptive: None,
                    per_channel: Vec::new(),
                    disturbance: Some(Disturbance {
                        span_ns: 1_000_000_000,
                        host: end(0),
                        peer: end(1),
                    }),
                    cut_at_messages: None,
                    timed_batch: None,
                    state: None,
                }),
            }
        })
        .collect()
}

/// Issue #18: a run with many marked cells lists a dozen under its tables
/// and counts the rest, so the summary and the verdict stay in view.
#[test]
fn a_long_list_of_marked_cells_is_folded() {
    let cells = thirty_cells("pipe", 1000, 0);
    let view = crate::build(7, &crate::testing::meta(), &cells);
    let mut out = Vec::new();
    super::run(&view, &mut out, super::Detail::Cells).unwrap();
    let text = String::from_utf8(out).unwrap();
    let notes = text.lines().filter(|l| l.starts_with("! pingpong pipe")).count();
    assert_eq!(notes, 12, "{text}");
    assert!(text.contains("… and 18 more marked cells: `icbench show 7 --stats`"), "{text}");
    assert!(text.lines().last().unwrap().contains("30 of 30 cells marked"), "{text}");

    // Without the tables, only the cell the summary quotes (pipe at 30 B,
    // the small class's largest size here) has its note; the rest counted.
    let mut out = Vec::new();
    super::run(&view, &mut out, super::Detail::Summary).unwrap();
    let text = String::from_utf8(out).unwrap();
    let notes: Vec<&str> = text.lines().filter(|l| l.starts_with("! pingpong pipe")).collect();
    assert_eq!(notes.len(), 1, "{text}");
    assert!(notes[0].starts_with("! pingpong pipe 30 B: "), "{text}");
    assert!(text.contains("marked cells (!) the summary quotes: "), "{text}");
    assert!(text.contains("… and 29 more marked cells"), "{text}");
    assert!(text.lines().last().unwrap().contains("30 of 30 cells marked"), "{text}");
}

/// Issue #18 item 1: the default prints the header, the summary with the
/// floor and the verdict, and where the tables are; `--cells` the tables
/// too; a run with nothing to summarise (one-way cells only) its tables
/// either way.
#[test]
fn the_default_is_the_summary_and_cells_adds_the_tables() {
    let cells = super::width_tests::cells();
    let view = crate::build(9, &super::width_tests::meta(), &cells);
    let text = |v: &RunView, d| {
        let mut out = Vec::new();
        run(v, &mut out, d).unwrap();
        String::from_utf8(out).unwrap()
    };
    let short = text(&view, Detail::Summary);
    let table_rows = |t: &str| t.lines().filter(|l| l.starts_with('│')).count();
    assert_eq!(table_rows(&short), 0, "{short}");
    for want in [
        "floor: cache-line round trip 120 ns",
        "summary: the best link per message size ((…): where a repeat run lands)",
        "  round trip   64 B: shm?wait=futex&slots=64 311 ns",
        "the tables of every cell (ping-pong 10, stream 18, bulk 1, oneway 2): `icbench show 9 --cells`",
        "targets: ",
        // The summary's floor: the best 64 B round trip against the two-line
        // trip, the best 64 KiB stream against memcpy.
        "floor: two-line round trip 180 ns (the best small round trip is 1.73× it) · memcpy \
         9.50 GB/s",
    ] {
        assert!(short.contains(want), "{want}:\n{short}");
    }
    assert!(!short.contains("ping-pong: round trip per message"), "{short}");

    let full = text(&view, Detail::Cells);
    assert!(full.contains("ping-pong: round trip per message"), "{full}");
    assert!(full.contains("n/a (max 64 KiB)") && full.contains("oneway: one-way latency"));
    assert!(table_rows(&full) > 30, "{full}");
    assert!(!full.contains("`icbench show 9 --cells`"), "{full}");
    assert!(full.contains("summary: the best link per message size"), "{full}");

    let oneway: Vec<_> =
        cells.into_iter().filter(|c| c.key.pattern == icbench_model::Pattern::OneWay).collect();
    let view = crate::build(10, &super::width_tests::meta(), &oneway);
    assert!(view.summary.classes.is_empty());
    let only = text(&view, Detail::Summary);
    assert!(only.contains("oneway: one-way latency") && table_rows(&only) == 3, "{only}");
}

/// Issue #29: marked cells the summary does not quote are counted, with no
/// heading over an empty list, and a cell with two notes counts once.
#[test]
fn marked_cells_the_summary_does_not_quote_are_counted_once() {
    // Ten of pipe's cells waited, the rest did not: those ten are
    // disturbed beyond the link's own work; shm, the best, is quoted.
    let mut cells = thirty_cells("pipe", 40_000, 20);
    cells.extend(thirty_cells("shm", 200, 30));
    let view = crate::build(7, &crate::testing::meta(), &cells);
    let mut out = Vec::new();
    super::run(&view, &mut out, super::Detail::Summary).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("marked cells (!)"), "{text}");
    assert!(text.contains("\n10 marked cells: `icbench show 7 --stats`"), "{text}");
    let notes = [
        "! pingpong pipe 1 B: disturbed".to_string(),
        "! pingpong pipe 1 B: its 3 blocks disagree".to_string(),
        "! pingpong pipe 2 B: disturbed".to_string(),
    ];
    assert_eq!(super::marked_cells(notes.iter()).len(), 2);
}
