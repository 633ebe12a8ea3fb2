//! `icb` frames, version 1 (docs/protocol.md §1).
//!
//! ```text
//!  0      2   3   4   5   6      8              12            12+len   16+len
//!  | magic|ver|typ|flg|chn| len  |     seq      | body (len)  | crc32  |
//! ```
//!
//! body = `[timestamps, 24 bytes, if TS] [fragment record, 8 bytes, if FRAG] [payload]`.
//! All integers are little-endian; the CRC is CRC-32/MPEG-2 over header and body.

use crate::checksum::frame_crc32;
use std::fmt;
use std::ops::BitOr;

/// First two bytes of every frame. `0xCB` never occurs in ASCII console output.
pub const MAGIC: [u8; 2] = [0xCB, 0x1C];
/// The only version this crate speaks.
pub const VERSION: u8 = 1;
/// Fixed header: magic, version, type, flags, chan, len, seq.
pub const HEADER_LEN: usize = 12;
/// Trailing CRC-32.
pub const CRC_LEN: usize = 4;
/// Bytes a frame adds to its body.
pub const OVERHEAD: usize = HEADER_LEN + CRC_LEN;
/// Timestamp block (flag TS): `t_origin`, `t_rx`, `t_tx`, each u64.
pub const TS_LEN: usize = 24;
/// Fragment record (flag FRAG): `msg_len`, `offset`, each u32.
pub const FRAG_LEN: usize = 8;
/// Largest body the `len` field can describe.
pub const MAX_BODY: usize = u16::MAX as usize;
/// Payload of one virtio rpmsg message: 512-byte buffer minus the 16-byte rpmsg header.
pub const RPMSG_MTU: usize = 496;
/// Every responder accepts frames up to this size, so a `HELLO` this small always gets through.
pub const MIN_MAX_FRAME: usize = 64;

/// Frame type (§1.2). Unknown values are carried, not rejected: the frame is well formed, and
/// the responder answers it with `ERROR`/unsupported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameType {
    /// Host → responder: host capabilities.
    Hello,
    /// Responder → host: responder capabilities.
    Caps,
    /// Echoed unchanged (but for flags and timestamps).
    Echo,
    /// Consumed by the responder; answered by `Ack`/`Credit` only.
    Data,
    /// `DATA` bytes received since the previous `ACK`.
    Ack,
    /// More `DATA` frames the host may send.
    Credit,
    /// Counters request / reply.
    Stats,
    /// Clock request / reply.
    Time,
    /// Responder reports a problem with a frame.
    Error,
    /// On-chip: the chip's description, request / reply (`onchip::Chip`).
    Chip,
    /// On-chip: one cell for the initiator core to run (`onchip::RunCell`).
    Run,
    /// On-chip: a cell's outcome (`onchip::RunResult`).
    Result,
    /// A type this version does not know.
    Unknown(u8),
}

impl FrameType {
    /// The type from its wire value.
    pub const fn from_u8(v: u8) -> Self {
        match v {
            1 => FrameType::Hello,
            2 => FrameType::Caps,
            3 => FrameType::Echo,
            4 => FrameType::Data,
            5 => FrameType::Ack,
            6 => FrameType::Credit,
            7 => FrameType::Stats,
            8 => FrameType::Time,
            9 => FrameType::Error,
            10 => FrameType::Chip,
            11 => FrameType::Run,
            12 => FrameType::Result,
            other => FrameType::Unknown(other),
        }
    }

    /// The wire value.
    pub const fn as_u8(self) -> u8 {
        match self {
            FrameType::Hello => 1,
            FrameType::Caps => 2,
            FrameType::Echo => 3,
            FrameType::Data => 4,
            FrameType::Ack => 5,
            FrameType::Credit => 6,
            FrameType::Stats => 7,
            FrameType::Time => 8,
            FrameType::Error => 9,
            FrameType::Chip => 10,
            FrameType::Run => 11,
            FrameType::Result => 12,
            FrameType::Unknown(v) => v,
        }
    }
}

impl From<u8> for FrameType {
    fn from(v: u8) -> Self {
        FrameType::from_u8(v)
    }
}

/// Header flags (§1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(u8);

impl Flags {
    /// Sent by the responder (set on every responder frame, never on host frames).
    pub const REPLY: Flags = Flags(0x01);
    /// A timestamp block starts the body.
    pub const TS: Flags = Flags(0x02);
    /// A fragment record follows the timestamps.
    pub const FRAG: Flags = Flags(0x04);
    /// On `DATA`: answer with an `ACK`.
    pub const ACK_REQ: Flags = Flags(0x08);
    /// Bits that must be zero in version 1.
    pub const RESERVED_MASK: u8 = 0xF0;

