//! Every finding against fake sysfs/procfs/dev trees in a temporary
//! directory: one tree set up well, one left as a desktop leaves it.

use std::path::Path;

use rustix::io::Errno;

use super::permit::{Limit, Permits};
use super::*;

struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new() -> Tree {
        let t = Tree { dir: tempfile::tempdir().unwrap() };
        for d in ["sys", "proc", "dev"] {
            std::fs::create_dir_all(t.dir.path().join(d)).unwrap();
        }
        t
    }

    fn put(&self, rel: &str, text: &str) -> &Tree {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, format!("{text}\n")).unwrap();
        self
    }

    fn mkdir(&self, rel: &str) -> &Tree {
        std::fs::create_dir_all(self.dir.path().join(rel)).unwrap();
        self
    }

    fn roots(&self) -> Roots {
        Roots::under(self.dir.path())
    }

    fn cpu(&self, n: u32, rel: &str, text: &str) -> &Tree {
        self.put(&format!("sys/devices/system/cpu/cpu{n}/{rel}"), text)
    }

    fn find(&self, id: &str, permits: &Permits) -> Finding {
        examine(&self.roots(), 2, 3, permits, None)
            .findings
            .into_iter()
            .find(|f| f.id == id)
            .unwrap()
    }
}

fn allowed() -> Permits {
    Permits { fifo: Ok(()), rtprio: Limit::Value(99), mlock: Ok(()), memlock: Limit::Unlimited }
}

fn refused() -> Permits {
    Permits {
        fifo: Err(Errno::PERM),
        rtprio: Limit::Value(0),
        mlock: Err(Errno::NOMEM),
        memlock: Limit::Value(8 << 20),
    }
}

fn assert_verdict(f: &Finding, v: Verdict) {
    assert_eq!(f.verdict, v, "{f:?}");
    if v == Verdict::Warn {
        assert!(!f.advice.is_empty(), "a warning says what to change: {f:?}");
    }
}

#[test]
fn every_check_reports_once_with_a_stable_id() {
    let t = Tree::new();
    let r = examine(&t.roots(), 2, 3, &allowed(), None);
    let ids: Vec<&str> = r.findings.iter().map(|f| f.id).collect();
    assert_eq!(
        ids,
        [
            "governor",
            "frequency-limits",
            "isolation",
            "rt-throttling",
            "sched-fifo",
            "mlock",
            "smt",
            "preempt-rt",
            "cpu-dma-latency",
            "virtual",
            "load",
            "fast-counter",
            "remoteproc",
            "rpmsg"
        ]
    );
}

#[test]
fn governor_performance_is_ok_and_others_are_named() {
    let t = Tree::new();
    assert_verdict(&t.find("governor", &allowed()), Verdict::Info); // no cpufreq at all
    t.cpu(2, "cpufreq/scaling_governor", "performance");
    t.cpu(3, "cpufreq/scaling_governor", "performance");
    assert_verdict(&t.find("governor", &allowed()), Verdict::Ok);
    t.cpu(3, "cpufreq/scaling_governor", "schedutil");
    let f = t.find("governor", &allowed());
    assert_verdict(&f, Verdict::Warn);
    assert_eq!(f.found, "CPU 2: performance; CPU 3: schedutil");
    assert!(f.advice.contains("frequency-set -g performance"), "{}", f.advice);
}

#[test]
fn a_capped_maximum_frequency_is_a_warning() {
    let t = Tree::new();
    for c in [2, 3] {
        t.cpu(c, "cpufreq/cpuinfo_min_freq", "400000");
        t.cpu(c, "cpufreq/cpuinfo_max_freq", "1200000");
        t.cpu(c, "cpufreq/scaling_min_freq", "400000");
        t.cpu(c, "cpufreq/scaling_max_freq", "1200000");
    }
    let f = t.find("frequency-limits", &allowed());
    assert_verdict(&f, Verdict::Ok);
    assert!(
        f.found.starts_with("CPU 2: 400 MHz–1200 MHz allowed of 400 MHz–1200 MHz"),
        "{}",
        f.found
    );
    t.cpu(3, "cpufreq/scaling_max_freq", "800000");
    let f = t.find("frequency-limits", &allowed());
    assert_verdict(&f, Verdict::Warn);
    assert!(
        f.advice.contains("echo 1200000 > /sys/devices/system/cpu/cpu3/cpufreq/scaling_max_freq")
    );
}

