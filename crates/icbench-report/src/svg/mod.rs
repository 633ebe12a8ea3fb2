//! Hand-written SVG figures for the HTML report: XY plots on log or linear
//! axes with CI error bars, model lines and reference lines ([`plot`]),
//! histograms on a log count axis ([`histograms`]), and heat maps
//! ([`heatmap`]). Plain SVG 1.1 text, no fonts to embed (the browser draws
//! the text), no scripts; every label goes through [`esc`].
//!
//! Figures are 1,600 px wide (twice issue #18's 800) and scale down to the
//! page. A figure that would carry more than [`MAX_SERIES`] series on one
//! axis is drawn as small multiples: one panel per group (a link), on
//! shared axes. Every series has its own colour, marker and dash
//! ([`style`]), named in a legend that shows all three.
//!
//! Renderers only place what they are given: percentiles, CDF points and
//! bins come from [`crate::distribution`], statistics from the view.
//!
//! Each figure is a complete `<svg>` element, usable inline in HTML and as
//! a file of its own (`icbench report --svg DIR`).

mod heatmap;
mod histogram;
mod legend;
mod plot;
mod scale;
mod style;

pub use heatmap::{Grid, GridCell, heatmap, sequential};
pub use histogram::{HistPanel, VLine, histogram, histograms};
pub use legend::{MODEL_DASH, MODEL_STROKE};
pub use plot::{MAX_SERIES, panels, plot};
pub use scale::{HDR_TICKS, hdr_x};
pub use style::{
    DASHES, DISTINCT, DISTINCT_IN_GREY, MARKERS, Marker, PALETTE, Style, assign, style,
};

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
    /// An HDR percentile axis: values are 1 / (1 − p) ([`hdr_x`]), labelled
    /// as the percentile (`99.9 %`).
    Percentile,
    /// A fraction 0 … 1, labelled in per cent (a CDF).
    Fraction,
}

impl Unit {
    pub fn label(self, v: f64) -> String {
        match self {
            Unit::Bytes => format::bytes(v.round().max(0.0) as u64),
            Unit::Ns => format::ns(v),
            Unit::BytesPerS => format::rate(v, "B/s"),
            Unit::Ratio => format!("{}×", format::sig3(v)),
            Unit::Count if v.abs() < 10_000.0 => format!("{v:.0}"),
            Unit::Count => {
                // 10 k, 12.5 k, 1 M: no trailing zeros on round counts.
                let text = format::rate(v, "");
                match text.split_once(' ') {
                    Some((n, unit)) if n.contains('.') => {
                        format!("{} {unit}", n.trim_end_matches('0').trim_end_matches('.'))
                    }
                    _ => text,
                }
            }
            Unit::Percentile => {
                // 90 %, 99 %, 99.9 %, 99.99 %: as many decimals as nines.
                let decimals = (v.max(1.0).log10().round() as i32 - 2).max(0) as usize;
                format!("{:.decimals$} %", 100.0 * (1.0 - 1.0 / v.max(1.0)))
            }
            Unit::Fraction => format!("{:.0} %", v * 100.0),
        }
    }

    /// A tick's label: [`label`](Self::label) without trailing zeros
    /// (`10 µs`, not `10.0 µs`; `1 GB/s`), and a ratio to as many digits as
    /// the tick has (`0.125×`, not `0.13×`): issue #29, a tick is a round
    /// value and reads as one.
    pub fn tick(self, v: f64) -> String {
        match self {
            Unit::Ratio => {
                // Four significant digits at most, then the shortest form.
                let d = format::sig_decimals(v, 4);
                let text = format!("{v:.d$}");
                let text = if text.contains('.') {
                    text.trim_end_matches('0').trim_end_matches('.')
                } else {
                    &text
                };
                format!("{text}×")
            }
            Unit::Percentile | Unit::Fraction | Unit::Count | Unit::Bytes => self.label(v),
            Unit::Ns | Unit::BytesPerS => {
                let text = self.label(v);
                match text.split_once(' ') {
                    Some((n, unit)) if n.contains('.') => {
                        format!("{} {unit}", n.trim_end_matches('0').trim_end_matches('.'))
                    }
                    _ => text,
                }
            }
        }
    }
}

/// One axis.
#[derive(Debug, Clone)]
pub struct Axis {
    pub label: String,
    pub unit: Unit,
    pub log: bool,
    /// A fixed range (no padding) instead of the data's: a CDF's 0 … 1, an
    /// HDR axis from p0 to p99.99.
    pub range: Option<(f64, f64)>,
}

