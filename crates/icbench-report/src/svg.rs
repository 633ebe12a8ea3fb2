//! Hand-written SVG figures for the HTML report: XY plots on log or linear
//! axes with CI error bars, model lines and reference lines, histogram bar
//! charts, and heat maps (CPU pairs). Plain SVG 1.1 text, no fonts to embed
//! (the browser draws the text), no scripts; every label goes through
//! [`esc`].
//!
//! Each figure is a complete `<svg>` element, usable inline in HTML and as
//! a file of its own (`icbench report --svg DIR`).

use std::fmt::Write;

use crate::format;

/// Escapes text for HTML and SVG (element content and quoted attributes).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// How an axis's tick values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Ns,
    BytesPerS,
    Ratio,
    Count,
}

impl Unit {
    fn label(self, v: f64) -> String {
        match self {
            Unit::Bytes => format::bytes(v.round().max(0.0) as u64),
            Unit::Ns => format::ns(v),
            Unit::BytesPerS => format::rate(v, "B/s"),
            Unit::Ratio => format!("{}×", format::sig3(v)),
            Unit::Count if v.abs() < 1000.0 => format!("{v:.0}"),
            Unit::Count => format::rate(v, ""),
        }
    }
}

/// One axis.
#[derive(Debug, Clone)]
pub struct Axis {
    pub label: String,
    pub unit: Unit,
    pub log: bool,
}

/// A point with an optional 95 % CI (error bar) on y.
#[derive(Debug, Clone, Copy)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

/// A data series: markers joined by a thin line, and optionally a model
/// curve drawn dashed.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<Pt>,
    pub model: Vec<(f64, f64)>,
}

/// A horizontal reference line (the floor, ratio 1).
#[derive(Debug, Clone)]
pub struct HLine {
    pub y: f64,
    pub label: String,
}

#[derive(Debug, Clone)]
pub struct Plot {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub hlines: Vec<HLine>,
}

/// Colour-blind-safe palette (Okabe & Ito, 2008).
pub const PALETTE: [&str; 8] =
    ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];

const W: f64 = 800.0;
const H: f64 = 440.0;
const ML: f64 = 86.0;
const MR: f64 = 230.0;
const MT: f64 = 40.0;
const MB: f64 = 56.0;

struct Scale {
    lo: f64,
    hi: f64,
    log: bool,
    a: f64,
    b: f64,
}

impl Scale {
    fn new(mut lo: f64, mut hi: f64, log: bool, a: f64, b: f64) -> Scale {
        if log {
            lo = lo.max(1e-12).log10();
            hi = hi.max(1e-12).log10();
        }
        if hi.is_nan() || hi <= lo {
            let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
            lo -= pad;
            hi += pad;
        }
        let pad = (hi - lo) * 0.05;
        Scale { lo: lo - pad, hi: hi + pad, log, a, b }
    }

    fn px(&self, v: f64) -> f64 {
        let t = if self.log { v.max(1e-12).log10() } else { v };
        self.a + (t - self.lo) / (self.hi - self.lo) * (self.b - self.a)
    }

    /// Tick values within the range.
    fn ticks(&self, unit: Unit) -> Vec<f64> {
        if self.log {
            let (lo, hi) = (self.lo.floor() as i32, self.hi.ceil() as i32);
            let span = self.hi - self.lo;
            let mut out = Vec::new();
            if unit == Unit::Bytes {
                // Powers of 4 (1 B, 4 B, … 64 KiB) read better for sizes.
                let (l2, h2) = (
                    (self.lo * std::f64::consts::LOG2_10).floor() as i32,
                    (self.hi * std::f64::consts::LOG2_10).ceil() as i32,
                );
                let step = if span > 3.0 { 2 } else { 1 };
                for e in (l2.max(0)..=h2).filter(|e| e % step == 0) {
                    out.push(2f64.powi(e));
                }
            } else {
                for e in lo..=hi {
                    for m in if span < 2.5 { &[1.0, 2.0, 5.0][..] } else { &[1.0][..] } {
                        out.push(m * 10f64.powi(e));
                    }
                }
            }
            let inside = |v: &f64| (self.lo..=self.hi).contains(&v.log10());
            out.retain(inside);
            if out.len() < 2 && unit != Unit::Bytes {
                // A narrow range (a histogram of 280 … 450 ns) may hold no
                // 1, 2 or 5 × 10^e: every mantissa, else plain steps, so
                // that the axis still says what its values are.
                out = (lo..=hi)
                    .flat_map(|e| (1..10).map(move |m| f64::from(m) * 10f64.powi(e)))
                    .filter(inside)
                    .collect();
                if out.len() < 2 {
                    out = linear_ticks(10f64.powf(self.lo), 10f64.powf(self.hi));
                }
            }
            out
        } else {
            linear_ticks(self.lo, self.hi)
        }
    }
}

