//! [`Store`]: the typed API over the results database. Every SQL statement
//! icbench runs is in this file or in `migrations/`.

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
     WHEN 'wakeup' THEN 'oneway' WHEN 'oneway' THEN 'oneway' ELSE 'rtt' END";

/// An open results database.
///
/// Writes take `&mut self` and each commits before returning, so whatever a
/// call reported as done is on disk even if the process dies right after.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    /// The path as given, for messages (`:memory:` in memory).
    path: String,
}

/// One line of `icbench runs`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    pub id: RunId,
    pub source: RunSource,
    pub status: RunStatus,
    pub started_unix_ns: i64,
    pub ended_unix_ns: Option<i64>,
    pub hostname: String,
    pub cpu_model: String,
    pub host_cpu: u32,
    pub peer_cpu: u32,
    pub cells_ok: u64,
    pub cells_failed: u64,
    /// Cells the link could not carry (status `n/a`).
    pub cells_na: u64,
    /// The floor's cache-line round trip (ns) and memcpy (B/s) at the head
    /// of the run, and both again at its tail, where measured.
    pub floor_cacheline_rtt_ns: Option<f64>,
    pub floor_memcpy_bytes_per_s: Option<f64>,
    pub floor_tail: Option<FloorTail>,
}

/// A run as stored: its metadata and its cells in the order they finished.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub id: RunId,
    pub source: RunSource,
    /// Where an imported run came from; `None` when measured.
    pub provenance: Option<String>,
    pub meta: RunMeta,
    pub cells: Vec<CellResult>,
    /// Sanity warnings attached with [`Store::add_warning`], in order.
    pub warnings: Vec<String>,
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
        Store::init(conn, path_str)
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
        Ok(Store { conn, path })
    }

    /// The database's path as given to [`Store::open`] (`:memory:` in memory).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Records the start of a measured run. `meta` is stored as given
    /// (normally with status `Running`, no end time and no floor yet).
    pub fn begin_run(&mut self, meta: &RunMeta) -> Result<RunId, StoreError> {
        self.begin_run_with_source(meta, &RunSource::Measured, None)
    }

    /// Records a run from any source; importers pass
    /// `RunSource::Imported(format)` and a provenance such as the log's file
    /// name. `meta` is stored as given, so an import can store a finished run
    /// in one call and then add its cells.
    pub fn begin_run_with_source(
        &mut self,
        meta: &RunMeta,
        source: &RunSource,
        provenance: Option<&str>,
    ) -> Result<RunId, StoreError> {
        let path = self.path.as_str();
        let (sched_policy, sched_priority) = sched_columns(meta.sched);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, "recording a new run"))?;
        tx.execute(
            "INSERT INTO runs (
                    source, provenance, status, started_unix_ns, ended_unix_ns,
                    cpu_model, online_cpus, host_cpu, peer_cpu, peer_mode,
                    sched_policy, sched_priority, mlock, kernel_release, governor,
                    hostname, icbench_version, git_commit, command_line_json, clock,
                    clock_overhead_ns, notes_json
                 ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                           ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
            params![
                source.to_string(),
                provenance,
                meta.status.as_str(),
                meta.started_unix_ns,
                meta.ended_unix_ns,
                meta.cpu_model,
                meta.online_cpus,
                meta.host_cpu,
                meta.peer_cpu,
                meta.peer_mode.as_str(),
                sched_policy,
                sched_priority,
                meta.mlock,
                meta.kernel_release,
                meta.governor,
                meta.hostname,
                meta.icbench_version,
                meta.git_commit,
                strings_to_json(&meta.command_line),
                meta.clock,
                meta.clock_overhead_ns,
                strings_to_json(&meta.notes),
            ],
        )
        .map_err(sql(path, "recording a new run"))?;
        let run = RunId(tx.last_insert_rowid());
        if let Some(floor) = &meta.floor {
            write_floor(&tx, path, run, floor)?;
        }
        if let Some(fc) = &meta.fast_counter {
            write_fast_counter(&tx, path, run, fc)?;
        }
        tx.commit().map_err(sql(path, "recording a new run"))?;
        Ok(run)
    }

    /// Records the floor measured at the head of a run.
    pub fn set_floor(&mut self, run: RunId, floor: &Floor) -> Result<(), StoreError> {
        let n = write_floor(&self.conn, self.path.as_str(), run, floor)?;
        self.one_row(n, run)
    }

    /// Records the floor measured again at the tail of a run.
    pub fn set_floor_tail(&mut self, run: RunId, tail: &FloorTail) -> Result<(), StoreError> {
        let n = self
            .conn
            .execute(
                "UPDATE runs SET floor_tail_cacheline_rtt_ns = ?2, floor_tail_memcpy_bytes_per_s = ?3
                 WHERE id = ?1",
                params![run.0, tail.cacheline_rtt_ns, tail.memcpy_bytes_per_s],
            )
            .map_err(sql(self.path.as_str(), "recording the floor at the tail"))?;
        self.one_row(n, run)
    }

    /// Records what was found of the CPU's fast counter.
    pub fn set_fast_counter(&mut self, run: RunId, fc: &FastCounter) -> Result<(), StoreError> {
        let n = write_fast_counter(&self.conn, self.path.as_str(), run, fc)?;
        self.one_row(n, run)
    }

    /// Records how a run ended. `floor`, when given, replaces the stored
    /// one; `None` keeps whatever [`Store::set_floor`] stored. `notes`
    /// replaces the run's notes.
    pub fn finish_run(
        &mut self,
        run: RunId,
        status: RunStatus,
        ended_unix_ns: i64,
        floor: Option<&Floor>,
        notes: &[String],
    ) -> Result<(), StoreError> {
        let path = self.path.as_str();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, "finishing a run"))?;
        let n = tx
            .execute(
                "UPDATE runs SET status = ?2, ended_unix_ns = ?3, notes_json = ?4 WHERE id = ?1",
                params![run.0, status.as_str(), ended_unix_ns, strings_to_json(notes)],
            )
            .map_err(sql(path, "finishing a run"))?;
        if n == 0 {
            return Err(self_no_such_run(path, run));
        }
        if let Some(floor) = floor {
            write_floor(&tx, path, run, floor)?;
        }
        tx.commit().map_err(sql(path, "finishing a run"))
    }

    /// Attaches a sanity warning to a run (importers: "3 replies were short").
    pub fn add_warning(&mut self, run: RunId, message: &str) -> Result<(), StoreError> {
        let path = self.path.as_str();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, "adding a warning"))?;
        if !run_exists(&tx, path, run)? {
            return Err(self_no_such_run(path, run));
        }
        tx.execute(
            "INSERT INTO run_warnings (run_id, message) VALUES (?1, ?2)",
            params![run.0, message],
        )
        .map_err(sql(path, "adding a warning"))?;
        tx.commit().map_err(sql(path, "adding a warning"))
    }

    /// Stores one finished cell of `run`, with its histogram and raw samples,
    /// and commits it before returning.
    pub fn insert_cell(&mut self, run: RunId, cell: &CellResult) -> Result<CellId, StoreError> {
        self.insert_plan_cell(run, cell, None)
    }

    /// [`Store::insert_cell`] for a cell of the run's plan, recording its
    /// index in the plan in the same transaction.
    pub fn insert_plan_cell(
        &mut self,
        run: RunId,
        cell: &CellResult,
        plan_index: Option<u32>,
    ) -> Result<CellId, StoreError> {
        const OP: &str = "storing a cell";
        let path = self.path.as_str();
        let size_bytes = to_i64(path, "cell size_bytes", cell.key.size_bytes)?;
        let mut reason = None;
        let mut max_bytes = None;
        let mut measured = None;
        let mut histogram = None;
        let mut raw = None;
        let mut shape: (Option<u32>, Option<Adaptive>) = (None, None);
        let mut channels = Vec::new();
        let mut disturbance = None;
        let mut cut_at_messages = None;
        match &cell.outcome {
            CellOutcome::Measured(d) => {
                shape = (d.channels, d.adaptive);
                disturbance = d.disturbance;
                cut_at_messages =
                    d.cut_at_messages.map(|c| to_i64(path, "cut_at_messages", c)).transpose()?;
                channels = channel_rows(path, &d.per_channel)?;
                measured = Some((
                    to_i64(path, "cell messages", d.messages)?,
                    to_i64(path, "cell bytes", d.bytes)?,
                    to_i64(path, "cell elapsed_ns", d.elapsed_ns)?,
                    to_i64(path, "cell warmup_messages", d.warmup_messages)?,
                    d.window,
                    to_i64(path, "cell tx_busy", d.counters.tx_busy)?,
                ));
                if let Some(h) = &d.latency {
                    histogram =
                        Some((h.to_blob(), to_i64(path, "histogram clamped", h.clamped())?));
                }
                if let Some(samples) = &d.raw_ns {
                    let blob: Vec<u8> = samples.iter().flat_map(|v| v.to_le_bytes()).collect();
                    let count = to_i64(path, "raw sample count", samples.len() as u64)?;
                    raw = Some((count, blob));
                }
            }
            CellOutcome::Failed { reason: r } => reason = Some(r.as_str()),
            CellOutcome::NotApplicable { max_bytes: m } => {
                max_bytes = Some(to_i64(path, "cell max_bytes", *m)?);
            }
        }
        let (messages, bytes, elapsed_ns, warmup_messages, window, tx_busy) = match measured {
            Some((m, b, e, w, win, busy)) => (Some(m), Some(b), Some(e), Some(w), win, Some(busy)),
            None => (None, None, None, None, None, None),
        };

        let factors_json = (!cell.key.factors.is_empty()).then(|| {
            serde_json::to_string(&cell.key.factors).expect("a map of strings always serialises")
        });

        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, OP))?;
        if !run_exists(&tx, path, run)? {
            return Err(self_no_such_run(path, run));
        }
        let seq: i64 = tx
            .query_row(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM cells WHERE run_id = ?1",
                [run.0],
                |r| r.get(0),
            )
            .map_err(sql(path, OP))?;
        tx.execute(
            "INSERT INTO cells (
                run_id, seq, created_unix_ns, link, pattern, size_bytes, status, reason,
                max_bytes, messages, bytes, elapsed_ns, warmup_messages, window, factors_json,
                protocol, blocks, tx_busy, channels, ci_target_rel, ci_achieved_rel, ci_phases,
                ci_reached, cut_at_messages
             ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                       ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)",
            params![
                run.0,
                seq,
                now_unix_ns(),
                cell.key.link,
                cell.key.pattern.as_str(),
                size_bytes,
                cell.outcome.status_str(),
                reason,
                max_bytes,
                messages,
                bytes,
                elapsed_ns,
                warmup_messages,
                window,
                factors_json,
                cell.key.protocol,
                cell.key.blocks,
                tx_busy,
                shape.0,
                shape.1.map(|a| a.target_rel),
                shape.1.map(|a| a.achieved_rel),
                shape.1.map(|a| a.phases),
                shape.1.map(|a| a.reached),
                cut_at_messages,
            ],
        )
        .map_err(sql(path, OP))?;
        let cell_id = tx.last_insert_rowid();
        if let Some(i) = plan_index {
            tx.execute("UPDATE cells SET plan_index = ?2 WHERE id = ?1", params![cell_id, i])
                .map_err(sql(path, OP))?;
        }
        if let Some((blob, clamped)) = histogram {
            tx.execute(
                "INSERT INTO cell_histograms (cell_id, metric, blob, clamped) VALUES (?1, ?2, ?3, ?4)",
                params![cell_id, cell.key.pattern.metric(), blob, clamped],
            )
            .map_err(sql(path, OP))?;
        }
        if let Some((count, blob)) = raw {
            tx.execute(
                "INSERT INTO cell_raw_samples (cell_id, count, blob) VALUES (?1, ?2, ?3)",
                params![cell_id, count, blob],
            )
            .map_err(sql(path, OP))?;
        }
        for c in &channels {
            tx.execute(
                "INSERT INTO cell_channels (cell_id, channel, messages, bytes, start_offset_ns,
                                            active_ns, histogram, clamped)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    cell_id,
                    c.channel,
                    c.messages,
                    c.bytes,
                    c.start_offset_ns,
                    c.active_ns,
                    c.histogram,
                    c.clamped
                ],
            )
            .map_err(sql(path, OP))?;
        }
        if let Some(d) = &disturbance {
            crate::disturbance::write(&tx, path, cell_id, d)?;
        }
        tx.commit().map_err(sql(path, OP))?;
        Ok(CellId(cell_id))
    }

    /// Stores the plan a run executes and the settings it runs with (JSON
    /// the caller writes and reads; the store keeps it as text).
    pub fn set_plan(
        &mut self,
        run: RunId,
        plan_json: &str,
        settings_json: &str,
    ) -> Result<(), StoreError> {
        let path = self.path.as_str();
        let n = self
            .conn
            .execute(
                "INSERT INTO run_plans (run_id, plan_json, settings_json) VALUES (?1, ?2, ?3)
                 ON CONFLICT (run_id) DO UPDATE SET plan_json = ?2, settings_json = ?3",
                params![run.0, plan_json, settings_json],
            )
            .map_err(sql(path, "storing a run's plan"))?;
        self.one_row(n, run)
    }

    /// A run's stored plan: `(plan_json, settings_json, resumes)`, or `None`
    /// for a run stored without one (imported, or older than schema 5).
    pub fn plan(&self, run: RunId) -> Result<Option<(String, String, u32)>, StoreError> {
        let path = self.path.as_str();
        if !run_exists(&self.conn, path, run)? {
            return Err(self_no_such_run(path, run));
        }
        self.conn
            .query_row(
                "SELECT plan_json, settings_json, resumes FROM run_plans WHERE run_id = ?1",
                [run.0],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(sql(path, "reading a run's plan"))
    }

    /// The plan indexes of the cells stored for `run`, ascending.
    pub fn plan_indexes_done(&self, run: RunId) -> Result<Vec<u32>, StoreError> {
        let path = self.path.as_str();
        let mut st = self
            .conn
            .prepare(
                "SELECT DISTINCT plan_index FROM cells
                 WHERE run_id = ?1 AND plan_index IS NOT NULL ORDER BY plan_index",
            )
            .map_err(sql(path, "reading a run's finished cells"))?;
        st.query_map([run.0], |r| r.get::<_, u32>(0))
            .and_then(|rows| rows.collect())
            .map_err(sql(path, "reading a run's finished cells"))
    }

    /// Appends a note to a run's notes at once (a note the engine reports
    /// mid-run, e.g. the common-clock check, survives a kill).
    pub fn add_run_note(&mut self, run: RunId, note: &str) -> Result<(), StoreError> {
        self.edit_notes(run, note, "adding a run note", false)
    }

    /// Marks a stopped run as running again (`icbench run --resume`): status
    /// `running`, no end time, one more resume counted, `note` added.
    pub fn reopen_run(&mut self, run: RunId, note: &str) -> Result<(), StoreError> {
        self.edit_notes(run, note, "resuming a run", true)
    }

    /// Adds `note` to a run's notes; `reopen`: also mark it running again.
    fn edit_notes(
        &mut self,
        run: RunId,
        note: &str,
        op: &'static str,
        reopen: bool,
    ) -> Result<(), StoreError> {
        let path = self.path.as_str();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, op))?;
        let notes: Option<String> = tx
            .query_row("SELECT notes_json FROM runs WHERE id = ?1", [run.0], |r| r.get(0))
            .optional()
            .map_err(sql(path, op))?;
        let Some(notes) = notes else {
            return Err(self_no_such_run(path, run));
        };
        let mut notes = parse_strings(path, format!("notes of run {}", run.0), &notes)?;
        notes.push(note.to_string());
        tx.execute(
            "UPDATE runs SET notes_json = ?2 WHERE id = ?1",
            params![run.0, strings_to_json(&notes)],
        )
        .map_err(sql(path, op))?;
        if reopen {
            tx.execute(
                "UPDATE runs SET status = 'running', ended_unix_ns = NULL WHERE id = ?1",
                [run.0],
            )
            .map_err(sql(path, op))?;
            tx.execute("UPDATE run_plans SET resumes = resumes + 1 WHERE run_id = ?1", [run.0])
                .map_err(sql(path, op))?;
        }
        tx.commit().map_err(sql(path, op))
    }

    /// The id of the most recently started run, if any.
    pub fn latest_run_id(&self) -> Result<Option<RunId>, StoreError> {
        let id: Option<i64> = self
            .conn
            .query_row("SELECT MAX(id) FROM runs", [], |r| r.get(0))
            .map_err(sql(&self.path, "finding the latest run"))?;
        Ok(id.map(RunId))
    }

    /// Every run, oldest first, with its cell counts.
    pub fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        const OP: &str = "listing runs";
        let path = self.path.as_str();
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, r.source, r.status, r.started_unix_ns, r.ended_unix_ns,
                        r.hostname, r.cpu_model, r.host_cpu, r.peer_cpu,
                        COALESCE(SUM(c.status = 'ok'), 0),
                        COALESCE(SUM(c.status = 'failed'), 0),
                        COALESCE(SUM(c.status = 'n/a'), 0),
                        r.floor_cacheline_rtt_ns, r.floor_memcpy_bytes_per_s,
                        r.floor_tail_cacheline_rtt_ns, r.floor_tail_memcpy_bytes_per_s
                 FROM runs r LEFT JOIN cells c ON c.run_id = r.id
                 GROUP BY r.id
                 ORDER BY r.id",
            )
            .map_err(sql(path, OP))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    RunSummary {
                        id: RunId(0),
                        source: RunSource::Measured,
                        status: RunStatus::Running,
                        started_unix_ns: r.get(3)?,
                        ended_unix_ns: r.get(4)?,
                        hostname: r.get(5)?,
                        cpu_model: r.get(6)?,
                        host_cpu: r.get(7)?,
                        peer_cpu: r.get(8)?,
                        cells_ok: r.get(9)?,
                        cells_failed: r.get(10)?,
                        cells_na: r.get(11)?,
                        floor_cacheline_rtt_ns: r.get(12)?,
                        floor_memcpy_bytes_per_s: r.get(13)?,
                        floor_tail: match (r.get(14)?, r.get(15)?) {
                            (Some(cacheline_rtt_ns), Some(memcpy_bytes_per_s)) => {
                                Some(FloorTail { cacheline_rtt_ns, memcpy_bytes_per_s })
                            }
                            _ => None,
                        },
                    },
                ))
            })
            .map_err(sql(path, OP))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, source, status, mut summary) = row.map_err(sql(path, OP))?;
            summary.id = RunId(id);
            summary.source = parse_source(path, id, &source)?;
            summary.status = parse_status(path, id, &status)?;
            out.push(summary);
        }
        Ok(out)
    }

    /// Loads a run and all its cells, histograms and raw samples, as they
    /// were stored.
    pub fn load_run(&self, run: RunId) -> Result<StoredRun, StoreError> {
        const OP: &str = "loading a run";
        let path = self.path.as_str();
        // One read transaction: a consistent snapshot even while another
        // process is adding cells.
        let tx = self.conn.unchecked_transaction().map_err(sql(path, OP))?;
        let row = tx
            .query_row(
                "SELECT source, provenance, status, started_unix_ns, ended_unix_ns,
                        cpu_model, online_cpus, host_cpu, peer_cpu, peer_mode,
                        sched_policy, sched_priority, mlock, kernel_release, governor,
                        hostname, icbench_version, git_commit, command_line_json, clock,
                        clock_overhead_ns, floor_cacheline_rtt_ns, floor_memcpy_bytes_per_s,
                        floor_memcpy_block_bytes, notes_json,
                        floor_syscall_pipe_rtt_ns, floor_syscall_unix_rtt_ns, floor_two_line_rtt_ns,
                        floor_slot64_rtt_ns, floor_tail_cacheline_rtt_ns,
                        floor_tail_memcpy_bytes_per_s
                 FROM runs WHERE id = ?1",
                [run.0],
                |r| {
                    Ok(RunRow {
                        source: r.get(0)?,
                        provenance: r.get(1)?,
                        status: r.get(2)?,
                        started_unix_ns: r.get(3)?,
                        ended_unix_ns: r.get(4)?,
                        cpu_model: r.get(5)?,
                        online_cpus: r.get(6)?,
                        host_cpu: r.get(7)?,
                        peer_cpu: r.get(8)?,
                        peer_mode: r.get(9)?,
                        sched_policy: r.get(10)?,
                        sched_priority: r.get(11)?,
                        mlock: r.get(12)?,
                        kernel_release: r.get(13)?,
                        governor: r.get(14)?,
                        hostname: r.get(15)?,
                        icbench_version: r.get(16)?,
                        git_commit: r.get(17)?,
                        command_line_json: r.get(18)?,
                        clock: r.get(19)?,
                        clock_overhead_ns: r.get(20)?,
                        floor_cacheline_rtt_ns: r.get(21)?,
                        floor_memcpy_bytes_per_s: r.get(22)?,
                        floor_memcpy_block_bytes: r.get(23)?,
                        floor_syscall_pipe_rtt_ns: r.get(25)?,
                        floor_syscall_unix_rtt_ns: r.get(26)?,
                        floor_two_line_rtt_ns: r.get(27)?,
                        floor_slot64_rtt_ns: r.get(28)?,
                        floor_tail: match (r.get(29)?, r.get(30)?) {
                            (Some(cacheline_rtt_ns), Some(memcpy_bytes_per_s)) => {
                                Some(FloorTail { cacheline_rtt_ns, memcpy_bytes_per_s })
                            }
                            _ => None,
                        },
                        notes_json: r.get(24)?,
                    })
                },
            )
            .optional()
            .map_err(sql(path, OP))?
            .ok_or_else(|| self_no_such_run(path, run))?;
        let (source, provenance, mut meta) = row.into_meta(path, run)?;
        meta.fast_counter = read_fast_counter(&tx, path, run)?;
        if let Some(f) = meta.floor.as_mut() {
            read_bare_loops(&tx, path, run, f)?;
        }

        let mut stmt = tx
            .prepare(&format!(
                "SELECT c.id, c.link, c.pattern, c.size_bytes, c.status, c.reason, c.max_bytes,
                        c.messages, c.bytes, c.elapsed_ns, c.warmup_messages, c.window,
                        h.blob, h.clamped, s.count, s.blob, c.factors_json, c.protocol, c.blocks,
                        c.tx_busy, c.channels, c.ci_target_rel, c.ci_achieved_rel, c.ci_phases,
                        c.ci_reached, c.cut_at_messages
                 FROM cells c
                 LEFT JOIN cell_histograms h
                        ON h.cell_id = c.id AND h.metric = {METRIC_OF_PATTERN_SQL}
                 LEFT JOIN cell_raw_samples s ON s.cell_id = c.id
                 WHERE c.run_id = ?1
                 ORDER BY c.seq"
            ))
            .map_err(sql(path, OP))?;
        let rows = stmt
            .query_map(params![run.0], |r| {
                Ok(CellRow {
                    id: r.get(0)?,
                    link: r.get(1)?,
                    pattern: r.get(2)?,
                    size_bytes: r.get(3)?,
                    status: r.get(4)?,
                    reason: r.get(5)?,
                    max_bytes: r.get(6)?,
                    messages: r.get(7)?,
                    bytes: r.get(8)?,
                    elapsed_ns: r.get(9)?,
                    warmup_messages: r.get(10)?,
                    window: r.get(11)?,
                    hist_blob: r.get(12)?,
                    hist_clamped: r.get(13)?,
                    raw_count: r.get(14)?,
                    raw_blob: r.get(15)?,
                    factors_json: r.get(16)?,
                    protocol: r.get(17)?,
                    blocks: r.get(18)?,
                    tx_busy: r.get(19)?,
                    channels: r.get(20)?,
                    ci_target_rel: r.get(21)?,
                    ci_achieved_rel: r.get(22)?,
                    ci_phases: r.get(23)?,
                    ci_reached: r.get(24)?,
                    cut_at_messages: r.get(25)?,
                })
            })
            .map_err(sql(path, OP))?;
        let mut cells = Vec::new();
        let mut multi = Vec::new();
        let mut disturbance = crate::disturbance::load_run(&tx, path, run.0)?;
        for row in rows {
            let row = row.map_err(sql(path, OP))?;
            let id = row.id;
            let many = row.channels.is_some();
            let mut cell = row.into_result(path)?;
            if let CellOutcome::Measured(d) = &mut cell.outcome {
                d.disturbance = disturbance.remove(&id);
            }
            if many && matches!(cell.outcome, CellOutcome::Measured(_)) {
                multi.push((cells.len(), id));
            }
            cells.push(cell);
        }
        drop(stmt);
        for (i, id) in multi {
            if let CellOutcome::Measured(d) = &mut cells[i].outcome {
                d.per_channel = load_channels(&tx, path, id)?;
            }
        }

        let mut stmt = tx
            .prepare("SELECT message FROM run_warnings WHERE run_id = ?1 ORDER BY id")
            .map_err(sql(path, OP))?;
        let warnings = stmt
            .query_map([run.0], |r| r.get::<_, String>(0))
            .map_err(sql(path, OP))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(sql(path, OP))?;
        drop(stmt);
        tx.finish().map_err(sql(path, OP))?;

        Ok(StoredRun { id: run, source, provenance, meta, cells, warnings })
    }

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

