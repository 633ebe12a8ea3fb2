//! The report's tables: stream cells, statistics per cell, the model and
//! the targets.

use std::fmt::Write;

use crate::format;
use crate::model::ModelView;
use crate::names::{link_label, link_name, with_factors};
use crate::svg::esc;
use crate::view::{RunView, StreamRow};

/// `h2p` → `h2p (host → peer)`, as the CLI's stream table says it.
fn direction(d: &str) -> String {
    match d.parse::<icbench_model::Direction>() {
        Ok(dir) => format!("{d} ({})", dir.describe()),
        Err(_) => d.to_string(),
    }
}

/// Every stream cell, as `icbench show` lists them: link, size, direction,
/// messages/s, payload B/s (with the repeat interval when the cell had
/// replicate blocks), ÷ memcpy and the window; `!` marks a disturbed cell
/// or blocks that disagree, a cell not measured says why.
pub(super) fn stream_table(h: &mut String, v: &RunView) {
    if v.stream.is_empty() {
        return;
    }
    let reps = v.stream.iter().any(|r| r.replicates.is_some());
    let busy = v.stream.iter().any(|r| r.tx_busy.unwrap_or(0) > 0);
    h.push_str(
        "<h3>Stream</h3><p>Messages in flight up to the window; the receiver checks every \
         payload and returns credits. Payload bytes per second in the direction given, over \
         the cell's measured window; ! marks a cell that was disturbed or whose replicate \
         blocks disagree.</p><table class=\"stream\"><tr><th class=\"l\">link</th>\
         <th>size</th><th class=\"l\">direction</th><th>messages/s</th><th>payload B/s</th>",
    );
    if reps {
        h.push_str("<th>B/s 95% CI</th>");
    }
    h.push_str("<th>÷ memcpy</th><th>window</th>");
    if busy {
        h.push_str("<th>TX busy (EAGAIN)</th>");
    }
    h.push_str("</tr>");
    for r in &v.stream {
        stream_row(h, r, reps, busy);
    }
    h.push_str("</table>");
}

fn stream_row(h: &mut String, r: &StreamRow, reps: bool, busy: bool) {
    let link = with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
    let _ = write!(
        h,
        "<tr><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td>",
        esc(&link),
        esc(&format::bytes(r.size_bytes)),
        esc(&direction(&r.direction))
    );
    if r.status != "ok" {
        let why = match (r.status, r.max_bytes) {
            ("n/a", Some(m)) => format!("n/a (max {})", format::bytes(m)),
            _ => format!("failed: {}", r.reason.as_deref().unwrap_or("unknown")),
        };
        let span = 4 + usize::from(reps) + usize::from(busy);
        let _ = write!(h, "<td class=\"l\" colspan=\"{span}\">{}</td></tr>", esc(&why));
        return;
    }
    let rate = crate::marks::marked(
        format::rate(r.bytes_per_s.unwrap_or(f64::NAN), "B/s"),
        &r.disturbance,
        &r.replicates,
    );
    let _ = write!(
        h,
        "<td>{}</td><td>{}</td>",
        esc(&format::rate(r.msgs_per_s.unwrap_or(f64::NAN), "msg/s")),
        esc(&rate)
    );
    if reps {
        let ci = r.replicates.as_ref().map_or("–".into(), crate::replicates::ci_short);
        let _ = write!(h, "<td>{}</td>", esc(&ci));
    }
    let _ = write!(
        h,
        "<td>{}</td><td>{}</td>",
        esc(&r.over_memcpy.map_or("–".into(), format::ratio)),
        r.window.map_or("–".into(), |w| format!("{w} msg"))
    );
    if busy {
        let _ = write!(h, "<td>{}</td>", r.tx_busy.unwrap_or(0));
    }
    h.push_str("</tr>");
}

