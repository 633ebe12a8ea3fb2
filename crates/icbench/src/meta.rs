//! What is recorded about the machine with every run: read from /proc, /sys
//! and uname, each item optional where a kernel may not offer it.

use icbench_model::{PeerMode, RunMeta, RunStatus, Sched};

/// The CPU's model name: x86 `model name`, or on ARM the `Hardware` /
/// `Processor` / `CPU part` lines of /proc/cpuinfo.
pub fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    for key in ["model name", "Hardware", "Processor", "cpu model", "CPU part"] {
        if let Some(v) = info.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key && !v.trim().is_empty()).then(|| v.trim().to_string())
        }) {
            return v;
        }
    }
    "unknown CPU".to_string()
}

pub fn governor(cpu: u32) -> Option<String> {
    std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"))
        .ok()
        .map(|s| s.trim().to_string())
}

pub fn now_unix_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

pub struct Placement {
    pub host_cpu: u32,
    pub peer_cpu: u32,
    pub online: String,
    pub peer_mode: PeerMode,
    pub sched: Sched,
    pub mlock: bool,
}

/// This host's name, as a run's metadata records it.
pub fn hostname() -> String {
    rustix::system::uname().nodename().to_string_lossy().into_owned()
}

/// icbench's version and the commit it was built from (if known).
pub fn program() -> (String, Option<String>) {
    let commit = env!("ICBENCH_GIT_COMMIT");
    (env!("CARGO_PKG_VERSION").to_string(), (!commit.is_empty()).then(|| commit.to_string()))
}

/// The metadata of a run about to start, with the CPU's fast counter
/// examined on the run's CPU pair (icbench_engine::counter, ≈ 0.2 s).
pub fn gather(
    p: &Placement,
    clock: &str,
    clock_overhead_ns: f64,
    clock_granule_ns: f64,
) -> RunMeta {
    let uname = rustix::system::uname();
    let commit = env!("ICBENCH_GIT_COMMIT");
    RunMeta {
        cpu_model: cpu_model(),
        online_cpus: p.online.clone(),
        host_cpu: p.host_cpu,
        peer_cpu: p.peer_cpu,
        peer_mode: p.peer_mode,
        sched: p.sched,
        mlock: p.mlock,
        kernel_release: uname.release().to_string_lossy().into_owned(),
        governor: governor(p.host_cpu),
        hostname: uname.nodename().to_string_lossy().into_owned(),
        icbench_version: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: (!commit.is_empty()).then(|| commit.to_string()),
        command_line: std::env::args().collect(),
        started_unix_ns: now_unix_ns(),
        ended_unix_ns: None,
        clock: clock.to_string(),
        clock_overhead_ns,
        clock_granule_ns,
        status: RunStatus::Running,
        floor: None,
        floor_tail: None,
        fast_counter: Some(icbench_engine::counter::probe(p.host_cpu, p.peer_cpu)),
        notes: Vec::new(),
        label: None,
        user_note: None,
    }
}

/// The longest run label, characters: a name to find a run by (`compare
/// --baseline`, `runs --label`), shown in every table of runs.
pub const MAX_LABEL: usize = 200;
/// The longest `run --note`, characters.
pub const MAX_NOTE: usize = 4096;

/// Checks a label or note given for a run: not blank, at most `max`
/// characters. Said in one line that does not repeat the text (a 100 KB
/// label was stored, and made `icbench runs` print a megabyte).
pub fn check_text(flag: &str, text: Option<&str>, max: usize) -> anyhow::Result<()> {
    let Some(t) = text else { return Ok(()) };
    let n = t.trim().chars().count();
    if n == 0 {
        return Err(crate::error::bad(format!("{flag}: give some text, or leave {flag} out")));
    }
    if n > max {
        return Err(crate::error::bad(format!(
            "{flag}: {n} characters, more than the {max} it takes: shorten it"
        )));
    }
    Ok(())
}
