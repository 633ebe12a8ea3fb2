//! The on-chip requests over an icb conversation (docs/protocol.md §1.10,
//! issue #16): `CHIP` asks the initiator core what the chip offers, `RUN`
//! has it measure one cell with the other core, and the `RESULT` — the
//! latency histogram in timer ticks, fragmented like any long message —
//! becomes an ordinary cell in ns.

use std::time::Duration;

use icbench_link::Link;
use icbench_model::{CellData, LatencyHistogram, LinkCounters};
use icbench_proto::FrameRef;
use icbench_proto::FrameType;
use icbench_proto::onchip::{Chip, OnChipPattern, OnChipStatus, RunCell, RunResult, TickHist};

use super::{Got, Icb, wire};
use crate::pattern::CellError;

impl Icb {
    /// Sends one request and returns the whole reply of type `want` with
    /// the same seq. An `ERROR` answer, a CRC failure or another frame
    /// fails it with what arrived.
    fn request(
        &mut self,
        link: &mut dyn Link,
        ty: FrameType,
        body: &[u8],
        want: FrameType,
    ) -> Result<Vec<u8>, CellError> {
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        self.reasm.reset();
        self.send(link, &FrameRef::new(ty, seq, body))
            .map_err(|e| self.stalled(e, || format!("sending {ty} seq {seq}")))?;
        loop {
            match self.next(link, None, true) {
                Ok(Some(Got::Reply { ty: t, seq: s, complete })) if t == want && s == seq => {
                    if complete {
                        return Ok(self.reasm.message().to_vec());
                    }
                }
                Ok(Some(Got::Reply { ty: t, seq: s, .. })) => {
                    return Err(wire(format!(
                        "a {t} reply to seq {s} arrived while the {want} reply to seq {seq} \
                         was awaited"
                    )));
                }
                Ok(_) => {}
                Err(e) => {
                    return Err(self.stalled(e, || format!("waiting for the {want} reply")));
                }
            }
        }
    }

    /// What the firmware says of its chip.
    pub(crate) fn chip(&mut self, link: &mut dyn Link) -> Result<Chip, CellError> {
        let body =
            self.request(link, FrameType::Chip, &[], FrameType::Chip).map_err(|e| match e {
                CellError::Wire(w) if w.contains("ERROR 10") => CellError::Unsupported(
                    "the peer answers CHIP with ERROR unsupported: it is a responder, not an \
                     on-chip initiator (firmware/README.md, icb-peer --onchip)"
                        .into(),
                ),
                e => e,
            })?;
        Chip::from_bytes(&body).map_err(wire)
    }

    /// Has the initiator measure `cell` and returns the result, checked.
    pub(crate) fn run_on_chip(
        &mut self,
        link: &mut dyn Link,
        cell: &RunCell,
    ) -> Result<RunResult, CellError> {
        let body = self.request(link, FrameType::Run, &cell.to_bytes(), FrameType::Result)?;
        RunResult::from_bytes(&body).map_err(wire)
    }
}

/// The name of the `RUN` field at `offset` (an `UNSUPPORTED` result's detail).
fn run_field(offset: u32) -> &'static str {
    match offset {
        1 => "pattern",
        2 => "direction",
        3 => "region",
        4 => "notify",
        5 => "flags (raw samples)",
        8 => "size",
        12 => "count",
        16 => "warmup",
        20 => "window (stream credits or bulk block size)",
        24 => "timeout",
        _ => "record",
    }
}

/// A cell's outcome as the engine reports it: the chip's status as a
/// cell error, or the histogram in ns with the window's throughput.
pub(crate) fn cell_data(
    cell: &RunCell,
    res: &RunResult,
    timer_hz: u32,
    timeout: Duration,
) -> Result<CellData, CellError> {
    match res.status {
        OnChipStatus::Ok => {}
        OnChipStatus::Corrupt => {
            return Err(CellError::Wire(format!(
                "on chip: a {} B payload arrived corrupted at byte {}",
                cell.size, res.detail
            )));
        }
        OnChipStatus::Timeout => {
            return Err(CellError::Stalled {
                waiting: format!(
                    "on chip: the other core did not answer within {} ms",
                    timeout.as_millis()
                ),
            });
        }
        OnChipStatus::Unsupported => {
            return Err(CellError::Unsupported(format!(
                "the firmware cannot run this cell: it refuses its {}",
                run_field(res.detail)
            )));
        }
    }
    let ns = |ticks: f64| (ticks * 1e9 / f64::from(timer_hz)).round() as u64;
    let mut hist = LatencyHistogram::new();
    // A chip's bucket holds values anywhere in its width (under 1 % of
    // them): spread its count evenly across it rather than on its middle,
    // so that a median CI narrower than a bucket is not printed as ±0 %.
    for &(i, n) in &res.hist.buckets {
        let (lo, w) = TickHist::bucket(i, res.hist.sub_bits);
        if w == 1 {
            hist.record_n(ns(lo as f64), u64::from(n));
            continue;
        }
        for k in 0..n {
            hist.record(ns(lo as f64 + (f64::from(k) + 0.5) * w as f64 / f64::from(n)));
        }
    }
    let count = u64::from(cell.count);
    let (bytes, elapsed_ns) = match cell.pattern {
        OnChipPattern::Stream | OnChipPattern::Bulk => (res.bytes, ns(res.window_ticks as f64)),
        OnChipPattern::Oneway | OnChipPattern::Pingpong => {
            (count * u64::from(cell.size), ns(res.hist.sum as f64))
        }
    };
    if cell.pattern != OnChipPattern::Stream && res.hist.count != count {
        return Err(wire(format!(
            "on chip: {} samples came back for {count} repetitions",
            res.hist.count
        )));
    }
    // Raw samples: exactly those asked for, one per repetition.
    let raw_ns = match (&res.raw, cell.raw && cell.pattern != OnChipPattern::Stream) {
        (Some(raw), true) if raw.len() as u64 == count => {
            Some(raw.iter().map(|&t| ns(f64::from(t))).collect())
        }
        (None, false) => None,
        (raw, asked) => {
            return Err(wire(format!(
                "on chip: {} raw samples came back, {} were asked for",
                raw.as_ref().map_or(0, Vec::len),
                if asked { count } else { 0 }
            )));
        }
    };
    if cell.pattern == OnChipPattern::Stream && (elapsed_ns == 0 || bytes == 0) {
        return Err(wire("on chip: the stream's window is empty (count 1 and no warm-up?)"));
    }
    Ok(CellData {
        messages: count,
        bytes,
        elapsed_ns,
        warmup_messages: u64::from(cell.warmup),
        latency: (cell.pattern != OnChipPattern::Stream).then_some(hist),
        raw_ns,
        window: (cell.pattern == OnChipPattern::Stream).then_some(cell.window),
        counters: LinkCounters::default(),
        channels: None,
        adaptive: None,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: None,
        timed_batch: None,
        state: None,
    })
}
