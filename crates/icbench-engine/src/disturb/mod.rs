//! Disturbance accounting, per cell (issue #15): the kernel's counters for
//! the two CPUs (steal, interrupts, softirqs, frequency) and for the two
//! measuring threads (context switches, migrations, run-queue wait), read
//! just before a cell's first message and just after its last, never inside
//! it. What they say is judged by `icbench_stats::disturbance` (thresholds
//! in docs/method.md); this module only reads and subtracts.
//!
//! A counter this machine does not offer (a container without `/proc`
//! files, a kernel without CONFIG_SCHED_DEBUG or cpufreq) stays `None`:
//! [`missing`] names them once for the run's notes.

mod procfs;

use std::path::PathBuf;

use icbench_model::{Disturbance, EndDisturbance};

use crate::clock::now_ns;
use procfs::ThreadCounts;

/// Where a measuring thread's counters are: `/proc/<pid>/task/<tid>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Task(PathBuf);

impl Task {
    /// The calling thread.
    pub(crate) fn current() -> Task {
        Task(PathBuf::from(format!(
            "/proc/self/task/{}",
            rustix::thread::gettid().as_raw_nonzero()
        )))
    }

    /// Thread `tid` of process `pid`.
    pub(crate) fn of(pid: i32, tid: i32) -> Task {
        Task(PathBuf::from(format!("/proc/{pid}/task/{tid}")))
    }
}

/// One end's counters at one moment.
#[derive(Debug, Clone, Copy, Default)]
struct EndReading {
    steal_ticks: Option<u64>,
    interrupts: Option<u64>,
    softirqs: Option<u64>,
    counts: ThreadCounts,
    wait_ns: Option<u64>,
    khz: Option<u64>,
}

/// Both ends' counters at one moment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reading {
    t_ns: u64,
    host: EndReading,
    peer: EndReading,
}

/// Reads the counters of a cell's two ends.
pub(crate) struct Sampler {
    host_cpu: u32,
    peer_cpu: u32,
    host_task: Option<Task>,
    peer_task: Option<Task>,
    /// ns per USER_HZ tick (`sysconf(_SC_CLK_TCK)`).
    tick_ns: u64,
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

impl Sampler {
    pub(crate) fn new(
        host_cpu: u32,
        peer_cpu: u32,
        host_task: Option<Task>,
        peer_task: Option<Task>,
    ) -> Sampler {
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        let tick_ns = if hz > 0 { 1_000_000_000 / hz as u64 } else { 10_000_000 };
        Sampler { host_cpu, peer_cpu, host_task, peer_task, tick_ns }
    }

