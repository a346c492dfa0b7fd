-- Cluster counterpart of packages/store/migrations/005_order_events.sql (read that file for the
-- dedup rules). Sharded by order id: both copies of a transition (same order_id, event_key) land on
-- one shard, so FINAL through the Distributed table collapses them, and one order's transitions
-- are read from one shard.

CREATE TABLE IF NOT EXISTS market.order_events_local ON CLUSTER '{cluster}'
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
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/market/order_events_local', '{replica}')
PARTITION BY toYYYYMM(event_time)
ORDER BY (order_id, event_key);

CREATE TABLE IF NOT EXISTS market.order_events ON CLUSTER '{cluster}' AS market.order_events_local
ENGINE = Distributed('{cluster}', market, order_events_local, cityHash64(order_id));

-- Recorded once on any node; replication carries it to every node.
INSERT INTO market.schema_migrations (version, name) VALUES (5, 'order_events');
