//! Outlier flags. Outliers are **flagged, never removed**: a latency spike is
//! a result (an interrupt, a migration, a page fault), so every function here
//! reports which values stand out and leaves the data alone.
//!
//! Two rules:
//!
//! - **Tukey's fences** (Tukey, *Exploratory Data Analysis*, 1977, ch. 2):
//!   with quartiles Q1, Q3 and IQR = Q3 − Q1, values beyond Q1 − 1.5·IQR or
//!   Q3 + 1.5·IQR are *mild* outliers and values beyond Q1 − 3·IQR or
//!   Q3 + 3·IQR are *severe* ("far out"). Quartiles are type-7 quantiles (see
//!   [`quantile_sorted`](crate::quantile_sorted)). This is the rule
//!   criterion uses (`stats::univariate::outliers::tukey`).
//! - **Modified z-scores** (Iglewicz, B. & Hoaglin, D. C., *How to Detect and
//!   Handle Outliers*, ASQC Basic References in Quality Control vol. 16,
//!   1993): `Mᵢ = 0.6745·(xᵢ − median)/MAD`, where MAD is the median of
//!   `|xᵢ − median|`; they recommend flagging `|Mᵢ| > 3.5`
//!   ([`MAD_Z_THRESHOLD`]). 0.6745 ≈ Φ⁻¹(0.75) makes `M` comparable to a
//!   standard normal z-score.

use serde::{Deserialize, Serialize};

use icbench_model::LatencyHistogram;

use crate::histview::HistView;
use crate::quantile::{sorted_finite, type7};

/// Iglewicz & Hoaglin's cut-off for the modified z-score: flag `|M| > 3.5`.
pub const MAD_Z_THRESHOLD: f64 = 3.5;

/// 0.6745 ≈ Φ⁻¹(0.75), the factor in Iglewicz & Hoaglin's modified z-score.
const MAD_Z_FACTOR: f64 = 0.6745;

/// Tukey's four fences, in the samples' unit, with
/// `low_far <= low_mild <= high_mild <= high_far`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fences {
    /// Q1 − 3·IQR: values below are severe low outliers.
    pub low_far: f64,
    /// Q1 − 1.5·IQR: values below (and not below `low_far`) are mild low outliers.
    pub low_mild: f64,
    /// Q3 + 1.5·IQR: values above (and not above `high_far`) are mild high outliers.
    pub high_mild: f64,
    /// Q3 + 3·IQR: values above are severe high outliers.
    pub high_far: f64,
}

/// Where a value falls relative to [`Fences`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OutlierClass {
    /// Below `low_far`.
    LowSevere,
    /// In `[low_far, low_mild)`.
    LowMild,
    /// In `[low_mild, high_mild]`.
    NotOutlier,
    /// In `(high_mild, high_far]`.
    HighMild,
    /// Above `high_far`.
    HighSevere,
}

/// How many values fall in each outlier class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutlierCounts {
    /// Values below `low_far`.
    pub low_severe: u64,
    /// Values in `[low_far, low_mild)`.
    pub low_mild: u64,
    /// Values in `(high_mild, high_far]`.
    pub high_mild: u64,
    /// Values above `high_far`.
    pub high_severe: u64,
}

impl OutlierCounts {
    /// Mild outliers, low and high.
    pub fn mild(&self) -> u64 {
        self.low_mild + self.high_mild
    }

    /// Severe outliers, low and high.
    pub fn severe(&self) -> u64 {
        self.low_severe + self.high_severe
    }

    /// All outliers.
    pub fn total(&self) -> u64 {
        self.mild() + self.severe()
    }
}

/// Tukey's fences of `samples`. `None` if it is empty or holds a non-finite
/// value. O(n log n).
pub fn tukey_fences(samples: &[f64]) -> Option<Fences> {
    let sorted = sorted_finite(samples)?;
    let n = sorted.len() as u64;
    let q1 = type7(n, 0.25, |i| sorted[i as usize]);
    let q3 = type7(n, 0.75, |i| sorted[i as usize]);
    let iqr = q3 - q1;
    Some(Fences {
        low_far: q1 - 3.0 * iqr,
        low_mild: q1 - 1.5 * iqr,
        high_mild: q3 + 1.5 * iqr,
        high_far: q3 + 3.0 * iqr,
    })
}

/// Tukey's fences of a latency histogram, ns: the quartiles are type-7
/// quantiles of the bucket midpoints, exactly as
/// [`Summary::from_histogram`](crate::Summary::from_histogram) computes its
/// percentiles. `None` if the histogram is empty. O(buckets).
pub fn tukey_fences_hist(hist: &LatencyHistogram) -> Option<Fences> {
    HistView::new(hist).map(|view| tukey_fences_view(&view))
}

