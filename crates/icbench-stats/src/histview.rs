//! A read-only view of a [`LatencyHistogram`]'s recorded buckets, in value
//! order, so that order statistics can be read by rank.
//!
//! Every recorded value stands for the HDR bucket it fell in, i.e. all values
//! `v` with the same `lowest_equivalent(v)`. With 3 significant digits a
//! bucket is at most 1/1024 (≈ 0.098 %) of its values wide, so each
//! representative below is within 0.1 % of every value it stands for.

use icbench_model::LatencyHistogram;

/// One recorded bucket.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bucket {
    /// Lowest value equivalent to this bucket, ns.
    pub(crate) low_ns: u64,
    /// Highest value equivalent to this bucket, ns.
    pub(crate) high_ns: u64,
    /// The bucket's midpoint (HDR `median_equivalent`), ns: the value used
    /// for means, deviations and interpolated percentiles.
    pub(crate) mid_ns: u64,
    /// How many values fell in this bucket.
    pub(crate) count: u64,
}

/// Recorded buckets in increasing value order, with cumulative counts.
#[derive(Debug)]
pub(crate) struct HistView {
    pub(crate) buckets: Vec<Bucket>,
    /// `cum[i]` = number of values in buckets `0..=i`.
    cum: Vec<u64>,
}

impl HistView {
    /// `None` if the histogram is empty. O(number of buckets).
    pub(crate) fn new(h: &LatencyHistogram) -> Option<HistView> {
        let inner = h.inner();
        let mut buckets = Vec::new();
        let mut cum = Vec::new();
        let mut total = 0u64;
        for it in inner.iter_recorded() {
            let v = it.value_iterated_to();
            let count = it.count_at_value();
            if count == 0 {
                continue;
            }
            // Saturating: merged blocks, each within the count a stored
            // histogram may hold (`hist::MAX_COUNT`), can add up past u64.
            total = total.saturating_add(count);
            buckets.push(Bucket {
                low_ns: inner.lowest_equivalent(v),
                high_ns: inner.highest_equivalent(v),
                mid_ns: inner.median_equivalent(v),
                count,
            });
            cum.push(total);
        }
        if total == 0 {
            return None;
        }
        Some(HistView { buckets, cum })
    }

    /// Total number of values.
    pub(crate) fn len(&self) -> u64 {
        *self.cum.last().expect("a HistView is never empty")
    }

    /// The bucket holding the order statistic of 0-based rank `i` (< len).
    /// O(log buckets).
    pub(crate) fn bucket_at_rank(&self, i: u64) -> &Bucket {
        debug_assert!(i < self.len());
        let k = self.cum.partition_point(|&c| c <= i);
        &self.buckets[k]
    }
}
