//! The seed format of `dimtass/stm32mp1-rpmsg-test` (docs/protocol.md §3).
//!
//! Host → peer: a packed 6-byte header `{u16 preamble = 0xABCD, u16 length, u16 crc16}`
//! written over the first six bytes of the test buffer, then the rest of the buffer; `length`
//! counts the whole transfer, header included. Peer → host: 2 bytes, the u16 LE `length`, once
//! the peer has counted `length` bytes. The firmware never checks `crc16`.

pub use crate::checksum::{SEED_CRC16, seed_crc16};

/// The preamble (`enum { PREAMBLE=0xABCD }`), bytes `CD AB` on the wire.
pub const PREAMBLE: u16 = 0xABCD;
/// Header length (`#pragma pack(1) struct packet`).
pub const HEADER_LEN: usize = 6;
/// Reply length.
pub const REPLY_LEN: usize = 2;
/// The seed's test buffer size (`COM_BUFFER_SIZE`).
pub const SEED_BUFFER_LEN: usize = 32768;

/// Errors of the dimtass format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DimtassError {
    /// Fewer bytes than the header or reply needs.
    #[error("truncated: need {needed} bytes, have {have}")]
    Truncated {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        have: usize,
    },
    /// The first two bytes are not the preamble.
    #[error("bad preamble {got:#06x} (expected 0xabcd)")]
    BadPreamble {
        /// The value found.
        got: u16,
    },
    /// The transfer is longer than the u16 `length` can say.
    #[error("transfer of {len} bytes exceeds 65535")]
    TooLong {
        /// Requested transfer length.
        len: usize,
    },
    /// The reply is not the length that was sent.
    #[error("peer counted {got} bytes, {expected} were sent")]
    CountMismatch {
        /// Bytes sent.
        expected: u16,
        /// Count in the reply.
        got: u16,
    },
}

/// The 6-byte header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// Bytes of the whole transfer, header included.
    pub length: u16,
    /// Client-side CRC, never checked by the seed firmware.
    pub crc16: u16,
}

impl Header {
    /// Wire form.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..2].copy_from_slice(&PREAMBLE.to_le_bytes());
        b[2..4].copy_from_slice(&self.length.to_le_bytes());
        b[4..6].copy_from_slice(&self.crc16.to_le_bytes());
        b
    }

    /// Parses the header at the start of `bytes`.
    ///
    /// # Errors
    /// `Truncated`, `BadPreamble`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DimtassError> {
        if bytes.len() < HEADER_LEN {
            return Err(DimtassError::Truncated { needed: HEADER_LEN, have: bytes.len() });
        }
        let preamble = u16::from_le_bytes([bytes[0], bytes[1]]);
        if preamble != PREAMBLE {
            return Err(DimtassError::BadPreamble { got: preamble });
        }
        Ok(Header {
            length: u16::from_le_bytes([bytes[2], bytes[3]]),
            crc16: u16::from_le_bytes([bytes[4], bytes[5]]),
        })
    }
}

/// Fills `buf` with the seed's pattern, `buf[i] = i & 0xff`.
pub fn fill_pattern(buf: &mut [u8]) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = (i & 0xff) as u8;
    }
}

/// Makes `buf` one transfer: writes the header over its first six bytes with
/// `length = buf.len()` and `crc16` = the seed CRC of the bytes after the header.
///
/// # Errors
/// `Truncated` if `buf` is shorter than the header, `TooLong` beyond 65535 bytes.
pub fn prepare_transfer(buf: &mut [u8]) -> Result<Header, DimtassError> {
    if buf.len() < HEADER_LEN {
        return Err(DimtassError::Truncated { needed: HEADER_LEN, have: buf.len() });
    }
    let length = u16::try_from(buf.len()).map_err(|_| DimtassError::TooLong { len: buf.len() })?;
    let hdr = Header { length, crc16: seed_crc16(&buf[HEADER_LEN..]) };
    buf[..HEADER_LEN].copy_from_slice(&hdr.to_bytes());
    Ok(hdr)
}

/// The peer's reply for a transfer of `length` bytes.
pub fn encode_reply(length: u16) -> [u8; REPLY_LEN] {
    length.to_le_bytes()
}

/// The count in a 2-byte reply.
///
/// # Errors
/// `Truncated` if fewer than 2 bytes.
pub fn parse_reply(bytes: &[u8]) -> Result<u16, DimtassError> {
    match bytes {
        [lo, hi, ..] => Ok(u16::from_le_bytes([*lo, *hi])),
        _ => Err(DimtassError::Truncated { needed: REPLY_LEN, have: bytes.len() }),
    }
}

/// Checks a reply against the transfer length that was sent.
///
/// # Errors
/// `Truncated`, `CountMismatch`.
pub fn check_reply(bytes: &[u8], sent: u16) -> Result<(), DimtassError> {
    let got = parse_reply(bytes)?;
    if got != sent {
        return Err(DimtassError::CountMismatch { expected: sent, got });
    }
    Ok(())
}

/// What the peer-side counter produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterEvent {
    /// A transfer is complete: send [`encode_reply`] of this length.
    Reply(u16),
    /// Bytes skipped while looking for a preamble.
    Garbage(usize),
}