/// A `runs` row as SQLite returns it, before it is checked.
struct RunRow {
    source: String,
    provenance: Option<String>,
    status: String,
    started_unix_ns: i64,
    ended_unix_ns: Option<i64>,
    cpu_model: String,
    online_cpus: String,
    host_cpu: u32,
    peer_cpu: u32,
    peer_mode: String,
    sched_policy: String,
    sched_priority: Option<u8>,
    mlock: bool,
    kernel_release: String,
    governor: Option<String>,
    hostname: String,
    icbench_version: String,
    git_commit: Option<String>,
    command_line_json: String,
    clock: String,
    clock_overhead_ns: Option<f64>,
    floor_cacheline_rtt_ns: Option<f64>,
    floor_memcpy_bytes_per_s: Option<f64>,
    floor_memcpy_block_bytes: Option<u64>,
    floor_syscall_pipe_rtt_ns: Option<f64>,
    floor_two_line_rtt_ns: Option<f64>,
    floor_slot64_rtt_ns: Option<f64>,
    floor_syscall_unix_rtt_ns: Option<f64>,
    floor_tail: Option<FloorTail>,
    notes_json: String,
}

impl RunRow {
    fn into_meta(
        self,
        path: &str,
        run: RunId,
    ) -> Result<(RunSource, Option<String>, RunMeta), StoreError> {
        let id = run.0;
        let peer_mode = match self.peer_mode.as_str() {
            "process" => PeerMode::Process,
            "thread" => PeerMode::Thread,
            other => {
                return Err(corrupt(path, format!("peer mode of run {id}"), format!("'{other}'")));
            }
        };
        let sched = match (self.sched_policy.as_str(), self.sched_priority) {
            ("other", None) => Sched::Other,
            ("fifo", Some(priority)) => Sched::Fifo { priority },
            (policy, priority) => {
                return Err(corrupt(
                    path,
                    format!("scheduling policy of run {id}"),
                    format!("'{policy}' with priority {priority:?}"),
                ));
            }
        };
        let floor = self.floor_memcpy_block_bytes.map(|block| Floor {
            cacheline_rtt_ns: nan_from_null(self.floor_cacheline_rtt_ns),
            memcpy_bytes_per_s: nan_from_null(self.floor_memcpy_bytes_per_s),
            memcpy_block_bytes: block,
            two_line_rtt_ns: self.floor_two_line_rtt_ns,
            slot64_rtt_ns: self.floor_slot64_rtt_ns,
            syscall_pipe_rtt_ns: self.floor_syscall_pipe_rtt_ns,
            syscall_unix_rtt_ns: self.floor_syscall_unix_rtt_ns,
            syscall_pipe: None,
            syscall_unix: None,
        });
        let meta = RunMeta {
            cpu_model: self.cpu_model,
            online_cpus: self.online_cpus,
            host_cpu: self.host_cpu,
            peer_cpu: self.peer_cpu,
            peer_mode,
            sched,
            mlock: self.mlock,
            kernel_release: self.kernel_release,
            governor: self.governor,
            hostname: self.hostname,
            icbench_version: self.icbench_version,
            git_commit: self.git_commit,
            command_line: parse_strings(
                path,
                format!("command line of run {id}"),
                &self.command_line_json,
            )?,
            started_unix_ns: self.started_unix_ns,
            ended_unix_ns: self.ended_unix_ns,
            clock: self.clock,
            clock_overhead_ns: nan_from_null(self.clock_overhead_ns),
            status: parse_status(path, id, &self.status)?,
            floor,
            floor_tail: self.floor_tail,
            fast_counter: None,
            notes: parse_strings(path, format!("notes of run {id}"), &self.notes_json)?,
        };
        Ok((parse_source(path, id, &self.source)?, self.provenance, meta))
    }
}

