//! The view of `icbench effects`: which factors matter. A run's cells become
//! observations (a treatment — the cell's factors — and a response), the
//! analysis is [`icbench_stats::effects`], and this module draws it as
//! tables or writes it as JSON.
//!
//! - Factors of a cell: `link`, `pattern`, `size` (bytes), `protocol` and
//!   `blocks` when set, `channels` (the cell's channel count, 1 when not
//!   recorded) and every entry of the key's `factors` except `rep`, the
//!   repetition index: cells differing only in `rep` are replicates of one
//!   treatment.
//! - Responses: latency is the cell's p50 (as `icbench show` gives it) of
//!   its latency histogram, ns; bandwidth is payload bytes per second over
//!   the measured window (host → peer), B/s. A measured cell without a
//!   histogram has no latency; failed and n/a cells are left out, and
//!   counted.

use std::collections::BTreeMap;
use std::io::Write;

use comfy_table::{CellAlignment, Table};
use icbench_model::{CellData, CellKey, CellOutcome, CellResult, JSON_SCHEMA_VERSION};
use icbench_stats::Interval;
use icbench_stats::effects::{
    Effects, ErrorSource, FactorEffect, Interaction, Observation, Scale, Term, analyse,
};
use serde::Serialize;

use crate::format;
use crate::stats::CellStats;

/// The factor that numbers repetitions; not a factor of the analysis.
pub const REP: &str = "rep";

/// A response of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// p50 of the latency histogram, ns.
    Latency,
    /// Payload bytes per second over the measured window, B/s.
    Bandwidth,
}

impl Metric {
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Latency => "ns",
            Metric::Bandwidth => "B/s",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Metric::Latency => "p50 latency",
            Metric::Bandwidth => "bandwidth (payload, one way: a stream cell's in its direction)",
        }
    }

    fn value(self, d: &CellData) -> Option<f64> {
        match self {
            Metric::Latency => {
                d.latency.as_ref().filter(|h| !h.is_empty())?;
                CellStats::of(d).map(|s| s.summary.p50)
            }
            Metric::Bandwidth => (d.bytes > 0 && d.elapsed_ns > 0).then(|| d.bytes_per_s()),
        }
    }
}

/// The factors of a cell, as the analysis sees them (`rep` left out).
/// (A plan's `link` factor, when present, is the link as declared.)
pub fn factors(key: &CellKey, data: Option<&CellData>) -> BTreeMap<String, String> {
    let mut f: BTreeMap<String, String> = key
        .factors
        .iter()
        .filter(|(k, _)| *k != REP)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    // A plan that varies `wait` stores the link as declared (`shm`) beside
    // the spec it ran (`shm?wait=spin`), so that link and wait are two
    // factors rather than one confounded one.
    f.entry("link".into()).or_insert_with(|| key.link.clone());
    f.insert("pattern".into(), key.pattern.to_string());
    f.insert("size".into(), key.size_bytes.to_string());
    if let Some(p) = &key.protocol {
        f.insert("protocol".into(), p.clone());
    }
    if let Some(b) = key.blocks {
        f.insert("blocks".into(), b.to_string());
    }
    if let Some(d) = data {
        f.entry("channels".into()).or_insert_with(|| d.channels.unwrap_or(1).to_string());
    }
    f
}

/// Whether a cell passes every filter: for each factor named, its level is
/// one of those given.
pub fn matches(c: &CellResult, filters: &BTreeMap<String, Vec<String>>) -> bool {
    let data = match &c.outcome {
        CellOutcome::Measured(d) => Some(d),
        _ => None,
    };
    let f = factors(&c.key, data);
    filters.iter().all(|(name, levels)| f.get(name).is_some_and(|l| levels.contains(l)))
}

/// One response's analysis.
#[derive(Debug, Clone, Serialize)]
pub struct MetricEffects {
    pub metric: Metric,
    pub unit: &'static str,
    /// What `effect` and `range` values are: `ratio` (log scale) or the
    /// response's unit (linear scale, a difference).
    pub effect_unit: &'static str,
    /// Cells analysed.
    pub cells: usize,
    /// Measured cells without this response (no histogram; no bytes).
    pub cells_without: usize,
    pub effects: Effects,
}

/// `icbench effects RUN`.
#[derive(Debug, Clone, Serialize)]
pub struct EffectsView {
    pub schema_version: u32,
    pub run_id: i64,
    pub source: String,
    pub scale: Scale,
    /// Cells of the run (after `--where`).
    pub cells_total: usize,
    /// Left out: failed and not applicable.
    pub cells_failed: usize,
    pub cells_not_applicable: usize,
    /// The filters applied (`--where`), factor → levels.
    pub filters: BTreeMap<String, Vec<String>>,
    pub metrics: Vec<MetricEffects>,
}

impl EffectsView {
    /// True when no response varies any factor.
    pub fn varies_nothing(&self) -> bool {
        self.metrics.iter().all(|m| m.effects.factors.is_empty())
    }
}

