//! Figures against message size: round-trip latency with its CI and model
//! line, bulk transfer time, and payload throughput.

use crate::format;
use crate::model::ModelView;
use crate::names::link_label;
use crate::svg::{self, Axis, HLine, Plot, Pt, Series, Unit};
use crate::view::RunView;

use super::{Figures, plot_figure};

fn log_sizes(points: &[(f64, f64)]) -> Vec<f64> {
    let (lo, hi) = points.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    (0..=40).map(|i| lo * (hi / lo).powf(f64::from(i) / 40.0)).collect()
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

/// Adds `pt` to the series of `group`/`name`, starting it if new.
fn push(series: &mut Vec<Series>, group: &str, name: &str, pt: Pt) {
    match series.iter_mut().find(|s| s.group == group && s.name == name) {
        Some(s) => s.points.push(pt),
        None => series.push(Series { points: vec![pt], ..Series::new(group, name) }),
    }
}

/// The panels' note for a caption, when the figure has them.
fn panels_note(series: &[Series]) -> &'static str {
    if svg::panels(series).len() > 1 { " One panel per link, on shared axes." } else { "" }
}

pub(super) fn latency_figures(h: &mut String, figs: &mut Figures, v: &RunView, models: &ModelView) {
    let mut series: Vec<Series> = Vec::new();
    for r in v.pingpong.iter().filter(|r| r.status == "ok") {
        let Some(s) = &r.rtt_ns else { continue };
        let name = link_label(&r.link, r.channels);
        let pt = Pt::ci(r.size_bytes as f64, s.summary.p50, s.median_ci95_lo, s.median_ci95_hi);
        push(&mut series, &name, "", pt);
    }
    for s in &mut series {
        s.model = model_curve(models, &s.group, "pingpong");
    }
    let mut bulk: Vec<Series> = Vec::new();
    for r in v.bulk.iter().filter(|r| r.status == "ok") {
        let Some(s) = &r.transfer_ns else { continue };
        let pt = Pt::ci(r.total_bytes as f64, s.summary.p50, s.median_ci95_lo, s.median_ci95_hi);
        push(&mut bulk, &r.link, "", pt);
    }
    for s in &mut bulk {
        s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
        s.model = model_curve(models, &s.group, "bulk");
    }
    let floor = v.meta.floor.map(|f| HLine {
        y: f.cacheline_rtt_ns,
        label: format!("floor: cache-line round trip {}", format::ns(f.cacheline_rtt_ns)),
    });
    if !series.is_empty() {
        let note = panels_note(&series);
        let p = Plot {
            title: format!("Run {}: round-trip latency against message size", v.run_id),
            x: Axis::log("message size", Unit::Bytes),
            y: Axis::log("p50 round trip", Unit::Ns),
            series,
            hlines: floor.into_iter().collect(),
            context: true,
        };
        let id = format!("run{}-latency", v.run_id);
        plot_figure(
            h,
            figs,
            &p,
            id,
            &format!(
                "Median round trip per cell with its 95 % CI; thin line: the fitted line t = a + b·n; dotted: the floor measured in the same run.{note}{}",
                if note.is_empty() { "" } else { " Grey: the other links." }
            ),
        );
    }
    if !bulk.is_empty() {
        let note = panels_note(&bulk);
        let p = Plot {
            title: format!("Run {}: bulk transfer time against total bytes", v.run_id),
            x: Axis::log("bytes per transfer (block × blocks)", Unit::Bytes),
            y: Axis::log("transfer time", Unit::Ns),
            series: bulk,
            hlines: Vec::new(),
            context: true,
        };
        let id = format!("run{}-bulk", v.run_id);
        plot_figure(
            h,
            figs,
            &p,
            id,
            &format!(
                "Time of each whole transfer (one sample per point: no CI); thin line: the fitted line.{note}"
            ),
        );
    }
}

pub(super) fn throughput_figure(h: &mut String, figs: &mut Figures, v: &RunView) {
    let mut series: Vec<Series> = Vec::new();
    let mut add = |group: String, name: String, x: u64, bps: Option<f64>| {
        let Some(y) = bps.filter(|b| *b > 0.0) else { return };
        push(&mut series, &group, &name, Pt::new(x as f64, y));
    };
    for r in v.pingpong.iter().filter(|r| r.status == "ok") {
        add(link_label(&r.link, r.channels), "pingpong".into(), r.size_bytes, r.bytes_per_s);
    }
    for r in v.stream.iter().filter(|r| r.status == "ok") {
        // Host → peer as stream series always were; peer → host its own.
        let way = if r.direction == "h2p" { String::new() } else { format!(" {}", r.direction) };
        add(link_label(&r.link, r.channels), format!("stream{way}"), r.size_bytes, r.bytes_per_s);
    }
    for r in v.bulk.iter().filter(|r| r.status == "ok") {
        add(r.link.clone(), "bulk".into(), r.total_bytes, r.bytes_per_s);
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
    let note = panels_note(&series);
    let p = Plot {
        title: format!("Run {}: payload throughput against message size", v.run_id),
        x: Axis::log("message size", Unit::Bytes),
        y: Axis::log("payload bytes per second, one direction", Unit::BytesPerS),
        series,
        hlines: memcpy.into_iter().collect(),
        context: false,
    };
    let id = format!("run{}-throughput", v.run_id);
    plot_figure(
        h,
        figs,
        &p,
        id,
        &format!(
            "Payload bytes per second over each cell's measured window; dotted: single-thread memcpy bandwidth of the same run.{note}{}",
            if v.stream.is_empty() { "" } else { " The stream table below has every stream cell." }
        ),
    );
}
