//! icbench's statistics: summaries, percentiles, confidence intervals,
//! outliers, the linear cost model t(n) = a + b·n, comparisons between two
//! sets of measurements, where two cost curves cross, and fairness between
//! channels (Jain's index).
//!
//! Every function here is pure: it takes samples (or a
//! [`LatencyHistogram`](icbench_model::LatencyHistogram)) and returns numbers.
//! Nothing prints, reads a clock or touches a file (ARCHITECTURE rule 3).
//! Functions that use randomness (the bootstraps) take an explicit `seed`
//! and always give the same answer for the same inputs and seed.
//!
//! # Conventions
//!
//! - **Units.** Values come out in the unit they went in: give ns, get ns.
//!   Histogram inputs are in ns, because [`LatencyHistogram`](icbench_model::LatencyHistogram) is.
//! - **Names.** Statistics are named exactly: `stddev` is the *sample*
//!   standard deviation (divisor n − 1), never a standard error; standard
//!   errors are called `se_*`; 95 % confidence intervals are [`Interval`]s in
//!   fields called `*_ci95`.
//! - **Empty or bad input** gives `None` (or an error for the model fit),
//!   never a panic and never a silent NaN: a slice containing NaN or ±∞ is
//!   treated like an empty one.
//! - **Percentiles of raw samples** use linear interpolation between order
//!   statistics, Hyndman & Fan (1996) type 7 (see [`quantile_sorted`]).
//! - **Outliers are flagged, never removed.**
//! - **Factorial experiments** are analysed in [`effects`]: main effects,
//!   two-factor interactions and the allocation of variation (Jain 1991).

#![warn(missing_docs)]

mod binomial;
mod ci;
mod compare;
mod crossover;
pub mod disturbance;
pub mod effects;
mod fairness;
mod fit;
pub mod history;
mod histview;
mod interval;
mod outliers;
pub mod pooled;
mod quantile;
mod replicates;
mod resample;
pub mod state;
mod summary;
mod tdist;

pub use ci::{
    bootstrap_median_ci95, mean_ci95, mean_ci95_summary, median_ci95, median_ci95_hist,
    median_ci95_ranks,
};
pub use compare::{
    BandVerdict, MannWhitney, TTest, mann_whitney_u_hist, ratio_of_medians_ci95,
    ratio_of_medians_ci95_hist, welch_t_test, within_band,
};
pub use crossover::{Crossing, measured_crossings, model_crossover};
pub use fairness::{Fairness, fairness};
pub use fit::{
    CURVATURE_ALPHA, Curvature, FitError, FitQuality, LinearFit, MAX_REL_ERROR_LIMIT, fit_linear,
};
pub use histview::Buckets;
pub use interval::Interval;
pub use outliers::{
    Fences, MAD_Z_THRESHOLD, MadOutliers, OutlierClass, OutlierCounts, mad_outliers,
    modified_z_scores, tukey_fences, tukey_fences_hist,
};
pub use quantile::{median, quantile, quantile_sorted};
pub use replicates::{BlockComparison, RepeatInterval, compare_blocks, repeat_interval95};
pub use resample::{BOOTSTRAP_GENERATOR, Resampler};
pub use summary::Summary;
