-- History tables written by services/history-loader (REST history: candles, option chains, expiry
-- lists, expired options) and the loader's checkpoints.
--
-- HOW TO READ THEM (query-api): every data table is a ReplacingMergeTree keyed by the natural
-- identity of a row, with `loaded_at` as the version. Loading the same window twice (a resumed
-- run, a reload of today's partial candles) inserts a second copy that only disappears when
-- ClickHouse merges parts, which happens at an unknown later time. So:
--   * always read with FINAL:   SELECT ... FROM market.candles_intraday FINAL WHERE ...
--     (cheap here: partitions are by month and FINAL only merges within a partition; the setting
--     do_not_merge_across_partitions_select_final = 1 is safe for every table below, because each
--     partition key is a function of the ORDER BY key),
--   * or aggregate with argMax(col, loaded_at) GROUP BY <the ORDER BY key>.
--   Never count() or sum() the raw table without one of the two.
-- `loaded_at` is the only column that differs between two loads of the same data; leave it out
-- of checksums (the loader's tests compare groupBitXor(cityHash64(<all other columns>)) FINAL).
-- Times: DateTime('UTC') holds the epoch seconds the service sent; the service's calendar is IST
-- (Asia/Kolkata), so group days with toDate(ts, 'Asia/Kolkata').
--
-- market.candles_daily      one row per instrument and trading day (/charts/historical).
--   key (security_id, segment, ts). ts = the candle's timestamp as sent (IST midnight of the day).
--   open_interest is 0 unless the instrument is F&O and OI was asked for.
-- market.candles_intraday   one row per instrument, interval and bar (/charts/intraday).
--   key (security_id, segment, interval, ts). interval in minutes: 1, 5, 15, 30 or 60; ts = bar start.
--   The current day's last bar can still change; a later load replaces it (higher loaded_at).
-- market.option_chain_snapshots   one row per snapshot, strike and side (/optionchain).
--   key (underlying_id, underlying_segment, expiry, slot, strike, side). `slot` names the
--   snapshot the loader planned (IST midnight of the day for once-a-day snapshots, or the start of
--   the K-second slot for periodic ones); `snapshot_at` is when the answer actually arrived.
--   side: 'CE' (call) or 'PE' (put). Greeks, IV, OI, volume, top bid/ask as sent.
--   A snapshot taken again in the same slot (a resumed run) replaces it strike by strike, but the
--   chain's strikes follow the live price, so read one slot as the rows of its latest snapshot_at:
--     ... FINAL WHERE (underlying_id, expiry, slot, snapshot_at) IN (SELECT underlying_id, expiry,
--         slot, max(snapshot_at) FROM market.option_chain_snapshots GROUP BY underlying_id, expiry, slot)
--   Latest chain of an underlying:
--     SELECT * FROM market.option_chain_snapshots FINAL WHERE underlying_id = 13
--       AND (expiry, slot) = (SELECT expiry, max(slot) FROM market.option_chain_snapshots
--                             WHERE underlying_id = 13 GROUP BY expiry ORDER BY expiry LIMIT 1)
-- market.expiry_lists       one row per underlying, day the list was read (as_of, IST) and expiry.
--   key (underlying_id, underlying_segment, as_of, expiry).
-- market.expired_options    one row per minute-bar of a rolling (expired) option (/charts/rollingoption).
--   key (underlying_id, exchange_segment, instrument, expiry_flag, expiry_code, option_type,
--   strike_offset, interval, ts). strike_offset is relative to ATM (-10..10: ATM-10..ATM+10);
--   `strike` is the absolute strike the service reported for that bar, `spot` the underlying.
-- market.load_units         the loader's checkpoints: one row per unit of work (one request).
--   key (kind, security_id, segment, interval, variant, window_from, window_to); version updated_at.
--   kind: daily | intraday | expiry_list | option_chain | expired_options.
--   variant: '' for candles; the expiry for option chains; 'OPTIDX|WEEK|1|ATM+3|CALL' style for
--   expired options. window_from/window_to: the requested window [from, to) in UTC (IST dates as
--   instants), or the snapshot slot for option chains and expiry lists.
--   status: 'done' (loaded, final), 'partial' (loaded, but the window reaches into the unfinished
--   day: reloaded by the next run), 'failed' (permanent error, e.g. 813 bad security id: recorded
--   and skipped), 'retry' (transient errors used up this run's attempts: the next run retries).
--   Progress: SELECT kind, status, count(), sum(rows) FROM market.load_units FINAL GROUP BY kind, status
-- market.loader_requests    requests sent per loader flush, to know the day's budget after a
--   restart: SELECT sum(requests) FROM market.loader_requests
--   WHERE client_id = '...' AND at > now() - INTERVAL 1 DAY. Plain MergeTree (a count, not a state).

CREATE TABLE IF NOT EXISTS market.candles_daily
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
ENGINE = ReplacingMergeTree(loaded_at)
PARTITION BY intDiv(toYear(ts), 10)
ORDER BY (security_id, segment, ts);

CREATE TABLE IF NOT EXISTS market.candles_intraday
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
ENGINE = ReplacingMergeTree(loaded_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (security_id, segment, interval, ts);

CREATE TABLE IF NOT EXISTS market.option_chain_snapshots
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
ENGINE = ReplacingMergeTree(loaded_at)
PARTITION BY toYYYYMM(slot)
ORDER BY (underlying_id, underlying_segment, expiry, slot, strike, side);

CREATE TABLE IF NOT EXISTS market.expiry_lists
(
    underlying_id        UInt32,
    underlying_segment   LowCardinality(String),
    as_of                Date,
    expiry               Date,
    loaded_at            DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(loaded_at)
ORDER BY (underlying_id, underlying_segment, as_of, expiry);

CREATE TABLE IF NOT EXISTS market.expired_options
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
ENGINE = ReplacingMergeTree(loaded_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (underlying_id, exchange_segment, instrument, expiry_flag, expiry_code, option_type, strike_offset, interval, ts);

CREATE TABLE IF NOT EXISTS market.load_units
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
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (kind, security_id, segment, interval, variant, window_from, window_to);

CREATE TABLE IF NOT EXISTS market.loader_requests
(
    client_id     String,
    at            DateTime('UTC'),
    requests      UInt32
)
ENGINE = MergeTree
ORDER BY (client_id, at)
TTL at + INTERVAL 2 DAY;
