//! `icbench effects` as text: the design, the analysis of variance, the
//! interactions and the level means of each metric, in the run tables'
//! style. Renders only: the numbers come from [`super::build`].

use std::io::Write;

use comfy_table::{CellAlignment, Table};
use icbench_stats::Interval;
use icbench_stats::effects::{Effects, ErrorSource, FactorEffect, Interaction, Scale, Term};

use super::{EffectsView, Metric, MetricEffects};
use crate::format;

/// The run tables' style: fits the terminal, whole when piped.
fn table(header: &[&str]) -> Table {
    let mut t = crate::terminal::table(header);
    for i in 1..header.len() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}

/// How values, effects and levels of one analysis are written.
struct Fmt {
    metric: Metric,
    scale: Scale,
}

impl Fmt {
    fn value(&self, v: f64) -> String {
        match self.metric {
            Metric::Latency => format::ns(v),
            Metric::Bandwidth => format::rate(v, "B/s"),
        }
    }

    /// An effect or a range: a ratio on the log scale, a signed difference
    /// on the linear one.
    fn effect(&self, v: f64) -> String {
        match self.scale {
            Scale::Log => ratio(v),
            Scale::Linear if v < 0.0 => format!("−{}", self.value(-v)),
            Scale::Linear => format!("+{}", self.value(v)),
        }
    }

    fn interval(&self, i: Option<Interval>, each: impl Fn(f64) -> String) -> String {
        i.map_or("–".into(), |i| format!("{} … {}", each(i.lo), each(i.hi)))
    }
}

/// A level as people read it: sizes and blocks with units.
pub fn level_label(factor: &str, level: &str) -> String {
    match (factor, level.parse::<u64>()) {
        ("size", Ok(b)) => format::bytes(b),
        _ => level.to_string(),
    }
}

/// A ratio with three significant digits, also far from 1.
pub(super) fn ratio(v: f64) -> String {
    if v.is_finite() && v > 0.0 && !(0.01..1e5).contains(&v) {
        format!("{v:.2e}×")
    } else {
        format::ratio(v)
    }
}

fn percent(share: Option<f64>) -> String {
    share.map_or("–".into(), |s| format!("{:.1} %", s * 100.0))
}

fn f_value(f: Option<f64>) -> String {
    match f {
        None => "–".into(),
        Some(f) if f.is_infinite() => "∞".into(),
        Some(f) => format::sig3(f),
    }
}

fn yes_no(t: &Term) -> String {
    match t.significant() {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => "no test".into(),
    }
}

/// `icbench effects`: a block per metric.
pub fn render(view: &EffectsView, out: &mut dyn Write) -> std::io::Result<()> {
    crate::terminal::fitted(out, |o| render_text(view, o))
}

fn render_text(view: &EffectsView, out: &mut dyn Write) -> std::io::Result<()> {
    let scale = match view.scale {
        Scale::Log => "log scale: means are geometric, effects and ranges are ratios",
        Scale::Linear => "linear scale: effects and ranges are differences",
    };
    writeln!(out, "run {} ({}): which factors matter · {scale}", view.run_id, view.source)?;
    if !view.filters.is_empty() {
        let f: Vec<String> = view
            .filters
            .iter()
            .map(|(k, v)| {
                let l: Vec<String> = v.iter().map(|l| level_label(k, l)).collect();
                format!("{k} = {}", l.join(" or "))
            })
            .collect();
        writeln!(out, "only cells with {}", f.join(", "))?;
    }
    writeln!(
        out,
        "{} cells; left out: {} failed, {} n/a",
        view.cells_total, view.cells_failed, view.cells_not_applicable
    )?;
    for m in &view.metrics {
        metric(view, m, out)?;
    }
    Ok(())
}

