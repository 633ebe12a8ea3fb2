//! Whole-message reads and writes on a descriptor, the way every fd-based
//! link needs them: retry short transfers, turn EINTR into an abort check
//! (the watchdog wakes a blocked call with a signal), and name a closed peer.

use std::os::fd::AsFd;

use rustix::io::Errno;

use crate::{Abort, LinkError};

/// Writes all of `buf`.
#[inline]
pub(crate) fn write_all(fd: impl AsFd, mut buf: &[u8], abort: &Abort) -> Result<(), LinkError> {
    while !buf.is_empty() {
        match rustix::io::write(&fd, buf) {
            Ok(n) => buf = &buf[n..],
            Err(Errno::INTR) => check(abort)?,
            Err(e) => return Err(LinkError::sys("write", e)),
        }
    }
    Ok(())
}

/// Reads exactly `buf.len()` bytes. End of file and EIO (a pty whose other
/// side closed) mean the peer is gone.
#[inline]
pub(crate) fn read_exact(fd: impl AsFd, buf: &mut [u8], abort: &Abort) -> Result<(), LinkError> {
    let mut off = 0;
    while off < buf.len() {
        match rustix::io::read(&fd, &mut buf[off..]) {
            Ok(0) => return Err(LinkError::PeerClosed),
            Ok(n) => off += n,
            Err(Errno::INTR) => check(abort)?,
            Err(Errno::IO) => return Err(LinkError::PeerClosed),
            Err(e) => return Err(LinkError::sys("read", e)),
        }
    }
    Ok(())
}

/// After EINTR: go on unless aborted.
#[inline]
pub(crate) fn check(abort: &Abort) -> Result<(), LinkError> {
    if abort.is_set() { Err(LinkError::Aborted) } else { Ok(()) }
}

/// Parses `key=N` pairs of a handoff text into descriptor numbers.
pub(crate) fn fd_param(text: &str, key: &str) -> Result<i64, LinkError> {
    text.split(',')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.parse().ok())
        .ok_or_else(|| LinkError::Setup(format!("handoff '{text}' lacks '{key}='")))
}

/// Takes ownership of an inherited descriptor named in a handoff.
pub(crate) fn owned_fd(text: &str, key: &str) -> Result<std::os::fd::OwnedFd, LinkError> {
    use std::os::fd::FromRawFd;
    let fd = i32::try_from(fd_param(text, key)?)
        .map_err(|_| LinkError::Setup(format!("handoff '{text}': bad descriptor")))?;
    // The descriptor must be open in this process.
    if rustix::io::fcntl_getfd(unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) }).is_err() {
        return Err(LinkError::Setup(format!("handoff '{text}': descriptor {fd} is not open")));
    }
    // SAFETY: the descriptor is open (checked above) and the handoff gives it
    // to this end alone.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}
