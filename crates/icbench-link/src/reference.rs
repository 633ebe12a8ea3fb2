//! Minimal loops of the same system calls a link makes, measured beside the
//! link so that icbench's own overhead can be shown (issue 2's target: pipe
//! and unix 64 B round trips within ±5 % of these).
//!
//! The loop is what a careful engineer would write by hand: a peer that
//! reads a message and writes it back, and a host that writes, reads and
//! reads the clock. No control messages, no [`Link`](crate::Link) trait, no
//! progress counter: the bare floor of the mechanism. To be a fair
//! reference it runs under the same conditions as the link it is compared
//! with (icbench-engine's `bare` module): the same kind of descriptors made
//! the same way, handed to a peer started and pinned the way icbench's own
//! peer is (an exec'd `icbench __peer --bare SIZE`, or a thread), with the
//! same handoff text ([`open`], [`serve`]).
//!
//! Every echo is still checked byte for byte, after the second clock read,
//! as icbench's ping-pong does: the payload carries the message's sequence
//! number, so a stale buffer is caught.

use std::os::fd::{AsFd, OwnedFd};

use rustix::io::Errno;

use crate::fdio::{check, owned_fd};
use crate::{Abort, Handoff, LinkError};

/// Which mechanism to loop over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// Two pipes (the `pipe` link).
    Pipe,
    /// A unix stream socket pair (the `unix` link).
    Unix,
}

impl Mechanism {
    pub const ALL: [Mechanism; 2] = [Mechanism::Pipe, Mechanism::Unix];

    /// The spec of the link that makes the same system calls.
    pub fn link_spec(self) -> &'static str {
        match self {
            Mechanism::Pipe => "pipe",
            Mechanism::Unix => "unix",
        }
    }
}

/// The host end of a bare loop: the descriptors, nothing else.
#[derive(Debug)]
pub struct Bare {
    rx: OwnedFd,
    tx: Option<OwnedFd>,
    abort: Abort,
}

/// Makes the descriptors of `m` the way the link does (`sys/stream.rs`) and
/// returns the host end and the handoff for the peer end, in the link's own
/// handoff format (`pipe:r=…,w=…`, `unix:fd=…`). Setting `abort` makes a
/// blocked call return [`LinkError::Aborted`] once woken by a signal (the
/// engine's watchdog).
pub fn open(m: Mechanism, abort: Abort) -> Result<(Bare, Handoff), LinkError> {
    use std::os::fd::AsRawFd;
    let fail = |op: &'static str| move |e| LinkError::Setup(format!("{op} failed: {e}"));
    match m {
        Mechanism::Pipe => {
            use rustix::pipe::{PipeFlags, pipe_with};
            let (down_r, down_w) = pipe_with(PipeFlags::CLOEXEC).map_err(fail("pipe"))?;
            let (up_r, up_w) = pipe_with(PipeFlags::CLOEXEC).map_err(fail("pipe"))?;
            let text = format!("pipe:r={},w={}", down_r.as_raw_fd(), up_w.as_raw_fd());
            Ok((
                Bare { rx: up_r, tx: Some(down_w), abort },
                Handoff::local(text, vec![up_w, down_r]),
            ))
        }
        Mechanism::Unix => {
            use rustix::net::{AddressFamily, SocketFlags, SocketType, socketpair};
            let (a, b) =
                socketpair(AddressFamily::UNIX, SocketType::STREAM, SocketFlags::CLOEXEC, None)
                    .map_err(fail("socketpair"))?;
            let text = format!("unix:fd={}", b.as_raw_fd());
            Ok((Bare { rx: a, tx: None, abort }, Handoff::local(text, vec![b])))
        }
    }
}

/// Writes the sequence number into the payload (its first 8 bytes, or as
/// many as fit), so that each echo differs from the last.
#[inline]
fn stamp(tx: &mut [u8], seq: u64) {
    let n = tx.len().min(8);
    tx[..n].copy_from_slice(&seq.to_le_bytes()[..n]);
}

