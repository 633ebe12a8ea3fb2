//! How long a plan takes, before it runs: for `--dry-run`, `plan check`
//! and the whole-plan budget. An estimate, said to be one wherever shown.
//!
//! A cell measures for the cell time after a warm-up of a fifth of it
//! (`icbench-engine` pattern.rs: `counts`), so a cell costs about 1.2 cell
//! times plus its probe; a cell that cannot reuse the previous cell's
//! session also pays for starting its peers.

use std::time::Duration;

use crate::PlanCell;

/// Starting one peer process and its session (handshake, state probe),
/// with the storing of a cell: on the 2-core development VM a default run
/// with 1 ms cells and no floor took 10.6 s for its 918 cells, ≈ 800 peer
/// starts (2026-11-28, issue #29: at 40 ms the estimate said 55.8 s for a
/// default run that took 35.4–38.2 s).
pub const SESSION_START: Duration = Duration::from_millis(12);

/// Estimated duration of `cells` run in the given order.
pub fn estimate<'a>(
    cells: impl IntoIterator<Item = &'a PlanCell>,
    cell_time: Duration,
) -> Duration {
    let per_cell = cell_time.mul_f64(1.25);
    let mut total = Duration::ZERO;
    let mut prev: Option<&PlanCell> = None;
    for c in cells {
        total += per_cell;
        if !prev.is_some_and(|p| p.shares_session(c)) {
            total += SESSION_START * c.channels;
        }
        prev = Some(c);
    }
    total
}

/// `1h 02m`, `3m 20s`, `12.5 s`: a duration for people.
pub fn human(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 3600.0 {
        format!("{}h {:02}m", (s / 3600.0) as u64, ((s % 3600.0) / 60.0) as u64)
    } else if s >= 60.0 {
        format!("{}m {:02}s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!("{s:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use icbench_model::Pattern;

    fn cell(link: &str, channels: u32) -> PlanCell {
        PlanCell { channels, ..PlanCell::new(link, Pattern::PingPong, 64) }
    }

    #[test]
    fn a_session_is_paid_once_per_run_of_cells_that_share_it() {
        let t = Duration::from_millis(100);
        let same = [cell("pipe", 1), cell("pipe", 1), cell("pipe", 1)];
        assert_eq!(estimate(&same, t), t.mul_f64(1.25) * 3 + SESSION_START);
        let alternating = [cell("pipe", 1), cell("unix", 1), cell("pipe", 1)];
        assert_eq!(estimate(&alternating, t), t.mul_f64(1.25) * 3 + SESSION_START * 3);
        // Channel cells start a peer per channel, every time.
        let ch = [cell("unix", 8), cell("unix", 8)];
        assert_eq!(estimate(&ch, t), t.mul_f64(1.25) * 2 + SESSION_START * 16);
    }

    #[test]
    fn human_durations() {
        assert_eq!(human(Duration::from_millis(12_500)), "12.5 s");
        assert_eq!(human(Duration::from_secs(200)), "3m 20s");
        assert_eq!(human(Duration::from_secs(3720)), "1h 02m");
    }
}
