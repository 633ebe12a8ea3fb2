//! Disturbance accounting end to end (issue #15): every measured cell
//! carries the kernel's counters for its two ends, and a cell that had to
//! share its CPU is marked disturbed, naming why — in JSON, in the table
//! and in `show --stats`. The disturbance is injected, not hoped for: a
//! thread of this test spins on the host's CPU while the cell runs.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{icbench, rows};

/// Spins on `cpu` until dropped.
struct Hog {
    stop: Arc<AtomicBool>,
    join: Option<std::thread::JoinHandle<()>>,
}

impl Hog {
    fn on(cpu: u32) -> Hog {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let join = std::thread::spawn(move || {
            icbench_engine::cpu::pin_current_thread(cpu).expect("pin the hog");
            tx.send(()).unwrap();
            while !s.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        rx.recv().unwrap();
        Hog { stop, join: Some(join) }
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
    }
}

#[test]
fn a_cell_sharing_its_cpu_with_a_busy_thread_is_marked_disturbed() {
    let cpus = icbench_engine::cpu::CpuList::usable().cpus;
    if cpus.len() < 2 {
        eprintln!("SKIP: needs two CPUs, this process may use {cpus:?}");
        return;
    }
    let (host, peer) = (cpus[0], cpus[1]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let pair = format!("{host},{peer}");
    let out = {
        // A spinning shm cell and a spinning thread on one CPU: the
        // scheduler shares it, so the host waits for its CPU about half
        // of the cell, far past the 1 % threshold.
        let _hog = Hog::on(host);
        icbench()
            .args(["run", "--json", "--no-floor", "-L", "shm", "-p", "pingpong", "-s", "64"])
            .args(["--cell-time", "100ms", "--cpus", &pair, "--db"])
            .arg(&db)
            .output()
            .unwrap()
    };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &rows(&v, "pingpong")[0];
    let d = &row["disturbance"];
    assert_eq!(d["disturbed"], true, "{d}");
    assert_eq!(d["host"]["cpu"], host);
    assert_eq!(d["peer"]["cpu"], peer);
    assert!(d["span_ns"].as_u64().unwrap() >= 100_000_000, "{d}");
    let causes: Vec<&str> =
        d["causes"].as_array().unwrap().iter().filter_map(|c| c.as_str()).collect();
    assert!(causes.iter().any(|c| c.starts_with("host thread preempted")), "{causes:?}");
    // A counter the kernel offers is a number; one it does not is absent,
    // never 0 (and /proc/stat's steal exists on every Linux here).
    assert!(d["host"]["steal_ns"].is_u64(), "{d}");

    // Stored: `show` marks the figure and says why under the table, and
    // `show --stats` has the counters.
    let show = icbench().args(["show", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.contains("disturbed cells"), "{text}");
    assert!(text.contains("! pingpong shm 64 B: host thread preempted"), "{text}");
    let stats = icbench().args(["show", "--stats", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&stats.stdout);
    assert!(text.contains("disturbance per cell"), "{text}");
    let csv = icbench().args(["export", "-f", "csv", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&csv.stdout);
    let header = text.lines().next().unwrap();
    assert!(header.ends_with("migrations_host,migrations_peer"), "{header}");
    assert!(text.lines().nth(1).unwrap().contains(",true,host thread preempted"), "{text}");
}
