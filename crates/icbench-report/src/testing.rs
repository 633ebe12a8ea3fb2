//! What the report's unit tests share: the metadata of a measured run on a
//! made-up machine (no floor, a 1 ns clock).

use icbench_model::{PeerMode, RunMeta, RunStatus, Sched};

pub(crate) fn meta() -> RunMeta {
    RunMeta {
        cpu_model: "test".into(),
        online_cpus: "0-1".into(),
        host_cpu: 0,
        peer_cpu: 1,
        peer_mode: PeerMode::Process,
        sched: Sched::Other,
        mlock: false,
        kernel_release: "test".into(),
        governor: None,
        hostname: "test".into(),
        icbench_version: "0.1.0".into(),
        git_commit: None,
        command_line: Vec::new(),
        started_unix_ns: 0,
        ended_unix_ns: None,
        clock: "CLOCK_MONOTONIC_RAW".into(),
        clock_overhead_ns: 20.0,
        clock_granule_ns: 1.0,
        status: RunStatus::Finished,
        floor: None,
        floor_tail: None,
        fast_counter: None,
        notes: Vec::new(),
        label: None,
        user_note: None,
    }
}