#[test]
fn isolation_wants_both_cpus_isolated_and_tickless() {
    let t = Tree::new();
    t.put("sys/devices/system/cpu/isolated", "");
    t.put("sys/devices/system/cpu/nohz_full", "(null)");
    let f = t.find("isolation", &allowed());
    assert_verdict(&f, Verdict::Warn);
    assert_eq!(f.found, "isolated: none; nohz_full: none");
    assert!(f.advice.contains("isolcpus=2,3 nohz_full=2,3"), "{}", f.advice);
    t.put("sys/devices/system/cpu/isolated", "2-3");
    assert_verdict(&t.find("isolation", &allowed()), Verdict::Info);
    t.put("sys/devices/system/cpu/nohz_full", "1-3");
    let f = t.find("isolation", &allowed());
    assert_verdict(&f, Verdict::Ok);
    assert_eq!(f.found, "isolated: 2-3; nohz_full: 1-3");
    t.put("sys/devices/system/cpu/isolated", "3");
    assert_verdict(&t.find("isolation", &allowed()), Verdict::Warn);
}

#[test]
fn rt_throttling_on_is_a_warning_off_is_ok() {
    let t = Tree::new();
    assert_verdict(&t.find("rt-throttling", &allowed()), Verdict::Info);
    t.put("proc/sys/kernel/sched_rt_runtime_us", "950000");
    t.put("proc/sys/kernel/sched_rt_period_us", "1000000");
    let f = t.find("rt-throttling", &allowed());
    assert_verdict(&f, Verdict::Warn);
    assert_eq!(f.found, "on: SCHED_FIFO tasks may run 950000 µs of every 1000000 µs");
    assert!(f.advice.contains("sched_rt_runtime_us=-1"));
    t.put("proc/sys/kernel/sched_rt_runtime_us", "-1");
    assert_verdict(&t.find("rt-throttling", &allowed()), Verdict::Ok);
}

#[test]
fn fifo_and_mlock_refusals_say_how_to_get_them() {
    let t = Tree::new();
    assert_verdict(&t.find("sched-fifo", &allowed()), Verdict::Ok);
    assert_verdict(&t.find("mlock", &allowed()), Verdict::Ok);
    assert!(t.find("mlock", &allowed()).found.contains("RLIMIT_MEMLOCK unlimited"));
    let f = t.find("sched-fifo", &refused());
    assert_verdict(&f, Verdict::Warn);
    assert!(f.found.contains("RLIMIT_RTPRIO 0"), "{}", f.found);
    assert!(f.advice.contains("cap_sys_nice"));
    let f = t.find("mlock", &refused());
    assert_verdict(&f, Verdict::Warn);
    assert!(f.found.contains("RLIMIT_MEMLOCK 8192 KiB"), "{}", f.found);
    assert!(f.advice.contains("cap_ipc_lock"));
}

#[test]
fn smt_siblings_in_the_pair_are_a_warning() {
    let t = Tree::new();
    assert_verdict(&t.find("smt", &allowed()), Verdict::Info);
    t.cpu(2, "topology/thread_siblings_list", "2-3");
    t.cpu(3, "topology/thread_siblings_list", "2-3");
    let f = t.find("smt", &allowed());
    assert_verdict(&f, Verdict::Warn);
    assert_eq!(f.found, "CPUs 2 and 3 are SMT siblings: one core (2-3)");
    t.cpu(2, "topology/thread_siblings_list", "2,6");
    t.cpu(3, "topology/thread_siblings_list", "3,7");
    let f = t.find("smt", &allowed());
    assert_verdict(&f, Verdict::Info);
    assert_eq!(f.found, "CPU 2 shares its core with 2,6; CPU 3 shares its core with 3,7");
    // core_cpus_list, the newer name, wins over thread_siblings_list.
    t.cpu(2, "topology/core_cpus_list", "2");
    t.cpu(3, "topology/core_cpus_list", "3");
    assert_verdict(&t.find("smt", &allowed()), Verdict::Ok);
}

