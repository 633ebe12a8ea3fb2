//! `icbench_fuzzing::bundle` on each input (its doc says what is checked);
//! CI replays this target's corpus through the same function on stable.
#![no_main]

// A panic the code under test catches is not a crash (see
// `uncaught_panics_only`): a bundle's histograms decode through
// `LatencyHistogram::from_blob`, which catches its decoder's.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    icbench_fuzzing::uncaught_panics_only(|| icbench_fuzzing::bundle(data))
});
