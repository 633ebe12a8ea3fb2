//! Renderers: a run's view model in, text out (ARCHITECTURE rule 4).
//!
//! The modules stand in layers that import one way (issue #29 item 1;
//! `tests/layers.rs` checks it):
//!
//! 1. words and statistics: [`format`](mod@format), [`names`], [`stats`], [`pairs`]
//!    (CPU-pair cells as host × peer matrices), [`distribution`] (a cell's
//!    percentile curve, CDF and bins), [`disturbed`] (the counters' view);
//! 2. [`replicates`]: a cell's blocks as one row, its repeat interval and
//!    marks; [`rows`]: one row per cell, the only place where percentiles,
//!    rates and ratios are derived for display;
//! 3. what judges the rows: [`marks`] (which cells carry `!` and why, in
//!    the words every renderer uses), [`targets`], [`summary`], [`verdict`];
//! 4. [`view`]: the run's view, computed once, holding all of the above;
//!    [`history`] sets it against its host's earlier runs; [`compare`] and
//!    [`model`] are the views of a comparison and of the linear model;
//! 5. renderers, none importing another: [`table`] for a terminal (with the
//!    [`terminal`] kit it shares with [`rt`] and [`effects`]), [`json`] and
//!    [`export`] for scripts, [`html`] (with [`svg`]) for the report,
//!    [`site`] for the static comparison site of several bundles.
//!
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
pub mod marks;
pub mod model;
pub mod names;
pub mod pairs;
pub mod replicates;
pub mod rows;
pub mod rt;
pub mod rthist;
pub mod site;
pub mod stats;
pub mod summary;
pub mod svg;
pub mod table;
pub mod targets;
pub mod terminal;
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
