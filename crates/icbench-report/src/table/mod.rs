//! Terminal tables. Every figure carries its unit; failed cells say why and
//! sizes a link cannot carry say "n/a (max 64 KiB)", in the size column's
//! units.
//!
//! Split by concern: `cells` (the tables of a run's cells), `pairs` (CPU
//! pair matrices), `commands` (`runs`, `model`, `compare`); this module
//! keeps what they share and the run's own output (header, notes).

mod cells;
mod commands;
mod pairs;
mod summary;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod width_tests;

pub use crate::names::{
    clock_line, link_label, link_name, pair_heading, pair_text, with_all_factors, with_factors,
};
pub use cells::{run_stats, stats_table};
pub use commands::{RunListRow, compare, model, runs};
pub use summary::{summary, targets};

pub use crate::terminal::{Style, at_width, text_width};
use crate::terminal::{draw, fitted, right_align, table};
use cells::*;
use pairs::*;

use std::collections::BTreeSet;
use std::io::Write;

use comfy_table::{CellAlignment, Table};
use serde::Serialize;

use crate::format;
use crate::marks::marked;
use crate::pairs::CpuPairMatrix;
use crate::stats::CellStats;
use crate::view::{
    BulkRow, ChannelsView, OneWayRow, PingPongRow, RunView, StateView, StreamRow, TimerRow,
};

/// The text a cell that was not measured shows in place of its figures.
fn not_measured(status: &str, reason: &Option<String>, max: Option<u64>) -> String {
    match (status, max) {
        ("n/a", Some(m)) => format!("n/a (max {})", format::bytes(m)),
        _ => format!("failed: {}", reason.as_deref().unwrap_or("unknown")),
    }
}

/// The "TX busy" column appears only when some cell counted refused sends.
const TX_BUSY: &str = "TX busy (EAGAIN)";

fn any_busy(v: impl Iterator<Item = Option<u64>>) -> bool {
    v.into_iter().any(|b| b.unwrap_or(0) > 0)
}

fn with_busy(mut header: Vec<&str>, busy: bool) -> Vec<&str> {
    if busy {
        header.push(TX_BUSY);
    }
    header
}

/// The median's 95 % CI as `±x %` of the median, or why there is none.
fn median_ci_short(s: &CellStats, resolution_ns: Option<f64>) -> String {
    match s.median_ci95_rel() {
        Some(r) => format::rel_at(r, s.summary.p50, resolution_ns),
        None if s.summary.count == 1 => "n = 1".to_string(),
        None => format!("n = {}", s.summary.count),
    }
}

fn adaptive_short(r: &PingPongRow) -> String {
    match r.adaptive {
        None => "–".to_string(),
        Some(a) if a.reached => format!(
            "reached ±{} % in {} phase{}",
            format::sig3(a.achieved_rel * 100.0),
            a.phases,
            if a.phases == 1 { "" } else { "s" }
        ),
        Some(a) => format!(
            "time budget ended at {} after {} phases (target ±{} %)",
            if a.achieved_rel.is_finite() {
                format!("±{} %", format::sig3(a.achieved_rel * 100.0))
            } else {
                "no interval".to_string()
            },
            a.phases,
            format::sig3(a.target_rel * 100.0)
        ),
    }
}

/// What the CI column means: a repeat run's interval from the blocks, or
/// the within-cell interval of a run measured in one block per cell.
fn ci_meaning(
    r: Option<&crate::replicates::ReplicatesView>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match r {
        Some(r) => writeln!(
            out,
            "95% CI: where a repeat run's figure will land, from this run's {} blocks per cell \
             spread over the run (t on logs, docs/method.md)",
            r.blocks
        ),
        None => writeln!(
            out,
            "95% CI: of the median within the cell (one block, --replicates 1): it says nothing \
             of what a repeat run will show"
        ),
    }
}

/// One line per ping-pong cell timed in batches.
fn batched_lines(view: &RunView) -> Vec<String> {
    view.pingpong
        .iter()
        .filter_map(|r| {
            let b = r.timed_batch?;
            let link =
                with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
            Some(format!(
                "pingpong {link} {}: {b} round trips per pair of clock reads (resolution {})",
                format::bytes(r.size_bytes),
                r.resolution_ns.map_or("–".into(), format::ns),
            ))
        })
        .collect()
}

