//! Links whose far end moves whole buffers on command ([`RemoteBuffers`]):
//! the data stays in memory both sides map, only a descriptor crosses the
//! link (`sdb:`, ST's stm32-rpmsg-sdb; docs/rpmsg.md, "sdb").
//!
//! What this module owns: the capability the engine's one-way buffer
//! stream drives (remote fills → host checks every byte; host fills →
//! remote checks and reports), and the byte pattern both ends agree on.
//! The pattern is the firmware's (`icb_sdb_byte`, firmware/include/icb_sdb.h):
//! the remote fills and checks it without being told the bytes, so it is
//! part of the link's contract, not of the engine.

use crate::LinkError;

/// Byte `i` of a buffer filled with `seed` (firmware's `icb_sdb_byte`):
/// changes with every byte, every 256 and every 64 Ki bytes, so a shifted,
/// repeated or zeroed block differs from it.
#[inline]
pub fn pattern_byte(seed: u32, i: u32) -> u8 {
    seed.wrapping_add(i).wrapping_add(7u32.wrapping_mul(i >> 8)).wrapping_add(13 * (i >> 16)) as u8
}

/// Fills `buf` with the pattern of `seed`.
pub fn fill_pattern(buf: &mut [u8], seed: u32) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pattern_byte(seed, i as u32);
    }
}

/// Offset of the first byte of `buf` that is not the pattern of `seed`.
pub fn first_bad(buf: &[u8], seed: u32) -> Option<usize> {
    buf.iter().enumerate().position(|(i, &b)| b != pattern_byte(seed, i as u32))
}

/// A link whose remote fills and checks buffers it is told about.
///
/// Slots are the link's buffers; requests on different slots may be in
/// flight together, and the remote answers them in the order asked. Every
/// call returns [`LinkError::Aborted`] soon after the link's abort is set.
pub trait RemoteBuffers {
    /// Buffers that can be in flight in one direction at once.
    fn slots(&self) -> usize;
    /// Bytes one slot holds.
    fn slot_bytes(&self) -> usize;
    /// Peer → host: asks the remote to fill `len` bytes of `slot` with the
    /// pattern of `seed` ([`pattern_byte`]).
    fn ask_fill(&mut self, slot: usize, len: usize, seed: u32) -> Result<(), LinkError>;
    /// Host → peer: the slot's memory, to be filled before [`Self::ask_check`].
    fn slot_mut(&mut self, slot: usize) -> &mut [u8];
    /// Host → peer: asks the remote to check `len` bytes of `slot` against
    /// the pattern of `seed`.
    fn ask_check(&mut self, slot: usize, len: usize, seed: u32) -> Result<(), LinkError>;
    /// Waits for the remote's report on `slot` and returns its length: the
    /// bytes filled (after `ask_fill`), or the bytes that matched before
    /// the first bad one (after `ask_check`). A length past the slot is an
    /// error here.
    fn report(&mut self, slot: usize) -> Result<usize, LinkError>;
    /// The slot's memory, to be read after its report.
    fn slot(&self, slot: usize) -> &[u8];
}
