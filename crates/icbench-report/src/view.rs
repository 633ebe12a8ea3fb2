//! The view of a run, computed once (issue #29 item 1): its rows
//! ([`crate::rows`]), each cell's marks and repeat interval
//! ([`crate::replicates`]), the targets, the verdict, the summary and the
//! floor's drift. Every renderer (terminal, markdown, HTML, CSV/JSON,
//! compare) only renders it; none works out a cell's status itself.
//!
//! Layers, one way (checked by `tests/layers.rs`): words and statistics,
//! then the rows, then what judges them (marks, targets, summary, verdict,
//! history), then this view, then the renderers, none of which imports
//! another.

use icbench_model::{CellResult, JSON_SCHEMA_VERSION, Pattern, RunMeta};
use serde::Serialize;

use crate::pairs::CpuPairMatrix;
pub use crate::rows::{
    BulkRow, ChannelRow, ChannelsView, OneWayRow, PingPongRow, Rows, StateView, StreamRow,
    TimerRow, channels_view,
};
use crate::rows::{bulk_row, oneway_row, pingpong_row, stream_row, timer_row};
use crate::targets::{Target, targets};

/// Everything shown about a run.
#[derive(Debug, Clone, Serialize)]
pub struct RunView {
    pub schema_version: u32,
    pub run_id: i64,
    /// `measured`, or `imported:<format>` for another tool's results.
    pub source: String,
    /// Where an imported run came from (file, checksum); `None` if measured.
    pub provenance: Option<String>,
    /// Sanity warnings stored with the run (mainly by importers).
    pub warnings: Vec<String>,
    pub meta: RunMeta,
    pub pingpong: Vec<PingPongRow>,
    pub stream: Vec<StreamRow>,
    /// Bulk cells (block × blocks, then one acknowledgement): measured on
    /// a remote link, or imported seed logs.
    pub bulk: Vec<BulkRow>,
    /// Timer wake-up latency (imported cyclictest results).
    pub timer: Vec<TimerRow>,
    /// Interrupt latency through a GPIO loopback (`icbench irq`), one row
    /// per interval; absent from the JSON when the run has none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub irq: Vec<TimerRow>,
    /// One-way latency cells, one per direction (absent from the JSON when
    /// the run has none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub oneway: Vec<OneWayRow>,
    /// Host CPU × peer CPU matrices of the cells a plan's `cpus` factor
    /// spread over two or more pairs (absent from the JSON when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cpu_pairs: Vec<CpuPairMatrix>,
    pub targets: Vec<Target>,
    /// How the floor moved from the head of the run to its tail, when both
    /// were measured (issue #15): an unstable run says so in its header.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub floor_drift: Option<crate::disturbed::FloorDriftView>,
    /// Whether the run's figures can be quoted (issue #15).
    pub verdict: Option<crate::verdict::RunVerdict>,
    /// The best link per message size class, and the others against it
    /// (issue #18).
    pub summary: crate::summary::Summary,
}

/// Builds the view of a run from its metadata and cells.
pub fn build(run_id: i64, meta: &RunMeta, cells: &[CellResult]) -> RunView {
    // Replicate blocks of one cell become one row (issue #15).
    build_from(run_id, meta, cells, crate::replicates::group(cells))
}

/// The view with one row per stored cell: every replicate block on its own
/// (`icbench show --blocks`).
pub fn build_blocks(run_id: i64, meta: &RunMeta, cells: &[CellResult]) -> RunView {
    build_from(run_id, meta, cells, crate::replicates::each(cells))
}

fn build_from(
    run_id: i64,
    meta: &RunMeta,
    cells: &[CellResult],
    grouped: Vec<crate::replicates::Grouped>,
) -> RunView {
    let of = |p: Pattern| grouped.iter().filter(move |g| g.result.key.pattern == p);
    let pingpong: Vec<PingPongRow> = of(Pattern::PingPong)
        .map(|g| PingPongRow {
            replicates: g.replicates.clone(),
            disturbance: g.disturbance.clone(),
            ..pingpong_row(&g.result, meta)
        })
        .collect();
    let stream: Vec<StreamRow> = of(Pattern::Stream)
        .map(|g| StreamRow {
            replicates: g.replicates.clone(),
            disturbance: g.disturbance.clone(),
            ..stream_row(&g.result, meta)
        })
        .collect();
    let bulk = of(Pattern::Bulk)
        .map(|g| BulkRow {
            replicates: g.replicates.clone(),
            disturbance: g.disturbance.clone(),
            ..bulk_row(&g.result)
        })
        .collect();
    let timer = cells.iter().filter(|c| c.key.pattern == Pattern::Timer).map(timer_row).collect();
    let irq = cells.iter().filter(|c| c.key.pattern == Pattern::Irq).map(timer_row).collect();
    let oneway = of(Pattern::OneWay)
        .map(|g| OneWayRow {
            replicates: g.replicates.clone(),
            disturbance: g.disturbance.clone(),
            ..oneway_row(&g.result)
        })
        .collect();
    let targets = targets(meta, &pingpong, &stream);
    RunView {
        schema_version: JSON_SCHEMA_VERSION,
        run_id,
        source: "measured".to_string(),
        provenance: None,
        warnings: Vec::new(),
        meta: meta.clone(),
        pingpong,
        stream,
        bulk,
        timer,
        irq,
        oneway,
        cpu_pairs: crate::pairs::build(cells),
        targets,
        floor_drift: floor_drift(meta, cells),
        verdict: None,
        summary: crate::summary::Summary { classes: Vec::new(), floor: None, verdict: None },
    }
    .judged()
}

/// The floor's drift over the run; it marks every cell only when the
/// cells were not measured in interleaved blocks.
fn floor_drift(meta: &RunMeta, cells: &[CellResult]) -> Option<crate::disturbed::FloorDriftView> {
    let d = crate::disturbed::FloorDriftView::of(meta)?;
    let blocks = cells.iter().any(|c| c.key.factors.get("rep").is_some_and(|r| r != "0"));
    Some(if blocks { d.judged_by_blocks() } else { d })
}

impl RunView {
    /// Records where the run came from and its stored warnings.
    pub fn with_source(
        mut self,
        source: impl Into<String>,
        provenance: Option<String>,
        warnings: Vec<String>,
    ) -> RunView {
        self.source = source.into();
        self.provenance = provenance;
        self.warnings = warnings;
        self.judged()
    }

    /// Targets, verdict and summary again, after the rows' intervals or
    /// marks changed ([`RunView::with_history`]).
    pub(crate) fn rejudged(mut self) -> RunView {
        self.targets = targets(&self.meta, &self.pingpong, &self.stream);
        self.judged()
    }

    fn judged(mut self) -> RunView {
        let verdict = crate::verdict::RunVerdict::of(
            &crate::marks::of(self.rows()),
            self.floor_drift.as_ref(),
            self.is_imported(),
        );
        self.summary = crate::summary::summarize(
            &self.pingpong,
            &self.stream,
            &self.meta,
            self.is_imported(),
            Some(&verdict),
        );
        self.verdict = Some(verdict);
        self
    }

    /// Its measured-pattern rows, as the marks walk them.
    pub fn rows(&self) -> Rows<'_> {
        Rows {
            pingpong: &self.pingpong,
            stream: &self.stream,
            oneway: &self.oneway,
            bulk: &self.bulk,
        }
    }

    /// Whether the run is another tool's results rather than a measurement.
    pub fn is_imported(&self) -> bool {
        self.source != "measured"
    }
}
