//! JSON for scripts: the view model as it is, with its `schema_version`.

use std::io::Write;

use crate::RunView;

pub fn run(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, view)?;
    writeln!(out)
}

/// One finished cell as one line of JSON, for `icbench run --json-stream`
/// (scripts and dashboards follow a run as it goes). `index` is the cell's
/// place in the plan, `of` the plan's size. Latencies are ns, rates per s.
pub fn cell_line(
    run: i64,
    index: u32,
    of: usize,
    cell: &icbench_model::CellResult,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    use icbench_model::CellOutcome;
    let k = &cell.key;
    let mut v = serde_json::json!({
        "event": "cell",
        "run": run,
        "index": index,
        "of": of,
        "link": k.link,
        "pattern": k.pattern.as_str(),
        "size_bytes": k.size_bytes,
        "status": cell.outcome.status_str(),
    });
    let o = v.as_object_mut().expect("an object");
    if let Some(p) = &k.protocol {
        o.insert("protocol".into(), p.as_str().into());
    }
    if let Some(b) = k.blocks {
        o.insert("blocks".into(), b.into());
    }
    if !k.factors.is_empty() {
        o.insert("factors".into(), serde_json::to_value(&k.factors)?);
    }
    match &cell.outcome {
        CellOutcome::Measured(d) => {
            o.insert("messages".into(), d.messages.into());
            o.insert("bytes".into(), d.bytes.into());
            o.insert("elapsed_ns".into(), d.elapsed_ns.into());
            o.insert("msgs_per_s".into(), d.msgs_per_s().into());
            o.insert("bytes_per_s".into(), d.bytes_per_s().into());
            if let Some(s) = d.latency.as_ref().and_then(icbench_stats::Summary::from_histogram) {
                o.insert(
                    format!("{}_ns", k.pattern.metric()),
                    serde_json::json!({
                        "count": s.count, "min": s.min, "mean": s.mean, "p50": s.p50,
                        "p90": s.p90, "p99": s.p99, "p99_9": s.p99_9, "max": s.max,
                    }),
                );
            }
        }
        CellOutcome::Failed { reason } => {
            o.insert("reason".into(), reason.as_str().into());
        }
        CellOutcome::NotApplicable { max_bytes } => {
            o.insert("max_bytes".into(), (*max_bytes).into());
        }
    }
    serde_json::to_writer(&mut *out, &v)?;
    writeln!(out)
}
