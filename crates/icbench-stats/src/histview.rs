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

/// A latency histogram's recorded buckets, read once for every statistic
/// of it. hdrhistogram keeps 32,768 counts for icbench's bounds, and each
/// `*_hist` function ([`Summary::from_histogram`](crate::Summary::from_histogram),
/// [`median_ci95_hist`](crate::median_ci95_hist),
/// [`tukey_fences_hist`](crate::tukey_fences_hist),
/// [`Fences::count_hist`](crate::Fences::count_hist)) walks all of them;
/// a cell's statistics need all four, so [`Buckets`] walks them once and
/// answers each the same way, to the bit.
#[derive(Debug)]
pub struct Buckets(HistView);

impl Buckets {
    /// `None` if the histogram is empty. O(number of buckets).
    pub fn new(h: &LatencyHistogram) -> Option<Buckets> {
        HistView::new(h).map(Buckets)
    }

    /// As [`Summary::from_histogram`](crate::Summary::from_histogram).
    pub fn summary(&self) -> crate::Summary {
        crate::Summary::from_view(&self.0)
    }

    /// As [`median_ci95_hist`](crate::median_ci95_hist).
    pub fn median_ci95(&self) -> Option<crate::Interval> {
        crate::ci::median_ci95_view(&self.0)
    }

    /// As [`tukey_fences_hist`](crate::tukey_fences_hist).
    pub fn tukey_fences(&self) -> crate::Fences {
        crate::outliers::tukey_fences_view(&self.0)
    }

    /// As [`Fences::count_hist`](crate::Fences::count_hist).
    pub fn count_outliers(&self, fences: &crate::Fences) -> crate::OutlierCounts {
        fences.count_view(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each answer of [`Buckets`] is the `*_hist` function's, to the bit,
    /// on histograms with one, a few and many buckets.
    #[test]
    fn buckets_answer_as_the_functions_that_read_the_histogram_again() {
        let mut shapes: Vec<LatencyHistogram> = Vec::new();
        for n in [1u64, 2, 5, 6, 40, 10_000] {
            let mut h = LatencyHistogram::new();
            let mut x = 88_172_645_463_325_252u64;
            for _ in 0..n {
                // xorshift64: values from 1 µs to ~1 ms, a long tail
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                h.record(1_000 + (x % 1_000_000) * (x % 7) / 6);
            }
            shapes.push(h);
        }
        assert!(Buckets::new(&LatencyHistogram::new()).is_none());
        for h in &shapes {
            let b = Buckets::new(h).expect("not empty");
            let s = crate::Summary::from_histogram(h).unwrap();
            let bs = b.summary();
            assert_eq!(format!("{bs:?}"), format!("{s:?}"));
            assert_eq!(b.median_ci95(), crate::median_ci95_hist(h));
            let f = crate::tukey_fences_hist(h).unwrap();
            assert_eq!(format!("{:?}", b.tukey_fences()), format!("{f:?}"));
            assert_eq!(b.count_outliers(&f), f.count_hist(h));
        }
    }
}