    /// No flag set.
    pub const fn empty() -> Self {
        Flags(0)
    }

    /// Flags from their wire value, `None` if a reserved bit is set.
    pub const fn from_bits(bits: u8) -> Option<Self> {
        if bits & Self::RESERVED_MASK != 0 { None } else { Some(Flags(bits)) }
    }

    /// The wire value.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// True if every flag of `other` is set in `self`.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// `self` with `other`'s flags set (`on`) or cleared.
    pub const fn with(self, other: Flags, on: bool) -> Self {
        if on { Flags(self.0 | other.0) } else { Flags(self.0 & !other.0) }
    }
}

impl BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        Flags(self.0 | rhs.0)
    }
}

/// Timestamp block (flag TS), in ticks of the sender's clock (§1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Timestamps {
    /// Requester's clock just before sending; copied into replies.
    pub t_origin: u64,
    /// Responder's clock when the frame had been parsed.
    pub t_rx: u64,
    /// Responder's clock just before sending the reply.
    pub t_tx: u64,
}

/// Fragment record (flag FRAG, §1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Fragment {
    /// Length of the whole message in bytes.
    pub msg_len: u32,
    /// Offset of this fragment's payload in the message.
    pub offset: u32,
}

/// The fixed 12-byte header, as checked by [`Header::parse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Frame type.
    pub ty: FrameType,
    /// Flags (reserved bits are zero).
    pub flags: Flags,
    /// Channel.
    pub chan: u8,
    /// Body length in bytes (extensions + payload).
    pub len: u16,
    /// Sequence number.
    pub seq: u32,
}

impl Header {
    /// Extension bytes (timestamps, fragment record) its flags announce.
    pub const fn ext_len(&self) -> usize {
        ext_len(self.flags)
    }

    /// Whole frame length: header, body and CRC.
    pub const fn frame_len(&self) -> usize {
        OVERHEAD + self.len as usize
    }

    /// Checks the header at the start of `bytes` (which must hold the magic and at least
    /// [`HEADER_LEN`] bytes) in the order shared with the C parser: magic, version, reserved
    /// flags, `len` against `max_body`, `len` against the extensions.
    ///
    /// # Errors
    /// `Truncated`, `BadMagic`, `UnsupportedVersion`, `ReservedFlags`, `TooLong`, `BadLength`.
    pub fn parse(bytes: &[u8], max_body: usize) -> Result<Header, FrameError> {
        if bytes.len() < HEADER_LEN {
            return Err(FrameError::Truncated { needed: HEADER_LEN, have: bytes.len() });
        }
        if bytes[0..2] != MAGIC {
            return Err(FrameError::BadMagic { got: [bytes[0], bytes[1]] });
        }
        if bytes[2] != VERSION {
            return Err(FrameError::UnsupportedVersion { version: bytes[2] });
        }
        let flags =
            Flags::from_bits(bytes[4]).ok_or(FrameError::ReservedFlags { flags: bytes[4] })?;
        let len = u16::from_le_bytes([bytes[6], bytes[7]]);
        let max = max_body.min(MAX_BODY);
        if usize::from(len) > max {
            return Err(FrameError::TooLong { len: len.into(), max });
        }
        if usize::from(len) < ext_len(flags) {
            return Err(FrameError::BadLength { len: len.into(), needed: ext_len(flags) });
        }
        Ok(Header {
            ty: FrameType::from_u8(bytes[3]),
            flags,
            chan: bytes[5],
            len,
            seq: u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]),
        })
    }
}

const fn ext_len(flags: Flags) -> usize {
    let mut n = 0;
    if flags.contains(Flags::TS) {
        n += TS_LEN;
    }
    if flags.contains(Flags::FRAG) {
        n += FRAG_LEN;
    }
    n
}

/// A frame whose payload borrows from a buffer: what the decoders return and what the
/// encoders take.
///
/// On encode the `TS` and `FRAG` bits of `flags` are ignored: they follow `ts` and `frag`.
/// On decode `flags` holds the wire value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRef<'a> {
    /// Frame type.
    pub ty: FrameType,
    /// Flags.
    pub flags: Flags,
    /// Channel.
    pub chan: u8,
    /// Sequence number.
    pub seq: u32,
    /// Timestamp block, if any.
    pub ts: Option<Timestamps>,
    /// Fragment record, if any.
    pub frag: Option<Fragment>,
    /// Payload.
    pub payload: &'a [u8],
}

impl<'a> FrameRef<'a> {
    /// A frame with no flags, no extensions, channel 0.
    pub fn new(ty: FrameType, seq: u32, payload: &'a [u8]) -> Self {
        FrameRef { ty, flags: Flags::empty(), chan: 0, seq, ts: None, frag: None, payload }
    }

