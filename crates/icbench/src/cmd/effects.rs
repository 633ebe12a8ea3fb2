//! `icbench effects`: which factors of a run matter. The arithmetic is in
//! icbench-stats (`effects`), the view and its renderers in icbench-report
//! (`effects`); this module resolves the runs and the filters, and refuses
//! cells that vary nothing. Several runs are one design with a factor that
//! tells them apart: `board` for runs from different boards (issue #19,
//! the board name `icbench merge --board` records, else the hostname), or
//! `run` (e.g. one run per firmware image, issue #16).

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use anyhow::Result;
use icbench_model::{CellOutcome, CellResult};
use icbench_report::effects::{self, Metric};
use icbench_stats::effects::Scale;
use icbench_store::StoredRun;

use crate::cli::{EffectsArgs, EffectsMetric, EffectsScale};
use crate::cmd::show::{open_reading, resolve_run};
use crate::error::bad;

pub fn effects(a: &EffectsArgs) -> Result<ExitCode> {
    let store = open_reading(&a.db.db)?;
    let (mut runs, mut boards) = (Vec::new(), Vec::new());
    for r in &a.runs {
        let id = resolve_run(&store, &a.db.db, r)?;
        let run = store.load_run(id).map_err(|e| bad(e.to_string()))?;
        let origin = store.origin(id).map_err(|e| bad(e.to_string()))?;
        boards.push(board_of(origin.as_deref(), &run));
        runs.push(run);
    }
    let (what, all) = together(&runs, &boards);
    let run = &runs[0];
    let filters = parse_filters(&what, &all, &a.filters)?;
    let cells: Vec<&CellResult> = all.iter().filter(|c| effects::matches(c, &filters)).collect();
    let metrics: &[Metric] = match a.metric {
        EffectsMetric::Latency => &[Metric::Latency],
        EffectsMetric::Bandwidth => &[Metric::Bandwidth],
        EffectsMetric::Both => &[Metric::Latency, Metric::Bandwidth],
    };
    let scale = match a.scale {
        EffectsScale::Log => Scale::Log,
        EffectsScale::Linear => Scale::Linear,
    };
    let source = match &runs[1..] {
        [] => run.source.to_string(),
        more => {
            let ids: Vec<String> = more.iter().map(|r| r.id.to_string()).collect();
            format!("{} · with run {}", run.source, ids.join(", "))
        }
    };
    let view = effects::build(run.id.0, &source, &cells, metrics, scale, filters);
    check_something_varies(&what, &cells, &view)?;
    let mut out = crate::term::stdout();
    if a.db.json {
        effects::json(&view, &mut out)?;
    } else {
        effects::render(&view, &mut out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The board a run came from: the name `merge --board` recorded in its
/// origin ("board NAME · FILE · run N"), else the host it ran on.
pub(crate) fn board_of(origin: Option<&str>, run: &StoredRun) -> String {
    origin
        .and_then(|o| o.strip_prefix("board "))
        .and_then(|o| o.split(" · ").next())
        .map_or_else(|| run.meta.hostname.clone(), str::to_string)
}

/// The runs' cells as one design: with several runs, each cell gains the
/// factor that tells its run apart (`board` when the boards differ, else
/// `run`). Also the words that name the runs in messages.
fn together(runs: &[StoredRun], boards: &[String]) -> (String, Vec<CellResult>) {
    if let [run] = runs {
        return (format!("run {}", run.id), run.cells.clone());
    }
    let by_board = boards.iter().collect::<BTreeSet<_>>().len() == runs.len();
    let mut cells = Vec::new();
    for (r, board) in runs.iter().zip(boards) {
        let (f, level) =
            if by_board { ("board", board.clone()) } else { ("run", r.id.to_string()) };
        cells.extend(r.cells.iter().map(|c| {
            let mut c = c.clone();
            c.key.factors.insert(f.to_string(), level.clone());
            c
        }));
    }
    let ids: Vec<String> = runs.iter().map(|r| r.id.to_string()).collect();
    (format!("runs {}", ids.join(", ")), cells)
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
fn parse_filters(
    what: &str,
    all: &[CellResult],
    given: &[String],
) -> Result<BTreeMap<String, Vec<String>>> {
    let cells: Vec<&CellResult> = all.iter().collect();
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
                "--where {w}: {what} has no factor '{f}'; it has {}",
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
                "--where {w}: factor {f} of {what} has no level '{l}'; it has {}",
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
    what: &str,
    cells: &[&CellResult],
    view: &effects::EffectsView,
) -> Result<()> {
    let matching = if view.filters.is_empty() { "" } else { " matching --where" };
    if !cells.iter().any(|c| matches!(c.outcome, CellOutcome::Measured(_))) {
        return Err(bad(format!(
            "{what} has no measured cells{matching} ({} failed, {} n/a): nothing to analyse",
            view.cells_failed, view.cells_not_applicable
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
        return Err(bad(format!("{what}: {}", why.join("; "))));
    }
    Err(bad(format!(
        "{what} varies no factor: {}; measure a run with two or more levels of a factor, e.g. \
         `icbench run -L pipe -L unix -s 64,1K`, or a plan that varies one",
        why.join("; ")
    )))
}
