//! `Store::merge_runs` and `Store::open_snapshot` (issue #19): runs copied
//! whole with their origin, never twice, in one transaction; the other
//! database only read; a newer, truncated or foreign file refused.

mod common;
use common::*;

use icbench_model::{RunMeta, RunStatus};
use icbench_store::{RunSource, Store, StoreError};

/// A board's database with a finished run of every cell kind (and a
/// warning), and a second, imported run.
fn board_db(path: &std::path::Path, host: &str) {
    let mut s = Store::open(path).unwrap();
    let m = RunMeta { hostname: host.into(), ..meta() };
    let run = s.begin_run(&m).unwrap();
    for c in all_cells() {
        s.insert_cell(run, &c).unwrap();
    }
    s.add_warning(run, "one reply was short").unwrap();
    let tail = icbench_model::FloorTail { cacheline_rtt_ns: 151.5, memcpy_bytes_per_s: 9.5e9 };
    s.set_floor_tail(run, &tail).unwrap();
    s.finish_run(run, RunStatus::Finished, 2, None, &[]).unwrap();
    let imp = RunMeta { started_unix_ns: m.started_unix_ns + 1, ..m };
    s.import_run(&imp, &RunSource::Imported("csv".into()), "t.csv", &[imported_bulk()], &[])
        .unwrap();
}

fn merge(lab: &mut Store, other: &std::path::Path, board: &str) -> Vec<icbench_store::Merged> {
    let snap = Store::open_snapshot(other).unwrap();
    let runs: Vec<_> = snap
        .store
        .list_runs()
        .unwrap()
        .iter()
        .map(|r| snap.store.load_run(r.id).unwrap())
        .collect();
    lab.merge_runs(&runs, &|r| format!("board {board}, {}, run {}", other.display(), r.id)).unwrap()
}

#[test]
fn runs_are_copied_whole_with_their_origin_and_never_twice() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, lab_path) =
        (dir.path().join("a.db"), dir.path().join("b.db"), dir.path().join("lab.db"));
    board_db(&a, "stm32mp1");
    board_db(&b, "imx8");
    let before = std::fs::read(&a).unwrap();
    let mut lab = Store::open(&lab_path).unwrap();

    let first = merge(&mut lab, &a, "mp1");
    assert_eq!(first.iter().filter(|m| m.new).count(), 2);
    let again = merge(&mut lab, &a, "mp1");
    assert!(again.iter().all(|m| !m.new), "merged twice: {again:?}");
    assert_eq!(
        again.iter().map(|m| m.to).collect::<Vec<_>>(),
        first.iter().map(|m| m.to).collect::<Vec<_>>()
    );
    merge(&mut lab, &b, "imx8");
    assert_eq!(lab.list_runs().unwrap().len(), 4);
    // The board's database was only read.
    assert_eq!(std::fs::read(&a).unwrap(), before, "a.db changed");

    // Every cell, warning and the metadata came across; the origin says whence.
    let src = Store::open(&a).unwrap();
    let want = src.load_run(first[0].from).unwrap();
    let got = lab.load_run(first[0].to).unwrap();
    // The floor at the tail too (issue #29: merge dropped it, and with it
    // whether the floor moved).
    assert!(want.meta.floor_tail.is_some());
    assert_eq!(got.meta, want.meta);
    assert_cells_eq(&got.cells, &want.cells);
    assert_eq!(got.warnings, want.warnings);
    assert_eq!(got.source, want.source);
    let origin = lab.origin(first[0].to).unwrap().unwrap();
    assert!(origin.starts_with("board mp1, ") && origin.ends_with(", run 1"), "{origin}");
    let imported = lab.load_run(first[1].to).unwrap();
    assert_eq!(imported.provenance.as_deref(), Some("t.csv"));
    // A run measured in the lab's store itself has no origin.
    let own = lab.begin_run(&RunMeta { hostname: "lab".into(), ..meta() }).unwrap();
    assert_eq!(lab.origin(own).unwrap(), None);
}

#[test]
fn a_newer_truncated_or_foreign_file_is_refused_and_the_lab_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let lab_path = dir.path().join("lab.db");
    let mut lab = Store::open(&lab_path).unwrap();
    lab.begin_run(&meta()).unwrap();

    let newer = dir.path().join("newer.db");
    board_db(&newer, "x");
    {
        let c = rusqlite::Connection::open(&newer).unwrap();
        c.pragma_update(None, "user_version", icbench_store::SCHEMA_VERSION + 1).unwrap();
    }
    let e = Store::open_snapshot(&newer).unwrap_err();
    assert!(matches!(e, StoreError::NewerSchema { .. }), "{e}");
    assert!(e.to_string().contains("newer.db"), "names the file given, not the copy: {e}");

    let cut = dir.path().join("cut.db");
    board_db(&cut, "y");
    let bytes = std::fs::read(&cut).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    let _ = std::fs::remove_file(dir.path().join("cut.db-wal"));
    assert!(Store::open_snapshot(&cut).is_err(), "a truncated file was read");

    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a database at all, just some words to fill a page").unwrap();
    assert!(Store::open_snapshot(&text).is_err());

    assert_eq!(lab.list_runs().unwrap().len(), 1, "the lab store changed");
}

/// Boards finish at once (issue #19 item 6): a merge that finds the lab
/// store locked by another writer waits for it, as a run does, and then
/// lands whole.
#[test]
fn a_merge_waits_for_another_writer_and_then_lands() {
    let dir = tempfile::tempdir().unwrap();
    let (a, lab_path) = (dir.path().join("a.db"), dir.path().join("lab.db"));
    board_db(&a, "stm32mp1");
    let mut lab = Store::open(&lab_path).unwrap();
    // Another process's write transaction, held for 700 ms.
    let held = std::sync::Arc::new(std::sync::Barrier::new(2));
    let (p, h) = (lab_path.clone(), held.clone());
    let writer = std::thread::spawn(move || {
        let mut c = rusqlite::Connection::open(&p).unwrap();
        let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
        h.wait();
        std::thread::sleep(std::time::Duration::from_millis(700));
        tx.commit().unwrap();
    });
    held.wait();
    let start = std::time::Instant::now();
    let merged = merge(&mut lab, &a, "stm32mp1");
    writer.join().unwrap();
    assert!(start.elapsed() >= std::time::Duration::from_millis(500), "it did not wait");
    assert_eq!(merged.iter().filter(|m| m.new).count(), 2);
    assert_eq!(lab.list_runs().unwrap().len(), 2);
}
