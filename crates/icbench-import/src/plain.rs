//! Plain CSV with a header. Columns, by name:
//!
//! - `size_bytes` (required): message (or block) size;
//! - `time_ns` or `bytes_per_s` (one of them): a sample's time, or a rate;
//! - optional: `link`, `pattern` (pingpong or bulk, default pingpong),
//!   `channels`, `blocks`, `transfer_bytes` (bytes each channel moved, for
//!   a rate), `avg_ch_bytes_per_s` (a per-channel average printed beside a
//!   total, as in ADI's tables).
//!
//! Rows with a time are samples: rows of the same link, pattern and size
//! form one cell. Rows with a rate are cells of their own. Flagged: a total
//! that is not channels × the per-channel average (rates over different
//! windows added up), and a rate far above the others of its size.

use std::collections::HashMap;

use icbench_model::{MAX_TRACKABLE_NS, Pattern};

use crate::{ImportError, Imported, Options, num, rate_cell, sample_cell};

pub const DEFAULT_LINK: &str = "imported";

/// More channels than this on a row is flagged: icbench measures up to 32
/// (`icbench_plan`'s MAX_CHANNELS), ADI's tables go to 8; 4294967295 was
/// imported without a word (issue #30 item 12).
pub(crate) const PLAUSIBLE_CHANNELS: u32 = 1024;

/// A rate more than this many times the median of its peers is flagged.
pub const OUTLIER_FACTOR: f64 = 100.0;
/// The highest rate a CSV may state: 1 EB/s, the most a cell's byte count
/// can hold for its one-second window. Implausible rates below it (ADI's
/// published 25 TB/s) are imported as published and flagged by the rate
/// sanity warnings, not refused.
pub(crate) const MAX_RATE: f64 = 1e18;

/// (link, pattern, size_bytes, blocks) of a sample row.
type SampleKey = (String, Pattern, u64, Option<u32>);

/// One published rate: a row of a CSV or of a table (`rst.rs`).
pub(crate) struct RateRow {
    pub(crate) line: usize,
    pub(crate) link: String,
    pub(crate) size: u64,
    pub(crate) channels: u32,
    pub(crate) rate: f64,
    pub(crate) transfer: Option<u64>,
    /// The transfer as its table publishes it, stored as the cell's
    /// `transfer` factor so that a table's rows of one size and different
    /// transfers stay apart (`model --where transfer=…`, issue #31 item 4).
    pub(crate) transfer_factor: Option<u64>,
}

pub fn parse(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let mut rdr = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(text.as_bytes());
    let headers =
        rdr.headers().map_err(|e| ImportError::Input(format!("CSV header: {e}")))?.clone();
    let col = |name: &str| headers.iter().position(|h| h.eq_ignore_ascii_case(name));
    let size_col = col("size_bytes").ok_or_else(|| {
        ImportError::Input("CSV needs a size_bytes column (and time_ns or bytes_per_s)".into())
    })?;
    let (time_col, rate_col) = (col("time_ns"), col("bytes_per_s"));
    if time_col.is_none() && rate_col.is_none() {
        return Err(ImportError::Input("CSV needs a time_ns or a bytes_per_s column".into()));
    }
    let default_link = opts.link.clone().unwrap_or_else(|| DEFAULT_LINK.to_string());
    let mut imp = Imported::default();
    let mut samples: Vec<(SampleKey, Vec<u64>)> = Vec::new();
    // Where each key's samples are (a search of `samples` for every row
    // made a file of many sizes quadratic).
    let mut index: HashMap<SampleKey, usize> = HashMap::new();
    let mut rates: Vec<RateRow> = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let line = i + 2;
        let rec = rec.map_err(|e| ImportError::Line { line, msg: e.to_string() })?;
        let get = |c: Option<usize>| c.and_then(|c| rec.get(c)).filter(|s| !s.is_empty());
        let size: u64 = num(get(Some(size_col)).unwrap_or(""), line, "size_bytes")?;
        let link = get(col("link")).map_or(default_link.clone(), String::from);
        let pattern = match get(col("pattern")) {
            None | Some("pingpong") => Pattern::PingPong,
            Some("bulk") => Pattern::Bulk,
            Some(p) => {
                return Err(ImportError::Line {
                    line,
                    msg: format!("pattern '{}': use pingpong or bulk", crate::quote(p)),
                });
            }
        };
        let channels: u32 =
            get(col("channels")).map(|c| num(c, line, "channels")).transpose()?.unwrap_or(1);
        let blocks: Option<u32> = get(col("blocks")).map(|c| num(c, line, "blocks")).transpose()?;
        // The store keeps only counts of one or more; 0 came back as
        // SQLite's CHECK text (issue #30 item 12).
        for (what, n) in [("channels", Some(channels)), ("blocks", blocks)] {
            if n == Some(0) {
                return Err(ImportError::Line {
                    line,
                    msg: format!("{what} 0: a cell has at least 1 (leave the column empty for 1)"),
                });
            }
        }
        if channels > PLAUSIBLE_CHANNELS {
            imp.warnings.push(format!(
                "line {line}: {channels} channels: far more than any board's link has (icbench \
                 measures up to 32); imported as given"
            ));
        }
        if let Some(t) = get(time_col) {
            let t: f64 = num(t, line, "time_ns")?;
            // Whole nanoseconds, up to what a histogram holds: 1e-300 was
            // stored as a 0 ns round trip, inf and 9.3e18 failed late.
            if !(1.0..=MAX_TRACKABLE_NS as f64).contains(&t) {
                return Err(ImportError::Line {
                    line,
                    msg: format!(
                        "time_ns {t} is outside 1 ns … {} s (icbench keeps whole nanoseconds)",
                        MAX_TRACKABLE_NS / 1_000_000_000
                    ),
                });
            }
            let key = (link, pattern, size, blocks);
            match index.get(&key) {
                Some(&at) => samples[at].1.push(t.round() as u64),
                None => {
                    // Refused as the cell past the bound appears, before
                    // any histogram is made (crate::MAX_CELLS).
                    crate::check_cells(samples.len() + rates.len() + 1)
                        .map_err(|e| ImportError::Line { line, msg: e.to_string() })?;
                    index.insert(key.clone(), samples.len());
                    samples.push((key, vec![t.round() as u64]));
                }
            }
        } else if let Some(r) = get(rate_col) {
            let rate: f64 = num(r, line, "bytes_per_s")?;
            if rate <= 0.0 || !(..=MAX_RATE).contains(&rate) {
                return Err(ImportError::Line {
                    line,
                    msg: format!(
                        "bytes_per_s {rate} is outside 0 … {MAX_RATE:e} B/s (what a cell can hold)"
                    ),
                });
            }
            let transfer =
                get(col("transfer_bytes")).map(|c| num(c, line, "transfer_bytes")).transpose()?;
            let row = RateRow { line, link, size, channels, rate, transfer, transfer_factor: None };
            if let Some(avg) = get(col("avg_ch_bytes_per_s")) {
                check_average(&row, num(avg, line, "avg_ch_bytes_per_s")?, &mut imp.warnings);
            }
            crate::check_cells(samples.len() + rates.len() + 1)
                .map_err(|e| ImportError::Line { line, msg: e.to_string() })?;
            rates.push(row);
        }
    }
    for ((link, pattern, size, blocks), v) in samples {
        let per = size.saturating_mul(u64::from(blocks.unwrap_or(1)));
        imp.push(sample_cell(&link, pattern, size, &v, per, blocks))?;
    }
    if !rates.is_empty() {
        imp.notes.push(
            "rates from a CSV: one value per cell, no per-message times; where transfer_bytes is \
             missing the window is taken as 1 s"
                .to_string(),
        );
    }
    rate_cells(&rates, &mut imp)?;
    Ok(imp)
}

