//! A database opened only to be read (issue #30 item 11): `runs`, `show`,
//! `model`, `export` and `report` never write to the file they are given —
//! `icbench runs --db /dev/null` made `/dev/null-journal`, and a read of an
//! older file migrated it in place. A current file is read as it is (never
//! created: a missing one is an error); an older one is read through a
//! migrated copy ([`Store::open_snapshot`]), and stays as it was.

use std::ops::Deref;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::{Snapshot, Store};
use crate::error::StoreError;
use crate::schema;

/// A store open for reading: the file itself, read-only, or a migrated
/// copy of an older one. Derefs to the [`Store`] its reads go through.
#[derive(Debug)]
pub enum Reading {
    /// The file itself, opened read-only: its schema is current.
    Direct(Store),
    /// A migrated copy of an older file, deleted when dropped.
    Copy(Snapshot),
}

impl Deref for Reading {
    type Target = Store;

    fn deref(&self) -> &Store {
        match self {
            Reading::Direct(s) => s,
            Reading::Copy(s) => &s.store,
        }
    }
}

impl Store {
    /// Opens the results database at `path` for reading only: it is never
    /// created, migrated or written, and an older file is read through a
    /// migrated copy. A file that is not icbench's, or is newer than this
    /// build, is refused as [`Store::open`] refuses it.
    pub fn open_read_only(path: &Path) -> Result<Reading, StoreError> {
        let shown = path.display().to_string();
        let open_err = |source| StoreError::Open { path: shown.clone(), source };
        // Opened for writing where it may be (never created, never written)
        // so that SQLite removes its `-wal` and `-shm` files on closing as
        // a writer does; read-only where the file or its directory is not
        // writable (a run someone else measured, a read-only mount).
        let flags = OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn =
            match Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_READ_WRITE)
                .and_then(|c| schema::configure(&c).map(|()| c))
            {
                Ok(c) => c,
                Err(_) => {
                    let c =
                        Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_READ_ONLY)
                            .map_err(open_err)?;
                    c.busy_timeout(schema::BUSY_TIMEOUT).map_err(open_err)?;
                    c
                }
            };
        if !schema::current(&conn, &shown)? {
            drop(conn);
            return Store::open_snapshot(path).map(Reading::Copy);
        }
        Ok(Reading::Direct(Store { conn, path: shown, file: None }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(p: &Path) -> Vec<u8> {
        std::fs::read(p).unwrap()
    }

    #[test]
    fn a_current_file_is_read_in_place_and_an_older_one_through_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        drop(Store::open(&path).unwrap());
        let before = bytes(&path);
        let r = Store::open_read_only(&path).unwrap();
        assert!(matches!(r, Reading::Direct(_)));
        assert!(r.list_runs().unwrap().is_empty());
        drop(r);
        assert_eq!(bytes(&path), before, "a read changed the file");

        let old = dir.path().join("old.db");
        schema::create_at_version(&old, schema::SCHEMA_VERSION - 1);
        let before = bytes(&old);
        let r = Store::open_read_only(&old).unwrap();
        assert!(matches!(r, Reading::Copy(_)), "an older file is read through a copy");
        assert!(r.list_runs().unwrap().is_empty());
        drop(r);
        assert_eq!(bytes(&old), before, "reading an older file migrated it in place");
    }

    #[test]
    fn what_is_not_a_database_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, b"not a database, and longer than a header would need to be\n")
            .unwrap();
        assert!(Store::open_read_only(&path).is_err());
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "a read left {left:?} behind");
        assert!(Store::open_read_only(&dir.path().join("absent.db")).is_err());
        assert!(!dir.path().join("absent.db").exists());
    }
}
