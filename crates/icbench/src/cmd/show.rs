//! `icbench runs` and `icbench show`: the store, read back and rendered.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use icbench_report::RunView;
use icbench_report::table::RunListRow;
use icbench_store::{RunId, Store, StoredRun};

use crate::cli::{RunsArgs, ShowArgs};
use crate::error::bad;

pub(crate) fn open_store(path: &std::path::Path) -> Result<Store> {
    Store::open(path).map_err(|e| bad(e.to_string()))
}

/// Opens a results database that must exist already: the commands that
/// only read runs leave no empty icbench.db behind in the wrong directory,
/// and a mistyped --db says so instead of "holds no runs".
pub(crate) fn open_existing(path: &std::path::Path) -> Result<Store> {
    must_exist(path)?;
    open_store(path)
}

/// [`open_existing`] for the commands that only read (`runs`, `show`,
/// `model`, `compare`, `export`, `report`, `effects`): nothing is written
/// to the file or beside it, and an older file is read through a migrated
/// copy (issue #30 item 11; `icbench_store::Reading`).
pub(crate) fn open_reading(path: &std::path::Path) -> Result<icbench_store::Reading> {
    must_exist(path)?;
    Store::open_read_only(path).map_err(|e| bad(e.to_string()))
}

fn must_exist(path: &std::path::Path) -> Result<()> {
    if !path.exists() {
        return Err(bad(format!(
            "no results database at {}: `icbench run` measures and stores runs there, or give \
             --db PATH (or ICBENCH_DB)",
            path.display()
        )));
    }
    if !path.is_file() {
        return Err(bad(format!(
            "{} is not a results database (not a regular file): give --db PATH (or ICBENCH_DB)",
            path.display()
        )));
    }
    Ok(())
}

/// Whether a stored run's floor moved past its bound from head to tail
/// (`icbench_stats::disturbance::floor_drift`).
fn unstable(r: &icbench_store::RunSummary) -> bool {
    match (r.floor_cacheline_rtt_ns, r.floor_memcpy_bytes_per_s, r.floor_tail) {
        (Some(c), Some(m), Some(t)) => {
            icbench_stats::disturbance::floor_drift(c, m, t.cacheline_rtt_ns, t.memcpy_bytes_per_s)
                .unstable()
        }
        _ => false,
    }
}

/// `icbench label RUN NAME`: labels a stored run, or `--remove` takes its
/// label away (issue #29: a run could be labelled only when measured).
pub fn label(a: &crate::cli::LabelArgs) -> Result<ExitCode> {
    let mut store = open_existing(&a.db)?;
    let run = resolve_run(&store, &a.db, &a.run)?;
    let name = a.name.as_deref().map(str::trim);
    if name.is_some_and(str::is_empty) {
        return Err(bad("label: give a name that is not empty, or --remove"));
    }
    crate::meta::check_text("label", name, crate::meta::MAX_LABEL)?;
    store.set_label(run, name)?;
    let mut out = crate::term::stdout();
    match name {
        Some(n) => writeln!(
            out,
            "run {} labelled {}: `icbench compare --baseline {}` finds it",
            run.0,
            icbench_report::format::printable(n),
            icbench_report::format::printable(n)
        )?,
        None => writeln!(out, "run {}: its label taken away", run.0)?,
    }
    Ok(ExitCode::SUCCESS)
}

