//! A cell's disturbance as the renderers show it: the counters the engine
//! read around the cell and, when a threshold was crossed, what disturbed
//! it in words (issue #15; thresholds: `icbench_stats::disturbance`,
//! docs/method.md "Disturbance").

use icbench_model::{CellData, Disturbance};
use serde::Serialize;

/// The counters of a measured cell, with the verdict.
#[derive(Debug, Clone, Serialize)]
pub struct DisturbanceView {
    #[serde(flatten)]
    pub counters: Disturbance,
    /// Whether any threshold was crossed.
    pub disturbed: bool,
    /// What crossed it, one phrase each ("host thread preempted: …").
    pub causes: Vec<String>,
}

impl DisturbanceView {
    /// The view of a measured cell; `None` when it has no counters
    /// (imported, or measured before icbench kept them).
    pub fn of(d: &CellData) -> Option<DisturbanceView> {
        let counters = d.disturbance?;
        let causes: Vec<String> =
            icbench_stats::disturbance::causes(&counters).iter().map(ToString::to_string).collect();
        Some(DisturbanceView { counters, disturbed: !causes.is_empty(), causes })
    }
}

/// The mark a disturbed cell's figure carries in the tables.
pub const MARK: &str = "!";

/// `MARK` after a figure when the cell was disturbed or its replicate
/// blocks disagree.
pub fn marked(
    figure: String,
    d: &Option<DisturbanceView>,
    r: &Option<crate::replicates::ReplicatesView>,
) -> String {
    let disturbed = d.as_ref().is_some_and(|v| v.disturbed);
    let disagree = r.as_ref().is_some_and(|r| r.disagree);
    if disturbed || disagree { format!("{figure} {MARK}") } else { figure }
}

/// One line per disturbed cell of a run: the cell and what disturbed it.
pub fn footnotes(view: &crate::RunView) -> Vec<String> {
    use crate::format::bytes;
    use crate::table::{link_label, link_name, with_factors};
    let mut out = Vec::new();
    let mut add = |what: String, d: &Option<DisturbanceView>| {
        if let Some(v) = d.as_ref().filter(|v| v.disturbed) {
            out.push(format!("{MARK} {what}: {}", v.causes.join("; ")));
        }
    };
    let mut disagree = Vec::new();
    let mut blocks = |what: String, r: &Option<crate::replicates::ReplicatesView>| {
        if let Some(r) = r.as_ref().filter(|r| r.disagree) {
            disagree.push(format!("{MARK} {what}: {}", crate::replicates::disagreement(r)));
        }
    };
    for r in &view.pingpong {
        let link =
            with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
        blocks(format!("pingpong {link} {}", bytes(r.size_bytes)), &r.replicates);
    }
    for r in &view.stream {
        let link =
            with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
        blocks(format!("stream {link} {} {}", bytes(r.size_bytes), r.direction), &r.replicates);
    }
    for r in &view.oneway {
        blocks(format!("oneway {} {} {}", r.link, bytes(r.size_bytes), r.direction), &r.replicates);
    }
    for r in &view.pingpong {
        let link =
            with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
        add(format!("pingpong {link} {}", bytes(r.size_bytes)), &r.disturbance);
    }
    for r in &view.stream {
        let link =
            with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
        add(format!("stream {link} {} {}", bytes(r.size_bytes), r.direction), &r.disturbance);
    }
    for r in &view.oneway {
        add(format!("oneway {} {} {}", r.link, bytes(r.size_bytes), r.direction), &r.disturbance);
    }
    for r in &view.bulk {
        let size = format!("{}×{}", bytes(r.block_bytes), r.blocks);
        add(format!("bulk {} {size}", link_name(&r.link, &r.protocol)), &r.disturbance);
    }
    out.extend(disagree);
    out
}

/// The counters of every cell that has them, for `icbench show --stats`:
/// one row per cell, host and peer side by side ("–": not offered here).
pub fn counters_rows(view: &crate::RunView) -> Vec<Vec<String>> {
    use crate::format::{bytes, ns};
    use crate::table::{link_label, link_name, with_factors};
    let mut cells: Vec<(String, String, String, &DisturbanceView)> = Vec::new();
    for r in &view.pingpong {
        if let Some(d) = &r.disturbance {
            let link =
                with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
            cells.push(("pingpong".into(), link, bytes(r.size_bytes), d));
        }
    }
    for r in &view.stream {
        if let Some(d) = &r.disturbance {
            let link =
                with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
            cells.push((format!("stream {}", r.direction), link, bytes(r.size_bytes), d));
        }
    }
    for r in &view.oneway {
        if let Some(d) = &r.disturbance {
            cells.push((format!("oneway {}", r.direction), r.link.clone(), bytes(r.size_bytes), d));
        }
    }
    for r in &view.bulk {
        if let Some(d) = &r.disturbance {
            let size = format!("{}×{}", bytes(r.block_bytes), r.blocks);
            cells.push(("bulk".into(), link_name(&r.link, &r.protocol), size, d));
        }
    }
    let pair = |h: Option<u64>, p: Option<u64>, f: &dyn Fn(u64) -> String| {
        let one = |v: Option<u64>| v.map_or("–".to_string(), f);
        format!("{} / {}", one(h), one(p))
    };
    let count = |v: u64| v.to_string();
    let time = |v: u64| if v == 0 { "0".to_string() } else { ns(v as f64) };
    cells
        .into_iter()
        .map(|(pattern, link, size, d)| {
            let (h, p) = (&d.counters.host, &d.counters.peer);
            vec![
                pattern,
                link,
                size,
                ns(d.counters.span_ns as f64),
                pair(h.steal_ns, p.steal_ns, &time),
                pair(h.runq_wait_ns, p.runq_wait_ns, &time),
                pair(h.involuntary_switches, p.involuntary_switches, &count),
                pair(h.voluntary_switches, p.voluntary_switches, &count),
                pair(h.migrations, p.migrations, &count),
                pair(h.interrupts, p.interrupts, &count),
                pair(h.softirqs, p.softirqs, &count),
                if d.disturbed { MARK.to_string() } else { String::new() },
            ]
        })
        .collect()
}

