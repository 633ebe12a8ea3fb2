-- Schema 12 (issue #15 item 7): the run's verdict on its own figures, as it
-- printed it when it ended ("reproducible", "partly reproducible", "not fit
-- for quoting", "not judged"); NULL for runs stored before schema 12, runs
-- still being measured, and imports.
ALTER TABLE runs ADD COLUMN verdict TEXT;
