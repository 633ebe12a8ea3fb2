//! The on-chip records (docs/protocol.md §2, issue #16): how icbench asks
//! the initiator core of a microcontroller to measure one cell between its
//! cores, and how the result comes back.
//!
//! - `CHIP` (type 10): request empty; reply [`Chip`] — cores, the shared
//!   timer's rate, the regions and doorbells the firmware offers, and its
//!   build labels (core clocks, caches, compiler flags: the factors a plan
//!   cannot change at run time).
//! - `RUN` (type 11): host → initiator, [`RunCell`]: one cell.
//! - `RESULT` (type 12): initiator → host, [`RunResult`]: its status, the
//!   window and bytes for throughput, and the latencies as a [`TickHist`] —
//!   the on-chip histogram in timer ticks, sent whole (fragmented like any
//!   long message, §1.6).
//!
//! Every record starts with its own version byte, so a firmware of another
//! version is refused by name before a cell is measured. All integers are
//! little-endian, as in every icb record.

use thiserror::Error;

/// Version of the on-chip records this build reads and writes.
pub const ONCHIP_VERSION: u8 = 1;
/// Longest region name, bytes.
pub const MAX_NAME: usize = 32;

/// A record that cannot be read: what and why, for a one-line error.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{record} record: {why}")]
pub struct RecordError {
    pub record: &'static str,
    pub why: String,
}

fn bad(record: &'static str, why: impl Into<String>) -> RecordError {
    RecordError { record, why: why.into() }
}

/// A cursor over a record's bytes that refuses to read past its end.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    record: &'static str,
}

impl<'a> Reader<'a> {
    fn new(record: &'static str, b: &'a [u8]) -> Result<Reader<'a>, RecordError> {
        let mut r = Reader { b, at: 0, record };
        match r.u8()? {
            ONCHIP_VERSION => Ok(r),
            v => Err(bad(record, format!("version {v}, this icbench reads {ONCHIP_VERSION}"))),
        }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], RecordError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len()).ok_or_else(|| {
            bad(self.record, format!("ends at byte {}, {n} more expected", self.b.len()))
        })?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, RecordError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, RecordError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes")))
    }
    fn u32(&mut self) -> Result<u32, RecordError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, RecordError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn text(&mut self, n: usize) -> Result<&'a str, RecordError> {
        let record = self.record;
        std::str::from_utf8(self.take(n)?).map_err(|_| bad(record, "text is not UTF-8"))
    }
    fn end(&self) -> Result<(), RecordError> {
        match self.b.len() - self.at {
            0 => Ok(()),
            n => Err(bad(self.record, format!("{n} bytes past its end"))),
        }
    }
}

/// Doorbell modes, the bits of [`Chip::notify`] and the value of
/// [`RunCell::notify`] (one bit).
pub mod notify {
    /// The receiver polls the ring.
    pub const POLL: u8 = 0x01;
    /// An inter-core interrupt (MHU, HSEM, SIO FIFO) per message.
    pub const DOORBELL: u8 = 0x02;
    /// SEV on send, WFE while waiting.
    pub const EVENT: u8 = 0x04;
    /// Every mode with its name, for specs and tables.
    pub const NAMES: [(u8, &str); 3] = [(POLL, "poll"), (DOORBELL, "doorbell"), (EVENT, "event")];
}

/// What a firmware says of its chip (`CHIP` reply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chip {
    pub cores: u8,
    /// Rate of the timer both cores read, Hz.
    pub timer_hz: u32,
    /// Largest message the on-chip transport carries, bytes.
    pub max_size: u32,
    /// Doorbell modes offered ([`notify`] bits).
    pub notify: u8,
    /// Shared-memory regions by name ("D1", "sram2"): a plan's `region`
    /// levels; a cell names one by its index.
    pub regions: Vec<String>,
    /// `key=value` build labels, one per line (`m7_hz=480000000`,
    /// `dcache=on`, `cflags=-O2`, `emulated=qemu`).
    pub labels: Vec<(String, String)>,
}

