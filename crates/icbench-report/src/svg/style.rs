//! How a series is drawn: a colour from a colour-blind-safe palette, a
//! marker shape and a dash pattern, all three cycling at different
//! lengths, so that no two of the first [`DISTINCT_IN_GREY`] series share
//! a marker and dash (they stay apart printed in greyscale) and no two of
//! the first [`DISTINCT`] share all three (issue #18: shm and pty got the
//! same blue, and 18 series had identical markers).
//!
//! Every drawn series carries its style in attributes (`data-series`,
//! `data-colour`, `data-marker`, `data-dash`), so that a check in a browser
//! (scripts/report-check) can tell that the series of a figure differ.

use std::fmt::Write;

use super::esc;

/// Okabe & Ito (2008), "Color Universal Design": eight colours that stay
/// apart for the common colour-vision deficiencies. Yellow is last: it is
/// faint on white, and comes only after seven others.
pub const PALETTE: [&str; 8] =
    ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000", "#E69F00", "#56B4E9", "#F0E442"];

/// A marker's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    TriangleDown,
    Plus,
    Cross,
}

/// Marker shapes in the order series get them.
pub const MARKERS: [Marker; 7] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Plus,
    Marker::Cross,
];

/// Dash patterns (SVG `stroke-dasharray`; `""` is a solid line) in the
/// order series get them.
pub const DASHES: [&str; 5] = ["", "10,5", "3,4", "12,4,3,4", "12,4,3,4,3,4"];

/// Series with pairwise different marker and dash (7 × 5, coprime).
pub const DISTINCT_IN_GREY: usize = MARKERS.len() * DASHES.len();
/// Series with pairwise different colour, marker and dash (8 × 7 × 5).
pub const DISTINCT: usize = PALETTE.len() * MARKERS.len() * DASHES.len();

impl Marker {
    pub fn name(self) -> &'static str {
        match self {
            Marker::Circle => "circle",
            Marker::Square => "square",
            Marker::Triangle => "triangle",
            Marker::Diamond => "diamond",
            Marker::TriangleDown => "triangle-down",
            Marker::Plus => "plus",
            Marker::Cross => "cross",
        }
    }

    /// Drawn as strokes only (no area to fill).
    pub fn open(self) -> bool {
        matches!(self, Marker::Plus | Marker::Cross)
    }

    /// The SVG path of the marker centred on (x, y), about 2r across.
    pub fn path(self, x: f64, y: f64, r: f64) -> String {
        match self {
            Marker::Circle => format!(
                "M{:.1},{y:.1} a{r:.1},{r:.1} 0 1,0 {:.1},0 a{r:.1},{r:.1} 0 1,0 {:.1},0 Z",
                x - r,
                2.0 * r,
                -2.0 * r
            ),
            Marker::Square => {
                let s = r * 0.9;
                format!(
                    "M{:.1},{:.1} h{:.1} v{:.1} h{:.1} Z",
                    x - s,
                    y - s,
                    2.0 * s,
                    2.0 * s,
                    -2.0 * s
                )
            }
            Marker::Triangle | Marker::TriangleDown => {
                let k = if self == Marker::Triangle { 1.0 } else { -1.0 };
                format!(
                    "M{x:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} Z",
                    y - k * 1.25 * r,
                    x + 1.15 * r,
                    y + k * 0.85 * r,
                    x - 1.15 * r,
                    y + k * 0.85 * r
                )
            }
            Marker::Diamond => format!(
                "M{x:.1},{:.1} L{:.1},{y:.1} L{x:.1},{:.1} L{:.1},{y:.1} Z",
                y - 1.3 * r,
                x + 1.05 * r,
                y + 1.3 * r,
                x - 1.05 * r
            ),
            Marker::Plus => format!(
                "M{:.1},{y:.1} H{:.1} M{x:.1},{:.1} V{:.1}",
                x - 1.25 * r,
                x + 1.25 * r,
                y - 1.25 * r,
                y + 1.25 * r
            ),
            Marker::Cross => format!(
                "M{:.1},{:.1} L{:.1},{:.1} M{:.1},{:.1} L{:.1},{:.1}",
                x - r,
                y - r,
                x + r,
                y + r,
                x + r,
                y - r,
                x - r,
                y + r
            ),
        }
    }
}

/// One series' look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Style {
    pub colour: &'static str,
    pub marker: Marker,
    pub dash: &'static str,
}

/// The style of the `i`-th series of a figure: colour, marker and dash
/// cycle with periods 8, 7 and 5. The 9th series shares the 1st one's
/// colour, never its marker or dash.
pub fn style(i: usize) -> Style {
    Style {
        colour: PALETTE[i % PALETTE.len()],
        marker: MARKERS[i % MARKERS.len()],
        dash: DASHES[i % DASHES.len()],
    }
}

