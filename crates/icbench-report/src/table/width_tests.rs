//! Issue #18 item 2: every table follows the terminal's width and stays
//! whole when piped. Each renderer is drawn as on a terminal 80 and 200
//! columns wide and as piped (no width): at 80 every line fits, and no
//! figure of the wide rendering is missing from the narrow or the piped one.

use std::collections::BTreeSet;

use icbench_model::{
    CellData, CellKey, CellOutcome, CellResult, Floor, LatencyHistogram, LinkCounters, Pattern,
};

use super::*;

type Render<'a> = &'a dyn Fn(&mut Vec<u8>) -> std::io::Result<()>;

fn render(width: Option<u16>, f: Render) -> String {
    let mut out = Vec::new();
    match width {
        Some(w) => at_width(w, || f(&mut out)).unwrap(),
        None => f(&mut out).unwrap(),
    }
    String::from_utf8(out).unwrap()
}

/// The figures of a text: its words that begin with a digit (or a sign
/// and a digit), whatever the box-drawing around them.
fn figures(text: &str) -> BTreeSet<String> {
    text.split(|c: char| c.is_whitespace() || "│┆|┌┐└┘├┤┬┴┼═╞╡╪─".contains(c))
        .map(|w| w.trim_matches(|c: char| ",;()".contains(c)))
        .filter(|w| {
            let w = w.trim_start_matches(['±', '−', '-', '+', '×']);
            w.starts_with(|c: char| c.is_ascii_digit())
        })
        .map(str::to_string)
        .collect()
}

/// At 80 columns every line fits; piped, the tables are drawn whole (no
/// more lines than at 200 columns); no figure is lost either way.
fn fits(what: &str, f: Render) {
    let wide = render(Some(200), f);
    let narrow = render(Some(80), f);
    let piped = render(None, f);
    for l in narrow.lines() {
        assert!(l.chars().count() <= 80, "{what}: {} columns at 80: {l}", l.chars().count());
    }
    assert!(narrow.lines().count() >= wide.lines().count(), "{what}");
    assert!(piped.lines().count() <= wide.lines().count(), "{what} piped:\n{piped}");
    let want = figures(&wide);
    assert!(!want.is_empty(), "{what}: no figures:\n{wide}");
    let lost: Vec<_> = want.difference(&figures(&narrow)).cloned().collect();
    assert!(lost.is_empty(), "{what}: lost {lost:?} at 80 columns:\n{narrow}\nwide:\n{wide}");
    let lost: Vec<_> = want.difference(&figures(&piped)).cloned().collect();
    assert!(lost.is_empty(), "{what}: lost {lost:?} piped:\n{piped}");
}

fn data(p50: u64, bytes: u64) -> CellData {
    let mut h = LatencyHistogram::new();
    for i in 0..200 {
        h.record(p50 + i % 7);
    }
    CellData {
        messages: 200,
        bytes,
        elapsed_ns: 200 * p50,
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
        timed_batch: None,
        state: None,
    }
}

fn cell(key: CellKey, p50: u64) -> CellResult {
    let bytes = 200 * key.size_bytes;
    CellResult { key, outcome: CellOutcome::Measured(data(p50, bytes)) }
}

/// A run with a cell of every kind the run's text has a table for, and
/// link names as long as a user's.
pub(super) fn cells() -> Vec<CellResult> {
    let mut v = Vec::new();
    for (link, base) in [("shm?wait=futex&slots=64", 300), ("pipe", 9_000), ("unix", 8_000)] {
        for size in [64, 4096, 65536] {
            v.push(cell(CellKey::new(link, Pattern::PingPong, size), base + size / 8));
            for dir in ["h2p", "p2h"] {
                let key = CellKey::new(link, Pattern::Stream, size).with("direction", dir);
                let mut c = cell(key, base + size / 16);
                if let CellOutcome::Measured(d) = &mut c.outcome {
                    d.latency = None;
                }
                v.push(c);
            }
        }
    }
    for dir in ["h2p", "p2h"] {
        v.push(cell(CellKey::new("shm", Pattern::OneWay, 64).with("direction", dir), 150));
    }
    let mut bulk = CellKey::new("tty:/dev/ttyRPMSG0", Pattern::Bulk, 512);
    bulk.protocol = Some("dimtass".into());
    bulk.blocks = Some(8);
    v.push(cell(bulk, 1_200_000));
    v.push(CellResult {
        key: CellKey::new("seqpacket", Pattern::PingPong, 131072),
        outcome: CellOutcome::NotApplicable { max_bytes: 65536 },
    });
    v
}

