//! `icbench_fuzzing::link_spec` on each input (its doc says what is checked);
//! CI replays this target's corpus through the same function on stable.
#![no_main]

// One allocation past 1 GiB is a crash (icbench_fuzzing::alloc says why
// libFuzzer's -malloc_limit_mb cannot see it here).
#[global_allocator]
static ALLOC: icbench_fuzzing::alloc::Bounded = icbench_fuzzing::alloc::Bounded::FUZZ;

libfuzzer_sys::fuzz_target!(|data: &[u8]| icbench_fuzzing::link_spec(data));
