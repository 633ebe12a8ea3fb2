//! Numbers with their units, for people: `812 ns`, `1.23 µs`, `4 KiB`,
//! `1.23 GB/s`. Rates use decimal prefixes (as network and bus bandwidths are
//! quoted); message sizes use binary ones (as buffers are sized).

/// A duration in ns, with three significant digits.
pub fn ns(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let a = v.abs();
    let (x, unit) = if a < 1e3 {
        (v, "ns")
    } else if a < 1e6 {
        (v / 1e3, "µs")
    } else if a < 1e9 {
        (v / 1e6, "ms")
    } else {
        (v / 1e9, "s")
    };
    format!("{} {unit}", sig3(x))
}

/// A size in bytes: `1 B`, `512 B`, `4 KiB`, `1.5 MiB`.
pub fn bytes(v: u64) -> String {
    const KI: u64 = 1024;
    if v < KI {
        format!("{v} B")
    } else if v < KI * KI {
        trim(v as f64 / KI as f64, "KiB")
    } else if v < KI * KI * KI {
        trim(v as f64 / (KI * KI) as f64, "MiB")
    } else {
        trim(v as f64 / (KI * KI * KI) as f64, "GiB")
    }
}

fn trim(x: f64, unit: &str) -> String {
    if x.fract() == 0.0 { format!("{x:.0} {unit}") } else { format!("{} {unit}", sig3(x)) }
}

/// A rate with a decimal prefix: `rate(1.5e9, "B/s")` → `1.50 GB/s`.
pub fn rate(v: f64, unit: &str) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let (x, p) = if v < 1e3 {
        (v, "")
    } else if v < 1e6 {
        (v / 1e3, "k")
    } else if v < 1e9 {
        (v / 1e6, "M")
    } else {
        (v / 1e9, "G")
    };
    format!("{} {p}{unit}", sig3(x))
}

/// A ratio: `1.23×`.
pub fn ratio(v: f64) -> String {
    if v.is_finite() { format!("{}×", sig3(v)) } else { "–".to_string() }
}

/// A ratio near 1 to three decimals (e.g. `0.987×`), where a few per cent
/// decide a target.
pub fn ratio_near_1(v: f64) -> String {
    if v.is_finite() { format!("{v:.3}×") } else { "–".to_string() }
}

/// Three significant digits without an exponent.
pub fn sig3(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// Unix ns as UTC `2026-11-22 04:41:48`.
pub fn unix_ns(t: i64) -> String {
    match jiff::Timestamp::from_nanosecond(i128::from(t)) {
        Ok(ts) => ts.strftime("%Y-%m-%d %H:%M:%S UTC").to_string(),
        Err(_) => format!("{t} ns"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_sizes_and_rates_carry_units() {
        assert_eq!(ns(812.0), "812 ns");
        assert_eq!(ns(1234.0), "1.23 µs");
        assert_eq!(ns(45_600_000.0), "45.6 ms");
        assert_eq!(ns(2.5e9), "2.50 s");
        assert_eq!(ns(f64::NAN), "–");
        assert_eq!(ns(-133_459.0), "-133 µs");
        assert_eq!(bytes(1), "1 B");
        assert_eq!(bytes(4096), "4 KiB");
        assert_eq!(bytes(1536), "1.50 KiB");
        assert_eq!(bytes(64 << 20), "64 MiB");
        assert_eq!(rate(1.5e9, "B/s"), "1.50 GB/s");
        assert_eq!(rate(950.0, "msg/s"), "950 msg/s");
        assert_eq!(rate(123_456.0, "msg/s"), "123 kmsg/s");
        assert_eq!(ratio(1.234), "1.23×");
        assert_eq!(unix_ns(0), "1970-01-01 00:00:00 UTC");
    }
}