/// Flags a total that is not channels × the per-channel average printed
/// beside it (rates over different windows added up, as in ADI's tables).
pub(crate) fn check_average(r: &RateRow, avg: f64, warnings: &mut Vec<String>) {
    let (line, link, size, channels, rate) = (r.line, &r.link, r.size, r.channels, r.rate);
    let expect = avg * f64::from(channels);
    if (rate - expect).abs() > 0.05 * rate.max(expect) {
        warnings.push(format!(
            "line {line}: {link} {size} B × {channels} channels: the total {rate:.0} B/s \
             is not channels × the per-channel average ({channels} × {avg:.0} = \
             {expect:.0} B/s): the total adds rates measured over different time \
             windows, or one of them is broken"
        ));
    }
}

/// One cell per published rate, after flagging the implausible ones.
/// A rate that would take longer than the store's largest count of
/// nanoseconds (2⁶³ − 1: 292 years) to move its transfer is refused with
/// its line (found by the `import` fuzz target, issue #30).
pub(crate) fn rate_cells(rates: &[RateRow], imp: &mut Imported) -> Result<(), ImportError> {
    flag_rate_outliers(rates, &mut imp.warnings);
    for r in rates {
        // Bytes moved: per channel × channels, or one second's worth.
        let bytes =
            r.transfer.map_or(r.rate.round() as u64, |t| t.saturating_mul(u64::from(r.channels)));
        let elapsed = (bytes as f64 / r.rate * 1e9).round().max(1.0);
        if elapsed.is_nan() || elapsed >= i64::MAX as f64 {
            return Err(ImportError::Line {
                line: r.line,
                msg: format!(
                    "{} B/s would take more than 292 years to move {bytes} bytes: is the rate or \
                     the transfer wrong?",
                    r.rate
                ),
            });
        }
        let mut cell = rate_cell(&r.link, r.size, bytes, elapsed as u64, r.channels);
        if let Some(t) = r.transfer_factor {
            cell.key = cell.key.with("transfer", t);
        }
        imp.push(cell)?;
    }
    Ok(())
}

fn flag_rate_outliers(rows: &[RateRow], warnings: &mut Vec<String>) {
    let mut groups: HashMap<(&str, u64, u32), Vec<f64>> = HashMap::new();
    for r in rows {
        groups.entry((&r.link, r.size, r.channels)).or_default().push(r.rate);
    }
    for r in rows {
        let peers: Vec<f64> = groups[&(r.link.as_str(), r.size, r.channels)]
            .iter()
            .copied()
            .filter(|&x| x != r.rate)
            .collect();
        if peers.len() < 2 {
            continue;
        }
        let mut p = peers.clone();
        p.sort_by(f64::total_cmp);
        let median = p[p.len() / 2];
        if r.rate > OUTLIER_FACTOR * median {
            warnings.push(format!(
                "line {}: {} {} B × {} channels: {:.0} B/s is {:.0}× the median of the other rows \
                 of that size ({median:.0} B/s): not a plausible measurement",
                r.line,
                r.link,
                r.size,
                r.channels,
                r.rate,
                r.rate / median
            ));
        }
    }
}
