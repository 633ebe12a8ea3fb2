//! What the site's pages share: the frame with its inline CSS (no fonts,
//! scripts or anything else to load), the label of an entry's kind, and a
//! figure's table cell, greyed with its reason when it cannot be quoted.

use std::fmt::Write;

use super::EntryKind;
use super::figures::Figure;
use crate::svg::esc;

/// The pages' style: the report's palette (Okabe–Ito), figures that
/// cannot be quoted in grey with their reason under them.
const CSS: &str = "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;max-width:1400px;\
margin:2em auto;padding:0 1.5em;color:#222}h1{font-size:1.7em}h2{border-bottom:2px solid #0072B2;\
padding-bottom:.2em;margin-top:2em}p,ul,dl{max-width:75em}\
table{border-collapse:collapse;margin:1em 0;font-size:.85em}\
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:right;vertical-align:top}\
th{background:#f2f2f2}td.l,th.l{text-align:left}.note{color:#555;font-size:.9em}\
td.unq{color:#8a8a8a;background:#f4f4f4}td.unq .why{display:block;font-size:.8em;\
max-width:28em;text-align:left;white-space:normal}td.marked .fig::after{content:' !';\
color:#D55E00;font-weight:bold}td.not-judged .fig{font-style:italic}\
.badge{display:inline-block;font-size:.75em;padding:0 .4em;margin-left:.4em;border-radius:.3em;\
border:1px solid #888;color:#444;vertical-align:middle}.badge.emulated{border-color:#E69F00;\
background:#fffbe5}.badge.published{border-color:#0072B2;background:#eef5fb}\
.verdict{font-weight:bold;padding:.4em .8em;border-left:4px solid #009E73;background:#eef8f4}\
.verdict.not-fit-for-quoting{border-color:#D55E00;background:#fff4e5}\
.verdict.partly-reproducible{border-color:#E69F00;background:#fffbe5}\
.verdict.not-judged{border-color:#888;background:#f4f4f4}\
.cmp{line-height:2}.cmp>b{margin-right:.5em}.cmp>label{margin-right:.8em}\
.cmp>section{line-height:normal}dl.prov{display:grid;grid-template-columns:max-content auto;\
gap:.2em 1em}dl.prov dt{font-weight:bold}dl.prov dd{margin:0}";

/// A whole page: `title` (escaped here) and its `body` (HTML already),
/// with `extra_css` (the index's filter rules).
pub(super) fn frame(title: &str, extra_css: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>{CSS}{extra_css}</style></head><body>{body}</body></html>\n",
        esc(title)
    )
}

/// An entry's kind as a label beside its name: none for a measured one.
pub(super) fn badge(kind: EntryKind) -> String {
    match kind {
        EntryKind::Measured => String::new(),
        k => format!("<span class=\"badge {0}\">{0}</span>", k.label()),
    }
}

/// A verdict's CSS class: `not judged` → `not-judged`.
pub(super) fn verdict_class(verdict: &str) -> String {
    verdict.replace(' ', "-")
}

/// A figure's cell: the figure, greyed with why when it cannot be quoted.
pub(super) fn figure_cell(f: &Figure) -> String {
    let mut s = String::new();
    let value = f.value.map(|v| format!(" data-value=\"{v}\"")).unwrap_or_default();
    match (f.standing.class(), f.standing.why()) {
        (Some(class), Some(why)) => {
            let _ = write!(
                s,
                "<td class=\"{class}\"{value} title=\"{0}\"><span class=\"fig\">{1}</span>\
                 <span class=\"why\">{0}</span></td>",
                esc(&why),
                esc(&f.text)
            );
        }
        _ => {
            let _ = write!(s, "<td{value}><span class=\"fig\">{}</span></td>", esc(&f.text));
        }
    }
    s
}

/// A figure's repeat interval cell.
pub(super) fn ci_cell(f: &Figure) -> String {
    format!("<td class=\"ci\">{}</td>", esc(&f.ci))
}
