//! `index.html`: the comparison. The entries with their kind, their runs'
//! verdicts, their pages and their bundles; then round trip (ping-pong
//! p50) and throughput (stream payload rate) tables of one row per board
//! × link × size (× run, for an entry of several), each figure with its
//! repeat interval and, when it cannot be quoted, greyed with why.
//!
//! The filters are checkboxes, one per link, size, board and kind, that
//! stand before the tables as their siblings: a CSS rule per checkbox
//! (`#f-l0:not(:checked)~.tables tr.l0{display:none}`) hides the rows it
//! names when it is unticked. No script, so nothing to degrade; the class
//! names are numbers, never text from the data.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::figures::{Figure, round_trips, throughputs};
use super::page::{badge, ci_cell, figure_cell, frame, verdict_class};
use super::{EntryKind, SiteEntry};
use crate::svg::esc;

/// A figure of an entry.
struct Row {
    entry: usize,
    runs: usize,
    fig: Figure,
}

/// What the filters offer, each in its order of display.
struct Filters {
    links: Vec<String>,
    sizes: Vec<(u64, String)>,
    boards: Vec<String>,
    kinds: Vec<EntryKind>,
}

impl Filters {
    fn of(entries: &[SiteEntry], rows: &[&Row]) -> Filters {
        let links: BTreeSet<String> = rows.iter().map(|r| r.fig.link.clone()).collect();
        let sizes: BTreeSet<(u64, String)> =
            rows.iter().map(|r| (r.fig.size, r.fig.size_text.clone())).collect();
        let mut boards: Vec<String> = Vec::new();
        for e in entries {
            if !boards.contains(&e.board) {
                boards.push(e.board.clone());
            }
        }
        let kinds: BTreeSet<EntryKind> = entries.iter().map(|e| e.kind).collect();
        Filters {
            links: links.into_iter().collect(),
            sizes: sizes.into_iter().collect(),
            boards,
            kinds: kinds.into_iter().collect(),
        }
    }

    /// The row's classes: `l3 s0 b1 k2`, one per filter it answers to.
    fn classes(&self, entries: &[SiteEntry], r: &Row) -> String {
        let e = &entries[r.entry];
        let at = |v: Option<usize>| v.unwrap_or(usize::MAX);
        format!(
            "l{} s{} b{} k{}",
            at(self.links.iter().position(|l| *l == r.fig.link)),
            at(self.sizes.iter().position(|s| s.0 == r.fig.size)),
            at(self.boards.iter().position(|b| *b == e.board)),
            at(self.kinds.iter().position(|k| *k == e.kind)),
        )
    }
}

/// The filters: checkboxes with their labels, then the CSS that hides the
/// rows of an unticked one.
fn filters(f: &Filters) -> (String, String) {
    let mut h = String::new();
    let mut css = String::new();
    let groups: [(&str, char, Vec<String>); 4] = [
        ("link", 'l', f.links.clone()),
        ("size", 's', f.sizes.iter().map(|s| s.1.clone()).collect()),
        ("board", 'b', f.boards.clone()),
        ("kind", 'k', f.kinds.iter().map(|k| k.label().to_string()).collect()),
    ];
    for (g, (name, c, values)) in groups.iter().enumerate() {
        if g > 0 {
            h.push_str("<br>");
        }
        let _ = write!(h, "<b>{name}</b>");
        for (i, v) in values.iter().enumerate() {
            let _ = write!(
                h,
                "<input type=\"checkbox\" class=\"filter\" id=\"f-{c}{i}\" data-filter=\"{name}\" \
                 checked><label for=\"f-{c}{i}\">{}</label>",
                esc(v)
            );
            let _ = write!(css, "#f-{c}{i}:not(:checked)~.tables tr.{c}{i}{{display:none}}");
        }
    }
    (h, css)
}

/// The entries: kind, runs' verdicts, page and bundle.
fn entries_table(entries: &[SiteEntry], names: &[String]) -> String {
    let mut h = String::from(
        "<table class=\"entries\"><tr><th class=\"l\">board</th><th class=\"l\">kind</th>\
         <th class=\"l\">verdict</th><th class=\"l\">page</th><th class=\"l\">bundle</th></tr>",
    );
    for (e, name) in entries.iter().zip(names) {
        let verdicts: Vec<String> = e
            .runs
            .iter()
            .map(|v| {
                let (word, text) = v
                    .verdict
                    .as_ref()
                    .map_or(("not judged", "verdict: not judged"), |x| (x.verdict, &x.text));
                let run =
                    if e.runs.len() > 1 { format!("run {}: ", v.run_id) } else { String::new() };
                format!(
                    "<div class=\"verdict {}\">{}{}</div>",
                    verdict_class(word),
                    esc(&run),
                    esc(text)
                )
            })
            .collect();
        let _ = write!(
            h,
            "<tr class=\"entry\" data-board=\"{b}\"><td class=\"l\">{b}{badge}</td>\
             <td class=\"l\">{kind}</td><td class=\"l\">{v}</td>\
             <td class=\"l\"><a class=\"entry-page\" href=\"{page}\">{page}</a></td>\
             <td class=\"l\"><a class=\"bundle\" href=\"{file}\" download>{file}</a></td></tr>",
            b = esc(&e.board),
            badge = badge(e.kind),
            kind = e.kind.label(),
            v = if verdicts.is_empty() { "no runs".to_string() } else { verdicts.concat() },
            page = esc(name),
            file = esc(&e.file),
        );
    }
    h.push_str("</table>");
    h
}

