//! `icbench run -P N` end to end: N links with their own peer processes,
//! measured over one common window (issue 7). Nothing here asserts a
//! timing; the checks are on structure and on arithmetic that holds on any
//! machine (a total over the common window, offsets at least the stagger).

mod common;

use common::{icb_peer, icbench, run_json, runs_here};

use std::path::PathBuf;

use serde_json::Value;

fn db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.db");
    (dir, path)
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an unsigned integer: {v}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// The common window's arithmetic in one row: Σ over channels = the
/// totals, total rate = Σ bytes / window, each channel's rate over the same
/// window. Returns the per-channel entries.
fn check_window(row: &Value, n: u64) -> Vec<Value> {
    assert_eq!(row["status"], "ok", "{row}");
    assert_eq!(u(&row["channels"]), n);
    let cw = &row["common_window"];
    assert_eq!(u(&cw["channels"]), n);
    let per = cw["per_channel"].as_array().unwrap().clone();
    assert_eq!(per.len() as u64, n);
    let window = u(&cw["window_ns"]);
    assert!(window > 0);
    let bytes: u64 = per.iter().map(|c| u(&c["bytes"])).sum();
    let messages: u64 = per.iter().map(|c| u(&c["messages"])).sum();
    assert_eq!(bytes, u(&cw["bytes"]), "Σ per-channel bytes is the total");
    assert_eq!(messages, u(&cw["messages"]));
    assert!(bytes > 0);
    let total = bytes as f64 * 1e9 / window as f64;
    assert!(close(f(&cw["total_bytes_per_s"]), total), "{cw}");
    assert!(close(f(&row["bytes_per_s"]), total), "the row's rate is the window total");
    for (i, c) in per.iter().enumerate() {
        assert_eq!(u(&c["channel"]), i as u64);
        assert!(close(f(&c["bytes_per_s"]), u(&c["bytes"]) as f64 * 1e9 / window as f64));
        assert!(u(&c["start_offset_ns"]) + u(&c["active_ns"]) <= window, "{c}");
    }
    let jain = f(&cw["fairness"]["jain"]);
    assert!(jain > 1.0 / n as f64 - 1e-12 && jain <= 1.0 + 1e-12, "Jain's index {jain}");
    per
}

#[test]
fn four_channels_report_a_total_over_one_common_window() {
    if !runs_here("unix") {
        return;
    }
    let (_dir, path) = db();
    let args = ["-L", "unix", "-p", "pingpong", "-p", "stream", "-s", "64", "-P", "4"];
    let v = run_json(&path, &[&args[..], &["--cell-time", "50ms"]].concat());
    let pp = &v["pingpong"][0];
    for c in check_window(pp, 4) {
        assert!(f(&c["rtt_p50_ns"]) > 0.0 && f(&c["rtt_p99_ns"]) >= f(&c["rtt_p50_ns"]), "{c}");
    }
    assert!(pp["rtt_ns"].is_object(), "the merged histogram gives the cell's percentiles");
    for c in check_window(&v["stream"][0], 4) {
        assert!(c["rtt_p50_ns"].is_null());
    }
    // The store keeps every channel: `show --json` gives the same figures.
    let out = icbench().args(["show", "--json", "--db"]).arg(&path).output().unwrap();
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["pingpong"][0]["common_window"], pp["common_window"]);
    assert_eq!(shown["stream"][0]["common_window"], v["stream"][0]["common_window"]);
}

#[test]
fn channels_that_start_late_do_not_inflate_the_total() {
    if !runs_here("unix") {
        return;
    }
    let (_dir, path) = db();
    let stagger_ns = 20_000_000u64;
    let v = run_json(
        &path,
        &[
            "-L",
            "unix",
            "-p",
            "stream",
            "-s",
            "64",
            "-P",
            "3",
            "--cell-time",
            "100ms",
            "--channel-stagger",
            "20ms",
        ],
    );
    let row = &v["stream"][0];
    let per = check_window(row, 3);
    let window = u(&row["common_window"]["window_ns"]);
    for (i, c) in per.iter().enumerate() {
        assert!(
            u(&c["start_offset_ns"]) >= i as u64 * stagger_ns,
            "channel {i} started early: {c}"
        );
    }
    // What 003 would report: each channel's bytes over its own span, summed.
    let naive: f64 = per
        .iter()
        .filter(|c| u(&c["active_ns"]) > 0)
        .map(|c| u(&c["bytes"]) as f64 * 1e9 / u(&c["active_ns"]) as f64)
        .sum();
    let total = f(&row["common_window"]["total_bytes_per_s"]);
    let bytes: u64 = per.iter().map(|c| u(&c["bytes"])).sum();
    assert!(close(total, bytes as f64 * 1e9 / window as f64));
    assert!(u(&per[2]["bytes"]) > 0, "the last channel ran: {row}");
    assert!(total < naive, "the total {total} B/s must be below 003's sum of own rates {naive}");
}

