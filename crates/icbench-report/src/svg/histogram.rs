//! Histograms: bars of samples per log-spaced latency bin, on a log count
//! axis (a bin of one sample is a visible bar; a tail of a few samples is
//! not lost under a peak of thousands). Several histograms are drawn as
//! panels of one figure, each on its own axes.

use std::fmt::Write;

use super::scale::{Scale, log_count_scale_under};
use super::{Area, Axis, H, Tiles, Unit, W, axis_names, esc, frame, no_data, ticks};
use crate::format;

/// A vertical reference line in a histogram (a percentile of the cell).
#[derive(Debug, Clone)]
pub struct VLine {
    pub x: f64,
    pub label: String,
}

/// One histogram: bars `(low, high, count)` on a log x axis of ns.
#[derive(Debug, Clone)]
pub struct HistPanel {
    pub title: String,
    pub bars: Vec<(f64, f64, u64)>,
    pub lines: Vec<VLine>,
}

/// A figure of one histogram.
pub fn histogram(title: &str, id: &str, bars: &[(f64, f64, u64)], x_label: &str) -> String {
    let p = HistPanel { title: String::new(), bars: bars.to_vec(), lines: Vec::new() };
    histograms(title, id, &[p], x_label)
}

/// A figure of histograms, one panel each (a single one fills the figure).
pub fn histograms(title: &str, id: &str, panels: &[HistPanel], x_label: &str) -> String {
    let mut out = String::new();
    let drawable = |p: &HistPanel| p.bars.iter().any(|b| b.0 > 0.0 && b.1 > b.0);
    if !panels.iter().any(drawable) {
        frame(&mut out, title, id, W, H, "");
        no_data(&mut out, H);
        return out;
    }
    let x = Axis::log(x_label, Unit::Ns);
    let y = Axis::log("samples per bin", Unit::Count);
    let extra = format!(r#" data-panels="{}" data-count-axis="log""#, panels.len());
    if panels.len() == 1 {
        frame(&mut out, title, id, W, H, &extra);
        let area = Area { x0: 130.0, x1: W - 60.0, y0: H - 90.0, y1: 64.0 };
        axis_names(&mut out, &x, &y, (area.x0, area.x1, H - 28.0), (34.0, area.y0, area.y1));
        panel(&mut out, &panels[0], area);
    } else {
        let tiles = Tiles::new(panels.len(), 64.0, 48.0);
        let h = tiles.bottom() + 60.0;
        frame(&mut out, title, id, W, h, &extra);
        axis_names(&mut out, &x, &y, (tiles.left, W, h - 20.0), (22.0, tiles.top, tiles.bottom()));
        for (k, p) in panels.iter().enumerate() {
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
                esc(&p.title),
                area.x0,
                ty + 26.0,
                esc(&p.title)
            );
            panel(&mut out, p, area);
            out.push_str("</g>");
        }
    }
    out.push_str("</svg>");
    out
}

