-- icbench results database, schema 8: the pipe and unix links measured
-- against the bare write/read loop of the same system calls, interleaved
-- under the same conditions at the head of a run (issue 2's ±5 % target;
-- icbench-engine's bare module).
--
-- One row per link and run. The bare loop's median is also kept in
-- runs.floor_syscall_<link>_rtt_ns (schema 1), as before. The ratio is
-- icbench_rtt_ns / bare_rtt_ns; ratio_ci95_lo/hi its 95 % interval (hull of
-- the pooled bootstrap and the paired-blocks t interval). samples: round trips on each side (equal); blocks:
-- blocks on each side, the sides alternating block by block.
CREATE TABLE floor_bare_loops (
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    link            TEXT NOT NULL CHECK (link IN ('pipe', 'unix')),
    size_bytes      INTEGER NOT NULL CHECK (size_bytes > 0),
    bare_rtt_ns     REAL NOT NULL,
    icbench_rtt_ns  REAL NOT NULL,
    ratio_ci95_lo   REAL NOT NULL,
    ratio_ci95_hi   REAL NOT NULL,
    samples         INTEGER NOT NULL,
    blocks          INTEGER NOT NULL,
    PRIMARY KEY (run_id, link)
) WITHOUT ROWID;
