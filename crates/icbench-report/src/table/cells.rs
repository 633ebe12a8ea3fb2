//! The tables of a run's cells: ping-pong, stream, one-way, bulk, timer,
//! channels, and the statistics table of `show --stats`.

use super::*;

pub(super) fn pingpong_table(rows: &[PingPongRow]) -> Table {
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
    let state = per_block_state(rows.iter().map(|r| (&r.state, &r.replicates)));
    if state {
        header.extend(["line RTT\nbefore", "p50\n÷ line", "wake-up\nbefore"]);
    }
    let mut t = table(&with_busy(header, busy));
    for r in rows {
        let link =
            with_all_factors(link_label(&link_name(&r.link, &r.protocol), r.channels), &r.factors);
        let mut line = vec![link, format::bytes(r.size_bytes)];
        if r.status == "ok" {
            match &r.rtt_ns {
                Some(s) => line.extend([
                    marked(
                        format::ns_at(s.summary.p50, r.resolution_ns),
                        &r.disturbance,
                        &r.replicates,
                    ),
                    r.replicates.as_ref().map_or_else(
                        || median_ci_short(s, r.resolution_ns),
                        |v| crate::replicates::ci_short_at(v, r.resolution_ns),
                    ),
                    format::ns_at(s.summary.p99, r.resolution_ns),
                    format::ns_at(s.summary.max, r.resolution_ns),
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
            if state {
                line.extend(state_cells(&r.state, true));
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

/// Whether the rows are blocks measured one at a time with the state probe
/// beside them (`show --blocks`, or a run of one block per cell): then the
/// table shows each block's probe (issue #28). Cells of several blocks
/// keep their probes' median in the JSON, not in the table's width.
fn per_block_state<'a>(
    rows: impl Iterator<Item = (&'a Option<StateView>, &'a Option<crate::replicates::ReplicatesView>)>,
) -> bool {
    let mut any = false;
    for (state, reps) in rows {
        if reps.is_some() || state.as_ref().is_some_and(|s| s.probes > 1) {
            return false;
        }
        any |= state.is_some();
    }
    any
}

/// The state columns of one row: the probe's line trip, for ping-pong the
/// p50 as a ratio to it, and the probe's wake-up trip.
fn state_cells(state: &Option<StateView>, ratio: bool) -> Vec<String> {
    let line = state.as_ref().map_or("–".into(), |s| format::ns(s.line_rtt_ns));
    let wake = state.as_ref().and_then(|s| s.wake_rtt_ns).map_or("–".into(), format::ns);
    if !ratio {
        return vec![line, wake];
    }
    let r = state.as_ref().and_then(|s| s.p50_over_line).map_or("–".into(), format::ratio);
    vec![line, r, wake]
}

/// A timer or irq table: `what` heads the first column.
pub(super) fn timer_table(what: &str, rows: &[TimerRow]) -> Table {
    let mut t = table(&[what, "n", "min", "mean", "p50", "p99", "p99.9", "max"]);
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
pub(super) fn direction_label(d: &str) -> String {
    match d.parse::<icbench_model::Direction>() {
        Ok(dir) => format!("{d} ({})", dir.describe()),
        Err(_) => d.to_string(),
    }
}

pub(super) fn oneway_table(rows: &[OneWayRow]) -> Table {
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
        let mut line = vec![
            with_factors(r.link.clone(), &r.factors),
            format::bytes(r.size_bytes),
            direction_label(&r.direction),
        ];
        match &r.oneway_ns {
            Some(s) if r.status == "ok" => line.extend([
                s.summary.count.to_string(),
                format::ns(s.summary.min),
                marked(format::ns(s.summary.p50), &r.disturbance, &r.replicates),
                r.replicates
                    .as_ref()
                    .map_or_else(|| median_ci_short(s, None), crate::replicates::ci_short),
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

pub(super) fn ci_text(lo: Option<f64>, hi: Option<f64>) -> String {
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
    for (pattern, list) in [("timer", &view.timer), ("irq", &view.irq)] {
        for r in list {
            if let Some(s) = &r.latency_ns {
                rows.push((pattern, r.link.clone(), "–".to_string(), s));
            }
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
    fitted(out, |o| stats_text(view, o))
}

fn stats_text(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    header(view, out)?;
    writeln!(
        out,
        "
statistics per cell (ns; outliers are flagged, never removed)"
    )?;
    writeln!(out, "{}", draw(&stats_table(view)))?;
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
        .chain(view.irq.iter().filter_map(|r| r.latency_ns.as_ref()))
        .chain(view.oneway.iter().filter_map(|r| r.oneway_ns.as_ref()));
    for s in all {
        if let Some(n) = &s.note
            && !notes.contains(&n.as_str())
        {
            notes.push(n);
        }
    }
    for n in notes {
        super::wrapped(out, &format!("note: {n}"))?;
    }
    let rows = crate::marks::counters_rows(view.rows());
    if !rows.is_empty() {
        writeln!(
            out,
            "\ndisturbance per cell: the kernel's counters over the cell, host / peer \
             ({} marks a disturbed cell, docs/method.md)",
            crate::disturbed::MARK
        )?;
        let mut t = table(&crate::marks::COUNTERS_HEADER);
        for r in rows {
            t.add_row(r);
        }
        right_align(&mut t, 3);
        writeln!(out, "{}", draw(&t))?;
    }
    disturbed_lines(view, out, true)?;
    let chans = channel_cells(view);
    if !chans.is_empty() {
        writeln!(out, "\nper channel ({CHANNELS_NOTE})")?;
        writeln!(out, "{}", draw(&per_channel_table(&chans)))?;
    }
    warnings(view, out)
}

pub(super) fn stream_table(rows: &[StreamRow]) -> Table {
    let busy = any_busy(rows.iter().map(|r| r.tx_busy));
    let reps = rows.iter().any(|r| r.replicates.is_some());
    let mut header = vec!["link", "size", "direction", "messages/s", "payload B/s"];
    if reps {
        header.push("B/s\n95% CI");
    }
    header.extend(["÷ memcpy", "window"]);
    let state = per_block_state(rows.iter().map(|r| (&r.state, &r.replicates)));
    if state {
        header.extend(["line RTT\nbefore", "wake-up\nbefore"]);
    }
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
            if state {
                line.extend(state_cells(&r.state, false));
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

/// Every multi-channel cell of the run, ping-pong then stream, with its
/// label (link, pattern, size).
pub(super) fn channel_cells(view: &RunView) -> Vec<(String, &'static str, u64, &ChannelsView)> {
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
pub(super) fn channels_table(cells: &[(String, &'static str, u64, &ChannelsView)]) -> Table {
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
pub(super) fn per_channel_table(cells: &[(String, &'static str, u64, &ChannelsView)]) -> Table {
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

pub(super) const CHANNELS_NOTE: &str = "channels: N links with their own peers, started together; every \
     rate is over ONE common window (total = Σ bytes ÷ window, never a sum of per-channel rates)";

pub(super) fn bulk_table(rows: &[BulkRow]) -> Table {
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
            with_all_factors(link_name(&r.link, &r.protocol), &r.factors),
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