    /// Every counter of both ends, now.
    pub(crate) fn read(&self) -> Reading {
        let stat = read("/proc/stat");
        let irqs = read("/proc/interrupts");
        let softirqs = read("/proc/softirqs");
        let end = |cpu: u32, task: &Option<Task>| EndReading {
            steal_ticks: stat.as_deref().and_then(|t| procfs::stat_steal_ticks(t, cpu)),
            interrupts: irqs.as_deref().and_then(|t| procfs::per_cpu_column_sum(t, cpu)),
            softirqs: softirqs.as_deref().and_then(|t| procfs::per_cpu_column_sum(t, cpu)),
            counts: task.as_ref().map(thread_counts).unwrap_or_default(),
            wait_ns: task
                .as_ref()
                .and_then(|t| std::fs::read_to_string(t.0.join("schedstat")).ok())
                .and_then(|t| procfs::schedstat_wait_ns(&t)),
            khz: read(&format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_cur_freq"))
                .and_then(|t| procfs::khz(&t)),
        };
        let host = end(self.host_cpu, &self.host_task);
        let peer = end(self.peer_cpu, &self.peer_task);
        Reading { t_ns: now_ns(), host, peer }
    }

    /// What changed from `before` to `after`.
    pub(crate) fn between(&self, before: &Reading, after: &Reading) -> Disturbance {
        Disturbance {
            span_ns: after.t_ns.saturating_sub(before.t_ns),
            host: self.end(self.host_cpu, &before.host, &after.host),
            peer: self.end(self.peer_cpu, &before.peer, &after.peer),
        }
    }

    fn end(&self, cpu: u32, a: &EndReading, b: &EndReading) -> EndDisturbance {
        let d = |x: Option<u64>, y: Option<u64>| Some(y?.saturating_sub(x?));
        let both = a.khz.zip(b.khz);
        EndDisturbance {
            cpu,
            steal_ns: d(a.steal_ticks, b.steal_ticks).map(|t| t.saturating_mul(self.tick_ns)),
            interrupts: d(a.interrupts, b.interrupts),
            softirqs: d(a.softirqs, b.softirqs),
            voluntary_switches: d(a.counts.voluntary, b.counts.voluntary),
            involuntary_switches: d(a.counts.involuntary, b.counts.involuntary),
            migrations: d(a.counts.migrations, b.counts.migrations),
            runq_wait_ns: d(a.wait_ns, b.wait_ns),
            freq_khz_min: both.map(|(x, y)| x.min(y)),
            freq_khz_max: both.map(|(x, y)| x.max(y)),
        }
    }
}

/// A thread's switches and migrations: from `sched` where the kernel has
/// it, else the switches from `status`.
fn thread_counts(task: &Task) -> ThreadCounts {
    let sched = std::fs::read_to_string(task.0.join("sched")).map(|t| procfs::sched_counts(&t));
    match sched {
        Ok(c) if c.voluntary.is_some() => c,
        _ => std::fs::read_to_string(task.0.join("status"))
            .map(|t| procfs::status_counts(&t))
            .unwrap_or_default(),
    }
}

/// The counters this machine does not offer for a cell on `host_cpu` ↔
/// `peer_cpu`, by name, judged from the calling thread and the two CPUs
/// (empty: every one is read). For the run's notes, once.
pub fn missing(host_cpu: u32, peer_cpu: u32) -> Vec<&'static str> {
    let s = Sampler::new(host_cpu, peer_cpu, Some(Task::current()), Some(Task::current()));
    let r = s.read();
    let e = s.end(host_cpu, &r.host, &r.host);
    let p = s.end(peer_cpu, &r.peer, &r.peer);
    let mut out = Vec::new();
    let mut check = |present: bool, what: &'static str| {
        if !present {
            out.push(what);
        }
    };
    check(e.steal_ns.is_some() && p.steal_ns.is_some(), "steal (/proc/stat)");
    check(e.interrupts.is_some() && p.interrupts.is_some(), "interrupts (/proc/interrupts)");
    check(e.softirqs.is_some() && p.softirqs.is_some(), "softirqs (/proc/softirqs)");
    check(e.involuntary_switches.is_some(), "context switches (/proc/<pid>/task/<tid>/status)");
    check(e.migrations.is_some(), "migrations (/proc/<pid>/task/<tid>/sched)");
    check(e.runq_wait_ns.is_some(), "run-queue wait (/proc/<pid>/task/<tid>/schedstat)");
    check(e.freq_khz_min.is_some() && p.freq_khz_min.is_some(), "CPU frequency (cpufreq)");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_thread_shows_its_time_and_nothing_is_negative() {
        let cpu = crate::cpu::CpuList::usable().cpus[0];
        let s = Sampler::new(cpu, cpu, Some(Task::current()), None);
        let a = s.read();
        // Give the scheduler something to count: a sleep is a voluntary switch.
        std::thread::sleep(std::time::Duration::from_millis(5));
        let b = s.read();
        let d = s.between(&a, &b);
        assert!(d.span_ns >= 5_000_000, "span {} ns", d.span_ns);
        if let Some(v) = d.host.voluntary_switches {
            assert!(v >= 1, "a sleep is a voluntary switch: {v}");
        }
        // The peer end has no thread here: its thread counters are absent.
        assert_eq!(d.peer.voluntary_switches, None);
        assert_eq!(d.peer.runq_wait_ns, None);
        assert_eq!((d.host.cpu, d.peer.cpu), (cpu, cpu));
    }

    #[test]
    fn counters_missing_before_or_after_are_absent_not_zero() {
        let s = Sampler::new(0, 1, None, None);
        let with = EndReading { interrupts: Some(10), khz: Some(1000), ..Default::default() };
        let without = EndReading::default();
        let d = s.end(0, &without, &with);
        assert_eq!(d.interrupts, None);
        assert_eq!(d.freq_khz_min, None);
        let d = s.end(0, &with, &EndReading { interrupts: Some(15), khz: Some(800), ..with });
        assert_eq!(d.interrupts, Some(5));
        assert_eq!((d.freq_khz_min, d.freq_khz_max), (Some(800), Some(1000)));
    }

    #[test]
    fn steal_ticks_become_nanoseconds() {
        let s = Sampler {
            host_cpu: 0,
            peer_cpu: 1,
            host_task: None,
            peer_task: None,
            tick_ns: 10_000_000,
        };
        let a = EndReading { steal_ticks: Some(3), ..Default::default() };
        let b = EndReading { steal_ticks: Some(5), ..Default::default() };
        assert_eq!(s.end(0, &a, &b).steal_ns, Some(20_000_000));
    }
}
