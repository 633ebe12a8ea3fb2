//! The store's contract, tested through its public API against real SQLite
//! files (and in memory where the file does not matter).

use icbench_model::{
    BareComparison, CellData, CellOutcome, CellResult, FastCounter, Floor, FloorTail, LinkCounters,
    Pattern, PeerMode, RunMeta, RunStatus, Sched,
};
use icbench_store::{RunId, RunSource, SCHEMA_VERSION, Store, StoreError};

mod common;
use common::*;

#[test]
fn every_outcome_kind_round_trips_with_every_field() {
    let mut store = Store::open_in_memory().unwrap();
    let m = meta();
    let run = store.begin_run(&m).unwrap();
    let floor = Floor {
        cacheline_rtt_ns: 84.5,
        two_line_rtt_ns: Some(160.0),
        slot64_rtt_ns: Some(330.0),
        memcpy_bytes_per_s: 1.25e9,
        memcpy_block_bytes: 1 << 20,
        syscall_pipe_rtt_ns: Some(3100.0),
        syscall_unix_rtt_ns: None,
        // Exactly representable, so that the ratio recomputed on loading
        // (icbench ÷ bare) is the same number.
        syscall_pipe: Some(BareComparison {
            size_bytes: 64,
            bare_rtt_ns: 3100.0,
            icbench_rtt_ns: 3131.0,
            ratio: 3131.0 / 3100.0,
            ratio_ci95_lo: 0.998,
            ratio_ci95_hi: 1.021,
            samples: 10_000,
            blocks: 5,
        }),
        syscall_unix: None,
    };
    store.set_floor(run, &floor).unwrap();
    // Written twice (a floor replaced), still one row per link.
    store.set_floor(run, &floor).unwrap();
    let tail = FloorTail { cacheline_rtt_ns: 29.4, memcpy_bytes_per_s: 1.52e10 };
    store.set_floor_tail(run, &tail).unwrap();
    let cells = all_cells();
    for c in &cells {
        store.insert_cell(run, c).unwrap();
    }
    let notes = vec!["governor was ondemand".to_string()];
    store
        .finish_run(run, RunStatus::Finished, m.started_unix_ns + 5_000_000_000, None, &notes)
        .unwrap();

    let loaded = store.load_run(run).unwrap();
    let want = RunMeta {
        status: RunStatus::Finished,
        ended_unix_ns: Some(m.started_unix_ns + 5_000_000_000),
        floor: Some(floor),
        floor_tail: Some(tail),
        notes,
        ..m
    };
    assert_eq!(loaded.id, run);
    assert_eq!(loaded.meta, want);
    assert_eq!(loaded.source, RunSource::Measured);
    assert_eq!(loaded.provenance, None);
    assert!(loaded.warnings.is_empty());
    assert_cells_eq(&loaded.cells, &cells);
}

#[test]
fn finish_run_floor_replaces_the_stored_one() {
    let mut store = Store::open_in_memory().unwrap();
    let run = store.begin_run(&meta()).unwrap();
    let first = Floor {
        cacheline_rtt_ns: 1.0,
        two_line_rtt_ns: None,
        slot64_rtt_ns: None,
        memcpy_bytes_per_s: 2.0,
        memcpy_block_bytes: 3,
        syscall_pipe_rtt_ns: None,
        syscall_unix_rtt_ns: Some(2.5),
        syscall_pipe: None,
        syscall_unix: None,
    };
    let last = Floor {
        cacheline_rtt_ns: 70.0,
        two_line_rtt_ns: None,
        slot64_rtt_ns: None,
        memcpy_bytes_per_s: 9.5e9,
        memcpy_block_bytes: 4096,
        syscall_pipe_rtt_ns: None,
        syscall_unix_rtt_ns: Some(2.5),
        syscall_pipe: None,
        syscall_unix: None,
    };
    store.set_floor(run, &first).unwrap();
    store.finish_run(run, RunStatus::Interrupted, 7, Some(&last), &[]).unwrap();
    let m = store.load_run(run).unwrap().meta;
    assert_eq!(m.floor, Some(last));
    assert_eq!(m.status, RunStatus::Interrupted);
    assert!(m.notes.is_empty());
}

