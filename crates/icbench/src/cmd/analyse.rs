//! `icbench model` and `icbench compare`: conclusions from stored runs. The
//! arithmetic is in icbench-stats and the view models in icbench-report; this
//! module resolves the arguments and picks the renderer.

use std::process::ExitCode;

use std::io::Write;

use anyhow::{Context, Result};
use icbench_model::CellResult;
use icbench_report::compare::{Input, Side};
use icbench_report::model::ModelFilter;
use icbench_store::StoredRun;

use crate::cli::{CompareArgs, ExportArgs, ExportFormat, ModelArgs, ReportArgs};
use crate::cmd::show::{load_view, open_reading};
use crate::error::bad;

fn json_out(v: &impl serde::Serialize) -> Result<()> {
    let mut out = crate::term::stdout();
    serde_json::to_writer_pretty(&mut out, v)?;
    writeln!(out)?;
    Ok(())
}

pub fn model(a: &ModelArgs) -> Result<ExitCode> {
    let store = open_reading(&a.db.db)?;
    let (run, view) = load_view(&store, &a.db.db, &a.run)?;
    if let Some(p) = &a.pattern
        && !["pingpong", "stream", "bulk"].contains(&p.as_str())
    {
        return Err(bad(format!("--pattern {p}: use pingpong, stream or bulk")));
    }
    for l in &a.links {
        if !run.cells.iter().any(|c| &c.key.link == l) {
            let mut known: Vec<&str> = run.cells.iter().map(|c| c.key.link.as_str()).collect();
            known.dedup();
            return Err(bad(format!(
                "--link {l}: run {} has no such link; it has {}",
                run.id,
                known.join(", ")
            )));
        }
    }
    let predict = a
        .predict
        .as_deref()
        .map(|s| crate::sizes::parse_one(s).map_err(|e| bad(format!("--predict: {e}"))))
        .transpose()?;
    let where_ = a
        .where_
        .iter()
        .map(|w| match w.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(bad(format!("--where {w:?}: give FACTOR=LEVEL, e.g. transfer=10000000"))),
        })
        .collect::<Result<Vec<_>>>()?;
    let filter = ModelFilter {
        links: a.links.clone(),
        pattern: a.pattern.clone(),
        predict,
        crossover: a.crossover,
        where_,
    };
    let mv = icbench_report::model::build(&view, &filter);
    if a.db.json {
        json_out(&mv)?;
    } else {
        icbench_report::table::model(&mv, &mut crate::term::stdout())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn side(label: String, run: &StoredRun, link: Option<String>, board: Option<String>) -> Side {
    Side {
        label,
        run_id: run.id.0,
        source: run.source.to_string(),
        hostname: run.meta.hostname.clone(),
        cpu_model: run.meta.cpu_model.clone(),
        link,
        board: board.filter(|b| *b != run.meta.hostname),
    }
}

fn label(i: usize) -> String {
    let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    letters.get(i..=i).map_or_else(|| format!("R{}", i + 1), str::to_string)
}

pub fn compare(a: &CompareArgs) -> Result<ExitCode> {
    let store = open_reading(&a.db.db)?;
    let mut runs = Vec::new();
    if let Some(name) = &a.baseline {
        // The baseline first; without runs given, against the latest.
        let id = crate::cmd::show::latest_labelled(&store, name)?;
        runs.push(load_view(&store, &a.db.db, &id.0.to_string())?.0);
        if a.runs.is_empty() {
            runs.push(load_view(&store, &a.db.db, "latest")?.0);
        }
    }
    for r in &a.runs {
        runs.push(load_view(&store, &a.db.db, r)?.0);
    }
    let by_link = !a.links.is_empty();
    let inputs: Vec<Input<'_>> = if by_link {
        if runs.len() != 1 || a.links.len() < 2 {
            return Err(bad(format!(
                "compare --link: give one run and at least two links (got {} runs, {} links): \
                 icbench compare 3 --link pipe --link unix",
                runs.len(),
                a.links.len()
            )));
        }
        let run = &runs[0];
        a.links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let cells: Vec<&CellResult> =
                    run.cells.iter().filter(|c| &c.key.link == l).collect();
                if cells.is_empty() {
                    return Err(bad(format!("--link {l}: run {} has no such link", run.id)));
                }
                Ok(Input { side: side(label(i), run, Some(l.clone()), None), cells })
            })
            .collect::<Result<_>>()?
    } else {
        if runs.len() < 2 {
            return Err(bad(
                "compare needs two runs (icbench compare 3 4), or one run and two --link",
            ));
        }
        // A run against itself shows nothing (issue #29: `--baseline base`
        // with base the latest run compared it with itself, 1.00×).
        for (i, r) in runs.iter().enumerate() {
            if runs[..i].iter().any(|e| e.id == r.id) {
                return Err(bad(format!(
                    "compare: run {} is given twice (a --baseline is compared with the latest run \
                     unless runs are given): name another run to compare it with",
                    r.id
                )));
            }
        }
        runs.iter()
            .enumerate()
            .map(|(i, r)| {
                // A merged run names its board (`merge --board`) beside its host.
                let origin = store.origin(r.id).ok().flatten();
                let board = crate::cmd::effects::board_of(origin.as_deref(), r);
                Input {
                    side: side(label(i), r, None, Some(board)),
                    cells: r.cells.iter().collect(),
                }
            })
            .collect()
    };
    let limit = a.fail_if_slower.as_deref().map(percent).transpose()?;
    let cv = icbench_report::compare::build(&inputs, by_link);
    if a.db.json {
        json_out(&cv)?;
    } else {
        icbench_report::table::compare(&cv, &mut crate::term::stdout())?;
    }
    // For a firmware team's CI (issue #29): exit 1 when a cell is shown
    // slower than its baseline by more than the limit.
    if let Some(pct) = limit {
        let slower: Vec<String> = cv
            .rows
            .iter()
            .filter(|r| r.change == "slower" && r.slower_by() > 1.0 + pct / 100.0)
            .map(|r| {
                let size = icbench_report::format::bytes(r.size_bytes);
                format!("{} {} {size}: {}", r.link, r.pattern, r.in_words())
            })
            .collect();
        if !slower.is_empty() {
            crate::say::say(&format!(
                "--fail-if-slower {pct}%: {} cell{} shown slower than the baseline by more: {}",
                slower.len(),
                if slower.len() == 1 { "" } else { "s" },
                slower.join("; ")
            ));
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `10%`, `10` or `2.5 %` as a percentage, at least 0.
fn percent(text: &str) -> Result<f64> {
    let v: Option<f64> = text.trim().trim_end_matches('%').trim().parse().ok();
    match v {
        Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(bad(format!(
            "--fail-if-slower {text}: give a percentage of at least 0, e.g. 10% or 2.5"
        ))),
    }
}

/// Standard output, or a file created for the purpose.
pub(crate) fn output(path: Option<&std::path::Path>) -> Result<Box<dyn std::io::Write>> {
    Ok(match path {
        None => Box::new(crate::term::stdout()),
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p)
                .map_err(|e| bad(format!("-o {}: cannot create the file: {e}", p.display())))?,
        )),
    })
}