pub(super) fn meta() -> icbench_model::RunMeta {
    let mut m = crate::testing::meta();
    m.floor = Some(Floor {
        cacheline_rtt_ns: 120.0,
        two_line_rtt_ns: Some(180.0),
        slot64_rtt_ns: Some(210.0),
        memcpy_bytes_per_s: 9.5e9,
        memcpy_block_bytes: 65536,
        syscall_pipe_rtt_ns: Some(8_500.0),
        syscall_unix_rtt_ns: Some(7_900.0),
        syscall_pipe: None,
        syscall_unix: None,
    });
    m
}

#[test]
fn the_run_its_summary_stats_and_targets_fit_80_columns() {
    let cells = cells();
    let view = crate::build(5, &meta(), &cells);
    assert!(!view.bulk.is_empty() && !view.oneway.is_empty() && !view.targets.is_empty());
    fits("run --cells", &|o| run(&view, o, Detail::Cells));
    fits("run", &|o| run(&view, o, Detail::Summary));
    fits("show --stats", &|o| run_stats(&view, o));
    fits("show --targets", &|o| targets(&view, o));
    // Markdown is for pasting, not a terminal: its tables stay whole.
    let md = render(Some(80), &|o| markdown(&view, o));
    let lost: Vec<_> = figures(&render(Some(200), &|o| run(&view, o, Detail::Cells)))
        .difference(&figures(&md))
        .cloned()
        .collect();
    assert!(lost.is_empty(), "markdown lost {lost:?}:\n{md}");
}

#[test]
fn timer_tables_fit_80_columns() {
    let cells: Vec<CellResult> = (0..4u32)
        .map(|cpu| {
            cell(
                CellKey::new("timer", Pattern::Timer, 0).with("cpu", cpu),
                2_000 + 10 * u64::from(cpu),
            )
        })
        .collect();
    let view = crate::build(6, &crate::testing::meta(), &cells);
    fits("run (timer)", &|o| run(&view, o, Detail::Cells));
    let rt = crate::rt::build(6, &crate::testing::meta(), &cells);
    fits("timer", &|o| crate::rt::table(&rt, o));
}

#[test]
fn runs_compare_model_and_effects_fit_80_columns() {
    let rows: Vec<RunListRow> = (1..4)
        .map(|id| RunListRow {
            id,
            started_unix_ns: 1_700_000_000_000_000_000 + id,
            status: "finished".into(),
            source: "measured".into(),
            hostname: "a-board-with-a-long-hostname.example.org".into(),
            cpus: "2 ↔ 3".into(),
            cells_ok: 150 + id as u64,
            cells_failed: 2,
            cells_na: 1,
            unstable: id == 2,
            verdict: Some("partly reproducible".into()),
            label: Some(format!("kernel-6.{id}-rt")),
            origin: None,
        })
        .collect();
    fits("runs", &|o| runs(&rows, o));

    let a = cells();
    let b: Vec<CellResult> = cells()
        .into_iter()
        .map(|mut c| {
            if let CellOutcome::Measured(d) = &mut c.outcome {
                d.elapsed_ns = d.elapsed_ns * 3 / 2;
            }
            c
        })
        .collect();
    let side = |label: &str, run_id| crate::compare::Side {
        label: label.into(),
        run_id,
        source: "measured".into(),
        hostname: "h".into(),
        cpu_model: "c".into(),
        link: None,
        board: None,
    };
    let cv = crate::compare::build(
        &[
            crate::compare::Input { side: side("A", 1), cells: a.iter().collect() },
            crate::compare::Input { side: side("B", 2), cells: b.iter().collect() },
        ],
        false,
    );
    fits("compare", &|o| compare(&cv, o));

    let view = crate::build(5, &meta(), &a);
    let m = crate::model::build(&view, &crate::model::ModelFilter::default());
    fits("model", &|o| model(&m, o));

    let refs: Vec<&CellResult> = a.iter().collect();
    let e = crate::effects::build(
        5,
        "measured",
        &refs,
        &[crate::effects::Metric::Latency, crate::effects::Metric::Bandwidth],
        icbench_stats::effects::Scale::Log,
        Default::default(),
    );
    fits("effects", &|o| crate::effects::render(&e, o));
}
