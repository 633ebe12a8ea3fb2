//! NETLINK_USERSOCK unicast between two sockets (netlink(7)): the user-space
//! half of the 001 reference design, with the netlink header each message
//! really carries. Each message is one `struct nlmsghdr` followed by the
//! payload, sent and received with two iovecs so the payload is not copied
//! into a staging buffer.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use rustix::io::Errno;

use crate::fdio::{check, fd_param, owned_fd};
use crate::{Abort, Handoff, Link, LinkCaps, LinkError};

/// Size of `struct nlmsghdr`.
const NLMSG_HDRLEN: usize = 16;
/// A message type above the reserved control types (NLMSG_MIN_TYPE = 0x10).
const ICB_NLMSG_TYPE: u16 = 0x10;
/// netlink_sendmsg refuses messages above the send buffer less 32 bytes
/// (net/netlink/af_netlink.c); 64 KiB payloads fit the default buffer.
const NETLINK_MAX: usize = 64 << 10;

struct NetlinkLink {
    fd: OwnedFd,
    own_port: u32,
    dst_port: u32,
    seq: u32,
    abort: Abort,
}

fn errno() -> Errno {
    Errno::from_raw_os_error(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
}

fn sockaddr(port: u32) -> libc::sockaddr_nl {
    // SAFETY: sockaddr_nl is plain old data.
    let mut a: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
    a.nl_family = libc::AF_NETLINK as u16;
    a.nl_pid = port;
    a
}

impl Link for NetlinkLink {
    fn caps(&self) -> LinkCaps {
        LinkCaps {
            max_msg_bytes: NETLINK_MAX,
            message_boundaries: true,
            zero_copy: false,
            shared_clock: true,
        }
    }

    #[inline]
    fn send(&mut self, msg: &[u8]) -> Result<(), LinkError> {
        if msg.len() > NETLINK_MAX {
            return Err(LinkError::TooLarge { size: msg.len(), max: NETLINK_MAX });
        }
        self.seq = self.seq.wrapping_add(1);
        send(&self.fd, self.own_port, self.dst_port, self.seq, msg, &self.abort)
    }

    #[inline]
    fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError> {
        let n = recv(&self.fd, buf, &self.abort)?;
        if n != len {
            return Err(LinkError::Framing(format!(
                "received a netlink message of {n} B payload, expected {len} B"
            )));
        }
        Ok(())
    }
}

/// Sends one message to port `dst`: a `struct nlmsghdr` and the payload,
/// in two iovecs so the payload is not copied into a staging buffer. Used
/// by the link and by its bare loop (`reference`).
#[inline]
pub(crate) fn send(
    fd: &OwnedFd,
    own: u32,
    dst: u32,
    seq: u32,
    msg: &[u8],
    abort: &Abort,
) -> Result<(), LinkError> {
    let mut hdr = [0u8; NLMSG_HDRLEN];
    hdr[0..4].copy_from_slice(&((NLMSG_HDRLEN + msg.len()) as u32).to_ne_bytes());
    hdr[4..6].copy_from_slice(&ICB_NLMSG_TYPE.to_ne_bytes());
    hdr[8..12].copy_from_slice(&seq.to_ne_bytes());
    hdr[12..16].copy_from_slice(&own.to_ne_bytes());
    let mut iov = [
        libc::iovec { iov_base: hdr.as_mut_ptr().cast(), iov_len: NLMSG_HDRLEN },
        libc::iovec { iov_base: msg.as_ptr() as *mut _, iov_len: msg.len() },
    ];
    let mut to = sockaddr(dst);
    // SAFETY: msghdr is plain old data; every pointer in it outlives the call.
    let mut mh: libc::msghdr = unsafe { std::mem::zeroed() };
    mh.msg_name = (&mut to as *mut libc::sockaddr_nl).cast();
    mh.msg_namelen = std::mem::size_of::<libc::sockaddr_nl>() as u32;
    mh.msg_iov = iov.as_mut_ptr();
    mh.msg_iovlen = 2;
    loop {
        // SAFETY: see above.
        if unsafe { libc::sendmsg(fd.as_raw_fd(), &mh, 0) } >= 0 {
            return Ok(());
        }
        match errno() {
            Errno::INTR => check(abort)?,
            // The destination port no longer exists: the peer is gone.
            Errno::CONNREFUSED => return Err(LinkError::PeerClosed),
            e => return Err(LinkError::sys("sendmsg", e)),
        }
    }
}

/// Receives one message into `buf` and returns its payload length (the
/// real one, MSG_TRUNC: a longer message than `buf` is seen, not cut
/// silently); checks the header's length against what arrived.
#[inline]
pub(crate) fn recv(fd: &OwnedFd, buf: &mut [u8], abort: &Abort) -> Result<usize, LinkError> {
    let mut hdr = [0u8; NLMSG_HDRLEN];
    let mut iov = [
        libc::iovec { iov_base: hdr.as_mut_ptr().cast(), iov_len: NLMSG_HDRLEN },
        libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() },
    ];
    // SAFETY: msghdr is plain old data; the iovecs outlive the call.
    let mut mh: libc::msghdr = unsafe { std::mem::zeroed() };
    mh.msg_iov = iov.as_mut_ptr();
    mh.msg_iovlen = 2;
    loop {
        // SAFETY: see above.
        let r = unsafe { libc::recvmsg(fd.as_raw_fd(), &mut mh, libc::MSG_TRUNC) };
        if r >= 0 {
            let n = r as usize;
            let nl_len = u32::from_ne_bytes(hdr[0..4].try_into().expect("4 bytes")) as usize;
            if n >= NLMSG_HDRLEN && nl_len != n {
                return Err(LinkError::Framing(format!(
                    "nlmsg_len {nl_len} does not match the {n} B received"
                )));
            }
            return Ok(n.saturating_sub(NLMSG_HDRLEN));
        }
        match errno() {
            Errno::INTR => check(abort)?,
            e => return Err(LinkError::sys("recvmsg", e)),
        }
    }
}

