//! What the engine's own tests share: the settings of a cell measured with
//! the peer as a thread of the test, on the first two usable CPUs. Each
//! test module wrote these literals out before, differing only in the cell
//! time and the fault.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::{Budget, EngineConfig, PeerLaunch};

/// `cell_time` a cell, a stream window of 8, nothing adaptive or staggered.
pub(crate) fn budget(cell_time: Duration) -> Budget {
    Budget {
        cell_time,
        raw: false,
        window: 8,
        ci_target: None,
        ci_max_time: Duration::ZERO,
        channel_stagger: Duration::ZERO,
        clock_granule_ns: 0.0,
    }
}

/// A peer thread on the second usable CPU (the first, on a one-CPU
/// machine), icbench's own protocol, a 5 s timeout, no fault.
pub(crate) fn thread_config(stop: &'static AtomicBool, cell_time: Duration) -> EngineConfig {
    let (host_cpu, peer_cpu) = crate::cpu::CpuList::usable().default_pair().unwrap_or((0, 0));
    EngineConfig {
        host_cpu,
        peer_cpu,
        peer: PeerLaunch::Thread,
        fifo: None,
        timeout: Duration::from_secs(5),
        budget: budget(cell_time),
        fault: None,
        stop,
        protocol: None,
        peer_cmd: None,
        state_probe: false,
    }
}
