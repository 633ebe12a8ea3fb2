-- icbench results database, schema 5: plans
-- and resuming.
--
-- A run made from a plan (`icbench run --plan FILE`, and every flag run,
-- which is a plan too) stores the expanded, ordered plan and the settings
-- it ran with, both as JSON written by the icbench binary (the store does
-- not read them). Each measured cell records its position in the plan, so
-- `icbench run --resume RUN` continues after the last stored cell — after
-- Ctrl-C, kill -9 or power loss — without redoing or losing any.
CREATE TABLE run_plans (
    run_id        INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    plan_json     TEXT    NOT NULL,  -- icbench_plan::Plan
    settings_json TEXT    NOT NULL,  -- the engine settings of the run
    -- How often the run was resumed; each resume adds a run note too.
    resumes       INTEGER NOT NULL DEFAULT 0 CHECK (resumes >= 0)
);

-- The cell's index in its run's plan (PlanCell::index); NULL for cells
-- stored before schema 5 and for imported cells.
ALTER TABLE cells ADD COLUMN plan_index INTEGER CHECK (plan_index IS NULL OR plan_index >= 0);
CREATE INDEX cells_by_plan_index ON cells(run_id, plan_index);
