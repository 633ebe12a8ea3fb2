//! `icbench timer` and `icbench wakeup` end to end: options, the store, the
//! rt-tests-style JSON and histogram text, loads, and bad input.

mod common;

use common::icbench;

use std::path::PathBuf;

use serde_json::Value;

fn tmp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rt.db");
    (dir, db)
}

fn json(args: &[&str], db: &std::path::Path) -> Value {
    let out = icbench().args(args).arg("--json").arg("--db").arg(db).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn timer_json_has_the_rt_tests_envelope_and_one_thread_per_cpu() {
    let (_dir, db) = tmp();
    let v =
        json(&["timer", "-a", "0", "-i", "200", "-l", "250", "--histogram", "200", "--raw"], &db);
    assert_eq!(v["file_version"], 1);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["pattern"], "timer");
    assert_eq!(v["sysinfo"]["sysname"], "Linux");
    assert!(v["cmdline"].as_str().unwrap().contains("timer"));
    assert_eq!(v["num_threads"], 1);
    let t = &v["thread"]["0"];
    assert_eq!(t["cycles"], 250);
    assert_eq!(t["cpu"], 0);
    let in_hist: u64 =
        t["histogram"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(in_hist + t["overflows"].as_u64().unwrap(), 250);
    let s = &t["icbench"]["latency_ns"];
    assert_eq!(s["count"], 250);
    assert!(s["min"].as_f64().unwrap() >= 0.0);
    assert!(t["icbench"]["p99_99_ns"].as_f64().unwrap() <= s["max"].as_f64().unwrap());
}

#[test]
fn timer_names_its_cpus_as_a_person_would() {
    let (_dir, db) = tmp();
    let out =
        icbench().args(["timer", "-a", "0", "-i", "200", "-l", "20", "--db"]).arg(&db).output();
    let err = String::from_utf8_lossy(&out.unwrap().stderr).to_string();
    assert!(err.contains("timer on CPUs 0, 20 wake-ups"), "{err}");
}

#[test]
fn timer_histfile_is_cyclictests_text_and_the_run_is_shown_again() {
    let (dir, db) = tmp();
    let hist = dir.path().join("hist.txt");
    let out = icbench()
        .args(["timer", "-a", "0", "-i", "200", "-l", "100", "--histogram", "50", "--histfile"])
        .arg(&hist)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&hist).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# Histogram");
    assert!(lines[1].starts_with("000000 "));
    // header, 50 buckets, 6 trailer lines, one thread line, the closing empty line
    assert_eq!(lines.len(), 1 + 50 + 6 + 1 + 1);
    assert!(lines[51].starts_with("# Total: "));
    assert!(lines[52].starts_with("# Min Latencies: "));
    let shown = icbench().args(["show", "latest", "--db"]).arg(&db).output().unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("cpu 0") && shown.contains("p99.99"), "{shown}");
}

