//! The measurement engine: it places both ends on their CPUs, starts the
//! peer, runs each cell's pattern under a watchdog, and hands every result to
//! an [`Observer`] as soon as the cell ends. It measures and returns data; it
//! never prints and never touches SQL (ARCHITECTURE rule 2).

pub mod bare;
pub mod clock;
pub mod counter;
pub mod cpu;
pub mod ctrl;
pub mod disturb;
pub mod floor;
pub mod onchip;
pub mod oneway;
pub mod payload;
pub mod peer;
pub mod rt;

mod channels;
mod common_clock;
mod pattern;
mod remote;
mod session;
mod state;
mod stream_p2h;
#[cfg(test)]
mod testing;
mod watchdog;
pub use watchdog::MIN_TIMEOUT;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use icbench_link::{Abort, LinkError, LinkSpec};
use icbench_model::{CellKey, CellOutcome, CellResult, Direction, Pattern};
pub use icbench_proto::Protocol;

pub use common_clock::ClockChecks;
pub use pattern::{Budget, CellError, MAX_STREAM_WINDOW};
pub use peer::Fault;

use disturb::{Sampler, Task};
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
    /// The wire protocol spoken to the peer; `None`: icbench's own local
    /// peer and its control protocol (`ctrl`).
    pub protocol: Option<Protocol>,
    /// A program to start as the peer instead of icbench's own (argv; an
    /// argument `{path}` is replaced by the device the link offers its peer,
    /// e.g. a pty's slave). Without `{path}`, a link whose peer end is one
    /// descriptor hands it over as the program's stdin and stdout.
    pub peer_cmd: Option<Vec<String>>,
    /// Probe the machine's state before each session opens and keep it
    /// with the session's cells (issue #28; icbench's own peer only).
    pub state_probe: bool,
}

/// One cell to measure on a link: pattern, message (or block) size, for
/// bulk the blocks per transfer, for oneway and stream the direction, and
/// how many channels run at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellSpec {
    pub pattern: Pattern,
    pub size_bytes: u64,
    pub blocks: Option<u32>,
    /// Oneway and stream: which way the messages travel (the cell's
    /// `direction` factor). A stream cell without one is host → peer.
    pub direction: Option<Direction>,
    /// Independent link instances, each with its own peer, measured over
    /// one common window (`channels.rs`); 1 = one link, measured alone.
    pub channels: u32,
    /// Stop rule: each channel moves this many payload bytes (rounded up
    /// to whole messages) instead of running for the cell time. Cells with
    /// it run on the channel path even with one channel.
    pub transfer_bytes: Option<u64>,
}

impl CellSpec {
    /// One link, `size_bytes` per message, timed by the cell time.
    pub fn new(pattern: Pattern, size_bytes: u64) -> CellSpec {
        CellSpec {
            pattern,
            size_bytes,
            blocks: None,
            direction: None,
            channels: 1,
            transfer_bytes: None,
        }
    }

    /// A oneway cell in `direction`.
    pub fn oneway(size_bytes: u64, direction: Direction) -> CellSpec {
        CellSpec { direction: Some(direction), ..CellSpec::new(Pattern::OneWay, size_bytes) }
    }

    /// A stream cell in `direction`.
    pub fn stream(size_bytes: u64, direction: Direction) -> CellSpec {
        CellSpec { direction: Some(direction), ..CellSpec::new(Pattern::Stream, size_bytes) }
    }

    /// Which way a stream cell's messages travel: host → peer unless the
    /// cell says otherwise.
    fn stream_direction(&self) -> Direction {
        self.direction.unwrap_or(Direction::H2P)
    }

    /// Whether the cell runs on the channel path (common window).
    fn on_channels(&self) -> bool {
        self.channels > 1 || self.transfer_bytes.is_some()
    }

    /// The cell's key: the link, pattern and size, with `direction`,
    /// `channels` and `transfer` (bytes per channel) as factors when they
    /// differ from one timed link. A plan names its factors the same way.
    /// A host → peer stream cell keeps the key stream cells always had
    /// (no `direction`: it is the default), so that runs before and after
    /// the peer → host stream existed compare cell for cell.
    pub fn key(&self, cfg: &EngineConfig, spec: &LinkSpec) -> CellKey {
        let mut key = CellKey {
            protocol: cfg.protocol.map(|p| p.as_str().to_string()),
            blocks: self.blocks,
            ..CellKey::new(spec.to_string(), self.pattern, self.size_bytes)
        };
        let default = self.pattern == Pattern::Stream && self.direction == Some(Direction::H2P);
        if let Some(d) = self.direction.filter(|_| !default) {
            key = key.with(Direction::FACTOR, d);
        }
        if self.channels > 1 {
            key = key.with("channels", self.channels);
        }
        if let Some(t) = self.transfer_bytes {
            key = key.with("transfer", t);
        }
        key
    }
}

