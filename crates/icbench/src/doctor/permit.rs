//! What this process is allowed to do, found by doing it and undoing it:
//! SCHED_FIFO on a short-lived thread (set, then back to SCHED_OTHER), and
//! mlockall followed by munlockall. The resource limits are read alongside,
//! since they are what an unprivileged user can change.

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

/// Tries SCHED_FIFO priority 1 on a fresh thread, then puts it back.
fn sched_param(priority: i32) -> libc::sched_param {
    // Zeroed first: musl's sched_param has more fields than the priority.
    // SAFETY: sched_param is plain old data.
    let mut p: libc::sched_param = unsafe { std::mem::zeroed() };
    p.sched_priority = priority;
    p
}

fn try_fifo() -> Result<(), Errno> {
    std::thread::spawn(|| {
        let fifo = sched_param(1);
        // SAFETY: plain system calls on the calling thread with valid params.
        let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &fifo) };
        if r != 0 {
            return Err(
                Errno::from_io_error(&std::io::Error::last_os_error()).unwrap_or(Errno::PERM)
            );
        }
        let other = sched_param(0);
        // SAFETY: as above; going back to SCHED_OTHER is always allowed.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &other) };
        Ok(())
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
        // SAFETY: reading the calling thread's policy.
        let before = unsafe { libc::sched_getscheduler(0) };
        let p = probe();
        assert_eq!(unsafe { libc::sched_getscheduler(0) }, before);
        // VmLck is 0 again after munlockall, whether or not mlockall worked.
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let vmlck = status.lines().find(|l| l.starts_with("VmLck:")).unwrap_or("VmLck: 0 kB");
        assert_eq!(vmlck.split_whitespace().nth(1), Some("0"), "{vmlck}");
        // Either outcome is possible on a test machine, but a refusal names why.
        if let Err(e) = p.fifo {
            assert!(e == Errno::PERM || e == Errno::AGAIN || e == Errno::NOSYS, "{e}");
        }
    }
}
