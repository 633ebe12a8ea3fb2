//! The payload records of the frame types (docs/protocol.md §1.5–§1.8):
//! capabilities, ACK, CREDIT, TIME, ERROR and the peer's counters, each a
//! fixed little-endian layout with its encoder and a length-checked decoder.

use super::{le_u32, le_u64};

/// A payload of the wrong length for its frame type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{record} payload must be {expected} bytes, got {got}")]
pub struct PayloadError {
    /// Which record.
    pub record: &'static str,
    /// Its fixed length.
    pub expected: usize,
    /// The payload's length.
    pub got: usize,
}

fn fixed<const N: usize>(record: &'static str, p: &[u8]) -> Result<[u8; N], PayloadError> {
    p.try_into().map_err(|_| PayloadError { record, expected: N, got: p.len() })
}

/// The `modes` bit set of the capabilities record (§1.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Modes(pub u32);

impl Modes {
    /// Echoes `ECHO` frames.
    pub const ECHO: u32 = 0x01;
    /// Acknowledges `DATA`.
    pub const ACK: u32 = 0x02;
    /// Sinks `DATA` and returns credits.
    pub const SINK: u32 = 0x04;
    /// Answers `STATS`.
    pub const STATS: u32 = 0x08;
    /// Answers `TIME`.
    pub const TIME: u32 = 0x10;
    /// Fills timestamp blocks.
    pub const TIMESTAMPS: u32 = 0x20;
    /// Handles fragmented messages.
    pub const FRAGMENTS: u32 = 0x40;
    /// Everything the C responder does.
    pub const ALL: u32 = 0x7f;

    /// True if every bit of `bits` is set.
    pub const fn has(self, bits: u32) -> bool {
        self.0 & bits == bits
    }
}

/// What clock a side's timestamps come from (§1.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ClockId(pub u8);

impl ClockId {
    /// No clock: timestamps are zero.
    pub const NONE: ClockId = ClockId(0);
    /// Linux `CLOCK_MONOTONIC_RAW`.
    pub const MONOTONIC_RAW: ClockId = ClockId(1);
    /// Linux `CLOCK_MONOTONIC`.
    pub const MONOTONIC: ClockId = ClockId(2);
    /// A free-running counter of this core only (DWT cycle counter, SysTick).
    pub const COUNTER: ClockId = ClockId(3);
    /// A counter both sides read (e.g. STM32MP1 STGEN): one-way latency is meaningful.
    pub const SHARED: ClockId = ClockId(4);
}

/// Capabilities record, payload of `HELLO` and `CAPS` (24 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Caps {
    /// Largest whole frame this side accepts, bytes.
    pub max_frame: u32,
    /// Modes wanted (HELLO) or supported (CAPS).
    pub modes: Modes,
    /// Tick rate of this side's timestamps, Hz (0: no clock).
    pub clock_hz: u32,
    /// Which clock.
    pub clock_id: ClockId,
    /// Initial `DATA` credit (frames the responder can hold); 0 in HELLO.
    pub rx_slots: u32,
    /// ACK period for `DATA` in bytes, requested (HELLO) or applied (CAPS); 0: on request only.
    pub ack_every_bytes: u32,
}

impl Caps {
    /// Encoded length.
    pub const LEN: usize = 24;

    /// Wire form.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[0..4].copy_from_slice(&self.max_frame.to_le_bytes());
        b[4..8].copy_from_slice(&self.modes.0.to_le_bytes());
        b[8..12].copy_from_slice(&self.clock_hz.to_le_bytes());
        b[12] = self.clock_id.0;
        b[16..20].copy_from_slice(&self.rx_slots.to_le_bytes());
        b[20..24].copy_from_slice(&self.ack_every_bytes.to_le_bytes());
        b
    }

    /// From a `HELLO`/`CAPS` payload.
    ///
    /// # Errors
    /// If the payload is not 24 bytes.
    pub fn from_bytes(p: &[u8]) -> Result<Self, PayloadError> {
        let b: [u8; Self::LEN] = fixed("capabilities", p)?;
        Ok(Caps {
            max_frame: le_u32(&b, 0),
            modes: Modes(le_u32(&b, 4)),
            clock_hz: le_u32(&b, 8),
            clock_id: ClockId(b[12]),
            rx_slots: le_u32(&b, 16),
            ack_every_bytes: le_u32(&b, 20),
        })
    }
}

/// `ACK` payload (8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ack {
    /// `seq` of the frame that triggered the ACK.
    pub acked_seq: u32,
    /// Payload bytes of `DATA` received since the previous ACK.
    pub bytes: u32,
}

impl Ack {
    /// Encoded length.
    pub const LEN: usize = 8;

