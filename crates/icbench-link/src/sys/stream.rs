//! Links over plain descriptors: pipe, unix stream, tcp, pty (byte streams)
//! and unix seqpacket (messages). They differ only in how the pair of
//! descriptors is made and in their capabilities; moving bytes is the same
//! read/write, so they share one type.

use std::os::fd::{AsFd, OwnedFd};

use rustix::io::Errno;
use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};

use crate::fdio::{check, owned_fd, read_exact, write_all};
use crate::{Abort, Handoff, Link, LinkCaps, LinkError};

/// A byte stream carries any size; this bound only keeps buffers sane.
const STREAM_MAX: usize = 16 << 20;
/// Largest seqpacket message: the kernel refuses messages above the socket's
/// send buffer less overhead (net/unix/af_unix.c, unix_dgram_sendmsg); the
/// default buffer (net.core.wmem_default, 208 KiB) allows this with room.
const SEQPACKET_MAX: usize = 64 << 10;

pub(crate) fn stream_caps() -> LinkCaps {
    LinkCaps {
        max_msg_bytes: STREAM_MAX,
        message_boundaries: false,
        zero_copy: false,
        shared_clock: true,
    }
}

/// One end over one descriptor (sockets, pty) or two (pipes).
struct FdLink {
    rx: OwnedFd,
    tx: Option<OwnedFd>,
    packets: bool,
    caps: LinkCaps,
    abort: Abort,
    /// Byte streams only: split each write at this size and back off on a
    /// full ring (`/dev/ttyRPMSGn`, see `rpmsg_tty.rs`).
    tx_chunk: Option<usize>,
    counters: crate::LinkCounters,
}

impl FdLink {
    fn tx(&self) -> impl AsFd + '_ {
        self.tx.as_ref().unwrap_or(&self.rx)
    }
}

impl Link for FdLink {
    fn caps(&self) -> LinkCaps {
        self.caps
    }

    #[inline]
    fn send(&mut self, msg: &[u8]) -> Result<(), LinkError> {
        if self.packets {
            if msg.len() > self.caps.max_msg_bytes {
                return Err(LinkError::TooLarge { size: msg.len(), max: self.caps.max_msg_bytes });
            }
            loop {
                match rustix::net::send(&self.rx, msg, SendFlags::NOSIGNAL) {
                    Ok(_) => return Ok(()),
                    Err(Errno::INTR) => check(&self.abort)?,
                    Err(e) => return Err(LinkError::sys("send", e)),
                }
            }
        }
        match self.tx_chunk {
            Some(mtu) => {
                let tx = self.tx.as_ref().unwrap_or(&self.rx);
                super::rpmsg_tty::write_chunked(tx, msg, mtu, &mut self.counters, &self.abort)
            }
            None => write_all(self.tx(), msg, &self.abort),
        }
    }

    fn counters(&self) -> crate::LinkCounters {
        self.counters
    }

    #[inline]
    fn recv_some(
        &mut self,
        buf: &mut [u8],
        timeout: Option<std::time::Duration>,
    ) -> Result<usize, LinkError> {
        if let Some(t) = timeout
            && !readable(&self.rx, t, &self.abort)?
        {
            return Ok(0);
        }
        loop {
            let got = if self.packets {
                rustix::net::recv(&self.rx, &mut buf[..], RecvFlags::TRUNC).map(|(_, n)| n)
            } else {
                rustix::io::read(&self.rx, &mut buf[..])
            };
            match got {
                Ok(0) => return Err(LinkError::PeerClosed),
                Ok(n) if n > buf.len() => {
                    return Err(LinkError::Framing(format!(
                        "received a message of {n} B, larger than the {} B buffer",
                        buf.len()
                    )));
                }
                Ok(n) => return Ok(n),
                Err(Errno::INTR) => check(&self.abort)?,
                Err(Errno::IO) => return Err(LinkError::PeerClosed),
                Err(e) => return Err(LinkError::sys("read", e)),
            }
        }
    }

