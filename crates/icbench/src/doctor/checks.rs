//! One function per finding. Each reads only through [`Roots`] (or the
//! [`Permits`] tried beforehand) and says what to change and why, citing the
//! kernel documentation the advice comes from.

use icbench_engine::cpu::CpuList;
use icbench_model::FastCounter;

use super::permit::{Limit, Permits};
use super::{Finding, Roots, Verdict};

fn cpu_file(roots: &Roots, cpu: u32, rel: &str) -> Option<String> {
    roots.sys(&format!("devices/system/cpu/cpu{cpu}/{rel}"))
}

/// A kernel CPU list file; empty or unset (some kernels print "(null)")
/// gives an empty list.
fn cpu_list(roots: &Roots, rel: &str) -> Option<CpuList> {
    let text = roots.sys(rel)?;
    Some(CpuList::parse(&text).unwrap_or(CpuList { text: String::new(), cpus: Vec::new() }))
}

fn khz(v: &str) -> Option<u64> {
    v.trim().parse().ok()
}

fn mhz(khz: u64) -> String {
    format!("{} MHz", khz / 1000)
}

/// cpufreq's scaling governor of each CPU of the pair
/// (Documentation/admin-guide/pm/cpufreq.rst).
pub fn governor(roots: &Roots, pair: [u32; 2]) -> Finding {
    let govs: Vec<(u32, Option<String>)> =
        pair.iter().map(|&c| (c, cpu_file(roots, c, "cpufreq/scaling_governor"))).collect();
    if govs.iter().all(|(_, g)| g.is_none()) {
        return Finding::new(
            "governor",
            Verdict::Info,
            format!("no cpufreq on CPUs {} and {}", pair[0], pair[1]),
        )
        .advise(
            "nothing to set from here: the frequency is fixed, or set by firmware or a \
             hypervisor (in a VM, the host's governor applies)",
        );
    }
    let found = govs
        .iter()
        .map(|(c, g)| format!("CPU {c}: {}", g.as_deref().unwrap_or("no cpufreq")))
        .collect::<Vec<_>>()
        .join("; ");
    if govs.iter().all(|(_, g)| g.as_deref().is_none_or(|g| g == "performance")) {
        return Finding::new("governor", Verdict::Ok, found);
    }
    Finding::new("governor", Verdict::Warn, found).advise(format!(
        "set the performance governor on both CPUs (cpupower -c {a},{b} frequency-set -g \
         performance, or echo performance > /sys/devices/system/cpu/cpu{a}/cpufreq/\
         scaling_governor): other governors follow the load, so a ping-pong that leaves the \
         CPUs half idle runs at a lower and changing clock, and the figures move with it",
        a = pair[0],
        b = pair[1]
    ))
}

/// Frequency limits: scaling_min/max_freq against the hardware's
/// cpuinfo_min/max_freq, kHz.
pub fn frequency_limits(roots: &Roots, pair: [u32; 2]) -> Finding {
    let mut parts = Vec::new();
    let mut capped = Vec::new();
    for &c in &pair {
        let read = |f: &str| cpu_file(roots, c, &format!("cpufreq/{f}")).as_deref().and_then(khz);
        let (Some(hw_max), Some(max)) = (read("cpuinfo_max_freq"), read("scaling_max_freq")) else {
            continue;
        };
        let hw_min = read("cpuinfo_min_freq").unwrap_or(0);
        let min = read("scaling_min_freq").unwrap_or(hw_min);
        parts.push(format!(
            "CPU {c}: {}–{} allowed of {}–{}",
            mhz(min),
            mhz(max),
            mhz(hw_min),
            mhz(hw_max)
        ));
        if max < hw_max {
            capped.push((c, hw_max));
        }
    }
    if parts.is_empty() {
        return Finding::new("frequency-limits", Verdict::Info, "no cpufreq limits to read");
    }
    let found = parts.join("; ");
    match capped.first() {
        None => Finding::new("frequency-limits", Verdict::Ok, found),
        Some(&(c, hw_max)) => {
            Finding::new("frequency-limits", Verdict::Warn, found).advise(format!(
                "raise scaling_max_freq to the hardware's maximum (echo {hw_max} > \
             /sys/devices/system/cpu/cpu{c}/cpufreq/scaling_max_freq), or report the cap with \
             the results: a capped CPU measures slower than the part can run, and a thermal or \
             power cap can move during a run"
            ))
        }
    }
}

