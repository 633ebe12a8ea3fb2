//! One cell of a run: its row, histogram, raw samples and channels,
//! written in one transaction and read back checked.

use super::*;

impl Store {
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
        let path = self.path.as_str();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql(path, CELL_OP))?;
        let id = write_cell(&tx, path, run, cell, plan_index)?;
        tx.commit().map_err(sql(path, CELL_OP))?;
        Ok(id)
    }
}

const CELL_OP: &str = "storing a cell";

/// Writes one cell of `run` with its histogram, raw samples, channels and
/// counters inside the caller's transaction.
pub(super) fn write_cell(
    tx: &Connection,
    path: &str,
    run: RunId,
    cell: &CellResult,
    plan_index: Option<u32>,
) -> Result<CellId, StoreError> {
    const OP: &str = CELL_OP;
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
    let mut timed_batch = None;
    let mut state = None;
    match &cell.outcome {
        CellOutcome::Measured(d) => {
            shape = (d.channels, d.adaptive);
            disturbance = d.disturbance;
            cut_at_messages =
                d.cut_at_messages.map(|c| to_i64(path, "cut_at_messages", c)).transpose()?;
            timed_batch = d.timed_batch;
            state = d
                .state
                .map(|p| {
                    let cost = to_i64(path, "state probe_ns", p.cost_ns)?;
                    Ok::<_, StoreError>((p.line_rtt_ns, cost, p.wake_rtt_ns))
                })
                .transpose()?;
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
                histogram = Some((h.to_blob(), to_i64(path, "histogram clamped", h.clamped())?));
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

    if !run_exists(tx, path, run)? {
        return Err(self_no_such_run(path, run));
    }
    let seq: i64 = tx
        .query_row("SELECT COALESCE(MAX(seq) + 1, 0) FROM cells WHERE run_id = ?1", [run.0], |r| {
            r.get(0)
        })
        .map_err(sql(path, OP))?;
    tx.execute(
        "INSERT INTO cells (
            run_id, seq, created_unix_ns, link, pattern, size_bytes, status, reason,
            max_bytes, messages, bytes, elapsed_ns, warmup_messages, window, factors_json,
            protocol, blocks, tx_busy, channels, ci_target_rel, ci_achieved_rel, ci_phases,
            ci_reached, cut_at_messages, timed_batch, state_line_rtt_ns, state_probe_ns,
            state_wake_rtt_ns
         ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                   ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)",
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
            timed_batch,
            state.map(|s| s.0),
            state.map(|s| s.1),
            state.and_then(|s| s.2),
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
        crate::disturbance::write(tx, path, cell_id, d)?;
    }
    Ok(CellId(cell_id))
}

/// A `cells` row joined with its histogram and raw samples, before it is
/// checked.
pub(super) struct CellRow {
    pub(super) id: i64,
    pub(super) link: String,
    pub(super) pattern: String,
    pub(super) size_bytes: u64,
    pub(super) status: String,
    pub(super) reason: Option<String>,
    pub(super) max_bytes: Option<u64>,
    pub(super) messages: Option<u64>,
    pub(super) bytes: Option<u64>,
    pub(super) elapsed_ns: Option<u64>,
    pub(super) warmup_messages: Option<u64>,
    pub(super) window: Option<u32>,
    pub(super) hist_blob: Option<Vec<u8>>,
    pub(super) hist_clamped: Option<u64>,
    pub(super) raw_count: Option<u64>,
    pub(super) raw_blob: Option<Vec<u8>>,
    pub(super) factors_json: Option<String>,
    pub(super) protocol: Option<String>,
    pub(super) blocks: Option<u32>,
    pub(super) tx_busy: Option<u64>,
    pub(super) channels: Option<u32>,
    pub(super) ci_target_rel: Option<f64>,
    pub(super) ci_achieved_rel: Option<f64>,
    pub(super) ci_phases: Option<u32>,
    pub(super) ci_reached: Option<bool>,
    pub(super) cut_at_messages: Option<u64>,
    pub(super) timed_batch: Option<u32>,
    pub(super) state_line_rtt_ns: Option<f64>,
    pub(super) state_probe_ns: Option<u64>,
    pub(super) state_wake_rtt_ns: Option<f64>,
}

impl CellRow {
    pub(super) fn into_result(self, path: &str) -> Result<CellResult, StoreError> {
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
                    timed_batch: self.timed_batch,
                    state: match (self.state_line_rtt_ns, self.state_probe_ns) {
                        (Some(line_rtt_ns), Some(cost_ns)) => Some(icbench_model::StateProbe {
                            line_rtt_ns,
                            wake_rtt_ns: self.state_wake_rtt_ns,
                            cost_ns,
                            probes: 1,
                        }),
                        _ => None,
                    },
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
pub(super) fn load_channels(
    conn: &Connection,
    path: &str,
    id: i64,
) -> Result<Vec<ChannelData>, StoreError> {
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
