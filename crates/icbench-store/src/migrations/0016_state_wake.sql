-- Schema 16 (issue #28 item 1): the state probe's cross-CPU wake-up round
-- trip (ns; median of a few one-byte trips to a thread asleep on the peer
-- CPU), the covariate of the links whose waiting end sleeps. NULL: not
-- probed (cells measured before schema 16, or the peer CPU did not answer).
ALTER TABLE cells ADD COLUMN state_wake_rtt_ns REAL;
