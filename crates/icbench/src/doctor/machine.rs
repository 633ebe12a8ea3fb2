//! The machine around the two CPUs (issue #29 item 7): whether they are
//! virtual, and what else runs on them. A run on the development VM saw
//! 65–79 % preemption and its blocks move ±14 % with the host's wake-up
//! path (docs/results.md, "The wake-up trip") while `doctor` said nothing
//! of either.

use super::{Finding, Roots, Verdict};

/// DMI vendors and products that name a hypervisor (sysfs
/// `class/dmi/id/sys_vendor`, `product_name`).
const HYPERVISORS: &[&str] = &[
    "QEMU",
    "KVM",
    "VMware",
    "VirtualBox",
    "innotek",
    "Xen",
    "Microsoft Corporation",
    "Amazon EC2",
    "Google Compute Engine",
    "Parallels",
    "BHYVE",
];

/// Whether the CPUs are virtual: the CPU's `hypervisor` flag
/// (/proc/cpuinfo, x86), a hypervisor's DMI name, or the cpuidle driver a
/// KVM guest gets (`haltpoll`).
pub fn virtual_machine(roots: &Roots) -> Finding {
    let flag = roots.proc("cpuinfo").is_some_and(|c| {
        c.lines()
            .filter(|l| l.starts_with("flags"))
            .any(|l| l.split_whitespace().any(|f| f == "hypervisor"))
    });
    let dmi: Vec<String> = ["class/dmi/id/sys_vendor", "class/dmi/id/product_name"]
        .iter()
        .filter_map(|rel| roots.sys(rel))
        .filter(|v| HYPERVISORS.iter().any(|h| v.contains(h)))
        .collect();
    let idle = roots.sys("devices/system/cpu/cpuidle/current_driver");
    let haltpoll = idle.as_deref() == Some("haltpoll");
    if !flag && dmi.is_empty() && !haltpoll {
        return Finding::new("virtual", Verdict::Ok, "no hypervisor seen (CPU flags, DMI)");
    }
    let mut seen = Vec::new();
    if !dmi.is_empty() {
        seen.push(dmi.join(" "));
    }
    if flag {
        seen.push("the CPUs' hypervisor flag".into());
    }
    if let Some(d) = idle.filter(|_| haltpoll) {
        seen.push(format!("cpuidle driver {d}"));
    }
    Finding::new("virtual", Verdict::Warn, format!("a virtual machine: {}", seen.join(", ")))
        .advise(
            "the two CPUs are threads of a host that places them as it likes: a wake-up of a \
             sleeping vCPU goes through the host (a pipe round trip of 32–58 µs on the \
             development VM, moving ±14 % from one 20 ms block to the next), and the \
             cache-line trip changes with the placement. icbench measures both beside every \
             block (the state probe) and says where its figures hold; for the silicon's own \
             figures, measure on the board",
        )
}

/// What else the machine does: the 1-minute load average against the
/// online CPUs, and the share of CPU time stolen by a hypervisor since
/// boot (/proc/stat).
pub fn load(roots: &Roots) -> Finding {
    let load1: Option<f64> =
        roots.proc("loadavg").and_then(|l| l.split_whitespace().next()?.parse().ok());
    let steal = roots.proc("stat").and_then(|s| steal_share(&s));
    let Some(load1) = load1 else {
        return Finding::new("load", Verdict::Info, "no /proc/loadavg to read");
    };
    let stolen = steal.map_or(String::new(), |s| format!("; {:.1} % stolen since boot", s * 100.0));
    let found = format!("1-minute load {load1:.2}{stolen}");
    if load1 < 0.5 && steal.is_none_or(|s| s < 0.01) {
        return Finding::new("load", Verdict::Ok, found);
    }
    Finding::new("load", Verdict::Warn, found).advise(
        "other work shares the CPUs: every block it lands in is slower, and icbench marks the \
         ones its counters show disturbed. Measure on an otherwise idle machine (stop builds, \
         browsers, other benchmarks); stolen time is the hypervisor running other guests",
    )
}

/// Steal ÷ all CPU time in /proc/stat's `cpu` line (proc(5): user nice
/// system idle iowait irq softirq steal …); `None` without one.
fn steal_share(stat: &str) -> Option<f64> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|f| f.parse().ok()).collect();
    let total: u64 = v.iter().take(8).sum();
    (v.len() >= 8 && total > 0).then(|| v[7] as f64 / total as f64)
}
