//! The store's error type. Every message names the database file and, where
//! the user can do something about it, says what.

use crate::ids::RunId;

/// Anything that can go wrong while opening, writing or reading the results
/// database.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The file could not be opened, created or set up (missing directory,
    /// no permission, not an SQLite file, read-only file system …).
    #[error(
        "cannot open results database {path}: {source} \
         (use --db PATH or ICBENCH_DB to choose a writable file)"
    )]
    Open {
        path: String,
        #[source]
        source: rusqlite::Error,
    },

    /// The file is an SQLite database that some other program owns.
    #[error(
        "{path} is an SQLite database but not an icbench results database; \
         refusing to add tables to it (use --db PATH or ICBENCH_DB to choose another file)"
    )]
    NotIcbench { path: String },

    /// The file was written by a newer icbench whose schema this one does
    /// not know.
    #[error(
        "{path} was written by a newer icbench (schema {found}); upgrade icbench \
         (this one knows schemas up to {known})"
    )]
    NewerSchema { path: String, found: i64, known: i64 },

    /// No run with this id.
    #[error("no run {id} in {path}; `icbench runs` lists them")]
    NoSuchRun { id: RunId, path: String },

    /// A number does not fit the column (SQLite integers are signed 64-bit).
    #[error("cannot store {what} = {value} in {path}: larger than the largest integer SQLite keeps ({max})", max = i64::MAX)]
    TooLarge { path: String, what: &'static str, value: u64 },

    /// A stored row cannot be turned back into icbench's types.
    #[error("results database {path} has a bad {what}: {detail}")]
    Corrupt { path: String, what: String, detail: String },

    /// The file at the path is no longer the one this store wrote (removed
    /// or replaced while open): what was written is saved to `saved_to`.
    #[error(
        "{path} was removed or replaced while icbench wrote to it; everything stored through \
         it is saved in {saved_to} (move it back, or give it as --db)"
    )]
    Moved { path: String, saved_to: String },

    /// The file at the path is no longer the one this store wrote, and
    /// what was written could not be saved anywhere.
    #[error(
        "{path} was removed or replaced while icbench wrote to it, and what was stored through \
         it could not be saved ({detail}): this run is lost"
    )]
    Lost { path: String, detail: String },

    /// Any other SQLite failure (disk full, database locked past the busy
    /// timeout, I/O error …), with what the store was doing.
    #[error("results database {path}: {op} failed: {source}")]
    Sql {
        path: String,
        op: &'static str,
        #[source]
        source: rusqlite::Error,
    },
}

impl StoreError {
    /// Whether another connection held the database's lock past the busy
    /// timeout (SQLITE_BUSY or SQLITE_LOCKED): worth waiting for and
    /// trying again, unlike every other failure.
    pub fn is_locked(&self) -> bool {
        use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
        matches!(
            self,
            StoreError::Sql { source: rusqlite::Error::SqliteFailure(e, _), .. }
                if matches!(e.code, DatabaseBusy | DatabaseLocked)
        )
    }
}

impl StoreError {
    /// The same error naming `path` instead (a snapshot's copy reported as
    /// the file the user gave).
    pub(crate) fn at(mut self, shown: &str) -> StoreError {
        match &mut self {
            StoreError::Open { path, .. }
            | StoreError::NotIcbench { path }
            | StoreError::NewerSchema { path, .. }
            | StoreError::NoSuchRun { path, .. }
            | StoreError::TooLarge { path, .. }
            | StoreError::Corrupt { path, .. }
            | StoreError::Moved { path, .. }
            | StoreError::Lost { path, .. }
            | StoreError::Sql { path, .. } => *path = shown.to_string(),
        }
        self
    }
}
