//! Placement and scheduling: which CPUs are online, pinning a thread to one,
//! SCHED_FIFO and mlockall — each with an error that says what to do when
//! the machine does not allow it.

use std::fmt;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CpuError {
    #[error("CPU {cpu} is not online (online: {online}); choose two with --cpus A,B")]
    Offline { cpu: u32, online: String },
    #[error("this machine has only one usable CPU ({online}); icbench needs two")]
    OnlyOne { online: String },
    #[error("cannot pin to CPU {cpu}: {errno}")]
    Pin { cpu: u32, errno: rustix::io::Errno },
    #[error(
        "SCHED_FIFO priority {priority} not permitted ({errno}): run as root, grant CAP_SYS_NICE \
         (setcap cap_sys_nice+ep icbench) or raise RLIMIT_RTPRIO, or drop --fifo"
    )]
    Fifo { priority: u8, errno: rustix::io::Errno },
    #[error(
        "mlockall not permitted ({errno}): run as root, grant CAP_IPC_LOCK or raise \
         RLIMIT_MEMLOCK (ulimit -l), or drop --mlock"
    )]
    Mlock { errno: rustix::io::Errno },
    #[error("cannot return to SCHED_OTHER: {errno}")]
    Other { errno: rustix::io::Errno },
}

/// A set of CPU numbers, as the kernel lists them ("0-3,6").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuList {
    pub text: String,
    pub cpus: Vec<u32>,
}

impl fmt::Display for CpuList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl CpuList {
    /// Parses the kernel's list format (Documentation/admin-guide/cputopology.rst).
    pub fn parse(text: &str) -> Option<CpuList> {
        let text = text.trim();
        let mut cpus = Vec::new();
        for part in text.split(',').filter(|p| !p.is_empty()) {
            match part.split_once('-') {
                Some((a, b)) => {
                    let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                    if a > b {
                        return None;
                    }
                    cpus.extend(a..=b);
                }
                None => cpus.push(part.parse().ok()?),
            }
        }
        Some(CpuList { text: text.to_string(), cpus })
    }

    /// The online CPUs that this process may run on.
    pub fn usable() -> CpuList {
        let online = std::fs::read_to_string("/sys/devices/system/cpu/online")
            .ok()
            .and_then(|s| CpuList::parse(&s));
        let allowed = rustix::thread::sched_getaffinity(None).ok();
        let mut list = online.unwrap_or_else(|| {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
            CpuList { text: format!("0-{}", n - 1), cpus: (0..n).collect() }
        });
        if let Some(set) = allowed {
            list.cpus.retain(|&c| set.is_set(c as usize));
        }
        list
    }

    /// The default pair: the first two usable CPUs.
    pub fn default_pair(&self) -> Result<(u32, u32), CpuError> {
        match self.cpus.as_slice() {
            [a, b, ..] => Ok((*a, *b)),
            _ => Err(CpuError::OnlyOne { online: self.text.clone() }),
        }
    }

    pub fn check(&self, cpu: u32) -> Result<(), CpuError> {
        if self.cpus.contains(&cpu) {
            Ok(())
        } else {
            Err(CpuError::Offline { cpu, online: self.text.clone() })
        }
    }
}

/// Pins the calling thread to `cpu`.
pub fn pin_current_thread(cpu: u32) -> Result<(), CpuError> {
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu as usize);
    rustix::thread::sched_setaffinity(None, &set).map_err(|errno| CpuError::Pin { cpu, errno })
}

/// Starts a thread named `name` that pins itself to `cpu` and then runs
/// `f`; returns once the thread is pinned. Joined, it gives `f`'s value or
/// the pinning error.
///
/// The wait is the point. A new thread starts on its creator's CPUs with
/// its creator's policy and priority; under SCHED_FIFO a creator pinned to
/// one CPU that went on spinning there would never let the new thread run
/// to move away (sched(7): a SCHED_FIFO thread runs until it blocks, yields
/// or a higher priority preempts it; RT throttling does not help, it stops
/// both). Blocked here, the creator lets it run.
pub fn spawn_pinned<T, F>(
    name: &str,
    cpu: u32,
    f: F,
) -> std::io::Result<std::thread::JoinHandle<Result<T, CpuError>>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let (pinned_tx, pinned_rx) = std::sync::mpsc::sync_channel(1);
    let join = std::thread::Builder::new().name(name.into()).spawn(move || {
        let pinned = pin_current_thread(cpu);
        let _ = pinned_tx.send(());
        pinned.map(|()| f())
    })?;
    // An error here means the thread is gone, which the join reports.
    let _ = pinned_rx.recv();
    Ok(join)
}

