//! The wire protocol's parsers (`icbench-proto`), on arbitrary bytes: the
//! checks of the `stream_parser`, `decode`, `reassembler` and
//! `dimtass_counter` fuzz targets (docs/protocol.md §2.1, docs/remote.md
//! "Fuzzing"). A frame reaches them from a device a user points icbench at.

use icbench_proto::dimtass::{Counter, CounterEvent, HEADER_LEN};
use icbench_proto::{
    Ack, Caps, Credit, ErrorReport, Event, Fragment, FrameRef, FrameType, PeerStats, Reassembler,
    StreamParser, decode, decode_exact,
};

const MAX_BODY: usize = 600;

/// The parser over `data` cut in pieces of `cut` bytes: frames, errors and
/// garbage bytes (with what it still buffers); every frame re-encodes and
/// decodes to itself, and the buffer stays bounded.
fn parse_cut(data: &[u8], cut: usize) -> (usize, usize, usize) {
    let mut p = StreamParser::new(MAX_BODY);
    let (mut frames, mut errors, mut garbage) = (0, 0, 0);
    for piece in data.chunks(cut.max(1)) {
        let mut input = piece;
        loop {
            let (used, ev) = p.step(input);
            input = &input[used..];
            match ev {
                Some(Event::Frame(f)) => {
                    frames += 1;
                    let mut wire = Vec::new();
                    f.encode_to_vec(&mut wire).expect("a parsed frame re-encodes");
                    let back = decode_exact(&wire, MAX_BODY).expect("and decodes");
                    assert_eq!(back, f);
                }
                Some(Event::Error(icbench_proto::FrameError::Garbage { bytes })) => {
                    garbage += bytes
                }
                Some(Event::Error(_)) => errors += 1,
                None if input.is_empty() => break,
                None => {}
            }
            assert!(p.buffered() <= MAX_BODY + 16);
        }
    }
    (frames, errors, garbage + p.buffered())
}

/// The byte-stream parser on hostile input: no panic, bounded memory, every
/// frame it returns re-encodes to bytes that decode to the same frame, and
/// the result does not depend on how the input is cut (`data[0]` + 1 is the
/// cut).
pub fn stream_parser(data: &[u8]) {
    let Some((&cut, data)) = data.split_first() else { return };
    let whole = parse_cut(data, data.len());
    let cut_up = parse_cut(data, usize::from(cut) + 1);
    let bytewise = parse_cut(data, 1);
    assert_eq!(whole.0, cut_up.0, "frames depend on the cut");
    assert_eq!(whole.0, bytewise.0, "frames depend on the cut");
    assert_eq!(whole.1, bytewise.1, "errors depend on the cut");
}

/// The slice decoders and the payload records on arbitrary bytes: no panic;
/// what decodes re-encodes to the same bytes.
pub fn decode_bytes(data: &[u8]) {
    if let Ok(f) = decode_exact(data, 65535) {
        let mut wire = Vec::new();
        f.encode_to_vec(&mut wire).expect("a decoded frame re-encodes");
        assert_eq!(wire, data);
    }
    if let Ok((f, used)) = decode(data, 512) {
        assert!(used <= data.len());
        assert_eq!(f.encoded_len(), used);
    }
    let _ = icbench_proto::Header::parse(data, 1024);
    if let Ok(c) = Caps::from_bytes(data) {
        assert_eq!(Caps::from_bytes(&c.to_bytes()), Ok(c));
    }
    let _ = (Ack::from_bytes(data), Credit::from_bytes(data), ErrorReport::from_bytes(data));
    let _ = PeerStats::from_bytes(data);
}

/// The reassembler fed frames made from arbitrary 10-byte fragment records:
/// no panic, never a message longer than its limit, and a completed message
/// is exactly as long as its `msg_len`.
pub fn reassembler(data: &[u8]) {
    let mut r = Reassembler::new(4096);
    for rec in data.chunks_exact(10) {
        let msg_len = u32::from(u16::from_le_bytes([rec[0], rec[1]]));
        let offset = u32::from(u16::from_le_bytes([rec[2], rec[3]]));
        let len = usize::from(rec[4]) * 4;
        let seq = u32::from(rec[5] & 3);
        let frag = (rec[6] & 1 == 1).then_some(Fragment { msg_len, offset });
        let payload = vec![rec[7]; len];
        let f = FrameRef { frag, ..FrameRef::new(FrameType::Echo, seq, &payload) };
        if let Ok(Some(m)) = r.push(&f) {
            assert!(m.len() <= 4096);
            if let Some(fr) = frag {
                assert_eq!(m.len(), fr.msg_len as usize);
            }
        }
    }
}

/// The dimtass counter (the responder side of the seed format) on arbitrary
/// bytes: no panic, it always consumes input, a transfer never counts past
/// the u16 length, and there are at most as many replies as 6-byte headers
/// fit.
pub fn dimtass_counter(data: &[u8]) {
    let mut c = Counter::new();
    let mut input = data;
    let (mut guard, mut replies) = (0, 0);
    while !input.is_empty() {
        let (used, ev) = c.step(input);
        input = &input[used..];
        if let Some(CounterEvent::Reply(_)) = ev {
            replies += 1;
        }
        assert!(c.counted() <= usize::from(u16::MAX));
        guard += 1;
        assert!(guard <= 2 * data.len() + 2, "the counter stopped consuming input");
    }
    assert!(replies <= data.len() / HEADER_LEN);
}
