//! The Linux rpmsg links: `rpmsg:/dev/rpmsgK` (an existing endpoint
//! device) and `rpmsg-ctrl:/dev/rpmsg_ctrlN?name=…&src=…&dst=…` (an
//! endpoint created for the session). Both move bytes with [`RpmsgLink`];
//! they differ in how the descriptor is obtained.
//!
//! The peer of a real device is the remote core, so the handoff carries no
//! descriptor (text `remote:…`) and there is no local peer to attach. With
//! `emulate=seqpacket` the device is replaced by a seqpacket pair whose far
//! end goes to a local peer — the stand-in for tests and CI, running the
//! same [`RpmsgLink`] code on both ends.

mod chardev;
mod ctrl;
mod uapi;

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::sync::Arc;

use rustix::net::{AddressFamily, SocketFlags, SocketType, sockopt};

use self::chardev::{DEFAULT_MTU, IoMode, RpmsgLink, open_device};
use crate::fdio::{fd_param, owned_fd};
use crate::remoteproc::{self, Remoteproc, StateHealth};
use crate::{Abort, Handoff, Health, Link, LinkError, LinkSpec, Roots, parse_addr};

/// Handoff text of a link whose peer is a remote core: no local peer.
pub(crate) const REMOTE_HANDOFF: &str = "remote";

fn number(spec: &LinkSpec, key: &str) -> Option<usize> {
    spec.param(key).and_then(|v| v.parse().ok())
}

/// A seqpacket pair, the first end's send buffer set when asked.
pub(crate) fn seqpacket_pair(sndbuf: Option<usize>) -> Result<(OwnedFd, OwnedFd), LinkError> {
    let (a, b) = rustix::net::socketpair(
        AddressFamily::UNIX,
        SocketType::SEQPACKET,
        SocketFlags::CLOEXEC,
        None,
    )
    .map_err(|e| LinkError::Setup(format!("socketpair failed: {e}")))?;
    if let Some(n) = sndbuf {
        sockopt::set_socket_send_buffer_size(&a, n)
            .map_err(|e| LinkError::Setup(format!("SO_SNDBUF {n}: {e}")))?;
    }
    Ok((a, b))
}

fn emulated(spec: &LinkSpec) -> bool {
    spec.param("emulate") == Some("seqpacket")
}

fn emu_handoff(peer: OwnedFd, mtu: usize) -> Handoff {
    Handoff::local(format!("rpmsg-emu:fd={},mtu={mtu}", peer.as_raw_fd()), vec![peer])
}

fn remote_handoff(spec: &LinkSpec) -> Handoff {
    Handoff {
        text: format!("{REMOTE_HANDOFF}:{spec}"),
        fds: Vec::new(),
        peer_path: None,
        remote: true,
    }
}

/// The remote processor behind a link: named by `remote=`, or the one above
/// the device in sysfs.
fn remote_of(
    spec: &LinkSpec,
    roots: &Roots,
    sysfs_dev: Option<&Path>,
) -> Result<Option<Remoteproc>, LinkError> {
    if let Some(which) = spec.param("remote") {
        return remoteproc::find(roots, which)
            .map(Some)
            .map_err(|e| LinkError::Setup(e.to_string()));
    }
    Ok(sysfs_dev.and_then(remoteproc::owning))
}

/// The health check for the watchdog, after checking the core once now: a
/// core that is already down fails the cell before anything is sent.
fn health_of(remote: Option<Remoteproc>) -> Result<Option<Arc<dyn Health>>, LinkError> {
    let Some(r) = remote else { return Ok(None) };
    let h = StateHealth::new(&r);
    h.check().map_err(LinkError::Setup)?;
    Ok(Some(Arc::new(h)))
}

fn device_path(spec: &LinkSpec, default: &str, roots: &Roots) -> String {
    spec.path.clone().unwrap_or_else(|| roots.dev.join(default).to_string_lossy().into_owned())
}

fn missing_path(spec: &LinkSpec, example: &str) -> LinkError {
    LinkError::Setup(format!("link '{}' needs a device: write {}:{example}", spec.kind, spec.kind))
}