    fn discard_input(&mut self) {
        let mut sink = [0u8; 4096];
        // Bounded: a peer that never stops talking cannot hold us here.
        for _ in 0..1024 {
            match readable(&self.rx, std::time::Duration::ZERO, &self.abort) {
                Ok(true) => {}
                _ => return,
            }
            match rustix::io::read(&self.rx, &mut sink) {
                Ok(n) if n > 0 => {}
                _ => return,
            }
        }
    }

    #[inline]
    fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError> {
        if !self.packets {
            return read_exact(&self.rx, &mut buf[..len], &self.abort);
        }
        loop {
            // MSG_TRUNC makes the kernel return the message's real length,
            // so a longer message than expected is seen, not cut silently.
            match rustix::net::recv(&self.rx, &mut buf[..], RecvFlags::TRUNC) {
                Ok((_, 0)) => return Err(LinkError::PeerClosed),
                Ok((_, n)) if n == len => return Ok(()),
                Ok((_, n)) => {
                    return Err(LinkError::Framing(format!(
                        "received a message of {n} B, expected {len} B"
                    )));
                }
                Err(Errno::INTR) => check(&self.abort)?,
                Err(e) => return Err(LinkError::sys("recv", e)),
            }
        }
    }
}

/// Waits up to `timeout` for `fd` to be readable (poll(2)).
pub(crate) fn readable(
    fd: impl AsFd,
    timeout: std::time::Duration,
    abort: &Abort,
) -> Result<bool, LinkError> {
    use rustix::event::{PollFd, PollFlags, poll};
    let ts = rustix::time::Timespec {
        tv_sec: timeout.as_secs() as i64,
        tv_nsec: i64::from(timeout.subsec_nanos()),
    };
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    match poll(&mut fds, Some(&ts)) {
        Ok(n) => Ok(n > 0),
        Err(Errno::INTR) => check(abort).map(|()| false),
        Err(e) => Err(LinkError::sys("poll", e)),
    }
}

fn handoff(kind: &str, rx: OwnedFd, tx: Option<OwnedFd>) -> Handoff {
    use std::os::fd::AsRawFd;
    let text = match &tx {
        Some(tx) => format!("{kind}:r={},w={}", rx.as_raw_fd(), tx.as_raw_fd()),
        None => format!("{kind}:fd={}", rx.as_raw_fd()),
    };
    Handoff::local(text, tx.into_iter().chain(Some(rx)).collect())
}

pub(crate) fn host(
    rx: OwnedFd,
    tx: Option<OwnedFd>,
    packets: bool,
    caps: LinkCaps,
    abort: Abort,
) -> Box<dyn Link> {
    Box::new(FdLink { rx, tx, packets, caps, abort, tx_chunk: None, counters: Default::default() })
}

/// A byte-stream end whose writes go out in pieces of at most `mtu` bytes,
/// counting and backing off when the device refuses one for want of a TX
/// buffer (`/dev/ttyRPMSGn`).
pub(crate) fn chunked_host(fd: OwnedFd, caps: LinkCaps, mtu: usize, abort: Abort) -> Box<dyn Link> {
    Box::new(FdLink {
        rx: fd,
        tx: None,
        packets: false,
        caps,
        abort,
        tx_chunk: Some(mtu),
        counters: Default::default(),
    })
}

fn setup(op: &'static str) -> impl Fn(Errno) -> LinkError {
    move |e| LinkError::Setup(format!("{op} failed: {e}"))
}

/// The descriptors a link of this kind is made of: the host's end (and its
/// write end, for pipes) and the peer's handoff. The links and the bare
/// loops they are compared with (`reference`) both make them here, so the
/// two are made alike.
pub(crate) struct Ends {
    pub(crate) rx: OwnedFd,
    pub(crate) tx: Option<OwnedFd>,
    pub(crate) handoff: Handoff,
}

