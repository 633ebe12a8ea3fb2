//! Links: every way the host end and a peer exchange messages.
//!
//! This crate owns what is particular to each link — how it is set up, how
//! its peer end is handed to another process or thread, how bytes move, and
//! what it can carry ([`LinkCaps`]). Nothing outside it asks which link it is
//! (shared/design/ARCHITECTURE.md, rule 1): the engine sees a [`Link`] and its
//! capabilities.
//!
//! A link is opened from a spec string ([`LinkSpec`]) by [`open`], which
//! returns the host end and a [`Handoff`]: the file descriptors and a short
//! text that the peer end is rebuilt from, by [`attach`], in a child process
//! (the descriptors are inherited) or in a thread of this process.

mod error;
mod fdio;
mod spec;
mod sys;

pub mod probe;
pub mod reference;

use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use error::LinkError;
pub use icbench_model::LinkCaps;
pub use spec::{KINDS, LinkSpec, SpecError};

/// Set by the watchdog (or on teardown) to make a blocked or spinning link
/// call return [`LinkError::Aborted`]. Blocking system calls are woken by a
/// signal (see `icbench-engine`'s watchdog); spin and futex waits poll the
/// flag.
#[derive(Debug, Clone, Default)]
pub struct Abort(Arc<AtomicBool>);

impl Abort {
    pub fn new() -> Abort {
        Abort::default()
    }

    #[inline]
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn clear(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// One end of a link.
///
/// Messages are whole: `send` delivers all of `msg`, `recv` returns when
/// exactly `len` bytes have arrived. On a link with message boundaries one
/// `recv` reads one message and fails with [`LinkError::Framing`] when its
/// length is not `len`; on a byte stream it reads until `len` bytes are in.
///
/// Every call returns [`LinkError::Aborted`] soon after the end's [`Abort`]
/// is set, and [`LinkError::PeerClosed`] when the other end is gone and the
/// link can tell.
pub trait Link: Send {
    fn caps(&self) -> LinkCaps;

    /// Sends one message.
    fn send(&mut self, msg: &[u8]) -> Result<(), LinkError>;

    /// Receives one message of `len` bytes into `buf[..len]`. `buf` may be
    /// longer than `len`; a link that must receive into a buffer of its own
    /// size (a POSIX queue) may use the whole of it.
    fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError>;

    /// Sends a message of `len` bytes that `build` writes. A zero-copy link
    /// lets `build` write straight into the link's memory; the default builds
    /// in `scratch` and sends that.
    fn send_with(
        &mut self,
        len: usize,
        scratch: &mut [u8],
        build: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError> {
        build(&mut scratch[..len]);
        self.send(&scratch[..len])
    }

    /// Receives a message of `len` bytes and hands it to `inspect`. A
    /// zero-copy link shows the bytes where they lie in its memory; the
    /// default receives into `scratch`.
    fn recv_with(
        &mut self,
        len: usize,
        scratch: &mut [u8],
        inspect: &mut dyn FnMut(&[u8]),
    ) -> Result<(), LinkError> {
        self.recv(scratch, len)?;
        inspect(&scratch[..len]);
        Ok(())
    }

    /// Receives a message of `len` bytes and sends the same bytes back. A
    /// zero-copy link copies slot to slot; the default goes through `scratch`.
    fn echo(&mut self, len: usize, scratch: &mut [u8]) -> Result<(), LinkError> {
        self.recv(scratch, len)?;
        self.send(&scratch[..len])
    }
}

/// What the peer end is rebuilt from: descriptors it inherits and a text
/// naming them (e.g. `pipe:r=5,w=8`).
#[derive(Debug)]
pub struct Handoff {
    /// Passed to [`attach`] in the peer.
    pub text: String,
    /// Descriptors the peer end uses. A child process must inherit them at
    /// the same numbers; the host closes its copies once the peer is started.
    pub fds: Vec<OwnedFd>,
}

/// Opens a link: sets up its resources and returns the host end and the
/// handoff for the peer end.
pub fn open(spec: &LinkSpec, abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    sys::open(spec, abort)
}

/// Rebuilds the peer end from a handoff text, in the process that inherited
/// the descriptors (or in the process that opened the link, for a thread
/// peer, while the [`Handoff`] is still alive).
pub fn attach(text: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    sys::attach(text, abort)
}
