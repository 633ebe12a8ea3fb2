//! The view of `icbench model`: for each (link, pattern, channels) of a run,
//! the least-squares line t(n) = a + b·n through the cells' times, with its
//! standard errors, 95 % CIs, R², largest relative error and curvature test,
//! and what follows from it: the fixed cost a, the asymptotic bandwidth 1/b
//! and the half-performance size n½ = a/b (Hockney 1994; the 002 paper fits
//! the same line and reports < 5 % error).
//!
//! One point per cell: its median time (p50 round trip for ping-pong, p50
//! transfer time against total bytes for bulk, time per message for stream
//! and for goodput-only imports). Medians, not means, so one spike does not
//! move the line; the per-cell CIs are shown beside it in the report.

use icbench_model::JSON_SCHEMA_VERSION;
use icbench_stats::{FitQuality, LinearFit, fit_linear};
use serde::Serialize;

use crate::view::RunView;

/// One fitted series.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesModel {
    pub link: String,
    pub pattern: &'static str,
    pub channels: Option<u32>,
    /// What x is: `size_bytes` (message size) or `total_bytes` (block × blocks).
    pub x: &'static str,
    /// What y is, in ns.
    pub y: &'static str,
    /// The points fitted, (bytes, ns).
    pub points: Vec<(f64, f64)>,
    pub fit: Option<LinearFit>,
    /// Why there is no fit.
    pub error: Option<String>,
    /// `a`, ns.
    pub fixed_cost_ns: Option<f64>,
    /// `1/b` in bytes per second (None when b ≤ 0: no bandwidth limit seen).
    pub bandwidth_bytes_per_s: Option<f64>,
    /// `a/b`, bytes (None when b ≤ 0).
    pub n_half_bytes: Option<f64>,
    /// Largest `|a + b·x − y| / y` over the single points (unlike the fit's
    /// `max_rel_error`, which compares with the mean of the points at each
    /// x): it shows when points at the same x disagree, e.g. bulk transfers
    /// of the same total bytes in different block sizes.
    pub max_point_rel_error: Option<f64>,
    /// `good`, `poor` or `curved`.
    pub quality: Option<&'static str>,
    /// The verdict in words.
    pub verdict: String,
    /// `a + b·size` for `--predict`, ns, with the size in bytes.
    pub prediction: Option<Prediction>,
}

/// A predicted time.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Prediction {
    pub size_bytes: u64,
    pub t_ns: f64,
    /// True when the size lies outside the fitted sizes (an extrapolation).
    pub extrapolated: bool,
}

/// `icbench model RUN`.
#[derive(Debug, Clone, Serialize)]
pub struct ModelView {
    pub schema_version: u32,
    pub run_id: i64,
    pub source: String,
    pub models: Vec<SeriesModel>,
    /// With `--crossover`: where each pair of series of one pattern cross.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub crossovers: Vec<CrossoverView>,
}

/// Where two series of one pattern cross (`icbench model --crossover`).
#[derive(Debug, Clone, Serialize)]
pub struct CrossoverView {
    pub first: String,
    pub second: String,
    pub pattern: &'static str,
    /// Flips of order between adjacent sizes measured on both.
    pub measured: Vec<MeasuredCrossing>,
    /// Where the fitted lines meet, when at a positive size.
    pub model_bytes: Option<f64>,
    /// Whether both fits are good enough to quote that size.
    pub model_quotable: bool,
}

/// One flip of order between two measured sizes.
#[derive(Debug, Clone, Serialize)]
pub struct MeasuredCrossing {
    pub between_bytes: (f64, f64),
    /// Interpolated on log size against log ratio.
    pub estimate_bytes: f64,
    /// The series that is the lower (faster) below the crossing.
    pub lower_below: String,
    /// first ÷ second at the two sizes.
    pub ratios: (f64, f64),
}

/// Which series to fit.
#[derive(Debug, Clone, Default)]
pub struct ModelFilter {
    pub links: Vec<String>,
    pub pattern: Option<String>,
    pub predict: Option<u64>,
    /// Also find where each pair of series of one pattern cross.
    pub crossover: bool,
    /// Only the cells with these factor levels (`transfer=10000000`;
    /// issue #31 item 4: ADI's table mixes five transfer sizes).
    pub where_: Vec<(String, String)>,
}

/// Whether a cell's factors (and its direction, if it has one) hold every
/// `factor=level` of `where_`.
fn matches(
    where_: &[(String, String)],
    factors: &std::collections::BTreeMap<String, String>,
    direction: Option<&str>,
) -> bool {
    where_.iter().all(|(k, v)| match k.as_str() {
        "direction" => direction == Some(v.as_str()),
        _ => factors.get(k) == Some(v),
    })
}

