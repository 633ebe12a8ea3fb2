//! [`Store`]: the typed API over the results database. Every SQL statement
//! icbench runs is in this module or in `migrations/`.
//!
//! Split by concern: `runs` (a run's life: begun, notes, plan, finished),
//! `cells` (a cell with its histogram, raw samples and channels), `floor`
//! (the floor at both ends, bare loops, the fast counter), `load` (runs
//! read back, checked).

mod cells;
mod floor;
mod load;
mod merge;
mod reading;
mod runs;

pub use load::{RunSummary, StoredRun};
pub use merge::{Merged, Snapshot};
pub use reading::Reading;
pub use runs::WholeRun;

use cells::{CellRow, load_channels};
use floor::{read_bare_loops, read_fast_counter, write_fast_counter, write_floor};

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use icbench_model::{
    Adaptive, BareComparison, CellData, CellKey, CellOutcome, CellResult, ChannelData, FastCounter,
    Floor, FloorTail, LatencyHistogram, LinkCounters, PeerMode, RunMeta, RunStatus, Sched,
};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::error::StoreError;
use crate::ids::{CellId, RunId, RunSource};
use crate::schema;

/// Which stored histogram a cell's latency is: the metric of its pattern
/// ([`icbench_model::Pattern::metric`]), spelled in SQL so one query loads
/// every cell. Checked against the model by a test.
const METRIC_OF_PATTERN_SQL: &str = "CASE c.pattern WHEN 'timer' THEN 'lateness' \
     WHEN 'wakeup' THEN 'oneway' WHEN 'oneway' THEN 'oneway' WHEN 'irq' THEN 'oneway' ELSE 'rtt' END";

/// An open results database.
///
/// Writes take `&mut self` and each commits before returning, so whatever a
/// call reported as done is on disk even if the process dies right after.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    /// The path as given, for messages (`:memory:` in memory).
    path: String,
    /// The file's device and inode when it was opened ([`Store::check_file`]);
    /// `None` in memory or for a copy.
    file: Option<(u64, u64)>,
}

/// The device and inode of the file at `path`, if there is one.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Maps a rusqlite error to [`StoreError::Sql`] with the path and operation.
pub(crate) fn sql(path: &str, op: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
    let path = path.to_string();
    move |source| StoreError::Sql { path, op, source }
}

pub(crate) fn to_i64(path: &str, what: &'static str, value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::TooLarge { path: path.to_string(), what, value })
}

/// SQLite stores a NaN REAL as NULL; read NULL back as NaN.
fn nan_from_null(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

fn now_unix_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

fn strings_to_json(v: &[String]) -> String {
    serde_json::to_string(v).expect("a list of strings always serialises")
}

fn sched_columns(s: Sched) -> (&'static str, Option<u8>) {
    match s {
        Sched::Other => ("other", None),
        Sched::Fifo { priority } => ("fifo", Some(priority)),
    }
}

impl Store {
    /// Opens the results database at `path`, creating the file if needed
    /// (its directory must exist), and brings its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path_str = path.as_ref().display().to_string();
        let open_err = |source| StoreError::Open { path: path_str.clone(), source };
        let conn = Connection::open(path.as_ref()).map_err(open_err)?;
        let mut store = Store::init(conn, path_str)?;
        store.file = file_id(path.as_ref());
        Ok(store)
    }

    /// Checks that the file at the path is still the one this store opened
    /// (issue #30 item 10: a database deleted mid-run went on taking cells
    /// into the unlinked file, and the run said "stored" and exited 0). If
    /// it was removed, the database as this store holds it is written back
    /// to the path, and `Ok(true)` says so; if another file took its place,
    /// it is written beside it and the error says where
    /// ([`StoreError::Moved`]). Call it after the last write.
    pub fn check_file(&self) -> Result<bool, StoreError> {
        let Some(was) = self.file else { return Ok(false) };
        let path = Path::new(&self.path);
        if file_id(path) == Some(was) {
            return Ok(false);
        }
        let target = if path.exists() {
            let mut alt = path.as_os_str().to_owned();
            alt.push(format!(".saved-{}", std::process::id()));
            std::path::PathBuf::from(alt)
        } else {
            path.to_path_buf()
        };
        match self.conn.execute("VACUUM INTO ?1", [target.display().to_string()]) {
            Ok(_) if target == path => Ok(true),
            Ok(_) => Err(StoreError::Moved {
                path: self.path.clone(),
                saved_to: target.display().to_string(),
            }),
            Err(e) => Err(StoreError::Lost { path: self.path.clone(), detail: e.to_string() }),
        }
    }

    /// A private database in memory, gone when dropped. For tests.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let path = ":memory:".to_string();
        let conn = Connection::open_in_memory()
            .map_err(|source| StoreError::Open { path: path.clone(), source })?;
        Store::init(conn, path)
    }

    fn init(mut conn: Connection, path: String) -> Result<Store, StoreError> {
        schema::configure(&conn)
            .map_err(|source| StoreError::Open { path: path.clone(), source })?;
        schema::migrate(&mut conn, &path)?;
        Ok(Store { conn, path, file: None })
    }

    /// The database's path as given to [`Store::open`] (`:memory:` in memory).
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl Store {
    fn one_row(&self, changed: usize, run: RunId) -> Result<(), StoreError> {
        if changed == 0 { Err(self_no_such_run(&self.path, run)) } else { Ok(()) }
    }
}

fn self_no_such_run(path: &str, run: RunId) -> StoreError {
    StoreError::NoSuchRun { id: run, path: path.to_string() }
}

fn run_exists(conn: &Connection, path: &str, run: RunId) -> Result<bool, StoreError> {
    conn.query_row("SELECT 1 FROM runs WHERE id = ?1", [run.0], |_| Ok(()))
        .optional()
        .map(|o| o.is_some())
        .map_err(sql(path, "looking up a run"))
}

fn corrupt(path: &str, what: String, detail: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt { path: path.to_string(), what, detail: detail.to_string() }
}

fn parse_status(path: &str, id: i64, s: &str) -> Result<RunStatus, StoreError> {
    RunStatus::parse(s)
        .ok_or_else(|| corrupt(path, format!("status of run {id}"), format!("'{s}'")))
}

fn parse_source(path: &str, id: i64, s: &str) -> Result<RunSource, StoreError> {
    s.parse().map_err(|e| corrupt(path, format!("source of run {id}"), e))
}

fn parse_strings(path: &str, what: String, json: &str) -> Result<Vec<String>, StoreError> {
    serde_json::from_str(json).map_err(|e| corrupt(path, what, e))
}
