-- icbench results database: the CPU's fast counter (x86 TSC, arm64
-- CNTVCT_EL0) as examined at the start of a run (issue 9). The run's
-- intervals are still timed with `clock`; this records whether the counter
-- could stand in for it (docs/method.md, "The fast counter").
--
-- Additive only. All NULL: not examined (runs stored before this migration,
-- imports). fc_trusted set with fc_counter NULL: no counter is readable here,
-- fc_reason says why.
ALTER TABLE runs ADD COLUMN fc_counter TEXT;
-- Ticks per second calibrated against CLOCK_MONOTONIC_RAW, and as declared
-- by the hardware (CNTFRQ_EL0), Hz.
ALTER TABLE runs ADD COLUMN fc_hz REAL;
ALTER TABLE runs ADD COLUMN fc_declared_hz REAL;
-- Cost of one read, ns.
ALTER TABLE runs ADD COLUMN fc_read_ns REAL;
ALTER TABLE runs ADD COLUMN fc_trusted INTEGER CHECK (fc_trusted IS NULL OR fc_trusted IN (0, 1));
-- Why trusted, or the first check that failed.
ALTER TABLE runs ADD COLUMN fc_reason TEXT;
-- Largest |counter in ns − CLOCK_MONOTONIC_RAW| over the check, ns, and the
-- drift between them, ppm.
ALTER TABLE runs ADD COLUMN fc_max_deviation_ns REAL;
ALTER TABLE runs ADD COLUMN fc_drift_ppm REAL;
