//! A run's life in the store: begun, its warnings, notes and plan kept,
//! finished.

use super::*;

impl Store {
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
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, "recording a new run"))?;
        let run = write_run(&tx, path, meta, source, provenance)?;
        tx.commit().map_err(sql(path, "recording a new run"))?;
        Ok(run)
    }

    /// Stores a whole imported run — its row, every cell and every warning —
    /// in one transaction: a failure anywhere leaves no run behind
    /// (issue #22: "a failed import leaves no run").
    pub fn import_run(
        &mut self,
        meta: &RunMeta,
        source: &RunSource,
        provenance: &str,
        cells: &[CellResult],
        warnings: &[String],
    ) -> Result<RunId, StoreError> {
        const OP: &str = "storing an imported run";
        let path = self.path.as_str();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, OP))?;
        let run = write_run(&tx, path, meta, source, Some(provenance))?;
        for c in cells {
            super::cells::write_cell(&tx, path, run, c, None)?;
        }
        for w in warnings {
            write_warning(&tx, path, run, w)?;
        }
        tx.commit().map_err(sql(path, OP))?;
        Ok(run)
    }

    /// Stores whole runs as another store or a bundle holds them (issue #31:
    /// `icbench import -f bundle`), in one transaction: each with its own
    /// source and provenance (a measured run stays measured), metadata,
    /// cells, warnings and plan. A failure stores none of them.
    pub fn insert_runs(&mut self, runs: &[WholeRun<'_>]) -> Result<Vec<RunId>, StoreError> {
        const OP: &str = "storing whole runs";
        let path = self.path.as_str();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, OP))?;
        let mut ids = Vec::with_capacity(runs.len());
        for r in runs {
            let run = write_run(&tx, path, r.meta, r.source, r.provenance)?;
            for c in r.cells {
                super::cells::write_cell(&tx, path, run, c, None)?;
            }
            for w in r.warnings {
                write_warning(&tx, path, run, w)?;
            }
            if let Some((plan, settings)) = r.plan {
                tx.execute(
                    "INSERT INTO run_plans (run_id, plan_json, settings_json) VALUES (?1, ?2, ?3)",
                    params![run.0, plan, settings],
                )
                .map_err(sql(path, "storing a run's plan"))?;
            }
            ids.push(run);
        }
        tx.commit().map_err(sql(path, OP))?;
        Ok(ids)
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

    /// Records the verdict a run printed on its own figures (issue #15):
    /// `runs` lists it without rebuilding every run.
    pub fn set_verdict(&mut self, run: RunId, verdict: &str) -> Result<(), StoreError> {
        let path = self.path.as_str();
        let n = self
            .conn
            .execute("UPDATE runs SET verdict = ?2 WHERE id = ?1", params![run.0, verdict])
            .map_err(sql(path, "storing a run's verdict"))?;
        if n == 0 {
            return Err(self_no_such_run(path, run));
        }
        Ok(())
    }

    /// Labels a stored run (`icbench label`, issue #29), or takes its label
    /// away with `None`: `compare --baseline NAME` and `runs --label NAME`
    /// find it by this.
    pub fn set_label(&mut self, run: RunId, label: Option<&str>) -> Result<(), StoreError> {
        let path = self.path.as_str();
        let n = self
            .conn
            .execute("UPDATE runs SET label = ?2 WHERE id = ?1", params![run.0, label])
            .map_err(sql(path, "labelling a run"))?;
        if n == 0 {
            return Err(self_no_such_run(path, run));
        }
        Ok(())
    }

    /// Attaches a sanity warning to a run (importers: "3 replies were short").
    pub fn add_warning(&mut self, run: RunId, message: &str) -> Result<(), StoreError> {
        let path = self.path.as_str();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, "adding a warning"))?;
        write_warning(&tx, path, run, message)?;
        tx.commit().map_err(sql(path, "adding a warning"))
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
}

/// Writes a run's row (with its floor and fast counter) inside the
/// caller's transaction.
pub(super) fn write_run(
    tx: &Connection,
    path: &str,
    meta: &RunMeta,
    source: &RunSource,
    provenance: Option<&str>,
) -> Result<RunId, StoreError> {
    let (sched_policy, sched_priority) = sched_columns(meta.sched);
    tx.execute(
        "INSERT INTO runs (
                    source, provenance, status, started_unix_ns, ended_unix_ns,
                    cpu_model, online_cpus, host_cpu, peer_cpu, peer_mode,
                    sched_policy, sched_priority, mlock, kernel_release, governor,
                    hostname, icbench_version, git_commit, command_line_json, clock,
                    clock_overhead_ns, notes_json, clock_granule_ns, label, user_note
                 ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                           ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)",
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
            meta.clock_granule_ns,
            meta.label,
            meta.user_note,
        ],
    )
    .map_err(sql(path, "recording a new run"))?;
    let run = RunId(tx.last_insert_rowid());
    if let Some(floor) = &meta.floor {
        write_floor(tx, path, run, floor)?;
    }
    if let Some(fc) = &meta.fast_counter {
        write_fast_counter(tx, path, run, fc)?;
    }
    // A merged run keeps its floor at the tail, and with it whether the
    // floor moved (issue #29: merge dropped it, and "UNSTABLE" with it).
    if let Some(tail) = &meta.floor_tail {
        super::floor::write_floor_tail(tx, path, run, tail)?;
    }
    Ok(run)
}

/// Adds a warning to `run` inside the caller's transaction.
pub(super) fn write_warning(
    tx: &Connection,
    path: &str,
    run: RunId,
    message: &str,
) -> Result<(), StoreError> {
    if !run_exists(tx, path, run)? {
        return Err(self_no_such_run(path, run));
    }
    tx.execute(
        "INSERT INTO run_warnings (run_id, message) VALUES (?1, ?2)",
        params![run.0, message],
    )
    .map_err(sql(path, "adding a warning"))?;
    Ok(())
}

/// A run whole, for [`Store::insert_runs`].
#[derive(Debug, Clone, Copy)]
pub struct WholeRun<'a> {
    pub meta: &'a RunMeta,
    pub source: &'a RunSource,
    pub provenance: Option<&'a str>,
    pub cells: &'a [CellResult],
    pub warnings: &'a [String],
    /// The plan and the settings, as [`Store::set_plan`] takes them.
    pub plan: Option<(&'a str, &'a str)>,
}
