//! Axes: value → pixel on a linear or log scale, and the tick values an
//! axis shows. Log axes tick at round values inside the data's range
//! (powers of 4 for sizes, powers of 2 for ratios, 1-2-5 × 10^e otherwise,
//! finer when that leaves fewer than three); the HDR percentile axis
//! ([`hdr_x`]) ticks at 0, 50, 90, 99, 99.9 and 99.99 %.

use super::Unit;

/// Where a percentile `p` (0 ≤ p < 1) sits on an HDR-style axis: at
/// 1 / (1 − p), drawn on a log scale, so that 90 %, 99 %, 99.9 % and
/// 99.99 % are one decade apart (the tail gets the room, as in
/// HdrHistogram's percentile plots). p = 0 is 1, p50 is 2.
pub fn hdr_x(p: f64) -> f64 {
    1.0 / (1.0 - p.clamp(0.0, 0.999_999))
}

/// The percentiles an HDR axis ticks at, as fractions.
pub const HDR_TICKS: [f64; 6] = [0.0, 0.5, 0.9, 0.99, 0.999, 0.9999];

/// A scale from data values to pixels: `lo … hi` (log10 of them on a log
/// scale, padded by 5 %) onto `a … b`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scale {
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    pub(crate) log: bool,
    pub(crate) a: f64,
    pub(crate) b: f64,
}

impl Scale {
    /// A scale over the data range `lo … hi`, padded by 5 % on each side.
    pub(crate) fn new(mut lo: f64, mut hi: f64, log: bool, a: f64, b: f64) -> Scale {
        if log {
            lo = lo.max(1e-12).log10();
            hi = hi.max(1e-12).log10();
        }
        if hi.is_nan() || hi <= lo {
            let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
            lo -= pad;
            hi += pad;
        }
        let pad = (hi - lo) * 0.05;
        Scale { lo: lo - pad, hi: hi + pad, log, a, b }
    }

    /// A scale over exactly `lo … hi` (no padding): fixed ranges such as
    /// 0 … 100 % or an HDR axis from p0 to p99.99.
    pub(crate) fn exact(lo: f64, hi: f64, log: bool, a: f64, b: f64) -> Scale {
        let (lo, hi) = if log { (lo.max(1e-12).log10(), hi.max(1e-12).log10()) } else { (lo, hi) };
        Scale { lo, hi, log, a, b }
    }

    /// The same range drawn onto other pixels (a panel of small multiples).
    pub(crate) fn onto(self, a: f64, b: f64) -> Scale {
        Scale { a, b, ..self }
    }

    pub(crate) fn px(&self, v: f64) -> f64 {
        let t = if self.log { v.max(1e-12).log10() } else { v };
        self.a + (t - self.lo) / (self.hi - self.lo) * (self.b - self.a)
    }

    /// The data value at the low end of the axis.
    #[cfg(test)]
    pub(crate) fn low_value(&self) -> f64 {
        if self.log { 10f64.powf(self.lo) } else { self.lo }
    }

    fn inside(&self, v: f64) -> bool {
        let t = if self.log { v.log10() } else { v };
        t >= self.lo - 1e-9 && t <= self.hi + 1e-9
    }

