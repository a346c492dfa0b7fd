-- Cluster counterpart of packages/store/migrations/004_api_tables.sql. api_keys is sharded by key
-- id (FINAL stays correct, see 003), order_audit by correlation id (an idempotent retry finds its
-- earlier request on one shard). The ticks index goes on the LOCAL table: a Distributed table has
-- no indexes of its own.

CREATE TABLE IF NOT EXISTS market.api_keys_local ON CLUSTER '{cluster}'
(
    key_id      String,
    name        String,
    scopes      Array(LowCardinality(String)),
    salt        String,
    hash        String,
    created_at  DateTime64(3, 'UTC'),
    revoked     UInt8,
    version     UInt64
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/market/api_keys_local', '{replica}', version)
ORDER BY key_id;

CREATE TABLE IF NOT EXISTS market.api_keys ON CLUSTER '{cluster}' AS market.api_keys_local
ENGINE = Distributed('{cluster}', market, api_keys_local, cityHash64(key_id));

CREATE TABLE IF NOT EXISTS market.order_audit_local ON CLUSTER '{cluster}'
(
    at              DateTime64(3, 'UTC'),
    request_id      String,
    phase           Enum8('request' = 1, 'outcome' = 2),
    key_id          String,
    action          LowCardinality(String),
    correlation_id  String,
    order_id        String,
    security_id     String,
    exchange_segment LowCardinality(String),
    transaction_type LowCardinality(String),
    quantity        Float64,
    price           Float64,
    request_json    String,
    outcome         LowCardinality(String),
    http_status     UInt16,
    order_status    LowCardinality(String),
    error_code      String,
    error_message   String,
    response_json   String,
    latency_ms      UInt32
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/market/order_audit_local', '{replica}')
PARTITION BY toYYYYMM(at)
ORDER BY (correlation_id, at, request_id);

CREATE TABLE IF NOT EXISTS market.order_audit ON CLUSTER '{cluster}' AS market.order_audit_local
ENGINE = Distributed('{cluster}', market, order_audit_local, cityHash64(correlation_id));

ALTER TABLE market.ticks_local ON CLUSTER '{cluster}' ADD INDEX IF NOT EXISTS ticks_ltt_minmax ltt TYPE minmax GRANULARITY 1;

-- Recorded once on any node; replication carries it to every node.
INSERT INTO market.schema_migrations (version, name) VALUES (4, 'api_tables');