/// A `cells` row joined with its histogram and raw samples, before it is
/// checked.
struct CellRow {
    id: i64,
    link: String,
    pattern: String,
    size_bytes: u64,
    status: String,
    reason: Option<String>,
    max_bytes: Option<u64>,
    messages: Option<u64>,
    bytes: Option<u64>,
    elapsed_ns: Option<u64>,
    warmup_messages: Option<u64>,
    window: Option<u32>,
    hist_blob: Option<Vec<u8>>,
    hist_clamped: Option<u64>,
    raw_count: Option<u64>,
    raw_blob: Option<Vec<u8>>,
    factors_json: Option<String>,
    protocol: Option<String>,
    blocks: Option<u32>,
    tx_busy: Option<u64>,
    channels: Option<u32>,
    ci_target_rel: Option<f64>,
    ci_achieved_rel: Option<f64>,
    ci_phases: Option<u32>,
    ci_reached: Option<bool>,
    cut_at_messages: Option<u64>,
}

impl CellRow {
    fn into_result(self, path: &str) -> Result<CellResult, StoreError> {
        let id = self.id;
        let missing =
            |col: &str| corrupt(path, format!("cell {id}"), format!("status 'ok' without {col}"));
        let pattern = self.pattern.parse().map_err(|e| {
            corrupt(path, format!("pattern of cell {id} (written by a newer icbench?)"), e)
        })?;
        let outcome = match self.status.as_str() {
            "ok" => {
                let latency = match self.hist_blob {
                    Some(blob) => Some(
                        LatencyHistogram::from_blob(&blob, self.hist_clamped.unwrap_or(0))
                            .map_err(|e| corrupt(path, format!("histogram of cell {id}"), e))?,
                    ),
                    None => None,
                };
                let raw_ns = match self.raw_blob {
                    Some(blob) => Some(decode_raw(path, id, self.raw_count, &blob)?),
                    None => None,
                };
                CellOutcome::Measured(CellData {
                    messages: self.messages.ok_or_else(|| missing("messages"))?,
                    bytes: self.bytes.ok_or_else(|| missing("bytes"))?,
                    elapsed_ns: self.elapsed_ns.ok_or_else(|| missing("elapsed_ns"))?,
                    warmup_messages: self
                        .warmup_messages
                        .ok_or_else(|| missing("warmup_messages"))?,
                    latency,
                    raw_ns,
                    window: self.window,
                    counters: LinkCounters { tx_busy: self.tx_busy.unwrap_or(0) },
                    channels: self.channels,
                    per_channel: Vec::new(),
                    disturbance: None,
                    cut_at_messages: self.cut_at_messages,
                    adaptive: match (self.ci_target_rel, self.ci_phases, self.ci_reached) {
                        (Some(target_rel), Some(phases), Some(reached)) => Some(Adaptive {
                            target_rel,
                            achieved_rel: nan_from_null(self.ci_achieved_rel),
                            phases,
                            reached,
                        }),
                        _ => None,
                    },
                })
            }
            "failed" => CellOutcome::Failed { reason: self.reason.unwrap_or_default() },
            "n/a" => CellOutcome::NotApplicable {
                max_bytes: self.max_bytes.ok_or_else(|| {
                    corrupt(path, format!("cell {id}"), "status 'n/a' without max_bytes")
                })?,
            },
            other => {
                return Err(corrupt(path, format!("status of cell {id}"), format!("'{other}'")));
            }
        };
        let factors = match self.factors_json {
            Some(json) => serde_json::from_str(&json)
                .map_err(|e| corrupt(path, format!("factors of cell {id}"), e))?,
            None => Default::default(),
        };
        Ok(CellResult {
            key: CellKey {
                link: self.link,
                pattern,
                size_bytes: self.size_bytes,
                protocol: self.protocol,
                blocks: self.blocks,
                factors,
            },
            outcome,
        })
    }
}