impl From<(Pattern, u64)> for CellSpec {
    fn from((pattern, size_bytes): (Pattern, u64)) -> CellSpec {
        CellSpec::new(pattern, size_bytes)
    }
}

/// Whether `protocol` can run `pattern` (the CLI refuses other pairs).
pub fn supports(protocol: Option<Protocol>, pattern: Pattern) -> bool {
    matches!(
        (protocol, pattern),
        (None, Pattern::PingPong | Pattern::Stream | Pattern::OneWay)
            | (Some(Protocol::Icb), Pattern::PingPong | Pattern::Stream | Pattern::Bulk)
            | (Some(Protocol::Dimtass), Pattern::PingPong | Pattern::Bulk)
            | (Some(Protocol::Raw), Pattern::PingPong | Pattern::Stream)
    )
}

/// Whether `protocol` can run a stream cell in `direction` (the CLI
/// refuses other pairs): peer → host with icbench's own peer, and with raw
/// on a link whose remote fills buffers (`remote::buffers`; other links
/// fail the cell, saying so).
pub fn supports_stream(protocol: Option<Protocol>, direction: Direction) -> bool {
    direction == Direction::H2P || matches!(protocol, None | Some(Protocol::Raw))
}

/// The largest transfer a cell can have: the link's largest message for
/// the local protocol, 16 MiB for icb (it fragments), 65535 B for dimtass
/// (`length` is a u16), no bound for raw (it chunks).
pub(crate) fn max_transfer(protocol: Option<Protocol>, link_max: usize) -> u64 {
    match protocol {
        None => link_max as u64,
        Some(Protocol::Icb) => 16 << 20,
        Some(Protocol::Dimtass) => remote::dimtass::MAX_TRANSFER,
        Some(Protocol::Raw) => u64::MAX,
    }
}

