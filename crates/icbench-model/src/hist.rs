//! The latency histogram every cell keeps: an HDR histogram (3 significant
//! digits, 1 ns … 100 s) that the store serialises as a compressed V2 blob, so
//! any percentile can be derived later from the store alone.

use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use serde::{Deserialize, Serialize};

pub use hdrhistogram::Histogram;

/// Highest value a latency histogram accepts, ns (100 s). Larger values are
/// clamped to it, and counted in [`LatencyHistogram::clamped`].
pub const MAX_TRACKABLE_NS: u64 = 100_000_000_000;

/// The most values a histogram holds: its serialised form (HdrHistogram
/// V2) counts in i64, and a larger count panicked when a cell was stored
/// (issue #30 item 3: an imported bucket of 18446744073709551615). Imports
/// refuse more; a stored blob whose counts add up past it is damaged.
pub const MAX_COUNT: u64 = i64::MAX as u64;

#[derive(Debug, thiserror::Error)]
pub enum HistogramError {
    #[error("histogram blob is corrupt: {0}")]
    Corrupt(String),
}

/// Latencies in ns.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    hist: Histogram<u64>,
    clamped: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    pub fn new() -> Self {
        let hist = Histogram::new_with_bounds(1, MAX_TRACKABLE_NS, 3)
            .expect("static histogram bounds are valid");
        LatencyHistogram { hist, clamped: 0 }
    }

    /// Records one value in ns. Values of 0 are recorded as 1 (the lowest
    /// bucket) and values above [`MAX_TRACKABLE_NS`] as that bound.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let v = if ns > MAX_TRACKABLE_NS {
            self.clamped += 1;
            MAX_TRACKABLE_NS
        } else {
            ns.max(1)
        };
        // Cannot fail: v is within the bounds given to new_with_bounds.
        let _ = self.hist.record(v);
    }

    /// Records `count` values of `ns` at once (imported histograms), with
    /// the same clamping as [`record`](Self::record).
    pub fn record_n(&mut self, ns: u64, count: u64) {
        if count == 0 {
            return;
        }
        let v = if ns > MAX_TRACKABLE_NS {
            self.clamped += count;
            MAX_TRACKABLE_NS
        } else {
            ns.max(1)
        };
        let _ = self.hist.record_n(v, count);
    }

    /// Number of values recorded above the trackable range.
    pub fn clamped(&self) -> u64 {
        self.clamped
    }

    pub fn len(&self) -> u64 {
        self.hist.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hist.is_empty()
    }

    pub fn min_ns(&self) -> u64 {
        self.hist.min()
    }

    pub fn max_ns(&self) -> u64 {
        self.hist.max()
    }

    pub fn mean_ns(&self) -> f64 {
        self.hist.mean()
    }

    pub fn stddev_ns(&self) -> f64 {
        self.hist.stdev()
    }

    /// The value at quantile `q` (0.0 ..= 1.0), ns: the highest value of
    /// the bucket holding the `ceil(q × len)`-th smallest value (the lowest
    /// for `q = 0`), as HdrHistogram's `value_at_quantile` answers, except
    /// that counts whose sum an `f64` cannot hold exactly still reach the
    /// last bucket (that function answers 0 there, and its several-quantile
    /// form panics: a cyclictest import of 10¹⁷-count buckets, issue #30).
    pub fn quantile_ns(&self, q: f64) -> u64 {
        self.quantiles_ns(&[q])[0]
    }

    /// [`quantile_ns`] at each of `qs`, which are in increasing order, in
    /// one pass over the buckets: a curve of a hundred points at the cost
    /// of one.
    ///
    /// [`quantile_ns`]: LatencyHistogram::quantile_ns
    pub fn quantiles_ns(&self, qs: &[f64]) -> Vec<u64> {
        debug_assert!(qs.windows(2).all(|w| w[0] <= w[1]), "{qs:?}");
        let total = self.hist.len();
        if total == 0 {
            return vec![0; qs.len()];
        }
        let mut buckets = self.hist.iter_recorded();
        let (mut seen, mut at) = (0u64, 0u64);
        qs.iter()
            .map(|&q| {
                let q = q.clamp(0.0, 1.0);
                let target = ((q * total as f64).ceil() as u64).clamp(1, total);
                while seen < target {
                    let Some(b) = buckets.next() else { break };
                    seen = seen.saturating_add(b.count_at_value());
                    at = b.value_iterated_to();
                }
                if q == 0.0 {
                    self.hist.lowest_equivalent(at)
                } else {
                    self.hist.highest_equivalent(at)
                }
            })
            .collect()
    }

    /// The underlying HDR histogram, for statistics that need the buckets.
    pub fn inner(&self) -> &Histogram<u64> {
        &self.hist
    }

    /// Adds every value of `other` into `self`.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        // Same bounds on both sides: cannot fail.
        let _ = self.hist.add(&other.hist);
        self.clamped += other.clamped;
    }

    /// Serialises as an HdrHistogram V2 + deflate blob (portable across
    /// HdrHistogram implementations).
    pub fn to_blob(&self) -> Vec<u8> {
        let mut out = Vec::new();
        V2DeflateSerializer::new()
            .serialize(&self.hist, &mut out)
            .expect("serialising into a Vec cannot fail");
        out
    }

    pub fn from_blob(blob: &[u8], clamped: u64) -> Result<Self, HistogramError> {
        // A damaged blob can make hdrhistogram 7.6's decoder negate
        // i64::MIN (deserializer.rs, "for a valid histogram, negation won't
        // overflow"): an error where overflow wraps (release), a panic where
        // it is checked (debug and fuzz builds; issue #30, the store
        // target). Any panic of the decoder is the blob's damage, said as such.
        let v2 = checked_v2(blob)?;
        let decoded = std::panic::catch_unwind(|| {
            Deserializer::new().deserialize::<u64, _>(&mut std::io::Cursor::new(&*v2))
        });
        let hist: Histogram<u64> = match decoded {
            Ok(r) => r.map_err(|e| HistogramError::Corrupt(format!("{e:?}")))?,
            Err(_) => {
                return Err(HistogramError::Corrupt("the decoder failed on its counts".into()));
            }
        };
        // Each count fits an i64, their sum need not: a view adding them
        // up overflowed (issue #30, the store target's second find). The
        // decoder sums them as it reads, saturating at u64::MAX
        // (hdrhistogram 7.6, RestatState::on_nonzero_count), so its total
        // is past MAX_COUNT exactly when their sum is.
        if hist.len() > MAX_COUNT {
            return Err(HistogramError::Corrupt(format!(
                "its counts add up past {MAX_COUNT}, more values than a histogram holds"
            )));
        }
        Ok(LatencyHistogram { hist, clamped })
    }
}