fn decode_raw(
    path: &str,
    id: i64,
    count: Option<u64>,
    blob: &[u8],
) -> Result<Vec<u64>, StoreError> {
    let chunks = blob.chunks_exact(8);
    if !chunks.remainder().is_empty() || count != Some((blob.len() / 8) as u64) {
        return Err(corrupt(
            path,
            format!("raw samples of cell {id}"),
            format!("{} bytes for {count:?} samples of 8 bytes", blob.len()),
        ));
    }
    Ok(chunks
        .map(|c| u64::from_le_bytes(c.try_into().expect("chunks_exact gives 8 bytes")))
        .collect())
}

/// Writes a run's floor columns; returns the number of rows changed.
fn write_floor(
    conn: &rusqlite::Connection,
    path: &str,
    run: RunId,
    floor: &Floor,
) -> Result<usize, StoreError> {
    let block = to_i64(path, "floor memcpy_block_bytes", floor.memcpy_block_bytes)?;
    conn.execute(
        "UPDATE runs SET floor_cacheline_rtt_ns = ?2, floor_memcpy_bytes_per_s = ?3,
                         floor_memcpy_block_bytes = ?4, floor_syscall_pipe_rtt_ns = ?5,
                         floor_syscall_unix_rtt_ns = ?6, floor_two_line_rtt_ns = ?7,
                         floor_slot64_rtt_ns = ?8
         WHERE id = ?1",
        params![
            run.0,
            floor.cacheline_rtt_ns,
            floor.memcpy_bytes_per_s,
            block,
            floor.syscall_pipe_rtt_ns,
            floor.syscall_unix_rtt_ns,
            floor.two_line_rtt_ns,
            floor.slot64_rtt_ns
        ],
    )
    .map_err(sql(path, "recording the floor"))
    .and_then(|n| {
        write_bare_loops(conn, path, run, floor)?;
        Ok(n)
    })
}

