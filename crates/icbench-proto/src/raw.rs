//! The `raw` protocol: no framing, every byte comes back unchanged (docs/protocol.md §4).
//! For stock echo firmware (OpenAMP `rpmsg-echo`, TI, ADI). The host checks the echo here.

/// The echo differs from what was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RawError {
    /// A byte differs.
    #[error("echo differs at offset {offset}: sent {expected:#04x}, got {got:#04x}")]
    Mismatch {
        /// Offset in the message.
        offset: usize,
        /// Byte sent.
        expected: u8,
        /// Byte received.
        got: u8,
    },
    /// More bytes came back than were sent.
    #[error("{extra} bytes more than were sent came back")]
    Overrun {
        /// Surplus bytes.
        extra: usize,
    },
}

/// Checks an echo arriving in any pieces against the message that was sent.
#[derive(Debug, Clone)]
pub struct EchoCheck<'a> {
    expected: &'a [u8],
    pos: usize,
}

impl<'a> EchoCheck<'a> {
    /// A check for the echo of `expected`.
    pub fn new(expected: &'a [u8]) -> Self {
        EchoCheck { expected, pos: 0 }
    }

    /// Bytes still to come.
    pub fn remaining(&self) -> usize {
        self.expected.len() - self.pos
    }

    /// Checks the next piece; `Ok(true)` once the whole echo has arrived.
    ///
    /// # Errors
    /// `Mismatch` at the first differing byte, `Overrun` if the piece goes past the end.
    pub fn feed(&mut self, got: &[u8]) -> Result<bool, RawError> {
        let want = &self.expected[self.pos..];
        if got.len() > want.len() {
            return Err(RawError::Overrun { extra: got.len() - want.len() });
        }
        if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
            return Err(RawError::Mismatch {
                offset: self.pos + i,
                expected: want[i],
                got: got[i],
            });
        }
        self.pos += got.len();
        Ok(self.pos == self.expected.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_in_pieces() {
        let msg = b"hello, world";
        let mut c = EchoCheck::new(msg);
        assert_eq!(c.feed(b"hello"), Ok(false));
        assert_eq!(c.remaining(), 7);
        assert_eq!(c.feed(b", world"), Ok(true));
        assert_eq!(c.feed(b"!"), Err(RawError::Overrun { extra: 1 }));
        let mut c = EchoCheck::new(msg);
        assert_eq!(
            c.feed(b"help"),
            Err(RawError::Mismatch { offset: 3, expected: b'l', got: b'p' })
        );
    }
}