    /// The flags as they go on the wire (TS and FRAG from `ts` and `frag`).
    pub fn wire_flags(&self) -> Flags {
        self.flags.with(Flags::TS, self.ts.is_some()).with(Flags::FRAG, self.frag.is_some())
    }

    /// Body length: extensions plus payload.
    pub fn body_len(&self) -> usize {
        ext_len(self.wire_flags()) + self.payload.len()
    }

    /// Whole frame length on the wire.
    pub fn encoded_len(&self) -> usize {
        OVERHEAD + self.body_len()
    }

    /// Encodes into the start of `out`; returns the frame length. No allocation.
    ///
    /// # Errors
    /// `BodyTooLong` if the body exceeds 65535 bytes; `BufferTooSmall`.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let body = self.body_len();
        if body > MAX_BODY {
            return Err(EncodeError::BodyTooLong { len: body });
        }
        let total = OVERHEAD + body;
        if out.len() < total {
            return Err(EncodeError::BufferTooSmall { needed: total, have: out.len() });
        }
        let flags = self.wire_flags();
        out[0..2].copy_from_slice(&MAGIC);
        out[2] = VERSION;
        out[3] = self.ty.as_u8();
        out[4] = flags.bits();
        out[5] = self.chan;
        out[6..8].copy_from_slice(&(body as u16).to_le_bytes());
        out[8..12].copy_from_slice(&self.seq.to_le_bytes());
        let mut at = HEADER_LEN;
        if let Some(ts) = self.ts {
            for t in [ts.t_origin, ts.t_rx, ts.t_tx] {
                out[at..at + 8].copy_from_slice(&t.to_le_bytes());
                at += 8;
            }
        }
        if let Some(fr) = self.frag {
            out[at..at + 4].copy_from_slice(&fr.msg_len.to_le_bytes());
            out[at + 4..at + 8].copy_from_slice(&fr.offset.to_le_bytes());
            at += FRAG_LEN;
        }
        out[at..at + self.payload.len()].copy_from_slice(self.payload);
        at += self.payload.len();
        let crc = frame_crc32(&out[..at]);
        out[at..at + CRC_LEN].copy_from_slice(&crc.to_le_bytes());
        Ok(total)
    }

    /// Appends the encoded frame to `out`.
    ///
    /// # Errors
    /// `BodyTooLong` if the body exceeds 65535 bytes.
    pub fn encode_to_vec(&self, out: &mut Vec<u8>) -> Result<usize, EncodeError> {
        let start = out.len();
        out.resize(start + self.encoded_len(), 0);
        match self.encode_into(&mut out[start..]) {
            Ok(n) => Ok(n),
            Err(e) => {
                out.truncate(start);
                Err(e)
            }
        }
    }

    /// An owned copy.
    pub fn to_frame(&self) -> Frame {
        Frame {
            ty: self.ty,
            flags: self.flags,
            chan: self.chan,
            seq: self.seq,
            ts: self.ts,
            frag: self.frag,
            payload: self.payload.to_vec(),
        }
    }
}

/// An owned frame (tests, golden vectors, off the timed path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Frame type.
    pub ty: FrameType,
    /// Flags.
    pub flags: Flags,
    /// Channel.
    pub chan: u8,
    /// Sequence number.
    pub seq: u32,
    /// Timestamp block, if any.
    pub ts: Option<Timestamps>,
    /// Fragment record, if any.
    pub frag: Option<Fragment>,
    /// Payload.
    pub payload: Vec<u8>,
}

impl Frame {
    /// A borrowed view, for encoding.
    pub fn as_ref(&self) -> FrameRef<'_> {
        FrameRef {
            ty: self.ty,
            flags: self.flags,
            chan: self.chan,
            seq: self.seq,
            ts: self.ts,
            frag: self.frag,
            payload: &self.payload,
        }
    }

    /// The encoded frame.
    ///
    /// # Errors
    /// `BodyTooLong` if the body exceeds 65535 bytes.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut v = Vec::with_capacity(self.as_ref().encoded_len());
        self.as_ref().encode_to_vec(&mut v)?;
        Ok(v)
    }
}

/// Result of looking at the bytes of a candidate frame (shared by the decoders and the
/// stream parser so that both check in the same order).
pub(crate) enum Assess {
    /// Fewer bytes than the next check needs; the value is the length to reach.
    NeedMore(usize),
    /// The first byte is the magic's first byte but the second is not its second.
    NotMagic,
    /// The header or the CRC is wrong.
    Invalid(FrameError),
    /// A complete, valid frame of this length.
    Complete(usize),
}

