//! The seed benchmarks of dimtass (shared/references 000 and 001): the
//! client logs and the tables printed in the posts.
//!
//! - tty client (000): `- 15:43:54.977 INFO: -> b: 512, n:1, nsec: 11970765,
//!   bytes sent: 512` — `n` blocks of `b` bytes written to `/dev/ttyRPMSG0`,
//!   then a 2-byte count back; `nsec` is the whole transfer.
//! - netlink client (001): `-> b: 512, nsec: 21384671, bytes sent: 20` — one
//!   block through the rpmsg_netlink module; the post says to ignore
//!   "bytes sent" (a broken counter).
//! - tables: `Block size | # of blocks | msec` (000), `# of bytes (block)
//!   msec` (001) and the comparison `# of bytes TTY (msec) Netlink (msec)
//!   diff (msec)` (001).
//!
//! Every line is one transfer, so every value is one sample: cells have
//! count 1 (more only if a log repeats a size), and no interval is invented.

use icbench_model::Pattern;

use crate::{ImportError, Imported, Options, num, sample_cell};

/// Link names used when `--link` is not given.
pub const TTY_LINK: &str = "tty:/dev/ttyRPMSG0";
pub const NETLINK_LINK: &str = "rpmsg-netlink";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    Tty,
    Netlink,
}

/// `key: value` pairs after `-> ` on a result line.
fn fields(rest: &str) -> Vec<(String, String)> {
    rest.split(',')
        .filter_map(|kv| kv.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

fn field<'a>(f: &'a [(String, String)], key: &str, line: usize) -> Result<&'a str, ImportError> {
    f.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .ok_or_else(|| ImportError::Line { line, msg: format!("result line without '{key}:'") })
}

/// One cell's samples: (block size, blocks) and the times, ns.
type Group = ((u64, u32), Vec<u64>);

/// Groups samples by (size, blocks), keeping first-seen order.
/// Refused past `crate::MAX_CELLS` groups, before any histogram is made;
/// an index finds a sample's group (a search of every group was quadratic).
fn group(samples: Vec<(u64, u32, u64)>) -> Result<Vec<Group>, ImportError> {
    let mut out: Vec<Group> = Vec::new();
    let mut index: std::collections::HashMap<(u64, u32), usize> = Default::default();
    for (b, n, ns) in samples {
        match index.get(&(b, n)) {
            Some(&at) => out[at].1.push(ns),
            None => {
                crate::check_cells(out.len() + 1)?;
                index.insert((b, n), out.len());
                out.push(((b, n), vec![ns]));
            }
        }
    }
    Ok(out)
}

/// A tty or netlink client log.
pub fn parse_log(text: &str, opts: &Options, client: Client) -> Result<Imported, ImportError> {
    let mut imp = Imported::default();
    let mut samples = Vec::new();
    let mut odd_bytes_sent = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let Some((_, rest)) = line.split_once("INFO: -> b:") else { continue };
        let f = fields(&format!("b:{rest}"));
        let b: u64 = num(field(&f, "b", line_no)?, line_no, "b")?;
        let ns: u64 = num(field(&f, "nsec", line_no)?, line_no, "nsec")?;
        let sent: u64 = num(field(&f, "bytes sent", line_no)?, line_no, "bytes sent")?;
        // The two clients' lines differ only by `n:`; without this check a
        // tty log read as netlink would lose its block counts unnoticed.
        let n: u32 = match (client, f.iter().any(|(k, _)| k == "n")) {
            (Client::Tty, true) => num(field(&f, "n", line_no)?, line_no, "n")?,
            (Client::Tty, false) => {
                return Err(ImportError::Line {
                    line: line_no,
                    msg: "result line without 'n:' (blocks per transfer): a netlink client's \
                          log? import it with -f seed-netlink"
                        .into(),
                });
            }
            (Client::Netlink, false) => 1,
            (Client::Netlink, true) => {
                return Err(ImportError::Line {
                    line: line_no,
                    msg: "result line with 'n:' (blocks per transfer), as the tty client \
                          writes: import it with -f seed-tty"
                        .into(),
                });
            }
        };
        if b == 0 || n == 0 {
            return Err(ImportError::Line {
                line: line_no,
                msg: "b and n must be at least 1".into(),
            });
        }
        if sent != b.saturating_mul(u64::from(n)) {
            odd_bytes_sent.push((line_no, b, n, sent));
        }
        samples.push((b, n, ns));
    }
    let link = opts.link.clone().unwrap_or_else(|| match client {
        Client::Tty => TTY_LINK.to_string(),
        Client::Netlink => NETLINK_LINK.to_string(),
    });
    if !odd_bytes_sent.is_empty() {
        let (line, b, n, sent) = odd_bytes_sent[0];
        imp.warnings.push(format!(
            "{} of {} lines report 'bytes sent' different from b × n (first: line {line}, \
             b {b} × n {n} but bytes sent {sent}); b × n is used{}",
            odd_bytes_sent.len(),
            samples.len(),
            if client == Client::Netlink {
                " (the 001 post says this counter is wrong)"
            } else {
                ""
            }
        ));
    }
    for ((b, n), ns) in group(samples)? {
        imp.push(sample_cell(
            &link,
            Pattern::Bulk,
            b,
            &ns,
            b.saturating_mul(u64::from(n)),
            Some(n),
        ))?;
    }
    imp.notes.push(
        "each log line is one transfer timed once: a cell holds one sample, so it has no spread \
         and no confidence interval"
            .to_string(),
    );
    imp.notes.push(format!(
        "{} client of dimtass' stm32mp1 benchmarks: time of b × n bytes written, until the \
         2-byte reply",
        match client {
            Client::Tty => "tty (/dev/ttyRPMSG0)",
            Client::Netlink => "netlink (rpmsg_netlink module)",
        }
    ));
    Ok(imp)
}

