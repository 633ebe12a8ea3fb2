//! Known answers for replicate blocks, pooling and the renderers.

use super::*;
use icbench_model::LatencyHistogram;
use icbench_model::{CellData, CellKey, CellOutcome, CellResult, Pattern};

fn block(rep: u32, rtt_ns: u64, disturbed: bool) -> CellResult {
    let mut h = LatencyHistogram::new();
    for _ in 0..100 {
        h.record(rtt_ns);
    }
    let mut d = icbench_model::Disturbance { span_ns: 100_000_000, ..Default::default() };
    d.host.runq_wait_ns = Some(if disturbed { 50_000_000 } else { 0 });
    CellResult {
        key: CellKey::new("shm", Pattern::PingPong, 64).with("rep", rep),
        outcome: CellOutcome::Measured(CellData {
            messages: 100,
            bytes: 6400,
            elapsed_ns: 100 * rtt_ns,
            warmup_messages: 10,
            latency: Some(h),
            raw_ns: None,
            window: None,
            counters: Default::default(),
            channels: None,
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: Some(d),
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        }),
    }
}

/// A block with the state probe's line trip beside it.
fn probed(rep: u32, rtt_ns: u64, line_ns: f64) -> CellResult {
    let mut c = block(rep, rtt_ns, false);
    if let CellOutcome::Measured(d) = &mut c.outcome {
        d.state = Some(icbench_model::StateProbe {
            line_rtt_ns: line_ns,
            wake_rtt_ns: None,
            cost_ns: 1,
            probes: 1,
        });
    }
    c
}

/// Issue #28 item 2: blocks in two states of the machine, found from
/// their probes, are listed per state; the probe explains them when the
/// p50 ÷ line agrees (noise-notes.md's run 2: 787, 792, 258 ns).
#[test]
fn blocks_in_two_states_are_shown_per_state_and_their_ratio_holds() {
    let blocks = [probed(0, 787, 760.0), probed(1, 792, 765.0), probed(2, 258, 250.0)];
    let refs: Vec<(&CellResult, f64)> = blocks.iter().map(|b| (b, f64::NAN)).collect();
    let g = merge_group(without_rep(&blocks[0].key), &refs, OwnWork::default());
    let r = g.replicates.unwrap();
    let st = r.states.as_ref().unwrap();
    assert_eq!(st.n_states, 2);
    assert!(st.explains, "{st:?}");
    assert_eq!(
        st.per_state.iter().map(|f| (f.blocks, f.line_rtt_ns)).collect::<Vec<_>>(),
        vec![(1, 250.0), (2, 765.0)]
    );
    // The slow state's figure: the geometric mean of 787 and 792.
    assert!((st.per_state[1].figure - (787.0f64 * 792.0).sqrt()).abs() < 1e-9);
    let text = disagreement(&r);
    assert!(
        text.contains("the state probe found 2 states: 258 ns in 1 block at line 250 ns"),
        "{text}"
    );
    assert!(text.contains("p50 ÷ line 1.03×"), "{text}");
    // The merged cell carries its blocks' median probe.
    let CellOutcome::Measured(d) = &g.result.outcome else { panic!() };
    assert_eq!(d.state.map(|p| (p.line_rtt_ns, p.probes, p.cost_ns)), Some((760.0, 3, 3)));
    // A probe that does not move explains nothing, and says so by
    // saying nothing of states.
    let flat = [probed(0, 787, 250.0), probed(1, 792, 252.0), probed(2, 258, 248.0)];
    let refs: Vec<(&CellResult, f64)> = flat.iter().map(|b| (b, f64::NAN)).collect();
    let r = merge_group(without_rep(&flat[0].key), &refs, OwnWork::default()).replicates.unwrap();
    assert!(!r.states.as_ref().unwrap().explains);
    assert!(!disagreement(&r).contains("state probe"), "{}", disagreement(&r));
}

