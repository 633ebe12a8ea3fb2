//! The measurement engine: it places both ends on their CPUs, starts the
//! peer, runs each cell's pattern under a watchdog, and hands every result to
//! an [`Observer`] as soon as the cell ends. It measures and returns data; it
//! never prints and never touches SQL (ARCHITECTURE rule 2).

pub mod clock;
pub mod cpu;
pub mod ctrl;
pub mod floor;
pub mod payload;
pub mod peer;

mod pattern;
mod session;
mod watchdog;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use icbench_link::{Abort, LinkError, LinkSpec};
use icbench_model::{CellKey, CellOutcome, CellResult, Pattern};

pub use pattern::{Budget, CellError};
pub use peer::Fault;

use session::Session;
use watchdog::{Fired, Watchdog};

/// How the peer end is started.
#[derive(Debug, Clone)]
pub enum PeerLaunch {
    /// Re-execute a binary (normally icbench itself) with `args`, followed by
    /// `--handoff TEXT --cpu N [--fifo P] [--fault F]`; it must call
    /// [`serve_process_peer`].
    Process { exe: PathBuf, args: Vec<String> },
    /// A thread of this process.
    Thread,
}

/// Settings for measuring cells.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub host_cpu: u32,
    pub peer_cpu: u32,
    pub peer: PeerLaunch,
    /// SCHED_FIFO priority for both ends, or None for SCHED_OTHER.
    pub fifo: Option<u8>,
    /// Longest wait for any reply before a cell fails.
    pub timeout: Duration,
    pub budget: Budget,
    /// A fault for the first peer of each link to inject (tests of the
    /// failure paths: the peer that replaces it behaves).
    pub fault: Option<Fault>,
    /// Set (by a Ctrl-C handler) to stop the run after the current cell.
    pub stop: &'static AtomicBool,
}

/// Receives progress and results as they happen.
pub trait Observer {
    fn cell_started(&mut self, _key: &CellKey) {}
    /// Called once per finished cell, before the next starts.
    fn cell_finished(&mut self, _result: &CellResult) {}
}

/// How measuring one link's cells ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkRun {
    Completed,
    /// Stopped by the stop flag; the interrupted cell was not reported.
    Interrupted,
}

/// Measures every (pattern, size) cell of one link, reporting each result to
/// `obs`. A cell that fails is reported with its reason and the link is
/// re-opened with a fresh peer for the next cell.
pub fn run_link(
    cfg: &EngineConfig,
    spec: &LinkSpec,
    cells: &[(Pattern, u64)],
    obs: &mut dyn Observer,
) -> LinkRun {
    let mut session: Option<Session> = None;
    let mut started = 0u32;
    for &(pattern, size) in cells {
        if cfg.stop.load(std::sync::atomic::Ordering::SeqCst) {
            if let Some(s) = session.take() {
                s.close(false);
            }
            return LinkRun::Interrupted;
        }
        let key = CellKey { link: spec.to_string(), pattern, size_bytes: size };
        obs.cell_started(&key);
        let s = match session.take() {
            Some(s) => s,
            None => match Session::open(cfg, spec, if started == 0 { cfg.fault } else { None }) {
                Ok(s) => {
                    started += 1;
                    s
                }
                Err(reason) => {
                    obs.cell_finished(&CellResult { key, outcome: CellOutcome::Failed { reason } });
                    continue;
                }
            },
        };
        let max = s.host.caps().max_msg_bytes as u64;
        if size > max {
            obs.cell_finished(&CellResult {
                key,
                outcome: CellOutcome::NotApplicable { max_bytes: max },
            });
            session = Some(s);
            continue;
        }
        let (outcome, s) = measure_cell(cfg, s, pattern, size as usize);
        match outcome {
            None => {
                if let Some(s) = s {
                    s.close(false);
                }
                return LinkRun::Interrupted;
            }
            Some(outcome) => {
                obs.cell_finished(&CellResult { key, outcome });
                session = s;
            }
        }
    }
    if let Some(s) = session {
        s.close(true);
    }
    LinkRun::Completed
}

/// Runs one cell. Returns `None` as the outcome when interrupted, and the
/// session back when it is still healthy.
fn measure_cell(
    cfg: &EngineConfig,
    mut s: Session,
    pattern: Pattern,
    size: usize,
) -> (Option<CellOutcome>, Option<Session>) {
    let wd = Watchdog::start(cfg.timeout, s.abort.clone(), s.pidfd(), cfg.stop);
    let result = match pattern {
        Pattern::PingPong => pattern::pingpong(s.host.as_mut(), size, &cfg.budget, wd.progress()),
        Pattern::Stream => pattern::stream(s.host.as_mut(), size, &cfg.budget, wd.progress()),
        Pattern::Bulk | Pattern::Timer => Err(CellError::Unsupported(pattern.as_str())),
    };
    let fired = wd.finish();
    let err = match result {
        Ok(data) => {
            s.abort.clear();
            return (Some(CellOutcome::Measured(data)), Some(s));
        }
        Err(e) => e,
    };
    // A stop request may show first as a dead or silent peer; it is still
    // an interruption, not a failure of the cell.
    if fired == Some(Fired::Interrupted) || cfg.stop.load(std::sync::atomic::Ordering::SeqCst) {
        return (None, Some(s));
    }
    let exit = s.peer_exit();
    let reason = match (fired, &err) {
        (Some(Fired::Timeout), _) => {
            format!("timeout: no reply from the peer within {} s", cfg.timeout.as_secs_f64())
        }
        (Some(Fired::PeerDied), _) | (_, CellError::Link(LinkError::PeerClosed)) => {
            // Let the peer's end settle so its exit status is known.
            let closed = s.close(false);
            let how = exit.or(closed).unwrap_or_else(|| "peer closed the link".to_string());
            return (Some(CellOutcome::Failed { reason: how }), None);
        }
        _ => err.to_string(),
    };
    s.close(false);
    (Some(CellOutcome::Failed { reason }), None)
}

/// The body of a peer process: pins itself, attaches to the handed-off link
/// and serves until the host quits or goes away. Returns a one-line error.
pub fn serve_process_peer(
    handoff: &str,
    cpu: u32,
    fifo: Option<u8>,
    fault: Option<Fault>,
) -> Result<(), String> {
    cpu::pin_current_thread(cpu).map_err(|e| e.to_string())?;
    if let Some(p) = fifo {
        cpu::set_fifo(p).map_err(|e| e.to_string())?;
    }
    let abort = Abort::new();
    let mut link = icbench_link::attach(handoff, abort.clone()).map_err(|e| e.to_string())?;
    peer::serve(link.as_mut(), fault, &abort).map_err(|e| format!("peer: {e}"))
}
