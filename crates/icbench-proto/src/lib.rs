//! icbench's wire protocols, as pure functions over byte slices: no I/O, no clocks, no
//! allocation on the steady-state path.
//!
//! - [`frame`]: `icb` frames v1 — layout constants, [`FrameRef`] encode/decode, payload
//!   records (capabilities, ack, credit, stats, time, error).
//! - [`parser`]: [`StreamParser`], the incremental parser for byte streams (tty, UART, pty):
//!   accepts any fragmentation, resynchronises after garbage by scanning for the magic.
//! - [`frag`]: splitting a message larger than one frame into fragments and reassembling it.
//! - [`dimtass`]: the seed format (`{u16 0xABCD, u16 length, u16 crc16}` + 2-byte count reply)
//!   and its CRC-16 variant.
//! - [`raw`]: byte-exact echo verification.
//!
//! The byte layouts, the handshake and the choice of CRC are documented in `docs/protocol.md`;
//! the C responder in `firmware/` implements the same frames, and both are tested against the
//! golden vectors in `testdata/frames/`.

pub mod checksum;
pub mod dimtass;
pub mod frag;
pub mod frame;
pub mod onchip;
pub mod parser;
pub mod raw;

pub use frag::{Fragments, Reassembler, ReassemblyError, fragments, max_payload};
pub use frame::{
    Ack, Caps, ClockId, Credit, EncodeError, ErrorReport, Flags, Fragment, Frame, FrameError,
    FrameRef, FrameType, Header, Modes, PayloadError, PeerStats, TimeReply, Timestamps, decode,
    decode_exact,
};
pub use parser::{Event, StreamParser};

use std::fmt;
use std::str::FromStr;

/// How bytes on a link are framed (ARCHITECTURE "Vocabulary": protocol).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Our versioned frames ([`frame`]).
    Icb,
    /// The seed-000/001 format ([`dimtass`]).
    Dimtass,
    /// Byte-exact echo ([`raw`]).
    Raw,
}

impl Protocol {
    /// Every protocol, in documentation order.
    pub const ALL: [Protocol; 3] = [Protocol::Icb, Protocol::Dimtass, Protocol::Raw];

    /// The name used on the command line and in stored runs.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Icb => "icb",
            Protocol::Dimtass => "dimtass",
            Protocol::Raw => "raw",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown protocol name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol {0:?} (expected icb, dimtass or raw)")]
pub struct ProtocolParseError(pub String);

impl FromStr for Protocol {
    type Err = ProtocolParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| ProtocolParseError(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_names_round_trip() {
        for p in Protocol::ALL {
            assert_eq!(p.as_str().parse::<Protocol>(), Ok(p));
        }
        assert!("icb2".parse::<Protocol>().is_err());
    }
}
