//! One owner per run. A process measuring a run holds two locks on the
//! byte at the run's number for as long as it measures, and the kernel
//! drops both when the process ends, however it ends (kill -9 included):
//!
//! - an open-file-description lock (fcntl(2) F_OFD_SETLK) on the database
//!   file itself, at [`DB_LOCK_BASE`] + the run: the authority. It cannot
//!   be removed by accident — deleting `<db>.lock` once let a second
//!   `--resume` measure a run beside its owner, 59 cells stored for 24
//!   (issue #30 item 4);
//! - a POSIX record lock (F_SETLK) in `<db>.lock`, beside the database,
//!   which names the owner: F_GETLK reports its pid (an OFD lock has none).
//!
//! So `run --resume N` while another process measures N is refused, naming
//! that process when it can (issue #22), and a run stored as `running` that
//! nobody holds was left by a process that is gone: `icbench runs` shows it
//! as `abandoned` (resumable).
//!
//! Closing any descriptor of a file releases every POSIX lock the process
//! holds on it — SQLite's own on the database included (fcntl(2), "the
//! process's locks on that file are released"). So a descriptor of the
//! database opened here is never closed: [`DbFd`] unlocks and leaks it,
//! and the lock file is opened once, by [`Claim`], and kept open.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// Where a run's lock byte lies in the database file: far past SQLite's
/// own lock bytes (1 GiB + 0 … 511, sqlite3 os_unix.c's PENDING_BYTE) and
/// past any real database's end (a lock may lie beyond a file's end).
const DB_LOCK_BASE: i64 = 1 << 40;

/// The lock file of a database.
fn lock_path(db: &Path) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(".lock");
    PathBuf::from(p)
}

fn record(kind: libc::c_short, start: i64) -> libc::flock {
    // SAFETY: flock is plain old data; every field that matters is set
    // (l_pid 0, as an OFD lock requires).
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    fl.l_start = start as libc::off_t;
    fl.l_len = 1;
    fl
}

/// A descriptor of the database file that is never closed (module doc):
/// dropped, it gives up its OFD lock and is leaked.
#[derive(Debug)]
struct DbFd(Option<File>);

impl DbFd {
    fn open(db: &Path) -> std::io::Result<DbFd> {
        OpenOptions::new().read(true).write(true).open(db).map(|f| DbFd(Some(f)))
    }

    fn fd(&self) -> i32 {
        self.0.as_ref().map_or(-1, AsRawFd::as_raw_fd)
    }

    /// Takes the OFD write lock of `run`: `Ok(false)` when another open
    /// file description holds it.
    fn lock(&self, run: i64) -> std::io::Result<bool> {
        let fl = record(libc::F_WRLCK as libc::c_short, DB_LOCK_BASE + run);
        // SAFETY: fcntl on an open descriptor with a valid flock.
        if unsafe { libc::fcntl(self.fd(), libc::F_OFD_SETLK, &fl) } == 0 {
            return Ok(true);
        }
        let err = std::io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::EACCES | libc::EAGAIN) => Ok(false),
            _ => Err(err),
        }
    }

    /// Whether another open file description holds `run`'s lock.
    fn held(&self, run: i64) -> Option<bool> {
        let mut fl = record(libc::F_WRLCK as libc::c_short, DB_LOCK_BASE + run);
        // SAFETY: fcntl on an open descriptor with a valid flock it fills in.
        let r = unsafe { libc::fcntl(self.fd(), libc::F_OFD_GETLK, &mut fl) };
        (r == 0).then_some(fl.l_type != libc::F_UNLCK as libc::c_short)
    }
}

impl Drop for DbFd {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            let fl = record(libc::F_UNLCK as libc::c_short, 0);
            let all = libc::flock { l_len: 0, ..fl };
            // SAFETY: fcntl on an open descriptor with a valid flock.
            unsafe { libc::fcntl(f.as_raw_fd(), libc::F_OFD_SETLK, &all) };
            std::mem::forget(f);
        }
    }
}

