//! Heat maps (CPU pairs): rows × columns of squares on a sequential colour
//! scale, each with its value printed in it.

use std::fmt::Write;

use super::{FONT, TITLE_FONT, Unit, esc};

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
    // Squares of 56 … 144 px (twice the size of issue #18's report); the
    // figure grows with the CPU count.
    let side = (1200.0 / n_cols.max(n_rows)).clamp(56.0, 144.0);
    let font = (side * 0.2).clamp(12.0, 20.0);
    let (left, top) = (150.0, 120.0);
    let (gw, gh) = (side * n_cols, side * n_rows);
    // Wide enough for the title (bold 24 px: about 14 px a character).
    let title_w = left + 14.0 * g.title.chars().count() as f64 + 30.0;
    let w = (left + gw + 360.0).max(1040.0).max(title_w);
    let h = top + gh + 100.0;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" id="{}" class="figure heatmap" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{FONT}"><title>{}</title><rect width="{w:.0}" height="{h:.0}" fill="white"/><text x="{left}" y="36" font-size="{TITLE_FONT}" font-weight="bold">{}</text>"#,
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
        r#"<text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text><text class="axis-label" transform="translate(34,{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        left + gw / 2.0,
        top - 44.0,
        esc(&g.col_axis),
        top + gh / 2.0,
        esc(&g.row_axis)
    );
    for (j, c) in g.cols.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            left + (j as f64 + 0.5) * side,
            top - 12.0,
            esc(c)
        );
    }
    for (i, r) in g.rows.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 12.0,
            top + (i as f64 + 0.5) * side + 6.0,
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
    let (lx, ly, lw, steps) = (left + gw + 50.0, top, 28.0, 24);
    let lh = gh.clamp(240.0, 520.0);
    let _ = write!(
        out,
        r#"<text x="{lx:.1}" y="{:.1}">{}</text>"#,
        ly - 14.0,
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
        lx + lw + 10.0,
        ly + 14.0,
        esc(&min_s),
        lx + lw + 10.0,
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
