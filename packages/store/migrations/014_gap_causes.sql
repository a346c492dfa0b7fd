-- The ledger of gaps has two more causes (issue #24's standby ingestor): handover, a planned
-- handover from one ingestor process to its standby moved the connection (zero-length when the
-- successor was live before the leader closed it), and failover, the leading ingestor died or froze
-- and the standby took over. Only the column's comment changes; the column is a LowCardinality
-- string and takes any cause.
ALTER TABLE market.feed_gaps
    COMMENT COLUMN IF EXISTS cause 'connection_down, reconnect_pending, eviction, token_renewal, backpressure, process_stopped, stale, handover or failover';
