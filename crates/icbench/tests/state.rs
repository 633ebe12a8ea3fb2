//! The state probe beside every block (issue #28 item 1): a short
//! one-cache-line round trip between the cell's CPUs before each session
//! opens, stored with every block, listed by `show --blocks`, and the
//! median of a cell's blocks with the figure's ratio to it in the JSON.

mod common;

use common::{icbench, rows};
use serde_json::Value;

fn json(args: &[&str], db: &std::path::Path) -> Value {
    let out = icbench().args(args).arg("--db").arg(db).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_block_carries_the_probe_taken_before_it_and_the_cell_their_median() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let run = [
        "run",
        "-L",
        "shm",
        "-L",
        "pipe",
        "-p",
        "pingpong",
        "-s",
        "64",
        "--replicates",
        "3",
        "--cell-time",
        "5ms",
        "--json",
    ];
    json(&run, &db);
    let blocks = json(&["show", "1", "--blocks", "--json"], &db);
    let blocks = rows(&blocks, "pingpong");
    assert_eq!(blocks.len(), 6, "two cells of three blocks");
    for b in blocks {
        let s = &b["state"];
        let line = s["line_rtt_ns"].as_f64().unwrap_or_else(|| panic!("no probe: {b}"));
        assert!(line > 0.0, "{b}");
        assert_eq!(s["probes"], 1, "{b}");
        assert!(s["cost_ns"].as_u64().unwrap() > 0, "{b}");
        // The wake-up trip goes through the kernel twice: never as fast
        // as a cache line.
        let wake = s["wake_rtt_ns"].as_f64().unwrap_or_else(|| panic!("no wake-up trip: {b}"));
        assert!(wake > line, "{b}");
        let p50 = b["rtt_ns"]["p50"].as_f64().unwrap();
        let ratio = s["p50_over_line"].as_f64().unwrap();
        assert!((ratio - p50 / line).abs() <= 1e-9 * ratio, "{b}");
    }
    // Shown as one cell: the (upper) median of the probes of the blocks
    // its figures are from — the undisturbed ones when two or more are.
    let cells = json(&["show", "1", "--json"], &db);
    for c in rows(&cells, "pingpong") {
        let label = (c["link"].as_str().unwrap(), c["replicates"]["used"].as_u64());
        let mine: Vec<&Value> = blocks.iter().filter(|b| b["link"] == c["link"]).collect();
        let quiet: Vec<&Value> =
            mine.iter().copied().filter(|b| b["disturbance"]["disturbed"] != true).collect();
        let used = if quiet.len() >= 2 { quiet } else { mine };
        let mut lines: Vec<f64> =
            used.iter().map(|b| b["state"]["line_rtt_ns"].as_f64().unwrap()).collect();
        lines.sort_by(f64::total_cmp);
        assert_eq!(c["replicates"]["used"], used.len(), "{label:?}: {c}");
        assert_eq!(c["state"]["probes"], used.len(), "{label:?}: {c}");
        assert_eq!(c["state"]["line_rtt_ns"].as_f64(), Some(lines[lines.len() / 2]), "{label:?}");
    }
    // The terminal's --blocks table has the probe's columns; the run says
    // what the probes cost.
    let out = icbench().args(["show", "1", "--blocks", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("line RTT") && text.contains("÷ line"), "{text}");
    assert!(
        text.contains("state probe (a one-cache-line and a wake-up round trip) before each of"),
        "{text}"
    );
}

/// `--no-floor` skips the probe with the floor: no block carries one.
#[test]
fn no_floor_means_no_probe() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let v = json(
        &[
            "run",
            "-L",
            "pipe",
            "-p",
            "pingpong",
            "-s",
            "64",
            "--cell-time",
            "5ms",
            "--no-floor",
            "--json",
        ],
        &db,
    );
    assert!(rows(&v, "pingpong").iter().all(|r| r.get("state").is_none()), "{v}");
}

/// Issue #28 item 3: from the third run of a host on, each replicated cell
/// is set against the host's earlier runs (two or more) in `show` and in the run's own
/// output: its repeat interval is the runs' own and the JSON says where it
/// sits against them.
#[test]
fn a_hosts_earlier_runs_give_the_repeat_interval_from_the_third_run_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let run = [
        "run",
        "-L",
        "pipe",
        "-p",
        "pingpong",
        "-s",
        "64",
        "--replicates",
        "3",
        "--cell-time",
        "5ms",
        "--no-floor",
        "--json",
    ];
    for n in 1..=2 {
        let v = json(&run, &db);
        let r = &rows(&v, "pingpong")[0]["replicates"];
        // Runs 1 and 2 have fewer than two earlier runs: no history.
        assert!(r.get("history").is_none(), "run {n}: {r}");
    }
    let v = json(&run, &db);
    assert_eq!(rows(&v, "pingpong")[0]["replicates"]["history"]["runs"], 2, "{v}");
    let v = json(&run, &db);
    let h = &rows(&v, "pingpong")[0]["replicates"]["history"];
    assert_eq!(h["runs"], 3, "{v}");
    assert!(h["within"].is_boolean() && h["lo"].as_f64().unwrap() > 0.0, "{h}");
    // `show` of that run says the same as the run did.
    let shown = json(&["show", "4", "--json"], &db);
    assert_eq!(rows(&shown, "pingpong")[0]["replicates"]["history"], *h);
    // `show` of run 3 still sees runs 1 and 2 only.
    let third = json(&["show", "3", "--json"], &db);
    assert_eq!(rows(&third, "pingpong")[0]["replicates"]["history"]["runs"], 2);
}