#[test]
fn sched_other_and_absent_options_round_trip() {
    let mut store = Store::open_in_memory().unwrap();
    let m = RunMeta {
        sched: Sched::Other,
        peer_mode: PeerMode::Process,
        mlock: false,
        governor: None,
        git_commit: None,
        command_line: vec![],
        notes: vec![],
        started_unix_ns: -5, // before 1970: still an i64
        ..meta()
    };
    let run = store.begin_run(&m).unwrap();
    assert_eq!(store.load_run(run).unwrap().meta, m);
}

#[test]
fn nan_floats_come_back_as_nan() {
    // SQLite turns a NaN REAL into NULL; the store must not fail on it.
    let mut store = Store::open_in_memory().unwrap();
    let m = RunMeta {
        clock_overhead_ns: f64::NAN,
        clock_granule_ns: f64::NAN,
        floor: Some(Floor {
            cacheline_rtt_ns: f64::NAN,
            two_line_rtt_ns: None,
            slot64_rtt_ns: None,
            memcpy_bytes_per_s: f64::INFINITY,
            memcpy_block_bytes: 0,
            syscall_pipe_rtt_ns: None,
            syscall_unix_rtt_ns: None,
            syscall_pipe: None,
            syscall_unix: None,
        }),
        ..meta()
    };
    let run = store.begin_run(&m).unwrap();
    let back = store.load_run(run).unwrap().meta;
    assert!(back.clock_overhead_ns.is_nan());
    assert!(back.clock_granule_ns.is_nan());
    let floor = back.floor.expect("floor present");
    assert!(floor.cacheline_rtt_ns.is_nan());
    assert_eq!(floor.memcpy_bytes_per_s, f64::INFINITY);
    assert_eq!(floor.memcpy_block_bytes, 0);
}

#[test]
fn percentiles_from_the_reloaded_histogram_equal_the_originals() {
    let values = latencies(100_000);
    let original = hist_of(&values);
    assert!(original.clamped() > 0, "the test data must exercise clamping");
    let mut store = Store::open_in_memory().unwrap();
    let run = store.begin_run(&meta()).unwrap();
    store
        .insert_cell(
            run,
            &CellResult {
                key: key("shm", Pattern::PingPong, 8),
                outcome: CellOutcome::Measured(CellData {
                    messages: values.len() as u64,
                    bytes: 0,
                    elapsed_ns: 1,
                    warmup_messages: 0,
                    latency: Some(original.clone()),
                    raw_ns: None,
                    window: None,
                    counters: LinkCounters::default(),
                    channels: None,
                    adaptive: None,
                    per_channel: Vec::new(),
                    disturbance: None,
                    cut_at_messages: None,
                    timed_batch: None,
                    state: None,
                }),
            },
        )
        .unwrap();
    let loaded = store.load_run(run).unwrap();
    let CellOutcome::Measured(d) = &loaded.cells[0].outcome else {
        panic!("cell should be measured");
    };
    let back = d.latency.as_ref().expect("histogram stored");
    for i in 0..=1000 {
        let q = f64::from(i) / 1000.0;
        assert_eq!(back.quantile_ns(q), original.quantile_ns(q), "quantile {q}");
    }
    assert_eq!(back.min_ns(), original.min_ns());
    assert_eq!(back.max_ns(), original.max_ns());
    assert_eq!(back.mean_ns(), original.mean_ns());
    assert_eq!(back.stddev_ns(), original.stddev_ns());
    assert_eq!(back.clamped(), original.clamped());
}

