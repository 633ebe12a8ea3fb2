//! The tables of the commands beside `run`: `runs`, `model`, `compare`.

use super::*;

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
    /// The verdict the run printed on its figures; absent for runs stored
    /// before schema 12, runs being measured, and imports.
    pub verdict: Option<String>,
    /// The user's label (`run --label`).
    pub label: Option<String>,
    /// Where a merged run came from (`icbench merge`): board, file, run id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

pub fn runs(rows: &[RunListRow], out: &mut dyn Write) -> std::io::Result<()> {
    fitted(out, |o| runs_text(rows, o))
}

fn runs_text(rows: &[RunListRow], out: &mut dyn Write) -> std::io::Result<()> {
    if rows.is_empty() {
        return writeln!(out, "no runs stored yet: `icbench run` measures one");
    }
    let mut t = table(&[
        "run",
        "started",
        "status",
        "source",
        "host",
        "CPUs",
        "blocks ok",
        "failed",
        "n/a",
        "verdict",
        "label",
    ]);
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
            r.verdict.clone().unwrap_or_else(|| "–".to_string()),
            r.label.as_deref().map(format::printable).unwrap_or_default(),
        ]);
    }
    right_align(&mut t, 6);
    for i in [9, 10] {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Left);
        }
    }
    writeln!(out, "{}", draw(&t))
}

/// `icbench model`: one block per series.
pub fn model(view: &crate::model::ModelView, out: &mut dyn Write) -> std::io::Result<()> {
    fitted(out, |o| model_text(view, o))
}

fn model_text(view: &crate::model::ModelView, out: &mut dyn Write) -> std::io::Result<()> {
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
        writeln!(out, "{}", draw(&t))?;
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
    crossovers(view, out)
}

/// `--crossover`: each pair of series of one pattern.
fn crossovers(view: &crate::model::ModelView, out: &mut dyn Write) -> std::io::Result<()> {
    if view.crossovers.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\ncrossovers: where one link's figure overtakes the other's (a flip between figures \
         closer than their CIs is noise: compare the ratios with `show`'s CIs)"
    )?;
    let b = |x: f64| format::bytes(x.round() as u64);
    for c in &view.crossovers {
        writeln!(out, "\n{} against {} · {}", c.first, c.second, c.pattern)?;
        if c.measured.is_empty() {
            writeln!(out, "  measured: the order does not flip over the sizes both measured")?;
        }
        for m in &c.measured {
            writeln!(
                out,
                "  measured: between {} and {} (≈ {} on log size against log ratio); {} is \
                 faster below; first ÷ second {:.2} at {}, {:.2} at {}",
                b(m.between_bytes.0),
                b(m.between_bytes.1),
                b(m.estimate_bytes),
                m.lower_below,
                m.ratios.0,
                b(m.between_bytes.0),
                m.ratios.1,
                b(m.between_bytes.1)
            )?;
        }
        match (c.model_bytes, c.model_quotable) {
            (Some(n), true) => writeln!(out, "  model: the lines meet at {}", b(n))?,
            (Some(n), false) => writeln!(
                out,
                "  model: the lines meet at {}, but a fit is not good: not to be quoted",
                b(n)
            )?,
            (None, _) => writeln!(out, "  model: the lines do not meet at a positive size")?,
        }
    }
    Ok(())
}

pub(super) fn metric_value(metric: &str, v: f64) -> String {
    if metric == "bytes_per_s" { format::rate(v, "B/s") } else { format::ns(v) }
}

pub(super) fn signed(metric: &str, v: f64) -> String {
    let s = metric_value(metric, v.abs());
    if v < 0.0 { format!("−{s}") } else { format!("+{s}") }
}

/// `icbench compare`.
pub fn compare(view: &crate::compare::CompareView, out: &mut dyn Write) -> std::io::Result<()> {
    fitted(out, |o| compare_text(view, o))
}

fn compare_text(view: &crate::compare::CompareView, out: &mut dyn Write) -> std::io::Result<()> {
    for s in &view.sides {
        writeln!(
            out,
            "{}: run {}{}{} · {} · {} · {}",
            s.label,
            s.run_id,
            s.link.as_deref().map(|l| format!(" link {l}")).unwrap_or_default(),
            s.board.as_deref().map(|b| format!(" · board {b}")).unwrap_or_default(),
            s.source,
            s.hostname,
            s.cpu_model
        )?;
    }
    if view.rows.is_empty() {
        return writeln!(out, "no cells in common to compare");
    }
    // The answer first (issue #29): per side, how many cells it was shown
    // faster or slower in, and how many showed no change or decided nothing.
    for t in view.tally() {
        super::wrapped(out, &t.text(view.alpha))?;
    }
    let mut t = table(&[
        "link",
        "pattern",
        "size",
        "baseline",
        "other",
        "difference",
        "ratio",
        "ratio 95% CI",
        "p (MW / Welch)",
        "shown",
    ]);
    let mut notes: Vec<String> = Vec::new();
    for r in &view.rows {
        let p = format::p_value;
        if r.significant.is_none()
            && let Some(n) = &r.note
            && !notes.contains(n)
        {
            notes.push(n.clone());
        }
        let sig = r.in_words();
        t.add_row(vec![
            link_label(&r.link, r.channels),
            r.pattern.to_string(),
            match r.blocks {
                Some(b) => format!("{}×{b}", format::bytes(r.size_bytes)),
                None => format::bytes(r.size_bytes),
            },
            format!(
                "{}: {} (n={})",
                r.baseline,
                metric_value(r.metric, r.baseline_value),
                r.baseline_count
            ),
            format!("{}: {} (n={})", r.other, metric_value(r.metric, r.other_value), r.other_count),
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
    writeln!(out, "{}", draw(&t))?;
    super::wrapped(
        out,
        &format!(
            "baseline and other are medians (p50_ns) or rates (bytes/s); ratio = other ÷ \
             baseline (above 1: a longer time, or a higher rate); shown at α = {} by Welch's t \
             on the replicate blocks' figures, else Mann–Whitney U on the histograms, else \
             Welch's t on raw samples",
            view.alpha
        ),
    )?;
    for n in notes {
        super::wrapped(out, &format!("note: {n}"))?;
    }
    Ok(())
}
