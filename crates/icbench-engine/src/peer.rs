//! The local peer: the responder on the far end of a local link, run as a
//! pinned child process (the same binary, re-executed) or as a pinned thread.
//!
//! It answers the control protocol of [`crate::ctrl`]: echo every message
//! back, or sink messages, check their payload and return credits, or
//! source them (send stamped messages with a window in flight, reading the
//! host's credits), or take its half of a oneway cell (receive, read the
//! clock, check, return the reading; or stamp, send, wait for the go). For
//! tests
//! of the fault paths it can be told to die, hang or corrupt after a number
//! of messages ([`Fault`]); nothing else changes its behaviour.

use icbench_link::{Link, LinkError};

use icbench_model::Direction;

use crate::clock::now_ns;
use crate::ctrl::{self, CTRL_LEN, GO_LEN, Op, Reading};
use crate::payload::{Payload, oneway_bad_at, put_clock};

/// A fault the peer injects after `after` data messages, for testing how the
/// engine copes with a peer that misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Exit abruptly (the process kills itself with SIGKILL).
    Die { after: u64 },
    /// Stop answering, but stay alive.
    Hang { after: u64 },
    /// Flip one byte of each echo (of each sent oneway or source message; a
    /// receiving oneway peer reports each message as damaged).
    Corrupt { after: u64 },
    /// Send garbage instead of a reply (icb-peer; icbench's own peer
    /// corrupts instead).
    Garbage { after: u64 },
    /// Send half a reply and fall silent (icb-peer; own peer: corrupts).
    Truncate { after: u64 },
    /// Send a reply with a wrong CRC (icb-peer; own peer: corrupts).
    BadCrc { after: u64 },
}

impl Fault {
    /// Parses `die-after=N`, `hang-after=N`, `corrupt-after=N`,
    /// `garbage-after=N`, `truncate-after=N` or `crc-after=N`.
    pub fn parse(s: &str) -> Result<Fault, String> {
        let (kind, n) = s.split_once('=').ok_or_else(|| format!("bad fault '{s}'"))?;
        let after: u64 = n.parse().map_err(|_| format!("bad fault count in '{s}'"))?;
        match kind {
            "die-after" => Ok(Fault::Die { after }),
            "hang-after" => Ok(Fault::Hang { after }),
            "corrupt-after" => Ok(Fault::Corrupt { after }),
            "garbage-after" => Ok(Fault::Garbage { after }),
            "truncate-after" => Ok(Fault::Truncate { after }),
            "crc-after" => Ok(Fault::BadCrc { after }),
            _ => Err(format!(
                "unknown fault '{kind}': use die-after, hang-after, corrupt-after, \
                 garbage-after, truncate-after or crc-after"
            )),
        }
    }

    pub fn to_arg(self) -> String {
        let (name, after) = match self {
            Fault::Die { after } => ("die", after),
            Fault::Hang { after } => ("hang", after),
            Fault::Corrupt { after } => ("corrupt", after),
            Fault::Garbage { after } => ("garbage", after),
            Fault::Truncate { after } => ("truncate", after),
            Fault::BadCrc { after } => ("crc", after),
        };
        format!("{name}-after={after}")
    }
}

/// Counts data messages and triggers the fault when due.
struct Injector {
    fault: Option<Fault>,
    handled: u64,
    abort: icbench_link::Abort,
}

impl Injector {
    /// Called before each data message. Returns true when this echo must be
    /// corrupted.
    #[inline]
    fn tick(&mut self) -> Result<bool, LinkError> {
        self.handled += 1;
        match self.fault {
            None => Ok(false),
            Some(Fault::Die { after }) if self.handled > after => {
                let _ = rustix::process::kill_process(
                    rustix::process::getpid(),
                    rustix::process::Signal::KILL,
                );
                unreachable!("SIGKILL cannot be caught");
            }
            Some(Fault::Hang { after }) if self.handled > after => loop {
                // Alive and silent until torn down.
                std::thread::sleep(std::time::Duration::from_millis(20));
                if self.abort.is_set() {
                    return Err(LinkError::Aborted);
                }
            },
            Some(
                Fault::Corrupt { after }
                | Fault::Garbage { after }
                | Fault::Truncate { after }
                | Fault::BadCrc { after },
            ) => Ok(self.handled > after),
            _ => Ok(false),
        }
    }
}

