//! Issue #30's property: any run that `import` accepts, every renderer
//! (`show`'s tables, `--json`, `export`, `model`, the HTML report) shows
//! within a bounded time — over the import formats' value ranges, from the
//! smallest to past what a column holds.

use std::time::{Duration, Instant};

use proptest::prelude::*;

/// What one import and its renderers may take, debug build.
const BOUND: Duration = Duration::from_secs(20);

fn shown_in_time(input: Vec<u8>) {
    // Generated within the formats' ranges: each is accepted, so each goes
    // the whole way.
    let format = icbench_import::Format::ALL[usize::from(input[0])];
    let text = String::from_utf8_lossy(&input[1..]);
    let parsed = icbench_import::parse(format, &text, &Default::default());
    assert!(parsed.is_ok(), "{:?} refused: {text}", parsed.err());
    let t0 = Instant::now();
    icbench_fuzzing::import_show(&input);
    assert!(t0.elapsed() < BOUND, "took {:?}", t0.elapsed());
}

/// Format bytes as `import`'s first byte picks them (Format::ALL's order).
const CSV: u8 = 8;
const CYCLICTEST_HIST: u8 = 7;

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// CSV samples and rates: sizes 1 B … 2⁶⁰, times 1 ns … 100 s (what a
    /// histogram keeps), rates up to 10¹⁸ B/s, 1 … 2³² − 1 channels, one to
    /// four links.
    #[test]
    fn csv_runs_of_any_range_are_shown(
        rows in prop::collection::vec(
            (0usize..4, 1u64..(1 << 60), 1u64..=100_000_000_000, 1u32..u32::MAX, any::<bool>()),
            1..40,
        )
    ) {
        let mut text = String::from("link,size_bytes,time_ns,bytes_per_s,channels\n");
        for (link, size, v, channels, rate) in rows {
            if rate {
                text += &format!("l{link},{size},,{},{channels}\n", v.saturating_mul(10_000_000));
            } else {
                text += &format!("l{link},{size},{v},,\n");
            }
        }
        let mut input = vec![CSV];
        input.extend_from_slice(text.as_bytes());
        shown_in_time(input);
    }

    /// cyclictest histograms: buckets 0 … 10⁹ µs, counts up to 2⁵⁷ (30 of
    /// them stay under the 2⁶³ − 1 a histogram holds; past it the file is
    /// refused, as icbench-import's
    /// `cyclictest_json_and_text_agree_and_flag_overflows` checks).
    #[test]
    fn cyclictest_histograms_of_any_range_are_shown(
        buckets in prop::collection::vec((0u64..1_000_000_000, 0u64..(1 << 57)), 1..30)
    ) {
        let mut text = String::from("# Histogram\n");
        for (us, count) in buckets {
            text += &format!("{us:06} {count:06}\n");
        }
        let mut input = vec![CYCLICTEST_HIST];
        input.extend_from_slice(text.as_bytes());
        shown_in_time(input);
    }
}
