//! A run's latency distributions, per pattern (ping-pong round trips,
//! one-way latency, timer wake-ups): an HDR percentile plot to p99.99, a
//! CDF, and histograms on a log count axis. Each link is a group (a panel
//! once a figure has more than [`svg::MAX_SERIES`] series), each of its
//! sizes a series: the sizes the run's summary ranks (64 B, 4 KiB,
//! 64 KiB, or the class's largest), else the link's smallest and largest.
//! Replicate blocks of a cell are merged into one histogram first.

use std::fmt::Write;

use icbench_model::{CellData, CellOutcome, LatencyHistogram, Pattern};

use crate::distribution::{self, DEEPEST};
use crate::format;
use crate::names::{link_label, link_name, with_all_factors, with_factors};
use crate::replicates::Grouped;
use crate::stats::CellStats;
use crate::svg::{self, Axis, HistPanel, Plot, Pt, Series, Unit, VLine, esc, hdr_x};
use crate::view::RunView;

use super::{Figures, figure, plot_figure};

/// Links (groups) per figure at most; past this, the first ones.
pub(crate) const MAX_GROUPS: usize = 12;
/// Samples a cell needs for a percentile plot or a CDF.
const MIN_SAMPLES: u64 = 10;
/// Bins of a histogram.
const BINS: usize = 48;

/// One cell's distribution as the figures name it.
struct Cell<'a> {
    group: String,
    name: String,
    size: u64,
    data: &'a CellData,
    hist: &'a LatencyHistogram,
}

impl Cell<'_> {
    fn label(&self) -> String {
        Series::new(self.group.clone(), self.name.clone()).label()
    }
}

/// What a pattern's figures are called.
struct Kind {
    pattern: Pattern,
    /// Part of the figure ids (`run3-oneway-cdf`).
    id: &'static str,
    /// The values (`round trip`).
    what: &'static str,
    heading: &'static str,
}

const KINDS: [Kind; 3] = [
    Kind {
        pattern: Pattern::PingPong,
        id: "",
        what: "round trip",
        heading: "Round-trip latency distributions",
    },
    Kind {
        pattern: Pattern::OneWay,
        id: "oneway-",
        what: "one-way latency",
        heading: "One-way latency distributions",
    },
    Kind {
        pattern: Pattern::Timer,
        id: "timer-",
        what: "wake-up latency",
        heading: "Wake-up latency distributions",
    },
];

fn named<'a>(g: &'a Grouped) -> Option<Cell<'a>> {
    let CellOutcome::Measured(d) = &g.result.outcome else { return None };
    let hist = d.latency.as_ref().filter(|h| h.len() >= 2)?;
    let k = &g.result.key;
    let (group, name) = match k.pattern {
        Pattern::PingPong => (
            with_all_factors(link_label(&link_name(&k.link, &k.protocol), d.channels), &k.factors),
            format::bytes(k.size_bytes),
        ),
        Pattern::OneWay => (
            with_factors(link_label(&link_name(&k.link, &k.protocol), d.channels), &k.factors),
            format!(
                "{} {}",
                format::bytes(k.size_bytes),
                k.factors.get("direction").map_or("", String::as_str)
            )
            .trim_end()
            .to_string(),
        ),
        Pattern::Timer => {
            let f: Vec<String> = k.factors.iter().map(|(a, b)| format!("{a} {b}")).collect();
            let group = if f.is_empty() {
                k.link.clone()
            } else {
                format!("{} ({})", k.link, f.join(", "))
            };
            (group, String::new())
        }
        _ => return None,
    };
    Some(Cell { group, name, size: k.size_bytes, data: d, hist })
}

/// The cells of `pattern` to draw, by group in order of appearance, each
/// group's sizes ascending; and how many groups were left out.
fn choose<'a>(grouped: &'a [Grouped], pattern: Pattern, usual: &[u64]) -> (Vec<Cell<'a>>, usize) {
    let cells: Vec<Cell<'a>> =
        grouped.iter().filter(|g| g.result.key.pattern == pattern).filter_map(named).collect();
    let mut groups: Vec<&str> = Vec::new();
    for c in &cells {
        if !groups.contains(&c.group.as_str()) {
            groups.push(&c.group);
        }
    }
    let dropped = groups.len().saturating_sub(MAX_GROUPS);
    let mut out: Vec<Cell<'a>> = Vec::new();
    for g in groups.iter().take(MAX_GROUPS) {
        let mut sizes: Vec<u64> = cells.iter().filter(|c| c.group == *g).map(|c| c.size).collect();
        sizes.sort_unstable();
        sizes.dedup();
        let mut pick: Vec<u64> = sizes.iter().copied().filter(|s| usual.contains(s)).collect();
        if pick.is_empty() {
            pick = vec![sizes[0], sizes[sizes.len() - 1]];
            pick.dedup();
        }
        let mut mine: Vec<&Cell<'a>> =
            cells.iter().filter(|c| c.group == *g && pick.contains(&c.size)).collect();
        mine.sort_by(|a, b| a.size.cmp(&b.size).then(a.name.cmp(&b.name)));
        out.extend(mine.into_iter().map(|c| Cell {
            group: c.group.clone(),
            name: c.name.clone(),
            size: c.size,
            data: c.data,
            hist: c.hist,
        }));
    }
    (out, dropped)
}