/// Replaces a run's `floor_bare_loops` rows with the floor's comparisons.
fn write_bare_loops(
    conn: &rusqlite::Connection,
    path: &str,
    run: RunId,
    floor: &Floor,
) -> Result<(), StoreError> {
    const OP: &str = "recording the bare-loop comparisons";
    conn.execute("DELETE FROM floor_bare_loops WHERE run_id = ?1", [run.0])
        .map_err(sql(path, OP))?;
    for (link, c) in [("pipe", &floor.syscall_pipe), ("unix", &floor.syscall_unix)] {
        let Some(c) = c else { continue };
        conn.execute(
            "INSERT INTO floor_bare_loops (run_id, link, size_bytes, bare_rtt_ns, icbench_rtt_ns,
                                           ratio_ci95_lo, ratio_ci95_hi, samples, blocks)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                run.0,
                link,
                to_i64(path, "bare-loop size_bytes", c.size_bytes)?,
                c.bare_rtt_ns,
                c.icbench_rtt_ns,
                c.ratio_ci95_lo,
                c.ratio_ci95_hi,
                to_i64(path, "bare-loop samples", c.samples)?,
                c.blocks
            ],
        )
        .map_err(sql(path, OP))?;
    }
    Ok(())
}

/// Reads a run's `floor_bare_loops` rows into its floor.
fn read_bare_loops(
    conn: &rusqlite::Connection,
    path: &str,
    run: RunId,
    floor: &mut Floor,
) -> Result<(), StoreError> {
    const OP: &str = "loading the bare-loop comparisons";
    let mut stmt = conn
        .prepare(
            "SELECT link, size_bytes, bare_rtt_ns, icbench_rtt_ns, ratio_ci95_lo, ratio_ci95_hi,
                    samples, blocks
             FROM floor_bare_loops WHERE run_id = ?1",
        )
        .map_err(sql(path, OP))?;
    let rows = stmt
        .query_map([run.0], |r| {
            let (bare, icb): (f64, f64) = (r.get(2)?, r.get(3)?);
            Ok((
                r.get::<_, String>(0)?,
                BareComparison {
                    size_bytes: r.get(1)?,
                    bare_rtt_ns: bare,
                    icbench_rtt_ns: icb,
                    ratio: icb / bare,
                    ratio_ci95_lo: r.get(4)?,
                    ratio_ci95_hi: r.get(5)?,
                    samples: r.get(6)?,
                    blocks: r.get(7)?,
                },
            ))
        })
        .map_err(sql(path, OP))?;
    for row in rows {
        let (link, c) = row.map_err(sql(path, OP))?;
        match link.as_str() {
            "pipe" => floor.syscall_pipe = Some(c),
            "unix" => floor.syscall_unix = Some(c),
            other => {
                return Err(corrupt(
                    path,
                    format!("bare-loop link of run {}", run.0),
                    format!("'{other}'"),
                ));
            }
        }
    }
    Ok(())
}