fn metric(view: &EffectsView, m: &MetricEffects, out: &mut dyn Write) -> std::io::Result<()> {
    let e = &m.effects;
    let fm = Fmt { metric: m.metric, scale: view.scale };
    writeln!(out, "\n── {}, {} ──", m.metric.describe(), m.unit)?;
    let without = match m.metric {
        Metric::Latency => "without a latency histogram",
        Metric::Bandwidth => "without bytes moved",
    };
    writeln!(
        out,
        "{} cells analysed{}{}",
        m.cells,
        if m.cells_without > 0 { format!(", {} {without}", m.cells_without) } else { "".into() },
        if e.rejected > 0 {
            format!(", {} not positive (log scale)", e.rejected)
        } else {
            "".into()
        }
    )?;
    if !e.not_varied.is_empty() {
        let nv: Vec<String> = e
            .not_varied
            .iter()
            .map(|n| format!("{} = {}", n.factor, level_label(&n.factor, &n.level)))
            .collect();
        writeln!(out, "not varied: {}", nv.join(", "))?;
    }
    if e.factors.is_empty() {
        return writeln!(out, "no factor has two levels here: nothing to compare");
    }
    design(e, out)?;
    if e.design.balanced {
        anova(e, &fm, out)?;
    }
    levels(e, &fm, out)
}

fn design(e: &Effects, out: &mut dyn Write) -> std::io::Result<()> {
    let shape: Vec<String> = e.factors.iter().map(|f| f.levels.len().to_string()).collect();
    let names: Vec<&str> = e.factors.iter().map(|f| f.factor.as_str()).collect();
    let d = &e.design;
    let reps = if d.replicates_min == d.replicates_max {
        format!(
            "{} replicate{} each",
            d.replicates_min,
            if d.replicates_min == 1 { "" } else { "s" }
        )
    } else {
        format!("{}–{} replicates each", d.replicates_min, d.replicates_max)
    };
    writeln!(
        out,
        "design: {} ({}) · {} treatments, {reps} · {}",
        shape.join(" × "),
        names.join(" × "),
        d.treatments,
        if d.balanced {
            "balanced full factorial".to_string()
        } else {
            format!(
                "UNBALANCED ({} of {} combinations missing): per-level means only, no \
                 allocation of variation or interactions; --where can pick a complete part",
                d.missing, d.combinations
            )
        }
    )?;
    if !d.missing_examples.is_empty() {
        let ex: Vec<String> = d
            .missing_examples
            .iter()
            .map(|m| {
                let l: Vec<String> =
                    m.iter().map(|(f, l)| format!("{f}={}", level_label(f, l))).collect();
                l.join(" ")
            })
            .collect();
        let more = if d.missing > ex.len() { ", …" } else { "" };
        writeln!(out, "missing: {}{more}", ex.join("; "))?;
    }
    Ok(())
}

/// The allocation of variation (Jain 1991): one line per factor, pair,
/// higher-order interactions and the error.
fn anova(e: &Effects, fm: &Fmt, out: &mut dyn Write) -> std::io::Result<()> {
    let mut t = table(&[
        "term",
        "share of variation",
        "df",
        "F",
        "p",
        "significant",
        "effect (highest vs lowest level)",
        "95% CI",
    ]);
    for f in &e.factors {
        let Some(a) = &f.anova else { continue };
        t.add_row(vec![
            f.factor.clone(),
            percent(a.share),
            a.df.to_string(),
            f_value(a.f),
            crate::format::p_value(a.p),
            yes_no(a),
            range(f, fm),
            fm.interval(f.range_ci95, |v| fm.effect(v)),
        ]);
    }
    for i in &e.interactions {
        t.add_row(interaction_row(i, fm));
    }
    if let Some(h) = &e.higher_order {
        let higher = "interactions of 3+ factors".to_string();
        t.add_row(vec![
            higher,
            percent(h.share),
            h.df.to_string(),
            f_value(h.f),
            crate::format::p_value(h.p),
            yes_no(h),
            "–".into(),
            "–".into(),
        ]);
    }
    if let Some(err) = &e.error {
        let what = match err.source {
            ErrorSource::Replicates => "error (between replicates)",
            ErrorSource::HigherOrderInteractions => "error (3+ factor interactions, assumed 0)",
            ErrorSource::TwoFactorInteraction => "error (the interaction, assumed 0)",
        };
        t.add_row(vec![
            what.to_string(),
            percent(err.term.share),
            err.term.df.to_string(),
            "".into(),
            "".into(),
            "".into(),
            match fm.scale {
                Scale::Log => format!("s_e = {:.3} (ln units)", err.stddev),
                Scale::Linear => format!("s_e = {}", fm.value(err.stddev)),
            },
            "".into(),
        ]);
    }
    writeln!(out, "{}", crate::terminal::draw(&t))?;
    match &e.error {
        None => writeln!(
            out,
            "no error term (one observation per treatment, one factor): no F test and no CI; \
             repeat the cells (a plan's repetitions) to get them"
        ),
        Some(_) => writeln!(
            out,
            "F tests at α = 0.05 against the error term; share = the term's sum of squares / \
             the total"
        ),
    }
}

