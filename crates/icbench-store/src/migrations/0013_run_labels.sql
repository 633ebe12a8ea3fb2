-- Schema 13 (issue #18 item 4): the user's name for a run and a note of
-- their own (`run --label NAME --note TEXT`), stored as given; `compare
-- --baseline NAME` takes the latest run with that label. NULL: none given.
ALTER TABLE runs ADD COLUMN label TEXT;
ALTER TABLE runs ADD COLUMN user_note TEXT;
CREATE INDEX runs_label ON runs (label);