/// The disturbed cells, each with what disturbed it, and the cells cut
/// short of their cell time.
fn disturbed_lines(view: &RunView, out: &mut dyn Write, cells: bool) -> std::io::Result<()> {
    let cut = crate::marks::cut_lines(view.rows());
    if !cut.is_empty() {
        writeln!(out, "\ncells cut short of the cell time (the engine's message cap):")?;
        for l in cut {
            writeln!(out, "{l}")?;
        }
    }
    let batched = batched_lines(view);
    if !batched.is_empty() && !cells {
        // Each line names a row of a table not printed: a count will do.
        writeln!(
            out,
            "\n{} ping-pong cells timed in batches (a round trip spans under {} clock steps): \
             `--cells` lists them",
            batched.len(),
            icbench_model::RESOLVE_STEPS
        )?;
    } else if !batched.is_empty() {
        writeln!(
            out,
            "\ncells timed in batches (one round trip spans under {} clock steps; their \
             percentiles are of batch means, docs/method.md):",
            icbench_model::RESOLVE_STEPS
        )?;
        for l in batched {
            writeln!(out, "{l}")?;
        }
    }
    let all = crate::marks::footnotes(view.rows());
    if all.is_empty() {
        return Ok(());
    }
    // Without the tables, the notes that matter are those of the figures
    // the summary quotes; the rest are counted (issue #18: a noisy run's
    // dozen notes on mq cells buried its summary).
    let lines: Vec<&String> = if cells {
        all.iter().collect()
    } else {
        let quoted = quoted_cells(view);
        all.iter().filter(|l| quoted.iter().any(|q| l.starts_with(q.as_str()))).collect()
    };
    let shown = lines.len().min(MAX_FOOTNOTES);
    writeln!(out)?;
    if shown > 0 {
        let few = lines.iter().any(|l| l.contains("too few agreeing blocks"));
        let head = format!(
            "marked cells (!){}: disturbed, as the kernel's counters show, {}their blocks \
             disagree (docs/method.md):",
            if cells { "" } else { " the summary quotes" },
            if few { "with too few agreeing blocks for an interval, or " } else { "or " }
        );
        wrapped(out, &head)?;
        for l in &lines[..shown] {
            for w in format::wrap(l, text_width()) {
                writeln!(out, "{w}")?;
            }
        }
    }
    // A cell can have several notes (disturbed, and its blocks disagree):
    // the count is of cells, as the verdict's is.
    let listed = marked_cells(lines[..shown].iter().copied());
    let rest = marked_cells(all.iter()).difference(&listed).count();
    if rest > 0 {
        let what = if shown > 0 { format!("… and {rest} more") } else { rest.to_string() };
        let more = format!(
            "{what} marked {}: `icbench show {} --stats` has every cell's counters, `--blocks` \
             its blocks, `--json` both",
            if rest == 1 { "cell" } else { "cells" },
            view.run_id
        );
        for w in format::wrap(&more, text_width()) {
            writeln!(out, "{w}")?;
        }
    }
    Ok(())
}

/// The cells the marked-cell notes `notes` are of: each note's label
/// (`! pingpong shm 64 B`, up to its first ": ").
fn marked_cells<'a>(notes: impl Iterator<Item = &'a String>) -> BTreeSet<&'a str> {
    notes.map(|l| l.split_once(": ").map_or(l.as_str(), |(cell, _)| cell)).collect()
}

/// The footnote prefixes (`! pingpong shm 64 B:`) of the cells whose
/// figures the summary prints: each class's best link.
fn quoted_cells(view: &RunView) -> Vec<String> {
    let mut q = Vec::new();
    for c in &view.summary.classes {
        for (pattern, r, dir) in [("pingpong", &c.latency, ""), ("stream", &c.throughput, " h2p")] {
            if let Some(best) = r.as_ref().and_then(|r| Some((r.size_bytes, r.entries.first()?))) {
                let (size, e) = best;
                q.push(format!(
                    "{} {pattern} {} {}{dir}:",
                    crate::disturbed::MARK,
                    e.link,
                    format::bytes(size)
                ));
            }
        }
    }
    q
}

