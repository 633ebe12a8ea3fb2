//! One send and one receive per mechanism, written as plainly as the
//! system calls allow: the body of every bare loop.

use std::os::fd::{AsRawFd, OwnedFd};

use rustix::io::Errno;
use rustix::net::{RecvFlags, SendFlags};

use super::ring::Ring;
use crate::fdio::{check, read_exact, write_all};
use crate::sys::netlink;
use crate::{Abort, LinkError};

pub(super) enum Io {
    /// Byte streams: write, then read until the whole echo is in.
    Stream { rx: OwnedFd, tx: Option<OwnedFd> },
    /// A seqpacket socket: send, recv one message.
    Packet(OwnedFd),
    /// POSIX message queues: mq_send, mq_receive.
    Mq { tx: OwnedFd, rx: OwnedFd, msgsize: usize },
    /// NETLINK_USERSOCK: sendmsg of header and payload to the other port,
    /// recvmsg of both.
    Netlink { fd: OwnedFd, own: u32, dst: u32, seq: u32 },
    /// The shm rings.
    Ring(Box<Ring>),
}

fn errno() -> Errno {
    Errno::from_raw_os_error(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
}

fn wrong_size(got: usize, want: usize) -> LinkError {
    LinkError::Framing(format!("bare loop: a message of {got} B, expected {want} B"))
}

impl Io {
    pub(super) fn name(&self) -> &'static str {
        match self {
            Io::Stream { .. } => "stream",
            Io::Packet(_) => "seqpacket",
            Io::Mq { .. } => "mq",
            Io::Netlink { .. } => "netlink",
            Io::Ring(_) => "shm ring",
        }
    }

    /// The receive buffer [`Io::recv`] needs for `size`-byte messages.
    pub(super) fn rx_len(&self, size: usize) -> usize {
        match self {
            Io::Mq { msgsize, .. } => size.max(*msgsize),
            _ => size,
        }
    }

    #[inline]
    pub(super) fn send(&mut self, msg: &[u8], abort: &Abort) -> Result<(), LinkError> {
        match self {
            Io::Stream { rx, tx } => write_all(tx.as_ref().unwrap_or(rx), msg, abort),
            Io::Packet(fd) => loop {
                match rustix::net::send(&*fd, msg, SendFlags::NOSIGNAL) {
                    Ok(_) => return Ok(()),
                    Err(Errno::INTR) => check(abort)?,
                    Err(e) => return Err(LinkError::sys("send", e)),
                }
            },
            Io::Mq { tx, .. } => loop {
                // SAFETY: valid descriptor and buffer.
                if unsafe { libc::mq_send(tx.as_raw_fd(), msg.as_ptr().cast(), msg.len(), 0) } == 0
                {
                    return Ok(());
                }
                match errno() {
                    Errno::INTR => check(abort)?,
                    e => return Err(LinkError::sys("mq_send", e)),
                }
            },
            Io::Netlink { fd, own, dst, seq } => {
                *seq = seq.wrapping_add(1);
                netlink::send(fd, *own, *dst, *seq, msg, abort)
            }
            Io::Ring(r) => r.send(msg, abort),
        }
    }

    /// Receives one message of `len` bytes into `buf[..len]` (`buf` at
    /// least [`Io::rx_len`] long); a message of another size is an error.
    #[inline]
    pub(super) fn recv(
        &mut self,
        buf: &mut [u8],
        len: usize,
        abort: &Abort,
    ) -> Result<(), LinkError> {
        let got = match self {
            Io::Stream { rx, .. } => return read_exact(&*rx, &mut buf[..len], abort),
            Io::Packet(fd) => loop {
                // MSG_TRUNC: the real length, so a longer message is seen.
                match rustix::net::recv(&*fd, &mut buf[..len], RecvFlags::TRUNC) {
                    Ok((_, 0)) => return Err(LinkError::PeerClosed),
                    Ok((_, n)) => break n,
                    Err(Errno::INTR) => check(abort)?,
                    Err(e) => return Err(LinkError::sys("recv", e)),
                }
            },
            Io::Mq { rx, .. } => loop {
                // SAFETY: valid descriptor; buf is at least msgsize long.
                let r = unsafe {
                    libc::mq_receive(
                        rx.as_raw_fd(),
                        buf.as_mut_ptr().cast(),
                        buf.len(),
                        std::ptr::null_mut(),
                    )
                };
                if r >= 0 {
                    break r as usize;
                }
                match errno() {
                    Errno::INTR => check(abort)?,
                    e => return Err(LinkError::sys("mq_receive", e)),
                }
            },
            Io::Netlink { fd, .. } => netlink::recv(fd, &mut buf[..len], abort)?,
            Io::Ring(r) => r.recv(&mut buf[..len], abort)?,
        };
        match got {
            _ if got == len => Ok(()),
            // The empty message of `end`.
            0 => Err(LinkError::PeerClosed),
            _ => Err(wrong_size(got, len)),
        }
    }

    /// Tells the other end the loop is over: a stream closes; the others
    /// have no end of file, so they send an empty message (best effort).
    pub(super) fn end(&mut self) {
        let abort = Abort::new();
        abort.set();
        match self {
            Io::Stream { .. } => {}
            Io::Ring(r) => r.end(),
            _ => {
                let _ = self.send(&[], &abort);
            }
        }
    }
}

impl Drop for Io {
    fn drop(&mut self) {
        self.end();
    }
}
