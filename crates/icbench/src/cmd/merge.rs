//! `icbench merge`: other databases' runs into this one (issue #19), each
//! with its origin (board, file, run id there); a run already here is not
//! copied twice. The store does the copying in one transaction per file
//! (`Store::merge_runs`) and never writes the other file.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use icbench_store::{RunId, Store, StoredRun};

use crate::cli::MergeArgs;
use crate::cmd::show::open_store;
use crate::error::bad;

/// The board a file's runs are recorded under without --board: the
/// file's name, or for the default name (`icbench.db`) its directory's
/// (`board1/icbench.db` → `board1`), so that the files of a lab, each
/// `icbench.db` in its own directory, are told apart (issue #29).
fn board_of(file: &std::path::Path) -> String {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
    let dir = || {
        std::path::absolute(file)
            .ok()?
            .parent()?
            .file_name()
            .map(|d| d.to_string_lossy().into_owned())
    };
    match stem {
        Some(s) if s == "icbench" => dir().unwrap_or(s),
        Some(s) => s,
        None => "?".into(),
    }
}

/// A file's runs: a database's (read through a snapshot, never written),
/// or a bundle's (issue #31 item 5: `icbench bundle` files merge as
/// databases do), each bundled run numbered by its place in the file.
fn runs_of(other: &std::path::Path) -> Result<Vec<StoredRun>> {
    if crate::cmd::bundle::looks_like_bundle(other) {
        let b = crate::cmd::bundle::read(other)?;
        return b
            .runs
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                Ok(StoredRun {
                    id: RunId(i as i64 + 1),
                    source: r
                        .source
                        .parse()
                        .map_err(|e| bad(format!("{}: {e}", other.display())))?,
                    provenance: r.provenance,
                    meta: r.meta,
                    cells: r.cells,
                    warnings: r.warnings,
                })
            })
            .collect();
    }
    let snap = Store::open_snapshot(other).map_err(|e| match e {
        icbench_store::StoreError::Open { path, source } => {
            bad(format!("{path}: cannot be read as a database ({source}); nothing was merged"))
        }
        e => bad(format!("{e}; nothing was merged")),
    })?;
    let runs = snap
        .store
        .list_runs()?
        .iter()
        .map(|r| snap.store.load_run(r.id))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    Ok(runs)
}

pub fn merge(a: &MergeArgs) -> Result<ExitCode> {
    // Two files that would be one board are refused before anything is
    // merged: their runs could not be told apart afterwards.
    if a.board.is_none() {
        let mut seen: std::collections::BTreeMap<String, &std::path::Path> = Default::default();
        for other in &a.others {
            let board = board_of(other);
            if let Some(first) = seen.insert(board.clone(), other) {
                return Err(bad(format!(
                    "{} and {} would both be board '{board}': merge each with its own --board \
                     NAME; nothing was merged",
                    first.display(),
                    other.display()
                )));
            }
        }
    }
    let mut lab = open_store(&a.db.db)?;
    let mut out = crate::term::stdout();
    let mut report = Vec::new();
    for other in &a.others {
        if !other.exists() {
            return Err(bad(format!("{}: no such database or bundle file", other.display())));
        }
        if !other.is_file() {
            return Err(bad(format!(
                "{}: not a regular file: give the database or bundle file itself",
                other.display()
            )));
        }
        let runs = runs_of(other)?;
        let board = a.board.clone().unwrap_or_else(|| board_of(other));
        let shown = other.display().to_string();
        let merged =
            lab.merge_runs(&runs, &|r| format!("board {board} · {shown} · run {}", r.id))?;
        // The verdict each copied run printed where it was measured.
        for m in merged.iter().filter(|m| m.new) {
            let stored = lab.load_run(m.to)?;
            if stored.source == icbench_store::RunSource::Measured {
                let view = icbench_report::build(m.to.0, &stored.meta, &stored.cells);
                lab.set_verdict(m.to, view.verdict.as_ref().map_or("not judged", |v| v.verdict))?;
            }
        }
        let new: Vec<String> =
            merged.iter().filter(|m| m.new).map(|m| m.to.0.to_string()).collect();
        let old = merged.len() - new.len();
        report.push(serde_json::json!({
            "file": shown, "board": board, "runs": merged.len(),
            "merged_as": merged.iter().filter(|m| m.new).map(|m| m.to.0).collect::<Vec<_>>(),
            "already_here": old,
        }));
        if !a.db.json {
            let as_runs =
                if new.is_empty() { String::new() } else { format!(" as runs {}", new.join(", ")) };
            writeln!(
                out,
                "{shown} (board {board}): {} of {} runs merged{as_runs}; {old} already in {}",
                new.len(),
                merged.len(),
                a.db.db.display()
            )?;
        }
    }
    if a.db.json {
        let doc = serde_json::json!({
            "schema_version": icbench_model::JSON_SCHEMA_VERSION, "merged": report,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    }
    Ok(ExitCode::SUCCESS)
}
