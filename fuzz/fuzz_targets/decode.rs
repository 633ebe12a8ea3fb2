//! `icbench_fuzzing::proto::decode_bytes` on each input (its doc says what is
//! checked); CI replays this target's corpus through the same function on
//! stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| icbench_fuzzing::proto::decode_bytes(data));