impl Axis {
    /// A log axis over the data's range.
    pub fn log(label: impl Into<String>, unit: Unit) -> Axis {
        Axis { label: label.into(), unit, log: true, range: None }
    }

    /// A linear axis over the data's range.
    pub fn linear(label: impl Into<String>, unit: Unit) -> Axis {
        Axis { label: label.into(), unit, log: false, range: None }
    }

    /// The same axis over a fixed range.
    pub fn over(self, lo: f64, hi: f64) -> Axis {
        Axis { range: Some((lo, hi)), ..self }
    }
}

/// A point with an optional interval (error bar) on y: what the interval
/// is, the figure says ([`Plot::bars`]).
#[derive(Debug, Clone, Copy)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// Drawn as an open marker (a comparison that is not significant).
    pub hollow: bool,
    /// The cell is marked (`!` in the tables: disturbed, its blocks
    /// disagree, too few of them, …): drawn as a marked marker, named in
    /// the legend (issue #29).
    pub marked: bool,
}

impl Pt {
    pub fn new(x: f64, y: f64) -> Pt {
        Pt { x, y, lo: None, hi: None, hollow: false, marked: false }
    }

    pub fn ci(x: f64, y: f64, lo: Option<f64>, hi: Option<f64>) -> Pt {
        Pt { x, y, lo, hi, hollow: false, marked: false }
    }

    /// The point with an interval `(lo, hi)`, when there is one.
    pub fn within(x: f64, y: f64, interval: Option<(f64, f64)>) -> Pt {
        Pt::ci(x, y, interval.map(|i| i.0), interval.map(|i| i.1))
    }
}

/// A data series: markers joined by a line in the series' dash, and
/// optionally a model curve drawn thin.
#[derive(Debug, Clone, Default)]
pub struct Series {
    /// The panel it goes to when the figure is drawn as small multiples
    /// (the link), or empty.
    pub group: String,
    /// Its name within the group (a size, a pattern), or empty when the
    /// group names it.
    pub name: String,
    pub points: Vec<Pt>,
    pub model: Vec<(f64, f64)>,
    /// What a point's tooltip adds (p-values …), by point; may be shorter
    /// than `points`.
    pub tips: Vec<String>,
    /// The points that get a marker; `None`: every point. A curve of 200
    /// points (a CDF) marks a few, so that its style can still be read.
    pub marked: Option<Vec<usize>>,
}

impl Series {
    pub fn new(group: impl Into<String>, name: impl Into<String>) -> Series {
        Series { group: group.into(), name: name.into(), ..Series::default() }
    }

    /// Its name on an axis shared with other groups: `pipe pingpong`.
    pub fn label(&self) -> String {
        match (self.group.as_str(), self.name.as_str()) {
            (g, "") => g.to_string(),
            ("", n) => n.to_string(),
            (g, n) if g == n => n.to_string(),
            (g, n) => format!("{g} {n}"),
        }
    }

    /// Its name within its own panel of small multiples.
    pub fn short(&self) -> String {
        if self.name.is_empty() { self.group.clone() } else { self.name.clone() }
    }
}

/// A horizontal reference line (the floor, ratio 1), named in the legend
/// (issue #29: a label drawn on the line lay over the data).
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
    /// What the error bars are, as a point's tooltip names its interval:
    /// `repeat interval` (where a repeat run's figure lands), `95 % CI`.
    pub bars: &'static str,
    /// In small multiples, every other panel's lines drawn thin and grey
    /// behind a panel's own (for one series per panel: where the link
    /// stands among the others).
    pub context: bool,
}

/// Width of every XY figure, px.
pub const W: f64 = 1600.0;
/// Height of a single-axis XY figure, px.
pub const H: f64 = 900.0;
/// Text sizes, px.
pub(crate) const FONT: f64 = 16.0;
pub(crate) const TITLE_FONT: f64 = 24.0;

/// The opening of a figure: `<svg>` with its id, size and title. `extra`
/// goes into the `<svg>` tag (data attributes).
fn frame(out: &mut String, title: &str, id: &str, w: f64, h: f64, extra: &str) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" id="{}" class="figure" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{FONT}"{extra}><title>{}</title><rect width="{w:.0}" height="{h:.0}" fill="white"/><text x="40" y="36" font-size="{TITLE_FONT}" font-weight="bold">{}</text>"#,
        esc(id),
        esc(title),
        esc(title)
    );
}

/// A figure's "no data" in place of its marks.
fn no_data(out: &mut String, h: f64) {
    let _ = write!(out, r#"<text x="120" y="{}">no data</text></svg>"#, h / 2.0);
}

/// Where the panels of small multiples go: `n` tiles of one size in rows
/// of up to three, below `top`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tiles {
    pub n: usize,
    pub cols: usize,
    pub w: f64,
    pub h: f64,
    pub left: f64,
    pub top: f64,
}

