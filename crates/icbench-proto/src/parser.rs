//! Incremental parser for `icb` frames on a byte stream (docs/protocol.md §2.1).
//!
//! Bytes may arrive in any pieces; the sequence of frames and errors does not depend on how
//! the input is cut (only `Garbage` events may be split differently; their byte total is the
//! same). After any error the parser drops the first byte of the failed candidate and rescans
//! the bytes it already holds, so a frame hidden behind a false start is not lost. The C
//! parser in `firmware/src/icb_parser.c` implements the same algorithm.
//!
//! ```
//! use icbench_proto::{Event, FrameRef, FrameType, StreamParser};
//! let mut wire = vec![0x00, 0x41];   // two bytes of garbage, then a frame
//! FrameRef::new(FrameType::Echo, 1, b"hi").encode_to_vec(&mut wire).unwrap();
//! let mut parser = StreamParser::new(512);
//! let mut input = &wire[..];
//! let mut frames = 0;
//! while !input.is_empty() {
//!     let (used, event) = parser.step(input);
//!     input = &input[used..];
//!     if let Some(Event::Frame(f)) = event {
//!         assert_eq!(f.payload, b"hi");
//!         frames += 1;
//!     }
//! }
//! assert_eq!(frames, 1);
//! ```

use crate::frame::{Assess, FrameError, FrameRef, MAGIC, MAX_BODY, OVERHEAD, assess, view};

