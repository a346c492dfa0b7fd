-- Fills and end-of-day account snapshots of the trading gateway (issue #32 item 2). Read through
-- the gateway with a trading key, never through the query API's read-only SQL (its allow-list
-- leaves both tables out).
--
-- market.fills: one row per exchange fill of the account, Indian segments and US stocks alike.
-- The gateway takes them from the service's trade book: when a postback shows an order filled
-- (and at start, and every so often) it reads the day's book, and at start the trade history of
-- the days it may have missed. fill_key is the fill's identity in every one of those reads (the
-- segment and the exchange's trade id; a US trade, which has no trade id, is its order id and its
-- place among that order's fills), so a fill read twice is the same key. The gateway inserts only
-- keys the table lacks; ReplacingMergeTree on (trade_date, fill_key) collapses what two writers
-- racing could still add, so readers use FINAL.
CREATE TABLE IF NOT EXISTS market.fills
(
    fill_key          String,
    kind              Enum8('order' = 1, 'us_order' = 2),
    client_id         String,
    order_id          String,
    exchange_order_id String,
    exchange_trade_id String,
    trade_date        Date,
    trade_time        DateTime64(3, 'UTC'),
    security_id       String,
    exchange_segment  LowCardinality(String),
    transaction_type  LowCardinality(String),
    product_type      LowCardinality(String),
    traded_qty        Float64,
    traded_price      Float64,
    source            Enum8('postback' = 1, 'reconcile' = 2, 'history' = 3),
    recorded_at       DateTime64(6, 'UTC'),
    payload           String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(trade_date)
ORDER BY (trade_date, fill_key);

ALTER TABLE market.fills
    COMMENT COLUMN IF EXISTS fill_key 'identity of the fill: <segment>:<exchange trade id>; for a US trade INX_EQ:<order id>#<n> (its n-th fill)',
    COMMENT COLUMN IF EXISTS kind 'order (Indian segments) or us_order (US stocks)',
    COMMENT COLUMN IF EXISTS client_id 'account at the service (svcClientId)',
    COMMENT COLUMN IF EXISTS order_id 'order id of the service (orderId)',
    COMMENT COLUMN IF EXISTS exchange_order_id 'order id of the exchange (exchangeOrderId)',
    COMMENT COLUMN IF EXISTS exchange_trade_id 'trade id of the exchange (exchangeTradeId); empty for US trades',
    COMMENT COLUMN IF EXISTS trade_date 'trading day of the fill (IST)',
    COMMENT COLUMN IF EXISTS trade_time 'exchange time of the fill (UTC; the service writes IST)',
    COMMENT COLUMN IF EXISTS security_id 'instrument (securityId)',
    COMMENT COLUMN IF EXISTS exchange_segment 'exchange segment (exchangeSegment; INX_EQ for US stocks)',
    COMMENT COLUMN IF EXISTS transaction_type 'BUY or SELL',
    COMMENT COLUMN IF EXISTS product_type 'product type (CNC, INTRADAY, MARGIN, MTF)',
    COMMENT COLUMN IF EXISTS traded_qty 'quantity of this fill (tradedQuantity; fractional for US stocks)',
    COMMENT COLUMN IF EXISTS traded_price 'price of this fill (tradedPrice; USD for US stocks)',
    COMMENT COLUMN IF EXISTS source 'what made the gateway read it: postback (a postback showed a fill), reconcile (start or period), history (trade history of a missed day)',
    COMMENT COLUMN IF EXISTS recorded_at 'when the gateway stored it (UTC, microseconds)',
    COMMENT COLUMN IF EXISTS payload 'the service record as read, with its field names (JSON)';

-- market.account_snapshots: the account at the close, one row per trading day and kind, the
-- service's answer kept whole. A second snapshot of the same day replaces the first
-- (ReplacingMergeTree by taken_at): read with FINAL.
CREATE TABLE IF NOT EXISTS market.account_snapshots
(
    client_id     String,
    snapshot_date Date,
    kind          Enum8('positions' = 1, 'holdings' = 2, 'funds' = 3, 'ledger' = 4, 'us_holdings' = 5, 'us_funds' = 6),
    taken_at      DateTime64(3, 'UTC'),
    records       UInt32,
    payload       String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree(taken_at)
PARTITION BY toYYYYMM(snapshot_date)
ORDER BY (client_id, snapshot_date, kind);

ALTER TABLE market.account_snapshots
    COMMENT COLUMN IF EXISTS client_id 'account at the service (svcClientId)',
    COMMENT COLUMN IF EXISTS snapshot_date 'trading day the snapshot closes (IST)',
    COMMENT COLUMN IF EXISTS kind 'positions, holdings, funds (fund limit), ledger (that day), us_holdings or us_funds',
    COMMENT COLUMN IF EXISTS taken_at 'when the gateway read it (UTC); the latest of a day wins',
    COMMENT COLUMN IF EXISTS records 'records in the answer (1 for funds)',
    COMMENT COLUMN IF EXISTS payload 'the service answer as read, with its field names (JSON)';
