-- The ledger of gaps (services/feed-ingestor writes `gap` records to the status topic; the sink
-- routes them here): one row per instrument subscription and interval in which it was not live,
-- written when the interval closed. `cause` is one of connection_down, reconnect_pending, eviction,
-- token_renewal, backpressure, process_stopped, stale (docs/architecture.md, "The ledger of gaps").
-- Ordered like the ticks (security id, then time), so a join to an instrument's bars reads one range.
CREATE TABLE IF NOT EXISTS market.feed_gaps
(
    security_id     UInt32,
    segment         UInt8,
    subscription    LowCardinality(String),
    cause           LowCardinality(String),
    started_at      DateTime64(6, 'UTC'),
    ended_at        DateTime64(6, 'UTC'),
    connection      UInt8,
    kafka_partition UInt16,
    kafka_offset    UInt64,
    kafka_cluster   LowCardinality(String)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(started_at)
ORDER BY (security_id, started_at);
