//! `icbench doctor`: what on this machine affects measurements, each with a
//! verdict and what to change and why.
//!
//! The checks read sysfs, procfs and /dev under [`Roots`] — never fixed
//! paths — so tests build a fake tree in a temporary directory and the
//! command can inspect a tree copied from a board (`--root`). The two
//! things a tree cannot show, whether SCHED_FIFO and mlockall are permitted
//! to this process, are tried live ([`permit`]) and passed in as
//! [`Permits`], and so is the CPU's fast counter as examined live
//! (icbench_engine::counter; only on the live system), so the checks
//! themselves stay pure functions of their inputs. Rendering is separate ([`render`]).

mod checks;
pub(crate) mod machine;
pub mod permit;
pub mod render;

use std::path::{Path, PathBuf};

use icbench_model::FastCounter;

pub use permit::Permits;

/// Where sysfs, procfs and devfs are found: `/sys`, `/proc`, `/dev` on a
/// live system, or the same names under another directory.
#[derive(Debug, Clone)]
pub struct Roots {
    pub sys: PathBuf,
    pub proc: PathBuf,
    pub dev: PathBuf,
}

impl Roots {
    /// `DIR/sys`, `DIR/proc` and `DIR/dev`; `/` gives the live system.
    pub fn under(dir: &Path) -> Roots {
        Roots { sys: dir.join("sys"), proc: dir.join("proc"), dev: dir.join("dev") }
    }

    /// Reads a small sysfs/procfs file, trimmed; `None` if it cannot be
    /// read or is longer than an attribute can be ([`icbench_link::read_small`]).
    pub(crate) fn read(&self, base: &Path, rel: &str) -> Option<String> {
        icbench_link::read_small(&base.join(rel))
    }

    pub(crate) fn sys(&self, rel: &str) -> Option<String> {
        self.read(&self.sys, rel)
    }

    pub(crate) fn proc(&self, rel: &str) -> Option<String> {
        self.read(&self.proc, rel)
    }
}

/// How a finding bears on measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Set up as a measurement wants it.
    Ok,
    /// Not wrong, but worth knowing (e.g. no remoteproc on this machine).
    Info,
    /// Will disturb or limit measurements: change it, or report it.
    Warn,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Info => "info",
            Verdict::Warn => "warn",
        }
    }
}

/// One thing found, with a stable `id` (for `--json` consumers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub id: &'static str,
    pub verdict: Verdict,
    /// What was found, in one line.
    pub found: String,
    /// What to change and why; empty when nothing needs changing.
    pub advice: String,
}

impl Finding {
    fn new(id: &'static str, verdict: Verdict, found: impl Into<String>) -> Finding {
        Finding { id, verdict, found: found.into(), advice: String::new() }
    }

    fn advise(mut self, advice: impl Into<String>) -> Finding {
        self.advice = advice.into();
        self
    }
}

/// Everything `doctor` found, for the CPU pair it was asked about.
#[derive(Debug, Clone)]
pub struct Report {
    pub host_cpu: u32,
    pub peer_cpu: u32,
    pub findings: Vec<Finding>,
}

impl Report {
    pub fn worst(&self) -> Verdict {
        self.findings.iter().map(|f| f.verdict).max().unwrap_or(Verdict::Ok)
    }
}

/// Examines the machine under `roots` for the pair (`host_cpu`, `peer_cpu`).
/// `counter`: the fast counter examined live on the pair, or `None` when
/// `roots` is another machine's tree.
pub fn examine(
    roots: &Roots,
    host_cpu: u32,
    peer_cpu: u32,
    permits: &Permits,
    counter: Option<&FastCounter>,
) -> Report {
    let pair = [host_cpu, peer_cpu];
    let findings = vec![
        checks::governor(roots, pair),
        checks::frequency_limits(roots, pair),
        checks::isolation(roots, pair),
        checks::rt_throttling(roots),
        checks::fifo(permits),
        checks::mlock(permits),
        checks::smt(roots, pair),
        checks::preempt_rt(roots),
        checks::cpu_dma_latency(roots),
        machine::virtual_machine(roots),
        machine::load(roots),
        checks::fast_counter(counter),
        checks::remoteproc(roots),
        checks::rpmsg(roots),
    ];
    Report { host_cpu, peer_cpu, findings }
}

#[cfg(test)]
mod tests;
