//! A cell's figure against its host's earlier runs, as the view carries
//! it (issue #28 item 3); `crate::history` sets it.

use serde::Serialize;

/// A cell's figure against the same cell in the host's earlier runs.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryView {
    /// Earlier runs with the cell.
    pub runs: usize,
    /// Their figures' geometric mean.
    pub center: f64,
    /// The 95 % limits for one more run, from the earlier runs alone.
    pub lo: f64,
    pub hi: f64,
    /// This run's figure lies within them.
    pub within: bool,
    /// The degrees of freedom of the run-to-run spread when it is pooled
    /// over the link's cells (`null`: the cell's own runs alone).
    pub pooled_df: Option<usize>,
    /// The repeat interval of this run's blocks alone, which the runs'
    /// own interval replaced (`null` when the blocks gave none).
    pub blocks_lo: Option<f64>,
    pub blocks_hi: Option<f64>,
}
