//! ADI `rpmsg-xmit-p` output (analogdevicesinc/rpmsg-utils, "ver 0.3"; see
//! shared/references 003 and research/embedded-ipc-anchors.md §2.3):
//!
//! ```text
//! Thread-%d stoped, total sent %d bytes, total recv %d, total sec %d.%d, tx bytes per sec %f
//! Total %d channel transfer per sec %f
//! ```
//!
//! Each thread ping-pongs `-s` byte packets on its own endpoint until it has
//! sent `-t` bytes, timing itself. Two traps, both flagged:
//! - `%d.%d` prints `tv_nsec` without zero padding, so `1.5000000` is
//!   1.005 s, not 1.5 s; the fraction is read as nanoseconds.
//! - the Total line adds per-thread rates measured over different windows:
//!   not a throughput. icbench stores Σ bytes over the longest thread's time.
//!
//! The output does not say the packet size: `--size` (its `-s`) is needed.

use crate::{ImportError, Imported, Options, num, rate_cell};

pub const DEFAULT_LINK: &str = "rpmsg:/dev/rpmsg";

/// A round trip faster than this cannot be true between two cores (a
/// cache-line round trip costs more).
pub const MIN_PLAUSIBLE_RTT_NS: f64 = 50.0;

#[derive(Debug, Clone)]
struct Thread {
    line: usize,
    id: u32,
    sent: u64,
    elapsed_ns: u64,
    naive_s: f64,
    printed_rate: f64,
    ambiguous: bool,
}

fn after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_once(key).map(|(_, r)| r.trim_start())
}

fn first_token(s: &str) -> &str {
    s.split(|c: char| c == ',' || c.is_whitespace()).next().unwrap_or("")
}

fn parse_thread(line: &str, no: usize) -> Result<Thread, ImportError> {
    let bad =
        |what: &str| ImportError::Line { line: no, msg: format!("thread line without {what}") };
    let id: u32 =
        num(first_token(after(line, "Thread-").ok_or_else(|| bad("Thread-N"))?), no, "thread")?;
    let sent: u64 = num(
        first_token(after(line, "total sent").ok_or_else(|| bad("total sent"))?),
        no,
        "total sent",
    )?;
    let sec = first_token(after(line, "total sec").ok_or_else(|| bad("total sec"))?);
    let (s, frac) = sec.split_once('.').ok_or_else(|| bad("total sec S.N"))?;
    let s: u64 = num(s, no, "seconds")?;
    let nsec: u64 = num(frac, no, "nanoseconds")?;
    if nsec >= 1_000_000_000 {
        return Err(ImportError::Line { line: no, msg: format!("tv_nsec {nsec} ≥ 10⁹") });
    }
    let printed_rate: f64 = num(
        first_token(after(line, "tx bytes per sec").ok_or_else(|| bad("tx bytes per sec"))?),
        no,
        "rate",
    )?;
    Ok(Thread {
        line: no,
        id,
        sent,
        elapsed_ns: s.saturating_mul(1_000_000_000).saturating_add(nsec).min(i64::MAX as u64),
        naive_s: num(sec, no, "seconds")?,
        printed_rate,
        ambiguous: frac.len() != 9,
    })
}

pub fn parse(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let size = opts.size_bytes.ok_or_else(|| {
        ImportError::Input(
            "rpmsg-xmit-p output does not say the packet size: give --size (its -s value)".into(),
        )
    })?;
    let link = opts.link.clone().unwrap_or_else(|| DEFAULT_LINK.to_string());
    let mut imp = Imported::default();
    let mut threads: Vec<Thread> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let no = i + 1;
        if line.contains("Thread-") && line.contains("total sent") {
            threads.push(parse_thread(line, no)?);
        } else if let Some(rest) = after(line, "Total ") {
            let n: u32 = num(first_token(rest), no, "channel count")?;
            let total: f64 =
                num(first_token(after(line, "per sec").unwrap_or("")), no, "total rate")?;
            finish_block(&mut imp, &link, size, std::mem::take(&mut threads), n, total, no)?;
        }
    }
    if !threads.is_empty() {
        let n = threads.len() as u32;
        imp.warnings.push(format!("{n} thread lines without a closing Total line"));
        finish_block(&mut imp, &link, size, threads, n, f64::NAN, 0)?;
    }
    imp.notes.push(format!(
        "rpmsg-xmit-p: stop-and-wait ping-pong of {size} B packets per endpoint; rates are request \
         payload bytes per second; no per-message times, so no latency statistics"
    ));
    Ok(imp)
}

