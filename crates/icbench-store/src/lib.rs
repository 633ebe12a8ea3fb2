//! icbench's results database: every run, its metadata and its cells, in one
//! embedded SQLite file (by default `icbench.db`; the caller picks the path).
//!
//! This crate owns the schema, its migrations and every SQL statement icbench
//! runs (ARCHITECTURE: "the only crate with SQL"). Other crates speak the
//! types of `icbench-model`; they never see a table. It exists so that
//! results outlive the process that measured them: each cell is committed on
//! its own as soon as it finishes, so a crash or a pulled plug loses at most
//! the cell being measured, and any percentile can be re-derived later from
//! the stored HDR histogram.
//!
//! The schema is versioned (ARCHITECTURE rule 6): see [`SCHEMA_VERSION`] and
//! `src/migrations/`. A file written by a newer icbench is refused rather
//! than misread.

mod disturbance;
mod error;
mod ids;
mod schema;
mod store;

pub use error::StoreError;
pub use ids::{CellId, ParseRunIdError, ParseRunSourceError, RunId, RunSource};
pub use schema::SCHEMA_VERSION;
pub use store::{Merged, Reading, RunSummary, Snapshot, Store, StoredRun, WholeRun};