#[test]
fn a_failing_channel_fails_the_cell_by_name_and_the_run_goes_on() {
    if !runs_here("unix") {
        return;
    }
    let (_dir, path) = db();
    let v = run_json(
        &path,
        &[
            "-L",
            "unix",
            "-p",
            "pingpong",
            "-s",
            "64,128",
            "-P",
            "3",
            // Long enough that the second cell's window sees round trips
            // even under qemu-user on a loaded machine (20 ms did not, once).
            "--cell-time",
            "100ms",
            "--peer-fault",
            "die-after=30",
        ],
    );
    let r = v["pingpong"].as_array().unwrap();
    assert_eq!(r[0]["status"], "failed", "{r:?}");
    let reason = r[0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("channel 2 of 3: peer was killed by signal 9"), "{reason}");
    check_window(&r[1], 3);
}

#[test]
fn bad_channel_counts_and_combinations_are_one_line_exit_2() {
    let (_dir, path) = db();
    for (args, want) in [
        (vec!["-P", "0"], "--channels 0: give 1 to 32 channels"),
        (vec!["--channels", "33"], "--channels 33: give 1 to 32 channels"),
        (
            vec!["-P", "2", "-L", "pty", "--protocol", "raw", "--peer-cmd", "icb-peer"],
            "--channels 2: several channels run with icbench's own peer or --protocol icb, not \
             with --protocol raw",
        ),
        (
            vec!["-P", "3", "-L", "pty", "--protocol", "dimtass", "--peer-cmd", "icb-peer"],
            "--channels 3: several channels run with icbench's own peer or --protocol icb, not \
             with --protocol dimtass",
        ),
        (
            vec!["-P", "2", "-L", "tty:/dev/null", "--protocol", "icb"],
            "--channels 2 with --link tty:/dev/null: each channel needs its own instance of the \
             link, but every open reaches the same device and its one peer",
        ),
        (
            vec!["-P", "2", "-L", "rpmsg-ctrl:/dev/null?dst=30&src=1024", "--protocol", "icb"],
            "--channels 2 with --link rpmsg-ctrl:/dev/null?dst=30&src=1024: each channel needs \
             its own instance of the link, but src=1024 is one local address, so one endpoint; \
             leave src out (any)",
        ),
    ] {
        let out =
            icbench().args(["run", "--no-floor", "--db"]).arg(&path).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim(), format!("icbench: error: {want}"), "{args:?}");
    }
}

/// `-P N` with `--raw` and `--ci`: every counted round trip of every channel
/// is stored as the cell's raw samples (channel 0's first), the statistics
/// come from them, and the cell's common window is its adaptive phases'.
#[test]
fn raw_and_ci_are_honoured_on_channels() {
    if !runs_here("unix") {
        return;
    }
    let (_dir, path) = db();
    let args = ["-L", "unix", "-p", "pingpong", "-s", "64", "-P", "3", "--cell-time", "20ms"];
    let v =
        run_json(&path, &[&args[..], &["--raw", "--ci", "50%", "--ci-max-time", "60ms"]].concat());
    let row = &v["pingpong"][0];
    check_window(row, 3);
    let cw = &row["common_window"];
    let a = &row["adaptive"];
    assert_eq!(f(&a["target_rel"]), 0.5, "{row}");
    let phases = u(&a["phases"]);
    assert!((1..=3).contains(&phases), "{a}");
    assert_eq!(u(&cw["window_ns"]), phases * 20_000_000, "one common window per phase");
    assert_eq!(row["rtt_ns"]["from"], "raw samples", "{row}");
    assert_eq!(u(&row["rtt_ns"]["count"]), u(&cw["messages"]));

    // The store holds them as a single link's: one blob for the cell, in
    // channel order, each channel's part giving exactly its histogram.
    let store = icbench_store::Store::open(&path).unwrap();
    let id = store.latest_run_id().unwrap().unwrap();
    let run = store.load_run(id).unwrap();
    let icbench_model::CellOutcome::Measured(d) = &run.cells[0].outcome else { panic!() };
    let raw = d.raw_ns.as_deref().expect("raw samples stored");
    assert_eq!(raw.len() as u64, d.messages);
    let mut rest = raw;
    for c in &d.per_channel {
        let (mine, more) = rest.split_at(c.messages as usize);
        rest = more;
        let mut h = icbench_model::LatencyHistogram::new();
        mine.iter().for_each(|&ns| h.record(ns));
        assert_eq!(
            Some(h.to_blob()),
            c.latency.as_ref().map(|l| l.to_blob()),
            "channel {}",
            c.channel
        );
    }
    assert!(rest.is_empty());
    assert_eq!(d.adaptive.map(|a| u64::from(a.phases)), Some(phases));
}

