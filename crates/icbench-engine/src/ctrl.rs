//! The control messages between the engine and a local peer.
//!
//! Before each phase of a cell the host sends one 24-byte control message
//! over the link itself; the peer then knows the size and count of the
//! messages that follow, so the timed messages carry no header of ours (a
//! 1-byte ping-pong is one byte on the wire, as in a minimal loop) and byte
//! streams need no framing beyond the known length.
//!
//! ```text
//! offset  size  field
//!      0     4  magic "ICBC" (0x43424349 little-endian)
//!      4     4  op: 1 echo, 2 sink, 3 quit, 4 oneway, 5 source
//!      8     4  size of each message, bytes
//!     12     4  count of messages
//!     16     4  sink: credit_every, a credit after this many messages;
//!               oneway: direction, 0 host → peer (h2p), 1 peer → host (p2h);
//!               source: window, the most messages in flight
//!     20     4  reserved, 0
//! ```
//!
//! A credit (sink) is 8 bytes: messages received so far in this phase, then
//! how many of them failed the payload check, both u32 little-endian.
//!
//! Source (the stream pattern peer → host): the roles of sink reversed. The
//! peer sends `count` messages of the cell's payload, each stamped with its
//! sequence number ([`crate::payload::Payload::stamp`]), keeping at most
//! `window` of them unacknowledged; the host checks every byte of each and
//! returns a credit (the same 8 bytes, `bad` always 0: the host fails the
//! cell at the first damaged message instead) every `window / 2` messages
//! and after the last. The peer reads every credit, so the phase ends with
//! nothing left on the link.
//!
//! Oneway (issue 7): `count` messages of `size` bytes travel one way, one at
//! a time. Each carries in its first 8 bytes the sender's clock read just
//! before the send (u64 ns, little-endian: [`crate::payload::put_clock`]);
//! the rest is the cell's payload with the sequence check in its last 8
//! bytes, so `size` is at least [`crate::payload::ONEWAY_MIN_BYTES`]. A
//! short return leg paces the exchange, so that no message queues behind
//! another:
//!
//! - h2p: after each message the peer returns a *reading* of
//!   [`READING_LEN`] bytes: its clock read on arrival (u64 ns), the
//!   message's sequence number (u32), and `bad_at` (u32: 0 if the message
//!   was intact, else 1 + the offset of its first wrong byte).
//! - p2h: after each message the host returns a *go* of [`GO_LEN`] bytes:
//!   the sequence number it received (u64); the peer sends the next message
//!   only once the go for the last one is in, and checks the number.

use icbench_model::Direction;

pub const CTRL_LEN: usize = 24;
pub const CREDIT_LEN: usize = 8;
/// The peer's answer to each host → peer oneway message.
pub const READING_LEN: usize = 16;
/// The host's answer to each peer → host oneway message.
pub const GO_LEN: usize = 8;
const MAGIC: u32 = u32::from_le_bytes(*b"ICBC");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Echo `count` messages of `size` bytes.
    Echo {
        size: u32,
        count: u32,
    },
    /// Receive `count` messages and return a credit every `credit_every`.
    Sink {
        size: u32,
        count: u32,
        credit_every: u32,
    },
    Quit,
    /// `count` messages of `size` bytes, each stamped with the sender's
    /// clock, one at a time in `direction`.
    OneWay {
        size: u32,
        count: u32,
        direction: Direction,
    },
    /// Send `count` messages of `size` bytes with up to `window`
    /// unacknowledged, reading the host's credits.
    Source {
        size: u32,
        count: u32,
        window: u32,
    },
}

