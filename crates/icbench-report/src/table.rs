//! Terminal tables. Every figure carries its unit; failed cells say why and
//! sizes a link cannot carry say "n/a (max N B)".

use std::io::Write;

use comfy_table::{CellAlignment, ContentArrangement, Table, presets};
use serde::Serialize;

use crate::format;
use crate::view::{BulkRow, PingPongRow, RunView, StreamRow};

/// The link column: the spec, and the wire protocol when it is not
/// icbench's own.
fn link_name(link: &str, protocol: &Option<String>) -> String {
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
        ("n/a", Some(m)) => format!("n/a (max {m} B)"),
        _ => format!("failed: {}", reason.as_deref().unwrap_or("unknown")),
    }
}

fn pingpong_table(rows: &[PingPongRow]) -> Table {
    let mut t = table(&[
        "link",
        "size",
        "p50 RTT",
        "p99 RTT",
        "max RTT",
        "round trips/s",
        "payload B/s",
        "p50 ÷ floor",
    ]);
    for r in rows {
        let mut line = vec![link_name(&r.link, &r.protocol), format::bytes(r.size_bytes)];
        match &r.rtt_ns {
            Some(s) if r.status == "ok" => line.extend([
                format::ns(s.p50),
                format::ns(s.p99),
                format::ns(s.max),
                format::rate(r.msgs_per_s.unwrap_or(f64::NAN), "/s"),
                format::rate(r.bytes_per_s.unwrap_or(f64::NAN), "B/s"),
                r.p50_over_floor.map_or("–".into(), format::ratio),
            ]),
            _ => line.push(not_measured(r.status, &r.reason, r.max_bytes)),
        }
        t.add_row(line);
    }
    right_align(&mut t, 1);
    t
}

fn stream_table(rows: &[StreamRow]) -> Table {
    let mut t = table(&["link", "size", "messages/s", "payload B/s", "÷ memcpy", "window"]);
    for r in rows {
        let mut line = vec![link_name(&r.link, &r.protocol), format::bytes(r.size_bytes)];
        if r.status == "ok" {
            line.extend([
                format::rate(r.msgs_per_s.unwrap_or(f64::NAN), "msg/s"),
                format::rate(r.bytes_per_s.unwrap_or(f64::NAN), "B/s"),
                r.over_memcpy.map_or("–".into(), format::ratio),
                r.window.map_or("–".into(), |w| format!("{w} msg")),
            ]);
        } else {
            line.push(not_measured(r.status, &r.reason, r.max_bytes));
        }
        t.add_row(line);
    }
    right_align(&mut t, 1);
    t
}

fn bulk_table(rows: &[BulkRow]) -> Table {
    let mut t = table(&[
        "link",
        "block × blocks",
        "transfer",
        "p50 time",
        "p99 time",
        "max time",
        "transfers/s",
        "payload B/s",
    ]);
    for r in rows {
        let mut line = vec![
            link_name(&r.link, &r.protocol),
            format!("{} × {}", format::bytes(r.block_bytes), r.blocks),
            format::bytes(r.transfer_bytes),
        ];
        match &r.transfer_ns {
            Some(s) if r.status == "ok" => line.extend([
                format::ns(s.p50),
                format::ns(s.p99),
                format::ns(s.max),
                format::rate(r.transfers_per_s.unwrap_or(f64::NAN), "/s"),
                format::rate(r.bytes_per_s.unwrap_or(f64::NAN), "B/s"),
            ]),
            _ => line.push(not_measured(r.status, &r.reason, r.max_bytes)),
        }
        t.add_row(line);
    }
    right_align(&mut t, 1);
    t
}

/// The lines above the tables: which run, where, with what clock and floor.
pub fn header(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    let m = &view.meta;
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
    if let Some(f) = &m.floor {
        write!(out, "floor: cache-line round trip {}", format::ns(f.cacheline_rtt_ns))?;
        if let Some(t) = f.two_line_rtt_ns {
            write!(out, " (two lines, one per direction: {})", format::ns(t))?;
        }
        write!(
            out,
            " · memcpy {} ({} blocks)",
            format::rate(f.memcpy_bytes_per_s, "B/s"),
            format::bytes(f.memcpy_block_bytes)
        )?;
        if let Some(p) = f.syscall_pipe_rtt_ns {
            write!(out, " · bare pipe loop 64 B {}", format::ns(p))?;
        }
        if let Some(u) = f.syscall_unix_rtt_ns {
            write!(out, " · bare unix loop 64 B {}", format::ns(u))?;
        }
        writeln!(out)?;
    }
    for n in &m.notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}

/// The whole run: header, ping-pong table, stream table, targets.
pub fn run(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    header(view, out)?;
    if !view.pingpong.is_empty() {
        writeln!(out, "\nping-pong: round trip per message (RTT), echo checked byte for byte")?;
        writeln!(out, "{}", pingpong_table(&view.pingpong))?;
    }
    if !view.stream.is_empty() {
        writeln!(out, "\nstream: messages in flight up to the window, peer returns credits")?;
        writeln!(out, "{}", stream_table(&view.stream))?;
    }
    if !view.bulk.is_empty() {
        writeln!(
            out,
            "\nbulk: block × blocks written, then one acknowledgement; time per whole transfer"
        )?;
        writeln!(out, "{}", bulk_table(&view.bulk))?;
    }
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
            t.add_row(vec![
                g.name.to_string(),
                format::ratio(g.ratio),
                g.bound.to_string(),
                if g.met { "yes" } else { "no" }.to_string(),
            ]);
        }
        right_align(&mut t, 1);
        writeln!(out, "{t}")?;
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
            r.status.clone(),
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