/// Marked-cell footnotes printed under the tables; a bad run had hundreds,
/// burying its summary (issue #18). The rest are counted, and the verdict
/// still counts every one.
const MAX_FOOTNOTES: usize = 12;

fn warnings(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    for w in &view.warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}

/// The line on the CPU's fast counter: what it is, its rate and read cost,
/// and whether it agreed with the run's clock (it never timed the run).
pub fn fast_counter(fc: &icbench_model::FastCounter) -> String {
    let Some(name) = &fc.counter else {
        return format!("fast counter: {}", fc.reason);
    };
    let mut line = format!("fast counter {name}");
    if let Some(hz) = fc.hz {
        line += &format!(" at {}", format::rate(hz, "Hz"));
    }
    if let Some(d) = fc.declared_hz {
        line += &format!(" (declares {})", format::rate(d, "Hz"));
    }
    if let Some(r) = fc.read_ns {
        line += &format!(", one read costs {}", format::ns(r));
    }
    let verdict = if fc.trusted { "trusted" } else { "NOT trusted" };
    line += &format!(" · {verdict}");
    if let Some(d) = fc.max_deviation_ns {
        line += &format!(": within {} of the clock", format::ns(d));
    }
    if let Some(p) = fc.drift_ppm {
        line += &format!(", drift {p:+.2} ppm");
    }
    if !fc.trusted {
        line += &format!(" — {}", fc.reason.trim_start_matches("not trusted: "));
    }
    line + " (not used for timing)"
}

