-- Tables owned by services/trading-gateway.
--
-- market.gateway_api_keys: the trading gateway's own API keys (scopes trade, admin), apart from the
-- query API's market.api_keys, so a notebook's read key can never place an order and revoking one
-- service's key leaves the other's alone. Same layout and hashing as market.api_keys (004): a key
-- reads `fpk_<key_id>_<secret>`, the row keeps sha256(salt || secret); revoking writes a new row
-- with revoked = 1 and a higher version: read with FINAL.
CREATE TABLE IF NOT EXISTS market.gateway_api_keys
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