/// A block of pipe 64 B with the wake-up trip its probe read.
fn woken(rep: u32, rtt_ns: u64, wake_ns: f64) -> CellResult {
    let mut c = block(rep, rtt_ns, false);
    c.key.link = "pipe".into();
    if let CellOutcome::Measured(d) = &mut c.outcome {
        d.state = Some(icbench_model::StateProbe {
            line_rtt_ns: 130.0,
            wake_rtt_ns: Some(wake_ns),
            cost_ns: 1,
            probes: 1,
        });
    }
    c
}

/// Issue #28 item 1: a block lies between its own probe and the next
/// block's, and its figure is set against their geometric mean. Three
/// blocks measured in this order with probes 40, 49, 36 and 44 µs (the
/// fourth is another cell's): around them 44.27, 42.0, 39.80 µs; the
/// blocks' p50s 44.3, 42.1 and 39.8 µs move 1.11× where the line does
/// not, their ratios to the wake-up trip agree within 1.01×.
#[test]
fn the_wake_up_trip_around_each_block_explains_a_sleeping_link() {
    let mut other = woken(0, 45_000, 44_000.0);
    other.key.size_bytes = 4096;
    let cells =
        [woken(0, 44_300, 40_000.0), woken(1, 42_100, 49_000.0), woken(2, 39_800, 36_000.0), other];
    let around = wake_around(&cells);
    let want = [(40_000.0f64 * 49_000.0).sqrt(), (49_000.0f64 * 36_000.0).sqrt(), 39_799.5];
    for (got, want) in around.iter().zip(want) {
        assert!((got - want).abs() < 1.0, "{around:?}");
    }
    // The last block has no next one: its own probe alone.
    assert_eq!(around[3], 44_000.0);
    let g = group(&cells);
    let pipe64 = g.iter().find(|g| g.result.key.size_bytes == 64).unwrap();
    let r = pipe64.replicates.as_ref().unwrap();
    let w = r.states.as_ref().and_then(|s| s.wake.as_ref()).unwrap();
    assert!(w.explains, "{w:?}");
    assert!(w.ratio_spread < 1.01, "{w:?}");
    let ratio = w.p50_over_wake.unwrap();
    assert!((ratio - 1.0).abs() < 0.01, "{ratio}");
    // Probes that do not move explain nothing.
    let flat = [woken(0, 44_300, 40_000.0), woken(1, 39_800, 40_100.0), woken(2, 42_100, 40_050.0)];
    let g = group(&flat);
    let w = g[0].replicates.as_ref().and_then(|r| r.states.as_ref()).and_then(|s| s.wake.clone());
    assert!(!w.unwrap().explains);
}

/// Issue #28 item 2: a stream's figure against the wake-up trip is the
/// payload one trip moves. Rates 100, 80 and 125 MB/s beside trips of 10,
/// 12.5 and 8 µs move 1,000 B per trip each: the blocks spread 1.56×, the
/// conditioned figure not at all, and a stream has no p50 ÷ trip.
#[test]
fn a_streams_figure_against_the_wake_up_trip_is_its_payload_per_trip() {
    let w = WakeView::of("bytes_per_s", &[1.0e8, 0.8e8, 1.25e8], &[10_000.0, 12_500.0, 8_000.0])
        .unwrap();
    let per = w.bytes_per_wake.unwrap();
    assert!((per - 1_000.0).abs() < 1e-6, "{per}");
    assert!(w.explains && (w.ratio_spread - 1.0).abs() < 1e-9, "{w:?}");
    assert_eq!(w.p50_over_wake, None);
    let p = WakeView::of("p50_ns", &[20_000.0, 25_000.0], &[10_000.0, 12_500.0]).unwrap();
    assert_eq!((p.bytes_per_wake, p.p50_over_wake.map(|v| (v * 1e9).round())), (None, Some(2e9)));
}

