//! Numbers that hold (issue #15), end to end.
//!
//! Disturbance accounting: every measured cell carries the kernel's
//! counters for its two ends, and a cell that had to share its CPU is
//! marked disturbed, naming why — in JSON, in the table and in `show
//! --stats`. The disturbance is injected, not hoped for: a thread of this
//! test spins on the host's CPU while the cell runs.
//!
//! A locked store: another process holding the database's write lock for
//! longer than the busy timeout mid-run costs no measured cell.

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

/// The first two CPUs this process may use; `None` (saying so) with fewer.
fn two_cpus() -> Option<(u32, u32)> {
    let cpus = icbench_engine::cpu::CpuList::usable().cpus;
    if cpus.len() < 2 {
        eprintln!("SKIP: needs two CPUs, this process may use {cpus:?}");
        return None;
    }
    Some((cpus[0], cpus[1]))
}

#[test]
fn a_cell_sharing_its_cpu_with_a_busy_thread_is_marked_disturbed() {
    let Some((host, peer)) = two_cpus() else { return };
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
    // The span holds the cell; how long depends on the pace the probe saw.
    assert!(d["span_ns"].as_u64().unwrap() > 0, "{d}");
    let causes: Vec<&str> =
        d["causes"].as_array().unwrap().iter().filter_map(|c| c.as_str()).collect();
    assert!(causes.iter().any(|c| c.starts_with("host thread preempted")), "{causes:?}");
    // Its only cell marked: the run says it is not fit for quoting.
    assert_eq!(v["verdict"]["verdict"], "not fit for quoting", "{}", v["verdict"]);
    assert_eq!(
        (v["verdict"]["cells"].as_u64(), v["verdict"]["disturbed"].as_u64()),
        (Some(1), Some(1))
    );
    // Stored with the run: `runs` lists it.
    let runs = icbench().args(["runs", "--json", "--db"]).arg(&db).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).unwrap();
    assert_eq!(runs["runs"][0]["verdict"], "not fit for quoting", "{runs}");
    // A counter the kernel offers is a number; one it does not is absent,
    // never 0 (and /proc/stat's steal exists on every Linux here).
    assert!(d["host"]["steal_ns"].is_u64(), "{d}");

    // Stored: `show` marks the figure and says why under the table, and
    // `show --stats` has the counters.
    let show = icbench().args(["show", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.contains("marked cells (!)"), "{text}");
    assert!(text.contains("! pingpong shm 64 B: host thread preempted"), "{text}");
    let last = text.lines().last().unwrap_or_default();
    assert!(last.starts_with("verdict: NOT FIT FOR QUOTING: 1 of 1 cells marked"), "{text}");
    let stats = icbench().args(["show", "--stats", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&stats.stdout);
    assert!(text.contains("disturbance per cell"), "{text}");
    let csv = icbench().args(["export", "-f", "csv", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&csv.stdout);
    let header = text.lines().next().unwrap();
    assert!(header.contains(",migrations_host,migrations_peer,"), "{header}");
    assert!(text.lines().nth(1).unwrap().contains(",true,host thread preempted"), "{text}");
}

#[test]
fn a_store_locked_mid_run_by_another_writer_loses_no_cell() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let mut child = common::icbench_process()
        .args(["run", "--json-stream", "--no-floor", "-L", "pipe", "-p", "pingpong"])
        .args(["-s", "1-64K", "--cell-time", "20ms", "--db"])
        .arg(&db)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    // The first cell is stored: take the write lock for longer than the
    // store's 5 s busy timeout while the other 16 cells are measured.
    let first = lines.next().expect("a first cell").unwrap();
    assert!(first.contains("\"event\":\"cell\""), "{first}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    std::thread::sleep(std::time::Duration::from_secs(7));
    conn.execute_batch("COMMIT").unwrap();
    drop(conn);
    let rest = lines.map_while(Result::ok).filter(|l| l.contains("\"event\":\"cell\"")).count();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(rest, 16, "every cell streamed: {err}");
    let me = format!("is locked by process {}", std::process::id());
    assert!(err.contains(&me), "names the holder: {err}");
    assert!(err.contains("stored after waiting"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(
        &icbench().args(["show", "--json", "--db"]).arg(&db).output().unwrap().stdout,
    )
    .unwrap();
    assert_eq!(rows(&v, "pingpong").len(), 17, "every measured cell is stored");
}

#[test]
fn a_run_whose_floor_moved_between_head_and_tail_is_unstable_everywhere() {
    use icbench_model::{Floor, FloorTail, RunStatus};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let mut store = icbench_store::Store::open(&db).unwrap();
    let floor = |cacheline_rtt_ns: f64| Floor {
        cacheline_rtt_ns,
        two_line_rtt_ns: None,
        slot64_rtt_ns: None,
        memcpy_bytes_per_s: 13.0e9,
        memcpy_block_bytes: 65536,
        syscall_pipe_rtt_ns: None,
        syscall_unix_rtt_ns: None,
        syscall_pipe: None,
        syscall_unix: None,
    };
    // Noise-notes' three runs: 74.0 ns at one head; the vCPUs then moved
    // (29.4 ns). A second run stayed in its state (68.8 → 62.5 ns).
    for (head, tail) in [(74.0, 29.4), (68.8, 62.5)] {
        let run = store.begin_run(&common::meta("0-1")).unwrap();
        store.set_floor(run, &floor(head)).unwrap();
        let t = FloorTail { cacheline_rtt_ns: tail, memcpy_bytes_per_s: 13.5e9 };
        store.set_floor_tail(run, &t).unwrap();
        store.finish_run(run, RunStatus::Finished, 1, None, &[]).unwrap();
    }
    drop(store);
    let runs = icbench().args(["runs", "--json", "--db"]).arg(&db).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&runs.stdout).unwrap();
    // JSON keeps the status a script expects and says it apart; the table
    // says both in one column.
    assert_eq!(
        (&v["runs"][0]["status"], &v["runs"][0]["unstable"]),
        (&"finished".into(), &true.into())
    );
    assert_eq!(
        (&v["runs"][1]["status"], &v["runs"][1]["unstable"]),
        (&"finished".into(), &false.into())
    );
    let runs = icbench().args(["runs", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&runs.stdout);
    assert!(text.contains("finished, unstable"), "{text}");
    let show = icbench().args(["show", "1", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.contains("UNSTABLE: the machine changed under the run"), "{text}");
    assert!(text.contains("0.40× the head's"), "{text}");
    let show = icbench().args(["show", "2", "--json", "--db"]).arg(&db).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(v["floor_drift"]["unstable"], false, "{}", v["floor_drift"]);
}

#[test]
fn replicate_blocks_are_interleaved_stored_apart_and_shown_as_one_cell() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = icbench()
        .args(["run", "--json", "--no-floor", "-L", "pipe", "-L", "unix", "-p", "pingpong"])
        .args(["-p", "stream", "-s", "64", "--cell-time", "5ms", "--replicates", "3", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for section in ["pingpong", "stream"] {
        let rows = rows(&v, section);
        assert_eq!(rows.len(), 2, "one row per cell: {rows:?}");
        for r in rows {
            let reps = &r["replicates"];
            // Three measured; a disturbed one is left out when two remain.
            let used = reps["used"].as_u64().unwrap();
            assert!(used >= 2, "{r}");
            assert_eq!(
                (reps["blocks"].as_u64(), reps["values"].as_array().map(|v| v.len() as u64)),
                (Some(3), Some(used)),
                "{r}"
            );
            let c = reps["center"].as_f64().unwrap();
            if reps["interval_note"].is_null() {
                let (lo, hi) = (reps["lo"].as_f64().unwrap(), reps["hi"].as_f64().unwrap());
                assert!(used >= 3 && lo <= c && c <= hi, "{reps}");
            } else {
                // No interval from two usable blocks, nor one past ×/÷ 2
                // (issue #28 item 5): the note says which.
                assert!(reps["lo"].is_null() && reps["hi"].is_null(), "{reps}");
                let note = reps["interval_note"].as_str().unwrap();
                let want = if used < 3 {
                    format!("too few agreeing blocks: {used} of 3 usable")
                } else {
                    "no interval: blocks ".to_string()
                };
                assert!(note.starts_with(&want), "{reps}");
                assert_eq!(reps["too_few_blocks"], used < 3, "{reps}");
            }
            assert!(r["factors"].get("rep").is_none(), "{r}");
        }
    }
    // Stored as 12 blocks, each with its rep; the order was random, from a
    // recorded seed.
    let blocks = icbench().args(["show", "--blocks", "--json", "--db"]).arg(&db).output().unwrap();
    let b: serde_json::Value = serde_json::from_slice(&blocks.stdout).unwrap();
    assert_eq!(rows(&b, "pingpong").len() + rows(&b, "stream").len(), 12);
    assert!(rows(&b, "pingpong").iter().all(|r| r["factors"]["rep"].is_string()));
    let notes = v["meta"]["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().contains("random")), "{notes:?}");
    let show = icbench().args(["show", "--cells", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(
        text.contains("95% CI: where a repeat run's figure will land, from this run's 3 blocks"),
        "{text}"
    );
}

#[test]
fn disturbed_blocks_are_measured_again_once() {
    // Every block shares the host's CPU with a spinning thread: each is
    // disturbed, each is measured once more, and no more than once.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let Some(v) = hogged_run(&db, &["shm"]) else { return };
    let row = &rows(&v, "pingpong")[0];
    let notes = v["meta"]["notes"].as_array().unwrap();
    assert_eq!(row["replicates"]["blocks"], 4, "{row}\n{notes:?}");
    assert!(
        notes.iter().any(|n| n.as_str().unwrap().starts_with("2 disturbed blocks measured again")),
        "{notes:?}"
    );
    let blocks = icbench().args(["show", "--blocks", "--json", "--db"]).arg(&db).output().unwrap();
    let b: serde_json::Value = serde_json::from_slice(&blocks.stdout).unwrap();
    let mut reps: Vec<String> = rows(&b, "pingpong")
        .iter()
        .map(|r| r["factors"]["rep"].as_str().unwrap().to_string())
        .collect();
    reps.sort();
    assert_eq!(reps, ["0", "1", "2", "3"]);
}

#[test]
fn the_re_measure_round_keeps_to_its_time_and_says_what_it_left() {
    // Every block of three links disturbed (a hog on the host's CPU): the
    // re-measure round may take a quarter of the planned blocks' time, so
    // it may stop early; whatever it did, the blocks stored are the planned
    // ones plus those the notes say were measured again.
    let dir = tempfile::tempdir().unwrap();
    let Some(v) = hogged_run(&dir.path().join("r.db"), &["shm", "pipe", "unix"]) else { return };
    let notes: Vec<&str> =
        v["meta"]["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    let count = |prefix_end: &str| -> Option<usize> {
        notes
            .iter()
            .find(|n| n.contains(prefix_end))
            .map(|n| n.split_whitespace().next().unwrap().parse().unwrap_or_else(|_| panic!("{n}")))
    };
    let again = count("disturbed blocks measured again").expect("every block was disturbed");
    let left = count("disturbed blocks not measured again").unwrap_or(0);
    assert!(left < again, "the round's first session always runs: {notes:?}");
    let blocks: u64 =
        rows(&v, "pingpong").iter().map(|r| r["replicates"]["blocks"].as_u64().unwrap()).sum();
    assert_eq!(blocks as usize, 6 + again - left, "{notes:?}");
}

/// `run --json` of 64 B ping-pong on `links`, 2 replicates of 20 ms, with
/// a spinning thread on the host's CPU for the whole run (so every block is
/// disturbed) and re-measuring on; `None` without two CPUs.
fn hogged_run(db: &std::path::Path, links: &[&str]) -> Option<serde_json::Value> {
    let (host, peer) = two_cpus()?;
    let pair = format!("{host},{peer}");
    let out = {
        let _hog = Hog::on(host);
        let mut cmd = icbench();
        cmd.env_remove("ICBENCH_NO_REMEASURE").args(["run", "--json", "--no-floor"]);
        for l in links {
            cmd.args(["-L", l]);
        }
        cmd.args(["-p", "pingpong", "-s", "64", "--cell-time", "20ms", "--replicates", "2"])
            .args(["--cpus", &pair, "--db"])
            .arg(db)
            .output()
            .unwrap()
    };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}