/// About six round steps (1, 2 or 5 × 10^e) from `lo` to `hi`.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let raw = (hi - lo) / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(mag);
    let mut v = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while v <= hi {
        out.push(v);
        v += step;
    }
    out
}

fn frame(out: &mut String, title: &str, id: &str) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" id="{}" class="figure" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12"><title>{}</title><rect width="{W}" height="{H}" fill="white"/><text x="{}" y="22" font-size="15" font-weight="bold">{}</text>"#,
        esc(id),
        esc(title),
        ML,
        esc(title)
    );
}

fn axes(out: &mut String, xs: &Scale, ys: &Scale, x: &Axis, y: &Axis) {
    let (x0, x1, y0, y1) = (ML, W - MR, H - MB, MT);
    for t in xs.ticks(x.unit) {
        let px = xs.px(t);
        let _ = write!(
            out,
            r##"<line x1="{px:.1}" y1="{y1}" x2="{px:.1}" y2="{y0}" stroke="#e5e5e5"/><text x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            y0 + 16.0,
            esc(&x.unit.label(t))
        );
    }
    for t in ys.ticks(y.unit) {
        let py = ys.px(t);
        let _ = write!(
            out,
            r##"<line x1="{x0}" y1="{py:.1}" x2="{x1}" y2="{py:.1}" stroke="#e5e5e5"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            x0 - 6.0,
            py + 4.0,
            esc(&y.unit.label(t))
        );
    }
    let _ = write!(
        out,
        r##"<path class="axis" d="M{x0},{y1} L{x0},{y0} L{x1},{y0}" fill="none" stroke="#333"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}{}</text><text transform="translate(18,{:.1}) rotate(-90)" text-anchor="middle">{}{}</text>"##,
        (x0 + x1) / 2.0,
        H - 14.0,
        esc(&x.label),
        if x.log { " (log scale)" } else { "" },
        (y0 + y1) / 2.0,
        esc(&y.label),
        if y.log { " (log scale)" } else { "" }
    );
}

