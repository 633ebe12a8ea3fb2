//! TI `rpmsg_char_benchmark` `histogram.txt` (ti-rpmsg-char
//! examples/rpmsg_char_benchmark.c; research/embedded-ipc-anchors.md §3.3):
//! lines `<usec> , <count>` from 0 to the worst case, round trips binned in
//! whole µs (CLOCK_MONOTONIC). The file does not say the message length
//! (`-m`): `--size` gives it.
//!
//! Flagged: negative latencies (the tool subtracts `tv_nsec` only, which
//! goes negative across a second boundary) and 0 µs round trips (below the
//! tool's resolution: values were truncated to whole µs).

use icbench_model::Pattern;

use crate::{ImportError, Imported, Options, hist_cell, num};

pub const DEFAULT_LINK: &str = "rpmsg-char";

pub fn parse(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let size = opts.size_bytes.ok_or_else(|| {
        ImportError::Input(
            "histogram.txt does not say the message length: give --size (its -m value)".into(),
        )
    })?;
    let link = opts.link.clone().unwrap_or_else(|| DEFAULT_LINK.to_string());
    let mut imp = Imported::default();
    let mut buckets = Vec::new();
    let (mut negative, mut zero) = (0u64, 0u64);
    for (i, line) in text.lines().enumerate() {
        let no = i + 1;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let (us, count) = line.split_once(',').ok_or_else(|| ImportError::Line {
            line: no,
            msg: format!("'{}' is not '<usec> , <count>'", crate::quote(line.trim())),
        })?;
        let us: i64 = num(us, no, "usec")?;
        let count: u64 = num(count, no, "count")?;
        if count == 0 {
            continue;
        }
        if us < 0 {
            negative += count;
            continue;
        }
        if us == 0 {
            zero = zero.saturating_add(count);
        }
        // The middle of the 1 µs bin the tool truncated into.
        buckets.push(((us as u64).saturating_mul(1000).saturating_add(500), count));
    }
    // The tool writes whole lines; a last line without its newline was cut
    // in the middle (issue #22).
    if !text.is_empty() && !text.ends_with('\n') {
        imp.warnings.push(
            "the last line has no newline: the file is cut short, and the bins after it \
             (the tail) may be missing"
                .to_string(),
        );
    }
    if negative > 0 {
        imp.warnings.push(format!(
            "{negative} round trips with a negative latency cannot be true (the tool subtracts \
             tv_nsec only, which wraps at a second boundary): left out"
        ));
    }
    if zero > 0 {
        imp.warnings
            .push(format!("{zero} round trips in the 0 µs bin: below the tool's 1 µs resolution"));
    }
    if !buckets.is_empty() {
        imp.push(hist_cell(&link, Pattern::PingPong, size, &buckets)?)?;
    }
    imp.notes.push(
        "TI rpmsg_char_benchmark histogram: whole-µs bins, each value taken at its bin's middle \
         (±0.5 µs); the elapsed time is the sum of round trips, not a wall-clock window"
            .to_string(),
    );
    Ok(imp)
}
