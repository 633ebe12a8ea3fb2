//! POSIX message queues (mq_overview(7)): one queue per direction.
//!
//! On Linux a queue descriptor is a file descriptor, so the peer inherits
//! its two descriptors like any other link, and the queue names are unlinked
//! as soon as both are open: nothing is left in /dev/mqueue, even after a
//! crash. rustix does not wrap mq_*, so this module calls libc.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, Ordering};

use rustix::io::Errno;

use crate::fdio::{check, owned_fd};
use crate::{Abort, Handoff, Link, LinkCaps, LinkError};

/// Tried first: 64 KiB messages, 4 deep. A privileged process may exceed
/// fs.mqueue.msgsize_max (ipc/mqueue.c, mq_create); RLIMIT_MSGQUEUE (800 KiB
/// by default) bounds maxmsg × msgsize over both queues.
const WANT_MSGSIZE: i64 = 64 << 10;
const WANT_MAXMSG: i64 = 4;

struct MqLink {
    tx: OwnedFd,
    rx: OwnedFd,
    msgsize: usize,
    abort: Abort,
}

fn caps(msgsize: usize) -> LinkCaps {
    LinkCaps {
        max_msg_bytes: msgsize,
        message_boundaries: true,
        zero_copy: false,
        shared_clock: true,
    }
}

fn errno() -> Errno {
    Errno::from_raw_os_error(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
}

impl Link for MqLink {
    fn caps(&self) -> LinkCaps {
        caps(self.msgsize)
    }

    #[inline]
    fn send(&mut self, msg: &[u8]) -> Result<(), LinkError> {
        if msg.len() > self.msgsize {
            return Err(LinkError::TooLarge { size: msg.len(), max: self.msgsize });
        }
        loop {
            // SAFETY: valid descriptor and buffer.
            let r =
                unsafe { libc::mq_send(self.tx.as_raw_fd(), msg.as_ptr().cast(), msg.len(), 0) };
            if r == 0 {
                return Ok(());
            }
            match errno() {
                Errno::INTR => check(&self.abort)?,
                e => return Err(LinkError::sys("mq_send", e)),
            }
        }
    }

    #[inline]
    fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError> {
        // mq_receive needs a buffer of at least the queue's message size;
        // callers that pass one avoid the copy below.
        let n = if buf.len() >= self.msgsize {
            self.receive_into(buf)?
        } else {
            let mut scratch = vec![0u8; self.msgsize];
            let n = self.receive_into(&mut scratch)?;
            let m = n.min(len);
            buf[..m].copy_from_slice(&scratch[..m]);
            n
        };
        if n != len {
            return Err(LinkError::Framing(format!(
                "received a message of {n} B, expected {len} B"
            )));
        }
        Ok(())
    }
}

impl MqLink {
    #[inline]
    fn receive_into(&self, target: &mut [u8]) -> Result<usize, LinkError> {
        loop {
            // SAFETY: valid descriptor; the buffer is at least msgsize long.
            let r = unsafe {
                libc::mq_receive(
                    self.rx.as_raw_fd(),
                    target.as_mut_ptr().cast(),
                    target.len(),
                    std::ptr::null_mut(),
                )
            };
            if r >= 0 {
                return Ok(r as usize);
            }
            match errno() {
                Errno::INTR => check(&self.abort)?,
                e => return Err(LinkError::sys("mq_receive", e)),
            }
        }
    }
}

fn mq_open(name: &CString, flags: i32, attr: Option<&libc::mq_attr>) -> Result<OwnedFd, Errno> {
    let attr_ptr = attr.map_or(std::ptr::null(), |a| a as *const libc::mq_attr);
    // SAFETY: name is a valid C string; attr is valid or null.
    let fd = unsafe { libc::mq_open(name.as_ptr(), flags | libc::O_CLOEXEC, 0o600, attr_ptr) };
    if fd < 0 {
        return Err(errno());
    }
    // SAFETY: mq_open returned a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Creates a queue, and returns (write end, read end) with its name unlinked.
fn make_queue(name: &CString, msgsize: i64, maxmsg: i64) -> Result<(OwnedFd, OwnedFd), Errno> {
    // SAFETY: mq_attr is plain old data.
    let mut attr: libc::mq_attr = unsafe { std::mem::zeroed() };
    // mq_attr's fields are C `long`: 32 bits on armv7. The values are
    // bounded by /proc/sys/fs/mqueue limits, far below 2^31.
    attr.mq_maxmsg = maxmsg as libc::c_long;
    attr.mq_msgsize = msgsize as libc::c_long;
    let w = mq_open(name, libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL, Some(&attr));
    let r = w.and_then(|w| mq_open(name, libc::O_RDONLY, None).map(|r| (w, r)));
    // SAFETY: valid C string.
    unsafe { libc::mq_unlink(name.as_ptr()) };
    r
}

fn read_proc_i64(path: &str) -> Option<i64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// A queue's (write end, read end).
type Queue = (OwnedFd, OwnedFd);

/// Both queues, host → peer then peer → host, and their message size.
fn queues() -> Result<(Queue, Queue, usize), LinkError> {
    static SERIAL: AtomicU32 = AtomicU32::new(0);
    let n = SERIAL.fetch_add(1, Ordering::Relaxed);
    let base = format!("/icbench.{}.{n}", std::process::id());
    let down = CString::new(format!("{base}.down")).expect("no NUL in name");
    let up = CString::new(format!("{base}.up")).expect("no NUL in name");
    let fallback = (
        read_proc_i64("/proc/sys/fs/mqueue/msgsize_max").unwrap_or(8192),
        read_proc_i64("/proc/sys/fs/mqueue/msg_max").unwrap_or(10).min(10),
    );
    let mut last = Errno::INVAL;
    for (size, max) in [(WANT_MSGSIZE, WANT_MAXMSG), fallback] {
        match make_queue(&down, size, max) {
            Ok(d) => match make_queue(&up, size, max) {
                Ok(u) => return Ok((d, u, size as usize)),
                Err(e) => last = e,
            },
            Err(e) => last = e,
        }
    }
    Err(LinkError::Setup(format!(
        "cannot create POSIX message queues: {last} (is /dev/mqueue available and RLIMIT_MSGQUEUE large enough?)"
    )))
}

/// The host's ends of both queues and the peer's handoff, as the link and
/// its bare loop (`reference`) make them.
pub(crate) struct Ends {
    pub(crate) tx: OwnedFd,
    pub(crate) rx: OwnedFd,
    pub(crate) msgsize: usize,
    pub(crate) handoff: Handoff,
}

pub(crate) fn ends() -> Result<Ends, LinkError> {
    let ((down_w, down_r), (up_w, up_r), msgsize) = queues()?;
    let text = format!("mq:r={},w={},size={msgsize}", down_r.as_raw_fd(), up_w.as_raw_fd());
    Ok(Ends { tx: down_w, rx: up_r, msgsize, handoff: Handoff::local(text, vec![down_r, up_w]) })
}

pub(crate) fn open(abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let Ends { tx, rx, msgsize, handoff } = ends()?;
    Ok((Box::new(MqLink { tx, rx, msgsize, abort }), handoff))
}

pub(crate) fn attach(text: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    let msgsize = crate::fdio::fd_param(text, "size")? as usize;
    Ok(Box::new(MqLink { rx: owned_fd(text, "r")?, tx: owned_fd(text, "w")?, msgsize, abort }))
}
