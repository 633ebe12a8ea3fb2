//! Messages larger than one frame: splitting into fragments and reassembling them
//! (docs/protocol.md §1.6).
//!
//! A message that fits into one frame goes without a fragment record. Otherwise every frame
//! carries `FRAG` with `{msg_len, offset}`, in order and without gaps; the links are reliable and
//! ordered, so any deviation is an error, not something to repair.

use crate::frame::{FRAG_LEN, Fragment, FrameRef, MAX_BODY, OVERHEAD, TS_LEN};

/// Payload bytes per frame when whole frames may be at most `max_frame` bytes
/// (`max_frame − 16 − 24·ts − 8·frag`, capped by the 65535-byte body). Zero if nothing fits.
pub fn max_payload(max_frame: usize, ts: bool, frag: bool) -> usize {
    let ext = if ts { TS_LEN } else { 0 } + if frag { FRAG_LEN } else { 0 };
    max_frame.min(MAX_BODY + OVERHEAD).saturating_sub(OVERHEAD + ext)
}

/// Splits `msg` into frames of at most `max_frame` bytes, copying everything but the payload
/// and the fragment record from `head` (whose own payload and `frag` are ignored).
///
/// Returns `None` if `max_frame` leaves no room for payload in a fragment, or if the message
/// is longer than `u32::MAX` bytes.
pub fn fragments<'a>(head: FrameRef<'a>, msg: &'a [u8], max_frame: usize) -> Option<Fragments<'a>> {
    let ts = head.ts.is_some();
    let single = msg.len() <= max_payload(max_frame, ts, false);
    let chunk = if single { msg.len().max(1) } else { max_payload(max_frame, ts, true) };
    if chunk == 0 || u32::try_from(msg.len()).is_err() {
        return None;
    }
    Some(Fragments {
        head: FrameRef { payload: &[], frag: None, ..head },
        msg,
        chunk,
        single,
        offset: 0,
        done: false,
    })
}

/// Iterator over the frames of one message (see [`fragments`]).
#[derive(Debug, Clone)]
pub struct Fragments<'a> {
    head: FrameRef<'a>,
    msg: &'a [u8],
    chunk: usize,
    single: bool,
    offset: usize,
    done: bool,
}

impl<'a> Iterator for Fragments<'a> {
    type Item = FrameRef<'a>;

    fn next(&mut self) -> Option<FrameRef<'a>> {
        if self.done {
            return None;
        }
        let end = (self.offset + self.chunk).min(self.msg.len());
        let frag = (!self.single)
            .then_some(Fragment { msg_len: self.msg.len() as u32, offset: self.offset as u32 });
        let f = FrameRef { payload: &self.msg[self.offset..end], frag, ..self.head };
        self.offset = end;
        self.done = end == self.msg.len();
        Some(f)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n =
            if self.done { 0 } else { (self.msg.len() - self.offset).div_ceil(self.chunk).max(1) };
        (n, Some(n))
    }
}

impl ExactSizeIterator for Fragments<'_> {}

