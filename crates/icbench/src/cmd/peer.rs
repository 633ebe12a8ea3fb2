//! `icbench __peer`: the peer end of a local link, in its own process (or,
//! with `--bare SIZE`, the peer of the bare loop a link is compared with).

use std::process::ExitCode;

use anyhow::Result;
use icbench_engine::{Fault, serve_bare_process_peer, serve_process_peer};

use crate::cli::PeerArgs;

pub fn peer(a: &PeerArgs) -> Result<ExitCode> {
    // Ctrl-C in the terminal is for icbench to handle; it tears the peer down.
    // SAFETY: ignoring a signal has no preconditions.
    unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
    if let Some(size) = a.bare {
        serve_bare_process_peer(&a.handoff, a.cpu, a.fifo, size).map_err(anyhow::Error::msg)?;
        return Ok(ExitCode::SUCCESS);
    }
    let fault = a.fault.as_deref().map(Fault::parse).transpose().map_err(anyhow::Error::msg)?;
    serve_process_peer(&a.handoff, a.cpu, a.fifo, fault).map_err(anyhow::Error::msg)?;
    Ok(ExitCode::SUCCESS)
}
