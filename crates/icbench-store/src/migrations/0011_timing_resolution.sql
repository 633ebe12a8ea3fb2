-- Schema 11 (issue #15 item 4): the clock's resolution as measured at the
-- head of a run, and how each ping-pong cell was timed.

-- The step the clock's readings move in, ns (clock_getres says 1 ns where
-- a VM's readings sat on a 10 ns grid); NULL when not measured.
ALTER TABLE runs ADD COLUMN clock_granule_ns REAL;

-- Round trips per pair of clock reads when a cell was timed in batches
-- (its latencies are the batches' mean round trips); NULL when each round
-- trip was timed on its own.
ALTER TABLE cells ADD COLUMN timed_batch INTEGER;
