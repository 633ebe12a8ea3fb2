//! The checks icbench's fuzz targets run (issue #30: "fuzz every parser a
//! user's file reaches"), one function per target, each taking the raw
//! input. A function returns normally for any input it can be given and
//! panics only where icbench is wrong: a parser that panics, a value
//! accepted outside its documented bounds, a stored run that a renderer
//! cannot show. The time bound is the fuzzer's (`-timeout`), and the
//! corpus replay's in CI.
//!
//! The cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`, nightly) are one line
//! each around these; this crate's tests replay every committed corpus
//! (`fuzz/corpus/<target>/`) on stable, so CI runs each input ever kept.
//! What a target covers:
//!
//! - [`import`]: every import format (the first byte picks it);
//! - [`import_show`]: the same, and an accepted file the whole way a user's
//!   file goes: stored, loaded back, and shown by every renderer (`show`
//!   tables, `--json`, `export`, the linear model, the HTML report);
//! - [`plan`]: a plan file parsed and expanded (cell count bounded);
//! - [`link_spec`]: `-L` link specifications;
//! - [`units`]: sizes, size lists and sweeps, amounts and durations;
//! - [`store`]: a damaged database file opened, listed and shown;
//! - [`bundle`]: a bundle file read, and resealed: viewed for the site,
//!   stored, loaded back and shown;
//! - [`proto`]: the wire protocol's parsers (a device's bytes).

pub mod alloc;
pub mod proto;

/// Runs `check` with panics judged as in icbench's own builds: a panic the
/// code under test catches is not a crash, one that reaches here is, and
/// aborts with its message. For the cargo-fuzz targets: libfuzzer-sys's
/// panic hook aborts at the first panic, caught or not, and icbench-model's
/// `LatencyHistogram::from_blob` catches hdrhistogram's decoder panicking
/// on a damaged count (issue #30, the store target's find).
pub fn uncaught_panics_only(check: impl FnOnce() + std::panic::UnwindSafe) {
    use std::cell::RefCell;
    thread_local!(static LAST: RefCell<Option<String>> = const { RefCell::new(None) });
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| LAST.with(|l| *l.borrow_mut() = Some(info.to_string()))));
    let r = std::panic::catch_unwind(check);
    std::panic::set_hook(hook);
    if r.is_err() {
        eprintln!("{}", LAST.with(|l| l.borrow_mut().take()).unwrap_or_default());
        std::process::abort();
    }
}

use std::io::Write;

use icbench_import::{Format, Options};
use icbench_store::{RunSource, Store};

/// An import file: `data[0]` picks the format, the rest is the file. The
/// parser alone (thousands of inputs a second); [`import_show`] takes an
/// accepted file the whole way.
pub fn import(data: &[u8]) {
    let Some((&pick, file)) = data.split_first() else { return };
    let format = Format::ALL[usize::from(pick) % Format::ALL.len()];
    let text = String::from_utf8_lossy(file);
    let Ok(imp) = icbench_import::parse(format, &text, &Options::default()) else { return };
    for c in &imp.cells {
        if let icbench_model::CellOutcome::Measured(d) = &c.outcome {
            // The store's integers are signed 64-bit (issue #35).
            assert!(d.messages <= i64::MAX as u64 && d.bytes <= i64::MAX as u64, "{c:?}");
            assert!(d.elapsed_ns <= i64::MAX as u64, "{c:?}");
        }
    }
}

/// An import file as [`import`] reads it, and when accepted, the whole way
/// a user's file goes: stored, loaded back, and shown by every renderer.
///
/// The store is one in-memory database per thread, renewed every
/// [`STORE_REUSE`] inputs: creating the schema took 44 % of each input's
/// time (perf, 2026-11-28), and a run's storing and loading do not depend
/// on the runs stored before it beyond its id.
pub fn import_show(data: &[u8]) {
    let Some((&pick, file)) = data.split_first() else { return };
    let format = Format::ALL[usize::from(pick) % Format::ALL.len()];
    let text = String::from_utf8_lossy(file);
    let Ok(imp) = icbench_import::parse(format, &text, &Options::default()) else { return };
    let source = RunSource::Imported(format.name().to_string());
    let meta = imp.run_meta(format, Vec::new(), 1, Vec::new());
    with_store(|store| {
        let id = match store.import_run(&meta, &source, "fuzz", &imp.cells, &imp.warnings) {
            Ok(id) => id,
            // Refusing to store is allowed (a value no column holds), with
            // a message; what is stored must then be shown.
            Err(e) => {
                assert!(!e.to_string().is_empty());
                return;
            }
        };
        let run = store.load_run(id).expect("a stored run loads back");
        assert_eq!(run.cells.len(), imp.cells.len(), "every imported cell is stored");
        show(&run);
    });
}

