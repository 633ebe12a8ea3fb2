//! The report's disturbance section: every cell's counters and the marked
//! cells with their causes, from [`crate::marks`].

/// The report's section: every cell's counters and the disturbed cells
/// with their causes (nothing when no cell has counters).
pub fn html(h: &mut String, view: &crate::RunView) {
    use crate::marks::{COUNTERS_HEADER, counters_rows, footnotes};
    use crate::svg::esc;
    use std::fmt::Write;
    let rows = counters_rows(view.rows());
    if rows.is_empty() {
        return;
    }
    h.push_str(
        "<h3>Disturbance per cell</h3><p>The kernel's counters over each cell, host / peer \
         (– where this machine does not offer one); ! marks a disturbed cell \
         (thresholds: docs/method.md).</p><table><tr>",
    );
    for (i, c) in COUNTERS_HEADER.iter().enumerate() {
        let class = if i < 2 { " class=\"l\"" } else { "" };
        let _ = write!(h, "<th{class}>{}</th>", esc(&c.replace('\n', " ")));
    }
    h.push_str("</tr>");
    for r in rows {
        h.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let class = if i < 2 { " class=\"l\"" } else { "" };
            let _ = write!(h, "<td{class}>{}</td>", esc(c));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    let notes = footnotes(view.rows());
    if !notes.is_empty() {
        h.push_str("<ul class=\"disturbed\">");
        for n in notes {
            let _ = write!(h, "<li>{}</li>", esc(&n));
        }
        h.push_str("</ul>");
    }
}
