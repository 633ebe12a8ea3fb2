//! The machine's states, from the state probe beside every block (issue
//! #28 item 2): which blocks were measured in the same state, and whether
//! the probe explains the spread of a cell's blocks.
//!
//! A state is found from the probe alone, never from the figure it is to
//! explain: the blocks' probe values (one-cache-line round trips, ns) are
//! sorted on a log scale and split wherever two neighbours are more than
//! [`STATE_GAP`] apart. On the 2-vCPU VM of shared/research/noise-notes.md
//! ("The state probe") the line trip sat near 240 ns in one placement and
//! near 760 ns in the other (3.2×); a gap of 1.5× lies between the two with
//! room on both sides. The rule is single-linkage clustering with a fixed
//! cut, which in one dimension is the same as cutting the sorted values
//! where they jump. The gap is a constant of this module, to be revisited
//! with probes from other machines.
//!
//! The probe *explains* a cell's spread when the blocks' figures divided
//! by their probes agree where the figures themselves do not: the ratio's
//! largest ÷ smallest is within the agreement band while the figure's is
//! not, or is at most half the figure's (on logs). Then the ratio is the
//! figure that holds from run to run (correlation 0.994–1.000 between the
//! 64 B slot and the line, noise-notes.md), and the absolute figure is
//! quoted per state.

use crate::replicates::{RepeatInterval, repeat_interval95};

/// Neighbouring probe values (sorted) further apart than this ratio are in
/// different states.
pub const STATE_GAP: f64 = 1.5;

/// The state of each block, numbered from 0 in order of their probe values
/// (state 0 is the fastest), from `lines` (the blocks' probe values, ns;
/// one per block, in block order). A block whose value is not finite and
/// positive has no state (`None`).
///
/// O(k log k) for k blocks.
pub fn states(lines: &[f64]) -> Vec<Option<usize>> {
    let mut order: Vec<usize> =
        (0..lines.len()).filter(|&i| lines[i].is_finite() && lines[i] > 0.0).collect();
    order.sort_by(|&a, &b| lines[a].total_cmp(&lines[b]));
    let mut out = vec![None; lines.len()];
    let mut state = 0;
    for (n, &i) in order.iter().enumerate() {
        if n > 0 && lines[i] / lines[order[n - 1]] > STATE_GAP {
            state += 1;
        }
        out[i] = Some(state);
    }
    out
}

/// A cell's blocks against their probes.
#[derive(Debug, Clone, PartialEq)]
pub struct StateFit {
    /// Each block's state ([`states`]); `None` for a block without a probe.
    pub states: Vec<Option<usize>>,
    /// Distinct states among the blocks.
    pub n_states: usize,
    /// The blocks' figure ÷ probe, and where a repeat run's ratio lands
    /// (`None` for fewer than two probed blocks).
    pub ratio: Option<RepeatInterval>,
    /// Largest ÷ smallest of the figures themselves, over the probed blocks.
    pub figure_spread: f64,
    /// Whether the probe explains the blocks' spread (module doc).
    pub explains: bool,
}