/// Receives progress and results as they happen.
pub trait Observer {
    fn cell_started(&mut self, _key: &CellKey) {}
    /// Called once per finished cell, before the next starts.
    fn cell_finished(&mut self, _result: &CellResult) {}
    /// A line for the run's notes (e.g. the common-clock check before the
    /// first oneway cell on a CPU pair).
    fn run_note(&mut self, _note: &str) {}
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
/// re-opened with a fresh peer for the next cell. `clocks`: the run's
/// common-clock checks, one value for every call of a run, so that each CPU
/// pair is checked once before its first oneway cell.
pub fn run_link(
    cfg: &EngineConfig,
    spec: &LinkSpec,
    cells: &[CellSpec],
    clocks: &mut ClockChecks,
    obs: &mut dyn Observer,
) -> LinkRun {
    let mut session: Option<Session> = None;
    let mut started = 0u32;
    // Before any peer runs (a spinning peer would share the CPU with the
    // check); the first time the run meets this CPU pair.
    let clock = cells
        .iter()
        .any(|c| c.pattern == Pattern::OneWay && cfg.protocol.is_none())
        .then(|| clocks.check(cfg, obs));
    for &cell in cells {
        if cfg.stop.load(std::sync::atomic::Ordering::SeqCst) {
            if let Some(s) = session.take() {
                s.close(false);
            }
            return LinkRun::Interrupted;
        }
        let key = cell.key(cfg, spec);
        obs.cell_started(&key);
        if let (Pattern::OneWay, Some(Err(reason))) = (cell.pattern, &clock) {
            obs.cell_finished(&CellResult {
                key,
                outcome: CellOutcome::Failed { reason: reason.clone() },
            });
            continue;
        }
        if cell.on_channels() {
            // N fresh sessions of their own, torn down when the cell ends.
            let fault = if started == 0 { cfg.fault } else { None };
            started += 1;
            // The CPUs' counters only: N threads on each side.
            let sampler = Sampler::new(cfg.host_cpu, cfg.peer_cpu, None, None);
            let before = sampler.read();
            match channels::measure(cfg, spec, cell, fault) {
                Some(mut outcome) => {
                    if let CellOutcome::Measured(d) = &mut outcome {
                        d.disturbance = Some(sampler.between(&before, &sampler.read()));
                    }
                    obs.cell_finished(&CellResult { key, outcome })
                }
                None => {
                    if let Some(s) = session.take() {
                        s.close(false);
                    }
                    return LinkRun::Interrupted;
                }
            }
            continue;
        }
        let s = match session.take() {
            Some(s) => s,
            None => match open_probed(cfg, spec, if started == 0 { cfg.fault } else { None }) {
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
        let max = max_transfer(cfg.protocol, s.host.caps().max_msg_bytes);
        if key.transfer_bytes() > max {
            obs.cell_finished(&CellResult {
                key,
                outcome: CellOutcome::NotApplicable { max_bytes: max },
            });
            session = Some(s);
            continue;
        }
        let (mut outcome, s) = measure_cell(cfg, s, cell);
        if let Some(CellOutcome::Measured(d)) = &mut outcome {
            d.state = s.as_ref().and_then(|s| s.state);
        }
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

/// Opens a session, probing the machine's state first when asked: before
/// the peer starts, since a peer spinning on the peer CPU would share it
/// with the probe. Only with icbench's own peer on that CPU: a remote or
/// `--peer-cmd` peer is not where the probe's other end would be.
fn open_probed(
    cfg: &EngineConfig,
    spec: &LinkSpec,
    fault: Option<Fault>,
) -> Result<Session, String> {
    let own = cfg.protocol.is_none() && cfg.peer_cmd.is_none();
    let state =
        if cfg.state_probe && own { state::probe(cfg.host_cpu, cfg.peer_cpu) } else { None };
    let mut s = Session::open(cfg, spec, fault)?;
    s.state = state;
    Ok(s)
}

fn oneway_needs_own_peer(p: Protocol) -> CellError {
    CellError::Unsupported(format!(
        "pattern oneway needs both ends to stamp and read this machine's clock, which only \
         icbench's own local peer does; the {p} protocol carries no clock stamps"
    ))
}

fn p2h_needs_own_peer(p: Protocol) -> CellError {
    CellError::Unsupported(format!(
        "pattern stream peer → host needs icbench's own peer (its source op); the {p} \
         protocol's responder has no such op yet"
    ))
}

/// Runs one cell's pattern in the protocol of the session.
fn run_pattern(
    cfg: &EngineConfig,
    s: &mut Session,
    cell: CellSpec,
    progress: &std::sync::atomic::AtomicU64,
) -> Result<icbench_model::CellData, CellError> {
    let size = cell.size_bytes as usize;
    let blocks = cell.blocks.unwrap_or(1);
    let b = &cfg.budget;
    let link = s.host.as_mut();
    match (cfg.protocol, cell.pattern) {
        (None, Pattern::PingPong) => pattern::pingpong(link, size, b, progress),
        (None, Pattern::Stream) => {
            pattern::stream(link, size, cell.stream_direction(), b, progress)
        }
        // A remote that fills and checks shared buffers (sdb:): both ways.
        (Some(Protocol::Raw), Pattern::Stream) => {
            remote::buffers::stream(link, size, cell.stream_direction(), b, progress)
        }
        (Some(p), Pattern::Stream) if cell.stream_direction() == Direction::P2H => {
            Err(p2h_needs_own_peer(p))
        }
        (None, Pattern::OneWay) => {
            let d = cell.direction.ok_or_else(|| {
                CellError::Unsupported("a oneway cell needs a direction (h2p or p2h)".into())
            })?;
            oneway::oneway(link, size, d, b, progress)
        }
        (Some(p), Pattern::OneWay) => Err(oneway_needs_own_peer(p)),
        (Some(Protocol::Icb), p) => {
            let icb =
                s.icb.as_mut().ok_or_else(|| CellError::Unsupported("no handshake".into()))?;
            match p {
                Pattern::PingPong => icb.pingpong(link, size, b, progress),
                Pattern::Stream => icb.stream(link, size, b, progress),
                Pattern::Bulk => icb.bulk(link, size, blocks, b, progress),
                Pattern::Timer | Pattern::Wakeup | Pattern::Irq => {
                    Err(CellError::NotALinkPattern(p))
                }
                Pattern::OneWay => Err(oneway_needs_own_peer(Protocol::Icb)),
            }
        }
        (Some(Protocol::Dimtass), Pattern::PingPong | Pattern::Bulk) => {
            remote::dimtass::transfer(link, size, blocks, b, progress)
        }
        (Some(Protocol::Raw), Pattern::PingPong) => remote::raw::pingpong(link, size, b, progress),
        (_, pat @ (Pattern::Timer | Pattern::Wakeup | Pattern::Irq)) => {
            Err(CellError::NotALinkPattern(pat))
        }
        (p, pat) => Err(CellError::Unsupported(format!(
            "pattern {pat} is not available with the {} protocol",
            p.map_or("local control", Protocol::as_str)
        ))),
    }
}

/// Runs one cell. Returns `None` as the outcome when interrupted, and the
/// session back when it is still healthy.
fn measure_cell(
    cfg: &EngineConfig,
    mut s: Session,
    cell: CellSpec,
) -> (Option<CellOutcome>, Option<Session>) {
    if let Err(e) = s.host.set_pipelined(cell.pattern == Pattern::Stream) {
        s.close(false);
        return (Some(CellOutcome::Failed { reason: e.to_string() }), None);
    }
    let wd = Watchdog::start(cfg.timeout, s.abort.clone(), s.pidfd(), s.host.health(), cfg.stop);
    // The counters are read around the whole cell, outside every timed loop.
    let sampler = Sampler::new(cfg.host_cpu, cfg.peer_cpu, Some(Task::current()), s.peer_task());
    let before = sampler.read();
    let result = run_pattern(cfg, &mut s, cell, wd.progress());
    let after = sampler.read();
    let fired = wd.finish();
    let err = match result {
        Ok(mut data) => {
            s.abort.clear();
            data.disturbance = Some(sampler.between(&before, &after));
            return (Some(CellOutcome::Measured(data)), Some(s));
        }
        // The peer cannot do this cell, but the session is sound.
        Err(CellError::Unsupported(reason)) if fired.is_none() => {
            return (Some(CellOutcome::Failed { reason }), Some(s));
        }
        Err(e) => e,
    };
    match failure(cfg, s, fired, &err) {
        Some(reason) => (Some(CellOutcome::Failed { reason }), None),
        None => (None, None),
    }
}

/// Why a cell failed, from the pattern's error and what the watchdog saw;
/// `None` when it was an interruption (Ctrl-C). Ends the session.
fn failure(
    cfg: &EngineConfig,
    mut s: Session,
    fired: Option<Fired>,
    err: &CellError,
) -> Option<String> {
    // A stop request may show first as a dead or silent peer; it is still
    // an interruption, not a failure of the cell.
    if fired == Some(Fired::Interrupted) || cfg.stop.load(std::sync::atomic::Ordering::SeqCst) {
        s.close(false);
        return None;
    }
    let exit = s.peer_exit();
    let secs = cfg.timeout.as_secs_f64();
    let reason = match (fired, err) {
        // "No complete reply", not "nothing": a peer that sent part of a
        // reply, or bytes that are not one, stalls the wait the same way
        // (issue #22: a raw peer's garbage was reported as silence).
        (Some(Fired::Timeout), CellError::Stalled { waiting }) => {
            format!("timeout: no complete reply from the peer for {secs} s while {waiting}")
        }
        (Some(Fired::Timeout), _) => {
            let mut r = format!("timeout: no reply from the peer within {secs} s");
            if let Some(stall) = s.host.stalled_in() {
                r = format!("{r}; {stall}");
            }
            r
        }
        (Some(Fired::Unhealthy(why)), _) => why,
        (Some(Fired::PeerDied), _) | (_, CellError::Link(LinkError::PeerClosed)) => {
            // Let the peer's end settle so its exit status is known.
            let closed = s.close(false);
            return Some(closed.or(exit).unwrap_or_else(|| "peer closed the link".to_string()));
        }
        _ => err.to_string(),
    };
    s.close(false);
    Some(reason)
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

/// The body of a bare-loop peer process (`icbench __peer --bare SIZE`, the
/// reference of [`bare`]): pins itself like [`serve_process_peer`], then
/// echoes `size`-byte messages with nothing around the system calls until
/// the host closes its end. Returns a one-line error.
pub fn serve_bare_process_peer(
    handoff: &str,
    cpu: u32,
    fifo: Option<u8>,
    size: usize,
) -> Result<(), String> {
    cpu::pin_current_thread(cpu).map_err(|e| e.to_string())?;
    if let Some(p) = fifo {
        cpu::set_fifo(p).map_err(|e| e.to_string())?;
    }
    icbench_link::reference::serve(handoff, size, &Abort::new())
        .map_err(|e| format!("bare peer: {e}"))
}
