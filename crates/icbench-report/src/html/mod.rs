//! `icbench report`: one self-contained HTML file (inline CSS and SVG, no
//! scripts, no network) to review a run by: for each run, its metadata and
//! warnings, latency against size with repeat-interval bars and the model line,
//! throughput against size with the stream table under it, the latency
//! distributions (HDR percentile plots to p99.99, CDFs, histograms on a
//! log count axis), heat maps of CPU pairs (a plan's `cpus = "all-pairs"`),
//! the statistics and the model; and a comparison section when several
//! runs are given.
//!
//! Figures with more than [`crate::svg::MAX_SERIES`] series are small
//! multiples, one panel per link; every series has its own colour, marker
//! and dash. Every string that comes from the store goes through [`esc`].

mod boards;
mod compare;
mod dist;
mod disturbed;
mod pairs;
mod summary;
mod tables;
mod xy;

use std::fmt::Write;

use icbench_model::CellResult;

pub use crate::distribution::bins;

use crate::compare::{CompareView, Input};
use crate::format;
use crate::model::{ModelFilter, ModelView};
use crate::svg::esc;
use crate::view::RunView;

/// One run as the report needs it.
#[derive(Debug)]
pub struct ReportRun<'a> {
    pub view: RunView,
    pub cells: &'a [CellResult],
    /// The board it was measured on (`icbench merge --board`), or `None`
    /// for its host name: runs of two or more boards get a boards section.
    pub board: Option<String>,
}

/// The HTML page and each figure on its own (file stem, SVG text).
#[derive(Debug)]
pub struct Report {
    pub html: String,
    pub figures: Vec<(String, String)>,
}

/// Figures are 1,600 px wide and scale down with the page; text stays in
/// a readable measure.
const CSS: &str = "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;max-width:1680px;\
margin:2em auto;padding:0 1.5em;color:#222}h1{font-size:1.7em}h2{border-bottom:2px solid #0072B2;\
padding-bottom:.2em;margin-top:2.5em}h3{margin-top:2em}p,ul{max-width:75em}\
table{border-collapse:collapse;margin:1em 0;font-size:.85em}\
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:right}th{background:#f2f2f2}\
td.l,th.l{text-align:left}.warn{background:#fff4e5;border-left:4px solid #D55E00;padding:.5em 1em}\
.imported{background:#eef5fb;border-left:4px solid #0072B2;padding:.5em 1em}figure{margin:1.5em 0}\
figure svg{display:block;width:100%;max-width:1600px;height:auto}\
figure svg.heatmap{width:auto;max-width:100%}\
figcaption{font-size:.9em;color:#444;max-width:75em;margin-top:.4em}.note{color:#555;font-size:.9em}\
.verdict{font-weight:bold;padding:.5em 1em;border-left:4px solid #009E73;background:#eef8f4}\
.verdict.not-fit-for-quoting{border-color:#D55E00;background:#fff4e5}\
.verdict.partly-reproducible{border-color:#E69F00;background:#fffbe5}";

/// Builds the report. `compare` is given when several runs are compared.
pub fn build(runs: &[ReportRun<'_>], compare: Option<&CompareView>) -> Report {
    let mut figs = Vec::new();
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>icbench report</title>\
         <style>{CSS}</style></head><body><h1>icbench report</h1><p class=\"note\">{} run{}: {}. \
         Times are round trips (RTT) unless said otherwise. Against message size, a bar is the \
         cell's repeat interval: where a repeat run's figure lands (none without replicate \
         blocks); in the comparison, the 95 % CI of the ratio. Open markers in a dotted ring are marked \
         cells (! in the tables). Each series has its own colour, marker and dash (the legend \
         shows all three); a figure of more than {} series has a panel per link. Hover over a \
         marker for its values.</p>",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        esc(&runs
            .iter()
            .map(|r| format!("run {} ({})", r.view.run_id, r.view.source))
            .collect::<Vec<_>>()
            .join(", ")),
        crate::svg::MAX_SERIES
    );
    for r in runs {
        run_section(&mut h, &mut figs, r);
    }
    boards::section(&mut h, &mut figs, runs);
    if let Some(c) = compare {
        compare::section(&mut h, &mut figs, c);
    }
    h.push_str("</body></html>\n");
    Report { html: h, figures: figs }
}

/// Figures as they are written: the page and the files of `--svg`.
pub(crate) type Figures = Vec<(String, String)>;

