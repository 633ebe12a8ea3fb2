//! An entry's page: its name and kind, a download link to its bundle, its
//! provenance, and for each run its verdict, where it came from, its
//! round trips and throughputs (as the index shows them, with the p99 and
//! the message rate beside), its bulk, one-way and timer cells, and its
//! list of marked cells in the terminal's words.
//!
//! Rendered from the views alone: a [`SiteEntry`] carries no stored cells,
//! which the report's figures (`icbench report`) are drawn from.

use std::fmt::Write;

use super::figures::{Figure, round_trips, throughputs};
use super::page::{badge, ci_cell, figure_cell, frame, verdict_class};
use super::{EntryKind, SiteEntry};
use crate::format::{bytes, ns, rate};
use crate::svg::esc;
use crate::view::RunView;

/// What an entry's kind means, in a sentence.
fn kind_note(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Measured => "Measured by icbench on the board.",
        EntryKind::Emulated => {
            "Emulated: measured by icbench on an emulator or virtual machine, not the silicon; \
             its figures are the emulator's."
        }
        EntryKind::Published => {
            "Published: a reference document's table, imported and not re-measured; its \
             figures are not judged."
        }
    }
}

fn provenance(e: &SiteEntry) -> String {
    if e.provenance.is_empty() {
        return "<p class=\"note\">No provenance given.</p>".to_string();
    }
    let mut h = String::from("<dl class=\"prov\">");
    for (k, v) in &e.provenance {
        let _ = write!(h, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
    }
    h.push_str("</dl>");
    h
}

/// A table of figures with the p99 or message rate beside each.
fn figures(figs: &[Figure], what: &str, extra: &str, direction: bool) -> String {
    let mut h = format!(
        "<table><tr><th class=\"l\">link</th>{}<th>size</th><th>{what}</th><th>{extra}</th>\
         <th>repeat interval</th></tr>",
        if direction { "<th class=\"l\">direction</th>" } else { "" }
    );
    for f in figs {
        let dir = match (&f.direction, direction) {
            (Some(d), true) => format!("<td class=\"l\">{}</td>", esc(d)),
            (None, true) => "<td></td>".to_string(),
            _ => String::new(),
        };
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td>{dir}<td>{}</td>{}<td>{}</td>{}</tr>",
            esc(&f.link),
            esc(&f.size_text),
            figure_cell(f),
            esc(&f.extra),
            ci_cell(f)
        );
    }
    h.push_str("</table>");
    h
}

