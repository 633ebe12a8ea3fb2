//! The rpmsg_char endpoint device, `/dev/rpmsgK`, as a [`Link`]
//! (drivers/rpmsg/rpmsg_char.c):
//!
//! - one `write()` sends one message of at most the MTU (496 B payload with
//!   the default 512 B virtio buffers); more fails with EMSGSIZE;
//! - one `read()` returns exactly one message (the rest of a longer one is
//!   discarded, so reads go into a buffer larger than any message and the
//!   length is checked);
//! - a blocking write sleeps in the virtio bus for up to 15 s waiting for a
//!   free TX buffer (virtio_rpmsg_bus.c, rpmsg_send_offchannel_raw); with
//!   O_NONBLOCK the kernel uses rpmsg_trysend and returns EAGAIN instead, and
//!   `poll()` reports POLLOUT when a buffer is free (virtio_rpmsg_poll);
//! - one opener at a time (EBUSY), and closing the device drops the
//!   messages queued for it, so the descriptor stays open for the session.
//!
//! Ping-pong uses blocking calls (one system call per direction); a stream
//! window uses O_NONBLOCK + poll, counting every EAGAIN as `tx_busy` rather
//! than spinning silently. The same code runs over a unix seqpacket pair
//! for the stand-in (`emulate=seqpacket`), which has the same semantics:
//! one message per call, EMSGSIZE above the socket's limit, EAGAIN when
//! the send buffer is full.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;

use rustix::event::{PollFd, PollFlags, poll};
use rustix::fs::OFlags;
use rustix::io::Errno;

use super::ctrl::EptOps;
use crate::fdio::check;
use crate::{Abort, Health, Link, LinkCaps, LinkCounters, LinkError};

/// Payload of one message with 512-byte virtio buffers less the 16-byte
/// `struct rpmsg_hdr` (virtio_rpmsg_bus.c: MAX_RPMSG_BUF_SIZE).
pub(crate) const DEFAULT_MTU: usize = 496;

/// Longest single poll while waiting for room or a message; the loop goes
/// round again (re-checking the abort flag) so a transport whose poll never
/// reports POLLOUT still retries.
const POLL_MAX_MS: i64 = 50;

/// How the link waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IoMode {
    /// Blocking for ping-pong, O_NONBLOCK + poll for a stream window.
    Auto,
    Block,
    Poll,
}

impl IoMode {
    pub(crate) fn parse(v: Option<&str>) -> IoMode {
        match v {
            Some("block") => IoMode::Block,
            Some("poll") => IoMode::Poll,
            _ => IoMode::Auto,
        }
    }
}

/// Where a call was when it did not finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stall {
    Write,
    PollOut,
}

pub(crate) struct RpmsgLink {
    fd: OwnedFd,
    mtu: usize,
    mode: IoMode,
    nonblocking: bool,
    abort: Abort,
    counters: LinkCounters,
    stall: Option<Stall>,
    health: Option<Arc<dyn Health>>,
    /// For an endpoint made through rpmsg_ctrl: destroys it (on this
    /// descriptor) when the link is dropped.
    endpoint: Option<Box<dyn EptOps>>,
}

impl RpmsgLink {
    pub(crate) fn new(
        fd: OwnedFd,
        mtu: usize,
        mode: IoMode,
        abort: Abort,
    ) -> Result<RpmsgLink, LinkError> {
        let mut l = RpmsgLink {
            fd,
            mtu,
            mode,
            nonblocking: false,
            abort,
            counters: LinkCounters::default(),
            stall: None,
            health: None,
            endpoint: None,
        };
        l.set_nonblocking(mode == IoMode::Poll)?;
        Ok(l)
    }

    pub(crate) fn with_health(mut self, h: Option<Arc<dyn Health>>) -> RpmsgLink {
        self.health = h;
        self
    }

    pub(crate) fn with_endpoint(mut self, ops: Box<dyn EptOps>) -> RpmsgLink {
        self.endpoint = Some(ops);
        self
    }

