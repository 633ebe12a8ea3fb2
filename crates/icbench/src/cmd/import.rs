//! `icbench import`: another tool's results stored as a run with source
//! `imported:<format>`, its provenance (file name, size, checksum) and the
//! importer's sanity warnings, so `show`, `model`, `compare`, `export` and
//! `report` work on it. The parsing is in icbench-import.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use icbench_import::{Format, Options};
use icbench_model::Pattern;
use icbench_store::RunSource;

use crate::cli::ImportArgs;
use crate::cmd::show::open_store;
use crate::error::bad;
use crate::meta::now_unix_ns;

/// FNV-1a, 64 bit: a checksum to tell two imported files apart (not a
/// security measure).
fn fnv1a64(data: &[u8]) -> u64 {
    data.iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// The largest file imported: every tool's result file is far smaller.
const MAX_IMPORT_BYTES: u64 = 64 << 20;

pub fn import(a: &ImportArgs) -> Result<ExitCode> {
    if a.format == "bundle" {
        return crate::cmd::bundle::import(&a.file, &a.db.db, a.db.json);
    }
    let format = Format::parse_name(&a.format).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        bad(format!("--format {}: use one of {}", a.format, names.join(", ")))
    })?;
    let size_bytes = a
        .size
        .as_deref()
        .map(|s| crate::sizes::parse_one(s).map_err(|e| bad(format!("--size: {e}"))))
        .transpose()?;
    let bytes = crate::files::read_bounded(&a.file, MAX_IMPORT_BYTES, "result file")?;
    let text = String::from_utf8_lossy(&bytes);
    let opts = Options { link: a.link.clone(), size_bytes };
    let imp = icbench_import::parse(format, &text, &opts)
        .map_err(|e| bad(format!("{} as {}: {e}", a.file.display(), format.name())))?;

    let name = a
        .file
        .file_name()
        .map_or_else(|| a.file.display().to_string(), |n| n.to_string_lossy().into_owned());
    let provenance =
        format!("file {name}, {} bytes, fnv1a64 {:016x}", bytes.len(), fnv1a64(&bytes));
    let now = now_unix_ns();
    let notes = vec![format!(
        "imported from {} as {}: not measured by icbench; machine, CPUs and clock are unknown \
         unless the file records them",
        a.file.display(),
        format.name()
    )];
    let meta = imp.run_meta(format, notes, now, std::env::args().collect());
    let mut store = open_store(&a.db.db)?;
    let source = RunSource::Imported(format.name().to_string());
    // One transaction: a failure leaves no half-imported run (issue #22).
    let id = store.import_run(&meta, &source, &provenance, &imp.cells, &imp.warnings)?;
    let mut out = crate::term::stdout();
    if a.db.json {
        let doc = serde_json::json!({
            "schema_version": icbench_model::JSON_SCHEMA_VERSION,
            "run_id": id.0,
            "source": source.to_string(),
            "provenance": provenance,
            "cells": imp.cells.len(),
            "warnings": imp.warnings,
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        let width = icbench_report::table::text_width();
        let said = format!(
            "imported {} cells from {} as run {id} (source {source}); {} warning{}",
            imp.cells.len(),
            a.file.display(),
            imp.warnings.len(),
            if imp.warnings.len() == 1 { "" } else { "s" }
        );
        writeln!(out, "{}", icbench_report::format::wrap(&said, width).join("\n"))?;
        for w in &imp.warnings {
            writeln!(out, "warning: {}", icbench_report::format::hanging(w, 9, width))?;
        }
        // Only ping-pong, stream and bulk cells have a t(n) = a + b·n to fit.
        let fits = imp
            .cells
            .iter()
            .any(|c| matches!(c.key.pattern, Pattern::PingPong | Pattern::Stream | Pattern::Bulk));
        if fits {
            writeln!(out, "`icbench show {id}` prints it; `icbench model {id}` fits it")?;
        } else {
            writeln!(out, "`icbench show {id}` prints it")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
