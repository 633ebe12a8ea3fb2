//! What disturbed a cell while it was measured: the operating system's own
//! counters for the two CPUs and the two threads, read before and after the
//! cell (issue #15, "disturbance accounting, per cell"). A counter this
//! machine does not offer is `None` — absent, never 0.

use serde::{Deserialize, Serialize};

/// The counters of one end (host or peer) over a cell: its CPU's and its
/// measuring thread's. Every count is the difference between the reading
/// after the cell and the one before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct EndDisturbance {
    /// The CPU the end was pinned to.
    pub cpu: u32,
    /// Time the hypervisor ran something else on this virtual CPU, ns
    /// (`/proc/stat`, steal; kept by the kernel in USER_HZ ticks, so known
    /// to one tick, 10 ms at USER_HZ = 100).
    pub steal_ns: Option<u64>,
    /// Hardware interrupts taken on this CPU (`/proc/interrupts`, the CPU's
    /// column summed over every line), the timer tick included.
    pub interrupts: Option<u64>,
    /// Softirqs run on this CPU (`/proc/softirqs`, the CPU's column summed).
    pub softirqs: Option<u64>,
    /// The end's thread gave up its CPU of its own accord (blocked).
    pub voluntary_switches: Option<u64>,
    /// The end's thread was preempted.
    pub involuntary_switches: Option<u64>,
    /// The end's thread moved to another CPU (0 when pinning holds).
    pub migrations: Option<u64>,
    /// Time the end's thread was runnable but waiting for its CPU, ns
    /// (`/proc/<pid>/task/<tid>/schedstat`, second field): what preemption
    /// cost it.
    pub runq_wait_ns: Option<u64>,
    /// The CPU's frequency, lowest and highest of the readings before and
    /// after, kHz (cpufreq `scaling_cur_freq`).
    pub freq_khz_min: Option<u64>,
    pub freq_khz_max: Option<u64>,
}

/// The disturbance counters of a cell: both ends over the same span.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Disturbance {
    /// From the first reading to the last, ns on the run's clock. It holds
    /// the cell's probe, warm-up and measured phase.
    pub span_ns: u64,
    pub host: EndDisturbance,
    pub peer: EndDisturbance,
}
