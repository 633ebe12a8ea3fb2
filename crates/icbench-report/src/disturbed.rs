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
    /// The link's own share of run-queue wait at each end, which is not
    /// counted as disturbance (issue #28 item 4); absent when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own_work: Option<icbench_stats::disturbance::OwnWork>,
}

impl DisturbanceView {
    /// The view of a measured cell; `None` when it has no counters
    /// (imported, or measured before icbench kept them).
    pub fn of(d: &CellData) -> Option<DisturbanceView> {
        Self::beyond(d, Default::default())
    }

    /// The view of a measured cell whose link does `own` work of its own
    /// at its ends (`icbench_stats::disturbance::own_work`).
    pub fn beyond(
        d: &CellData,
        own: icbench_stats::disturbance::OwnWork,
    ) -> Option<DisturbanceView> {
        let counters = d.disturbance?;
        let causes: Vec<String> = icbench_stats::disturbance::causes_beyond(&counters, own)
            .iter()
            .map(ToString::to_string)
            .collect();
        let own_work = (own != Default::default()).then_some(own);
        Some(DisturbanceView { counters, disturbed: !causes.is_empty(), causes, own_work })
    }
}

/// The mark a disturbed cell's figure carries in the tables.
pub const MARK: &str = "!";

/// `MARK` after a figure when the cell was disturbed, its replicate blocks
/// disagree or too few of them are usable for an interval.
pub fn marked(
    figure: String,
    d: &Option<DisturbanceView>,
    r: &Option<crate::replicates::ReplicatesView>,
) -> String {
    if is_marked(d, r) { format!("{figure} {MARK}") } else { figure }
}

/// Whether a cell carries [`MARK`]: disturbed, or its replicate blocks
/// marked ([`crate::replicates::ReplicatesView::marked`]). The tables, the
/// CSV's `marked` column and the report's figures (issue #29) ask this.
pub fn is_marked(
    d: &Option<DisturbanceView>,
    r: &Option<crate::replicates::ReplicatesView>,
) -> bool {
    d.as_ref().is_some_and(|v| v.disturbed) || r.as_ref().is_some_and(|r| r.marked())
}

/// A measured-pattern row of a run as the marks see it: how it is named
/// and what it carries. One walker ([`rows`]) serves the footnotes, the
/// counters table, the cut lines and the run's verdict.
pub(crate) struct Marked<'a> {
    /// `pingpong`, `stream`, `oneway`, `bulk`.
    pub pattern: &'static str,
    /// The row's direction where it has one (stream, oneway).
    pub direction: Option<&'a str>,
    /// The link with its protocol, channels and factors.
    pub link: String,
    /// The size (bulk: block × blocks).
    pub size: String,
    /// Measured (`ok`).
    pub ok: bool,
    pub disturbance: &'a Option<DisturbanceView>,
    pub cut: &'a Option<CutView>,
    pub replicates: &'a Option<crate::replicates::ReplicatesView>,
}

impl Marked<'_> {
    /// "stream pipe 64 B h2p".
    pub fn label(&self) -> String {
        match self.direction {
            Some(d) => format!("{} {} {} {d}", self.pattern, self.link, self.size),
            None => format!("{} {} {}", self.pattern, self.link, self.size),
        }
    }
}

/// Every ping-pong, stream, oneway and bulk row of a run, in that order.
pub(crate) fn rows(view: &crate::RunView) -> Vec<Marked<'_>> {
    use crate::format::bytes;
    use crate::table::{link_label, link_name, with_factors};
    let named = |link: &str, protocol: &Option<String>, channels, factors| {
        with_factors(link_label(&link_name(link, protocol), channels), factors)
    };
    let mut out = Vec::new();
    for r in &view.pingpong {
        out.push(Marked {
            pattern: "pingpong",
            direction: None,
            link: named(&r.link, &r.protocol, r.channels, &r.factors),
            size: bytes(r.size_bytes),
            ok: r.status == "ok",
            disturbance: &r.disturbance,
            cut: &r.cut,
            replicates: &r.replicates,
        });
    }
    for r in &view.stream {
        out.push(Marked {
            pattern: "stream",
            direction: Some(&r.direction),
            link: named(&r.link, &r.protocol, r.channels, &r.factors),
            size: bytes(r.size_bytes),
            ok: r.status == "ok",
            disturbance: &r.disturbance,
            cut: &r.cut,
            replicates: &r.replicates,
        });
    }
    for r in &view.oneway {
        out.push(Marked {
            pattern: "oneway",
            direction: Some(&r.direction),
            link: with_factors(r.link.clone(), &r.factors),
            size: bytes(r.size_bytes),
            ok: r.status == "ok",
            disturbance: &r.disturbance,
            cut: &r.cut,
            replicates: &r.replicates,
        });
    }
    for r in &view.bulk {
        out.push(Marked {
            pattern: "bulk",
            direction: None,
            link: link_name(&r.link, &r.protocol),
            size: format!("{}×{}", bytes(r.block_bytes), r.blocks),
            ok: r.status == "ok",
            disturbance: &r.disturbance,
            cut: &r.cut,
            replicates: &r.replicates,
        });
    }
    out
}