pub fn runs(r: &RunsArgs) -> Result<ExitCode> {
    let a = &r.db;
    // A database that is not there is refused as `show` refuses it (a
    // mistyped --db listed nothing with exit 0, issue #22); nothing is made.
    let mut stored = open_reading(&a.db)?.list_runs()?;
    if let Some(want) = &r.label {
        let labels: std::collections::BTreeSet<&str> =
            stored.iter().filter_map(|s| s.label.as_deref()).collect();
        if !labels.contains(want.as_str()) {
            return Err(bad(unknown_label(want, &labels)));
        }
        stored.retain(|s| s.label.as_deref() == Some(want.as_str()));
    }
    let rows: Vec<RunListRow> = stored
        .into_iter()
        .map(|r| RunListRow {
            id: r.id.0,
            started_unix_ns: r.started_unix_ns,
            // A run stored as running that no process holds was left by
            // one that is gone (crash, kill -9, power): resumable.
            status: if r.status == icbench_model::RunStatus::Running
                && !crate::claim::held(&a.db, r.id.0)
            {
                "abandoned".to_string()
            } else {
                r.status.as_str().to_string()
            },
            // The floor moved past its bound between head and tail.
            unstable: unstable(&r),
            verdict: r.verdict.clone(),
            label: r.label.clone(),
            origin: r.origin.clone(),
            source: r.source.to_string(),
            hostname: r.hostname,
            // An imported run's CPUs are not known (stored as 0 and 0).
            cpus: match r.source {
                icbench_store::RunSource::Measured => format!("{} ↔ {}", r.host_cpu, r.peer_cpu),
                icbench_store::RunSource::Imported(_) => "–".to_string(),
            },
            cells_ok: r.cells_ok,
            cells_failed: r.cells_failed,
            cells_na: r.cells_na,
        })
        .collect();
    let mut out = crate::term::stdout();
    if a.json {
        let doc = serde_json::json!({
            "schema_version": icbench_model::JSON_SCHEMA_VERSION,
            "runs": rows,
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        icbench_report::table::runs(&rows, &mut out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The one-line refusal of a label no run has, naming the ones that exist.
pub(crate) fn unknown_label(want: &str, labels: &std::collections::BTreeSet<&str>) -> String {
    if labels.is_empty() {
        format!("no run is labelled '{want}': no run has a label yet (`icbench run --label NAME`)")
    } else {
        let known: Vec<&str> = labels.iter().copied().collect();
        format!("no run is labelled '{want}': the labels are {}", known.join(", "))
    }
}

/// The latest run labelled `want`.
pub(crate) fn latest_labelled(store: &Store, want: &str) -> Result<RunId> {
    let runs = store.list_runs()?;
    let labels = runs.iter().filter_map(|s| s.label.as_deref()).collect();
    runs.iter()
        .rev()
        .find(|s| s.label.as_deref() == Some(want))
        .map(|s| s.id)
        .ok_or_else(|| bad(unknown_label(want, &labels)))
}

/// Resolves a run argument (`latest` or a number) to a run id.
pub(crate) fn resolve_run(store: &Store, db: &std::path::Path, run: &str) -> Result<RunId> {
    if run == "latest" {
        store.latest_run_id()?.ok_or_else(|| {
            bad(format!("{} holds no runs yet: `icbench run` measures one", db.display()))
        })
    } else {
        run.parse::<RunId>().map_err(|_| {
            bad(format!(
                "'{run}' is not a run: give a run number or `latest` (`icbench runs` lists them)"
            ))
        })
    }
}

/// Loads a run (`latest` or a number) and builds its view.
pub(crate) fn load_view(
    store: &Store,
    db: &std::path::Path,
    run: &str,
) -> Result<(StoredRun, RunView)> {
    let id = resolve_run(store, db, run)?;
    let run = store.load_run(id).map_err(|e| bad(e.to_string()))?;
    let view = icbench_report::build(run.id.0, &run.meta, &run.cells)
        .with_source(run.source.to_string(), run.provenance.clone(), run.warnings.clone())
        .with_history(&host_history(store, &run)?);
    Ok((run, view))
}

/// The views of the last [`HISTORY_RUNS`](icbench_report::history::HISTORY_RUNS)
/// finished runs measured before `run` on the same host: the same host
/// name, CPU model and CPU pair (issue #28 item 3). None for an imported
/// run.
pub(crate) fn host_history(store: &Store, run: &StoredRun) -> Result<Vec<RunView>> {
    use icbench_model::RunStatus;
    use icbench_store::RunSource;
    if run.source != RunSource::Measured {
        return Ok(Vec::new());
    }
    let m = &run.meta;
    let same: Vec<RunId> = store
        .list_runs()
        .map_err(|e| bad(e.to_string()))?
        .into_iter()
        .filter(|r| {
            r.id.0 < run.id.0
                && r.source == RunSource::Measured
                && r.status == RunStatus::Finished
                && (r.hostname.as_str(), r.cpu_model.as_str(), r.host_cpu, r.peer_cpu)
                    == (m.hostname.as_str(), m.cpu_model.as_str(), m.host_cpu, m.peer_cpu)
        })
        .map(|r| r.id)
        .collect();
    let last = &same[same.len().saturating_sub(icbench_report::history::HISTORY_RUNS)..];
    let mut out = Vec::with_capacity(last.len());
    for &id in last {
        let r = store.load_run(id).map_err(|e| bad(e.to_string()))?;
        out.push(icbench_report::build(r.id.0, &r.meta, &r.cells));
    }
    Ok(out)
}

pub fn show(a: &ShowArgs) -> Result<ExitCode> {
    let store = open_reading(&a.db.db)?;
    let (run, mut view) = load_view(&store, &a.db.db, &a.run)?;
    if a.blocks {
        view = icbench_report::view::build_blocks(run.id.0, &run.meta, &run.cells).with_source(
            run.source.to_string(),
            run.provenance.clone(),
            run.warnings.clone(),
        );
    }
    // A measured realtime run prints as rt-tests do; an imported one (e.g.
    // cyclictest's JSON) keeps the run view with its provenance and
    // warnings, and `--stats` always shows the full per-cell statistics.
    if icbench_report::rt::is_rt(&run.cells) && !view.is_imported() && !a.stats {
        let mut out = crate::term::stdout();
        crate::cmd::rt::print(&mut out, run.id.0, &run.meta, &run.cells, a.db.json, 1000)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::term::stdout();
    if a.db.json {
        icbench_report::json::run(&view, &mut out)?;
    } else if a.targets {
        icbench_report::table::targets(&view, &mut out).context("writing the targets")?;
    } else if a.stats {
        icbench_report::table::run_stats(&view, &mut out).context("writing the tables")?;
    } else {
        // A block's rows are what `--blocks` asks for: they are tables.
        let detail = detail(a.cells || a.blocks);
        icbench_report::table::run(&view, &mut out, detail).context("writing the tables")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--cells`: every cell's table above the summary; else the summary.
pub(crate) fn detail(cells: bool) -> icbench_report::table::Detail {
    if cells {
        icbench_report::table::Detail::Cells
    } else {
        icbench_report::table::Detail::Summary
    }
}