#[test]
fn preempt_rt_from_sys_kernel_realtime_or_the_version() {
    let t = Tree::new();
    t.put("proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.0-1");
    let f = t.find("preempt-rt", &allowed());
    assert_verdict(&f, Verdict::Info);
    assert!(f.found.starts_with("preemptible kernel, not PREEMPT_RT"), "{}", f.found);
    t.put("proc/sys/kernel/version", "#1 SMP PREEMPT_RT Debian 6.1.0-1-rt");
    assert_verdict(&t.find("preempt-rt", &allowed()), Verdict::Ok);
    t.put("proc/sys/kernel/version", "#1 SMP");
    t.put("sys/kernel/realtime", "1");
    let f = t.find("preempt-rt", &allowed());
    assert_verdict(&f, Verdict::Ok);
    assert_eq!(f.found, "PREEMPT_RT kernel (/sys/kernel/realtime = 1)");
}

#[test]
fn cpu_dma_latency_presence_is_reported() {
    let t = Tree::new();
    assert!(t.find("cpu-dma-latency", &allowed()).found.starts_with("no /dev/cpu_dma_latency"));
    t.put("dev/cpu_dma_latency", "");
    t.put("sys/devices/system/cpu/cpuidle/current_driver", "psci_idle");
    let f = t.find("cpu-dma-latency", &allowed());
    assert_eq!(f.found, "/dev/cpu_dma_latency present; cpuidle driver psci_idle");
    assert!(f.advice.contains("--dma-latency 0"), "{}", f.advice);
}

/// Issue #29 item 7: a VM is named as one, from any of its signs.
#[test]
fn a_virtual_machine_is_named_from_its_signs() {
    let t = Tree::new();
    t.put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr");
    assert_eq!(t.find("virtual", &allowed()).verdict, Verdict::Ok);
    t.put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm");
    t.put("sys/class/dmi/id/sys_vendor", "QEMU");
    t.put("sys/devices/system/cpu/cpuidle/current_driver", "haltpoll");
    let f = t.find("virtual", &allowed());
    assert_eq!(f.verdict, Verdict::Warn);
    assert_eq!(
        f.found,
        "a virtual machine: QEMU, the CPUs' hypervisor flag, cpuidle driver haltpoll"
    );
    assert!(f.advice.contains("state probe"), "{}", f.advice);
    // A board (an ARM CPU has no such flag) with a vendor's DMI name.
    let b = Tree::new();
    b.put("sys/class/dmi/id/sys_vendor", "STMicroelectronics");
    assert_eq!(b.find("virtual", &allowed()).verdict, Verdict::Ok);
}

/// Issue #29 item 7: other work and stolen time are said, with numbers.
#[test]
fn load_and_stolen_time_are_reported() {
    let t = Tree::new();
    assert_eq!(t.find("load", &allowed()).verdict, Verdict::Info);
    t.put("proc/loadavg", "0.12 0.30 0.41 1/180 4242");
    // user nice system idle iowait irq softirq steal: 0.1 % stolen.
    t.put("proc/stat", "cpu  400 0 100 9400 0 0 0 10 0 0\ncpu0 200 0 50 4700 0 0 0 5 0 0");
    let f = t.find("load", &allowed());
    assert_eq!(
        (f.verdict, f.found.as_str()),
        (Verdict::Ok, "1-minute load 0.12; 0.1 % stolen since boot")
    );
    t.put("proc/loadavg", "1.75 1.20 0.90 3/180 4242");
    let f = t.find("load", &allowed());
    assert_eq!(f.verdict, Verdict::Warn);
    assert!(f.advice.contains("idle machine"), "{}", f.advice);
    // Stolen time alone is reason enough.
    t.put("proc/loadavg", "0.05 0.05 0.05 1/180 4242");
    t.put("proc/stat", "cpu  400 0 100 9000 0 0 0 500 0 0");
    let f = t.find("load", &allowed());
    assert_eq!(
        (f.verdict, f.found.as_str()),
        (Verdict::Warn, "1-minute load 0.05; 5.0 % stolen since boot")
    );
}

