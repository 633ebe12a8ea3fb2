//! The blocking primitives a wake-up crosses, as a sender half ([`Waker`])
//! and a receiver half ([`Waiter`]).
//!
//! futex, eventfd and signal are written here (a few system calls each);
//! pipe, unix and mq are icbench-link's links, used through the
//! [`Link`](icbench_link::Link) trait, so the wake-up path is the same code
//! `icbench run` measures. A wake-up carries the sender's clock stamp: in
//! the message for a link, in a shared word written before the wake for the
//! others (release on the sender, acquire on the receiver). [`QUIT`] as a
//! stamp ends the receiver. Nothing on either path allocates.

use std::os::fd::{AsFd, FromRawFd, IntoRawFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use icbench_link::{Abort, Link, LinkSpec};

use super::{futex_wait_change, futex_wake};

/// The stamp that tells the receiver to stop.
pub(crate) const QUIT: u64 = u64::MAX;

/// How often a timed wait (futex, signal) looks at the give-up flag.
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// The sender half.
pub(crate) trait Waker: Send {
    /// Publishes `stamp` and wakes the receiver.
    fn wake(&mut self, stamp: u64) -> Result<(), String>;
}

/// The receiver half.
pub(crate) trait Waiter: Send {
    /// Called once on the receiver's thread before it reports ready.
    fn prepare(&mut self) -> Result<(), String> {
        Ok(())
    }
    /// Blocks until woken; returns the sender's stamp. Returns an error
    /// when `give_up` is set while waiting.
    fn wait(&mut self, give_up: &AtomicBool) -> Result<u64, String>;
}

/// The stamp and, for futex, the word the receiver sleeps on.
#[derive(Debug, Default)]
struct Shared {
    stamp: AtomicU64,
    word: AtomicU32,
    /// The receiver's pthread id, for the signal primitive.
    receiver: AtomicU64,
}

/// Both halves of a primitive.
pub(crate) type Halves = (Box<dyn Waker>, Box<dyn Waiter>);

/// Builds both halves of a primitive by name: futex, eventfd, signal, or a
/// link spec (pipe, unix, mq …).
pub(crate) fn open(name: &str) -> Result<Halves, String> {
    let shared = Arc::new(Shared::default());
    match name {
        "futex" => {
            Ok((Box::new(FutexWaker(shared.clone())), Box::new(FutexWaiter { shared, seen: 0 })))
        }
        "eventfd" => {
            let fd = rustix::event::eventfd(0, rustix::event::EventfdFlags::CLOEXEC)
                .map_err(|e| format!("eventfd: {e}"))?;
            let fd = Arc::new(fd);
            Ok((
                Box::new(EventfdWaker { fd: fd.clone(), shared: shared.clone() }),
                Box::new(EventfdWaiter { fd, shared }),
            ))
        }
        "signal" => Ok((
            Box::new(SignalWaker(shared.clone())),
            Box::new(SignalWaiter { shared, set: empty_sigset() }),
        )),
        spec => {
            let spec = LinkSpec::parse(spec).map_err(|e| e.to_string())?;
            let abort = Abort::new();
            let (host, handoff) = icbench_link::open(&spec, abort.clone())
                .map_err(|e| format!("opening {spec}: {e}"))?;
            // The peer end takes the handed-off descriptors over, as a
            // thread peer of `icbench run` does (engine session).
            let raw: Vec<i32> = handoff.fds.into_iter().map(IntoRawFd::into_raw_fd).collect();
            let peer = match icbench_link::attach(&handoff.text, abort) {
                Ok(p) => p,
                Err(e) => {
                    for fd in raw {
                        // SAFETY: attach failed, so nothing owns them.
                        drop(unsafe { OwnedFd::from_raw_fd(fd) });
                    }
                    return Err(format!("attaching to {spec}: {e}"));
                }
            };
            // mq receives into a buffer of the queue's message size.
            let buf = vec![0u8; peer.caps().max_msg_bytes.max(8)];
            Ok((
                Box::new(LinkWaker { link: host, msg: [0; 8] }),
                Box::new(LinkWaiter { link: peer, buf }),
            ))
        }
    }
}

struct FutexWaker(Arc<Shared>);

impl Waker for FutexWaker {
    #[inline]
    fn wake(&mut self, stamp: u64) -> Result<(), String> {
        self.0.stamp.store(stamp, Ordering::Release);
        self.0.word.fetch_add(1, Ordering::Release);
        futex_wake(&self.0.word);
        Ok(())
    }
}

struct FutexWaiter {
    shared: Arc<Shared>,
    seen: u32,
}

impl Waiter for FutexWaiter {
    #[inline]
    fn wait(&mut self, give_up: &AtomicBool) -> Result<u64, String> {
        loop {
            if let Some(v) = futex_wait_change(&self.shared.word, self.seen, LOOK_EVERY) {
                self.seen = v;
                return Ok(self.shared.stamp.load(Ordering::Acquire));
            }
            if give_up.load(Ordering::Relaxed) {
                return Err("the sender gave up".to_string());
            }
        }
    }
}

struct EventfdWaker {
    fd: Arc<OwnedFd>,
    shared: Arc<Shared>,
}

impl Waker for EventfdWaker {
    #[inline]
    fn wake(&mut self, stamp: u64) -> Result<(), String> {
        self.shared.stamp.store(stamp, Ordering::Release);
        rustix::io::write(self.fd.as_fd(), &1u64.to_ne_bytes())
            .map(|_| ())
            .map_err(|e| format!("eventfd write: {e}"))
    }
}

struct EventfdWaiter {
    fd: Arc<OwnedFd>,
    shared: Arc<Shared>,
}

impl Waiter for EventfdWaiter {
    #[inline]
    fn wait(&mut self, _give_up: &AtomicBool) -> Result<u64, String> {
        // The sender always ends with a QUIT wake, so this read returns.
        let mut v = [0u8; 8];
        loop {
            match rustix::io::read(self.fd.as_fd(), &mut v) {
                Ok(8) => return Ok(self.shared.stamp.load(Ordering::Acquire)),
                Ok(n) => return Err(format!("eventfd read returned {n} bytes")),
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(format!("eventfd read: {e}")),
            }
        }
    }
}

/// The signal used: a real-time one, queued, distinct from the engine
/// watchdog's SIGRTMIN+3.
fn wake_signal() -> i32 {
    libc::SIGRTMIN() + 5
}

fn empty_sigset() -> libc::sigset_t {
    // SAFETY: sigemptyset initialises the set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        set
    }
}

