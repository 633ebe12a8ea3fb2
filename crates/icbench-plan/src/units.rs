//! Message sizes on the command line: `64`, `4K`, `64KiB`, lists (`1,64,4K`)
//! and log2 sweeps (`1-64K`: 1, 2, 4 … 65536).

/// The largest message size icbench accepts: shared buffers (`sdb:`) are
/// measured to tens of MiB (issue 17: 32 MiB); a link whose messages are
/// smaller fails such a cell itself, saying its bound.
pub const MAX_SIZE: u64 = 64 << 20;

/// Why `unit` (what follows the number in `s`) is not one of `allowed`:
/// an exponent (`1e30s`) is said as such, not as a unit `e30s`.
fn unknown_unit(s: &str, unit: &str, allowed: &str) -> String {
    let mut rest = unit.chars();
    let exponent = matches!(rest.next(), Some('e' | 'E'))
        && rest.next().is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+');
    if exponent {
        format!(
            "'{}': exponents are not read: write the number out, with a unit ({allowed})",
            s.trim()
        )
    } else {
        format!("'{}' has an unknown unit: use {allowed}", s.trim())
    }
}

/// One size (`64`, `4K`, `1MiB`), 1 B … 64 MiB.
pub fn parse_one(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num.parse().map_err(|_| format!("'{s}' is not a size"))?;
    let mult = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" | "kb" => 1 << 10,
        "m" | "mib" | "mb" => 1 << 20,
        _ => return Err(unknown_unit(s, unit, "B, K or M (binary)")),
    };
    let v = n.checked_mul(mult).ok_or_else(|| format!("'{s}' is too large"))?;
    if v == 0 {
        return Err("size 0 is not allowed: a message carries at least 1 byte".to_string());
    }
    if v > MAX_SIZE {
        return Err(format!(
            "size {s} ({v} B) is above the largest allowed, {MAX_SIZE} B (64 MiB)"
        ));
    }
    Ok(v)
}

/// Parses a size list; sorted, without duplicates.
pub fn parse(s: &str) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    if !s.trim().is_empty() && s.split(',').any(|p| p.trim().is_empty()) {
        return Err(format!("'{s}' has an empty size between commas: e.g. --sizes 64,4K"));
    }
    for part in s.split(',').filter(|p| !p.trim().is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (mut a, b) = (parse_one(a)?, parse_one(b)?);
                if a > b {
                    return Err(format!("size range '{part}' runs backwards"));
                }
                while a <= b {
                    out.push(a);
                    a *= 2;
                }
            }
            None => out.push(parse_one(part)?),
        }
    }
    if out.is_empty() {
        return Err("no sizes given: e.g. --sizes 64,4K or --sizes 1-64K".to_string());
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// An amount of bytes (a transfer): `10000000`, `64K`, `10M`, `1G` (binary
/// units), 1 B up to `max`.
pub fn parse_amount(s: &str, max: u64) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().map_err(|_| format!("'{s}' is not an amount of bytes"))?;
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" | "kb" => 1 << 10,
        "m" | "mib" | "mb" => 1 << 20,
        "g" | "gib" | "gb" => 1 << 30,
        _ => return Err(unknown_unit(s, unit, "B, K, M or G (binary)")),
    };
    match n.checked_mul(mult) {
        Some(v @ 1..) if v <= max => Ok(v),
        Some(0) => Err("an amount of 0 bytes moves nothing".to_string()),
        _ => Err(format!("'{s}' is above the largest allowed, {max} B")),
    }
}