/// A bundle file (`import -f bundle`, `merge`, `site`), read as given:
/// most changed bytes end at its SHA-256, so the size, version and JSON
/// checks before it are what they reach. Then, when its JSON is a bundle
/// of this format, resealed — its hash made right, as a person who edits a
/// bundle by hand and seals it again could — and the bundle icbench would
/// write of it must read back; its runs then go the way a bundle's runs
/// go: viewed as `site` and `merge` view them and shown on the site's
/// pages, stored in one transaction as `import -f bundle` does, loaded
/// back with every cell, and shown by every renderer.
pub fn bundle(data: &[u8]) {
    use icbench_bundle::Bundle;
    let text = String::from_utf8_lossy(data);
    let b = match Bundle::parse(&text) {
        Ok(b) => b,
        Err(_) => {
            let Ok(mut b) = serde_json::from_str::<Bundle>(&text) else { return };
            if b.icbench_bundle != icbench_bundle::SCHEMA {
                return;
            }
            b.content_sha256 = b.hash();
            Bundle::parse(&b.to_json())
                .unwrap_or_else(|e| panic!("a bundle as icbench writes it does not read: {e}"))
        }
    };
    site(&b);
    let Ok(sources) =
        b.runs.iter().map(|r| r.source.parse::<RunSource>()).collect::<Result<Vec<_>, _>>()
    else {
        return;
    };
    let plans: Vec<Option<(String, String)>> = b
        .runs
        .iter()
        .map(|r| Some((r.plan.as_ref()?.to_string(), r.settings.as_ref()?.to_string())))
        .collect();
    let whole: Vec<icbench_store::WholeRun<'_>> = b
        .runs
        .iter()
        .zip(&sources)
        .zip(&plans)
        .map(|((r, source), plan)| icbench_store::WholeRun {
            meta: &r.meta,
            source,
            provenance: r.provenance.as_deref(),
            cells: &r.cells,
            warnings: &r.warnings,
            plan: plan.as_ref().map(|(p, s)| (p.as_str(), s.as_str())),
        })
        .collect();
    with_store(|store| {
        let ids = match store.insert_runs(&whole) {
            Ok(ids) => ids,
            // Refusing to store is allowed, with a message.
            Err(e) => {
                assert!(!e.to_string().is_empty());
                return;
            }
        };
        for (id, r) in ids.iter().zip(&b.runs) {
            let run = store.load_run(*id).expect("a stored run loads back");
            assert_eq!(run.cells.len(), r.cells.len(), "every cell of the bundle is stored");
            show(&run);
        }
    });
}

/// A bundle's runs viewed and drawn as `icbench site` draws them (the
/// index and the bundle's page).
fn site(b: &icbench_bundle::Bundle) {
    use icbench_report::site::{EntryKind, SiteEntry};
    let runs = b
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            icbench_report::build(i as i64 + 1, &r.meta, &r.cells).with_source(
                r.source.clone(),
                r.provenance.clone(),
                r.warnings.clone(),
            )
        })
        .collect();
    let board = b.runs.first().and_then(|r| r.meta.label.clone()).unwrap_or_default();
    let provenance = vec![("bundle".to_string(), b.content_sha256.clone())];
    let entry = SiteEntry {
        file: "fuzz.icbench.json".into(),
        board,
        provenance,
        kind: EntryKind::Measured,
        runs,
    };
    for (name, html) in icbench_report::site::build(&[entry]) {
        assert!(html.ends_with("</html>\n"), "{name} is whole");
    }
}

/// How many inputs share one in-memory store in [`import_show`].
pub const STORE_REUSE: u32 = 256;

fn with_store(f: impl FnOnce(&mut Store)) {
    use std::cell::RefCell;
    thread_local! {
        static STORE: RefCell<Option<(Store, u32)>> = const { RefCell::new(None) };
    }
    STORE.with_borrow_mut(|slot| {
        if slot.as_ref().is_none_or(|(_, used)| *used >= STORE_REUSE) {
            *slot = Some((Store::open_in_memory().expect("an in-memory store"), 0));
        }
        let (store, used) = slot.as_mut().expect("set above");
        *used += 1;
        f(store);
    });
}

/// Every renderer on a stored run: none may panic or fail to write.
fn show(run: &icbench_store::StoredRun) {
    use icbench_report::table::Detail;
    let view = icbench_report::build(run.id.0, &run.meta, &run.cells);
    let mut sink = Vec::new();
    for detail in [Detail::Summary, Detail::Cells] {
        icbench_report::table::run(&view, &mut sink, detail).expect("the tables render");
    }
    icbench_report::json::run(&view, &mut sink).expect("the JSON renders");
    icbench_report::export::csv(&view, &mut sink).expect("the CSV renders");
    let filter = icbench_report::model::ModelFilter {
        links: Vec::new(),
        pattern: None,
        predict: Some(4096),
        crossover: true,
        where_: Vec::new(),
    };
    let mv = icbench_report::model::build(&view, &filter);
    icbench_report::table::model(&mv, &mut sink).expect("the model renders");
    let report = icbench_report::html::build(
        &[icbench_report::html::ReportRun { view, cells: &run.cells, board: None }],
        None,
    );
    assert!(report.html.ends_with("</html>\n"));
    sink.flush().expect("a Vec flushes");
}

