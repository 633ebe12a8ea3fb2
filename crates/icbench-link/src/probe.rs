//! What this system can actually do for a link, found by trying it.
//!
//! A link kind may be missing from a system for reasons that are not bugs:
//! a kernel built without `CONFIG_NETLINK`-style options, a seccomp filter,
//! or an emulator. qemu-user 7.2 (Debian 12), which runs the ARM test suite,
//! answers `socket(AF_NETLINK, …, NETLINK_USERSOCK)` with EPROTONOSUPPORT and
//! does not emulate the `TCGETS2` ioctl that `tcgetattr` issues on Linux
//! (docs/boards.md). Tests and tools ask [`unsupported`] instead of keeping a
//! list of architectures or emulators: the probe makes the very system calls
//! the link makes, on throw-away objects, and reports a reason only for the
//! errors that mean "this system does not offer it" (ENOSYS, EAFNOSUPPORT,
//! EPROTONOSUPPORT, ENOTTY, EOPNOTSUPP, ENOENT). Any other failure is not a reason to skip:
//! the link's own tests then fail and show it.

use std::fmt;
use std::os::fd::{FromRawFd, OwnedFd};

use rustix::io::Errno;

/// Why a link kind cannot work on this system: the call that was refused
/// and the error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// The link kind, as in a spec (`netlink`, `pty`).
    pub kind: &'static str,
    /// The system call that was refused, with its arguments.
    pub call: &'static str,
    /// What the system answered.
    pub errno: Errno,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} links do not work here: {} failed: {}", self.kind, self.call, self.errno)
    }
}

/// Errors that mean the facility is absent rather than misused.
fn means_absent(e: Errno) -> bool {
    // NOENT: no /dev/ptmx; the others: the call, family or request is unknown.
    [
        Errno::NOSYS,
        Errno::AFNOSUPPORT,
        Errno::PROTONOSUPPORT,
        Errno::NOTTY,
        Errno::OPNOTSUPP,
        Errno::NOENT,
    ]
    .contains(&e)
}

/// Whether the link kind of `spec` (`netlink`, `pty`, `shm?wait=futex` …)
/// cannot work on this system, and why. `None` means nothing found missing:
/// either the probe succeeded or the kind needs no probe.
pub fn unsupported(spec: &str) -> Option<Unsupported> {
    let kind = spec.split([':', '?']).next().unwrap_or(spec);
    let refused =
        |kind, call, errno| means_absent(errno).then_some(Unsupported { kind, call, errno });
    match kind {
        "netlink" => netlink_socket()
            .err()
            .and_then(|e| refused("netlink", "socket(AF_NETLINK, SOCK_RAW, NETLINK_USERSOCK)", e)),
        "pty" => pty_termios().err().and_then(|(call, e)| refused("pty", call, e)),
        _ => None,
    }
}

fn last_errno() -> Errno {
    Errno::from_io_error(&std::io::Error::last_os_error()).unwrap_or(Errno::NOSYS)
}

fn netlink_socket() -> Result<OwnedFd, Errno> {
    // SAFETY: plain socket(2) call; the descriptor is owned at once.
    let fd = unsafe {
        libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::NETLINK_USERSOCK)
    };
    if fd < 0 {
        return Err(last_errno());
    }
    // SAFETY: fd is a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Opens a pty pair and reads the slave's attributes, as the pty link does.
fn pty_termios() -> Result<(), (&'static str, Errno)> {
    use rustix::fs::{Mode, OFlags};
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)
        .map_err(|e| ("posix_openpt", e))?;
    grantpt(&master).map_err(|e| ("grantpt", e))?;
    unlockpt(&master).map_err(|e| ("unlockpt", e))?;
    let name = ptsname(&master, Vec::new()).map_err(|e| ("ptsname", e))?;
    let slave = rustix::fs::open(
        name.as_c_str(),
        OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| ("open pty slave", e))?;
    rustix::termios::tcgetattr(&slave).map_err(|e| ("tcgetattr (ioctl TCGETS2) on a pty", e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_without_a_probe_are_never_reported() {
        for spec in ["shm", "shm?wait=futex", "pipe", "unix", "seqpacket", "tcp", "mq"] {
            assert_eq!(unsupported(spec), None, "{spec}");
        }
    }

    #[test]
    fn the_probe_agrees_with_opening_the_link() {
        // Whatever the system, the probe and the link must agree: a kind the
        // probe passes opens, and a kind it refuses fails to open.
        for spec in ["netlink", "pty"] {
            let opened = crate::open(&crate::LinkSpec::parse(spec).unwrap(), crate::Abort::new());
            match unsupported(spec) {
                None => assert!(opened.is_ok(), "{spec}: probe passed, open failed"),
                Some(why) => {
                    assert!(opened.is_err(), "{spec}: probe refused ({why}), open worked");
                    assert!(why.to_string().starts_with(&format!("{spec} links do not work here")));
                }
            }
        }
    }

    #[test]
    fn only_absence_errors_make_a_reason() {
        assert!(means_absent(Errno::PROTONOSUPPORT));
        assert!(means_absent(Errno::NOSYS));
        assert!(!means_absent(Errno::MFILE), "running out of descriptors is not absence");
        assert!(!means_absent(Errno::ACCESS));
    }
}
