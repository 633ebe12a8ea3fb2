//! Minimal loops of the same system calls (or, for `shm`, the same ring) a
//! link uses, measured beside the link so that icbench's own overhead can
//! be shown: issue 2's target for pipe and unix (64 B round trips within
//! ±5 % of these), and issue #15 item 8 for every other local link.
//!
//! The loop is what a careful engineer would write by hand: a peer that
//! receives a message and sends it back, and a host that sends, receives
//! and reads the clock. No control messages, no [`Link`](crate::Link)
//! trait, no progress counter: the bare floor of the mechanism. To be a
//! fair reference it runs under the same conditions as the link it is
//! compared with (icbench-engine's `bare` module): its descriptors (or
//! shared segment) made by the very code that makes the link's
//! (`sys::stream::ends`, `sys::mq::ends`, `sys::netlink::ends`,
//! `sys::shm::segment`), handed to a peer started and pinned the way
//! icbench's own peer is (an exec'd `icbench __peer --bare SIZE`, or a
//! thread), with the link's own handoff text ([`open`], [`serve`]).
//!
//! Every echo is still checked byte for byte, after the second clock read,
//! as icbench's ping-pong does: the payload carries the message's sequence
//! number, so a stale buffer is caught.

mod io;
mod ring;

use crate::fdio::{fd_param, owned_fd};
use crate::{Abort, Handoff, LinkError};
use io::Io;

/// Which mechanism to loop over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// Two pipes (the `pipe` link).
    Pipe,
    /// A unix stream socket pair (the `unix` link).
    Unix,
    /// A unix seqpacket socket pair: one send, one recv a message.
    Seqpacket,
    /// A TCP connection over loopback with TCP_NODELAY.
    Tcp,
    /// A pseudo-terminal in raw mode: the host writes the master, the peer
    /// the slave.
    Pty,
    /// Two POSIX message queues: mq_send, mq_receive.
    Mq,
    /// Two NETLINK_USERSOCK sockets: sendmsg and recvmsg of a netlink
    /// header and the payload.
    Netlink,
    /// The shm link's rings, spinning (compared with `shm?push=none`).
    Shm,
}

impl Mechanism {
    /// Every mechanism, in the order `icbench floor --bare` measures them.
    pub const ALL: [Mechanism; 8] = [
        Mechanism::Pipe,
        Mechanism::Unix,
        Mechanism::Seqpacket,
        Mechanism::Tcp,
        Mechanism::Pty,
        Mechanism::Mq,
        Mechanism::Netlink,
        Mechanism::Shm,
    ];
    /// The two every run's floor compares (issue 2's target).
    pub const FLOOR: [Mechanism; 2] = [Mechanism::Pipe, Mechanism::Unix];

    /// The spec of the link measured against this loop.
    pub fn link_spec(self) -> &'static str {
        match self {
            Mechanism::Pipe => "pipe",
            Mechanism::Unix => "unix",
            Mechanism::Seqpacket => "seqpacket",
            Mechanism::Tcp => "tcp",
            Mechanism::Pty => "pty",
            Mechanism::Mq => "mq",
            Mechanism::Netlink => "netlink",
            // The bare ring has no push hint, so the link goes without.
            Mechanism::Shm => "shm?push=none",
        }
    }

    /// The link kind, for labels.
    pub fn kind(self) -> &'static str {
        self.link_spec().split('?').next().unwrap_or_default()
    }
}

/// The host end of a bare loop: the descriptors (or the ring), nothing else.
pub struct Bare {
    io: Io,
    abort: Abort,
}

impl std::fmt::Debug for Bare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bare").field("io", &self.io.name()).finish_non_exhaustive()
    }
}

