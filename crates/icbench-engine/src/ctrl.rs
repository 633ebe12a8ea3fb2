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
//!      4     4  op: 1 echo, 2 sink, 3 quit
//!      8     4  size of each message, bytes
//!     12     4  count of messages
//!     16     4  credit_every (sink): a credit after this many messages
//!     20     4  reserved, 0
//! ```
//!
//! A credit (sink) is 8 bytes: messages received so far in this phase, then
//! how many of them failed the payload check, both u32 little-endian.

pub const CTRL_LEN: usize = 24;
pub const CREDIT_LEN: usize = 8;
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
}

impl Op {
    pub fn encode(self) -> [u8; CTRL_LEN] {
        let (op, size, count, every) = match self {
            Op::Echo { size, count } => (1u32, size, count, 0),
            Op::Sink { size, count, credit_every } => (2, size, count, credit_every),
            Op::Quit => (3, 0, 0, 0),
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
        ] {
            assert_eq!(Op::decode(&op.encode()), Ok(op));
        }
        let mut b = Op::Quit.encode();
        b[0] ^= 1;
        assert!(Op::decode(&b).unwrap_err().contains("magic"));
        assert!(Op::decode(&b[..10]).is_err());
        let sink0 = Op::Sink { size: 1, count: 1, credit_every: 0 }.encode();
        assert!(Op::decode(&sink0).is_err());
        assert_eq!(decode_credit(&encode_credit(7, 1)), (7, 1));
    }
}