fn finish_block(
    imp: &mut Imported,
    link: &str,
    size: u64,
    threads: Vec<Thread>,
    n: u32,
    total: f64,
    total_line: usize,
) -> Result<(), ImportError> {
    if threads.is_empty() {
        return Err(ImportError::Line {
            line: total_line,
            msg: "Total line without thread lines".into(),
        });
    }
    if threads.len() != n as usize {
        imp.warnings.push(format!(
            "line {total_line}: Total says {n} channels but {} thread lines precede it",
            threads.len()
        ));
    }
    let ambiguous: Vec<&Thread> = threads.iter().filter(|t| t.ambiguous).collect();
    if let Some(t) = ambiguous.first() {
        imp.warnings.push(format!(
            "{} of {} threads print 'total sec' with fewer than 9 fraction digits (first: line {}, \
             Thread-{}: {:.9} s read as {} ns): xmit-p prints tv_nsec without zero padding; \
             the fraction is read as nanoseconds",
            ambiguous.len(),
            threads.len(),
            t.line,
            t.id,
            t.naive_s,
            t.elapsed_ns
        ));
    }
    for t in &threads {
        let rate = t.sent as f64 * 1e9 / t.elapsed_ns.max(1) as f64;
        if (rate - t.printed_rate).abs() > 0.01 * rate.max(t.printed_rate) {
            imp.warnings.push(format!(
                "line {}: Thread-{} prints {:.0} B/s but sent {} B in {} ns = {:.0} B/s",
                t.line, t.id, t.printed_rate, t.sent, t.elapsed_ns, rate
            ));
        }
        let rtt = t.elapsed_ns as f64 / (t.sent as f64 / size as f64).max(1.0);
        if rtt < MIN_PLAUSIBLE_RTT_NS {
            imp.warnings.push(format!(
                "line {}: Thread-{} claims {:.0} B/s, i.e. one {size} B round trip every {:.3} ns: \
                 cannot be true (a cache-line round trip alone costs more than {MIN_PLAUSIBLE_RTT_NS} ns)",
                t.line, t.id, t.printed_rate, rtt
            ));
        }
    }
    let bytes = threads.iter().fold(0u64, |s, t| s.saturating_add(t.sent));
    let longest = threads.iter().map(|t| t.elapsed_ns).max().unwrap_or(1).max(1);
    let shortest = threads.iter().map(|t| t.elapsed_ns).min().unwrap_or(1).max(1);
    let summed: f64 = threads.iter().map(|t| t.printed_rate).sum();
    let common = bytes as f64 * 1e9 / longest as f64;
    if total.is_finite() {
        if (total - summed).abs() > 0.01 * total.max(summed) {
            imp.warnings.push(format!(
                "line {total_line}: Total {total:.0} B/s is not the sum of the thread rates ({summed:.0})"
            ));
        }
        if threads.len() > 1 && longest as f64 > shortest as f64 * 1.01 {
            imp.warnings.push(format!(
                "line {total_line}: the Total ({total:.0} B/s) adds {} per-thread rates measured over \
                 different windows ({:.6} s … {:.6} s): it is not a throughput; stored instead: \
                 {bytes} B over the longest window = {common:.0} B/s",
                threads.len(),
                shortest as f64 / 1e9,
                longest as f64 / 1e9
            ));
        }
    }
    imp.push(rate_cell(link, size, bytes, longest, threads.len() as u32))?;
    Ok(())
}