    fn set_nonblocking(&mut self, on: bool) -> Result<(), LinkError> {
        if on == self.nonblocking {
            return Ok(());
        }
        let fl =
            rustix::fs::fcntl_getfl(&self.fd).map_err(|e| LinkError::sys("fcntl(F_GETFL)", e))?;
        let fl = if on { fl | OFlags::NONBLOCK } else { fl - OFlags::NONBLOCK };
        rustix::fs::fcntl_setfl(&self.fd, fl).map_err(|e| LinkError::sys("fcntl(F_SETFL)", e))?;
        self.nonblocking = on;
        Ok(())
    }

    /// Waits for `flags` for at most `ms`; EINTR checks the abort flag.
    fn wait(&self, flags: PollFlags, ms: i64) -> Result<(), LinkError> {
        let mut fds = [PollFd::new(&self.fd, flags)];
        let ts = rustix::time::Timespec { tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000 };
        match poll(&mut fds, Some(&ts)) {
            Ok(_) => check(&self.abort),
            Err(Errno::INTR) => check(&self.abort),
            Err(e) => Err(LinkError::sys("poll", e)),
        }
    }

    /// One whole message, whatever its length, or 0 when `timeout` passed
    /// first (`Link::recv_some`: icb frames carry their own length).
    pub(crate) fn recv_message(
        &mut self,
        buf: &mut [u8],
        timeout: Option<std::time::Duration>,
    ) -> Result<usize, LinkError> {
        self.stall = None;
        if let Some(t) = timeout {
            let mut fds = [PollFd::new(&self.fd, PollFlags::IN)];
            let ts = rustix::time::Timespec::try_from(t)
                .unwrap_or(rustix::time::Timespec { tv_sec: i64::MAX, tv_nsec: 0 });
            match poll(&mut fds, Some(&ts)) {
                Ok(0) => return Ok(0),
                Ok(_) => {}
                Err(Errno::INTR) => {
                    check(&self.abort)?;
                    return Ok(0);
                }
                Err(e) => return Err(LinkError::sys("poll", e)),
            }
        }
        loop {
            match rustix::io::read(&self.fd, &mut buf[..]) {
                Ok(0) => return Err(LinkError::PeerClosed),
                Ok(n) => return Ok(n),
                Err(Errno::AGAIN) if timeout.is_some() => return Ok(0),
                Err(Errno::AGAIN) => self.wait(PollFlags::IN, POLL_MAX_MS)?,
                Err(Errno::INTR) => check(&self.abort)?,
                Err(e) => return Err(LinkError::sys("read", e)),
            }
        }
    }

    /// Drops queued messages without closing (closing would destroy the
    /// endpoint): `Link::discard_input`.
    pub(crate) fn drop_queued(&mut self) {
        let mut buf = [0u8; 4096];
        // Bounded: a device that is always readable but yields nothing (a
        // plain file, a zero-length message stream) must not hold us here.
        for _ in 0..MAX_DISCARD {
            let mut fds = [PollFd::new(&self.fd, PollFlags::IN)];
            let zero = rustix::time::Timespec { tv_sec: 0, tv_nsec: 0 };
            if !matches!(poll(&mut fds, Some(&zero)), Ok(n) if n > 0) {
                return;
            }
            if !matches!(rustix::io::read(&self.fd, &mut buf), Ok(n) if n > 0) {
                return;
            }
        }
    }

    fn too_large_for_device(&self, size: usize) -> LinkError {
        LinkError::Device(format!(
            "the device refused a {size} B message (EMSGSIZE): its MTU is below mtu={}; lower mtu= \
             (virtio rpmsg with 512 B buffers carries 496 B)",
            self.mtu
        ))
    }
}

impl Drop for RpmsgLink {
    fn drop(&mut self) {
        if let Some(mut ops) = self.endpoint.take() {
            // RPMSG_DESTROY_EPT_IOCTL on the endpoint's own descriptor, before
            // it is closed. Nothing can be reported from a drop; an endpoint
            // that outlives us is removed with its channel.
            let _one_at_a_time = super::ctrl::endpoints_locked();
            let _ = ops.destroy(self.fd.as_fd());
        }
    }
}

/// Most queued messages dropped before a cell (more than any ring holds).
const MAX_DISCARD: usize = 4096;

impl Link for RpmsgLink {
    fn recv_some(
        &mut self,
        buf: &mut [u8],
        timeout: Option<std::time::Duration>,
    ) -> Result<usize, LinkError> {
        self.recv_message(buf, timeout)
    }