/// [`Ends`] of `pipe`, `unix`, `seqpacket`, `tcp` or `pty`.
pub(crate) fn ends(kind: &str) -> Result<Ends, LinkError> {
    match kind {
        "pipe" => {
            use rustix::pipe::{PipeFlags, pipe_with};
            let (down_r, down_w) = pipe_with(PipeFlags::CLOEXEC).map_err(setup("pipe"))?;
            let (up_r, up_w) = pipe_with(PipeFlags::CLOEXEC).map_err(setup("pipe"))?;
            Ok(Ends { rx: up_r, tx: Some(down_w), handoff: handoff("pipe", down_r, Some(up_w)) })
        }
        "unix" | "seqpacket" => {
            let t = if kind == "unix" { SocketType::STREAM } else { SocketType::SEQPACKET };
            let (a, b) = socketpair(t)?;
            Ok(Ends { rx: a, tx: None, handoff: handoff(kind, b, None) })
        }
        "tcp" => tcp_ends(),
        "pty" => pty_ends(),
        _ => Err(LinkError::Setup(format!("no descriptor pair for link kind '{kind}'"))),
    }
}

fn socketpair(kind: SocketType) -> Result<(OwnedFd, OwnedFd), LinkError> {
    rustix::net::socketpair(AddressFamily::UNIX, kind, SocketFlags::CLOEXEC, None)
        .map_err(setup("socketpair"))
}

fn tcp_ends() -> Result<Ends, LinkError> {
    use std::net::{Ipv4Addr, TcpListener, TcpStream};
    let io = |op: &'static str| move |e: std::io::Error| LinkError::Setup(format!("{op}: {e}"));
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(io("tcp bind"))?;
    let addr = listener.local_addr().map_err(io("tcp getsockname"))?;
    let a = TcpStream::connect(addr).map_err(io("tcp connect"))?;
    let (b, _) = listener.accept().map_err(io("tcp accept"))?;
    for s in [&a, &b] {
        s.set_nodelay(true).map_err(io("TCP_NODELAY"))?;
    }
    Ok(Ends { rx: a.into(), tx: None, handoff: handoff("tcp", b.into(), None) })
}

fn pty_ends() -> Result<Ends, LinkError> {
    use rustix::fs::{Mode, OFlags};
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)
        .map_err(setup("posix_openpt"))?;
    grantpt(&master).map_err(setup("grantpt"))?;
    unlockpt(&master).map_err(setup("unlockpt"))?;
    let name = ptsname(&master, Vec::new()).map_err(setup("ptsname"))?;
    let slave = rustix::fs::open(
        name.as_c_str(),
        OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(setup("open pty slave"))?;
    // Raw mode on the terminal: no echo, no line editing, no CR/LF
    // translation, 8-bit clean (termios(3), cfmakeraw).
    let mut t = rustix::termios::tcgetattr(&slave).map_err(setup("tcgetattr"))?;
    t.make_raw();
    rustix::termios::tcsetattr(&slave, rustix::termios::OptionalActions::Now, &t)
        .map_err(setup("tcsetattr"))?;
    let mut h = handoff("pty", slave, None);
    h.peer_path = Some(name.to_string_lossy().into_owned());
    Ok(Ends { rx: master, tx: None, handoff: h })
}

fn seqpacket_caps() -> LinkCaps {
    LinkCaps { max_msg_bytes: SEQPACKET_MAX, message_boundaries: true, ..stream_caps() }
}

/// Opens a link of one of the kinds of [`ends`].
pub(crate) fn open(kind: &str, abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let Ends { rx, tx, handoff } = ends(kind)?;
    let packets = kind == "seqpacket";
    let caps = if packets { seqpacket_caps() } else { stream_caps() };
    Ok((host(rx, tx, packets, caps, abort), handoff))
}

pub(crate) fn attach(kind: &str, text: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    match kind {
        "pipe" => {
            let rx = owned_fd(text, "r")?;
            let tx = owned_fd(text, "w")?;
            Ok(host(rx, Some(tx), false, stream_caps(), abort))
        }
        "seqpacket" => Ok(host(owned_fd(text, "fd")?, None, true, seqpacket_caps(), abort)),
        _ => Ok(host(owned_fd(text, "fd")?, None, false, stream_caps(), abort)),
    }
}
