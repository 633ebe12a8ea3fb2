//! How a table meets the terminal: its width (the terminal's, or one set
//! for the tests), cells wrapped at word boundaries, and one block per row
//! where the columns would have to break words (issue #18 item 2).

use std::collections::BTreeSet;

use comfy_table::{CellAlignment, ContentArrangement, Table, presets};

use crate::format;

/// A table in the run's style. On a terminal it fits the terminal's width,
/// wrapping cells where it must (issue #18: a default run's tables were up
/// to 142 columns wide); piped or redirected, where no width is known, it is
/// drawn whole, each row on one line.
pub(crate) fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header.iter().copied());
    if let Some(w) = WIDTH.get().or_else(columns) {
        t.set_width(w);
    }
    t
}

/// `COLUMNS` when set to a width of at least 20 (issue #29: a script or a
/// pager can ask for a width; piped, nothing else tells one).
fn columns() -> Option<u16> {
    std::env::var("COLUMNS").ok()?.trim().parse::<u16>().ok().filter(|&w| w >= 20)
}

thread_local! {
    /// The width the tables are drawn to in place of the terminal's.
    static WIDTH: std::cell::Cell<Option<u16>> = const { std::cell::Cell::new(None) };
}

/// Renders as on a terminal `width` columns wide (the width tests; a
/// terminal's own width needs nothing).
pub fn at_width<R>(width: u16, f: impl FnOnce() -> R) -> R {
    let before = WIDTH.replace(Some(width));
    let r = f();
    WIDTH.set(before);
    r
}

/// The width lines of text wrap at: the terminal's (or [`at_width`]'s, or
/// `COLUMNS`), at most 100; 100 when piped.
pub fn text_width() -> usize {
    terminal_width().map_or(100, usize::from).clamp(40, 100)
}

/// The width asked for ([`at_width`]'s in tests, else `COLUMNS`), else the
/// terminal's; none when piped without `COLUMNS`.
fn terminal_width() -> Option<u16> {
    WIDTH.get().or_else(columns).or_else(|| Table::new().width())
}

/// How the run's tables are drawn: boxes for a terminal, or GitHub
/// markdown for pasting into issues and reviews (`export --format md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Terminal,
    Markdown,
}

impl Style {
    /// The table drawn in this style.
    pub(crate) fn show(self, t: Table) -> String {
        match self {
            Style::Terminal => draw(&t),
            Style::Markdown => {
                // One line per row (a header on two lines would put its
                // second line below the delimiter), pipes and tags escaped.
                let clean = |c: &comfy_table::Cell| {
                    c.content().replace('\n', " ").replace('|', "\\|").replace('<', "\\<")
                };
                let mut m = Table::new();
                m.load_style(presets::ASCII_MARKDOWN)
                    .set_content_arrangement(ContentArrangement::Disabled);
                if let Some(h) = t.header() {
                    m.set_header(h.cell_iter().map(clean).collect::<Vec<_>>());
                }
                for r in t.row_iter() {
                    m.add_row(r.cell_iter().map(clean).collect::<Vec<_>>());
                }
                m.to_string()
            }
        }
    }
}

pub(crate) fn right_align(t: &mut Table, from: usize) {
    for i in from..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// A table as the terminal takes it. Piped (no width known) it is drawn
/// whole, a row a line; on a terminal its cells wrap at word boundaries;
/// where that would break a word (too many columns for the width), each
/// row is drawn as a block of `heading: value` lines instead.
pub(crate) fn draw(t: &Table) -> String {
    let text = t.to_string();
    let Some(width) = t.width() else { return text };
    let mut whole = t.clone();
    whole.set_content_arrangement(ContentArrangement::Disabled);
    if words(&whole.to_string()).is_subset(&words(&text)) {
        text
    } else {
        vertical(t, usize::from(width))
    }
}

/// The words of a drawn table, without its box-drawing.
fn words(text: &str) -> BTreeSet<&str> {
    text.split(|c: char| c.is_whitespace() || "│┆┌┐└┘├┤┬┴┼═╞╡╪─".contains(c))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Each row as a block: its first cell under its heading, then a line per
/// other cell (`  heading: value`), wrapped to the width.
fn vertical(t: &Table, width: usize) -> String {
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let heads: Vec<String> = t
        .header()
        .map(|h| h.cell_iter().map(|c| one_line(&c.content())).collect())
        .unwrap_or_default();
    let name = |i: usize| heads.get(i).cloned().unwrap_or_default();
    let mut out = Vec::new();
    for r in t.row_iter() {
        let cells: Vec<String> = r.cell_iter().map(|c| one_line(&c.content())).collect();
        let Some((first, rest)) = cells.split_first() else { continue };
        out.push(format!("── {}: {first}", name(0)));
        for (i, v) in rest.iter().enumerate() {
            let line = format!("{}: {v}", name(i + 1));
            let mut lines = format::wrap(&line, width.saturating_sub(4).max(20)).into_iter();
            if let Some(l) = lines.next() {
                out.push(format!("   {l}"));
            }
            out.extend(lines.map(|l| format!("     {l}")));
        }
    }
    out.join("\n")
}

/// What `f` writes, on a terminal its prose lines wrapped to the
/// terminal's width (their indent kept, continuations two further in);
/// table rows are left as [`draw`] made them. Piped, it is written as is.
pub(crate) fn fitted(
    out: &mut dyn std::io::Write,
    f: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if terminal_width().is_none() {
        return f(out);
    }
    let mut buf = Vec::new();
    f(&mut buf)?;
    let width = text_width();
    for line in String::from_utf8_lossy(&buf).lines() {
        let row = line.starts_with(['┌', '│', '╞', '├', '└', '|']);
        if row || line.chars().count() <= width {
            writeln!(out, "{line}")?;
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        for (i, w) in format::wrap(line, width - indent - 2).into_iter().enumerate() {
            let pad = if i == 0 { indent } else { indent + 2 };
            writeln!(out, "{:pad$}{w}", "")?;
        }
    }
    Ok(())
}
