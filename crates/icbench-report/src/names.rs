//! The words every renderer names things by (issue #29 item 1): a link's
//! label with its protocol, channels and factors, the clock line, a CPU
//! pair's entry. Below the view, so that the marks and the renderers share
//! them without importing one another.

use crate::format;
use crate::pairs::{CpuPairMatrix, PairValue};

/// The link column: the spec, and the wire protocol when it is not
/// icbench's own.
pub fn link_name(link: &str, protocol: &Option<String>) -> String {
    match protocol {
        Some(p) => format!("{link} · {p}"),
        None => link.to_string(),
    }
}

/// A link's label in tables: the spec, with the channel count when several.
pub fn link_label(link: &str, channels: Option<u32>) -> String {
    match channels {
        Some(n) if n > 1 => format!("{link} ×{n} ch"),
        _ => link.to_string(),
    }
}

/// A label with every factor, the direction too: for the tables without a
/// direction column (ping-pong, bulk), whose on-chip cells have one.
pub fn with_all_factors(
    label: String,
    factors: &std::collections::BTreeMap<String, String>,
) -> String {
    match factors.get("direction") {
        Some(d) => with_factors(format!("{label} {d}"), factors),
        None => with_factors(label, factors),
    }
}

/// A label with the cell's factors, for cells a plan tells apart by more
/// than link and size (`unix [cpus=1,0 rep=2]`). The declared link and
/// the channel count are in the label already, the direction in a column
/// of its own.
pub fn with_factors(label: String, factors: &std::collections::BTreeMap<String, String>) -> String {
    let f: Vec<String> = factors
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "link" | "channels" | "direction"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if f.is_empty() { label } else { format!("{label} [{}]", f.join(" ")) }
}

/// "CLOCK_MONOTONIC_RAW (one read costs 18 ns, readings step by 1 ns)"; a
/// clock icbench does not read itself (a chip's timer) has no cost here.
pub fn clock_line(m: &icbench_model::RunMeta) -> String {
    let mut parts = Vec::new();
    if m.clock_overhead_ns > 0.0 {
        parts.push(format!("one read costs {}", format::ns(m.clock_overhead_ns)));
    }
    if m.clock_granule_ns.is_finite() {
        parts.push(format!("readings step by {}", format::ns(m.clock_granule_ns)));
    }
    if parts.is_empty() { m.clock.clone() } else { format!("{} ({})", m.clock, parts.join(", ")) }
}

/// An entry of a CPU-pair matrix as text: the value with its unit, `n/a`
/// on the diagonal, `–` for a pair without cells, `failed` for a pair
/// whose cells all failed.
pub fn pair_text(m: &CpuPairMatrix, i: usize, j: usize) -> String {
    if i == j {
        return "n/a".to_string();
    }
    match &m.matrix[i][j] {
        None => "–".to_string(),
        Some(PairValue { value: None, .. }) => "failed".to_string(),
        Some(PairValue { value: Some(v), .. }) if m.is_latency() => format::ns(*v),
        Some(PairValue { value: Some(v), .. }) => format::rate(*v, m.unit),
    }
}

/// The heading of a CPU-pair matrix: the group, what the entries are, and
/// how repetitions were combined.
pub fn pair_heading(m: &CpuPairMatrix) -> String {
    let reps = match m.max_cells() {
        0 | 1 => String::new(),
        n => format!("; median over up to {n} repeated cells"),
    };
    format!("{}: {} per CPU pair (rows: host CPU, columns: peer CPU){reps}", m.title(), m.what())
}