#[test]
fn wakeup_through_every_primitive_completes_with_positive_samples() {
    let (_dir, db) = tmp();
    let v = json(&["wakeup", "-i", "100", "-l", "100", "--warmup", "5"], &db);
    assert_eq!(v["pattern"], "wakeup");
    let threads = v["thread"].as_object().unwrap();
    let names: Vec<&str> =
        threads.values().map(|t| t["icbench"]["label"].as_str().unwrap()).collect();
    assert_eq!(names, ["futex", "eventfd", "pipe", "mq", "unix", "signal"]);
    for t in threads.values() {
        let s = &t["icbench"]["latency_ns"];
        assert_eq!(s["count"], 100, "{t}");
        assert!(s["min"].as_f64().unwrap() > 0.0, "{t}");
        assert_ne!(t["sender_cpu"], t["receiver_cpu"]);
    }
    let notes = v["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().contains("never backwards")), "{notes:?}");
}

#[test]
fn wakeup_on_one_cpu_on_request() {
    let (_dir, db) = tmp();
    let v = json(&["wakeup", "--cpus", "0,0", "-P", "futex,pipe", "-i", "100", "-l", "50"], &db);
    for t in v["thread"].as_object().unwrap().values() {
        assert_eq!(t["sender_cpu"], 0);
        assert_eq!(t["receiver_cpu"], 0);
        assert_eq!(t["icbench"]["latency_ns"]["count"], 50);
    }
}

#[test]
fn a_builtin_load_runs_during_the_measurement_and_is_stopped() {
    let (_dir, db) = tmp();
    let v = json(
        &[
            "timer",
            "-a",
            "0",
            "-i",
            "200",
            "-l",
            "200",
            "--load",
            "cpu,ipc",
            "--load-with",
            "builtin",
        ],
        &db,
    );
    let notes: Vec<&str> =
        v["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(notes.iter().any(|n| n.starts_with("load: built-in cpu+ipc")), "{notes:?}");
    assert!(notes.iter().any(|n| n.starts_with("load stopped")), "{notes:?}");
    assert_eq!(v["thread"]["0"]["cycles"], 200);
}

#[test]
fn bad_options_are_one_line_and_exit_2() {
    let (_dir, db) = tmp();
    for (args, needle) in [
        (&["timer", "-i", "0"][..], "-i 0"),
        (&["timer", "-p", "0"][..], "-p 0"),
        (&["timer", "-l", "0"][..], "-l 0"),
        (&["timer", "-a", "9999"][..], "CPU 9999 is not online"),
        (&["timer", "-a", "0,9999"][..], "give CPUs from that list"),
        (&["timer", "-a", "x"][..], "-a 'x'"),
        (&["timer", "--histogram", "0"][..], "--histogram 0"),
        (&["timer", "-D", "soon"][..], "-D"),
        (&["timer", "--load", "gpu"][..], "--load gpu"),
        (&["timer", "--load", "cpu", "--load-with", "magic"][..], "--load-with magic"),
        (&["timer", "--load-cpus", "0"][..], "--load-cpus"),
        (&["wakeup", "-P", "smoke-signal"][..], "-P smoke-signal"),
        (&["wakeup", "--cpus", "0"][..], "--cpus '0'"),
        // irq: refused before any line is requested (no GPIO chip needed)
        (&["irq", "--chip", "/dev/gpiochip-none", "--out", "0", "--in", "1"][..], "no such device"),
        (&["irq", "--chip", "/dev/null", "--out", "0", "--in", "1"][..], "not a GPIO"),
        (&["irq", "--chip", "/dev/null", "--out", "4", "--in", "4"][..], "both line 4"),
        (
            &[
                "irq",
                "--chip",
                "/dev/null",
                "--out",
                "4",
                "--in",
                "5",
                "--respond",
                "6",
                "--respond-in",
                "4",
            ][..],
            "--out and --respond-in are both line 4",
        ),
        (
            &["irq", "--chip", "/dev/null", "--out", "0", "--in", "1", "--cpus", "0"][..],
            "driving CPU first",
        ),
        (
            &["irq", "--chip", "/dev/null", "--out", "0", "--in", "1", "--timeout", "1ms"][..],
            "--timeout 1ms",
        ),
        (&["irq", "--chip", "/dev/null", "--out", "0", "--in", "1", "-i", "0"][..], "-i 0"),
    ] {
        let out = icbench().args(args).arg("--db").arg(&db).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("icbench: error: "), "{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        // timer takes a CPU list: run's advice (--cpus A,B) would mislead.
        assert!(args[0] != "timer" || !err.contains("--cpus A,B"), "{args:?}: {err}");
    }
}

/// Issue #15 item 11: `--dma-latency` holds the PM QoS request as
/// cyclictest does, and every timer run says which way it was measured.
#[test]
fn the_timer_says_whether_it_held_cpu_dma_latency() {
    let (_dir, db) = tmp();
    let notes = |db: &std::path::Path| -> Vec<String> {
        let out = icbench().args(["show", "--json", "--db"]).arg(db).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        serde_json::from_value(v["notes"].clone()).unwrap()
    };
    let plain =
        icbench().args(["timer", "-a", "0", "-i", "200", "-l", "20", "--db"]).arg(&db).output();
    assert!(plain.unwrap().status.success());
    assert!(notes(&db).iter().any(|n| n.contains("cpu_dma_latency not held")), "{:?}", notes(&db));

    let out = icbench()
        .args(["timer", "-a", "0", "-i", "200", "-l", "20", "--dma-latency", "0", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let device = std::path::Path::new("/dev/cpu_dma_latency");
    if std::fs::OpenOptions::new().write(true).open(device).is_ok() {
        assert!(out.status.success(), "{err}");
        assert!(notes(&db).iter().any(|n| n.contains("held at 0 µs")), "{:?}", notes(&db));
    } else {
        eprintln!("SKIP holding /dev/cpu_dma_latency: not writable here; checking the refusal");
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.starts_with("icbench: error: --dma-latency: cannot open"), "{err}");
    }
    let out = icbench()
        .args(["timer", "-a", "0", "-l", "5", "--dma-latency", "2147483648", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// An irq run (issue #21) as the store keeps it, shown again and exported
/// from the database alone: the three intervals with their lines, the
/// percentiles from the stored histograms, and the clock in the JSON. The
/// host has no GPIO chip; the VM rig measures a real one (kernel/gpio_loop).
#[test]
fn a_stored_irq_run_is_shown_and_exported_with_its_intervals() {
    use icbench_model::{CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, Pattern};
    let (_dir, db) = tmp();
    let mut store = icbench_store::Store::open(&db).unwrap();
    let mut m = common::meta("0-1");
    m.clock = "CLOCK_MONOTONIC".into();
    m.command_line = vec!["icbench".into(), "irq".into()];
    m.notes = vec!["edges stamped by the kernel on CLOCK_MONOTONIC".into()];
    let run = store.begin_run(&m).unwrap();
    // a: 7-9 µs, b: 40-42 µs, c: 60-62 µs, four edges each
    for (link, base) in
        [("set-to-edge", 7_000), ("edge-to-wake", 40_000), ("edge-to-response", 60_000)]
    {
        let mut h = LatencyHistogram::new();
        let vals: Vec<u64> = vec![base, base + 1_000, base + 1_500, base + 2_000];
        for &v in &vals {
            h.record(v);
        }
        let key = CellKey::new(link, Pattern::Irq, 0)
            .with("chip", "/dev/gpiochip0")
            .with("out", 17)
            .with("in", 27)
            .with("respond", 22)
            .with("respond_in", 23)
            .with("event_clock", "CLOCK_MONOTONIC");
        let d = CellData {
            messages: 4,
            bytes: 0,
            elapsed_ns: 4_000_000,
            warmup_messages: 0,
            latency: Some(h),
            raw_ns: Some(vals),
            window: None,
            counters: Default::default(),
            channels: None,
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        };
        store.insert_cell(run, &CellResult { key, outcome: CellOutcome::Measured(d) }).unwrap();
    }
    drop(store);
    let shown = icbench().args(["show", "latest", "--db"]).arg(&db).output().unwrap();
    assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("set-to-edge (17 → 27)"), "{text}");
    assert!(text.contains("edge-to-wake (17 → 27)"), "{text}");
    assert!(text.contains("edge-to-response (22 → 23)"), "{text}");
    assert!(text.contains("irq: per edge, on CLOCK_MONOTONIC"), "{text}");
    let v: Value = {
        let out = icbench().args(["show", "latest", "--json", "--db"]).arg(&db).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_eq!(v["pattern"], "irq");
    assert_eq!(v["clock"], "CLOCK_MONOTONIC");
    assert_eq!(v["num_threads"], 3);
    assert_eq!(v["thread"]["0"]["cycles"], 4);
    assert_eq!(v["thread"]["0"]["min"], 7, "set-to-edge min is 7 µs");
    assert_eq!(v["thread"]["2"]["in"], 27);
    let id = run.0.to_string();
    let csv = icbench().args(["export", &id, "--format", "csv", "--db"]).arg(&db).output().unwrap();
    assert!(csv.status.success(), "{}", String::from_utf8_lossy(&csv.stderr));
    let csv = String::from_utf8_lossy(&csv.stdout);
    assert_eq!(csv.lines().filter(|l| l.contains("irq")).count(), 3, "{csv}");
}