type Key = (String, &'static str, Option<u32>, &'static str, &'static str);

/// A series' name: the link with the factors that set its cells apart
/// (an on-chip cell's direction, region and notify; a plan's wait or
/// cpus), so that cells of different levels are never fitted as one line.
fn series_name(link: &str, factors: &std::collections::BTreeMap<String, String>) -> String {
    let mut f = factors.clone();
    f.remove("rep");
    crate::names::with_all_factors(link.to_string(), &f)
}

/// The points of every series of a run, in the order first seen.
pub fn series(view: &RunView) -> Vec<(Key, Vec<(f64, f64)>)> {
    series_where(view, &[])
}

/// [`series`] of the cells whose factors hold every `factor=level` given.
pub fn series_where(view: &RunView, where_: &[(String, String)]) -> Vec<(Key, Vec<(f64, f64)>)> {
    let mut out: Vec<(Key, Vec<(f64, f64)>)> = Vec::new();
    let mut push = |key: Key, p: (f64, f64)| {
        if !p.1.is_finite() {
            return;
        }
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(p),
            None => out.push((key, vec![p])),
        }
    };
    for r in view.pingpong.iter().filter(|r| r.status == "ok" && matches(where_, &r.factors, None))
    {
        let (y, what) = match (&r.rtt_ns, r.msgs_per_s) {
            (Some(s), _) => (s.summary.p50, "p50 round trip"),
            (None, Some(m)) if m > 0.0 => (1e9 / m, "time per round trip (from goodput)"),
            _ => continue,
        };
        let key = (series_name(&r.link, &r.factors), "pingpong", r.channels, "size_bytes", what);
        push(key, (r.size_bytes as f64, y));
    }
    for r in view.bulk.iter().filter(|r| r.status == "ok" && matches(where_, &r.factors, None)) {
        if let Some(s) = &r.transfer_ns {
            let key = (
                series_name(&r.link, &r.factors),
                "bulk",
                None,
                "total_bytes",
                "p50 transfer time",
            );
            push(key, (r.total_bytes as f64, s.summary.p50));
        }
    }
    let stream = |r: &&crate::rows::StreamRow| {
        r.status == "ok" && matches(where_, &r.factors, Some(&r.direction))
    };
    for r in view.stream.iter().filter(stream) {
        if let Some(m) = r.msgs_per_s.filter(|m| *m > 0.0) {
            // One series per direction.
            let y = match r.direction.as_str() {
                "p2h" => "time per message, peer → host",
                _ => "time per message",
            };
            let key = (series_name(&r.link, &r.factors), "stream", None, "size_bytes", y);
            push(key, (r.size_bytes as f64, 1e9 / m));
        }
    }
    // One-way delays, one series per direction (the 002 paper's fit).
    let oneway = |r: &&crate::rows::OneWayRow| {
        r.status == "ok" && matches(where_, &r.factors, Some(&r.direction))
    };
    for r in view.oneway.iter().filter(oneway) {
        if let Some(s) = &r.oneway_ns {
            let mut f = r.factors.clone();
            f.insert("direction".into(), r.direction.clone());
            let key = (series_name(&r.link, &f), "oneway", None, "size_bytes", "p50 one-way");
            push(key, (r.size_bytes as f64, s.summary.p50));
        }
    }
    out
}

/// Fits every series of `view` that passes `filter`.
pub fn build(view: &RunView, filter: &ModelFilter) -> ModelView {
    let models: Vec<SeriesModel> = series_where(view, &filter.where_)
        .into_iter()
        .filter(|((link, pattern, ..), _)| {
            (filter.links.is_empty() || filter.links.iter().any(|l| l == link))
                && filter.pattern.as_deref().is_none_or(|p| p == *pattern)
        })
        .map(|((link, pattern, channels, x, y), points)| {
            fit_series(link, pattern, channels, x, y, points, filter.predict)
        })
        .collect();
    let crossovers = if filter.crossover { crossovers(&models) } else { Vec::new() };
    ModelView {
        schema_version: JSON_SCHEMA_VERSION,
        run_id: view.run_id,
        source: view.source.clone(),
        models,
        crossovers,
    }
}

/// Every pair of series with the same pattern, axes and channel count.
fn crossovers(models: &[SeriesModel]) -> Vec<CrossoverView> {
    let mut out = Vec::new();
    for (i, m1) in models.iter().enumerate() {
        for m2 in &models[i + 1..] {
            if (m1.pattern, m1.x, m1.y, m1.channels) != (m2.pattern, m2.x, m2.y, m2.channels) {
                continue;
            }
            let measured = icbench_stats::measured_crossings(&m1.points, &m2.points)
                .into_iter()
                .map(|c| MeasuredCrossing {
                    between_bytes: (c.lo, c.hi),
                    estimate_bytes: c.estimate,
                    lower_below: if c.first_lower_below { &m1.link } else { &m2.link }.clone(),
                    ratios: c.ratios,
                })
                .collect();
            let (model_bytes, model_quotable) = match (&m1.fit, &m2.fit) {
                (Some(f1), Some(f2)) => (
                    icbench_stats::model_crossover(f1, f2),
                    m1.quality == Some("good") && m2.quality == Some("good"),
                ),
                _ => (None, false),
            };
            out.push(CrossoverView {
                first: m1.link.clone(),
                second: m2.link.clone(),
                pattern: m1.pattern,
                measured,
                model_bytes,
                model_quotable,
            });
        }
    }
    out
}