/// One line per marked cell of a run: the disturbed ones with what
/// disturbed them, then those with too few usable blocks for an interval,
/// then those whose blocks disagree, with their range.
pub fn footnotes(view: &crate::RunView) -> Vec<String> {
    let rows = rows(view);
    let disturbed = rows.iter().filter_map(|m| {
        let v = m.disturbance.as_ref().filter(|v| v.disturbed)?;
        Some(format!("{MARK} {}: {}", m.label(), v.causes.join("; ")))
    });
    let too_few = rows.iter().filter_map(|m| {
        let r = m.replicates.as_ref().filter(|r| r.too_few_blocks)?;
        Some(format!("{MARK} {}: {}", m.label(), crate::replicates::too_few(r)))
    });
    let disagree = rows.iter().filter_map(|m| {
        let r = m.replicates.as_ref().filter(|r| r.disagree && !r.too_few_blocks)?;
        Some(format!("{MARK} {}: {}", m.label(), crate::replicates::disagreement(r)))
    });
    let wide = rows.iter().filter_map(|m| {
        let r = m.replicates.as_ref().filter(|r| r.wide && !r.disagree && !r.too_few_blocks)?;
        Some(format!("{MARK} {}: {}", m.label(), crate::replicates::too_wide(r)))
    });
    let outside = rows.iter().filter_map(|m| {
        let r = m.replicates.as_ref()?;
        let h = r.history.as_ref().filter(|h| !h.within)?;
        Some(format!("{MARK} {}: {}", m.label(), crate::history::outside(r, h)))
    });
    disturbed.chain(too_few).chain(disagree).chain(wide).chain(outside).collect()
}

/// The counters of every cell that has them, for `icbench show --stats`:
/// one row per cell, host and peer side by side ("–": not offered here).
pub fn counters_rows(view: &crate::RunView) -> Vec<Vec<String>> {
    use crate::format::ns;
    let cells: Vec<(String, String, String, &DisturbanceView)> = rows(view)
        .into_iter()
        .filter_map(|m| {
            let d = m.disturbance.as_ref()?;
            let pattern = match m.direction {
                Some(dir) => format!("{} {dir}", m.pattern),
                None => m.pattern.to_string(),
            };
            Some((pattern, m.link, m.size, d))
        })
        .collect();
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
    rows(view)
        .iter()
        .filter_map(|m| {
            let c = m.cut.as_ref()?;
            Some(format!(
                "{}: stopped at the cap of {} messages after {:.2} s of measuring",
                m.label(),
                c.at_messages,
                c.measured_ns as f64 / 1e9
            ))
        })
        .collect()
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
    /// Whether that marks every cell of the run: only when its cells were
    /// measured in one block each. Blocks interleaved over the whole run
    /// (issue #15) see a change part-way through as blocks that disagree,
    /// cell by cell, and each block's state probe (issue #28) says where
    /// the machine was; a floor read twice a run adds nothing to that.
    pub marks_every_cell: bool,
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
            marks_every_cell: d.unstable(),
            causes: d.causes,
        })
    }

    /// The drift of a run whose cells were measured in interleaved blocks:
    /// it no longer marks every cell ([`FloorDriftView::marks_every_cell`]).
    pub fn judged_by_blocks(mut self) -> FloorDriftView {
        self.marks_every_cell = false;
        self
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
        if self.unstable && !self.marks_every_cell {
            vec![
                figures,
                format!(
                    "the floor moved between head and tail ({}); each cell is judged by its \
                     blocks, measured all through the run, and `show --blocks` gives the state \
                     probe beside each",
                    self.causes.join("; ")
                ),
            ]
        } else if self.unstable {
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
