//! Each run's round trips (ping-pong p50) and throughputs (stream payload
//! rate) as the site shows them: the figure, its repeat interval in the
//! terminal's words ([`crate::replicates::ci_short`]), and whether it can
//! be quoted — and if not, why, in the words of the run's list of marked
//! cells ([`crate::marks::footnotes`]).

use crate::disturbed::MARK;
use crate::marks::{Marked, is_marked};
use crate::view::RunView;

/// Whether a figure can be quoted, and why not.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Standing {
    /// Measured, judged and unmarked.
    Quotable,
    /// Marked (`!`): disturbed, blocks that disagree, too few of them, a
    /// repeat run too far, outside its host's history. The reasons.
    Marked(String),
    /// Its run was not judged: imported, or without replicate blocks and
    /// counters. Why.
    NotJudged(String),
    /// No figure: failed, not applicable, or no per-message times.
    NotMeasured(String),
}

impl Standing {
    /// The CSS class of its cell; `None` for a quotable figure.
    pub(super) fn class(&self) -> Option<&'static str> {
        match self {
            Standing::Quotable => None,
            Standing::Marked(_) => Some("unq marked"),
            Standing::NotJudged(_) => Some("unq not-judged"),
            Standing::NotMeasured(_) => Some("unq not-measured"),
        }
    }

    /// Why it cannot be quoted, as the page says it.
    pub(super) fn why(&self) -> Option<String> {
        match self {
            Standing::Quotable => None,
            Standing::Marked(r) => Some(format!("{MARK} marked: {r}")),
            Standing::NotJudged(r) | Standing::NotMeasured(r) => Some(r.clone()),
        }
    }
}

/// One figure of a run.
#[derive(Debug, Clone)]
pub(super) struct Figure {
    pub run_id: i64,
    /// The link with its protocol, channels and factors (the marks' name).
    pub link: String,
    /// Stream: `h2p` or `p2h`.
    pub direction: Option<String>,
    pub size: u64,
    /// The size as the tables write it (`64 B`, `4 KiB`).
    pub size_text: String,
    /// The figure (ns, or bytes per second); `None` without one.
    pub value: Option<f64>,
    /// The figure in words, with its unit (`—` without one).
    pub text: String,
    /// A second figure for the entry page: the p99 round trip, the
    /// stream's messages per second.
    pub extra: String,
    /// The repeat interval in the terminal's words, or why there is none.
    pub ci: String,
    pub standing: Standing,
    /// The run's verdict in one word (`reproducible`, `not judged` …).
    pub verdict: &'static str,
}

/// Why a row is marked: its lines in the run's list of marked cells,
/// without the cell's name.
fn reasons(m: &Marked<'_>, footnotes: &[String]) -> String {
    let prefix = format!("{MARK} {}: ", m.label());
    let r: Vec<&str> = footnotes.iter().filter_map(|f| f.strip_prefix(&prefix)).collect();
    if r.is_empty() { "marked in its run".to_string() } else { r.join("; ") }
}

/// Why a run's figures are not judged, or `None` when it was.
fn not_judged(view: &RunView) -> Option<String> {
    if view.is_imported() {
        let from = view.provenance.as_deref().map(|p| format!(" from {p}")).unwrap_or_default();
        return Some(format!(
            "not judged: {}{from}, not re-measured by icbench (no replicate blocks or \
             disturbance counters)",
            view.source
        ));
    }
    let v = view.verdict.as_ref()?;
    (v.verdict == "not judged").then(|| v.text.clone())
}

/// A row's standing: not measured (`failed`), marked (its reasons in
/// `notes`), without a `figure` (`none`), not judged (`judged`), or
/// quotable.
fn standing(
    m: &Marked<'_>,
    notes: &[String],
    failed: Option<String>,
    judged: &Option<String>,
    figure: bool,
    none: &str,
) -> Standing {
    if !m.ok {
        return Standing::NotMeasured(failed.unwrap_or_default());
    }
    if is_marked(m.disturbance.as_ref(), m.replicates.as_ref()) {
        return Standing::Marked(reasons(m, notes));
    }
    if !figure {
        return Standing::NotMeasured(none.to_string());
    }
    match judged {
        Some(why) => Standing::NotJudged(why.clone()),
        None => Standing::Quotable,
    }
}

fn not_ok(status: &str, reason: &Option<String>, max_bytes: Option<u64>) -> String {
    match (status, reason, max_bytes) {
        (_, Some(r), _) => format!("{status}: {r}"),
        ("n/a", None, Some(m)) => {
            format!("n/a: larger than the link's largest message ({})", crate::format::bytes(m))
        }
        _ => status.to_string(),
    }
}

fn verdict(view: &RunView) -> &'static str {
    view.verdict.as_ref().map_or("not judged", |v| v.verdict)
}

