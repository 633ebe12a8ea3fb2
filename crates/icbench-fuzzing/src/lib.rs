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
//! - [`proto`]: the wire protocol's parsers (a device's bytes).

pub mod proto;

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
/// a user's file goes: stored, loaded back, and shown by every renderer
/// (about 150 inputs a second: the HTML report draws its figures).
pub fn import_show(data: &[u8]) {
    let Some((&pick, file)) = data.split_first() else { return };
    let format = Format::ALL[usize::from(pick) % Format::ALL.len()];
    let text = String::from_utf8_lossy(file);
    let Ok(imp) = icbench_import::parse(format, &text, &Options::default()) else { return };
    let mut store = Store::open_in_memory().expect("an in-memory store");
    let source = RunSource::Imported(format.name().to_string());
    let meta = imp.run_meta(format, Vec::new(), 1, Vec::new());
    let id = match store.import_run(&meta, &source, "fuzz", &imp.cells, &imp.warnings) {
        Ok(id) => id,
        // Refusing to store is allowed (a value no column holds), with a
        // message; what is stored must then be shown.
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let run = store.load_run(id).expect("a stored run loads back");
    assert_eq!(run.cells.len(), imp.cells.len(), "every imported cell is stored");
    show(&run);
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
/// reading, listed, and each run loaded and shown; an error is fine, a
/// panic is not.
pub fn store(data: &[u8]) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("fuzz.db");
    std::fs::write(&path, data).expect("the file is written");
    let Ok(store) = Store::open_read_only(&path) else { return };
    let Ok(runs) = store.list_runs() else { return };
    for r in runs.iter().take(8) {
        if let Ok(run) = store.load_run(r.id) {
            show(&run);
        }
    }
}
