-- Schema 14 (issue #19 item 2): where a merged run came from (`icbench
-- merge`): the board, the database, the run's id there. NULL: measured or
-- imported into this database directly.
ALTER TABLE runs ADD COLUMN origin TEXT;