pub(super) fn targets_table(h: &mut String, v: &RunView) {
    if v.targets.is_empty() {
        return;
    }
    h.push_str("<h3>Targets (ratios against this run's floor)</h3><table><tr><th class=\"l\">target</th><th>ratio</th><th class=\"l\">required</th><th class=\"l\">met</th></tr>");
    for t in &v.targets {
        let ratio = t.ratio_text();
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
            esc(&t.name),
            esc(&ratio),
            esc(t.bound),
            esc(t.verdict.as_str())
        );
    }
    h.push_str("</table>");
    for t in v.targets.iter().filter(|t| t.why.is_some()) {
        let why = t.why.as_deref().unwrap_or_default();
        let _ = write!(h, "<p>{}: {}: {}</p>", esc(&t.name), esc(t.verdict.as_str()), esc(why));
    }
}
pub(super) fn stats_table(h: &mut String, v: &RunView) {
    let rows: Vec<(&str, String, String, &crate::CellStats)> = v
        .pingpong
        .iter()
        .filter_map(|r| {
            r.rtt_ns.as_ref().map(|s| {
                (
                    "pingpong",
                    crate::names::link_label(
                        &crate::names::link_name(&r.link, &r.protocol),
                        r.channels,
                    ),
                    format::bytes(r.size_bytes),
                    s,
                )
            })
        })
        .chain(v.bulk.iter().filter_map(|r| {
            r.transfer_ns.as_ref().map(|s| {
                (
                    "bulk",
                    crate::names::link_name(&r.link, &r.protocol),
                    format!("{}×{}", format::bytes(r.block_bytes), r.blocks),
                    s,
                )
            })
        }))
        .chain(v.timer.iter().filter_map(|r| {
            r.latency_ns.as_ref().map(|s| ("timer", r.link.clone(), "–".to_string(), s))
        }))
        .chain(v.oneway.iter().filter_map(|r| {
            r.oneway_ns.as_ref().map(|s| {
                ("oneway", format!("{} {}", r.link, r.direction), format::bytes(r.size_bytes), s)
            })
        }))
        .collect();
    if rows.is_empty() {
        return;
    }
    h.push_str("<h3>Statistics per cell</h3><table><tr><th class=\"l\">pattern</th><th class=\"l\">link</th><th>size</th><th class=\"l\">from</th><th>count</th><th>min</th><th>mean</th><th>stddev</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>median 95% CI</th><th>outliers mild/severe</th></tr>");
    for (p, link, size, s) in rows {
        let m = &s.summary;
        let _ = write!(
            h,
            "<tr><td class=\"l\">{p}</td><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td><td>{}</td>",
            esc(&link),
            esc(&size),
            s.from,
            m.count
        );
        for x in [m.min, m.mean, m.stddev, m.p50, m.p90, m.p99, m.p99_9, m.max] {
            let _ = write!(h, "<td>{}</td>", esc(&format::ns(x)));
        }
        let ci = match (s.median_ci95_lo, s.median_ci95_hi) {
            (Some(lo), Some(hi)) => format!("{} … {}", format::ns(lo), format::ns(hi)),
            _ => "–".into(),
        };
        let o = s.outliers.map_or("–".to_string(), |o| format!("{}/{}", o.mild(), o.severe()));
        let _ = write!(h, "<td>{}</td><td>{}</td></tr>", esc(&ci), o);
    }
    h.push_str("</table>");
}
pub(super) fn model_table(h: &mut String, models: &ModelView) {
    if models.models.is_empty() {
        return;
    }
    h.push_str("<h3>Model t(n) = a + b·n</h3><table><tr><th class=\"l\">link</th><th class=\"l\">pattern</th><th>points</th><th>a (95% CI)</th><th>b ns/B (95% CI)</th><th>R²</th><th>max rel. error</th><th>1/b</th><th>n½</th><th class=\"l\">verdict</th></tr>");
    for m in &models.models {
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td>",
            esc(&m.link),
            m.pattern,
            m.points.len()
        );
        match &m.fit {
            Some(f) => {
                let d = format::sig_decimals(f.b, 4);
                let _ = write!(
                    h,
                    "<td>{} ({} … {})</td><td>{:.d$} ({:.d$} … {:.d$})</td><td>{:.4}</td><td>{:.1} %</td><td>{}</td><td>{}</td>",
                    esc(&format::ns(f.a)),
                    esc(&format::ns(f.a_ci95.lo)),
                    esc(&format::ns(f.a_ci95.hi)),
                    f.b,
                    f.b_ci95.lo,
                    f.b_ci95.hi,
                    f.r_squared,
                    f.max_rel_error * 100.0,
                    m.bandwidth_bytes_per_s.map_or("–".into(), |b| esc(&format::rate(b, "B/s"))),
                    m.n_half_bytes.map_or("–".into(), |n| format!("{n:.0} B")),
                );
            }
            None => h.push_str("<td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td>"),
        }
        let _ = write!(h, "<td class=\"l\">{}</td></tr>", esc(&m.verdict));
    }
    h.push_str("</table>");
}

#[cfg(test)]
mod tests {
    use super::super::tests::measured;
    use super::*;
    use icbench_model::{CellKey, CellOutcome, CellResult, Pattern};

    #[test]
    fn the_stream_table_lists_every_stream_cell_as_the_cli_does() {
        let key = |size| CellKey::new("pipe", Pattern::Stream, size);
        let cells = vec![
            measured(key(64), 1000, 100),
            measured(key(64).with("direction", "p2h"), 500, 100),
            CellResult {
                key: key(4096),
                outcome: CellOutcome::Failed { reason: "peer <died>".into() },
            },
            CellResult {
                key: key(1 << 20),
                outcome: CellOutcome::NotApplicable { max_bytes: 65536 },
            },
        ];
        let v = crate::view::build(1, &crate::testing::meta(), &cells);
        let mut h = String::new();
        stream_table(&mut h, &v);
        assert!(h.starts_with("<h3>Stream</h3>"));
        assert_eq!(h.matches("<tr>").count(), 1 + 4);
        for col in ["link", "size", "direction", "messages/s", "payload B/s", "÷ memcpy", "window"]
        {
            assert!(h.contains(&format!(">{col}</th>")), "{col}");
        }
        assert!(h.contains("h2p (host → peer)") && h.contains("p2h (peer → host)"));
        assert!(h.contains("msg/s</td>") && h.contains("B/s</td>") && h.contains(">32 msg<"));
        assert!(h.contains("failed: peer &lt;died&gt;") && h.contains("n/a (max 64 KiB)"));
        // No stream cells: no table.
        let mut none = String::new();
        stream_table(&mut none, &crate::view::build(1, &crate::testing::meta(), &[]));
        assert!(none.is_empty());
    }
}
