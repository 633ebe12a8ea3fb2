//! The links, one module each (local ones and the remote `tty`/`serial`), and the dispatch from a spec (host
//! end) or a handoff text (peer end) to them.

#[cfg(feature = "iceoryx2")]
mod iox;
pub(crate) mod mq;
pub(crate) mod netlink;
mod nlbridge;
mod rpmsg;
pub(crate) mod rpmsg_tty;
mod sdb;
pub(crate) mod shm;
pub(crate) mod stream;
mod tty;

use crate::{Abort, Handoff, Link, LinkError, LinkSpec, Roots};

pub(crate) fn open(
    spec: &LinkSpec,
    abort: Abort,
    roots: &Roots,
) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    match spec.kind.as_str() {
        "rpmsg" => rpmsg::open(spec, abort, roots),
        "rpmsg-ctrl" => rpmsg::open_ctrl(spec, abort, roots),
        kind @ ("pipe" | "unix" | "tcp" | "pty" | "seqpacket") => stream::open(kind, abort),
        "mq" => mq::open(abort),
        "netlink" => netlink::open(abort),
        "netlink-bridge" => nlbridge::open(spec, abort),
        "shm" => shm::open(spec, abort),
        #[cfg(feature = "iceoryx2")]
        "iceoryx2" => iox::open(spec, abort),
        #[cfg(not(feature = "iceoryx2"))]
        "iceoryx2" => Err(LinkError::Setup(
            "this icbench was built without the iceoryx2 feature: rebuild with default features"
                .to_string(),
        )),
        "tty" | "serial" => tty::open(spec, abort),
        "sdb" => sdb::open(spec, abort),
        other => Err(LinkError::Setup(format!("link '{other}' cannot be opened by this build"))),
    }
}

pub(crate) fn attach(text: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
    match kind {
        "pipe" | "unix" | "tcp" | "pty" | "seqpacket" => stream::attach(kind, rest, abort),
        "mq" => mq::attach(rest, abort),
        "netlink" => netlink::attach(rest, abort),
        "netlink-bridge" => nlbridge::attach(rest, abort),
        "shm" => shm::attach(rest, abort),
        #[cfg(feature = "iceoryx2")]
        "iceoryx2" => iox::attach(rest, abort),
        "rpmsg-emu" => rpmsg::attach(rest, abort),
        rpmsg::REMOTE_HANDOFF => Err(LinkError::Setup(format!(
            "the peer of {rest} is the remote core, not a local process: measure it with a remote protocol"
        ))),
        _ => Err(LinkError::Setup(format!("unknown handoff '{text}'"))),
    }
}

/// Notes about what a link reaches (the remote core behind an rpmsg link).
pub(crate) fn notes(spec: &LinkSpec, roots: &Roots) -> Vec<String> {
    match spec.kind.as_str() {
        "rpmsg" | "rpmsg-ctrl" => rpmsg::notes(spec, roots),
        _ => Vec::new(),
    }
}
