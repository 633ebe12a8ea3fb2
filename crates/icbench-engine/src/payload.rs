//! Message contents that make every corruption visible.
//!
//! The body is a fixed pseudo-random pattern per size; the first 8 bytes
//! carry the message's sequence number and the last 8 its complement. A stale
//! buffer, a reordered or lost message, a truncation or a flipped byte all
//! make an echo differ from what was sent. Stamping writes 16 bytes, so
//! building a message costs next to nothing in the timed loop.
//!
//! A oneway message (issue 7) is the same payload with the sender's clock
//! read written over its first 8 bytes ([`put_clock`]); the receiver checks
//! every other byte, the sequence complement in the last 8 included
//! ([`oneway_bad_at`]), so a oneway message is at least
//! [`ONEWAY_MIN_BYTES`] long.

/// Bytes of the sender's clock stamp at the head of a oneway message.
pub const STAMP_LEN: usize = 8;
/// The smallest oneway message: the 8-byte clock stamp, then the 8-byte
/// sequence check (without it a stale or repeated message would pass).
pub const ONEWAY_MIN_BYTES: usize = 16;

/// The payload of one cell.
#[derive(Debug, Clone)]
pub struct Payload {
    base: Vec<u8>,
}

impl Payload {
    pub fn new(len: usize) -> Payload {
        // xorshift32: cheap, and no byte value repeats with a short period.
        let mut x: u32 = 0x9e37_79b9 ^ len as u32;
        let base = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        Payload { base }
    }

    pub fn len(&self) -> usize {
        self.base.len()
    }

    pub fn is_empty(&self) -> bool {
        self.base.is_empty()
    }

    /// A buffer holding the message for sequence number 0.
    pub fn buffer(&self) -> Vec<u8> {
        let mut b = self.base.clone();
        Self::stamp(&mut b, 0);
        b
    }

    /// Writes the sequence stamp for `seq` into a buffer made by [`buffer`].
    #[inline(always)]
    pub fn stamp(buf: &mut [u8], seq: u64) {
        let n = buf.len();
        let head = n.min(8);
        buf[..head].copy_from_slice(&seq.to_le_bytes()[..head]);
        if n >= 16 {
            buf[n - 8..].copy_from_slice(&(!seq).to_le_bytes());
        }
    }

    /// Whether `msg` is exactly the message for `seq`.
    pub fn check(&self, msg: &[u8], seq: u64) -> bool {
        let n = self.base.len();
        if msg.len() != n {
            return false;
        }
        let head = n.min(8);
        if msg[..head] != seq.to_le_bytes()[..head] {
            return false;
        }
        if n >= 16 {
            msg[8..n - 8] == self.base[8..n - 8] && msg[n - 8..] == (!seq).to_le_bytes()
        } else {
            msg[head..] == self.base[head..]
        }
    }
}

/// Writes the sender's clock read `t_ns` into the head of a oneway message.
#[inline(always)]
pub fn put_clock(msg: &mut [u8], t_ns: u64) {
    msg[..STAMP_LEN].copy_from_slice(&t_ns.to_le_bytes());
}

/// The sender's clock read carried by a oneway message.
#[inline(always)]
pub fn clock_of(msg: &[u8]) -> u64 {
    u64::from_le_bytes(msg[..STAMP_LEN].try_into().expect("a oneway message holds its stamp"))
}

/// Where a received oneway message first differs from `expected` (a buffer
/// of [`Payload::buffer`] stamped with the message's sequence number),
/// the clock stamp excepted; `None` when intact.
#[inline]
pub fn oneway_bad_at(msg: &[u8], expected: &[u8]) -> Option<usize> {
    if msg.len() == expected.len() && msg[STAMP_LEN..] == expected[STAMP_LEN..] {
        return None;
    }
    let tail = msg.get(STAMP_LEN..).unwrap_or(&[]);
    Some(STAMP_LEN + first_difference(tail, &expected[STAMP_LEN..]).unwrap_or(0))
}

/// Where two buffers first differ, for a failure reason.
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y).or(if a.len() != b.len() {
        Some(a.len().min(b.len()))
    } else {
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamped_message_checks_and_every_single_flip_is_caught() {
        for len in [1, 7, 8, 15, 16, 17, 64, 300] {
            let p = Payload::new(len);
            let mut m = p.buffer();
            Payload::stamp(&mut m, 42);
            assert!(p.check(&m, 42), "len {len}");
            assert!(!p.check(&m, 43) || len == 0, "len {len}: wrong seq passed");
            for i in 0..len {
                let mut bad = m.clone();
                bad[i] ^= 0x01;
                assert!(!p.check(&bad, 42), "len {len}: flip at {i} missed");
            }
        }
    }

    #[test]
    fn a_oneway_message_carries_its_stamp_and_every_other_byte_is_checked() {
        let p = Payload::new(64);
        let mut msg = p.buffer();
        Payload::stamp(&mut msg, 5);
        put_clock(&mut msg, 123_456_789);
        assert_eq!(clock_of(&msg), 123_456_789);
        let mut expected = p.buffer();
        Payload::stamp(&mut expected, 5);
        assert_eq!(oneway_bad_at(&msg, &expected), None, "the stamp is not compared");
        for i in STAMP_LEN..64 {
            let mut bad = msg.clone();
            bad[i] ^= 0x40;
            assert_eq!(oneway_bad_at(&bad, &expected), Some(i));
        }
        // The message of another sequence number (stale, repeated) fails
        // at the sequence complement in the last 8 bytes.
        Payload::stamp(&mut expected, 6);
        assert_eq!(oneway_bad_at(&msg, &expected), Some(56));
    }

    #[test]
    fn a_stale_buffer_differs_from_the_next_message() {
        let p = Payload::new(64);
        let mut a = p.buffer();
        Payload::stamp(&mut a, 1);
        let mut b = a.clone();
        Payload::stamp(&mut b, 2);
        assert_ne!(a, b);
        assert_eq!(first_difference(&a, &b), Some(0));
        assert_eq!(first_difference(&a, &a), None);
        assert_eq!(first_difference(&a, &a[..10]), Some(10));
    }
}
