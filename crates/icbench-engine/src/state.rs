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
//! The syscall links did not follow the line (noise-notes.md: correlation
//! −0.13 for the pipe). Their waiting end sleeps, and what moved their
//! blocks on the VM was the cross-CPU wake-up itself: a pipe block's whole
//! distribution shifted (p10 32 → 54 µs between 20 ms blocks). So the
//! probe also times a few wake-ups of a thread asleep on the peer CPU
//! ([`WAKE_TRIPS`]); the report sets a block's figure against the mean of
//! its probe and the next block's, one on each side of it.
//!
//! The line trip is the floor's [`Trip::OneLine`] with [`PROBE_SAMPLES`]
//! samples instead of the floor's 300: 1,300 round trips, 0.05–0.7 ms on
//! the machine above (the line at 30–500 ns), and the wake-up trips
//! 0.1–0.7 ms more, so that a default run's 900 probes stay within issue
//! #28's 3 % of its time (with 20 line samples and the wake-up trips they
//! took 2.7–2.9 %). It runs where no peer does yet (before the session's
//! peer starts spinning on the peer CPU), under the run's own scheduling.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use icbench_model::StateProbe;

use crate::clock::now_ns;
use crate::cpu::spawn_pinned;
use crate::floor::{Trip, trip_rtt_ns_of};

/// Samples of 100 round trips each: enough to tell the line's states
/// apart (30, 65 and 480 ns on the VM, 1.5× between them at the least).
const PROBE_SAMPLES: usize = 12;

/// A probe whose peer CPU does not answer within this is given up: the
/// block is measured without one. Generous: on this repo's 2-vCPU VM with
/// both CPUs busy compiling, 50 ms was passed now and then (a thread
/// waiting behind several runnable ones for its first slice).
const PROBE_BUDGET_NS: u64 = 250_000_000;

/// Wake-up round trips a probe times, after one untimed: on the 2-vCPU VM
/// (40–55 µs each while the vCPUs halt when idle, 5–9 µs while they do
/// not) 12 keep a default run's probes within issue #28's 3 %, and a
/// block's probe with the next block's still followed the 20 ms pipe block
/// between them (correlation 0.64–0.99 over 340–450 blocks, 2026-11-27;
/// scripts/probes/wake-probe.c, docs/results.md).
const WAKE_TRIPS: usize = 12;

/// The machine's state between `host_cpu` (the calling thread is pinned
/// there) and `peer_cpu`; `None` when the peer CPU did not answer in time
/// or the thread could not be pinned. The wake-up trip is `None` alone
/// when only it failed.
pub(crate) fn probe(host_cpu: u32, peer_cpu: u32) -> Option<StateProbe> {
    let t0 = now_ns();
    let line = trip_rtt_ns_of(host_cpu, peer_cpu, Trip::OneLine, PROBE_SAMPLES, PROBE_BUDGET_NS)
        .ok()??;
    let wake = wake_rtt_ns(peer_cpu, WAKE_TRIPS);
    Some(StateProbe {
        line_rtt_ns: line,
        wake_rtt_ns: wake,
        cost_ns: now_ns().saturating_sub(t0),
        probes: 1,
    })
}

/// Median of `trips` wake-up round trips from the calling thread to a
/// thread that sleeps in `read` on `peer_cpu`: one byte there over a Unix
/// socket pair, one byte back, each waking a sleeping end (the path every
/// link whose waiting end sleeps takes per message). `None` when the
/// thread could not start or be pinned, or a reply took longer than
/// [`PROBE_BUDGET_NS`].
fn wake_rtt_ns(peer_cpu: u32, trips: usize) -> Option<f64> {
    let (mut host, mut peer) = UnixStream::pair().ok()?;
    host.set_read_timeout(Some(Duration::from_nanos(PROBE_BUDGET_NS))).ok()?;
    // Not pinned, the thread never runs this and drops its end at once, so
    // the host's first read ends instead of waiting for its budget.
    let echo = spawn_pinned("icb-wake-probe", peer_cpu, move || {
        let mut b = [0u8; 1];
        while matches!(peer.read(&mut b), Ok(1)) {
            if peer.write_all(&b).is_err() {
                return;
            }
        }
    })
    .ok()?;
    let mut rtts = [0u64; WAKE_TRIPS + 1];
    let n = (trips + 1).min(rtts.len());
    let mut b = [0u8; 1];
    let mut ok = true;
    for (i, slot) in rtts[..n].iter_mut().enumerate() {
        let t = now_ns();
        b[0] = i as u8;
        if host.write_all(&b).is_err() || !matches!(host.read(&mut b), Ok(1)) || b[0] != i as u8 {
            ok = false;
            break;
        }
        *slot = now_ns().saturating_sub(t);
    }
    drop(host);
    let _ = echo.join();
    if !ok {
        return None;
    }
    // The first trip wakes a thread that has just started: untimed.
    let timed = &mut rtts[1..n];
    timed.sort_unstable();
    Some(timed[timed.len() / 2] as f64)
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
        // Half of the 12 samples of 100 round trips sit at or above the
        // median: the probe took at least 600 of them.
        assert!(p.cost_ns as f64 >= p.line_rtt_ns * 600.0, "{p:?}");
        // Half of the 12 wake-up trips sit at or above their median, and
        // a wake-up through the kernel costs more than a cache line.
        let wake = p.wake_rtt_ns.expect("the peer CPU answered the line trip");
        assert!(wake > p.line_rtt_ns && p.cost_ns as f64 >= wake * 6.0, "{p:?}");
    }

    #[test]
    fn a_wake_probe_echoes_every_byte_and_reads_a_median() {
        let Ok((_, peer)) = CpuList::usable().default_pair() else {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIP wake probe: fewer than two usable CPUs");
            return;
        };
        let t0 = now_ns();
        let wake = wake_rtt_ns(peer, WAKE_TRIPS).expect("an echo thread on the peer CPU");
        let took = now_ns() - t0;
        // Thirteen trips, the median of twelve: at least six of them long.
        assert!(wake > 0.0 && took as f64 >= wake * 6.0, "{wake} ns in {took} ns");
        // Asked for fewer trips than the probe holds, it times what it can.
        assert!(wake_rtt_ns(peer, 1).is_some());
    }

    #[test]
    fn a_wake_probe_whose_peer_cannot_be_pinned_is_none() {
        // No machine this test runs on has CPU 1000 (of CPU_SETSIZE 1024):
        // the echo thread cannot be pinned and drops its end, so the probe
        // ends at once instead of waiting.
        let t0 = now_ns();
        assert_eq!(wake_rtt_ns(1000, WAKE_TRIPS), None);
        assert!(now_ns() - t0 < PROBE_BUDGET_NS, "it waited for its budget");
    }
}
