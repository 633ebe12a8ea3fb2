//! What a run needs besides its plan: placement, scheduling, the peer, the
//! engine's limits. Stored with the run as JSON, so that
//! `icbench run --resume` measures the remaining cells exactly as the first
//! invocation would have.

use std::time::Duration;

use anyhow::Result;
use icbench_engine::{Budget, CellSpec, EngineConfig, Fault, PeerLaunch, Protocol};
use icbench_model::{PeerMode, Sched};
use icbench_plan::{PlanCell, SchedLevel};
use serde::{Deserialize, Serialize};

use super::STOP;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Settings {
    pub host_cpu: u32,
    pub peer_cpu: u32,
    /// The online CPUs when the run started (run metadata).
    pub online: String,
    pub peer: PeerMode,
    /// SCHED_FIFO priority of both ends, unless a cell's plan says otherwise.
    pub fifo: Option<u8>,
    pub mlock: bool,
    pub timeout_ns: u64,
    pub window: u32,
    pub raw: bool,
    pub ci_target: Option<f64>,
    pub ci_max_time_ns: u64,
    /// Wire protocol (`icb`, `dimtass`, `raw`); `None`: icbench's own peer.
    pub protocol: Option<String>,
    pub peer_cmd: Option<Vec<String>>,
    pub no_floor: bool,
    /// Test hook: channel i starts i × this after the common start.
    #[serde(default)]
    pub channel_stagger_ns: u64,
    /// Where the plan came from: a file name, or `flags`.
    pub source: String,
    /// The clock's granule, measured once when the run starts and kept for
    /// its resumption, so that a cell is timed alike in both (batches,
    /// issue #15 item 4). NaN in runs stored before it: no batches.
    #[serde(default = "no_granule")]
    pub clock_granule_ns: f64,
}

fn no_granule() -> f64 {
    f64::NAN
}

impl Settings {
    pub fn protocol(&self) -> Option<Protocol> {
        self.protocol.as_deref().and_then(|p| p.parse().ok())
    }

    /// The scheduling recorded with the run.
    pub fn sched(&self) -> Sched {
        self.fifo.map_or(Sched::Other, |priority| Sched::Fifo { priority })
    }

    /// The host and peer CPUs of a cell.
    pub fn cpus_of(&self, cell: &PlanCell) -> (u32, u32) {
        cell.cpus.unwrap_or((self.host_cpu, self.peer_cpu))
    }

    /// The SCHED_FIFO priority of a cell (None: SCHED_OTHER).
    pub fn fifo_of(&self, cell: &PlanCell) -> Option<u8> {
        match cell.sched {
            Some(SchedLevel::Fifo(p)) => Some(p),
            Some(SchedLevel::Other) => None,
            None => self.fifo,
        }
    }

    /// The engine's settings for a cell (and the cells that share its session).
    pub fn engine(
        &self,
        cell: &PlanCell,
        cell_time: Duration,
        peer: PeerLaunch,
        fault: Option<Fault>,
    ) -> EngineConfig {
        let (host_cpu, peer_cpu) = self.cpus_of(cell);
        EngineConfig {
            host_cpu,
            peer_cpu,
            peer,
            fifo: self.fifo_of(cell),
            timeout: Duration::from_nanos(self.timeout_ns),
            budget: Budget {
                cell_time,
                raw: self.raw,
                window: self.window,
                ci_target: self.ci_target,
                ci_max_time: Duration::from_nanos(self.ci_max_time_ns),
                channel_stagger: Duration::from_nanos(self.channel_stagger_ns),
                clock_granule_ns: self.clock_granule_ns,
            },
            fault,
            stop: &STOP,
            protocol: self.protocol(),
            peer_cmd: self.peer_cmd.clone(),
            // The probe is part of the floor: `--no-floor` skips both.
            state_probe: !self.no_floor,
        }
    }
}

impl Settings {
    /// The engine's settings for the floor step: the run's CPU pair, peer
    /// and scheduling, icbench's own peer, no fault.
    pub fn floor_engine(&self, peer: PeerLaunch) -> EngineConfig {
        crate::cmd::floor::engine(
            self.host_cpu,
            self.peer_cpu,
            peer,
            self.fifo,
            Duration::from_nanos(self.timeout_ns),
            &STOP,
        )
    }
}

/// The engine's cell for a plan cell.
pub(crate) fn cell_spec(c: &PlanCell) -> CellSpec {
    CellSpec {
        blocks: c.blocks,
        direction: c.direction.as_deref().and_then(|d| d.parse().ok()),
        channels: c.channels,
        transfer_bytes: c.transfer_bytes,
        ..CellSpec::new(c.pattern, c.size_bytes)
    }
}

/// The peer process: this binary re-executed as `icbench __peer`. Under an
/// emulator (qemu-user without a binfmt_misc registration, as
/// `scripts/qemu-run` runs the ARM builds) the kernel cannot exec the binary
/// itself, so when `ICBENCH_EXEC_WRAPPER` names a program, the peer is
/// started through it: `WRAPPER icbench __peer …`.
pub(crate) fn peer_launch(mode: PeerMode) -> Result<PeerLaunch> {
    use anyhow::Context;
    if mode == PeerMode::Thread {
        return Ok(PeerLaunch::Thread);
    }
    let exe = std::env::current_exe().context("finding the icbench binary to start the peer")?;
    let peer = "__peer".to_string();
    Ok(match std::env::var_os("ICBENCH_EXEC_WRAPPER").filter(|w| !w.is_empty()) {
        None => PeerLaunch::Process { exe, args: vec![peer] },
        Some(wrapper) => PeerLaunch::Process {
            exe: wrapper.into(),
            args: vec![exe.to_string_lossy().into_owned(), peer],
        },
    })
}