/// Looks at `buf`, which starts with `MAGIC[0]`.
pub(crate) fn assess(buf: &[u8], max_body: usize) -> Assess {
    if buf.len() < 2 {
        return Assess::NeedMore(2);
    }
    if buf[1] != MAGIC[1] {
        return Assess::NotMagic;
    }
    if buf.len() < HEADER_LEN {
        return Assess::NeedMore(HEADER_LEN);
    }
    let hdr = match Header::parse(buf, max_body) {
        Ok(h) => h,
        Err(e) => return Assess::Invalid(e),
    };
    let total = hdr.frame_len();
    if buf.len() < total {
        return Assess::NeedMore(total);
    }
    let body_end = HEADER_LEN + usize::from(hdr.len);
    let expected = u32::from_le_bytes([
        buf[body_end],
        buf[body_end + 1],
        buf[body_end + 2],
        buf[body_end + 3],
    ]);
    let computed = frame_crc32(&buf[..body_end]);
    if expected != computed {
        return Assess::Invalid(FrameError::CrcMismatch { expected, computed });
    }
    Assess::Complete(total)
}

/// The frame in `buf`, which [`assess`] found complete and valid.
pub(crate) fn view(buf: &[u8]) -> FrameRef<'_> {
    let hdr = Header::parse(buf, MAX_BODY).expect("view() only on assessed frames");
    let body = &buf[HEADER_LEN..HEADER_LEN + usize::from(hdr.len)];
    let mut at = 0;
    let ts = hdr.flags.contains(Flags::TS).then(|| {
        at = TS_LEN;
        Timestamps { t_origin: le_u64(body, 0), t_rx: le_u64(body, 8), t_tx: le_u64(body, 16) }
    });
    let frag = hdr.flags.contains(Flags::FRAG).then(|| {
        let f = Fragment { msg_len: le_u32(body, at), offset: le_u32(body, at + 4) };
        at += FRAG_LEN;
        f
    });
    FrameRef {
        ty: hdr.ty,
        flags: hdr.flags,
        chan: hdr.chan,
        seq: hdr.seq,
        ts,
        frag,
        payload: &body[at..],
    }
}

/// Decodes the frame at the start of `bytes` (no scanning: the first bytes must be the magic).
/// Returns the frame and its length, so the caller can go on with the rest.
///
/// # Errors
/// Any [`FrameError`] but `Garbage` and `TrailingBytes`; `Truncated` if `bytes` ends inside
/// the frame.
pub fn decode(bytes: &[u8], max_body: usize) -> Result<(FrameRef<'_>, usize), FrameError> {
    match bytes.first() {
        None => return Err(FrameError::Truncated { needed: HEADER_LEN, have: 0 }),
        Some(&b) if b != MAGIC[0] => {
            return Err(FrameError::BadMagic { got: [b, bytes.get(1).copied().unwrap_or(0)] });
        }
        Some(_) => {}
    }
    match assess(bytes, max_body) {
        Assess::NeedMore(needed) => Err(FrameError::Truncated { needed, have: bytes.len() }),
        Assess::NotMagic => Err(FrameError::BadMagic { got: [bytes[0], bytes[1]] }),
        Assess::Invalid(e) => Err(e),
        Assess::Complete(n) => Ok((view(&bytes[..n]), n)),
    }
}

/// Decodes `bytes` as exactly one frame (one message on a message link).
///
/// # Errors
/// As [`decode`], plus `TrailingBytes` if bytes follow the frame.
pub fn decode_exact(bytes: &[u8], max_body: usize) -> Result<FrameRef<'_>, FrameError> {
    let (f, n) = decode(bytes, max_body)?;
    if n != bytes.len() {
        return Err(FrameError::TrailingBytes { bytes: bytes.len() - n });
    }
    Ok(f)
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

impl fmt::Display for FrameType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameType::Unknown(v) => write!(f, "unknown({v})"),
            other => f.write_str(match other {
                FrameType::Hello => "hello",
                FrameType::Caps => "caps",
                FrameType::Echo => "echo",
                FrameType::Data => "data",
                FrameType::Ack => "ack",
                FrameType::Credit => "credit",
                FrameType::Stats => "stats",
                FrameType::Time => "time",
                FrameType::Error => "error",
                FrameType::Chip => "chip",
                FrameType::Run => "run",
                FrameType::Result => "result",
                FrameType::Unknown(_) => unreachable!(),
            }),
        }
    }
}

mod body;
mod error;
pub use body::*;
pub use error::{EncodeError, FrameError};

#[cfg(test)]
mod tests;