/// Makes the descriptors of `m` as the link does and returns the host end
/// and the handoff for the peer end, in the link's own handoff format.
/// Setting `abort` makes a blocked call return [`LinkError::Aborted`] once
/// woken by a signal (the engine's watchdog), and a spinning ring stop.
pub fn open(m: Mechanism, abort: Abort) -> Result<(Bare, Handoff), LinkError> {
    use crate::sys::{mq, netlink, shm, stream};
    let (io, handoff) = match m {
        Mechanism::Pipe
        | Mechanism::Unix
        | Mechanism::Seqpacket
        | Mechanism::Tcp
        | Mechanism::Pty => {
            let e = stream::ends(m.kind())?;
            let io = if m == Mechanism::Seqpacket {
                Io::Packet(e.rx)
            } else {
                Io::Stream { rx: e.rx, tx: e.tx }
            };
            (io, e.handoff)
        }
        Mechanism::Mq => {
            let e = mq::ends()?;
            (Io::Mq { tx: e.tx, rx: e.rx, msgsize: e.msgsize }, e.handoff)
        }
        Mechanism::Netlink => {
            let e = netlink::ends()?;
            (Io::Netlink { fd: e.fd, own: e.own_port, dst: e.dst_port, seq: 0 }, e.handoff)
        }
        Mechanism::Shm => {
            use std::os::fd::AsRawFd;
            let fd = shm::segment(shm::DEFAULT_SLOTS)?;
            let ring = ring::Ring::map(&fd, shm::DEFAULT_SLOTS, true)?;
            let text = format!("shm:fd={},slots={}", fd.as_raw_fd(), shm::DEFAULT_SLOTS);
            (Io::Ring(Box::new(ring)), Handoff::local(text, vec![fd]))
        }
    };
    Ok((Bare { io, abort }, handoff))
}

/// Writes the sequence number into the payload (its first 8 bytes, or as
/// many as fit), so that each echo differs from the last.
#[inline]
fn stamp(tx: &mut [u8], seq: u64) {
    let n = tx.len().min(8);
    tx[..n].copy_from_slice(&seq.to_le_bytes()[..n]);
}

impl Bare {
    /// How long the receive buffer of [`Bare::round_trips`] must be for
    /// `size`-byte messages: a message queue receives only into a buffer of
    /// its whole message size (mq_receive(3)).
    pub fn rx_len(&self, size: usize) -> usize {
        self.io.rx_len(size)
    }

    /// `out.len()` round trips of `tx.len()`-byte messages, each in ns as
    /// `now_ns` reads it around one send and the receive of the echo.
    /// Message `i` carries sequence number `first_seq + i`; every echo is
    /// compared with what was sent after the second clock read. `rx` must
    /// be at least [`Bare::rx_len`] long. No allocation inside.
    pub fn round_trips(
        &mut self,
        tx: &mut [u8],
        rx: &mut [u8],
        first_seq: u64,
        out: &mut [u64],
        now_ns: fn() -> u64,
    ) -> Result<(), LinkError> {
        let n = tx.len();
        for (i, slot) in out.iter_mut().enumerate() {
            stamp(tx, first_seq + i as u64);
            let t0 = now_ns();
            self.io.send(tx, &self.abort)?;
            self.io.recv(rx, n, &self.abort)?;
            let t1 = now_ns();
            if rx[..n] != tx[..] {
                let at = rx.iter().zip(tx.iter()).position(|(a, b)| a != b).unwrap_or(0);
                return Err(LinkError::Framing(format!(
                    "bare loop: echo {} of {n} B differs from what was sent at byte {at}",
                    first_seq + i as u64
                )));
            }
            *slot = t1 - t0;
        }
        Ok(())
    }
}

