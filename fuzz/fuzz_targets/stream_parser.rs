//! The byte-stream parser on hostile input: no panic, bounded memory, every
//! frame it returns re-encodes to bytes that decode to the same frame, and the
//! result does not depend on how the input is cut (docs/protocol.md §2.1).
#![no_main]

use icbench_proto::{Event, StreamParser, decode_exact};
use libfuzzer_sys::fuzz_target;

const MAX_BODY: usize = 600;

fn run(data: &[u8], cut: usize) -> (usize, usize, usize) {
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
                Some(Event::Error(icbench_proto::FrameError::Garbage { bytes })) => garbage += bytes,
                Some(Event::Error(_)) => errors += 1,
                None if input.is_empty() => break,
                None => {}
            }
            assert!(p.buffered() <= MAX_BODY + 16);
        }
    }
    (frames, errors, garbage + p.buffered())
}

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    let (cut, data) = (usize::from(data[0]) + 1, &data[1..]);
    let whole = run(data, data.len());
    let cut_up = run(data, cut);
    let bytewise = run(data, 1);
    assert_eq!(whole.0, cut_up.0, "frames depend on the cut");
    assert_eq!(whole.0, bytewise.0, "frames depend on the cut");
    assert_eq!(whole.1, bytewise.1, "errors depend on the cut");
});
