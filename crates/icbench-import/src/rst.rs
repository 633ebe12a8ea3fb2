//! ADI's RPMsg benchmark page as published (shared/references 003): a
//! reStructuredText page whose sections "1 Channel", "8 Channels" and "32
//! Channels" each hold a `list-table` with a header row — PACKET SIZE,
//! TRANSFER SIZE, "Single CH speed" (the total over the channels, B/s, as
//! rpmsg-xmit-p's "Total … transfer per sec" line prints it) and, with more
//! than one channel, "Average CH Speed" (per channel). A row whose PACKET
//! SIZE cell is empty repeats the size above it.
//!
//! Every row becomes a rate cell as a CSV row does (`plain.rs`), with the
//! same warnings: a total that is not channels × the average, and a rate
//! far above the others of its size (the page's 25052788426826 B/s).

use crate::plain::{MAX_RATE, RateRow, check_average, rate_cells};
use crate::{ImportError, Imported, Options, num};

pub const DEFAULT_LINK: &str = crate::xmitp::DEFAULT_LINK;

/// A table's rows of cells, each with the line its `* -` is on.
struct Table {
    header: Vec<String>,
    rows: Vec<(usize, Vec<String>)>,
}

/// The channel count a section heading names ("8 Channels"), if any.
fn channels_of(heading: &str) -> Option<u32> {
    let mut words = heading.split_whitespace();
    let n = words.next()?.parse().ok()?;
    words.next().filter(|w| w.to_ascii_lowercase().starts_with("channel")).map(|_| n)
}

/// Whether `line` underlines `title` (RST section adornment).
fn underlines(line: &str, title: &str) -> bool {
    let t = line.trim_end();
    !t.is_empty()
        && t.len() >= title.trim().chars().count()
        && t.chars().all(|c| c == t.chars().next().unwrap_or(' '))
        && t.chars().all(|c| "=-~^\"'`#*+.:_".contains(c))
}

/// Reads the list-table starting after its directive line `at` (0-based);
/// returns it and the index of the first line after it.
fn list_table(lines: &[&str], at: usize) -> Result<(Table, usize), ImportError> {
    let mut header_rows = 0usize;
    let mut i = at + 1;
    let mut rows: Vec<(usize, Vec<String>)> = Vec::new();
    while i < lines.len() {
        let l = lines[i];
        let t = l.trim();
        if let Some(v) = t.strip_prefix(":header-rows:") {
            header_rows = num(v.trim(), i + 1, "header-rows")?;
        } else if t.starts_with(':') || t.is_empty() {
            // another option, or a blank line
        } else if !l.starts_with(' ') {
            break; // the table ended
        } else if let Some(first) = t.strip_prefix("* -").or_else(|| (t == "*").then_some("")) {
            rows.push((i + 1, vec![first.trim().to_string()]));
        } else if let Some(cell) = t.strip_prefix('-').or_else(|| (t == "-").then_some("")) {
            let (_, row) = rows.last_mut().ok_or_else(|| ImportError::Line {
                line: i + 1,
                msg: "a list-table cell before any row".into(),
            })?;
            row.push(cell.trim().to_string());
        } else {
            return Err(ImportError::Line {
                line: i + 1,
                msg: format!("'{}' is not a list-table row or cell", crate::quote(t)),
            });
        }
        i += 1;
    }
    if header_rows != 1 || rows.is_empty() {
        return Err(ImportError::Line {
            line: at + 1,
            msg: format!("a list-table with {header_rows} header rows: ADI's tables have one"),
        });
    }
    let header = rows.remove(0).1;
    Ok((Table { header, rows }, i))
}

/// Where each column the import needs sits in the header.
struct Columns {
    size: usize,
    transfer: usize,
    total: usize,
    average: Option<usize>,
}

fn columns(t: &Table, line: usize) -> Result<Columns, ImportError> {
    let find = |want: &str| t.header.iter().position(|h| h.eq_ignore_ascii_case(want));
    let need = |want: &str| {
        find(want).ok_or_else(|| ImportError::Line {
            line,
            msg: format!("the table has no '{want}' column (header: {})", t.header.join(", ")),
        })
    };
    Ok(Columns {
        size: need("PACKET SIZE")?,
        transfer: need("TRANSFER SIZE")?,
        total: need("Single CH speed")?,
        average: find("Average CH Speed"),
    })
}