    /// Tick values within the range.
    pub(crate) fn ticks(&self, unit: Unit) -> Vec<f64> {
        if !self.log && unit == Unit::Fraction {
            // A CDF: its quartiles and 90 %.
            return [0.0, 0.25, 0.5, 0.75, 0.9, 1.0]
                .into_iter()
                .filter(|v| self.inside(*v))
                .collect();
        }
        if !self.log {
            return linear_ticks(self.lo, self.hi);
        }
        let (lo, hi) = (self.lo.floor() as i32, self.hi.ceil() as i32);
        let span = self.hi - self.lo;
        let powers = |base: f64, step: i32| -> Vec<f64> {
            let (l, h) =
                ((self.lo / base.log10()).floor() as i32, (self.hi / base.log10()).ceil() as i32);
            (l..=h)
                .filter(|e| e % step == 0)
                .map(|e| base.powi(e))
                .filter(|v| self.inside(*v))
                .collect()
        };
        match unit {
            // Powers of 4 (1 B, 4 B, … 64 KiB) read better for sizes.
            Unit::Bytes => {
                let mut out = powers(2.0, if span > 3.0 { 2 } else { 1 });
                out.retain(|v| *v >= 1.0);
                return out;
            }
            Unit::Percentile => {
                return HDR_TICKS.iter().map(|p| hdr_x(*p)).filter(|v| self.inside(*v)).collect();
            }
            // Ratios halve and double: 0.25×, 0.5×, 1×, 2× (issue #18: an
            // axis of 1-2-5 steps showed only 0.5× and 1× for points that
            // sat near 0.25×).
            Unit::Ratio => {
                let p2 = powers(2.0, 1);
                if (3..=12).contains(&p2.len()) {
                    return p2;
                }
            }
            _ => {}
        }
        // Under a factor of 4 end to end, round steps of the values
        // themselves span the data best (0.7×, 0.8× … 1.3×; 300 … 450 ns).
        if span < 0.6 {
            let out = steps(10f64.powf(self.lo), 10f64.powf(self.hi), 8.0);
            if out.len() >= 3 {
                return out;
            }
        }
        let mantissas: [&[f64]; 3] =
            [&[1.0], &[1.0, 2.0, 5.0], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]];
        let start = if span < 2.5 { 1 } else { 0 };
        for m in &mantissas[start..] {
            let out: Vec<f64> = (lo..=hi)
                .flat_map(|e| m.iter().map(move |k| k * 10f64.powi(e)))
                .filter(|v| self.inside(*v))
                .collect();
            if out.len() >= 3 {
                return out;
            }
        }
        // A narrow range (a histogram of 362 … 375 ns) holds fewer than
        // three of any of those: plain steps, so that the axis still says
        // what its values are.
        linear_ticks(10f64.powf(self.lo), 10f64.powf(self.hi))
    }
}

/// About six round steps (1, 2 or 5 × 10^e) from `lo` to `hi`.
pub(crate) fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    steps(lo, hi, 6.0)
}

/// About `n` round steps (1, 2 or 5 × 10^e, the next at least as wide as
/// an n-th of the range) from `lo` to `hi`.
fn steps(lo: f64, hi: f64, n: f64) -> Vec<f64> {
    let raw = (hi - lo) / n;
    if !(raw.is_finite() && raw > 0.0) {
        return Vec::new();
    }
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(mag);
    // k · step, or k ÷ (1 / step) below 1 so that 3 × 0.2 is 0.6.
    let at = |k: f64| if step < 1.0 { k / (1.0 / step).round() } else { k * step };
    let (first, last) = ((lo / step - 1e-9).ceil(), (hi / step + 1e-9).floor());
    let mut out = Vec::new();
    let mut k = first;
    while k <= last {
        // -0.0 reads as 0.
        out.push(at(k) + 0.0);
        k += 1.0;
    }
    out
}

/// The scale of a histogram's count axis: log, from just under one sample
/// to a little above the largest count, so that a bin of one sample is a
/// visible bar and a tail of a few samples is not lost under a peak of
/// thousands (issue #18: the 12–24 ms tail of a linear count axis was
/// invisible).
#[cfg(test)]
pub(crate) fn log_count_scale(max_count: u64, a: f64, b: f64) -> Scale {
    log_count_scale_under(max_count, a, b, 0.0)
}

