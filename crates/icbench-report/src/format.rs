//! Numbers with their units, for people: `812 ns`, `1.23 µs`, `4 KiB`,
//! `1.23 GB/s`. Rates use decimal prefixes (as network and bus bandwidths are
//! quoted); message sizes use binary ones (as buffers are sized).

/// A duration in ns, with three significant digits.
pub fn ns(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    scaled(v, &[(1.0, "ns"), (1e3, "µs"), (1e6, "ms"), (1e9, "s")], "")
}

/// A duration in ns shown no finer than the timing's resolution (ns): a
/// 121 ns round trip on a clock whose readings step by 10 ns reads
/// `120 ns` (issue #15 item 4). Without a known resolution, or one of
/// 1 ns or finer, as [`ns`].
pub fn ns_at(v: f64, resolution_ns: Option<f64>) -> String {
    match resolution_ns {
        Some(r) if r > 1.0 && v.is_finite() => ns((v / r).round() * r),
        _ => ns(v),
    }
}

/// A relative half-width `rel` of a figure `center`, as `±x %`, but never
/// narrower than the timing's resolution allows: below it, the
/// resolution's share of the figure marked `(clock)` — a CI of "±0.00 %"
/// on round trips that sit on a 10 ns grid says nothing (issue #15).
pub fn rel_at(rel: f64, center: f64, resolution_ns: Option<f64>) -> String {
    match resolution_ns {
        Some(r) if r > 1.0 && center > 0.0 && rel * center < r => {
            format!("±{} % (clock)", sig3(r / center * 100.0))
        }
        _ => format!("±{} %", sig3(rel * 100.0)),
    }
}

