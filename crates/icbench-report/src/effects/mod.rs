//! The view of `icbench effects`: which factors matter. A run's cells become
//! observations (a treatment — the cell's factors — and a response), the
//! analysis is [`icbench_stats::effects`], and this module draws it as
//! tables (`render`) or writes it as JSON.
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

use icbench_model::{CellData, CellKey, CellOutcome, CellResult, JSON_SCHEMA_VERSION};
use icbench_stats::effects::{Effects, Observation, Scale, analyse};
use serde::Serialize;

use crate::stats::CellStats;

mod render;
#[cfg(test)]
mod tests;

pub use render::{level_label, render};

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
