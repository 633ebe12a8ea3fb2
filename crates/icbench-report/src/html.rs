//! `icbench report`: one self-contained HTML file (inline CSS and SVG, no
//! scripts, no network) with, for each run, its metadata and warnings,
//! latency against size with 95 % CI bars and the model line, throughput
//! against size, latency histograms per link, the floor as a reference line,
//! heat maps of CPU pairs (a plan's `cpus = "all-pairs"`), the statistics
//! and the model; and a comparison section when several runs are given.
//! Every string that comes from the store goes through
//! [`esc`](crate::svg::esc).

use std::fmt::Write;

use icbench_model::{CellOutcome, CellResult, LatencyHistogram, Pattern};

use crate::compare::{CompareView, Input};
use crate::format;
use crate::model::{ModelFilter, ModelView};
use crate::svg::{self, Axis, HLine, Plot, Pt, Series, Unit, esc};
use crate::view::RunView;

/// One run as the report needs it.
#[derive(Debug)]
pub struct ReportRun<'a> {
    pub view: RunView,
    pub cells: &'a [CellResult],
}

/// The HTML page and each figure on its own (file stem, SVG text).
#[derive(Debug)]
pub struct Report {
    pub html: String,
    pub figures: Vec<(String, String)>,
}

const CSS: &str = "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;max-width:1100px;\
margin:2em auto;padding:0 1em;color:#222}h1{font-size:1.6em}h2{border-bottom:2px solid #0072B2;\
padding-bottom:.2em;margin-top:2em}table{border-collapse:collapse;margin:1em 0;font-size:.85em}\
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:right}th{background:#f2f2f2}\
td.l,th.l{text-align:left}.warn{background:#fff4e5;border-left:4px solid #D55E00;padding:.5em 1em}\
.imported{background:#eef5fb;border-left:4px solid #0072B2;padding:.5em 1em}figure{margin:1em 0}\
figcaption{font-size:.85em;color:#555}.note{color:#555;font-size:.9em}";

/// Builds the report. `compare` is given when several runs are compared.
pub fn build(runs: &[ReportRun<'_>], compare: Option<&CompareView>) -> Report {
    let mut figs = Vec::new();
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>icbench report</title>\
         <style>{CSS}</style></head><body><h1>icbench report</h1><p class=\"note\">{} run{}: {}. \
         Times are round trips (RTT) unless said otherwise; every error bar is a 95 % confidence \
         interval of the median.</p>",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        esc(&runs
            .iter()
            .map(|r| format!("run {} ({})", r.view.run_id, r.view.source))
            .collect::<Vec<_>>()
            .join(", "))
    );
    for r in runs {
        run_section(&mut h, &mut figs, r);
    }
    if let Some(c) = compare {
        compare_section(&mut h, &mut figs, c);
    }
    h.push_str("</body></html>\n");
    Report { html: h, figures: figs }
}

