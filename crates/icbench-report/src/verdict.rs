//! The run's verdict (issue #15): from the marks every row carries —
//! disturbed, blocks that disagree, too few of them, outside the host's
//! history — and the floor's drift, whether its figures can be quoted and
//! to what precision. It only counts what `replicates`, `disturbed` and
//! `history` decided.

use serde::Serialize;

use crate::replicates::ReplicatesView;

/// Share of flagged cells above which a run is not fit for quoting.
pub const UNFIT_SHARE: f64 = 0.5;
/// Share of flagged cells up to which a run counts as reproducible.
pub const REPRODUCIBLE_SHARE: f64 = 0.1;

/// The run's last word on its own figures (issue #15): whether they can be
/// quoted, and if not, what was measured that says so.
#[derive(Debug, Clone, Serialize)]
pub struct RunVerdict {
    /// `reproducible`, `partly reproducible`, `not fit for quoting`, or
    /// `not judged` (a run without replicate blocks and counters).
    pub verdict: &'static str,
    /// Measured cells (ping-pong, stream, oneway, bulk).
    pub cells: usize,
    /// Of them, marked disturbed.
    pub disturbed: usize,
    /// Of them, with blocks that disagree.
    pub disagree: usize,
    /// Of them, with too few usable blocks for a repeat interval.
    pub too_few_blocks: usize,
    /// Of them, outside their host's earlier runs (issue #28 item 3).
    pub outside_history: usize,
    /// Of them, whose repeat run may land too far to quote
    /// ([`ReplicatesView::wide`]).
    pub wide: usize,
    /// Marked either way.
    pub flagged: usize,
    /// The floor moved past its bound between head and tail, in a run
    /// whose cells were measured in one block each (interleaved blocks
    /// judge each cell themselves: [`crate::disturbed::FloorDriftView`]).
    pub unstable: bool,
    /// The verdict in one line, with the counts.
    pub text: String,
}

impl RunVerdict {
    /// From the marks of a run's rows ([`crate::marks::of`]), its floor
    /// drift, and whether it is another tool's results (not judged).
    pub fn of(
        marks: &[crate::marks::Marked],
        floor_drift: Option<&crate::disturbed::FloorDriftView>,
        imported: bool,
    ) -> RunVerdict {
        let (mut cells, mut disturbed, mut disagree, mut flagged, mut judged) = (0, 0, 0, 0, 0);
        let (mut too_few_blocks, mut outside_history, mut wide) = (0, 0, 0);
        let mut widths = Vec::new();
        for m in marks.iter().filter(|m| m.ok) {
            widths.extend(m.replicates.as_ref().and_then(|r| r.rel_half_width));
            cells += 1;
            let dist = m.disturbance.as_ref().is_some_and(|v| v.disturbed);
            let dis = m.replicates.as_ref().is_some_and(|r| r.disagree);
            let few = m.replicates.as_ref().is_some_and(|r| r.too_few_blocks);
            let out = m.replicates.as_ref().is_some_and(ReplicatesView::outside_history);
            let far = m.replicates.as_ref().is_some_and(|r| r.wide);
            judged += usize::from(m.disturbance.is_some() || m.replicates.is_some());
            disturbed += usize::from(dist);
            disagree += usize::from(dis);
            too_few_blocks += usize::from(few);
            outside_history += usize::from(out);
            wide += usize::from(far);
            flagged += usize::from(dist || dis || few || out || far);
        }
        let unstable = floor_drift.is_some_and(|d| d.marks_every_cell);
        let share = if cells == 0 { 0.0 } else { flagged as f64 / cells as f64 };
        let mut few = if too_few_blocks > 0 {
            format!(", {too_few_blocks} with too few agreeing blocks")
        } else {
            String::new()
        };
        if outside_history > 0 {
            few.push_str(&format!(", {outside_history} outside their host's history"));
        }
        if wide > 0 {
            few.push_str(&format!(
                ", {wide} whose repeat run may land beyond ×/÷ {}",
                crate::replicates::MAX_INTERVAL_FACTOR
            ));
        }
        // How far a repeat run's figure may land, as the middle cell's
        // interval says: "reproducible" is to that precision.
        widths.sort_by(f64::total_cmp);
        let within = widths
            .get(widths.len() / 2)
            .map(|w| format!(" to ±{:.0} % (the median repeat interval)", w * 100.0))
            .unwrap_or_default();
        let counts = format!(
            "{flagged} of {cells} cells marked ({disturbed} disturbed, {disagree} with blocks \
             that disagree{few})"
        );
        let (verdict, text) = if judged == 0 || imported {
            (
                "not judged",
                "verdict: not judged (no replicate blocks or disturbance counters)".into(),
            )
        } else if unstable || share > UNFIT_SHARE {
            let why = if unstable { "the machine changed under the run (floor); " } else { "" };
            ("not fit for quoting", format!("verdict: NOT FIT FOR QUOTING: {why}{counts}"))
        } else if share > REPRODUCIBLE_SHARE {
            (
                "partly reproducible",
                format!(
                    "verdict: partly reproducible{within}: {counts}; quote only unmarked cells"
                ),
            )
        } else {
            ("reproducible", format!("verdict: reproducible{within}: {counts}"))
        };
        RunVerdict {
            verdict,
            cells,
            disturbed,
            disagree,
            too_few_blocks,
            outside_history,
            wide,
            flagged,
            unstable,
            text,
        }
    }
}