/// The peer end of a bare loop, from the handoff text of [`open`]: receives
/// `size`-byte messages and sends each back, until the host closes its end
/// (then `Ok`; a spinning ring ends when `abort` is set). Run it in the
/// process that inherited the descriptors, or in a thread while the
/// [`Handoff`] is alive (it takes the descriptors over).
pub fn serve(text: &str, size: usize, abort: &Abort) -> Result<(), LinkError> {
    let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
    let mut io = match kind {
        "pipe" => Io::Stream { rx: owned_fd(rest, "r")?, tx: Some(owned_fd(rest, "w")?) },
        "unix" | "tcp" | "pty" => Io::Stream { rx: owned_fd(rest, "fd")?, tx: None },
        "seqpacket" => Io::Packet(owned_fd(rest, "fd")?),
        "mq" => Io::Mq {
            rx: owned_fd(rest, "r")?,
            tx: owned_fd(rest, "w")?,
            msgsize: fd_param(rest, "size")? as usize,
        },
        "netlink" => Io::Netlink {
            fd: owned_fd(rest, "fd")?,
            own: fd_param(rest, "own")? as u32,
            dst: fd_param(rest, "dst")? as u32,
            seq: 0,
        },
        "shm" => {
            let fd = owned_fd(rest, "fd")?;
            Io::Ring(Box::new(ring::Ring::map(&fd, fd_param(rest, "slots")? as u32, false)?))
        }
        _ => {
            return Err(LinkError::Setup(format!(
                "no bare loop runs over handoff '{text}' (pipe, unix, seqpacket, tcp, pty, mq, netlink, shm)"
            )));
        }
    };
    let mut buf = vec![0u8; io.rx_len(size)];
    loop {
        match io.recv(&mut buf, size, abort) {
            Ok(()) => {}
            Err(LinkError::PeerClosed) => return Ok(()),
            Err(e) => return Err(e),
        }
        io.send(&buf[..size], abort)?;
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::IntoRawFd;

    use super::*;

    fn now() -> u64 {
        std::time::UNIX_EPOCH.elapsed().map_or(0, |d| d.as_nanos() as u64)
    }

    /// The peer in a thread: it takes the handoff's descriptors over.
    fn peer_thread(h: Handoff, size: usize) -> std::thread::JoinHandle<Result<(), LinkError>> {
        let text = h.text.clone();
        h.fds.into_iter().for_each(|fd| {
            let _ = fd.into_raw_fd();
        });
        std::thread::spawn(move || serve(&text, size, &Abort::new()))
    }

    #[test]
    fn every_mechanism_echoes_and_its_peer_ends_when_the_host_does() {
        // pty and netlink under qemu-user: the emulator cannot carry them.
        for m in
            Mechanism::ALL.into_iter().filter(|m| crate::probe::unsupported(m.kind()).is_none())
        {
            for size in [1usize, 64, 4096] {
                let (mut host, h) = open(m, Abort::new()).unwrap();
                assert!(h.text.starts_with(m.kind()), "{}", h.text);
                let peer = peer_thread(h, size);
                let mut tx = vec![0x5au8; size];
                let mut rx = vec![0u8; host.rx_len(size)];
                let mut out = vec![0u64; 100];
                host.round_trips(&mut tx, &mut rx, 7, &mut out, now).unwrap();
                // The last message sent carried sequence number 7 + 99.
                let n = size.min(8);
                assert_eq!(&rx[..n], &106u64.to_le_bytes()[..n], "{m:?} {size} B");
                assert!(out.iter().all(|&t| t > 0), "{m:?}");
                // Without a clean end the peer would block (or spin) here.
                drop(host);
                peer.join().unwrap().unwrap_or_else(|e| panic!("{m:?} {size} B peer: {e}"));
            }
        }
    }

    #[test]
    fn a_wrong_echo_is_caught() {
        let (mut host, h) = open(Mechanism::Unix, Abort::new()).unwrap();
        let text = h.text.clone();
        let fd = h.fds.into_iter().next().unwrap();
        // A peer that flips a bit of every echo.
        let bad = std::thread::spawn(move || {
            let mut b = [0u8; 16];
            crate::fdio::read_exact(&fd, &mut b, &Abort::new()).unwrap();
            b[3] ^= 1;
            rustix::io::write(&fd, &b).unwrap();
            drop(text);
        });
        let (mut tx, mut rx) = (vec![1u8; 16], vec![0u8; 16]);
        let e = host.round_trips(&mut tx, &mut rx, 0, &mut [0u64; 4], now).unwrap_err();
        assert!(e.to_string().contains("at byte 3"), "{e}");
        bad.join().unwrap();
    }

    #[test]
    fn a_message_of_another_size_is_named() {
        // The peer expects 32 B messages; the host sends 64 B ones on a
        // message-keeping mechanism: the peer names the size and stops.
        let runs = |m: &Mechanism| crate::probe::unsupported(m.kind()).is_none();
        for m in [Mechanism::Seqpacket, Mechanism::Mq, Mechanism::Netlink, Mechanism::Shm]
            .into_iter()
            .filter(runs)
        {
            let (mut host, h) = open(m, Abort::new()).unwrap();
            let peer = peer_thread(h, 32);
            host.io.send(&[1u8; 64], &host.abort).unwrap();
            let e = peer.join().unwrap().unwrap_err();
            assert!(e.to_string().contains("of 64 B, expected 32 B"), "{m:?}: {e}");
        }
    }

    #[test]
    fn a_handoff_of_another_kind_is_refused() {
        let e = serve("rpmsg-emu:fd=3", 64, &Abort::new()).unwrap_err();
        assert!(e.to_string().contains("no bare loop"), "{e}");
    }
}