/// `rpmsg:/dev/rpmsgK`.
pub(crate) fn open(
    spec: &LinkSpec,
    abort: Abort,
    roots: &Roots,
) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let mtu = number(spec, "mtu").unwrap_or(DEFAULT_MTU);
    let mode = IoMode::parse(spec.param("io"));
    if emulated(spec) {
        // A stand-in has no device above it in sysfs; remote= still names a
        // remoteproc to watch (a fake one, in tests).
        let health = health_of(remote_of(spec, roots, None)?)?;
        let (a, b) = seqpacket_pair(number(spec, "sndbuf"))?;
        let link = RpmsgLink::new(a, mtu, mode, abort)?.with_health(health);
        return Ok((Box::new(link), emu_handoff(b, mtu)));
    }
    let path = spec.path.as_deref().ok_or_else(|| missing_path(spec, "/dev/rpmsgN"))?;
    let remote = remote_of(spec, roots, Some(&ctrl::sysfs_of(roots, Path::new(path))))?;
    let health = health_of(remote)?;
    let fd = open_device(path)?;
    let link = RpmsgLink::new(fd, mtu, mode, abort)?.with_health(health);
    Ok((Box::new(link), remote_handoff(spec)))
}

/// `rpmsg-ctrl:/dev/rpmsg_ctrlN?name=…&src=…&dst=…`.
pub(crate) fn open_ctrl(
    spec: &LinkSpec,
    abort: Abort,
    roots: &Roots,
) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let mtu = number(spec, "mtu").unwrap_or(DEFAULT_MTU);
    let mode = IoMode::parse(spec.param("io"));
    let dst = spec.param("dst").and_then(parse_addr).ok_or_else(|| {
        LinkError::Setup(format!(
            "link '{spec}' needs dst=ADDR, the remote endpoint's address (`icbench links` lists the channels with theirs)"
        ))
    })?;
    let src = spec.param("src").and_then(parse_addr).unwrap_or(uapi::ADDR_ANY);
    let info = uapi::EndpointInfo::new(spec.param("name").unwrap_or("icbench"), src, dst)
        .map_err(LinkError::Setup)?;
    let ctrl_path = if emulated(spec) {
        device_path(spec, "rpmsg_ctrl0", roots)
    } else {
        spec.path.clone().ok_or_else(|| missing_path(spec, "/dev/rpmsg_ctrlN"))?
    };
    let remote = if emulated(spec) {
        remote_of(spec, roots, None)?
    } else {
        remote_of(spec, roots, Some(&ctrl::sysfs_of(roots, Path::new(&ctrl_path))))?
    };
    let health = health_of(remote)?;
    let mut ops: Box<dyn ctrl::EptOps> = if emulated(spec) {
        let dev_dir = Path::new(&ctrl_path).parent().unwrap_or(Path::new("/dev")).to_path_buf();
        Box::new(ctrl::EmulatedEpt::new(roots, &dev_dir, number(spec, "sndbuf"))?)
    } else {
        Box::new(ctrl::KernelEpt)
    };
    let created = ctrl::create(roots, &ctrl_path, &info, ops.as_mut())?;
    let handoff = match created.peer {
        Some(peer) => emu_handoff(peer, mtu),
        None => remote_handoff(spec),
    };
    // From here on the link owns the endpoint: dropping it destroys it.
    let link = RpmsgLink::new(created.fd, mtu, mode, abort)?.with_health(health).with_endpoint(ops);
    Ok((Box::new(link), handoff))
}

/// The peer end of a stand-in: `fd=N,mtu=M`.
pub(crate) fn attach(text: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    let mtu = usize::try_from(fd_param(text, "mtu")?)
        .map_err(|_| LinkError::Setup(format!("bad mtu in '{text}'")))?;
    Ok(Box::new(RpmsgLink::new(owned_fd(text, "fd")?, mtu, IoMode::Block, abort)?))
}

/// Lines for the run's notes: the remote core and its firmware, or that
/// the link is a stand-in.
pub(crate) fn notes(spec: &LinkSpec, roots: &Roots) -> Vec<String> {
    if emulated(spec) {
        return vec![format!(
            "{spec}: emulated over a unix seqpacket pair with a local peer (no rpmsg device, no remote core)"
        )];
    }
    let Some(path) = spec.path.as_deref() else { return Vec::new() };
    match remote_of(spec, roots, Some(&ctrl::sysfs_of(roots, Path::new(path)))) {
        Ok(Some(r)) => vec![format!("{spec}: {}", r.note())],
        Ok(None) => vec![format!(
            "{spec}: no remoteproc found above {path} in sysfs (name one with remote=)"
        )],
        Err(e) => vec![format!("{spec}: {e}")],
    }
}
