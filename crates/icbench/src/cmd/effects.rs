//! `icbench effects`: which factors of a run matter. The arithmetic is in
//! icbench-stats (`effects`), the view and its renderers in icbench-report
//! (`effects`); this module resolves the run and the filters, and refuses a
//! run that varies nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use anyhow::Result;
use icbench_model::{CellOutcome, CellResult};
use icbench_report::effects::{self, Metric};
use icbench_stats::effects::Scale;
use icbench_store::StoredRun;

use crate::cli::{EffectsArgs, EffectsMetric, EffectsScale};
use crate::cmd::show::{open_existing, resolve_run};
use crate::error::bad;

pub fn effects(a: &EffectsArgs) -> Result<ExitCode> {
    let store = open_existing(&a.db.db)?;
    let id = resolve_run(&store, &a.db.db, &a.run)?;
    let run = store.load_run(id).map_err(|e| bad(e.to_string()))?;
    let filters = parse_filters(&run, &a.filters)?;
    let cells: Vec<&CellResult> =
        run.cells.iter().filter(|c| effects::matches(c, &filters)).collect();
    let metrics: &[Metric] = match a.metric {
        EffectsMetric::Latency => &[Metric::Latency],
        EffectsMetric::Bandwidth => &[Metric::Bandwidth],
        EffectsMetric::Both => &[Metric::Latency, Metric::Bandwidth],
    };
    let scale = match a.scale {
        EffectsScale::Log => Scale::Log,
        EffectsScale::Linear => Scale::Linear,
    };
    let view = effects::build(run.id.0, &run.source.to_string(), &cells, metrics, scale, filters);
    check_something_varies(&run, &cells, &view)?;
    let mut out = std::io::stdout().lock();
    if a.db.json {
        effects::json(&view, &mut out)?;
    } else {
        effects::render(&view, &mut out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Each factor → the levels it takes in the run's cells.
fn levels_of(cells: &[&CellResult]) -> BTreeMap<String, BTreeSet<String>> {
    let mut all: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for c in cells {
        let d = match &c.outcome {
            CellOutcome::Measured(d) => Some(d),
            _ => None,
        };
        for (f, l) in effects::factors(&c.key, d) {
            all.entry(f).or_default().insert(l);
        }
    }
    all
}

/// `--where FACTOR=LEVEL`, checked against the run: the factor must be one
/// of the run's, the level one it takes (sizes may be written `1K`).
fn parse_filters(run: &StoredRun, given: &[String]) -> Result<BTreeMap<String, Vec<String>>> {
    let cells: Vec<&CellResult> = run.cells.iter().collect();
    let known = levels_of(&cells);
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for w in given {
        let Some((f, l)) = w.split_once('=') else {
            return Err(bad(format!("--where '{w}': write FACTOR=LEVEL, e.g. --where link=pipe")));
        };
        let (f, l) = (f.trim(), l.trim());
        let Some(levels) = known.get(f) else {
            let names: Vec<&str> = known.keys().map(String::as_str).collect();
            return Err(bad(format!(
                "--where {w}: run {} has no factor '{f}'; it has {}",
                run.id,
                names.join(", ")
            )));
        };
        let level = match (f, crate::sizes::parse_one(l)) {
            ("size", Ok(b)) => b.to_string(),
            _ => l.to_string(),
        };
        if !levels.contains(&level) {
            let mut have: Vec<&str> = levels.iter().map(String::as_str).collect();
            have.sort_by_key(|l| (l.parse::<u64>().ok(), l.to_string()));
            return Err(bad(format!(
                "--where {w}: factor {f} of run {} has no level '{l}'; it has {}",
                run.id,
                have.join(", ")
            )));
        }
        out.entry(f.to_string()).or_default().push(level);
    }
    Ok(out)
}

/// Bad input when there is nothing to analyse: no measured cell, no cell
/// with the response asked for, or no factor with two levels among the
/// cells that have it.
fn check_something_varies(
    run: &StoredRun,
    cells: &[&CellResult],
    view: &effects::EffectsView,
) -> Result<()> {
    let matching = if view.filters.is_empty() { "" } else { " matching --where" };
    if !cells.iter().any(|c| matches!(c.outcome, CellOutcome::Measured(_))) {
        return Err(bad(format!(
            "run {} has no measured cells{matching} ({} failed, {} n/a): nothing to analyse",
            run.id, view.cells_failed, view.cells_not_applicable
        )));
    }
    if !view.varies_nothing() {
        return Ok(());
    }
    let why: Vec<String> = view
        .metrics
        .iter()
        .map(|m| {
            if m.cells == 0 {
                let what = match m.metric {
                    Metric::Latency => "a latency histogram (try --metric bandwidth)",
                    Metric::Bandwidth => "bytes moved (try --metric latency)",
                };
                return format!("no measured cell{matching} has {what}");
            }
            let one: Vec<String> =
                m.effects.not_varied.iter().map(|n| format!("{}={}", n.factor, n.level)).collect();
            format!("{} each had one level in its {} cells{matching}", one.join(", "), m.cells)
        })
        .collect();
    let mut why = why;
    why.dedup();
    if view.metrics.iter().all(|m| m.cells == 0) {
        return Err(bad(format!("run {}: {}", run.id, why.join("; "))));
    }
    Err(bad(format!(
        "run {} varies no factor: {}; measure a run with two or more levels of a factor, e.g. \
         `icbench run -L pipe -L unix -s 64,1K`, or a plan that varies one",
        run.id,
        why.join("; ")
    )))
}
