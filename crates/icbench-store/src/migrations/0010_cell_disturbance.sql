-- icbench results database, schema 10: what disturbed each cell, and where
-- a cell was cut short, and the floor at the tail of the run (issue #15).
--
-- One row per end (side = 'host' or 'peer') of a measured cell: the
-- kernel's counters read before and after the cell, differenced
-- (icbench-engine's disturb module). span_ns: between the two readings.
-- A counter the machine did not offer is NULL, never 0. Cells measured
-- before schema 10, and imported cells, have no rows.
CREATE TABLE cell_disturbance (
    cell_id               INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
    side                  TEXT NOT NULL CHECK (side IN ('host', 'peer')),
    span_ns               INTEGER NOT NULL,
    cpu                   INTEGER NOT NULL CHECK (cpu >= 0),
    steal_ns              INTEGER,
    interrupts            INTEGER,
    softirqs              INTEGER,
    voluntary_switches    INTEGER,
    involuntary_switches  INTEGER,
    migrations            INTEGER,
    runq_wait_ns          INTEGER,
    freq_khz_min          INTEGER,
    freq_khz_max          INTEGER,
    PRIMARY KEY (cell_id, side)
) WITHOUT ROWID;

-- The measured phase was cut at this many messages (the engine's cap)
-- before the cell time was filled; NULL when the cell time set the count.
ALTER TABLE cells ADD COLUMN cut_at_messages INTEGER;

-- The floor's cheap part measured again after the last cell (cache-line
-- round trip, ns; memcpy, B/s): NULL when not measured.
ALTER TABLE runs ADD COLUMN floor_tail_cacheline_rtt_ns REAL;
ALTER TABLE runs ADD COLUMN floor_tail_memcpy_bytes_per_s REAL;
