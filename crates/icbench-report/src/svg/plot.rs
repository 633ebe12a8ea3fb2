//! XY plots: every series on one axis, or — past [`MAX_SERIES`] series —
//! small multiples, one panel per group on shared axes, with one legend
//! for the figure.
//! The legend ([`super::legend`]) names everything drawn that is not data.

use std::fmt::Write;

use super::legend::{
    Extra, Extras, MARK_DASH, MARK_STROKE, MODEL_DASH, MODEL_STROKE, REFERENCE_DASH,
    REFERENCE_STROKE, extra_entry, extra_items, legend_entry,
};
use super::scale::Scale;
use super::style::{Style, assign, style};
use super::{Area, Axis, H, Plot, Pt, Series, Tiles, W, axis_names, esc, frame, no_data, ticks};

/// The most series one axis carries; a figure with more is drawn as small
/// multiples, one panel per group (issue #18: 18 series on one axis).
pub const MAX_SERIES: usize = 6;

/// Which series go on which panel: one panel with every series when there
/// are at most [`MAX_SERIES`] (or only one group); otherwise one panel per
/// group, in order of first appearance. Each panel: its title (the group;
/// empty for a single panel) and its series' indices.
pub fn panels(series: &[Series]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, s) in series.iter().enumerate() {
        match groups.iter_mut().find(|g| g.0 == s.group) {
            Some(g) => g.1.push(i),
            None => groups.push((s.group.clone(), vec![i])),
        }
    }
    if series.len() <= MAX_SERIES || groups.len() < 2 {
        return vec![(String::new(), (0..series.len()).collect())];
    }
    groups
}

/// The figure's drawable data: whether a value can go on an axis.
struct Finite {
    xlog: bool,
    ylog: bool,
}

impl Finite {
    fn x(&self, v: f64) -> bool {
        v.is_finite() && (!self.xlog || v > 0.0)
    }
    fn y(&self, v: f64) -> bool {
        v.is_finite() && (!self.ylog || v > 0.0)
    }
    fn pt(&self, p: &Pt) -> bool {
        self.x(p.x) && self.y(p.y)
    }
}

fn scale_of(axis: &Axis, values: &[f64]) -> Scale {
    match axis.range {
        Some((lo, hi)) => Scale::exact(lo, hi, axis.log, 0.0, 1.0),
        None => {
            let (lo, hi) =
                values.iter().fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
            Scale::new(lo, hi, axis.log, 0.0, 1.0)
        }
    }
}

/// An XY plot. `id` is the SVG element's id (and the file stem with --svg).
pub fn plot(p: &Plot, id: &str) -> String {
    let f = Finite { xlog: p.x.log, ylog: p.y.log };
    let mut xv: Vec<f64> = Vec::new();
    let mut yv: Vec<f64> = Vec::new();
    for s in &p.series {
        for pt in s.points.iter().filter(|pt| f.pt(pt)) {
            xv.push(pt.x);
            yv.extend([Some(pt.y), pt.lo, pt.hi].into_iter().flatten().filter(|v| f.y(*v)));
        }
    }
    yv.extend(p.hlines.iter().map(|h| h.y).filter(|v| f.y(*v)));
    let layout = panels(&p.series);
    let multiple = layout.len() > 1;
    let mut out = String::new();
    if xv.is_empty() || yv.is_empty() {
        frame(&mut out, &p.title, id, W, H, "");
        no_data(&mut out, H);
        return out;
    }
    let xs = scale_of(&p.x, &xv);
    let ys = scale_of(&p.y, &yv);
    // The same name keeps its style in every panel.
    let names: Vec<String> =
        p.series.iter().map(|s| if multiple { s.short() } else { s.label() }).collect();
    let styles: Vec<Style> = assign(&names).into_iter().map(style).collect();
    let mut legend: Vec<(String, Style)> = Vec::new();
    for (n, st) in names.iter().zip(&styles) {
        if !legend.iter().any(|(m, _)| m == n) {
            legend.push((n.clone(), *st));
        }
    }
    let extras = Extras {
        model: p.series.iter().any(|s| s.model.len() > 1),
        marked: p.series.iter().any(|s| s.points.iter().any(|pt| pt.marked && f.pt(pt))),
    };
    let ctx = Ctx { p, f: &f, names: &names, styles: &styles, id };
    if multiple {
        small_multiples(&mut out, &ctx, &layout, xs, ys, &legend, &extras);
    } else {
        single(&mut out, &ctx, xs, ys, &legend, &extras);
    }
    out.push_str("</svg>");
    out
}

