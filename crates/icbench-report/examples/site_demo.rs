//! Writes a demo comparison site (issue #31 item 2) from synthetic runs
//! into a directory, for `scripts/site-check` to render:
//!
//! ```sh
//! cargo run -p icbench-report --example site_demo -- /tmp/site
//! scripts/site-check /tmp/site STM32MP157C-DK2 'QEMU virt <b>arm64</b>' 'ADI ADSP-SC598'
//! ```
//!
//! Three entries: a measured board whose 4 KiB ping-pong blocks disagree
//! (a marked cell), an emulated one with a hostile name, and a published
//! table (an imported run, not judged). Each bundle is a placeholder file
//! beside the pages, as `icbench site` copies the real ones.

use icbench_model::{
    CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, Pattern, PeerMode, RunMeta,
    RunStatus, Sched,
};
use icbench_report::site::{EntryKind, SiteEntry, build};

fn meta(host: &str) -> RunMeta {
    RunMeta {
        cpu_model: "demo CPU".into(),
        online_cpus: "0-1".into(),
        host_cpu: 0,
        peer_cpu: 1,
        peer_mode: PeerMode::Process,
        sched: Sched::Other,
        mlock: false,
        kernel_release: "6.1.0".into(),
        governor: None,
        hostname: host.into(),
        icbench_version: "0.1.0".into(),
        git_commit: None,
        command_line: Vec::new(),
        started_unix_ns: 1_764_300_000_000_000_000,
        ended_unix_ns: None,
        clock: "CLOCK_MONOTONIC_RAW".into(),
        clock_overhead_ns: 20.0,
        clock_granule_ns: 1.0,
        status: RunStatus::Finished,
        floor: None,
        floor_tail: None,
        fast_counter: None,
        notes: Vec::new(),
        label: None,
        user_note: None,
    }
}

/// A cell around `base` ns a message, block `rep` when given.
fn cell(link: &str, pattern: Pattern, size: u64, rep: Option<u32>, base: u64) -> CellResult {
    let mut h = LatencyHistogram::new();
    (0..500).for_each(|i| h.record(base + i % 7));
    let mut key = CellKey::new(link, pattern, size);
    if let Some(r) = rep {
        key = key.with("rep", r);
    }
    CellResult {
        outcome: CellOutcome::Measured(CellData {
            messages: 500,
            bytes: 500 * size,
            elapsed_ns: 500 * base,
            warmup_messages: 0,
            latency: (pattern != Pattern::Stream).then_some(h),
            raw_ns: None,
            window: (pattern == Pattern::Stream).then_some(32),
            counters: Default::default(),
            channels: None,
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        }),
        key,
    }
}

/// Three blocks of ping-pong and stream at 64 B and 4 KiB on `link`;
/// `spread` scales the 4 KiB ping-pong blocks apart (1.0: agreeing).
fn blocks(link: &str, base: u64, spread: f64) -> Vec<CellResult> {
    let mut cells = Vec::new();
    for rep in 0..3u32 {
        let k = 1.0 + f64::from(rep) * 0.005;
        let far = spread.powi(rep as i32);
        let at = |v: f64| v.round() as u64;
        cells.push(cell(link, Pattern::PingPong, 64, Some(rep), at(base as f64 * k)));
        cells.push(cell(link, Pattern::PingPong, 4096, Some(rep), at(base as f64 * 2.0 * far)));
        cells.push(cell(link, Pattern::Stream, 64, Some(rep), at(base as f64 / 20.0 * k)));
        cells.push(cell(link, Pattern::Stream, 4096, Some(rep), at(base as f64 / 4.0 * k)));
    }
    cells
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: site_demo DIR");
    let dir = std::path::Path::new(&dir);
    std::fs::create_dir_all(dir).expect("the site directory");
    let adi = icbench_report::view::build(
        3,
        &meta("reference"),
        &[
            cell("rpmsg", Pattern::PingPong, 64, None, 30_000),
            cell("rpmsg", Pattern::Stream, 64, None, 9_000),
        ],
    )
    .with_source("imported:adi-rpmsg", Some("ADSP-SC598 RPMsg page".into()), Vec::new());
    let entries = [
        SiteEntry {
            file: "stm32mp157-tty.icbench.json".into(),
            board: "STM32MP157C-DK2".into(),
            provenance: vec![
                ("icbench".into(), "0.1.0 (demo)".into()),
                ("kernel".into(), "6.1.0 PREEMPT_RT".into()),
                ("SoC".into(), "STM32MP157C".into()),
            ],
            kind: EntryKind::Measured,
            runs: vec![icbench_report::view::build(
                1,
                &meta("stm32mp1"),
                &blocks("tty", 40_000, 2.0),
            )],
        },
        SiteEntry {
            file: "qemu-virt.icbench.json".into(),
            board: "QEMU virt <b>arm64</b>".into(),
            provenance: vec![("rig".into(), "QEMU 8.2 virt, 2 vCPUs".into())],
            kind: EntryKind::Emulated,
            runs: vec![icbench_report::view::build(2, &meta("qemu"), &blocks("shm", 900, 1.0))],
        },
        SiteEntry {
            file: "adi-sc598.icbench.json".into(),
            board: "ADI ADSP-SC598".into(),
            provenance: vec![(
                "source".into(),
                "published, not re-measured: ADI ADSP-SC598 RPMsg page".into(),
            )],
            kind: EntryKind::Published,
            runs: vec![adi],
        },
    ];
    for (name, html) in build(&entries) {
        std::fs::write(dir.join(&name), html).expect("a page");
    }
    for e in &entries {
        std::fs::write(dir.join(&e.file), "{\"demo\": true}\n").expect("a bundle");
    }
    println!("{}", dir.join("index.html").display());
}