/// [`log_count_scale`] with `free` px above the tallest bar at least: the
/// percentile lines' labels stand there, not over the bars (issue #29).
pub(crate) fn log_count_scale_under(max_count: u64, a: f64, b: f64, free: f64) -> Scale {
    let lo = 0.6f64.log10();
    let top = ((max_count.max(1) as f64) * 1.5).max(10.0).log10();
    // The tallest bar may fill 1 − free ÷ height of the axis.
    let share = (1.0 - free / (a - b).abs()).clamp(0.3, 1.0);
    let hi = top.max(lo + ((max_count.max(1) as f64).log10() - lo) / share);
    Scale::exact(0.6, 10f64.powf(hi), true, a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hdr_axis_puts_each_nine_one_decade_further() {
        assert_eq!(hdr_x(0.0), 1.0);
        assert!((hdr_x(0.5) - 2.0).abs() < 1e-12);
        assert!((hdr_x(0.99) - 100.0).abs() < 1e-9);
        assert!((hdr_x(0.9999) - 10_000.0).abs() < 1e-6);
        let s = Scale::exact(1.0, 1e4, true, 0.0, 400.0);
        let px: Vec<f64> = [0.9, 0.99, 0.999, 0.9999].iter().map(|p| s.px(hdr_x(*p))).collect();
        for w in px.windows(2) {
            assert!((w[1] - w[0] - 100.0).abs() < 1e-6, "{px:?}");
        }
        let labels: Vec<String> =
            s.ticks(Unit::Percentile).into_iter().map(|v| Unit::Percentile.label(v)).collect();
        assert_eq!(labels, ["0 %", "50 %", "90 %", "99 %", "99.9 %", "99.99 %"]);
    }

    #[test]
    fn a_log_count_axis_keeps_single_samples_and_ticks_by_decade() {
        let s = log_count_scale(20_000, 500.0, 100.0);
        // A bin of one sample stands above the baseline …
        assert!(s.px(1.0) < s.px(s.low_value()) - 5.0);
        // … and 10 sits halfway between 1 and 100.
        let (p1, p10, p100) = (s.px(1.0), s.px(10.0), s.px(100.0));
        assert!(((p1 - p10) - (p10 - p100)).abs() < 1e-9);
        assert!(s.px(20_000.0) > 100.0);
        assert_eq!(s.ticks(Unit::Count), [1.0, 10.0, 100.0, 1000.0, 10_000.0]);
        // A small histogram still gets ticks at round counts.
        let s = log_count_scale(40, 500.0, 100.0);
        assert_eq!(s.ticks(Unit::Count), [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]);
    }

    #[test]
    fn a_count_axis_keeps_room_for_labels_above_the_tallest_bar() {
        let s = log_count_scale_under(50_000, 600.0, 100.0, 80.0);
        assert!(s.px(50_000.0) >= 100.0 + 80.0 - 1e-6, "{}", s.px(50_000.0));
        assert!(s.px(1.0) < s.px(s.low_value()) - 5.0);
        // Without labels, as before.
        let (a, b) = (
            log_count_scale(50_000, 600.0, 100.0),
            log_count_scale_under(50_000, 600.0, 100.0, 0.0),
        );
        assert_eq!(a.px(50_000.0), b.px(50_000.0));
    }

    #[test]
    fn ratio_ticks_span_the_data() {
        // Issue #18: points near 0.25× on an axis labelled 0.5× and 1× only.
        let s = Scale::new(0.23, 1.02, true, 0.0, 100.0);
        assert_eq!(s.ticks(Unit::Ratio), [0.25, 0.5, 1.0]);
        // Close to 1: finer than powers of 2.
        let t = Scale::new(0.93, 1.08, true, 0.0, 100.0).ticks(Unit::Ratio);
        assert!(t.len() >= 3 && t.contains(&1.0), "{t:?}");
        // Either side of 1 within a factor of 2: round steps over all of it.
        let t = Scale::new(0.7, 1.35, true, 0.0, 100.0).ticks(Unit::Ratio);
        assert!(t[0] <= 0.7 && *t.last().unwrap() >= 1.3 && t.contains(&1.0), "{t:?}");
        // Decades apart: powers of 10.
        let t = Scale::new(0.001, 10.0, true, 0.0, 100.0).ticks(Unit::Ratio);
        assert_eq!(t, [0.001, 0.01, 0.1, 1.0, 10.0]);
    }

    #[test]
    fn narrow_log_ranges_still_get_three_ticks() {
        let t = Scale::new(280.0, 451.0, true, 0.0, 100.0).ticks(Unit::Ns);
        assert!(t.len() >= 2 && t.contains(&300.0), "{t:?}");
        let t = Scale::new(362.0, 375.0, true, 0.0, 100.0).ticks(Unit::Ns);
        assert!(t.len() >= 2, "{t:?}");
        assert_eq!(linear_ticks(0.0, 1.0), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        let cdf = Scale::exact(0.0, 1.0, false, 0.0, 100.0);
        assert_eq!(cdf.ticks(Unit::Fraction), [0.0, 0.25, 0.5, 0.75, 0.9, 1.0]);
    }
}
