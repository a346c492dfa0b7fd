-- Postbacks the query-api receiver acknowledged (they were in its write-ahead log) but could not
-- store in market.order_events: a body that cannot be read back or serialised, or a row ClickHouse
-- keeps refusing while it answers other queries. Kept with the reason and the body exactly as
-- received, so an operator can repair and re-post it; the receiver goes on with the rest.
--
-- A replay after a crash can write a letter twice; ReplacingMergeTree on the body's sha256 and
-- the receive time collapses the copies (read with FINAL).
CREATE TABLE IF NOT EXISTS market.postback_dead_letters
(
    received_at  DateTime64(3, 'UTC'),
    body_sha256  FixedString(64),
    wal_seq      UInt64,
    source       Enum8('postback' = 1, 'reconcile' = 2),
    stage        LowCardinality(String),
    reason       String,
    payload      String CODEC(ZSTD(3)),
    dead_at      DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (body_sha256, received_at);