/// [`tukey_fences_hist`] of the buckets already read.
pub(crate) fn tukey_fences_view(view: &HistView) -> Fences {
    let n = view.len();
    let q = |q: f64| type7(n, q, |i| view.bucket_at_rank(i).mid_ns as f64);
    let (q1, q3) = (q(0.25), q(0.75));
    let iqr = q3 - q1;
    Fences {
        low_far: q1 - 3.0 * iqr,
        low_mild: q1 - 1.5 * iqr,
        high_mild: q3 + 1.5 * iqr,
        high_far: q3 + 3.0 * iqr,
    }
}

impl Fences {
    /// Counts the values of a latency histogram in each class, each value
    /// standing for its bucket's midpoint. O(buckets).
    pub fn count_hist(&self, hist: &LatencyHistogram) -> OutlierCounts {
        HistView::new(hist).map_or_else(OutlierCounts::default, |view| self.count_view(&view))
    }

    /// [`count_hist`](Self::count_hist) of the buckets already read.
    pub(crate) fn count_view(&self, view: &HistView) -> OutlierCounts {
        let mut c = OutlierCounts::default();
        for b in &view.buckets {
            match self.classify(b.mid_ns as f64) {
                OutlierClass::LowSevere => c.low_severe += b.count,
                OutlierClass::LowMild => c.low_mild += b.count,
                OutlierClass::HighMild => c.high_mild += b.count,
                OutlierClass::HighSevere => c.high_severe += b.count,
                OutlierClass::NotOutlier => {}
            }
        }
        c
    }

    /// The class of `x`. A value exactly on a fence is on the inner side
    /// (e.g. `x == high_mild` is not an outlier).
    pub fn classify(&self, x: f64) -> OutlierClass {
        if x < self.low_far {
            OutlierClass::LowSevere
        } else if x < self.low_mild {
            OutlierClass::LowMild
        } else if x > self.high_far {
            OutlierClass::HighSevere
        } else if x > self.high_mild {
            OutlierClass::HighMild
        } else {
            OutlierClass::NotOutlier
        }
    }

    /// Counts the values of `samples` in each class. O(n).
    pub fn count(&self, samples: &[f64]) -> OutlierCounts {
        let mut c = OutlierCounts::default();
        for &x in samples {
            match self.classify(x) {
                OutlierClass::LowSevere => c.low_severe += 1,
                OutlierClass::LowMild => c.low_mild += 1,
                OutlierClass::HighMild => c.high_mild += 1,
                OutlierClass::HighSevere => c.high_severe += 1,
                OutlierClass::NotOutlier => {}
            }
        }
        c
    }
}

/// The modified z-score `Mᵢ = 0.6745·(xᵢ − median)/MAD` of each sample, in
/// input order (unitless).
///
/// When MAD is 0 (more than half the values equal the median) the scores are
/// 0 for values equal to the median and ±∞ for every other value, which is
/// the limit of the formula: any deviation from a constant majority is
/// flagged. `None` if `samples` is empty or holds a non-finite value.
/// O(n log n).
pub fn modified_z_scores(samples: &[f64]) -> Option<Vec<f64>> {
    let (median, mad) = median_and_mad(samples)?;
    Some(samples.iter().map(|&x| z_score(x, median, mad)).collect())
}

fn z_score(x: f64, median: f64, mad: f64) -> f64 {
    let dev = x - median;
    if dev == 0.0 { 0.0 } else { MAD_Z_FACTOR * dev / mad }
}

fn median_and_mad(samples: &[f64]) -> Option<(f64, f64)> {
    let sorted = sorted_finite(samples)?;
    let n = sorted.len() as u64;
    let median = type7(n, 0.5, |i| sorted[i as usize]);
    let mut dev: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
    dev.sort_unstable_by(f64::total_cmp);
    let mad = type7(n, 0.5, |i| dev[i as usize]);
    Some((median, mad))
}

/// Samples flagged by the modified z-score rule (`|M| > 3.5`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MadOutliers {
    /// Median of the samples, in their unit.
    pub median: f64,
    /// Median absolute deviation from the median (unscaled), in the
    /// samples' unit.
    pub mad: f64,
    /// Indices (into the input) of the flagged samples, ascending.
    pub flagged: Vec<usize>,
}

impl MadOutliers {
    /// Number of flagged samples.
    pub fn count(&self) -> usize {
        self.flagged.len()
    }
}