#[test]
fn cells_survive_when_the_run_is_never_finished() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("icbench.db");
    let cells = [measured_pingpong(), failed()];
    let run = {
        let mut store = Store::open(&path).unwrap();
        let run = store.begin_run(&meta()).unwrap();
        for c in &cells {
            store.insert_cell(run, c).unwrap();
        }
        run
        // Dropped without finish_run: as if the process had died.
    };
    let store = Store::open(&path).unwrap();
    let runs = store.list_runs().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].id, run);
    assert_eq!(runs[0].status, RunStatus::Running);
    assert_eq!((runs[0].cells_ok, runs[0].cells_failed, runs[0].cells_na), (1, 1, 0));
    let loaded = store.load_run(run).unwrap();
    assert_eq!(loaded.meta.status, RunStatus::Running);
    assert_eq!(loaded.meta.ended_unix_ns, None);
    assert_cells_eq(&loaded.cells, &cells);
}

#[test]
fn a_cell_is_visible_to_another_connection_as_soon_as_insert_returns() {
    // Committed per cell: a second process (e.g. `icbench runs` during a
    // run) sees it without the writer closing or finishing anything.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("icbench.db");
    let mut writer = Store::open(&path).unwrap();
    let reader = Store::open(&path).unwrap();
    let run = writer.begin_run(&meta()).unwrap();
    writer.insert_cell(run, &not_applicable()).unwrap();
    assert_eq!(reader.list_runs().unwrap()[0].cells_na, 1);
    writer.insert_cell(run, &measured_stream()).unwrap();
    assert_eq!(reader.load_run(run).unwrap().cells.len(), 2);
}

#[test]
fn file_is_in_wal_mode_and_at_the_current_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("icbench.db");
    drop(Store::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn opening_twice_migrates_once_and_keeps_the_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("icbench.db");
    let run = {
        let mut store = Store::open(&path).unwrap();
        let run = store.begin_run(&meta()).unwrap();
        store.insert_cell(run, &failed()).unwrap();
        run
    };
    for _ in 0..2 {
        let store = Store::open(&path).unwrap();
        assert_eq!(store.list_runs().unwrap().len(), 1);
        assert_cells_eq(&store.load_run(run).unwrap().cells, &[failed()]);
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn a_schema_1_file_gains_the_link_counters_and_reads_them_as_zero() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        // A file as schema 1 left it: its tables and one measured cell.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(include_str!("../src/migrations/0001_initial.sql")).unwrap();
        conn.pragma_update(None, "application_id", 0x6963_6231).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
    }
    let run = {
        let mut store = Store::open(&path).unwrap();
        store.begin_run(&meta()).unwrap()
    };
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute(
            "INSERT INTO cells (run_id, seq, created_unix_ns, link, pattern, size_bytes, status,
                                messages, bytes, elapsed_ns, warmup_messages, tx_busy)
             VALUES (?1, 0, 0, 'pipe', 'stream', 8, 'ok', 10, 80, 1000, 0, NULL)",
            [run.0],
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let cells = store.load_run(run).unwrap().cells;
    match &cells[0].outcome {
        CellOutcome::Measured(d) => assert_eq!(d.counters, LinkCounters::default()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_newer_schema_is_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("icbench.db");
    drop(Store::open(&path).unwrap());
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
    }
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::NewerSchema { found, .. } if found == SCHEMA_VERSION + 1));
    let msg = err.to_string();
    let want = format!(
        "{} was written by a newer icbench (schema {})",
        path.display(),
        SCHEMA_VERSION + 1
    );
    assert!(msg.contains(&want), "{msg}");
    assert!(msg.contains("upgrade icbench"), "{msg}");
}

#[test]
fn another_programs_database_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("photos.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT);").unwrap();
    }
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::NotIcbench { .. }), "{err}");
    assert!(err.to_string().contains(&path.display().to_string()), "{err}");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema WHERE name = 'runs'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tables, 0, "no icbench table may be added");
}