impl Chip {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![ONCHIP_VERSION, self.cores, self.regions.len() as u8, self.notify];
        b.extend(self.timer_hz.to_le_bytes());
        b.extend(self.max_size.to_le_bytes());
        for r in &self.regions {
            b.push(r.len() as u8);
            b.extend(r.as_bytes());
        }
        let labels: String = self.labels.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        b.extend((labels.len() as u16).to_le_bytes());
        b.extend(labels.as_bytes());
        b
    }

    pub fn from_bytes(p: &[u8]) -> Result<Chip, RecordError> {
        const R: &str = "CHIP";
        let mut r = Reader::new(R, p)?;
        let (cores, nregions, notify) = (r.u8()?, r.u8()?, r.u8()?);
        let (timer_hz, max_size) = (r.u32()?, r.u32()?);
        if cores < 2 {
            return Err(bad(R, format!("{cores} core(s): an on-chip cell needs two")));
        }
        if timer_hz == 0 {
            return Err(bad(R, "timer_hz 0: no timer both cores read"));
        }
        let mut regions = Vec::with_capacity(nregions.into());
        for _ in 0..nregions {
            let n = usize::from(r.u8()?);
            if n == 0 || n > MAX_NAME {
                return Err(bad(R, format!("a region name of {n} bytes (1 to {MAX_NAME})")));
            }
            regions.push(r.text(n)?.to_string());
        }
        let n = usize::from(r.u16()?);
        let mut labels = Vec::new();
        for line in r.text(n)?.lines().filter(|l| !l.is_empty()) {
            let (k, v) = line
                .split_once('=')
                .ok_or_else(|| bad(R, format!("label '{line}' is not key=value")))?;
            labels.push((k.to_string(), v.to_string()));
        }
        r.end()?;
        Ok(Chip { cores, timer_hz, max_size, notify, regions, labels })
    }
}

/// What an on-chip cell measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnChipPattern {
    /// The sender stamps before the send, the receiver after the receive,
    /// on the shared timer.
    Oneway = 1,
    /// Round trips on the initiator's timer.
    Pingpong = 2,
    /// As fast as credits allow, throughput over the receiver's window.
    Stream = 3,
    /// `blocks` × `block` bytes, then one acknowledgement.
    Bulk = 4,
}

/// Which way messages go (for ping-pong: who starts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnChipDirection {
    /// Initiator → agent.
    I2a = 0,
    /// Agent → initiator.
    A2i = 1,
}

/// One cell for the initiator to run (`RUN`), fixed 28 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunCell {
    pub pattern: OnChipPattern,
    pub direction: OnChipDirection,
    /// Index into [`Chip::regions`].
    pub region: u8,
    /// One [`notify`] bit.
    pub notify: u8,
    /// Send the raw samples too (not only the histogram).
    pub raw: bool,
    pub size: u32,
    /// Measured repetitions (messages, for stream; blocks, for bulk).
    pub count: u32,
    /// Repetitions before the measured ones, discarded.
    pub warmup: u32,
    /// Stream: credits in flight; bulk: block size, bytes.
    pub window: u32,
    /// The longest one wait for the other core may last, ms.
    pub timeout_ms: u32,
}

impl RunCell {
    pub const LEN: usize = 28;

    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[..6].copy_from_slice(&[
            ONCHIP_VERSION,
            self.pattern as u8,
            self.direction as u8,
            self.region,
            self.notify,
            u8::from(self.raw),
        ]);
        for (i, v) in [self.size, self.count, self.warmup, self.window, self.timeout_ms]
            .into_iter()
            .enumerate()
        {
            b[8 + 4 * i..12 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    pub fn from_bytes(p: &[u8]) -> Result<RunCell, RecordError> {
        const R: &str = "RUN";
        let mut r = Reader::new(R, p)?;
        let pattern = match r.u8()? {
            1 => OnChipPattern::Oneway,
            2 => OnChipPattern::Pingpong,
            3 => OnChipPattern::Stream,
            4 => OnChipPattern::Bulk,
            v => return Err(bad(R, format!("unknown pattern {v}"))),
        };
        let direction = match r.u8()? {
            0 => OnChipDirection::I2a,
            1 => OnChipDirection::A2i,
            v => return Err(bad(R, format!("unknown direction {v}"))),
        };
        let (region, notify, flags) = (r.u8()?, r.u8()?, r.u8()?);
        if flags > 1 {
            return Err(bad(R, format!("reserved flags {flags:#x}")));
        }
        if notify.count_ones() != 1 {
            return Err(bad(R, format!("notify {notify:#x} must name one mode")));
        }
        r.take(2)?;
        let cell = RunCell {
            pattern,
            direction,
            region,
            notify,
            raw: flags == 1,
            size: r.u32()?,
            count: r.u32()?,
            warmup: r.u32()?,
            window: r.u32()?,
            timeout_ms: r.u32()?,
        };
        r.end()?;
        Ok(cell)
    }
}

/// How an on-chip cell ended ([`RunResult::status`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnChipStatus {
    Ok = 0,
    /// A payload differed from what was sent; `detail` is the byte offset.
    Corrupt = 1,
    /// The other core did not answer within the cell's timeout.
    Timeout = 2,
    /// The firmware cannot run this cell (pattern, size, region, notify);
    /// `detail` names the field's byte offset in the `RUN` record.
    Unsupported = 3,
}

impl OnChipStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            OnChipStatus::Ok => "ok",
            OnChipStatus::Corrupt => "a payload arrived corrupted",
            OnChipStatus::Timeout => "the other core did not answer in time",
            OnChipStatus::Unsupported => "the firmware cannot run this cell",
        }
    }
}

