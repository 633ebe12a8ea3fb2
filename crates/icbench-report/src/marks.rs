//! A run's marks as every renderer shows them (issue #29 item 1: one idea
//! of a cell's status): which rows carry `!` and why, in the words the
//! terminal, the report and the exports share — what the engine's
//! counters ([`crate::disturbed`]) and the replicate blocks
//! ([`crate::replicates`]) decided, walked once.

use crate::disturbed::{CutView, DisturbanceView, MARK};
use crate::replicates::ReplicatesView;
use crate::rows::Rows;

/// `MARK` after a figure when the cell was disturbed, its replicate blocks
/// disagree or too few of them are usable for an interval.
pub fn marked(figure: String, d: &Option<DisturbanceView>, r: &Option<ReplicatesView>) -> String {
    if is_marked(d.as_ref(), r.as_ref()) { format!("{figure} {MARK}") } else { figure }
}

/// Whether a cell carries [`MARK`]: disturbed beyond its link's own work,
/// or its blocks say so ([`ReplicatesView::marked`]). The one test the
/// terminal, the report, the summary and the exports all use.
pub fn is_marked(d: Option<&DisturbanceView>, r: Option<&ReplicatesView>) -> bool {
    d.is_some_and(|v| v.disturbed) || r.is_some_and(ReplicatesView::marked)
}

/// A measured-pattern row of a run as the marks see it: how it is named
/// and what it carries. One walker ([`of`]) serves the footnotes, the
/// counters table, the cut lines and the run's verdict.
#[derive(Debug)]
pub struct Marked<'a> {
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
    pub replicates: &'a Option<ReplicatesView>,
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
pub fn of(view: Rows<'_>) -> Vec<Marked<'_>> {
    use crate::format::bytes;
    use crate::names::{link_label, link_name, with_factors};
    let named = |link: &str, protocol: &Option<String>, channels, factors| {
        with_factors(link_label(&link_name(link, protocol), channels), factors)
    };
    let mut out = Vec::new();
    for r in view.pingpong {
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
    for r in view.stream {
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
    for r in view.oneway {
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
    for r in view.bulk {
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
pub fn footnotes(view: Rows<'_>) -> Vec<String> {
    let rows = of(view);
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
        Some(format!("{MARK} {}: {}", m.label(), crate::replicates::outside(r, h)))
    });
    disturbed.chain(too_few).chain(disagree).chain(wide).chain(outside).collect()
}

/// One line per cell cut short of its cell time.
pub fn cut_lines(view: Rows<'_>) -> Vec<String> {
    of(view)
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

/// The counters of every cell that has them, for `icbench show --stats`:
/// one row per cell, host and peer side by side ("–": not offered here).
pub fn counters_rows(view: Rows<'_>) -> Vec<Vec<String>> {
    use crate::format::ns;
    let cells: Vec<(String, String, String, &DisturbanceView)> = of(view)
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
