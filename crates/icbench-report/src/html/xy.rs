//! Figures against message size: round-trip latency with its repeat
//! interval and model line, bulk transfer time, and payload throughput.
//!
//! Issue #29 (the report as a design-review document): a point's error bar
//! is the cell's repeat interval — where a repeat run's figure lands, from
//! the replicate blocks or the host's history
//! ([`ReplicatesView::interval`]) — not the within-cell CI of the median,
//! which says nothing of the next run; a cell without one draws no bar.
//! Marked cells (`!`, [`crate::marks::is_marked`]) are drawn marked; a
//! fitted line is drawn unless the model calls the fit poor; the floor
//! drawn is the one the summary's text compares with ([`FloorRef`]).

use crate::format;
use crate::model::ModelView;
use crate::names::link_label;
use crate::replicates::ReplicatesView;
use crate::summary::FloorRef;
use crate::svg::{self, Axis, HLine, Plot, Pt, Series, Unit};
use crate::view::RunView;

use super::{Figures, plot_figure};

/// What the error bars of these figures are, as the tooltips name them.
pub(super) const REPEAT: &str = "repeat interval";

fn log_sizes(points: &[(f64, f64)], steps: u32) -> Vec<f64> {
    let (lo, hi) = points.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    (0..=steps).map(|i| lo * (hi / lo).powf(f64::from(i) / f64::from(steps))).collect()
}

/// The fitted line of `link`'s `pattern` over its measured sizes in
/// `steps` steps, unless the model calls the fit poor (issue #29: a line
/// the model says not to quote is not drawn). A curved fit is drawn: the
/// model quotes it within the measured sizes, which is where it is drawn.
pub(super) fn model_curve(
    models: &ModelView,
    link: &str,
    pattern: &str,
    steps: u32,
) -> Vec<(f64, f64)> {
    models
        .models
        .iter()
        .find(|m| m.link == link && m.pattern == pattern)
        .filter(|m| matches!(m.quality, Some("good" | "curved")))
        .and_then(|m| {
            m.fit.map(|f| {
                log_sizes(&m.points, steps).into_iter().map(|x| (x, f.predict(x))).collect()
            })
        })
        .unwrap_or_default()
}

/// A cell's repeat interval when it is of `metric` (`p50_ns`,
/// `bytes_per_s`): a ping-pong's is of its round trip, so its point in the
/// throughput figure has none.
pub(super) fn repeat(r: &Option<ReplicatesView>, metric: &str) -> Option<(f64, f64)> {
    r.as_ref().filter(|r| r.metric == metric).and_then(ReplicatesView::interval)
}

/// The floor line as the summary's text names it: the two-line round trip
/// when the run has one, else the cache-line one.
fn floor_line(f: &FloorRef) -> HLine {
    HLine {
        y: f.round_trip_ns,
        label: format!("floor: {} {}", f.round_trip, format::ns(f.round_trip_ns)),
    }
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
        let pt = Pt {
            marked: crate::marks::is_marked(r.disturbance.as_ref(), r.replicates.as_ref()),
            ..Pt::within(r.size_bytes as f64, s.summary.p50, repeat(&r.replicates, "p50_ns"))
        };
        push(&mut series, &name, "", pt);
    }
    for s in &mut series {
        s.model = model_curve(models, &s.group, "pingpong", 40);
    }
    let mut bulk: Vec<Series> = Vec::new();
    for r in v.bulk.iter().filter(|r| r.status == "ok") {
        let Some(s) = &r.transfer_ns else { continue };
        let pt = Pt {
            marked: crate::marks::is_marked(r.disturbance.as_ref(), r.replicates.as_ref()),
            ..Pt::new(r.total_bytes as f64, s.summary.p50)
        };
        push(&mut bulk, &r.link, "", pt);
    }
    for s in &mut bulk {
        s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
        s.model = model_curve(models, &s.group, "bulk", 40);
    }
    let floor = v.summary.floor.as_ref().map(floor_line);
    if !series.is_empty() {
        let note = panels_note(&series);
        let p = Plot {
            title: format!("Run {}: round-trip latency against message size", v.run_id),
            x: Axis::log("message size", Unit::Bytes),
            y: Axis::log("p50 round trip", Unit::Ns),
            series,
            hlines: floor.into_iter().collect(),
            bars: REPEAT,
            context: true,
        };
        let id = format!("run{}-latency", v.run_id);
        plot_figure(
            h,
            figs,
            &p,
            id,
            &format!(
                "Median round trip per cell. Bars: the cell's repeat interval (where a repeat run's median lands, from its replicate blocks or the host's earlier runs); a cell without one has no bar. Open markers in a dotted ring: marked cells (! in the tables). Grey dashed: the fitted line t = a + b·n, unless the model calls the fit poor. Dotted: the floor the summary compares with, measured in the same run.{note}{}",
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
            bars: REPEAT,
            context: true,
        };
        let id = format!("run{}-bulk", v.run_id);
        plot_figure(
            h,
            figs,
            &p,
            id,
            &format!(
                "Time of each whole transfer (one sample per point: no interval). Grey dashed: the fitted line, unless the model calls the fit poor.{note}"
            ),
        );
    }
}

