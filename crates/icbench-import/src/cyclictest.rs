//! cyclictest (rt-tests; shared/references 004 used it) results: the
//! `--json` file and the histogram text of `-h`/`--histfile`
//! (research/linux-ipc-rt-anchors.md §1.2). Each thread becomes a `timer`
//! cell; bucket keys are µs (ns when `resolution_in_ns` is 1).
//!
//! icbench's own `timer`/`irq --json` is the same envelope with a top-level
//! `pattern` and, per thread, an `icbench` object (the cell's label and
//! factors): an `irq` file comes back as `irq` cells keyed as `icbench irq`
//! stores them (issue #21: imported the same way as the other patterns).
//!
//! Flagged: samples beyond the histogram's range (overflows: they are not in
//! the percentiles, and the tool's max is larger than the histogram's), and
//! histogram counts that disagree with the thread's cycle count.

use icbench_model::Pattern;
use serde_json::Value;

use crate::{ImportError, Imported, Options, hist_cell, num};

fn link(opts: &Options, thread: &str, cpu: Option<i64>) -> String {
    let base = opts.link.clone().unwrap_or_else(|| "cyclictest".to_string());
    match cpu {
        Some(c) => format!("{base} thread {thread} (CPU {c})"),
        None => format!("{base} thread {thread}"),
    }
}

/// A bucket index (µs or ns) as ns, at the bucket's middle for µs;
/// saturating, so that an index past u64::MAX ÷ 1000 µs (a fuzzed file's
/// 4331666666666666666) lands in the histogram's clamped top instead of
/// overflowing (issue #30, found by the `import` fuzz target).
fn bucket_ns(index: u64, ns_resolution: bool) -> u64 {
    if ns_resolution { index } else { index.saturating_mul(1000).saturating_add(500) }
}

pub fn parse_json(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| ImportError::Input(format!("not JSON: {e}")))?;
    let mut imp = Imported::default();
    // rt-tests writes "cmdline:" and "rt_test_version:" with the colon in the key.
    for key in ["cmdline:", "cmdline"] {
        if let Some(c) = v.get(key).and_then(Value::as_str) {
            imp.notes.push(format!("command line: {c}"));
        }
    }
    for key in ["rt_test_version:", "rt_test_version"] {
        if let Some(c) = v.get(key).and_then(Value::as_str) {
            imp.notes.push(format!("rt-tests {c}"));
        }
    }
    if let Some(sys) = v.get("sysinfo") {
        imp.hostname = sys.get("nodename").and_then(Value::as_str).map(String::from);
        imp.kernel_release = sys.get("release").and_then(Value::as_str).map(String::from);
        if let Some(rt) = sys.get("realtime").and_then(Value::as_i64) {
            imp.notes.push(format!("/sys/kernel/realtime = {rt}"));
        }
    }
    let ns = v.get("resolution_in_ns").and_then(Value::as_i64) == Some(1);
    let threads = v.get("thread").and_then(Value::as_object).ok_or_else(|| {
        ImportError::Input("no \"thread\" object: not cyclictest --json output".into())
    })?;
    let pattern = match v.get("pattern").and_then(Value::as_str) {
        Some("irq") => Pattern::Irq,
        _ => Pattern::Timer,
    };
    // A cell a thread: bounded before any histogram is made.
    crate::check_cells(threads.len())?;
    for (id, t) in threads {
        let mut buckets = Vec::new();
        if let Some(h) = t.get("histogram").and_then(Value::as_object) {
            for (k, c) in h {
                let idx: u64 = num(k, 0, "histogram bucket")?;
                let count = c.as_u64().ok_or_else(|| {
                    ImportError::Input(format!("thread {id}: bucket {k} count is not a number"))
                })?;
                buckets.push((bucket_ns(idx, ns), count));
            }
        }
        let counted = buckets.iter().fold(0u64, |s, b| s.saturating_add(b.1));
        let cycles = t.get("cycles").and_then(Value::as_u64);
        let max = t.get("max").and_then(Value::as_u64);
        let own = t.get("icbench");
        let l = match (pattern, own.and_then(|o| o.get("label")).and_then(Value::as_str)) {
            (Pattern::Irq, Some(label)) => opts.link.clone().unwrap_or_else(|| label.to_string()),
            (Pattern::Irq, None) => {
                return Err(ImportError::Input(format!(
                    "thread {id}: an irq file without its \"icbench\" label: not `icbench irq \
                     --json` output"
                )));
            }
            _ => link(opts, id, t.get("cpu").and_then(Value::as_i64)),
        };
        if let Some(c) = cycles
            && c != counted
        {
            imp.warnings.push(format!(
                "{l}: {c} cycles but {counted} in the histogram: {} samples beyond its range are \
                 missing from the percentiles{}",
                c.saturating_sub(counted),
                max.map(|m| format!(" (the tool's max is {m} {})", if ns { "ns" } else { "µs" }))
                    .unwrap_or_default()
            ));
        }
        if buckets.is_empty() {
            imp.warnings.push(format!("{l}: no histogram (run cyclictest with -h): no statistics"));
            continue;
        }
        let mut cell = hist_cell(&l, pattern, 0, &buckets)?;
        if let Some(f) = own.and_then(|o| o.get("factors")).and_then(Value::as_object) {
            for (k, v) in f {
                cell.key = cell.key.with(k, v.as_str().map(String::from).unwrap_or(v.to_string()));
            }
        }
        imp.push(cell)?;
    }
    imp.notes.push(format!(
        "{} in whole {} bins, each value at its bin's middle",
        if pattern == Pattern::Irq {
            "icbench irq GPIO loopback intervals"
        } else {
            "cyclictest wake-up latency"
        },
        if ns { "ns" } else { "µs" }
    ));
    Ok(imp)
}

