-- Cluster counterpart of packages/store/migrations/003_history_tables.sql (read that file for how
-- to query these tables). ReplacingMergeTree deduplicates only within one shard, so every sharding
-- key below is a function of the table's ORDER BY key: both copies of a row always land on the same
-- shard, and FINAL / argMax through the Distributed table stay correct.

CREATE TABLE IF NOT EXISTS market.candles_daily_local ON CLUSTER '{cluster}'
(
    security_id     UInt32,
    segment         LowCardinality(String),
    ts              DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
    open            Float64 CODEC(Gorilla, ZSTD(1)),
    high            Float64 CODEC(Gorilla, ZSTD(1)),
    low             Float64 CODEC(Gorilla, ZSTD(1)),
    close           Float64 CODEC(Gorilla, ZSTD(1)),
    volume          Int64 CODEC(T64, ZSTD(1)),
    open_interest   Int64 CODEC(T64, ZSTD(1)),
    loaded_at       DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1))
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/market/candles_daily_local', '{replica}', loaded_at)
PARTITION BY intDiv(toYear(ts), 10)
ORDER BY (security_id, segment, ts);

CREATE TABLE IF NOT EXISTS market.candles_daily ON CLUSTER '{cluster}' AS market.candles_daily_local
ENGINE = Distributed('{cluster}', market, candles_daily_local, intHash64(security_id));

CREATE TABLE IF NOT EXISTS market.candles_intraday_local ON CLUSTER '{cluster}'
(
    security_id     UInt32,
    segment         LowCardinality(String),
    interval        UInt8,
    ts              DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
    open            Float64 CODEC(Gorilla, ZSTD(1)),
    high            Float64 CODEC(Gorilla, ZSTD(1)),
    low             Float64 CODEC(Gorilla, ZSTD(1)),
    close           Float64 CODEC(Gorilla, ZSTD(1)),
    volume          Int64 CODEC(T64, ZSTD(1)),
    open_interest   Int64 CODEC(T64, ZSTD(1)),
    loaded_at       DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1))
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/market/candles_intraday_local', '{replica}', loaded_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (security_id, segment, interval, ts);

CREATE TABLE IF NOT EXISTS market.candles_intraday ON CLUSTER '{cluster}' AS market.candles_intraday_local
ENGINE = Distributed('{cluster}', market, candles_intraday_local, intHash64(security_id));

CREATE TABLE IF NOT EXISTS market.option_chain_snapshots_local ON CLUSTER '{cluster}'
(
    underlying_id        UInt32,
    underlying_segment   LowCardinality(String),
    expiry               Date,
    slot                 DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
    strike               Float64,
    side                 Enum8('CE' = 1, 'PE' = 2),
    snapshot_at          DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
    underlying_price     Float64 CODEC(Gorilla, ZSTD(1)),
    option_security_id   UInt32,
    last_price           Float64 CODEC(Gorilla, ZSTD(1)),
    average_price        Float64 CODEC(Gorilla, ZSTD(1)),
    previous_close_price Float64 CODEC(Gorilla, ZSTD(1)),
    implied_volatility   Float64 CODEC(Gorilla, ZSTD(1)),
    delta                Float64 CODEC(Gorilla, ZSTD(1)),
    theta                Float64 CODEC(Gorilla, ZSTD(1)),
    gamma                Float64 CODEC(Gorilla, ZSTD(1)),
    vega                 Float64 CODEC(Gorilla, ZSTD(1)),
    oi                   Int64 CODEC(T64, ZSTD(1)),
    previous_oi          Int64 CODEC(T64, ZSTD(1)),
    volume               Int64 CODEC(T64, ZSTD(1)),
    previous_volume      Int64 CODEC(T64, ZSTD(1)),
    top_bid_price        Float64 CODEC(Gorilla, ZSTD(1)),
    top_bid_quantity     Int64 CODEC(T64, ZSTD(1)),
    top_ask_price        Float64 CODEC(Gorilla, ZSTD(1)),
    top_ask_quantity     Int64 CODEC(T64, ZSTD(1)),
    loaded_at            DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1))
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/market/option_chain_snapshots_local', '{replica}', loaded_at)
PARTITION BY toYYYYMM(slot)
ORDER BY (underlying_id, underlying_segment, expiry, slot, strike, side);