fn assert_open_error_names(path: &std::path::Path) {
    let err = Store::open(path).unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains(&format!("cannot open results database {}", path.display())), "{msg}");
    assert!(msg.contains("--db PATH or ICBENCH_DB"), "{msg}");
}

#[test]
fn an_unwritable_path_gives_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    assert_open_error_names(&dir.path().join("no-such-dir").join("icbench.db"));
    // Not creatable even by root.
    assert_open_error_names(std::path::Path::new("/proc/icbench.db"));
}

#[test]
fn a_file_that_is_not_sqlite_gives_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "this is not a database, just some text that is long enough ".repeat(20))
        .unwrap();
    assert_open_error_names(&path);
}

#[test]
fn list_runs_counts_cells_by_status() {
    let mut store = Store::open_in_memory().unwrap();
    assert!(store.list_runs().unwrap().is_empty());
    assert_eq!(store.latest_run_id().unwrap(), None);

    let a = store.begin_run(&meta()).unwrap();
    for c in all_cells() {
        store.insert_cell(a, &c).unwrap();
    }
    store.insert_cell(a, &failed()).unwrap();
    store.finish_run(a, RunStatus::Finished, 1, None, &[]).unwrap();
    store.set_verdict(a, "partly reproducible").unwrap();

    let empty = store.begin_run(&RunMeta { hostname: "other".into(), ..meta() }).unwrap();

    let imported_meta = RunMeta { host_cpu: 2, peer_cpu: 3, status: RunStatus::Finished, ..meta() };
    let imp = store
        .begin_run_with_source(
            &imported_meta,
            &RunSource::Imported("dimtass".into()),
            Some("seed-000.log"),
        )
        .unwrap();
    store.insert_cell(imp, &not_applicable()).unwrap();
    store.insert_cell(imp, &not_applicable()).unwrap();

    let runs = store.list_runs().unwrap();
    let ids: Vec<RunId> = runs.iter().map(|r| r.id).collect();
    assert_eq!(ids, vec![a, empty, imp]);
    let counts: Vec<(u64, u64, u64)> =
        runs.iter().map(|r| (r.cells_ok, r.cells_failed, r.cells_na)).collect();
    assert_eq!(counts, vec![(6, 2, 1), (0, 0, 0), (0, 0, 2)]);
    assert_eq!(runs[0].status, RunStatus::Finished);
    assert_eq!(runs[0].ended_unix_ns, Some(1));
    assert_eq!(runs[1].status, RunStatus::Running);
    assert_eq!(runs[1].hostname, "other");
    assert_eq!(runs[2].source, RunSource::Imported("dimtass".into()));
    assert_eq!((runs[2].host_cpu, runs[2].peer_cpu), (2, 3));
    assert_eq!(runs[0].started_unix_ns, meta().started_unix_ns);
    assert_eq!(runs[0].cpu_model, meta().cpu_model);
    assert_eq!(store.latest_run_id().unwrap(), Some(imp));
    // Only the finished run was given a verdict; the others have none.
    let verdicts: Vec<Option<&str>> = runs.iter().map(|r| r.verdict.as_deref()).collect();
    assert_eq!(verdicts, vec![Some("partly reproducible"), None, None]);
    assert!(store.set_verdict(RunId(999), "reproducible").is_err(), "no such run");
}

#[test]
fn imported_runs_keep_source_provenance_and_warnings() {
    let mut store = Store::open_in_memory().unwrap();
    let m = RunMeta { status: RunStatus::Finished, ended_unix_ns: Some(99), ..meta() };
    let run = store
        .begin_run_with_source(
            &m,
            &RunSource::Imported("xmit-p".into()),
            Some("logs/a.txt sha256:ab"),
        )
        .unwrap();
    store.add_warning(run, "3 replies shorter than the request").unwrap();
    store.add_warning(run, "clock overhead unknown").unwrap();
    let loaded = store.load_run(run).unwrap();
    assert_eq!(loaded.meta, m);
    assert_eq!(loaded.source, RunSource::Imported("xmit-p".into()));
    assert_eq!(loaded.provenance.as_deref(), Some("logs/a.txt sha256:ab"));
    assert_eq!(
        loaded.warnings,
        vec!["3 replies shorter than the request", "clock overhead unknown"]
    );
}

