//! The boards section (issue #19): when the runs of a report come from
//! different boards (`icbench merge --board`, else their host names),
//! latency and throughput against size with one series per board in each
//! link's panel, and the model's a and 1/b per board and link.

use std::fmt::Write;

use crate::format;
use crate::model::{ModelFilter, ModelView};
use crate::names::link_label;
use crate::svg::{Axis, Plot, Pt, Series, Unit, esc};

use super::{Figures, ReportRun, plot_figure};

/// The distinct boards of the runs, in the order first seen; empty when
/// fewer than two (the section is then left out).
pub(super) fn boards<'a>(runs: &'a [ReportRun<'_>]) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for r in runs {
        let b = r.board.as_deref().unwrap_or(r.view.meta.hostname.as_str());
        if !seen.contains(&b) {
            seen.push(b);
        }
    }
    if seen.len() < 2 { Vec::new() } else { seen }
}

fn board_of<'a>(r: &'a ReportRun<'_>) -> &'a str {
    r.board.as_deref().unwrap_or(r.view.meta.hostname.as_str())
}

fn push(series: &mut Vec<Series>, group: &str, name: &str, pt: Pt) -> usize {
    match series.iter().position(|s| s.group == group && s.name == name) {
        Some(i) => {
            series[i].points.push(pt);
            i
        }
        None => {
            series.push(Series { points: vec![pt], ..Series::new(group, name) });
            series.len() - 1
        }
    }
}

