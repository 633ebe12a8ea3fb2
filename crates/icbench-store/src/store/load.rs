//! Reading runs back: the list of runs and one run whole, each row
//! checked before it becomes a model type.

use super::*;

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
    /// The verdict the run printed when it ended ([`Store::set_verdict`]);
    /// `None` before schema 12, while measuring, and for imports.
    pub verdict: Option<String>,
    /// The run's label (`run --label`), if given.
    pub label: Option<String>,
    /// Where a merged run came from (`icbench merge`).
    pub origin: Option<String>,
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

impl Store {
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
                        r.floor_tail_cacheline_rtt_ns, r.floor_tail_memcpy_bytes_per_s,
                        r.verdict, r.label, r.origin
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
                        verdict: r.get(16)?,
                        label: r.get(17)?,
                        origin: r.get(18)?,
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
                        floor_tail_memcpy_bytes_per_s, clock_granule_ns, label, user_note
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
                        clock_granule_ns: r.get(31)?,
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
                        label: r.get(32)?,
                        user_note: r.get(33)?,
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
                        c.ci_reached, c.cut_at_messages, c.timed_batch, c.state_line_rtt_ns,
                        c.state_probe_ns, c.state_wake_rtt_ns
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
                    timed_batch: r.get(26)?,
                    state_line_rtt_ns: r.get(27)?,
                    state_probe_ns: r.get(28)?,
                    state_wake_rtt_ns: r.get(29)?,
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
    clock_granule_ns: Option<f64>,
    floor_cacheline_rtt_ns: Option<f64>,
    floor_memcpy_bytes_per_s: Option<f64>,
    floor_memcpy_block_bytes: Option<u64>,
    floor_syscall_pipe_rtt_ns: Option<f64>,
    floor_two_line_rtt_ns: Option<f64>,
    floor_slot64_rtt_ns: Option<f64>,
    floor_syscall_unix_rtt_ns: Option<f64>,
    floor_tail: Option<FloorTail>,
    notes_json: String,
    label: Option<String>,
    user_note: Option<String>,
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
            clock_granule_ns: nan_from_null(self.clock_granule_ns),
            status: parse_status(path, id, &self.status)?,
            floor,
            floor_tail: self.floor_tail,
            fast_counter: None,
            notes: parse_strings(path, format!("notes of run {id}"), &self.notes_json)?,
            label: self.label,
            user_note: self.user_note,
        };
        Ok((parse_source(path, id, &self.source)?, self.provenance, meta))
    }
}
