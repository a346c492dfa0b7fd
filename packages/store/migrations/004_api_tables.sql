-- Tables and indexes owned by services/query-api.
--
-- market.api_keys: API keys, never stored in clear. A key reads `fpk_<key_id>_<secret>`; the row
-- keeps sha256(salt || secret) with a random per-key salt. The secret is 256 random bits, so a fast
-- hash is enough (nothing to brute-force) and keeps per-request verification cheap. Revoking a key
-- writes a new row with revoked = 1 and a higher version: read with FINAL.
CREATE TABLE IF NOT EXISTS market.api_keys
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
ENGINE = ReplacingMergeTree(version)
ORDER BY key_id;

-- market.order_audit: two rows per order request, phase 'request' before the call to the service
-- and phase 'outcome' after it (accepted, rejected, refused by a pre-trade check, error with unknown
-- outcome, replayed from an earlier request with the same correlationId). A crash between the two
-- leaves the 'request' row as evidence. Ordered by correlation id: idempotent retries look it up.
CREATE TABLE IF NOT EXISTS market.order_audit
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
ENGINE = MergeTree
PARTITION BY toYYYYMM(at)
ORDER BY (correlation_id, at, request_id);

-- Bars and tick ranges are asked for by trade time (ltt) while ticks are ordered by receive time;
-- within one instrument both grow together, so a min-max index on ltt lets a day's query skip the
-- other days' granules. Parts written before this migration simply have no index (still correct).
ALTER TABLE market.ticks ADD INDEX IF NOT EXISTS ticks_ltt_minmax ltt TYPE minmax GRANULARITY 1;