fn legend(out: &mut String, entries: &[(String, &str, bool)]) {
    for (i, (name, colour, dashed)) in entries.iter().enumerate() {
        let y = MT + 8.0 + i as f64 * 18.0;
        let x = W - MR + 14.0;
        let _ = write!(
            out,
            r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="2"{}/><text x="{}" y="{}">{}</text>"#,
            x + 22.0,
            if *dashed { r#" stroke-dasharray="5,3""# } else { "" },
            x + 28.0,
            y + 4.0,
            esc(name)
        );
    }
}

/// An XY plot. `id` is the SVG element's id (and the file stem with --svg).
pub fn plot(p: &Plot, id: &str) -> String {
    let mut out = String::new();
    frame(&mut out, &p.title, id);
    let finite = |v: f64| v.is_finite() && (!p.y.log || v > 0.0);
    let mut xsv: Vec<f64> = Vec::new();
    let mut ysv: Vec<f64> = Vec::new();
    for s in &p.series {
        for pt in &s.points {
            xsv.push(pt.x);
            ysv.extend([Some(pt.y), pt.lo, pt.hi].into_iter().flatten().filter(|v| finite(*v)));
        }
    }
    ysv.extend(p.hlines.iter().map(|h| h.y).filter(|v| finite(*v)));
    if xsv.is_empty() || ysv.is_empty() {
        let _ = write!(out, r#"<text x="{}" y="{}">no data</text></svg>"#, ML, H / 2.0);
        return out;
    }
    let mm = |v: &[f64]| v.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let (xl, xh) = mm(&xsv);
    let (yl, yh) = mm(&ysv);
    let xs = Scale::new(xl, xh, p.x.log, ML, W - MR);
    let ys = Scale::new(yl, yh, p.y.log, H - MB, MT);
    axes(&mut out, &xs, &ys, &p.x, &p.y);
    let mut entries = Vec::new();
    for h in &p.hlines {
        let py = ys.px(h.y);
        let _ = write!(
            out,
            r##"<line class="reference" x1="{ML}" y1="{py:.1}" x2="{}" y2="{py:.1}" stroke="#777" stroke-width="1.5" stroke-dasharray="2,3"/><text x="{}" y="{:.1}" fill="#555" text-anchor="end">{}</text>"##,
            W - MR,
            W - MR - 4.0,
            py - 4.0,
            esc(&h.label)
        );
    }
    for (i, s) in p.series.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        let pts: Vec<&Pt> = s.points.iter().filter(|pt| finite(pt.y)).collect();
        // Join the markers only when x strictly increases (bulk data can
        // hold several points at one total size: those stay unjoined).
        if pts.len() > 1 && pts.windows(2).all(|w| w[0].x < w[1].x) {
            let d: Vec<String> =
                pts.iter().map(|pt| format!("{:.1},{:.1}", xs.px(pt.x), ys.px(pt.y))).collect();
            let _ = write!(
                out,
                r#"<path class="series" d="M{}" fill="none" stroke="{c}" stroke-width="1.5"/>"#,
                d.join(" L")
            );
        }
        for pt in &pts {
            let (px, py) = (xs.px(pt.x), ys.px(pt.y));
            if let (Some(lo), Some(hi)) = (pt.lo, pt.hi)
                && finite(lo)
                && finite(hi)
            {
                let (a, b) = (ys.px(lo), ys.px(hi));
                let _ = write!(
                    out,
                    r#"<path class="ci" d="M{px:.1},{a:.1} L{px:.1},{b:.1} M{:.1},{a:.1} L{:.1},{a:.1} M{:.1},{b:.1} L{:.1},{b:.1}" stroke="{c}" stroke-width="1.2"/>"#,
                    px - 4.0,
                    px + 4.0,
                    px - 4.0,
                    px + 4.0
                );
            }
            let _ = write!(
                out,
                r#"<circle class="point" cx="{px:.1}" cy="{py:.1}" r="3.2" fill="{c}"/>"#
            );
        }
        entries.push((s.name.clone(), c, false));
        let model: Vec<&(f64, f64)> = s.model.iter().filter(|(_, y)| finite(*y)).collect();
        if model.len() > 1 {
            let d: Vec<String> =
                model.iter().map(|(x, y)| format!("{:.1},{:.1}", xs.px(*x), ys.px(*y))).collect();
            let _ = write!(
                out,
                r#"<path class="model" d="M{}" fill="none" stroke="{c}" stroke-width="1.2" stroke-dasharray="5,3"/>"#,
                d.join(" L")
            );
            entries.push((format!("{} model", s.name), c, true));
        }
    }
    legend(&mut out, &entries);
    out.push_str("</svg>");
    out
}

/// A histogram: bars `(low, high, count)` on a log x axis of ns.
pub fn histogram(title: &str, id: &str, bars: &[(f64, f64, u64)], x_label: &str) -> String {
    let mut out = String::new();
    frame(&mut out, title, id);
    let bars: Vec<&(f64, f64, u64)> = bars.iter().filter(|b| b.0 > 0.0 && b.1 > b.0).collect();
    if bars.is_empty() {
        let _ = write!(out, r#"<text x="{}" y="{}">no data</text></svg>"#, ML, H / 2.0);
        return out;
    }
    let xl = bars.iter().map(|b| b.0).fold(f64::MAX, f64::min);
    let xh = bars.iter().map(|b| b.1).fold(f64::MIN, f64::max);
    let ymax = bars.iter().map(|b| b.2).max().unwrap_or(1) as f64;
    let xs = Scale::new(xl, xh, true, ML, W - MR);
    let ys = Scale { lo: 0.0, hi: ymax * 1.05, log: false, a: H - MB, b: MT };
    let x = Axis { label: x_label.to_string(), unit: Unit::Ns, log: true };
    let y = Axis { label: "samples".to_string(), unit: Unit::Count, log: false };
    axes(&mut out, &xs, &ys, &x, &y);
    for b in bars {
        let (x0, x1) = (xs.px(b.0), xs.px(b.1));
        let top = ys.px(b.2 as f64);
        let _ = write!(
            out,
            r##"<rect class="bar" x="{x0:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="#0072B2"><title>{} … {}: {}</title></rect>"##,
            (x1 - x0 - 0.5).max(0.8),
            (H - MB - top).max(0.0),
            esc(&format::ns(b.0)),
            esc(&format::ns(b.1)),
            b.2
        );
    }
    out.push_str("</svg>");
    out
}

/// One square of a [`Grid`]: a value coloured on the scale, or only text
/// (`n/a` on the diagonal, `failed`, `–`) on a neutral ground.
#[derive(Debug, Clone)]
pub struct GridCell {
    pub value: Option<f64>,
    /// What the square says (the value with its unit, or why there is none).
    pub text: String,
    /// The tooltip (`<title>`).
    pub tip: String,
    /// An unmeasurable square (the diagonal): drawn hatched grey.
    pub diagonal: bool,
}

/// A heat map: rows × columns of squares on a sequential colour scale.
#[derive(Debug, Clone)]
pub struct Grid {
    pub title: String,
    /// The axis names (`host CPU`, `peer CPU`).
    pub row_axis: String,
    pub col_axis: String,
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    /// `cells[i][j]`: row `i`, column `j`.
    pub cells: Vec<Vec<GridCell>>,
    /// What the values are (`p50 round trip`), for the legend.
    pub what: String,
    pub unit: Unit,
}

/// A sequential scale, light to dark (ColorBrewer "Blues", 9 classes:
/// Brewer & Harrower, colorbrewer2.org), interpolated in sRGB. The scale
/// starts at the second class: the first is too close to the white of a
/// square without a value.
const BLUES: [(u8, u8, u8); 9] = [
    (0xf7, 0xfb, 0xff),
    (0xde, 0xeb, 0xf7),
    (0xc6, 0xdb, 0xef),
    (0x9e, 0xca, 0xe1),
    (0x6b, 0xae, 0xd6),
    (0x42, 0x92, 0xc6),
    (0x21, 0x71, 0xb5),
    (0x08, 0x51, 0x9c),
    (0x08, 0x30, 0x6b),
];

/// The colour of `t` in 0 … 1 (light → dark) and whether text on it should
/// be white.
pub fn sequential(t: f64) -> (String, bool) {
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let x = 1.0 + t * (BLUES.len() - 2) as f64;
    let k = (x.floor() as usize).min(BLUES.len() - 2);
    let f = x - k as f64;
    let (a, b) = (BLUES[k], BLUES[k + 1]);
    let mix = |p: u8, q: u8| (f64::from(p) + f * (f64::from(q) - f64::from(p))).round() as u8;
    (format!("#{:02x}{:02x}{:02x}", mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2)), t > 0.55)
}

/// A heat map figure: one square per cell with its value printed in it,
/// the axes named, and a legend with the scale's minimum and maximum.
/// Colour is linear in the value between the smallest and largest shown.
pub fn heatmap(g: &Grid, id: &str) -> String {
    let n_cols = g.cols.len().max(1) as f64;
    let n_rows = g.rows.len().max(1) as f64;
    // Squares of 28 … 72 px; the figure grows with the CPU count.
    let side = (600.0 / n_cols.max(n_rows)).clamp(28.0, 72.0);
    let font = (side * 0.2).clamp(7.0, 12.0);
    let (left, top) = (96.0, 76.0);
    let (gw, gh) = (side * n_cols, side * n_rows);
    // Wide enough for the title (bold 15 px: about 9 px a character).
    let title_w = left + 9.0 * g.title.chars().count() as f64 + 20.0;
    let w = (left + gw + 200.0).max(520.0).max(title_w);
    let h = top + gh + 70.0;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" id="{}" class="figure heatmap" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12"><title>{}</title><rect width="{w:.0}" height="{h:.0}" fill="white"/><text x="{left}" y="22" font-size="15" font-weight="bold">{}</text>"#,
        esc(id),
        esc(&g.title),
        esc(&g.title)
    );
    let values: Vec<f64> =
        g.cells.iter().flatten().filter_map(|c| c.value).filter(|v| v.is_finite()).collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let t_of = |v: f64| if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
    // Axis names: columns above the grid, rows rotated on the left.
    let _ = write!(
        out,
        r#"<text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text><text class="axis-label" transform="translate(20,{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        left + gw / 2.0,
        top - 30.0,
        esc(&g.col_axis),
        top + gh / 2.0,
        esc(&g.row_axis)
    );
    for (j, c) in g.cols.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            left + (j as f64 + 0.5) * side,
            top - 8.0,
            esc(c)
        );
    }
    for (i, r) in g.rows.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 8.0,
            top + (i as f64 + 0.5) * side + 4.0,
            esc(r)
        );
    }
    for (i, row) in g.cells.iter().enumerate() {
        for (j, c) in row.iter().enumerate() {
            let (x, y) = (left + j as f64 * side, top + i as f64 * side);
            let (fill, white, class) = match c.value.filter(|v| v.is_finite()) {
                Some(v) => {
                    let (f, white) = sequential(t_of(v));
                    (f, white, "cell")
                }
                None if c.diagonal => ("#d9d9d9".to_string(), false, "diagonal"),
                None => ("#ffffff".to_string(), false, "empty"),
            };
            let _ = write!(
                out,
                r##"<rect class="{class}" x="{x:.1}" y="{y:.1}" width="{side:.1}" height="{side:.1}" fill="{fill}" stroke="#ffffff" stroke-width="1"><title>{}</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="{font:.1}" fill="{}">{}</text>"##,
                esc(&c.tip),
                x + side / 2.0,
                y + side / 2.0 + font * 0.35,
                if white { "#ffffff" } else { "#222222" },
                esc(&c.text)
            );
        }
    }
    // The grid's frame, then the legend: a stepped bar, min at the light end.
    let _ = write!(
        out,
        r##"<rect x="{left}" y="{top}" width="{gw:.1}" height="{gh:.1}" fill="none" stroke="#333"/>"##
    );
    let (lx, ly, lw, steps) = (left + gw + 30.0, top, 16.0, 24);
    let lh = gh.clamp(120.0, 260.0);
    let _ = write!(
        out,
        r#"<text x="{lx:.1}" y="{:.1}">{}</text>"#,
        ly - 8.0,
        esc(&format!("{} (linear)", g.what))
    );
    for k in 0..steps {
        let t = k as f64 / (steps - 1) as f64;
        let _ = write!(
            out,
            r#"<rect class="legend" x="{lx:.1}" y="{:.1}" width="{lw}" height="{:.2}" fill="{}"/>"#,
            ly + t * (lh - lh / steps as f64),
            lh / steps as f64 + 0.5,
            sequential(t).0
        );
    }
    let (min_s, max_s) = if values.is_empty() {
        ("no values".to_string(), String::new())
    } else {
        (format!("min {}", g.unit.label(lo)), format!("max {}", g.unit.label(hi)))
    };
    let _ = write!(
        out,
        r##"<rect x="{lx:.1}" y="{ly:.1}" width="{lw}" height="{lh:.1}" fill="none" stroke="#333"/><text class="legend-min" x="{:.1}" y="{:.1}">{}</text><text class="legend-max" x="{:.1}" y="{:.1}">{}</text>"##,
        lx + lw + 6.0,
        ly + 10.0,
        esc(&min_s),
        lx + lw + 6.0,
        ly + lh,
        esc(&max_s)
    );
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_the_five_html_specials() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(esc("shm?wait=futex ×8 ch"), "shm?wait=futex ×8 ch");
    }

    #[test]
    fn a_plot_draws_every_point_its_ci_and_its_model() {
        let s = Series {
            name: "<pipe>".into(),
            points: vec![
                Pt { x: 64.0, y: 1000.0, lo: Some(900.0), hi: Some(1100.0) },
                Pt { x: 4096.0, y: 3000.0, lo: None, hi: None },
            ],
            model: vec![(64.0, 1000.0), (4096.0, 3000.0)],
        };
        let p = Plot {
            title: "t".into(),
            x: Axis { label: "size".into(), unit: Unit::Bytes, log: true },
            y: Axis { label: "RTT".into(), unit: Unit::Ns, log: true },
            series: vec![s],
            hlines: vec![HLine { y: 100.0, label: "floor".into() }],
        };
        let svg = plot(&p, "fig");
        assert_eq!(svg.matches(r#"class="point""#).count(), 2);
        assert_eq!(svg.matches(r#"class="ci""#).count(), 1);
        assert_eq!(svg.matches(r#"class="model""#).count(), 1);
        assert_eq!(svg.matches(r#"class="reference""#).count(), 1);
        assert!(svg.contains("&lt;pipe&gt;") && !svg.contains("<pipe>"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }

    /// The x-axis tick labels of an SVG (those under the plot area).
    fn x_ticks(svg: &str) -> Vec<String> {
        let marker = format!(r#"y="{:.1}" text-anchor="middle">"#, H - MB + 16.0);
        svg.split(&marker).skip(1).map(|t| t.split('<').next().unwrap().to_string()).collect()
    }

    #[test]
    fn a_narrow_histogram_still_labels_its_axis() {
        // shm's 1 B round trips: 280 … 451 ns hold no 1, 2 or 5 × 10^e.
        let bars = [(280.0, 300.0, 3), (300.0, 350.0, 40), (350.0, 451.0, 7)];
        let ticks = x_ticks(&histogram("t", "h", &bars, "round trip"));
        assert!(ticks.len() >= 2, "{ticks:?}");
        assert!(ticks.iter().all(|t| t.ends_with(" ns")), "{ticks:?}");
        assert!(ticks.contains(&"300 ns".to_string()), "{ticks:?}");
        // Narrower still: plain steps.
        let ticks = x_ticks(&histogram("t", "h", &[(362.0, 366.0, 5), (366.0, 375.0, 9)], "rt"));
        assert!(ticks.len() >= 2, "{ticks:?}");
        // A wide one keeps its decades.
        let ticks = x_ticks(&histogram("t", "h", &[(100.0, 1e3, 1), (1e3, 1e6, 2)], "rt"));
        assert!(ticks.contains(&"1.00 µs".to_string()), "{ticks:?}");
    }

    #[test]
    fn the_sequential_scale_runs_light_to_dark() {
        assert_eq!(sequential(0.0), ("#deebf7".to_string(), false));
        assert_eq!(sequential(1.0), ("#08306b".to_string(), true));
        // Halfway between classes 5 (#6baed6) and 6 (#4292c6).
        assert_eq!(sequential(0.5).0, "#57a0ce");
        assert_eq!(sequential(f64::NAN).0, "#deebf7");
    }

    #[test]
    fn a_heat_map_draws_a_square_per_value_with_its_text_and_a_legend() {
        let c = |value: Option<f64>, text: &str, diagonal| GridCell {
            value,
            text: text.into(),
            tip: format!("<{text}>"),
            diagonal,
        };
        let g = Grid {
            title: "pipe <64 B>".into(),
            row_axis: "host CPU".into(),
            col_axis: "peer CPU".into(),
            rows: vec!["0".into(), "1".into()],
            cols: vec!["0".into(), "1".into()],
            cells: vec![
                vec![c(None, "n/a", true), c(Some(1000.0), "1.00 µs", false)],
                vec![c(Some(3000.0), "3.00 µs", false), c(None, "n/a", true)],
            ],
            what: "p50 round trip".into(),
            unit: Unit::Ns,
        };
        let svg = heatmap(&g, "hm");
        assert_eq!(svg.matches(r#"class="cell""#).count(), 2);
        assert_eq!(svg.matches(r#"class="diagonal""#).count(), 2);
        // The smallest value is the lightest colour, the largest the darkest.
        assert!(
            svg.contains(r##"fill="#deebf7" stroke"##)
                && svg.contains(r##"fill="#08306b" stroke"##)
        );
        assert!(svg.contains(">1.00 µs<") && svg.contains(">3.00 µs<") && svg.contains(">n/a<"));
        assert!(svg.contains(">host CPU<") && svg.contains(">peer CPU<"));
        assert!(svg.contains(">min 1.00 µs<") && svg.contains(">max 3.00 µs<"));
        assert!(svg.contains("pipe &lt;64 B&gt;") && !svg.contains("<64 B>"));
        assert!(svg.contains("&lt;n/a&gt;"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }
}