/// Puts a figure with its caption on the page and among the files.
pub(crate) fn figure(h: &mut String, figs: &mut Figures, id: String, svg: String, caption: &str) {
    let _ = write!(h, "<figure>{svg}<figcaption>{}</figcaption></figure>", esc(caption));
    figs.push((id, svg));
}

/// Draws `p` as the figure `id` with its caption.
pub(crate) fn plot_figure(
    h: &mut String,
    figs: &mut Figures,
    p: &crate::svg::Plot,
    id: String,
    caption: &str,
) {
    let drawn = crate::svg::plot(p, &id);
    figure(h, figs, id, drawn, caption);
}

fn meta_table(h: &mut String, v: &RunView) {
    let m = &v.meta;
    let mut rows: Vec<(&str, String)> = vec![
        ("source", v.source.clone()),
        ("host", m.hostname.clone()),
        ("CPU", m.cpu_model.clone()),
        ("Linux", m.kernel_release.clone()),
        ("started", format::unix_ns(m.started_unix_ns)),
        ("status", m.status.as_str().to_string()),
        ("icbench", m.icbench_version.clone()),
    ];
    if let Some(p) = &v.provenance {
        rows.push(("provenance", p.clone()));
    }
    if let Some(l) = &m.label {
        rows.insert(0, ("label", l.clone()));
    }
    if let Some(n) = &m.user_note {
        rows.insert(1.min(rows.len()), ("note", n.clone()));
    }
    if !v.is_imported() {
        rows.push((
            "CPUs",
            format!(
                "host {} ↔ peer {} ({} peer) · online {}",
                m.host_cpu,
                m.peer_cpu,
                m.peer_mode.as_str(),
                m.online_cpus
            ),
        ));
        rows.push((
            "scheduling",
            format!("{}{}", m.sched, if m.mlock { ", mlockall" } else { "" }),
        ));
        rows.push(("clock", crate::names::clock_line(m)));
        if let Some(g) = &m.governor {
            rows.push(("governor", g.clone()));
        }
        if let Some(f) = &m.floor {
            rows.push((
                "floor",
                format!(
                    "cache-line round trip {}{}{} · memcpy {}",
                    format::ns(f.cacheline_rtt_ns),
                    f.two_line_rtt_ns
                        .map(|t| format!(" · two-line round trip {}", format::ns(t)))
                        .unwrap_or_default(),
                    f.slot64_rtt_ns
                        .map(|t| format!(" · 64 B slot round trip {}", format::ns(t)))
                        .unwrap_or_default(),
                    format::rate(f.memcpy_bytes_per_s, "B/s")
                ),
            ));
        }
        rows.push(("command", m.command_line.join(" ")));
    }
    h.push_str("<table>");
    for (k, val) in rows {
        let _ =
            write!(h, "<tr><th class=\"l\">{}</th><td class=\"l\">{}</td></tr>", esc(k), esc(&val));
    }
    h.push_str("</table>");
    if v.is_imported() {
        let _ = write!(
            h,
            "<p class=\"imported\">Imported: another tool's results ({}), not measured by icbench.</p>",
            esc(&v.source)
        );
    }
    for n in &m.notes {
        let _ = write!(h, "<p class=\"note\">note: {}</p>", esc(n));
    }
    for w in &v.warnings {
        let _ = write!(h, "<p class=\"warn\">warning: {}</p>", esc(w));
    }
}

fn run_section(h: &mut String, figs: &mut Figures, r: &ReportRun<'_>) {
    let v = &r.view;
    let _ = write!(h, "<h2>Run {} · {}</h2>", v.run_id, esc(&v.source));
    summary::section(h, v);
    meta_table(h, v);
    let models: ModelView = crate::model::build(v, &ModelFilter::default());
    xy::latency_figures(h, figs, v, &models);
    xy::throughput_figure(h, figs, v);
    tables::stream_table(h, v);
    dist::figures(h, figs, v, r.cells);
    pairs::figures(h, figs, v);
    tables::stats_table(h, v);
    disturbed::html(h, v);
    tables::model_table(h, &models);
    tables::targets_table(h, v);
}

