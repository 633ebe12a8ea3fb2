//! The watchdog behind "every blocking wait has a timeout" (ARCHITECTURE
//! rule 8), at no cost to the timed loop.
//!
//! The measuring thread bumps a progress counter after each message (one
//! relaxed store). A watchdog thread looks every few milliseconds: no
//! progress for the timeout, the peer process gone (its pidfd readable,
//! pidfd_open(2)), or a stop request (Ctrl-C) fires it. Firing sets the
//! link's abort flag and sends a signal whose handler does nothing and is
//! installed without SA_RESTART, so a read or write blocked in the kernel
//! returns EINTR and the link sees the flag (signal(7), "Interruption of
//! system calls"). It re-sends until the measuring thread disarms it, which
//! closes the race with a thread just entering a system call.
//!
//! A link may also give a [`Health`] check (the remote core's remoteproc
//! state): the watchdog runs it every [`HEALTH_EVERY`] and fires with its
//! reason when it fails, so a crashed remote fails the cell at once rather
//! than after the timeout.

use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use icbench_link::{Abort, Health};

/// How often the watchdog looks. It sleeps on its own CPU time, parked, and
/// is unparked at once when the cell ends.
const LOOK_EVERY: Duration = Duration::from_millis(20);

/// The shortest `--timeout` the watchdog can honour: five of its looks.
/// Shorter (`--timeout 1us`) was accepted and timed out some cells and not
/// others, by when the look fell (issue #22).
pub const MIN_TIMEOUT: Duration = Duration::from_millis(100);

/// How often a link's health check runs (it reads a sysfs file).
const HEALTH_EVERY: Duration = Duration::from_millis(100);

/// Why the watchdog fired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fired {
    Timeout,
    PeerDied,
    Interrupted,
    /// The link's health check failed, with its reason.
    Unhealthy(String),
}

/// The signal used to wake a blocked system call.
pub(crate) fn wake_signal() -> i32 {
    libc::SIGRTMIN() + 3
}

extern "C" fn on_wake(_: i32) {}

/// Installs the no-op handler, once per process.
pub(crate) fn install_wake_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: sigaction with a valid, async-signal-safe handler and no
        // SA_RESTART, so interrupted calls fail with EINTR.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_wake as *const () as usize;
            sa.sa_flags = 0;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(wake_signal(), &sa, std::ptr::null_mut());
        }
    });
}

/// A thread of this process, to signal. `pthread_t` is an integer on glibc
/// but a pointer on musl, which is not `Send`; it is only ever passed back to
/// `pthread_kill`, never dereferenced.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PthreadHandle(pub(crate) libc::pthread_t);

// SAFETY: the value is an opaque handle for pthread_kill (see above).
unsafe impl Send for PthreadHandle {}

/// Sends the wake signal to a thread of this process.
pub(crate) fn wake_thread(PthreadHandle(thread): PthreadHandle) {
    // SAFETY: the caller guarantees the thread is alive (it joins the
    // watchdog, or is joined itself, before exiting).
    unsafe { libc::pthread_kill(thread as libc::pthread_t, wake_signal()) };
}

struct Shared {
    progress: AtomicU64,
    disarmed: AtomicBool,
    fired: Mutex<Option<Fired>>,
}

/// Guards one cell of measuring.
pub(crate) struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts watching the calling thread.
    pub(crate) fn start(
        timeout: Duration,
        abort: Abort,
        peer: Option<Arc<OwnedFd>>,
        health: Option<Arc<dyn Health>>,
        stop: &'static AtomicBool,
    ) -> Watchdog {
        install_wake_handler();
        // SAFETY: pthread_self has no preconditions.
        let target = PthreadHandle(unsafe { libc::pthread_self() });
        let shared = Arc::new(Shared {
            progress: AtomicU64::new(0),
            disarmed: AtomicBool::new(false),
            fired: Mutex::new(None),
        });
        let s = shared.clone();
        let (ranked_tx, ranked_rx) = std::sync::mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("icbench-watchdog".into())
            .spawn(move || {
                outrank_the_measuring_thread();
                let _ = ranked_tx.send(());
                let watched = Watched { peer: peer.as_deref(), health: health.as_deref(), stop };
                watch(&s, timeout, &abort, &watched, target)
            })
            .expect("spawning the watchdog thread");
        // Blocked until the watchdog has taken its priority. It starts on
        // this thread's CPU at this thread's SCHED_FIFO priority, queued
        // behind it: a measuring thread that went on to spin would never
        // let it run to rank itself higher (sched(7): an equal-priority
        // FIFO thread waits until the running one blocks or yields), and a
        // dead or stopped peer would then hang the cell (issue #36).
        let _ = ranked_rx.recv();
        Watchdog { shared, thread: Some(thread) }
    }

    /// The counter the measuring loop bumps after each message.
    #[inline]
    pub(crate) fn progress(&self) -> &AtomicU64 {
        &self.shared.progress
    }

    /// Stops watching; says whether and why the watchdog fired.
    pub(crate) fn finish(mut self) -> Option<Fired> {
        self.shared.disarmed.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
        self.shared.fired.lock().expect("watchdog lock").clone()
    }
}