/// Fits a cell's block figures `values` to their probes `lines` (same
/// length, block order; a block with no probe is NaN in `lines`). `band`:
/// the ratio of largest to smallest block figure within which blocks agree
/// (the report's 1.10). `None` when fewer than two blocks have both a
/// figure and a probe.
pub fn fit_states(values: &[f64], lines: &[f64], band: f64) -> Option<StateFit> {
    if values.len() != lines.len() {
        return None;
    }
    let ok = |i: usize| {
        values[i].is_finite() && values[i] > 0.0 && lines[i].is_finite() && lines[i] > 0.0
    };
    let probed: Vec<usize> = (0..values.len()).filter(|&i| ok(i)).collect();
    if probed.len() < 2 {
        return None;
    }
    let masked: Vec<f64> =
        (0..lines.len()).map(|i| if ok(i) { lines[i] } else { f64::NAN }).collect();
    let states = states(&masked);
    let n_states = states.iter().flatten().max().map_or(0, |m| m + 1);
    let ratios: Vec<f64> = probed.iter().map(|&i| values[i] / lines[i]).collect();
    let figures: Vec<f64> = probed.iter().map(|&i| values[i]).collect();
    let spread = |v: &[f64]| {
        let (lo, hi) = v.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        hi / lo
    };
    let (figure_spread, ratio_spread) = (spread(&figures), spread(&ratios));
    let explains = figure_spread > band
        && (ratio_spread <= band || ratio_spread.ln() <= 0.5 * figure_spread.ln());
    Some(StateFit { states, n_states, ratio: repeat_interval95(&ratios), figure_spread, explains })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_placements_make_two_states_whatever_the_block_order() {
        // noise-notes.md's windows: line ≈ 240 ns or ≈ 760 ns.
        let lines = [241.0, 787.0, 236.0, 252.0, 760.0];
        assert_eq!(states(&lines), vec![Some(0), Some(1), Some(0), Some(0), Some(1)]);
        // One state when the probes sit within the gap of each other.
        assert_eq!(states(&[240.0, 300.0, 350.0]), vec![Some(0); 3]);
        // 240 → 370 is 1.54×: a new state.
        assert_eq!(states(&[240.0, 370.0]), vec![Some(0), Some(1)]);
        // No probe, no state.
        assert_eq!(states(&[f64::NAN, 240.0, 0.0]), vec![None, Some(0), None]);
        assert!(states(&[]).is_empty());
    }

    #[test]
    fn a_probe_that_follows_the_figure_explains_the_spread() {
        // run 2 of noise-notes.md: shm 64 B blocks 787, 792 and 258 ns with
        // the line at 760, 765 and 250 ns: ratios 1.0355, 1.0353, 1.032.
        let values = [787.0, 792.0, 258.0];
        let lines = [760.0, 765.0, 250.0];
        let f = fit_states(&values, &lines, 1.10).unwrap();
        assert_eq!(f.states, vec![Some(1), Some(1), Some(0)]);
        assert_eq!(f.n_states, 2);
        assert!((f.figure_spread - 792.0 / 258.0).abs() < 1e-12, "{f:?}");
        assert!(f.explains, "{f:?}");
        let r = f.ratio.unwrap();
        // The ratios' geometric mean: (787/760 · 792/765 · 258/250)^(1/3).
        let want =
            ((787.0f64 / 760.0).ln() + (792.0f64 / 765.0).ln() + (258.0f64 / 250.0).ln()) / 3.0;
        assert!((r.center - want.exp()).abs() < 1e-12, "{r:?}");
        assert!(r.spread < 1.01, "{r:?}");
    }

    #[test]
    fn a_probe_that_does_not_follow_the_figure_explains_nothing() {
        // pipe 64 B: blocks 10.3 and 14.7 µs, the line unmoved (one state).
        let f = fit_states(&[10_300.0, 14_700.0, 10_400.0], &[240.0, 245.0, 238.0], 1.10).unwrap();
        assert_eq!(f.n_states, 1);
        assert!(!f.explains, "{f:?}");
        // Blocks that agree need no explaining.
        let f = fit_states(&[250.0, 252.0, 255.0], &[240.0, 760.0, 245.0], 1.10).unwrap();
        assert_eq!(f.n_states, 2);
        assert!(!f.explains, "{f:?}");
    }

    #[test]
    fn blocks_without_a_probe_are_left_out_and_too_few_give_none() {
        let f = fit_states(&[787.0, 300.0, 258.0], &[760.0, f64::NAN, 250.0], 1.10).unwrap();
        assert_eq!(f.states, vec![Some(1), None, Some(0)]);
        assert!(f.explains);
        assert!(fit_states(&[787.0, 258.0], &[760.0, f64::NAN], 1.10).is_none());
        assert!(fit_states(&[787.0], &[760.0, 250.0], 1.10).is_none());
    }
}