/// The percentile, CDF and histogram figures of every pattern that has
/// latency histograms.
pub(super) fn figures(
    h: &mut String,
    figs: &mut Figures,
    v: &RunView,
    cells: &[icbench_model::CellResult],
) {
    let grouped = crate::replicates::group(cells);
    let mut usual: Vec<u64> =
        v.summary.classes.iter().filter_map(|c| c.latency.as_ref().map(|r| r.size_bytes)).collect();
    usual.dedup();
    for kind in &KINDS {
        let (chosen, dropped) = choose(&grouped, kind.pattern, &usual);
        if chosen.is_empty() {
            continue;
        }
        let _ = write!(h, "<h3>{}</h3>", esc(kind.heading));
        let more = if dropped > 0 {
            format!(
                " The first {MAX_GROUPS} links and factor sets; {dropped} more are in the statistics table."
            )
        } else {
            String::new()
        };
        let sizes = if kind.pattern == Pattern::Timer {
            ""
        } else {
            " Sizes: those the run's summary ranks (small, medium, large), else each link's smallest and largest."
        };
        let deep: Vec<&Cell<'_>> = chosen.iter().filter(|c| c.hist.len() >= MIN_SAMPLES).collect();
        if !deep.is_empty() {
            percentile_figure(h, figs, v.run_id, kind, &deep, &format!("{sizes}{more}"));
            cdf_figure(h, figs, v.run_id, kind, &deep, &format!("{sizes}{more}"));
        }
        histogram_figure(h, figs, v.run_id, kind, &chosen, &more);
    }
}

fn panels_note(series: &[Series]) -> &'static str {
    if svg::panels(series).len() > 1 { " One panel per link, on shared axes." } else { "" }
}

