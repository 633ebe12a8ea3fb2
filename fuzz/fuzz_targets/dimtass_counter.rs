//! The dimtass counter (the responder side of the seed format) on arbitrary
//! bytes: no panic, it always consumes input, a transfer never counts past
//! the u16 length, and there are at most as many replies as 6-byte headers fit.
#![no_main]

use icbench_proto::dimtass::{Counter, CounterEvent, HEADER_LEN};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