/// Builds the view: one analysis per metric over the measured cells.
pub fn build(
    run_id: i64,
    source: &str,
    cells: &[&CellResult],
    metrics: &[Metric],
    scale: Scale,
    filters: BTreeMap<String, Vec<String>>,
) -> EffectsView {
    let count = |s: &str| cells.iter().filter(|c| c.outcome.status_str() == s).count();
    let measured: Vec<(&CellKey, &CellData)> = cells
        .iter()
        .filter_map(|c| match &c.outcome {
            CellOutcome::Measured(d) => Some((&c.key, d)),
            _ => None,
        })
        .collect();
    let metrics = metrics
        .iter()
        .map(|&m| {
            let obs: Vec<Observation> = measured
                .iter()
                .filter_map(|(k, d)| {
                    m.value(d).map(|value| Observation { treatment: factors(k, Some(d)), value })
                })
                .collect();
            MetricEffects {
                metric: m,
                unit: m.unit(),
                effect_unit: if scale == Scale::Log { "ratio" } else { m.unit() },
                cells: obs.len(),
                cells_without: measured.len() - obs.len(),
                effects: analyse(&obs, scale),
            }
        })
        .collect();
    EffectsView {
        schema_version: JSON_SCHEMA_VERSION,
        run_id,
        source: source.to_string(),
        scale,
        cells_total: cells.len(),
        cells_failed: count("failed"),
        cells_not_applicable: count("n/a"),
        filters,
        metrics,
    }
}

/// JSON for scripts: the view as it is.
pub fn json(view: &EffectsView, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, view)?;
    writeln!(out)
}

/// The run tables' style: fits the terminal, whole when piped.
fn table(header: &[&str]) -> Table {
    let mut t = crate::table::table(header);
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
fn ratio(v: f64) -> String {
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
    crate::table::fitted(out, |o| render_text(view, o))
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
    writeln!(out, "{}", crate::table::draw(&t))?;
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
    writeln!(out, "{}", crate::table::draw(&t))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use icbench_model::{LatencyHistogram, LinkCounters, Pattern};

    fn data(p50: u64, channels: Option<u32>, hist: bool) -> CellData {
        let mut h = LatencyHistogram::new();
        h.record_n(p50, 10);
        CellData {
            messages: 10,
            bytes: 2_000,
            elapsed_ns: 1_000_000,
            warmup_messages: 0,
            latency: hist.then_some(h),
            raw_ns: None,
            window: None,
            counters: LinkCounters::default(),
            channels,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            adaptive: None,
        }
    }

    #[test]
    fn the_factors_of_a_cell_leave_rep_out() {
        let mut key = CellKey::new("shm?wait=spin", Pattern::Bulk, 512).with("rep", 7);
        key.blocks = Some(4);
        key.protocol = Some("icb".into());
        let f = factors(&key.clone().with("cpus", "0,1"), Some(&data(100, Some(8), true)));
        let want: BTreeMap<String, String> = [
            ("blocks", "4"),
            ("channels", "8"),
            ("cpus", "0,1"),
            ("link", "shm?wait=spin"),
            ("pattern", "bulk"),
            ("protocol", "icb"),
            ("size", "512"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(f, want);
        // A plan's "channels" factor wins over the cell's count; no data, no channels.
        let k2 = CellKey::new("pipe", Pattern::Stream, 64).with("channels", "4");
        assert_eq!(factors(&k2, Some(&data(1, None, true)))["channels"], "4");
        assert!(
            !factors(&CellKey::new("pipe", Pattern::Stream, 64), None).contains_key("channels")
        );
        // A plan's declared link wins over the spec with its wait applied.
        let k3 = CellKey::new("shm?wait=spin", Pattern::PingPong, 64).with("link", "shm");
        assert_eq!(factors(&k3, None)["link"], "shm");
    }

    #[test]
    fn responses_and_exclusions_are_counted_and_rendered() {
        let cell = |link: &str, size: u64, p50: u64, hist: bool| CellResult {
            key: CellKey::new(link, Pattern::PingPong, size),
            outcome: CellOutcome::Measured(data(p50, None, hist)),
        };
        let failed = CellResult {
            key: CellKey::new("pipe", Pattern::PingPong, 1),
            outcome: CellOutcome::Failed { reason: "x".into() },
        };
        let cells = [
            cell("pipe", 64, 100, true),
            cell("pipe", 1024, 400, true),
            cell("unix", 64, 200, true),
            cell("unix", 1024, 800, false),
            failed,
        ];
        let refs: Vec<&CellResult> = cells.iter().collect();
        let metrics = [Metric::Latency, Metric::Bandwidth];
        let v = build(3, "measured", &refs, &metrics, Scale::Log, BTreeMap::new());
        assert_eq!((v.cells_total, v.cells_failed, v.cells_not_applicable), (5, 1, 0));
        let lat = &v.metrics[0];
        assert_eq!((lat.cells, lat.cells_without), (3, 1));
        assert!(!lat.effects.design.balanced);
        assert_eq!(v.metrics[1].cells, 4);
        assert!(!v.varies_nothing());
        let mut out = Vec::new();
        render(&v, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for want in [
            "run 3 (measured)",
            "left out: 1 failed, 0 n/a",
            "1 without a latency histogram",
            "UNBALANCED (1 of 4 combinations missing)",
            "missing: link=unix size=1 KiB",
            "1 KiB",
            "── bandwidth (payload, one way: a stream cell's in its direction), B/s ──",
        ] {
            assert!(text.contains(want), "{want}: {text}");
        }
    }

    #[test]
    fn ratios_far_from_one_keep_their_digits() {
        assert_eq!(ratio(1.5), "1.50×");
        assert_eq!(ratio(0.0012), "1.20e-3×");
        assert_eq!(ratio(2.5e6), "2.50e6×");
    }
}