#[test]
fn cells_load_in_insertion_order_per_run() {
    let mut store = Store::open_in_memory().unwrap();
    let a = store.begin_run(&meta()).unwrap();
    let b = store.begin_run(&meta()).unwrap();
    let sizes = [4096, 1, 512, 64];
    for (i, s) in sizes.iter().enumerate() {
        let run = if i % 2 == 0 { a } else { b };
        let mut c = failed();
        c.key.size_bytes = *s;
        store.insert_cell(run, &c).unwrap();
        store.insert_cell(a, &not_applicable()).unwrap();
    }
    let got: Vec<u64> = store.load_run(b).unwrap().cells.iter().map(|c| c.key.size_bytes).collect();
    assert_eq!(got, vec![1, 64]);
    let got: Vec<u64> = store.load_run(a).unwrap().cells.iter().map(|c| c.key.size_bytes).collect();
    assert_eq!(got, vec![4096, 1024, 1024, 512, 1024, 1024]);
}

#[test]
fn a_missing_run_is_named_with_advice() {
    let mut store = Store::open_in_memory().unwrap();
    let missing = RunId(42);
    let err = store.load_run(missing).unwrap_err();
    assert!(matches!(err, StoreError::NoSuchRun { id, .. } if id == missing));
    assert_eq!(err.to_string(), "no run 42 in :memory:; `icbench runs` lists them");

    let floor = Floor {
        cacheline_rtt_ns: 1.0,
        two_line_rtt_ns: None,
        slot64_rtt_ns: None,
        memcpy_bytes_per_s: 1.0,
        memcpy_block_bytes: 1,
        syscall_pipe_rtt_ns: None,
        syscall_unix_rtt_ns: Some(2.5),
        syscall_pipe: None,
        syscall_unix: None,
    };
    let errs = [
        store.insert_cell(missing, &failed()).unwrap_err(),
        store.finish_run(missing, RunStatus::Finished, 0, None, &[]).unwrap_err(),
        store.set_floor(missing, &floor).unwrap_err(),
        store.add_warning(missing, "x").unwrap_err(),
    ];
    for e in errs {
        assert!(matches!(e, StoreError::NoSuchRun { id, .. } if id == missing), "{e:?}");
    }
    assert!(store.list_runs().unwrap().is_empty());
}

#[test]
fn numbers_above_i64_max_are_refused_and_nothing_is_stored() {
    let mut store = Store::open_in_memory().unwrap();
    let run = store.begin_run(&meta()).unwrap();
    let mut c = not_applicable();
    c.key.size_bytes = u64::MAX;
    let err = store.insert_cell(run, &c).unwrap_err();
    assert!(matches!(err, StoreError::TooLarge { value: u64::MAX, .. }), "{err:?}");
    assert!(err.to_string().contains("size_bytes"), "{err}");

    let mut c = measured_pingpong();
    if let CellOutcome::Measured(d) = &mut c.outcome {
        d.elapsed_ns = 1 << 63;
    }
    assert!(matches!(store.insert_cell(run, &c), Err(StoreError::TooLarge { .. })));
    assert_eq!(store.load_run(run).unwrap().cells.len(), 0);
}

#[test]
fn a_run_id_from_the_command_line_finds_the_run() {
    let mut store = Store::open_in_memory().unwrap();
    let run = store.begin_run(&meta()).unwrap();
    let parsed: RunId = run.to_string().parse().unwrap();
    assert_eq!(store.load_run(parsed).unwrap().id, run);
}

