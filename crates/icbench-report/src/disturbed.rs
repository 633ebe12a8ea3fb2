//! A cell's disturbance as the renderers show it: the counters the engine
//! read around the cell and, when a threshold was crossed, what disturbed
//! it in words (issue #15; thresholds: `icbench_stats::disturbance`,
//! docs/method.md "Disturbance").

use icbench_model::{CellData, Disturbance};
use serde::Serialize;

/// The counters of a measured cell, with the verdict.
#[derive(Debug, Clone, Serialize)]
pub struct DisturbanceView {
    #[serde(flatten)]
    pub counters: Disturbance,
    /// Whether any threshold was crossed.
    pub disturbed: bool,
    /// What crossed it, one phrase each ("host thread preempted: …").
    pub causes: Vec<String>,
    /// The link's own share of run-queue wait at each end, which is not
    /// counted as disturbance (issue #28 item 4); absent when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own_work: Option<icbench_stats::disturbance::OwnWork>,
}

impl DisturbanceView {
    /// The view of a measured cell; `None` when it has no counters
    /// (imported, or measured before icbench kept them).
    pub fn of(d: &CellData) -> Option<DisturbanceView> {
        Self::beyond(d, Default::default())
    }

    /// The view of a measured cell whose link does `own` work of its own
    /// at its ends (`icbench_stats::disturbance::own_work`).
    pub fn beyond(
        d: &CellData,
        own: icbench_stats::disturbance::OwnWork,
    ) -> Option<DisturbanceView> {
        let counters = d.disturbance?;
        let causes: Vec<String> = icbench_stats::disturbance::causes_beyond(&counters, own)
            .iter()
            .map(ToString::to_string)
            .collect();
        let own_work = (own != Default::default()).then_some(own);
        Some(DisturbanceView { counters, disturbed: !causes.is_empty(), causes, own_work })
    }
}

/// The mark a disturbed cell's figure carries in the tables.
pub const MARK: &str = "!";

/// A cell whose measured phase the engine's message cap cut short.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CutView {
    /// The cap it stopped at, messages.
    pub at_messages: u64,
    /// How long it measured, ns (less than the cell time).
    pub measured_ns: u64,
}

impl CutView {
    pub fn of(d: &CellData) -> Option<CutView> {
        d.cut_at_messages.map(|at_messages| CutView { at_messages, measured_ns: d.elapsed_ns })
    }
}

/// The floor at the tail against the head's, as shown.
#[derive(Debug, Clone, Serialize)]
pub struct FloorDriftView {
    /// Tail ÷ head cache-line round trip.
    pub cacheline_ratio: f64,
    /// Tail ÷ head memcpy bandwidth.
    pub memcpy_ratio: f64,
    /// Whether either moved past its bound (docs/method.md).
    pub unstable: bool,
    /// Whether that marks every cell of the run: only when its cells were
    /// measured in one block each. Blocks interleaved over the whole run
    /// (issue #15) see a change part-way through as blocks that disagree,
    /// cell by cell, and each block's state probe (issue #28) says where
    /// the machine was; a floor read twice a run adds nothing to that.
    pub marks_every_cell: bool,
    /// What moved past it.
    pub causes: Vec<String>,
}

impl FloorDriftView {
    pub fn of(meta: &icbench_model::RunMeta) -> Option<FloorDriftView> {
        let (head, tail) = (meta.floor.as_ref()?, meta.floor_tail.as_ref()?);
        let d = icbench_stats::disturbance::floor_drift(
            head.cacheline_rtt_ns,
            head.memcpy_bytes_per_s,
            tail.cacheline_rtt_ns,
            tail.memcpy_bytes_per_s,
        );
        Some(FloorDriftView {
            cacheline_ratio: d.cacheline_ratio,
            memcpy_ratio: d.memcpy_ratio,
            unstable: d.unstable(),
            marks_every_cell: d.unstable(),
            causes: d.causes,
        })
    }

    /// The drift of a run whose cells were measured in interleaved blocks:
    /// it no longer marks every cell ([`FloorDriftView::marks_every_cell`]).
    pub fn judged_by_blocks(mut self) -> FloorDriftView {
        self.marks_every_cell = false;
        self
    }

    /// The header's lines on the floor at the tail: the figures, and the
    /// verdict when the run is unstable.
    pub fn lines(&self, tail: &icbench_model::FloorTail) -> Vec<String> {
        use icbench_stats::disturbance::{CACHELINE_DRIFT, MEMCPY_DRIFT};
        let figures = format!(
            "floor at the tail: cache-line round trip {} ({:.2}× the head's) · memcpy {} ({:.2}×)",
            crate::format::ns(tail.cacheline_rtt_ns),
            self.cacheline_ratio,
            crate::format::rate(tail.memcpy_bytes_per_s, "B/s"),
            self.memcpy_ratio
        );
        if self.unstable && !self.marks_every_cell {
            vec![
                figures,
                format!(
                    "the floor moved between head and tail ({}); each cell is judged by its \
                     blocks, measured all through the run, and `show --blocks` gives the state \
                     probe beside each",
                    self.causes.join("; ")
                ),
            ]
        } else if self.unstable {
            vec![
                figures,
                format!(
                    "UNSTABLE: the machine changed under the run ({}); its figures may not \
                     reproduce",
                    self.causes.join("; ")
                ),
            ]
        } else {
            vec![format!("{figures}: stable (within {CACHELINE_DRIFT}× and {MEMCPY_DRIFT}×)")]
        }
    }
}