/// Issue #28: the cells of one link pool their blocks' spread. Eight
/// cells whose blocks lie ×/÷ 1.06 around their centres (1.12× apart,
/// each marked "disagree" alone) pool to σ = ln 1.06 on 16 df and are
/// not marked; their interval is the pooled one; a ninth cell whose
/// blocks are 2× apart spreads more than the link and is marked, in
/// words that say so.
#[test]
fn a_links_cells_pool_their_spread_and_only_the_wild_one_disagrees() {
    let mut cells = Vec::new();
    for (i, size) in [1u64, 2, 4, 8, 16, 32, 64, 128].into_iter().enumerate() {
        let c = 1000.0 + 100.0 * i as f64;
        for (rep, v) in [c / 1.06, c, c * 1.06].into_iter().enumerate() {
            let mut b = block(rep as u32, v.round() as u64, false);
            b.key.size_bytes = size;
            cells.push(b);
        }
    }
    for (rep, v) in [1000u64, 2000, 1500].into_iter().enumerate() {
        let mut b = block(rep as u32, v, false);
        b.key.size_bytes = 4096;
        cells.push(b);
    }
    let g = group(&cells);
    let r = |size: u64| g.iter().find(|g| g.result.key.size_bytes == size).unwrap();
    let calm = r(8).replicates.as_ref().unwrap();
    let p = calm.pooled.unwrap();
    assert_eq!((p.cells, p.left_out, p.df), (8, 1, 16), "{p:?}");
    assert!((p.sigma_rel - 0.06).abs() < 0.002, "{p:?}");
    assert!(calm.spread > DISAGREE && !calm.disagree && !calm.marked(), "{calm:?}");
    let (lo, hi) = calm.interval().unwrap();
    let want = (2.119_905_299 * p.sigma_rel.ln_1p() * (2.0f64 / 3.0).sqrt()).exp();
    assert!((hi / calm.center - want).abs() < 0.002 && lo < calm.center, "{calm:?}");
    let wild = r(4096).replicates.as_ref().unwrap();
    assert!(wild.disagree && wild.marked(), "{wild:?}");
    let text = disagreement(wild);
    assert!(text.contains("more than this link's blocks spread, ±6."), "{text}");
}

/// A link whose blocks spread ±60 % each (the VM's futex-waiting shm
/// stream, 2026-11-28) has no repeat interval for any cell: each is marked
/// "wide", even the one whose own three blocks happen to agree.
#[test]
fn a_link_too_wild_for_an_interval_marks_even_its_agreeing_cells() {
    let mut cells = Vec::new();
    for (i, size) in [1u64, 2, 4, 8, 16, 32, 64, 128].into_iter().enumerate() {
        let c = 1000.0 + 100.0 * i as f64;
        for (rep, v) in [c / 1.6, c, c * 1.6].into_iter().enumerate() {
            let mut b = block(rep as u32, v.round() as u64, false);
            b.key.size_bytes = size;
            cells.push(b);
        }
    }
    for (rep, v) in [1000u64, 1010, 1020].into_iter().enumerate() {
        let mut b = block(rep as u32, v, false);
        b.key.size_bytes = 4096;
        cells.push(b);
    }
    let g = group(&cells);
    let calm = g.iter().find(|g| g.result.key.size_bytes == 4096).unwrap();
    let r = calm.replicates.as_ref().unwrap();
    assert!(r.spread < DISAGREE && !r.disagree && r.interval().is_none(), "{r:?}");
    assert!(r.wide && r.marked(), "{r:?}");
    let text = too_wide(r);
    assert!(text.starts_with("a repeat run may land beyond ×/÷ 2 of it"), "{text}");
    assert!(text.contains("this link's blocks spread ±"), "{text}");
    // With a pool whose spread gives an interval, no cell is wide.
    let mut calm_cells = cells.clone();
    for c in &mut calm_cells {
        if let CellOutcome::Measured(d) = &mut c.outcome {
            let p50 = d.elapsed_ns / 100;
            let mut h = LatencyHistogram::new();
            for _ in 0..100 {
                h.record(1000 + p50 % 7);
            }
            d.latency = Some(h);
        }
    }
    assert!(group(&calm_cells).iter().all(|g| !g.replicates.as_ref().unwrap().wide));
}