impl Bare {
    /// `out.len()` round trips of `tx.len()`-byte messages, each in ns as
    /// `now_ns` reads it around one write and the reads of the echo. Message
    /// `i` carries sequence number `first_seq + i`; every echo is compared
    /// with what was sent after the second clock read. `rx` must be at least
    /// as long as `tx`. No allocation inside.
    pub fn round_trips(
        &mut self,
        tx: &mut [u8],
        rx: &mut [u8],
        first_seq: u64,
        out: &mut [u64],
        now_ns: fn() -> u64,
    ) -> Result<(), LinkError> {
        let n = tx.len();
        let rx = &mut rx[..n];
        for (i, slot) in out.iter_mut().enumerate() {
            stamp(tx, first_seq + i as u64);
            let t0 = now_ns();
            self.write_all(tx)?;
            self.read_exact(rx)?;
            let t1 = now_ns();
            if rx != &tx[..] {
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

    #[inline]
    fn write_all(&self, mut buf: &[u8]) -> Result<(), LinkError> {
        let fd = self.tx.as_ref().unwrap_or(&self.rx);
        while !buf.is_empty() {
            match rustix::io::write(fd, buf) {
                Ok(n) => buf = &buf[n..],
                Err(Errno::INTR) => check(&self.abort)?,
                Err(e) => return Err(LinkError::sys("write", e)),
            }
        }
        Ok(())
    }

    #[inline]
    fn read_exact(&self, buf: &mut [u8]) -> Result<(), LinkError> {
        read_exact(&self.rx, buf, &self.abort)
    }
}

#[inline]
fn read_exact(fd: impl AsFd, buf: &mut [u8], abort: &Abort) -> Result<(), LinkError> {
    let mut got = 0;
    while got < buf.len() {
        match rustix::io::read(&fd, &mut buf[got..]) {
            Ok(0) => return Err(LinkError::PeerClosed),
            Ok(n) => got += n,
            Err(Errno::INTR) => check(abort)?,
            Err(e) => return Err(LinkError::sys("read", e)),
        }
    }
    Ok(())
}

/// The peer end of a bare loop, from the handoff text of [`open`]: reads
/// `size`-byte messages and writes each back, until the host closes its end
/// (then `Ok`). Run it in the process that inherited the descriptors, or in
/// a thread while the [`Handoff`] is alive (it takes the descriptors over).
pub fn serve(text: &str, size: usize, abort: &Abort) -> Result<(), LinkError> {
    let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
    let (rx, tx) = match kind {
        "pipe" => (owned_fd(rest, "r")?, Some(owned_fd(rest, "w")?)),
        "unix" => (owned_fd(rest, "fd")?, None),
        _ => {
            return Err(LinkError::Setup(format!(
                "the bare loop runs over pipe or unix, not handoff '{text}'"
            )));
        }
    };
    let mut buf = vec![0u8; size];
    let peer = Bare { rx, tx, abort: abort.clone() };
    loop {
        match peer.read_exact(&mut buf) {
            Ok(()) => {}
            Err(LinkError::PeerClosed) => return Ok(()),
            Err(e) => return Err(e),
        }
        peer.write_all(&buf)?;
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
    fn both_mechanisms_echo_and_end_cleanly() {
        for m in Mechanism::ALL {
            let (mut host, h) = open(m, Abort::new()).unwrap();
            assert!(h.text.starts_with(m.link_spec()), "{}", h.text);
            let peer = peer_thread(h, 64);
            let (mut tx, mut rx) = (vec![0x5au8; 64], vec![0u8; 64]);
            let mut out = vec![0u64; 100];
            host.round_trips(&mut tx, &mut rx, 7, &mut out, now).unwrap();
            // The last message sent carried sequence number 7 + 99.
            assert_eq!(&rx[..8], &106u64.to_le_bytes());
            drop(host);
            peer.join().unwrap().unwrap();
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
            read_exact(&fd, &mut b, &Abort::new()).unwrap();
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
    fn a_handoff_of_another_kind_is_refused() {
        let e = serve("shm:name=x", 64, &Abort::new()).unwrap_err();
        assert!(e.to_string().contains("pipe or unix"), "{e}");
    }
}
