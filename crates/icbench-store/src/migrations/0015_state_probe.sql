-- Schema 15 (issue #28 item 1): the state probe taken before each block's
-- session opened — the median one-cache-line round trip between the
-- block's two CPUs (ns) and what the probe took (ns). NULL: not probed
-- (imported cells, remote peers, cells measured before schema 15).
ALTER TABLE cells ADD COLUMN state_line_rtt_ns REAL;
ALTER TABLE cells ADD COLUMN state_probe_ns INTEGER;