/// Writes a run's fast-counter columns; returns the number of rows changed.
fn write_fast_counter(
    conn: &rusqlite::Connection,
    path: &str,
    run: RunId,
    fc: &FastCounter,
) -> Result<usize, StoreError> {
    conn.execute(
        "UPDATE runs SET fc_counter = ?2, fc_hz = ?3, fc_declared_hz = ?4, fc_read_ns = ?5,
                         fc_trusted = ?6, fc_reason = ?7, fc_max_deviation_ns = ?8,
                         fc_drift_ppm = ?9
         WHERE id = ?1",
        params![
            run.0,
            fc.counter,
            fc.hz,
            fc.declared_hz,
            fc.read_ns,
            fc.trusted,
            fc.reason,
            fc.max_deviation_ns,
            fc.drift_ppm
        ],
    )
    .map_err(sql(path, "recording the fast counter"))
}

/// A run's fast counter; `None` when it was not examined (`fc_trusted` NULL).
fn read_fast_counter(
    conn: &rusqlite::Connection,
    path: &str,
    run: RunId,
) -> Result<Option<FastCounter>, StoreError> {
    conn.query_row(
        "SELECT fc_counter, fc_hz, fc_declared_hz, fc_read_ns, fc_trusted, fc_reason,
                fc_max_deviation_ns, fc_drift_ppm
         FROM runs WHERE id = ?1",
        [run.0],
        |r| {
            let Some(trusted) = r.get::<_, Option<bool>>(4)? else { return Ok(None) };
            Ok(Some(FastCounter {
                counter: r.get(0)?,
                hz: r.get(1)?,
                declared_hz: r.get(2)?,
                read_ns: r.get(3)?,
                trusted,
                reason: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                max_deviation_ns: r.get(6)?,
                drift_ppm: r.get(7)?,
            }))
        },
    )
    .map_err(sql(path, "loading the fast counter"))
}