/// One histogram's axes, bars and reference lines in `area`.
fn panel(out: &mut String, p: &HistPanel, area: Area) {
    let bars: Vec<&(f64, f64, u64)> = p.bars.iter().filter(|b| b.0 > 0.0 && b.1 > b.0).collect();
    if bars.is_empty() {
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}">no samples</text>"#,
            area.x0 + 20.0,
            area.y1 + 40.0
        );
        return;
    }
    let xl = bars.iter().map(|b| b.0).fold(f64::MAX, f64::min);
    let xh = bars.iter().map(|b| b.1).fold(f64::MIN, f64::max);
    let ymax = bars.iter().map(|b| b.2).max().unwrap_or(1);
    let xs = Scale::new(xl, xh, true, area.x0, area.x1);
    // The lines' labels stand in rows above the tallest bar (issue #29:
    // they lay over the bars).
    let free = if p.lines.is_empty() { 0.0 } else { 26.0 + 20.0 * p.lines.len() as f64 };
    let ys = log_count_scale_under(ymax, area.y0, area.y1, free);
    ticks(out, area, &xs, &ys, Unit::Ns, Unit::Count);
    for b in bars.iter().filter(|b| b.2 > 0) {
        let (x0, x1) = (xs.px(b.0), xs.px(b.1));
        let top = ys.px(b.2 as f64);
        let _ = write!(
            out,
            r##"<rect class="bar" x="{x0:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="#0072B2"><title>{} … {}: {}</title></rect>"##,
            (x1 - x0 - 0.6).max(1.0),
            (area.y0 - top).max(0.0),
            esc(&format::ns(b.0)),
            esc(&format::ns(b.1)),
            b.2
        );
    }
    for (k, l) in p.lines.iter().enumerate().filter(|(_, l)| l.x.is_finite() && l.x > 0.0) {
        let px = xs.px(l.x).clamp(area.x0, area.x1);
        // Right of the line, or left of it where the panel ends.
        let room = px + 4.0 + 8.0 * l.label.chars().count() as f64 <= area.x1;
        let (tx, anchor) = if room { (px + 4.0, "start") } else { (px - 4.0, "end") };
        let _ = write!(
            out,
            r##"<line class="reference" x1="{px:.1}" y1="{:.1}" x2="{px:.1}" y2="{:.1}" stroke="#D55E00" stroke-width="1.6" stroke-dasharray="5,4"/><text x="{tx:.1}" y="{:.1}" fill="#8a3a00" font-size="14" text-anchor="{anchor}">{}</text>"##,
            area.y0,
            area.y1,
            // A row each, a line's height apart (issue #29: 16 px rows
            // of 14 px text touched).
            area.y1 + 18.0 + 20.0 * k as f64,
            esc(&l.label)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tick labels of one axis of an SVG.
    fn tick_labels(svg: &str, axis: &str) -> Vec<String> {
        svg.split(&format!(r#"class="tick {axis}""#))
            .skip(1)
            .map(|t| t.split('>').nth(1).unwrap().split('<').next().unwrap().to_string())
            .collect()
    }

    #[test]
    fn a_narrow_histogram_still_labels_its_axis() {
        // shm's 1 B round trips: 280 … 451 ns hold no 1, 2 or 5 × 10^e.
        let bars = [(280.0, 300.0, 3), (300.0, 350.0, 40), (350.0, 451.0, 7)];
        let ticks = tick_labels(&histogram("t", "h", &bars, "round trip"), "x");
        assert!(ticks.len() >= 2, "{ticks:?}");
        assert!(ticks.iter().all(|t| t.ends_with(" ns")), "{ticks:?}");
        assert!(ticks.contains(&"300 ns".to_string()), "{ticks:?}");
        // Narrower still: plain steps.
        let ticks =
            tick_labels(&histogram("t", "h", &[(362.0, 366.0, 5), (366.0, 375.0, 9)], "rt"), "x");
        assert!(ticks.len() >= 2, "{ticks:?}");
        // A wide one keeps its decades.
        let ticks = tick_labels(&histogram("t", "h", &[(100.0, 1e3, 1), (1e3, 1e6, 2)], "rt"), "x");
        assert!(ticks.contains(&"1 µs".to_string()), "{ticks:?}");
    }

    #[test]
    fn the_count_axis_is_log_and_a_tail_of_one_sample_shows() {
        // Issue #18: 50,000 round trips near 300 ns and 3 at 12–24 ms.
        let bars = [(280.0, 320.0, 50_000), (12e6, 24e6, 3), (24e6, 25e6, 1)];
        let svg = histogram("t", "h", &bars, "round trip");
        assert!(svg.contains(r#"data-count-axis="log""#));
        assert_eq!(tick_labels(&svg, "y"), ["1", "10", "100", "1000", "10 k"]);
        let heights: Vec<f64> = svg
            .split(r#"class="bar""#)
            .skip(1)
            .map(|t| {
                t.split(r#"height=""#).nth(1).unwrap().split('"').next().unwrap().parse().unwrap()
            })
            .collect();
        assert_eq!(heights.len(), 3);
        // On a linear axis 3 of 50,000 would be 0.05 px; here a bar of one
        // sample is tens of pixels, and each decade adds the same height.
        assert!(heights[2] > 20.0, "{heights:?}");
        assert!(heights[0] > heights[1] && heights[1] > heights[2]);
    }

    /// Issue #29: the percentile lines' labels stand above the tallest
    /// bar, a row each, not over the bars or each other.
    #[test]
    fn percentile_labels_stand_above_the_bars() {
        let lines = ["p50", "p99", "p99.9"]
            .iter()
            .enumerate()
            .map(|(k, l)| VLine { x: 150.0 + 40.0 * k as f64, label: format!("{l} 1 µs") })
            .collect();
        let p = HistPanel {
            title: "t".into(),
            bars: vec![(100.0, 200.0, 50_000), (200.0, 400.0, 20)],
            lines,
        };
        let svg = histograms("t", "h", &[p.clone(), p], "round trip");
        let num = |t: &str, k: &str| -> f64 {
            t.split(&format!(r#"{k}=""#))
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let tops: Vec<f64> = svg.split(r#"class="bar""#).skip(1).map(|t| num(t, "y")).collect();
        let rows: Vec<f64> = svg
            .split("<text ")
            .filter(|t| t.contains(r##"fill="#8a3a00""##))
            .map(|t| num(t, "y"))
            .collect();
        assert_eq!(rows.len(), 6);
        // Per panel: rows 20 px apart (14 px text), the lowest's descent
        // above the tallest bar.
        for (panel, bar) in rows.chunks(3).zip(tops.chunks(2)) {
            assert!(panel.windows(2).all(|w| w[1] - w[0] >= 18.0), "{panel:?}");
            assert!(panel[2] + 4.0 < bar[0], "{panel:?} over a bar at {}", bar[0]);
        }
    }

    #[test]
    fn several_histograms_are_panels_with_their_lines() {
        let p = |t: &str| HistPanel {
            title: t.into(),
            bars: vec![(100.0, 200.0, 10), (200.0, 400.0, 2)],
            lines: vec![VLine { x: 150.0, label: "p50".into() }],
        };
        let svg = histograms("t", "h", &[p("pipe 64 B"), p("<unix> 64 B")], "round trip");
        assert_eq!(svg.matches(r#"<g class="panel""#).count(), 2);
        assert_eq!(svg.matches(r#"class="bar""#).count(), 4);
        assert_eq!(svg.matches(r#"class="reference""#).count(), 2);
        assert!(svg.contains("&lt;unix&gt; 64 B") && !svg.contains("<unix>"));
        assert!(histograms("t", "h", &[], "x").contains("no data"));
    }
}