pub fn parse_hist(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let mut imp = Imported::default();
    let mut columns: Vec<Vec<(u64, u64)>> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let no = i + 1;
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix('#') {
            let rest = rest.trim();
            if let Some(o) = rest.strip_prefix("Histogram Overflows:") {
                for (th, n) in o.split_whitespace().enumerate() {
                    let n: u64 = num(n, no, "overflow count")?;
                    if n > 0 {
                        imp.warnings.push(format!(
                            "thread {th}: {n} samples overflowed the histogram: they are missing \
                             from the percentiles, and the real max is larger"
                        ));
                    }
                }
            } else if let Some(m) = rest.strip_prefix("Max Latencies:") {
                imp.notes.push(format!("cyclictest max latencies (µs): {}", m.trim()));
            }
            continue;
        }
        let mut it = t.split_whitespace();
        let idx: u64 = num(it.next().unwrap_or(""), no, "bucket")?;
        for (th, c) in it.enumerate() {
            let c: u64 = num(c, no, "count")?;
            if columns.len() <= th {
                columns.resize_with(th + 1, Vec::new);
            }
            if c > 0 {
                columns[th].push((bucket_ns(idx, false), c));
            }
        }
    }
    // cyclictest writes its summary after the bins: a file without it was
    // cut short, and its upper bins (the tail) are missing (issue #22).
    if !text.lines().any(|l| l.trim_start().starts_with("# Max Latencies:")) {
        imp.warnings.push(
            "no '# Max Latencies:' summary after the bins: the file is cut short (cyclictest \
             writes it last), so the tail of the distribution may be missing"
                .to_string(),
        );
    }
    // A cell a column: bounded before any histogram is made.
    crate::check_cells(columns.iter().filter(|b| !b.is_empty()).count())?;
    for (th, b) in columns.iter().enumerate() {
        if !b.is_empty() {
            imp.push(hist_cell(&link(opts, &th.to_string(), None), Pattern::Timer, 0, b)?)?;
        }
    }
    imp.notes.push(
        "cyclictest histogram text: whole-µs bins, each value at its bin's middle; with -H the \
         last column is the total over all threads"
            .to_string(),
    );
    Ok(imp)
}
