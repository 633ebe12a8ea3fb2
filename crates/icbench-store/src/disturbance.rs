//! A cell's disturbance counters (schema 10, `cell_disturbance`): written
//! with the cell, in its transaction, and loaded for a whole run at once.
//! A counter the machine did not offer is NULL, never 0 (issue #15).

use std::collections::HashMap;

use icbench_model::{Disturbance, EndDisturbance};
use rusqlite::{Connection, params};

use crate::error::StoreError;
use crate::store::{sql, to_i64};

const OP_WRITE: &str = "storing a cell's disturbance";
const OP_READ: &str = "loading the cells' disturbance";

/// Stores both ends of `d` for cell `cell_id`.
pub(crate) fn write(
    conn: &Connection,
    path: &str,
    cell_id: i64,
    d: &Disturbance,
) -> Result<(), StoreError> {
    let span = to_i64(path, "disturbance span_ns", d.span_ns)?;
    let opt = |what: &'static str, v: Option<u64>| v.map(|v| to_i64(path, what, v)).transpose();
    for (side, e) in [("host", &d.host), ("peer", &d.peer)] {
        conn.execute(
            "INSERT INTO cell_disturbance (
                cell_id, side, span_ns, cpu, steal_ns, interrupts, softirqs,
                voluntary_switches, involuntary_switches, migrations, runq_wait_ns,
                freq_khz_min, freq_khz_max
             ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                cell_id,
                side,
                span,
                e.cpu,
                opt("steal_ns", e.steal_ns)?,
                opt("interrupts", e.interrupts)?,
                opt("softirqs", e.softirqs)?,
                opt("voluntary_switches", e.voluntary_switches)?,
                opt("involuntary_switches", e.involuntary_switches)?,
                opt("migrations", e.migrations)?,
                opt("runq_wait_ns", e.runq_wait_ns)?,
                opt("freq_khz_min", e.freq_khz_min)?,
                opt("freq_khz_max", e.freq_khz_max)?,
            ],
        )
        .map_err(sql(path, OP_WRITE))?;
    }
    Ok(())
}

/// Every cell of run `run` that has counters, by cell id.
pub(crate) fn load_run(
    conn: &Connection,
    path: &str,
    run: i64,
) -> Result<HashMap<i64, Disturbance>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT d.cell_id, d.side, d.span_ns, d.cpu, d.steal_ns, d.interrupts, d.softirqs,
                    d.voluntary_switches, d.involuntary_switches, d.migrations, d.runq_wait_ns,
                    d.freq_khz_min, d.freq_khz_max
             FROM cell_disturbance d JOIN cells c ON c.id = d.cell_id
             WHERE c.run_id = ?1",
        )
        .map_err(sql(path, OP_READ))?;
    let rows = stmt
        .query_map([run], |r| {
            let end = EndDisturbance {
                cpu: r.get(3)?,
                steal_ns: r.get(4)?,
                interrupts: r.get(5)?,
                softirqs: r.get(6)?,
                voluntary_switches: r.get(7)?,
                involuntary_switches: r.get(8)?,
                migrations: r.get(9)?,
                runq_wait_ns: r.get(10)?,
                freq_khz_min: r.get(11)?,
                freq_khz_max: r.get(12)?,
            };
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, u64>(2)?, end))
        })
        .map_err(sql(path, OP_READ))?;
    let mut out: HashMap<i64, Disturbance> = HashMap::new();
    for row in rows {
        let (id, side, span_ns, end) = row.map_err(sql(path, OP_READ))?;
        let d = out.entry(id).or_default();
        d.span_ns = span_ns;
        match side.as_str() {
            "host" => d.host = end,
            _ => d.peer = end,
        }
    }
    Ok(out)
}