    fn discard_input(&mut self) {
        self.drop_queued();
    }

    fn caps(&self) -> LinkCaps {
        LinkCaps {
            max_msg_bytes: self.mtu,
            message_boundaries: true,
            zero_copy: false,
            shared_clock: false,
        }
    }

    #[inline]
    fn send(&mut self, msg: &[u8]) -> Result<(), LinkError> {
        if msg.len() > self.mtu {
            return Err(LinkError::TooLarge { size: msg.len(), max: self.mtu });
        }
        let mut backoff_ms = 1;
        loop {
            self.stall = Some(Stall::Write);
            match rustix::io::write(&self.fd, msg) {
                Ok(n) if n == msg.len() => {
                    self.stall = None;
                    return Ok(());
                }
                Ok(n) => {
                    return Err(LinkError::Framing(format!(
                        "wrote {n} B of a {} B message",
                        msg.len()
                    )));
                }
                Err(Errno::AGAIN | Errno::NOMEM) => {
                    // No free TX buffer (rpmsg_trysend): count it, wait for room.
                    self.counters.tx_busy += 1;
                    self.stall = Some(Stall::PollOut);
                    self.wait(PollFlags::OUT, backoff_ms)?;
                    backoff_ms = (backoff_ms * 2).min(POLL_MAX_MS);
                }
                Err(Errno::INTR) => check(&self.abort)?,
                Err(Errno::MSGSIZE) => return Err(self.too_large_for_device(msg.len())),
                Err(e) => return Err(LinkError::sys("write", e)),
            }
        }
    }

    #[inline]
    fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError> {
        self.stall = None;
        loop {
            match rustix::io::read(&self.fd, &mut buf[..]) {
                Ok(0) if len != 0 => return Err(LinkError::PeerClosed),
                Ok(n) if n == len => return Ok(()),
                Ok(n) => {
                    return Err(LinkError::Framing(format!(
                        "received a message of {n} B, expected {len} B"
                    )));
                }
                Err(Errno::AGAIN) => self.wait(PollFlags::IN, POLL_MAX_MS)?,
                Err(Errno::INTR) => check(&self.abort)?,
                Err(e) => return Err(LinkError::sys("read", e)),
            }
        }
    }

    fn counters(&self) -> LinkCounters {
        self.counters
    }

    fn set_pipelined(&mut self, pipelined: bool) -> Result<(), LinkError> {
        let on = match self.mode {
            IoMode::Auto => pipelined,
            IoMode::Block => false,
            IoMode::Poll => true,
        };
        self.set_nonblocking(on)
    }

    fn health(&self) -> Option<Arc<dyn Health>> {
        self.health.clone()
    }

    fn stalled_in(&self) -> Option<String> {
        self.stall.map(|s| match s {
            Stall::Write => {
                "blocked in write(): the kernel's virtio rpmsg send waits up to 15 s for a free \
                             TX buffer, and the remote is not taking messages"
                    .to_string()
            }
            Stall::PollOut => format!(
                "waiting in poll() for a free TX buffer: the remote is not taking messages \
                 (sends refused with EAGAIN so far: {})",
                self.counters.tx_busy
            ),
        })
    }
}

/// Opens an rpmsg char device (or rpmsg_ctrl) with the errors a user can
/// act on, one line each.
pub(crate) fn open_device(path: &str) -> Result<OwnedFd, LinkError> {
    use rustix::fs::Mode;
    rustix::fs::open(path, OFlags::RDWR | OFlags::CLOEXEC | OFlags::NOCTTY, Mode::empty())
        .map_err(|e| LinkError::Setup(explain_open(path, e)))
}