/// CPUs kept free of other tasks (isolcpus) and of the scheduler tick
/// (nohz_full) — Documentation/admin-guide/kernel-parameters.txt.
pub fn isolation(roots: &Roots, pair: [u32; 2]) -> Finding {
    let isolated = cpu_list(roots, "devices/system/cpu/isolated");
    let nohz = cpu_list(roots, "devices/system/cpu/nohz_full");
    let has = |l: &Option<CpuList>, c: u32| l.as_ref().is_some_and(|l| l.cpus.contains(&c));
    let show = |l: &Option<CpuList>| match l {
        None => "unknown".to_string(),
        Some(l) if l.cpus.is_empty() => "none".to_string(),
        Some(l) => l.text.clone(),
    };
    let found = format!("isolated: {}; nohz_full: {}", show(&isolated), show(&nohz));
    let (a, b) = (pair[0], pair[1]);
    let boot = format!("isolcpus={a},{b} nohz_full={a},{b} rcu_nocbs={a},{b}");
    if pair.iter().all(|&c| has(&isolated, c)) {
        if pair.iter().all(|&c| has(&nohz, c)) {
            return Finding::new("isolation", Verdict::Ok, found);
        }
        return Finding::new("isolation", Verdict::Info, found).advise(format!(
            "CPUs {a} and {b} are isolated; add nohz_full={a},{b} to the kernel command line \
             to stop the scheduler tick on them too, which removes a periodic interruption \
             from long measurements"
        ));
    }
    Finding::new("isolation", Verdict::Warn, found).advise(format!(
        "CPUs {a} and {b} share their time with every other task and interrupt, which shows in \
         the tail (p99, max). Boot with {boot} to keep them for the measurement (then \
         `icbench run --cpus {a},{b}`), or at least keep the machine otherwise idle"
    ))
}

/// RT throttling: how much of each period SCHED_FIFO tasks may use
/// (Documentation/scheduler/sched-rt-group.rst).
pub fn rt_throttling(roots: &Roots) -> Finding {
    let runtime = roots.proc("sys/kernel/sched_rt_runtime_us");
    let period = roots.proc("sys/kernel/sched_rt_period_us");
    let Some(runtime) = runtime else {
        return Finding::new(
            "rt-throttling",
            Verdict::Info,
            "cannot read /proc/sys/kernel/sched_rt_runtime_us",
        );
    };
    if runtime == "-1" {
        return Finding::new("rt-throttling", Verdict::Ok, "off (sched_rt_runtime_us = -1)");
    }
    let period = period.unwrap_or_else(|| "?".to_string());
    Finding::new(
        "rt-throttling",
        Verdict::Warn,
        format!("on: SCHED_FIFO tasks may run {runtime} µs of every {period} µs"),
    )
    .advise(
        "with --fifo and a spinning wait (shm), a peer that uses up the budget is stopped for \
         the rest of the period: a multi-millisecond outlier that is the kernel's doing, not \
         the link's. While measuring, `sysctl kernel.sched_rt_runtime_us=-1` (as root); \
         restore the old value after, since the budget is what keeps a runaway RT task from \
         locking up the machine. On a machine with two CPUs, a --fifo run with a spinning link \
         holds both while a cell runs: every other program gets only that budget's remainder \
         until the cell ends",
    )
}

fn limit_text(l: Limit) -> String {
    match l {
        Limit::Unlimited => "unlimited".to_string(),
        Limit::Value(v) => v.to_string(),
    }
}