/// A plan file: parsed, and expanded on two CPUs; an accepted plan never
/// has more cells than the plan crate's bound.
pub fn plan(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(file) = icbench_plan::parse(&text) else { return };
    let ctx = icbench_plan::Context {
        online: vec![0, 1],
        default_cell_time: std::time::Duration::from_millis(20),
        seed_if_absent: 1,
    };
    if let Ok(p) = icbench_plan::expand(&file, &ctx) {
        assert!(p.cells.len() <= icbench_plan::expand::MAX_CELLS, "{} cells", p.cells.len());
    }
}

/// A link specification (`-L`): parsed; an accepted one prints as a spec
/// that parses to the same.
pub fn link_spec(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(spec) = icbench_link::LinkSpec::parse(text) else { return };
    let again = spec.to_string();
    let back = icbench_link::LinkSpec::parse(&again)
        .unwrap_or_else(|e| panic!("{text:?} printed as {again:?}, which does not parse: {e}"));
    assert_eq!(back.to_string(), again, "{text:?}");
}

/// Sizes, lists and sweeps, amounts and durations: accepted values lie in
/// their documented bounds.
pub fn units(data: &[u8]) {
    use icbench_plan::units;
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(v) = units::parse(text) {
        assert!(v.iter().all(|&s| (1..=units::MAX_SIZE).contains(&s)), "{text:?}: {v:?}");
        assert!(v.windows(2).all(|w| w[0] < w[1]), "{text:?}: sorted, no repeats: {v:?}");
    }
    if let Ok(n) = units::parse_amount(text, 1 << 30) {
        assert!((1..=1 << 30).contains(&n), "{text:?}: {n}");
    }
    if let Ok(d) = units::duration(text) {
        assert!(!d.is_zero() && d <= units::MAX_DURATION, "{text:?}: {d:?}");
    }
}

/// A database file as a user may hand it over, damaged: opened for
/// reading, listed, each run loaded, and the view every renderer starts
/// from built and shown as `show` prints it; an error is fine, a panic is
/// not.
///
/// The input damages a database icbench wrote ([`STORE_SEED`]: a measured
/// run with repeats and disturbance figures, a two-channel run, two
/// imported runs) rather than being one: random bytes are almost never a
/// database, and SQLite refuses them at its header. See [`damage`]. The
/// other renderers (JSON, CSV, the model, the HTML report with its figures)
/// take a stored run in [`import_show`], over the import formats' value
/// ranges; here they would cost ten times the load path they follow.
pub fn store(data: &[u8]) {
    store_file(&damage(STORE_SEED, data));
}

/// The database [`store`] damages; `seeds/README.md` says how it was made.
pub const STORE_SEED: &[u8] = include_bytes!("../seeds/store.db");

/// `seed` with the patches `data` describes: each is a 4-byte little-endian
/// offset (taken modulo the seed's length), a length byte `n` (0–31), and up
/// to `n` bytes written there; what is left over when the input ends is
/// cut short.
pub fn damage(seed: &[u8], data: &[u8]) -> Vec<u8> {
    let mut out = seed.to_vec();
    let mut rest = data;
    while let [a, b, c, d, n, tail @ ..] = rest {
        let at = u32::from_le_bytes([*a, *b, *c, *d]) as usize % out.len().max(1);
        let n = usize::from(n % 32).min(tail.len());
        let end = (at + n).min(out.len());
        out[at..end].copy_from_slice(&tail[..end - at]);
        rest = &tail[n..];
    }
    out
}

/// A database file's bytes, whole: written to a file of a temporary
/// directory this process keeps, then as [`store`] says.
pub fn store_file(bytes: &[u8]) {
    use std::sync::OnceLock;
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"));
    let path = dir.path().join(format!("fuzz-{:?}.db", std::thread::current().id()));
    for end in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{end}", path.display()));
    }
    std::fs::write(&path, bytes).expect("the file is written");
    let Ok(store) = Store::open_read_only(&path) else { return };
    let Ok(runs) = store.list_runs() else { return };
    for r in runs.iter().take(8) {
        if let Ok(run) = store.load_run(r.id) {
            let view = icbench_report::build(run.id.0, &run.meta, &run.cells);
            let mut sink = Vec::new();
            icbench_report::table::run(&view, &mut sink, icbench_report::table::Detail::Summary)
                .expect("the table renders");
        }
    }
}