    /// Wire form.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[0..4].copy_from_slice(&self.acked_seq.to_le_bytes());
        b[4..8].copy_from_slice(&self.bytes.to_le_bytes());
        b
    }

    /// From an `ACK` payload.
    ///
    /// # Errors
    /// If the payload is not 8 bytes.
    pub fn from_bytes(p: &[u8]) -> Result<Self, PayloadError> {
        let b: [u8; Self::LEN] = fixed("ack", p)?;
        Ok(Ack { acked_seq: le_u32(&b, 0), bytes: le_u32(&b, 4) })
    }
}

/// `CREDIT` payload (4 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Credit {
    /// Additional `DATA` frames the host may send.
    pub frames: u32,
}

impl Credit {
    /// Encoded length.
    pub const LEN: usize = 4;

    /// Wire form.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        self.frames.to_le_bytes()
    }

    /// From a `CREDIT` payload.
    ///
    /// # Errors
    /// If the payload is not 4 bytes.
    pub fn from_bytes(p: &[u8]) -> Result<Self, PayloadError> {
        let b: [u8; Self::LEN] = fixed("credit", p)?;
        Ok(Credit { frames: u32::from_le_bytes(b) })
    }
}

/// `TIME` reply payload (8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeReply {
    /// The responder's clock, in its ticks.
    pub now_ticks: u64,
}

impl TimeReply {
    /// Encoded length.
    pub const LEN: usize = 8;

    /// Wire form.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        self.now_ticks.to_le_bytes()
    }

    /// From a `TIME` reply payload.
    ///
    /// # Errors
    /// If the payload is not 8 bytes.
    pub fn from_bytes(p: &[u8]) -> Result<Self, PayloadError> {
        let b: [u8; Self::LEN] = fixed("time", p)?;
        Ok(TimeReply { now_ticks: u64::from_le_bytes(b) })
    }
}

/// `ERROR` payload (8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ErrorReport {
    /// Error code of docs/protocol.md §1.8.
    pub code: u16,
    /// `seq` of the offending frame, 0 if unknown.
    pub seq: u32,
}

impl ErrorReport {
    /// Encoded length.
    pub const LEN: usize = 8;
    /// Code for a well-formed frame the responder does not serve.
    pub const UNSUPPORTED: u16 = 10;
    /// Code for a reply that does not fit the responder's buffer.
    pub const NO_SPACE: u16 = 11;

    /// Wire form.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[0..2].copy_from_slice(&self.code.to_le_bytes());
        b[4..8].copy_from_slice(&self.seq.to_le_bytes());
        b
    }

    /// From an `ERROR` payload.
    ///
    /// # Errors
    /// If the payload is not 8 bytes.
    pub fn from_bytes(p: &[u8]) -> Result<Self, PayloadError> {
        let b: [u8; Self::LEN] = fixed("error", p)?;
        Ok(ErrorReport { code: u16::from_le_bytes([b[0], b[1]]), seq: le_u32(&b, 4) })
    }
}

/// `STATS` reply payload: the responder's counters (nine u64, 72 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PeerStats {
    /// Valid frames received.
    pub rx_frames: u64,
    /// Frames sent.
    pub tx_frames: u64,
    /// Payload bytes of valid frames received.
    pub rx_payload_bytes: u64,
    /// Payload bytes sent.
    pub tx_payload_bytes: u64,
    /// Frames dropped for a CRC mismatch.
    pub crc_errors: u64,
    /// Candidates dropped for a bad header (version, flags, length).
    pub header_errors: u64,
    /// Bytes skipped outside frames.
    pub garbage_bytes: u64,
    /// Valid frames it does not serve.
    pub unsupported: u64,
    /// Failed sends (platform hook errors, replies too large).
    pub send_errors: u64,
}

impl PeerStats {
    /// Encoded length.
    pub const LEN: usize = 72;

    fn fields(&self) -> [u64; 9] {
        [
            self.rx_frames,
            self.tx_frames,
            self.rx_payload_bytes,
            self.tx_payload_bytes,
            self.crc_errors,
            self.header_errors,
            self.garbage_bytes,
            self.unsupported,
            self.send_errors,
        ]
    }

    /// Wire form.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        for (i, v) in self.fields().into_iter().enumerate() {
            b[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    /// From a `STATS` reply payload.
    ///
    /// # Errors
    /// If the payload is not 72 bytes.
    pub fn from_bytes(p: &[u8]) -> Result<Self, PayloadError> {
        let b: [u8; Self::LEN] = fixed("stats", p)?;
        let f = |i: usize| le_u64(&b, i * 8);
        Ok(PeerStats {
            rx_frames: f(0),
            tx_frames: f(1),
            rx_payload_bytes: f(2),
            tx_payload_bytes: f(3),
            crc_errors: f(4),
            header_errors: f(5),
            garbage_bytes: f(6),
            unsupported: f(7),
            send_errors: f(8),
        })
    }
}