/// What one [`StreamParser::step`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event<'a> {
    /// A valid frame; its payload borrows the parser's buffer until the next `step`.
    Frame(FrameRef<'a>),
    /// A named error: `Garbage` for skipped bytes, or a failed candidate (`UnsupportedVersion`,
    /// `ReservedFlags`, `TooLong`, `BadLength`, `CrcMismatch`).
    Error(FrameError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    None,
    /// A frame of this length was returned: remove it from the buffer (bytes after it, held
    /// since a rescan, stay).
    Consume(usize),
    /// An error was returned: drop the candidate's first byte and rescan.
    DropFirst,
}

/// Incremental `icb` frame parser over a byte stream. Allocates its buffer once.
#[derive(Debug, Clone)]
pub struct StreamParser {
    buf: Vec<u8>,
    max_body: usize,
    garbage: usize,
    pending: Pending,
}

impl StreamParser {
    /// A parser accepting bodies up to `max_body` bytes (at most 65535); longer candidates are
    /// rejected with `TooLong`. Use the peer-announced `max_frame − 16` on firmware links.
    pub fn new(max_body: usize) -> Self {
        let max_body = max_body.min(MAX_BODY);
        StreamParser {
            buf: Vec::with_capacity(max_body + OVERHEAD),
            max_body,
            garbage: 0,
            pending: Pending::None,
        }
    }

    /// The body limit.
    pub fn max_body(&self) -> usize {
        self.max_body
    }

    /// Bytes held for an incomplete candidate.
    pub fn buffered(&self) -> usize {
        match self.pending {
            Pending::Consume(n) => self.buf.len() - n,
            Pending::DropFirst => self.buf.len() - 1,
            Pending::None => self.buf.len(),
        }
    }

    /// Drops any partial candidate (after a read timeout, say); returns the bytes dropped.
    pub fn reset(&mut self) -> usize {
        let n = self.buffered();
        self.buf.clear();
        self.garbage = 0;
        self.pending = Pending::None;
        n
    }

    /// Consumes a prefix of `input` and returns its length with at most one event. Call again
    /// with the rest of the input until it is empty; an event may also be returned with 0
    /// bytes consumed (when the parser rescans bytes it already held), so loop on the event,
    /// not only on the input.
    pub fn step<'s>(&'s mut self, input: &[u8]) -> (usize, Option<Event<'s>>) {
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::None => {}
            Pending::Consume(n) => {
                self.buf.drain(..n);
            }
            Pending::DropFirst => {
                self.buf.remove(0);
                self.garbage += 1;
            }
        }
        let mut used = 0;
        loop {
            // Make the buffer empty or a candidate starting with the magic's first byte.
            if self.buf.first().is_some_and(|&b| b != MAGIC[0]) {
                let skip = self.buf.iter().position(|&b| b == MAGIC[0]).unwrap_or(self.buf.len());
                self.buf.drain(..skip);
                self.garbage += skip;
            }
            if self.buf.is_empty() {
                let rest = &input[used..];
                match rest.iter().position(|&b| b == MAGIC[0]) {
                    Some(i) => {
                        self.garbage += i;
                        self.buf.push(MAGIC[0]);
                        used += i + 1;
                    }
                    None => {
                        self.garbage += rest.len();
                        return (input.len(), self.take_garbage());
                    }
                }
            }
            if self.garbage > 0 {
                return (used, self.take_garbage());
            }
            match assess(&self.buf, self.max_body) {
                Assess::NotMagic => {
                    self.buf.remove(0);
                    self.garbage += 1;
                }
                Assess::NeedMore(target) => {
                    let rest = &input[used..];
                    if rest.is_empty() {
                        return (used, None);
                    }
                    let take = (target - self.buf.len()).min(rest.len());
                    self.buf.extend_from_slice(&rest[..take]);
                    used += take;
                }
                Assess::Invalid(e) => {
                    self.pending = Pending::DropFirst;
                    return (used, Some(Event::Error(e)));
                }
                Assess::Complete(n) => {
                    self.pending = Pending::Consume(n);
                    return (used, Some(Event::Frame(view(&self.buf))));
                }
            }
        }
    }

    fn take_garbage(&mut self) -> Option<Event<'static>> {
        match std::mem::take(&mut self.garbage) {
            0 => None,
            bytes => Some(Event::Error(FrameError::Garbage { bytes })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{Flags, Frame, FrameType, Timestamps};
    use proptest::prelude::*;

    /// What a whole input produced, in a form independent of how it was cut.
    #[derive(Debug, Default, PartialEq, Eq)]
    struct Outcome {
        frames: Vec<Frame>,
        errors: Vec<FrameError>,
        garbage: usize,
    }

    fn run(parser: &mut StreamParser, pieces: &[&[u8]]) -> Outcome {
        let mut out = Outcome::default();
        for piece in pieces {
            let mut input = *piece;
            loop {
                let (used, ev) = parser.step(input);
                input = &input[used..];
                match ev {
                    Some(Event::Frame(f)) => out.frames.push(f.to_frame()),
                    Some(Event::Error(FrameError::Garbage { bytes })) => out.garbage += bytes,
                    Some(Event::Error(e)) => out.errors.push(e),
                    None if input.is_empty() => break,
                    None => {}
                }
            }
        }
        out
    }

    fn frame(seq: u32, payload: &[u8]) -> Vec<u8> {
        FrameRef::new(FrameType::Echo, seq, payload).to_frame().encode().unwrap()
    }

    #[test]
    fn frames_split_anywhere() {
        let mut wire = frame(1, b"first");
        wire.extend(frame(2, &[0xCB; 40]));
        let whole = run(&mut StreamParser::new(512), &[&wire]);
        assert_eq!(whole.frames.len(), 2);
        assert_eq!(whole.garbage, 0);
        for cut in 0..=wire.len() {
            let (a, b) = wire.split_at(cut);
            assert_eq!(run(&mut StreamParser::new(512), &[a, b]), whole, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = wire.chunks(1).collect();
        assert_eq!(run(&mut StreamParser::new(512), &bytes), whole);
    }

    #[test]
    fn resyncs_after_garbage_and_bad_crc() {
        let good = frame(7, b"payload");
        let mut corrupt = frame(8, b"xxxx");
        let n = corrupt.len();
        corrupt[n - 1] ^= 0xff;
        let mut wire = b"log line\r\n".to_vec();
        wire.extend(&corrupt);
        wire.extend(&good);
        wire.extend([0xCB, 0x00]);
        let out = run(&mut StreamParser::new(512), &[&wire]);
        assert_eq!(out.frames.len(), 1);
        assert_eq!(out.frames[0].seq, 7);
        assert!(matches!(out.errors[..], [FrameError::CrcMismatch { .. }]));
        assert_eq!(out.garbage, 10 + corrupt.len() + 2);
    }

    #[test]
    fn frame_hidden_behind_false_header_is_found() {
        // A false candidate claims a long body; the real frame sits inside it.
        let good = frame(3, b"inside");
        let mut wire = vec![0xCB, 0x1C, 1, 3, 0, 0, 40, 0, 0, 0, 0, 0];
        wire.extend(&good);
        wire.extend([0u8; 40]);
        let after = frame(4, b"after");
        wire.extend(&after);
        let out = run(&mut StreamParser::new(512), &[&wire]);
        assert_eq!(out.frames.len(), 2);
        assert_eq!(out.frames[0].payload, b"inside");
        assert_eq!(out.frames[1].payload, b"after");
        assert!(matches!(out.errors[..], [FrameError::CrcMismatch { .. }]));
        assert_eq!(out.garbage, 12 + 40);
    }

    #[test]
    fn header_errors_are_named() {
        let mut v2 = frame(1, b"a");
        v2[2] = 9;
        let mut flags = frame(1, b"a");
        flags[4] = 0x80;
        let long = frame(1, &[0u8; 100]);
        let mut wire = v2.clone();
        wire.extend(&flags);
        wire.extend(&long);
        let out = run(&mut StreamParser::new(64), &[&wire]);
        assert_eq!(
            out.errors,
            vec![
                FrameError::UnsupportedVersion { version: 9 },
                FrameError::ReservedFlags { flags: 0x80 },
                FrameError::TooLong { len: 100, max: 64 },
            ]
        );
        assert_eq!(out.garbage, wire.len());
    }

    #[test]
    fn reset_drops_partial() {
        let wire = frame(1, b"abc");
        let mut p = StreamParser::new(64);
        let (used, ev) = p.step(&wire[..5]);
        assert_eq!((used, ev), (5, None));
        assert_eq!(p.buffered(), 5);
        assert_eq!(p.reset(), 5);
        assert_eq!(run(&mut p, &[&wire]).frames.len(), 1);
    }

    fn arb_frame() -> impl Strategy<Value = Frame> {
        (
            any::<u8>(),
            any::<u8>(),
            any::<u32>(),
            any::<bool>(),
            prop::collection::vec(any::<u8>(), 0..80),
        )
            .prop_map(|(ty, chan, seq, ts, payload)| Frame {
                ty: FrameType::from_u8(ty),
                flags: Flags::empty().with(Flags::TS, ts),
                chan,
                seq,
                ts: ts.then_some(Timestamps { t_origin: seq.into(), t_rx: 1, t_tx: 2 }),
                frag: None,
                payload,
            })
    }

    proptest! {
        /// Valid frames separated by arbitrary garbage: every frame is recovered whatever the
        /// cut, and the outcome does not depend on the cut.
        #[test]
        fn any_fragmentation_same_outcome(
            frames in prop::collection::vec(arb_frame(), 1..6),
            noise in prop::collection::vec(prop::collection::vec(any::<u8>().prop_filter("no magic", |b| *b != 0xCB), 0..20), 6),
            cuts in prop::collection::vec(0usize..400, 0..8),
        ) {
            let mut wire = Vec::new();
            for (f, n) in frames.iter().zip(&noise) {
                wire.extend(n);
                wire.extend(f.encode().unwrap());
            }
            let whole = run(&mut StreamParser::new(128), &[&wire]);
            prop_assert_eq!(&whole.frames, &frames);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(wire.len())).collect();
            cuts.sort_unstable();
            let mut pieces = Vec::new();
            let mut at = 0;
            for c in cuts {
                pieces.push(&wire[at..c]);
                at = c;
            }
            pieces.push(&wire[at..]);
            prop_assert_eq!(run(&mut StreamParser::new(128), &pieces), whole);
        }

        /// Frames mixed with hostile noise (prefixes of frames, corrupted frames, magic
        /// pairs): the outcome does not depend on the cut, every byte is accounted for, and
        /// every intact frame is recovered.
        #[test]
        fn hostile_noise_same_outcome(
            frames in prop::collection::vec(arb_frame(), 1..5),
            noise in prop::collection::vec((0u8..4, 0usize..60, any::<u8>()), 5),
            cut in 0usize..800,
        ) {
            let mut wire = Vec::new();
            for (f, &(kind, n, x)) in frames.iter().zip(&noise) {
                let enc = f.encode().unwrap();
                match kind {
                    0 => wire.extend(&enc[..n.min(enc.len() - 1)]),
                    1 => {
                        let mut bad = enc.clone();
                        let i = n % bad.len();
                        bad[i] ^= x | 1;
                        wire.extend(bad);
                    }
                    2 => wire.extend(std::iter::repeat_n([0xCB, 0x1C], n % 7).flatten()),
                    _ => wire.extend(std::iter::repeat_n(x, n)),
                }
                wire.extend(&enc);
            }
            // A corrupted `len` holds a candidate open until enough bytes arrive: flush it.
            wire.extend([0u8; 128 + OVERHEAD]);
            let mut p = StreamParser::new(128);
            let whole = run(&mut p, &[&wire]);
            prop_assert_eq!(&whole.frames, &frames);
            let framed: usize = whole.frames.iter().map(|f| f.encode().unwrap().len()).sum();
            prop_assert_eq!(framed + whole.garbage + p.buffered(), wire.len());
            let (a, b) = wire.split_at(cut.min(wire.len()));
            prop_assert_eq!(run(&mut StreamParser::new(128), &[a, b]), whole);
        }

        /// Arbitrary bytes never panic, and every byte is accounted for.
        #[test]
        fn arbitrary_bytes_accounted(data in prop::collection::vec(any::<u8>(), 0..600)) {
            let mut p = StreamParser::new(100);
            let out = run(&mut p, &[&data]);
            let framed: usize = out.frames.iter().map(|f| f.encode().unwrap().len()).sum();
            prop_assert_eq!(framed + out.garbage + p.buffered(), data.len());
        }
    }
}
