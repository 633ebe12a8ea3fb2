-- icbench results database, schema 2: what a link counted during a cell.
--
-- Additive only: cells stored by schema 1 keep NULL here, read back as 0
-- (schema 1 had no link that could count anything).

-- Sends the kernel refused for want of a free TX buffer (EAGAIN / ENOMEM on
-- rpmsg), each retried after waiting for room. NULL before schema 2.
ALTER TABLE cells ADD COLUMN tx_busy INTEGER CHECK (tx_busy IS NULL OR tx_busy >= 0);