fn side(label: &str) -> crate::compare::Side {
    crate::compare::Side {
        label: label.into(),
        run_id: 1,
        source: "measured".into(),
        hostname: "h".into(),
        cpu_model: "c".into(),
        link: None,
        board: None,
    }
}

#[test]
fn compare_decides_on_the_blocks_and_not_on_marked_cells() {
    use crate::compare::{Input, build};
    let a = [block(0, 100, false), block(1, 102, false), block(2, 101, false)];
    let b = [block(0, 120, false), block(1, 121, false), block(2, 119, false)];
    let inputs = [
        Input { side: side("a"), cells: a.iter().collect() },
        Input { side: side("b"), cells: b.iter().collect() },
    ];
    let v = build(&inputs, false);
    assert_eq!(v.rows.len(), 1, "one row per cell, not per block: {:?}", v.rows);
    let r = &v.rows[0];
    assert!(r.ratio_ci_method.as_deref().unwrap().starts_with("between replicate blocks"));
    assert_eq!(r.significant, Some(true), "{r:?}");
    assert!((r.ratio - 1.19).abs() < 0.01, "{r:?}");
    // Blocks 1.3× apart on one side: marked, so nothing is decided.
    let c = [block(0, 100, false), block(1, 130, false), block(2, 101, false)];
    let inputs = [
        Input { side: side("c"), cells: c.iter().collect() },
        Input { side: side("b"), cells: b.iter().collect() },
    ];
    let r = &build(&inputs, false).rows[0];
    assert_eq!(r.significant, None, "{r:?}");
    assert!(r.note.as_deref().unwrap().contains("blocks disagree"));
}

#[test]
fn blocks_become_one_cell_with_their_spread() {
    let g = group(&[block(0, 100, false), block(1, 110, false), block(2, 121, false)]);
    assert_eq!(g.len(), 1);
    assert!(g[0].result.key.factors.is_empty(), "rep is gone: {:?}", g[0].result.key);
    let r = g[0].replicates.as_ref().unwrap();
    assert_eq!((r.blocks, r.used, r.metric), (3, 3, "p50_ns"));
    assert!((r.center - 110.0).abs() < 0.5, "{r:?}");
    assert!(r.disagree, "1.21× apart: {r:?}");
    let CellOutcome::Measured(d) = &g[0].result.outcome else { panic!() };
    assert_eq!((d.messages, d.latency.as_ref().unwrap().len()), (300, 300));
}

#[test]
fn a_disturbed_block_is_left_out_when_two_quiet_ones_remain() {
    let g = group(&[block(0, 100, false), block(1, 900, true), block(2, 104, false)]);
    let r = g[0].replicates.as_ref().unwrap();
    assert_eq!((r.blocks, r.used), (3, 2));
    assert!(!r.disagree, "{r:?}");
    let CellOutcome::Measured(d) = &g[0].result.outcome else { panic!() };
    assert_eq!(d.messages, 200);
    // With only one quiet block, every block counts.
    let g = group(&[block(0, 100, false), block(1, 900, true)]);
    assert_eq!(g[0].replicates.as_ref().unwrap().used, 2);
}

