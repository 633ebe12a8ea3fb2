//! Hand-written SVG figures for the HTML report: XY plots on log or linear
//! axes with CI error bars, model lines and reference lines, and histogram
//! bar charts. Plain SVG 1.1 text, no fonts to embed (the browser draws the
//! text), no scripts; every label goes through [`esc`].
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
            out.retain(|&v| {
                let t = v.log10();
                t >= self.lo && t <= self.hi
            });
            out
        } else {
            let raw = (self.hi - self.lo) / 6.0;
            let mag = 10f64.powf(raw.log10().floor());
            let step =
                [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(mag);
            let mut v = (self.lo / step).ceil() * step;
            let mut out = Vec::new();
            while v <= self.hi {
                out.push(v);
                v += step;
            }
            out
        }
    }
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
}