/// What drawing a panel needs from the figure.
struct Ctx<'a> {
    p: &'a Plot,
    f: &'a Finite,
    names: &'a [String],
    styles: &'a [Style],
    id: &'a str,
}

/// Every series on one axis; the legend on the right.
fn single(
    out: &mut String,
    c: &Ctx<'_>,
    xs: Scale,
    ys: Scale,
    legend: &[(String, Style)],
    extras: &Extras,
) {
    frame(out, &c.p.title, c.id, W, H, r#" data-panels="1""#);
    let area = Area { x0: 130.0, x1: W - 440.0, y0: H - 90.0, y1: 64.0 };
    axis_names(out, &c.p.x, &c.p.y, (area.x0, area.x1, H - 28.0), (34.0, area.y0, area.y1));
    let all: Vec<usize> = (0..c.p.series.len()).collect();
    panel(out, c, 0, area, xs, ys, &all, "");
    let (lx, mut ly) = (area.x1 + 28.0, area.y1 + 12.0);
    // The legend's room: names past it are cut, whole in their tooltip.
    let room = ((W - lx - 76.0) / 9.0) as usize;
    for (name, st) in legend {
        legend_entry(out, lx, ly, name, st, room);
        ly += 30.0;
    }
    for item in extra_items(c.p, extras) {
        extra_entry(out, lx, ly, &item);
        ly += 30.0;
    }
}

/// One panel per group in rows of up to three, a legend of every name
/// under the title, the axis names once for the figure.
fn small_multiples(
    out: &mut String,
    c: &Ctx<'_>,
    layout: &[(String, Vec<usize>)],
    xs: Scale,
    ys: Scale,
    legend: &[(String, Style)],
    extras: &Extras,
) {
    // The legend, wrapped into rows across the figure.
    let extra = extra_items(c.p, extras);
    let mut entries: Vec<(f64, f64, &str, Result<&Style, &Extra>)> = Vec::new();
    let (mut x, mut y) = (48.0, 70.0);
    let width = |s: &str| 66.0 + 9.5 * s.chars().count() as f64 + 26.0;
    let items = legend
        .iter()
        .map(|(n, st)| (n.as_str(), Ok(st)))
        .chain(extra.iter().map(|e| (e.text(), Err(e))));
    for (name, st) in items {
        if x + width(name) > W - 16.0 && x > 48.0 {
            x = 48.0;
            y += 30.0;
        }
        entries.push((x, y, name, st));
        x += width(name);
    }
    let tiles = Tiles::new(layout.len(), y + 26.0, 48.0);
    let h = tiles.bottom() + 60.0;
    frame(out, &c.p.title, c.id, W, h, &format!(r#" data-panels="{}""#, layout.len()));
    for (x, y, name, st) in entries {
        match st {
            Ok(st) => legend_entry(out, x, y, name, st, usize::MAX),
            Err(e) => extra_entry(out, x, y, e),
        }
    }
    axis_names(out, &c.p.x, &c.p.y, (tiles.left, W, h - 20.0), (22.0, tiles.top, tiles.bottom()));
    for (k, (title, members)) in layout.iter().enumerate() {
        let (tx, ty) = tiles.at(k);
        let area = Area {
            x0: tx + 100.0,
            x1: tx + tiles.w - 20.0,
            y0: ty + tiles.h - 48.0,
            y1: ty + 40.0,
        };
        let _ = write!(
            out,
            r#"<g class="panel" data-panel="{}"><text class="panel-title" x="{:.1}" y="{:.1}" font-size="18" font-weight="bold">{}</text>"#,
            esc(title),
            area.x0,
            ty + 26.0,
            esc(title)
        );
        panel(out, c, k, area, xs, ys, members, title);
        out.push_str("</g>");
    }
}

/// One axis: grid, ticks, reference lines, (context lines), the series.
#[allow(clippy::too_many_arguments)]
fn panel(
    out: &mut String,
    c: &Ctx<'_>,
    k: usize,
    area: Area,
    xs: Scale,
    ys: Scale,
    members: &[usize],
    title: &str,
) {
    let xs = xs.onto(area.x0, area.x1);
    let ys = ys.onto(area.y0, area.y1);
    ticks(out, area, &xs, &ys, c.p.x.unit, c.p.y.unit);
    let clip = format!("{}-clip{k}", c.id);
    let _ = write!(
        out,
        r#"<clipPath id="{}"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/></clipPath>"#,
        esc(&clip),
        area.x0,
        area.y1,
        area.x1 - area.x0,
        area.y0 - area.y1
    );
    // Named in the legend, not on the line (issue #29).
    for h in c.p.hlines.iter().filter(|h| c.f.y(h.y)) {
        let py = ys.px(h.y);
        let _ = write!(
            out,
            r#"<line class="reference" data-y="{}" x1="{:.1}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="{REFERENCE_STROKE}" stroke-width="1.6" stroke-dasharray="{REFERENCE_DASH}"><title>{}</title></line>"#,
            h.y,
            area.x0,
            area.x1,
            esc(&h.label)
        );
    }
    if c.p.context && !title.is_empty() {
        for (i, s) in c.p.series.iter().enumerate().filter(|(i, _)| !members.contains(i)) {
            if let Some(d) = line(s, c.f, &xs, &ys) {
                let _ = write!(
                    out,
                    r##"<path class="context" d="{d}" fill="none" stroke="#c4c4c4" stroke-width="1.4" clip-path="url(#{})"><title>{}</title></path>"##,
                    esc(&clip),
                    esc(&c.names[i])
                );
            }
        }
    }
    for &i in members {
        series(out, c, i, &xs, &ys, &clip);
    }
}

/// The path through a series' points, when x strictly increases (bulk
/// data can hold several points at one total size: those stay unjoined).
fn line(s: &Series, f: &Finite, xs: &Scale, ys: &Scale) -> Option<String> {
    let pts: Vec<&Pt> = s.points.iter().filter(|pt| f.pt(pt)).collect();
    if pts.len() < 2 || !pts.windows(2).all(|w| w[0].x < w[1].x) {
        return None;
    }
    let d: Vec<String> =
        pts.iter().map(|pt| format!("{:.1},{:.1}", xs.px(pt.x), ys.px(pt.y))).collect();
    Some(format!("M{}", d.join(" L")))
}

/// One series: its line in its colour and dash, CI bars, markers with a
/// tooltip each, and its model curve drawn thin.
fn series(out: &mut String, c: &Ctx<'_>, i: usize, xs: &Scale, ys: &Scale, clip: &str) {
    let s = &c.p.series[i];
    let st = c.styles[i];
    let clip = esc(clip);
    let _ = write!(out, r#"<g class="series-group" {}>"#, st.data(&c.names[i]));
    if let Some(d) = line(s, c.f, xs, ys) {
        let _ = write!(
            out,
            r#"<path class="series" d="{d}" fill="none" stroke="{}" stroke-width="2.4"{} clip-path="url(#{clip})"/>"#,
            st.colour,
            st.dash_attr()
        );
    }
    let model: Vec<String> = s
        .model
        .iter()
        .filter(|(x, y)| c.f.x(*x) && c.f.y(*y))
        .map(|(x, y)| format!("{:.1},{:.1}", xs.px(*x), ys.px(*y)))
        .collect();
    if model.len() > 1 {
        let _ = write!(
            out,
            r#"<path class="model" d="M{}" fill="none" stroke="{MODEL_STROKE}" stroke-width="1.6" stroke-dasharray="{MODEL_DASH}" clip-path="url(#{clip})"/>"#,
            model.join(" L"),
        );
    }
    let label = s.label();
    for (j, pt) in s.points.iter().enumerate().filter(|(_, pt)| c.f.pt(pt)) {
        let (px, py) = (xs.px(pt.x), ys.px(pt.y));
        let ci = match (pt.lo, pt.hi) {
            (Some(lo), Some(hi)) if c.f.y(lo) && c.f.y(hi) => Some((lo, hi)),
            _ => None,
        };
        if let Some((lo, hi)) = ci {
            let (a, b) = (ys.px(lo), ys.px(hi));
            // The interval's ends as given, for checks against the view.
            let _ = write!(
                out,
                r#"<path class="ci" data-lo="{lo}" data-hi="{hi}" d="M{px:.1},{a:.1} L{px:.1},{b:.1} M{:.1},{a:.1} L{:.1},{a:.1} M{:.1},{b:.1} L{:.1},{b:.1}" stroke="{}" stroke-width="1.6"/>"#,
                px - 6.0,
                px + 6.0,
                px - 6.0,
                px + 6.0,
                st.colour
            );
        }
        if s.marked.as_ref().is_some_and(|m| !m.contains(&j)) && !pt.marked {
            continue;
        }
        let mut tip = format!("{label}: {} → {}", c.p.x.unit.label(pt.x), c.p.y.unit.label(pt.y));
        if let Some((lo, hi)) = ci {
            let _ =
                write!(tip, " ({} {} … {})", c.p.bars, c.p.y.unit.label(lo), c.p.y.unit.label(hi));
        }
        if let Some(t) = s.tips.get(j).filter(|t| !t.is_empty()) {
            let _ = write!(tip, "; {t}");
        }
        if pt.marked {
            tip.push_str("; marked (!): see the notes");
            let _ = write!(
                out,
                r#"<circle class="mark-ring" cx="{px:.1}" cy="{py:.1}" r="11" fill="none" stroke="{MARK_STROKE}" stroke-width="1.8" stroke-dasharray="{MARK_DASH}"/>"#
            );
            st.marked_marker(out, px, py, 5.5, &tip);
        } else {
            st.marker(out, px, py, 5.5, pt.hollow, &tip);
        }
    }
    out.push_str("</g>");
}

#[cfg(test)]
mod tests {
    use super::super::{HLine, Unit};
    use super::*;

    fn series(group: &str, name: &str, n: usize) -> Series {
        Series {
            points: (0..n)
                .map(|i| Pt::new(2f64.powi(i as i32 * 2), 100.0 * (i + 1) as f64))
                .collect(),
            ..Series::new(group, name)
        }
    }

    fn fig(series: Vec<Series>) -> Plot {
        Plot {
            title: "t".into(),
            x: Axis::log("size", Unit::Bytes),
            y: Axis::log("RTT", Unit::Ns),
            series,
            hlines: vec![HLine { y: 50.0, label: "floor".into() }],
            bars: "repeat interval",
            context: true,
        }
    }

    /// The `data-series` values of an SVG's drawn series, with their
    /// marker and dash.
    fn styled(svg: &str) -> Vec<(String, String, String)> {
        svg.split(r#"<g class="series-group" data-series=""#)
            .skip(1)
            .map(|t| {
                let attr = |k: &str| {
                    t.split(&format!(r#"{k}=""#))
                        .nth(1)
                        .unwrap()
                        .split('"')
                        .next()
                        .unwrap()
                        .to_string()
                };
                (t.split('"').next().unwrap().to_string(), attr("data-marker"), attr("data-dash"))
            })
            .collect()
    }

    #[test]
    fn a_plot_draws_every_point_its_ci_and_its_model() {
        let s = Series {
            points: vec![Pt::ci(64.0, 1000.0, Some(900.0), Some(1100.0)), Pt::new(4096.0, 3000.0)],
            model: vec![(64.0, 1000.0), (4096.0, 3000.0)],
            ..Series::new("<pipe>", "")
        };
        let svg = plot(&fig(vec![s]), "fig");
        assert_eq!(svg.matches(r#"class="point""#).count(), 2);
        assert_eq!(svg.matches(r#"class="ci""#).count(), 1);
        assert_eq!(svg.matches(r#"class="model""#).count(), 1);
        assert_eq!(svg.matches(r#"class="reference""#).count(), 1);
        assert!(svg.contains("fitted line"));
        assert!(svg.contains("&lt;pipe&gt;") && !svg.contains("<pipe>"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        // Twice issue #18's 800 × 440.
        assert!(svg.contains(r#"width="1600" height="900""#), "{}", &svg[..200]);
    }

    #[test]
    fn six_series_share_an_axis_and_seven_get_a_panel_per_group() {
        let six: Vec<Series> = (0..6)
            .map(|i| series(&format!("link{}", i / 2), ["pingpong", "stream"][i % 2], 3))
            .collect();
        assert_eq!(panels(&six).len(), 1);
        let svg = plot(&fig(six), "f");
        assert!(svg.contains(r#"data-panels="1""#));
        // On one axis a series is named with its group.
        assert_eq!(styled(&svg)[1].0, "link0 stream");
        let seven: Vec<Series> = (0..7)
            .map(|i| series(&format!("link{}", i / 2), ["pingpong", "stream"][i % 2], 3))
            .collect();
        let p = panels(&seven);
        assert_eq!(p.len(), 4);
        assert_eq!(p[3], ("link3".to_string(), vec![6]));
        let svg = plot(&fig(seven), "f");
        assert!(svg.contains(r#"data-panels="4""#));
        assert_eq!(svg.matches(r#"<g class="panel""#).count(), 4);
        // Across panels a name keeps its style: two styles for 7 series.
        let s = styled(&svg);
        assert_eq!(s.len(), 7);
        assert!(s.iter().filter(|x| x.0 == "pingpong").all(|x| x.1 == s[0].1 && x.2 == s[0].2));
        assert!(s.iter().filter(|x| x.0 == "stream").all(|x| x.1 != s[0].1));
        // Other panels' lines stand behind each panel's own.
        assert!(svg.contains(r#"class="context""#));
        // Seven series of one group cannot be split: one axis.
        let one: Vec<Series> = (0..7).map(|i| series("pipe", &format!("{i}"), 2)).collect();
        assert_eq!(panels(&one).len(), 1);
    }

    #[test]
    fn every_series_on_an_axis_has_its_own_marker_and_dash() {
        let nine: Vec<Series> = (0..9).map(|i| series(&format!("l{i}"), "", 3)).collect();
        let svg = plot(&fig(nine), "f");
        let s = styled(&svg);
        let mut looks: Vec<(String, String)> =
            s.iter().map(|x| (x.1.clone(), x.2.clone())).collect();
        looks.sort();
        looks.dedup();
        assert_eq!(looks.len(), 9, "{s:?}");
        // The legend shows marker and dash too.
        assert_eq!(svg.matches(r#"<g class="legend-entry""#).count(), 9);
        assert!(svg.contains(r#"stroke-dasharray="10,5""#));
    }

    #[test]
    fn marked_points_alone_get_markers_and_tips_carry_extras() {
        let mut s = series("pipe", "", 5);
        s.marked = Some(vec![0, 4]);
        s.tips = vec!["p <0.001".into()];
        s.points[0].hollow = true;
        let svg = plot(&fig(vec![s]), "f");
        assert_eq!(svg.matches(r#"class="point""#).count(), 2);
        assert!(svg.contains("; p &lt;0.001</title>"));
        assert!(svg.contains(r##"fill="#ffffff""##), "the hollow marker");
    }

    #[test]
    fn a_long_name_is_cut_in_the_legend_and_whole_in_its_tooltip() {
        let long = "rpmsg-ctrl:/dev/rpmsg_ctrl0?name=rpmsg-icb&dst=1024 · icb ×32 ch [cpus=2,3]";
        let svg = plot(&fig(vec![series(long, "", 3)]), "f");
        let entry = svg.split(r#"<g class="legend-entry""#).nth(1).unwrap();
        let shown = entry.split("<text").nth(1).unwrap().split('>').nth(1).unwrap();
        assert!(shown.ends_with("…</text") || shown.ends_with('…'), "{shown}");
        assert!(entry.contains(&format!("<title>{}</title>", esc(long))));
    }

    /// Issue #29: a reference line's label is in the legend, not on the
    /// line over the data; a marked point is drawn marked and named there.
    #[test]
    fn references_and_marks_are_named_in_the_legend() {
        let mut s = series("pipe", "", 3);
        s.points[1].marked = true;
        let svg = plot(&fig(vec![s.clone()]), "f");
        let legend = svg.split(r#"<g class="legend-reference">"#).nth(1).unwrap();
        assert!(legend.contains(">floor</text>"));
        assert_eq!(svg.matches(">floor</text>").count(), 1);
        assert_eq!(svg.matches(r#"class="point marked""#).count(), 1);
        assert_eq!(svg.matches(r#"class="point""#).count(), 2);
        assert_eq!(svg.matches(r#"<g class="legend-marked">"#).count(), 1);
        // In panels too: one legend for the figure.
        let seven: Vec<Series> =
            (0..7).map(|i| Series { group: format!("l{i}"), ..s.clone() }).collect();
        let svg = plot(&fig(seven), "f");
        assert_eq!(svg.matches(r#"class="point marked""#).count(), 7);
        assert_eq!(svg.matches(r#"<g class="legend-marked">"#).count(), 1);
        assert_eq!(svg.matches(r#"<g class="legend-reference">"#).count(), 1);
        assert_eq!(svg.matches(r#"class="reference""#).count(), 7);
    }

    #[test]
    fn no_points_say_no_data() {
        let svg = plot(&fig(vec![Series::new("x", "")]), "f");
        assert!(svg.contains("no data") && svg.ends_with("</svg>"));
    }
}
