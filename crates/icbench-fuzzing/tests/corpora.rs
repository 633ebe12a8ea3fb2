//! Every input ever kept in the fuzz corpora (`fuzz/corpus/<target>/`),
//! replayed through its target's check on stable Rust, so that CI runs
//! them all (issue #30: "CI replays the corpora"); and seeds of our own,
//! so that each target meets the inputs it exists for even where a corpus
//! is still small: the import formats' test files, the shipped plans, a
//! database icbench wrote, damaged byte by byte.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What one input may take in a replay: a hang is a failure too. Debug
/// builds on a loaded two-CPU machine run the HTML report of an imported
/// table in well under a second.
const PER_INPUT: Duration = Duration::from_secs(20);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `check` on every file of `fuzz/corpus/<target>`, naming the one
/// that fails; the count replayed.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    let dir = root().join("fuzz/corpus").join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else { return 0 };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in &files {
        timed(&f.display().to_string(), &std::fs::read(f).unwrap(), check);
    }
    files.len()
}

fn timed(what: &str, data: &[u8], check: fn(&[u8])) {
    let t0 = Instant::now();
    let r = std::panic::catch_unwind(|| check(data));
    assert!(r.is_ok(), "{what}: the check panicked (input of {} bytes)", data.len());
    assert!(t0.elapsed() < PER_INPUT, "{what}: took {:?}", t0.elapsed());
}

#[test]
fn import_corpus_and_every_test_file_in_every_format() {
    let n =
        replay("import", icbench_fuzzing::import) + replay("import", icbench_fuzzing::import_show);
    let n = n + replay("import_show", icbench_fuzzing::import_show);
    let mut seeds = 0;
    for e in std::fs::read_dir(root().join("testdata/import")).unwrap() {
        let file = std::fs::read(e.unwrap().path()).unwrap();
        for pick in 0..9u8 {
            let mut input = vec![pick];
            input.extend_from_slice(&file);
            timed(&format!("testdata as format {pick}"), &input, icbench_fuzzing::import_show);
            seeds += 1;
        }
    }
    assert!(n + seeds > 50, "{n} corpus inputs, {seeds} seeds");
}

#[test]
fn plan_corpus_and_the_shipped_plans() {
    replay("plan", icbench_fuzzing::plan);
    for e in std::fs::read_dir(root().join("plans")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            timed(&p.display().to_string(), &std::fs::read(&p).unwrap(), icbench_fuzzing::plan);
        }
    }
}

/// The wire protocol's four targets: their corpora were seeded from
/// `testdata/frames` and grew in `scripts/fuzz` runs.
#[test]
fn protocol_corpora() {
    use icbench_fuzzing::proto;
    let n = replay("stream_parser", proto::stream_parser)
        + replay("decode", proto::decode_bytes)
        + replay("reassembler", proto::reassembler)
        + replay("dimtass_counter", proto::dimtass_counter);
    assert!(n >= 20, "{n} inputs");
}

#[test]
fn link_spec_and_units_corpora() {
    replay("link_spec", icbench_fuzzing::link_spec);
    replay("units", icbench_fuzzing::units);
    for s in ["shm?wait=futex", "rpmsg:/dev/rpmsg0", "tty:/dev/ttyRPMSG0", "pipe", "x?a=b&c"] {
        timed(s, s.as_bytes(), icbench_fuzzing::link_spec);
    }
    for s in ["1-64K", "4K,1,64KiB", "1e30s", "500ms", "10M", "0", "64-1", "99999999999999999999"] {
        timed(s, s.as_bytes(), icbench_fuzzing::units);
    }
}