/// Why a fragment does not fit the message being reassembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReassemblyError {
    /// The first fragment seen does not start at offset 0.
    #[error("message seq {seq} starts at offset {offset}, not 0")]
    NotFirst {
        /// Sequence number.
        seq: u32,
        /// Its offset.
        offset: u32,
    },
    /// A fragment does not continue where the previous one ended.
    #[error("fragment of seq {seq} at offset {got}, expected {expected}")]
    Gap {
        /// Sequence number.
        seq: u32,
        /// Offset expected.
        expected: u32,
        /// Offset received.
        got: u32,
    },
    /// `seq`, type, channel or `msg_len` changed before the message was complete, or an
    /// unfragmented frame arrived in the middle of a message.
    #[error("message seq {seq} interrupted by another frame (seq {other})")]
    Interrupted {
        /// Sequence number of the incomplete message.
        seq: u32,
        /// Sequence number of the interrupting frame.
        other: u32,
    },
    /// A fragment reaches beyond `msg_len`.
    #[error("fragment of seq {seq} ends at {end}, beyond the message length {msg_len}")]
    Overrun {
        /// Sequence number.
        seq: u32,
        /// Its end offset.
        end: u64,
        /// The message length.
        msg_len: u32,
    },
    /// The message is longer than this reassembler accepts.
    #[error("message of {msg_len} bytes exceeds the limit of {max}")]
    TooLarge {
        /// The message length.
        msg_len: u32,
        /// The limit.
        max: usize,
    },
    /// A fragment with no payload that does not complete an empty message.
    #[error("empty fragment in message seq {seq}")]
    Empty {
        /// Sequence number.
        seq: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Current {
    seq: u32,
    ty: u8,
    chan: u8,
    msg_len: u32,
}

/// Reassembles messages from frames, in a buffer reused from message to message.
#[derive(Debug, Clone)]
pub struct Reassembler {
    buf: Vec<u8>,
    max_msg: usize,
    cur: Option<Current>,
}

impl Reassembler {
    /// A reassembler for messages of up to `max_msg` bytes.
    pub fn new(max_msg: usize) -> Self {
        Reassembler { buf: Vec::new(), max_msg, cur: None }
    }

    /// True while a fragmented message is incomplete.
    pub fn in_progress(&self) -> bool {
        self.cur.is_some()
    }

    /// Bytes of the incomplete message received so far.
    pub fn received(&self) -> usize {
        if self.cur.is_some() { self.buf.len() } else { 0 }
    }

    /// The last complete message (empty before the first, and while the next one is being
    /// reassembled it is the partial one).
    pub fn message(&self) -> &[u8] {
        &self.buf
    }

    /// Forgets an incomplete message.
    pub fn reset(&mut self) {
        self.cur = None;
        self.buf.clear();
    }

    /// Adds a frame. Returns the whole message when this frame completes it (an unfragmented
    /// frame completes its own message). After an error the reassembler is reset.
    ///
    /// # Errors
    /// See [`ReassemblyError`].
    pub fn push(&mut self, f: &FrameRef<'_>) -> Result<Option<&[u8]>, ReassemblyError> {
        let r = self.push_inner(f);
        if r.is_err() {
            self.reset();
        }
        r?;
        if self.cur.is_some() {
            return Ok(None);
        }
        Ok(Some(&self.buf))
    }

    fn push_inner(&mut self, f: &FrameRef<'_>) -> Result<(), ReassemblyError> {
        let Some(fr) = f.frag else {
            if let Some(cur) = self.cur {
                return Err(ReassemblyError::Interrupted { seq: cur.seq, other: f.seq });
            }
            if f.payload.len() > self.max_msg {
                return Err(ReassemblyError::TooLarge {
                    msg_len: f.payload.len() as u32,
                    max: self.max_msg,
                });
            }
            self.buf.clear();
            self.buf.extend_from_slice(f.payload);
            return Ok(());
        };
        let this = Current { seq: f.seq, ty: f.ty.as_u8(), chan: f.chan, msg_len: fr.msg_len };
        match self.cur {
            None => {
                if fr.offset != 0 {
                    return Err(ReassemblyError::NotFirst { seq: f.seq, offset: fr.offset });
                }
                if fr.msg_len as usize > self.max_msg {
                    return Err(ReassemblyError::TooLarge {
                        msg_len: fr.msg_len,
                        max: self.max_msg,
                    });
                }
                self.buf.clear();
                self.cur = Some(this);
            }
            Some(cur) if cur != this => {
                return Err(ReassemblyError::Interrupted { seq: cur.seq, other: f.seq });
            }
            Some(_) => {
                if fr.offset as usize != self.buf.len() {
                    return Err(ReassemblyError::Gap {
                        seq: f.seq,
                        expected: self.buf.len() as u32,
                        got: fr.offset,
                    });
                }
            }
        }
        let end = u64::from(fr.offset) + f.payload.len() as u64;
        if end > u64::from(fr.msg_len) {
            return Err(ReassemblyError::Overrun { seq: f.seq, end, msg_len: fr.msg_len });
        }
        if f.payload.is_empty() && fr.msg_len != 0 {
            return Err(ReassemblyError::Empty { seq: f.seq });
        }
        self.buf.extend_from_slice(f.payload);
        if end == u64::from(fr.msg_len) {
            self.cur = None;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{FrameType, RPMSG_MTU, Timestamps, decode_exact};

    fn pattern(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i & 0xff) as u8).collect()
    }

    #[test]
    fn rpmsg_payload_sizes() {
        assert_eq!(max_payload(RPMSG_MTU, false, false), 480);
        assert_eq!(max_payload(RPMSG_MTU, false, true), 472);
        assert_eq!(max_payload(RPMSG_MTU, true, true), 448);
        assert_eq!(max_payload(10, false, false), 0);
        assert_eq!(max_payload(usize::MAX, false, false), MAX_BODY);
    }

    #[test]
    fn echo_64k_over_rpmsg_round_trips() {
        let msg = pattern(65536);
        let mut head = FrameRef::new(FrameType::Echo, 42, &[]);
        head.ts = Some(Timestamps::default());
        let frames: Vec<Vec<u8>> = fragments(head, &msg, RPMSG_MTU)
            .unwrap()
            .map(|f| f.to_frame().encode().unwrap())
            .collect();
        assert_eq!(frames.len(), 65536usize.div_ceil(448));
        assert!(frames.iter().all(|f| f.len() <= RPMSG_MTU));
        let mut r = Reassembler::new(1 << 20);
        let mut done = None;
        for (i, bytes) in frames.iter().enumerate() {
            let f = decode_exact(bytes, MAX_BODY).unwrap();
            let out = r.push(&f).unwrap();
            if i + 1 < frames.len() {
                assert!(out.is_none());
            } else {
                done = out.map(<[u8]>::to_vec);
            }
        }
        assert_eq!(done.as_deref(), Some(&msg[..]));
    }

    #[test]
    fn small_message_is_one_unfragmented_frame() {
        let msg = pattern(480);
        let v: Vec<_> =
            fragments(FrameRef::new(FrameType::Echo, 1, &[]), &msg, RPMSG_MTU).unwrap().collect();
        assert_eq!(v.len(), 1);
        assert!(v[0].frag.is_none());
        let empty: Vec<_> =
            fragments(FrameRef::new(FrameType::Echo, 1, &[]), &[], 64).unwrap().collect();
        assert_eq!(empty.len(), 1);
        assert!(empty[0].payload.is_empty());
        assert!(fragments(FrameRef::new(FrameType::Echo, 1, &[]), &msg, 24).is_none());
    }

    #[test]
    fn reassembly_errors_are_named() {
        let msg = pattern(2000);
        let frames: Vec<FrameRef<'_>> =
            fragments(FrameRef::new(FrameType::Data, 5, &[]), &msg, 512).unwrap().collect();
        assert_eq!(frames.len(), 5);
        let mut r = Reassembler::new(4096);
        assert_eq!(r.push(&frames[1]), Err(ReassemblyError::NotFirst { seq: 5, offset: 488 }));
        r.push(&frames[0]).unwrap();
        assert_eq!(
            r.push(&frames[2]),
            Err(ReassemblyError::Gap { seq: 5, expected: 488, got: 976 })
        );
        assert!(!r.in_progress());
        r.push(&frames[0]).unwrap();
        let mut other = frames[1];
        other.seq = 6;
        assert_eq!(r.push(&other), Err(ReassemblyError::Interrupted { seq: 5, other: 6 }));
        let mut small = Reassembler::new(100);
        assert_eq!(
            small.push(&frames[0]),
            Err(ReassemblyError::TooLarge { msg_len: 2000, max: 100 })
        );
    }
}