struct SignalWaker(Arc<Shared>);

impl Waker for SignalWaker {
    #[inline]
    fn wake(&mut self, stamp: u64) -> Result<(), String> {
        self.0.stamp.store(stamp, Ordering::Release);
        let t = self.0.receiver.load(Ordering::Acquire) as libc::pthread_t;
        // SAFETY: the receiver thread is alive until it has seen QUIT
        // (the caller joins it after the last wake).
        let r = unsafe { libc::pthread_kill(t, wake_signal()) };
        if r == 0 { Ok(()) } else { Err(format!("pthread_kill: error {r}")) }
    }
}

struct SignalWaiter {
    shared: Arc<Shared>,
    set: libc::sigset_t,
}

// SAFETY: sigset_t is plain data.
unsafe impl Send for SignalWaiter {}

impl Waiter for SignalWaiter {
    fn prepare(&mut self) -> Result<(), String> {
        // Block the signal in this thread so it stays pending for
        // sigtimedwait (sigwaitinfo(2)), as sigwaittest does.
        // SAFETY: valid sets; affects only the calling thread.
        unsafe {
            libc::sigaddset(&mut self.set, wake_signal());
            let r = libc::pthread_sigmask(libc::SIG_BLOCK, &self.set, std::ptr::null_mut());
            if r != 0 {
                return Err(format!("pthread_sigmask: error {r}"));
            }
            self.shared.receiver.store(libc::pthread_self() as u64, Ordering::Release);
        }
        Ok(())
    }

    #[inline]
    fn wait(&mut self, give_up: &AtomicBool) -> Result<u64, String> {
        let ts = libc::timespec { tv_sec: 0, tv_nsec: LOOK_EVERY.as_nanos() as libc::c_long };
        loop {
            // SAFETY: valid set and timeout; a null siginfo is allowed.
            let r = unsafe { libc::sigtimedwait(&self.set, std::ptr::null_mut(), &ts) };
            if r == wake_signal() {
                return Ok(self.shared.stamp.load(Ordering::Acquire));
            }
            if give_up.load(Ordering::Relaxed) {
                return Err("the sender gave up".to_string());
            }
        }
    }
}

struct LinkWaker {
    link: Box<dyn Link>,
    msg: [u8; 8],
}

impl Waker for LinkWaker {
    #[inline]
    fn wake(&mut self, stamp: u64) -> Result<(), String> {
        self.msg = stamp.to_le_bytes();
        self.link.send(&self.msg).map_err(|e| e.to_string())
    }
}

struct LinkWaiter {
    link: Box<dyn Link>,
    buf: Vec<u8>,
}

impl Waiter for LinkWaiter {
    #[inline]
    fn wait(&mut self, _give_up: &AtomicBool) -> Result<u64, String> {
        // The sender always ends with a QUIT message, so this returns.
        self.link.recv(&mut self.buf, 8).map_err(|e| e.to_string())?;
        let mut b = [0u8; 8];
        b.copy_from_slice(&self.buf[..8]);
        Ok(u64::from_le_bytes(b))
    }
}
