//! The raw counter read, one implementation per architecture
//! (`cfg(target_arch)`); on an architecture without one, [`find`] says why.
//! Nothing else in icbench is specific to an architecture.

/// A counter that user space can read directly.
#[derive(Debug, Clone, Copy)]
pub struct Counter {
    /// Its name as recorded with a run.
    pub name: &'static str,
    /// One read, ordered against the instructions around it.
    pub read: fn() -> u64,
    /// Ticks per second as the hardware declares them, if it does.
    pub declared_hz: Option<f64>,
}

/// The counter of this architecture, or why there is none to use.
pub fn find() -> Result<Counter, String> {
    imp::find()
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::Counter;
    use core::arch::x86_64::{_mm_lfence, _rdtsc};

    /// RDTSC between two LFENCEs. RDTSC is not serialising: without the
    /// first fence it may execute before earlier instructions complete,
    /// without the second later ones may start before it (Intel SDM vol. 2B,
    /// RDTSC; Linux's rdtsc_ordered() fences the same way). RDTSCP orders
    /// only the earlier side, so the pair of fences is used everywhere.
    #[inline(always)]
    fn read() -> u64 {
        // SAFETY: LFENCE needs SSE2, part of every x86_64 CPU. RDTSC has
        // no preconditions; where a process disabled it with
        // prctl(PR_SET_TSC) it traps, and find() refuses that case.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }

    pub fn find() -> Result<Counter, String> {
        // PR_GET_TSC: whether RDTSC is allowed or raises SIGSEGV for this
        // process (prctl(2)); seccomp sandboxes switch it off.
        let mut state: libc::c_int = 0;
        // SAFETY: PR_GET_TSC writes one int through the pointer given.
        let r = unsafe { libc::prctl(libc::PR_GET_TSC, &mut state as *mut libc::c_int) };
        if r == 0 && state != libc::PR_TSC_ENABLE {
            return Err("RDTSC is disabled for this process (prctl PR_GET_TSC: \
                        PR_TSC_SIGSEGV)"
                .to_string());
        }
        Ok(Counter { name: "tsc", read, declared_hz: None })
    }
}

#[cfg(target_arch = "aarch64")]
mod imp {
    use super::Counter;

    /// ISB, then MRS CNTVCT_EL0. Reads of the counter may be performed
    /// speculatively and out of order; the ISB keeps the read after the
    /// instructions before it (Arm ARM, "Generic Timer"; Linux's
    /// __arch_counter_get_cntvct does the same). No `nomem`, so the
    /// compiler does not move memory accesses across it.
    #[inline(always)]
    fn read() -> u64 {
        let v: u64;
        // SAFETY: Linux on arm64 always lets EL0 read CNTVCT_EL0
        // (CNTKCTL_EL1.EL0VCTEN: its vDSO reads it); where an erratum makes
        // the kernel trap the read, it emulates it, so the read never faults.
        unsafe {
            core::arch::asm!("isb", "mrs {v}, cntvct_el0", v = out(reg) v,
                             options(nostack, preserves_flags));
        }
        v
    }

    /// CNTFRQ_EL0: the frequency firmware declared for the system counter.
    /// Nothing checks it is right; the calibration does.
    fn frequency() -> u64 {
        let f: u64;
        // SAFETY: as for CNTVCT_EL0, EL0 may read CNTFRQ_EL0 on Linux.
        unsafe {
            core::arch::asm!("mrs {f}, cntfrq_el0", f = out(reg) f,
                             options(nomem, nostack, preserves_flags));
        }
        f
    }

    pub fn find() -> Result<Counter, String> {
        let hz = frequency();
        Ok(Counter { name: "cntvct_el0", read, declared_hz: (hz > 0).then_some(hz as f64) })
    }
}

#[cfg(target_arch = "arm")]
mod imp {
    use super::Counter;

    /// ISB, then MRRC of CNTVCT, the 64-bit virtual count (ARMv7's Generic
    /// Timer, CP15 c14; Linux's arch_counter_get_cntvct does the same on
    /// 32-bit ARM). No `nomem`, so memory accesses stay on their side.
    #[inline(always)]
    fn read() -> u64 {
        let (lo, hi): (u32, u32);
        // SAFETY: only called once `readable` showed that the kernel lets
        // user space read the counter (CNTKCTL.PL0VCTEN); the read has no
        // other effect.
        unsafe {
            core::arch::asm!("isb", "mrrc p15, 1, {lo}, {hi}, c14", lo = out(reg) lo,
                             hi = out(reg) hi, options(nostack, preserves_flags));
        }
        (u64::from(hi) << 32) | u64::from(lo)
    }

    /// CNTFRQ: the frequency firmware declared; readable from user space
    /// wherever CNTVCT is (PL0VCTEN). Nothing checks it; the calibration does.
    fn frequency() -> u32 {
        let f: u32;
        // SAFETY: as for `read`.
        unsafe {
            core::arch::asm!("mrc p15, 0, {f}, c14, c0, 0", f = out(reg) f,
                             options(nomem, nostack, preserves_flags));
        }
        f
    }

    /// Whether this process may read the counter: unlike arm64, 32-bit
    /// ARM gives user space CNTVCT only if the kernel set CNTKCTL.PL0VCTEN
    /// (Linux's arch timer driver does, unless a CPU erratum or a CPU
    /// without the Generic Timer rules it out), and a refused read raises
    /// SIGILL. A child process makes both reads: it exits 0, or the signal
    /// that ended it says no, and this process never risks the fault.
    fn readable() -> Result<(), String> {
        // SAFETY: the child runs only the two reads and _exit, which are
        // async-signal-safe: nothing it inherits from this multi-threaded
        // process (locks, the allocator) is touched.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let _ = read();
            let _ = frequency();
            // SAFETY: ends the child without running the parent's exit code.
            unsafe { libc::_exit(0) }
        }
        if pid < 0 {
            return Err(format!(
                "the probe of CNTVCT could not fork: {}",
                std::io::Error::last_os_error()
            ));
        }
        let mut status = 0;
        loop {
            // SAFETY: waits for the child forked above, writing one int.
            let r = unsafe { libc::waitpid(pid, &mut status, 0) };
            if r == pid {
                break;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(format!("the probe of CNTVCT could not be waited for: {e}"));
            }
        }
        if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
            Ok(())
        } else if libc::WIFSIGNALED(status) {
            Err(format!(
                "CNTVCT (mrrc p15, 1, c14) is not readable from user space here: a probe \
                 process reading it died of signal {} (the kernel left CNTKCTL.PL0VCTEN \
                 clear, or the CPU has no Generic Timer); the clock is the vDSO's",
                libc::WTERMSIG(status)
            ))
        } else {
            Err(format!("the probe of CNTVCT ended with status {status:#x}"))
        }
    }

    pub fn find() -> Result<Counter, String> {
        readable()?;
        let hz = frequency();
        Ok(Counter { name: "cntvct", read, declared_hz: (hz > 0).then_some(f64::from(hz)) })
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "arm")))]
mod imp {
    use super::Counter;

    pub fn find() -> Result<Counter, String> {
        Err(format!(
            "not available: icbench reads no counter of its own on {}",
            std::env::consts::ARCH
        ))
    }
}