/// The rows of one table as rates, the empty size cells filled from above.
fn rows(
    t: &Table,
    c: &Columns,
    channels: u32,
    link: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<RateRow>, ImportError> {
    let mut out = Vec::new();
    let mut size: Option<u64> = None;
    for (line, cells) in &t.rows {
        let line = *line;
        let cell = |k: usize| cells.get(k).map(String::as_str).unwrap_or("");
        if !cell(c.size).is_empty() {
            size = Some(num(cell(c.size), line, "PACKET SIZE")?);
        }
        let size = size.ok_or_else(|| ImportError::Line {
            line,
            msg: "the first row has no PACKET SIZE to repeat".into(),
        })?;
        let rate: f64 = num(cell(c.total), line, "Single CH speed")?;
        let transfer: u64 = num(cell(c.transfer), line, "TRANSFER SIZE")?;
        if !(rate > 0.0 && rate <= MAX_RATE) {
            return Err(ImportError::Line {
                line,
                msg: format!("a speed of {rate} B/s is outside 0 … {MAX_RATE:e}"),
            });
        }
        let row = RateRow {
            line,
            link: link.to_string(),
            size,
            channels,
            rate,
            transfer: Some(packets_of(transfer, size).saturating_mul(size)),
            transfer_factor: Some(transfer),
        };
        if let Some(a) = c.average {
            check_average(&row, num(cell(a), line, "Average CH Speed")?, warnings);
        }
        out.push(row);
    }
    Ok(out)
}

/// The packets rpmsg-xmit-p sends for a TRANSFER SIZE (its `-t`, total
/// bytes per channel) of `size`-byte packets: it sends whole packets
/// `while (total_sent < total)`, so ⌈total ÷ size⌉ of them, and its rate
/// counts every byte of them (issue #31 item 4: 64 B at TRANSFER 100 is two
/// packets, 128 B, 13.1 k packets/s at the published 839,190 B/s — the
/// table's rate ÷ the size — where ⌊100 ÷ 64⌋ made it 8.39 k/s, and 256 B
/// and 496 B at TRANSFER 100 none at all).
fn packets_of(total: u64, size: u64) -> u64 {
    total.div_ceil(size.max(1)).max(1)
}

pub fn parse(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let lines: Vec<&str> = text.lines().collect();
    let link = opts.link.clone().unwrap_or_else(|| DEFAULT_LINK.to_string());
    let mut imp = Imported::default();
    let (mut channels, mut rates, mut tables) = (None::<u32>, Vec::new(), 0);
    let mut i = 0;
    while i < lines.len() {
        if i + 1 < lines.len() && underlines(lines[i + 1], lines[i]) && !lines[i].trim().is_empty()
        {
            // Every heading starts a section: one that names no channel
            // count leaves the tables under it without one.
            channels = channels_of(lines[i].trim());
        }
        if lines[i].trim() == ".. list-table::" {
            let (t, next) = list_table(&lines, i)?;
            let n = channels.ok_or_else(|| ImportError::Line {
                line: i + 1,
                msg: "a list-table outside a \"N Channel(s)\" section: how many channels?".into(),
            })?;
            let c = columns(&t, i + 1)?;
            rates.extend(rows(&t, &c, n, &link, &mut imp.warnings)?);
            tables += 1;
            i = next;
            continue;
        }
        i += 1;
    }
    if tables == 0 {
        return Err(ImportError::Input(
            "no '.. list-table::' under a \"N Channels\" heading: not ADI's benchmark page".into(),
        ));
    }
    imp.notes.push(format!(
        "ADI RPMsg benchmark tables (reStructuredText, {tables} tables, {} rows): one published \
         rate per cell, no per-message times",
        rates.len()
    ));
    rate_cells(&rates, &mut imp)?;
    Ok(imp)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "\
Benchmarks
==========

2 Channels
----------

.. list-table::
   :header-rows: 1

   * - PACKET SIZE
     - TRANSFER SIZE
     - Single CH speed
     - Average CH Speed
   * - 16
     - 100
     - 2000
     - 1000
   * -
     - 1000
     - 3000
     - 1000

Notes
~~~~~
";

    #[test]
    fn an_empty_size_repeats_the_one_above_and_averages_are_checked() {
        let imp = parse(PAGE, &Options::default()).unwrap();
        assert_eq!(imp.cells.len(), 2);
        for c in &imp.cells {
            assert_eq!((c.key.size_bytes, c.key.link.as_str()), (16, DEFAULT_LINK));
        }
        // Row 2: 3000 is not 2 × 1000.
        assert_eq!(imp.warnings.len(), 1, "{:?}", imp.warnings);
        assert!(imp.warnings[0].starts_with("line 18:"), "{}", imp.warnings[0]);
    }

    #[test]
    fn what_is_not_the_page_is_refused_in_one_line() {
        let e = parse("hello\n", &Options::default()).unwrap_err();
        assert!(e.to_string().contains("not ADI's benchmark page"), "{e}");
        let no_section = PAGE.replace("2 Channels\n----------\n", "");
        let e = parse(&no_section, &Options::default()).unwrap_err();
        assert!(e.to_string().contains("how many channels"), "{e}");
        let first_empty = PAGE.replace("   * - 16\n", "   * -\n");
        let e = parse(&first_empty, &Options::default()).unwrap_err();
        assert!(e.to_string().contains("no PACKET SIZE to repeat"), "{e}");
        let no_col = PAGE.replace("TRANSFER SIZE", "BYTES");
        let e = parse(&no_col, &Options::default()).unwrap_err();
        assert!(e.to_string().contains("no 'TRANSFER SIZE' column"), "{e}");
        let junk = PAGE.replace("     - 3000\n", "     x 3000\n");
        assert!(parse(&junk, &Options::default()).is_err());
    }
}