/// Issue #28 item 5, known answers: two usable blocks (the third
/// disturbed) give no interval — t₀.₉₇₅,₁ = 12.7 would make 100 and
/// 104 ns "×/÷ 1.65" — and say so; three that agree keep theirs.
#[test]
fn two_usable_blocks_have_no_interval_and_three_keep_theirs() {
    let g = group(&[block(0, 100, false), block(1, 900, true), block(2, 104, false)]);
    let r = g[0].replicates.as_ref().unwrap();
    assert_eq!((r.blocks, r.used, r.too_few_blocks, r.disagree), (3, 2, true, false));
    assert_eq!((r.lo, r.hi, r.rel_half_width, r.interval()), (None, None, None, None));
    assert_eq!(r.interval_note.as_deref(), Some("too few agreeing blocks: 2 of 3 usable"));
    assert!(r.marked(), "{r:?}");
    assert!((r.center - (100.0f64 * 104.0).sqrt()).abs() < 0.05, "still the blocks' mean");
    assert_eq!(ci_short(r), "too few agreeing blocks: 2 of 3 usable");
    assert_eq!(
        too_few(r),
        "too few agreeing blocks for a repeat interval: 2 of 3 usable (the others \
         disturbed; an interval needs 3)"
    );
    // Two blocks measured, both usable: --replicates 2 gives none either.
    let g = group(&[block(0, 100, false), block(1, 100, false)]);
    let r = g[0].replicates.as_ref().unwrap();
    assert_eq!(r.interval_note.as_deref(), Some("too few agreeing blocks: 2 of 2 usable"));
    assert!(too_few(r).contains("--replicates 3 or more gives one"), "{}", too_few(r));
    // Three agreeing blocks: the interval as before (t₀.₉₇₅,₂ = 4.30
    // on the logs of 100, 101, 102: ×/÷ 1.0354, so ±3.5 %).
    let g = group(&[block(0, 100, false), block(1, 101, false), block(2, 102, false)]);
    let r = g[0].replicates.as_ref().unwrap();
    assert_eq!(
        (r.too_few_blocks, r.disagree, r.marked(), &r.interval_note),
        (false, false, false, &None)
    );
    let want = icbench_stats::repeat_interval95(&[100.0, 101.0, 102.0]).unwrap();
    assert_eq!(r.interval(), Some((want.lo, want.hi)));
    assert!((want.hi / want.center - 1.035_4).abs() < 1e-4, "{want:?}");
    assert_eq!(ci_short(r), "±3.5 %");
    // Past ×/÷ 1.5 both sides, still in per cent: ×/÷ 1.66 is +66 % −40 %.
    let wide = ReplicatesView { lo: Some(r.center / 1.66), hi: Some(r.center * 1.66), ..r.clone() };
    assert_eq!(ci_short(&wide), "+66 % −40 %");
}

/// Three usable blocks far apart: the t-interval (×/÷ 3.4 for blocks
/// 1.98× apart) is past MAX_INTERVAL_FACTOR, so none is shown; the
/// cell is marked because they disagree, not for too few blocks.
#[test]
fn an_interval_past_twofold_is_not_shown() {
    let g = group(&[block(0, 632, false), block(1, 900, false), block(2, 1250, false)]);
    let r = g[0].replicates.as_ref().unwrap();
    let t = icbench_stats::repeat_interval95(&[632.0, 900.0, 1250.0]).unwrap();
    assert!(t.hi / t.center > MAX_INTERVAL_FACTOR, "{t:?}");
    assert_eq!((r.interval(), r.too_few_blocks, r.disagree), (None, false, true));
    assert_eq!(ci_short(r), "no interval: blocks 1.98× apart");
    // Blocks that agree never reach it: the widest three can give.
    let g = group(&[block(0, 1000, false), block(1, 1000, false), block(2, 1100, false)]);
    let r = g[0].replicates.as_ref().unwrap();
    let f = r.hi.unwrap() / r.center;
    assert!(f > 1.2 && f < 1.22, "{r:?}");
}

