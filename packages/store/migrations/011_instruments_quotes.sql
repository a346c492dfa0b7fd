-- The instrument master and snapshot quotes (issue #32).
--
-- market.instruments: the service's daily instrument list (its published CSV), written by the
-- history loader (services/history-loader/src/instruments). One row per version of an instrument:
-- a row that changes (a symbol or lot size after a corporate action) or leaves the list (an expired
-- contract) gets valid_to, and a changed one a new row from that day. Current rows have valid_to
-- NULL. Closing a row writes it again under the same key with valid_to set and a newer loaded_at,
-- so the ReplacingMergeTree keeps the newest; the loader merges the table right after each change
-- (OPTIMIZE ... FINAL, a few tens of thousands of rows), so plain reads see one row per version,
-- and FINAL stays exact in the moment between.
-- Join the feed to it on security_id (ticks and bars_1m carry no segment name; INX_EQ is the feed's
-- only segment) and, for a past tick, on the version valid at its time (docs/sql-clients.md).
CREATE TABLE IF NOT EXISTS market.instruments
(
    exchange_segment       LowCardinality(String) COMMENT 'exchange segment as the API names it (NSE_EQ, NSE_FNO, BSE_EQ, IDX_I, MCX_COMM, INX_EQ, ...), from SEM_EXM_EXCH_ID and SEM_SEGMENT',
    security_id            UInt32 COMMENT 'security id (SEM_SMST_SECURITY_ID); joins ticks, bars_1m, candles and quotes',
    valid_from             Date COMMENT 'first day of the list this version appeared in (IST trading day)',
    valid_to               Nullable(Date) COMMENT 'first day this version was no longer listed as is (exclusive); NULL while current',
    exchange               LowCardinality(String) COMMENT 'exchange (SEM_EXM_EXCH_ID: NSE, BSE, MCX, or the global-stocks exchange)',
    instrument_type        LowCardinality(String) COMMENT 'instrument (SEM_INSTRUMENT_NAME: EQUITY, INDEX, FUTIDX, FUTSTK, OPTIDX, OPTSTK, ...)',
    trading_symbol         String COMMENT 'trading symbol (SEM_TRADING_SYMBOL)',
    custom_symbol          String COMMENT 'display name (SEM_CUSTOM_SYMBOL)',
    symbol_name            String COMMENT 'symbol or company name (SM_SYMBOL_NAME)',
    series                 LowCardinality(String) COMMENT 'exchange series (SEM_SERIES, e.g. EQ); empty when not given',
    lot_size               UInt32 COMMENT 'lot size in units (SEM_LOT_UNITS)',
    tick_size              Float64 COMMENT 'price step (SEM_TICK_SIZE) as the list gives it',
    expiry_code            Int16 COMMENT 'expiry code (SEM_EXPIRY_CODE: 0 near, 1 next, 2 far for futures; 0 otherwise)',
    expiry_date            Nullable(DateTime('Asia/Kolkata')) COMMENT 'expiry (SEM_EXPIRY_DATE, IST); NULL for instruments without one',
    strike_price           Nullable(Float64) COMMENT 'strike (SEM_STRIKE_PRICE) of an option; NULL otherwise',
    option_type            LowCardinality(String) COMMENT 'CE, PE, or XX for no option (SEM_OPTION_TYPE)',
    expiry_flag            LowCardinality(String) COMMENT 'W weekly or M monthly expiry (SEM_EXPIRY_FLAG); empty when none',
    underlying_security_id Nullable(UInt32) COMMENT 'security id of the underlying (UNDERLYING_SECURITY_ID, detailed list); NULL when none',
    underlying_symbol      String COMMENT 'symbol of the underlying (UNDERLYING_SYMBOL, detailed list); empty when none',
    loaded_at              DateTime64(3, 'UTC') COMMENT 'when the loader wrote this version of the row (the newest wins)'
)
ENGINE = ReplacingMergeTree(loaded_at)
ORDER BY (security_id, exchange_segment, valid_from);

-- market.quotes: full snapshot quotes (/marketfeed/quote) of a configured list of Indian instruments,
-- polled in batches of up to 1,000 a request by the quote poller (services/history-loader, `quotes`)
-- and published on feed.quotes. The five depth levels of each side are arrays, best first (index 1
-- in ClickHouse). A retried insert of a batch has the same keys, so the ReplacingMergeTree folds it.
CREATE TABLE IF NOT EXISTS market.quotes
(
    security_id         UInt32 COMMENT 'security id; joins market.instruments',
    exchange_segment    LowCardinality(String) COMMENT 'exchange segment the quote was asked for (NSE_EQ, NSE_FNO, BSE_EQ, ...)',
    polled_at           DateTime64(3, 'UTC') COMMENT 'when the poller received the answer (UTC, milliseconds)',
    last_price          Float64 COMMENT 'last traded price',
    last_quantity       UInt32 COMMENT 'quantity of the last trade',
    last_trade_time     Nullable(DateTime('Asia/Kolkata')) COMMENT 'time of the last trade (IST); NULL for an instrument not traded yet',
    average_price       Float64 COMMENT 'average traded price of the day',
    volume              UInt64 COMMENT 'traded volume of the day',
    buy_quantity        UInt64 COMMENT 'total quantity of pending buy orders',
    sell_quantity       UInt64 COMMENT 'total quantity of pending sell orders',
    open                Float64 COMMENT 'day open price',
    high                Float64 COMMENT 'day high price',
    low                 Float64 COMMENT 'day low price',
    close               Float64 COMMENT 'previous close price (the quote''s ohlc.close)',
    net_change          Float64 COMMENT 'change of the last price against the previous close',
    upper_circuit_limit Float64 COMMENT 'upper circuit limit (0 when the service gives none)',
    lower_circuit_limit Float64 COMMENT 'lower circuit limit (0 when the service gives none)',
    oi                  UInt64 COMMENT 'open interest (derivatives; 0 otherwise)',
    oi_day_high         UInt64 COMMENT 'day high of open interest',
    oi_day_low          UInt64 COMMENT 'day low of open interest',
    bid_price           Array(Float64) COMMENT 'buy side of the depth: prices of the five levels, best first',
    bid_quantity        Array(UInt32) COMMENT 'buy side: quantity at each level',
    bid_orders          Array(UInt32) COMMENT 'buy side: orders at each level',
    ask_price           Array(Float64) COMMENT 'sell side of the depth: prices of the five levels, best first',
    ask_quantity        Array(UInt32) COMMENT 'sell side: quantity at each level',
    ask_orders          Array(UInt32) COMMENT 'sell side: orders at each level'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(polled_at)
ORDER BY (security_id, exchange_segment, polled_at);