/// A plain table: header, then rows of text (escaped here).
fn plain(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut h = String::from("<table><tr>");
    for (i, c) in header.iter().enumerate() {
        let _ = write!(h, "<th{}>{}</th>", if i == 0 { " class=\"l\"" } else { "" }, esc(c));
    }
    h.push_str("</tr>");
    for r in rows {
        h.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let _ = write!(h, "<td{}>{}</td>", if i == 0 { " class=\"l\"" } else { "" }, esc(c));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    h
}

fn status(s: &str, reason: &Option<String>) -> String {
    match reason {
        Some(r) => format!("{s}: {r}"),
        None => s.to_string(),
    }
}

/// The run's other cells: bulk, one-way, timer and interrupt latency.
fn other_cells(v: &RunView) -> String {
    let mut h = String::new();
    let opt = |x: Option<f64>, f: &dyn Fn(f64) -> String| x.map_or("—".to_string(), f);
    if !v.bulk.is_empty() {
        let rows: Vec<Vec<String>> = v
            .bulk
            .iter()
            .map(|r| {
                vec![
                    crate::names::link_name(&r.link, &r.protocol),
                    format!("{}×{}", bytes(r.block_bytes), r.blocks),
                    opt(r.transfer_ns.as_ref().map(|s| s.summary.p50), &ns),
                    opt(r.bytes_per_s, &|x| rate(x, "B/s")),
                    status(r.status, &r.reason),
                ]
            })
            .collect();
        let _ = write!(
            h,
            "<h3>Bulk</h3>{}",
            plain(&["link", "block × blocks", "p50 transfer", "payload rate", "status"], &rows)
        );
    }
    if !v.oneway.is_empty() {
        let rows: Vec<Vec<String>> = v
            .oneway
            .iter()
            .map(|r| {
                vec![
                    crate::names::with_factors(r.link.clone(), &r.factors),
                    r.direction.clone(),
                    bytes(r.size_bytes),
                    opt(r.oneway_ns.as_ref().map(|s| s.summary.p50), &ns),
                    opt(r.oneway_ns.as_ref().map(|s| s.summary.p99), &ns),
                    status(r.status, &r.reason),
                ]
            })
            .collect();
        let _ = write!(
            h,
            "<h3>One way</h3>{}",
            plain(&["link", "direction", "size", "p50", "p99", "status"], &rows)
        );
    }
    for (title, cells) in [("Timer wake-up latency", &v.timer), ("Interrupt latency", &v.irq)] {
        if cells.is_empty() {
            continue;
        }
        let rows: Vec<Vec<String>> = cells
            .iter()
            .map(|r| {
                let s = r.latency_ns.as_ref().map(|s| &s.summary);
                vec![
                    r.link.clone(),
                    opt(s.map(|s| s.p50), &ns),
                    opt(s.map(|s| s.p99), &ns),
                    opt(s.map(|s| s.max), &ns),
                    status(r.status, &r.reason),
                ]
            })
            .collect();
        let _ =
            write!(h, "<h3>{title}</h3>{}", plain(&["what", "p50", "p99", "max", "status"], &rows));
    }
    h
}

/// One run's section.
fn run(v: &RunView) -> String {
    let m = &v.meta;
    let mut h = String::new();
    let _ = write!(
        h,
        "<h2 id=\"run-{id}\">Run {id}</h2><p class=\"note\">{host}, {cpu}, kernel {kernel}; \
         CPUs {hc} ↔ {pc}; started {start}; icbench {ver}{commit}</p>",
        id = v.run_id,
        host = esc(&m.hostname),
        cpu = esc(&m.cpu_model),
        kernel = esc(&m.kernel_release),
        hc = m.host_cpu,
        pc = m.peer_cpu,
        start = esc(&crate::format::unix_ns(m.started_unix_ns)),
        ver = esc(&m.icbench_version),
        commit = m.git_commit.as_deref().map(|c| format!(" ({})", esc(c))).unwrap_or_default(),
    );
    for (k, t) in [("label", &m.label), ("note", &m.user_note)] {
        if let Some(t) = t {
            let _ = write!(h, "<p><b>{k}:</b> {}</p>", esc(t));
        }
    }
    if v.is_imported() {
        let _ = write!(
            h,
            "<p class=\"note\">Imported ({}){}: another tool's results, not re-measured.</p>",
            esc(&v.source),
            v.provenance.as_deref().map(|p| format!(" from {}", esc(p))).unwrap_or_default()
        );
    }
    let (word, text) =
        v.verdict.as_ref().map_or(("not judged", "verdict: not judged"), |x| (x.verdict, &x.text));
    let _ = write!(h, "<p class=\"verdict {}\">{}</p>", verdict_class(word), esc(text));
    if !v.warnings.is_empty() {
        h.push_str("<ul class=\"warnings\">");
        for w in &v.warnings {
            let _ = write!(h, "<li>{}</li>", esc(w));
        }
        h.push_str("</ul>");
    }
    let rtt = round_trips(v);
    if !rtt.is_empty() {
        let _ = write!(
            h,
            "<h3>Round trip (ping-pong)</h3>{}",
            figures(&rtt, "p50 round trip", "p99", false)
        );
    }
    let tput = throughputs(v);
    if !tput.is_empty() {
        let _ = write!(
            h,
            "<h3>Throughput (payload rate: streams, and bulk transfers)</h3>{}",
            figures(&tput, "payload rate", "messages", true)
        );
    }
    h.push_str(&other_cells(v));
    let notes = crate::marks::footnotes(v.rows());
    if !notes.is_empty() {
        h.push_str("<h3>Marked cells</h3><ul class=\"marks\">");
        for n in &notes {
            let _ = write!(h, "<li>{}</li>", esc(n));
        }
        h.push_str("</ul>");
    }
    let cut = crate::marks::cut_lines(v.rows());
    if !cut.is_empty() {
        h.push_str("<h3>Cut short</h3><ul>");
        for n in &cut {
            let _ = write!(h, "<li>{}</li>", esc(n));
        }
        h.push_str("</ul>");
    }
    h
}

/// The entry's page.
pub(super) fn page(e: &SiteEntry) -> String {
    let mut b = String::new();
    let _ = write!(
        b,
        "<p><a href=\"index.html\">← all entries</a></p><h1>{board}{badge}</h1>\
         <p class=\"kind {kind}\">{note}</p><p>Bundle: <a class=\"bundle\" href=\"{file}\" \
         download>{file}</a></p><h2>Provenance</h2>{prov}",
        board = esc(&e.board),
        badge = badge(e.kind),
        kind = e.kind.label(),
        note = kind_note(e.kind),
        file = esc(&e.file),
        prov = provenance(e),
    );
    if e.runs.is_empty() {
        b.push_str("<p>No runs.</p>");
    }
    for v in &e.runs {
        b.push_str(&run(v));
    }
    frame(&format!("icbench: {}", e.board), "", &b)
}