/// The outcome of one cell (`RESULT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    pub status: OnChipStatus,
    pub detail: u32,
    /// Stream: the receiver's window; bulk: the measured transfers' time;
    /// timer ticks; else 0.
    pub window_ticks: u64,
    /// Stream and bulk: payload bytes received in the window; else 0.
    pub bytes: u64,
    /// Latencies (one-way, round trip, or a whole bulk transfer), ticks;
    /// empty for stream.
    pub hist: TickHist,
    /// The samples themselves, ticks, in the order taken, when the cell
    /// asked for them ([`RunCell::raw`]).
    pub raw: Option<Vec<u32>>,
}

impl RunResult {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![ONCHIP_VERSION, self.status as u8, 0, 0];
        b.extend(self.detail.to_le_bytes());
        b.extend(self.window_ticks.to_le_bytes());
        b.extend(self.bytes.to_le_bytes());
        b.extend(self.hist.to_bytes());
        if let Some(raw) = &self.raw {
            b.extend((raw.len() as u32).to_le_bytes());
            raw.iter().for_each(|v| b.extend(v.to_le_bytes()));
        }
        b
    }

    pub fn from_bytes(p: &[u8]) -> Result<RunResult, RecordError> {
        const R: &str = "RESULT";
        let mut r = Reader::new(R, p)?;
        let status = match r.u8()? {
            0 => OnChipStatus::Ok,
            1 => OnChipStatus::Corrupt,
            2 => OnChipStatus::Timeout,
            3 => OnChipStatus::Unsupported,
            v => return Err(bad(R, format!("unknown status {v}"))),
        };
        r.take(2)?;
        let (detail, window_ticks, bytes) = (r.u32()?, r.u64()?, r.u64()?);
        // The histogram's length follows from its bucket count; raw samples
        // (u32 n, n × u32), when asked for, come after it.
        let rest = &p[r.at..];
        let pairs = rest.get(2..4).map_or(0, |n| usize::from(u16::from_le_bytes([n[0], n[1]])));
        let hist_len = (TickHist::HEADER + 6 * pairs).min(rest.len());
        let hist = TickHist::from_bytes(&rest[..hist_len])?;
        let raw = if hist_len == rest.len() {
            None
        } else {
            let mut t = Reader { b: &rest[hist_len..], at: 0, record: "raw samples" };
            let n = t.u32()? as usize;
            if t.b.len() - 4 != n.saturating_mul(4) {
                return Err(bad(R, format!("{} bytes of raw samples for {n}", t.b.len() - 4)));
            }
            Some((0..n).map(|_| t.u32()).collect::<Result<Vec<u32>, _>>()?)
        };
        Ok(RunResult { status, detail, window_ticks, bytes, hist, raw })
    }
}

/// The on-chip latency histogram, in timer ticks (docs/protocol.md §2.4):
/// exact below 2^S, then 2^S buckets per power of two (S = `sub_bits`, 7
/// by default: every bucket narrower than 1/128 of its values, under 1 %).
/// Sent sparse: only the buckets that counted something.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TickHist {
    pub sub_bits: u8,
    pub count: u64,
    pub min: u32,
    pub max: u32,
    pub sum: u64,
    /// (bucket index, count), indexes strictly increasing, counts > 0.
    pub buckets: Vec<(u16, u32)>,
}