/// The most bytes of counts a stored histogram holds once inflated. A
/// full histogram of icbench's bounds is 28,672 counts of at most 9 bytes
/// each (≈ 258 KB); this leaves room for any bounds hdrhistogram accepts
/// with 3 significant digits and refuses a deflate stream that would
/// inflate without end.
pub const MAX_BLOB_PAYLOAD: usize = 8 << 20;

/// The V2 header's bytes before the counts: cookie, payload length,
/// normalizing offset, digits, lowest and highest value, int/double ratio.
const V2_HEADER: usize = 40;
/// hdrhistogram's V2 cookies, plain and deflated (its serialization
/// module; the HdrHistogram V2 encoding).
const V2_COOKIE: u32 = 0x1c84_9313;
const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9314;

/// The blob as plain V2 bytes, inflated if it is deflated, once its
/// header's payload length is no more than the bytes it holds: hdrhistogram
/// 7.6's decoder allocates and zeroes that length (a u32, up to 4 GiB)
/// before reading a byte of it (deserializer.rs, `payload_buf.resize`), so
/// a damaged length made `show` allocate gigabytes (issue #30, the store
/// fuzz target's third find). Other damage is the decoder's to find.
fn checked_v2(blob: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, HistogramError> {
    use std::io::Read;
    let corrupt = |why: String| HistogramError::Corrupt(why);
    let word = |b: &[u8], at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
    };
    let plain = match word(blob, 0) {
        Some(V2_COOKIE) => std::borrow::Cow::Borrowed(blob),
        Some(V2_COMPRESSED_COOKIE) => {
            let len = word(blob, 4).ok_or_else(|| corrupt("cut short in its header".into()))?;
            let deflated = blob
                .get(8..8 + len as usize)
                .ok_or_else(|| corrupt(format!("{len} deflated bytes declared, fewer held")))?;
            let mut out = Vec::new();
            let limit = (V2_HEADER + MAX_BLOB_PAYLOAD) as u64 + 1;
            flate2::read::ZlibDecoder::new(deflated)
                .take(limit)
                .read_to_end(&mut out)
                .map_err(|e| corrupt(format!("its deflate stream: {e}")))?;
            if out.len() as u64 >= limit {
                return Err(corrupt(format!(
                    "it inflates past {MAX_BLOB_PAYLOAD} bytes of counts, more than a histogram holds"
                )));
            }
            std::borrow::Cow::Owned(out)
        }
        _ => return Err(corrupt("not an HdrHistogram V2 blob".into())),
    };
    let declared = word(&plain, 4).ok_or_else(|| corrupt("cut short in its header".into()))?;
    let held = plain.len().saturating_sub(V2_HEADER);
    if declared as usize > held.min(MAX_BLOB_PAYLOAD) {
        return Err(corrupt(format!("{declared} bytes of counts declared, {held} held")));
    }
    Ok(plain)
}

/// A histogram in a bundle's JSON (issue #31): its V2 + deflate blob in
/// base64 (RFC 4648, standard alphabet) beside the count of clamped values,
/// the same bytes the store keeps, so that a bundle re-imports exactly.
#[derive(Serialize, Deserialize)]
struct HistogramJson {
    hdr_v2_deflate_base64: String,
    clamped: u64,
}