/// The numbers of a table row: `|` and tabs separate; `– 6.31` (an en dash
/// and a space, as the 001 post prints a negative difference) is −6.31.
fn row_numbers(line: &str) -> Option<Vec<f64>> {
    let cleaned = line.replace(['|', '\t'], " ").replace(['−', '–'], "-");
    let mut out = Vec::new();
    let mut neg = false;
    for tok in cleaned.split_whitespace() {
        if tok == "-" {
            neg = true;
            continue;
        }
        let v: f64 = tok.parse().ok()?;
        out.push(if neg { -v } else { v });
        neg = false;
    }
    (!out.is_empty()).then_some(out)
}

fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum TableKind {
    BlockBlocks,
    SizeMs,
    TtyNetlink,
}

/// One of the posts' tables (values in ms, two decimals).
pub fn parse_table(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let mut imp = Imported::default();
    let mut kind = None;
    let mut tty: Vec<(u64, u32, u64)> = Vec::new();
    let mut net: Vec<(u64, u32, u64)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let Some(v) = row_numbers(line) else {
            let l = line.to_ascii_lowercase();
            if kind.is_none() {
                kind = Some(if l.contains("tty") && l.contains("netlink") {
                    TableKind::TtyNetlink
                } else if l.contains("blocks") {
                    TableKind::BlockBlocks
                } else {
                    TableKind::SizeMs
                });
            }
            continue;
        };
        let size = v[0];
        if size < 1.0 || size.fract() != 0.0 {
            return Err(ImportError::Line {
                line: line_no,
                msg: format!("size {size} is not a whole number of bytes"),
            });
        }
        let size = size as u64;
        match (kind.unwrap_or(TableKind::SizeMs), v.len()) {
            (TableKind::BlockBlocks, 3) => tty.push((size, v[1] as u32, ms_to_ns(v[2]))),
            (TableKind::SizeMs, 2) => net.push((size, 1, ms_to_ns(v[1]))),
            (TableKind::TtyNetlink, 4) => {
                let (t, n, d) = (v[1], v[2], v[3]);
                if ((n - t) - d).abs() > 0.011 {
                    imp.warnings.push(format!(
                        "line {line_no}: diff {d} ms is not Netlink − TTY = {:.2} ms",
                        n - t
                    ));
                }
                tty.push((size, 1, ms_to_ns(t)));
                net.push((size, 1, ms_to_ns(n)));
            }
            (TableKind::TtyNetlink, 3) => {
                tty.push((size, 1, ms_to_ns(v[1])));
                net.push((size, 1, ms_to_ns(v[2])));
            }
            (TableKind::TtyNetlink, 2) => imp.warnings.push(format!(
                "line {line_no}: size {size} has one value ({} ms) under two columns (TTY, \
                 Netlink): ambiguous, not imported",
                v[1]
            )),
            (k, n) => {
                return Err(ImportError::Line {
                    line: line_no,
                    msg: format!("{n} numbers in a row of a {k:?} table"),
                });
            }
        }
    }
    let (tty_link, net_link) = match (kind, &opts.link) {
        (Some(TableKind::TtyNetlink), _) | (_, None) => {
            (TTY_LINK.to_string(), NETLINK_LINK.to_string())
        }
        (_, Some(l)) => (l.clone(), l.clone()),
    };
    for ((b, n), ns) in group(tty)? {
        imp.push(sample_cell(
            &tty_link,
            Pattern::Bulk,
            b,
            &ns,
            b.saturating_mul(u64::from(n)),
            Some(n),
        ))?;
    }
    for ((b, n), ns) in group(net)? {
        imp.push(sample_cell(
            &net_link,
            Pattern::Bulk,
            b,
            &ns,
            b.saturating_mul(u64::from(n)),
            Some(n),
        ))?;
    }
    imp.notes.push(
        "from a table printed in a blog post: times in ms with two decimals (10 µs resolution), \
         one transfer per value, so no spread and no confidence interval"
            .to_string(),
    );
    Ok(imp)
}