pub(crate) fn explain_open(path: &str, e: Errno) -> String {
    match e {
        Errno::NOENT => format!(
            "{path} does not exist: is the remote core running and the channel bound? \
             (`icbench links` lists the rpmsg devices, `icbench rpmsg bind` binds a channel)"
        ),
        Errno::BUSY => format!(
            "{path} is busy (EBUSY): rpmsg_char allows one opener at a time and another program \
             holds it (`fuser {path}` names it)"
        ),
        Errno::ACCESS | Errno::PERM => format!(
            "permission denied opening {path}: run as root, or give your group access with a udev \
             rule (SUBSYSTEM==\"rpmsg\", MODE=\"0660\", GROUP=\"dialout\")"
        ),
        Errno::NXIO | Errno::NODEV => {
            format!(
                "{path} has no driver behind it ({e}): the channel went away; is the remote running?"
            )
        }
        Errno::INVAL => format!(
            "the kernel could not create the endpoint behind {path} (EINVAL): its address may be in \
             use, or the remote is gone"
        ),
        _ => format!("cannot open {path}: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::net::{AddressFamily, SocketFlags, SocketType, sockopt};

    /// The stand-in device: a seqpacket pair, host end as an RpmsgLink.
    fn pair(mtu: usize, mode: IoMode, sndbuf: Option<usize>) -> (RpmsgLink, OwnedFd) {
        let (a, b) = rustix::net::socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )
        .unwrap();
        if let Some(n) = sndbuf {
            sockopt::set_socket_send_buffer_size(&a, n).unwrap();
        }
        (RpmsgLink::new(a, mtu, mode, Abort::new()).unwrap(), b)
    }

    #[test]
    fn one_message_per_write_and_per_read() {
        let (mut l, b) = pair(DEFAULT_MTU, IoMode::Block, None);
        l.send(&[1; 10]).unwrap();
        l.send(&[2; 496]).unwrap();
        let mut buf = [0u8; 2048];
        assert_eq!(rustix::io::read(&b, &mut buf).unwrap(), 10);
        assert_eq!(rustix::io::read(&b, &mut buf).unwrap(), 496);
        rustix::io::write(&b, &[3; 7]).unwrap();
        rustix::io::write(&b, &[4; 9]).unwrap();
        let mut rx = vec![0u8; 4096];
        l.recv(&mut rx, 7).unwrap();
        assert_eq!(&rx[..7], &[3; 7]);
        let e = l.recv(&mut rx, 8).unwrap_err();
        assert!(matches!(&e, LinkError::Framing(m) if m.contains("9 B, expected 8 B")), "{e}");
        assert_eq!(l.caps().max_msg_bytes, 496);
        assert!(l.caps().message_boundaries);
    }

    #[test]
    fn recv_some_returns_whole_messages_and_discard_drops_the_queue() {
        let (mut l, b) = pair(DEFAULT_MTU, IoMode::Block, None);
        let mut buf = vec![0u8; 4096];
        let none = Some(std::time::Duration::ZERO);
        assert_eq!(l.recv_message(&mut buf, none).unwrap(), 0);
        rustix::io::write(&b, &[9; 33]).unwrap();
        rustix::io::write(&b, &[8; 5]).unwrap();
        assert_eq!(l.recv_message(&mut buf, None).unwrap(), 33);
        l.drop_queued();
        assert_eq!(l.recv_message(&mut buf, none).unwrap(), 0);
    }

    #[test]
    fn above_the_mtu_is_too_large_before_the_kernel_sees_it() {
        let (mut l, _b) = pair(DEFAULT_MTU, IoMode::Block, None);
        let e = l.send(&[0; 497]).unwrap_err();
        assert!(matches!(e, LinkError::TooLarge { size: 497, max: 496 }), "{e}");
    }

    #[test]
    fn emsgsize_from_the_device_names_the_mtu_setting() {
        // The stand-in's limit is its send buffer (af_unix: len > sndbuf - 32
        // → EMSGSIZE), the device's is its buffer size less the header.
        let (mut l, _b) = pair(1 << 20, IoMode::Block, Some(4096));
        let e = l.send(&vec![0; 64 << 10]).unwrap_err().to_string();
        assert!(e.contains("EMSGSIZE") && e.contains("mtu=1048576"), "{e}");
    }

    #[test]
    fn the_peer_closing_is_seen() {
        let (mut l, b) = pair(DEFAULT_MTU, IoMode::Block, None);
        drop(b);
        let mut rx = vec![0u8; 1024];
        assert!(matches!(l.recv(&mut rx, 4), Err(LinkError::PeerClosed)));
        assert!(matches!(l.send(&[0; 4]), Err(LinkError::PeerClosed)));
    }

    /// Waits until thread `tid` of this process sleeps in the kernel.
    fn until_asleep(tid: i32) {
        let stat = format!("/proc/self/task/{tid}/stat");
        loop {
            let s = std::fs::read_to_string(&stat).unwrap();
            // Field 3, after the parenthesised command name.
            let state = s.rsplit(')').next().unwrap().split_whitespace().next().unwrap();
            if state == "S" {
                return;
            }
            std::thread::yield_now();
        }
    }

    /// Fills the stand-in's send buffer without the link.
    fn fill(l: &RpmsgLink, msg: &[u8]) -> usize {
        let mut n = 0;
        while rustix::net::send(&l.fd, msg, rustix::net::SendFlags::DONTWAIT).is_ok() {
            n += 1;
        }
        n
    }

    #[test]
    fn eagain_when_full_is_counted_and_waited_out() {
        let (mut l, b) = pair(DEFAULT_MTU, IoMode::Auto, Some(4096));
        l.set_pipelined(true).unwrap();
        let msg = [7u8; 256];
        let filled = fill(&l, &msg);
        assert!(filled > 0);
        let (tx, rx) = std::sync::mpsc::channel();
        let host = std::thread::spawn(move || {
            tx.send(rustix::thread::gettid().as_raw_nonzero().get()).unwrap();
            l.send(&msg).unwrap();
            l
        });
        // The host's first write meets a full buffer (nobody reads yet), so
        // it must count an EAGAIN and sleep in poll until we drain. Under an
        // emulator (qemu-user) a thread can look asleep in /proc while it
        // waits on the emulator's own locks, before it reaches the send:
        // look again after a pause. This orders events; nothing is timed.
        let tid = rx.recv().unwrap();
        until_asleep(tid);
        std::thread::sleep(std::time::Duration::from_millis(300));
        until_asleep(tid);
        let mut buf = [0u8; 1024];
        for _ in 0..=filled {
            assert_eq!(rustix::io::read(&b, &mut buf).unwrap(), 256);
        }
        let l = host.join().unwrap();
        assert!(l.counters().tx_busy >= 1, "{:?}", l.counters());
    }

    extern "C" fn nothing(_: i32) {}

    #[test]
    fn a_blocked_send_is_aborted_and_names_the_kernel_tx_wait() {
        // SAFETY: a no-op handler without SA_RESTART, so the blocked write
        // returns EINTR (as the engine's watchdog arranges).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = nothing as *const () as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGUSR2, &sa, std::ptr::null_mut());
        }
        let (mut l, _b) = pair(DEFAULT_MTU, IoMode::Block, Some(4096));
        let abort = l.abort.clone();
        let msg = [1u8; 256];
        fill(&l, &msg);
        let (tx, rx) = std::sync::mpsc::channel();
        let host = std::thread::spawn(move || {
            // pthread_t is a pointer on musl, which is not Send: carry it
            // as an integer; it is only passed back to pthread_kill.
            tx.send((rustix::thread::gettid().as_raw_nonzero().get(), unsafe {
                libc::pthread_self()
            } as usize))
                .unwrap();
            let r = l.send(&msg);
            (l, r)
        });
        let (tid, pthread) = rx.recv().unwrap();
        until_asleep(tid);
        abort.set();
        while !host.is_finished() {
            // SAFETY: the thread is alive until joined below.
            unsafe { libc::pthread_kill(pthread as libc::pthread_t, libc::SIGUSR2) };
            std::thread::yield_now();
        }
        let (l, r) = host.join().unwrap();
        assert!(matches!(r, Err(LinkError::Aborted)), "{r:?}");
        let why = l.stalled_in().unwrap();
        assert!(why.contains("blocked in write()") && why.contains("15 s"), "{why}");
        assert_eq!(l.counters().tx_busy, 0, "a blocking write never sees EAGAIN");
    }

    #[test]
    fn open_errors_say_what_to_do() {
        assert!(explain_open("/dev/rpmsg0", Errno::BUSY).contains("one opener at a time"));
        assert!(explain_open("/dev/rpmsg0", Errno::ACCESS).contains("run as root"));
        assert!(explain_open("/dev/rpmsg0", Errno::NOENT).contains("icbench links"));
        let e = open_device("/nonexistent/rpmsg9").unwrap_err().to_string();
        assert!(e.starts_with("/nonexistent/rpmsg9 does not exist"), "{e}");
    }
}