/// `v` in the largest of `units` (scale, prefix) that leaves at least 1,
/// with three significant digits and `suffix`. The unit is chosen after
/// rounding, so 999.7 ns reads `1.00 µs`, not `1000 ns`.
fn scaled(v: f64, units: &[(f64, &str)], suffix: &str) -> String {
    let a = v.abs();
    let mut i = units.iter().rposition(|&(k, _)| a >= k).unwrap_or(0);
    let mut text = sig3(v / units[i].0);
    if i + 1 < units.len() && text.trim_start_matches('-').parse::<f64>().unwrap_or(0.0) >= 1000.0 {
        i += 1;
        text = sig3(v / units[i].0);
    }
    format!("{text} {}{suffix}", units[i].1)
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
    scaled(v, &[(1.0, ""), (1e3, "k"), (1e6, "M"), (1e9, "G")], unit)
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

/// Three significant digits without an exponent (two decimals below 1).
/// The decimals are chosen after rounding: 99.97 reads `100`, not `100.0`.
pub fn sig3(x: f64) -> String {
    let mut text = format!("{x:.2}");
    for decimals in [1, 0] {
        if text.trim_start_matches('-').parse::<f64>().unwrap_or(0.0) < 10f64.powi(2 - decimals) {
            break;
        }
        text = format!("{x:.*}", decimals as usize);
    }
    text
}

/// The decimals that give `x` `digits` significant digits (none for
/// integers that already have them).
pub fn sig_decimals(x: f64, digits: i32) -> usize {
    if x == 0.0 || !x.is_finite() {
        return (digits - 1).max(0) as usize;
    }
    (digits - 1 - x.abs().log10().floor() as i32).max(0) as usize
}

/// Unix ns as UTC `2026-11-22 04:41:48`.
pub fn unix_ns(t: i64) -> String {
    match jiff::Timestamp::from_nanosecond(i128::from(t)) {
        Ok(ts) => ts.strftime("%Y-%m-%d %H:%M:%S UTC").to_string(),
        Err(_) => format!("{t} ns"),
    }
}

/// A user's text (a label, a note) as a terminal may show it: stored as
/// given, its control characters written as escapes (`\n`, `\u{1b}`)
/// so that a newline or an escape sequence cannot redraw the screen.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// Splits `text` into lines of at most `width` characters at spaces (a
/// word longer than `width` gets a line of its own). Never empty.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("never empty");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// `text` wrapped to `width` with every line after the first indented by
/// `indent` spaces — a label's value in a column, or a paragraph of notes
/// (the first line's own prefix is the caller's). The text's lines are at
/// least 20 characters wide whatever the indent.
pub fn hanging(text: &str, indent: usize, width: usize) -> String {
    wrap(text, width.saturating_sub(indent).max(20)).join(&format!("\n{:indent$}", ""))
}

/// A p-value as every table and report prints it: three decimals, `<0.001`
/// below (issue #18: the report printed `0.000` where the CLI said
/// `<0.001`), `–` when there was no test.
pub fn p_value(p: Option<f64>) -> String {
    match p {
        None => "–".into(),
        Some(p) if p < 0.001 => "<0.001".into(),
        Some(p) => format!("{p:.3}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hanging_paragraph_keeps_its_column() {
        // 30 characters of text a line, the rest under the tenth column.
        let t = hanging("bare loop 52.7 µs, icbench 53.2 µs (p50; 10000 round trips)", 10, 40);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines,
            [
                "bare loop 52.7 µs, icbench",
                "          53.2 µs (p50; 10000 round",
                "          trips)"
            ]
        );
        // Never narrower than 20 for the text.
        assert_eq!(hanging("a b", 90, 40), "a b");
    }

    /// #18 "Bad input": a label is stored as given and shown escaped.
    #[test]
    fn control_characters_of_a_users_text_are_shown_as_escapes() {
        assert_eq!(printable("base <b>|x</b> ü"), "base <b>|x</b> ü");
        assert_eq!(printable("a\nb\u{1b}[31mred"), "a\\nb\\u{1b}[31mred");
    }

    #[test]
    fn figures_are_shown_no_finer_than_their_resolution() {
        // Round trips on a 10 ns clock: 121 ns reads 120 ns.
        assert_eq!(ns_at(121.0, Some(10.0)), "120 ns");
        assert_eq!(ns_at(126.0, Some(10.0)), "130 ns");
        // A batch of 8 on that clock resolves 1.25 ns: 3 digits stand.
        assert_eq!(ns_at(121.4, Some(1.25)), "121 ns");
        assert_eq!(ns_at(1234.0, Some(10.0)), "1.23 µs");
        assert_eq!(ns_at(121.0, Some(1.0)), "121 ns");
        assert_eq!(ns_at(121.0, None), "121 ns");
        // An interval narrower than one clock step says so.
        assert_eq!(rel_at(0.0, 130.0, Some(10.0)), "±7.69 % (clock)");
        assert_eq!(rel_at(0.05, 130.0, Some(10.0)), "±7.69 % (clock)");
        assert_eq!(rel_at(0.1, 130.0, Some(10.0)), "±10.0 %");
        assert_eq!(rel_at(0.0, 130.0, Some(1.0)), "±0.00 %");
        assert_eq!(rel_at(0.0123, 130.0, None), "±1.23 %");
    }

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

    #[test]
    fn rounding_up_never_gives_a_fourth_digit() {
        assert_eq!(sig3(99.97), "100");
        assert_eq!(sig3(9.997), "10.0");
        assert_eq!(sig3(-99.97), "-100");
        assert_eq!(sig3(99.94), "99.9");
        assert_eq!(sig3(0.004), "0.00");
        assert_eq!(rate(99_970.0, "B/s"), "100 kB/s");
        assert_eq!(rate(99_970_000.0, "B/s"), "100 MB/s");
        assert_eq!(rate(999_700.0, "B/s"), "1.00 MB/s");
        assert_eq!(ns(999.7), "1.00 µs");
        assert_eq!(ns(999_600.0), "1.00 ms");
        assert_eq!(ns(-999.7), "-1.00 µs");
        assert_eq!(ns(0.0), "0.00 ns");
        assert_eq!(sig_decimals(8837.6, 4), 0);
        assert_eq!(sig_decimals(0.012345, 4), 5);
        assert_eq!(sig_decimals(1.5, 4), 3);
    }

    #[test]
    fn p_values_read_the_same_everywhere() {
        assert_eq!(p_value(Some(0.0004)), "<0.001");
        assert_eq!(p_value(Some(0.001)), "0.001");
        assert_eq!(p_value(Some(0.25)), "0.250");
        assert_eq!(p_value(None), "–");
    }
}
