//! Writes a store for scripts/bench-analysis (#35): one finished run with
//! three ping-pong cells on `shm` whose latency histograms hold 10⁸ (64 B),
//! 10⁹ (1 KiB) and 10¹⁰ (4 KiB) round trips, as a long run stores them
//! (one HDR histogram per cell, no raw samples). Each histogram is a
//! log-normal body (σ = 0.15 around 250 ns, 400 ns, 900 ns) with a 0.1 %
//! Pareto tail to 1 ms, spread over every 0.1 % bucket from 100 ns to 1 ms
//! (~9 200 buckets), so the analysis sees as many buckets as a long, noisy
//! cell has.
//!
//! `cargo run --release -p icbench --example bench_store -- PATH.db`

use icbench_model::{
    CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, LinkCounters, Pattern, PeerMode,
    RunMeta, RunStatus, Sched,
};
use icbench_store::Store;

/// A histogram of `n` values: counts per 0.1 % step of value from a
/// log-normal body at `median` ns plus a 0.1 % tail, rounded to integers
/// that sum to `n` exactly.
fn histogram(n: u64, median: f64) -> (LatencyHistogram, u64) {
    let sigma = 0.15;
    let mut grid = Vec::new();
    let mut v = 100u64;
    while v <= 1_000_000 {
        grid.push(v);
        v = (v + 1).max((v as f64 * 1.001) as u64);
    }
    let weight = |v: f64, dv: f64| {
        let z = (v / median).ln() / sigma;
        let body = (-z * z / 2.0).exp() / (v * sigma * (2.0 * std::f64::consts::PI).sqrt());
        // Pareto with α = 1.5 from 2·median, 0.1 % of the mass.
        let tail = if v >= 2.0 * median {
            1.5 / (2.0 * median) * (v / (2.0 * median)).powf(-2.5)
        } else {
            0.0
        };
        (0.999 * body + 0.001 * tail) * dv
    };
    let w: Vec<f64> = grid
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let next = grid.get(i + 1).copied().unwrap_or(v + 1);
            weight(v as f64, (next - v) as f64)
        })
        .collect();
    let total: f64 = w.iter().sum();
    let mut counts: Vec<u64> = w.iter().map(|x| (x / total * n as f64).floor() as u64).collect();
    let short = n - counts.iter().sum::<u64>();
    let mode = w.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i).unwrap();
    counts[mode] += short;
    let mut h = LatencyHistogram::new();
    let mut elapsed = 0u64;
    for (&v, &c) in grid.iter().zip(&counts) {
        h.record_n(v, c);
        elapsed += v * c;
    }
    (h, elapsed)
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: bench_store PATH.db");
    let mut store = Store::open(&path).expect("the store opens");
    let meta = RunMeta {
        cpu_model: "synthetic (scripts/bench-analysis)".into(),
        online_cpus: "0-1".into(),
        host_cpu: 0,
        peer_cpu: 1,
        peer_mode: PeerMode::Thread,
        sched: Sched::Other,
        mlock: false,
        kernel_release: "6.1".into(),
        governor: None,
        hostname: "bench".into(),
        icbench_version: env!("CARGO_PKG_VERSION").into(),
        git_commit: None,
        command_line: vec!["icbench".into(), "run".into(), "-L".into(), "shm".into()],
        started_unix_ns: 1,
        ended_unix_ns: Some(2),
        clock: "CLOCK_MONOTONIC_RAW".into(),
        clock_overhead_ns: 20.0,
        clock_granule_ns: 1.0,
        status: RunStatus::Finished,
        floor: None,
        floor_tail: None,
        fast_counter: None,
        notes: vec![],
        label: None,
        user_note: None,
    };
    let run = store.begin_run(&meta).expect("a run begins");
    for (size, n, median) in [
        (64u64, 100_000_000u64, 250.0),
        (1024, 1_000_000_000, 400.0),
        (4096, 10_000_000_000, 900.0),
    ] {
        let (h, elapsed_ns) = histogram(n, median);
        let data = CellData {
            messages: n,
            bytes: n * size,
            elapsed_ns,
            warmup_messages: 0,
            latency: Some(h),
            raw_ns: None,
            window: None,
            counters: LinkCounters::default(),
            channels: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
            adaptive: None,
        };
        let key = CellKey::new("shm", Pattern::PingPong, size);
        store
            .insert_cell(run, &CellResult { key, outcome: CellOutcome::Measured(data) })
            .expect("the cell is stored");
    }
    println!("{}", run.0);
}
