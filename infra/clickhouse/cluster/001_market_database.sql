-- Cluster counterpart of packages/store/migrations/001_market_database.sql (README.md beside this
-- file says how to apply these files and which server settings they expect).
--
-- market.schema_migrations is the table the store's migration runner reads to know what is applied.
-- Here it is replicated to EVERY node (its replication path has no {shard}), so a service that runs
-- the runner against any node of the cluster sees the versions recorded by these files and skips the
-- single-node DDL, which would otherwise create plain MergeTree tables on one node.

CREATE DATABASE IF NOT EXISTS market ON CLUSTER '{cluster}';

CREATE TABLE IF NOT EXISTS market.schema_migrations ON CLUSTER '{cluster}'
(
    version    UInt32,
    name       String,
    applied_at DateTime64(3) DEFAULT now64(3)
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/market/schema_migrations', '{replica}')
ORDER BY version;

-- Recorded once on any node; replication carries it to every node.
INSERT INTO market.schema_migrations (version, name) VALUES (1, 'market_database');