/// A bound NETLINK_USERSOCK socket and the port id the kernel gave it.
fn socket() -> Result<(OwnedFd, u32), LinkError> {
    let fail = |op: &str| {
        LinkError::Setup(format!(
            "netlink {op} failed: {} (does this kernel have netlink?)",
            errno()
        ))
    };
    // SAFETY: plain socket(2) call.
    let fd = unsafe {
        libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::NETLINK_USERSOCK)
    };
    if fd < 0 {
        return Err(fail("socket"));
    }
    // SAFETY: a new descriptor nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let addr = sockaddr(0);
    let size = std::mem::size_of::<libc::sockaddr_nl>() as u32;
    // SAFETY: addr is a valid sockaddr_nl of `size` bytes.
    if unsafe { libc::bind(fd.as_raw_fd(), (&addr as *const libc::sockaddr_nl).cast(), size) } < 0 {
        return Err(fail("bind"));
    }
    let mut got = sockaddr(0);
    let mut len = size;
    // SAFETY: got has room for a sockaddr_nl.
    let r = unsafe {
        libc::getsockname(fd.as_raw_fd(), (&mut got as *mut libc::sockaddr_nl).cast(), &mut len)
    };
    if r < 0 {
        return Err(fail("getsockname"));
    }
    Ok((fd, got.nl_pid))
}

/// The host's socket, its port and the peer's, and the peer's handoff, as
/// the link and its bare loop (`reference`) make them.
pub(crate) struct Ends {
    pub(crate) fd: OwnedFd,
    pub(crate) own_port: u32,
    pub(crate) dst_port: u32,
    pub(crate) handoff: Handoff,
}

pub(crate) fn ends() -> Result<Ends, LinkError> {
    let (a, a_port) = socket()?;
    let (b, b_port) = socket()?;
    let text = format!("netlink:fd={},own={b_port},dst={a_port}", b.as_raw_fd());
    Ok(Ends { fd: a, own_port: a_port, dst_port: b_port, handoff: Handoff::local(text, vec![b]) })
}

pub(crate) fn open(abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let Ends { fd, own_port, dst_port, handoff } = ends()?;
    Ok((Box::new(NetlinkLink { fd, own_port, dst_port, seq: 0, abort }), handoff))
}

pub(crate) fn attach(text: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    Ok(Box::new(NetlinkLink {
        fd: owned_fd(text, "fd")?,
        own_port: fd_param(text, "own")? as u32,
        dst_port: fd_param(text, "dst")? as u32,
        seq: 0,
        abort,
    }))
}
