//! The floor measured with a run (at its head and tail), the bare-loop
//! comparisons and the fast counter: `runs` columns and their tables.

use super::*;

impl Store {
    /// Records the floor measured at the head of a run.
    pub fn set_floor(&mut self, run: RunId, floor: &Floor) -> Result<(), StoreError> {
        let n = write_floor(&self.conn, self.path.as_str(), run, floor)?;
        self.one_row(n, run)
    }

    /// Records the floor measured again at the tail of a run.
    pub fn set_floor_tail(&mut self, run: RunId, tail: &FloorTail) -> Result<(), StoreError> {
        let n = write_floor_tail(&self.conn, self.path.as_str(), run, tail)?;
        self.one_row(n, run)
    }

    /// Records what was found of the CPU's fast counter.
    pub fn set_fast_counter(&mut self, run: RunId, fc: &FastCounter) -> Result<(), StoreError> {
        let n = write_fast_counter(&self.conn, self.path.as_str(), run, fc)?;
        self.one_row(n, run)
    }
}

/// Writes the floor at a run's tail; returns the number of rows changed.
pub(super) fn write_floor_tail(
    conn: &rusqlite::Connection,
    path: &str,
    run: RunId,
    tail: &FloorTail,
) -> Result<usize, StoreError> {
    conn.execute(
        "UPDATE runs SET floor_tail_cacheline_rtt_ns = ?2, floor_tail_memcpy_bytes_per_s = ?3
         WHERE id = ?1",
        params![run.0, tail.cacheline_rtt_ns, tail.memcpy_bytes_per_s],
    )
    .map_err(sql(path, "recording the floor at the tail"))
}

/// Writes a run's floor columns; returns the number of rows changed.
pub(super) fn write_floor(
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
pub(super) fn write_bare_loops(
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
pub(super) fn read_bare_loops(
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
pub(super) fn write_fast_counter(
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
pub(super) fn read_fast_counter(
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
