//! Known answers for the bundle: its hash, its refusals, the machine's
//! facts, and the published JSON Schema against a bundle with every kind of
//! field filled.

use icbench_model::{
    CellData, CellKey, CellOutcome, LatencyHistogram, LinkCounters, Pattern, PeerMode, RunStatus,
    Sched, StateProbe,
};

use super::*;

fn meta() -> RunMeta {
    RunMeta {
        cpu_model: "ARM Cortex-A7".into(),
        online_cpus: "0-1".into(),
        host_cpu: 0,
        peer_cpu: 1,
        peer_mode: PeerMode::Process,
        sched: Sched::Other,
        mlock: false,
        kernel_release: "6.1.0".into(),
        governor: Some("performance".into()),
        hostname: "dk2".into(),
        icbench_version: "0.1.0".into(),
        git_commit: Some("abc123".into()),
        command_line: vec!["icbench".into(), "run".into()],
        started_unix_ns: 1_700_000_000_000_000_000,
        ended_unix_ns: Some(1_700_000_037_000_000_000),
        clock: "CLOCK_MONOTONIC_RAW".into(),
        // A float serde_json's fast parser reads 1 ulp off without
        // `float_roundtrip` (1.0895361162392003): the hash then fails.
        clock_overhead_ns: 1.089_536_116_239_200_5,
        clock_granule_ns: 1.0,
        status: RunStatus::Finished,
        floor: None,
        floor_tail: None,
        fast_counter: None,
        notes: vec!["a note".into()],
        label: Some("board A".into()),
        user_note: None,
    }
}

fn cells() -> Vec<CellResult> {
    let mut h = LatencyHistogram::new();
    for v in [1_000, 1_100, 1_250, 90_000] {
        h.record(v);
    }
    let measured = CellResult {
        key: CellKey::new("rpmsg:/dev/rpmsg0", Pattern::PingPong, 64).with("rep", 0),
        outcome: CellOutcome::Measured(CellData {
            messages: 4,
            bytes: 256,
            elapsed_ns: 93_350,
            warmup_messages: 1,
            latency: Some(h),
            raw_ns: Some(vec![1_000, 1_100, 1_250, 90_000]),
            window: None,
            counters: LinkCounters::default(),
            channels: None,
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: Some(StateProbe {
                line_rtt_ns: 64.5,
                wake_rtt_ns: Some(28_000.0),
                cost_ns: 900_000,
                probes: 1,
            }),
        }),
    };
    let failed = CellResult {
        key: CellKey::new("rpmsg:/dev/rpmsg0", Pattern::Stream, 64),
        outcome: CellOutcome::Failed { reason: "peer died".into() },
    };
    let na = CellResult {
        key: CellKey::new("rpmsg:/dev/rpmsg0", Pattern::PingPong, 1 << 20),
        outcome: CellOutcome::NotApplicable { max_bytes: 496 },
    };
    vec![measured, failed, na]
}

fn bundle() -> Bundle {
    let run = BundledRun {
        source: "measured".into(),
        provenance: None,
        origin: None,
        meta: meta(),
        machine: Some(Machine::from_files(
            Some("STMicroelectronics STM32MP157C-DK2 Discovery Board\0"),
            Some("#1 SMP PREEMPT_RT Thu Jan 1 00:00:00 UTC 2026"),
            Some("# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n"),
            Some("console=ttySTM0 isolcpus=1 nohz_full=1 quiet"),
            None,
        )),
        plan: Some(serde_json::json!({"cells": []})),
        settings: Some(serde_json::json!({"timeout_ns": 5_000_000_000u64})),
        warnings: vec!["a warning".into()],
        cells: cells(),
    };
    Bundle::new(
        Written {
            icbench_version: "0.1.0".into(),
            git_commit: Some("abc123".into()),
            hostname: "dk2".into(),
            unix_ns: 1_700_000_100_000_000_000,
        },
        vec![run],
    )
}

#[test]
fn a_bundle_reads_back_as_written_histograms_and_all() {
    let b = bundle();
    let text = b.to_json();
    let back = Bundle::parse(&text).unwrap();
    assert_eq!(back.to_json(), text);
    assert_eq!(back.content_sha256.len(), 64);
    let CellOutcome::Measured(d) = &back.runs[0].cells[0].outcome else { panic!() };
    let h = d.latency.as_ref().unwrap();
    assert_eq!(h.len(), 4);
    assert_eq!(h.quantile_ns(0.5), 1_100);
    assert_eq!(d.state.unwrap().wake_rtt_ns, Some(28_000.0));
    assert!(matches!(back.runs[0].cells[2].outcome, CellOutcome::NotApplicable { max_bytes: 496 }));
}