/// The renderers of a run: the cells table, the summary, the list of
/// marked cells, the verdict and the JSON all say "too few agreeing
/// blocks" for the 2-block cell and keep the interval of the 3-block one.
#[test]
fn every_renderer_says_too_few_agreeing_blocks() {
    let at = |size: u64, b: CellResult| {
        let mut b = b;
        b.key.size_bytes = size;
        b
    };
    let cells = [
        at(64, block(0, 100, false)),
        at(64, block(1, 900, true)),
        at(64, block(2, 104, false)),
        at(4096, block(0, 200, false)),
        at(4096, block(1, 202, false)),
        at(4096, block(2, 204, false)),
    ];
    let view = crate::build(7, &crate::testing::meta(), &cells);
    let mut out = Vec::new();
    crate::table::run(&view, &mut out, crate::table::Detail::Cells).unwrap();
    let text = String::from_utf8(out).unwrap();
    let note = "too few agreeing blocks: 2 of 3 usable";
    let row64 = text.lines().find(|l| l.contains("shm") && l.contains(" 64 B ")).unwrap();
    assert!(row64.contains("102 ns !") && row64.contains(note), "{text}");
    let row4k = text.lines().find(|l| l.contains("shm") && l.contains("4 KiB")).unwrap();
    assert!(row4k.contains("±") && !row4k.contains('!'), "{text}");
    assert!(text.contains(&format!("round trip   64 B: shm 102 ns ({note}) !")), "{text}");
    assert!(text.contains("round trip  4 KiB: shm 202 ns (19"), "the interval: {text}");
    assert!(
        text.contains(
            "! pingpong shm 64 B: too few agreeing blocks for a repeat interval: 2 \
                       of 3 usable"
        ),
        "{text}"
    );
    // The header is prose, wrapped at the text width.
    assert!(
        text.replace('\n', " ")
            .contains("with too few agreeing blocks for an interval, or their blocks"),
        "{text}"
    );
    let v = view.verdict.as_ref().unwrap();
    assert_eq!((v.too_few_blocks, v.flagged, v.cells), (1, 1, 2), "{v:?}");
    assert!(
        v.text.contains(
            "1 of 2 cells marked (0 disturbed, 0 with blocks that disagree, 1 \
                             with too few agreeing blocks)"
        ),
        "{}",
        v.text
    );
    let json = serde_json::to_value(&view).unwrap();
    let reps = |i: usize| json["pingpong"][i]["replicates"].clone();
    let (r64, r4k) = if reps(0)["used"] == 2 { (reps(0), reps(1)) } else { (reps(1), reps(0)) };
    assert_eq!((r64["lo"].is_null(), r64["hi"].is_null()), (true, true), "{r64}");
    assert_eq!(
        (r64["interval_note"].as_str(), r64["too_few_blocks"].as_bool()),
        (Some(note), Some(true))
    );
    assert!(r4k["lo"].as_f64().unwrap() < 202.0 && r4k["interval_note"].is_null(), "{r4k}");
    let small = &json["summary"]["classes"][0]["latency"]["entries"][0];
    assert_eq!((small["interval"].is_null(), small["interval_note"].as_str()), (true, Some(note)));
    assert_eq!(small["marked"], true);
    // CSV: the interval's columns empty, the note in its column.
    let mut out = Vec::new();
    crate::export::csv(&view, &mut out).unwrap();
    let mut r = csv::Reader::from_reader(out.as_slice());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    let line = rows.iter().find(|l| &l[col("rep_interval_note")] == note).unwrap();
    assert_eq!(&line[col("rep_metric")], "p50_ns", "{line:?}");
    assert_eq!(&line[col("rep_repeat95_lo")], "", "{line:?}");
}

#[test]
fn a_failed_block_fails_the_cell_naming_it_and_runs_without_reps_stay_as_stored() {
    let mut b = block(1, 100, false);
    b.outcome = CellOutcome::Failed { reason: "timeout".into() };
    let g = group(&[block(0, 100, false), b]);
    assert!(
        matches!(&g[0].result.outcome, CellOutcome::Failed { reason } if reason == "block 2 of 2: timeout")
    );
    let plain = block(0, 100, false);
    let mut plain_key = plain.clone();
    plain_key.key.factors.clear();
    let g = group(&[plain_key.clone()]);
    assert_eq!(g[0].result.key, plain_key.key);
    assert!(g[0].replicates.is_none());
}
