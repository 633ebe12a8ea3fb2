//! What this process is allowed to do, found by doing it and undoing it:
//! SCHED_FIFO on a short-lived thread (set, then back to SCHED_OTHER), and
//! mlockall followed by munlockall. The resource limits are read alongside,
//! since they are what an unprivileged user can change.

use icbench_engine::cpu::sched;
use rustix::io::Errno;
use rustix::process::{Resource, getrlimit};

/// A soft resource limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Unlimited,
    Value(u64),
}

/// The outcome of trying SCHED_FIFO and mlockall in this process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permits {
    pub fifo: Result<(), Errno>,
    pub rtprio: Limit,
    pub mlock: Result<(), Errno>,
    /// Bytes.
    pub memlock: Limit,
}

fn soft(r: Resource) -> Limit {
    match getrlimit(r).current {
        None => Limit::Unlimited,
        Some(v) => Limit::Value(v),
    }
}

/// Tries SCHED_FIFO priority 1 on a fresh thread, then puts it back, through
/// the engine's system calls (musl's libc wrappers always fail, issue #14).
fn try_fifo() -> Result<(), Errno> {
    std::thread::spawn(|| {
        sched::set(libc::SCHED_FIFO, 1)?;
        sched::set(libc::SCHED_OTHER, 0)
    })
    .join()
    .unwrap_or(Err(Errno::AGAIN))
}

/// Tries mlockall(MCL_CURRENT), as `icbench run --mlock` does, and undoes it.
fn try_mlock() -> Result<(), Errno> {
    use rustix::mm::{MlockAllFlags, mlockall, munlockall};
    mlockall(MlockAllFlags::CURRENT)?;
    munlockall()
}

/// Tries both on this process.
pub fn probe() -> Permits {
    Permits {
        fifo: try_fifo(),
        rtprio: soft(Resource::Rtprio),
        mlock: try_mlock(),
        memlock: soft(Resource::Memlock),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probing_leaves_the_process_as_it_was() {
        let before = sched::policy().unwrap();
        let p = probe();
        assert_eq!(sched::policy(), Ok(before));
        // VmLck is 0 again after munlockall, whether or not mlockall worked.
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let vmlck = status.lines().find(|l| l.starts_with("VmLck:")).unwrap_or("VmLck: 0 kB");
        assert_eq!(vmlck.split_whitespace().nth(1), Some("0"), "{vmlck}");
        // Either outcome is possible on a test machine, but a refusal names why.
        if let Err(e) = p.fifo {
            assert!(e == Errno::PERM || e == Errno::AGAIN, "{e}");
        }
    }
}
