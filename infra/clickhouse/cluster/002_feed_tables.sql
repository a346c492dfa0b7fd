-- Cluster counterpart of packages/store/migrations/002_feed_tables.sql: every table becomes
--   market.<table>_local  Replicated*MergeTree on every node, one replica set per shard, and
--   market.<table>        Distributed over the <table>_local tables, under the single-node name,
-- so the sink, the loader and the query API read and write the same names as on one server.
-- Columns, codecs, partitioning and ordering are copied verbatim (test/infra-cluster-ddl.test.ts
-- checks it). Sharding keys: the security id for per-instrument tables, so one instrument's ticks,
-- OHLC and bars live on one shard and the bars view aggregates locally; rand() for feed_status,
-- which has no per-instrument access path.
-- The materialized view reads the LOCAL ticks and writes the LOCAL bars: each shard keeps the bars
-- of its own instruments.

CREATE TABLE IF NOT EXISTS market.ticks_local ON CLUSTER '{cluster}'
(
    security_id     UInt32,
    segment         UInt8,
    ltp             Float32 CODEC(Gorilla, ZSTD(1)),
    volume          Int32 CODEC(Delta, ZSTD(1)),
    ltt             DateTime('UTC') CODEC(Delta, ZSTD(1)),
    lut             DateTime('UTC') CODEC(Delta, ZSTD(1)),
    received_at     DateTime64(6, 'UTC') CODEC(DoubleDelta, ZSTD(1)),
    kafka_partition UInt16,
    kafka_offset    UInt64 CODEC(Delta, ZSTD(1)),
    kafka_cluster   LowCardinality(String)
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/market/ticks_local', '{replica}')
PARTITION BY toYYYYMM(received_at)
ORDER BY (security_id, received_at);

CREATE TABLE IF NOT EXISTS market.ticks ON CLUSTER '{cluster}' AS market.ticks_local
ENGINE = Distributed('{cluster}', market, ticks_local, intHash64(security_id));

CREATE TABLE IF NOT EXISTS market.ohlc_updates_local ON CLUSTER '{cluster}'
(
    security_id     UInt32,
    segment         UInt8,
    open            Float32 CODEC(Gorilla, ZSTD(1)),
    close           Float32 CODEC(Gorilla, ZSTD(1)),
    high            Float32 CODEC(Gorilla, ZSTD(1)),
    low             Float32 CODEC(Gorilla, ZSTD(1)),
    received_at     DateTime64(6, 'UTC') CODEC(DoubleDelta, ZSTD(1)),
    kafka_partition UInt16,
    kafka_offset    UInt64 CODEC(Delta, ZSTD(1)),
    kafka_cluster   LowCardinality(String)
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/market/ohlc_updates_local', '{replica}')
PARTITION BY toYYYYMM(received_at)
ORDER BY (security_id, received_at);

CREATE TABLE IF NOT EXISTS market.ohlc_updates ON CLUSTER '{cluster}' AS market.ohlc_updates_local
ENGINE = Distributed('{cluster}', market, ohlc_updates_local, intHash64(security_id));

CREATE TABLE IF NOT EXISTS market.reference_updates_local ON CLUSTER '{cluster}'
(
    security_id     UInt32,
    segment         UInt8,
    kind            Enum8('prev_close' = 1, 'circuit_limit' = 2, 'week52' = 3),
    value1          Float32,
    value2          Float32,
    received_at     DateTime64(6, 'UTC') CODEC(DoubleDelta, ZSTD(1)),
    kafka_partition UInt16,
    kafka_offset    UInt64 CODEC(Delta, ZSTD(1)),
    kafka_cluster   LowCardinality(String)
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/market/reference_updates_local', '{replica}')
PARTITION BY toYYYYMM(received_at)
ORDER BY (security_id, kind, received_at);

CREATE TABLE IF NOT EXISTS market.reference_updates ON CLUSTER '{cluster}' AS market.reference_updates_local
ENGINE = Distributed('{cluster}', market, reference_updates_local, intHash64(security_id));

CREATE TABLE IF NOT EXISTS market.feed_status_local ON CLUSTER '{cluster}'
(
    type            Enum8('market_status' = 1, 'error' = 2),
    security_id     UInt32,
    segment         UInt8,
    market_type     Array(UInt8),
    status          Int32,
    error_code      Int16,
    received_at     DateTime64(6, 'UTC'),
    kafka_partition UInt16,
    kafka_offset    UInt64,
    kafka_cluster   LowCardinality(String)
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/market/feed_status_local', '{replica}')
PARTITION BY toYYYYMM(received_at)
ORDER BY (received_at, security_id);

CREATE TABLE IF NOT EXISTS market.feed_status ON CLUSTER '{cluster}' AS market.feed_status_local
ENGINE = Distributed('{cluster}', market, feed_status_local, rand());

CREATE TABLE IF NOT EXISTS market.bars_1m_local ON CLUSTER '{cluster}'
(
    security_id UInt32,
    minute      DateTime('UTC'),
    open        AggregateFunction(argMin, Float32, DateTime64(6, 'UTC')),
    high        SimpleAggregateFunction(max, Float32),
    low         SimpleAggregateFunction(min, Float32),
    close       AggregateFunction(argMax, Float32, DateTime64(6, 'UTC')),
    vol_min     SimpleAggregateFunction(min, Int32),
    vol_max     SimpleAggregateFunction(max, Int32),
    trades      SimpleAggregateFunction(sum, UInt64)
)
ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/market/bars_1m_local', '{replica}')
PARTITION BY toYYYYMM(minute)
ORDER BY (security_id, minute);

CREATE TABLE IF NOT EXISTS market.bars_1m ON CLUSTER '{cluster}' AS market.bars_1m_local
ENGINE = Distributed('{cluster}', market, bars_1m_local, intHash64(security_id));

CREATE MATERIALIZED VIEW IF NOT EXISTS market.bars_1m_mv ON CLUSTER '{cluster}' TO market.bars_1m_local AS
SELECT
    security_id,
    toStartOfMinute(ltt) AS minute,
    argMinState(ltp, received_at) AS open,
    max(ltp) AS high,
    min(ltp) AS low,
    argMaxState(ltp, received_at) AS close,
    min(volume) AS vol_min,
    max(volume) AS vol_max,
    toUInt64(count()) AS trades
FROM market.ticks_local
GROUP BY security_id, minute;

-- Recorded once on any node; replication carries it to every node.
INSERT INTO market.schema_migrations (version, name) VALUES (2, 'feed_tables');