/// A run held by this process while it measures; dropped, released.
#[derive(Debug)]
pub(crate) struct Claim {
    _db: Option<DbFd>,
    _file: File,
}

/// Why a run could not be claimed.
#[derive(Debug)]
pub(crate) enum Refused {
    /// Another process measures it: its pid, when its lock file still says.
    Held(Option<i32>),
    /// The lock file cannot be made or locked (read-only directory …).
    Io(std::io::Error),
}

/// Claims run `id` for this process, for as long as it measures: `run`
/// and `run --resume`, and the runs `chip`, `timer`, `wakeup` and `irq`
/// begin (before, those four held none, and `icbench runs` showed each as
/// `abandoned` while it was being measured). A database whose lock file
/// cannot be made is measured all the same, saying what is lost; a run
/// another process holds is refused, naming it.
pub(crate) fn run(db: &Path, id: icbench_store::RunId) -> anyhow::Result<Option<Claim>> {
    use crate::error::bad;
    match claim(db, id.0) {
        Ok(c) => Ok(Some(c)),
        Err(Refused::Held(Some(pid))) => Err(bad(format!(
            "run {id} is being measured by process {pid}: wait for it, or stop it (kill {pid}) \
             and then resume"
        ))),
        Err(Refused::Held(None)) => Err(bad(format!(
            "run {id} is being measured by another process (its lock file {}.lock is gone, so \
             it cannot be named): wait for it, or stop it, and then resume",
            db.display()
        ))),
        Err(Refused::Io(e)) => {
            crate::errln!(
                "icbench: warning: cannot lock {}.lock ({e}): nothing stops a second `--resume {id}` \
                 from measuring this run at the same time",
                db.display()
            );
            Ok(None)
        }
    }
}

/// Claims run `run` of the database at `db` for this process.
pub(crate) fn claim(db: &Path, run: i64) -> Result<Claim, Refused> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock_path(db))
        .map_err(Refused::Io)?;
    // The authority first. A kernel or emulator without OFD locks (EINVAL)
    // leaves the lock file alone to decide, as before.
    let dbfd = DbFd::open(db).ok();
    let mut ofd = None;
    if let Some(d) = dbfd {
        match d.lock(run) {
            Ok(true) => ofd = Some(d),
            Ok(false) => return Err(Refused::Held(holder_of(&file, run))),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
            Err(e) => return Err(Refused::Io(e)),
        }
    }
    let fl = record(libc::F_WRLCK as libc::c_short, run);
    // SAFETY: fcntl on an open descriptor with a valid flock.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &fl) } == 0 {
        return Ok(Claim { _db: ofd, _file: file });
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::EACCES | libc::EAGAIN) => match holder_of(&file, run) {
            Some(pid) => Err(Refused::Held(Some(pid))),
            None => Err(Refused::Io(err)),
        },
        _ => Err(Refused::Io(err)),
    }
}

fn holder_of(file: &File, run: i64) -> Option<i32> {
    let mut fl = record(libc::F_WRLCK as libc::c_short, run);
    // SAFETY: fcntl on an open descriptor with a valid flock it fills in.
    let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &mut fl) };
    (r == 0 && fl.l_type != libc::F_UNLCK as libc::c_short).then_some(fl.l_pid)
}