/// A `cell_channels` row, checked and ready to insert.
struct ChannelRow {
    channel: u32,
    messages: i64,
    bytes: i64,
    start_offset_ns: i64,
    active_ns: i64,
    histogram: Option<Vec<u8>>,
    clamped: i64,
}

fn channel_rows(path: &str, chans: &[ChannelData]) -> Result<Vec<ChannelRow>, StoreError> {
    chans
        .iter()
        .map(|c| {
            Ok(ChannelRow {
                channel: c.channel,
                messages: to_i64(path, "channel messages", c.messages)?,
                bytes: to_i64(path, "channel bytes", c.bytes)?,
                start_offset_ns: to_i64(path, "channel start_offset_ns", c.start_offset_ns)?,
                active_ns: to_i64(path, "channel active_ns", c.active_ns)?,
                histogram: c.latency.as_ref().map(LatencyHistogram::to_blob),
                clamped: to_i64(
                    path,
                    "channel histogram clamped",
                    c.latency.as_ref().map_or(0, LatencyHistogram::clamped),
                )?,
            })
        })
        .collect()
}

/// The channels of multi-channel cell `id`, by channel index.
fn load_channels(conn: &Connection, path: &str, id: i64) -> Result<Vec<ChannelData>, StoreError> {
    const OP: &str = "loading a cell's channels";
    let mut stmt = conn
        .prepare_cached(
            "SELECT channel, messages, bytes, start_offset_ns, active_ns, histogram, clamped
             FROM cell_channels WHERE cell_id = ?1 ORDER BY channel",
        )
        .map_err(sql(path, OP))?;
    let rows = stmt
        .query_map([id], |r| {
            Ok((
                r.get::<_, u32>(0)?,
                r.get::<_, u64>(1)?,
                r.get::<_, u64>(2)?,
                r.get::<_, u64>(3)?,
                r.get::<_, u64>(4)?,
                r.get::<_, Option<Vec<u8>>>(5)?,
                r.get::<_, u64>(6)?,
            ))
        })
        .map_err(sql(path, OP))?;
    let mut out = Vec::new();
    for row in rows {
        let (channel, messages, bytes, start_offset_ns, active_ns, blob, clamped) =
            row.map_err(sql(path, OP))?;
        let latency = match blob {
            Some(b) => Some(LatencyHistogram::from_blob(&b, clamped).map_err(|e| {
                corrupt(path, format!("histogram of channel {channel} of cell {id}"), e)
            })?),
            None => None,
        };
        out.push(ChannelData { channel, messages, bytes, start_offset_ns, active_ns, latency });
    }
    Ok(out)
}
