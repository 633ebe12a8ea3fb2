//! Parsers for the kernel's counter files, pure functions over their text
//! so that they are tested on recorded copies (tests below). Formats:
//! proc(5) (`/proc/stat`, `/proc/interrupts`, `/proc/softirqs`,
//! `/proc/<pid>/task/<tid>/status`), Documentation/scheduler/sched-stats.rst
//! (`schedstat`: run time, run-queue wait, time slices) and the scheduler's
//! debug view `/proc/<pid>/task/<tid>/sched` (`kernel/sched/debug.c`).

/// `/proc/stat`: the steal column of `cpuN`, USER_HZ ticks.
pub(crate) fn stat_steal_ticks(text: &str, cpu: u32) -> Option<u64> {
    let name = format!("cpu{cpu}");
    let line = text.lines().find(|l| l.split_whitespace().next() == Some(name.as_str()))?;
    // user nice system idle iowait irq softirq steal guest guest_nice
    line.split_whitespace().nth(8)?.parse().ok()
}

/// `/proc/interrupts` and `/proc/softirqs`: the CPU's column summed over
/// every line that has one count per CPU (so `ERR:` and `MIS:`, one count
/// for the machine, are left out). The header names the columns (`CPU0
/// CPU1 …`, only online CPUs, so not always consecutive).
pub(crate) fn per_cpu_column_sum(text: &str, cpu: u32) -> Option<u64> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next()?.split_whitespace().collect();
    let want = format!("CPU{cpu}");
    let col = header.iter().position(|h| *h == want)?;
    let mut sum = 0u64;
    for line in lines {
        let mut words = line.split_whitespace();
        if words.next().is_none_or(|label| !label.ends_with(':')) {
            continue;
        }
        let counts: Vec<u64> = words.take(header.len()).map_while(|w| w.parse().ok()).collect();
        if counts.len() == header.len() {
            sum = sum.saturating_add(counts[col]);
        }
    }
    Some(sum)
}

/// A thread's scheduling counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ThreadCounts {
    pub voluntary: Option<u64>,
    pub involuntary: Option<u64>,
    pub migrations: Option<u64>,
}

/// `/proc/<pid>/task/<tid>/sched` (kernels with CONFIG_SCHED_DEBUG):
/// `nr_voluntary_switches`, `nr_involuntary_switches`, `se.nr_migrations`.
pub(crate) fn sched_counts(text: &str) -> ThreadCounts {
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().parse().ok()).flatten()
        })
    };
    ThreadCounts {
        voluntary: field("nr_voluntary_switches"),
        involuntary: field("nr_involuntary_switches"),
        migrations: field("se.nr_migrations"),
    }
}

/// `/proc/<pid>/task/<tid>/status`: the context switches (every kernel
/// has them; no migrations).
pub(crate) fn status_counts(text: &str) -> ThreadCounts {
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k == name).then(|| v.trim().parse().ok()).flatten()
        })
    };
    ThreadCounts {
        voluntary: field("voluntary_ctxt_switches"),
        involuntary: field("nonvoluntary_ctxt_switches"),
        migrations: None,
    }
}

/// `/proc/<pid>/task/<tid>/schedstat`: time on the CPU, time runnable but
/// waiting for it (ns), time slices.
pub(crate) fn schedstat_wait_ns(text: &str) -> Option<u64> {
    let mut w = text.split_whitespace();
    let _run: u64 = w.next()?.parse().ok()?;
    w.next()?.parse().ok()
}

/// cpufreq's `scaling_cur_freq`: kHz.
pub(crate) fn khz(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Recorded on the development VM (2 vCPUs, Linux 6.1), shortened.
    const STAT: &str = "cpu  1137436 72658 159909 1599968 14055 0 1418 60275 4 0\n\
                        cpu0 599442 36373 78987 774319 4355 0 168 29880 3 0\n\
                        cpu1 537993 36285 80921 825648 9700 0 1249 30394 0 0\n\
                        intr 123 4 5\nctxt 999\n";
    const INTERRUPTS: &str = "           CPU0       CPU1       \n  \
        0:         36          0   IO-APIC   2-edge      timer\n  \
        24:          1          0  IO-APIC   5-edge      ACPI:Ged\n\
        LOC:    4063447    4458155   Local timer interrupts\n\
        RES:     241345     250912   Rescheduling interrupts\n\
        ERR:          0\n\
        MIS:          0\n\
        PIW:          0          0   Posted-interrupt wakeup event\n";
    const SOFTIRQS: &str = "                    CPU0       CPU1       \n          \
        HI:          0          0\n       TIMER:     236757     311948\n    \
        NET_RX:         12        100\n";

    #[test]
    fn steal_is_the_eighth_value_of_the_cpus_line() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        assert_eq!(stat_steal_ticks(STAT, 0), Some(29880));
        assert_eq!(stat_steal_ticks(STAT, 1), Some(30394));
        // "cpu" (the sum) is not cpu0's line, and an absent CPU is None.
        assert_eq!(stat_steal_ticks(STAT, 2), None);
        // A kernel too old for the steal column.
        assert_eq!(stat_steal_ticks("cpu0 1 2 3 4 5 6 7\n", 0), None);
    }

    #[test]
    fn a_cpus_interrupts_are_its_column_summed_over_per_cpu_lines() {
        assert_eq!(per_cpu_column_sum(INTERRUPTS, 0), Some(36 + 1 + 4063447 + 241345));
        assert_eq!(per_cpu_column_sum(INTERRUPTS, 1), Some(4458155 + 250912));
        assert_eq!(per_cpu_column_sum(INTERRUPTS, 3), None);
        assert_eq!(per_cpu_column_sum(SOFTIRQS, 1), Some(311948 + 100));
    }

    #[test]
    fn columns_follow_the_header_when_a_cpu_is_offline() {
        let text = "  CPU0  CPU2\nLOC: 10 20 Local timer interrupts\nRES: 1 2 Resched\n";
        assert_eq!(per_cpu_column_sum(text, 2), Some(22));
        assert_eq!(per_cpu_column_sum(text, 1), None);
    }

    #[test]
    fn thread_counts_from_sched_and_from_status() {
        let sched = "cat (14693, #threads: 1)\n----\n\
            se.exec_start                                :      14926616.955960\n\
            se.nr_migrations                             :                    4\n\
            nr_switches                                  :                   12\n\
            nr_voluntary_switches                        :                    9\n\
            nr_involuntary_switches                      :                    3\n";
        assert_eq!(
            sched_counts(sched),
            ThreadCounts { voluntary: Some(9), involuntary: Some(3), migrations: Some(4) }
        );
        let status = "Name:\tcat\nState:\tR (running)\n\
            voluntary_ctxt_switches:\t7\nnonvoluntary_ctxt_switches:\t2\n";
        assert_eq!(
            status_counts(status),
            ThreadCounts { voluntary: Some(7), involuntary: Some(2), migrations: None }
        );
        assert_eq!(sched_counts(""), ThreadCounts::default());
    }

    #[test]
    fn schedstat_gives_the_run_queue_wait() {
        assert_eq!(schedstat_wait_ns("1200345 78936 14\n"), Some(78936));
        assert_eq!(schedstat_wait_ns("1200345\n"), None);
        assert_eq!(khz("2600000\n"), Some(2_600_000));
    }
}