CREATE TABLE IF NOT EXISTS market.option_chain_snapshots ON CLUSTER '{cluster}' AS market.option_chain_snapshots_local
ENGINE = Distributed('{cluster}', market, option_chain_snapshots_local, intHash64(underlying_id));

CREATE TABLE IF NOT EXISTS market.expiry_lists_local ON CLUSTER '{cluster}'
(
    underlying_id        UInt32,
    underlying_segment   LowCardinality(String),
    as_of                Date,
    expiry               Date,
    loaded_at            DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/market/expiry_lists_local', '{replica}', loaded_at)
ORDER BY (underlying_id, underlying_segment, as_of, expiry);

CREATE TABLE IF NOT EXISTS market.expiry_lists ON CLUSTER '{cluster}' AS market.expiry_lists_local
ENGINE = Distributed('{cluster}', market, expiry_lists_local, intHash64(underlying_id));

CREATE TABLE IF NOT EXISTS market.expired_options_local ON CLUSTER '{cluster}'
(
    underlying_id     UInt32,
    exchange_segment  LowCardinality(String),
    instrument        LowCardinality(String),
    expiry_flag       Enum8('WEEK' = 1, 'MONTH' = 2),
    expiry_code       UInt8,
    option_type       Enum8('CALL' = 1, 'PUT' = 2),
    strike_offset     Int8,
    interval          UInt8,
    ts                DateTime('UTC') CODEC(DoubleDelta, ZSTD(1)),
    open              Float64 CODEC(Gorilla, ZSTD(1)),
    high              Float64 CODEC(Gorilla, ZSTD(1)),
    low               Float64 CODEC(Gorilla, ZSTD(1)),
    close             Float64 CODEC(Gorilla, ZSTD(1)),
    iv                Float64 CODEC(Gorilla, ZSTD(1)),
    volume            Int64 CODEC(T64, ZSTD(1)),
    oi                Int64 CODEC(T64, ZSTD(1)),
    strike            Float64 CODEC(Gorilla, ZSTD(1)),
    spot              Float64 CODEC(Gorilla, ZSTD(1)),
    loaded_at         DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1))
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/market/expired_options_local', '{replica}', loaded_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (underlying_id, exchange_segment, instrument, expiry_flag, expiry_code, option_type, strike_offset, interval, ts);

CREATE TABLE IF NOT EXISTS market.expired_options ON CLUSTER '{cluster}' AS market.expired_options_local
ENGINE = Distributed('{cluster}', market, expired_options_local, intHash64(underlying_id));

CREATE TABLE IF NOT EXISTS market.load_units_local ON CLUSTER '{cluster}'
(
    kind          LowCardinality(String),
    security_id   UInt32,
    segment       LowCardinality(String),
    interval      UInt8,
    variant       String,
    window_from   DateTime('UTC'),
    window_to     DateTime('UTC'),
    status        Enum8('done' = 1, 'partial' = 2, 'failed' = 3, 'retry' = 4),
    rows          UInt32,
    attempts      UInt16,
    requests      UInt32,
    error         String,
    run_id        String,
    updated_at    DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/market/load_units_local', '{replica}', updated_at)
ORDER BY (kind, security_id, segment, interval, variant, window_from, window_to);

CREATE TABLE IF NOT EXISTS market.load_units ON CLUSTER '{cluster}' AS market.load_units_local
ENGINE = Distributed('{cluster}', market, load_units_local, cityHash64(kind, security_id));

CREATE TABLE IF NOT EXISTS market.loader_requests_local ON CLUSTER '{cluster}'
(
    client_id     String,
    at            DateTime('UTC'),
    requests      UInt32
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/market/loader_requests_local', '{replica}')
ORDER BY (client_id, at)
TTL at + INTERVAL 2 DAY;

CREATE TABLE IF NOT EXISTS market.loader_requests ON CLUSTER '{cluster}' AS market.loader_requests_local
ENGINE = Distributed('{cluster}', market, loader_requests_local, rand());

-- Recorded once on any node; replication carries it to every node.
INSERT INTO market.schema_migrations (version, name) VALUES (3, 'history_tables');
