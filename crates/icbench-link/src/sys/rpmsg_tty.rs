//! What `/dev/ttyRPMSGn` needs beyond a plain tty (drivers/tty/rpmsg_tty.c),
//! for the `tty:` link to call:
//!
//! - each write is at most one rpmsg message: rpmsg_tty splits a write at
//!   `rpmsg_get_mtu()` and sends with `rpmsg_trysend()` ("No flow control is
//!   implemented yet"), so a full TX ring fails the write with ENOMEM (or
//!   EAGAIN) — possibly after part of it went out;
//! - `write_room` always reports the MTU, so poll() says "writable" even
//!   when the ring is full: waiting must back off in time, not in poll;
//! - the kernel's default termios clears ECHO/ICANON/OPOST, but a previous
//!   user may have changed them: raw mode is always set (`tty.rs` does).
//!
//! The `tty:` link sends with [`write_chunked`] (through
//! `stream::chunked_host`), counting refusals in its `LinkCounters`;
//! `caps.max_msg_bytes` stays the protocol's frame limit, since a tty is a
//! byte stream.

use std::os::fd::AsFd;
use std::time::Duration;

use rustix::io::Errno;

use crate::fdio::check;
use crate::{Abort, LinkCounters, LinkError};

/// The payload of one message with 512 B virtio buffers.
pub(crate) const DEFAULT_MTU: usize = 496;

/// The longest pause between retries of a refused write.
const BACKOFF_MAX: Duration = Duration::from_millis(2);
const BACKOFF_MIN: Duration = Duration::from_micros(20);

/// Writes all of `buf` in pieces of at most `mtu` bytes. A piece the
/// kernel refuses for want of a TX buffer (ENOMEM, EAGAIN) is counted in
/// `counters.tx_busy` and retried after a pause that doubles from 20 µs to
/// 2 ms; a partial write goes on from where it stopped.
pub(crate) fn write_chunked(
    fd: impl AsFd,
    mut buf: &[u8],
    mtu: usize,
    counters: &mut LinkCounters,
    abort: &Abort,
) -> Result<(), LinkError> {
    let mut pause = BACKOFF_MIN;
    while !buf.is_empty() {
        let piece = &buf[..buf.len().min(mtu)];
        match rustix::io::write(&fd, piece) {
            Ok(n) => {
                buf = &buf[n..];
                pause = BACKOFF_MIN;
            }
            Err(Errno::NOMEM | Errno::AGAIN) => {
                counters.tx_busy += 1;
                check(abort)?;
                std::thread::sleep(pause);
                pause = (pause * 2).min(BACKOFF_MAX);
            }
            Err(Errno::INTR) => check(abort)?,
            Err(e) => return Err(LinkError::sys("write", e)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::net::{AddressFamily, RecvFlags, SocketFlags, SocketType};

    #[test]
    fn writes_are_split_at_the_mtu_one_message_each() {
        // A seqpacket pair shows the pieces as the messages they would be.
        let (a, b) = rustix::net::socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )
        .unwrap();
        let mut c = LinkCounters::default();
        let msg: Vec<u8> = (0..1200u32).map(|i| i as u8).collect();
        write_chunked(&a, &msg, DEFAULT_MTU, &mut c, &Abort::new()).unwrap();
        let mut got = Vec::new();
        let mut sizes = Vec::new();
        let mut buf = [0u8; 2048];
        for _ in 0..3 {
            let (_, n) = rustix::net::recv(&b, &mut buf, RecvFlags::empty()).unwrap();
            sizes.push(n);
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(sizes, [496, 496, 208]);
        assert_eq!(got, msg);
        assert_eq!(c.tx_busy, 0);
    }

    #[test]
    fn a_full_ring_is_backed_off_and_counted() {
        let (a, b) = rustix::net::socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
            None,
        )
        .unwrap();
        rustix::net::sockopt::set_socket_send_buffer_size(&a, 4096).unwrap();
        let piece = [5u8; 400];
        let mut filled = 0;
        while rustix::io::write(&a, &piece).is_ok() {
            filled += 1;
        }
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            let mut n = 0;
            while n < filled + 1 {
                match rustix::io::read(&b, &mut buf) {
                    Ok(_) => n += 1,
                    Err(Errno::AGAIN) => std::thread::yield_now(),
                    Err(e) => panic!("{e}"),
                }
            }
            b
        });
        let mut c = LinkCounters::default();
        // The first attempt meets the full buffer whatever the reader does,
        // unless it already drained; either way the write completes.
        write_chunked(&a, &piece, DEFAULT_MTU, &mut c, &Abort::new()).unwrap();
        let _b = reader.join().unwrap();
        let aborted = Abort::new();
        aborted.set();
        while rustix::io::write(&a, &piece).is_ok() {}
        let e = write_chunked(&a, &piece, DEFAULT_MTU, &mut c, &aborted).unwrap_err();
        assert!(matches!(e, LinkError::Aborted), "{e}");
        assert!(c.tx_busy >= 1);
    }
}