impl Tiles {
    /// Tiles for `n` panels across [`W`], the first row at `top`; `left` is
    /// kept free for a shared axis label.
    pub(crate) fn new(n: usize, top: f64, left: f64) -> Tiles {
        let cols = match n {
            0 | 1 => 1,
            2 | 4 => 2,
            _ => 3,
        };
        let w = (W - left - 16.0) / cols as f64;
        Tiles { n, cols, w, h: (w * 0.66).max(300.0), left, top }
    }

    pub(crate) fn rows(&self) -> usize {
        self.n.div_ceil(self.cols)
    }

    /// The top-left corner of tile `k`.
    pub(crate) fn at(&self, k: usize) -> (f64, f64) {
        (self.left + (k % self.cols) as f64 * self.w, self.top + (k / self.cols) as f64 * self.h)
    }

    /// The bottom of the last row.
    pub(crate) fn bottom(&self) -> f64 {
        self.top + self.rows() as f64 * self.h
    }
}

/// The rectangle data is drawn in: x from `x0` to `x1`, y from `y0`
/// (bottom) up to `y1` (top).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Area {
    pub x0: f64,
    pub x1: f64,
    pub y0: f64,
    pub y1: f64,
}

/// Which of the labels centred at `at` (px, in order) to draw so that none
/// overlaps the next: from the last one back (on an HDR axis the tail's
/// labels matter most), each `size(k)` px wide plus a gap.
fn spaced(at: &[f64], size: impl Fn(usize) -> f64) -> Vec<bool> {
    let mut keep = vec![false; at.len()];
    let mut edge = f64::INFINITY;
    for k in (0..at.len()).rev() {
        let half = size(k) / 2.0;
        if (at[k] + half + 10.0) <= edge || edge.is_infinite() {
            keep[k] = true;
            edge = at[k] - half;
        }
    }
    keep
}

/// Grid lines and tick labels of both axes within `area`, and its frame.
/// Tick labels carry `class="tick x"` / `class="tick y"`; where they would
/// overlap (a panel of small multiples), some go unlabelled, their grid
/// lines stay.
fn ticks(out: &mut String, area: Area, xs: &scale::Scale, ys: &scale::Scale, x: Unit, y: Unit) {
    let Area { x0, x1, y0, y1 } = area;
    let xt: Vec<(f64, String)> = xs.ticks(x).into_iter().map(|t| (t, x.tick(t))).collect();
    let at: Vec<f64> = xt.iter().map(|(t, _)| xs.px(*t)).collect();
    let keep = spaced(&at, |k| 8.6 * xt[k].1.chars().count() as f64);
    for (k, (_, label)) in xt.iter().enumerate() {
        let px = at[k];
        let _ = write!(
            out,
            r##"<line x1="{px:.1}" y1="{y1:.1}" x2="{px:.1}" y2="{y0:.1}" stroke="#e3e3e3"/>"##
        );
        if keep[k] {
            let _ = write!(
                out,
                r#"<text class="tick x" x="{px:.1}" y="{:.1}" text-anchor="middle" font-size="15">{}</text>"#,
                // Clear of the lowest y label beside the corner (issue #29:
                // "10.0 µs" over "0 %" of a CDF).
                y0 + 24.0,
                esc(label)
            );
        }
    }
    let yt = ys.ticks(y);
    // Up the axis: pixel values fall, so space their negatives.
    let at: Vec<f64> = yt.iter().map(|t| -ys.px(*t)).collect();
    let keep = spaced(&at, |_| 12.0);
    for (k, t) in yt.iter().enumerate() {
        let py = -at[k];
        let _ = write!(
            out,
            r##"<line x1="{x0:.1}" y1="{py:.1}" x2="{x1:.1}" y2="{py:.1}" stroke="#e3e3e3"/>"##
        );
        if keep[k] {
            let _ = write!(
                out,
                r#"<text class="tick y" x="{:.1}" y="{:.1}" text-anchor="end" font-size="15">{}</text>"#,
                x0 - 8.0,
                py + 5.0,
                esc(&y.tick(*t))
            );
        }
    }
    let _ = write!(
        out,
        r##"<path class="axis" d="M{x0:.1},{y1:.1} L{x0:.1},{y0:.1} L{x1:.1},{y0:.1}" fill="none" stroke="#333"/>"##
    );
}

