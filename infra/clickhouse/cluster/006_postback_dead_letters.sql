-- Cluster counterpart of packages/store/migrations/006_postback_dead_letters.sql. Sharded by the
-- body's hash: both copies of a letter written twice land on one shard, so FINAL collapses them.

CREATE TABLE IF NOT EXISTS market.postback_dead_letters_local ON CLUSTER '{cluster}'
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
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/market/postback_dead_letters_local', '{replica}')
PARTITION BY toYYYYMM(received_at)
ORDER BY (body_sha256, received_at);

CREATE TABLE IF NOT EXISTS market.postback_dead_letters ON CLUSTER '{cluster}' AS market.postback_dead_letters_local
ENGINE = Distributed('{cluster}', market, postback_dead_letters_local, cityHash64(body_sha256));

-- Recorded once on any node; replication carries it to every node.
INSERT INTO market.schema_migrations (version, name) VALUES (6, 'postback_dead_letters');
