//! The reassembler fed frames made from arbitrary fragment records: no panic,
//! never a message longer than its limit, and a completed message is exactly
//! as long as its `msg_len`.
#![no_main]

use icbench_proto::{Fragment, FrameRef, FrameType, Reassembler};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut r = Reassembler::new(4096);
    for rec in data.chunks(10) {
        if rec.len() < 10 {
            break;
        }
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
});