fn percentile_figure(
    h: &mut String,
    figs: &mut Figures,
    run: i64,
    kind: &Kind,
    cells: &[&Cell<'_>],
    note: &str,
) {
    let series: Vec<Series> = cells
        .iter()
        .map(|c| {
            let curve = distribution::percentile_curve(c.hist);
            Series {
                marked: Some(distribution::marked_indices(&curve)),
                points: curve.iter().map(|(p, ns)| Pt::new(hdr_x(*p), *ns)).collect(),
                ..Series::new(c.group.clone(), c.name.clone())
            }
        })
        .collect();
    let panels = panels_note(&series);
    let p = Plot {
        title: format!("Run {run}: {} percentiles (HDR)", kind.what),
        x: Axis::log("percentile", Unit::Percentile).over(1.0, hdr_x(DEEPEST)),
        y: Axis::log(kind.what, Unit::Ns),
        series,
        hlines: Vec::new(),
        bars: "",
        context: false,
    };
    let id = format!("run{run}-{}percentiles", kind.id);
    plot_figure(
        h,
        figs,
        &p,
        id,
        &format!(
            "The {} at each percentile, from each cell's HDR histogram (replicate blocks merged). \
             The x axis is log 1 / (1 − p): 90, 99, 99.9 and 99.99 % are a decade apart, so the \
             tail gets the room. Markers at p50, p90, p99, p99.9 and p99.99; a line ends where its \
             samples run out (p needs 1 / (1 − p) ≤ n).{panels}{note}",
            kind.what
        ),
    );
}

fn cdf_figure(
    h: &mut String,
    figs: &mut Figures,
    run: i64,
    kind: &Kind,
    cells: &[&Cell<'_>],
    note: &str,
) {
    let series: Vec<Series> = cells
        .iter()
        .map(|c| {
            let points = distribution::cdf(c.hist);
            Series {
                marked: Some(distribution::cdf_marks(&points)),
                points: points.iter().map(|(ns, f)| Pt::new(*ns, *f)).collect(),
                ..Series::new(c.group.clone(), c.name.clone())
            }
        })
        .collect();
    let panels = panels_note(&series);
    let p = Plot {
        title: format!("Run {run}: {} CDF", kind.what),
        x: Axis::log(kind.what, Unit::Ns),
        y: Axis::linear("fraction of samples at or below", Unit::Fraction).over(0.0, 1.0),
        series,
        hlines: Vec::new(),
        bars: "",
        context: false,
    };
    let id = format!("run{run}-{}cdf", kind.id);
    plot_figure(
        h,
        figs,
        &p,
        id,
        &format!(
            "Cumulative distribution of each cell's {}: the fraction of samples at or below a \
             value, in steps of 0.5 %. Markers at 10, 50, 90 and 99 %; the percentile plot above \
             shows the tail beyond.{panels}{note}",
            kind.what
        ),
    );
}

fn histogram_figure(
    h: &mut String,
    figs: &mut Figures,
    run: i64,
    kind: &Kind,
    cells: &[Cell<'_>],
    note: &str,
) {
    // Per link, the cells of its smallest size drawn (both directions of a
    // one-way cell).
    let mut panels: Vec<HistPanel> = Vec::new();
    let mut counts: Vec<u64> = Vec::new();
    for c in cells {
        let first = cells.iter().find(|o| o.group == c.group).map(|o| o.size);
        if first != Some(c.size) {
            continue;
        }
        let lines = CellStats::of(c.data)
            .map(|s| {
                [("p50", s.summary.p50), ("p99", s.summary.p99), ("p99.9", s.summary.p99_9)]
                    .into_iter()
                    .map(|(k, x)| VLine { x, label: format!("{k} {}", format::ns(x)) })
                    .collect()
            })
            .unwrap_or_default();
        panels.push(HistPanel { title: c.label(), bars: distribution::bins(c.hist, BINS), lines });
        counts.push(c.hist.len());
    }
    let panels: Vec<HistPanel> = panels.into_iter().take(MAX_GROUPS).collect();
    let id = format!("run{run}-{}hist", kind.id);
    let title = match panels.as_slice() {
        [one] => format!("Run {run}: {} {}", one.title, kind.what),
        _ => format!("Run {run}: {} histograms", kind.what),
    };
    let svg = svg::histograms(&title, &id, &panels, kind.what);
    let n = match (counts.iter().min(), counts.iter().max()) {
        (Some(a), Some(b)) if a == b => format!("{a}"),
        (Some(a), Some(b)) => format!("{a} … {b}"),
        _ => "no".into(),
    };
    figure(
        h,
        figs,
        id,
        svg,
        &format!(
            "Distribution of {n} samples per cell in {BINS} log-spaced bins (from the stored HDR \
             histogram), on a log count axis: a bin of one sample is a visible bar, so a tail of a \
             few samples is not lost under the peak. Dashed: p50, p99, p99.9. Per link, the \
             smallest size drawn.{note}"
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::super::tests::pingpong as cell;
    use super::*;
    use icbench_model::CellResult;

    fn page(cells: &[CellResult]) -> (String, Figures) {
        let v = crate::view::build(7, &crate::testing::meta(), cells);
        let mut h = String::new();
        let mut figs = Figures::new();
        figures(&mut h, &mut figs, &v, cells);
        (h, figs)
    }

    #[test]
    fn nine_links_get_a_percentile_and_a_cdf_panel_each() {
        let links = ["shm", "pipe", "unix", "seqpacket", "mq", "tcp", "netlink", "pty", "udp"];
        let cells: Vec<CellResult> = links
            .iter()
            .enumerate()
            .flat_map(|(i, l)| [1, 64, 4096].map(|s| cell(l, s, 300 * (i as u64 + 1) + s / 10)))
            .collect();
        let (h, figs) = page(&cells);
        let ids: Vec<&str> = figs.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(ids, ["run7-percentiles", "run7-cdf", "run7-hist"]);
        for (id, svg) in &figs {
            assert!(svg.contains(r#"data-panels="9""#), "{id}");
        }
        // The summary's sizes (64 B, 4 KiB), not 1 B: two series a panel.
        let pct = &figs[0].1;
        assert_eq!(pct.matches(r#"<g class="series-group""#).count(), 18);
        assert!(pct.contains(r#"data-series="64 B""#) && !pct.contains(r#"data-series="1 B""#));
        // Markers at p50 … p99.99 (2,001 samples reach p99.9).
        assert_eq!(pct.matches(r#"class="point""#).count(), 18 * 4);
        assert!(pct.contains(">99.99 %<") && pct.contains(">99.9 %<"));
        assert!(figs[1].1.contains(">50 %<"));
        // Histograms on a log count axis, the smallest drawn size per link.
        assert!(figs[2].1.contains(r#"data-count-axis="log""#));
        assert!(figs[2].1.contains("shm 64 B"));
        assert!(h.contains("<h3>Round-trip latency distributions</h3>"));
    }

    #[test]
    fn a_few_series_share_one_axis() {
        let cells = [cell("shm", 64, 300), cell("pipe", 64, 3000)];
        let (_, figs) = page(&cells);
        assert!(figs[0].1.contains(r#"data-panels="1""#));
        assert!(figs[0].1.contains(r#"data-series="pipe 64 B""#));
    }

    #[test]
    fn more_than_twelve_links_are_cut_and_said_so() {
        let cells: Vec<CellResult> =
            (0..14).map(|i| cell(&format!("l{i}"), 64, 300 + 10 * i)).collect();
        let (h, figs) = page(&cells);
        assert!(figs[0].1.contains(r#"data-panels="12""#));
        assert!(h.contains("2 more are in the statistics table"));
    }
}
