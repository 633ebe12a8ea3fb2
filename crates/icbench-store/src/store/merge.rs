//! Merging another icbench database into this one (issue #19): a lab's
//! store gathers every board's runs, each copied whole — metadata, floor,
//! cells with their histograms, raw samples, channels and disturbance,
//! warnings — with where it came from (`origin`). A run already here (the
//! same host, start time and source) is not copied again, so merging twice,
//! or merging back, adds nothing. One transaction per merge: a failure
//! leaves this store as it was.
//!
//! The other database is never written: it is read through a snapshot
//! (`VACUUM INTO` a temporary file, which also takes in what its WAL still
//! holds), and that copy is migrated if it is older.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

use super::runs::{write_run, write_warning};
use super::{Store, StoredRun, sql};
use crate::error::StoreError;
use crate::ids::RunId;

/// A read-only copy of another database, open as a [`Store`]; the copy is
/// deleted when this is dropped.
#[derive(Debug)]
pub struct Snapshot {
    pub store: Store,
    file: TempFile,
}

/// Removes its file when dropped (after the store that has it open).
#[derive(Debug)]
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl Snapshot {
    /// Where the copy lives while open.
    pub fn copy_path(&self) -> &Path {
        &self.file.0
    }
}

/// A run of the other database and what became of it here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merged {
    /// Its id in the other database.
    pub from: RunId,
    /// Its id here.
    pub to: RunId,
    /// Copied now (`false`: it was here already).
    pub new: bool,
}

impl Store {
    /// A consistent, migrated copy of the database at `path`, which is only
    /// read. A file that is not an SQLite database, is truncated, belongs
    /// to another program or to a newer icbench is refused.
    pub fn open_snapshot(path: &Path) -> Result<Snapshot, StoreError> {
        let shown = path.display().to_string();
        let open_err = |source| StoreError::Open { path: shown.clone(), source };
        let src = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(open_err)?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let copy =
            std::env::temp_dir().join(format!("icbench-merge-{}-{nanos}.db", std::process::id()));
        let file = TempFile(copy.clone());
        src.execute("VACUUM INTO ?1", [copy.display().to_string()]).map_err(open_err)?;
        drop(src);
        let mut store = Store::open(&copy).map_err(|e| e.at(&shown))?;
        // Errors name the file the user gave, not the copy.
        store.path = shown;
        store.file = None;
        Ok(Snapshot { store, file })
    }

    /// Copies `runs` (loaded from another database) into this one, in one
    /// transaction; each copied run records `origin(run)`. A run whose
    /// host, start time and source are already here is left out.
    pub fn merge_runs(
        &mut self,
        runs: &[StoredRun],
        origin: &dyn Fn(&StoredRun) -> String,
    ) -> Result<Vec<Merged>, StoreError> {
        const OP: &str = "merging runs";
        let path = self.path.as_str();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, OP))?;
        let mut out = Vec::with_capacity(runs.len());
        for r in runs {
            if let Some(id) = already_here(&tx, path, r)? {
                out.push(Merged { from: r.id, to: id, new: false });
                continue;
            }
            let id = write_run(&tx, path, &r.meta, &r.source, r.provenance.as_deref())?;
            tx.execute("UPDATE runs SET origin = ?2 WHERE id = ?1", params![id.0, origin(r)])
                .map_err(sql(path, OP))?;
            for c in &r.cells {
                super::cells::write_cell(&tx, path, id, c, None)?;
            }
            for w in &r.warnings {
                write_warning(&tx, path, id, w)?;
            }
            out.push(Merged { from: r.id, to: id, new: true });
        }
        tx.commit().map_err(sql(path, OP))?;
        Ok(out)
    }

    /// Where a run came from, if it was merged in.
    pub fn origin(&self, run: RunId) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT origin FROM runs WHERE id = ?1", [run.0], |r| r.get(0))
            .optional()
            .map_err(sql(&self.path, "reading a run's origin"))
            .map(Option::flatten)
    }
}

/// The id of the run here that is `r` (same host, start and source).
fn already_here(tx: &Connection, path: &str, r: &StoredRun) -> Result<Option<RunId>, StoreError> {
    tx.query_row(
        "SELECT id FROM runs WHERE hostname = ?1 AND started_unix_ns = ?2 AND source = ?3
         ORDER BY id LIMIT 1",
        params![r.meta.hostname, r.meta.started_unix_ns, r.source.to_string()],
        |row| row.get(0),
    )
    .optional()
    .map(|o| o.map(RunId))
    .map_err(sql(path, "looking for a merged run"))
}
