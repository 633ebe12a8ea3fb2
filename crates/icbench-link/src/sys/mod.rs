//! The links, one module each (local ones and the remote `tty`/`serial`), and the dispatch from a spec (host
//! end) or a handoff text (peer end) to them.

mod mq;
mod netlink;
mod nlbridge;
mod shm;
mod stream;
mod tty;

use crate::{Abort, Handoff, Link, LinkError, LinkSpec};

pub(crate) fn open(spec: &LinkSpec, abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    match spec.kind.as_str() {
        "pipe" => stream::open_pipe(abort),
        "unix" => stream::open_unix(abort),
        "tcp" => stream::open_tcp(abort),
        "pty" => stream::open_pty(abort),
        "seqpacket" => stream::open_seqpacket(abort),
        "mq" => mq::open(abort),
        "netlink" => netlink::open(abort),
        "netlink-bridge" => nlbridge::open(abort),
        "shm" => shm::open(spec, abort),
        "tty" | "serial" => tty::open(spec, abort),
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
        _ => Err(LinkError::Setup(format!("unknown handoff '{text}'"))),
    }
}