/// One table of figures: `what` names the figure's column.
fn figures_table(
    entries: &[SiteEntry],
    names: &[String],
    f: &Filters,
    rows: &[&Row],
    class: &str,
    what: &str,
    direction: bool,
) -> String {
    let mut h = format!(
        "<table class=\"{class}\"><tr><th>size</th><th class=\"l\">board</th>\
         <th class=\"l\">link</th>{}<th>{what}</th><th>repeat interval</th>\
         <th class=\"l\">verdict</th></tr>",
        if direction { "<th class=\"l\">direction</th>" } else { "" }
    );
    for r in rows {
        let e = &entries[r.entry];
        let run = if r.runs > 1 {
            format!(" <span class=\"note\">run {}</span>", r.fig.run_id)
        } else {
            String::new()
        };
        let dir = match (&r.fig.direction, direction) {
            (Some(d), true) => format!("<td class=\"l\">{}</td>", esc(d)),
            (None, true) => "<td></td>".to_string(),
            _ => String::new(),
        };
        let _ = write!(
            h,
            "<tr class=\"row {cls}\" data-board=\"{b}\" data-kind=\"{kind}\"><td>{size}</td>\
             <td class=\"l\"><a href=\"{page}\">{b}</a>{badge}</td><td class=\"l\">{link}{run}</td>\
             {dir}{fig}{ci}<td class=\"l\">{verdict}</td></tr>",
            cls = f.classes(entries, r),
            b = esc(&e.board),
            kind = e.kind.label(),
            size = esc(&r.fig.size_text),
            page = esc(&names[r.entry]),
            badge = badge(e.kind),
            link = esc(&r.fig.link),
            fig = figure_cell(&r.fig),
            ci = ci_cell(&r.fig),
            verdict = esc(r.fig.verdict),
        );
    }
    h.push_str("</table>");
    h
}

/// The index page; `names` are the entries' pages.
pub(super) fn page(entries: &[SiteEntry], names: &[String]) -> String {
    let gather = |of: fn(&crate::view::RunView) -> Vec<Figure>| -> Vec<Row> {
        let mut rows: Vec<Row> = entries
            .iter()
            .enumerate()
            .flat_map(|(i, e)| {
                e.runs.iter().flat_map(move |v| {
                    of(v).into_iter().map(move |fig| Row { entry: i, runs: e.runs.len(), fig })
                })
            })
            .collect();
        // Sizes together, boards in their entries' order, then links.
        rows.sort_by(|a, b| {
            (a.fig.size, a.entry, &a.fig.link, a.fig.run_id).cmp(&(
                b.fig.size,
                b.entry,
                &b.fig.link,
                b.fig.run_id,
            ))
        });
        rows
    };
    let rtt = gather(round_trips);
    let tput = gather(throughputs);
    let all: Vec<&Row> = rtt.iter().chain(&tput).collect();
    let f = Filters::of(entries, &all);
    let (controls, css) = filters(&f);
    let rtt: Vec<&Row> = rtt.iter().collect();
    let tput: Vec<&Row> = tput.iter().collect();
    let unquotable = all.iter().filter(|r| r.fig.standing.class().is_some()).count();
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>icbench: inter-core links compared</h1><p class=\"note\">{} entr{}, {} figure{} \
         ({} that cannot be quoted, in grey with the reason under it; ! marks a cell the run \
         itself marked). A repeat interval is where a repeat run's figure lands (95 %); \
         <i>emulated</i> entries were measured on an emulator, not the silicon; \
         <i>published</i> ones are a document's table, imported and not re-measured. Each \
         board's page has its runs' tables and provenance, and its bundle to download.</p>",
        entries.len(),
        if entries.len() == 1 { "y" } else { "ies" },
        all.len(),
        if all.len() == 1 { "" } else { "s" },
        unquotable,
    );
    let _ = write!(b, "<h2>Entries</h2>{}", entries_table(entries, names));
    let _ = write!(
        b,
        "<h2>Compare</h2><p class=\"note\">Untick a link, size, board or kind to hide its \
         rows.</p><div class=\"cmp\">{controls}<section class=\"tables\">"
    );
    if rtt.is_empty() {
        b.push_str("<h3>Round trip</h3><p>No entry has ping-pong cells.</p>");
    } else {
        let _ = write!(
            b,
            "<h3>Round trip (ping-pong p50)</h3>{}",
            figures_table(entries, names, &f, &rtt, "rtt", "p50 round trip", false)
        );
    }
    if tput.is_empty() {
        b.push_str("<h3>Throughput</h3><p>No entry has stream or bulk cells.</p>");
    } else {
        let _ = write!(
            b,
            "<h3>Throughput (payload rate: streams, and bulk transfers of block × blocks)</h3>{}",
            figures_table(entries, names, &f, &tput, "tput", "payload rate", true)
        );
    }
    b.push_str("</section></div>");
    frame("icbench: links compared", &css, &b)
}