pub(super) fn section(h: &mut String, figs: &mut Figures, runs: &[ReportRun<'_>]) {
    let names = boards(runs);
    if names.is_empty() {
        return;
    }
    h.push_str("<h2>Boards</h2><ul>");
    for r in runs {
        let _ = write!(
            h,
            "<li>{}: run {} · {} · {}</li>",
            esc(board_of(r)),
            r.view.run_id,
            esc(&r.view.meta.hostname),
            esc(&r.view.meta.cpu_model)
        );
    }
    h.push_str("</ul>");
    let models: Vec<ModelView> =
        runs.iter().map(|r| crate::model::build(&r.view, &ModelFilter::default())).collect();
    let mut latency: Vec<Series> = Vec::new();
    let mut throughput: Vec<Series> = Vec::new();
    for (r, m) in runs.iter().zip(&models) {
        let board = board_of(r);
        for row in r.view.pingpong.iter().filter(|c| c.status == "ok") {
            let link = link_label(&row.link, row.channels);
            if let Some(s) = &row.rtt_ns {
                let pt = Pt {
                    marked: crate::marks::is_marked(
                        row.disturbance.as_ref(),
                        row.replicates.as_ref(),
                    ),
                    ..Pt::within(
                        row.size_bytes as f64,
                        s.summary.p50,
                        super::xy::repeat(&row.replicates, "p50_ns"),
                    )
                };
                let i = push(&mut latency, &link, board, pt);
                if latency[i].model.is_empty() {
                    latency[i].model = super::xy::model_curve(m, &link, "pingpong", 20);
                }
            }
            if let Some(y) = row.bytes_per_s.filter(|b| *b > 0.0) {
                push(
                    &mut throughput,
                    &format!("{link} pingpong"),
                    board,
                    Pt::new(row.size_bytes as f64, y),
                );
            }
        }
        for row in r.view.stream.iter().filter(|c| c.status == "ok") {
            let way =
                if row.direction == "h2p" { String::new() } else { format!(" {}", row.direction) };
            let group = format!("{} stream{way}", link_label(&row.link, row.channels));
            if let Some(y) = row.bytes_per_s.filter(|b| *b > 0.0) {
                push(&mut throughput, &group, board, Pt::new(row.size_bytes as f64, y));
            }
        }
    }
    for s in latency.iter_mut().chain(throughput.iter_mut()) {
        s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    let who = names.join(", ");
    if !latency.is_empty() {
        let p = Plot {
            title: format!("Round-trip latency against message size, per board ({who})"),
            x: Axis::log("message size", Unit::Bytes),
            y: Axis::log("p50 round trip", Unit::Ns),
            series: latency,
            hlines: Vec::new(),
            bars: super::xy::REPEAT,
            context: true,
        };
        plot_figure(
            h,
            figs,
            &p,
            "boards-latency".into(),
            "Median round trip per cell with its repeat interval (none without replicate blocks), one series per board in each link's panel; grey dashed: that board's fitted line t = a + b·n, unless the model calls the fit poor.",
        );
    }
    if !throughput.is_empty() {
        let p = Plot {
            title: format!("Payload throughput against message size, per board ({who})"),
            x: Axis::log("message size", Unit::Bytes),
            y: Axis::log("payload bytes per second, one direction", Unit::BytesPerS),
            series: throughput,
            hlines: Vec::new(),
            bars: super::xy::REPEAT,
            context: false,
        };
        plot_figure(
            h,
            figs,
            &p,
            "boards-throughput".into(),
            "Payload bytes per second over each cell's measured window, one series per board in each link and pattern's panel.",
        );
    }
    let rows: Vec<_> = runs
        .iter()
        .zip(&models)
        .flat_map(|(r, m)| m.models.iter().map(move |x| (board_of(r), x)))
        .collect();
    if rows.is_empty() {
        return;
    }
    h.push_str("<h3>Model per board: t(n) = a + b·n</h3><table><tr><th class=\"l\">board</th><th class=\"l\">link</th><th class=\"l\">pattern</th><th>a</th><th>1/b</th><th class=\"l\">verdict</th></tr>");
    for (board, m) in rows {
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            esc(board),
            esc(&m.link),
            m.pattern,
            m.fixed_cost_ns.map_or("–".into(), |a| esc(&format::ns(a))),
            m.bandwidth_bytes_per_s.map_or("–".into(), |b| esc(&format::rate(b, "B/s"))),
            esc(&m.verdict)
        );
    }
    h.push_str("</table>");
}

#[cfg(test)]
mod tests {
    use super::super::tests::{measured, pingpong};
    use super::super::{ReportRun, build};
    use icbench_model::{CellKey, CellResult, Pattern};

    fn cells(base: u64) -> Vec<CellResult> {
        let mut c = Vec::new();
        for s in [64u64, 1024, 4096] {
            c.push(pingpong("shm", s, base + s / 8));
            c.push(pingpong("pipe", s, 10 * base + s / 4));
            c.push(measured(CellKey::new("shm", Pattern::Stream, s), base / 2, 2000));
        }
        c
    }

    #[test]
    fn runs_of_two_boards_get_one_series_per_board_and_a_model_per_board() {
        let (a, b) = (cells(300), cells(900));
        let runs = [
            ReportRun {
                view: crate::view::build(1, &crate::testing::meta(), &a),
                cells: &a,
                board: Some("mp1".into()),
            },
            ReportRun {
                view: crate::view::build(2, &crate::testing::meta(), &b),
                cells: &b,
                board: Some("imx8".into()),
            },
        ];
        let rep = build(&runs, None);
        let ids: Vec<&str> = rep.figures.iter().map(|f| f.0.as_str()).collect();
        assert!(ids.contains(&"boards-latency") && ids.contains(&"boards-throughput"), "{ids:?}");
        let page = &rep.html;
        assert!(page.contains("<h2>Boards</h2>"));
        let lat = &rep.figures.iter().find(|f| f.0 == "boards-latency").unwrap().1;
        // Two links, each a panel with both boards' series.
        for board in ["mp1", "imx8"] {
            assert!(lat.matches(board).count() >= 2, "{board} in every link's panel");
        }
        let table = &page[page.find("Model per board").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        for (board, link) in [("mp1", "shm"), ("mp1", "pipe"), ("imx8", "shm"), ("imx8", "pipe")] {
            assert!(
                table.contains(&format!("<td class=\"l\">{board}</td><td class=\"l\">{link}</td>")),
                "{board} {link}: {table}"
            );
        }
    }

    #[test]
    fn runs_of_one_board_get_no_boards_section() {
        let (a, b) = (cells(300), cells(900));
        let runs = [
            ReportRun {
                view: crate::view::build(1, &crate::testing::meta(), &a),
                cells: &a,
                board: Some("mp1".into()),
            },
            ReportRun {
                view: crate::view::build(2, &crate::testing::meta(), &b),
                cells: &b,
                board: Some("mp1".into()),
            },
        ];
        let rep = build(&runs, None);
        assert!(!rep.html.contains("<h2>Boards</h2>"));
        assert!(rep.figures.iter().all(|f| !f.0.starts_with("boards-")));
    }
}
