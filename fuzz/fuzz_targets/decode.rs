//! The slice decoders and the payload records on arbitrary bytes: no panic;
//! what decodes re-encodes to the same bytes.
#![no_main]

use icbench_proto::{Ack, Caps, Credit, ErrorReport, PeerStats, decode, decode_exact};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = decode_exact(data, 65535) {
        let mut wire = Vec::new();
        f.encode_to_vec(&mut wire).unwrap();
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
});
