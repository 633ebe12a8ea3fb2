//! `icbench plan check FILE` and `icbench run --plan FILE --dry-run`: read a
//! plan file, expand it, and say what it would measure and for how long —
//! or name the line of what is wrong.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use icbench_plan::{Order, Plan, PlanCell, estimate};

use crate::cli::PlanCheckArgs;
use crate::error::bad;

/// The largest plan file: every example plan is under 4 KiB.
pub(crate) const MAX_PLAN_BYTES: u64 = 1 << 20;

/// Reads and expands a plan file; an error names the file and the line.
/// Also says whether the file gave the seed.
pub(crate) fn load(path: &Path, ctx: &icbench_plan::Context) -> Result<(Plan, bool)> {
    let src = crate::files::read_text(path, MAX_PLAN_BYTES, "plan")?;
    icbench_plan::parse(&src)
        .and_then(|f| Ok((icbench_plan::expand(&f, ctx)?, f.seed.is_some())))
        .map_err(|e| bad(format!("{}: {e}", path.display())))
}

pub fn check(a: &PlanCheckArgs) -> Result<ExitCode> {
    let cell_time =
        crate::sizes::duration(&a.cell_time).map_err(|e| bad(format!("--cell-time: {e}")))?;
    let ctx = icbench_plan::Context {
        online: icbench_engine::cpu::CpuList::usable().cpus,
        default_cell_time: cell_time,
        seed_if_absent: 0,
    };
    let (plan, seeded) = load(&a.file, &ctx)?;
    let mut out = crate::term::stdout();
    print(&plan, &a.file.display().to_string(), seeded, a.json, &mut out)?;
    Ok(ExitCode::SUCCESS)
}

/// A factor's level in a cell, as stored.
fn level(c: &PlanCell, factor: &str) -> String {
    match factor {
        "pattern" => c.pattern.as_str().to_string(),
        "size" => c.size_bytes.to_string(),
        "blocks" => c.blocks.map(|b| b.to_string()).unwrap_or_default(),
        "link" => c.factors.get("link").cloned().unwrap_or_else(|| c.link.clone()),
        f => c.factors.get(f).cloned().unwrap_or_default(),
    }
}

/// What a plan measures, its order and its estimated duration.
/// `seeded`: the seed is the plan's own (otherwise each run draws one, and
/// the order shown is one example).
pub(crate) fn print(
    plan: &Plan,
    source: &str,
    seeded: bool,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let cell_time = Duration::from_nanos(plan.cell_time_ns);
    let est = estimate::estimate(&plan.cells, cell_time);
    if json {
        let v = serde_json::json!({
            "source": source,
            "estimated_s": est.as_secs_f64(),
            "order_generator": icbench_plan::order::ORDER_GENERATOR,
            "plan": plan,
        });
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
        return Ok(());
    }
    let name = plan.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
    let source = if source == "flags" { "from the flags" } else { source };
    let width = icbench_report::table::text_width();
    let head = format!("plan {source}{name}");
    writeln!(out, "{}", icbench_report::format::hanging(&head, 2, width))?;
    let treatments = plan.cells.len() / plan.repetitions.max(1) as usize;
    let order = match plan.order {
        Order::Random if seeded => format!("random order (seed {})", plan.seed),
        Order::Random => format!(
            "random order (no seed in the plan: each run draws one and records it; below, seed {})",
            plan.seed
        ),
        Order::Listed => "listed order".to_string(),
    };
    // Each line of the summary wraps to the text width, its continuation
    // indented under its first word.
    let line = |out: &mut dyn Write, text: String| {
        writeln!(out, "  {}", icbench_report::format::hanging(&text, 4, width))
    };
    line(
        out,
        format!(
            "{} blocks: {treatments} cells × {} repetition(s), {order}",
            plan.cells.len(),
            plan.repetitions
        ),
    )?;
    let varied: Vec<String> = plan
        .varied
        .iter()
        .map(|f| {
            let n: BTreeSet<String> =
                plan.cells.iter().map(|c| level(c, f)).filter(|l| !l.is_empty()).collect();
            format!("{f} ({} levels)", n.len())
        })
        .collect();
    line(
        out,
        format!(
            "varied: {}",
            if varied.is_empty() { "nothing".to_string() } else { varied.join(", ") }
        ),
    )?;
    let budget = plan
        .budget_ns
        .map(|b| format!("; budget {}", estimate::human(Duration::from_nanos(b))))
        .unwrap_or_default();
    line(
        out,
        format!(
            "cell time {}; estimated duration {} (1.25 cell times per cell, {} ms per peer \
             start){budget}",
            icbench_report::format::ns(plan.cell_time_ns as f64),
            estimate::human(est),
            estimate::SESSION_START.as_millis()
        ),
    )?;
    if plan.budget_ns.is_some_and(|b| est > Duration::from_nanos(b)) {
        line(
            out,
            "note: the estimate exceeds the budget; the run stops when the budget is spent \
             and `icbench run --resume RUN` goes on"
                .to_string(),
        )?;
    }
    cells(plan, out)
}

/// The first cells, in run order.
fn cells(plan: &Plan, out: &mut dyn Write) -> Result<()> {
    const SHOWN: usize = 20;
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::NOTHING);
    t.set_header(["#", "link", "pattern", "size", "channels", "cpus", "factors"]);
    for c in plan.cells.iter().take(SHOWN) {
        let rest: Vec<String> = c
            .factors
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "channels" | "cpus" | "link" | "direction"))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        t.add_row([
            c.index.to_string(),
            c.link.clone(),
            match &c.direction {
                Some(d) => format!("{} {d}", c.pattern),
                None => c.pattern.as_str().to_string(),
            },
            icbench_report::format::bytes(c.size_bytes),
            c.channels.to_string(),
            c.cpus.map(|(h, p)| format!("{h}→{p}")).unwrap_or_else(|| "run's".into()),
            rest.join(" "),
        ]);
    }
    writeln!(out, "{t}")?;
    if plan.cells.len() > SHOWN {
        writeln!(out, "  … and {} more cells", plan.cells.len() - SHOWN)?;
    }
    Ok(())
}
