-- icbench results database, schema 1.
--
-- Applied by src/schema.rs inside one transaction, which then sets
-- PRAGMA user_version = 1. Never edit a migration that has shipped: add the
-- next numbered file instead.
--
-- Units are in the column names (ARCHITECTURE rule 5). Unsigned counts are
-- stored as INTEGER (i64); the store refuses values above i64::MAX rather
-- than wrap them. A REAL that was NaN is stored as NULL and read back as NaN.

-- One execution of a plan on one machine, or one imported log.
CREATE TABLE runs (
    id                      INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused, even after a delete
    -- 'measured' for runs icbench made; 'imported:<format>' for imported logs.
    source                  TEXT    NOT NULL DEFAULT 'measured'
                                    CHECK (source = 'measured' OR source LIKE 'imported:_%'),
    -- Where an imported run came from (file name, checksum …); NULL when measured.
    provenance              TEXT,
    status                  TEXT    NOT NULL
                                    CHECK (status IN ('running', 'finished', 'interrupted')),
    started_unix_ns         INTEGER NOT NULL,
    ended_unix_ns           INTEGER,
    cpu_model               TEXT    NOT NULL,
    online_cpus             TEXT    NOT NULL,
    host_cpu                INTEGER NOT NULL,
    peer_cpu                INTEGER NOT NULL,
    peer_mode               TEXT    NOT NULL CHECK (peer_mode IN ('process', 'thread')),
    sched_policy            TEXT    NOT NULL CHECK (sched_policy IN ('other', 'fifo')),
    sched_priority          INTEGER CHECK ((sched_policy = 'fifo') = (sched_priority IS NOT NULL)),
    mlock                   INTEGER NOT NULL CHECK (mlock IN (0, 1)),
    kernel_release          TEXT    NOT NULL,
    governor                TEXT,
    hostname                TEXT    NOT NULL,
    icbench_version         TEXT    NOT NULL,
    git_commit              TEXT,
    command_line_json       TEXT    NOT NULL,  -- JSON array of strings, one per argument
    clock                   TEXT    NOT NULL,
    clock_overhead_ns       REAL,              -- NULL = NaN (not measured)
    -- The floor: all NULL until measured. floor_memcpy_block_bytes decides
    -- whether a floor is present; its REALs may be NULL (= NaN) on their own.
    floor_cacheline_rtt_ns  REAL,
    floor_memcpy_bytes_per_s REAL,
    floor_memcpy_block_bytes INTEGER,
    -- Bare system-call loops measured with the floor; NULL when not measured.
    floor_two_line_rtt_ns REAL,
    floor_syscall_pipe_rtt_ns REAL,
    floor_syscall_unix_rtt_ns REAL,
    notes_json              TEXT    NOT NULL DEFAULT '[]'  -- JSON array of strings
);

-- Sanity warnings raised about a run, mainly by importers
-- ("seed log has 3 replies shorter than the request" …).
CREATE TABLE run_warnings (
    id      INTEGER PRIMARY KEY,
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    message TEXT    NOT NULL
);
CREATE INDEX run_warnings_by_run ON run_warnings(run_id, id);

-- One point of an experiment and how it ended. The status decides which
-- columns are filled: 'ok' → the measured columns, 'failed' → reason,
-- 'n/a' → max_bytes.
CREATE TABLE cells (
    id               INTEGER PRIMARY KEY,
    run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq              INTEGER NOT NULL,   -- 0, 1, 2 … in the order the cells finished
    created_unix_ns  INTEGER NOT NULL,   -- wall clock when the store received the cell
    link             TEXT    NOT NULL,
    pattern          TEXT    NOT NULL,
    size_bytes       INTEGER NOT NULL,
    -- Experiment factors beyond link × pattern × size (channels, direction,
    -- CPU pair, wait strategy …) as a JSON object. NULL until factors exist.
    factors_json     TEXT,
    status           TEXT    NOT NULL CHECK (status IN ('ok', 'failed', 'n/a')),
    reason           TEXT,
    max_bytes        INTEGER,
    messages         INTEGER,
    bytes            INTEGER,
    elapsed_ns       INTEGER,
    warmup_messages  INTEGER,
    window           INTEGER,
    CHECK (status <> 'failed' OR reason IS NOT NULL),
    CHECK (status <> 'n/a' OR max_bytes IS NOT NULL),
    CHECK (status <> 'ok' OR (messages IS NOT NULL AND bytes IS NOT NULL
                              AND elapsed_ns IS NOT NULL AND warmup_messages IS NOT NULL)),
    UNIQUE (run_id, seq)
);

-- HDR histograms of a measured cell: LatencyHistogram::to_blob() (V2 +
-- deflate) and the count of values clamped to the trackable range. `metric`
-- names what was recorded, so one-way or wake-up histograms can sit beside
-- the round-trip one later.
CREATE TABLE cell_histograms (
    cell_id INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
    metric  TEXT    NOT NULL DEFAULT 'rtt',
    blob    BLOB    NOT NULL,
    clamped INTEGER NOT NULL,
    PRIMARY KEY (cell_id, metric)
) WITHOUT ROWID;

-- Every sample of a measured cell in order (when --raw was given): a blob
-- of little-endian u64 nanoseconds, 8 bytes per sample.
CREATE TABLE cell_raw_samples (
    cell_id INTEGER PRIMARY KEY REFERENCES cells(id) ON DELETE CASCADE,
    count   INTEGER NOT NULL,
    blob    BLOB    NOT NULL,
    CHECK (length(blob) = 8 * count)
);