/// The lines above the tables: which run, where, with what clock and floor.
pub fn header(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    let m = &view.meta;
    if view.is_imported() {
        writeln!(
            out,
            "run {} · {} · NOT measured by icbench: another tool's results · from {}",
            view.run_id,
            view.source,
            view.provenance.as_deref().unwrap_or("unknown")
        )?;
        writeln!(out, "machine as recorded: {} · {}", m.hostname, m.cpu_model)?;
        for n in &m.notes {
            wrapped(out, &format!("note: {n}"))?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "run {} · {} · {} · started {} · {}",
        view.run_id,
        m.hostname,
        m.cpu_model,
        format::unix_ns(m.started_unix_ns),
        m.status.as_str()
    )?;
    writeln!(
        out,
        "host CPU {} ↔ peer CPU {} ({} peer, {}{}) · online CPUs {} · Linux {}{}",
        m.host_cpu,
        m.peer_cpu,
        m.peer_mode.as_str(),
        m.sched,
        if m.mlock { ", mlockall" } else { "" },
        m.online_cpus,
        m.kernel_release,
        m.governor.as_deref().map(|g| format!(" · governor {g}")).unwrap_or_default(),
    )?;
    if m.label.is_some() || m.user_note.is_some() {
        let label = m.label.as_deref().map(|l| format!("label {}", format::printable(l)));
        let note = m.user_note.as_deref().map(|n| format!("note: {}", format::printable(n)));
        writeln!(out, "{}", label.into_iter().chain(note).collect::<Vec<_>>().join(" · "))?;
    }
    writeln!(out, "clock {}", clock_line(m))?;
    if let Some(fc) = &m.fast_counter {
        wrapped(out, &fast_counter(fc))?;
    }
    if let Some(f) = &m.floor {
        floor_lines(f, out)?;
    }
    if let (Some(d), Some(t)) = (&view.floor_drift, &m.floor_tail) {
        for l in d.lines(t).iter().flat_map(|l| format::wrap(l, text_width())) {
            writeln!(out, "{l}")?;
        }
    }
    for n in &m.notes {
        wrapped(out, &format!("note: {n}"))?;
    }
    Ok(())
}

/// A line of prose, wrapped at the text width (≤ 100 columns; issue #29).
pub(crate) fn wrapped(out: &mut dyn Write, text: &str) -> std::io::Result<()> {
    for l in format::wrap(text, text_width()) {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

/// The floor under the run header, a line per kind of figure so that it
/// reads in a 100-column terminal: the round trips, memcpy, and each
/// link's bare-loop comparison.
fn floor_lines(f: &icbench_model::Floor, out: &mut dyn Write) -> std::io::Result<()> {
    const INDENT: &str = "       ";
    write!(out, "floor: cache-line round trip {}", format::ns(f.cacheline_rtt_ns))?;
    if let Some(t) = f.two_line_rtt_ns {
        write!(out, " · two-line {} (one line per direction)", format::ns(t))?;
    }
    if let Some(t) = f.slot64_rtt_ns {
        write!(out, " · 64 B slot {}", format::ns(t))?;
    }
    writeln!(
        out,
        "\n{INDENT}memcpy {} ({} blocks)",
        format::rate(f.memcpy_bytes_per_s, "B/s"),
        format::bytes(f.memcpy_block_bytes)
    )?;
    for (name, bare, cmp) in [
        ("pipe", f.syscall_pipe_rtt_ns, f.syscall_pipe),
        ("unix", f.syscall_unix_rtt_ns, f.syscall_unix),
    ] {
        match (bare, cmp) {
            (_, Some(c)) => writeln!(
                out,
                "{INDENT}{name} 64 B: bare loop {}, icbench {} (interleaved)",
                format::ns(c.bare_rtt_ns),
                format::ns(c.icbench_rtt_ns)
            )?,
            (Some(b), None) => writeln!(out, "{INDENT}bare {name} loop 64 B {}", format::ns(b))?,
            (None, None) => {}
        }
    }
    Ok(())
}

/// How much of a run its text shows: the summary (the default of `run` and
/// `show`, issue #18: a default run's two 153-row tables buried it), or
/// every cell's table as well (`--cells`, the markdown export). A run with
/// nothing to summarise (one-way cells, a remote peer's protocol, a chip)
/// shows its tables either way: they are all it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    Summary,
    Cells,
}

/// The whole run: header, the tables when asked for, footnotes, the
/// targets' line, the summary and verdict.
pub fn run(view: &RunView, out: &mut dyn Write, detail: Detail) -> std::io::Result<()> {
    fitted(out, |o| run_styled(view, o, Style::Terminal, detail))
}

/// The run as markdown: its tables in GitHub's pipe syntax, every other
/// line ending in a hard break, a blank line around each table.
pub fn markdown(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    let mut buf = Vec::new();
    run_styled(view, &mut buf, Style::Markdown, Detail::Cells)?;
    let text = String::from_utf8_lossy(&buf);
    let mut in_table = false;
    for line in text.lines() {
        let row = line.starts_with('|');
        match (row, in_table) {
            (true, false) => writeln!(out)?,
            (false, true) => writeln!(out)?,
            _ => {}
        }
        in_table = row;
        if row || line.is_empty() {
            writeln!(out, "{line}")?;
        } else {
            // Markdown would join these lines into one paragraph.
            writeln!(out, "{}  ", line.replace('|', "\\|").replace('<', "\\<"))?;
        }
    }
    Ok(())
}

fn run_styled(
    view: &RunView,
    out: &mut dyn Write,
    st: Style,
    detail: Detail,
) -> std::io::Result<()> {
    header(view, out)?;
    let cells = detail == Detail::Cells || view.summary.classes.is_empty();
    if cells {
        cell_tables(view, out, st)?;
    }
    disturbed_lines(view, out, cells)?;
    if cells {
        let dimtass = |p: &Option<String>| p.as_deref() == Some("dimtass");
        if view.pingpong.iter().any(|r| dimtass(&r.protocol))
            || view.bulk.iter().any(|r| dimtass(&r.protocol))
        {
            writeln!(
                out,
                "dimtass cells: the reply is the peer's 2-byte count, not an echo; the data is not \
                 checked"
            )?;
        }
    }
    targets_line(view, out)?;
    warnings(view, out)?;
    if !cells {
        writeln!(out, "\n{}", cells_hint(view))?;
    }
    summary(&view.summary, out)
}

/// Where the tables are when the summary stands in for them.
fn cells_hint(view: &RunView) -> String {
    let counts: Vec<String> = [
        ("ping-pong", view.pingpong.len()),
        ("stream", view.stream.len()),
        ("bulk", view.bulk.len()),
        ("oneway", view.oneway.len()),
        ("timer", view.timer.len()),
        ("irq", view.irq.len()),
    ]
    .iter()
    .filter(|(_, n)| *n > 0)
    .map(|(what, n)| format!("{what} {n}"))
    .collect();
    format!(
        "the tables of every cell ({}): `icbench show {} --cells`",
        counts.join(", "),
        view.run_id
    )
}

/// One line of the project's own targets (issue #18: not what a user reads
/// first); the table is behind `show --targets`.
fn targets_line(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    if view.targets.is_empty() {
        return Ok(());
    }
    let count = |v| view.targets.iter().filter(|t| t.verdict == v).count();
    writeln!(out)?;
    wrapped(
        out,
        &format!(
            "targets: {} compared with this run's floor, {} met, {} not met, {} not shown: \
             `icbench show {} --targets`",
            view.targets.len(),
            count(crate::targets::Verdict::Met),
            count(crate::targets::Verdict::NotMet) + count(crate::targets::Verdict::OutOfReach),
            count(crate::targets::Verdict::NotShown),
            view.run_id
        ),
    )
}

/// Every cell's table, a pattern at a time, and the CPU pair matrices.
fn cell_tables(view: &RunView, out: &mut dyn Write, st: Style) -> std::io::Result<()> {
    if !view.pingpong.is_empty() {
        writeln!(out, "\nping-pong: round trip per message (RTT), echo checked byte for byte")?;
        writeln!(out, "{}", st.show(pingpong_table(&view.pingpong)))?;
        if view.pingpong.iter().any(|r| r.msgs_per_s.is_some()) {
            // Issue #18: the rate disagreed with the p50 (1 B shm: p50 130 ns,
            // 1.86 M/s) with nothing to say why.
            writeln!(
                out,
                "round trips/s and payload B/s: over the whole cell, slow round trips \
                 included (not 1 ÷ p50)"
            )?;
        }
        if !view.is_imported() && view.pingpong.iter().any(|r| r.rtt_ns.is_some()) {
            ci_meaning(view.pingpong.iter().find_map(|r| r.replicates.as_ref()), out)?;
        }
    }
    if !view.stream.is_empty() {
        writeln!(
            out,
            "\nstream: messages in flight up to the window, the receiver returns credits; \
             payload B/s in the row's direction"
        )?;
        writeln!(out, "{}", st.show(stream_table(&view.stream)))?;
    }
    let chans = channel_cells(view);
    if !chans.is_empty() {
        writeln!(out, "\n{CHANNELS_NOTE}")?;
        writeln!(out, "{}", st.show(channels_table(&chans)))?;
    }
    if !view.bulk.is_empty() {
        writeln!(
            out,
            "\nbulk: block × blocks written, then one acknowledgement; time per whole transfer"
        )?;
        writeln!(out, "{}", st.show(bulk_table(&view.bulk)))?;
        if view.bulk.iter().any(|r| r.transfers_per_s.is_some()) {
            writeln!(
                out,
                "transfers/s and payload B/s: over the whole cell, slow transfers included (not \
                 1 ÷ p50)"
            )?;
        }
    }
    if !view.timer.is_empty() {
        writeln!(out, "\ntimer: wake-up latency (how late a timed sleep returned)")?;
        writeln!(out, "{}", st.show(timer_table("timer", &view.timer)))?;
    }
    if !view.irq.is_empty() {
        writeln!(
            out,
            "\nirq: GPIO loopback intervals per edge (set-to-edge, edge-to-wake, \
             edge-to-response), kernel edge stamps"
        )?;
        writeln!(out, "{}", st.show(timer_table("irq", &view.irq)))?;
    }
    if !view.oneway.is_empty() {
        writeln!(
            out,
            "\noneway: one-way latency, ns: receiver's clock read − sender's stamp on the common \
             clock, one message in flight, every byte checked"
        )?;
        writeln!(out, "{}", st.show(oneway_table(&view.oneway)))?;
    }
    cpu_pairs(&view.cpu_pairs, out, st)
}