/// Under SCHED_FIFO the watchdog starts on the measuring thread's CPU at
/// its priority, and a measuring thread spinning on a link (shm, a floor
/// trip) would never let it run (sched(7)): a dead or hung peer would hang
/// the run, and Ctrl-C with it. So it takes the highest FIFO priority it
/// may. It sleeps but for a look every [`LOOK_EVERY`], as under SCHED_OTHER,
/// where its wake-ups preempt the measuring thread too.
fn outrank_the_measuring_thread() {
    let Some(own) = crate::cpu::current_fifo_priority() else {
        return;
    };
    // SAFETY: plain system call.
    let max = unsafe { libc::sched_get_priority_max(libc::SCHED_FIFO) };
    // Without CAP_SYS_NICE, RLIMIT_RTPRIO is the ceiling (sched(7)).
    let limit = rustix::process::getrlimit(rustix::process::Resource::Rtprio).current;
    let limit = limit.map_or(max, |l| i32::try_from(l).unwrap_or(max).min(max));
    for p in [max, limit] {
        if p > i32::from(own) && crate::cpu::set_fifo(p as u8).is_ok() {
            return;
        }
    }
}

/// Runs the health check when it is due; its failure reason.
fn check_health(health: Option<&dyn Health>, last: &mut Option<Instant>) -> Option<String> {
    let h = health?;
    if last.is_some_and(|t| t.elapsed() < HEALTH_EVERY) {
        return None;
    }
    *last = Some(Instant::now());
    h.check().err()
}

fn peer_exited(pidfd: &OwnedFd) -> bool {
    use rustix::event::{PollFd, PollFlags, poll};
    let mut fds = [PollFd::new(pidfd, PollFlags::IN)];
    matches!(poll(&mut fds, Some(&rustix::time::Timespec { tv_sec: 0, tv_nsec: 0 })), Ok(n) if n > 0)
}

/// What the watchdog looks at besides progress.
struct Watched<'a> {
    peer: Option<&'a OwnedFd>,
    health: Option<&'a dyn Health>,
    stop: &'a AtomicBool,
}

fn watch(s: &Shared, timeout: Duration, abort: &Abort, w: &Watched<'_>, target: PthreadHandle) {
    let (peer, stop) = (w.peer, w.stop);
    let mut last = s.progress.load(Ordering::Relaxed);
    let mut last_change = Instant::now();
    let mut last_health: Option<Instant> = None;
    while !s.disarmed.load(Ordering::SeqCst) {
        std::thread::park_timeout(LOOK_EVERY);
        if s.disarmed.load(Ordering::SeqCst) {
            return;
        }
        let p = s.progress.load(Ordering::Relaxed);
        if p != last {
            last = p;
            last_change = Instant::now();
        }
        let fired = if stop.load(Ordering::SeqCst) {
            Some(Fired::Interrupted)
        } else if peer.is_some_and(peer_exited) {
            Some(Fired::PeerDied)
        } else if let Some(reason) = check_health(w.health, &mut last_health) {
            Some(Fired::Unhealthy(reason))
        } else if last_change.elapsed() > timeout {
            Some(Fired::Timeout)
        } else {
            None
        };
        if let Some(f) = fired {
            *s.fired.lock().expect("watchdog lock") = Some(f);
            abort.set();
            while !s.disarmed.load(Ordering::SeqCst) {
                wake_thread(target);
                std::thread::park_timeout(Duration::from_millis(2));
            }
            return;
        }
    }
}