/// The scheduling policy of the calling thread, through the system calls
/// themselves rather than their libc wrappers.
///
/// Why not libc: POSIX defines `sched_setscheduler`/`sched_getscheduler`
/// per process, Linux applies them per thread (sched(7): "the
/// scheduling policy and parameters are in fact per-thread attributes on
/// Linux"). musl refuses to give the per-thread behaviour a per-process name
/// and makes the wrappers stubs that always fail with ENOSYS, so a static
/// musl icbench (the VM rig's guest, the x86_64 release tarball) failed
/// every cell (issue #14). glibc's wrappers are the bare system calls, so
/// this is what both libcs' builds did on glibc anyway.
pub mod sched {
    use rustix::io::Errno;

    /// The kernel's `struct sched_param` (include/uapi/linux/sched/types.h):
    /// the priority alone, whatever a libc's own struct adds.
    #[repr(C)]
    struct KernelParam {
        sched_priority: libc::c_int,
    }

    fn last_errno() -> Errno {
        Errno::from_io_error(&std::io::Error::last_os_error()).unwrap_or(Errno::PERM)
    }

    /// The calling thread's policy (`libc::SCHED_OTHER`, `SCHED_FIFO` …).
    pub fn policy() -> Result<i32, Errno> {
        // SAFETY: sched_getscheduler(2) on the calling thread (pid 0), no pointers.
        let r = unsafe { libc::syscall(libc::SYS_sched_getscheduler, 0 as libc::pid_t) };
        if r < 0 { Err(last_errno()) } else { Ok(r as i32) }
    }

    /// The calling thread's static priority (0 under SCHED_OTHER).
    pub fn priority() -> Result<i32, Errno> {
        let mut p = KernelParam { sched_priority: 0 };
        // SAFETY: sched_getparam(2) on the calling thread, into a param the
        // kernel fills.
        let r = unsafe {
            libc::syscall(libc::SYS_sched_getparam, 0 as libc::pid_t, &mut p as *mut KernelParam)
        };
        if r < 0 { Err(last_errno()) } else { Ok(p.sched_priority) }
    }

    /// Sets the calling thread's policy and priority.
    pub fn set(policy: i32, priority: i32) -> Result<(), Errno> {
        let p = KernelParam { sched_priority: priority };
        // SAFETY: sched_setscheduler(2) on the calling thread with a valid param.
        let r = unsafe {
            libc::syscall(
                libc::SYS_sched_setscheduler,
                0 as libc::pid_t,
                policy as libc::c_int,
                &p as *const KernelParam,
            )
        };
        if r < 0 { Err(last_errno()) } else { Ok(()) }
    }
}

/// The calling thread's SCHED_FIFO priority, `None` under any other policy.
pub fn current_fifo_priority() -> Option<u8> {
    if sched::policy().ok()? != libc::SCHED_FIFO {
        return None;
    }
    sched::priority().ok().and_then(|p| u8::try_from(p).ok())
}

/// Puts the calling thread under SCHED_FIFO at `priority`.
pub fn set_fifo(priority: u8) -> Result<(), CpuError> {
    sched::set(libc::SCHED_FIFO, i32::from(priority))
        .map_err(|errno| CpuError::Fifo { priority, errno })
}

/// Puts the calling thread back under SCHED_OTHER (a plan that varies the
/// scheduling switches per cell). A thread already there is left alone, so
/// that nothing the kernel could refuse stands between a SCHED_OTHER run and
/// its cells (issue #14).
pub fn set_other() -> Result<(), CpuError> {
    if sched::policy() == Ok(libc::SCHED_OTHER) {
        return Ok(());
    }
    sched::set(libc::SCHED_OTHER, 0).map_err(|errno| CpuError::Other { errno })
}

