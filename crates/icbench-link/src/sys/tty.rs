//! Remote links over a terminal device: `tty:PATH` (a `/dev/ttyRPMSGn`, a
//! pty another program holds the master of, any character device) and
//! `serial:PATH?baud=N` (a UART to an MCU board, as in the 002 paper's
//! PC-to-board setup).
//!
//! The host opens the device, puts it in raw mode (termios(3), the fields
//! `cfmakeraw` clears: no echo, no line editing, no CR/LF translation,
//! 8 bits, `VMIN=1 VTIME=0`) and drops whatever was waiting in its input
//! queue. The peer is whatever answers on the other side: there is nothing to
//! hand off (`Handoff::remote`). Moving bytes is the descriptor link's plain
//! read/write (`stream.rs`): a read takes what the device has, up to the
//! caller's buffer, and a write is retried until the device took it all, so
//! each transfer is as large as the device accepts.
//!
//! rustix's termios (already a dependency) does the setup; serial2 would add
//! nothing over it for a descriptor we then read and write ourselves.

use rustix::fs::{Mode, OFlags};
use rustix::termios::{OptionalActions, QueueSelector, tcflush, tcgetattr, tcsetattr};

use super::stream::{host, stream_caps};
use crate::{Abort, Handoff, Link, LinkCaps, LinkError, LinkSpec};

fn caps() -> LinkCaps {
    // A device on the far side of a wire or an emulator shares no clock.
    LinkCaps { shared_clock: false, ..stream_caps() }
}

pub(crate) fn open(spec: &LinkSpec, abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let path = spec.path.as_deref().unwrap_or_default();
    let fd = rustix::fs::open(path, OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC, Mode::empty())
        .map_err(|e| LinkError::Setup(format!("cannot open {path}: {e}")))?;
    let setup = |op: &str| {
        let op = format!("{op} on {path}");
        move |e: rustix::io::Errno| LinkError::Setup(format!("{op} failed: {e}"))
    };
    let mut t = tcgetattr(&fd).map_err(setup("tcgetattr (is it a terminal?)"))?;
    t.make_raw();
    if let Some(baud) = spec.param("baud") {
        let baud: u32 =
            baud.parse().map_err(|_| LinkError::Setup(format!("baud={baud} is not a number")))?;
        t.set_speed(baud).map_err(setup(&format!("setting {baud} baud")))?;
    }
    tcsetattr(&fd, OptionalActions::Now, &t).map_err(setup("tcsetattr"))?;
    tcflush(&fd, QueueSelector::IFlush).map_err(setup("tcflush"))?;
    let handoff = Handoff { text: String::new(), fds: Vec::new(), peer_path: None, remote: true };
    Ok((host(fd, None, false, caps(), abort), handoff))
}