fn range(f: &FactorEffect, fm: &Fmt) -> String {
    format!(
        "{} ({} vs {})",
        fm.effect(f.range),
        level_label(&f.factor, &f.highest),
        level_label(&f.factor, &f.lowest)
    )
}

fn interaction_row(i: &Interaction, fm: &Fmt) -> Vec<String> {
    let name = format!("{} × {}", i.factors[0], i.factors[1]);
    let Some(a) = &i.anova else {
        let mut row = vec![name, "not estimable".into()];
        row.resize(8, String::new());
        return row;
    };
    let largest = i.largest.as_ref().map_or("–".into(), |c| {
        format!(
            "largest {} at {}, {}",
            fm.effect(c.effect),
            level_label(&i.factors[0], &c.levels[0]),
            level_label(&i.factors[1], &c.levels[1])
        )
    });
    let sig = if i.note.is_some() { "not tested".into() } else { yes_no(a) };
    vec![
        name,
        percent(a.share),
        a.df.to_string(),
        f_value(a.f),
        crate::format::p_value(a.p),
        sig,
        largest,
        "".into(),
    ]
}

/// Each factor's levels: n, mean with CI, effect with CI.
fn levels(e: &Effects, fm: &Fmt, out: &mut dyn Write) -> std::io::Result<()> {
    let mut t = table(&["factor", "level", "n", "mean", "95% CI", "effect", "95% CI"]);
    for f in &e.factors {
        for (i, l) in f.levels.iter().enumerate() {
            t.add_row(vec![
                if i == 0 { f.factor.clone() } else { "".into() },
                level_label(&f.factor, &l.level),
                l.n.to_string(),
                fm.value(l.mean),
                fm.interval(l.mean_ci95, |v| fm.value(v)),
                l.effect.map_or("–".into(), |v| fm.effect(v)),
                fm.interval(l.effect_ci95, |v| fm.effect(v)),
            ]);
        }
    }
    writeln!(out, "{}", crate::terminal::draw(&t))?;
    let grand = match fm.scale {
        Scale::Log => "geometric mean of all cells",
        Scale::Linear => "mean of all cells",
    };
    writeln!(out, "effect = the level's mean against the {grand}, {}", fm.value(e.grand_mean))?;
    if !e.design.balanced {
        let r: Vec<String> =
            e.factors.iter().map(|f| format!("{} {}", f.factor, range(f, fm))).collect();
        writeln!(out, "highest vs lowest level: {}", r.join(", "))?;
        writeln!(
            out,
            "unbalanced: each CI comes from the cells at that level alone and includes the \
             other factors' variation"
        )?;
    }
    for i in e.interactions.iter().filter(|i| !i.estimable).take(1) {
        writeln!(out, "interactions {}", i.note.as_deref().unwrap_or("not estimable"))?;
    }
    Ok(())
}