#[test]
fn a_bundle_changed_by_one_byte_is_refused() {
    let text = bundle().to_json();
    // A figure edited: 93350 ns → 93351 ns.
    let edited = text.replacen("93350", "93351", 1);
    assert_ne!(edited, text);
    let e = Bundle::parse(&edited).unwrap_err();
    assert!(matches!(e, BundleError::Hash { .. }), "{e}");
    assert!(e.to_string().contains("changed or damaged after it was written"), "{e}");
    // Another format version, and what is not a bundle at all.
    let later = text.replacen("\"icbench_bundle\": 1", "\"icbench_bundle\": 2", 1);
    assert!(matches!(Bundle::parse(&later), Err(BundleError::Version { found: 2 })));
    assert!(matches!(Bundle::parse("{\"runs\": []}"), Err(BundleError::NotJson(_))));
    assert!(matches!(Bundle::parse("not json"), Err(BundleError::NotJson(_))));
    // A field this version does not know is refused, not dropped.
    let extra = text.replacen("\"runs\":", "\"extra\": 1,\n  \"runs\":", 1);
    assert!(matches!(Bundle::parse(&extra), Err(BundleError::NotJson(_))));
}

#[test]
fn the_machine_facts_are_read_from_its_files() {
    let m = bundle().runs[0].machine.clone().unwrap();
    assert_eq!(m.soc.as_deref(), Some("STMicroelectronics STM32MP157C-DK2 Discovery Board"));
    assert_eq!((m.preempt_rt, m.hz), (Some(true), Some(250)));
    assert_eq!(m.isolation, vec!["isolcpus=1", "nohz_full=1"]);
    let none = Machine::from_files(None, Some("#1 SMP PREEMPT_DYNAMIC"), None, None, None);
    assert_eq!((none.soc, none.preempt_rt, none.hz), (None, Some(false), None));
}

/// docs/bundle.schema.json describes what [`Bundle`] writes: a bundle
/// with every kind of cell validates; one missing a required field, or
/// with a cell of a status the schema does not know, does not.
#[test]
fn the_published_schema_validates_a_bundle() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/bundle.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let good: serde_json::Value = serde_json::from_str(&bundle().to_json()).unwrap();
    let errors: Vec<String> = v.iter_errors(&good).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let mut bad = good.clone();
    bad.as_object_mut().unwrap().remove("content_sha256");
    assert!(!v.is_valid(&bad));
    let mut bad = good.clone();
    bad["runs"][0]["cells"][1]["outcome"] = serde_json::json!({"Lost": {}});
    assert!(!v.is_valid(&bad));
}

/// Every bundle in `results/` (the site's first entries, issue #31 item 3)
/// reads back (its hash holds) and validates against the published schema.
#[test]
fn every_bundle_in_results_reads_and_validates() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{root}/docs/bundle.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let mut seen = 0;
    for e in std::fs::read_dir(format!("{root}/results")).unwrap() {
        let path = e.unwrap().path();
        if !path.to_string_lossy().ends_with(".icbench.json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let b = Bundle::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!b.runs.is_empty(), "{}", path.display());
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let errors: Vec<String> = v.iter_errors(&json).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        // What the text says and what was decoded count the same.
        assert_eq!(histograms_in(&json), b.histograms(), "{}", path.display());
        seen += 1;
    }
    assert!(seen >= 3, "results/ holds {seen} bundles");
}

/// More latency histograms than a bundle holds are refused before one is
/// decoded (they are placeholders here, which decoding would refuse), with
/// the count; a key spelt with escapes counts as `latency`.
#[test]
fn a_bundle_of_more_histograms_than_it_may_hold_is_refused_before_decoding() {
    let h = serde_json::json!({ "hdr_v2_deflate_base64": "not base64", "clamped": 0 });
    let cell = serde_json::json!({ "outcome": { "Measured": { "latency": h, "per_channel": [
        { "latency": h }, { "latency": null } ] } } });
    let cells = vec![cell; MAX_HISTOGRAMS / 2 + 1];
    let doc = serde_json::json!({ "icbench_bundle": SCHEMA, "runs": [ { "cells": cells } ] });
    match Bundle::parse(&doc.to_string()) {
        Err(BundleError::TooManyHistograms(n)) => assert_eq!(n, MAX_HISTOGRAMS + 2),
        other => panic!("{other:?}"),
    }
    let escaped = doc.to_string().replace("\"latency\"", "\"l\\u0061tency\"");
    assert!(escaped.contains("l\\u0061tency"));
    assert!(matches!(Bundle::parse(&escaped), Err(BundleError::TooManyHistograms(_))));
    // At the bound, the count lets it through to the decoding (which
    // refuses the placeholders).
    let cells = vec![serde_json::json!({ "latency": h }); MAX_HISTOGRAMS];
    let doc = serde_json::json!({ "icbench_bundle": SCHEMA, "runs": [ { "cells": cells } ] });
    assert!(matches!(Bundle::parse(&doc.to_string()), Err(BundleError::NotJson(_))));
}