impl Serialize for LatencyHistogram {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use base64::Engine;
        HistogramJson {
            hdr_v2_deflate_base64: base64::engine::general_purpose::STANDARD.encode(self.to_blob()),
            clamped: self.clamped,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for LatencyHistogram {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use base64::Engine;
        let j = HistogramJson::deserialize(d)?;
        let blob = base64::engine::general_purpose::STANDARD
            .decode(j.hdr_v2_deflate_base64.as_bytes())
            .map_err(|e| serde::de::Error::custom(format!("a histogram's base64: {e}")))?;
        LatencyHistogram::from_blob(&blob, j.clamped).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_whose_counts_add_up_past_the_most_a_histogram_holds_is_corrupt() {
        // Two buckets of i64::MAX each: each count decodes, their sum does
        // not fit (the store target's second find, issue #30).
        let mut h = LatencyHistogram::new();
        h.record_n(100, MAX_COUNT);
        assert!(LatencyHistogram::from_blob(&h.to_blob(), 0).is_ok());
        h.record_n(200, MAX_COUNT);
        match LatencyHistogram::from_blob(&h.to_blob(), 0) {
            Err(HistogramError::Corrupt(why)) => assert!(why.contains("add up past"), "{why}"),
            other => panic!("{:?}", other.map(|h| h.len())),
        }
    }

    #[test]
    fn a_count_the_decoder_would_overflow_on_is_a_corrupt_blob() {
        // An uncompressed V2 blob (the decoder takes both forms) whose one
        // count is the varint of u64::MAX, ZigZag for i64::MIN, which
        // hdrhistogram negates: a panic in a build with overflow checks
        // (issue #30, the store fuzz target) before from_blob caught it.
        let mut blob = Vec::new();
        hdrhistogram::serialization::V2Serializer::new()
            .serialize(LatencyHistogram::new().inner(), &mut blob)
            .unwrap();
        blob.truncate(40); // cookie, payload length, the 32-byte header
        blob[4..8].copy_from_slice(&9u32.to_be_bytes());
        blob.extend_from_slice(&[0xff; 9]);
        match LatencyHistogram::from_blob(&blob, 0) {
            Err(HistogramError::Corrupt(_)) => {}
            other => panic!("{:?}", other.map(|h| h.len())),
        }
    }

    #[test]
    fn blob_round_trip_keeps_every_percentile() {
        let mut h = LatencyHistogram::new();
        for v in [100, 200, 300, 400, 5_000, 1_000_000] {
            h.record(v);
        }
        let back = LatencyHistogram::from_blob(&h.to_blob(), 0).unwrap();
        assert_eq!(back.len(), 6);
        for q in [0.0, 0.5, 0.9, 0.99, 1.0] {
            assert_eq!(back.quantile_ns(q), h.quantile_ns(q));
        }
    }

    #[test]
    fn quantiles_are_hdrhistograms_in_one_pass() {
        let mut h = LatencyHistogram::new();
        for v in 1..=5_000u64 {
            h.record(v * v % 7_919 + 50);
        }
        h.record(3_000_000);
        let mut qs: Vec<f64> = (0..=200).map(|k| f64::from(k) / 200.0).chain([0.9999]).collect();
        qs.sort_by(f64::total_cmp);
        let theirs: Vec<u64> = qs.iter().map(|&q| h.inner().value_at_quantile(q)).collect();
        assert_eq!(h.quantiles_ns(&qs), theirs);
        assert_eq!(h.quantile_ns(0.0), h.inner().lowest_equivalent(h.inner().min()));
        assert_eq!(h.quantile_ns(1.0), h.inner().highest_equivalent(3_000_000));
        assert_eq!(LatencyHistogram::new().quantiles_ns(&[0.5, 1.0]), [0, 0]);
    }

    #[test]
    fn counts_past_an_f64s_precision_still_reach_the_last_bucket() {
        // The property test's find: q × len rounds above len.
        let mut h = LatencyHistogram::new();
        h.record_n(1_000, 46_830_310_032_496_223);
        h.record_n(592_562_821, 62_684_960_010_690_939);
        h.record_n(37_018_264, 85_058_876_102_141_093);
        let top = h.inner().highest_equivalent(592_562_821);
        assert_eq!(h.quantile_ns(1.0), top);
        assert_eq!(h.quantiles_ns(&[0.5, 0.999_999, 1.0])[2], top);
    }

    #[test]
    fn out_of_range_values_are_clamped_and_counted() {
        let mut h = LatencyHistogram::new();
        h.record(0);
        h.record(MAX_TRACKABLE_NS * 2);
        assert_eq!(h.len(), 2);
        assert_eq!(h.clamped(), 1);
        assert_eq!(h.min_ns(), 1);
    }

    #[test]
    fn corrupt_blob_is_an_error() {
        assert!(LatencyHistogram::from_blob(b"not a histogram", 0).is_err());
    }
}