fn figure(
    h: &mut String,
    figs: &mut Vec<(String, String)>,
    id: String,
    svg: String,
    caption: &str,
) {
    let _ = write!(h, "<figure>{svg}<figcaption>{}</figcaption></figure>", esc(caption));
    figs.push((id, svg));
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
        rows.push(("clock", crate::table::clock_line(m)));
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

fn log_sizes(points: &[(f64, f64)]) -> Vec<f64> {
    let (lo, hi) = points.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    (0..=40).map(|i| lo * (hi / lo).powf(f64::from(i) / 40.0)).collect()
}

fn run_section(h: &mut String, figs: &mut Vec<(String, String)>, r: &ReportRun<'_>) {
    let v = &r.view;
    let id = v.run_id;
    let _ = write!(h, "<h2>Run {id} · {}</h2>", esc(&v.source));
    meta_table(h, v);
    let models = crate::model::build(v, &ModelFilter::default());
    latency_figure(h, figs, v, &models);
    throughput_figure(h, figs, v);
    cpu_pair_figures(h, figs, v);
    histogram_figures(h, figs, id, r.cells);
    stats_table(h, v);
    crate::disturbed::html(h, v);
    model_table(h, &models);
    targets_table(h, v);
}

/// Issue 2's targets against the run's own floor, with the reason under a
/// verdict that needs one.
fn targets_table(h: &mut String, v: &RunView) {
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

fn model_curve(models: &ModelView, link: &str, pattern: &str) -> Vec<(f64, f64)> {
    models
        .models
        .iter()
        .find(|m| m.link == link && m.pattern == pattern)
        .and_then(|m| {
            m.fit.map(|f| log_sizes(&m.points).into_iter().map(|x| (x, f.predict(x))).collect())
        })
        .unwrap_or_default()
}

fn latency_figure(
    h: &mut String,
    figs: &mut Vec<(String, String)>,
    v: &RunView,
    models: &ModelView,
) {
    let mut series: Vec<Series> = Vec::new();
    for r in v.pingpong.iter().filter(|r| r.status == "ok") {
        let Some(s) = &r.rtt_ns else { continue };
        let name = crate::table::link_label(&r.link, r.channels);
        let pt = Pt {
            x: r.size_bytes as f64,
            y: s.summary.p50,
            lo: s.median_ci95_lo,
            hi: s.median_ci95_hi,
        };
        match series.iter_mut().find(|x| x.name == name) {
            Some(x) => x.points.push(pt),
            None => series.push(Series { name, points: vec![pt], model: Vec::new() }),
        }
    }
    for s in &mut series {
        s.model = model_curve(models, &s.name, "pingpong");
    }
    let mut bulk: Vec<Series> = Vec::new();
    for r in v.bulk.iter().filter(|r| r.status == "ok") {
        let Some(s) = &r.transfer_ns else { continue };
        let pt = Pt {
            x: r.total_bytes as f64,
            y: s.summary.p50,
            lo: s.median_ci95_lo,
            hi: s.median_ci95_hi,
        };
        match bulk.iter_mut().find(|x| x.name == r.link) {
            Some(x) => x.points.push(pt),
            None => bulk.push(Series { name: r.link.clone(), points: vec![pt], model: Vec::new() }),
        }
    }
    for s in &mut bulk {
        s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
        s.model = model_curve(models, &s.name, "bulk");
    }
    let floor = v.meta.floor.map(|f| HLine {
        y: f.cacheline_rtt_ns,
        label: format!("floor: cache-line round trip {}", format::ns(f.cacheline_rtt_ns)),
    });
    if !series.is_empty() {
        let p = Plot {
            title: format!("Run {}: round-trip latency against message size", v.run_id),
            x: Axis { label: "message size".into(), unit: Unit::Bytes, log: true },
            y: Axis { label: "p50 round trip".into(), unit: Unit::Ns, log: true },
            series,
            hlines: floor.into_iter().collect(),
        };
        let id = format!("run{}-latency", v.run_id);
        let svg = svg::plot(&p, &id);
        figure(
            h,
            figs,
            id,
            svg,
            "Median round trip per cell with its 95 % CI; dashed: the fitted line t = a + b·n; dotted: the floor measured in the same run.",
        );
    }
    if !bulk.is_empty() {
        let p = Plot {
            title: format!("Run {}: bulk transfer time against total bytes", v.run_id),
            x: Axis {
                label: "bytes per transfer (block × blocks)".into(),
                unit: Unit::Bytes,
                log: true,
            },
            y: Axis { label: "transfer time".into(), unit: Unit::Ns, log: true },
            series: bulk,
            hlines: Vec::new(),
        };
        let id = format!("run{}-bulk", v.run_id);
        let svg = svg::plot(&p, &id);
        figure(
            h,
            figs,
            id,
            svg,
            "Time of each whole transfer (one sample per point: no CI); dashed: the fitted line.",
        );
    }
}

fn throughput_figure(h: &mut String, figs: &mut Vec<(String, String)>, v: &RunView) {
    let mut series: Vec<Series> = Vec::new();
    let mut add = |name: String, x: u64, bps: Option<f64>| {
        let Some(y) = bps.filter(|b| *b > 0.0) else { return };
        let pt = Pt { x: x as f64, y, lo: None, hi: None };
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(pt),
            None => series.push(Series { name, points: vec![pt], model: Vec::new() }),
        }
    };
    for r in v.pingpong.iter().filter(|r| r.status == "ok") {
        add(
            format!("{} pingpong", crate::table::link_label(&r.link, r.channels)),
            r.size_bytes,
            r.bytes_per_s,
        );
    }
    for r in v.stream.iter().filter(|r| r.status == "ok") {
        // Host → peer as stream series always were; peer → host its own.
        let way = if r.direction == "h2p" { String::new() } else { format!(" {}", r.direction) };
        add(
            format!("{} stream{way}", crate::table::link_label(&r.link, r.channels)),
            r.size_bytes,
            r.bytes_per_s,
        );
    }
    for r in v.bulk.iter().filter(|r| r.status == "ok") {
        add(format!("{} bulk", r.link), r.total_bytes, r.bytes_per_s);
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    if series.is_empty() {
        return;
    }
    let memcpy = v.meta.floor.map(|f| HLine {
        y: f.memcpy_bytes_per_s,
        label: format!("memcpy {}", format::rate(f.memcpy_bytes_per_s, "B/s")),
    });
    let p = Plot {
        title: format!("Run {}: payload throughput against message size", v.run_id),
        x: Axis { label: "message size".into(), unit: Unit::Bytes, log: true },
        y: Axis {
            label: "payload bytes per second, one direction".into(),
            unit: Unit::BytesPerS,
            log: true,
        },
        series,
        hlines: memcpy.into_iter().collect(),
    };
    let id = format!("run{}-throughput", v.run_id);
    let svg = svg::plot(&p, &id);
    figure(
        h,
        figs,
        id,
        svg,
        "Payload bytes per second over each cell's measured window; dotted: single-thread memcpy bandwidth of the same run.",
    );
}

/// One heat map per CPU-pair group (a plan's `cpus = "all-pairs"`).
fn cpu_pair_figures(h: &mut String, figs: &mut Vec<(String, String)>, v: &RunView) {
    for (k, m) in v.cpu_pairs.iter().enumerate() {
        let n = m.cpus.len();
        let cells = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        let e = m.matrix[i][j];
                        let text = crate::table::pair_text(m, i, j);
                        let tip = match e {
                            Some(p) => format!(
                                "host CPU {} → peer CPU {}: {} ({} cell{}{})",
                                m.cpus[i],
                                m.cpus[j],
                                text,
                                p.cells,
                                if p.cells == 1 { "" } else { "s" },
                                if p.not_measured > 0 {
                                    format!(", {} not measured", p.not_measured)
                                } else {
                                    String::new()
                                }
                            ),
                            None if i == j => {
                                format!("CPU {}: host and peer are one CPU", m.cpus[i])
                            }
                            None => format!(
                                "host CPU {} → peer CPU {}: not in this run",
                                m.cpus[i], m.cpus[j]
                            ),
                        };
                        svg::GridCell {
                            value: e.and_then(|p| p.value),
                            text,
                            tip,
                            diagonal: i == j,
                        }
                    })
                    .collect()
            })
            .collect();
        let labels: Vec<String> = m.cpus.iter().map(u32::to_string).collect();
        let g = svg::Grid {
            title: format!("Run {}: {} per CPU pair, {}", v.run_id, m.what(), m.title()),
            row_axis: "host CPU".into(),
            col_axis: "peer CPU".into(),
            rows: labels.clone(),
            cols: labels,
            cells,
            what: m.what(),
            unit: if m.is_latency() { Unit::Ns } else { Unit::BytesPerS },
        };
        let id = format!("run{}-cpus{k}", v.run_id);
        let svg = svg::heatmap(&g, &id);
        let reps = match m.max_cells() {
            0 | 1 => String::new(),
            n => format!(" Each square is the median of up to {n} repeated cells' values."),
        };
        figure(
            h,
            figs,
            id,
            svg,
            &format!(
                "{} per ordered CPU pair (row: the host CPU, column: the peer CPU); darker is larger, linear between the minimum and maximum shown. The diagonal is empty: host and peer need two CPUs.{reps}",
                m.what()
            ),
        );
    }
}

