//! The golden frames in `testdata/frames/` (docs/protocol.md §5): the C test suite checks the
//! same files, so Rust and C encode and decode byte for byte alike.

use icbench_proto::frame::MAX_BODY;
use icbench_proto::{
    Event, Flags, Fragment, Frame, FrameError, FrameType, StreamParser, Timestamps, decode_exact,
};
use std::collections::HashMap;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/frames")
}

struct Vector {
    name: String,
    expect: String,
    kv: HashMap<String, String>,
    bytes: Vec<u8>,
}

fn unhex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    assert!(digits.len().is_multiple_of(2), "odd hex length");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

fn vectors() -> Vec<Vector> {
    let manifest = std::fs::read_to_string(dir().join("manifest.txt")).expect("manifest.txt");
    manifest
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let mut words = line.split_whitespace();
            let name = words.next().unwrap().to_owned();
            let expect = words.next().unwrap().to_owned();
            let kv: HashMap<String, String> = words
                .map(|w| {
                    let (k, v) = w.split_once('=').unwrap();
                    (k.to_owned(), v.to_owned())
                })
                .collect();
            let text = std::fs::read_to_string(dir().join(&kv["file"])).unwrap();
            Vector { name, expect, kv, bytes: unhex(&text) }
        })
        .collect()
}

fn nums<const N: usize>(s: &str) -> [u64; N] {
    let v: Vec<u64> = s.split(',').map(|x| x.parse().unwrap()).collect();
    v.try_into().unwrap()
}

fn expected_frame(kv: &HashMap<String, String>) -> Frame {
    let n = |k: &str| kv[k].parse::<u64>().unwrap();
    let payload = match kv["payload"].strip_prefix("pat:") {
        Some(len) => (0..len.parse::<usize>().unwrap()).map(|i| (i & 0xff) as u8).collect(),
        None => unhex(&kv["payload"]),
    };
    Frame {
        ty: FrameType::from_u8(n("type") as u8),
        flags: Flags::from_bits(n("flags") as u8).unwrap(),
        chan: n("chan") as u8,
        seq: n("seq") as u32,
        ts: kv.get("ts").map(|s| {
            let [t_origin, t_rx, t_tx] = nums::<3>(s);
            Timestamps { t_origin, t_rx, t_tx }
        }),
        frag: kv.get("frag").map(|s| {
            let [msg_len, offset] = nums::<2>(s);
            Fragment { msg_len: msg_len as u32, offset: offset as u32 }
        }),
        payload,
    }
}

#[derive(Debug, PartialEq, Eq)]
struct StreamOutcome {
    frames: usize,
    errors: Vec<&'static str>,
    garbage: usize,
}

fn parse_stream(pieces: &[&[u8]]) -> StreamOutcome {
    let mut p = StreamParser::new(MAX_BODY);
    let mut out = StreamOutcome { frames: 0, errors: Vec::new(), garbage: 0 };
    for piece in pieces {
        let mut input = *piece;
        loop {
            let (used, ev) = p.step(input);
            input = &input[used..];
            match ev {
                Some(Event::Frame(_)) => out.frames += 1,
                Some(Event::Error(FrameError::Garbage { bytes })) => out.garbage += bytes,
                Some(Event::Error(e)) => out.errors.push(e.name()),
                None if input.is_empty() => break,
                None => {}
            }
        }
    }
    assert_eq!(p.buffered(), 0);
    out
}

#[test]
fn golden_frames() {
    let vs = vectors();
    assert!(vs.len() >= 20, "manifest has {} vectors", vs.len());
    for v in &vs {
        let max = v.kv.get("max").map_or(MAX_BODY, |m| m.parse().unwrap());
        match v.expect.as_str() {
            "ok" => {
                let want = expected_frame(&v.kv);
                assert_eq!(want.encode().unwrap(), v.bytes, "{}: encode", v.name);
                let got = decode_exact(&v.bytes, max).unwrap_or_else(|e| panic!("{}: {e}", v.name));
                assert_eq!(got.to_frame(), want, "{}: decode", v.name);
                // one frame on a stream, cut anywhere
                for cut in 0..=v.bytes.len() {
                    let (a, b) = v.bytes.split_at(cut);
                    let o = parse_stream(&[a, b]);
                    assert_eq!((o.frames, o.garbage), (1, 0), "{} cut {cut}", v.name);
                }
            }
            "stream" => {
                let want = StreamOutcome {
                    frames: v.kv["frames"].parse().unwrap(),
                    errors: v.kv["errors"]
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(|s| {
                            // leak is fine in a test: names must be &'static str like FrameError::name
                            &*Box::leak(s.to_owned().into_boxed_str())
                        })
                        .collect(),
                    garbage: v.kv["garbage"].parse().unwrap(),
                };
                assert_eq!(parse_stream(&[&v.bytes]), want, "{}: whole", v.name);
                let ones: Vec<&[u8]> = v.bytes.chunks(1).collect();
                assert_eq!(parse_stream(&ones), want, "{}: bytewise", v.name);
                for cut in 0..=v.bytes.len() {
                    let (a, b) = v.bytes.split_at(cut);
                    assert_eq!(parse_stream(&[a, b]), want, "{}: cut {cut}", v.name);
                }
            }
            err => {
                let e = decode_exact(&v.bytes, max).expect_err(&v.name);
                assert_eq!(e.name(), err, "{}: {e}", v.name);
            }
        }
    }
}
