-- Cluster counterpart of packages/store/migrations/007_gateway_api_keys.sql. Sharded by key id like
-- market.api_keys (004), so FINAL stays correct.

CREATE TABLE IF NOT EXISTS market.gateway_api_keys_local ON CLUSTER '{cluster}'
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
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/market/gateway_api_keys_local', '{replica}', version)
ORDER BY key_id;

CREATE TABLE IF NOT EXISTS market.gateway_api_keys ON CLUSTER '{cluster}' AS market.gateway_api_keys_local
ENGINE = Distributed('{cluster}', market, gateway_api_keys_local, cityHash64(key_id));

-- Recorded once on any node; replication carries it to every node.
INSERT INTO market.schema_migrations (version, name) VALUES (7, 'gateway_api_keys');
