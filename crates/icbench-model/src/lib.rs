//! The vocabulary every other icbench crate speaks: what a link can carry,
//! what a cell is, what a run records and what a measured cell yields.
//!
//! This crate owns no I/O and no policy. It exists so that the engine (which
//! produces results), the store (which keeps them) and the renderers (which
//! show them) agree on one set of types without depending on each other
//! (shared/design/ARCHITECTURE.md, "Vocabulary" and rule 5: every number
//! carries its unit in its name).

mod cell;
mod direction;
mod disturb;
mod hist;
pub mod nan;
mod run;

pub use cell::{
    Adaptive, CellData, CellKey, CellOutcome, CellResult, ChannelData, Pattern, PatternParseError,
    RESOLVE_STEPS, StateProbe,
};
pub use direction::{Direction, DirectionParseError};
pub use disturb::{Disturbance, EndDisturbance};
pub use hist::{Histogram, HistogramError, LatencyHistogram, MAX_COUNT, MAX_TRACKABLE_NS};
pub use run::{
    BareComparison, FastCounter, Floor, FloorTail, LinkCaps, LinkCounters, PeerMode, RunMeta,
    RunStatus, Sched,
};

/// Version of every JSON document icbench writes (ARCHITECTURE rule 6).
pub const JSON_SCHEMA_VERSION: u32 = 1;
