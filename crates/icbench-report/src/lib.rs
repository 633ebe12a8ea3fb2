//! Renderers: a run's view model in, text out (ARCHITECTURE rule 4).
//!
//! [`view`] turns a stored run into the rows every output shows (the only
//! place where percentiles, rates and ratios are derived for display);
//! [`pairs`] (part of the view) arranges CPU-pair cells as host × peer
//! matrices; [`distribution`] (part of the view too) reads a cell's
//! percentile curve, CDF and bins from its histogram for the report;
//! [`table`] draws them for a terminal; [`json`] writes them for scripts;
//! [`html`] and [`svg`] make the report.
//! Nothing here measures, reads the store or prints to a terminal by itself.

pub mod compare;
pub mod distribution;
pub mod disturbed;
pub mod effects;
pub mod export;
pub mod format;
pub mod history;
pub mod html;
pub mod json;
pub mod model;
pub mod pairs;
pub mod replicates;
pub mod rt;
pub mod rthist;
pub mod stats;
pub mod summary;
pub mod svg;
pub mod table;
pub mod targets;
#[cfg(test)]
mod testing;
pub mod verdict;
pub mod view;

pub use disturbed::DisturbanceView;
pub use pairs::{CpuPairMatrix, PairValue};
pub use stats::CellStats;
pub use targets::{BARE_BAND, Target, Verdict, bare_verdict};
pub use view::{
    BulkRow, ChannelRow, ChannelsView, OneWayRow, PingPongRow, RunView, StreamRow, TimerRow, build,
};