/// Whether a process measures run `run`: the database's OFD lock where the
/// kernel has them, else the lock file's (none: no icbench of this
/// version ever measured there). Not for the process that holds a
/// [`Claim`] (closing a descriptor of the lock file would release its
/// locks).
pub(crate) fn held(db: &Path, run: i64) -> bool {
    if let Some(h) = DbFd::open(db).ok().and_then(|d| d.held(run)) {
        return h;
    }
    File::open(lock_path(db)).ok().and_then(|f| holder_of(&f, run)).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claimed_run_is_refused_to_another_process_and_free_after() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let held = claim(&db, 3).unwrap();
        // A record lock does not conflict within its own process: ask a
        // child, as `runs` and a second `--resume` would.
        let ask = |run: i64| {
            let script = format!(
                "import fcntl,struct,os; f=open({:?},'rb+'); \
                 r=fcntl.fcntl(f,fcntl.F_GETLK,struct.pack('hhqqi',fcntl.F_WRLCK,0,{run},1,0)); \
                 t,w,s,l,p=struct.unpack('hhqqi',r); print(p if t!=fcntl.F_UNLCK else 0)",
                lock_path(&db)
            );
            let out = std::process::Command::new("python3").args(["-c", &script]).output();
            out.ok().and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse::<i32>().ok())
        };
        let Some(pid) = ask(3) else {
            eprintln!("SKIP lock holder from another process: python3 cannot read it here");
            return;
        };
        assert_eq!(pid, std::process::id() as i32);
        assert_eq!(ask(4), Some(0), "only the run's own byte is held");
        drop(held);
        assert_eq!(ask(3), Some(0), "released with the claim");
    }
}

/// Processes other than this one that hold a write lock on the database,
/// its WAL or its shared-memory index (`/proc/locks`, proc(5)), with their
/// command names: who keeps a store locked, for a message. Empty when it
/// cannot tell (no /proc, another mount namespace, a lock of another kind).
pub(crate) fn db_writers(db: &Path) -> Vec<(i32, String)> {
    use std::os::unix::fs::MetadataExt;
    let mut files = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        if let Ok(m) = std::fs::metadata(PathBuf::from(p)) {
            files.push((libc::major(m.dev()), libc::minor(m.dev()), m.ino()));
        }
    }
    let me = std::process::id() as i32;
    let Ok(locks) = std::fs::read_to_string("/proc/locks") else { return Vec::new() };
    let mut out: Vec<(i32, String)> = Vec::new();
    for pid in locks.lines().filter_map(|l| writer_of(l, &files)) {
        if pid != me && !out.iter().any(|(p, _)| *p == pid) {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            out.push((pid, comm.trim().to_string()));
        }
    }
    out
}

/// The pid of a granted write lock line of `/proc/locks` on one of `files`
/// (major, minor, inode): `1: POSIX  ADVISORY  WRITE 6222 fe:00:11550858 1 1`.
fn writer_of(line: &str, files: &[(u32, u32, u64)]) -> Option<i32> {
    let w: Vec<&str> = line.split_whitespace().collect();
    // A waiting request is shown as `1: -> POSIX …`: not a holder.
    if w.get(1) == Some(&"->") || w.get(3) != Some(&"WRITE") {
        return None;
    }
    // An OFD lock (`OFDLCK`, icbench's own run lock among them) has no
    // owning process: pid -1.
    let pid = w.get(4)?.parse().ok().filter(|&p: &i32| p > 0)?;
    let mut id = w.get(5)?.split(':');
    let major = u32::from_str_radix(id.next()?, 16).ok()?;
    let minor = u32::from_str_radix(id.next()?, 16).ok()?;
    let inode: u64 = id.next()?.parse().ok()?;
    files.contains(&(major, minor, inode)).then_some(pid)
}

#[cfg(test)]
mod writer_tests {
    use super::writer_of;

    #[test]
    fn a_granted_write_lock_on_one_of_the_files_names_its_process() {
        let files = [(0xfe, 0, 11_550_858)];
        assert_eq!(
            writer_of("1: POSIX  ADVISORY  WRITE 6222 fe:00:11550858 1 1", &files),
            Some(6222)
        );
        // A read lock, another file, a waiter: none.
        assert_eq!(writer_of("2: POSIX  ADVISORY  READ 6222 fe:00:11550858 128 128", &files), None);
        assert_eq!(writer_of("3: POSIX  ADVISORY  WRITE 7 fe:00:11550859 1 1", &files), None);
        assert_eq!(writer_of("1: -> POSIX  ADVISORY  WRITE 8 fe:00:11550858 1 1", &files), None);
        assert_eq!(writer_of("garbage", &files), None);
        assert_eq!(
            writer_of("4: OFDLCK ADVISORY  WRITE -1 fe:00:11550858 1099511627777 1", &files),
            None
        );
    }
}
