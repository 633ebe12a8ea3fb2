//! The state probe (issue #28): a short one-cache-line ping-pong between
//! the cell's two CPUs, taken before each session opens, so that every
//! block carries the state of the machine it was measured in.
//!
//! Why: on a VM whose two vCPUs move between placements, a block's figure
//! follows the placement, and a floor measured at the head and tail of a
//! run does not see a state that comes and goes between them. Measured
//! with shared/research/probes/state-probe.c (shared/research/noise-notes.md,
//! "The state probe"): the 64 B slot round trip's ratio to the line trip
//! measured just before it stayed within ±10 % in every window (correlation
//! 0.994–1.000), its raw median in 63 %.
//!
//! The probe is the floor's [`Trip::OneLine`] with [`PROBE_SAMPLES`]
//! samples instead of the floor's 300: 2,100 round trips, 0.5–1.6 ms on the
//! machine above, so that a default run's 900 probes stay within issue
//! #28's 3 % of its time. It runs where no peer does yet (before the
//! session's peer starts spinning on the peer CPU), under the run's own
//! scheduling.

use icbench_model::StateProbe;

use crate::clock::now_ns;
use crate::floor::{Trip, trip_rtt_ns_of};

/// Samples of 100 round trips each.
const PROBE_SAMPLES: usize = 20;

/// A probe whose peer CPU does not answer within this is given up: the
/// block is measured without one. Generous: on this repo's 2-vCPU VM with
/// both CPUs busy compiling, 50 ms was passed now and then (a thread
/// waiting behind several runnable ones for its first slice).
const PROBE_BUDGET_NS: u64 = 250_000_000;

/// The machine's state between `host_cpu` (the calling thread is pinned
/// there) and `peer_cpu`; `None` when the peer CPU did not answer in time
/// or the thread could not be pinned.
pub(crate) fn probe(host_cpu: u32, peer_cpu: u32) -> Option<StateProbe> {
    let t0 = now_ns();
    let line = trip_rtt_ns_of(host_cpu, peer_cpu, Trip::OneLine, PROBE_SAMPLES, PROBE_BUDGET_NS)
        .ok()??;
    Some(StateProbe { line_rtt_ns: line, cost_ns: now_ns().saturating_sub(t0), probes: 1 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::CpuList;

    #[test]
    fn a_probe_between_two_cpus_reads_a_line_trip_and_its_cost() {
        let Ok((host, peer)) = CpuList::usable().default_pair() else {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIP state probe: fewer than two usable CPUs");
            return;
        };
        let p = std::thread::spawn(move || probe(host, peer)).join().unwrap();
        let Some(p) = p else {
            // A peer CPU this busy is the machine's doing, not the probe's.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIP state probe: the peer CPU did not answer");
            return;
        };
        assert!(p.line_rtt_ns > 0.0 && p.line_rtt_ns.is_finite(), "{p:?}");
        // Half of the 20 samples of 100 round trips sit at or above the
        // median: the probe took at least 1,000 of them.
        assert!(p.cost_ns as f64 >= p.line_rtt_ns * 1000.0, "{p:?}");
    }
}