/// Log-spaced bins of a histogram's recorded values, ns.
pub fn bins(hist: &LatencyHistogram, n: usize) -> Vec<(f64, f64, u64)> {
    let inner = hist.inner();
    if hist.is_empty() {
        return Vec::new();
    }
    let lo = (inner.lowest_equivalent(inner.min()) as f64).max(1.0);
    let hi = (inner.highest_equivalent(inner.max()) as f64 + 1.0).max(lo * 1.01);
    let edges: Vec<f64> = (0..=n).map(|i| lo * (hi / lo).powf(i as f64 / n as f64)).collect();
    let mut counts = vec![0u64; n];
    for it in inner.iter_recorded() {
        let v = inner.median_equivalent(it.value_iterated_to()) as f64;
        let k = edges.partition_point(|&e| e <= v).saturating_sub(1).min(n - 1);
        counts[k] += it.count_at_value();
    }
    (0..n).map(|i| (edges[i], edges[i + 1], counts[i])).collect()
}

fn histogram_figures(
    h: &mut String,
    figs: &mut Vec<(String, String)>,
    run: i64,
    cells: &[CellResult],
) {
    // Per link: the smallest size's ping-pong histogram; every timer cell.
    let mut chosen: Vec<&CellResult> = Vec::new();
    for c in cells {
        let CellOutcome::Measured(d) = &c.outcome else { continue };
        if d.latency.as_ref().is_none_or(|l| l.len() < 2) {
            continue;
        }
        match c.key.pattern {
            Pattern::Timer => chosen.push(c),
            Pattern::PingPong => {
                if let Some(prev) = chosen
                    .iter_mut()
                    .find(|p| p.key.link == c.key.link && p.key.pattern == Pattern::PingPong)
                {
                    if c.key.size_bytes < prev.key.size_bytes {
                        *prev = c;
                    }
                } else {
                    chosen.push(c);
                }
            }
            _ => {}
        }
    }
    for (i, c) in chosen.iter().enumerate() {
        let CellOutcome::Measured(d) = &c.outcome else { continue };
        let Some(l) = &d.latency else { continue };
        let (what, x) = match c.key.pattern {
            Pattern::Timer => (format!("{} wake-up latency", c.key.link), "wake-up latency"),
            _ => (
                format!("{} {} round trips", c.key.link, format::bytes(c.key.size_bytes)),
                "round trip",
            ),
        };
        let id = format!("run{run}-hist{i}");
        let svg = svg::histogram(&format!("Run {run}: {what}"), &id, &bins(l, 48), x);
        figure(
            h,
            figs,
            id,
            svg,
            &format!(
                "Distribution of {} samples, log-spaced bins (from the stored HDR histogram).",
                l.len()
            ),
        );
    }
}

