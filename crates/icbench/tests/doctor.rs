//! `icbench doctor` end to end: on a fake board tree given with `--root`
//! (text and JSON), on the live machine, and with bad input.

mod common;

use common::icbench;

use std::path::Path;

use serde_json::Value;

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, format!("{text}\n")).unwrap();
}

/// A two-core board as an STM32MP1 might look: ondemand governor, no
/// isolation, RT throttling on, a stopped M4 and the rpmsg tty.
fn board() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    put(r, "sys/devices/system/cpu/online", "0-1");
    for c in 0..2 {
        let cpu = format!("sys/devices/system/cpu/cpu{c}");
        put(r, &format!("{cpu}/cpufreq/scaling_governor"), "ondemand");
        put(r, &format!("{cpu}/topology/thread_siblings_list"), &c.to_string());
    }
    put(r, "sys/devices/system/cpu/isolated", "");
    put(r, "proc/sys/kernel/sched_rt_runtime_us", "950000");
    put(r, "proc/sys/kernel/sched_rt_period_us", "1000000");
    put(r, "proc/sys/kernel/version", "#1 SMP PREEMPT Thu Jan 1 00:00:00 UTC 2026");
    put(r, "sys/class/remoteproc/remoteproc0/name", "m4");
    put(r, "sys/class/remoteproc/remoteproc0/state", "offline");
    std::fs::create_dir_all(r.join("sys/bus/rpmsg/devices")).unwrap();
    put(r, "dev/ttyRPMSG0", "");
    dir
}

#[test]
fn a_board_tree_is_examined_as_json() {
    let b = board();
    let out = icbench().args(["doctor", "--json", "--root"]).arg(b.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!((v["host_cpu"].as_u64(), v["peer_cpu"].as_u64()), (Some(0), Some(1)));
    assert_eq!(v["worst"], "warn");
    let verdict = |id: &str| {
        let f = v["findings"].as_array().unwrap().iter().find(|f| f["id"] == id).unwrap();
        f["verdict"].as_str().unwrap().to_string()
    };
    assert_eq!(verdict("governor"), "warn");
    assert_eq!(verdict("isolation"), "warn");
    assert_eq!(verdict("rt-throttling"), "warn");
    assert_eq!(verdict("smt"), "ok");
    assert_eq!(verdict("preempt-rt"), "info");
    assert_eq!(verdict("remoteproc"), "warn");
    assert_eq!(verdict("rpmsg"), "ok");
    // Another machine's tree: this machine's counter says nothing of it.
    assert_eq!(verdict("fast-counter"), "info");
}

#[test]
fn the_text_report_gives_a_line_per_finding_and_advice() {
    let b = board();
    let out = icbench().args(["doctor", "--cpus", "1,0", "--root"]).arg(b.path()).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("icbench doctor: CPU 1 (host end) and CPU 0 (peer end)"), "{text}");
    assert!(text.contains("warn  governor          CPU 1: ondemand; CPU 0: ondemand"), "{text}");
    assert!(text.contains("→"), "{text}");
    assert!(text.contains("remoteproc0 (m4): offline"), "{text}");
}

#[test]
fn the_live_machine_gets_every_check() {
    let out = icbench().args(["doctor", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 14);
    // The live machine's fast counter was examined (trusted or not).
    let fc = v["findings"].as_array().unwrap().iter().find(|f| f["id"] == "fast-counter");
    let fc = fc.unwrap()["found"].as_str().unwrap();
    assert!(!fc.contains("not examined"), "{fc}");
}

#[test]
fn bad_cpus_and_roots_are_refused_with_exit_2() {
    let b = board();
    let out = icbench().args(["doctor", "--cpus", "0,7", "--root"]).arg(b.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "icbench: error: CPU 7 is not online (online: 0-1); choose two with --cpus A,B\n"
    );
    let empty = tempfile::tempdir().unwrap();
    let out = icbench().args(["doctor", "--root"]).arg(empty.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("icbench: error: --root ") && err.contains("online CPUs"), "{err}");
}
