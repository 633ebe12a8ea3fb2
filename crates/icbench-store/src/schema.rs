//! The schema and how a database file is brought up to it.
//!
//! Each migration is one SQL file under `migrations/`, numbered from 1 and
//! compiled into the binary. `PRAGMA user_version` records how many have been
//! applied; opening a file applies the missing ones in order, in one
//! `BEGIN IMMEDIATE` transaction that also sets the new version, so a file is
//! never left half-migrated and two processes opening it at once do not both
//! migrate. `PRAGMA application_id` marks the file as icbench's, so the store
//! never adds its tables to some other program's database.

use rusqlite::{Connection, TransactionBehavior};
use std::time::Duration;

use crate::error::StoreError;

/// The migrations, in order: entry `i` takes the schema from version `i` to
/// `i + 1`. Append only; never edit one that has shipped.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_initial.sql"),
    include_str!("migrations/0002_protocol_blocks.sql"),
    include_str!("migrations/0003_link_counters.sql"),
    include_str!("migrations/0004_cell_shape.sql"),
    include_str!("migrations/0005_plans.sql"),
    include_str!("migrations/0006_fast_counter.sql"),
    include_str!("migrations/0007_channels.sql"),
    include_str!("migrations/0008_floor_bare.sql"),
    include_str!("migrations/0009_floor_slot64.sql"),
    include_str!("migrations/0010_cell_disturbance.sql"),
    include_str!("migrations/0011_timing_resolution.sql"),
    include_str!("migrations/0012_run_verdict.sql"),
    include_str!("migrations/0013_run_labels.sql"),
    include_str!("migrations/0014_run_origin.sql"),
    include_str!("migrations/0015_state_probe.sql"),
    include_str!("migrations/0016_state_wake.sql"),
];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// `PRAGMA application_id` of an icbench results database: "icb1" in ASCII.
pub(crate) const APPLICATION_ID: i32 = 0x6963_6231;

/// How long a writer waits for another connection's lock before giving up.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Per-connection settings: lock waits, foreign keys, WAL and durability.
///
/// `synchronous = FULL` syncs the WAL at every commit. Commits happen between
/// cells (never inside a timed loop), a cell takes far longer than a sync,
/// and boards are the kind of machine whose power gets pulled: a finished
/// cell should survive that, not only a crash of the process.
pub(crate) fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "foreign_keys", true)?;
    // Returns the mode in force: "wal" for a file, "memory" in memory. A file
    // system without shared-memory support keeps the rollback journal, which
    // is slower for concurrent readers but still correct.
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(())
}

/// The file's `(application_id, user_version)`.
fn identity(conn: &Connection) -> rusqlite::Result<(i32, i64)> {
    let app: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    Ok((app, version))
}

/// Whether the file's schema is this build's: `false` for an older (or
/// empty) icbench file, an error for one that is not icbench's or is newer.
pub(crate) fn current(conn: &Connection, path: &str) -> Result<bool, StoreError> {
    let target = MIGRATIONS.len() as i64;
    let (app, version) =
        identity(conn).map_err(|source| StoreError::Open { path: path.to_string(), source })?;
    check_identity(conn, path, app, version, target)?;
    Ok(app == APPLICATION_ID && version == target)
}

/// A new icbench file at `path` with only the first `version` migrations,
/// as an older icbench left it. For tests.
#[cfg(test)]
pub(crate) fn create_at_version(path: &std::path::Path, version: i64) {
    let mut conn = Connection::open(path).unwrap();
    configure(&conn).unwrap();
    migrate_with(&mut conn, &path.display().to_string(), &MIGRATIONS[..version as usize]).unwrap();
}

/// Checks that the file is icbench's (or empty) and not newer than this
/// build, then applies the missing migrations.
pub(crate) fn migrate(conn: &mut Connection, path: &str) -> Result<(), StoreError> {
    migrate_with(conn, path, MIGRATIONS)
}

