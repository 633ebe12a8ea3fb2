//! The host side of the oneway pattern (issue 7): one-way latency in one
//! direction, on the clock both ends share.
//!
//! A message of the cell's size carries the sender's clock read, taken just
//! before the send; the receiver reads the same clock (CLOCK_MONOTONIC_RAW,
//! [`crate::clock::now_ns`]) as soon as it has the message, and the sample
//! is `receiver's read − sender's stamp`. One message is in flight at a
//! time: a short return leg paces the exchange (see `ctrl.rs`), so that no
//! message waits behind another and every sample is one message's trip.
//!
//! - **h2p** (host → peer): the host stamps and sends; the peer reads the
//!   clock on arrival, checks the payload and returns its reading.
//! - **p2h** (peer → host): the peer stamps and sends; the host reads the
//!   clock on arrival, checks the payload and returns a go.
//!
//! Either way the host records every sample. The difference is of two reads
//! on two CPUs, so it is only meaningful if the clock is one clock across
//! them: the engine checks that before the first oneway cell on each CPU
//! pair of a run (`common_clock.rs`), and a sample that comes out negative — the receiver
//! read an earlier time than the sender's stamp — is never clamped to zero:
//! it is counted and fails the cell.
//!
//! Inside the timed loop: no allocation, no formatting (ARCHITECTURE rule 7).

use std::sync::atomic::{AtomicU64, Ordering};

use icbench_link::Link;
use icbench_model::{CellData, Direction, LatencyHistogram};

use crate::clock::now_ns;
use crate::ctrl::{Op, READING_LEN, Reading, encode_go};
use crate::pattern::{Budget, CellError, RX_MIN, Sizing};
use crate::payload::{ONEWAY_MIN_BYTES, Payload, clock_of, oneway_bad_at, put_clock};

/// A one-way time from the sender's stamp and the receiver's read, ns; or,
/// when the receiver read an earlier time, `Err` with how much earlier.
#[inline(always)]
pub fn one_way_ns(sender_stamp_ns: u64, receiver_read_ns: u64) -> Result<u64, u64> {
    receiver_read_ns.checked_sub(sender_stamp_ns).ok_or_else(|| sender_stamp_ns - receiver_read_ns)
}

/// The samples of a cell, and the ones that came out negative.
#[derive(Debug)]
pub struct Samples {
    pub hist: LatencyHistogram,
    pub raw: Vec<u64>,
    keep_raw: bool,
    /// Whether samples are recorded now (the measured phase) or only
    /// checked (probe, warm-up).
    recording: bool,
    /// Messages whose sample was taken, in every phase.
    pub seen: u64,
    /// Of those, how many had the receiver read an earlier time than the
    /// sender's stamp, and by how much at most, ns.
    pub backwards: u64,
    pub worst_backwards_ns: u64,
    /// Sum of the recorded one-way times, ns.
    pub sum_ns: u64,
}

impl Samples {
    pub fn new(keep_raw: bool) -> Samples {
        Samples {
            hist: LatencyHistogram::new(),
            raw: Vec::new(),
            keep_raw,
            recording: false,
            seen: 0,
            backwards: 0,
            worst_backwards_ns: 0,
            sum_ns: 0,
        }
    }

    /// Takes one sample: recorded if the phase records, counted as
    /// backwards (never clamped) if the receiver's read is the earlier.
    #[inline]
    pub fn add(&mut self, sender_stamp_ns: u64, receiver_read_ns: u64) {
        self.seen += 1;
        match one_way_ns(sender_stamp_ns, receiver_read_ns) {
            Ok(ns) if self.recording => {
                self.sum_ns += ns;
                self.hist.record(ns);
                if self.keep_raw {
                    self.raw.push(ns);
                }
            }
            Ok(_) => {}
            Err(back) => {
                self.backwards += 1;
                self.worst_backwards_ns = self.worst_backwards_ns.max(back);
            }
        }
    }

    /// Fails the cell if any sample so far went backwards.
    pub fn check(&self, direction: Direction) -> Result<(), CellError> {
        if self.backwards == 0 {
            return Ok(());
        }
        Err(CellError::ClockWentBack {
            direction: direction.describe(),
            backwards: self.backwards,
            messages: self.seen,
            worst_ns: self.worst_backwards_ns,
        })
    }
}

/// The buffers of a cell, built before any timed loop.
struct Bufs {
    /// The message the host sends (h2p).
    msg: Vec<u8>,
    /// The message the host expects (p2h), stamped per sequence number.
    expected: Vec<u8>,
    rx: Vec<u8>,
}