#[test]
fn ci_with_a_plans_transfer_cells_is_one_line_exit_2() {
    let (dir, path) = db();
    let plan = dir.path().join("plan.toml");
    std::fs::write(&plan, "[factors]\nlink = \"unix\"\nchannels = 2\ntransfer = 6400\n").unwrap();
    let out = icbench()
        .args(["run", "--no-floor", "--ci", "2%", "--plan"])
        .arg(&plan)
        .arg("--db")
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("icbench: error: --ci with --plan "), "{err}");
    assert!(err.contains("transfer = 6400 B") && err.contains("drop --ci"), "{err}");
    assert!(!path.exists(), "nothing was stored");
}

/// `-P 4 --protocol icb`: four ptys, each with its own icb-peer (the C
/// responder), handshaken one by one, then measured over one common
/// window like local channels.
#[test]
fn icb_channels_over_ptys_report_a_total_over_one_common_window() {
    let Some(peer) = icb_peer() else { return };
    let (_dir, path) = db();
    let cmd = format!("{peer} --path {{path}}");
    let v = run_json(
        &path,
        &[
            "-L",
            "pty",
            "--protocol",
            "icb",
            "--peer-cmd",
            &cmd,
            "-p",
            "pingpong",
            "-p",
            "stream",
            "-s",
            "64",
            "-P",
            "4",
            "--cell-time",
            "50ms",
        ],
    );
    let pp = &v["pingpong"][0];
    assert_eq!(pp["protocol"], "icb", "{pp}");
    for c in check_window(pp, 4) {
        assert!(f(&c["rtt_p50_ns"]) > 0.0 && f(&c["rtt_p99_ns"]) >= f(&c["rtt_p50_ns"]), "{c}");
    }
    let st = &v["stream"][0];
    check_window(st, 4);
    // icb-peer grants 4 credits (--rx-slots' default): the stream's window.
    assert_eq!(st["window"], 4, "{st}");
}

/// A fault in one channel's icb-peer fails the cell naming that channel
/// (the last: the fault goes to channel N-1); the next cell gets fresh
/// ptys and peers and is measured.
#[test]
fn a_faulty_icb_peer_fails_the_cell_by_its_channel() {
    let Some(peer) = icb_peer() else { return };
    let cmd = format!("{peer} --path {{path}}");
    for (pattern, fault, want) in [
        ("pingpong", "crc-after=30", "channel 3 of 4: bad frame from the peer: CRC mismatch"),
        (
            "stream",
            "hang-after=20",
            "channel 3 of 4: timeout: no complete reply from the peer for 1 s",
        ),
    ] {
        let (_dir, path) = db();
        let v = run_json(
            &path,
            &[
                "-L",
                "pty",
                "--protocol",
                "icb",
                "--peer-cmd",
                &cmd,
                "-p",
                pattern,
                "-s",
                "64,128",
                "-P",
                "4",
                "--cell-time",
                "50ms",
                "--timeout",
                "1s",
                "--peer-fault",
                fault,
            ],
        );
        let r = v[pattern].as_array().unwrap();
        assert_eq!(r[0]["status"], "failed", "{pattern}: {r:?}");
        let reason = r[0]["reason"].as_str().unwrap();
        assert!(reason.starts_with(want), "{pattern}: {reason}");
        check_window(&r[1], 4);
    }
}

/// 003's 32 channels over rpmsg-ctrl, on the stand-in: 32 endpoints made at
/// once on one control device (all with the same name and dst), each with
/// an icb-peer on its seqpacket end, 496-byte frames (a 1000-byte message
/// is three fragments), ping-pong and stream; every endpoint is destroyed
/// after its cell.
#[test]
fn thirty_two_icb_channels_over_rpmsg_ctrl_endpoints() {
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
    std::fs::create_dir_all(sys.join("class/rpmsg")).unwrap();
    std::fs::create_dir_all(&dev).unwrap();
    std::fs::write(dev.join("rpmsg_ctrl0"), "").unwrap();
    let spec = format!(
        "rpmsg-ctrl:{}?name=rpmsg-raw&dst=30&emulate=seqpacket",
        dev.join("rpmsg_ctrl0").display()
    );
    let cmd = format!("{peer} --stdio");
    let out = icbench()
        .arg("--sysfs-root")
        .arg(&sys)
        .arg("--dev-root")
        .arg(&dev)
        .args(["run", "--json", "--no-floor", "--db"])
        .arg(dir.path().join("r.db"))
        .args(["-L", &spec, "--protocol", "icb", "--peer-cmd", &cmd])
        .args(["-p", "pingpong", "-p", "stream"])
        .args(["-s", "64,1000", "-P", "32", "--cell-time", "100ms"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for p in ["pingpong", "stream"] {
        let rows = v[p].as_array().unwrap();
        assert_eq!(rows.len(), 2, "{p}");
        for row in rows {
            check_window(row, 32);
        }
    }
    let left: Vec<_> = std::fs::read_dir(sys.join("class/rpmsg")).unwrap().collect();
    assert!(left.is_empty(), "endpoints left behind: {left:?}");
}