/// The database the store target damages (four runs: measured, with
/// repeats, two-channel, imported), whole, then with a stretch of bytes
/// overwritten at positions through it: each is opened, listed and shown,
/// or refused — never a panic.
#[test]
fn store_corpus_and_a_database_damaged_at_every_page() {
    replay("store", icbench_fuzzing::store);
    let good = icbench_fuzzing::STORE_SEED;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seed.db");
    std::fs::write(&path, good).unwrap();
    let store = icbench_store::Store::open_read_only(&path).unwrap();
    let runs = store.list_runs().unwrap();
    assert_eq!(runs.len(), 4, "the seed's runs");
    for r in &runs {
        assert!(!store.load_run(r.id).unwrap().cells.is_empty(), "run {}", r.id.0);
    }
    timed("the undamaged database", &[], icbench_fuzzing::store);
    let mut damaged = 0;
    for at in (0..good.len()).step_by(997) {
        let mut bad = good.to_vec();
        for (i, b) in bad[at..].iter_mut().take(64).enumerate() {
            *b ^= 0x5a ^ (i as u8);
        }
        timed(&format!("damaged at byte {at}"), &bad, icbench_fuzzing::store_file);
        damaged += 1;
    }
    assert!(damaged >= 8, "a database of {} bytes", good.len());
}

/// Every bundle in `results/` as it is, and with one byte changed (the
/// hash refuses it; the target reseals it and takes it the whole way).
#[test]
fn bundle_corpus_and_every_bundle_in_results() {
    let n = replay("bundle", icbench_fuzzing::bundle);
    let mut seen = 0;
    for e in std::fs::read_dir(root().join("results")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let good = std::fs::read(&p).unwrap();
        timed(&p.display().to_string(), &good, icbench_fuzzing::bundle);
        // A digit of the first `elapsed_ns` changed: still a bundle, not
        // the one its hash was made of.
        let text = String::from_utf8(good).unwrap();
        if let Some(at) = text.find("\"elapsed_ns\": ") {
            let at = at + "\"elapsed_ns\": ".len();
            let mut bad = text.into_bytes();
            bad[at] = if bad[at] == b'9' { b'1' } else { b'9' };
            assert!(icbench_bundle::Bundle::parse(std::str::from_utf8(&bad).unwrap()).is_err());
            timed(&format!("{} changed", p.display()), &bad, icbench_fuzzing::bundle);
        }
        seen += 1;
    }
    assert!(n >= 2 && seen >= 3, "{n} corpus inputs, {seen} bundles in results/");
}

/// The store target's patches land where they say, wrap at the end, and
/// a cut-short patch writes what it has.
#[test]
fn damage_patches_the_seed() {
    let seed = [0u8; 10];
    assert_eq!(icbench_fuzzing::damage(&seed, &[]), seed);
    let one = icbench_fuzzing::damage(&seed, &[3, 0, 0, 0, 2, 7, 8]);
    assert_eq!(one, [0, 0, 0, 7, 8, 0, 0, 0, 0, 0]);
    let wrapped = icbench_fuzzing::damage(&seed, &[13, 0, 0, 0, 1, 9, 8, 0, 0, 0, 5, 1, 2]);
    assert_eq!(wrapped, [0, 0, 0, 9, 0, 0, 0, 0, 1, 2]);
}

/// The fuzz targets' wrapper lets a panic the code under test catches pass
/// (hdrhistogram's decoder inside `LatencyHistogram::from_blob`) and puts
/// the panic hook it found back.
#[test]
fn a_panic_the_code_under_test_catches_is_not_a_crash() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static HOOK_CALLS: AtomicUsize = AtomicUsize::new(0);
    let before = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {
        HOOK_CALLS.fetch_add(1, Ordering::SeqCst);
    }));
    let mut caught = false;
    icbench_fuzzing::uncaught_panics_only(std::panic::AssertUnwindSafe(|| {
        caught = std::panic::catch_unwind(|| panic!("caught inside")).is_err();
    }));
    let during = HOOK_CALLS.load(Ordering::SeqCst);
    let _ = std::panic::catch_unwind(|| panic!("after"));
    let after = HOOK_CALLS.load(Ordering::SeqCst);
    std::panic::set_hook(before);
    assert!(caught);
    assert_eq!((during, after), (0, 1), "the wrapper's hook inside, the test's after");
}