fn fit_series(
    link: String,
    pattern: &'static str,
    channels: Option<u32>,
    x: &'static str,
    y: &'static str,
    points: Vec<(f64, f64)>,
    predict: Option<u64>,
) -> SeriesModel {
    let mut m = SeriesModel {
        link,
        pattern,
        channels,
        x,
        y,
        points,
        fit: None,
        error: None,
        fixed_cost_ns: None,
        bandwidth_bytes_per_s: None,
        n_half_bytes: None,
        max_point_rel_error: None,
        quality: None,
        verdict: String::new(),
        prediction: None,
    };
    match fit_linear(&m.points) {
        Err(e) => {
            m.verdict = format!("no model: {e}");
            m.error = Some(e.to_string());
        }
        Ok(f) => {
            m.fixed_cost_ns = Some(f.a);
            if f.b > 0.0 {
                m.bandwidth_bytes_per_s = Some(1e9 / f.b);
                m.n_half_bytes = Some(f.n_half());
            }
            let point_err =
                m.points.iter().map(|&(x, y)| ((f.predict(x) - y) / y).abs()).fold(0.0, f64::max);
            m.max_point_rel_error = Some(point_err);
            let (mut q, mut verdict) = verdict(&f);
            if q == "good" && point_err > icbench_stats::MAX_REL_ERROR_LIMIT {
                q = "poor";
                verdict = format!(
                    "POOR FIT for single points: the line matches the mean at each size, but \
                     misses a single point by {:.1} % — points of the same size disagree (for \
                     bulk: the block size matters, not only the total bytes). R² = {:.4}.",
                    point_err * 100.0,
                    f.r_squared
                );
            }
            m.quality = Some(q);
            m.verdict = verdict;
            if let Some(size) = predict {
                let (lo, hi) = m
                    .points
                    .iter()
                    .fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
                let s = size as f64;
                m.prediction = Some(Prediction {
                    size_bytes: size,
                    t_ns: f.predict(s),
                    extrapolated: s < lo || s > hi,
                });
            }
            m.fit = Some(f);
        }
    }
    m
}

/// The quality label and a plain sentence about the fit.
fn verdict(f: &LinearFit) -> (&'static str, String) {
    let pct = |x: f64| format!("{:.1} %", x * 100.0);
    let slope = if f.b <= 0.0 {
        " The slope is not positive: time does not grow with size here, so there is no \
         bandwidth limit to derive."
    } else if f.b_ci95.lo <= 0.0 {
        " The slope's 95 % CI includes 0: the size dependence is not resolved."
    } else {
        ""
    };
    match f.fit_quality() {
        FitQuality::Good => (
            "good",
            format!(
                "The line fits: largest relative error {}, R² = {:.4}.{slope}",
                pct(f.max_rel_error),
                f.r_squared
            ),
        ),
        FitQuality::PoorRelError(e) => (
            "poor",
            format!(
                "POOR FIT: the line misses a point by {} (limit 5 %); R² = {:.4}. Do not quote \
                 a, 1/b or n½ from it.{slope}",
                pct(e),
                f.r_squared
            ),
        ),
        FitQuality::Curved => (
            "curved",
            format!(
                "CURVED: the points bend away from a straight line (quadratic term p = {:.2e}); \
                 largest relative error {}. Quote the model only within the measured sizes.{slope}",
                f.curvature.map_or(f64::NAN, |c| c.p_two_sided),
                pct(f.max_rel_error)
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perfect_line_is_good_and_its_derivations_are_exact() {
        let pts: Vec<(f64, f64)> =
            [64.0, 256.0, 1024.0, 4096.0].iter().map(|&n| (n, 1000.0 + 0.5 * n)).collect();
        let m = fit_series("x".into(), "pingpong", None, "size_bytes", "y", pts, Some(8192));
        assert_eq!(m.quality, Some("good"));
        assert_eq!(m.fixed_cost_ns, Some(1000.0));
        assert_eq!(m.bandwidth_bytes_per_s, Some(2e9));
        assert_eq!(m.n_half_bytes, Some(2000.0));
        let p = m.prediction.unwrap();
        assert_eq!((p.t_ns, p.extrapolated), (1000.0 + 4096.0, true));
    }

    #[test]
    fn too_few_points_say_why() {
        let m = fit_series("x".into(), "bulk", None, "total_bytes", "y", vec![(1.0, 2.0)], None);
        assert!(m.fit.is_none());
        assert!(m.verdict.contains("at least 3 points"), "{}", m.verdict);
    }
}