#[test]
fn remoteproc_states_and_rpmsg_devices() {
    let t = Tree::new();
    assert_verdict(&t.find("remoteproc", &allowed()), Verdict::Info);
    assert_verdict(&t.find("rpmsg", &allowed()), Verdict::Info);
    t.put("sys/class/remoteproc/remoteproc0/name", "m4");
    t.put("sys/class/remoteproc/remoteproc0/state", "offline");
    let f = t.find("remoteproc", &allowed());
    assert_verdict(&f, Verdict::Warn);
    assert_eq!(f.found, "remoteproc0 (m4): offline");
    assert!(f.advice.contains("echo start > /sys/class/remoteproc/remoteproc0/state"));
    t.put("sys/class/remoteproc/remoteproc0/state", "running");
    assert_verdict(&t.find("remoteproc", &allowed()), Verdict::Ok);

    t.mkdir("sys/bus/rpmsg/devices/virtio0.rpmsg-tty.-1.0");
    let f = t.find("rpmsg", &allowed());
    assert_verdict(&f, Verdict::Warn);
    assert!(f.found.contains("virtio0.rpmsg-tty.-1.0"), "{}", f.found);
    t.put("dev/ttyRPMSG0", "").put("dev/rpmsg_ctrl0", "").put("dev/null", "");
    let f = t.find("rpmsg", &allowed());
    assert_verdict(&f, Verdict::Ok);
    assert!(f.found.ends_with("devices: /dev/rpmsg_ctrl0, /dev/ttyRPMSG0"), "{}", f.found);
}

#[test]
fn roots_are_never_fixed_paths() {
    let r = Roots::under(Path::new("/tmp/x"));
    assert_eq!(r.sys, Path::new("/tmp/x/sys"));
    assert_eq!(r.proc, Path::new("/tmp/x/proc"));
    assert_eq!(r.dev, Path::new("/tmp/x/dev"));
}

fn counter(name: Option<&str>, trusted: bool, reason: &str) -> icbench_model::FastCounter {
    icbench_model::FastCounter {
        counter: name.map(str::to_string),
        hz: name.map(|_| 2_600_000_156.6),
        declared_hz: None,
        read_ns: name.map(|_| 9.84),
        trusted,
        reason: reason.to_string(),
        max_deviation_ns: name.map(|_| 1.7),
        drift_ppm: name.map(|_| -0.003),
    }
}

#[test]
fn the_fast_counter_finding_follows_the_live_probe() {
    let t = Tree::new();
    let find = |fc: Option<&icbench_model::FastCounter>| {
        examine(&t.roots(), 2, 3, &allowed(), fc)
            .findings
            .into_iter()
            .find(|f| f.id == "fast-counter")
            .unwrap()
    };
    let f = find(None);
    assert_verdict(&f, Verdict::Info);
    assert!(f.found.contains("not examined"), "{f:?}");
    let ok = counter(Some("tsc"), true, "agrees with CLOCK_MONOTONIC_RAW within 2 ns");
    let f = find(Some(&ok));
    assert_verdict(&f, Verdict::Ok);
    assert_eq!(
        f.found,
        "tsc at 2600.000157 MHz, one read 9.8 ns: agrees with CLOCK_MONOTONIC_RAW within 2 ns"
    );
    let hpet = counter(Some("tsc"), false, "not trusted: the kernel's clocksource is hpet");
    let f = find(Some(&hpet));
    assert_verdict(&f, Verdict::Info);
    assert!(f.advice.contains("another clocksource"), "{f:?}");
    let drift = counter(Some("cntvct_el0"), false, "not trusted: drifts +60 ppm");
    let f = find(Some(&drift));
    assert!(!f.advice.contains("another clocksource") && f.advice.contains("regardless"));
    let arm = counter(None, false, "not available on 32-bit ARM: …");
    let f = find(Some(&arm));
    assert_verdict(&f, Verdict::Info);
    assert_eq!(f.found, "not available on 32-bit ARM: …");
}

/// Under `--root` a file may be anything: a link to /dev/zero (endless)
/// is read no further than an attribute can be and counts as unreadable, where it
/// took 2 GB before; an ordinary sysfs file reads as before.
#[test]
fn an_endless_file_in_the_tree_is_not_read_to_its_end() {
    let t = Tree::new();
    t.put("sys/devices/system/cpu/online", "0-1");
    let gov = t.dir.path().join("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    std::fs::create_dir_all(gov.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &gov).unwrap();
    let roots = Roots::under(t.dir.path());
    assert_eq!(roots.sys("devices/system/cpu/online").as_deref(), Some("0-1"));
    assert_eq!(roots.sys("devices/system/cpu/cpu0/cpufreq/scaling_governor"), None);
}
