//! The histogram in rt-tests' text format — cyclictest's `-h`/`--histfile`
//! output (rt-tests 2.x, `print_hist` and `src/lib/histogram.c`) — written
//! from icbench's cells and read back.
//!
//! Layout, as cyclictest 2.40 prints it (one column per thread; here one
//! per timer CPU or wake-up primitive; 1 bucket = 1 µs, latencies
//! truncated to whole µs as cyclictest's `calcdiff` does):
//!
//! ```text
//! # Histogram
//! 000000 000000<TAB>000000
//! 000001 000012<TAB>000003
//! …
//! # Total: 000000395 000000448
//! # Min Latencies: 00020 00019
//! # Avg Latencies: 00038 00036
//! # Max Latencies: 00157 00096
//! # Histogram Overflows: 00105 00052
//! # Histogram Overflow at cycle number:
//! # Thread 0: 00008 00009 … # 00055 others
//! # Thread 1: …
//! ```
//!
//! `Total` counts the samples inside the histogram; overflows are those of
//! `buckets` µs or more. With raw samples the buckets and the overflow
//! cycle numbers are exact. From the HDR histogram alone each HDR bucket
//! goes to the µs bucket of its lowest value: exact below 16.384 µs (HDR
//! buckets there are 1–8 ns wide and 1000 ns is a multiple of 8), and
//! beyond it a bucket straddling a µs boundary (at most 1/1024 of its value
//! wide) is counted in the lower µs; the overflow cycle numbers are then
//! unknown and left out.

use std::fmt::Write as _;

use icbench_model::{CellData, LatencyHistogram};

/// How many overflow cycle numbers a thread line lists (cyclictest's
/// default `--spike-nodes`-independent overflow log, as observed: 50).
pub const OVERFLOW_LOG: usize = 50;

/// One column: a measured cell's samples in whole µs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistColumn {
    /// Count per µs bucket, `0..buckets`.
    pub counts: Vec<u64>,
    /// Samples of `buckets` µs or more.
    pub overflows: u64,
    /// Cycle numbers (0-based sample index) of the first overflows, when
    /// known (raw samples kept).
    pub overflow_cycles: Option<Vec<u64>>,
    pub min_us: u64,
    pub avg_us: u64,
    pub max_us: u64,
}

impl HistColumn {
    /// Buckets a measured cell: from its raw samples when kept, else from
    /// its HDR histogram. `None` without any latency data.
    pub fn from_cell(d: &CellData, buckets: usize) -> Option<HistColumn> {
        match (&d.raw_ns, &d.latency) {
            (Some(raw), _) if !raw.is_empty() => Some(HistColumn::from_raw(raw, buckets)),
            (_, Some(h)) if !h.is_empty() => Some(HistColumn::from_hdr(h, buckets)),
            _ => None,
        }
    }

    pub fn from_raw(raw_ns: &[u64], buckets: usize) -> HistColumn {
        let mut c = HistColumn::empty(buckets);
        let mut cycles = Vec::new();
        let mut sum = 0u128;
        for (i, &ns) in raw_ns.iter().enumerate() {
            let us = ns / 1000;
            sum += u128::from(us);
            if (us as usize) < buckets {
                c.counts[us as usize] += 1;
            } else {
                c.overflows += 1;
                cycles.push(i as u64);
            }
        }
        c.min_us = raw_ns.iter().min().map_or(0, |v| v / 1000);
        c.max_us = raw_ns.iter().max().map_or(0, |v| v / 1000);
        c.avg_us = (sum / raw_ns.len().max(1) as u128) as u64;
        c.overflow_cycles = Some(cycles);
        c
    }