/// Whether this process may run under SCHED_FIFO (tried on a thread).
pub fn fifo(p: &Permits) -> Finding {
    let rl = format!("RLIMIT_RTPRIO {}", limit_text(p.rtprio));
    match &p.fifo {
        Ok(()) => Finding::new(
            "sched-fifo",
            Verdict::Ok,
            format!("permitted (SCHED_FIFO 1 tried on a thread and undone; {rl})"),
        ),
        Err(e) => Finding::new("sched-fifo", Verdict::Warn, format!("refused: {e} ({rl})")).advise(
            "`icbench run --fifo` will fail. Run as root, grant the capability \
                 (setcap cap_sys_nice+ep \"$(command -v icbench)\") or raise RLIMIT_RTPRIO \
                 (`@realtime - rtprio 99` in /etc/security/limits.conf). Without SCHED_FIFO \
                 any normal task can preempt either end in the middle of a round trip",
        ),
    }
}

/// Whether this process may lock its memory (mlockall tried and undone).
pub fn mlock(p: &Permits) -> Finding {
    let rl = match p.memlock {
        Limit::Value(v) => format!("RLIMIT_MEMLOCK {} KiB", v / 1024),
        other => format!("RLIMIT_MEMLOCK {}", limit_text(other)),
    };
    match &p.mlock {
        Ok(()) => Finding::new(
            "mlock",
            Verdict::Ok,
            format!("permitted (mlockall tried and undone; {rl})"),
        ),
        Err(e) => Finding::new("mlock", Verdict::Warn, format!("refused: {e} ({rl})")).advise(
            "`icbench run --mlock` will fail. Run as root, grant CAP_IPC_LOCK (setcap \
             cap_ipc_lock+ep \"$(command -v icbench)\") or raise RLIMIT_MEMLOCK (ulimit -l \
             unlimited). Unlocked pages can be reclaimed and faulted back in the middle of a \
             measurement",
        ),
    }
}

/// SMT siblings of the pair: CPUs that share one core
/// (Documentation/admin-guide/cputopology.rst).
pub fn smt(roots: &Roots, pair: [u32; 2]) -> Finding {
    let siblings = |c: u32| {
        cpu_file(roots, c, "topology/core_cpus_list")
            .or_else(|| cpu_file(roots, c, "topology/thread_siblings_list"))
            .and_then(|t| CpuList::parse(&t))
    };
    let (a, b) = (pair[0], pair[1]);
    let (Some(sa), Some(sb)) = (siblings(a), siblings(b)) else {
        return Finding::new("smt", Verdict::Info, "CPU topology not readable");
    };
    if sa.cpus.contains(&b) {
        return Finding::new(
            "smt",
            Verdict::Warn,
            format!("CPUs {a} and {b} are SMT siblings: one core ({})", sa.text),
        )
        .advise(
            "choose CPUs on different cores to measure communication between cores: siblings \
             share L1 and L2, so this pair measures a hand-off inside one core, far faster than \
             between cores (`lscpu -e` lists the cores; `icbench doctor --cpus A,B` checks \
             another pair)",
        );
    }
    let others: Vec<String> = [(a, &sa), (b, &sb)]
        .iter()
        .filter(|(_, s)| s.cpus.len() > 1)
        .map(|(c, s)| format!("CPU {c} shares its core with {}", s.text))
        .collect();
    if others.is_empty() {
        return Finding::new(
            "smt",
            Verdict::Ok,
            format!("no SMT siblings: CPUs {a} and {b} each have a core of their own"),
        );
    }
    Finding::new("smt", Verdict::Info, others.join("; ")).advise(
        "a busy sibling takes execution units and cache from the measuring thread: keep the \
         siblings idle (isolate them too), or turn SMT off (echo off > \
         /sys/devices/system/cpu/smt/control)",
    )
}