pub fn export(a: &ExportArgs) -> Result<ExitCode> {
    let store = open_reading(&a.db)?;
    let (run, view) = load_view(&store, &a.db, &a.run)?;
    let mut out = output(a.output.as_deref())?;
    let mut write = || -> Result<usize> {
        let n = match a.format {
            ExportFormat::Csv => icbench_report::export::csv(&view, &mut out).map(|()| 1)?,
            ExportFormat::Json => icbench_report::json::run(&view, &mut out).map(|()| 1)?,
            ExportFormat::Md => icbench_report::table::markdown(&view, &mut out).map(|()| 1)?,
            ExportFormat::Hgrm => {
                icbench_report::export::hgrm(run.id.0, &view.source, &run.cells, &mut out)?
            }
        };
        out.flush()?;
        Ok(n)
    };
    // Which file could not be written (a full disk said only "No space
    // left on device").
    let n = write().with_context(|| match &a.output {
        Some(p) => format!("-o {}: cannot write the export", p.display()),
        None => "writing the export to standard output".to_string(),
    })?;
    if n == 0 {
        crate::errln!("icbench: run {} has no latency histograms to export", run.id);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn report(a: &ReportArgs) -> Result<ExitCode> {
    let store = open_reading(&a.db)?;
    let mut loaded = Vec::new();
    for r in &a.runs {
        let (run, view) = load_view(&store, &a.db, r)?;
        let origin = store.origin(run.id).map_err(|e| bad(e.to_string()))?;
        let board = crate::cmd::effects::board_of(origin.as_deref(), &run);
        loaded.push((run, view, board));
    }
    let runs: Vec<icbench_report::html::ReportRun<'_>> = loaded
        .iter()
        .map(|(run, view, board)| icbench_report::html::ReportRun {
            view: view.clone(),
            cells: &run.cells,
            board: Some(board.clone()),
        })
        .collect();
    let compare = (runs.len() > 1).then(|| {
        icbench_report::compare::build(&icbench_report::html::compare_inputs(&runs), false)
    });
    let rep = icbench_report::html::build(&runs, compare.as_ref());
    std::fs::write(&a.output, &rep.html)
        .map_err(|e| bad(format!("-o {}: cannot write the report: {e}", a.output.display())))?;
    if let Some(dir) = &a.svg {
        std::fs::create_dir_all(dir).map_err(|e| {
            bad(format!("--svg {}: cannot create the directory: {e}", dir.display()))
        })?;
        for (name, svg) in &rep.figures {
            let p = dir.join(format!("{name}.svg"));
            std::fs::write(&p, svg)
                .map_err(|e| bad(format!("--svg: cannot write {}: {e}", p.display())))?;
        }
    }
    crate::errln!(
        "icbench: wrote {} ({} figures{})",
        a.output.display(),
        rep.figures.len(),
        a.svg
            .as_ref()
            .map(|d| format!(", also as SVG files in {}", d.display()))
            .unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}
