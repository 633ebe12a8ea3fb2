//! `icbench_fuzzing::proto::stream_parser` on each input (its doc says what is
//! checked); CI replays this target's corpus through the same function on
//! stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| icbench_fuzzing::proto::stream_parser(data));