impl Style {
    /// `solid` or the dash array, as `data-dash` says it.
    pub fn dash_name(&self) -> &'static str {
        if self.dash.is_empty() { "solid" } else { self.dash }
    }

    /// The style attributes of a series element.
    pub fn data(&self, name: &str) -> String {
        format!(
            r#"data-series="{}" data-colour="{}" data-marker="{}" data-dash="{}""#,
            esc(name),
            self.colour,
            self.marker.name(),
            self.dash_name()
        )
    }

    /// ` stroke-dasharray="…"` for a dashed style, nothing for a solid one.
    pub fn dash_attr(&self) -> String {
        if self.dash.is_empty() {
            String::new()
        } else {
            format!(r#" stroke-dasharray="{}""#, self.dash)
        }
    }

    /// A marker at (x, y): filled in the series' colour with a dark rim
    /// (light colours stay visible on white), or hollow (white inside) when
    /// `hollow`; plus and cross are strokes.
    pub fn marker(&self, out: &mut String, x: f64, y: f64, r: f64, hollow: bool, tip: &str) {
        self.shape(out, "point", x, y, r, hollow, tip);
    }

    /// The marker of a marked cell (issue #29): hollow, of class
    /// `point marked`; the plot rings it.
    pub fn marked_marker(&self, out: &mut String, x: f64, y: f64, r: f64, tip: &str) {
        self.shape(out, "point marked", x, y, r, true, tip);
    }

    /// [`marker`](Self::marker) with another class (the legend's samples
    /// are not data points).
    #[allow(clippy::too_many_arguments)]
    fn shape(
        &self,
        out: &mut String,
        class: &str,
        x: f64,
        y: f64,
        r: f64,
        hollow: bool,
        tip: &str,
    ) {
        let d = self.marker.path(x, y, r);
        let (fill, stroke, width) = if self.marker.open() {
            ("none", self.colour, 2.4)
        } else if hollow {
            ("#ffffff", self.colour, 2.0)
        } else {
            (self.colour, "#222222", 0.9)
        };
        let _ = write!(
            out,
            r#"<path class="{class}" data-marker="{}" d="{d}" fill="{fill}" stroke="{stroke}" stroke-width="{width}">"#,
            self.marker.name()
        );
        if !tip.is_empty() {
            let _ = write!(out, "<title>{}</title>", esc(tip));
        }
        out.push_str("</path>");
    }

    /// The legend's sample of the style: a short line in its dash with the
    /// marker on it, at (x, y), `len` long.
    pub fn sample(&self, out: &mut String, x: f64, y: f64, len: f64, r: f64) {
        let _ = write!(
            out,
            r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{}" stroke-width="2.4"{}/>"#,
            x + len,
            self.colour,
            self.dash_attr()
        );
        self.shape(out, "legend-point", x + len / 2.0, y, r, false, "");
    }
}

/// Assigns styles by name: the same name keeps its style in every panel of
/// a figure, different names get successive styles in order of first
/// appearance. Returns each name's style index.
pub fn assign(names: &[String]) -> Vec<usize> {
    let mut seen: Vec<&str> = Vec::new();
    names
        .iter()
        .map(|n| match seen.iter().position(|s| *s == n) {
            Some(i) => i,
            None => {
                seen.push(n);
                seen.len() - 1
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_palette_is_eight_distinct_colours() {
        let set: HashSet<&str> = PALETTE.iter().copied().collect();
        assert_eq!(set.len(), 8);
        assert!(PALETTE.iter().all(|c| c.len() == 7 && c.starts_with('#')));
        // Issue #18: the 9th series (pty after 8 other links) must not look
        // like the 1st (shm): with one colour for both, marker and dash
        // differ.
        for i in 0..DISTINCT - 8 {
            let (a, b) = (style(i), style(i + 8));
            assert!(a.colour == b.colour && a.marker != b.marker && a.dash != b.dash, "{i}");
        }
    }

    #[test]
    fn series_styles_stay_distinct_in_greyscale_and_in_colour() {
        let grey: HashSet<(Marker, &str)> =
            (0..DISTINCT_IN_GREY).map(|i| (style(i).marker, style(i).dash)).collect();
        assert_eq!(grey.len(), DISTINCT_IN_GREY);
        let all: HashSet<Style> = (0..DISTINCT).map(style).collect();
        assert_eq!(all.len(), DISTINCT);
        // The first six (one axis before small multiples) differ pairwise in
        // colour and in marker.
        let first: Vec<Style> = (0..6).map(style).collect();
        for (i, a) in first.iter().enumerate() {
            for b in &first[i + 1..] {
                assert!(a.colour != b.colour && a.marker != b.marker, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn the_same_name_keeps_its_style() {
        let names: Vec<String> =
            ["64 B", "4 KiB", "64 B", "64 KiB", "4 KiB"].iter().map(|s| s.to_string()).collect();
        assert_eq!(assign(&names), [0, 1, 0, 2, 1]);
    }

    #[test]
    fn markers_are_closed_paths_or_strokes() {
        for m in MARKERS {
            let d = m.path(10.0, 10.0, 5.0);
            assert!(d.starts_with('M'), "{d}");
            assert_eq!(d.ends_with('Z'), !m.open(), "{m:?}: {d}");
        }
        let mut out = String::new();
        style(1).marker(&mut out, 1.0, 2.0, 4.0, false, "a <b>");
        assert!(out.contains(r#"data-marker="square""#) && out.contains("a &lt;b&gt;"), "{out}");
        assert!(style(1).data("x").contains(r#"data-dash="10,5""#));
        assert!(style(0).data("x").contains(r#"data-dash="solid""#));
    }
}