impl Op {
    pub fn encode(self) -> [u8; CTRL_LEN] {
        let (op, size, count, every) = match self {
            Op::Echo { size, count } => (1u32, size, count, 0),
            Op::Sink { size, count, credit_every } => (2, size, count, credit_every),
            Op::Quit => (3, 0, 0, 0),
            Op::OneWay { size, count, direction } => {
                (4, size, count, u32::from(direction == Direction::P2H))
            }
            Op::Source { size, count, window } => (5, size, count, window),
        };
        let mut b = [0u8; CTRL_LEN];
        for (i, v) in [MAGIC, op, size, count, every, 0].into_iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    pub fn decode(b: &[u8]) -> Result<Op, String> {
        if b.len() != CTRL_LEN {
            return Err(format!("control message of {} B, expected {CTRL_LEN}", b.len()));
        }
        let w = |i: usize| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        if w(0) != MAGIC {
            return Err(format!("bad control magic {:#010x}", w(0)));
        }
        match w(1) {
            1 => Ok(Op::Echo { size: w(2), count: w(3) }),
            2 if w(4) > 0 => Ok(Op::Sink { size: w(2), count: w(3), credit_every: w(4) }),
            3 => Ok(Op::Quit),
            4 => {
                let direction = match w(4) {
                    0 => Direction::H2P,
                    1 => Direction::P2H,
                    d => return Err(format!("bad oneway direction {d}")),
                };
                Ok(Op::OneWay { size: w(2), count: w(3), direction })
            }
            5 if w(4) > 0 => Ok(Op::Source { size: w(2), count: w(3), window: w(4) }),
            op => Err(format!("bad control op {op}")),
        }
    }
}

pub fn encode_credit(received: u32, bad: u32) -> [u8; CREDIT_LEN] {
    let mut b = [0u8; CREDIT_LEN];
    b[..4].copy_from_slice(&received.to_le_bytes());
    b[4..].copy_from_slice(&bad.to_le_bytes());
    b
}

/// The peer's answer to a host → peer oneway message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// The peer's clock read as the message arrived, ns.
    pub read_ns: u64,
    /// The sequence number of the message the peer counted (low 32 bits).
    pub seq: u32,
    /// 0 if the message was intact, else 1 + the offset of its first wrong
    /// byte.
    pub bad_at: u32,
}

impl Reading {
    pub fn encode(self) -> [u8; READING_LEN] {
        let mut b = [0u8; READING_LEN];
        b[..8].copy_from_slice(&self.read_ns.to_le_bytes());
        b[8..12].copy_from_slice(&self.seq.to_le_bytes());
        b[12..].copy_from_slice(&self.bad_at.to_le_bytes());
        b
    }

    pub fn decode(b: &[u8]) -> Reading {
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        Reading {
            read_ns: u64::from_le_bytes(b[..8].try_into().expect("reading is 16 bytes")),
            seq: u32_at(8),
            bad_at: u32_at(12),
        }
    }
}

/// The host's go for the next peer → host oneway message: the sequence
/// number it just received.
pub fn encode_go(seq: u64) -> [u8; GO_LEN] {
    seq.to_le_bytes()
}

pub fn decode_go(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..GO_LEN].try_into().expect("go is 8 bytes"))
}

pub fn decode_credit(b: &[u8]) -> (u32, u32) {
    (
        u32::from_le_bytes(b[..4].try_into().expect("credit is 8 bytes")),
        u32::from_le_bytes(b[4..8].try_into().expect("credit is 8 bytes")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_round_trip_and_garbage_is_refused() {
        for op in [
            Op::Echo { size: 1, count: 2 },
            Op::Sink { size: 65536, count: 9, credit_every: 4 },
            Op::Quit,
            Op::OneWay { size: 64, count: 1000, direction: Direction::H2P },
            Op::OneWay { size: 16, count: 7, direction: Direction::P2H },
            Op::Source { size: 4096, count: 100, window: 32 },
        ] {
            assert_eq!(Op::decode(&op.encode()), Ok(op));
        }
        let mut b = Op::Quit.encode();
        b[0] ^= 1;
        assert!(Op::decode(&b).unwrap_err().contains("magic"));
        assert!(Op::decode(&b[..10]).is_err());
        let sink0 = Op::Sink { size: 1, count: 1, credit_every: 0 }.encode();
        assert!(Op::decode(&sink0).is_err());
        let source0 = Op::Source { size: 1, count: 1, window: 0 }.encode();
        assert!(Op::decode(&source0).is_err(), "a source with no window would never send");
        let src = Op::Source { size: 64, count: 3, window: 32 }.encode();
        assert_eq!((src[4], src[8], src[12], src[16]), (5, 64, 3, 32), "the documented layout");
        assert_eq!(decode_credit(&encode_credit(7, 1)), (7, 1));
    }

    #[test]
    fn oneway_wire_layout_is_as_documented() {
        let b = Op::OneWay { size: 64, count: 3, direction: Direction::P2H }.encode();
        assert_eq!(&b[..4], b"ICBC");
        assert_eq!(b[4], 4, "op 4 is oneway");
        assert_eq!(b[8], 64);
        assert_eq!(b[12], 3);
        assert_eq!(b[16], 1, "1 is peer → host");
        let mut bad = b;
        bad[16] = 2;
        assert!(Op::decode(&bad).unwrap_err().contains("direction 2"));
        let r = Reading { read_ns: 0x0102_0304_0506_0708, seq: 9, bad_at: 33 };
        let e = r.encode();
        assert_eq!(e[0], 0x08);
        assert_eq!(e[8], 9);
        assert_eq!(e[12], 33);
        assert_eq!(Reading::decode(&e), r);
        assert_eq!(decode_go(&encode_go(u64::MAX - 1)), u64::MAX - 1);
    }
}
