-- Live-feed tables written by the sink (services/feed-sink). Every row keeps the Kafka
-- cluster, partition and offset it came from: the sink reads the highest stored offset per partition
-- of its cluster on start and skips anything at or below it, so a batch replayed after a crash is
-- never stored twice (and offsets of another cluster, e.g. a fresh local broker, never mask data).
-- Ordering is security id then time, the access path of every analytics query; Delta/DoubleDelta
-- suit monotonic times and offsets, Gorilla suits slowly moving float prices, ZSTD finishes the job.

CREATE TABLE IF NOT EXISTS market.ticks
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
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (security_id, received_at);

CREATE TABLE IF NOT EXISTS market.ohlc_updates
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
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (security_id, received_at);

-- prev_close: value1 = previous close; circuit_limit: value1 = upper, value2 = lower;
-- week52: value1 = high, value2 = low. Security id 0 rows are the feed's "no data yet" packets.
CREATE TABLE IF NOT EXISTS market.reference_updates
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
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (security_id, kind, received_at);

-- Market status packets and feed error packets (type 'error', error_code 805-809).
CREATE TABLE IF NOT EXISTS market.feed_status
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
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (received_at, security_id);

-- 1-minute bars by trade time, maintained as ticks arrive. Volume on the wire is cumulative per day,
-- so a bar keeps the highest and lowest cumulative volume it saw; a bar's traded volume is its
-- vol_max minus the previous bar's vol_max (queries compute it with a window function).
CREATE TABLE IF NOT EXISTS market.bars_1m
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
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(minute)
ORDER BY (security_id, minute);

CREATE MATERIALIZED VIEW IF NOT EXISTS market.bars_1m_mv TO market.bars_1m AS
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
FROM market.ticks
GROUP BY security_id, minute;
