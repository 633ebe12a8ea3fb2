-- icbench results database, schema 4: cells of other shapes, and adaptive
-- repetitions. (The bulk pattern's `blocks` column came with schema 2.)
--
-- - channels: endpoints measured at once (imported multi-channel results,
--   e.g. rpmsg-xmit-p -n 8); NULL = one.
-- - ci_*: `icbench run --ci`: the target relative half-width of the median's
--   95 % CI, the one reached (NULL = no interval), the measured phases run,
--   and whether the target was reached (1) or the time budget ended (0).
--   All NULL when --ci was not given.
ALTER TABLE cells ADD COLUMN channels INTEGER CHECK (channels IS NULL OR channels >= 1);
ALTER TABLE cells ADD COLUMN ci_target_rel REAL;
ALTER TABLE cells ADD COLUMN ci_achieved_rel REAL;
ALTER TABLE cells ADD COLUMN ci_phases INTEGER;
ALTER TABLE cells ADD COLUMN ci_reached INTEGER CHECK (ci_reached IS NULL OR ci_reached IN (0, 1));
