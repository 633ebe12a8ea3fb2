//! `run --fifo` end to end: runs whose host end and peer spin at
//! SCHED_FIFO on both CPUs of a two-CPU machine.
//!
//! These tests have a binary of their own, and take a lock so that they run
//! one at a time: while they measure, every SCHED_OTHER thread of the
//! machine gets only what RT throttling leaves (5 % of each second by
//! default, sched-rt-group.rst), so beside another test's processes they
//! would measure that test, and it them (issue #36). Each run is bounded by
//! a time that catches a hang, not a speed. They skip, saying so, where
//! SCHED_FIFO is not permitted or the binary runs through an emulator.

mod common;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{icbench, reason, rows};
use serde_json::Value;

/// One FIFO run at a time in this binary.
static ALONE: Mutex<()> = Mutex::new(());

/// Long enough for a slow emulated or stolen-from machine; a run that
/// passes it has hung.
const HANG: Duration = Duration::from_secs(120);

fn db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.db");
    (dir, path)
}

/// Why this binary cannot test a FIFO run here, if it cannot.
fn cannot_run_fifo() -> Option<&'static str> {
    // Through qemu-user (scripts/cross-test sets a runner), the emulator's
    // own threads inherit the policy and CPU of the threads that start them
    // and starve beside SCHED_FIFO spinners: the test would measure the
    // emulator, not icbench.
    if std::env::vars().any(|(k, _)| k.starts_with("CARGO_TARGET_") && k.ends_with("_RUNNER")) {
        return Some("the binary runs through an emulator (a CARGO_TARGET_*_RUNNER)");
    }
    None
}

/// `icbench run --fifo 10 -L shm -p pingpong … --json ARGS`: its JSON, or
/// `None` (saying why) where SCHED_FIFO is not permitted.
fn fifo_run(db: &std::path::Path, args: &[&str]) -> Option<Value> {
    let out = icbench()
        .args(["run", "--fifo", "10", "-L", "shm", "-p", "pingpong", "--json", "--db"])
        .arg(db)
        .args(args)
        .timeout(HANG)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    if out.status.code() == Some(2) && err.contains("not permitted") {
        eprintln!("SKIP run --fifo: {}", err.trim());
        return None;
    }
    Some(common::finished_run(&out, args))
}

/// `run --fifo` with the floor: every thread icbench starts must get to
/// run, though the host end spins at the same priority on its CPU — the
/// counter check's and the floor's second threads, a thread peer — and the
/// watchdog must outrank a host end spinning on shm, or a dead peer hangs
/// the run.
#[test]
fn a_fifo_run_measures_its_floor_and_survives_a_dead_peer() {
    let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(why) = cannot_run_fifo() {
        eprintln!("SKIP run --fifo: {why}");
        return;
    }
    let (_dir, db) = db();
    let common = ["-s", "64,128", "--cell-time", "5ms", "--timeout", "1s"];
    let Some(v) = fifo_run(&db, &[&common[..], &["--peer", "thread"]].concat()) else { return };
    assert!(v["meta"]["floor"]["cacheline_rtt_ns"].is_number(), "{}", v["meta"]);
    let counter = v["meta"]["fast_counter"]["reason"].as_str().unwrap_or("");
    assert!(!counter.contains("waited longer"), "{counter}");
    assert!(rows(&v, "pingpong").iter().all(|r| r["status"] == "ok"), "{v}");
    let v = fifo_run(&db, &[&common[..], &["--no-floor", "--peer-fault", "die-after=50"]].concat())
        .expect("permitted a moment ago");
    let cells = rows(&v, "pingpong");
    assert!(reason(&cells[0]).contains("peer was killed"), "{}", cells[0]);
    assert_eq!(cells[1]["status"], "ok", "the run goes on after the dead peer");
}

/// A peer that stops answering (alive, spinning nowhere) while the host end
/// spins at SCHED_FIFO: the watchdog, which starts queued behind the host
/// end at its priority, must get to rank itself above it and time the cell
/// out. Before issue #36's fix it sometimes never ran at all (a thread of
/// the run at 0 ns of CPU time after seconds) and the run hung.
#[test]
fn a_fifo_run_times_out_a_peer_that_hangs() {
    let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(why) = cannot_run_fifo() {
        eprintln!("SKIP run --fifo: {why}");
        return;
    }
    for _ in 0..5 {
        let (_dir, db) = db();
        let t0 = Instant::now();
        let args = ["-s", "64", "--cell-time", "5ms", "--timeout", "1s", "--no-floor"];
        let Some(v) = fifo_run(&db, &[&args[..], &["--peer-fault", "hang-after=50"]].concat())
        else {
            return;
        };
        let cells = rows(&v, "pingpong");
        assert_eq!(cells[0]["status"], "failed", "{}", cells[0]);
        assert!(reason(&cells[0]).contains("timeout"), "{}", cells[0]);
        eprintln!("hang-after=50 under --fifo: the run ended in {:?}", t0.elapsed());
    }
}