/// Locks every present and future page of the process in memory, so a page
/// fault cannot land inside a measurement.
pub fn lock_memory() -> Result<(), CpuError> {
    use rustix::mm::{MlockAllFlags, mlockall};
    mlockall(MlockAllFlags::CURRENT | MlockAllFlags::FUTURE)
        .map_err(|errno| CpuError::Mlock { errno })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_kernel_list_format() {
        assert_eq!(CpuList::parse("0-3,6\n").unwrap().cpus, vec![0, 1, 2, 3, 6]);
        assert_eq!(CpuList::parse("0").unwrap().cpus, vec![0]);
        assert!(CpuList::parse("3-1").is_none());
        assert!(CpuList::parse("a").is_none());
    }

    #[test]
    fn offline_cpu_is_named_with_the_online_list() {
        let l = CpuList::parse("0-1").unwrap();
        assert!(l.check(1).is_ok());
        let e = l.check(7).unwrap_err().to_string();
        assert_eq!(e, "CPU 7 is not online (online: 0-1); choose two with --cpus A,B");
        assert!(CpuList::parse("0").unwrap().default_pair().is_err());
    }

    #[test]
    fn a_pinned_thread_gets_away_from_a_spinning_fifo_creator() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        let Ok((a, b)) = CpuList::usable().default_pair() else {
            eprintln!("SKIP spawn_pinned under SCHED_FIFO: fewer than two usable CPUs");
            return;
        };
        std::thread::spawn(move || {
            pin_current_thread(a).unwrap();
            if let Err(e) = set_fifo(10) {
                eprintln!("SKIP spawn_pinned under SCHED_FIFO: {e}");
                return;
            }
            let ran = Arc::new(AtomicBool::new(false));
            let r = ran.clone();
            let join = spawn_pinned("test", b, move || r.store(true, Ordering::SeqCst)).unwrap();
            // Spin as a measuring host end does; bounded, so that a thread
            // stuck behind it fails the test instead of hanging it.
            let give_up = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while !ran.load(Ordering::SeqCst) && std::time::Instant::now() < give_up {
                std::hint::spin_loop();
            }
            set_other().unwrap();
            assert!(ran.load(Ordering::SeqCst), "the new thread never left CPU {a}");
            join.join().unwrap().unwrap();
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_sched_other_thread_may_always_return_to_sched_other() {
        // The musl build failed here with ENOSYS (issue #14).
        std::thread::spawn(|| {
            assert_eq!(sched::policy(), Ok(libc::SCHED_OTHER));
            assert_eq!(sched::priority(), Ok(0));
            assert_eq!(current_fifo_priority(), None);
            set_other().unwrap();
        })
        .join()
        .unwrap();
    }

    #[test]
    fn fifo_is_set_read_back_and_left_on_this_thread_only() {
        // A sibling started before the switch, asked after it.
        let (ask, asked) = std::sync::mpsc::channel::<()>();
        let sibling = std::thread::spawn(move || {
            let _ = asked.recv();
            sched::policy()
        });
        std::thread::spawn(move || {
            if let Err(e) = set_fifo(7) {
                // Unprivileged: the refusal names why, and nothing changed.
                assert!(matches!(e, CpuError::Fifo { priority: 7, .. }), "{e}");
                assert_eq!(sched::policy(), Ok(libc::SCHED_OTHER));
                eprintln!("SKIP SCHED_FIFO round trip: {e}");
                return;
            }
            assert_eq!(current_fifo_priority(), Some(7));
            // Per thread, as Linux applies it (sched(7)): the sibling is untouched.
            ask.send(()).unwrap();
            assert_eq!(sibling.join().unwrap(), Ok(libc::SCHED_OTHER));
            assert_eq!(current_fifo_priority(), Some(7));
            set_other().unwrap();
            assert_eq!(sched::policy(), Ok(libc::SCHED_OTHER));
            assert_eq!(current_fifo_priority(), None);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn pinning_takes_effect() {
        let cpu = CpuList::usable().cpus[0];
        std::thread::spawn(move || {
            pin_current_thread(cpu).unwrap();
            let set = rustix::thread::sched_getaffinity(None).unwrap();
            assert!(set.is_set(cpu as usize));
            assert_eq!(set.count(), 1);
        })
        .join()
        .unwrap();
    }
}
