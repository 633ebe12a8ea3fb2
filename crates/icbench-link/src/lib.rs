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
mod roots;
mod spec;
mod sys;
mod sysfs;

pub mod buffers;
pub mod hint;
pub mod probe;
pub mod reference;
pub mod remoteproc;
pub mod rpmsg;

use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use error::LinkError;
pub use icbench_model::{LinkCaps, LinkCounters};
pub use roots::Roots;
pub use spec::{ADDR, KINDS, KindInfo, LinkSpec, SpecError, TEXT, parse_addr};
pub use sysfs::{SysfsError, read_small};

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
        copy::send_with(self, len, scratch, build)
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
        copy::recv_with(self, len, scratch, inspect)
    }

    /// Receives what has arrived, for protocols whose messages carry their own
    /// length (icb frames): on a byte stream at least one byte and at most
    /// `buf.len()`, on a message link one whole message. Returns the byte
    /// count, or 0 when `timeout` passed first (`None` waits, under the
    /// watchdog, like every other call). Links that only move messages of a
    /// length agreed in advance (shared memory, queues) do not offer it.
    fn recv_some(
        &mut self,
        _buf: &mut [u8],
        _timeout: Option<std::time::Duration>,
    ) -> Result<usize, LinkError> {
        Err(LinkError::Setup(
            "this link carries only messages of a length agreed in advance; \
             the icb, dimtass and raw protocols need a descriptor link (pty, tty, serial, unix, pipe, tcp, seqpacket)"
                .to_string(),
        ))
    }

    /// The largest piece a raw echo (`--protocol raw`) should send at once,
    /// when the link moves whole large messages better than small chunks
    /// (`sdb:` moves a buffer per message). Default: none, the protocol's
    /// own chunk.
    fn echo_chunk(&self) -> Option<usize> {
        None
    }

    /// Drops bytes that arrived and were not read (a stale reply of a failed
    /// cell, a boot banner) before a fresh start. Default: nothing to drop.
    fn discard_input(&mut self) {}

    /// Receives a message of `len` bytes and sends the same bytes back. A
    /// zero-copy link copies slot to slot; the default goes through `scratch`.
    fn echo(&mut self, len: usize, scratch: &mut [u8]) -> Result<(), LinkError> {
        copy::echo(self, len, scratch)
    }

    /// What the link has counted since it was opened (monotonic; the engine
    /// takes differences around the measured window). Default: nothing.
    fn counters(&self) -> LinkCounters {
        LinkCounters::default()
    }

    /// Tells the link whether several messages will be in flight (stream)
    /// or one at a time (ping-pong), for links whose best way to wait
    /// differs (rpmsg: a blocking write for one, O_NONBLOCK + poll for a
    /// window). Default: nothing to change.
    fn set_pipelined(&mut self, _pipelined: bool) -> Result<(), LinkError> {
        Ok(())
    }

    /// A check of the far side that the engine's watchdog may run from its
    /// own thread while a cell is measured (e.g. the remoteproc state: a
    /// remote core that crashed will never answer). Default: none.
    fn health(&self) -> Option<Arc<dyn Health>> {
        None
    }

    /// When the last call did not finish (it was aborted), where it was
    /// blocked, in words for a failure reason (e.g. the kernel's TX wait).
    /// Default: unknown.
    fn stalled_in(&self) -> Option<String> {
        None
    }

    /// The link's remote fills and checks whole buffers on command
    /// ([`buffers::RemoteBuffers`]: `sdb:`), for a stream in either
    /// direction with only descriptors on the link. Default: no such remote.
    fn remote_buffers(&mut self) -> Option<&mut dyn buffers::RemoteBuffers> {
        None
    }
}

/// A check the watchdog runs between looks at a cell's progress.
pub trait Health: Send + Sync + std::fmt::Debug {
    /// `Err(reason)` when the far side can no longer answer: one line,
    /// naming what was seen (e.g. "remoteproc0 (m4): state is 'crashed'").
    fn check(&self) -> Result<(), String>;
}

/// Lines about what a link reaches, for the run's notes (e.g. the remote
/// core's firmware and state). Empty for local links. Reads only; opens
/// nothing.
pub fn notes(spec: &LinkSpec) -> Vec<String> {
    sys::notes(spec, &Roots::current())
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
    /// A device path a foreign peer (e.g. `firmware/build/icb-peer --path
    /// {path}`) can open to be the peer end: the pty's slave.
    pub peer_path: Option<String>,
    /// The link ends at a device whose other side is not ours to start
    /// (`tty:`, `serial:`): the peer is whatever answers there.
    pub remote: bool,
}

impl Handoff {
    /// The peer end of a local link: descriptors and the text naming them.
    pub fn local(text: String, fds: Vec<OwnedFd>) -> Handoff {
        Handoff { text, fds, peer_path: None, remote: false }
    }
}

/// Opens a link: sets up its resources and returns the host end and the
/// handoff for the peer end.
pub fn open(spec: &LinkSpec, abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    sys::open(spec, abort, &Roots::current())
}

/// [`open`] with the sysfs and /dev roots given, rather than the process's
/// (tests build fake trees in temporary directories).
pub fn open_in(
    spec: &LinkSpec,
    abort: Abort,
    roots: &Roots,
) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    sys::open(spec, abort, roots)
}

/// Rebuilds the peer end from a handoff text, in the process that inherited
/// the descriptors (or in the process that opened the link, for a thread
/// peer, while the [`Handoff`] is still alive).
pub fn attach(text: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    sys::attach(text, abort)
}

/// The copying ways to build, inspect and echo a message: the [`Link`]
/// defaults, and what a zero-copy link falls back to when it copies.
pub(crate) mod copy {
    use crate::{Link, LinkError};

    /// Builds in `scratch`, then sends.
    pub(crate) fn send_with<L: Link + ?Sized>(
        link: &mut L,
        len: usize,
        scratch: &mut [u8],
        build: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError> {
        build(&mut scratch[..len]);
        link.send(&scratch[..len])
    }

    /// Receives into `scratch`, then inspects.
    pub(crate) fn recv_with<L: Link + ?Sized>(
        link: &mut L,
        len: usize,
        scratch: &mut [u8],
        inspect: &mut dyn FnMut(&[u8]),
    ) -> Result<(), LinkError> {
        link.recv(scratch, len)?;
        inspect(&scratch[..len]);
        Ok(())
    }

    /// Receives into `scratch`, then sends the same bytes back.
    pub(crate) fn echo<L: Link + ?Sized>(
        link: &mut L,
        len: usize,
        scratch: &mut [u8],
    ) -> Result<(), LinkError> {
        link.recv(scratch, len)?;
        link.send(&scratch[..len])
    }
}