/// The run's round trips: one per ping-pong row, in the run's order.
pub(super) fn round_trips(view: &RunView) -> Vec<Figure> {
    let marks = crate::marks::of(view.rows());
    let notes = crate::marks::footnotes(view.rows());
    let judged = not_judged(view);
    view.pingpong
        .iter()
        .zip(&marks)
        .map(|(r, m)| {
            let p50 = r.rtt_ns.as_ref().map(|s| s.summary.p50);
            let why = (r.status != "ok").then(|| not_ok(r.status, &r.reason, r.max_bytes));
            let none = "no per-message times: no round trip to show";
            let st = standing(m, &notes, why, &judged, p50.is_some(), none);
            Figure {
                run_id: view.run_id,
                link: m.link.clone(),
                direction: None,
                size: r.size_bytes,
                size_text: m.size.clone(),
                value: p50.filter(|_| r.status == "ok"),
                text: p50
                    .filter(|_| r.status == "ok")
                    .map_or("—".into(), |v| crate::format::ns_at(v, r.resolution_ns)),
                extra: r
                    .rtt_ns
                    .as_ref()
                    .map_or("—".into(), |s| crate::format::ns_at(s.summary.p99, r.resolution_ns)),
                ci: r.replicates.as_ref().map_or_else(
                    || once(view, r.status),
                    |x| crate::replicates::ci_short_at(x, r.resolution_ns),
                ),
                standing: st,
                verdict: verdict(view),
            }
        })
        .collect()
}

/// What a payload-rate row gives its figure: its status and why, its rate,
/// its direction and size, a second figure, and its blocks.
struct RateRow<'a> {
    status: &'static str,
    reason: &'a Option<String>,
    max_bytes: Option<u64>,
    rate: Option<f64>,
    direction: String,
    size: u64,
    extra: String,
    replicates: &'a Option<crate::replicates::ReplicatesView>,
}

/// Rate rows as figures, each beside its marks' entry.
fn rate_figures<'a>(
    view: &RunView,
    rows: impl Iterator<Item = (RateRow<'a>, &'a Marked<'a>)>,
    notes: &[String],
) -> Vec<Figure> {
    let judged = not_judged(view);
    rows.map(|(r, m)| {
        let rate = r.rate.filter(|_| r.status == "ok");
        let why = (r.status != "ok").then(|| not_ok(r.status, r.reason, r.max_bytes));
        let st = standing(m, notes, why, &judged, rate.is_some(), "no payload rate");
        Figure {
            run_id: view.run_id,
            link: m.link.clone(),
            direction: Some(r.direction),
            size: r.size,
            size_text: m.size.clone(),
            value: rate,
            text: rate.map_or("—".into(), |v| crate::format::rate(v, "B/s")),
            extra: r.extra,
            ci: r
                .replicates
                .as_ref()
                .map_or_else(|| once(view, r.status), crate::replicates::ci_short),
            standing: st,
            verdict: verdict(view),
        }
    })
    .collect()
}

/// The run's throughputs: one per stream row, in the run's order, then
/// its bulk transfers (block × blocks, then one acknowledgement: the
/// payload rate over the whole transfer; the STM32MP1 tty and netlink
/// tables are bulk transfers).
pub(super) fn throughputs(view: &RunView) -> Vec<Figure> {
    let marks = crate::marks::of(view.rows());
    let notes = crate::marks::footnotes(view.rows());
    let streams = view.stream.iter().zip(marks.iter().skip(view.pingpong.len())).map(|(r, m)| {
        let row = RateRow {
            status: r.status,
            reason: &r.reason,
            max_bytes: r.max_bytes,
            rate: r.bytes_per_s,
            direction: r.direction.clone(),
            size: r.size_bytes,
            extra: r.msgs_per_s.map_or("—".into(), |v| crate::format::rate(v, "msg/s")),
            replicates: &r.replicates,
        };
        (row, m)
    });
    let skip = view.pingpong.len() + view.stream.len() + view.oneway.len();
    let bulk = view.bulk.iter().zip(marks.iter().skip(skip)).map(|(r, m)| {
        let row = RateRow {
            status: r.status,
            reason: &r.reason,
            max_bytes: r.max_bytes,
            rate: r.bytes_per_s,
            direction: "bulk".into(),
            size: r.total_bytes,
            extra: r.transfers_per_s.map_or("—".into(), |v| crate::format::rate(v, "/s")),
            replicates: &r.replicates,
        };
        (row, m)
    });
    rate_figures(view, streams.chain(bulk), &notes)
}

/// The CI column of a cell without replicate blocks: an imported one's
/// was not measured by icbench at all.
fn once(view: &RunView, status: &str) -> String {
    match (status, view.is_imported()) {
        ("ok", true) => "no interval: imported".into(),
        ("ok", false) => "measured once: no interval".into(),
        _ => "—".into(),
    }
}