impl TickHist {
    /// Header bytes before the (index, count) pairs.
    pub const HEADER: usize = 28;

    /// The bucket index of `v` with `s` sub-bucket bits.
    pub fn index_of(v: u32, s: u8) -> u16 {
        let base = 1u32 << s;
        if v < base {
            return v as u16;
        }
        let p = 31 - v.leading_zeros(); // floor(log2 v) ≥ s
        let shift = p - u32::from(s);
        let sub = (v - (1 << p)) >> shift;
        (base + shift * base + sub) as u16
    }

    /// The lowest value and the width of bucket `i`.
    pub fn bucket(i: u16, s: u8) -> (u64, u64) {
        let (i, base) = (u64::from(i), 1u64 << s);
        if i < base {
            return (i, 1);
        }
        let shift = (i - base) / base;
        let sub = (i - base) % base;
        let p = shift + u64::from(s);
        ((1 << p) + (sub << shift), 1 << shift)
    }

    /// Number of buckets for u32 values.
    pub fn buckets_for(s: u8) -> u32 {
        let base = 1u32 << s;
        base + (32 - u32::from(s)) * base
    }

    /// Each counted bucket's middle value (exact below 2^S) with its count.
    pub fn values(&self) -> impl Iterator<Item = (f64, u32)> + '_ {
        self.buckets.iter().map(|&(i, n)| {
            let (lo, w) = Self::bucket(i, self.sub_bits);
            (if w == 1 { lo as f64 } else { lo as f64 + (w as f64 - 1.0) / 2.0 }, n)
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![ONCHIP_VERSION, self.sub_bits];
        b.extend((self.buckets.len() as u16).to_le_bytes());
        b.extend(self.count.to_le_bytes());
        b.extend(self.min.to_le_bytes());
        b.extend(self.max.to_le_bytes());
        b.extend(self.sum.to_le_bytes());
        for &(i, n) in &self.buckets {
            b.extend(i.to_le_bytes());
            b.extend(n.to_le_bytes());
        }
        b
    }

    /// Reads and checks a histogram: the counts add up to `count`, indexes
    /// rise and lie in range, min ≤ max lie in the first and last buckets.
    pub fn from_bytes(p: &[u8]) -> Result<TickHist, RecordError> {
        const R: &str = "histogram";
        let mut r = Reader::new(R, p)?;
        let sub_bits = r.u8()?;
        if !(1..=11).contains(&sub_bits) {
            return Err(bad(R, format!("{sub_bits} sub-bucket bits (1 to 11: indexes are u16)")));
        }
        let n = r.u16()?;
        let (count, min, max, sum) = (r.u64()?, r.u32()?, r.u32()?, r.u64()?);
        let mut buckets = Vec::with_capacity(n.into());
        let (mut total, mut last) = (0u64, None);
        for _ in 0..n {
            let (i, c) = (r.u16()?, r.u32()?);
            if u32::from(i) >= Self::buckets_for(sub_bits) || last.is_some_and(|l| i <= l) || c == 0
            {
                return Err(bad(R, format!("bucket {i} (count {c}) out of order or range")));
            }
            last = Some(i);
            total += u64::from(c);
            buckets.push((i, c));
        }
        r.end()?;
        if total != count {
            return Err(bad(R, format!("buckets hold {total} values, the header says {count}")));
        }
        let h = TickHist { sub_bits, count, min, max, sum, buckets };
        if let (Some(&(first, _)), Some(&(last, _))) = (h.buckets.first(), h.buckets.last())
            && (Self::index_of(min, sub_bits) != first || Self::index_of(max, sub_bits) != last)
        {
            return Err(bad(R, format!("min {min} or max {max} outside the counted buckets")));
        }
        Ok(h)
    }

    /// Builds one from values (the host build and the tests).
    pub fn of(values: &[u32], sub_bits: u8) -> TickHist {
        let mut m = std::collections::BTreeMap::<u16, u32>::new();
        for &v in values {
            *m.entry(Self::index_of(v, sub_bits)).or_default() += 1;
        }
        TickHist {
            sub_bits,
            count: values.len() as u64,
            min: values.iter().copied().min().unwrap_or(0),
            max: values.iter().copied().max().unwrap_or(0),
            sum: values.iter().map(|&v| u64::from(v)).sum(),
            buckets: m.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests;