fn stats_table(h: &mut String, v: &RunView) {
    let rows: Vec<(&str, String, String, &crate::CellStats)> = v
        .pingpong
        .iter()
        .filter_map(|r| {
            r.rtt_ns.as_ref().map(|s| {
                (
                    "pingpong",
                    crate::table::link_label(
                        &crate::table::link_name(&r.link, &r.protocol),
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
                    crate::table::link_name(&r.link, &r.protocol),
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

fn model_table(h: &mut String, models: &ModelView) {
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

fn compare_section(h: &mut String, figs: &mut Vec<(String, String)>, c: &CompareView) {
    h.push_str("<h2>Comparison</h2><ul>");
    for s in &c.sides {
        let _ = write!(
            h,
            "<li>{}: run {} ({}) · {} · {}</li>",
            esc(&s.label),
            s.run_id,
            esc(&s.source),
            esc(&s.hostname),
            esc(&s.cpu_model)
        );
    }
    h.push_str("</ul>");
    let mut series: Vec<Series> = Vec::new();
    for r in c.rows.iter().filter(|r| r.metric == "p50_ns") {
        let name = format!("{} {} → {}", r.link, r.baseline, r.other);
        let pt =
            Pt { x: r.size_bytes as f64, y: r.ratio, lo: r.ratio_ci95_lo, hi: r.ratio_ci95_hi };
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(pt),
            None => series.push(Series { name, points: vec![pt], model: Vec::new() }),
        }
    }
    if !series.is_empty() {
        let p = Plot {
            title: "Ratio of medians (other ÷ baseline) against size".into(),
            x: Axis { label: "message size".into(), unit: Unit::Bytes, log: true },
            y: Axis { label: "ratio of p50".into(), unit: Unit::Ratio, log: true },
            series,
            hlines: vec![HLine { y: 1.0, label: "no difference".into() }],
        };
        let svg = svg::plot(&p, "compare-ratio");
        figure(
            h,
            figs,
            "compare-ratio".into(),
            svg,
            "Below 1: the other run is faster. Bars: 95 % CI of the ratio.",
        );
    }
    h.push_str("<table><tr><th class=\"l\">link</th><th class=\"l\">pattern</th><th>size</th><th>sides</th><th>baseline</th><th>other</th><th>ratio (95% CI)</th><th>p (Mann–Whitney)</th><th>p (Welch)</th><th class=\"l\">significant</th></tr>");
    for r in &c.rows {
        let val =
            |v: f64| if r.metric == "bytes_per_s" { format::rate(v, "B/s") } else { format::ns(v) };
        let ci = match (r.ratio_ci95_lo, r.ratio_ci95_hi) {
            (Some(lo), Some(hi)) => format!(" ({} … {})", format::ratio(lo), format::ratio(hi)),
            _ => String::new(),
        };
        let p = format::p_value;
        let sig = match r.significant {
            Some(true) => "yes".to_string(),
            Some(false) => "no".to_string(),
            None => format!("no test: {}", r.note.as_deref().unwrap_or("")),
        };
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{} → {}</td><td>{} (n={})</td><td>{} (n={})</td><td>{}{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            esc(&r.link),
            r.pattern,
            esc(&format::bytes(r.size_bytes)),
            esc(&r.baseline),
            esc(&r.other),
            esc(&val(r.baseline_value)),
            r.baseline_count,
            esc(&val(r.other_value)),
            r.other_count,
            esc(&format::ratio(r.ratio)),
            esc(&ci),
            p(r.mann_whitney_p),
            p(r.welch_p),
            esc(&sig)
        );
    }
    h.push_str("</table>");
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
            },
            cells: r.cells.iter().collect(),
        })
        .collect()
}
