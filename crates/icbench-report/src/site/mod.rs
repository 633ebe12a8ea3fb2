//! The comparison site (issue #31 item 2): static HTML pages, opened from
//! the file system, that set boards, links and sizes side by side from
//! "bundles" (self-describing JSON files of runs). This module owns the
//! pages only: it takes each bundle as a [`SiteEntry`] (its views, its
//! provenance, its kind) and returns the pages' text; reading bundles,
//! writing the pages and copying the bundles beside them is the CLI's
//! (`icbench site`).
//!
//! - `figures`: each run's round trips and throughputs as the site shows
//!   them, with their repeat interval and why a figure cannot be quoted
//!   (marked, not judged, not measured), in the terminal's words;
//! - `index`: `index.html`, the comparison: the entries with their
//!   verdicts, round trip and throughput tables of one row per board ×
//!   link × size, and filters by link, size, board and kind that work
//!   without JavaScript (CSS `:checked` rules on checkboxes);
//! - `entry`: one page per entry: its provenance, a download link to its
//!   bundle, and each run's verdict, tables and marked cells, from the
//!   views alone (a [`SiteEntry`] has no stored cells, so the report's
//!   figures, which need them, are not drawn here);
//! - `page`: what the pages share: the frame with its inline CSS, the
//!   kind's label, a figure's cell.
//!
//! A renderer: it imports the view and the words below it, no other
//! renderer (`tests/layers.rs`). Every string from the data goes through
//! [`crate::svg::esc`]; no page loads anything (no network, no script).

mod entry;
mod figures;
mod index;
mod page;
#[cfg(test)]
mod tests;

/// One bundle as the site shows it.
#[derive(Debug, Clone)]
pub struct SiteEntry {
    /// The bundle's file name as it will sit in the site directory (the
    /// download link), e.g. "stm32mp157-tty.icbench.json".
    pub file: String,
    /// Its board / title: what the index's rows are named by (e.g.
    /// "STM32MP157C-DK2", or a host name).
    pub board: String,
    /// Provenance lines to list on its page, in order: ("icbench", "0.1.0
    /// (abc123)"), ("kernel", "6.1.0 PREEMPT_RT"), ("CPU", ...), ("SoC",
    /// ...), ("source", "published, not re-measured: ADI ADSP-SC598 RPMsg
    /// page") ...
    pub provenance: Vec<(String, String)>,
    /// Kind of entry: Measured, Emulated (QEMU / VM rig), or Published (a
    /// reference document's table, not re-measured).
    pub kind: EntryKind,
    /// Its runs' views, as icbench builds them
    /// (`icbench_report::view::RunView`, with verdict, marks, repeat
    /// intervals).
    pub runs: Vec<crate::view::RunView>,
}

/// What an entry's figures are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    /// Measured by icbench on the board itself.
    Measured,
    /// Measured by icbench on an emulated board (QEMU, a VM rig): its
    /// figures are the emulator's, not the silicon's.
    Emulated,
    /// A reference document's table, imported and not re-measured.
    Published,
}

impl EntryKind {
    /// The label the pages show: `measured`, `emulated`, `published`.
    pub fn label(self) -> &'static str {
        match self {
            EntryKind::Measured => "measured",
            EntryKind::Emulated => "emulated",
            EntryKind::Published => "published",
        }
    }
}

/// The site's pages: (relative file name, HTML text). "index.html" first,
/// then one page per entry, in the entries' order.
pub fn build(entries: &[SiteEntry]) -> Vec<(String, String)> {
    let names = page_names(entries);
    let mut out = Vec::with_capacity(entries.len() + 1);
    out.push(("index.html".to_string(), index::page(entries, &names)));
    for (e, name) in entries.iter().zip(&names) {
        out.push((name.clone(), entry::page(e)));
    }
    out
}

/// Each entry's page name: its bundle's file name without `.json` (and
/// `.icbench`), reduced to letters, digits, `-` and `_` (anything else `-`), then
/// `.html`; a name taken already (or `index`) gets `-2`, `-3` ….
pub fn page_names(entries: &[SiteEntry]) -> Vec<String> {
    let mut taken = std::collections::BTreeSet::from(["index".to_string()]);
    entries
        .iter()
        .map(|e| {
            let stem = e.file.rsplit(['/', '\\']).next().unwrap_or("");
            let stem = stem.strip_suffix(".json").unwrap_or(stem);
            let stem = stem.strip_suffix(".icbench").unwrap_or(stem);
            let mut s: String = stem
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') { c } else { '-' })
                .collect();
            s = s.trim_matches('-').to_string();
            if s.is_empty() {
                s = "entry".to_string();
            }
            let mut name = s.clone();
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{s}-{n}");
                n += 1;
            }
            format!("{name}.html")
        })
        .collect()
}
