//! Terminal tables. Every figure carries its unit; failed cells say why and
//! sizes a link cannot carry say "n/a (max 64 KiB)", in the size column's
//! units.

use std::io::Write;

use comfy_table::{CellAlignment, ContentArrangement, Table, presets};
use serde::Serialize;

use crate::disturbed::marked;
use crate::format;
use crate::pairs::{CpuPairMatrix, PairValue};
use crate::stats::CellStats;
use crate::view::{BulkRow, ChannelsView, OneWayRow, PingPongRow, RunView, StreamRow, TimerRow};

/// The link column: the spec, and the wire protocol when it is not
/// icbench's own.
pub fn link_name(link: &str, protocol: &Option<String>) -> String {
    match protocol {
        Some(p) => format!("{link} · {p}"),
        None => link.to_string(),
    }
}

fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.iter().copied());
    t
}

fn right_align(t: &mut Table, from: usize) {
    for i in from..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

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

/// A link's label in tables: the spec, with the channel count when several.
pub fn link_label(link: &str, channels: Option<u32>) -> String {
    match channels {
        Some(n) if n > 1 => format!("{link} ×{n} ch"),
        _ => link.to_string(),
    }
}

/// A label with the cell's factors, for cells a plan tells apart by more
/// than link and size (`unix [cpus=1,0 rep=2]`). The declared link and
/// the channel count are in the label already, the direction in a column
/// of its own.
pub fn with_factors(label: String, factors: &std::collections::BTreeMap<String, String>) -> String {
    let f: Vec<String> = factors
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "link" | "channels" | "direction"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if f.is_empty() { label } else { format!("{label} [{}]", f.join(" ")) }
}

/// The median's 95 % CI as `±x %` of the median, or why there is none.
fn median_ci_short(s: &CellStats) -> String {
    match s.median_ci95_rel() {
        Some(r) => format!("±{} %", format::sig3(r * 100.0)),
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

fn pingpong_table(rows: &[PingPongRow]) -> Table {
    let adaptive = rows.iter().any(|r| r.adaptive.is_some());
    let busy = any_busy(rows.iter().map(|r| r.tx_busy));
    // Headers wider than their figures take two lines, so that the table
    // of a default run fits 120 columns.
    let mut header = vec![
        "link",
        "size",
        "p50 RTT",
        "p50\n95% CI",
        "p99 RTT",
        "max RTT",
        "round\ntrips/s",
        "payload\nB/s",
        "p50\n÷ floor",
    ];
    if adaptive {
        header.push("--ci");
    }
    let mut t = table(&with_busy(header, busy));
    for r in rows {
        let link =
            with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
        let mut line = vec![link, format::bytes(r.size_bytes)];
        if r.status == "ok" {
            match &r.rtt_ns {
                Some(s) => line.extend([
                    marked(format::ns(s.summary.p50), &r.disturbance, &r.replicates),
                    r.replicates
                        .as_ref()
                        .map_or_else(|| median_ci_short(s), crate::replicates::ci_short),
                    format::ns(s.summary.p99),
                    format::ns(s.summary.max),
                ]),
                None => line.extend(["–", "–", "–", "–"].map(String::from)),
            }
            line.extend([
                format::rate(r.msgs_per_s.unwrap_or(f64::NAN), "/s"),
                format::rate(r.bytes_per_s.unwrap_or(f64::NAN), "B/s"),
                r.p50_over_floor.map_or("–".into(), format::ratio),
            ]);
            if adaptive {
                line.push(adaptive_short(r));
            }
            if busy {
                line.push(r.tx_busy.unwrap_or(0).to_string());
            }
        } else {
            line.push(not_measured(r.status, &r.reason, r.max_bytes));
        }
        t.add_row(line);
    }
    right_align(&mut t, 1);
    t
}

fn timer_table(rows: &[TimerRow]) -> Table {
    let mut t = table(&["timer", "n", "min", "mean", "p50", "p99", "p99.9", "max"]);
    for r in rows {
        let mut line = vec![r.link.clone()];
        match (&r.latency_ns, r.status) {
            (Some(s), "ok") => {
                let m = &s.summary;
                line.push(m.count.to_string());
                line.extend([m.min, m.mean, m.p50, m.p99, m.p99_9, m.max].map(format::ns));
            }
            _ => line.push(not_measured(r.status, &r.reason, None)),
        }
        t.add_row(line);
    }
    right_align(&mut t, 1);
    t
}

/// `h2p` → `h2p (host → peer)`; anything else as it is.
fn direction_label(d: &str) -> String {
    match d.parse::<icbench_model::Direction>() {
        Ok(dir) => format!("{d} ({})", dir.describe()),
        Err(_) => d.to_string(),
    }
}

fn oneway_table(rows: &[OneWayRow]) -> Table {
    let mut t = table(&[
        "link",
        "size",
        "direction",
        "n",
        "min",
        "p50 one-way",
        "p50 95% CI",
        "p99 one-way",
        "max one-way",
    ]);
    for r in rows {
        let mut line =
            vec![r.link.clone(), format::bytes(r.size_bytes), direction_label(&r.direction)];
        match &r.oneway_ns {
            Some(s) if r.status == "ok" => line.extend([
                s.summary.count.to_string(),
                format::ns(s.summary.min),
                marked(format::ns(s.summary.p50), &r.disturbance, &r.replicates),
                r.replicates
                    .as_ref()
                    .map_or_else(|| median_ci_short(s), crate::replicates::ci_short),
                format::ns(s.summary.p99),
                format::ns(s.summary.max),
            ]),
            _ => line.push(not_measured(r.status, &r.reason, r.max_bytes)),
        }
        t.add_row(line);
    }
    right_align(&mut t, 1);
    t
}

fn ci_text(lo: Option<f64>, hi: Option<f64>) -> String {
    match (lo, hi) {
        (Some(lo), Some(hi)) => format!("{} … {}", format::ns(lo), format::ns(hi)),
        _ => "–".to_string(),
    }
}

/// Every latency cell with its full statistics (`icbench show --stats`).
pub fn stats_table(view: &RunView) -> Table {
    let mut t = table(&[
        "pattern",
        "link",
        "size",
        "from",
        "count",
        "min",
        "mean",
        "stddev",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max",
        "mean 95% CI",
        "median 95% CI",
        "outliers mild/severe",
    ]);
    let mut rows: Vec<(&str, String, String, &CellStats)> = Vec::new();
    for r in &view.pingpong {
        if let Some(s) = &r.rtt_ns {
            rows.push((
                "pingpong",
                with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors),
                format::bytes(r.size_bytes),
                s,
            ));
        }
    }
    for r in &view.bulk {
        if let Some(s) = &r.transfer_ns {
            let size = format!("{}×{}", format::bytes(r.block_bytes), r.blocks);
            rows.push(("bulk", link_name(&r.link, &r.protocol), size, s));
        }
    }
    for r in &view.timer {
        if let Some(s) = &r.latency_ns {
            rows.push(("timer", r.link.clone(), "–".to_string(), s));
        }
    }
    for r in &view.oneway {
        if let Some(s) = &r.oneway_ns {
            let link = format!("{} {}", r.link, r.direction);
            rows.push(("oneway", link, format::bytes(r.size_bytes), s));
        }
    }
    for (pattern, link, size, s) in rows {
        let m = &s.summary;
        let mut line = vec![pattern.to_string(), link, size, s.from.to_string()];
        line.push(m.count.to_string());
        line.extend([m.min, m.mean, m.stddev, m.p50, m.p90, m.p99, m.p99_9, m.max].map(format::ns));
        line.push(ci_text(s.mean_ci95_lo, s.mean_ci95_hi));
        line.push(ci_text(s.median_ci95_lo, s.median_ci95_hi));
        line.push(match &s.outliers {
            Some(o) => format!("{}/{}", o.mild(), o.severe()),
            None => "–".to_string(),
        });
        t.add_row(line);
    }
    right_align(&mut t, 4);
    t
}

/// `icbench show --stats`: the header, then the statistics table and how
/// each figure was computed.
pub fn run_stats(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    header(view, out)?;
    writeln!(
        out,
        "
statistics per cell (ns; outliers are flagged, never removed)"
    )?;
    writeln!(out, "{}", stats_table(view))?;
    writeln!(
        out,
        "mean CI: {}; median CI: {}; outliers: {}; percentiles: type 7 (linear interpolation)",
        crate::stats::MEAN_CI_METHOD,
        crate::stats::MEDIAN_CI_METHOD,
        crate::stats::OUTLIER_METHOD
    )?;
    let mut notes: Vec<&str> = Vec::new();
    let all = view
        .pingpong
        .iter()
        .filter_map(|r| r.rtt_ns.as_ref())
        .chain(view.bulk.iter().filter_map(|r| r.transfer_ns.as_ref()))
        .chain(view.timer.iter().filter_map(|r| r.latency_ns.as_ref()))
        .chain(view.oneway.iter().filter_map(|r| r.oneway_ns.as_ref()));
    for s in all {
        if let Some(n) = &s.note
            && !notes.contains(&n.as_str())
        {
            notes.push(n);
        }
    }
    for n in notes {
        writeln!(out, "note: {n}")?;
    }
    let rows = crate::disturbed::counters_rows(view);
    if !rows.is_empty() {
        writeln!(
            out,
            "\ndisturbance per cell: the kernel's counters over the cell, host / peer \
             ({} marks a disturbed cell, docs/method.md)",
            crate::disturbed::MARK
        )?;
        let mut t = table(&crate::disturbed::COUNTERS_HEADER);
        for r in rows {
            t.add_row(r);
        }
        right_align(&mut t, 3);
        writeln!(out, "{t}")?;
    }
    disturbed_lines(view, out)?;
    let chans = channel_cells(view);
    if !chans.is_empty() {
        writeln!(out, "\nper channel ({CHANNELS_NOTE})")?;
        writeln!(out, "{}", per_channel_table(&chans))?;
    }
    warnings(view, out)
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

/// The disturbed cells, each with what disturbed it, and the cells cut
/// short of their cell time.
fn disturbed_lines(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    let cut = crate::disturbed::cut_lines(view);
    if !cut.is_empty() {
        writeln!(out, "\ncells cut short of the cell time (the engine's message cap):")?;
        for l in cut {
            writeln!(out, "{l}")?;
        }
    }
    let lines = crate::disturbed::footnotes(view);
    if !lines.is_empty() {
        writeln!(
            out,
            "\nmarked cells (!): disturbed, as the kernel's counters show, or their blocks \
             disagree (docs/method.md):"
        )?;
        for l in lines {
            for w in format::wrap(&l, 100) {
                writeln!(out, "{w}")?;
            }
        }
    }
    Ok(())
}

fn warnings(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    for w in &view.warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}

fn stream_table(rows: &[StreamRow]) -> Table {
    let busy = any_busy(rows.iter().map(|r| r.tx_busy));
    let reps = rows.iter().any(|r| r.replicates.is_some());
    let mut header = vec!["link", "size", "direction", "messages/s", "payload B/s"];
    if reps {
        header.push("B/s\n95% CI");
    }
    header.extend(["÷ memcpy", "window"]);
    let mut t = table(&with_busy(header, busy));
    for r in rows {
        let link =
            with_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
        let mut line = vec![link, format::bytes(r.size_bytes), direction_label(&r.direction)];
        if r.status == "ok" {
            line.extend([
                format::rate(r.msgs_per_s.unwrap_or(f64::NAN), "msg/s"),
                marked(
                    format::rate(r.bytes_per_s.unwrap_or(f64::NAN), "B/s"),
                    &r.disturbance,
                    &r.replicates,
                ),
            ]);
            if reps {
                line.push(r.replicates.as_ref().map_or("–".into(), crate::replicates::ci_short));
            }
            line.extend([
                r.over_memcpy.map_or("–".into(), format::ratio),
                r.window.map_or("–".into(), |w| format!("{w} msg")),
            ]);
            if busy {
                line.push(r.tx_busy.unwrap_or(0).to_string());
            }
        } else {
            line.push(not_measured(r.status, &r.reason, r.max_bytes));
        }
        t.add_row(line);
    }
    right_align(&mut t, 1);
    t
}

/// Every multi-channel cell of the run, ping-pong then stream, with its
/// label (link, pattern, size).
fn channel_cells(view: &RunView) -> Vec<(String, &'static str, u64, &ChannelsView)> {
    let pp = view.pingpong.iter().filter_map(|r| {
        r.common_window
            .as_ref()
            .map(|c| (link_name(&r.link, &r.protocol), "pingpong", r.size_bytes, c))
    });
    let st = view.stream.iter().filter_map(|r| {
        r.common_window
            .as_ref()
            .map(|c| (link_name(&r.link, &r.protocol), "stream", r.size_bytes, c))
    });
    pp.chain(st).collect()
}

/// Channels: the total over the common window and how evenly it was shared.
fn channels_table(cells: &[(String, &'static str, u64, &ChannelsView)]) -> Table {
    let mut t = table(&[
        "link",
        "pattern",
        "size",
        "channels",
        "window",
        "total payload B/s",
        "per channel min",
        "per channel max",
        "min ÷ max",
        "Jain's index",
    ]);
    for (link, pattern, size, c) in cells {
        let f = c.fairness;
        t.add_row(vec![
            link.clone(),
            pattern.to_string(),
            format::bytes(*size),
            c.channels.to_string(),
            format::ns(c.window_ns as f64),
            format::rate(c.total_bytes_per_s, "B/s"),
            f.map_or("–".into(), |f| format::rate(f.min, "B/s")),
            f.map_or("–".into(), |f| format::rate(f.max, "B/s")),
            f.map_or("–".into(), |f| format::ratio(f.min_over_max)),
            f.map_or("–".into(), |f| format!("{:.3}", f.jain)),
        ]);
    }
    right_align(&mut t, 2);
    t
}

/// One line per channel (`show --stats`).
fn per_channel_table(cells: &[(String, &'static str, u64, &ChannelsView)]) -> Table {
    let mut t = table(&[
        "link",
        "pattern",
        "size",
        "channel",
        "start after T0",
        "own span",
        "messages",
        "payload B/s",
        "p50 RTT",
        "p99 RTT",
    ]);
    for (link, pattern, size, c) in cells {
        for ch in &c.per_channel {
            t.add_row(vec![
                link.clone(),
                pattern.to_string(),
                format::bytes(*size),
                ch.channel.to_string(),
                format::ns(ch.start_offset_ns as f64),
                format::ns(ch.active_ns as f64),
                ch.messages.to_string(),
                format::rate(ch.bytes_per_s, "B/s"),
                ch.rtt_p50_ns.map_or("–".into(), format::ns),
                ch.rtt_p99_ns.map_or("–".into(), format::ns),
            ]);
        }
    }
    right_align(&mut t, 2);
    t
}

const CHANNELS_NOTE: &str = "channels: N links with their own peers, started together; every \
     rate is over ONE common window (total = Σ bytes ÷ window, never a sum of per-channel rates)";

fn bulk_table(rows: &[BulkRow]) -> Table {
    let busy = any_busy(rows.iter().map(|r| r.tx_busy));
    let header = vec![
        "link",
        "block × blocks",
        "transfer",
        "n",
        "p50 time",
        "p99 time",
        "max time",
        "transfers/s",
        "payload B/s",
    ];
    let mut t = table(&with_busy(header, busy));
    for r in rows {
        let mut line = vec![
            link_name(&r.link, &r.protocol),
            format!("{} × {}", format::bytes(r.block_bytes), r.blocks),
            format::bytes(r.total_bytes),
        ];
        match &r.transfer_ns {
            Some(s) if r.status == "ok" => {
                line.extend([
                    s.summary.count.to_string(),
                    marked(format::ns(s.summary.p50), &r.disturbance, &r.replicates),
                    format::ns(s.summary.p99),
                    format::ns(s.summary.max),
                    format::rate(r.transfers_per_s.unwrap_or(f64::NAN), "/s"),
                    format::rate(r.bytes_per_s.unwrap_or(f64::NAN), "B/s"),
                ]);
                if busy {
                    line.push(r.tx_busy.unwrap_or(0).to_string());
                }
            }
            _ => line.push(not_measured(r.status, &r.reason, r.max_bytes)),
        }
        t.add_row(line);
    }
    right_align(&mut t, 1);
    t
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
            writeln!(out, "note: {n}")?;
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
    writeln!(out, "clock {} (one read costs {})", m.clock, format::ns(m.clock_overhead_ns))?;
    if let Some(fc) = &m.fast_counter {
        writeln!(out, "{}", fast_counter(fc))?;
    }
    if let Some(f) = &m.floor {
        floor_lines(f, out)?;
    }
    if let (Some(d), Some(t)) = (&view.floor_drift, &m.floor_tail) {
        for l in d.lines(t).iter().flat_map(|l| format::wrap(l, 100)) {
            writeln!(out, "{l}")?;
        }
    }
    for n in &m.notes {
        writeln!(out, "note: {n}")?;
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

/// The whole run: header, ping-pong table, stream table, targets.
pub fn run(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    header(view, out)?;
    if !view.pingpong.is_empty() {
        writeln!(out, "\nping-pong: round trip per message (RTT), echo checked byte for byte")?;
        writeln!(out, "{}", pingpong_table(&view.pingpong))?;
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
        writeln!(out, "{}", stream_table(&view.stream))?;
    }
    let chans = channel_cells(view);
    if !chans.is_empty() {
        writeln!(out, "\n{CHANNELS_NOTE}")?;
        writeln!(out, "{}", channels_table(&chans))?;
    }
    if !view.bulk.is_empty() {
        writeln!(
            out,
            "\nbulk: block × blocks written, then one acknowledgement; time per whole transfer"
        )?;
        writeln!(out, "{}", bulk_table(&view.bulk))?;
    }
    if !view.timer.is_empty() {
        writeln!(out, "\ntimer: wake-up latency (how late a timed sleep returned)")?;
        writeln!(out, "{}", timer_table(&view.timer))?;
    }
    if !view.oneway.is_empty() {
        writeln!(
            out,
            "\noneway: one-way latency, ns: receiver's clock read − sender's stamp on the common \
             clock, one message in flight, every byte checked"
        )?;
        writeln!(out, "{}", oneway_table(&view.oneway))?;
    }
    cpu_pairs(&view.cpu_pairs, out)?;
    disturbed_lines(view, out)?;
    let dimtass = |p: &Option<String>| p.as_deref() == Some("dimtass");
    if view.pingpong.iter().any(|r| dimtass(&r.protocol))
        || view.bulk.iter().any(|r| dimtass(&r.protocol))
    {
        writeln!(
            out,
            "dimtass cells: the reply is the peer's 2-byte count, not an echo; the data is not checked"
        )?;
    }
    if !view.targets.is_empty() {
        writeln!(out, "\ntargets (ratios against this run's floor)")?;
        let mut t = table(&["target", "ratio", "required", "met"]);
        for g in &view.targets {
            let ratio = g.ratio_text();
            t.add_row(vec![
                g.name.to_string(),
                ratio,
                g.bound.to_string(),
                g.verdict.as_str().to_string(),
            ]);
        }
        right_align(&mut t, 1);
        writeln!(out, "{t}")?;
        for g in &view.targets {
            if let Some(why) = &g.why {
                let text = format!("{}: {}: {why}", g.name, g.verdict.as_str());
                for line in format::wrap(&text, 100) {
                    writeln!(out, "{line}")?;
                }
            }
        }
    }
    warnings(view, out)?;
    if let Some(v) = view.verdict.as_ref().filter(|v| v.verdict != "not judged") {
        writeln!(out)?;
        for line in format::wrap(&v.text, 100) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// An entry of a CPU-pair matrix as text: the value with its unit, `n/a`
/// on the diagonal, `–` for a pair without cells, `failed` for a pair
/// whose cells all failed.
pub fn pair_text(m: &CpuPairMatrix, i: usize, j: usize) -> String {
    if i == j {
        return "n/a".to_string();
    }
    match &m.matrix[i][j] {
        None => "–".to_string(),
        Some(PairValue { value: None, .. }) => "failed".to_string(),
        Some(PairValue { value: Some(v), .. }) if m.is_latency() => format::ns(*v),
        Some(PairValue { value: Some(v), .. }) => format::rate(*v, m.unit),
    }
}

/// The heading of a CPU-pair matrix: the group, what the entries are, and
/// how repetitions were combined.
pub fn pair_heading(m: &CpuPairMatrix) -> String {
    let reps = match m.max_cells() {
        0 | 1 => String::new(),
        n => format!("; median over up to {n} repeated cells"),
    };
    format!("{}: {} per CPU pair (rows: host CPU, columns: peer CPU){reps}", m.title(), m.what())
}

/// One matrix table per CPU-pair group (a plan's `cpus = "all-pairs"`).
fn cpu_pairs(matrices: &[CpuPairMatrix], out: &mut dyn Write) -> std::io::Result<()> {
    for m in matrices {
        writeln!(out, "\n{}", pair_heading(m))?;
        let mut header = vec!["host \\ peer".to_string()];
        header.extend(m.cpus.iter().map(|c| format!("CPU {c}")));
        let mut t = Table::new();
        t.load_style(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(header);
        for (i, c) in m.cpus.iter().enumerate() {
            let mut row = vec![format!("CPU {c}")];
            row.extend((0..m.cpus.len()).map(|j| pair_text(m, i, j)));
            t.add_row(row);
        }
        right_align(&mut t, 1);
        writeln!(out, "{t}")?;
        let failed: u32 = m.matrix.iter().flatten().flatten().map(|p| p.not_measured).sum();
        if failed > 0 {
            writeln!(
                out,
                "{failed} cell(s) of these pairs failed or were n/a (not in the medians)"
            )?;
        }
    }
    Ok(())
}

/// One line per stored run, for `icbench runs`.
#[derive(Debug, Clone, Serialize)]
pub struct RunListRow {
    pub id: i64,
    pub started_unix_ns: i64,
    pub status: String,
    pub source: String,
    pub hostname: String,
    pub cpus: String,
    pub cells_ok: u64,
    pub cells_failed: u64,
    pub cells_na: u64,
    /// The run's floor moved past its bound between head and tail.
    pub unstable: bool,
}

pub fn runs(rows: &[RunListRow], out: &mut dyn Write) -> std::io::Result<()> {
    if rows.is_empty() {
        return writeln!(out, "no runs stored yet: `icbench run` measures one");
    }
    let mut t =
        table(&["run", "started", "status", "source", "host", "CPUs", "cells ok", "failed", "n/a"]);
    for r in rows {
        t.add_row(vec![
            r.id.to_string(),
            format::unix_ns(r.started_unix_ns),
            if r.unstable { format!("{}, unstable", r.status) } else { r.status.clone() },
            r.source.clone(),
            r.hostname.clone(),
            r.cpus.clone(),
            r.cells_ok.to_string(),
            r.cells_failed.to_string(),
            r.cells_na.to_string(),
        ]);
    }
    right_align(&mut t, 6);
    writeln!(out, "{t}")
}

/// `icbench model`: one block per series.
pub fn model(view: &crate::model::ModelView, out: &mut dyn Write) -> std::io::Result<()> {
    if view.models.is_empty() {
        return writeln!(out, "run {}: no series to fit (no measured cells match)", view.run_id);
    }
    writeln!(
        out,
        "run {} ({}): least-squares line t(n) = a + b·n per link and pattern",
        view.run_id, view.source
    )?;
    for m in &view.models {
        writeln!(
            out,
            "\n{} · {} · y = {} (ns), x = {} · {} points",
            link_label(&m.link, m.channels),
            m.pattern,
            m.y,
            m.x,
            m.points.len()
        )?;
        let Some(f) = &m.fit else {
            writeln!(out, "  {}", m.verdict)?;
            continue;
        };
        let mut t = table(&["", "estimate", "std error", "95% CI"]);
        t.add_row(vec![
            "a (fixed cost)".to_string(),
            format::ns(f.a),
            format::ns(f.se_a),
            format!("{} … {}", format::ns(f.a_ci95.lo), format::ns(f.a_ci95.hi)),
        ]);
        // Four significant digits of b, its error and CI to the same decimals.
        let d = format::sig_decimals(f.b, 4);
        t.add_row(vec![
            "b (per byte)".to_string(),
            format!("{:.d$} ns/B", f.b),
            format!("{:.d$} ns/B", f.se_b),
            format!("{:.d$} … {:.d$} ns/B", f.b_ci95.lo, f.b_ci95.hi),
        ]);
        right_align(&mut t, 1);
        writeln!(out, "{t}")?;
        writeln!(
            out,
            "  R² = {:.4} · largest relative error {:.1} % (at per-size means; {:.1} % at single \
             points) · residual stddev {}",
            f.r_squared,
            f.max_rel_error * 100.0,
            m.max_point_rel_error.unwrap_or(f64::NAN) * 100.0,
            format::ns(f.residual_stddev)
        )?;
        match (m.bandwidth_bytes_per_s, m.n_half_bytes) {
            (Some(bw), Some(nh)) => writeln!(
                out,
                "  asymptotic bandwidth 1/b = {} · half-performance size n½ = a/b = {:.0} B{}",
                format::rate(bw, "B/s"),
                nh,
                if f.b_ci95.lo <= 0.0 { " (unresolved: b's 95 % CI includes 0)" } else { "" }
            )?,
            _ => writeln!(out, "  no bandwidth: b ≤ 0")?,
        }
        if let Some(p) = &m.prediction {
            writeln!(
                out,
                "  predicted at {}: {}{}",
                format::bytes(p.size_bytes),
                format::ns(p.t_ns),
                if p.extrapolated { " (extrapolated beyond the measured sizes)" } else { "" }
            )?;
        }
        writeln!(out, "  {}", m.verdict)?;
    }
    Ok(())
}

fn metric_value(metric: &str, v: f64) -> String {
    if metric == "bytes_per_s" { format::rate(v, "B/s") } else { format::ns(v) }
}

fn signed(metric: &str, v: f64) -> String {
    let s = metric_value(metric, v.abs());
    if v < 0.0 { format!("−{s}") } else { format!("+{s}") }
}

/// `icbench compare`.
pub fn compare(view: &crate::compare::CompareView, out: &mut dyn Write) -> std::io::Result<()> {
    for s in &view.sides {
        writeln!(
            out,
            "{}: run {}{} · {} · {} · {}",
            s.label,
            s.run_id,
            s.link.as_deref().map(|l| format!(" link {l}")).unwrap_or_default(),
            s.source,
            s.hostname,
            s.cpu_model
        )?;
    }
    if view.rows.is_empty() {
        return writeln!(out, "no cells in common to compare");
    }
    let mut t = table(&[
        "link",
        "pattern",
        "size",
        "sides",
        "baseline",
        "other",
        "difference",
        "ratio",
        "ratio 95% CI",
        "p (MW / Welch)",
        "significant",
    ]);
    let mut notes: Vec<String> = Vec::new();
    for r in &view.rows {
        let p = |x: Option<f64>| {
            x.map_or(
                "–".to_string(),
                |p| if p < 0.001 { "<0.001".into() } else { format!("{p:.3}") },
            )
        };
        let sig = match r.significant {
            Some(true) => "yes".to_string(),
            Some(false) => "no".to_string(),
            None => {
                if let Some(n) = &r.note
                    && !notes.contains(n)
                {
                    notes.push(n.clone());
                }
                "no test".to_string()
            }
        };
        t.add_row(vec![
            link_label(&r.link, r.channels),
            r.pattern.to_string(),
            match r.blocks {
                Some(b) => format!("{}×{b}", format::bytes(r.size_bytes)),
                None => format::bytes(r.size_bytes),
            },
            format!("{} → {}", r.baseline, r.other),
            format!("{} (n={})", metric_value(r.metric, r.baseline_value), r.baseline_count),
            format!("{} (n={})", metric_value(r.metric, r.other_value), r.other_count),
            signed(r.metric, r.difference),
            format::ratio(r.ratio),
            match (r.ratio_ci95_lo, r.ratio_ci95_hi) {
                (Some(lo), Some(hi)) => format!("{} … {}", format::ratio(lo), format::ratio(hi)),
                _ => "–".to_string(),
            },
            format!("{} / {}", p(r.mann_whitney_p), p(r.welch_p)),
            sig,
        ]);
    }
    right_align(&mut t, 2);
    writeln!(out, "{t}")?;
    writeln!(
        out,
        "baseline and other are medians (p50_ns) or rates (bytes/s); ratio = other ÷ baseline; \
         significant at α = {} by Mann–Whitney U on the histograms, else Welch's t on raw samples",
        view.alpha
    )?;
    for n in notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_tell_cells_apart_in_the_link_column() {
        let f = std::collections::BTreeMap::from([
            ("cpus".to_string(), "1,0".to_string()),
            ("link".to_string(), "shm".to_string()),
            ("rep".to_string(), "2".to_string()),
        ]);
        assert_eq!(with_factors("shm?wait=spin".into(), &f), "shm?wait=spin [cpus=1,0 rep=2]");
        assert_eq!(with_factors("pipe".into(), &Default::default()), "pipe");
    }

    #[test]
    fn a_cpu_pair_matrix_prints_rows_of_hosts_and_columns_of_peers() {
        let pv =
            |v: Option<f64>, cells, not_measured| Some(PairValue { value: v, cells, not_measured });
        let m = CpuPairMatrix {
            link: "pipe".into(),
            protocol: None,
            pattern: icbench_model::Pattern::PingPong,
            size_bytes: 64,
            blocks: None,
            factors: Default::default(),
            metric: "rtt_p50_ns".into(),
            unit: "ns",
            cpus: vec![0, 1, 2],
            matrix: vec![
                vec![None, pv(Some(812.0), 3, 0), pv(Some(1500.0), 3, 0)],
                vec![pv(Some(900.0), 2, 0), None, pv(None, 0, 3)],
                vec![None, pv(Some(2e6), 1, 0), None],
            ],
        };
        let mut out = Vec::new();
        cpu_pairs(std::slice::from_ref(&m), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(
                "pingpong pipe 64 B: p50 round trip per CPU pair (rows: host CPU, columns: peer \
                 CPU); median over up to 3 repeated cells"
            ),
            "{text}"
        );
        let rows: Vec<Vec<&str>> = text
            .lines()
            .filter(|l| l.contains("CPU "))
            .skip(1)
            .map(|l| l.split(['│', '┆']).map(str::trim).filter(|c| !c.is_empty()).collect())
            .collect();
        assert_eq!(rows[0], ["host \\ peer", "CPU 0", "CPU 1", "CPU 2"]);
        assert_eq!(rows[1], ["CPU 0", "n/a", "812 ns", "1.50 µs"]);
        assert_eq!(rows[2], ["CPU 1", "900 ns", "n/a", "failed"]);
        assert_eq!(rows[3], ["CPU 2", "–", "2.00 ms", "n/a"]);
        assert!(text.contains("3 cell(s) of these pairs failed"), "{text}");
    }

    fn row(busy: u64) -> StreamRow {
        StreamRow {
            link: "rpmsg:/dev/rpmsg0".into(),
            protocol: None,
            size_bytes: 496,
            direction: "h2p".into(),
            factors: Default::default(),
            status: "ok",
            reason: None,
            max_bytes: None,
            messages: Some(1000),
            window: Some(32),
            msgs_per_s: Some(1e4),
            bytes_per_s: Some(4.96e6),
            over_memcpy: None,
            tx_busy: Some(busy),
            channels: None,
            common_window: None,
            disturbance: None,
            cut: None,
            replicates: None,
        }
    }

    #[test]
    fn the_tx_busy_column_appears_only_when_something_was_refused() {
        let quiet = stream_table(&[row(0)]).to_string();
        assert!(!quiet.contains(TX_BUSY), "{quiet}");
        let busy = stream_table(&[row(0), row(17)]).to_string();
        assert!(busy.contains(TX_BUSY), "{busy}");
        assert!(
            busy.lines().any(|l| l.trim_end().trim_end_matches('│').trim_end().ends_with("17")),
            "{busy}"
        );
    }

    #[test]
    fn a_bulk_transfer_shows_the_writes_refused_on_a_full_ring() {
        let mut h = icbench_model::LatencyHistogram::new();
        h.record_n(5_000_000, 20);
        let data = icbench_model::CellData {
            messages: 20,
            bytes: 20 * 8192,
            elapsed_ns: 100_000_000,
            warmup_messages: 0,
            latency: Some(h),
            raw_ns: None,
            window: None,
            counters: Default::default(),
            channels: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            adaptive: None,
        };
        let bulk = |busy: u64| BulkRow {
            link: "tty:/dev/ttyRPMSG0".into(),
            protocol: Some("dimtass".into()),
            block_bytes: 512,
            blocks: 16,
            total_bytes: 8192,
            status: "ok",
            reason: None,
            max_bytes: None,
            transfer_ns: crate::stats::CellStats::of(&data),
            transfers_per_s: Some(10.0),
            bytes_per_s: Some(81920.0),
            tx_busy: Some(busy),
            disturbance: None,
            cut: None,
            replicates: None,
        };
        let quiet = bulk_table(&[bulk(0)]).to_string();
        assert!(!quiet.contains(TX_BUSY), "{quiet}");
        let busy = bulk_table(&[bulk(0), bulk(23)]).to_string();
        assert!(busy.contains(TX_BUSY), "{busy}");
        assert!(
            busy.lines().any(|l| l.trim_end().trim_end_matches('│').trim_end().ends_with("23")),
            "{busy}"
        );
    }

    #[test]
    fn the_fast_counter_line_says_what_was_found_and_the_verdict() {
        let tsc = icbench_model::FastCounter {
            counter: Some("tsc".into()),
            hz: Some(2.6e9),
            declared_hz: None,
            read_ns: Some(9.84),
            trusted: true,
            reason: "agrees".into(),
            max_deviation_ns: Some(1.7),
            drift_ppm: Some(-0.004),
        };
        assert_eq!(
            fast_counter(&tsc),
            "fast counter tsc at 2.60 GHz, one read costs 9.84 ns · trusted: within 1.70 ns of \
             the clock, drift -0.00 ppm (not used for timing)"
        );
        let arm = icbench_model::FastCounter {
            counter: Some("cntvct_el0".into()),
            hz: Some(62.5e6),
            declared_hz: Some(62.5e6),
            trusted: false,
            reason: "not trusted: the kernel's clocksource is tsc".into(),
            max_deviation_ns: None,
            drift_ppm: None,
            ..tsc.clone()
        };
        assert_eq!(
            fast_counter(&arm),
            "fast counter cntvct_el0 at 62.5 MHz (declares 62.5 MHz), one read costs 9.84 ns · \
             NOT trusted — the kernel's clocksource is tsc (not used for timing)"
        );
        let none = icbench_model::FastCounter {
            counter: None,
            reason: "not available on 32-bit ARM".into(),
            ..arm
        };
        assert_eq!(fast_counter(&none), "fast counter: not available on 32-bit ARM");
    }
}