/// A PREEMPT_RT kernel: /sys/kernel/realtime, or the version string
/// (`uname -v`, also /proc/sys/kernel/version).
pub fn preempt_rt(roots: &Roots) -> Finding {
    let version = roots.proc("sys/kernel/version").unwrap_or_default();
    if roots.sys("kernel/realtime").as_deref() == Some("1") {
        return Finding::new(
            "preempt-rt",
            Verdict::Ok,
            "PREEMPT_RT kernel (/sys/kernel/realtime = 1)",
        );
    }
    if version.contains("PREEMPT_RT") {
        return Finding::new("preempt-rt", Verdict::Ok, format!("PREEMPT_RT kernel ({version})"));
    }
    let kind = if version.contains("PREEMPT") {
        "preemptible kernel, not PREEMPT_RT"
    } else {
        "not a PREEMPT_RT kernel"
    };
    let shown = if version.is_empty() { "version unknown".to_string() } else { version };
    Finding::new("preempt-rt", Verdict::Info, format!("{kind} ({shown})")).advise(
        "fine for typical figures; for worst cases (p99.9, max) that mean what they would on a \
         real-time board, run a PREEMPT_RT kernel (CONFIG_PREEMPT_RT, mainline since 6.12; \
         Debian's linux-image-rt-*; the RT variants of OpenSTLinux and the vendor BSPs): \
         otherwise non-preemptible kernel sections add to the tail",
    )
}

/// /dev/cpu_dma_latency, the PM QoS request that keeps CPUs out of deep
/// idle states (Documentation/power/pm_qos_interface.rst).
pub fn cpu_dma_latency(roots: &Roots) -> Finding {
    let driver = roots.sys("devices/system/cpu/cpuidle/current_driver");
    let idle = driver.map_or(String::new(), |d| format!("; cpuidle driver {d}"));
    if roots.dev.join("cpu_dma_latency").exists() {
        return Finding::new(
            "cpu-dma-latency",
            Verdict::Info,
            format!("/dev/cpu_dma_latency present{idle}"),
        )
        .advise(
            "icbench timer and wakeup hold it with --dma-latency 0, as cyclictest does by \
                 default; icbench run does not: for run figures free of idle-state exit latency \
                 boot with idle=poll / cpuidle.off=1; a CPU waking from a deep C-state adds its \
                 exit latency to the first message after a pause",
        );
    }
    Finding::new("cpu-dma-latency", Verdict::Info, format!("no /dev/cpu_dma_latency{idle}"))
        .advise("idle states cannot be limited from user space here (CONFIG_CPU_IDLE / PM QoS)")
}

/// The CPU's fast counter (TSC, CNTVCT_EL0) as icbench_engine::counter
/// found it: read live, so `None` when the tree is another machine's.
/// icbench times with CLOCK_MONOTONIC_RAW either way, so an untrusted
/// counter is worth knowing, not a change to make.
pub fn fast_counter(fc: Option<&FastCounter>) -> Finding {
    const ID: &str = "fast-counter";
    let Some(fc) = fc else {
        return Finding::new(
            ID,
            Verdict::Info,
            "not examined: --root names another machine's tree",
        )
        .advise("run `icbench doctor` on the board itself to examine its counter");
    };
    let Some(name) = &fc.counter else {
        return Finding::new(ID, Verdict::Info, fc.reason.clone()).advise(
            "nothing to change: icbench times with CLOCK_MONOTONIC_RAW, which the vDSO \
             reads from the system counter where the kernel allows it",
        );
    };
    let rate = fc.hz.map_or(String::new(), |hz| format!(" at {:.6} MHz", hz / 1e6));
    let cost = fc.read_ns.map_or(String::new(), |ns| format!(", one read {ns:.1} ns"));
    let found = format!("{name}{rate}{cost}: {}", fc.reason);
    if fc.trusted {
        return Finding::new(ID, Verdict::Ok, found);
    }
    let hint = if fc.reason.contains("clocksource") {
        " The kernel keeps time with another clocksource, which CLOCK_MONOTONIC_RAW then \
         reads: if that is hpet or acpi_pm, each read costs a microsecond or more (see a \
         run's clock read cost, and dmesg | grep -i clocksource for why the kernel chose it)."
    } else {
        ""
    };
    Finding::new(ID, Verdict::Info, found).advise(format!(
        "icbench times with CLOCK_MONOTONIC_RAW regardless and records this with every run; \
         a counter that fails these checks must not be used to time anything on this \
         machine.{hint}"
    ))
}

fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Remote processors managed by Linux (Documentation/staging/remoteproc.rst).
pub fn remoteproc(roots: &Roots) -> Finding {
    let class = roots.sys.join("class/remoteproc");
    let procs = entries(&class);
    if procs.is_empty() {
        return Finding::new(
            "remoteproc",
            Verdict::Info,
            "no remote processors (/sys/class/remoteproc)",
        )
        .advise(
            "only local links can be measured on this machine. On an STM32MP1, i.MX8 or \
                 AM64x enable CONFIG_REMOTEPROC with the SoC's driver (STM32_RPROC, \
                 IMX_REMOTEPROC, TI_K3_R5_REMOTEPROC), put the firmware in /lib/firmware and \
                 start it (echo fw.elf > /sys/class/remoteproc/remoteproc0/firmware; echo start \
                 > /sys/class/remoteproc/remoteproc0/state)",
        );
    }
    let mut stopped = Vec::new();
    let found = procs
        .iter()
        .map(|p| {
            let rel = format!("class/remoteproc/{p}");
            let name = roots.sys(&format!("{rel}/name")).unwrap_or_else(|| "?".into());
            let state = roots.sys(&format!("{rel}/state")).unwrap_or_else(|| "?".into());
            if state != "running" && state != "attached" {
                stopped.push(p.clone());
            }
            format!("{p} ({name}): {state}")
        })
        .collect::<Vec<_>>()
        .join("; ");
    match stopped.first() {
        None => Finding::new("remoteproc", Verdict::Ok, found),
        Some(p) => Finding::new("remoteproc", Verdict::Warn, found).advise(format!(
            "a remote core that is not running answers nothing: write its firmware's name to \
             /sys/class/remoteproc/{p}/firmware and `echo start > \
             /sys/class/remoteproc/{p}/state`"
        )),
    }
}

/// The rpmsg bus, its channels, and the device nodes a remote link opens
/// (Documentation/staging/rpmsg.rst; rpmsg_char, rpmsg_tty).
pub fn rpmsg(roots: &Roots) -> Finding {
    let bus = roots.sys.join("bus/rpmsg");
    let nodes: Vec<String> = entries(&roots.dev)
        .into_iter()
        .filter(|n| n.starts_with("rpmsg") || n.starts_with("ttyRPMSG"))
        .map(|n| format!("/dev/{n}"))
        .collect();
    if !bus.exists() {
        return Finding::new("rpmsg", Verdict::Info, "no rpmsg bus (/sys/bus/rpmsg)").advise(
            "enable CONFIG_RPMSG_VIRTIO with CONFIG_RPMSG_CHAR (/dev/rpmsgN, /dev/rpmsg_ctrlN) \
             and CONFIG_RPMSG_TTY (/dev/ttyRPMSGN); channels appear when the remote firmware \
             announces them",
        );
    }
    let channels = entries(&bus.join("devices"));
    let chans = if channels.is_empty() { "no channels".to_string() } else { channels.join(", ") };
    if nodes.is_empty() {
        return Finding::new(
            "rpmsg",
            Verdict::Warn,
            format!("rpmsg bus: {chans}; no /dev/rpmsg* or /dev/ttyRPMSG*"),
        )
        .advise(
            "load the character and tty drivers (modprobe rpmsg_char rpmsg_ctrl rpmsg_tty) \
                 and check that the remote firmware announced its channel (dmesg | grep rpmsg)",
        );
    }
    Finding::new("rpmsg", Verdict::Ok, format!("rpmsg bus: {chans}; devices: {}", nodes.join(", ")))
}
