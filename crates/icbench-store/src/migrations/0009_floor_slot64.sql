-- icbench results database, schema 9: the floor's 64 B slot round trip —
-- a 64 B message and its sequence word in one slot shared by both
-- directions, answered in place (icbench-engine's floor, Trip::Slot64), ns.
-- NULL in runs measured before it existed.
ALTER TABLE runs ADD COLUMN floor_slot64_rtt_ns REAL;
