//! The run order of a plan: a Fisher–Yates shuffle (Knuth, TAOCP vol. 2,
//! Algorithm P) driven by the pinned generator of `icbench-stats`
//! ([`icbench_stats::Resampler`]), so one seed gives the same order on any
//! machine and with any later build. Randomising the order keeps slow drift
//! of the machine (thermal state, other load) from lining up with a factor
//! and masquerading as its effect.

use crate::PlanCell;

/// Names the order's random stream; stored with the plan's seed.
pub const ORDER_GENERATOR: &str = "fisher-yates over icbench_stats::Resampler/v1";

/// Shuffles `cells` in place, determined by `seed` alone.
pub fn shuffle(cells: &mut [PlanCell], seed: u64) {
    let mut rng = icbench_stats::Resampler::new(seed);
    for i in (1..cells.len()).rev() {
        let j = rng.index_below(i + 1);
        cells.swap(i, j);
    }
}