pub(super) fn throughput_figure(h: &mut String, figs: &mut Figures, v: &RunView) {
    let mut series: Vec<Series> = Vec::new();
    let mut add = |group: String, name: String, x: u64, bps: Option<f64>, pt: Pt| {
        let Some(y) = bps.filter(|b| *b > 0.0) else { return };
        push(&mut series, &group, &name, Pt { x: x as f64, y, ..pt });
    };
    let mark = |d: &Option<crate::DisturbanceView>, r: &Option<ReplicatesView>| {
        crate::marks::is_marked(d.as_ref(), r.as_ref())
    };
    for r in v.pingpong.iter().filter(|r| r.status == "ok") {
        // Its repeat interval is of the round trip: no bar here.
        let pt = Pt { marked: mark(&r.disturbance, &r.replicates), ..Pt::new(0.0, 0.0) };
        add(link_label(&r.link, r.channels), "pingpong".into(), r.size_bytes, r.bytes_per_s, pt);
    }
    for r in v.stream.iter().filter(|r| r.status == "ok") {
        // Host → peer as stream series always were; peer → host its own.
        let way = if r.direction == "h2p" { String::new() } else { format!(" {}", r.direction) };
        let pt = Pt {
            marked: mark(&r.disturbance, &r.replicates),
            ..Pt::within(0.0, 0.0, repeat(&r.replicates, "bytes_per_s"))
        };
        let name = format!("stream{way}");
        add(link_label(&r.link, r.channels), name, r.size_bytes, r.bytes_per_s, pt);
    }
    for r in v.bulk.iter().filter(|r| r.status == "ok") {
        let pt = Pt { marked: mark(&r.disturbance, &r.replicates), ..Pt::new(0.0, 0.0) };
        add(r.link.clone(), "bulk".into(), r.total_bytes, r.bytes_per_s, pt);
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    if series.is_empty() {
        return;
    }
    let memcpy = v.summary.floor.as_ref().map(|f| HLine {
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
        bars: REPEAT,
        context: false,
    };
    let id = format!("run{}-throughput", v.run_id);
    plot_figure(
        h,
        figs,
        &p,
        id,
        &format!(
            "Payload bytes per second over each cell's measured window. Bars: a stream cell's repeat interval (a ping-pong's is of its round trip, in the latency figure). Open markers in a dotted ring: marked cells (! in the tables). Dotted: single-thread memcpy bandwidth of the same run.{note}{}",
            if v.stream.is_empty() { "" } else { " The stream table below has every stream cell." }
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::super::tests::measured;
    use super::*;
    use icbench_model::{CellKey, CellResult, Pattern};

    /// Ping-pong cells of pipe in three blocks each, at the given sizes
    /// and round trips (ns) per block.
    fn blocks(cells: &[(u64, [u64; 3])]) -> Vec<CellResult> {
        let mut out = Vec::new();
        for (size, rtts) in cells {
            for (rep, rtt) in rtts.iter().enumerate() {
                let key = CellKey::new("pipe", Pattern::PingPong, *size).with("rep", rep as u32);
                out.push(measured(key, *rtt, 2000));
            }
        }
        out
    }

    fn latency_svg(cells: &[CellResult]) -> (RunView, String) {
        let v = crate::view::build(7, &crate::testing::meta(), cells);
        let models = crate::model::build(&v, &crate::model::ModelFilter::default());
        let (mut h, mut figs) = (String::new(), Figures::new());
        latency_figures(&mut h, &mut figs, &v, &models);
        let svg = figs.into_iter().find(|f| f.0 == "run7-latency").unwrap().1;
        (v, svg)
    }

    /// Every `attr="…"` value in `svg` of elements whose class is `class`.
    fn attrs(svg: &str, class: &str, attr: &str) -> Vec<f64> {
        svg.split(&format!(r#"class="{class}""#))
            .skip(1)
            .map(|t| t.split(&format!(r#"{attr}=""#)).nth(1).unwrap().split('"').next().unwrap())
            .map(|v| v.parse().unwrap())
            .collect()
    }

    /// Issue #29: the bars are the repeat intervals of the view, not the
    /// within-cell CIs; marked cells are drawn marked, the others not.
    #[test]
    fn error_bars_are_repeat_intervals_and_marked_cells_are_drawn_marked() {
        let cells = blocks(&[
            (64, [1000, 1010, 1005]),
            (1024, [2000, 2010, 2020]),
            (4096, [5000, 5010, 9000]),
            (16384, [15000, 15100, 15050]),
        ]);
        let (v, svg) = latency_svg(&cells);
        let want: Vec<(f64, f64)> = v
            .pingpong
            .iter()
            .filter_map(|r| r.replicates.as_ref().and_then(ReplicatesView::interval))
            .collect();
        assert!(!want.is_empty(), "no cell with an interval: {:?}", v.pingpong);
        let got: Vec<(f64, f64)> =
            attrs(&svg, "ci", "data-lo").into_iter().zip(attrs(&svg, "ci", "data-hi")).collect();
        assert_eq!(got, want);
        // Not the sample CI of the median.
        let ci = v.pingpong[0].rtt_ns.as_ref().unwrap().median_ci95_lo.unwrap();
        assert!(got.iter().all(|g| g.0 != ci));
        let marked = v
            .pingpong
            .iter()
            .filter(|r| crate::marks::is_marked(r.disturbance.as_ref(), r.replicates.as_ref()))
            .count();
        assert!(marked >= 1, "the 4 KiB cell's blocks disagree");
        assert_eq!(svg.matches(r#"class="point marked""#).count(), marked);
        assert_eq!(svg.matches(r#"class="point""#).count(), 4 - marked);
        assert_eq!(svg.matches(r#"class="mark-ring""#).count(), marked);
        assert!(svg.contains(r#"<g class="legend-marked">"#));
        assert!(svg.contains("marked (!): see the notes"));
    }

    #[test]
    fn a_cell_of_one_block_has_no_bar_and_nothing_marked_has_no_legend_entry() {
        let cells: Vec<CellResult> = [64u64, 1024, 4096]
            .iter()
            .map(|s| measured(CellKey::new("pipe", Pattern::PingPong, *s), 1000 + s, 2000))
            .collect();
        let (_, svg) = latency_svg(&cells);
        assert_eq!(svg.matches(r#"class="point""#).count(), 3);
        assert_eq!(svg.matches(r#"class="ci""#).count(), 0);
        assert!(!svg.contains("legend-marked") && !svg.contains("point marked"));
    }

    /// Issue #29: a fit the model calls poor is not drawn; a good one (or
    /// one curved within the measured sizes) is,
    /// grey and dashed as the legend shows it.
    #[test]
    fn only_a_good_fit_is_drawn_and_in_the_legend_s_style() {
        let line = |sizes: &[u64], rtt: &dyn Fn(u64) -> u64| -> Vec<CellResult> {
            sizes
                .iter()
                .map(|s| measured(CellKey::new("pipe", Pattern::PingPong, *s), rtt(*s), 2000))
                .collect()
        };
        let sizes = [64, 256, 1024, 4096, 16384];
        let good = line(&sizes, &|s| 1000 + s / 2);
        let (v, svg) = latency_svg(&good);
        let m = crate::model::build(&v, &crate::model::ModelFilter::default());
        assert!(
            matches!(m.models[0].quality, Some("good" | "curved")),
            "{:?}",
            m.models[0].verdict
        );
        assert_eq!(svg.matches(r#"class="model""#).count(), 1);
        let model = svg.split(r#"class="model""#).nth(1).unwrap();
        let legend = svg.split(r#"class="legend-model""#).nth(1).unwrap();
        for attr in [
            format!(r#"stroke="{}""#, svg::MODEL_STROKE),
            format!(r#"stroke-dasharray="{}""#, svg::MODEL_DASH),
        ] {
            assert!(model.split("/>").next().unwrap().contains(&attr), "{attr}");
            assert!(legend.split("/>").next().unwrap().contains(&attr), "{attr}");
        }
        // A zigzag: the line misses points by far more than 5 %.
        let poor = line(&sizes, &|s| if s % 512 == 0 { 1000 } else { 3000 });
        let (v, svg) = latency_svg(&poor);
        let m = crate::model::build(&v, &crate::model::ModelFilter::default());
        assert_eq!(m.models[0].quality, Some("poor"), "{:?}", m.models[0].verdict);
        assert_eq!(svg.matches(r#"class="model""#).count(), 0);
        assert!(!svg.contains("legend-model"));
    }

    /// Issue #29 item 4: the floor drawn is the one the summary's text
    /// compares with, under the same name.
    #[test]
    fn the_floor_drawn_is_the_summary_s() {
        let mut meta = crate::testing::meta();
        meta.floor = Some(icbench_model::Floor {
            cacheline_rtt_ns: 80.0,
            two_line_rtt_ns: Some(150.0),
            slot64_rtt_ns: None,
            memcpy_bytes_per_s: 5e9,
            memcpy_block_bytes: 1 << 20,
            syscall_pipe_rtt_ns: None,
            syscall_unix_rtt_ns: None,
            syscall_pipe: None,
            syscall_unix: None,
        });
        let cells = [measured(CellKey::new("pipe", Pattern::PingPong, 64), 1000, 2000)];
        let v = crate::view::build(7, &meta, &cells);
        let f = v.summary.floor.as_ref().expect("a measured run with a floor");
        assert_eq!(f.round_trip, "two-line round trip");
        let models = crate::model::build(&v, &crate::model::ModelFilter::default());
        let (mut h, mut figs) = (String::new(), Figures::new());
        latency_figures(&mut h, &mut figs, &v, &models);
        let svg = &figs[0].1;
        assert!(svg.contains(r#"class="reference" data-y="150""#), "{svg}");
        assert!(svg.contains(">floor: two-line round trip 150 ns</text>"));
        assert!(f.text().starts_with("floor: two-line round trip 150 ns"));
    }
}