/// [`migrate`] with a given list of migrations, so tests can add one.
fn migrate_with(conn: &mut Connection, path: &str, migrations: &[&str]) -> Result<(), StoreError> {
    let target = migrations.len() as i64;
    let open_err = |source| StoreError::Open { path: path.to_string(), source };
    // Fast path without a write lock: already current.
    let (app, version) = identity(conn).map_err(open_err)?;
    check_identity(conn, path, app, version, target)?;
    if app == APPLICATION_ID && version == target {
        return Ok(());
    }

    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(open_err)?;
    // Another process may have migrated while we waited for the lock.
    let (app, version) = identity(&tx).map_err(open_err)?;
    check_identity(&tx, path, app, version, target)?;
    let start = usize::try_from(version).expect("check_identity refused a negative version");
    for sql in &migrations[start..] {
        tx.execute_batch(sql).map_err(open_err)?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID).map_err(open_err)?;
    tx.pragma_update(None, "user_version", target).map_err(open_err)?;
    tx.commit().map_err(open_err)
}

fn check_identity(
    conn: &Connection,
    path: &str,
    app: i32,
    version: i64,
    known: i64,
) -> Result<(), StoreError> {
    let not_ours = || StoreError::NotIcbench { path: path.to_string() };
    if app == APPLICATION_ID {
        if version > known {
            return Err(StoreError::NewerSchema { path: path.to_string(), found: version, known });
        }
        if version < 0 {
            return Err(not_ours());
        }
        return Ok(());
    }
    if app != 0 || version != 0 {
        return Err(not_ours());
    }
    // No marks at all: fine if the file is empty (new), not if it holds
    // another program's tables.
    let objects: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
        .map_err(|source| StoreError::Open { path: path.to_string(), source })?;
    if objects > 0 {
        return Err(not_ours());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        configure(&conn).unwrap();
        conn
    }

    fn version(conn: &Connection) -> i64 {
        identity(conn).unwrap().1
    }

    fn table_exists(conn: &Connection, name: &str) -> bool {
        conn.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
            [name],
            |r| r.get::<_, i64>(0),
        )
        .unwrap()
            == 1
    }

    #[test]
    fn connection_settings_are_in_force() {
        let conn = fresh();
        let fk: i64 = conn.pragma_query_value(None, "foreign_keys", |r| r.get(0)).unwrap();
        assert_eq!(fk, 1);
        let busy: i64 = conn.pragma_query_value(None, "busy_timeout", |r| r.get(0)).unwrap();
        assert_eq!(busy, BUSY_TIMEOUT.as_millis() as i64);
        let sync: i64 = conn.pragma_query_value(None, "synchronous", |r| r.get(0)).unwrap();
        assert_eq!(sync, 2, "FULL");
    }

    #[test]
    fn foreign_keys_reject_a_cell_of_a_missing_run() {
        let mut conn = fresh();
        migrate(&mut conn, ":memory:").unwrap();
        let err = conn
            .execute(
                "INSERT INTO cells (run_id, seq, created_unix_ns, link, pattern, size_bytes, status, reason)
                 VALUES (999, 0, 0, 'shm', 'pingpong', 1, 'failed', 'x')",
                [],
            )
            .unwrap_err();
        assert!(err.to_string().contains("FOREIGN KEY"), "{err}");
    }

    #[test]
    fn a_failing_migration_leaves_the_file_as_it_was() {
        let mut conn = fresh();
        let err = migrate_with(
            &mut conn,
            "test.db",
            &[
                "CREATE TABLE first (x INTEGER);",
                "CREATE TABLE second (y INTEGER); THIS IS NOT SQL;",
            ],
        )
        .unwrap_err();
        assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
        assert_eq!(version(&conn), 0);
        assert!(!table_exists(&conn, "first"), "the whole upgrade must roll back");
        assert!(!table_exists(&conn, "second"));
        // And the real schema still applies afterwards.
        migrate(&mut conn, "test.db").unwrap();
        assert_eq!(version(&conn), SCHEMA_VERSION);
    }

    #[test]
    fn schema_1_cells_survive_migration_2_with_no_protocol() {
        let mut conn = fresh();
        migrate_with(&mut conn, "t", &MIGRATIONS[..1]).unwrap();
        conn.execute_batch(
            "INSERT INTO runs (status, started_unix_ns, cpu_model, online_cpus, host_cpu, peer_cpu,
                               peer_mode, sched_policy, mlock, kernel_release, hostname,
                               icbench_version, command_line_json, clock)
             VALUES ('finished', 1, 'cpu', '0-1', 0, 1, 'process', 'other', 0, 'k', 'h', 'v',
                     '[]', 'c');
             INSERT INTO cells (run_id, seq, created_unix_ns, link, pattern, size_bytes, status,
                                reason)
             VALUES (1, 0, 0, 'pipe', 'pingpong', 64, 'failed', 'x');",
        )
        .unwrap();
        migrate(&mut conn, "t").unwrap();
        assert_eq!(version(&conn), SCHEMA_VERSION);
        let row: (String, Option<String>, Option<i64>) = conn
            .query_row("SELECT link, protocol, blocks FROM cells", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap();
        assert_eq!(row, ("pipe".to_string(), None, None));
        // The new columns refuse what no icbench writes.
        let bad = conn.execute("UPDATE cells SET protocol = 'morse'", []);
        assert!(bad.unwrap_err().to_string().contains("CHECK"));
        let bad = conn.execute("UPDATE cells SET blocks = 0", []);
        assert!(bad.unwrap_err().to_string().contains("CHECK"));
    }

    #[test]
    fn runs_from_before_the_fast_counter_read_as_not_examined() {
        let mut conn = fresh();
        let before = MIGRATIONS.iter().position(|m| m.contains("fc_counter")).unwrap();
        migrate_with(&mut conn, "t", &MIGRATIONS[..before]).unwrap();
        conn.execute_batch(
            "INSERT INTO runs (status, started_unix_ns, cpu_model, online_cpus, host_cpu, peer_cpu,
                               peer_mode, sched_policy, mlock, kernel_release, hostname,
                               icbench_version, command_line_json, clock)
             VALUES ('finished', 1, 'cpu', '0-1', 0, 1, 'process', 'other', 0, 'k', 'h', 'v',
                     '[]', 'c');",
        )
        .unwrap();
        migrate(&mut conn, "t").unwrap();
        let row: (Option<String>, Option<i64>, Option<f64>) = conn
            .query_row("SELECT fc_counter, fc_trusted, fc_hz FROM runs", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap();
        assert_eq!(row, (None, None, None));
        let bad = conn.execute("UPDATE runs SET fc_trusted = 2", []);
        assert!(bad.unwrap_err().to_string().contains("CHECK"));
    }

    #[test]
    fn only_missing_migrations_are_applied_in_order() {
        let mut conn = fresh();
        let v1 = ["CREATE TABLE a (x INTEGER);"];
        migrate_with(&mut conn, "t", &v1).unwrap();
        conn.execute("INSERT INTO a VALUES (1)", []).unwrap();
        // Re-running v2 from scratch would fail on "table a already exists".
        let v2 = [v1[0], "ALTER TABLE a ADD COLUMN y INTEGER DEFAULT 7;"];
        migrate_with(&mut conn, "t", &v2).unwrap();
        migrate_with(&mut conn, "t", &v2).unwrap();
        assert_eq!(version(&conn), 2);
        let row: (i64, i64) =
            conn.query_row("SELECT x, y FROM a", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        assert_eq!(row, (1, 7));
        // A binary that knows only v1 refuses the file.
        let err = migrate_with(&mut conn, "t", &v1).unwrap_err();
        assert!(matches!(err, StoreError::NewerSchema { found: 2, known: 1, .. }), "{err:?}");
    }
}