/// The longest duration any option or plan takes: a week. Far past any
/// cell, timeout or budget, and short enough that no deadline computed from
/// it (`Instant + d`, `d × 2`) can overflow — past `u64::MAX` seconds
/// `Duration::from_secs_f64` panicked (issue #22).
pub const MAX_DURATION: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// Parses a duration: `5s`, `100ms`, `250us`, `1.5s`, from above zero to
/// [`MAX_DURATION`].
pub fn duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 =
        num.parse().map_err(|_| format!("'{s}' is not a duration: write e.g. 5s or 100ms"))?;
    let secs = match unit {
        "s" | "" => v,
        "ms" => v / 1e3,
        "us" | "µs" => v / 1e6,
        "m" | "min" => v * 60.0,
        "h" => v * 3600.0,
        _ => return Err(unknown_unit(s, unit, "h, min, s, ms or us")),
    };
    if secs.is_nan() || secs > MAX_DURATION.as_secs_f64() {
        return Err(format!("duration '{s}' is longer than the longest allowed, 7 days"));
    }
    if secs <= 0.0 {
        return Err(format!("duration '{s}' must be above zero"));
    }
    // Above zero, yet under a nanosecond: `.0004µs` became a zero duration
    // (found by the `units` fuzz target, issue #30).
    let d = std::time::Duration::from_secs_f64(secs);
    if d.is_zero() {
        return Err(format!("duration '{s}' is shorter than a nanosecond"));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exponent_is_said_as_one() {
        assert!(duration("1e30s").unwrap_err().contains("exponents are not read"));
        assert!(parse_one("1e308").unwrap_err().contains("exponents are not read"));
        assert!(parse_amount("1E+3", 1 << 30).unwrap_err().contains("exponents are not read"));
        assert!(duration("5es").unwrap_err().contains("unknown unit: use h, min"));
        assert!(duration(".0004µs").unwrap_err().contains("shorter than a nanosecond"));
    }

    #[test]
    fn amounts() {
        assert_eq!(parse_amount("10000000", 1 << 30), Ok(10_000_000));
        assert_eq!(parse_amount("10M", 1 << 30), Ok(10 << 20));
        assert!(parse_amount("0", 1 << 30).unwrap_err().contains("0 bytes"));
        assert!(parse_amount("2G", 1 << 30).unwrap_err().contains("largest"));
        assert!(parse_amount("5T", 1 << 30).unwrap_err().contains("unit"));
    }

    #[test]
    fn lists_units_and_sweeps() {
        assert_eq!(parse("64").unwrap(), vec![64]);
        assert_eq!(parse("4K,1,64KiB,1").unwrap(), vec![1, 4096, 65536]);
        assert_eq!(parse("1-16").unwrap(), vec![1, 2, 4, 8, 16]);
        assert_eq!(parse("1-64K").unwrap().len(), 17);
    }

    #[test]
    fn bad_sizes_say_what_is_allowed() {
        assert!(parse("0").unwrap_err().contains("size 0 is not allowed"));
        assert!(parse("65M").unwrap_err().contains("above the largest allowed"));
        assert_eq!(parse("32M").unwrap(), vec![32 << 20]);
        assert!(parse("12Q").unwrap_err().contains("unknown unit"));
        assert!(parse("64-1").unwrap_err().contains("backwards"));
        assert!(parse("x").is_err());
        assert!(parse("64,,4K").unwrap_err().contains("empty size"));
        assert!(parse("64,").unwrap_err().contains("empty size"));
    }

    #[test]
    fn durations() {
        assert_eq!(duration("5s").unwrap().as_millis(), 5000);
        assert_eq!(duration("100ms").unwrap().as_millis(), 100);
        assert_eq!(duration("1.5s").unwrap().as_millis(), 1500);
        assert!(duration("0s").is_err());
        assert!(duration("fast").is_err());
        assert_eq!(duration("168h"), Ok(MAX_DURATION));
        let inf = format!("1{}s", "0".repeat(400));
        for huge in ["99999999999999999999h", "18446744073709551615s", &inf, "169h"] {
            assert!(duration(huge).unwrap_err().contains("longest allowed"), "{huge}");
        }
    }

    proptest::proptest! {
        /// Whatever the text, a duration is refused with a message or lies
        /// in (0, MAX_DURATION]; never a panic.
        #[test]
        fn any_text_is_a_bounded_duration_or_an_error(s in "\\PC{0,24}|[0-9.]{1,30}(h|min|s|ms|us)?") {
            if let Ok(d) = duration(&s) {
                proptest::prop_assert!(d > std::time::Duration::ZERO && d <= MAX_DURATION);
            }
        }
    }
}