/// Timer and wake-up cells keep their factors (CPU, primitive placement)
/// and their histograms under the pattern's own metric, next to link cells.
#[test]
fn realtime_cells_round_trip_with_factors_and_their_metric() {
    let mut store = Store::open_in_memory().unwrap();
    let run = store.begin_run(&meta()).unwrap();
    let rt = |pattern: Pattern, link: &str, factors: &[(&str, &str)], values: &[u64]| {
        let mut k = key(link, pattern, 0);
        for (n, v) in factors {
            k = k.with(n, v);
        }
        CellResult {
            key: k,
            outcome: CellOutcome::Measured(CellData {
                messages: values.len() as u64,
                bytes: 0,
                elapsed_ns: 1_000_000,
                warmup_messages: 0,
                latency: Some(hist_of(values)),
                raw_ns: Some(values.to_vec()),
                window: None,
                counters: Default::default(),
                channels: None,
                adaptive: None,
                per_channel: Vec::new(),
                disturbance: None,
                cut_at_messages: None,
                timed_batch: None,
                state: None,
            }),
        }
    };
    let cells = vec![
        rt(Pattern::Timer, "timer", &[("cpu", "1"), ("interval_us", "1000")], &[3_000, 4_000]),
        rt(Pattern::Wakeup, "futex", &[("sender_cpu", "0"), ("receiver_cpu", "1")], &[900, 1200]),
        measured_pingpong(),
        rt(
            Pattern::Irq,
            "set-to-edge",
            &[("chip", "/dev/gpiochip0"), ("out", "17"), ("in", "27")],
            &[7_000, 9_000],
        ),
    ];
    for c in &cells {
        store.insert_cell(run, c).unwrap();
    }
    let loaded = store.load_run(run).unwrap();
    assert_cells_eq(&loaded.cells, &cells);
    assert_eq!(loaded.cells[0].key.factor("cpu"), Some("1"));
    assert_eq!(loaded.cells[1].key.factor("receiver_cpu"), Some("1"));
    assert!(loaded.cells[2].key.factors.is_empty());
    assert_eq!(loaded.cells[3].key.pattern, Pattern::Irq);
    assert_eq!(loaded.cells[3].key.factor("chip"), Some("/dev/gpiochip0"));
}

/// The store's SQL spelling of the metric of each pattern agrees with the
/// model's: every pattern's histogram is found again.
#[test]
fn every_pattern_histogram_is_found_under_its_metric() {
    let mut store = Store::open_in_memory().unwrap();
    let run = store.begin_run(&meta()).unwrap();
    for p in Pattern::ALL.into_iter().chain(Pattern::RT).chain([Pattern::Bulk, Pattern::OneWay]) {
        let c = CellResult {
            key: key("x", p, 1),
            outcome: CellOutcome::Measured(CellData {
                messages: 1,
                bytes: 1,
                elapsed_ns: 1,
                warmup_messages: 0,
                latency: Some(hist_of(&[5])),
                raw_ns: None,
                window: None,
                counters: Default::default(),
                channels: None,
                adaptive: None,
                per_channel: Vec::new(),
                disturbance: None,
                cut_at_messages: None,
                timed_batch: None,
                state: None,
            }),
        };
        store.insert_cell(run, &c).unwrap();
    }
    for c in store.load_run(run).unwrap().cells {
        match c.outcome {
            CellOutcome::Measured(d) => assert!(d.latency.is_some(), "{}", c.key.pattern),
            _ => panic!("not measured"),
        }
    }
}