/// The header of [`counters_rows`].
pub const COUNTERS_HEADER: [&str; 12] = [
    "pattern",
    "link",
    "size",
    "span",
    "steal\nhost / peer",
    "run-queue wait\nhost / peer",
    "preempted\nhost / peer",
    "blocked\nhost / peer",
    "migrations\nhost / peer",
    "interrupts\nhost / peer",
    "softirqs\nhost / peer",
    "",
];

/// The report's section: every cell's counters and the disturbed cells
/// with their causes (nothing when no cell has counters).
pub fn html(h: &mut String, view: &crate::RunView) {
    use crate::svg::esc;
    use std::fmt::Write;
    let rows = counters_rows(view);
    if rows.is_empty() {
        return;
    }
    h.push_str(
        "<h3>Disturbance per cell</h3><p>The kernel's counters over each cell, host / peer \
         (– where this machine does not offer one); ! marks a disturbed cell \
         (thresholds: docs/method.md).</p><table><tr>",
    );
    for (i, c) in COUNTERS_HEADER.iter().enumerate() {
        let class = if i < 2 { " class=\"l\"" } else { "" };
        let _ = write!(h, "<th{class}>{}</th>", esc(&c.replace('\n', " ")));
    }
    h.push_str("</tr>");
    for r in rows {
        h.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let class = if i < 2 { " class=\"l\"" } else { "" };
            let _ = write!(h, "<td{class}>{}</td>", esc(c));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    let notes = footnotes(view);
    if !notes.is_empty() {
        h.push_str("<ul class=\"disturbed\">");
        for n in notes {
            let _ = write!(h, "<li>{}</li>", esc(&n));
        }
        h.push_str("</ul>");
    }
}

/// A cell whose measured phase the engine's message cap cut short.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CutView {
    /// The cap it stopped at, messages.
    pub at_messages: u64,
    /// How long it measured, ns (less than the cell time).
    pub measured_ns: u64,
}

impl CutView {
    pub fn of(d: &CellData) -> Option<CutView> {
        d.cut_at_messages.map(|at_messages| CutView { at_messages, measured_ns: d.elapsed_ns })
    }
}

/// One line per cell cut short of its cell time.
pub fn cut_lines(view: &crate::RunView) -> Vec<String> {
    use crate::format::bytes;
    let mut out = Vec::new();
    let mut add = |what: String, c: &Option<CutView>| {
        if let Some(c) = c {
            out.push(format!(
                "{what}: stopped at the cap of {} messages after {:.2} s of measuring",
                c.at_messages,
                c.measured_ns as f64 / 1e9
            ));
        }
    };
    for r in &view.pingpong {
        add(format!("pingpong {} {}", r.link, bytes(r.size_bytes)), &r.cut);
    }
    for r in &view.stream {
        add(format!("stream {} {} {}", r.link, bytes(r.size_bytes), r.direction), &r.cut);
    }
    for r in &view.oneway {
        add(format!("oneway {} {} {}", r.link, bytes(r.size_bytes), r.direction), &r.cut);
    }
    for r in &view.bulk {
        add(format!("bulk {} {}×{}", r.link, bytes(r.block_bytes), r.blocks), &r.cut);
    }
    out
}

/// The floor at the tail against the head's, as shown.
#[derive(Debug, Clone, Serialize)]
pub struct FloorDriftView {
    /// Tail ÷ head cache-line round trip.
    pub cacheline_ratio: f64,
    /// Tail ÷ head memcpy bandwidth.
    pub memcpy_ratio: f64,
    /// Whether either moved past its bound (docs/method.md).
    pub unstable: bool,
    /// What moved past it.
    pub causes: Vec<String>,
}

impl FloorDriftView {
    pub fn of(meta: &icbench_model::RunMeta) -> Option<FloorDriftView> {
        let (head, tail) = (meta.floor.as_ref()?, meta.floor_tail.as_ref()?);
        let d = icbench_stats::disturbance::floor_drift(
            head.cacheline_rtt_ns,
            head.memcpy_bytes_per_s,
            tail.cacheline_rtt_ns,
            tail.memcpy_bytes_per_s,
        );
        Some(FloorDriftView {
            cacheline_ratio: d.cacheline_ratio,
            memcpy_ratio: d.memcpy_ratio,
            unstable: d.unstable(),
            causes: d.causes,
        })
    }

    /// The header's lines on the floor at the tail: the figures, and the
    /// verdict when the run is unstable.
    pub fn lines(&self, tail: &icbench_model::FloorTail) -> Vec<String> {
        use icbench_stats::disturbance::{CACHELINE_DRIFT, MEMCPY_DRIFT};
        let figures = format!(
            "floor at the tail: cache-line round trip {} ({:.2}× the head's) · memcpy {} ({:.2}×)",
            crate::format::ns(tail.cacheline_rtt_ns),
            self.cacheline_ratio,
            crate::format::rate(tail.memcpy_bytes_per_s, "B/s"),
            self.memcpy_ratio
        );
        if self.unstable {
            vec![
                figures,
                format!(
                    "UNSTABLE: the machine changed under the run ({}); its figures may not \
                     reproduce",
                    self.causes.join("; ")
                ),
            ]
        } else {
            vec![format!("{figures}: stable (within {CACHELINE_DRIFT}× and {MEMCPY_DRIFT}×)")]
        }
    }
}
