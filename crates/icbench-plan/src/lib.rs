//! Experiment plans: which cells a run measures, in which order.
//!
//! A plan file (TOML, `docs/plans.md`) declares factors and their levels —
//! link, pattern, size, channels, transfer, CPU pairs, wait strategy,
//! scheduling, direction, blocks — plus repetitions and time budgets. This
//! crate reads it ([`file`], naming the line of any error), expands it to the
//! full factorial or a listed subset ([`expand`]), puts the cells in a
//! randomised order from a recorded seed ([`order`]) so that slow drift of the
//! machine cannot masquerade as an effect (the method of the 002 paper's
//! repeated measurements), and estimates how long it takes ([`estimate`]).
//!
//! The result, [`Plan`], is plain data that serialises to JSON: `icbench run`
//! stores it with the run, so `icbench run --resume` can continue the same
//! cells in the same order after the process was killed. This crate measures
//! nothing and prints nothing.

pub mod estimate;
pub mod expand;
pub mod file;
pub mod order;
pub mod units;

use std::collections::BTreeMap;

use icbench_model::Pattern;
use serde::{Deserialize, Serialize};

pub use expand::{Context, expand};
pub use file::{PlanError, parse};

/// The order cells run in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Shuffled with the plan's seed (the default for plan files).
    Random,
    /// As expanded: factors vary in the order they are declared, the last
    /// fastest (flag runs use this, so a link's cells share one peer).
    Listed,
}

/// A scheduling level: SCHED_OTHER or SCHED_FIFO at a priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchedLevel {
    Other,
    Fifo(u8),
}

impl std::fmt::Display for SchedLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchedLevel::Other => f.write_str("other"),
            SchedLevel::Fifo(p) => write!(f, "fifo:{p}"),
        }
    }
}

/// One cell of a plan: everything needed to measure it, and the factor
/// levels to store with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanCell {
    /// Position in the run order, 0-based; the store keeps it with the
    /// measured cell, so a resumed run knows which cells are done.
    pub index: u32,
    /// Link spec, with the `wait` level applied (`shm?wait=futex`).
    pub link: String,
    pub pattern: Pattern,
    /// Payload bytes per message (bulk: per block).
    pub size_bytes: u64,
    /// Bulk: blocks per transfer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<u32>,
    /// Channels measured at once (1: one link).
    pub channels: u32,
    /// Payload bytes each channel moves instead of running for the cell time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_bytes: Option<u64>,
    /// Direction: `h2p` or `p2h` (the oneway and stream patterns only; a
    /// stream cell without one is host → peer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    /// Host CPU, peer CPU; `None`: the run's placement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<(u32, u32)>,
    /// Scheduling of both ends; `None`: the run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sched: Option<SchedLevel>,
    /// Repetition, 0-based.
    pub rep: u32,
    /// The factor levels to store with the cell (every declared factor that
    /// is not one of the cell key's own fields, and `rep` when repeated).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub factors: BTreeMap<String, String>,
}

impl PlanCell {
    /// A cell of one link, timed by the cell time, with nothing else set
    /// (index 0, one channel, the run's placement and scheduling).
    pub fn new(link: impl Into<String>, pattern: Pattern, size_bytes: u64) -> PlanCell {
        PlanCell {
            index: 0,
            link: link.into(),
            pattern,
            size_bytes,
            blocks: None,
            channels: 1,
            transfer_bytes: None,
            direction: None,
            cpus: None,
            sched: None,
            rep: 0,
            factors: BTreeMap::new(),
        }
    }

    /// Whether `other` can run on the same session: same link, placement
    /// and scheduling.
    pub fn shares_session(&self, other: &PlanCell) -> bool {
        self.link == other.link
            && self.cpus == other.cpus
            && self.sched == other.sched
            && self.channels == 1
            && other.channels == 1
    }
}

/// A plan, expanded and ordered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// A name from the plan file, if it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The seed of the order (recorded even for a listed order).
    pub seed: u64,
    pub order: Order,
    pub repetitions: u32,
    /// Measuring time per cell, ns (after warm-up).
    pub cell_time_ns: u64,
    /// Whole-plan budget, ns: no cell starts after it is spent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_ns: Option<u64>,
    /// The factors the plan varies (two or more levels), in declared order.
    pub varied: Vec<String>,
    /// Cells in run order.
    pub cells: Vec<PlanCell>,
}