/// Serves the control protocol on `link` until told to quit or the host goes
/// away. Returns `Ok` on a clean end (quit, or the host closed the link).
pub fn serve(
    link: &mut dyn Link,
    fault: Option<Fault>,
    abort: &icbench_link::Abort,
) -> Result<(), LinkError> {
    let mut inj = Injector { fault, handled: 0, abort: abort.clone() };
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match link.recv(&mut buf, CTRL_LEN) {
            Ok(()) => {}
            Err(LinkError::PeerClosed) => return Ok(()),
            Err(e) => return Err(e),
        }
        let op = Op::decode(&buf[..CTRL_LEN]).map_err(LinkError::Framing)?;
        match op {
            Op::Quit => return Ok(()),
            Op::Echo { size, count } => {
                let size = size as usize;
                grow(&mut buf, size);
                for _ in 0..count {
                    if inj.tick()? {
                        link.recv(&mut buf, size)?;
                        buf[size / 2] ^= 0x40;
                        link.send(&buf[..size])?;
                    } else {
                        link.echo(size, &mut buf)?;
                    }
                }
            }
            Op::Sink { size, count, credit_every } => {
                let size = size as usize;
                grow(&mut buf, size);
                // One comparison with the stamped message expected next, as
                // the host's receiver of the other direction does
                // (`stream_p2h.rs`): with `Payload::check`'s three
                // comparisons instead, a 64 B stream over shm ran ~30 %
                // slower host → peer than peer → host (measured on a 2-CPU
                // Xeon VM), a difference of the receivers' code alone.
                let mut expected = Payload::new(size).buffer();
                let mut bad = 0u32;
                for i in 0..count {
                    let corrupt = inj.tick()?;
                    let mut ok = true;
                    Payload::stamp(&mut expected, u64::from(i));
                    let e = expected.as_slice();
                    link.recv_with(size, &mut buf, &mut |m| ok = m == e)?;
                    if !ok || corrupt {
                        bad += 1;
                    }
                    let received = i + 1;
                    if received % credit_every == 0 || received == count {
                        link.send(&ctrl::encode_credit(received, bad))?;
                    }
                }
            }
            Op::Source { size, count, window } => {
                source(link, &mut inj, &mut buf, size as usize, count, window)?;
            }
            Op::OneWay { size, count, direction } => {
                let size = size as usize;
                grow(&mut buf, size);
                match direction {
                    Direction::H2P => oneway_receive(link, &mut inj, &mut buf, size, count)?,
                    Direction::P2H => oneway_send(link, &mut inj, &mut buf, size, count)?,
                }
            }
        }
    }
}

/// Stream peer → host: send `count` stamped messages, at most `window`
/// unacknowledged, and read the host's credits until the last (`ctrl.rs`).
/// A faulty peer flips the middle byte of the messages it damages.
fn source(
    link: &mut dyn Link,
    inj: &mut Injector,
    buf: &mut Vec<u8>,
    size: usize,
    count: u32,
    window: u32,
) -> Result<(), LinkError> {
    grow(buf, ctrl::CREDIT_LEN);
    let mut msg = Payload::new(size).buffer();
    let (mut sent, mut acked) = (0u32, 0u32);
    while acked < count {
        while sent < count && sent - acked < window {
            let corrupt = inj.tick()?;
            Payload::stamp(&mut msg, u64::from(sent));
            if corrupt {
                msg[size / 2] ^= 0x40;
            }
            link.send(&msg)?;
            if corrupt {
                msg[size / 2] ^= 0x40;
            }
            sent += 1;
        }
        link.recv(buf, ctrl::CREDIT_LEN)?;
        let (received, _) = ctrl::decode_credit(buf);
        if received <= acked || received > sent {
            return Err(LinkError::Framing(format!(
                "source: the host credited {received} messages after {acked}, with {sent} sent"
            )));
        }
        acked = received;
    }
    Ok(())
}

/// Where a faulty peer damages a oneway message: past the clock stamp.
fn corrupt_at(size: usize) -> usize {
    (size / 2).max(crate::payload::STAMP_LEN)
}

/// Host → peer: per message, read the clock as soon as it is here, check
/// every byte but the stamp, and return the reading (`ctrl.rs`).
fn oneway_receive(
    link: &mut dyn Link,
    inj: &mut Injector,
    buf: &mut [u8],
    size: usize,
    count: u32,
) -> Result<(), LinkError> {
    let payload = Payload::new(size);
    let mut expected = payload.buffer();
    for seq in 0..count {
        let corrupt = inj.tick()?;
        Payload::stamp(&mut expected, u64::from(seq));
        let (mut read_ns, mut bad) = (0u64, None);
        link.recv_with(size, buf, &mut |m| {
            read_ns = now_ns();
            bad = oneway_bad_at(m, &expected);
        })?;
        if corrupt && bad.is_none() {
            // The fault: as if this byte had been flipped on the way.
            bad = Some(corrupt_at(size));
        }
        let bad_at = bad.map_or(0, |o| o as u32 + 1);
        link.send(&Reading { read_ns, seq, bad_at }.encode())?;
    }
    Ok(())
}

/// Peer → host: per message, stamp the clock and send, then wait for the
/// host's go for it (`ctrl.rs`).
fn oneway_send(
    link: &mut dyn Link,
    inj: &mut Injector,
    buf: &mut [u8],
    size: usize,
    count: u32,
) -> Result<(), LinkError> {
    let payload = Payload::new(size);
    let mut msg = payload.buffer();
    for seq in 0..u64::from(count) {
        let corrupt = inj.tick()?;
        Payload::stamp(&mut msg, seq);
        if corrupt {
            msg[corrupt_at(size)] ^= 0x40;
        }
        put_clock(&mut msg, now_ns());
        link.send(&msg)?;
        if corrupt {
            msg[corrupt_at(size)] ^= 0x40;
        }
        link.recv(buf, GO_LEN)?;
        let go = ctrl::decode_go(buf);
        if go != seq {
            return Err(LinkError::Framing(format!(
                "oneway: the host's go names message {go}, expected {seq}"
            )));
        }
    }
    Ok(())
}

fn grow(buf: &mut Vec<u8>, size: usize) {
    if buf.len() < size {
        buf.resize(size, 0);
    }
}