#[test]
fn a_plan_and_its_finished_cells_survive_for_resuming() {
    let mut s = Store::open_in_memory().unwrap();
    let run = s.begin_run(&meta()).unwrap();
    assert_eq!(s.plan(run).unwrap(), None, "no plan until one is stored");
    s.set_plan(run, "{\"cells\":[]}", "{\"peer\":\"process\"}").unwrap();
    s.insert_plan_cell(run, &measured_pingpong(), Some(2)).unwrap();
    s.insert_plan_cell(run, &failed(), Some(0)).unwrap();
    s.insert_cell(run, &not_applicable()).unwrap();
    assert_eq!(s.plan_indexes_done(run).unwrap(), [0, 2], "failed cells are done too");
    s.finish_run(run, RunStatus::Interrupted, 5, None, &["first".into()]).unwrap();

    s.reopen_run(run, "resumed").unwrap();
    let stored = s.load_run(run).unwrap();
    assert_eq!(stored.meta.status, RunStatus::Running);
    assert_eq!(stored.meta.ended_unix_ns, None);
    assert_eq!(stored.meta.notes, ["first", "resumed"]);
    assert_eq!(stored.cells.len(), 3, "nothing stored is lost");
    let (plan, settings, resumes) = s.plan(run).unwrap().unwrap();
    assert_eq!(
        (plan.as_str(), settings.as_str(), resumes),
        ("{\"cells\":[]}", "{\"peer\":\"process\"}", 1)
    );

    assert!(s.plan(RunId(99)).is_err());
    assert!(s.reopen_run(RunId(99), "x").is_err());
}

#[test]
fn a_fast_counter_that_is_absent_or_not_examined_round_trips() {
    let mut store = Store::open_in_memory().unwrap();
    let none = RunMeta { fast_counter: None, ..meta() };
    let run = store.begin_run(&none).unwrap();
    assert_eq!(store.load_run(run).unwrap().meta, none);
    let absent = FastCounter {
        counter: None,
        hz: None,
        declared_hz: None,
        read_ns: None,
        trusted: false,
        reason: "not available on 32-bit ARM".into(),
        max_deviation_ns: None,
        drift_ppm: None,
    };
    let armv7 = RunMeta { fast_counter: Some(absent.clone()), ..meta() };
    let run = store.begin_run(&armv7).unwrap();
    assert_eq!(store.load_run(run).unwrap().meta, armv7);
    // Recorded after the start of the run, as an untrusted TSC.
    let tsc = FastCounter {
        counter: Some("tsc".into()),
        hz: Some(2.6e9),
        read_ns: Some(20.0),
        reason: "not trusted: the CPU flag nonstop_tsc is missing".into(),
        max_deviation_ns: Some(3.0),
        drift_ppm: Some(0.01),
        ..absent
    };
    let run = store.begin_run(&none).unwrap();
    store.set_fast_counter(run, &tsc).unwrap();
    assert_eq!(store.load_run(run).unwrap().meta.fast_counter, Some(tsc.clone()));
    let err = store.set_fast_counter(RunId(999), &tsc).unwrap_err();
    assert!(matches!(err, StoreError::NoSuchRun { .. }), "{err:?}");
}

/// Issue #22: an import is stored whole or not at all. A cell the store
/// refuses (a size past i64) aborts the import and leaves no run; a good
/// one comes back with its cells, warnings and provenance.
#[test]
fn an_import_is_stored_whole_or_not_at_all() {
    let mut store = Store::open_in_memory().unwrap();
    let source = RunSource::Imported("dimtass".into());
    let mut bad = measured_stream();
    bad.key.size_bytes = u64::MAX;
    let err = store
        .import_run(&meta(), &source, "file x.log", &[measured_stream(), bad], &["w".into()])
        .unwrap_err();
    assert!(matches!(err, StoreError::TooLarge { .. }), "{err}");
    assert!(store.list_runs().unwrap().is_empty(), "a failed import left a run");
    let id = store
        .import_run(
            &meta(),
            &source,
            "file x.log",
            &[measured_stream()],
            &["w1".into(), "w2".into()],
        )
        .unwrap();
    let run = store.load_run(id).unwrap();
    assert_eq!((run.cells.len(), run.warnings.len()), (1, 2));
    assert_eq!(run.provenance.as_deref(), Some("file x.log"));
    assert_eq!(run.source, source);
}
