//! Stream one way through a remote that moves whole buffers on command
//! (`--protocol raw -p stream` on a link with
//! [`icbench_link::buffers::RemoteBuffers`]: `sdb:`). Only a descriptor
//! crosses the link; the bytes stay in memory both sides map.
//!
//! - peer → host: the remote fills a buffer with the pattern of the
//!   message's sequence number; the host checks every byte of it.
//! - host → peer: the host fills a buffer with the pattern; the remote
//!   checks every byte and reports how many matched.
//!
//! Up to `min(--window, buffers)` buffers are in flight; each is asked for
//! again as soon as its report is in. One sample is the time from one
//! report (checked) to the next, so the measured phase's sum is its length
//! and bytes ÷ elapsed its throughput; the host's fill or check of a buffer
//! lies inside it (producing and consuming the data is the transfer's work
//! on this side). Requests still in flight when the phase ends are
//! collected after it, untimed. Nothing allocates inside the loop.

use std::sync::atomic::AtomicU64;

use icbench_link::buffers::{RemoteBuffers, fill_pattern, first_bad};
use icbench_link::{Link, LinkError};
use icbench_model::{CellData, Direction};

use super::sampled;
use crate::clock::now_ns;
use crate::pattern::{Budget, CellError};

/// A buffer's sequence number seeds its pattern (the remote's u32 seed).
fn seed(seq: u64) -> u32 {
    seq as u32 ^ 0x5eed_0000
}

/// The requests in flight, oldest first: a ring over the slots.
struct Pipe {
    size: usize,
    direction: Direction,
    window: usize,
    /// Sequence number of the oldest request in flight, and of the next.
    oldest: u64,
    next: u64,
    /// Clock read at the last report (0: none yet).
    last_ns: u64,
}

impl Pipe {
    fn slot(&self, seq: u64) -> usize {
        (seq % self.window as u64) as usize
    }

    /// Asks for buffers until `window` are in flight.
    fn top_up(&mut self, rb: &mut dyn RemoteBuffers) -> Result<(), LinkError> {
        while self.next - self.oldest < self.window as u64 {
            let (slot, s) = (self.slot(self.next), seed(self.next));
            match self.direction {
                Direction::P2H => rb.ask_fill(slot, self.size, s)?,
                Direction::H2P => {
                    fill_pattern(&mut rb.slot_mut(slot)[..self.size], s);
                    rb.ask_check(slot, self.size, s)?;
                }
            }
            self.next += 1;
        }
        Ok(())
    }

    /// Waits for the oldest request's report and checks it.
    fn complete(&mut self, rb: &mut dyn RemoteBuffers) -> Result<(), CellError> {
        let seq = self.oldest;
        let slot = self.slot(seq);
        let got = rb.report(slot).map_err(|e| stalled(e, self.direction, seq, slot))?;
        self.oldest += 1;
        let direction = self.direction.describe();
        match self.direction {
            Direction::P2H if got != self.size => Err(CellError::Wire(format!(
                "asked the remote to fill {} B of buffer {slot}; it reported {got} B",
                self.size
            ))),
            Direction::P2H => match first_bad(&rb.slot(slot)[..self.size], seed(seq)) {
                None => Ok(()),
                Some(offset) => {
                    Err(CellError::CorruptOneWay { direction, seq, size: self.size, offset })
                }
            },
            // The remote's count of matching bytes is the first bad offset.
            Direction::H2P if got < self.size => {
                Err(CellError::CorruptOneWay { direction, seq, size: self.size, offset: got })
            }
            Direction::H2P => Ok(()),
        }
    }

    /// One sample: the time from the previous report to this one.
    fn one(&mut self, rb: &mut dyn RemoteBuffers) -> Result<u64, CellError> {
        if self.last_ns == 0 {
            self.last_ns = now_ns();
        }
        self.top_up(rb).map_err(|e| stalled(e, self.direction, self.next, self.slot(self.next)))?;
        self.complete(rb)?;
        let t = now_ns();
        let ns = t - self.last_ns;
        self.last_ns = t;
        Ok(ns.max(1))
    }

    /// Collects what is still in flight (after the measured phase).
    fn drain(&mut self, rb: &mut dyn RemoteBuffers) -> Result<(), CellError> {
        while self.oldest < self.next {
            self.complete(rb)?;
        }
        Ok(())
    }
}

fn stalled(e: LinkError, direction: Direction, seq: u64, slot: usize) -> CellError {
    match e {
        LinkError::Aborted => CellError::Stalled {
            waiting: format!(
                "waiting for the remote's report on buffer {slot} ({} message {seq})",
                direction.describe()
            ),
        },
        e => CellError::Link(e),
    }
}

fn no_buffers() -> CellError {
    CellError::Unsupported(
        "pattern stream with the raw protocol needs a link whose remote fills and checks \
         shared buffers (sdb:); an echo responder has only pingpong"
            .into(),
    )
}

/// A stream cell of `size`-byte buffers in `direction`.
pub(crate) fn stream(
    link: &mut dyn Link,
    size: usize,
    direction: Direction,
    budget: &Budget,
    progress: &AtomicU64,
) -> Result<CellData, CellError> {
    let rb = link.remote_buffers().ok_or_else(no_buffers)?;
    if size == 0 || size > rb.slot_bytes() {
        return Err(CellError::Unsupported(format!(
            "a {size} B buffer: the link's buffers hold 1 to {} B (give a larger size=)",
            rb.slot_bytes()
        )));
    }
    let window = budget.window.clamp(1, rb.slots() as u32) as usize;
    let mut pipe = Pipe { size, direction, window, oldest: 0, next: 0, last_ns: 0 };
    let mut data = sampled(link, budget, progress, size as u64, |link, _| {
        pipe.one(link.remote_buffers().ok_or_else(no_buffers)?)
    })?;
    pipe.drain(link.remote_buffers().ok_or_else(no_buffers)?)?;
    // Times between reports, not round trips: the cell's figure is its
    // throughput (and time per buffer), as for every stream.
    data.latency = None;
    data.raw_ns = None;
    data.window = Some(window as u32);
    Ok(data)
}

#[cfg(test)]
#[path = "buffers_tests.rs"]
mod tests;