/// The comparison inputs for several runs.
pub fn compare_inputs<'a>(runs: &[ReportRun<'a>]) -> Vec<Input<'a>> {
    runs.iter()
        .enumerate()
        .map(|(i, r)| Input {
            side: crate::compare::Side {
                label: ((b'A' + (i % 26) as u8) as char).to_string(),
                run_id: r.view.run_id,
                source: r.view.source.clone(),
                hostname: r.view.meta.hostname.clone(),
                cpu_model: r.view.meta.cpu_model.clone(),
                link: None,
                board: r.board.clone().filter(|b| *b != r.view.meta.hostname),
            },
            cells: r.cells.iter().collect(),
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use icbench_model::{CellData, CellKey, CellOutcome, LatencyHistogram, Pattern};

    /// A measured cell of `n` round trips around `base` ns (a spread of
    /// 97 ns) and one at 40,000 × `base`: a tail.
    pub(crate) fn measured(key: CellKey, base: u64, n: u64) -> CellResult {
        let mut h = LatencyHistogram::new();
        (0..n).for_each(|i| h.record(base + i % 97));
        h.record(base * 40_000);
        CellResult {
            outcome: CellOutcome::Measured(CellData {
                messages: n + 1,
                bytes: (n + 1) * key.size_bytes,
                elapsed_ns: (n + 1) * base,
                warmup_messages: 0,
                latency: (key.pattern != Pattern::Stream).then_some(h),
                raw_ns: None,
                window: (key.pattern == Pattern::Stream).then_some(32),
                counters: Default::default(),
                channels: None,
                adaptive: None,
                per_channel: Vec::new(),
                disturbance: None,
                cut_at_messages: None,
                timed_batch: None,
                state: None,
            }),
            key,
        }
    }

    /// A ping-pong cell of 2,001 round trips.
    pub(crate) fn pingpong(link: &str, size: u64, base: u64) -> CellResult {
        measured(CellKey::new(link, Pattern::PingPong, size), base, 2000)
    }

    const LINKS: [&str; 9] =
        ["shm", "pipe", "unix", "seqpacket", "mq", "tcp", "netlink", "pty", "<b>x</b>"];

    fn nine_links() -> Vec<CellResult> {
        let mut cells = Vec::new();
        for (i, l) in LINKS.iter().enumerate() {
            for s in [1u64, 64, 4096] {
                cells.push(pingpong(l, s, 300 * (i as u64 + 1) + s / 10));
                let key = CellKey::new(*l, Pattern::Stream, s);
                cells.push(measured(key, 100 * (i as u64 + 1), 2000));
            }
        }
        cells
    }

    /// Every `attr="…"` value of a page.
    fn values<'a>(page: &'a str, attr: &str) -> Vec<&'a str> {
        page.split(&format!(" {attr}=\"")).skip(1).map(|t| t.split('"').next().unwrap()).collect()
    }

    #[test]
    fn a_nine_link_run_is_one_self_contained_page_of_panels() {
        let cells = nine_links();
        let view = crate::view::build(4, &crate::testing::meta(), &cells);
        let rep = build(&[ReportRun { view, cells: &cells, board: None }], None);
        let page = &rep.html;
        let ids: Vec<&str> = rep.figures.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(
            ids,
            ["run4-latency", "run4-throughput", "run4-percentiles", "run4-cdf", "run4-hist"]
        );
        // 9 links: 9 series of latency, 18 of throughput: panels.
        for (id, svg) in &rep.figures {
            assert!(svg.contains(r#"data-panels="9""#), "{id}");
        }
        // One file: no scripts, no fetches, nothing but the SVG namespace.
        assert!(!page.contains("<script") && !page.contains("<link") && !page.contains("<img"));
        assert_eq!(
            page.matches("http").count(),
            page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
        );
        // Ids are unique in the page and every clip path it uses is there.
        let mut all = values(page, "id");
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "duplicate ids");
        for url in values(page, "clip-path") {
            let id = url.trim_start_matches("url(#").trim_end_matches(')');
            assert!(all.binary_search(&id).is_ok(), "{url}");
        }
        // The store's strings are escaped, in figures and tables.
        assert!(!page.contains("<b>x</b>") && page.contains("&lt;b&gt;x&lt;/b&gt;"));
        assert!(page.contains(r#"<table class="stream">"#));
    }

    #[test]
    fn figures_are_twice_the_old_size() {
        let cells = nine_links();
        let view = crate::view::build(4, &crate::testing::meta(), &cells);
        let rep = build(&[ReportRun { view, cells: &cells, board: None }], None);
        for (id, svg) in &rep.figures {
            let w: f64 = values(svg, "width")[0].parse().unwrap();
            let h: f64 = values(svg, "height")[0].parse().unwrap();
            assert!(w >= 2.0 * 800.0 && h >= 2.0 * 440.0, "{id}: {w} × {h}");
        }
    }
}