/// The names of the axes: x centred under `x0 … x1` at `y`, y rotated at
/// `left`, centred on `y0 … y1`.
fn axis_names(
    out: &mut String,
    x: &Axis,
    y: &Axis,
    (x0, x1, xy): (f64, f64, f64),
    (left, y0, y1): (f64, f64, f64),
) {
    let name = |a: &Axis| {
        let scale = match (a.log, a.unit) {
            (true, Unit::Percentile) => " (log scale of 1 / (1 − p))",
            (true, _) => " (log scale)",
            (false, _) => "",
        };
        esc(&format!("{}{scale}", a.label))
    };
    let _ = write!(
        out,
        r#"<text class="axis-name" x="{:.1}" y="{xy:.1}" text-anchor="middle">{}</text><text class="axis-name" transform="translate({left:.1},{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        (x0 + x1) / 2.0,
        name(x),
        (y0 + y1) / 2.0,
        name(y)
    );
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
    fn units_label_percentiles_and_fractions() {
        assert_eq!(Unit::Percentile.label(hdr_x(0.999)), "99.9 %");
        assert_eq!(Unit::Percentile.label(1.0), "0 %");
        assert_eq!(Unit::Fraction.label(0.5), "50 %");
        assert_eq!(Unit::Ratio.label(0.25), "0.25×");
        assert_eq!(Unit::Count.label(1000.0), "1000");
        assert_eq!(Unit::Count.label(10_000.0), "10 k");
        assert_eq!(Unit::Count.label(12_500.0), "12.5 k");
        assert_eq!(Unit::Count.label(1e6), "1 M");
    }

    #[test]
    fn tick_labels_are_round_values_without_trailing_zeros() {
        // Issue #29: "10.0 µs" on an axis of round values.
        assert_eq!(Unit::Ns.tick(10_000.0), "10 µs");
        assert_eq!(Unit::Ns.tick(1000.0), "1 µs");
        assert_eq!(Unit::Ns.tick(2500.0), "2.5 µs");
        assert_eq!(Unit::Ns.tick(300.0), "300 ns");
        assert_eq!(Unit::BytesPerS.tick(1e9), "1 GB/s");
        assert_eq!(Unit::BytesPerS.tick(1e8), "100 MB/s");
        // Powers of two keep their digits: 0.125×, not 0.13×.
        assert_eq!(Unit::Ratio.tick(0.125), "0.125×");
        assert_eq!(Unit::Ratio.tick(0.0625), "0.0625×");
        assert_eq!(Unit::Ratio.tick(1.0), "1×");
        assert_eq!(Unit::Ratio.tick(0.7000000000000001), "0.7×");
        assert_eq!(Unit::Ratio.tick(16.0), "16×");
        assert_eq!(Unit::Percentile.tick(hdr_x(0.999)), "99.9 %");
    }

    #[test]
    fn a_series_is_named_by_its_group_and_name() {
        assert_eq!(Series::new("pipe", "pingpong").label(), "pipe pingpong");
        assert_eq!(Series::new("pipe", "pipe").label(), "pipe");
        assert_eq!(Series::new("pipe", "").label(), "pipe");
        assert_eq!(Series::new("pipe", "").short(), "pipe");
        assert_eq!(Series::new("pipe", "64 B").short(), "64 B");
    }

    #[test]
    fn crowded_tick_labels_are_thinned_from_the_tail_back() {
        // Room for all.
        assert_eq!(spaced(&[0.0, 100.0, 200.0], |_| 50.0), [true; 3]);
        // An HDR axis in a narrow panel: 0 % and 50 % 29 px apart, the
        // decades 98 px: 50 % loses to nothing, 0 % goes.
        let at = [0.0, 29.0, 98.0, 196.0, 294.0, 392.0];
        assert_eq!(
            spaced(&at, |k| [3.0, 4.0, 4.0, 4.0, 6.0, 7.0][k] * 8.6),
            [false, true, true, true, true, true]
        );
        // Every other one of crowded equal steps.
        let at: Vec<f64> = (0..9).map(|k| k as f64 * 45.0).collect();
        let keep = spaced(&at, |_| 50.0);
        assert_eq!(keep.iter().filter(|k| **k).count(), 5);
        assert!(keep[8] && !keep[7] && keep[6]);
    }

    #[test]
    fn tiles_fill_rows_of_up_to_three() {
        let t = Tiles::new(9, 100.0, 40.0);
        assert_eq!((t.cols, t.rows()), (3, 3));
        assert!(t.w >= 500.0 && t.at(4).0 > t.at(3).0 && t.at(3).1 > t.at(2).1);
        assert_eq!(Tiles::new(4, 0.0, 0.0).cols, 2);
        assert!(t.bottom() > t.top + 3.0 * 300.0 - 1.0);
    }
}
