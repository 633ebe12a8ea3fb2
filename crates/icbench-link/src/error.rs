//! The one error type of every link operation.

use rustix::io::Errno;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LinkError {
    /// The other end closed the link or died.
    #[error("peer closed the link")]
    PeerClosed,
    /// The end's abort flag was set (timeout, interrupt or teardown).
    #[error("aborted")]
    Aborted,
    /// A message of the wrong length arrived on a message link.
    #[error("framing error: {0}")]
    Framing(String),
    /// The message does not fit the link.
    #[error("message of {size} B exceeds the link's maximum of {max} B")]
    TooLarge { size: usize, max: usize },
    /// A system call failed.
    #[error("{op} failed: {errno}")]
    Sys { op: &'static str, errno: Errno },
    /// The device refused what was asked of it (EMSGSIZE above its MTU …);
    /// the text says what to change.
    #[error("{0}")]
    Device(String),
    /// The link could not be set up (bad handoff text, resource limits …).
    #[error("{0}")]
    Setup(String),
}

impl LinkError {
    pub(crate) fn sys(op: &'static str, errno: Errno) -> LinkError {
        match errno {
            Errno::PIPE | Errno::CONNRESET | Errno::NOTCONN => LinkError::PeerClosed,
            _ => LinkError::Sys { op, errno },
        }
    }
}
