//! The seed-000/001 format, host side (docs/protocol.md §3): the buffer is
//! filled with `i & 0xff`, the 6-byte header `{0xABCD, length, crc16}` is
//! written over its first six bytes, the buffer goes out as `blocks` writes
//! of `block` bytes, and the only reply is the 2-byte little-endian count,
//! which must equal the transfer's length. A sample is one whole transfer,
//! from the first write to the count (as the seed's client timed it, but on
//! CLOCK_MONOTONIC_RAW and with block k taken from offset k × block, where
//! the seed's client used offset k).
//!
//! The format carries no check of the data: the count is all a peer says.

use std::sync::atomic::AtomicU64;

use icbench_link::{Link, LinkError};
use icbench_model::CellData;
use icbench_proto::dimtass::{HEADER_LEN, REPLY_LEN, check_reply, fill_pattern, prepare_transfer};

use super::sampled;
use crate::clock::now_ns;
use crate::pattern::{Budget, CellError};

/// The longest transfer: `length` is a u16.
pub(crate) const MAX_TRANSFER: u64 = u16::MAX as u64;

fn stalled(e: LinkError, waiting: impl FnOnce() -> String) -> CellError {
    match e {
        LinkError::Aborted => CellError::Stalled { waiting: waiting() },
        e => CellError::Link(e),
    }
}

/// Transfers of `block × blocks` bytes, each answered by its count.
pub(crate) fn transfer(
    link: &mut dyn Link,
    block: usize,
    blocks: u32,
    budget: &Budget,
    progress: &AtomicU64,
) -> Result<CellData, CellError> {
    let blocks = blocks.max(1) as usize;
    let total = block * blocks;
    if total < HEADER_LEN {
        return Err(CellError::Unsupported(format!(
            "a dimtass transfer is at least {HEADER_LEN} B (its header); this one is {total} B"
        )));
    }
    let mut buf = vec![0u8; total];
    fill_pattern(&mut buf);
    let hdr = prepare_transfer(&mut buf).map_err(|e| CellError::Unsupported(e.to_string()))?;
    // A message link may deliver the reply into a buffer of its own size.
    let mut reply = vec![0u8; 64 << 10];
    sampled(budget, progress, total as u64, |_| {
        let t0 = now_ns();
        for (k, chunk) in buf.chunks(block).enumerate() {
            link.send(chunk).map_err(|e| {
                stalled(e, || format!("sending block {} of {blocks} ({block} B each)", k + 1))
            })?;
        }
        link.recv(&mut reply, REPLY_LEN).map_err(|e| {
            stalled(e, || format!("waiting for the 2-byte count after a {total} B transfer"))
        })?;
        let t1 = now_ns();
        check_reply(&reply[..REPLY_LEN], hdr.length).map_err(|e| {
            CellError::Wire(format!("dimtass reply {:02x} {:02x}: {e}", reply[0], reply[1]))
        })?;
        Ok(t1 - t0)
    })
}
