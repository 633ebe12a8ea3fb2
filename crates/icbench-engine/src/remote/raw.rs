//! Byte-exact echo, host side (docs/protocol.md §4), for stock echo
//! firmware (OpenAMP rpmsg-echo, TI and ADI examples) that frames nothing.
//!
//! A message goes out in chunks of at most [`CHUNK`] bytes (and at most the
//! link's largest message), with at most two chunks in flight: an echo peer
//! writes back while the host still writes, so on a byte stream with small
//! buffers (a pty holds a few KiB) sending a whole large message before
//! reading would block both writers. On a message link each chunk is one
//! message and comes back as one. The sample ends when the last byte is
//! back; the whole echo is then compared with what was sent.

use std::sync::atomic::AtomicU64;

use icbench_link::{Link, LinkError};
use icbench_model::CellData;

use super::sampled;
use crate::clock::now_ns;
use crate::pattern::{Budget, CellError};
use crate::payload::{Payload, first_difference};

/// Largest write, bytes.
pub(crate) const CHUNK: usize = 1024;

fn stalled(e: LinkError, waiting: impl FnOnce() -> String) -> CellError {
    match e {
        LinkError::Aborted => CellError::Stalled { waiting: waiting() },
        e => CellError::Link(e),
    }
}

pub(crate) fn pingpong(
    link: &mut dyn Link,
    size: usize,
    budget: &Budget,
    progress: &AtomicU64,
) -> Result<CellData, CellError> {
    let chunk = size.min(link.echo_chunk().unwrap_or(CHUNK)).min(link.caps().max_msg_bytes).max(1);
    let n = size.div_ceil(chunk);
    let payload = Payload::new(size);
    let mut tx = payload.buffer();
    // Room past the message, for links that receive into a buffer of their
    // own message size.
    let mut rx = vec![0u8; size + (64 << 10)];
    sampled(link, budget, progress, size as u64, |link, seq| {
        Payload::stamp(&mut tx, seq);
        let (mut sent, mut got) = (0, 0);
        let t0 = now_ns();
        while got < n {
            while sent < n && sent - got < 2 {
                let end = ((sent + 1) * chunk).min(size);
                link.send(&tx[sent * chunk..end])
                    .map_err(|e| stalled(e, || format!("sending chunk {} of {n}", sent + 1)))?;
                sent += 1;
            }
            let (at, len) = (got * chunk, chunk.min(size - got * chunk));
            link.recv(&mut rx[at..], len).map_err(|e| {
                stalled(e, || format!("waiting for the echo of bytes {at}..{} of {size}", at + len))
            })?;
            got += 1;
        }
        let t1 = now_ns();
        if rx[..size] != tx[..] {
            let offset = first_difference(&rx[..size], &tx).unwrap_or(0);
            return Err(CellError::Corrupt { seq, size, offset });
        }
        Ok(t1 - t0)
    })
}