/// Flags the samples whose modified z-score exceeds [`MAD_Z_THRESHOLD`] in
/// absolute value (see [`modified_z_scores`], including the MAD = 0 case).
/// `None` if `samples` is empty or holds a non-finite value. O(n log n).
pub fn mad_outliers(samples: &[f64]) -> Option<MadOutliers> {
    let (median, mad) = median_and_mad(samples)?;
    let flagged = samples
        .iter()
        .enumerate()
        .filter(|&(_, &x)| z_score(x, median, mad).abs() > MAD_Z_THRESHOLD)
        .map(|(i, _)| i)
        .collect();
    Some(MadOutliers { median, mad, flagged })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tukey_from_histogram_matches_samples_below_2048_ns() {
        // Buckets are 1 ns wide below 2048 ns, so the histogram gives the
        // sample answer exactly: x = 100..=119 and one 1000.
        // Type 7 with n = 21: h = 20·0.25 = 5 and 20·0.75 = 15, so Q1 = x[5]
        // = 105 and Q3 = x[15] = 115; IQR = 10.
        let mut x: Vec<f64> = (100..120).map(f64::from).collect();
        x.push(1000.0);
        let mut h = LatencyHistogram::new();
        for v in &x {
            h.record(*v as u64);
        }
        let f = tukey_fences_hist(&h).unwrap();
        assert_eq!(f, tukey_fences(&x).unwrap());
        assert_eq!((f.high_mild, f.high_far), (115.0 + 15.0, 115.0 + 30.0));
        let c = f.count_hist(&h);
        assert_eq!(c, f.count(&x));
        assert_eq!((c.high_severe, c.total()), (1, 1));
        assert_eq!(tukey_fences_hist(&LatencyHistogram::new()), None);
    }

    #[test]
    fn tukey_known_answer() {
        // x = 1..9 and 100: Q1 = 3.25, Q3 = 7.75 (python3:
        // statistics.quantiles(x, n=4, method="inclusive") == [3.25, 5.5, 7.75]),
        // IQR = 4.5, so the fences are 3.25 − 13.5, 3.25 − 6.75, 7.75 + 6.75,
        // 7.75 + 13.5.
        let mut x: Vec<f64> = (1..=9).map(f64::from).collect();
        x.push(100.0);
        let f = tukey_fences(&x).unwrap();
        assert_eq!(f, Fences { low_far: -10.25, low_mild: -3.5, high_mild: 14.5, high_far: 21.25 });
        assert_eq!(f.classify(100.0), OutlierClass::HighSevere);
        assert_eq!(f.classify(21.25), OutlierClass::HighMild);
        assert_eq!(f.classify(14.5), OutlierClass::NotOutlier);
        assert_eq!(f.classify(14.6), OutlierClass::HighMild);
        assert_eq!(f.classify(-3.6), OutlierClass::LowMild);
        assert_eq!(f.classify(-11.0), OutlierClass::LowSevere);
        let c = f.count(&[100.0, 15.0, 20.0, -4.0, -20.0, 5.0]);
        assert_eq!(c, OutlierCounts { low_severe: 1, low_mild: 1, high_mild: 2, high_severe: 1 });
        assert_eq!((c.mild(), c.severe(), c.total()), (3, 2, 5));
        assert_eq!(f.count(&x).total(), 1);
        assert_eq!(tukey_fences(&[]), None);
    }

    #[test]
    fn modified_z_known_answer() {
        // x = 1..9 and 100: median 5.5, |x − 5.5| sorted = .5 .5 1.5 1.5 2.5
        // 2.5 3.5 3.5 4.5 94.5, so MAD = 2.5. M(100) = 0.6745·94.5/2.5
        // = 25.49610, M(1) = 0.6745·(−4.5)/2.5 = −1.21410 (by hand).
        let mut x: Vec<f64> = (1..=9).map(f64::from).collect();
        x.push(100.0);
        let z = modified_z_scores(&x).unwrap();
        assert!((z[9] - 25.4961).abs() < 1e-9);
        assert!((z[0] + 1.2141).abs() < 1e-9);
        let m = mad_outliers(&x).unwrap();
        assert_eq!((m.median, m.mad, m.flagged.clone(), m.count()), (5.5, 2.5, vec![9], 1));
        // The input is untouched (flagged, never removed).
        assert_eq!(x.len(), 10);
    }

    #[test]
    fn zero_mad_flags_any_deviation() {
        let x = [5.0, 5.0, 5.0, 5.0, 6.0];
        let z = modified_z_scores(&x).unwrap();
        assert_eq!(&z[..4], &[0.0; 4]);
        assert_eq!(z[4], f64::INFINITY);
        assert_eq!(mad_outliers(&x).unwrap().flagged, vec![4]);
        assert_eq!(mad_outliers(&[f64::NAN]), None);
    }
}
