//! Minimal loops of the same system calls a link makes, measured beside the
//! link so that icbench's own overhead can be shown (the foundation issue's
//! target: pipe and unix 64 B round trips within ±5 % of these).
//!
//! The loop is what a careful engineer would write by hand: a forked child
//! pinned to the peer CPU that reads and writes back, and a parent on the
//! calling thread's CPU that writes, reads and reads the clock. No framing,
//! no verification, no watchdog: the bare floor of the mechanism.

use std::os::fd::{AsRawFd, OwnedFd};

use crate::LinkError;

/// Which mechanism to loop over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// Two pipes.
    Pipe,
    /// A unix stream socket pair.
    Unix,
}

fn pair(m: Mechanism) -> Result<(OwnedFd, OwnedFd, OwnedFd, OwnedFd), LinkError> {
    let fail = |e| LinkError::Setup(format!("reference loop setup: {e}"));
    match m {
        Mechanism::Pipe => {
            use rustix::pipe::{PipeFlags, pipe_with};
            let (dr, dw) = pipe_with(PipeFlags::CLOEXEC).map_err(fail)?;
            let (ur, uw) = pipe_with(PipeFlags::CLOEXEC).map_err(fail)?;
            // (host read, host write, peer read, peer write)
            Ok((ur, dw, dr, uw))
        }
        Mechanism::Unix => {
            use rustix::net::{AddressFamily, SocketFlags, SocketType, socketpair};
            let (a, b) =
                socketpair(AddressFamily::UNIX, SocketType::STREAM, SocketFlags::CLOEXEC, None)
                    .map_err(fail)?;
            let a2 = a.try_clone().map_err(|e| LinkError::Setup(e.to_string()))?;
            let b2 = b.try_clone().map_err(|e| LinkError::Setup(e.to_string()))?;
            Ok((a, a2, b, b2))
        }
    }
}

/// Round trips of `size`-byte messages, `rounds` of them after `warmup`
/// discarded ones, each in ns, measured with `now_ns`. The calling thread
/// should already be pinned to the host CPU.
pub fn round_trips(
    m: Mechanism,
    size: usize,
    warmup: usize,
    rounds: usize,
    peer_cpu: u32,
    now_ns: fn() -> u64,
) -> Result<Vec<u64>, LinkError> {
    let (hr, hw, pr, pw) = pair(m)?;
    let total = warmup + rounds;
    // SAFETY: after fork the child only makes async-signal-safe system calls
    // (sched_setaffinity, read, write, _exit) on memory it already owns.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(LinkError::Setup(format!("fork: {}", std::io::Error::last_os_error())));
    }
    if pid == 0 {
        // SAFETY: see above; `buf` lives on this stack.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(peer_cpu as usize, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
            let mut buf = [0u8; 65536];
            let n = size.min(buf.len());
            for _ in 0..total {
                let mut got = 0;
                while got < n {
                    let r = libc::read(pr.as_raw_fd(), buf.as_mut_ptr().add(got).cast(), n - got);
                    if r <= 0 {
                        libc::_exit(1);
                    }
                    got += r as usize;
                }
                if libc::write(pw.as_raw_fd(), buf.as_ptr().cast(), n) != n as isize {
                    libc::_exit(1);
                }
            }
            libc::_exit(0);
        }
    }
    drop((pr, pw));
    let tx = vec![0x5au8; size];
    let mut rx = vec![0u8; size];
    let mut out = Vec::with_capacity(rounds);
    let mut result = Ok(());
    for i in 0..total {
        let t0 = now_ns();
        if let Err(e) = bare_round_trip(&hw, &hr, &tx, &mut rx) {
            result = Err(e);
            break;
        }
        let t1 = now_ns();
        if i >= warmup {
            out.push(t1 - t0);
        }
    }
    drop((hr, hw));
    let mut status = 0;
    // SAFETY: reaping our own child.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    result.map(|()| out)
}

/// One write and reads until the echo is in: the bare system calls.
#[inline]
fn bare_round_trip(w: &OwnedFd, r: &OwnedFd, tx: &[u8], rx: &mut [u8]) -> Result<(), LinkError> {
    let fail = |op| move |e| LinkError::sys(op, e);
    let mut sent = 0;
    while sent < tx.len() {
        sent += rustix::io::write(w, &tx[sent..]).map_err(fail("write"))?;
    }
    let mut got = 0;
    while got < rx.len() {
        match rustix::io::read(r, &mut rx[got..]).map_err(fail("read"))? {
            0 => return Err(LinkError::PeerClosed),
            n => got += n,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> u64 {
        std::time::UNIX_EPOCH.elapsed().map_or(0, |d| d.as_nanos() as u64)
    }

    #[test]
    fn both_mechanisms_complete_their_rounds() {
        for m in [Mechanism::Pipe, Mechanism::Unix] {
            let v = round_trips(m, 64, 10, 100, 0, now).unwrap();
            assert_eq!(v.len(), 100);
        }
    }
}
