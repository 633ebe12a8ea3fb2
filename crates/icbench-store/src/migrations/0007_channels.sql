-- icbench results database, schema 7: channels measured over one common
-- window (`icbench run -P N`, issue 7).
--
-- A multi-channel cell keeps its aggregate in `cells` (messages and bytes
-- summed over the channels, elapsed_ns = the common window, the merged
-- histogram in cell_histograms) and one row per channel here. A channel's
-- throughput is bytes / the cell's elapsed_ns; active_ns is its own span
-- (first send to last counted completion), kept to show what a per-thread
-- timer would have reported, and start_offset_ns how long after the common
-- start T0 it sent its first message. histogram: the channel's round trips
-- (LatencyHistogram::to_blob(), pingpong) or NULL.
CREATE TABLE cell_channels (
    cell_id          INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
    channel          INTEGER NOT NULL CHECK (channel >= 0),
    messages         INTEGER NOT NULL,
    bytes            INTEGER NOT NULL,
    start_offset_ns  INTEGER NOT NULL,
    active_ns        INTEGER NOT NULL,
    histogram        BLOB,
    clamped          INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (cell_id, channel)
) WITHOUT ROWID;