/// Measures one-way times of `size`-byte messages in `direction`.
pub fn oneway(
    link: &mut dyn Link,
    size: usize,
    direction: Direction,
    budget: &Budget,
    progress: &AtomicU64,
) -> Result<CellData, CellError> {
    if size < ONEWAY_MIN_BYTES {
        return Err(CellError::Unsupported(format!(
            "oneway needs messages of at least {ONEWAY_MIN_BYTES} B (8 for the sender's clock \
             stamp, 8 for the sequence check); {size} B is too small"
        )));
    }
    if !link.caps().shared_clock {
        return Err(CellError::Unsupported(
            "oneway needs both ends on one clock, and this link's peer does not read this \
             machine's clock"
                .to_string(),
        ));
    }
    let payload = Payload::new(size);
    let mut b =
        Bufs { msg: payload.buffer(), expected: payload.buffer(), rx: vec![0; size.max(RX_MIN)] };
    let mut samples = Samples::new(budget.raw);
    let mut phase = |link: &mut dyn Link, count: u32, samples: &mut Samples| {
        let elapsed = match direction {
            Direction::H2P => h2p(link, &mut b, size, count, samples, progress)?,
            Direction::P2H => p2h(link, &mut b, size, count, samples, progress)?,
        };
        samples.check(direction)?;
        Ok::<u64, CellError>(elapsed)
    };
    let paced = Sizing::ONE_AT_A_TIME.run(budget, |n| phase(link, n, &mut samples))?;
    let measure = paced.measure;
    if budget.raw {
        samples.raw.reserve(measure as usize);
    }
    samples.recording = true;
    let before = link.counters();
    let elapsed_ns = phase(link, measure, &mut samples)?;
    let counters = link.counters().since(before);
    Ok(CellData {
        messages: u64::from(measure),
        bytes: u64::from(measure) * size as u64,
        elapsed_ns,
        warmup_messages: paced.warmup_messages,
        latency: Some(samples.hist),
        raw_ns: budget.raw.then_some(samples.raw),
        window: None,
        counters,
        channels: None,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: paced.capped,
        timed_batch: None,
        state: None,
        adaptive: None,
    })
}

/// Host → peer: stamp, send, wait for the peer's reading. Returns the
/// phase's length, ns.
fn h2p(
    link: &mut dyn Link,
    b: &mut Bufs,
    size: usize,
    count: u32,
    samples: &mut Samples,
    progress: &AtomicU64,
) -> Result<u64, CellError> {
    let op = Op::OneWay { size: size as u32, count, direction: Direction::H2P };
    link.send(&op.encode())?;
    let start = now_ns();
    for seq in 0..count {
        Payload::stamp(&mut b.msg, u64::from(seq));
        let t0 = now_ns();
        put_clock(&mut b.msg, t0);
        link.send(&b.msg)?;
        link.recv(&mut b.rx, READING_LEN)?;
        progress.store(u64::from(seq) + 1, Ordering::Relaxed);
        let r = Reading::decode(&b.rx[..READING_LEN]);
        if r.seq != seq {
            return Err(CellError::Wire(format!(
                "oneway: the peer answered message {seq} with the reading of message {}",
                r.seq
            )));
        }
        if r.bad_at != 0 {
            return Err(CellError::CorruptOneWay {
                direction: Direction::H2P.describe(),
                seq: u64::from(seq),
                size,
                offset: r.bad_at as usize - 1,
            });
        }
        samples.add(t0, r.read_ns);
    }
    Ok(now_ns() - start)
}

/// Peer → host: receive, read the clock, check, return a go. Returns the
/// phase's length, ns.
fn p2h(
    link: &mut dyn Link,
    b: &mut Bufs,
    size: usize,
    count: u32,
    samples: &mut Samples,
    progress: &AtomicU64,
) -> Result<u64, CellError> {
    let op = Op::OneWay { size: size as u32, count, direction: Direction::P2H };
    link.send(&op.encode())?;
    let start = now_ns();
    for seq in 0..u64::from(count) {
        Payload::stamp(&mut b.expected, seq);
        let (mut read, mut stamp, mut bad) = (0u64, 0u64, None);
        let expected = &b.expected;
        link.recv_with(size, &mut b.rx, &mut |m| {
            read = now_ns();
            stamp = clock_of(m);
            bad = oneway_bad_at(m, expected);
        })?;
        progress.store(seq + 1, Ordering::Relaxed);
        if let Some(offset) = bad {
            return Err(CellError::CorruptOneWay {
                direction: Direction::P2H.describe(),
                seq,
                size,
                offset,
            });
        }
        samples.add(stamp, read);
        link.send(&encode_go(seq))?;
    }
    Ok(now_ns() - start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_the_receivers_read_minus_the_senders_stamp() {
        assert_eq!(one_way_ns(1_000, 1_250), Ok(250));
        assert_eq!(one_way_ns(7, 7), Ok(0));
        assert_eq!(one_way_ns(u64::MAX - 10, u64::MAX), Ok(10));
        assert_eq!(one_way_ns(1_250, 1_000), Err(250), "backwards, by how much");
    }

    #[test]
    fn backwards_samples_are_counted_never_recorded_and_fail_the_cell() {
        let mut s = Samples::new(true);
        s.recording = true;
        s.add(100, 400); // 300
        s.add(500, 450); // 50 back
        s.add(600, 700); // 100
        s.add(900, 880); // 20 back
        assert_eq!(s.seen, 4);
        assert_eq!(s.backwards, 2);
        assert_eq!(s.worst_backwards_ns, 50);
        assert_eq!(s.raw, vec![300, 100]);
        assert_eq!(s.hist.len(), 2);
        assert_eq!(s.sum_ns, 400);
        let e = s.check(Direction::P2H).unwrap_err().to_string();
        assert!(e.contains("2 of 4 messages peer → host"), "{e}");
        assert!(e.contains("by up to 50 ns"), "{e}");
    }

    #[test]
    fn outside_the_measured_phase_samples_are_only_checked() {
        let mut s = Samples::new(true);
        s.add(10, 20);
        assert!(s.raw.is_empty() && s.hist.is_empty());
        assert!(s.check(Direction::H2P).is_ok());
        s.add(30, 20);
        assert!(s.check(Direction::H2P).is_err(), "a warm-up sample going back fails too");
    }
}
