//! A figure's legend (issue #29): every series with its colour, marker
//! and dash, and everything drawn that is not data — the fitted line in the
//! one style it is drawn in, marked points when a figure has any, and the
//! reference lines with their labels (a label on the line lay over the
//! data). The styles of those lines live here, for the plot and its legend
//! alike.

use std::fmt::Write;

use super::style::Style;
use super::{Plot, esc};

/// A fitted line's colour and dash, in the figure and in its legend: grey
/// and dashed, apart from every series' own style.
pub const MODEL_STROKE: &str = "#555555";
pub const MODEL_DASH: &str = "7,4";
/// A reference line's colour and dash.
pub(super) const REFERENCE_STROKE: &str = "#666666";
pub(super) const REFERENCE_DASH: &str = "2,4";
/// The ring around a marked point's marker: dark and dotted, unlike any
/// series' colour.
pub(super) const MARK_STROKE: &str = "#222222";
pub(super) const MARK_DASH: &str = "3,2";

/// What a figure's legend names besides its series.
#[derive(Default)]
pub(super) struct Extras {
    pub(super) model: bool,
    pub(super) marked: bool,
}

/// A legend entry that is not a series.
pub(super) enum Extra {
    Model,
    Marked,
    Reference(String),
}

impl Extra {
    pub(super) fn text(&self) -> &str {
        match self {
            Extra::Model => "fitted line t = a + b·n",
            Extra::Marked => "marked (!): see the notes",
            Extra::Reference(label) => label,
        }
    }
}

pub(super) fn extra_items(p: &Plot, extras: &Extras) -> Vec<Extra> {
    let mut out = Vec::new();
    if extras.model {
        out.push(Extra::Model);
    }
    if extras.marked {
        out.push(Extra::Marked);
    }
    out.extend(p.hlines.iter().map(|h| Extra::Reference(h.label.clone())));
    out
}

/// A legend entry: the style's sample and the name, cut to `room`
/// characters (whole in the tooltip).
pub(super) fn legend_entry(out: &mut String, x: f64, y: f64, name: &str, st: &Style, room: usize) {
    let _ =
        write!(out, r#"<g class="legend-entry" {}><title>{}</title>"#, st.data(name), esc(name));
    st.sample(out, x, y, 50.0, 5.5);
    let shown = if name.chars().count() > room.max(4) {
        format!("{}…", name.chars().take(room.max(4) - 1).collect::<String>())
    } else {
        name.to_string()
    };
    let _ =
        write!(out, r#"<text x="{:.1}" y="{:.1}">{}</text></g>"#, x + 60.0, y + 5.5, esc(&shown));
}

/// A legend entry for what is not a series, drawn as in the figure.
pub(super) fn extra_entry(out: &mut String, x: f64, y: f64, e: &Extra) {
    let (class, sample) = match e {
        Extra::Model => (
            "legend-model",
            format!(
                r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{MODEL_STROKE}" stroke-width="1.6" stroke-dasharray="{MODEL_DASH}"/>"#,
                x + 50.0
            ),
        ),
        Extra::Marked => (
            "legend-marked",
            format!(
                r##"<circle cx="{:.1}" cy="{y:.1}" r="11" fill="none" stroke="{MARK_STROKE}" stroke-width="1.8" stroke-dasharray="{MARK_DASH}"/><circle cx="{:.1}" cy="{y:.1}" r="5.5" fill="#ffffff" stroke="#333333" stroke-width="2"/>"##,
                x + 25.0,
                x + 25.0
            ),
        ),
        Extra::Reference(_) => (
            "legend-reference",
            format!(
                r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{REFERENCE_STROKE}" stroke-width="1.6" stroke-dasharray="{REFERENCE_DASH}"/>"#,
                x + 50.0
            ),
        ),
    };
    let _ = write!(
        out,
        r#"<g class="{class}">{sample}<text x="{:.1}" y="{:.1}">{}</text></g>"#,
        x + 60.0,
        y + 5.5,
        esc(e.text())
    );
}