    pub fn from_hdr(h: &LatencyHistogram, buckets: usize) -> HistColumn {
        let mut c = HistColumn::empty(buckets);
        let inner = h.inner();
        let mut sum = 0u128;
        for it in inner.iter_recorded() {
            let us = inner.lowest_equivalent(it.value_iterated_to()) / 1000;
            let n = it.count_at_value();
            sum += u128::from(us) * u128::from(n);
            if (us as usize) < buckets {
                c.counts[us as usize] += n;
            } else {
                c.overflows += n;
            }
        }
        c.min_us = h.min_ns() / 1000;
        c.max_us = inner.lowest_equivalent(h.max_ns()) / 1000;
        c.avg_us = (sum / u128::from(h.len().max(1))) as u64;
        c
    }

    fn empty(buckets: usize) -> HistColumn {
        HistColumn {
            counts: vec![0; buckets],
            overflows: 0,
            overflow_cycles: None,
            min_us: 0,
            avg_us: 0,
            max_us: 0,
        }
    }
}

fn row(out: &mut String, label: &str, cols: &[HistColumn], f: impl Fn(&HistColumn) -> String) {
    let v: Vec<String> = cols.iter().map(f).collect();
    let _ = writeln!(out, "# {label}: {}", v.join(" "));
}

/// The histogram text of `cols` (all of the same bucket count).
pub fn render(cols: &[HistColumn]) -> String {
    let buckets = cols.first().map_or(0, |c| c.counts.len());
    let mut out = String::from("# Histogram\n");
    for b in 0..buckets {
        let _ = write!(out, "{b:06}");
        for (i, c) in cols.iter().enumerate() {
            let _ = write!(out, "{}{:06}", if i == 0 { ' ' } else { '\t' }, c.counts[b]);
        }
        out.push('\n');
    }
    row(&mut out, "Total", cols, |c| format!("{:09}", c.counts.iter().sum::<u64>()));
    row(&mut out, "Min Latencies", cols, |c| format!("{:05}", c.min_us));
    row(&mut out, "Avg Latencies", cols, |c| format!("{:05}", c.avg_us));
    row(&mut out, "Max Latencies", cols, |c| format!("{:05}", c.max_us));
    row(&mut out, "Histogram Overflows", cols, |c| format!("{:05}", c.overflows));
    out.push_str("# Histogram Overflow at cycle number:\n");
    for (i, c) in cols.iter().enumerate() {
        let _ = write!(out, "# Thread {i}:");
        if let Some(cycles) = &c.overflow_cycles {
            for n in cycles.iter().take(OVERFLOW_LOG) {
                let _ = write!(out, " {n:05}");
            }
            if cycles.len() > OVERFLOW_LOG {
                let _ = write!(out, " # {:05} others", cycles.len() - OVERFLOW_LOG);
            }
        }
        out.push('\n');
    }
    // cyclictest ends the block with an empty line.
    out.push('\n');
    out
}

/// A histogram text read back: the columns' buckets and trailer values.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedHist {
    /// `(bucket µs, count per column)` for every bucket line.
    pub rows: Vec<(u64, Vec<u64>)>,
    pub total: Vec<u64>,
    pub min_us: Vec<u64>,
    pub avg_us: Vec<u64>,
    pub max_us: Vec<u64>,
    pub overflows: Vec<u64>,
    /// Overflow cycle numbers listed per thread (without the "others").
    pub overflow_cycles: Vec<Vec<u64>>,
}