/// The peer side, as the C responder does it (`firmware/src/icb_dimtass.c`): hunt for the
/// preamble, read the header, count `max(length, 6)` bytes across any fragmentation, reply.
#[derive(Debug, Clone, Default)]
pub struct Counter {
    hdr: [u8; HEADER_LEN],
    have: usize,
    /// Bytes to count for the current transfer, 0 while reading a header.
    target: usize,
    length: u16,
}

impl Counter {
    /// A counter waiting for a header.
    pub fn new() -> Self {
        Counter::default()
    }

    /// Bytes of the current transfer counted so far (header included).
    pub fn counted(&self) -> usize {
        self.have
    }

    /// Consumes a prefix of `input`; returns its length and at most one event. Call again with
    /// the rest until it is empty.
    pub fn step(&mut self, input: &[u8]) -> (usize, Option<CounterEvent>) {
        let [p0, p1] = PREAMBLE.to_le_bytes();
        let mut used = 0;
        let mut garbage = 0;
        while self.target == 0 {
            let Some(&b) = input.get(used) else {
                return (used, (garbage > 0).then_some(CounterEvent::Garbage(garbage)));
            };
            used += 1;
            let ok = match self.have {
                0 => b == p0,
                1 => b == p1,
                _ => true,
            };
            if !ok {
                // A lone first preamble byte is dropped and the new byte looked at again.
                garbage += self.have;
                self.have = 0;
                if b == p0 {
                    self.hdr[0] = b;
                    self.have = 1;
                } else {
                    garbage += 1;
                }
                continue;
            }
            self.hdr[self.have] = b;
            self.have += 1;
            if self.have == HEADER_LEN {
                self.length = u16::from_le_bytes([self.hdr[2], self.hdr[3]]);
                self.target = usize::from(self.length).max(HEADER_LEN);
            }
        }
        if garbage > 0 {
            return (used, Some(CounterEvent::Garbage(garbage)));
        }
        let take = (self.target - self.have).min(input.len() - used);
        self.have += take;
        used += take;
        if self.have == self.target {
            self.have = 0;
            self.target = 0;
            return (used, Some(CounterEvent::Reply(self.length)));
        }
        (used, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_layout() {
        let h = Header { length: 4096, crc16: 0x1234 };
        assert_eq!(h.to_bytes(), [0xCD, 0xAB, 0x00, 0x10, 0x34, 0x12]);
        assert_eq!(Header::from_bytes(&h.to_bytes()), Ok(h));
        assert_eq!(Header::from_bytes(&[0; 6]), Err(DimtassError::BadPreamble { got: 0 }));
        assert_eq!(
            Header::from_bytes(&[0; 5]),
            Err(DimtassError::Truncated { needed: 6, have: 5 })
        );
    }

    #[test]
    fn prepare_writes_over_the_buffer() {
        let mut buf = vec![0u8; 512];
        fill_pattern(&mut buf);
        let h = prepare_transfer(&mut buf).unwrap();
        assert_eq!(h.length, 512);
        assert_eq!(&buf[..4], &[0xCD, 0xAB, 0x00, 0x02]);
        assert_eq!(buf[6], 6);
        assert_eq!(h.crc16, seed_crc16(&buf[6..]));
        assert!(prepare_transfer(&mut vec![0; 65536]).is_err());
    }

    #[test]
    fn reply_parsing() {
        assert_eq!(parse_reply(&encode_reply(512)), Ok(512));
        assert_eq!(encode_reply(0x1234), [0x34, 0x12]);
        assert!(parse_reply(&[1]).is_err());
        assert_eq!(check_reply(&[0, 2], 512), Ok(()));
        assert_eq!(
            check_reply(&[0, 1], 512),
            Err(DimtassError::CountMismatch { expected: 512, got: 256 })
        );
    }

    fn run(c: &mut Counter, pieces: &[&[u8]]) -> (Vec<u16>, usize) {
        let (mut replies, mut garbage) = (Vec::new(), 0);
        for p in pieces {
            let mut input = *p;
            loop {
                let (used, ev) = c.step(input);
                input = &input[used..];
                match ev {
                    Some(CounterEvent::Reply(n)) => replies.push(n),
                    Some(CounterEvent::Garbage(n)) => garbage += n,
                    None if input.is_empty() => break,
                    None => {}
                }
            }
        }
        (replies, garbage)
    }

    #[test]
    fn counts_across_any_fragmentation() {
        let mut a = vec![0u8; 512];
        fill_pattern(&mut a);
        prepare_transfer(&mut a).unwrap();
        let mut b = vec![0u8; 1024];
        prepare_transfer(&mut b).unwrap();
        let mut wire = vec![0x11, 0xCD, 0xCD];
        wire.extend(&a);
        wire.extend(&b);
        let whole = run(&mut Counter::new(), &[&wire]);
        assert_eq!(whole, (vec![512, 1024], 3));
        for cut in 0..wire.len() {
            let (x, y) = wire.split_at(cut);
            assert_eq!(run(&mut Counter::new(), &[x, y]), whole, "cut {cut}");
        }
        let ones: Vec<&[u8]> = wire.chunks(1).collect();
        assert_eq!(run(&mut Counter::new(), &ones), whole);
    }

    #[test]
    fn short_length_replies_after_header() {
        let h = Header { length: 2, crc16: 0 }.to_bytes();
        assert_eq!(run(&mut Counter::new(), &[&h]), (vec![2], 0));
    }
}
