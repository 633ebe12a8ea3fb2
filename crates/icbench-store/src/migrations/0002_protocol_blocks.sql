-- icbench results database, schema 2: remote peers.
--
-- A cell may be measured with a wire protocol spoken to a remote peer
-- (icb, dimtass, raw; NULL = icbench's local control protocol, as every cell
-- of schema 1 was) and, for the bulk pattern, as `blocks` writes of
-- size_bytes each followed by one acknowledgement (NULL = one message per
-- sample). Existing rows keep NULL in both, which reads back as before.
ALTER TABLE cells ADD COLUMN protocol TEXT CHECK (protocol IS NULL OR protocol IN ('icb', 'dimtass', 'raw'));
ALTER TABLE cells ADD COLUMN blocks INTEGER CHECK (blocks IS NULL OR blocks > 0);
