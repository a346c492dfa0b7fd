-- Order updates of the service (postbacks received by services/query-api, plus transitions the
-- reconciliation job recovers from the order book): one row per order transition.
--
-- Dedup: event_key is sha256 of the transition's identity (kind, order id, status, filled and
-- remaining quantity, quantity, price, trigger price, update time, OMS error code), the same for
-- a postback delivered twice and for the reconciler's rebuild of that transition. The receiver
-- drops keys it has already seen (a bounded in-memory set, seeded from this table on start);
-- ReplacingMergeTree on (order_id, event_key) collapses whatever slips through (a restart between
-- accept and persist, a Kafka retry), so readers use FINAL.
--
-- Order of one order's transitions: event_time (update time read as IST), then filled_qty (never
-- decreases), then phase (0 TRANSIT, 1 working, 2 final), then arrival (received_at, seq). The
-- service's times have one-second resolution; arrival breaks the remaining ties.
CREATE TABLE IF NOT EXISTS market.order_events
(
    order_id              String,
    event_key             FixedString(64),
    kind                  Enum8('order' = 1, 'us_order' = 2, 'forever' = 3, 'alert' = 4),
    client_id             String,
    status                LowCardinality(String),
    security_id           String,
    exchange_segment      LowCardinality(String),
    transaction_type      LowCardinality(String),
    correlation_id        String,
    leg_name              LowCardinality(String),
    quantity              Float64,
    filled_qty            Float64,
    remaining_qty         Float64,
    price                 Float64,
    trigger_price         Float64,
    average_price         Float64,
    oms_error_code        String,
    oms_error_description String,
    update_time           String,
    event_time            DateTime64(3, 'UTC'),
    phase                 UInt8,
    source                Enum8('postback' = 1, 'reconcile' = 2),
    received_at           DateTime64(6, 'UTC'),
    seq                   UInt64,
    payload               String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(event_time)
ORDER BY (order_id, event_key);