/// Reads cyclictest's (or icbench's) histogram text. Lines it does not
/// know (`# /dev/cpu_dma_latency …`, `# SMIs`) are skipped.
pub fn parse(text: &str) -> Result<ParsedHist, String> {
    let mut p = ParsedHist::default();
    let nums = |s: &str| -> Result<Vec<u64>, String> {
        s.split_whitespace()
            .map(|v| v.parse::<u64>().map_err(|_| format!("'{v}' is not a count")))
            .collect()
    };
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if let Some(rest) = line.strip_prefix("# ") {
            let Some((label, values)) = rest.split_once(':') else { continue };
            match label {
                "Total" => p.total = nums(values)?,
                "Min Latencies" => p.min_us = nums(values)?,
                "Avg Latencies" => p.avg_us = nums(values)?,
                "Max Latencies" => p.max_us = nums(values)?,
                "Histogram Overflows" => p.overflows = nums(values)?,
                l if l.starts_with("Thread ") => {
                    let listed = values.split('#').next().unwrap_or("");
                    p.overflow_cycles.push(nums(listed)?);
                }
                _ => {}
            }
        } else if !line.is_empty() && !line.starts_with('#') {
            let mut v = nums(line).map_err(|e| format!("line {}: {e}", i + 1))?;
            if v.len() < 2 {
                return Err(format!("line {}: a bucket and at least one count", i + 1));
            }
            let b = v.remove(0);
            p.rows.push((b, v));
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CYCLICTEST: &str = include_str!("../../../testdata/rt/cyclictest-2.40-h50.txt");

    #[test]
    fn reads_a_histogram_written_by_cyclictest() {
        let p = parse(CYCLICTEST).unwrap();
        assert_eq!(p.rows.len(), 50);
        assert_eq!(p.rows[0], (0, vec![0, 0]));
        assert_eq!(p.total, vec![395, 448]);
        assert_eq!(p.min_us, vec![20, 19]);
        assert_eq!(p.max_us, vec![157, 96]);
        assert_eq!(p.overflows, vec![105, 52]);
        assert_eq!(p.overflow_cycles.len(), 2);
        assert_eq!(p.overflow_cycles[0].len(), 50);
        // Totals are the sums of the bucket lines.
        for t in 0..2 {
            assert_eq!(p.rows.iter().map(|r| r.1[t]).sum::<u64>(), p.total[t]);
        }
    }

    /// Re-rendering what cyclictest wrote gives cyclictest's text back, byte
    /// for byte (but for the "others" count, which the parse keeps aside).
    #[test]
    fn renders_cyclictests_layout_byte_for_byte() {
        let p = parse(CYCLICTEST).unwrap();
        let cols: Vec<HistColumn> = (0..2)
            .map(|t| HistColumn {
                counts: p.rows.iter().map(|r| r.1[t]).collect(),
                overflows: p.overflows[t],
                overflow_cycles: None,
                min_us: p.min_us[t],
                avg_us: p.avg_us[t],
                max_us: p.max_us[t],
            })
            .collect();
        let text = render(&cols);
        let strip = |s: &str| -> Vec<String> {
            s.lines().filter(|l| !l.starts_with("# Thread")).map(str::to_string).collect()
        };
        assert_eq!(strip(&text), strip(CYCLICTEST));
    }

    #[test]
    fn raw_samples_round_trip_through_the_text() {
        let raw: Vec<u64> = (0..1000u64).map(|i| 1_500 + (i * 7919) % 60_000).collect();
        let col = HistColumn::from_raw(&raw, 40);
        let text = render(std::slice::from_ref(&col));
        let p = parse(&text).unwrap();
        assert_eq!(p.rows.iter().map(|r| r.1[0]).collect::<Vec<_>>(), col.counts);
        assert_eq!(p.total[0] + p.overflows[0], 1000);
        assert_eq!(p.min_us, vec![1]);
        assert_eq!(p.max_us, vec![raw.iter().max().unwrap() / 1000]);
        assert_eq!(p.overflow_cycles[0], col.overflow_cycles.unwrap()[..50].to_vec());
        // Overflows are the samples of 40 µs or more, with their cycles.
        assert_eq!(p.overflows[0], raw.iter().filter(|&&v| v >= 40_000).count() as u64);
    }

    #[test]
    fn the_hdr_histogram_buckets_exactly_below_16_us() {
        let raw: Vec<u64> = (0..5000u64).map(|i| 1 + (i * 104_729) % 16_000).collect();
        let mut h = LatencyHistogram::new();
        raw.iter().for_each(|&v| h.record(v));
        let exact = HistColumn::from_raw(&raw, 20);
        let from_hdr = HistColumn::from_hdr(&h, 20);
        assert_eq!(from_hdr.counts, exact.counts);
        assert_eq!(from_hdr.min_us, exact.min_us);
        assert_eq!(from_hdr.max_us, exact.max_us);
    }
}
